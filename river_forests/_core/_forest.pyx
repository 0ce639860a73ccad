"""The compiled forest: the per-sample loop over trees, labels, aggregation, batches.

Python overhead is paid once per sample (one dict walk, one label lookup); the trees are then
driven through their compiled `learn_sample` / `predict` methods.

Every public method holds the model's lock (`_lock.pxd`) from start to end, batches included
(checking the labels, registering features, placing the rows and learning them are one call),
so one model can be shared by threads: one learning while others predict or pickle it. The
methods whose name starts with an underscore assume the lock is held.
"""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.math cimport fabs
from libc.stdint cimport int32_t

import sys

import numpy as np
import pandas as pd

from ._features cimport MAX_ABS, FeatureRegistry
from ._lock cimport acquire, free_lock, new_lock, release
from ._random cimport rng_seed, rng_uniform
from ._tree cimport Tree, row_of

from ._random import tree_seed
from ._tree import _rebuild_tree

cdef object _NA = pd.NA
cdef object _NaT = pd.NaT
cdef tuple _FLOATS = (float, np.floating)


cdef inline bint _missing(object y):
    """None, pd.NA, pd.NaT or a float NaN: a missing label or target."""
    if y is None or y is _NA or y is _NaT:
        return True
    return isinstance(y, _FLOATS) and y != y


def _rebuild_core(trees, classifier, vote, names, max_width, full_warned, labels, forest=None):
    from ._features import _rebuild_registry

    core = ForestCore([_rebuild_tree(cls, state) for cls, state in trees], classifier, vote,
                      _rebuild_registry(names, max_width, full_warned), labels)
    if forest is not None:
        core._set_forest_state(forest)
    else:  # pickled before the forest kept its own state: the forest sets its master seed
        core._set_master_seed(None)
    return core


cdef class ForestCore:

    def __cinit__(self, list trees, bint classifier, bint vote, FeatureRegistry features=None,
                  list labels=None, Py_ssize_t max_width=2**31 - 1, object master_seed=0,
                  Py_ssize_t batch_size=0):
        self.lock = new_lock()
        self.trees = trees
        self.classifier = classifier
        self.vote = vote
        self.features = features if features is not None else FeatureRegistry(max_width)
        self.labels = list(labels) if labels is not None else []
        self.label_index = {label: i for i, label in enumerate(self.labels)}
        self.acc = NULL
        self.tmp = NULL
        self.scratch = 0
        self._reserve(8)
        self.n_replaced = 0
        self.n_batches = 0
        self._set_master_seed(master_seed)
        if batch_size < 0:
            raise ValueError(f"batch_size must be >= 0, got {batch_size}")
        self.batch_size = batch_size
        self.pending_rows = []
        self.pending_targets = []
        self.background = [None] * len(trees)
        self.n_background = 0
        self.track = False
        self.last_errors = None
        self.budget = 0
        self.budget_slots = max(1, len(trees))

    def __dealloc__(self):
        free_lock(self.lock)
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
        """A snapshot taken under the lock: the trees' states are copied here, not when pickle
        later walks the objects (by then another thread may be growing them)."""
        acquire(self.lock)
        try:
            trees = [(type(t), (<Tree>t).get_state()) for t in self.trees]
            return (_rebuild_core, (trees, self.classifier, self.vote, list(self.features.names),
                                    self.features.max_width, self.features.full_warned,
                                    list(self.labels), self._forest_state()))
        finally:
            release(self.lock)

    def _forest_state(self):
        """The forest's own state: seeds, counters, generator, buffered rows (lock held)."""
        return {"master_seed": self.master_seed, "n_replaced": self.n_replaced,
                "n_batches": self.n_batches, "batch_size": self.batch_size,
                "rng": (self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3),
                "pending_rows": [r.copy() for r in self.pending_rows],
                "pending_targets": list(self.pending_targets),
                "background": [None if b is None else (type(b), (<Tree>b).get_state())
                               for b in self.background],
                "n_background": self.n_background, "track": self.track,
                "budget": (self.budget, self.budget_fixed, self.budget_slots, self.tree_bytes)}

    def _set_master_seed(self, object seed):
        """Set the master seed (None: not known yet, for a core pickled before it existed; the
        forest sets it when it loads) and seed the forest's generator from it."""
        self.master_seed = None if seed is None else int(seed)
        rng_seed(&self.rng, tree_seed(self.master_seed or 0, -1))  # apart from every tree's

    def _set_forest_state(self, dict state):
        self.master_seed = state["master_seed"]
        self.n_replaced = state["n_replaced"]
        self.n_batches = state["n_batches"]
        self.batch_size = state["batch_size"]
        self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3 = state["rng"]
        self.pending_rows = list(state["pending_rows"])
        self.pending_targets = list(state["pending_targets"])
        # drift adaptation (absent from a core pickled before it existed)
        self.background = [None if b is None else _rebuild_tree(*b)
                           for b in state.get("background", [None] * len(self.trees))]
        self.n_background = state.get("n_background", 0)
        self.track = state.get("track", False)
        self.budget, self.budget_fixed, self.budget_slots = state.get(
            "budget", (0, 0, max(1, len(self.trees))))[:3]
        self.rebudget()

    # ------------------------------------------------------------------ the forest protocol
    # The underscore methods below assume the lock is held: they are for the `after` step a
    # forest passes to `learn_one` / `learn_batch`, which runs under the lock once a batch is
    # learned (see `_learn_batch_rows`).

    def _uniform(self):
        """A uniform draw in [0, 1) from the forest's own generator."""
        return rng_uniform(&self.rng)

    def _predict_trees(self, const double[:, ::1] X):
        """Each tree's predictions of rows in registry order: (n_trees, n_rows, n_out)."""
        return self._predict_tree_rows(X)

    def _replace_tree(self, Py_ssize_t i, object make_tree, object rows=None, object targets=None):
        """Put a new tree in place of tree `i`: `make_tree(seed)` builds it, with the seed of
        the forest's next replacement (`tree_seed(master_seed, n_trees + n_replaced)`, so
        replacements are reproducible from the forest's seed), and, given `rows` and
        `targets`, it learns them before it takes its place: a thread predicting sees the old
        tree or the grown one. Returns the new tree."""
        if not 0 <= i < len(self.trees):
            raise IndexError(f"tree index {i} out of range for {len(self.trees)} trees")
        tree = make_tree(tree_seed(self.master_seed, len(self.trees) + self.n_replaced))
        if self.budget > 0:
            tree.set_max_bytes(self.tree_bytes)
        if rows is not None:
            tree.learn_rows(rows, targets)
        self.n_replaced += 1
        self.trees[i] = tree
        return tree

    def _start_background(self, Py_ssize_t i, object make_tree):
        """Start a background tree for tree `i` (replacing one it had): `make_tree(seed)`,
        seeded as the forest's next background tree (`tree_seed(master_seed, -2 - k)` for the
        k-th: apart from the trees' and replacements' seeds). It learns from the next sample
        on, alongside tree `i`, and takes its place on a drift (`_swap_in`)."""
        self.background[i] = make_tree(tree_seed(self.master_seed, -2 - self.n_background))
        if self.budget > 0:
            self.background[i].set_max_bytes(self.tree_bytes)
        self.n_background += 1
        return self.background[i]

    def _swap_in(self, Py_ssize_t i, object make_tree):
        """A drift on tree `i`: its background tree takes its place, or, without one, a fresh
        tree (`_replace_tree`). Either counts as a replacement."""
        if self.background[i] is None:
            return self._replace_tree(i, make_tree)
        self.trees[i] = self.background[i]
        self.background[i] = None
        self.n_replaced += 1
        return self.trees[i]

    def start_background(self, Py_ssize_t i, object make_tree):
        """`_start_background` under the model's lock."""
        acquire(self.lock)
        try:
            return self._start_background(i, make_tree)
        finally:
            release(self.lock)

    def _drop_background(self, Py_ssize_t i):
        """Forget tree `i`'s background tree (the tree was replaced by another route)."""
        self.background[i] = None

    def swap_in(self, Py_ssize_t i, object make_tree):
        """`_swap_in` under the model's lock."""
        acquire(self.lock)
        try:
            return self._swap_in(i, make_tree)
        finally:
            release(self.lock)

    def replace_tree(self, Py_ssize_t i, object make_tree):
        """Replace tree `i` by `make_tree(seed)`, seeded as the forest's next replacement
        (`_replace_tree`), under the model's lock: a thread learning or predicting sees the
        old tree or the new one."""
        acquire(self.lock)
        try:
            return self._replace_tree(i, make_tree)
        finally:
            release(self.lock)

    # ------------------------------------------------------------------ the memory budget

    cpdef int rebudget(self) except -1:
        """Share the budget out again: what the forest's registries take (names and labels,
        growing with the stream) and its fixed part come off, the rest is split evenly
        among `budget_slots` trees; a tree over its new share sheds nodes
        (`Tree.fit_budget`). Run when a name or a label is registered (the caller holds the
        lock), so the whole forest stays within `budget` bytes."""
        cdef Py_ssize_t k, n = len(self.features.names)
        cdef long long share
        if self.budget <= 0:
            return 0
        if n < self.budget_names:  # a registry rebuilt (a load): count its names again
            self.budget_names = 0
            self.name_bytes = 0
        for k in range(self.budget_names, n):
            self.name_bytes += sys.getsizeof(self.features.names[k])
        self.budget_names = n
        self.budget_labels = len(self.labels)
        # a function of the registries' contents alone (not of their containers' spare
        # room), so a loaded forest shares its budget out exactly as the one it copies
        # (a batch forest's buffer holds up to `batch_size` rows as wide as the registry)
        share = (self.budget - self.budget_fixed - self.name_bytes - 48 * n
                 - 160 * self.budget_labels - self.batch_size * (8 * n + 128)) // self.budget_slots
        if share < 1:
            share = 1
        self.tree_bytes = share
        for tree in self.trees:
            tree.set_max_bytes(share)
        for tree in self.background:
            if tree is not None:
                tree.set_max_bytes(share)
        return 0

    cdef int _check_budget(self) except -1:
        if self.budget > 0 and (len(self.features.names) != self.budget_names
                                or len(self.labels) != self.budget_labels):
            self.rebudget()
        return 0

    # ------------------------------------------------------------------ targets

    cdef double _target(self, object y) except? -1.0:
        """A checked target: a class index (len(labels) for a label not registered yet; the
        caller registers it once nothing else can fail) or a regression value."""
        cdef double v
        if _missing(y):
            raise ValueError(
                f"the {'label' if self.classifier else 'target'} y is missing ({y!r}); "
                "drop the samples without one before learning"
            )
        if self.classifier:
            idx = self.label_index.get(y)  # TypeError for an unhashable label
            return <double><Py_ssize_t>(len(self.labels) if idx is None else idx)
        try:
            v = <double>y
        except OverflowError:
            v = MAX_ABS * 2.0
        except (TypeError, ValueError):
            raise TypeError(f"the target y must be a real number, got {type(y).__name__} ({y!r})") from None
        if not fabs(v) <= MAX_ABS:
            raise ValueError(
                f"the target y must be finite and within +/-1e38 (its square is summed in "
                f"float64), got {y!r}: rescale it, e.g. with river.preprocessing.TargetStandardScaler"
            )
        return v

    cdef object _encode_targets(self, list ys):
        """Targets of a batch as float64, every one checked (class indices, labels new to the
        forest numbered in order of first sight after the registered ones). Registers nothing."""
        cdef Py_ssize_t i, n = len(ys), known = len(self.labels)
        cdef dict new = {}
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] view = out
        for i in range(n):
            view[i] = self._target(ys[i])
            if self.classifier and view[i] >= known:
                idx = new.get(ys[i])
                if idx is None:
                    idx = new[ys[i]] = known + len(new)
                view[i] = <double><Py_ssize_t>idx
        return out

    cdef int _register_labels(self, list ys) except -1:
        """Register the labels of `ys` the forest has not seen, in order of first sight."""
        for y in ys:
            if y not in self.label_index:
                self.label_index[y] = len(self.labels)
                self.labels.append(y)
        return 0

    # ------------------------------------------------------------------ one sample

    def learn_one(self, dict x, object y, object after=None, object executor=None,
                  Py_ssize_t n_tasks=1):
        """Learn one sample: at once, or, for a forest that learns in batches (`batch_size`
        > 0), into the buffer, which is learned as one batch (then `after`, see
        `_learn_batch_rows`) when it holds `batch_size` rows. Features and labels are
        registered at once either way."""
        cdef double target
        cdef Py_ssize_t n_features
        cdef Tree tree
        acquire(self.lock)
        try:
            target = self._target(y)
            n_features = self.features.fill(x, True)
            if self.classifier and target >= len(self.labels):
                self.label_index[y] = len(self.labels)
                self.labels.append(y)
            self._check_budget()
            if self.batch_size > 0:
                self.pending_rows.append(
                    np.asarray(<double[:n_features]>self.features.buf).copy() if n_features > 0
                    else np.empty(0))
                self.pending_targets.append(target)
                if len(self.pending_rows) >= self.batch_size:
                    self._flush(executor, n_tasks, after)
                return
            if self.track:
                self.last_errors = [self._errors_of(self.features.buf, target)]
            for tree in self.trees:
                tree.learn_sample(self.features.buf, <int32_t>n_features, target)
            for tree in self.background:
                if tree is not None:
                    tree.learn_sample(self.features.buf, <int32_t>n_features, target)
        finally:
            release(self.lock)

    @property
    def n_pending(self):
        """Rows buffered by `learn_one`, not learned yet."""
        return len(self.pending_rows)

    cdef int _flush(self, object executor, Py_ssize_t n_tasks, object after) except -1:
        """Learn the buffered rows as one batch (NaN where a row predates a feature)."""
        cdef Py_ssize_t i, n = len(self.pending_rows)
        if n == 0:
            return 0
        width = max(len(r) for r in self.pending_rows)
        rows = np.full((n, width), np.nan)
        for i in range(n):
            rows[i, :len(self.pending_rows[i])] = self.pending_rows[i]
        targets = np.asarray(self.pending_targets, dtype=np.float64)
        self.pending_rows = []
        self.pending_targets = []
        return self._learn_batch_rows(rows, targets, executor, n_tasks, after)

    def flush(self, object after=None, object executor=None, Py_ssize_t n_tasks=1):
        """Learn the rows `learn_one` buffered now, as one (short) batch."""
        acquire(self.lock)
        try:
            self._flush(executor, n_tasks, after)
        finally:
            release(self.lock)

    cdef int _learn_batch_rows(self, object X, object y, object executor, Py_ssize_t n_tasks,
                               object after) except -1:
        """Learn one batch (rows in registry order, encoded targets), count it, then run the
        forest's after-batch step `after(core, X, y)` (if any) under the same lock: the
        forest-level protocol XForest's swaps and drift adaptation stand on. A tracking core
        (`track`) first records each tree's error on the rows (`last_errors`)."""
        if self.track:
            self.last_errors = self._tree_errors(X, y)
        self._learn_rows(X, y, executor, n_tasks)
        if self.batch_size > 0:
            self.n_batches += 1
        if after is not None:
            after(self, X, y)
        return 0

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
        cdef Py_ssize_t c, n_out
        acquire(self.lock)
        try:
            n_out = len(self.labels)
            if n_out == 0:
                return {}
            self.features.fill(x, False)
            self._reserve(n_out)
            self._aggregate(self.features.buf, n_out)
            return {self.labels[c]: self.acc[c] for c in range(n_out)}
        finally:
            release(self.lock)

    def predict_label_one(self, dict x):
        cdef Py_ssize_t c, best = 0, n_out
        acquire(self.lock)
        try:
            n_out = len(self.labels)
            if n_out == 0:
                return None
            self.features.fill(x, False)
            self._reserve(n_out)
            self._aggregate(self.features.buf, n_out)
            for c in range(1, n_out):
                if self.acc[c] > self.acc[best]:
                    best = c
            return self.labels[best]
        finally:
            release(self.lock)

    def predict_value_one(self, dict x):
        """Regression: (mean, variance) of the forest's predictive mixture."""
        cdef double mean, var
        acquire(self.lock)
        try:
            self.features.fill(x, False)
            self._aggregate(self.features.buf, 2)
            mean = self.acc[0]
            var = self.acc[1] - mean * mean
            return mean, (var if var > 0.0 else 0.0)
        finally:
            release(self.lock)

    # ------------------------------------------------------------------ batches

    cdef tuple _checked_rows(self, values, list names, list ys, bint register_features):
        """A batch's rows in registry order and its encoded targets. Every target is checked
        before anything is registered: new labels, then (if `register_features`) new features;
        unknown features are dropped otherwise."""
        if len(ys) != len(values):
            raise ValueError(f"X has {len(values)} rows but y has {len(ys)}")
        targets = self._encode_targets(ys)
        if self.classifier:
            self._register_labels(ys)
        return self.features.place(values, names, register_features), targets

    def learn_batch(self, values, list names, list ys, executor=None, Py_ssize_t n_tasks=1,
                    object after=None):
        """Learn the rows of `values` (a 2-D float64 array whose columns are the features
        `names`) with targets `ys`. Every target is checked before the model changes; then
        new labels and features are registered and the rows learned (see `learn_rows`): for a
        sequential forest exactly as a `learn_one` loop over them would; for a forest that
        learns in batches, as one batch (after the rows `learn_one` buffered, as a batch of
        their own), followed by `after` (see `_learn_batch_rows`)."""
        acquire(self.lock)
        try:
            rows, targets = self._checked_rows(values, names, ys, True)
            self._check_budget()
            if self.batch_size > 0:
                self._flush(executor, n_tasks, after)
            if len(targets) > 0 or self.batch_size == 0:
                self._learn_batch_rows(rows, targets, executor, n_tasks, after)
        finally:
            release(self.lock)

    def check_batch(self, values, list names, list ys):
        """Check a batch's targets as `learn_batch` would, changing nothing (a forest that
        learns a batch row by row checks it whole first)."""
        if len(ys) != len(values):
            raise ValueError(f"X has {len(values)} rows but y has {len(ys)}")
        acquire(self.lock)
        try:
            self._encode_targets(ys)
        finally:
            release(self.lock)

    def refit_batch(self, values, list names, list ys):
        """XForest-Zero (Xu et al., section 2.2) for every tree kind: forget every node's
        statistics (and what the kind learned from targets), then count the rows of `values`
        (columns `names`, targets `ys`, weight 1, every tree) along their paths. No node is
        added or changed; rows buffered by `learn_one` are dropped (they belong to the task
        the statistics came from). Features not known to the forest are ignored, as at
        prediction; new labels are registered."""
        cdef Tree tree
        acquire(self.lock)
        try:
            rows, targets = self._checked_rows(values, names, ys, False)
            self.pending_rows = []
            self.pending_targets = []
            for tree in self.trees:
                tree.refit_rows(rows, targets)
        finally:
            release(self.lock)

    def predict_batch(self, values, list names):
        """Aggregated predictions of the rows of `values` (columns `names`), and the labels
        that name the columns (a copy, taken under the same lock as the predictions)."""
        acquire(self.lock)
        try:
            rows = self.features.place(values, names, False)
            return self._predict_rows(rows), list(self.labels)
        finally:
            release(self.lock)

    def predict_trees_batch(self, values, list names):
        """Every tree's own prediction of the rows of `values` (columns `names`): an
        (n_trees, n_rows, n_out) array of class probabilities (or of (mean, variance) for
        regression), and the labels that name the classes. One compiled loop per tree, no
        Python per row: what scoring trees on a batch needs."""
        acquire(self.lock)
        try:
            rows = self.features.place(values, names, False)
            return self._predict_tree_rows(rows), list(self.labels)
        finally:
            release(self.lock)

    def predict_rows(self, const double[:, ::1] X):
        """Aggregated predictions of rows already in the registry's column order."""
        acquire(self.lock)
        try:
            return self._predict_rows(X)
        finally:
            release(self.lock)

    def learn_rows(self, X, y, executor=None, Py_ssize_t n_tasks=1):
        """Learn rows already in the registry's column order, with encoded targets."""
        acquire(self.lock)
        try:
            self._learn_rows(X, y, executor, n_tasks)
        finally:
            release(self.lock)

    cdef object _predict_rows(self, const double[:, ::1] X):
        """(n, n_classes) probabilities, or (n, 2) of (mean, variance) for regression."""
        cdef Py_ssize_t i, c, n_out = self._n_out()
        out = np.zeros((X.shape[0], n_out), dtype=np.float64)
        cdef double[:, ::1] view = out
        if n_out == 0:
            return out
        self._reserve(n_out)
        for i in range(X.shape[0]):
            self._aggregate(row_of(X, i), n_out)
            for c in range(n_out):
                view[i, c] = self.acc[c]
            if not self.classifier:
                view[i, 1] = max(view[i, 1] - view[i, 0] * view[i, 0], 0.0)
        return out

    cdef object _predict_tree_rows(self, const double[:, ::1] X):
        """(n_trees, n, n_out): each tree's `predict` of each row (variance for regression)."""
        cdef Py_ssize_t t, i, n = X.shape[0], n_out = self._n_out()
        cdef Tree tree
        out = np.zeros((len(self.trees), n, n_out), dtype=np.float64)
        cdef double[:, :, ::1] view = out
        if n_out == 0 or n == 0:
            return out
        for t in range(len(self.trees)):
            tree = <Tree>self.trees[t]
            with nogil:
                for i in range(n):
                    tree.predict(row_of(X, i), &view[t, i, 0], <int32_t>n_out)
                    if not self.classifier:
                        view[t, i, 1] = max(view[t, i, 1] - view[t, i, 0] * view[t, i, 0], 0.0)
        return out

    cdef object _tree_errors(self, const double[:, ::1] X, const double[::1] y):
        """Each tree's prequential loss on each row (a list of rows of n_trees floats), from
        its prediction before it learns the row (`_errors_of`)."""
        return [self._errors_of(row_of(X, i), y[i]) for i in range(X.shape[0])]

    cdef list _errors_of(self, const double* x, double y):
        """Each tree's loss on one row, from its prediction now: 0/1 for a classifier (a
        label no tree knows yet is an error), the absolute error of its mean for a
        regressor."""
        cdef Py_ssize_t t, c, best, n_trees = len(self.trees)
        cdef Py_ssize_t n_out = self._n_out()
        cdef Tree tree
        cdef list out = [0.0] * n_trees
        cdef double e
        if n_out > 0:
            self._reserve(n_out)
        for t in range(n_trees):
            tree = <Tree>self.trees[t]
            if n_out == 0 or (self.classifier and tree.n_seen == 0):
                # a tree that has learned nothing has no class to predict (an error), and a
                # mean of 0
                e = 1.0 if self.classifier else fabs(y)
            else:
                tree.predict(x, self.tmp, <int32_t>n_out)
                if self.classifier:
                    best = 0
                    for c in range(1, n_out):
                        if self.tmp[c] > self.tmp[best]:
                            best = c
                    e = 0.0 if best == <Py_ssize_t>y else 1.0
                else:
                    e = fabs(self.tmp[0] - y)
            out[t] = e
        return out

    cdef int _learn_rows(self, object X, object y, object executor, Py_ssize_t n_tasks) except -1:
        """Learn every row in order; each tree sees exactly what `learn_one` calls would give
        it. Each tree learns the whole batch in one GIL-free call (its nodes stay in cache).
        Trees are independent, so with an executor `n_tasks` threads (the calling thread
        and n_tasks - 1 pool threads) take the trees one at a time from a shared queue: a
        thread slowed by another process simply takes fewer trees. The caller holds the
        model's lock until every thread is done."""
        cdef list learners = self.trees + [b for b in self.background if b is not None]
        cdef Py_ssize_t k = min(n_tasks, len(learners))
        queue = iter(learners)  # next() runs under the GIL: each tree is taken once

        def run():
            for tree in queue:
                tree.learn_rows(X, y)

        if executor is None or k <= 1:
            run()
            return 0
        futures = [executor.submit(run) for _ in range(1, k)]
        try:
            run()
        finally:
            for future in futures:
                future.result()
        return 0
