"""Online normalised conformal intervals with a local scale and adaptive level (see
`_conformal.pxd` for the method and its guarantee).

* **Scores.** A sorted copy of the ring of the last `window` scores gives any quantile at
  once; a new score enters by binary search and one move, the oldest leaves the same way.
* **Scale.** One gradient step per learned row on the Laplace loss of the row's residual,
  normalised (the intercept and the row's bins share a step of `lr` in the log scale, as
  normalised least mean squares shares it, so a wide row moves the scale no more than a
  narrow one), its gradient clipped to [-CONF_CLIP_LOW, 1], so that one outlier moves the
  scale by a bounded factor.
* **Warm-up.** No score is taken before the scale model has learned CONF_N_MIN rows (its
  first steps are too rough to divide by); until the window holds enough scores for the
  level (n >= (1 - alpha) / alpha), the interval is infinite, as split conformal
  prediction's is.
"""

from libc.math cimport ceil, exp, fabs, INFINITY, isnan, log, NAN
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memmove

import numpy as np

from ._checks cimport is_int, is_real
from ._tree cimport row_of

cdef int64_t CONF_N_MIN = 5          # rows the scale model learns before the first score
cdef int64_t CONF_U_HORIZON = 1000   # the spread's running mean averages about this many rows
cdef double CONF_CLIP_LOW = 5.0      # a step shrinks the scale by at most e^(lr * 5)
cdef double CONF_ALPHA_LOW = -0.5    # alpha_t stays in [CONF_ALPHA_LOW, 1]
cdef double CONF_BATCH_GAIN = 0.5    # the level moves by at most this much per batch


cdef int conformal_init(Conformal* c, double alpha, double gamma, int32_t window, double lr,
                        double lr_beta, double beta) except -1 nogil:
    c.alpha = alpha
    c.alpha_t = alpha
    c.gamma = gamma
    c.lr = lr
    c.lr_beta = lr_beta
    c.window = window
    c.n_scores = 0
    c.head = 0
    c.n_learned = 0
    c.n_misses = 0
    c.n_checked = 0
    c.b = 0.0
    c.beta = beta
    c.u_mean = 0.0
    c.u_count = 0
    c.n_columns = 0
    c.ring = <double*>calloc(window, sizeof(double))
    c.sorted = <double*>calloc(window, sizeof(double))
    c.lo = <double*>calloc(CONF_MAX_COLUMNS, sizeof(double))
    c.hi = <double*>calloc(CONF_MAX_COLUMNS, sizeof(double))
    c.h = <double*>calloc(CONF_MAX_COLUMNS * CONF_BINS, sizeof(double))
    if c.ring == NULL or c.sorted == NULL or c.lo == NULL or c.hi == NULL or c.h == NULL:
        conformal_release(c)
        with gil:
            raise MemoryError()
    return 0


cdef void conformal_release(Conformal* c) noexcept nogil:
    free(c.ring)
    free(c.sorted)
    free(c.lo)
    free(c.hi)
    free(c.h)
    c.ring = NULL
    c.sorted = NULL
    c.lo = NULL
    c.hi = NULL
    c.h = NULL


cdef size_t conformal_nbytes(const Conformal* c) noexcept nogil:
    return (2 * <size_t>c.window + CONF_MAX_COLUMNS * (CONF_BINS + 2)) * sizeof(double)


cdef inline int32_t _bin(const Conformal* c, int32_t j, double v) noexcept nogil:
    cdef double lo = c.lo[j], hi = c.hi[j]
    cdef int32_t k
    if not hi > lo:
        return 0
    k = <int32_t>((v - lo) / (hi - lo) * CONF_BINS)
    return 0 if k < 0 else (CONF_BINS - 1 if k >= CONF_BINS else k)


cdef inline double _u(const Conformal* c, double var) noexcept nogil:
    """The forest's spread as the scale model reads it: its log standard deviation, centred."""
    return 0.5 * log(var) - c.u_mean if var > 0.0 else 0.0


cdef inline double _log_scale(const Conformal* c, const double* x, Py_ssize_t n_features,
                              double var) noexcept nogil:
    cdef double s = c.b + c.beta * _u(c, var)
    cdef int32_t j, n = c.n_columns
    if n > n_features:
        n = <int32_t>n_features
    for j in range(n):
        if not isnan(x[j]):
            s += c.h[j * CONF_BINS + _bin(c, j, x[j])]
    return s


cdef double conformal_scale(const Conformal* c, const double* x, Py_ssize_t n_features,
                            double var) noexcept nogil:
    """The local scale at row `x` (0 during the warm-up: no interval yet)."""
    if c.n_learned < CONF_N_MIN:
        return 0.0
    return exp(_log_scale(c, x, n_features, var))


cdef double conformal_quantile(const Conformal* c) noexcept nogil:
    """The scores' conformal quantile at the adaptive level (infinite while too few)."""
    cdef int32_t n = c.n_scores
    cdef double level = 1.0 - c.alpha_t, k
    if n == 0 or (n + 1) * (1.0 - c.alpha) > n:
        return INFINITY
    if level >= 1.0:
        return c.sorted[n - 1]
    if level <= 0.0:
        return 0.0
    k = ceil((n + 1) * level) - 1.0
    return c.sorted[<int32_t>k if k < n - 1 else n - 1]


cdef void conformal_interval(const Conformal* c, const double* x, Py_ssize_t n_features,
                             double mean, double var, double* lo, double* hi) noexcept nogil:
    cdef double s = conformal_scale(c, x, n_features, var)
    cdef double q = conformal_quantile(c)
    if s == 0.0 or q == INFINITY:
        lo[0] = -INFINITY
        hi[0] = INFINITY
        return
    lo[0] = mean - q * s
    hi[0] = mean + q * s


cdef int32_t _lower_bound(const double* a, int32_t n, double v) noexcept nogil:
    cdef int32_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef void _add_score(Conformal* c, double s) noexcept nogil:
    cdef int32_t i, tail
    if c.n_scores == c.window:  # the oldest leaves
        i = _lower_bound(c.sorted, c.n_scores, c.ring[c.head])
        memmove(&c.sorted[i], &c.sorted[i + 1], (c.n_scores - i - 1) * sizeof(double))
        c.n_scores -= 1
        c.ring[c.head] = s
        c.head = (c.head + 1) % c.window
    else:
        tail = (c.head + c.n_scores) % c.window
        c.ring[tail] = s
    i = _lower_bound(c.sorted, c.n_scores, s)
    memmove(&c.sorted[i + 1], &c.sorted[i], (c.n_scores - i) * sizeof(double))
    c.sorted[i] = s
    c.n_scores += 1


cdef int conformal_judge(const Conformal* c, const double* x, Py_ssize_t n_features, double y,
                         double mean, double var) noexcept nogil:
    """Whether target `y` falls outside the interval the calibrator gives now for a row
    predicted `mean` with spread `var`: 1, 0, or CONF_UNCALIBRATED (no finite interval yet)."""
    cdef double lo, hi
    conformal_interval(c, x, n_features, mean, var, &lo, &hi)
    return CONF_UNCALIBRATED if hi == INFINITY else (not (lo <= y <= hi))


cdef int conformal_learn(Conformal* c, const double* x, Py_ssize_t n_features, double y,
                         double mean, double var, int miss=CONF_JUDGE,
                         double gamma=-1.0) except -1 nogil:
    """Row (x, y), predicted `mean` with spread `var` before the forest learns it: count
    whether its interval held it, adapt the level (by `gamma`, the calibrator's when
    negative), take its score, step the scale model. `miss`: CONF_JUDGE, against the interval
    the calibrator gives now; else the caller judged the row against the interval it gave
    (a batch's rows, all from the calibrator before the batch): 1, 0, or CONF_UNCALIBRATED
    for an infinite interval. An infinite interval (the calibrator could not give one yet)
    is neither counted nor steers the level."""
    cdef double s, r = fabs(y - mean), ls, g, u, v, a, g_terms
    cdef int32_t j, n, terms
    if miss == CONF_JUDGE:
        miss = conformal_judge(c, x, n_features, y, mean, var)
    if miss != CONF_UNCALIBRATED:
        c.n_checked += 1
        c.n_misses += miss
        a = c.alpha_t + (c.gamma if gamma < 0.0 else gamma) * (c.alpha - miss)
        c.alpha_t = CONF_ALPHA_LOW if a < CONF_ALPHA_LOW else (1.0 if a > 1.0 else a)
    s = conformal_scale(c, x, n_features, var)
    if s > 0.0:
        _add_score(c, r / s)
    # the scale model: new columns, one step, the ranges
    n = <int32_t>(n_features if n_features < CONF_MAX_COLUMNS else CONF_MAX_COLUMNS)
    for j in range(c.n_columns, n):
        c.lo[j] = NAN
        c.hi[j] = NAN
    if n > c.n_columns:
        c.n_columns = n
    u = _u(c, var)
    ls = _log_scale(c, x, n_features, var)
    c.n_learned += 1
    if c.n_learned == 1:
        c.b = log(r) if r > 0.0 else 0.0
    else:
        g = 1.0 - r * exp(-ls)
        g = -CONF_CLIP_LOW if g < -CONF_CLIP_LOW else g
        # normalised: the intercept and the row's bins share one step of `lr` in the log
        # scale, however many features the row has (each term moves lr * g / terms)
        terms = 1
        for j in range(n):
            if not isnan(x[j]) and not isnan(c.lo[j]):
                terms += 1
        g_terms = c.lr * g / terms
        c.b -= g_terms
        for j in range(n):
            if not isnan(x[j]) and not isnan(c.lo[j]):
                c.h[j * CONF_BINS + _bin(c, j, x[j])] -= g_terms
        c.beta -= c.lr_beta * g * u
    for j in range(n):
        v = x[j]
        if isnan(v):
            continue
        if isnan(c.lo[j]) or v < c.lo[j]:
            c.lo[j] = v
        if isnan(c.hi[j]) or v > c.hi[j]:
            c.hi[j] = v
    if var > 0.0:
        if c.u_count < CONF_U_HORIZON:
            c.u_count += 1
        c.u_mean += (0.5 * log(var) - c.u_mean) / c.u_count
    return 0


cdef dict conformal_get_state(const Conformal* c):
    """The calibrator as a dict of numbers and arrays (the window in arrival order)."""
    cdef int32_t i
    ring = np.empty(c.n_scores)
    for i in range(c.n_scores):
        ring[i] = c.ring[(c.head + i) % c.window]
    n = c.n_columns
    return {
        "alpha": c.alpha, "alpha_t": c.alpha_t, "gamma": c.gamma, "lr": c.lr,
        "lr_beta": c.lr_beta, "window": c.window, "n_learned": c.n_learned,
        "n_misses": c.n_misses, "n_checked": c.n_checked, "b": c.b, "beta": c.beta,
        "u_mean": c.u_mean, "u_count": c.u_count, "scores": ring,
        "lo": np.asarray(<double[:n]>c.lo).copy() if n else np.empty(0),
        "hi": np.asarray(<double[:n]>c.hi).copy() if n else np.empty(0),
        "h": np.asarray(<double[:n * CONF_BINS]>c.h).copy() if n else np.empty(0),
    }


cdef int conformal_set_state(Conformal* c, dict state) except -1:
    """Restore `conformal_get_state`'s dict into a calibrator made by `conformal_init` with
    the same window."""
    cdef int32_t i, n
    cdef const double[::1] scores = np.ascontiguousarray(state["scores"], dtype=np.float64)
    cdef const double[::1] lo = np.ascontiguousarray(state["lo"], dtype=np.float64)
    cdef const double[::1] hi = np.ascontiguousarray(state["hi"], dtype=np.float64)
    cdef const double[::1] h = np.ascontiguousarray(state["h"], dtype=np.float64)
    n = <int32_t>lo.shape[0]
    if state["window"] != c.window or scores.shape[0] > c.window or n > CONF_MAX_COLUMNS \
            or hi.shape[0] != n or h.shape[0] != n * CONF_BINS:
        raise ValueError("corrupt interval calibrator state")
    c.alpha = state["alpha"]
    c.alpha_t = state["alpha_t"]
    c.gamma = state["gamma"]
    c.lr = state["lr"]
    c.lr_beta = state["lr_beta"]
    c.n_learned = state["n_learned"]
    c.n_misses = state["n_misses"]
    c.n_checked = state["n_checked"]
    c.b = state["b"]
    c.beta = state["beta"]
    c.u_mean = state["u_mean"]
    c.u_count = state["u_count"]
    c.n_scores = 0
    c.head = 0
    for i in range(scores.shape[0]):
        _add_score(c, scores[i])
    c.n_columns = n
    if n:
        memcpy(c.lo, &lo[0], n * sizeof(double))
        memcpy(c.hi, &hi[0], n * sizeof(double))
        memcpy(c.h, &h[0], n * CONF_BINS * sizeof(double))
    return 0


# ------------------------------------------------------------------ the forest's part

cdef Conformal* conformal_new(double alpha, double gamma, int32_t window, double lr,
                              double lr_beta, double beta) except NULL:
    """A calibrator (`conformal_init`) of its own memory; `conformal_delete` frees it."""
    cdef Conformal* c = <Conformal*>calloc(1, sizeof(Conformal))
    if c == NULL:
        raise MemoryError()
    try:
        conformal_init(c, alpha, gamma, window, lr, lr_beta, beta)
    except MemoryError:
        free(c)
        raise
    return c


cdef void conformal_delete(Conformal* c) noexcept:
    if c != NULL:
        conformal_release(c)
        free(c)


def check_state(dict state):
    """Raise ValueError unless `state` has the shape of `conformal_get_state`'s dict: its
    settings in range, its counts integers, its arrays float64 of matching lengths."""
    reals = ("alpha", "alpha_t", "gamma", "lr", "lr_beta", "b", "beta", "u_mean", "u_count")
    if not all(is_real(state.get(k)) for k in reals) \
            or not 0.0 < state["alpha"] < 1.0 or not is_int(state.get("window"), 1, 2**20) \
            or not all(is_int(state.get(k)) for k in ("n_learned", "n_misses", "n_checked")):
        raise ValueError("the interval calibrator's settings are out of range")
    for k in ("scores", "lo", "hi", "h"):
        a = state.get(k)
        if not (isinstance(a, np.ndarray) and a.dtype == np.float64 and a.ndim == 1):
            raise ValueError(f"the interval calibrator's {k!r} must be a float64 array")
    n = len(state["lo"])
    if len(state["scores"]) > state["window"] or n > CONF_MAX_COLUMNS \
            or len(state["hi"]) != n or len(state["h"]) != n * CONF_BINS:
        raise ValueError("the interval calibrator's arrays do not match its window and columns")


cdef Conformal* conformal_from_state(dict state) except NULL:
    """A calibrator restored from `conformal_get_state`'s dict, checked first (`check_state`):
    a state that does not describe a calibrator raises ValueError."""
    check_state(state)
    cdef Conformal* c = conformal_new(state["alpha"], state["gamma"], <int32_t>state["window"],
                                      state["lr"], state["lr_beta"], state["beta"])
    try:
        conformal_set_state(c, state)
    except BaseException:
        conformal_delete(c)
        raise
    return c


cdef int conformal_learn_batch(Conformal* c, const double[:, ::1] rows,
                               const double[::1] targets, const double[:, ::1] agg) except -1:
    """A batch's rows, in order, each predicted (`agg[i]`: the forest's mean and variance)
    before the batch: each judged against the interval the calibrator gave it before the
    batch (what `predict_many`, or `predict_one` on a buffered row, returned), then learned.
    The batch's misses come back together: each steps the level by gamma / n at most (n the
    batch's rows, the whole batch by CONF_BATCH_GAIN at most)."""
    cdef Py_ssize_t i, n = rows.shape[0]
    cdef double gamma
    misses = np.empty(n, dtype=np.intc)
    cdef int[::1] miss = misses
    for i in range(n):
        miss[i] = conformal_judge(c, row_of(rows, i), rows.shape[1], targets[i], agg[i, 0],
                                  agg[i, 1])
    gamma = min(c.gamma, CONF_BATCH_GAIN / n)
    for i in range(n):
        conformal_learn(c, row_of(rows, i), rows.shape[1], targets[i], agg[i, 0], agg[i, 1],
                        miss[i], gamma)
    return 0


cdef int conformal_intervals(const Conformal* c, const double[:, ::1] rows,
                             double[:, ::1] out) except -1:
    """Each row's interval into `out[i, 2:4]`, from its mean and variance in `out[i, :2]`."""
    cdef Py_ssize_t i
    cdef double lo, hi
    for i in range(rows.shape[0]):
        conformal_interval(c, row_of(rows, i), rows.shape[1], out[i, 0], out[i, 1], &lo, &hi)
        out[i, 2] = lo
        out[i, 3] = hi
    return 0


cdef class Calibrator:
    """A forest regressor's interval calibrator (`_conformal.pxd`), or none (`c` NULL):
    a fresh one (`set`), or one restored from `conformal_get_state`'s dict (`Calibrator(state)`,
    checked first: a state that does not describe a calibrator raises ValueError)."""

    def __cinit__(self, dict state=None):
        self.c = NULL if state is None else conformal_from_state(state)

    def __dealloc__(self):
        conformal_delete(self.c)

    def __sizeof__(self):
        """The object and the calibrator's struct and arrays."""
        return object.__sizeof__(self) + (0 if self.c == NULL
                                          else sizeof(Conformal) + conformal_nbytes(self.c))

    cdef int set(self, double alpha, double gamma, int32_t window, double lr,
                 double lr_beta, double beta) except -1:
        """A fresh calibrator of nominal miscoverage `alpha`, or none (`alpha` <= 0)."""
        conformal_delete(self.c)
        self.c = NULL
        if alpha > 0.0:
            self.c = conformal_new(alpha, gamma, window, lr, lr_beta, beta)
        return 0

    cdef object state(self):
        """`conformal_get_state`'s dict; None without a calibrator."""
        return None if self.c == NULL else conformal_get_state(self.c)

    cdef int need(self) except -1:
        """Raise ValueError without a calibrator (an interval was asked for)."""
        if self.c == NULL:
            raise ValueError("this forest has no interval calibrator")
        return 0

    cdef int learn(self, const double* x, Py_ssize_t n_features, double y, double mean,
                   double second) except -1:
        """Learn row (x, y) from the forest's prediction of it before it is learned: its mean
        and its second moment (`conformal_learn`, the variance clipped at 0)."""
        cdef double var = second - mean * mean
        return conformal_learn(self.c, x, n_features, y, mean, var if var > 0.0 else 0.0)

    cdef tuple interval(self, const double* x, Py_ssize_t n_features, double mean, double var):
        """(mean, var, lower, upper): the interval of row `x` from the forest's prediction of
        it (`conformal_interval`)."""
        cdef double lo, hi
        conformal_interval(self.c, x, n_features, mean, var, &lo, &hi)
        return mean, var, lo, hi

    cdef object intervals(self, const double[:, ::1] rows, object pred):
        """An (n_rows, 4) array of each row's mean, variance (`pred`, the forest's (n_rows, 2)
        prediction), lower and upper bounds (`conformal_intervals`)."""
        out = np.empty((rows.shape[0], 4))
        out[:, :2] = pred
        conformal_intervals(self.c, rows, out)
        return out
