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

from libc.stdint cimport uint64_t


# The float32 next to a finite or infinite float32 f, by its bits: what nextafterf(f, -inf)
# and nextafterf(f, +inf) give, without a libm call per value, and the rounding written
# with selects rather than branches (whether a value rounds up or down is a coin toss the
# branch predictor would lose). Neither is ever asked to step past an infinity: round_down
# steps only from an f above a finite v, round_up only from an f below one.
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    static inline float rf_step(float f, int up) {
        uint32_t u;
        float g;
        memcpy(&u, &f, sizeof u);
        u += ((f > 0.0f) == (up != 0)) ? 1u : (uint32_t)-1;
        u = (f == 0.0f) ? (up ? 0x00000001u : 0x80000001u) : u;
        memcpy(&g, &u, sizeof g);
        return g;
    }
    static inline float rf_round_down(double v) {
        float f = (float)v;
        float g = rf_step(f, 0);
        return ((double)f > v) ? g : f;
    }
    static inline float rf_round_up(double v) {
        float f = (float)v;
        float g = rf_step(f, 1);
        return ((double)f < v) ? g : f;
    }
    """
    float rf_round_down(double v) noexcept nogil
    float rf_round_up(double v) noexcept nogil


# The lowest set bit's index of a nonzero mask (gcc's and clang's builtin; MSVC's intrinsic).
cdef extern from *:
    """
    #include <stdint.h>
    #if defined(_MSC_VER)
    #include <intrin.h>
    static inline int rf_lowest_bit(uint64_t m) {
        unsigned long i;
        _BitScanForward64(&i, m);
        return (int)i;
    }
    #else
    static inline int rf_lowest_bit(uint64_t m) { return __builtin_ctzll(m); }
    #endif
    """
    int rf_lowest_bit(uint64_t m) noexcept nogil


cdef inline float round_down(double v) noexcept nogil:
    """The largest float32 <= v (NaN for NaN)."""
    return rf_round_down(v)


cdef inline float round_up(double v) noexcept nogil:
    """The smallest float32 >= v (NaN for NaN)."""
    return rf_round_up(v)


cdef inline double extension(double v, double lo, double hi) noexcept nogil:
    """How far `v` lies outside [lo, hi]: 0 inside, for a missing `v` or for an empty box."""
    if v == v and lo <= hi:
        if v < lo:
            return lo - v
        if v > hi:
            return v - hi
    return 0.0


# A point against a float32 box, in float32 only. For a float32 side s and a float64 value v,
# v < s exactly when round_down(v) < s, and v > s exactly when round_up(v) > s; so a point
# bracketed once (`bracket`) is tested against every box on its path without converting a
# side to float64, in loops the compiler vectorizes, with the same answers as float64 tests.

cdef inline void bracket(const double* v, float* below, float* above, int n) noexcept nogil:
    """below[d] = round_down(v[d]), above[d] = round_up(v[d]); NaN (missing) stays NaN."""
    cdef int d
    for d in range(n):
        below[d] = round_down(v[d])
        above[d] = round_up(v[d])


cdef enum:
    BOX_LANES = 4  # float32 compares per SSE instruction


cdef inline int padded(int n) noexcept nogil:
    """`n` rounded up to a multiple of BOX_LANES. A tree whose feature stride is a multiple of
    BOX_LANES, and whose bracket holds NaN past its features, can test boxes on the padded
    width: the loop then has no scalar remainder, and the padding never counts as outside."""
    return (n + BOX_LANES - 1) & ~(BOX_LANES - 1)


cdef inline bint outside(const float* below, const float* above, const float* lo,
                         const float* hi, int n) noexcept nogil:
    """Whether the bracketed point lies outside [lo, hi] on some side, or gives an empty side
    (lo = +inf, hi = -inf) its first value; a missing value never does."""
    cdef int d
    cdef int out = 0
    for d in range(n):
        out |= (below[d] < lo[d]) | (above[d] > hi[d])
    return out != 0


cdef inline void stretch_box(float* lo, float* hi, const float* below, const float* above,
                             int n) noexcept nogil:
    """Stretch [lo, hi] to hold the bracketed point (rounded outward). Written as selects
    (min and max, a missing value selecting the side itself) so the loop has no branch and
    vectorizes; a caller knows whether the box grows from `outside`."""
    cdef int d
    for d in range(n):
        lo[d] = below[d] if below[d] < lo[d] else lo[d]
        hi[d] = above[d] if above[d] > hi[d] else hi[d]


# The same tests on the slots a sample sets, for a sparse sample: `mask` has bit d set for each
# slot d < 64 the point has a value in (`BoxTree.shift`; DENSE_ROW, every bit, for a sample
# that is not sparse: the dense loops then). A missing value neither lies outside
# a box nor stretches it, so skipping the unset slots gives the dense loops' answers, and a
# sum over the set slots in ascending order (`rf_lowest_bit`) adds the same terms in the same
# order as the dense loop, which adds +0.0 for each unset one.

cdef enum:
    # `BoxTree.shift`'s answer for a sample that is not sparse: the dense loops
    DENSE_ROW = -1  # as a uint64_t: every bit set


cdef inline bint outside_set(const float* below, const float* above, const float* lo,
                             const float* hi, uint64_t mask) noexcept nogil:
    """`outside`, over the slots in `mask`."""
    cdef int d
    cdef int out = 0
    while mask:
        d = rf_lowest_bit(mask)
        mask &= mask - 1
        out |= (below[d] < lo[d]) | (above[d] > hi[d])
    return out != 0


cdef inline void stretch_set(float* lo, float* hi, const float* below, const float* above,
                             uint64_t mask) noexcept nogil:
    """`stretch_box`, over the slots in `mask`."""
    cdef int d
    while mask:
        d = rf_lowest_bit(mask)
        mask &= mask - 1
        lo[d] = below[d] if below[d] < lo[d] else lo[d]
        hi[d] = above[d] if above[d] > hi[d] else hi[d]
