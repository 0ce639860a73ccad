# Per-class Gaussian summaries of a numeric feature at a leaf, as MOA's Hoeffding trees keep
# them (GaussianNumericAttributeClassObserver): for each class, the weight, the mean, the sum
# of squared deviations (weighted Welford) and the range of the values seen; the best binary
# split of a feature they estimate, and the naive Bayes posterior they give. Written once here
# for every tree kind that splits or predicts from them (the stream-partitioning tree's
# Gaussian splitter and its naive Bayes leaves, `_sp_gaussian`).
#
# One feature's summary is G_ROWS rows of `stride` cells (one cell per class, the tree's
# `value_stride`), so it lives in a per-leaf pool (`_pool.pxd`) whose relayout widens it when a
# class appears (new cells 0: a class of weight 0 has no summary, its other cells are unread).

from libc.math cimport INFINITY, erfc, exp, log, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

from ._impurity cimport entropy_gain, xlog2x

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


cdef inline double gauss_best_threshold(const double* g, size_t stride, int32_t n, int32_t bins,
                                        double min_share, double* scratch,
                                        double* threshold) noexcept nogil:
    """The best information gain (bits) of splitting one feature's values, summarised per
    class in `g` (n classes), at one of `bins` thresholds evenly inside the range of the
    values seen (x <= t goes left), each side's class weights estimated from the classes'
    Gaussians (`normal_below`); a side must hold `min_share` of the weight. Writes the best
    threshold into `threshold[0]` (the range's low end if none gains), and returns 0 when
    there is one class, one value, or no gain. `scratch`: 5 n doubles."""
    cdef double* w = scratch            # the classes present: weight, mean, scale, lowest,
    cdef double* mean = scratch + n     # highest value
    cdef double* sd = scratch + 2 * n
    cdef double* lo = scratch + 3 * n
    cdef double* hi = scratch + 4 * n
    cdef double low = INFINITY, high = -INFINITY, total = 0.0, parent = 0.0
    cdef double best = 0.0, t, nl, sl, sr, lw, gain
    cdef int32_t c, i, p, present = 0
    for c in range(n):
        if g[c] <= 0.0:
            continue
        w[present] = g[c]
        mean[present] = g[G_MEAN * stride + c]
        sd[present] = gauss_scale(g, stride, c)
        lo[present] = g[G_LOW * stride + c]
        hi[present] = g[G_HIGH * stride + c]
        low = lo[present] if lo[present] < low else low
        high = hi[present] if hi[present] > high else high
        total += g[c]
        parent -= xlog2x(g[c])
        present += 1
    threshold[0] = low
    if present < 2 or not high > low:
        return 0.0  # one class, or one value: nothing to gain
    parent += xlog2x(total)
    for i in range(bins):
        t = low + (high - low) * (i + 1) / (bins + 1)
        nl = 0.0
        sl = 0.0
        sr = 0.0
        for p in range(present):
            lw = normal_below(w[p], mean[p], sd[p], lo[p], hi[p], t)
            nl += lw
            sl += xlog2x(lw)
            sr += xlog2x(w[p] - lw)
        if nl < min_share * total or total - nl < min_share * total:
            continue
        gain = entropy_gain(parent, total, nl, sl, total - nl, sr)
        if gain > best:
            best = gain
            threshold[0] = t
    return best


cdef inline int32_t gauss_naive_bayes(const double* prior, int32_t n, const double* g,
                                      size_t stride, const double* x, const double* columns,
                                      int32_t dims, double min_sd_share, double* out,
                                      int32_t n_out) noexcept nogil:
    """Naive Bayes: the class weights `prior` (n classes) as the prior, the Gaussians of
    `dims` features as the likelihoods (feature k's summary at g + k G_ROWS stride, its value
    x[columns[k]], a missing value left out; a feature's variance floored at (`min_sd_share`
    of its range)^2). Writes the posterior into `out[:n_out]` (if not NULL) and returns the
    most probable class, or -1 when no class has both prior weight and summaries."""
    cdef const double* gk
    cdef int32_t k, c, best = -1
    cdef double top = -INFINITY, low, high, min_var, xv, total, var, d
    cdef double local[128]
    cdef double* score = local
    cdef double* volume     # per class, a product of variances not yet in the score's log
    if n > 64:
        score = <double*>malloc(2 * <size_t>n * sizeof(double))
        if score == NULL:
            return -1
    volume = score + n
    for c in range(n):
        score[c] = log(prior[c]) if prior[c] > 0.0 else -INFINITY
        volume[c] = 1.0
    for k in range(dims):
        xv = x[<int32_t>columns[k]]
        if xv != xv:
            continue
        gk = g + <size_t>k * G_ROWS * stride
        gauss_span(gk, stride, n, &low, &high)
        if not high >= low:
            continue
        min_var = min_sd_share * (high - low)
        min_var = min_var * min_var if min_var > 0.0 else 1e-12
        for c in range(n):
            if score[c] == -INFINITY:
                continue
            if gk[c] <= 0.0:  # a class without values has no likelihood
                score[c] = -INFINITY
                continue
            # log N(xv; mean, var), its log(2 pi var) taken once per few features
            var = gauss_variance(gk, stride, c, min_var)
            d = xv - gk[G_MEAN * stride + c]
            score[c] -= 0.5 * d * d / var
            volume[c] *= 6.283185307179586 * var
            if not 1e-100 < volume[c] < 1e100:
                score[c] -= 0.5 * log(volume[c])
                volume[c] = 1.0
    for c in range(n):
        if score[c] > -INFINITY:
            score[c] -= 0.5 * log(volume[c])
    for c in range(n):
        if score[c] > top:
            top = score[c]
            best = c
    if out != NULL and best >= 0:
        total = 0.0
        for c in range(n_out):
            out[c] = exp(score[c] - top) if c < n and score[c] > -INFINITY else 0.0
            total += out[c]
        for c in range(n_out):
            out[c] /= total
    if score != local:
        free(score)
    return best
