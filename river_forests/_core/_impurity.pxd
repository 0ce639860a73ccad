# Impurity kernels over class histograms (weights per class), written once for every tree
# that splits on labels (denil2013's information gain, XForest's best split), as
# scikit-learn keeps its Criterion apart from its trees, and the regression one (CART's
# squared error, XForest's regressor) over each side's weight and sum of targets. Inline and
# nogil; no buffer: the parent's statistics are the sum of the two sides, summed on the fly.

from libc.math cimport log2
from libc.stdint cimport int32_t

cdef enum:
    CRITERION_ENTROPY = 0    # Shannon entropy, in bits
    CRITERION_GINI = 1       # Gini impurity, 1 - sum p_k^2
    CRITERION_MSE = 2        # regression: the variance of the targets (CART's squared error)


cdef inline double xlog2x(double c) noexcept nogil:
    return c * log2(c) if c > 0.0 else 0.0


cdef inline double entropy(const double* h, int32_t n) noexcept nogil:
    """Entropy (bits) of the class distribution of histogram `h` (n classes); 0 if empty."""
    cdef double total = 0.0, s = 0.0
    cdef int32_t k
    for k in range(n):
        total += h[k]
        s += xlog2x(h[k])
    return (xlog2x(total) - s) / total if total > 0.0 else 0.0


cdef inline double gini(const double* h, int32_t n) noexcept nogil:
    """Gini impurity of histogram `h` (n classes); 0 if empty."""
    cdef double total = 0.0, s = 0.0
    cdef int32_t k
    for k in range(n):
        total += h[k]
        s += h[k] * h[k]
    return 1.0 - s / (total * total) if total > 0.0 else 0.0


cdef inline double entropy_gain(double parent, double t, double nl, double sl, double nr,
                                double sr) noexcept nogil:
    """The information gain (bits) from sums: `parent` = N H(A) = t log t - sum c log c of the
    whole (t its weight), and per side its weight (nl, nr) and sum of c log c over its class
    weights (sl, sr). For a search over thresholds whose whole does not change."""
    return (parent - (xlog2x(nl) - sl) - (xlog2x(nr) - sr)) / t


cdef inline double mse_gain(const double* left, const double* right) noexcept nogil:
    """The variance decrease of splitting a node's rows into two sides, from each side's
    (weight, weighted sum of targets): Var(A) - |A'|/|A| Var(A') - |A''|/|A| Var(A''), that
    is the weighted sum of squared errors the split removes, per unit weight. The sums of
    squared targets cancel exactly in SSE(A) - SSE(A') - SSE(A''), which is
    s'^2/n' + s''^2/n'' - (s' + s'')^2/(n' + n''): scikit-learn's proxy, no y^2 to round.
    The targets should be centred near their mean (the terms are of the order of n mean^2);
    the decrease does not depend on the origin. 0 when a side is empty."""
    cdef double nl = left[0], nr = right[0], sa = left[1] + right[1], t = nl + nr
    if nl <= 0.0 or nr <= 0.0:
        return 0.0
    return (left[1] * left[1] / nl + right[1] * right[1] / nr - sa * sa / t) / t


cdef inline double split_gain(const double* left, const double* right, int32_t n,
                              int criterion) noexcept nogil:
    """Impurity decrease of splitting the histogram left + right into its two sides:
    I(A) - |A'|/|A| I(A') - |A''|/|A| I(A''), the information gain for the entropy
    (denil2013, algorithm 8). 0 when both sides are empty. CRITERION_MSE: `left` and
    `right` are (weight, weighted sum of targets), `n` unused (`mse_gain`)."""
    cdef double nl = 0.0, nr = 0.0, sl = 0.0, sr = 0.0, sa = 0.0, t
    cdef int32_t k
    if criterion == CRITERION_MSE:
        return mse_gain(left, right)
    if criterion == CRITERION_ENTROPY:
        # N H(A) = N log N - sum c log c: the gain needs no division per class
        for k in range(n):
            nl += left[k]
            nr += right[k]
            sl += xlog2x(left[k])
            sr += xlog2x(right[k])
            sa += xlog2x(left[k] + right[k])
        t = nl + nr
        if t <= 0.0:
            return 0.0
        return entropy_gain(xlog2x(t) - sa, t, nl, sl, nr, sr)
    for k in range(n):
        nl += left[k]
        nr += right[k]
        sl += left[k] * left[k]
        sr += right[k] * right[k]
        sa += (left[k] + right[k]) * (left[k] + right[k])
    t = nl + nr
    if t <= 0.0:
        return 0.0
    # G(A) - nl/t G(A') - nr/t G(A'') with G = 1 - sum c^2 / m^2
    return (1.0 - sa / (t * t)) - ((nl - (sl / nl if nl > 0.0 else 0.0))
                                   + (nr - (sr / nr if nr > 0.0 else 0.0))) / t


# --- regression: sums (sum w y, sum w y^2, w) of a node's or a side's targets ---

cdef inline double sse(double s, double s2, double w) noexcept nogil:
    """Sum of the squared deviations from their mean of targets of total weight `w`, weighted
    sum `s` and weighted sum of squares `s2` (0 when empty; never negative)."""
    cdef double v
    if w <= 0.0:
        return 0.0
    v = s2 - s * s / w
    return v if v > 0.0 else 0.0


cdef inline double variance_gain(const double* left, const double* right) noexcept nogil:
    """Regression's impurity decrease, relative: 1 - (SSE(A') + SSE(A'')) / SSE(A), A the
    union of the two sides, each given as (sum w y, sum w y^2, w); in [0, 1], free of the
    targets' scale, 0 when the union has no spread."""
    cdef double whole = sse(left[0] + right[0], left[1] + right[1], left[2] + right[2])
    cdef double l[2]
    cdef double r[2]
    if whole <= 0.0:
        return 0.0
    l[0] = left[2]
    l[1] = left[0]
    r[0] = right[2]
    r[1] = right[0]
    # SSE(A) - SSE(A') - SSE(A'') = |A| mse_gain: the sums of squares cancel
    return (left[2] + right[2]) * mse_gain(l, r) / whole
