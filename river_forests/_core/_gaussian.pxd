# Per-class Gaussian summaries of a numeric feature at a leaf, as MOA's Hoeffding trees keep
# them (GaussianNumericAttributeClassObserver): for each class, the weight, the mean, the sum
# of squared deviations (weighted Welford) and the range of the values seen. Written once here
# for every tree kind that splits or predicts from them (the stream-partitioning tree's
# Gaussian splitter and its naive Bayes leaves).
#
# One feature's summary is G_ROWS rows of `stride` cells (one cell per class, the tree's
# `value_stride`), so it lives in a per-leaf pool (`_pool.pxd`) whose relayout widens it when a
# class appears (new cells 0: a class of weight 0 has no summary, its other cells are unread).

from libc.math cimport INFINITY, erfc, sqrt
from libc.stdint cimport int32_t

cdef enum:
    G_WEIGHT = 0     # weight of the class's values seen
    G_MEAN = 1       # their weighted mean
    G_M2 = 2         # their weighted sum of squared deviations from the mean
    G_LOW = 3        # their smallest value
    G_HIGH = 4       # their largest value
    G_ROWS = 5


cdef inline void gauss_add(double* g, size_t stride, int32_t c, double v, double w) noexcept nogil:
    """Count value `v` of class `c` with weight `w` (> 0) in the summary at `g` (West's
    weighted update of the mean and the squared deviations)."""
    cdef double n = g[c] + w, d
    if g[c] <= 0.0:
        g[c] = w
        g[G_MEAN * stride + c] = v
        g[G_M2 * stride + c] = 0.0
        g[G_LOW * stride + c] = v
        g[G_HIGH * stride + c] = v
        return
    d = v - g[G_MEAN * stride + c]
    g[c] = n
    g[G_MEAN * stride + c] += w * d / n
    g[G_M2 * stride + c] += w * d * (v - g[G_MEAN * stride + c])
    if v < g[G_LOW * stride + c]:
        g[G_LOW * stride + c] = v
    if v > g[G_HIGH * stride + c]:
        g[G_HIGH * stride + c] = v


cdef inline double normal_below(double w, double mean, double scale, double low, double high,
                                double t) noexcept nogil:
    """The estimated weight at or below `t` of `w` values of mean `mean`, `scale` = their
    standard deviation times sqrt(2), seen between `low` and `high`: all of it above the
    largest value, none below the smallest, the normal distribution function in between
    (MOA's binary split estimate). A search over thresholds computes `scale` once a class."""
    if t < low:
        return 0.0
    if t >= high:
        return w
    if scale <= 0.0:
        return w if t >= mean else 0.0
    return w * 0.5 * erfc((mean - t) / scale)


cdef inline double gauss_scale(const double* g, size_t stride, int32_t c) noexcept nogil:
    """`normal_below`'s scale of class `c` (weight > 0): its standard deviation times sqrt(2)."""
    return sqrt(g[G_M2 * stride + c] / g[c]) * 1.4142135623730951


cdef inline double gauss_below(const double* g, size_t stride, int32_t c, double t) noexcept nogil:
    """`normal_below` for class `c`'s summary (0 for a class without values)."""
    if g[c] <= 0.0:
        return 0.0
    return normal_below(g[c], g[G_MEAN * stride + c], gauss_scale(g, stride, c),
                        g[G_LOW * stride + c], g[G_HIGH * stride + c], t)


cdef inline double gauss_variance(const double* g, size_t stride, int32_t c,
                                  double min_var) noexcept nogil:
    """Class `c`'s variance (weight > 0), at least `min_var`: a class seen once, or always at
    one value, is a narrow bump for naive Bayes, not a spike."""
    cdef double var = g[G_M2 * stride + c] / g[c]
    return var if var >= min_var else min_var


cdef inline double gauss_span(const double* g, size_t stride, int32_t n, double* low,
                              double* high) noexcept nogil:
    """The range of every class's values seen (`low`, `high`) and their total weight."""
    cdef double total = 0.0
    cdef int32_t c
    low[0] = INFINITY
    high[0] = -INFINITY
    for c in range(n):
        if g[c] > 0.0:
            total += g[c]
            if g[G_LOW * stride + c] < low[0]:
                low[0] = g[G_LOW * stride + c]
            if g[G_HIGH * stride + c] > high[0]:
                high[0] = g[G_HIGH * stride + c]
    return total
