"""The aggregator (see `_aggregator.pxd`): the trees' answers to a row, aggregated, and the
last one-sample prediction kept for the learn of the same row."""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.stdint cimport int32_t

import numpy as np

from ._cache cimport (cache_answers, cache_free, cache_holds, cache_init, cache_nbytes,
                      cache_remember)
from ._tree cimport Tree, row_of


cdef int agg_init(Aggregate* a) except -1:
    """Scratch rows of 8 doubles and an empty cache."""
    a.acc = NULL
    a.tmp = NULL
    a.scratch = 0
    agg_reserve(a, 8)
    cache_init(&a.cache)
    return 0


cdef void agg_free(Aggregate* a) noexcept:
    PyMem_Free(a.acc)
    PyMem_Free(a.tmp)
    a.acc = NULL
    a.tmp = NULL
    cache_free(&a.cache)


cdef size_t agg_nbytes(const Aggregate* a, Py_ssize_t n_trees) noexcept:
    """The scratch rows' and the cache's bytes (`n_trees` trees)."""
    return 2 * a.scratch * sizeof(double) + cache_nbytes(&a.cache, n_trees)


cdef int agg_reserve(Aggregate* a, Py_ssize_t n) except -1:
    """Scratch rows of `n` doubles at least."""
    cdef void* p
    cdef void* q
    if n <= a.scratch:
        return 0
    n = max(n, 2 * a.scratch)
    p = PyMem_Realloc(a.acc, n * sizeof(double))
    if p == NULL:
        raise MemoryError()
    a.acc = <double*>p
    q = PyMem_Realloc(a.tmp, n * sizeof(double))
    if q == NULL:
        raise MemoryError()
    a.tmp = <double*>q
    a.scratch = n
    return 0


cdef int agg_row(Aggregate* a, Grove grove, const double* x, Py_ssize_t n_out, bint vote,
                 bint classifier, bint record=False, bint keep=False) except -1:
    """Aggregate every tree's prediction of row `x` into `acc[:n_out]` (the mean, or a
    majority `vote`); `record`: keep each tree's answer (its class, or its mean) in the cache
    (`cache_answers`) for the detectors; `keep`: tag each tree's walk with the cache's tag
    (`agg_predict_row`)."""
    cdef Tree tree
    cdef Py_ssize_t c, best, t = 0
    cdef double n_trees = len(grove.trees)
    cdef double* answers = cache_answers(&a.cache, len(grove.trees)) if record else NULL
    for c in range(n_out):
        a.acc[c] = 0.0
    for tree in grove.trees:
        tree.predict(x, a.tmp, <int32_t>n_out)
        if keep:
            tree.walk_tag = a.cache.tag
        if vote or (record and classifier):
            best = 0
            for c in range(1, n_out):
                if a.tmp[c] > a.tmp[best]:
                    best = c
            if record:
                answers[t] = <double>best
        elif record:
            answers[t] = a.tmp[0]
        t += 1
        if vote:
            a.acc[best] += 1.0
        else:
            for c in range(n_out):
                a.acc[c] += a.tmp[c]
    for c in range(n_out):
        a.acc[c] /= n_trees
    return 0


cdef int agg_predict_row(Aggregate* a, Grove grove, FeatureRegistry features,
                         Py_ssize_t n_features, Py_ssize_t n_out, bint vote,
                         bint classifier) except -1:
    """A one-sample prediction of the row in the registry's buffer (`n_features` wide) into
    `acc[:n_out]`, remembered with each tree's walk for the learn of the same row that
    test-then-train does next (`agg_keep_walks`, the detectors, the calibrator)."""
    a.cache.tag += 1
    agg_row(a, grove, features.buf, n_out, vote, classifier, grove.watch.watching, True)
    cache_remember(&a.cache, features, n_features, n_out, len(grove.trees), grove.version,
                   a.acc, classifier)
    a.cache.recorded = grove.watch.watching
    return 0


cdef int agg_keep_walks(Aggregate* a, Grove grove, FeatureRegistry features,
                        Py_ssize_t n_features) except -1:
    """Before the trees learn the row in the registry's buffer: when the last one-sample
    prediction was of this row and nothing was learned since, each tree whose last walk is
    that prediction's takes it up (`Tree.reuse`, taken by `Tree.route`) instead of walking
    again: the same nodes, so the same model, bit for bit."""
    cdef Tree tree
    cdef bint same = a.cache.tag > 0 and agg_cached(a, grove, features, features.buf,
                                                    n_features, a.cache.nout)
    for tree in grove.trees:
        tree.reuse = tree.walked if same and tree.walk_tag == a.cache.tag else 0
    return 0


cdef bint agg_cached(const Aggregate* a, Grove grove, FeatureRegistry features, const double* x,
                     Py_ssize_t n_features, Py_ssize_t n_out) noexcept:
    """Whether the last one-sample prediction (`cache_remember`) is of row `x` with `n_out`
    outputs, by the trees there are now, with nothing learned since."""
    return cache_holds(&a.cache, features, x, n_features, n_out, len(grove.trees),
                       grove.version)


cdef int agg_watch_errors(Aggregate* a, Grove grove, FeatureRegistry features, const double* x,
                          Py_ssize_t n_features, double y, const double* preds,
                          Py_ssize_t n_out, bint classifier) except -1:
    """Each tree's error on row `x` (`DriftWatch.errors`; `n_out` outputs). `preds`: each
    tree's answer to this row (its class or its mean) when already known (a batch predicted,
    then learned); else the last one-sample prediction's when it was of this row and nothing
    was learned since (test-then-train predicts, then learns, the same row); else each tree
    predicts."""
    if preds == NULL and a.cache.recorded and agg_cached(a, grove, features, x, n_features,
                                                         n_out):
        preds = a.cache.pred
    if n_out > 0:
        agg_reserve(a, n_out)
    return grove.watch.errors(grove.trees, x, y, preds, n_out, classifier, a.tmp)


cdef object agg_predict_rows(Aggregate* a, Grove grove, const double[:, ::1] X,
                             Py_ssize_t n_out, object pred, bint vote, bint classifier):
    """(n, n_out): each row's aggregate (`agg_row`; for regression, `n_out` = 2 and the second
    output the variance). `pred`: None, or an (n, n_trees) array that takes each tree's answer
    to each row (its class, or its mean)."""
    cdef Py_ssize_t i, c, t, n_trees = len(grove.trees)
    cdef bint trees = pred is not None
    cdef double[:, ::1] answers
    out = np.zeros((X.shape[0], n_out), dtype=np.float64)
    cdef double[:, ::1] view = out
    agg_reserve(a, n_out)
    if trees:
        answers = pred
    for i in range(X.shape[0]):
        agg_row(a, grove, row_of(X, i), n_out, vote, classifier, trees)
        if trees:
            for t in range(n_trees):
                answers[i, t] = a.cache.pred[t]
        for c in range(n_out):
            view[i, c] = a.acc[c]
        if not classifier:
            view[i, 1] = max(view[i, 1] - view[i, 0] * view[i, 0], 0.0)
    return out
