# The aggregator, compiled: the forest's answer to a row from its trees' answers (their mean, or
# a majority vote), in scratch rows of its own, and the last one-sample prediction (`_cache.pxd`)
# kept for the learn of the same row: each tree's walk, its answer for the detectors, the
# aggregate for the interval calibrator. Before the trees learn a row, the forest's answer
# teaches the calibrator (`_conformal.pxd`) and each tree's error goes to the drift watch
# (`agg_prequential`; a sample's learn, `agg_learn_one`; rows one at a time,
# `agg_learn_rows`). A plain struct the forest core holds (`_forest.pxd`; no object of its
# own: it adds nothing to the bytes river counts of a model) and the functions that drive it
# over the grove's trees (`_grove.pxd`); they assume the forest's lock.

from ._cache cimport RowCache
from ._conformal cimport Calibrator
from ._features cimport FeatureRegistry
from ._grove cimport Grove


ctypedef struct Aggregate:
    double* acc              # scratch: the aggregated prediction
    double* tmp              # scratch: one tree's prediction
    Py_ssize_t scratch       # allocated length of `acc` and `tmp`
    RowCache cache           # the last one-sample prediction (`_cache.pxd`)


cdef int agg_init(Aggregate* a) except -1
cdef void agg_free(Aggregate* a) noexcept
cdef size_t agg_nbytes(const Aggregate* a, Py_ssize_t n_trees) noexcept
cdef int agg_reserve(Aggregate* a, Py_ssize_t n) except -1
cdef int agg_row(Aggregate* a, Grove grove, const double* x, Py_ssize_t n_out, bint vote,
                 bint classifier, bint record=*, bint keep=*) except -1
cdef Py_ssize_t agg_predict_one(Aggregate* a, Grove grove, FeatureRegistry features, dict x,
                                Py_ssize_t n_out, bint vote, bint classifier) except -1
cdef Py_ssize_t agg_best(const Aggregate* a, Py_ssize_t n_out) noexcept
cdef double agg_mean_var(const Aggregate* a, double* var) noexcept
cdef int agg_keep_walks(Aggregate* a, Grove grove, FeatureRegistry features,
                        Py_ssize_t n_features) except -1
cdef bint agg_cached(const Aggregate* a, Grove grove, FeatureRegistry features, const double* x,
                     Py_ssize_t n_features, Py_ssize_t n_out) noexcept
cdef int agg_watch_errors(Aggregate* a, Grove grove, FeatureRegistry features, const double* x,
                          Py_ssize_t n_features, double y, const double* preds,
                          Py_ssize_t n_out, bint classifier) except -1
cdef object agg_predict_rows(Aggregate* a, Grove grove, const double[:, ::1] X,
                             Py_ssize_t n_out, object pred, bint vote, bint classifier)
cdef int agg_prequential(Aggregate* a, Grove grove, FeatureRegistry features,
                         Calibrator calibrator, const double* x, Py_ssize_t n_features, double y,
                         Py_ssize_t n_out, bint vote, bint classifier) except -1
cdef int agg_learn_one(Aggregate* a, Grove grove, FeatureRegistry features,
                       Calibrator calibrator, Py_ssize_t n_features, double y, Py_ssize_t n_out,
                       bint vote, bint classifier, object make_tree) except -1
cdef int agg_learn_rows(Aggregate* a, Grove grove, FeatureRegistry features,
                        Calibrator calibrator, const double[:, ::1] X, const double[::1] y,
                        Py_ssize_t n_out, bint vote, bint classifier,
                        object make_tree) except -1
