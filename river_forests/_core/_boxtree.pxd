# What the Mondrian, purely random and BSP trees share, written once: the box of the data
# each node has seen (float32, relative to a per-feature origin, in _box.pxd's outward
# rounding), the per-feature scale of the root box, and a split rate per node with a top-down
# draw of a leaf at those rates, and the race of exponential clocks that grows a partition's
# lifetime (Mondrian's ExtendMondrian, BSP's growing budget). Not a tree kind: a kind derives
# from it and says what a leaf's rate is (`leaf_rate`: its linear dimension for Mondrian, 1
# for a cuttable leaf of the purely random tree, half its projected hulls' perimeters for BSP)
# and how it splits one (`split_leaf`).

from libc.stdint cimport int32_t, uint64_t

from ._leaf_linear cimport LinearTree, model_learn


cdef class BoxTree(LinearTree):
    # --- per node (`capacity` rows) ---
    cdef double* rate           # sum of `leaf_rate` over the leaves below the node (itself if a leaf)
    cdef float* lower           # `feature_capacity` columns per node: lower corner of the box of
                                # data the node has seen, relative to `origin`, rounded down
                                # (+inf where it has seen none); see _box.pxd
    cdef float* upper           # upper corner of that box, rounded up (-inf where it has seen none)

    # --- per feature slot (`feature_capacity` entries) ---
    # (`LinearTree.inp`, the input of the linear leaves: `origin`, the boxes' zero, and
    # `scale`, 1 / the root box's range at the last rescale, are the boxes' too)
    cdef double* shifted        # scratch: the sample being learned, minus `origin` (NaN if missing)
    cdef float* below           # scratch: `shifted` rounded down to float32 (see _box.bracket)
    cdef float* above           # scratch: `shifted` rounded up to float32

    # --- the race of exponential clocks (a kind that uses it declares these in its table) ---
    cdef double lifetime        # the budget the tree's partition has been grown to (Mondrian's
                                # lifetime lambda, BSP's budget tau)
    cdef double hazard          # the tree's exponential clock: integrated split rate left
                                # before the next split from lifetime growth (an Exp(1) draw)

    # boxes
    cdef uint64_t shift(self, const double* x) noexcept nogil
    cdef void stretch(self, int32_t node) noexcept nogil
    cdef void stretch_slots(self, int32_t node, uint64_t slots) noexcept nogil
    cdef bint outside_box(self, int32_t node, uint64_t slots) noexcept nogil
    cdef double leaf_size(self, int32_t node) noexcept nogil
    cdef int maybe_rescale(self, const double* xs, uint64_t slots) except -1 nogil

    # linear leaves
    cdef double load_z(self, const double* x) noexcept nogil
    cdef double models_gain(self, const double* x, double w) noexcept nogil

    # rates
    cdef double leaf_rate(self, int32_t node) noexcept nogil
    cdef void propagate_rate(self, int32_t node, double delta) noexcept nogil
    cdef int recompute_rates(self) except -1 nogil
    cdef int rates_after_clear(self, int32_t slot) except -1 nogil
    cdef int free_twig(self, int32_t node) except -1 nogil
    cdef int32_t pick_leaf(self) noexcept nogil
    cdef int grow_lifetime(self, double new_lifetime) except -1 nogil
    cdef int split_leaf(self, int32_t node, double time) except -1 nogil


cdef inline void learn_node(BoxTree t, int32_t node, double y, double w, double g) noexcept nogil:
    """Node `node` learns (y, w): its linear model's step first (`g`: `BoxTree.models_gain`,
    `z` loaded), if the tree has linear leaves, then its statistics."""
    model_learn(&t.models, t, node, t.inp.z, y, w, g)
