# The BSP tree's cuts: a line in one pair of slots, drawn from the line measure of
# `_hull.pxd` on a node's hulls, either meeting the chosen pair's hull (HullCut, fan2020's
# algorithms 2 and 5: a leaf cut as the budget grows) or separating it from a point outside
# (GenCutNotCross: a parent inserted above the node, the point alone on the new side).

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree


ctypedef struct Cut:
    int32_t a               # the pair's first slot (the cut's `feature` is columns[a])
    int32_t b               # the pair's second slot (`feature_b`: columns[b])
    double ca               # the line: ca * x[a] + cb * x[b] <= thr goes left (`_oblique.pxd`)
    double cb               # the second slot's coefficient
    double thr              # the threshold, in the data's raw units (not relative to `origin`)


# a pair in proportion to `weight` (`total` its sum) with its hull in the block `src`
cdef int32_t pick_pair(BSPTree t, const double* src, const double* weight, double total,
                       const double** verts, int32_t* nv) noexcept nogil
# a line along one axis of the pair (a, b) meeting the hull `verts` (the axis in proportion
# to the hull's extent on it); 1 if the hull has no extent
cdef int axis_hitting(BSPTree t, const double* verts, int32_t nv, int32_t a, int32_t b,
                      Cut* cut, double* off) noexcept nogil
# a cut of the node whose hulls are `src`, its pair drawn in proportion to `weight`: a line
# meeting the pair's hull (xs NULL; along an axis with probability
# `axis_rate`) or separating it from xs; 1 if none could be drawn
cdef int draw_cut(BSPTree t, const double* src, const double* weight, double total,
                  const double* xs, Cut* cut) noexcept nogil
# cut leaf `node` at `time` (HullCut); its kept points go to the children
cdef int hull_cut(BSPTree t, int32_t node, double time) except -1 nogil
# insert a parent above `node` cut between its hulls and x (GenCutNotCross); 1 if no line
cdef int cut_not_crossing(BSPTree t, int32_t node, const double* x, const double* xs,
                          const double* block, size_t cells, const double* delta,
                          double time, double y, double w, double g) except -1 nogil
