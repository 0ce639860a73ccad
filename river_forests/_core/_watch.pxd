# Drift adaptation, compiled: each tree's detectors watch its prequential error; a warning
# starts a background tree, a drift puts it in the tree's place (or starts a duel it must
# win first). The watch decides; the forest that holds it (`ForestCore`) acts on its verdict
# (`verdict`), since the trees, their seeds and their shares of the budget are the forest's.
#
# The watch owns the detectors (river's ADWIN run compiled, `_adwin.pxd`, or any river
# detector called as a Python object), the background trees, the duels, the counts and the
# drift log, and their saved state (`state` / `set_state` / `check_state`). Its methods
# assume the forest's lock is held (`_lock.pxd`): the forest calls them from its own.

from ._adwin cimport Adwin


cdef enum:
    SWAP_AT_DRIFT = 0        # a drift puts the background tree (or a fresh one) in place at once
    SWAP_WHEN_BETTER = 1     # a drift starts a duel: the background tree takes the place once
                             # its errors are significantly fewer than the tree's

cdef enum:                   # what a verdict asks of the forest for one tree (bits)
    WATCH_START = 1          # start a background tree for it (`new_background`)
    WATCH_SWAP = 2           # put its background tree (or a fresh tree) in its place
    WATCH_DROP = 4           # drop its background tree (it lost its duel)


cdef class DriftWatch:
    cdef readonly list background            # per tree: a background tree learning alongside
                                             # it since a warning (None: none)
    cdef readonly long long n_background     # background trees started (seeds the next one)
    cdef readonly bint watching              # detectors are set
    cdef readonly int swap_rule              # SWAP_AT_DRIFT or SWAP_WHEN_BETTER
    cdef readonly bint compiled              # river's ADWIN, run as `adwins` (else the Python
                                             # detectors `drift_py` / `warning_py`)
    cdef bint warn                           # a warning detector is set
    cdef object drift_template, warning_template  # what a fresh detector is a clone of
    cdef Py_ssize_t n_watch                  # trees the per-tree arrays below hold
    cdef Adwin* adwins                       # 2 per tree: the drift, then the warning detector
    cdef list drift_py, warning_py           # per tree: Python detectors (not compiled)
    cdef double* err                         # per tree: the tree's and its background tree's
                                             # error on the row being learned (NaN: none)
    cdef double* duel                        # per tree: sum of (tree - background) errors and
                                             # of their squares since the duel started, and
                                             # the rows counted
    cdef char* pending                       # per tree: a duel is on (SWAP_WHEN_BETTER)
    cdef readonly list drift_counts          # per tree: drifts detected
    cdef readonly list warning_counts        # per tree: warnings detected
    cdef readonly list swap_counts           # per tree: background (or fresh) trees swapped in
    cdef readonly object drift_log           # (row, tree) of the last drifts (a bounded deque)
    cdef readonly long long n_watched        # rows the detectors have watched

    cdef int _set(self, object drift_detector, object warning_detector, int swap_rule,
                  Py_ssize_t log_size, Py_ssize_t n_trees) except -1
    cdef int _set_python(self, object drift, object warning, int rule, Py_ssize_t log_size,
                         Py_ssize_t n_trees) except -1
    cdef int _init_adwin(self, Py_ssize_t k, object d) except -1
    cdef void _free(self) noexcept
    cdef double _error(self, object tree, const double* x, double y, Py_ssize_t n_out,
                       bint classifier, double* tmp) except? -1.0
    cdef int errors(self, list trees, const double* x, double y, const double* preds,
                    Py_ssize_t n_out, bint classifier, double* tmp) except -1
    cdef int keep_errors(self, double[::1] out) except -1
    cdef int restore_errors(self, const double[::1] kept, list background) except -1
    cdef int _update(self, Py_ssize_t t, bint warning, double e) except -1
    cdef int _fresh_detector(self, Py_ssize_t t, bint warning) except -1
    cdef int see_row(self) except -1
    cdef int verdict(self, Py_ssize_t t) except -1
    cdef object new_background(self, Py_ssize_t i, object make_tree, object master_seed)
    cdef object take_background(self, Py_ssize_t i)
    cdef int own(self, Py_ssize_t columns) except -1
    cdef int keep_background(self, DriftWatch other) except -1
    cdef int restart(self, Py_ssize_t i) except -1
    cdef object _detectors_state(self)
