# The prediction cache, compiled: the last one-sample prediction (the row, each tree's answer,
# the aggregate of a regression), kept so that test-then-train, which predicts a row and then
# learns it, does not predict it twice: the learn takes the trees' walks, their answers for the
# detectors and the aggregate for the interval calibrator from here while nothing was learned
# since. A plain struct the aggregator holds (`_aggregator.pxd`) and the functions that drive
# it; they assume the forest's lock.

from ._features cimport FeatureRegistry


ctypedef struct RowCache:
    Py_ssize_t* cols         # the registry columns the predicted dict set (every other
    double* x                # column is missing) and their values, so a check costs its keys
    double* pred             # per tree: its class (index) or its mean (`cache_answers`)
    Py_ssize_t cap           # allocated length of `cols` and `x`
    Py_ssize_t k             # entries of `cols` and `x` in use
    Py_ssize_t n             # the registry's width then
    Py_ssize_t nout          # the prediction's number of outputs
    Py_ssize_t trees         # the number of trees then
    long long version        # the forest's `version` then (the cache holds while it is equal)
    double mean              # the aggregate of a regression: the mean
    double second            # and the mean of y^2
    bint recorded            # `pred` holds that prediction's answers
    unsigned long long tag   # that prediction's tag: each tree it walked keeps it
                             # (`Tree.walk_tag`) with its walk, which the learn of the same
                             # row takes (`Aggregator.keep_walks`)


cdef void cache_init(RowCache* c) noexcept
cdef void cache_free(RowCache* c) noexcept
cdef size_t cache_nbytes(const RowCache* c, Py_ssize_t n_trees) noexcept
cdef double* cache_answers(RowCache* c, Py_ssize_t n_trees) except NULL
cdef int cache_remember(RowCache* c, FeatureRegistry reg, Py_ssize_t n_features,
                        Py_ssize_t n_out, Py_ssize_t n_trees, long long version,
                        const double* acc, bint classifier) except -1
cdef bint cache_holds(const RowCache* c, FeatureRegistry reg, const double* x,
                      Py_ssize_t n_features, Py_ssize_t n_out, Py_ssize_t n_trees,
                      long long version) noexcept
