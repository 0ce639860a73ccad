"""The compiled forest: the per-sample loop over trees, labels, aggregation, batches.

Python overhead is paid once per sample (one dict walk, one label lookup); the trees are then
driven through their compiled `learn_sample` / `predict` methods.
"""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.math cimport isfinite
from libc.stdint cimport int32_t

import numpy as np

from ._features cimport FeatureRegistry
from ._tree cimport Tree


cdef class ForestCore:

    def __cinit__(self, list trees, bint classifier, bint vote, FeatureRegistry features=None,
                  list labels=None):
        self.trees = trees
        self.classifier = classifier
        self.vote = vote
        self.features = features if features is not None else FeatureRegistry()
        self.labels = list(labels) if labels is not None else []
        self.label_index = {label: i for i, label in enumerate(self.labels)}
        self.acc = NULL
        self.tmp = NULL
        self.scratch = 0
        self._reserve(8)

    def __dealloc__(self):
        PyMem_Free(self.acc)
        PyMem_Free(self.tmp)

    cdef int _reserve(self, Py_ssize_t n) except -1:
        cdef void* a
        cdef void* b
        if n <= self.scratch:
            return 0
        n = max(n, 2 * self.scratch)
        a = PyMem_Realloc(self.acc, n * sizeof(double))
        if a == NULL:
            raise MemoryError()
        self.acc = <double*>a
        b = PyMem_Realloc(self.tmp, n * sizeof(double))
        if b == NULL:
            raise MemoryError()
        self.tmp = <double*>b
        self.scratch = n
        return 0

    def __reduce__(self):
        return (ForestCore, (self.trees, self.classifier, self.vote, self.features, self.labels))

    # ------------------------------------------------------------------ targets

    cdef double _target(self, object y, bint register) except? -1.0:
        """Class index of a label (registering it if asked) or a checked regression target."""
        cdef double v
        if self.classifier:
            if y is None:
                raise ValueError("the label y is None; a classifier needs a label")
            idx = self.label_index.get(y)
            if idx is None:
                idx = len(self.labels)
                if register:
                    self.label_index[y] = idx
                    self.labels.append(y)
            return <double><Py_ssize_t>idx
        try:
            v = <double>y
        except (TypeError, ValueError):
            raise TypeError(f"the target y must be a real number, got {type(y).__name__} ({y!r})") from None
        if not isfinite(v):
            raise ValueError(f"the target y must be finite, got {v!r}")
        return v

    def encode_targets(self, ys, bint register):
        """Targets of a batch as float64: class indices or checked regression targets.

        Every target is checked before any label is registered, so a failure leaves the
        model unchanged. Labels new to the forest get the next indices in order of first
        sight (registered only with `register`)."""
        cdef Py_ssize_t i, n = len(ys)
        cdef dict new
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] view = out
        if not self.classifier:
            for i in range(n):
                view[i] = self._target(ys[i], False)
            return out
        new = {}
        for i in range(n):
            y = ys[i]
            if y is None:
                raise ValueError("a label in y is None; a classifier needs labels")
            idx = self.label_index.get(y)
            if idx is None:
                idx = new.get(y)
                if idx is None:
                    idx = len(self.labels) + len(new)
                    new[y] = idx
            view[i] = <double><Py_ssize_t>idx
        if register:
            for y in new:
                self.label_index[y] = len(self.labels)
                self.labels.append(y)
        return out

    # ------------------------------------------------------------------ one sample

    def learn_one(self, dict x, object y):
        cdef double target = self._target(y, False)
        cdef Py_ssize_t n_features = self.features.fill(x, True)
        cdef Tree tree
        if self.classifier and target >= len(self.labels):
            self._target(y, True)
        for tree in self.trees:
            tree.learn_sample(self.features.buf, <int32_t>n_features, target)

    cdef int _aggregate(self, const double* x, Py_ssize_t n_out) except -1:
        """Aggregate every tree's prediction of row `x` into `acc[:n_out]`."""
        cdef Tree tree
        cdef Py_ssize_t c, best
        cdef double n_trees = len(self.trees)
        for c in range(n_out):
            self.acc[c] = 0.0
        for tree in self.trees:
            tree.predict(x, self.tmp, <int32_t>n_out)
            if self.vote:
                best = 0
                for c in range(1, n_out):
                    if self.tmp[c] > self.tmp[best]:
                        best = c
                self.acc[best] += 1.0
            else:
                for c in range(n_out):
                    self.acc[c] += self.tmp[c]
        for c in range(n_out):
            self.acc[c] /= n_trees
        return 0

    cdef Py_ssize_t _n_out(self):
        return len(self.labels) if self.classifier else 2

    def predict_proba_one(self, dict x):
        cdef Py_ssize_t c, n_out = len(self.labels)
        if n_out == 0:
            return {}
        self.features.fill(x, False)
        self._reserve(n_out)
        self._aggregate(self.features.buf, n_out)
        return {self.labels[c]: self.acc[c] for c in range(n_out)}

    def predict_label_one(self, dict x):
        cdef Py_ssize_t c, best = 0, n_out = len(self.labels)
        if n_out == 0:
            return None
        self.features.fill(x, False)
        self._reserve(n_out)
        self._aggregate(self.features.buf, n_out)
        for c in range(1, n_out):
            if self.acc[c] > self.acc[best]:
                best = c
        return self.labels[best]

    def predict_value_one(self, dict x):
        """Regression: (mean, variance) of the forest's predictive mixture."""
        cdef double mean, var
        self.features.fill(x, False)
        self._aggregate(self.features.buf, 2)
        mean = self.acc[0]
        var = self.acc[1] - mean * mean
        return mean, (var if var > 0.0 else 0.0)

    # ------------------------------------------------------------------ batches

    def predict_rows(self, const double[:, ::1] X):
        """Aggregated predictions of every row: (n, n_classes) probabilities, or (n, 2) of
        (mean, variance) for regression."""
        cdef Py_ssize_t i, c, n_out = self._n_out()
        out = np.zeros((X.shape[0], n_out), dtype=np.float64)
        cdef double[:, ::1] view = out
        if n_out == 0:
            return out
        self._reserve(n_out)
        for i in range(X.shape[0]):
            self._aggregate(&X[i, 0], n_out)
            for c in range(n_out):
                view[i, c] = self.acc[c]
            if not self.classifier:
                view[i, 1] = max(view[i, 1] - view[i, 0] * view[i, 0], 0.0)
        return out

    def learn_rows(self, const double[:, ::1] X, const double[::1] y, executor=None,
                   Py_ssize_t n_tasks=1):
        """Learn every row in order; each tree sees exactly what `learn_one` calls would give
        it. Each tree learns the whole batch in one GIL-free call (its nodes stay in cache).
        Trees are independent, so with an executor `n_tasks` threads (the calling thread
        and n_tasks - 1 pool threads) take the trees one at a time from a shared queue: a
        thread slowed by another process simply takes fewer trees."""
        cdef Py_ssize_t k = min(n_tasks, len(self.trees))
        queue = iter(self.trees)  # next() runs under the GIL: each tree is taken once

        def run():
            for tree in queue:
                tree.learn_rows(X, y)

        if executor is None or k <= 1:
            run()
            return
        futures = [executor.submit(run) for _ in range(1, k)]
        try:
            run()
        finally:
            for future in futures:
                future.result()
