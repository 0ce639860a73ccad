"""The compiled forest: the per-sample loop over trees, labels, aggregation, batches.

Python overhead is paid once per sample (one dict walk, one label lookup); the trees are then
driven through their compiled `learn_sample` / `predict` methods.

The core routes rows through its parts; each part owns its state and its checks: the
feature and label registries (`_features.pxd`, `_labels.pxd`), the aggregator
(`_aggregator.pxd`: the trees' answers aggregated, the last one-sample prediction in the
prediction cache, `_cache.pxd`, and the learn of a sample or of rows one at a time, with
the answers the calibrator and the detectors learn from), the batcher (`_batcher.pxd`: a
batch predicted or learned), the grove (`_grove.pxd`: the trees, their seeds, replacements
and shares of the memory budget, `_budget.pxd`) with its drift watch (`_watch.pxd`:
detectors, background trees, duels), and the interval calibrator (`_conformal.pxd`). Its
saved state is its parts' keys (`_forest_state.pxd`); the Python layer reaches it through
public methods only, and a forest's after-batch step through a `BatchStep`.

Every public method holds the model's lock (`_lock.pxd`) from start to end, batches included
(checking the labels, registering features, placing the rows and learning them are one call),
so one model can be shared by threads: one learning while others predict or pickle it. The
methods whose name starts with an underscore assume the lock is held.
"""

from libc.math cimport INFINITY
from libc.stdint cimport int32_t

import sys

import numpy as np

from ._aggregator cimport (agg_best, agg_free, agg_init, agg_learn_one, agg_mean_var,
                           agg_nbytes, agg_predict_one)
from ._batcher cimport Batcher
from ._budget cimport Budget, budget_stale
from ._conformal cimport Calibrator
from ._features cimport FeatureRegistry
from ._forest_state cimport check_forest_state_of, forest_snapshot, forest_state, restore_forest
from ._labels cimport LabelRegistry
from ._lock cimport acquire, free_lock, new_lock, release
from ._grove cimport Grove
from ._random cimport RNG, rng_seed, rng_uniform
from ._tree cimport Tree
from ._watch cimport SWAP_AT_DRIFT

from ._forest_state import check_snapshot
from ._random import tree_seed
from ._tree import tree_from_state

#: the bytes the fields of the parts that are objects took in the core before they were
#: parts (`ForestCore.__sizeof__`): the label registry's, the batcher's and the grove's
cdef size_t PART_FIELDS = 2 * sizeof(void*) \
    + 5 * sizeof(void*) + 2 * sizeof(Py_ssize_t) + 2 * sizeof(long long) \
    + 3 * sizeof(void*) + 2 * sizeof(long long) + sizeof(RNG) + sizeof(Budget)


def _rebuild_core(trees, classifier, vote, names, max_width, full_warned, labels, forest=None):
    """What a core pickled before 0.3 unpickles to: its parts as they were, for the forest's
    `__setstate__`, which migrates the whole model (`river_forests._state.MIGRATIONS`)."""
    return {"legacy_core": True,
            "trees": [(type(t).__name__, (<Tree>t).get_state()) if isinstance(t, Tree)
                      else (t[0].__name__, t[1]) for t in trees],
            "classifier": classifier, "vote": vote, "names": list(names),
            "max_width": max_width, "full_warned": full_warned, "labels": list(labels),
            "forest": forest}


def core_from_snapshot(dict snap, bint borrow=False):
    """A core restored from `ForestCore.snapshot`'s dict (trees by kind name). Every part is
    checked before anything is built (`check_snapshot`; the trees check their own states):
    a snapshot that does not describe a forest raises ValueError."""
    from ._features import registry_of

    cdef ForestCore core
    check_snapshot(snap)
    trees = [tree_from_state(t, borrow, len(snap["names"])) for t in snap["trees"]]
    core = ForestCore(trees, snap["classifier"], snap["vote"],
                      registry_of(snap["names"], snap["max_width"], snap["full_warned"]),
                      snap["labels"])
    core._set_forest_state(snap["forest"], borrow)
    return core


def forest_rng_state(object master_seed):
    """The generator state a core seeded with `master_seed` starts from (`_set_master_seed`)."""
    cdef RNG r
    rng_seed(&r, tree_seed(master_seed or 0, -1))
    return (r.s0, r.s1, r.s2, r.s3)


cdef class ForestCore:

    def __cinit__(self, list trees, bint classifier, bint vote, FeatureRegistry features=None,
                  list labels=None, Py_ssize_t max_width=2**31 - 1, object master_seed=0,
                  Py_ssize_t batch_size=0):
        self.lock = new_lock()
        self.grove = Grove(trees, master_seed)
        self.classifier = classifier
        self.vote = vote
        self.features = features if features is not None else FeatureRegistry(max_width)
        self.targets = LabelRegistry(classifier, labels)
        self.batcher = Batcher(batch_size)
        agg_init(&self.agg)
        self.calibrator = Calibrator()

    def __dealloc__(self):
        free_lock(self.lock)
        agg_free(&self.agg)

    def __sizeof__(self):
        """The core's own bytes: the object, the aggregator's scratch rows and cached
        prediction (`agg_nbytes`), and the calibrator's struct (the trees, the registries and
        the other parts are objects of their own). The label registry, the batcher and the
        grove were fields of the core until they became parts: river's measure of a model
        (which every budget's `fixed` part, saved with the model, was taken from) counts them
        as those fields still, not as objects (`PART_FIELDS` less the pointers the core
        holds); the calibrator, a pointer field then, counts as that pointer (which the core
        holds now) and its struct."""
        cdef size_t n = object.__sizeof__(self) + agg_nbytes(&self.agg, len(self.grove.trees))
        n += PART_FIELDS - 3 * sizeof(void*)
        n -= sys.getsizeof(self.targets) + sys.getsizeof(self.batcher) + sys.getsizeof(self.grove)
        n += self.calibrator.__sizeof__() - object.__sizeof__(self.calibrator)  # its struct
        return n - sys.getsizeof(self.calibrator)

    def __reduce__(self):
        return (core_from_snapshot, (self.snapshot(),))

    cdef int _own(self) except -1:
        """Trees that read a memory-mapped file (`Tree.borrowed`) get memory of their own
        before anything changes them (`Grove.own`; lock held)."""
        self.grove.own(len(self.features.names))
        self.borrowing = False
        self.rebudget()
        return 0

    @property
    def trees(self):
        """The trees (the grove's list: a replacement shows at once)."""
        return self.grove.trees

    @property
    def watch(self):
        """The drift watch (`_watch.pxd`)."""
        return self.grove.watch

    @property
    def master_seed(self):
        """The 64-bit seed every tree seed derives from."""
        return self.grove.master_seed

    @property
    def n_replaced(self):
        """Trees replaced so far."""
        return self.grove.n_replaced

    @property
    def borrows(self):
        """Whether some tree reads a memory-mapped model file (`river_forests.load(path,
        mmap=True)`) until the forest first learns."""
        return self.borrowing

    def snapshot(self):
        """The core's whole state as plain data (`forest_snapshot`: trees as `Tree.get_state`
        dicts, which name their kind), taken under the lock: the trees' states are copied
        here, not when a caller later walks them (by then another thread may be growing them).
        `core_from_snapshot` restores it."""
        acquire(self.lock)
        try:
            return forest_snapshot(self.grove, self.features, self.targets, self.classifier,
                                   self.vote, self.batcher, self.calibrator)
        finally:
            release(self.lock)

    def forest_state(self):
        """The forest's own state as plain data, taken under the lock: its parts' keys
        (`forest_state`: the grove's seeds, generator, drift watch and budget, the batcher's
        counts and buffered rows, the interval calibrator's). `set_forest_state` restores
        it."""
        acquire(self.lock)
        try:
            return forest_state(self.grove, self.batcher, self.calibrator)
        finally:
            release(self.lock)

    def set_forest_state(self, dict state):
        """Restore `forest_state`'s dict (a merge's, or a forest's given other trees: the
        background trees must then be None and the detectors' state None or theirs). It is
        checked first against the forest's trees and registries: a state that does not
        describe this forest raises ValueError and leaves it as it was."""
        acquire(self.lock)
        try:
            check_forest_state_of(state, self.grove, self.classifier, len(self.features.names),
                                  len(self.targets.labels))
            self._set_forest_state(state, False)
            self.grove.version += 1
        finally:
            release(self.lock)

    cdef int _set_forest_state(self, dict state, bint borrow) except -1:
        """Restore the parts from `forest_state`'s dict (checked; `restore_forest`), then
        share the budget out again."""
        self.calibrator = restore_forest(state, borrow, self.grove, self.batcher,
                                         self.calibrator, self.classifier,
                                         len(self.features.names))
        self.borrowing = self.grove.borrows()
        self.rebudget()
        return 0

    # ------------------------------------------------------------------ prediction intervals

    def set_intervals(self, double alpha, double gamma, Py_ssize_t window, double lr,
                      double lr_beta, double beta):
        """Give a regressor a fresh interval calibrator (`_conformal.pxd`) of nominal
        miscoverage `alpha`, or none (`alpha` = 0)."""
        acquire(self.lock)
        try:
            self.calibrator.set(alpha if not self.classifier else 0.0, gamma, <int32_t>window,
                                lr, lr_beta, beta)
        finally:
            release(self.lock)

    @property
    def interval_state(self):
        """The calibrator's state (a dict; None without intervals), for inspection."""
        acquire(self.lock)
        try:
            return self.calibrator.state()
        finally:
            release(self.lock)

    # ------------------------------------------------------------------ the grove's trees
    # Replacements, background trees and the drift watch are the grove's (`_grove.pxd`); a
    # forest's after-batch step reaches them through a `BatchStep` (see `_after`).

    def replace_tree(self, Py_ssize_t i, object make_tree):
        """Replace tree `i` by `make_tree(seed)`, seeded as the forest's next replacement
        (`Grove.replace`), under the model's lock: a thread learning or predicting sees the
        old tree or the new one."""
        acquire(self.lock)
        try:
            if self.borrowing:
                self._own()
            return self.grove.replace(i, make_tree)
        finally:
            release(self.lock)

    def set_watch(self, object drift_detector, object warning_detector=None,
                  int swap_rule=SWAP_AT_DRIFT, Py_ssize_t log_size=1000):
        """Watch every tree with fresh copies of `drift_detector` and `warning_detector` (None:
        stop watching; `Grove.set_watch`); counts and log start afresh."""
        acquire(self.lock)
        try:
            self.grove.set_watch(drift_detector, warning_detector, swap_rule, log_size)
        finally:
            release(self.lock)

    def set_watch_state(self, dict watch):
        """Restore the detectors' state (`Grove.set_watch_state`: checked first, the
        background trees kept) under the model's lock."""
        acquire(self.lock)
        try:
            self.grove.set_watch_state(watch)
        finally:
            release(self.lock)

    # ------------------------------------------------------------------ the memory budget

    def set_budget(self, long long total, long long fixed, double slots,
                   double background_share):
        """Give the forest a budget of `total` bytes (`_budget.pxd`): its `fixed` bytes
        outside the trees and the registries (measured by the Python layer) come off, the
        rest is split into `slots` shares, a background tree borrowing `background_share` of
        its tree's; shared out at once (`rebudget`)."""
        acquire(self.lock)
        try:
            self.grove.set_budget(total, fixed, slots, background_share)
            self.rebudget()
        finally:
            release(self.lock)

    @property
    def budget(self):
        """The bytes the whole forest may take (0: no budget)."""
        return self.grove.memory.total

    @property
    def tree_bytes(self):
        """Each tree's share of the budget now (`Tree.max_bytes`)."""
        return self.grove.memory.tree_bytes

    cpdef int rebudget(self) except -1:
        """Share the budget out again (`Grove.rebudget`): run when a name or a label is
        registered (the caller holds the lock), so the whole forest stays within its
        budget."""
        return self.grove.rebudget(self.features.names, len(self.targets.labels),
                                   self.batcher.size)

    cdef int _check_budget(self) except -1:
        if budget_stale(&self.grove.memory, len(self.features.names), len(self.targets.labels)):
            self.rebudget()
        return 0

    # ------------------------------------------------------------------ one sample

    def learn_one(self, dict x, object y, object after=None, object executor=None,
                  Py_ssize_t n_tasks=1, object make_tree=None):
        """Learn one sample: at once, or, for a forest that learns in batches (`batch_size`
        > 0), into the buffer, which is learned as one batch (then `after`, see
        `_learn_batch_rows`) when it holds `batch_size` rows. Features and labels are
        registered at once either way. `make_tree(seed)`: the forest's trees, for the
        background trees and replacements its detectors start (`set_watch`)."""
        cdef double target
        cdef Py_ssize_t n_features
        acquire(self.lock)
        try:
            if self.borrowing:
                self._own()
            target = self.targets.target(y)
            n_features = self.features.fill(x, True)
            if self.classifier and target >= len(self.targets.labels):
                self.targets.add(y)
            self._check_budget()
            if self.batcher.size > 0:
                full = self.batcher.add(self.features.buf, n_features, target)
                if self.batcher.unfitted(self.grove, self.calibrator):
                    self.batcher.calibrate_last(self.calibrator)
                if full:
                    self._flush(executor, n_tasks, after, make_tree)
                return
            agg_learn_one(&self.agg, self.grove, self.features, self.calibrator, n_features,
                          target, self._n_out(), self.vote, self.classifier, make_tree)
        finally:
            release(self.lock)

    @property
    def n_pending(self):
        """Rows buffered by `learn_one`, not learned yet."""
        return self.batcher.n_pending

    @property
    def n_batches(self):
        """Batches learned (learn_many calls, full buffers)."""
        return self.batcher.n_batches

    @property
    def labels(self):
        """Class index -> label, in order of first sight (the label registry's list)."""
        return self.targets.labels

    cdef int _flush(self, object executor, Py_ssize_t n_tasks, object after,
                    object make_tree) except -1:
        """Learn the buffered rows, if any, as one batch (`Batcher.take`)."""
        batch = self.batcher.take()
        return 0 if batch is None else self._learn_batch_rows(batch[0], batch[1], executor,
                                                              n_tasks, after, make_tree, True)

    def flush(self, object after=None, object executor=None, Py_ssize_t n_tasks=1,
              object make_tree=None):
        """Learn the rows `learn_one` buffered now, as one (short) batch."""
        acquire(self.lock)
        try:
            self._flush(executor, n_tasks, after, make_tree)
        finally:
            release(self.lock)

    cdef int _learn_batch_rows(self, object X, object y, object executor, Py_ssize_t n_tasks,
                               object after, object make_tree, bint buffered) except -1:
        """Learn one batch (rows in registry order, encoded targets: `Batcher.learn`, which
        counts it; `buffered`: the rows `learn_one` buffered), then run the forest's
        after-batch step `after(step, X, y)` (if any) under the same lock: the forest-level
        protocol XForest's swaps stand on."""
        self.batcher.learn(&self.agg, self.grove, self.features, self.calibrator, X, y,
                           self._n_out(), self.vote, self.classifier, executor, n_tasks,
                           make_tree, buffered)
        if after is not None:
            self._after(after, X, y)
        return 0

    cdef int _after(self, object after, object X, object y) except -1:
        """The forest's after-batch step, `after(step, X, y)` (XForest's swaps), under the lock
        this batch holds: `step`, a `BatchStep`, is what it sees of the forest and may change.
        A tree it replaces starts afresh with its detectors too (`Grove.restart_replaced`)."""
        cdef BatchStep step = BatchStep(self)
        before = list(self.grove.trees) if self.grove.watch.watching else None
        try:
            after(step, X, y)
        finally:
            step.open = False
        return self.grove.restart_replaced(before)

    cdef Py_ssize_t _n_out(self):
        return len(self.targets.labels) if self.classifier else 2

    def predict_proba_one(self, dict x):
        cdef Py_ssize_t c
        acquire(self.lock)
        try:
            labels = self.targets.labels
            if not labels:
                return {}
            self._predict_one(x)
            return {labels[c]: self.agg.acc[c] for c in range(len(labels))}
        finally:
            release(self.lock)

    def predict_label_one(self, dict x):
        acquire(self.lock)
        try:
            labels = self.targets.labels
            if not labels:
                return None
            self._predict_one(x)
            return labels[agg_best(&self.agg, len(labels))]
        finally:
            release(self.lock)

    def predict_value_one(self, dict x):
        """Regression: (mean, variance) of the forest's predictive mixture."""
        cdef double mean, var
        acquire(self.lock)
        try:
            self._predict_one(x)
            mean = agg_mean_var(&self.agg, &var)
            return mean, var
        finally:
            release(self.lock)

    cdef Py_ssize_t _predict_one(self, dict x) except -1:
        """The forest's answer to `x` into the aggregator's `acc` (`agg_predict_one`),
        remembered for the learn that may follow; the width of the row (in the registry's
        buffer)."""
        return agg_predict_one(&self.agg, self.grove, self.features, x, self._n_out(),
                               self.vote, self.classifier)

    def importances(self):
        """Each registry column's summed credit over the trees (background trees, which do
        not predict, left out): the decayed loss reduction of the splits on it
        (`Tree.credit`), as an array one cell a column; negative sums are kept."""
        acquire(self.lock)
        try:
            return self.grove.importances(len(self.features.names))
        finally:
            release(self.lock)

    def inspect(self, object fn):
        """`fn(trees)` under the model's lock: a look inside the trees (a walk, a node) while
        another thread may learn."""
        acquire(self.lock)
        try:
            return fn(self.grove.trees)
        finally:
            release(self.lock)

    def predict_interval_one(self, dict x):
        """Regression with intervals: (mean, variance, lower, upper). While no tree of a
        forest that learns in batches has learned a row, the interval is centred on the mean
        of the targets buffered, variance 0 (`Batcher.null_prediction`; the whole line with
        none)."""
        cdef double mean, var
        cdef Py_ssize_t n
        acquire(self.lock)
        try:
            self.calibrator.need()
            n = self._predict_one(x)
            mean = agg_mean_var(&self.agg, &var)
            if self.batcher.unfitted(self.grove, self.calibrator):
                var = 0.0
                if not self.batcher.null_prediction(&mean):
                    return mean, var, -INFINITY, INFINITY
            return self.calibrator.interval(self.features.buf, n, mean, var)
        finally:
            release(self.lock)

    # ------------------------------------------------------------------ batches

    cdef tuple _checked_rows(self, values, list names, list ys, bint register_features):
        """A batch's rows in registry order and its encoded targets. Every target is checked
        before anything is registered: new labels, then (if `register_features`) new features;
        unknown features are dropped otherwise."""
        if len(ys) != len(values):
            raise ValueError(f"X has {len(values)} rows but y has {len(ys)}")
        targets = self.targets.encode(ys)
        self.targets.register(ys)
        return self.features.place(values, names, register_features), targets

    def learn_batch(self, values, list names, list ys, executor=None, Py_ssize_t n_tasks=1,
                    object after=None, object make_tree=None):
        """Learn the rows of `values` (a 2-D float64 array whose columns are the features
        `names`) with targets `ys`. Every target is checked before the model changes; then
        new labels and features are registered and the rows learned (see `learn_rows`): for a
        sequential forest exactly as a `learn_one` loop over them would; for a forest that
        learns in batches, as one batch (after the rows `learn_one` buffered, as a batch of
        their own), followed by `after` (see `_learn_batch_rows`)."""
        acquire(self.lock)
        try:
            if self.borrowing:
                self._own()
            rows, targets = self._checked_rows(values, names, ys, True)
            self._check_budget()
            if self.batcher.size > 0:
                self._flush(executor, n_tasks, after, make_tree)
            if len(targets) > 0 or self.batcher.size == 0:
                self._learn_batch_rows(rows, targets, executor, n_tasks, after, make_tree,
                                       False)
        finally:
            release(self.lock)

    def check_batch(self, values, list names, list ys):
        """Check a batch's targets as `learn_batch` would, changing nothing (a forest that
        learns a batch row by row checks it whole first)."""
        if len(ys) != len(values):
            raise ValueError(f"X has {len(values)} rows but y has {len(ys)}")
        acquire(self.lock)
        try:
            self.targets.encode(ys)
        finally:
            release(self.lock)

    def refit_batch(self, values, list names, list ys):
        """XForest-Zero (Xu et al., section 2.2) for every tree kind: forget every node's
        statistics (and what the kind learned from targets), then count the rows of `values`
        (columns `names`, targets `ys`, weight 1, every tree) along their paths. No node is
        added or changed; rows buffered by `learn_one` are dropped (they belong to the task
        the statistics came from). Features not known to the forest are ignored, as at
        prediction; new labels are registered."""
        acquire(self.lock)
        try:
            if self.borrowing:
                self._own()
            rows, targets = self._checked_rows(values, names, ys, False)
            self.batcher.drop()
            self.grove.refit_rows(rows, targets)
        finally:
            release(self.lock)

    def predict_batch(self, values, list names):
        """Aggregated predictions of the rows of `values` (columns `names`), and the labels
        that name the columns (a copy, taken under the same lock as the predictions)."""
        acquire(self.lock)
        try:
            rows = self.features.place(values, names, False)
            return self._predict_rows(rows), list(self.targets.labels)
        finally:
            release(self.lock)

    def predict_interval_batch(self, values, list names):
        """Regression with intervals: an (n_rows, 4) array of mean, variance, lower and upper
        bounds, every row's interval from the calibrator as it stands (a batch is predicted
        before it is learned); centred as `predict_interval_one`'s while no tree of a forest
        that learns in batches has learned a row."""
        cdef double mean
        acquire(self.lock)
        try:
            self.calibrator.need()
            rows = self.features.place(values, names, False)
            pred = self._predict_rows(rows)
            if not self.batcher.unfitted(self.grove, self.calibrator):
                return self.calibrator.intervals(rows, pred)
            if not self.batcher.null_prediction(&mean):
                out = np.empty((pred.shape[0], 4))
                out[:, :2] = pred
                out[:, 2] = -INFINITY
                out[:, 3] = INFINITY
                return out
            pred[:, 0] = mean
            pred[:, 1] = 0.0
            return self.calibrator.intervals(rows, pred)
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
            return (self.grove.predict_rows(rows, self._n_out(), self.classifier),
                    list(self.targets.labels))
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
            self.grove.version += 1
            self.grove.learn_rows(X, y, executor, n_tasks)
        finally:
            release(self.lock)

    cdef object _predict_rows(self, const double[:, ::1] X):
        """Aggregated predictions of rows in registry order (`Batcher.predict`: a forest that
        learns in batches keeps a small batch's answers for when it learns it)."""
        return self.batcher.predict(&self.agg, self.grove, self.calibrator, X, self._n_out(),
                                    self.vote, self.classifier)


cdef class BatchStep:
    """What a forest's after-batch step sees of the forest and may change (XForest's swaps,
    `ForestCore._after`): it runs under the model's lock, which the batch holds, and the step
    object is valid during that step only (afterwards every call raises RuntimeError)."""

    def __cinit__(self, ForestCore core):
        self.core = core
        self.open = True

    cdef ForestCore _forest(self):
        if not self.open:
            raise RuntimeError("the batch step is over: it no longer holds the forest")
        return self.core

    @property
    def trees(self):
        """The forest's trees (its own list: a replacement shows at once)."""
        return self._forest().grove.trees

    @property
    def n_batches(self):
        """Batches the forest has learned, this one included."""
        return self._forest().batcher.n_batches

    @property
    def n_replaced(self):
        """Trees the forest has replaced so far."""
        return self._forest().n_replaced

    def uniform(self):
        """A uniform draw in [0, 1) from the forest's own generator."""
        cdef ForestCore core = self._forest()
        return rng_uniform(&core.grove.rng)

    def predict_trees(self, const double[:, ::1] rows):
        """Each tree's predictions of rows in registry order: (n_trees, n_rows, n_out)."""
        cdef ForestCore core = self._forest()
        return core.grove.predict_rows(rows, core._n_out(), core.classifier)

    def replace_tree(self, Py_ssize_t i, object make_tree, object rows=None, object targets=None):
        """Put a new tree in place of tree `i`: `make_tree(seed)`, seeded as the forest's next
        replacement (`tree_seed(master_seed, n_trees + n_replaced)`: reproducible from the
        forest's seed), which, given `rows` and `targets`, learns them before it takes its
        place (a thread predicting sees the old tree or the grown one). Returns the new tree."""
        return self._forest().grove.replace(i, make_tree, rows, targets)
