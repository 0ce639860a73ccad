"""The prediction cache (see `_cache.pxd`): the last one-sample prediction, kept for the learn
of the same row."""

from libc.stdlib cimport calloc, free
from libc.string cimport memcmp


cdef void cache_init(RowCache* c) noexcept:
    c.cols = NULL
    c.x = NULL
    c.pred = NULL
    c.cap = 0
    c.k = 0
    c.version = -1


cdef void cache_free(RowCache* c) noexcept:
    free(c.x)
    free(c.cols)
    free(c.pred)
    c.x = NULL
    c.cols = NULL
    c.pred = NULL
    c.cap = 0


cdef size_t cache_nbytes(const RowCache* c, Py_ssize_t n_trees) noexcept:
    """The cache's bytes: the row kept and, once allocated, the trees' answers."""
    return c.cap * (sizeof(double) + sizeof(Py_ssize_t)) \
        + (n_trees + 1 if c.pred != NULL else 0) * sizeof(double)


cdef double* cache_answers(RowCache* c, Py_ssize_t n_trees) except NULL:
    """Where each tree's answer to the prediction is kept (allocated on first use)."""
    cdef void* p
    if c.pred == NULL:
        p = calloc(n_trees + 1, sizeof(double))
        if p == NULL:
            raise MemoryError()
        c.pred = <double*>p
    return c.pred


cdef int cache_remember(RowCache* c, FeatureRegistry reg, Py_ssize_t n_features,
                        Py_ssize_t n_out, Py_ssize_t n_trees, long long version,
                        const double* acc, bint classifier) except -1:
    """The row the trees' answers in `pred` are of (the registry's buffer, `n_features`
    wide): the columns the last dict set and their values, the number of outputs and trees,
    the forest's version, and a regression's aggregate (`acc[:2]`)."""
    cdef Py_ssize_t i, k = reg.n_written
    cdef void* a
    cdef void* b
    if k > c.cap:
        a = calloc(k, sizeof(double))
        b = calloc(k, sizeof(Py_ssize_t))
        if a == NULL or b == NULL:
            free(a)
            free(b)
            raise MemoryError()
        free(c.x)
        free(c.cols)
        c.x = <double*>a
        c.cols = <Py_ssize_t*>b
        c.cap = k
    for i in range(k):
        c.cols[i] = reg.written[i]
        c.x[i] = reg.buf[reg.written[i]]
    c.k = k
    c.n = n_features
    c.nout = n_out
    c.trees = n_trees
    c.version = version
    if not classifier:
        c.mean = acc[0]
        c.second = acc[1]
    return 0


cdef bint cache_holds(const RowCache* c, FeatureRegistry reg, const double* x,
                      Py_ssize_t n_features, Py_ssize_t n_out, Py_ssize_t n_trees,
                      long long version) noexcept:
    """Whether the cached prediction is of row `x` with `n_out` outputs, by `n_trees` trees,
    at the forest's `version` (nothing learned since). `x` must be the registry's buffer just
    filled: the same width, the same columns set in the same order, the same values to the
    bit (a column no dict set is missing in both)."""
    cdef Py_ssize_t i
    if c.version != version or c.nout != n_out or c.trees != n_trees:
        return False
    if x != reg.buf or n_features != c.n or reg.n_written != c.k:
        return False
    for i in range(c.k):
        if reg.written[i] != c.cols[i] or memcmp(
                &reg.buf[reg.written[i]], &c.x[i], sizeof(double)) != 0:
            return False
    return True
