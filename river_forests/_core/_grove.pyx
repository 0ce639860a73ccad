"""The grove (see `_grove.pxd`): the forest's trees, their replacements, background trees and
shares of the budget."""

from libc.stdint cimport int32_t

import numpy as np

from ._budget cimport (budget_background_bytes, budget_get_state, budget_init, budget_set_state,
                       budget_share, budget_tree_bytes)
from ._random cimport rng_seed
from ._tree cimport Tree, row_of
from ._watch cimport WATCH_DROP, WATCH_START, WATCH_SWAP, DriftWatch

from ._random import tree_seed
from ._tree import tree_from_state


cdef class Grove:

    def __cinit__(self, list trees, object master_seed=0):
        self.trees = trees
        self.n_replaced = 0
        self.set_master_seed(master_seed)
        self.watch = DriftWatch(len(trees))
        budget_init(&self.memory, len(trees))

    cdef int set_master_seed(self, object seed) except -1:
        """Set the master seed (None: not known yet, for a core pickled before it existed; the
        forest sets it when it loads) and seed the forest's generator from it."""
        self.master_seed = None if seed is None else int(seed)
        rng_seed(&self.rng, tree_seed(self.master_seed or 0, -1))  # apart from every tree's
        return 0

    cdef dict state(self):
        """The grove's keys of the forest's state: the master seed, the replacements, the
        generator, the watch's keys (`DriftWatch.state`) and the budget's."""
        return {"master_seed": self.master_seed, "n_replaced": self.n_replaced,
                "rng": (self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3),
                **self.watch.state(), **budget_get_state(&self.memory)}

    cdef int set_state(self, dict state, bint borrow, Py_ssize_t columns) except -1:
        """Restore `state`'s keys (checked): the watch first, into a fresh one
        (`DriftWatch.set_state`; `borrow`, `columns`: its background trees', as
        `tree_from_state` loads them), so that a state that fails leaves the grove as it was."""
        cdef DriftWatch watch = DriftWatch(len(self.trees))
        watch.set_state(state, borrow, columns)
        self.master_seed = state["master_seed"]
        self.n_replaced = state["n_replaced"]
        self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3 = state["rng"]
        self.watch = watch
        budget_set_state(&self.memory, state)
        return 0

    cdef object replace(self, Py_ssize_t i, object make_tree, object rows=None,
                        object targets=None):
        """Put a new tree in place of tree `i`: `make_tree(seed)` builds it, with the seed of
        the forest's next replacement (`tree_seed(master_seed, n_trees + n_replaced)`, so
        replacements are reproducible from the forest's seed), and, given `rows` and
        `targets`, it learns them before it takes its place: a thread predicting sees the old
        tree or the grown one. Returns the new tree."""
        if not 0 <= i < len(self.trees):
            raise IndexError(f"tree index {i} out of range for {len(self.trees)} trees")
        tree = make_tree(tree_seed(self.master_seed, len(self.trees) + self.n_replaced))
        if self.memory.total > 0:
            tree.set_max_bytes(self.tree_cap(i))
        if rows is not None:
            tree.learn_rows(rows, targets)
        self.n_replaced += 1
        self.trees[i] = tree
        self.version += 1
        return tree

    cdef object start_background(self, Py_ssize_t i, object make_tree):
        """Start a background tree for tree `i` (`DriftWatch.new_background`, seeded as the
        forest's next background tree); it borrows its share of tree `i`'s bytes."""
        tree = self.watch.new_background(i, make_tree, self.master_seed)
        self.fit_background(i)
        return tree

    cdef int fit_background(self, Py_ssize_t i) except -1:
        """Tree `i`'s background tree came or went: a background tree borrows
        `background_share` of tree `i`'s bytes (the tree sheds nodes to lend them) and gives
        them back when it goes, so the forest's bytes stay within the budget, and a forest
        whose detectors start no background tree keeps every tree's whole share."""
        if self.memory.total > 0:
            tree = self.watch.background[i]
            if tree is not None:
                tree.set_max_bytes(budget_background_bytes(&self.memory))
            self.trees[i].set_max_bytes(self.tree_cap(i))
            self.version += 1
        return 0

    cdef object swap_in(self, Py_ssize_t i, object make_tree):
        """A drift on tree `i`: its background tree takes its place, or, without one, a fresh
        tree (`replace`). Either counts as a replacement."""
        tree = self.watch.take_background(i)
        if tree is None:
            return self.replace(i, make_tree)
        self.trees[i] = tree
        if self.memory.total > 0:  # from a background tree's bytes to a tree's
            tree.set_max_bytes(self.memory.tree_bytes)
        self.n_replaced += 1
        self.version += 1
        return tree

    cdef int drop_background(self, Py_ssize_t i) except -1:
        """Forget tree `i`'s background tree (the tree was replaced by another route, or the
        background tree lost its duel)."""
        self.watch.take_background(i)
        return self.fit_background(i)

    cdef int restart(self, Py_ssize_t i) except -1:
        """Tree `i` was replaced by another route (XForest's swaps): fresh detectors, no
        background tree, no duel."""
        self.drop_background(i)
        return self.watch.restart(i)

    cdef int restart_replaced(self, list before) except -1:
        """Each tree no longer the one in `before` (None: no detectors then), replaced by
        another route than the watch's (a forest's after-batch step, XForest's swaps), starts
        afresh with its detectors too (`restart`): they watched the tree it replaced."""
        cdef Py_ssize_t i
        if before is not None:
            for i in range(len(before)):
                if self.trees[i] is not before[i]:
                    self.restart(i)
        return 0

    cdef int act(self, object make_tree) except -1:
        """The detectors on the row just learned, tree by tree: each tree's verdict
        (`DriftWatch.verdict`) acted on at once."""
        cdef Py_ssize_t t
        cdef int verdict
        self.watch.see_row()
        for t in range(len(self.trees)):
            verdict = self.watch.verdict(t)
            if verdict & WATCH_START:
                self.start_background(t, make_tree)
            if verdict & WATCH_SWAP:
                self.swap_in(t, make_tree)
            elif verdict & WATCH_DROP:
                self.drop_background(t)
        return 0

    cdef int set_watch(self, object drift_detector, object warning_detector, int swap_rule,
                       Py_ssize_t log_size) except -1:
        """Watch every tree with fresh copies of `drift_detector` and `warning_detector` (None:
        stop watching; `DriftWatch.set_detectors`); counts and log start afresh."""
        self.version += 1
        self.watch.set_detectors(drift_detector, warning_detector, swap_rule, log_size)
        return 0

    cdef int set_watch_state(self, dict watch) except -1:
        """Restore the detectors' state (`DriftWatch.state`'s ``"watch"``; a merge joins its
        forests', `DriftWatch.joined`), keeping the background trees. It is checked first: a
        state that does not describe detectors of these trees raises ValueError and leaves
        the grove as it was."""
        cdef DriftWatch new = DriftWatch(len(self.trees))
        new.set_state({"background": [None] * len(self.trees), "n_background": 0,
                       "watch": watch})
        new.keep_background(self.watch)
        self.watch = new
        self.version += 1
        return 0

    cdef int learn_sample(self, const double* x, int32_t n_features, double y,
                          object make_tree) except -1:
        """Every tree, then every background tree, learns row `x` (`Tree.learn_sample`); then,
        with detectors, the grove acts on their verdicts (`act`). The watch has taken each
        tree's error on the row before (`DriftWatch.errors`)."""
        cdef Tree tree
        for tree in self.trees:
            tree.learn_sample(x, n_features, y)
        for tree in self.watch.background:
            if tree is not None:
                tree.learn_sample(x, n_features, y)
        if self.watch.watching:
            self.act(make_tree)
        return 0

    cdef int learn_watched_batch(self, object X, object y, object answers, Py_ssize_t n_out,
                                 bint classifier, double* tmp, object executor,
                                 Py_ssize_t n_tasks, object make_tree) except -1:
        """Learn a batch `X`, `y` (`learn_rows`) with the detectors watching: each tree's
        errors on the rows are taken before the batch (`answers`: each tree's answer to each
        row when the batch was just predicted, else None and the trees predict; `tmp`:
        `n_out` doubles of scratch), then seen by the detectors row by row once it is
        learned, the grove acting on their verdicts after each row."""
        cdef Py_ssize_t i
        cdef const double[:, ::1] rows = X
        cdef const double[::1] targets = y
        cdef const double[:, ::1] known
        cdef bint have = answers is not None
        errors = np.empty((rows.shape[0], 2 * len(self.trees) + 1))
        cdef double[:, ::1] ev = errors
        if have:
            known = answers
        for i in range(rows.shape[0]):
            self.watch.errors(self.trees, row_of(rows, i), targets[i],
                              row_of(known, i) if have else NULL, n_out, classifier, tmp)
            self.watch.keep_errors(ev[i])
        background = list(self.watch.background)
        self.learn_rows(X, y, executor, n_tasks)
        for i in range(rows.shape[0]):
            self.watch.restore_errors(ev[i], background)
            self.act(make_tree)
        return 0

    cdef int set_budget(self, long long total, long long fixed, double slots,
                        double background_share) except -1:
        """The forest's budget (`_budget.pxd`): `total` bytes, `fixed` of them outside the
        trees, the rest in `slots` shares, a background tree borrowing `background_share` of
        its tree's; the caller shares it out (`rebudget`)."""
        self.memory.total = total
        self.memory.fixed = fixed
        self.memory.slots = slots
        self.memory.background_share = background_share
        return 0

    cdef object predict_rows(self, const double[:, ::1] X, Py_ssize_t n_out, bint classifier):
        """(n_trees, n, n_out): each tree's `predict` of each row (for regression, `n_out` = 2
        and the second output the variance)."""
        cdef Py_ssize_t t, i, n = X.shape[0]
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
                    if not classifier:
                        view[t, i, 1] = max(view[t, i, 1] - view[t, i, 0] * view[t, i, 0], 0.0)
        return out

    cdef int refit_rows(self, object rows, object targets) except -1:
        """Every tree forgets its nodes' statistics and counts `rows` along their paths
        (`Tree.refit_rows`)."""
        cdef Tree tree
        self.version += 1
        for tree in self.trees:
            tree.refit_rows(rows, targets)
        return 0

    cdef object importances(self, Py_ssize_t n_columns):
        """Each of `n_columns` columns' summed credit over the trees (`Tree.add_importances`;
        background trees left out)."""
        out = np.zeros(n_columns, dtype=np.float64)
        for tree in self.trees:
            tree.add_importances(out)
        return out

    cdef int rebudget(self, list names, Py_ssize_t n_labels, Py_ssize_t batch_size) except -1:
        """Share the budget out again (`budget_share`, for registries of `names` and
        `n_labels` labels) and give each tree its cap: a tree over its new share sheds nodes
        (`_tree_budget.fit_budget`)."""
        cdef Py_ssize_t k
        if not budget_share(&self.memory, names, n_labels, self.watch.watching, batch_size):
            return 0
        self.version += 1  # a tree over its share sheds nodes
        for k in range(len(self.trees)):
            self.trees[k].set_max_bytes(self.tree_cap(k))
        for tree in self.watch.background:
            if tree is not None:
                tree.set_max_bytes(budget_background_bytes(&self.memory))
        return 0

    cdef long long tree_cap(self, Py_ssize_t i):
        """Tree `i`'s bytes: its share, less what its background tree borrows."""
        return budget_tree_bytes(&self.memory, self.watch.background[i] is not None)

    cdef int own(self, Py_ssize_t columns) except -1:
        """Trees that read a memory-mapped file (`Tree.borrowed`) get memory of their own:
        each is replaced by a tree loaded from its state (`columns`: the registry's width),
        as a load without mapping would have made it."""
        cdef Py_ssize_t i
        for i in range(len(self.trees)):
            if self.trees[i].borrowed is not None:
                self.trees[i] = tree_from_state(self.trees[i].borrowed, False, columns)
        self.watch.own(columns)
        self.version += 1
        return 0

    cdef bint fitted(self):
        """Whether a tree has learned a sample."""
        cdef Tree tree
        for tree in self.trees:
            if tree.n_seen > 0:
                return True
        return False

    cdef bint borrows(self):
        """Whether a tree or a background tree reads a memory-mapped file (`Tree.borrowed`)."""
        return any(t.borrowed is not None for t in self.trees + self.watch.background
                   if t is not None)

    cdef int learn_rows(self, object X, object y, object executor, Py_ssize_t n_tasks) except -1:
        """Learn every row in order; each tree (background trees too) sees exactly what
        `learn_one` calls would give it. Each tree learns the whole batch in one GIL-free call
        (its nodes stay in cache). Trees are independent, so with an executor `n_tasks`
        threads (the calling thread and n_tasks - 1 pool threads) take the trees one at a
        time from a shared queue: a thread slowed by another process simply takes fewer
        trees. The caller holds the model's lock until every thread is done."""
        cdef list learners = self.trees + [b for b in self.watch.background if b is not None]
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
