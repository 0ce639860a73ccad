# The purely random tree of biau2008 (section 3), online: cuts that never look at labels, a
# schedule k_n of cuts, and the scale-invariant variant of theorem 4 (cuts at data ranks).
# Boxes and leaf picking at rates come from `_boxtree.BoxTree`; a leaf's rate is 1 while it
# can be cut, so the leaf to cut is uniform among them.

from libc.stdint cimport int32_t

from ._boxtree cimport BoxTree


cdef class PurelyRandomTree(BoxTree):
    # --- per node (`capacity` rows), used by the scale-invariant cut only ---
    cdef int32_t* next_slot     # the slot of the leaf's next cut, drawn uniformly when the leaf
                                # learns its first sample (-1 before)
    cdef double* pool           # `pool_size` cells: a uniform reservoir sample of the leaf's
                                # values in `next_slot` (NaN where empty)
    cdef double* pool_seen      # values offered to the leaf's reservoir so far

    # --- the schedule of cuts ---
    cdef bint consistent        # k_n = floor(cuts_scale * n^cuts_exponent) (True), or its minimum
                                # with fixed_cuts
    cdef int32_t fixed_cuts     # k of a fixed-k tree
    cdef double cuts_scale
    cdef double cuts_exponent   # in (0, 1): k_n -> infinity and k_n / n -> 0 (theorems 2 and 4)
    cdef int32_t n_cuts         # cuts made so far
    cdef bint scale_invariant   # cut at a random rank of the leaf's points (theorem 4) instead of
                                # at a uniform position in the leaf's box (theorem 2)
    cdef int32_t pool_size      # values a leaf keeps to draw its rank from

    cdef int32_t cuts_due(self) noexcept nogil
    cdef bint pool_cuttable(self, int32_t node) noexcept nogil
    cdef int offer(self, int32_t node, const double* x) except -1 nogil
    cdef int cut_uniform(self, int32_t node) except -1 nogil
    cdef int cut_rank(self, int32_t node) except -1 nogil
    cdef int split(self, int32_t node, int32_t slot, double threshold) except -1 nogil
