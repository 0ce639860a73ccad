# Axis-aligned boxes stored in float32, shared by every tree kind that keeps the box of the
# data a node has seen.
#
# A box side is stored relative to a per-feature origin (the first value the tree saw for
# that feature), so float32 keeps ~7 significant digits of the data's spread whatever its
# offset. Values are rounded outward on the way in (a lower side down, an upper side up),
# so a stored box always contains every point it was stretched to: a point seen before
# never lies outside it, and the box is at most one float32 step per side wider than the
# exact one. Half the bytes of float64 boxes: twice the nodes in the same memory, and half
# the memory traffic of a root-to-leaf walk, most of whose bytes are box rows.

from libc.math cimport INFINITY


cdef extern from "<math.h>" nogil:
    float nextafterf(float x, float y)


cdef inline float round_down(double v) noexcept nogil:
    """The largest float32 <= v."""
    cdef float f = <float>v
    if <double>f > v:
        f = nextafterf(f, -INFINITY)
    return f


cdef inline float round_up(double v) noexcept nogil:
    """The smallest float32 >= v."""
    cdef float f = <float>v
    if <double>f < v:
        f = nextafterf(f, INFINITY)
    return f


cdef inline double extension(double v, double lo, double hi) noexcept nogil:
    """How far `v` lies outside [lo, hi]: 0 inside, for a missing `v` or for an empty box."""
    if v == v and lo <= hi:
        if v < lo:
            return lo - v
        if v > hi:
            return v - hi
    return 0.0
