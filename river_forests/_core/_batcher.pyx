"""The batcher (see `_batcher.pxd`): the rows a batch forest buffers, its count of batches and
its last predicted batch."""

import math

import numpy as np

from ._checks cimport is_int


cdef class Batcher:

    def __cinit__(self, Py_ssize_t size=0):
        if size < 0:
            raise ValueError(f"batch_size must be >= 0, got {size}")
        self.size = size
        self.rows = []
        self.targets = []
        self.version = -1

    @property
    def n_pending(self):
        """Rows buffered, not learned yet."""
        return len(self.rows)

    cdef bint add(self, double* x, Py_ssize_t n_features, double target) except -1:
        """Buffer row `x` (`n_features` wide, copied) and its encoded target; whether the
        buffer now holds a whole batch."""
        self.rows.append(np.asarray(<double[:n_features]>x).copy() if n_features > 0
                         else np.empty(0))
        self.targets.append(target)
        return len(self.rows) >= self.size

    cdef object take(self):
        """The buffered rows as one batch, (rows, targets) (NaN where a row predates a
        feature), and an empty buffer; None if it was empty."""
        cdef Py_ssize_t i, n = len(self.rows)
        if n == 0:
            return None
        width = max(len(r) for r in self.rows)
        rows = np.full((n, width), np.nan)
        for i in range(n):
            rows[i, :len(self.rows[i])] = self.rows[i]
        targets = np.asarray(self.targets, dtype=np.float64)
        self.drop()
        return rows, targets

    cdef int drop(self) except -1:
        """Forget the buffered rows."""
        self.rows = []
        self.targets = []
        return 0

    cdef int learned(self) except -1:
        """A batch was learned (counted only by a forest that learns in batches)."""
        if self.size > 0:
            self.n_batches += 1
        return 0

    cdef int forget(self) except -1:
        """Drop the kept answers of the last predicted batch."""
        self.pred = None
        self.agg = None
        return 0

    cdef int keep(self, object X, object pred, object agg, Py_ssize_t n_out,
                  long long version) except -1:
        """Keep a predicted batch: its rows (copied), each tree's answers (or None), the
        forest's aggregate (or None), at the forest's `version`."""
        self.X = np.array(X, dtype=np.float64)
        self.pred = pred
        self.agg = agg
        self.nout = n_out
        self.version = version
        return 0

    cdef bint knows(self, object X, Py_ssize_t n_out, long long version) except -1:
        """Whether the kept batch is `X` (to the bit), predicted with `n_out` outputs at the
        forest's `version` (nothing learned since)."""
        return self.version == version and self.nout == n_out and self.X.shape == X.shape \
            and np.array_equal(self.X.view(np.uint64), np.asarray(X).view(np.uint64))

    cdef dict buffered(self):
        """The buffer's saved keys (copies)."""
        return {"pending_rows": [r.copy() for r in self.rows],
                "pending_targets": list(self.targets)}

    cdef int set_state(self, dict state) except -1:
        """Restore the saved keys (`check_state` checked them)."""
        self.n_batches = state["n_batches"]
        self.size = state["batch_size"]
        self.rows = list(state["pending_rows"])
        self.targets = list(state["pending_targets"])
        return 0

    @staticmethod
    def check_state(dict forest, Py_ssize_t n_names, Py_ssize_t widest, bint classifier,
                    Py_ssize_t n_labels):
        """Raise ValueError unless the batcher's keys of `forest` (a forest's state) are
        counts, and buffered rows and targets a forest whose registries hold `n_names`
        features and `n_labels` labels, whose trees read `widest` columns, can learn."""
        for key in ("n_batches", "batch_size"):
            if not is_int(forest.get(key)):
                raise ValueError(f"the forest's {key!r} must be an integer >= 0")
        rows, targets = forest.get("pending_rows"), forest.get("pending_targets")
        if not isinstance(rows, list) or not isinstance(targets, list) or len(rows) != len(targets) \
                or len(rows) > max(forest["batch_size"], 0):
            raise ValueError("the forest's buffered rows and targets do not match its batch size")
        for r in rows:
            if not (isinstance(r, np.ndarray) and r.dtype == np.float64 and r.ndim == 1
                    and len(r) <= n_names):
                raise ValueError("a buffered row must be a float64 row of the registry's width")
        if rows and max(len(r) for r in rows) < widest:
            raise ValueError("the buffered rows are narrower than the columns the trees read")
        for t in targets:
            if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) \
                    or (classifier and not (t == int(t) and 0 <= t < n_labels)):
                raise ValueError("a buffered target is not a class the forest knows"
                                 if classifier else "a buffered target is not a finite number")
