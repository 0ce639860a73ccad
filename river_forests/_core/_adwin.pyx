"""ADWIN, compiled (see `_adwin.pxd`): Bifet and Gavaldà's adaptive window with the ADWIN2
bucket compression, as river's `drift.ADWIN` computes it.

* **Insert.** A value enters level 0 as a summary of one value; the window's width, total
  and variance are updated incrementally (Welford). A level holding `max_buckets` + 1
  summaries merges its two oldest into one summary of the next level (the merged variance
  adds n/2 (mu1 - mu2)^2), and so on up.
* **Test.** Every `clock` updates, once the window holds more than `grace_period` values,
  the window is cut between every two summaries, oldest first; if both sides hold at least
  `min_window_length` values and their means differ by more than
  eps = sqrt(2 m var/W ln(2 ln W / delta)) + 2/3 m ln(2 ln W / delta), with
  m = 1/(n0 - L + 1) + 1/(n1 - L + 1), the oldest summary is dropped and the test starts
  again: a change is detected.
* **Reset.** As river's detectors do, the update after a detection starts from an empty
  window (`n_detections` goes on counting).
"""

from libc.math cimport fabs, log, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memmove, memset

import numpy as np


cdef inline size_t _cells(const Adwin* a) noexcept nogil:
    return <size_t>(a.max_buckets + 1)


cdef int adwin_init(Adwin* a, double delta, int32_t clock, int32_t max_buckets,
                    int32_t min_window_length, int32_t grace_period) except -1 nogil:
    """An empty detector with these parameters (river's names and meanings)."""
    a.delta = delta
    a.clock = clock
    a.max_buckets = max_buckets
    a.min_window_length = min_window_length
    a.grace_period = grace_period
    a.n_detections = 0
    a.count = <int32_t*>calloc(ADWIN_MAX_LEVELS, sizeof(int32_t))
    a.totals = <double*>calloc(ADWIN_MAX_LEVELS * _cells(a), sizeof(double))
    a.variances = <double*>calloc(ADWIN_MAX_LEVELS * _cells(a), sizeof(double))
    if a.count == NULL or a.totals == NULL or a.variances == NULL:
        adwin_release(a)
        with gil:
            raise MemoryError()
    adwin_reset(a)
    return 0


cdef void adwin_release(Adwin* a) noexcept nogil:
    free(a.count)
    free(a.totals)
    free(a.variances)
    a.count = NULL
    a.totals = NULL
    a.variances = NULL


cdef void adwin_reset(Adwin* a) noexcept nogil:
    """An empty window (the parameters and `n_detections` stay)."""
    a.total = 0.0
    a.variance = 0.0
    a.width = 0.0
    a.tick = 0
    a.detected = False
    a.n_levels = 1
    memset(a.count, 0, ADWIN_MAX_LEVELS * sizeof(int32_t))
    memset(a.totals, 0, ADWIN_MAX_LEVELS * _cells(a) * sizeof(double))
    memset(a.variances, 0, ADWIN_MAX_LEVELS * _cells(a) * sizeof(double))


cdef inline void _push(Adwin* a, int32_t level, double total, double variance) noexcept nogil:
    cdef size_t at = <size_t>level * _cells(a) + <size_t>a.count[level]
    a.totals[at] = total
    a.variances[at] = variance
    a.count[level] += 1


cdef inline void _drop_oldest(Adwin* a, int32_t level, int32_t k) noexcept nogil:
    """Remove the `k` oldest summaries of `level` (its first k cells)."""
    cdef double* t = a.totals + <size_t>level * _cells(a)
    cdef double* v = a.variances + <size_t>level * _cells(a)
    cdef int32_t left = a.count[level] - k
    if left > 0:
        memmove(t, t + k, <size_t>left * sizeof(double))
        memmove(v, v + k, <size_t>left * sizeof(double))
    memset(t + left, 0, <size_t>k * sizeof(double))
    memset(v + left, 0, <size_t>k * sizeof(double))
    a.count[level] = left


cdef void _insert(Adwin* a, double value) noexcept nogil:
    cdef int32_t level = 0
    cdef double n1, t0, t1, mu1, mu2, delta_v, inc = 0.0
    cdef size_t base
    _push(a, 0, value, 0.0)
    a.width += 1.0
    if a.width > 1.0:
        delta_v = value - a.total / (a.width - 1.0)
        inc = (a.width - 1.0) * delta_v * delta_v / a.width
    a.variance += inc
    a.total += value
    # compress: a full level merges its two oldest summaries into the next level
    while a.count[level] == a.max_buckets + 1 and level + 1 < ADWIN_MAX_LEVELS:
        base = <size_t>level * _cells(a)
        n1 = <double>(1ULL << level)
        t0 = a.totals[base]
        t1 = a.totals[base + 1]
        mu1 = t0 / n1
        mu2 = t1 / n1
        if level + 1 >= a.n_levels:
            a.n_levels = level + 2
        _push(a, level + 1, t0 + t1,
              a.variances[base] + a.variances[base + 1] + n1 * 0.5 * (mu1 - mu2) * (mu1 - mu2))
        _drop_oldest(a, level, 2)
        if a.count[level + 1] <= a.max_buckets:
            break
        level += 1


cdef void _delete_oldest(Adwin* a) noexcept nogil:
    cdef int32_t last = a.n_levels - 1
    cdef double n = <double>(1ULL << last)
    cdef double u = a.totals[<size_t>last * _cells(a)]
    cdef double v = a.variances[<size_t>last * _cells(a)]
    cdef double mu = u / n, mu_window
    a.width -= n
    a.total -= u
    mu_window = a.total / a.width
    a.variance -= v + n * a.width * (mu - mu_window) * (mu - mu_window) / (n + a.width)
    _drop_oldest(a, last, 1)
    if a.count[last] == 0 and last > 0:
        a.n_levels -= 1


cdef inline bint _cut(const Adwin* a, double n0, double n1, double delta_mean,
                      double delta_prime, double var_w) noexcept nogil:
    """Whether the means of the two sub-windows differ by more than the bound; `delta_prime`
    (ln(2 ln W / delta)) and `var_w` (variance / W) are the window's, computed once per
    scan by the caller (the same values, in the same order of operations, as river's)."""
    cdef double m_recip = 1.0 / (n0 - a.min_window_length + 1.0) + 1.0 / (n1 - a.min_window_length + 1.0)
    cdef double epsilon = sqrt(2.0 * m_recip * var_w * delta_prime) \
        + 2.0 / 3.0 * delta_prime * m_recip
    return fabs(delta_mean) > epsilon


cdef bint adwin_update(Adwin* a, double value) noexcept nogil:
    """Add `value`; whether a change was detected (the next update then starts afresh)."""
    cdef bint change = False, reduce_width = True, stop
    cdef double n0, n1, u0, u1, size, t, delta_prime, var_w
    cdef int32_t level, k, held
    if a.detected:
        adwin_reset(a)
    _insert(a, value)
    a.tick += 1
    if a.tick % a.clock == 0 and a.width > a.grace_period:
        while reduce_width:
            reduce_width = False
            stop = False
            n0 = 0.0
            n1 = a.width
            u0 = 0.0
            u1 = a.total
            # the window's terms of the bound: fixed until a cut shrinks it (then scan again)
            delta_prime = log(2.0 * log(a.width) / a.delta)
            var_w = a.variance / a.width
            level = a.n_levels - 1
            while level >= 0 and not stop:
                size = <double>(1ULL << level)
                held = a.count[level]
                for k in range(held):
                    n0 += size
                    n1 -= size
                    t = a.totals[<size_t>level * _cells(a) + <size_t>k]
                    u0 += t
                    u1 -= t
                    if level == 0 and k == held - 1:
                        stop = True
                        break
                    if n1 >= a.min_window_length and n0 >= a.min_window_length \
                            and _cut(a, n0, n1, (u0 / n0) - (u1 / n1), delta_prime, var_w):
                        reduce_width = True
                        change = True
                        if a.width > 0.0:
                            _delete_oldest(a)
                            stop = True
                            break
                level -= 1
    if change:
        a.n_detections += 1
    a.detected = change
    return change


cdef double adwin_estimation(const Adwin* a) noexcept nogil:
    """The mean of the window (river's `estimation`; 0 for an empty window)."""
    return a.total / a.width if a.width > 0.0 else 0.0


cdef size_t adwin_nbytes(const Adwin* a) noexcept nogil:
    """Bytes of the detector's buckets (its struct is its owner's)."""
    return ADWIN_MAX_LEVELS * (sizeof(int32_t) + 2 * _cells(a) * sizeof(double))


cdef tuple adwin_get_state(const Adwin* a):
    """The detector as a tuple of numbers and bytes (the levels in use only), for pickling."""
    cdef size_t n = <size_t>a.n_levels * _cells(a)
    return (a.delta, a.clock, a.max_buckets, a.min_window_length, a.grace_period, a.total,
            a.variance, a.width, a.tick, a.n_detections, a.detected, a.n_levels,
            (<char*>a.count)[:a.n_levels * sizeof(int32_t)],
            (<char*>a.totals)[:n * sizeof(double)], (<char*>a.variances)[:n * sizeof(double)])


cdef int adwin_set_state(Adwin* a, tuple state) except -1:
    """Restore `adwin_get_state`'s tuple into a detector made by `adwin_init` with the same
    `max_buckets` (its buckets' size)."""
    cdef bytes count, totals, variances
    cdef int32_t max_buckets, n_levels
    if len(state) != 15 or not all(isinstance(v, bytes) for v in state[12:]) \
            or not all(isinstance(v, (int, float)) and v == v and abs(v) < 2**62
                       for v in state[:12]):
        raise ValueError("corrupt ADWIN state: not twelve numbers and three byte strings")
    max_buckets, n_levels = state[2], state[11]
    count, totals, variances = state[12:]
    if max_buckets != a.max_buckets or not 1 <= n_levels <= ADWIN_MAX_LEVELS \
            or len(count) != n_levels * sizeof(int32_t) or len(totals) != len(variances) \
            or len(totals) != n_levels * _cells(a) * sizeof(double):
        raise ValueError("corrupt ADWIN state")
    counts = np.frombuffer(count, dtype=np.int32)
    if counts.min() < 0 or counts.max() > <long>_cells(a) \
            or not (0 <= state[1] and 0 <= state[3] and 0 <= state[4] and state[7] >= 0):
        raise ValueError("corrupt ADWIN state: a bucket count or a parameter out of range")
    (a.delta, a.clock, _, a.min_window_length, a.grace_period, a.total, a.variance,
     a.width, a.tick, a.n_detections, a.detected, a.n_levels) = state[:12]
    memset(a.count, 0, ADWIN_MAX_LEVELS * sizeof(int32_t))
    memset(a.totals, 0, ADWIN_MAX_LEVELS * _cells(a) * sizeof(double))
    memset(a.variances, 0, ADWIN_MAX_LEVELS * _cells(a) * sizeof(double))
    memcpy(a.count, <const char*>count, len(count))
    memcpy(a.totals, <const char*>totals, len(totals))
    memcpy(a.variances, <const char*>variances, len(variances))
    return 0


cdef class CompiledADWIN:
    """The compiled ADWIN as an object, with river's `drift.ADWIN` interface (`update`,
    `drift_detected`, `width`, `total`, `variance`, `estimation`, `n_detections`) and its
    parameters and defaults, for the tests that hold it to river's detections. The forests
    are to use the struct (`_adwin.pxd`) inside their per-sample loop."""

    cdef Adwin a
    cdef readonly double delta
    cdef readonly int clock, max_buckets, min_window_length, grace_period

    def __cinit__(self, double delta=0.002, int clock=32, int max_buckets=5,
                  int min_window_length=5, int grace_period=10):
        if not 0.0 < delta < 1.0:
            raise ValueError(f"delta must be in (0, 1), got {delta!r}")
        if clock < 1 or max_buckets < 1 or min_window_length < 1 or grace_period < 0:
            raise ValueError("clock, max_buckets and min_window_length must be >= 1, grace_period >= 0")
        self.delta = delta
        self.clock = clock
        self.max_buckets = max_buckets
        self.min_window_length = min_window_length
        self.grace_period = grace_period
        adwin_init(&self.a, delta, clock, max_buckets, min_window_length, grace_period)

    def __dealloc__(self):
        adwin_release(&self.a)

    def update(self, double x):
        adwin_update(&self.a, x)
        return self

    @property
    def drift_detected(self):
        return bool(self.a.detected)

    @property
    def width(self):
        return int(self.a.width)

    @property
    def total(self):
        return self.a.total

    @property
    def variance(self):
        """The window's sum of squared deviations from its mean: what river's `variance`
        returns (despite its docstring's "sample variance")."""
        return self.a.variance

    @property
    def estimation(self):
        return self.a.total / self.a.width if self.a.width > 0 else 0.0

    @property
    def n_detections(self):
        return self.a.n_detections
