# The points a leaf of the BSP tree keeps: at most `max_leaf_points` of those it has seen (a
# uniform sample past that, reservoir sampling), a row of `feature_capacity` raw slot values
# each in the `points` pool (NaN where missing) and their (y, w) in the `targets` pool, as
# many as `stored` says. At a cut they go to the children, which build their hulls from them.

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree
from ._bsp_cuts cimport Cut

# give the kept points a value (NaN) for every slot that arrived since they were kept
cdef int sync_points(BSPTree t) except -1 nogil
# keep the sample in leaf `node` (its count already includes it)
cdef int keep_point(BSPTree t, int32_t node, const double* x, double y, double w) except -1 nogil
# move leaf `node`'s kept points into scratch (region 3) and free its blocks; returns how many
cdef int32_t lift_points(BSPTree t, int32_t node) except -1 nogil
# the `n` lifted points of a leaf that saw `seen` go to its children l, r by `cut`
cdef int deal_points(BSPTree t, int32_t l, int32_t r, int32_t n, double seen,
                     const Cut* cut) except -1 nogil
# zero every kept point's target (a refit forgets them)
cdef int clear_targets(BSPTree t) except -1 nogil
