"""The aggregator (see `_aggregator.pxd`): the trees' answers to a row, aggregated, the last
one-sample prediction kept for the learn of the same row, and the answers the interval
calibrator and the drift watch learn from before the trees learn a row."""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.stdint cimport int32_t

import numpy as np

from ._cache cimport (cache_answers, cache_free, cache_holds, cache_init, cache_nbytes,
                      cache_remember)
from ._tree cimport Tree, row_of


cdef inline Py_ssize_t argmax(const double* v, Py_ssize_t n) noexcept:
    """The first index of `v[:n]` with the greatest value (0 when `n` <= 1)."""
    cdef Py_ssize_t c, best = 0
    for c in range(1, n):
        if v[c] > v[best]:
            best = c
    return best


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
    (`agg_predict_one`)."""
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
            best = argmax(a.tmp, n_out)
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


cdef Py_ssize_t agg_predict_one(Aggregate* a, Grove grove, FeatureRegistry features, dict x,
                                Py_ssize_t n_out, bint vote, bint classifier) except -1:
    """A one-sample prediction of `x` (the registry's buffer filled from it, unknown features
    dropped) into `acc[:n_out]`, remembered with each tree's walk for the learn of the same
    row that test-then-train does next (`agg_keep_walks`, the detectors, the calibrator); the
    width of the row."""
    cdef Py_ssize_t n_features = features.fill(x, False)
    agg_reserve(a, n_out)
    a.cache.tag += 1
    agg_row(a, grove, features.buf, n_out, vote, classifier, grove.watch.watching, True)
    cache_remember(&a.cache, features, n_features, n_out, len(grove.trees), grove.version,
                   a.acc, classifier)
    a.cache.recorded = grove.watch.watching
    return n_features


cdef Py_ssize_t agg_best(const Aggregate* a, Py_ssize_t n_out) noexcept:
    """The first output of `acc[:n_out]` with the greatest value (a classifier's label)."""
    return argmax(a.acc, n_out)


cdef double agg_mean_var(const Aggregate* a, double* var) noexcept:
    """A regression's aggregate in `acc[:2]` (the mean, the mean of y^2): the mean, and the
    variance (clipped at 0) into `var`."""
    cdef double mean = a.acc[0], v = a.acc[1] - a.acc[0] * a.acc[0]
    var[0] = v if v > 0.0 else 0.0
    return mean


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


cdef int agg_prequential(Aggregate* a, Grove grove, FeatureRegistry features,
                         Calibrator calibrator, const double* x, Py_ssize_t n_features, double y,
                         Py_ssize_t n_out, bint vote, bint classifier) except -1:
    """Before the trees learn row (x, y): a regressor's interval calibrator learns from the
    forest's answer to it (once a tree has learned something), and the drift watch takes
    each tree's error on it (`agg_watch_errors`; `n_out` outputs); both from the last
    one-sample prediction when it was of this row and nothing was learned since
    (test-then-train), else from answers predicted now."""
    if calibrator.c != NULL and grove.fitted():  # else nothing predicted this row: no error
        if agg_cached(a, grove, features, x, n_features, 2):
            calibrator.learn(x, n_features, y, a.cache.mean, a.cache.second)
        else:
            agg_reserve(a, 2)
            agg_row(a, grove, x, 2, vote, classifier, False)
            calibrator.learn(x, n_features, y, a.acc[0], a.acc[1])
    if grove.watch.watching:
        agg_watch_errors(a, grove, features, x, n_features, y, NULL, n_out, classifier)
    return 0


cdef int agg_learn_one(Aggregate* a, Grove grove, FeatureRegistry features,
                       Calibrator calibrator, Py_ssize_t n_features, double y, Py_ssize_t n_out,
                       bint vote, bint classifier, object make_tree) except -1:
    """Learn the row in the registry's buffer (`n_features` wide) and its target `y`, as
    `learn_one` does: its `agg_prequential` step, then each tree takes up its walk of the
    row when the row was just predicted (`agg_keep_walks`), then every tree learns it and the
    grove acts on the detectors' verdicts (`Grove.learn_sample`)."""
    agg_prequential(a, grove, features, calibrator, features.buf, n_features, y, n_out, vote,
                    classifier)
    agg_keep_walks(a, grove, features, n_features)
    grove.version += 1
    return grove.learn_sample(features.buf, <int32_t>n_features, y, make_tree)


cdef int agg_learn_rows(Aggregate* a, Grove grove, FeatureRegistry features,
                        Calibrator calibrator, const double[:, ::1] X, const double[::1] y,
                        Py_ssize_t n_out, bint vote, bint classifier,
                        object make_tree) except -1:
    """Learn rows one at a time with the detectors watching (or the interval calibrator
    learning), exactly as `learn_one` calls would (each row's `agg_prequential`, then every
    tree learns it and the grove acts on the detectors' verdicts, `Grove.learn_sample`): one
    compiled loop, a Python call only when a detector fires."""
    cdef Py_ssize_t i
    cdef int32_t n_features = <int32_t>X.shape[1]
    cdef const double* x
    grove.version += 1
    for i in range(X.shape[0]):
        x = row_of(X, i)
        agg_prequential(a, grove, features, calibrator, x, n_features, y[i], n_out, vote,
                        classifier)
        grove.learn_sample(x, n_features, y[i], make_tree)
    return 0
