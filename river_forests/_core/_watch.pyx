"""Drift adaptation, compiled (see `_watch.pxd`): each tree's detectors, its background tree
and its duel, the counts and the drift log, and their saved state.

Each tree's detectors watch its prequential error (0/1 for a classifier, the absolute error
of its mean for a regressor), computed before the tree learns the row (`errors`); after the
row is learned they see it (`verdict`): a warning starts a background tree, a drift swaps it
in (SWAP_AT_DRIFT, as river's and MOA's ARF) or starts a duel that swaps it in once it is
significantly better (SWAP_WHEN_BETTER). river's ADWIN runs compiled (`_adwin.pxd`, the
same detections); any other river detector is called from here.
"""

from libc.math cimport NAN, fabs, isnan
from libc.stdint cimport int32_t
from libc.stdlib cimport calloc, free

import collections

from ._adwin cimport (adwin_estimation, adwin_get_state, adwin_init, adwin_nbytes, adwin_release,
                      adwin_reset, adwin_set_state, adwin_update)
from ._checks cimport is_int
from ._tree cimport Tree

from ._random import tree_seed
from ._tree import tree_from_state

from river.drift import ADWIN as _RiverADWIN

#: a duel (SWAP_WHEN_BETTER) weighs the differences d = (tree's error - background tree's
#: error) of the rows since the drift where the background tree could predict (it has learned
#: something), the k-th latest by DUEL_FADE^k: S = sum w d, Q = sum w^2 d^2 (for 0/1 errors,
#: the rows where exactly one of them is wrong, weighted). S has variance about Q when both
#: trees are as good, so S > 0 and S^2 > Z_SWAP^2 Q is a one-sided test at Z_SWAP standard
#: deviations: the background tree takes the place. S < 0 and S^2 > Z_DROP^2 Q after at least
#: DROP_AFTER rows: it is dropped. The fading lets a background tree that starts from nothing
#: win on what it predicts now, not on its first rows.
cdef double Z_SWAP = 2.0
cdef double Z_DROP = 3.0
cdef double DROP_AFTER = 100.0
cdef double DUEL_FADE = 0.99


cdef class DriftWatch:

    def __cinit__(self, Py_ssize_t n_trees):
        self.background = [None] * n_trees
        self.n_background = 0
        self.watching = False
        self.adwins = NULL
        self.err = NULL
        self.duel = NULL
        self.pending = NULL
        self.n_watch = 0
        self.drift_counts = []
        self.warning_counts = []
        self.swap_counts = []
        self.drift_log = collections.deque(maxlen=1000)
        self.n_watched = 0

    def __dealloc__(self):
        self._free()

    def __sizeof__(self):
        """The watch's own bytes: the object, its per-tree arrays and the compiled detectors
        (the background trees and Python detectors are objects of their own)."""
        cdef Py_ssize_t t
        cdef size_t n = object.__sizeof__(self)
        if self.watching:
            n += self.n_watch * (5 * sizeof(double) + sizeof(char))
            if self.compiled:
                for t in range(2 * self.n_watch):
                    n += sizeof(self.adwins[t]) + adwin_nbytes(&self.adwins[t])
        return n

    # ------------------------------------------------------------------ the detectors

    def set_detectors(self, object drift_detector, object warning_detector=None,
                      int swap_rule=SWAP_AT_DRIFT, Py_ssize_t log_size=1000):
        """Watch every tree with fresh copies (``clone()``) of `drift_detector` and
        `warning_detector` (None: stop watching); counts and log start afresh."""
        self._set(drift_detector, warning_detector, swap_rule, log_size, len(self.background))

    cdef int _set(self, object drift_detector, object warning_detector, int swap_rule,
                  Py_ssize_t log_size, Py_ssize_t n) except -1:
        cdef Py_ssize_t t
        self._free()
        self.watching = drift_detector is not None
        self.drift_log = collections.deque(maxlen=log_size)
        self.n_watched = 0
        self.drift_counts = [0] * n
        self.warning_counts = [0] * n
        self.swap_counts = [0] * n
        if not self.watching:
            return 0
        if swap_rule not in (SWAP_AT_DRIFT, SWAP_WHEN_BETTER):
            raise ValueError(f"unknown swap rule {swap_rule}")
        self.swap_rule = swap_rule
        self.warn = warning_detector is not None
        self.drift_template = drift_detector
        self.warning_template = warning_detector
        self.compiled = type(drift_detector) is _RiverADWIN and (
            warning_detector is None or type(warning_detector) is _RiverADWIN)
        self.n_watch = n
        self.err = <double*>calloc(2 * n + 1, sizeof(double))
        self.duel = <double*>calloc(3 * n + 1, sizeof(double))
        self.pending = <char*>calloc(n + 1, sizeof(char))
        if self.err == NULL or self.duel == NULL or self.pending == NULL:
            self._free()
            raise MemoryError()
        if self.compiled:
            self.adwins = <Adwin*>calloc(2 * n + 1, sizeof(Adwin))
            if self.adwins == NULL:
                self._free()
                raise MemoryError()
            for t in range(n):
                self._init_adwin(2 * t, drift_detector)
                self._init_adwin(2 * t + 1, warning_detector if self.warn else drift_detector)
            self.drift_py = self.warning_py = None
        else:
            self.drift_py = [drift_detector.clone() for _ in range(n)]
            self.warning_py = [warning_detector.clone() for _ in range(n)] if self.warn else None
        return 0

    cdef int _set_python(self, object drift, object warning, int rule, Py_ssize_t log_size,
                         Py_ssize_t n) except -1:
        """`_set` with the detectors run as Python objects even if they are ADWINs."""
        cdef Py_ssize_t t
        self._set(drift, warning, rule, log_size, n)
        if self.compiled:
            for t in range(2 * self.n_watch):
                adwin_release(&self.adwins[t])
            free(self.adwins)
            self.adwins = NULL
            self.compiled = False
            self.drift_py = [drift.clone() for _ in range(self.n_watch)]
            self.warning_py = [warning.clone() for _ in range(self.n_watch)] if self.warn else None
        return 0

    cdef int _init_adwin(self, Py_ssize_t k, object d) except -1:
        if not (1 <= d.max_buckets <= 2**16 and 1 <= d.clock and 0 <= d.min_window_length
                and 0 <= d.grace_period and 0.0 < d.delta <= 1.0):
            raise ValueError(f"this ADWIN's parameters are out of range for the compiled "
                             f"detector (1 <= max_buckets <= 65536, clock >= 1, 0 < delta <= "
                             f"1): {d!r}")
        adwin_init(&self.adwins[k], d.delta, d.clock, d.max_buckets, d.min_window_length,
                   d.grace_period)
        return 0

    cdef void _free(self) noexcept:
        cdef Py_ssize_t t
        if self.adwins != NULL:
            for t in range(2 * self.n_watch):
                adwin_release(&self.adwins[t])
        free(self.adwins)
        free(self.err)
        free(self.duel)
        free(self.pending)
        self.adwins = NULL
        self.err = NULL
        self.duel = NULL
        self.pending = NULL
        self.n_watch = 0
        self.watching = False
        self.drift_py = self.warning_py = None

    # ------------------------------------------------------------------ one row

    @property
    def last_errors(self):
        """Each tree's error on the last row the detectors saw (None when not watching)."""
        cdef Py_ssize_t t
        if not self.watching or self.n_watched == 0:
            return None
        return [self.err[2 * t] for t in range(self.n_watch)]

    cdef double _error(self, object tree_, const double* x, double y, Py_ssize_t n_out,
                       bint classifier, double* tmp) except? -1.0:
        """A tree's loss on one row, from its prediction now (into `tmp[:n_out]`): 0/1 for a
        classifier (a label no tree knows yet is an error), the absolute error of its mean
        for a regressor."""
        cdef Tree tree = <Tree>tree_
        cdef Py_ssize_t c, best
        if n_out == 0 or (classifier and tree.n_seen == 0):
            # a tree that has learned nothing has no class to predict (an error), and a mean of 0
            return 1.0 if classifier else fabs(y)
        tree.predict(x, tmp, <int32_t>n_out)
        if not classifier:
            return fabs(tmp[0] - y)
        best = 0
        for c in range(1, n_out):
            if tmp[c] > tmp[best]:
                best = c
        return 0.0 if best == <Py_ssize_t>y else 1.0

    cdef int errors(self, list trees, const double* x, double y, const double* preds,
                    Py_ssize_t n_out, bint classifier, double* tmp) except -1:
        """Each tree's error on row `x` (and its background tree's, during a duel, once it has
        learned something). `preds`: each tree's answer to this row (its class or its mean)
        when the forest knows it (NULL: each tree predicts, into the scratch `tmp`)."""
        cdef Py_ssize_t t
        cdef Tree tree
        cdef double p
        for t in range(len(trees)):
            tree = <Tree>trees[t]
            if preds != NULL and not (classifier and tree.n_seen == 0):
                p = preds[t]
                if classifier:
                    self.err[2 * t] = 0.0 if p == y else 1.0
                else:
                    self.err[2 * t] = fabs(p - y)
            else:
                self.err[2 * t] = self._error(tree, x, y, n_out, classifier, tmp)
            if self.pending[t] and self.background[t] is not None \
                    and (<Tree>self.background[t]).n_seen > 0:
                self.err[2 * t + 1] = self._error(self.background[t], x, y, n_out, classifier, tmp)
            else:
                self.err[2 * t + 1] = NAN
        return 0

    cdef int keep_errors(self, double[::1] out) except -1:
        """Copy the row's errors (`errors`) into `out` (2 per tree), for a batch whose errors
        are all taken before it is learned."""
        cdef Py_ssize_t t
        for t in range(2 * self.n_watch):
            out[t] = self.err[t]
        return 0

    cdef int restore_errors(self, const double[::1] kept, list background) except -1:
        """Errors `keep_errors` kept, back for `verdict`: a background tree that is not the
        one in `background` (the background trees when they were taken) was started (or
        swapped in) on an earlier row of the batch, and had no error on this one."""
        cdef Py_ssize_t t
        for t in range(self.n_watch):
            self.err[2 * t] = kept[2 * t]
            self.err[2 * t + 1] = kept[2 * t + 1] if self.background[t] is background[t] else NAN
        return 0

    cdef int _update(self, Py_ssize_t t, bint warning, double e) except -1:
        """Feed error `e` to tree `t`'s drift (or warning) detector: 1 if it detected a rise
        of the error. A detector that tracks its window's mean (ADWIN) flags falls too, and a
        learning tree's error falls: only a rise is acted on; a detector without
        `estimation` (DDM, ...) is taken at its word."""
        cdef Adwin* a
        cdef double before
        if self.compiled:
            a = &self.adwins[2 * t + warning]
            before = adwin_estimation(a)
            return adwin_update(a, e) and adwin_estimation(a) > before
        det = (self.warning_py if warning else self.drift_py)[t]
        before_ = getattr(det, "estimation", None)
        det.update(e)
        if not det.drift_detected:
            return 0
        after = getattr(det, "estimation", None)
        return before_ is None or after is None or after > before_

    cdef int _fresh_detector(self, Py_ssize_t t, bint warning) except -1:
        if self.compiled:
            adwin_reset(&self.adwins[2 * t + warning])
        elif warning:
            self.warning_py[t] = self.warning_template.clone()
        else:
            self.drift_py[t] = self.drift_template.clone()
        return 0

    cdef int see_row(self) except -1:
        """A row was learned: the detectors see it next (`verdict`, tree by tree)."""
        self.n_watched += 1
        return 0

    cdef int verdict(self, Py_ssize_t t) except -1:
        """Tree `t`'s detectors on the row just learned (its errors from `errors`): what the
        forest must do, as WATCH_* bits, in this order: a warning starts a background tree
        (WATCH_START); a drift swaps it in (WATCH_SWAP: it, or a fresh tree), or, under
        SWAP_WHEN_BETTER, starts a duel (and a background tree if there is none) that the
        background tree wins once significantly better (WATCH_SWAP), or loses once
        significantly worse (WATCH_DROP)."""
        cdef int act = 0
        cdef double e = self.err[2 * t], d, s, q
        if self.pending[t] and not isnan(self.err[2 * t + 1]):
            d = e - self.err[2 * t + 1]
            self.duel[3 * t] = DUEL_FADE * self.duel[3 * t] + d
            self.duel[3 * t + 1] = DUEL_FADE * DUEL_FADE * self.duel[3 * t + 1] + d * d
            self.duel[3 * t + 2] += 1.0
        if self.warn and not self.pending[t] and self._update(t, True, e):
            act = WATCH_START
            self._fresh_detector(t, True)
            self.warning_counts[t] += 1
        if self._update(t, False, e):
            self.drift_counts[t] += 1
            self.drift_log.append((self.n_watched, t))
            self._fresh_detector(t, False)
            if self.swap_rule == SWAP_AT_DRIFT:
                if self.warn:
                    self._fresh_detector(t, True)
                self.swap_counts[t] += 1
                return act | WATCH_SWAP
            if not self.pending[t]:
                self.pending[t] = 1
                self.duel[3 * t] = 0.0
                self.duel[3 * t + 1] = 0.0
                self.duel[3 * t + 2] = 0.0
                if self.background[t] is None:
                    act = WATCH_START
            return act
        if self.pending[t]:
            s = self.duel[3 * t]
            q = self.duel[3 * t + 1]
            if s > 0.0 and s * s > Z_SWAP * Z_SWAP * q:
                self.pending[t] = 0
                self._fresh_detector(t, False)
                if self.warn:
                    self._fresh_detector(t, True)
                self.swap_counts[t] += 1
                return act | WATCH_SWAP
            if s < 0.0 and self.duel[3 * t + 2] >= DROP_AFTER and s * s > Z_DROP * Z_DROP * q:
                self.pending[t] = 0
                return act | WATCH_DROP
        return act

    # ------------------------------------------------------------------ background trees

    cdef object new_background(self, Py_ssize_t i, object make_tree, object master_seed):
        """Tree `i`'s new background tree (replacing one it had): `make_tree(seed)`, seeded
        as the forest's next background tree (`tree_seed(master_seed, -2 - k)` for the k-th:
        apart from the trees' and replacements' seeds). It learns from the next row on,
        alongside tree `i`, and takes its place on a drift."""
        tree = make_tree(tree_seed(master_seed, -2 - self.n_background))
        self.background[i] = tree
        self.n_background += 1
        return tree

    cdef object take_background(self, Py_ssize_t i):
        """Tree `i`'s background tree (None: none), which the watch no longer holds."""
        tree = self.background[i]
        self.background[i] = None
        return tree

    cdef int own(self, Py_ssize_t columns) except -1:
        """Background trees that read a memory-mapped file get memory of their own, as
        `ForestCore._own` gives its trees (`columns`: the registry's width)."""
        cdef Py_ssize_t i
        for i in range(len(self.background)):
            if self.background[i] is not None and self.background[i].borrowed is not None:
                self.background[i] = tree_from_state(self.background[i].borrowed, False, columns)
        return 0

    cdef int keep_background(self, DriftWatch other) except -1:
        """Hold `other`'s background trees and their count (a fresh watch restored over one in
        use, `ForestCore.set_watch_state`)."""
        if len(other.background) != len(self.background):
            raise ValueError("the watches are of different numbers of trees")
        self.background = other.background
        self.n_background = other.n_background
        return 0

    cdef int restart(self, Py_ssize_t i) except -1:
        """Tree `i` was replaced by another route (XForest's swaps): fresh detectors, no duel
        (the forest drops its background tree)."""
        if self.watching:
            self._fresh_detector(i, False)
            if self.warn:
                self._fresh_detector(i, True)
            self.pending[i] = 0
        return 0

    # ------------------------------------------------------------------ the saved state

    def state(self):
        """The watch's state as plain data: its keys of the forest's state
        (`ForestCore.forest_state`): the background trees' states (None: none), their count,
        and the detectors' state (``"watch"``, None when not watching)."""
        return {"background": [None if b is None else (<Tree>b).get_state()
                               for b in self.background],
                "n_background": self.n_background, "watch": self._detectors_state()}

    cdef object _detectors_state(self):
        cdef Py_ssize_t t, n = self.n_watch
        if not self.watching:
            return None
        return {
            "rule": self.swap_rule, "templates": (self.drift_template, self.warning_template),
            "adwins": [(adwin_get_state(&self.adwins[2 * t]), adwin_get_state(&self.adwins[2 * t + 1]))
                       for t in range(n)] if self.compiled else None,
            "python": (list(self.drift_py), None if self.warning_py is None else list(self.warning_py))
                      if not self.compiled else None,
            "duel": [(self.duel[3 * t], self.duel[3 * t + 1], self.duel[3 * t + 2]) for t in range(n)],
            "pending": [bool(self.pending[t]) for t in range(n)],
            "counts": (list(self.drift_counts), list(self.warning_counts), list(self.swap_counts)),
            "log": (list(self.drift_log), self.drift_log.maxlen), "n_watched": self.n_watched,
        }

    @staticmethod
    def check_state(dict state, Py_ssize_t n_trees, object check_tree=None):
        """Raise ValueError unless `state` has the shape of `state`'s dict for a forest of
        `n_trees` trees: per-tree lists as long as the trees, counts, duels, the log and the
        detectors' states of the right types. `check_tree(s)` checks each background tree's
        state against the forest's (its task, its columns, its classes)."""
        background = state.get("background")
        if not isinstance(background, list) or len(background) != n_trees \
                or not all(b is None or isinstance(b, dict) for b in background):
            raise ValueError("a forest's background trees must be a list as long as its trees")
        if check_tree is not None:
            for b in background:
                if b is not None:
                    check_tree(b)
        if not is_int(state.get("n_background")):
            raise ValueError("the forest's 'n_background' must be an integer >= 0")
        watch = state.get("watch")
        if watch is None:
            return
        if not isinstance(watch, dict):
            raise ValueError("the detectors' state must be a dict")
        if watch.get("rule") not in (SWAP_AT_DRIFT, SWAP_WHEN_BETTER) \
                or isinstance(watch.get("rule"), bool):
            raise ValueError("the detectors' swap rule must be 0 (at drift) or 1 (when better)")
        templates = watch.get("templates")
        if not (isinstance(templates, (tuple, list)) and len(templates) == 2
                and templates[0] is not None):
            raise ValueError("the detectors' templates must be a pair, the drift detector first")
        for key in ("duel", "pending"):
            if not isinstance(watch.get(key), list) or len(watch[key]) != n_trees:
                raise ValueError(f"the detectors' {key!r} must be a list as long as the trees")
        if not all(isinstance(p, bool) or is_int(p, 0, 2) for p in watch["pending"]):
            raise ValueError("a duel's flag is a bool")
        counts = watch.get("counts")
        if not (isinstance(counts, (tuple, list)) and len(counts) == 3
                and all(isinstance(c, list) and len(c) == n_trees for c in counts)):
            raise ValueError("the detectors' counts must be three lists as long as the trees")
        if not all(is_int(v) for c in counts for v in c):
            raise ValueError("the detectors' counts must be integers >= 0")
        for d in watch["duel"]:
            if not (isinstance(d, (tuple, list)) and len(d) == 3
                    and all(isinstance(v, float) for v in d)):
                raise ValueError("a duel's state is three floats")
        log = watch.get("log")
        if not (isinstance(log, (tuple, list)) and len(log) == 2 and isinstance(log[0], list)
                and is_int(log[1], 1, 2**31) and len(log[0]) <= log[1]):
            raise ValueError("the drift log must be (entries, most entries)")
        if not all(isinstance(e, (tuple, list)) and len(e) == 2 and is_int(e[0])
                   and is_int(e[1], 0, n_trees) for e in log[0]):
            raise ValueError("a drift log entry is (sample, tree)")
        if not is_int(watch.get("n_watched")):
            raise ValueError("the detectors' 'n_watched' must be an integer >= 0")
        adwins = watch.get("adwins")
        if adwins is not None and (not isinstance(adwins, list) or len(adwins) != n_trees
                                   or not all(isinstance(a, (tuple, list)) and len(a) == 2
                                              and all(isinstance(s, tuple) for s in a)
                                              for a in adwins)):
            raise ValueError("the ADWIN states must be a pair of states a tree")
        python = watch.get("python")
        if python is not None and not (isinstance(python, (tuple, list)) and len(python) == 2
                                       and isinstance(python[0], list) and len(python[0]) == n_trees
                                       and (python[1] is None or isinstance(python[1], list)
                                            and len(python[1]) == n_trees)):
            raise ValueError("the detectors must be lists as long as the trees")

    def set_state(self, dict state, bint borrow=False, Py_ssize_t columns=-1):
        """Restore `state`'s dict, checked first (`check_state`; the background trees check
        their own states): a state that does not describe a watch of this watch's trees
        raises ValueError. Background trees are loaded as `tree_from_state` loads (`borrow`:
        reading a memory-mapped file; `columns`: the registry's width). A forest restores
        into a fresh watch, so that a state that fails leaves it as it was."""
        cdef Py_ssize_t t, n = len(self.background)
        DriftWatch.check_state(state, n)
        background = [None if b is None else tree_from_state(b, borrow, columns)
                      for b in state["background"]]
        w = state.get("watch")
        if w is None:
            self._free()
        else:
            drift, warning = w["templates"]
            self._set(drift, warning, w["rule"], w["log"][1], n)
            if self.compiled and w["adwins"] is not None:
                for t in range(n):
                    adwin_set_state(&self.adwins[2 * t], w["adwins"][t][0])
                    adwin_set_state(&self.adwins[2 * t + 1], w["adwins"][t][1])
            elif w["python"] is not None:  # Python detectors (a model of 0.2 had river's ADWIN so)
                if self.compiled:
                    self._set_python(drift, warning, w["rule"], w["log"][1], n)
                self.drift_py = list(w["python"][0])
                self.warning_py = None if w["python"][1] is None else list(w["python"][1])
            for t in range(n):
                self.duel[3 * t], self.duel[3 * t + 1], self.duel[3 * t + 2] = w["duel"][t]
                self.pending[t] = w["pending"][t]
            self.drift_counts, self.warning_counts, self.swap_counts = map(list, w["counts"])
            self.drift_log.extend(tuple(e) for e in w["log"][0])
            self.n_watched = w["n_watched"]
        self.background = background
        self.n_background = state["n_background"]

    @staticmethod
    def joined(list watches, list sizes, Py_ssize_t log_size):
        """The detectors' states (`state()["watch"]`) of forests of `sizes` trees, joined for
        one forest holding all their trees in order (`river_forests.merge`): each tree keeps
        its detectors, counts and duel; the drift logs are joined, each entry's tree
        renumbered, and keep the `log_size` latest; the rows watched are the most any saw."""
        first = watches[0]
        out = dict(first)
        for key in ("duel", "pending"):
            out[key] = [v for w in watches for v in w[key]]
        if first["adwins"] is not None:
            out["adwins"] = [v for w in watches for v in w["adwins"]]
        if first["python"] is not None:
            out["python"] = tuple(None if first["python"][k] is None else
                                  [d for w in watches for d in w["python"][k]] for k in (0, 1))
        out["counts"] = tuple([n for w in watches for n in w["counts"][k]] for k in range(3))
        offsets = [sum(sizes[:k]) for k in range(len(sizes))]
        log = [(pos, int(i + off)) for w, off in zip(watches, offsets) for pos, i in w["log"][0]]
        out["log"] = (log[max(0, len(log) - log_size):], log_size)
        out["n_watched"] = max(w["n_watched"] for w in watches)
        return out
