# 2-D convex hulls and random lines, for the trees that cut in a pair of features (BSP).
#
# A hull is a convex polygon stored as m vertices (x0, y0, x1, y1, ...) in counter-clockwise
# order, without repeated or collinear vertices: m = 0 is empty, 1 a point, 2 a segment.
# Lengths (perimeters, widths) are measured after scaling x by `sx` and y by `sy` (a
# diagonal map keeps a polygon convex and its vertices vertices), so a tree can keep hulls in
# the units of the data and measure them in units of its root range.
#
# The random lines are the isotropic line measure of integral geometry, in scaled units: the
# lines meeting a convex set K have measure perimeter(K) (Cauchy-Crofton), and drawing the
# direction theta with density proportional to K's width in that direction, then the
# position uniformly across K, draws a line from that measure restricted to K (fan2020,
# algorithm 2, lines 3-4). The lines separating a point q from K have measure
# perimeter(hull(K + q)) - perimeter(K) (fan2020's GenCutNotCross). Both are drawn exactly,
# by inversion, from the support function written piece by piece over K's vertices.

from libc.stdint cimport int32_t

from ._random cimport RNG

cdef int32_t hull_build(double* pts, int32_t n, double* out) noexcept nogil
cdef int32_t hull_add(const double* v, int32_t m, double qx, double qy, double sx, double sy,
                      double* out, double* grew) noexcept nogil
cdef bint hull_contains(const double* v, int32_t m, double px, double py) noexcept nogil
cdef double hull_perimeter(const double* v, int32_t m, double sx, double sy) noexcept nogil
cdef int32_t hull_reduce(double* v, int32_t m, int32_t cap) noexcept nogil
cdef int line_hitting(const double* v, int32_t m, double sx, double sy, double* scratch,
                      RNG* rng, double* ca, double* cb, double* off) noexcept nogil
cdef int line_separating(const double* v, int32_t m, double qx, double qy, double sx, double sy,
                         double* scratch, RNG* rng, double* ca, double* cb,
                         double* off) noexcept nogil


cdef inline double cross3(double ax, double ay, double bx, double by, double cx,
                          double cy) noexcept nogil:
    """(b - a) x (c - a): > 0 when a, b, c turn counter-clockwise."""
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
