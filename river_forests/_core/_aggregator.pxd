# The aggregator, compiled: the forest's answer to a row from its trees' answers (their mean, or
# a majority vote), in scratch rows of its own, and the last one-sample prediction (`_cache.pxd`)
# kept for the learn of the same row: each tree's walk, its answer for the detectors, the
# aggregate for the interval calibrator. A plain struct the forest core holds (`_forest.pxd`;
# no object of its own: it adds nothing to the bytes river counts of a model) and the functions
# that drive it over the grove's trees (`_grove.pxd`); they assume the forest's lock.

from ._cache cimport RowCache
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
cdef int agg_predict_row(Aggregate* a, Grove grove, FeatureRegistry features,
                         Py_ssize_t n_features, Py_ssize_t n_out, bint vote,
                         bint classifier) except -1
cdef int agg_keep_walks(Aggregate* a, Grove grove, FeatureRegistry features,
                        Py_ssize_t n_features) except -1
cdef bint agg_cached(const Aggregate* a, Grove grove, FeatureRegistry features, const double* x,
                     Py_ssize_t n_features, Py_ssize_t n_out) noexcept
cdef int agg_watch_errors(Aggregate* a, Grove grove, FeatureRegistry features, const double* x,
                          Py_ssize_t n_features, double y, const double* preds,
                          Py_ssize_t n_out, bint classifier) except -1
cdef object agg_predict_rows(Aggregate* a, Grove grove, const double[:, ::1] X,
                             Py_ssize_t n_out, object pred, bint vote, bint classifier)
