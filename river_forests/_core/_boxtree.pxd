# What the Mondrian, purely random and BSP trees share, written once: the box of the data
# each node has seen (float32, relative to a per-feature origin, in _box.pxd's outward
# rounding), the per-feature scale of the root box, and a split rate per node with a top-down
# draw of a leaf at those rates, and the race of exponential clocks that grows a partition's
# lifetime (Mondrian's ExtendMondrian, BSP's growing budget). Not a tree kind: a kind derives
# from it and says what a leaf's rate is (`leaf_rate`: its linear dimension for Mondrian, 1
# for a cuttable leaf of the purely random tree, half its projected hulls' perimeters for BSP)
# and how it splits one (`split_leaf`).

from libc.stdint cimport int32_t

from ._leaf_linear cimport LeafInput, LinearLeaves, model_learn
from ._tree cimport Tree


cdef class BoxTree(Tree):
    # --- per node (`capacity` rows) ---
    cdef double* rate           # sum of `leaf_rate` over the leaves below the node (itself if a leaf)
    cdef float* lower           # `feature_capacity` columns per node: lower corner of the box of
                                # data the node has seen, relative to `origin`, rounded down
                                # (+inf where it has seen none); see _box.pxd
    cdef float* upper           # upper corner of that box, rounded up (-inf where it has seen none)

    # --- per feature slot (`feature_capacity` entries) ---
    cdef LeafInput inp          # `_leaf_linear`'s input: `origin` (the first value the tree saw
                                # of the feature, NaN before: the boxes' zero), `scale` (1 / range
                                # of the root box at the last rescale, 0 if no range), `snapshot`
                                # (that range), `rescale_factor` (rescale when a root range
                                # exceeds snapshot * rescale_factor) and `z` (scratch: the sample
                                # from `origin` in units of the root range, 0 where missing: the
                                # models' input; `models.z_cells` a slot, 1 with linear leaves
                                # and in every Mondrian tree, whose budget always counted it)
    cdef double* shifted        # scratch: the sample being learned, minus `origin` (NaN if missing)
    cdef float* below           # scratch: `shifted` rounded down to float32 (see _box.bracket)
    cdef float* above           # scratch: `shifted` rounded up to float32

    # --- linear leaves (a regressor's; `_leaf_linear`): a model per node over `z` ---
    cdef LinearLeaves models    # the coefficients (`coef`): the intercept, then one per slot;
                                # stride feature_capacity + 1, or 0 without linear leaves
    cdef int32_t coef_cols      # cells saved per row: n_features + 1, or 0
    cdef bint linear            # a node predicts with its linear model (else its mean)
    cdef double linear_rate     # normalized step of the slopes' updates, in (0, 1]

    # --- the race of exponential clocks (a kind that uses it declares these in its table) ---
    cdef double lifetime        # the budget the tree's partition has been grown to (Mondrian's
                                # lifetime lambda, BSP's budget tau)
    cdef double hazard          # the tree's exponential clock: integrated split rate left
                                # before the next split from lifetime growth (an Exp(1) draw)

    # boxes
    cdef void shift(self, const double* x) noexcept nogil
    cdef void stretch(self, int32_t node) noexcept nogil
    cdef double leaf_size(self, int32_t node) noexcept nogil
    cdef int maybe_rescale(self, const double* xs) except -1 nogil

    # linear leaves
    cdef bint fits_models(self) noexcept nogil
    cdef double load_z(self, const double* x) noexcept nogil
    cdef double models_gain(self, const double* x, double w) noexcept nogil

    # rates
    cdef double leaf_rate(self, int32_t node) noexcept nogil
    cdef void propagate_rate(self, int32_t node, double delta) noexcept nogil
    cdef int recompute_rates(self) except -1 nogil
    cdef int free_twig(self, int32_t node) except -1 nogil
    cdef int32_t pick_leaf(self) noexcept nogil
    cdef int grow_lifetime(self, double new_lifetime) except -1 nogil
    cdef int split_leaf(self, int32_t node, double time) except -1 nogil


cdef inline void learn_node(BoxTree t, int32_t node, double y, double w, double g) noexcept nogil:
    """Node `node` learns (y, w): its linear model's step first (`g`: `BoxTree.models_gain`,
    `z` loaded), if the tree has linear leaves, then its statistics."""
    model_learn(&t.models, t, node, t.inp.z, y, w, g)
