# The grove, compiled: the forest's trees and their places. It owns the trees, the seeds of
# the trees that replace them (from the forest's master seed), the forest's own generator, the
# drift watch and its background trees (`_watch.pxd`), and the budget's shares of each
# (`_budget.pxd`): it puts a new tree, a background tree or a swapped-in one in its place
# with its share of the bytes, acts on the watch's verdicts, and shares the budget out again;
# it gives and restores its keys of the forest's saved state (`_forest_state.pxd`).
# A part of the forest core (`_forest.pxd`), which routes rows to its trees and calls it under
# the model's lock.

from libc.stdint cimport int32_t

from ._budget cimport Budget
from ._random cimport RNG
from ._watch cimport DriftWatch


cdef class Grove:
    cdef readonly list trees                 # the Tree objects (any tree kind)
    cdef readonly object master_seed         # 64-bit seed every tree seed derives from (drawn
                                             # once when the forest's seed is None)
    cdef readonly long long n_replaced       # trees replaced so far (seeds the next one)
    cdef RNG rng                             # the forest's draws (XForest's swap decisions)
    cdef readonly DriftWatch watch           # decides; the grove acts on its verdicts
    cdef long long version                   # bumped whenever a tree may have changed (the
                                             # core's caches hold while it is equal)
    cdef Budget memory                       # the forest's bytes, shared out among its trees

    cdef int set_master_seed(self, object seed) except -1
    cdef dict state(self)
    cdef int set_state(self, dict state, bint borrow, Py_ssize_t columns) except -1
    cdef object replace(self, Py_ssize_t i, object make_tree, object rows=*, object targets=*)
    cdef object start_background(self, Py_ssize_t i, object make_tree)
    cdef int fit_background(self, Py_ssize_t i) except -1
    cdef object swap_in(self, Py_ssize_t i, object make_tree)
    cdef int drop_background(self, Py_ssize_t i) except -1
    cdef int restart(self, Py_ssize_t i) except -1
    cdef int restart_replaced(self, list before) except -1
    cdef int act(self, object make_tree) except -1
    cdef int set_watch(self, object drift_detector, object warning_detector, int swap_rule,
                       Py_ssize_t log_size) except -1
    cdef int set_watch_state(self, dict watch) except -1
    cdef int learn_sample(self, const double* x, int32_t n_features, double y,
                          object make_tree) except -1
    cdef int learn_watched_batch(self, object X, object y, object answers, Py_ssize_t n_out,
                                 bint classifier, double* tmp, object executor,
                                 Py_ssize_t n_tasks, object make_tree) except -1
    cdef int set_budget(self, long long total, long long fixed, double slots,
                        double background_share) except -1
    cdef object predict_rows(self, const double[:, ::1] X, Py_ssize_t n_out, bint classifier)
    cdef int refit_rows(self, object rows, object targets) except -1
    cdef object importances(self, Py_ssize_t n_columns)
    cdef int rebudget(self, list names, Py_ssize_t n_labels, Py_ssize_t batch_size) except -1
    cdef long long tree_cap(self, Py_ssize_t i)
    cdef int own(self, Py_ssize_t columns) except -1
    cdef bint fitted(self)
    cdef bint borrows(self)
    cdef int learn_rows(self, object X, object y, object executor, Py_ssize_t n_tasks) except -1
