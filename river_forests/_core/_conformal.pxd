# Prediction intervals for a forest regressor, compiled: online normalised conformal
# prediction with a local scale, kept in a fixed number of bytes whatever the stream.
#
# A regressor's interval at x is  mean(x) -/+ q * scale(x):
#   * mean(x) and the forest's spread var(x) (the trees' leaf variances plus their
#     disagreement) come from the forest's prediction;
#   * scale(x) = exp(b + sum_j h_j[bin of x_j] + beta * (log sqrt(var(x)) - its running mean)):
#     a log-linear model of the size of the forest's own prequential residuals, additive over
#     the first CONF_MAX_COLUMNS features (CONF_BINS equal-width bins over each feature's
#     range so far) plus the forest's spread, fitted online by one gradient step per learned
#     row on the Laplace loss log s + |r| / s (its minimiser is the median of |r| given x);
#     beta starts where the forest sets it and steps by lr_beta (0: it stays, and the scale
#     follows the forest's standard deviation to that power);
#   * q is the conformal quantile of the last `window` scores |r| / scale (each row's score
#     taken before the forest learns the row), at level 1 - alpha_t: the rank
#     ceil((n + 1)(1 - alpha_t)) of n scores (an infinite interval while n is too small);
#   * alpha_t is adaptive conformal inference (Gibbs & Candes, 2021): after each row,
#     alpha_t += gamma (alpha - miss), miss = 1 if the row fell outside the interval the
#     calibrator gave it. Summed, the misses' mean is alpha - (alpha_T - alpha_1) / (gamma T):
#     the prequential coverage converges to nominal on any stream, drifting ones included.
#     (A batch's rows all had their intervals before the batch: their feedback comes late, a
#     batch at a time, so each steps the level by gamma / n at most, n the batch's rows, or
#     the loop would overshoot; rows whose interval was infinite steer nothing.)
# Memory: 2 * window + CONF_MAX_COLUMNS * (CONF_BINS + 2) doubles.

from libc.stdint cimport int32_t, int64_t

cdef enum:
    CONF_JUDGE = -1          # `conformal_learn`: judge the row against the interval now
    CONF_UNCALIBRATED = 2    # the row's interval was infinite (not counted)

cdef enum:
    CONF_BINS = 16           # bins per feature of the scale model
    CONF_MAX_COLUMNS = 128   # registry columns the scale model reads (the first ones)


ctypedef struct Conformal:
    double alpha            # nominal miscoverage, 1 - confidence_level
    double alpha_t          # adaptive level (ACI)
    double gamma            # ACI step
    double lr               # step of the bins and the intercept
    double lr_beta          # step of the spread's coefficient
    int32_t window          # scores kept
    int32_t n_scores        # scores held (<= window)
    int32_t head            # ring: index of the oldest score
    int64_t n_learned       # rows learned (scale model steps)
    int64_t n_misses        # rows that fell outside their interval
    int64_t n_checked       # rows checked against a finite interval
    double b                # intercept of the log scale
    double beta             # coefficient of the centred log spread (its start given, then
                            # stepped by lr_beta: 0 keeps it)
    double u_mean           # running mean of the log spread
    int64_t u_count         # spreads averaged into u_mean (capped at CONF_U_HORIZON)
    int32_t n_columns       # columns the scale model has seen (<= CONF_MAX_COLUMNS)
    double* ring            # window scores in arrival order (circular)
    double* sorted          # the same scores, ascending
    double* lo              # per column: least value seen
    double* hi              # per column: greatest value seen
    double* h               # per column, per bin: its term of the log scale


cdef int conformal_init(Conformal* c, double alpha, double gamma, int32_t window, double lr,
                        double lr_beta, double beta) except -1 nogil
cdef void conformal_release(Conformal* c) noexcept nogil
cdef size_t conformal_nbytes(const Conformal* c) noexcept nogil
cdef double conformal_scale(const Conformal* c, const double* x, Py_ssize_t n_features,
                            double var) noexcept nogil
cdef double conformal_quantile(const Conformal* c) noexcept nogil
cdef void conformal_interval(const Conformal* c, const double* x, Py_ssize_t n_features,
                             double mean, double var, double* lo, double* hi) noexcept nogil
cdef int conformal_judge(const Conformal* c, const double* x, Py_ssize_t n_features, double y,
                         double mean, double var) noexcept nogil
cdef int conformal_learn(Conformal* c, const double* x, Py_ssize_t n_features, double y,
                         double mean, double var, int miss=*, double gamma=*) except -1 nogil
cdef dict conformal_get_state(const Conformal* c)
cdef int conformal_set_state(Conformal* c, dict state) except -1

# --- the calibrator as the forest's part: made, restored, driven a batch at a time, freed ---
cdef Conformal* conformal_new(double alpha, double gamma, int32_t window, double lr,
                              double lr_beta, double beta) except NULL
cdef Conformal* conformal_from_state(dict state) except NULL
cdef void conformal_delete(Conformal* c) noexcept
cdef int conformal_learn_batch(Conformal* c, const double[:, ::1] rows,
                               const double[::1] targets, const double[:, ::1] agg) except -1
cdef int conformal_intervals(const Conformal* c, const double[:, ::1] rows,
                             double[:, ::1] out) except -1


cdef class Calibrator:
    # The interval calibrator as a part of the forest core (`_forest.pxd`): it owns the struct
    # (made, restored, freed) and counts its bytes; the core drives it under the model's lock.
    cdef Conformal* c                        # NULL: no intervals

    cdef int set(self, double alpha, double gamma, int32_t window, double lr,
                 double lr_beta, double beta) except -1
    cdef object state(self)
    cdef int need(self) except -1
    cdef int learn(self, const double* x, Py_ssize_t n_features, double y, double mean,
                   double second) except -1
    cdef tuple interval(self, const double* x, Py_ssize_t n_features, double mean, double var)
    cdef object intervals(self, const double[:, ::1] rows, object pred)
