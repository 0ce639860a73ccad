"""The batcher (see `_batcher.pxd`): the rows a batch forest buffers, its count of batches, its
last predicted batch, and how a batch is learned."""

import math

import numpy as np

from ._aggregator cimport agg_learn_rows, agg_predict_rows, agg_reserve
from ._checks cimport is_int
from ._conformal cimport conformal_learn, conformal_learn_batch
from ._tree cimport row_of

#: most cells (rows x (columns + trees), 8 bytes each: 128 KB) of a predicted batch a forest
#: that learns in batches keeps for its detectors
cdef Py_ssize_t BATCH_CACHE_CELLS = 16384


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

    cdef object predict(self, Aggregate* a, Grove grove, Calibrator calibrator,
                        const double[:, ::1] X, Py_ssize_t n_out, bint vote, bint classifier):
        """The forest's predictions of rows `X` in registry order, (n, n_out) (`n_out`
        classes' probabilities, or 2 for regression: mean and variance; `agg_predict_rows`).
        A forest that learns in batches with detectors (or a calibrator) keeps a small batch,
        each tree's answers to it and the aggregate (the rows and answers at most
        `BATCH_CACHE_CELLS` cells, whatever the width of the stream: within the budget's
        margin), for when it learns that batch next (`learn`); a larger batch is predicted
        again there."""
        cdef Py_ssize_t n_trees = len(grove.trees)
        cdef bint record = (grove.watch.watching or calibrator.c != NULL) and self.size > 0 \
            and X.shape[0] * (X.shape[1] + n_trees + 2) <= BATCH_CACHE_CELLS
        if n_out == 0:
            return np.zeros((X.shape[0], 0), dtype=np.float64)
        self.pred = None  # the kept answers are of another batch now
        self.agg = None
        pred = np.empty((X.shape[0], n_trees)) if record and grove.watch.watching else None
        out = agg_predict_rows(a, grove, X, n_out, pred, vote, classifier)
        if record:
            self.X = np.array(X, dtype=np.float64)
            self.pred = pred
            self.agg = out.copy() if calibrator.c != NULL else None
            self.nout = n_out
            self.version = grove.version
        return out

    cdef bint knows(self, object X, Py_ssize_t n_out, long long version) except -1:
        """Whether the kept batch is `X` (to the bit), predicted with `n_out` outputs at the
        forest's `version` (nothing learned since)."""
        return self.version == version and self.nout == n_out and self.X.shape == X.shape \
            and np.array_equal(self.X.view(np.uint64), np.asarray(X).view(np.uint64))

    cdef bint unfitted(self, Grove grove, Calibrator calibrator):
        """Whether the forest learns in batches, has a calibrator and no tree has learned a
        row yet: its calibrator then learns each row as it is given, from the forest's
        prediction by the targets given before it (`calibrate_unfitted`), and its intervals
        are centred on that prediction (`null_prediction`)."""
        return self.size > 0 and calibrator.c != NULL and not grove.fitted()

    cdef bint null_prediction(self, double* mean) except -1:
        """What the forest predicts, for its calibrator, while no tree has learned a row: the
        mean of the targets buffered (False, and nothing written, with none). Its spread is
        unknown: the calibrator reads it as 0, its spread term off (a variance of targets is
        no spread of trees, which the term learns to read)."""
        cdef double total = 0.0
        if not self.targets:
            return False
        for t in self.targets:  # summed as `calibrate_unfitted` sums them
            total += t
        mean[0] = total / len(self.targets)
        return True

    cdef int calibrate_unfitted(self, Calibrator calibrator, const double[:, ::1] rows,
                                const double[::1] targets, Py_ssize_t before) except -1:
        """While no tree has learned a row (`unfitted`): the calibrator learns `rows` in order,
        each from the mean of the targets given before it (the first `before` buffered
        targets, then the earlier ones of `rows`; spread 0, see `null_prediction`), judged
        against the interval it gives then, as a sequential forest's calibrator learns each
        row (the first row of all, predicted by nothing, is not learned). The same whether
        the rows come one at a time (`learn_one`, into the buffer) or as a batch
        (`learn_many`)."""
        cdef double total = 0.0
        cdef Py_ssize_t i, n = before
        for i in range(before):
            total += self.targets[i]
        for i in range(rows.shape[0]):
            if n > 0:
                conformal_learn(calibrator.c, row_of(rows, i), rows.shape[1], targets[i],
                                total / n, 0.0)
            total += targets[i]
            n += 1
        return 0

    cdef int calibrate_last(self, Calibrator calibrator) except -1:
        """`calibrate_unfitted` of the row just buffered (`learn_one`)."""
        cdef Py_ssize_t n = len(self.rows) - 1
        return self.calibrate_unfitted(calibrator, self.rows[n].reshape(1, -1),
                                       np.asarray(self.targets[n:], dtype=np.float64), n)

    cdef int learn(self, Aggregate* a, Grove grove, FeatureRegistry features,
                   Calibrator calibrator, object X, object y, Py_ssize_t n_out, bint vote,
                   bint classifier, object executor, Py_ssize_t n_tasks,
                   object make_tree, bint buffered) except -1:
        """Learn one batch (rows in registry order, encoded targets) and count it. Without
        detectors or a calibrator, the grove learns it (`Grove.learn_rows`: each tree in one
        call). With them, a sequential forest learns the rows one at a time, as `learn_one`
        calls would (`agg_learn_rows`); a forest that learns in batches has its calibrator
        learn each row, in order, from the forest's prediction of it before the batch, and
        each tree's errors on the rows taken before the batch and seen by the detectors, row
        by row, once it is learned (`Grove.learn_watched_batch`): both from the answers kept
        when this batch was just predicted (`predict`), else predicted now. While no tree
        has learned a row, the calibrator learns the batch by `calibrate_unfitted` (a batch
        from the buffer, `buffered`, it learned as each row came)."""
        cdef const double[:, ::1] rows
        cdef const double[::1] targets
        cdef const double[:, ::1] agg
        if not (grove.watch.watching or calibrator.c != NULL):
            grove.learn_rows(X, y, executor, n_tasks)
        elif self.size == 0:
            agg_learn_rows(a, grove, features, calibrator, X, y, n_out, vote, classifier,
                           make_tree)
        else:
            rows = X
            targets = y
            grove.version += 1
            known = self.knows(X, n_out, grove.version)  # this batch was just predicted
            if self.unfitted(grove, calibrator):
                if not buffered:
                    self.calibrate_unfitted(calibrator, rows, targets, len(self.targets))
            elif calibrator.c != NULL:
                agg = self.agg if known and self.agg is not None \
                    else agg_predict_rows(a, grove, rows, n_out, None, vote, classifier)
                conformal_learn_batch(calibrator.c, rows, targets, agg)
            if not grove.watch.watching:
                grove.learn_rows(X, y, executor, n_tasks)
            else:
                if n_out > 0:
                    agg_reserve(a, n_out)
                grove.learn_watched_batch(X, y, self.pred if known else None, n_out,
                                          classifier, a.tmp, executor, n_tasks, make_tree)
        grove.version += 1
        return self.learned()

    cdef dict state(self):
        """The batcher's keys of the forest's state (the buffer copied)."""
        return {"n_batches": self.n_batches, "batch_size": self.size,
                "pending_rows": [r.copy() for r in self.rows],
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
