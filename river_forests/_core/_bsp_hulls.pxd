# Each node's hulls in the BSP tree: for each pair p of the tree's pairs, in order, an entry
# [m_p, x0, y0, ..., x_m, y_m] of the `hulls` pool's block, the hull of the node's points
# projected on the pair's two slots (relative to `origin`, `_hull.pxd`'s polygons) with at
# most `max_hull_vertices` vertices. Their layout as the pairs change, their upkeep as points
# arrive, and their measures (the rate of the node's cuts). Built and cut by `_bsp_cuts`.

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree


cdef inline size_t entry_cells(int32_t m) noexcept nogil:
    """Cells of a hull entry of m vertices (its count, then its coordinates)."""
    return 1 + 2 * <size_t>m


# store `block` (scratch, never the pool's cells) as the node's hulls
cdef int set_hulls(BSPTree t, int32_t node, const double* block, size_t cells) except -1 nogil
# lay every node's hulls out for the current pairs: keep entry p if p < old_pairs and keep[p]
cdef int reset_hulls(BSPTree t, const int32_t* keep, int32_t old_pairs) except -1 nogil
# the feature in `slot` leaves the subspace: the hulls of its pairs are emptied
cdef int clear_slot_hulls(BSPTree t, int32_t slot) except -1 nogil
# the node's hulls (and box) from `n` raw points (rows of `feature_capacity` slot values)
cdef int point_hulls(BSPTree t, int32_t node, const double* pts, int32_t n) except -1 nogil
# the hulls of the point xs alone (relative to `origin`) into `out`; returns the cells
cdef size_t point_block(BSPTree t, const double* xs, double* out) noexcept nogil
# each pair's perimeter in root units into `per` (if not NULL) for a node's block; their sum
cdef double pair_perimeters(BSPTree t, const double* src, double* per) noexcept nogil
# half the sum of the node's hull perimeters, in root units: the rate of its cuts
cdef double hull_rate(BSPTree t, int32_t node) noexcept nogil
# whether every hull of the node holds the point xs, the sample being learned (relative to
# `origin`; missing holds); false at once outside the node's box
cdef bint holds(BSPTree t, int32_t node, const double* xs) noexcept nogil
# the node's hulls with xs added into `block` (cells written, 0 if every hull holds xs), each
# pair's perimeter increase into `delta`, half their sum into rate[0], grown[0] if one grew;
# `tested`: `holds` was found false already
cdef int32_t extended(BSPTree t, int32_t node, const double* xs, double* block, double* delta,
                      double* rate, bint* grown, bint tested) except -1 nogil
