# The compiled forest loop shared by every forest: one call per sample drives all trees.

from cpython.pythread cimport PyThread_type_lock

from ._budget cimport Budget
from ._conformal cimport Conformal
from ._features cimport FeatureRegistry
from ._random cimport RNG
from ._watch cimport DriftWatch


cdef class ForestCore:
    cdef readonly list trees                 # the Tree objects (any tree kind)
    cdef readonly FeatureRegistry features   # feature name -> column
    cdef readonly dict label_index           # class label -> class index (classification)
    cdef readonly list labels                # class index -> label, in order of first sight
    cdef readonly bint classifier            # classification (True) or regression (False)
    cdef readonly bint vote                  # aggregate by majority vote instead of averaging
    cdef bint borrowing                      # a tree reads a memory-mapped file (`_own`)
    cdef PyThread_type_lock lock             # held by every public method (see _lock.pxd)
    cdef double* acc                         # scratch: the aggregated prediction
    cdef double* tmp                         # scratch: one tree's prediction
    cdef Py_ssize_t scratch                  # allocated length of `acc` and `tmp`

    # --- the forest's own state (pickled with it): replacements, batches, its generator ---
    cdef readonly object master_seed         # 64-bit seed every tree seed derives from (drawn
                                             # once when the forest's seed is None)
    cdef readonly long long n_replaced       # trees replaced so far (seeds the next one)
    cdef readonly long long n_batches        # batches learned (learn_many calls, full buffers)
    cdef RNG rng                             # the forest's draws (XForest's swap decisions)
    cdef readonly Py_ssize_t batch_size      # 0: learn_one learns at once; else learn_one buffers
                                             # rows and learns them as one batch when full
    cdef list pending_rows                   # buffered rows (registry order, their width then)
    cdef list pending_targets                # their encoded targets

    # --- drift adaptation (`set_watch`): each tree's detectors, background tree and duel ---
    cdef readonly DriftWatch watch           # decides; the forest acts on its verdicts
    # --- the last one-sample prediction, each tree's answer (test-then-train reuses it) ---
    cdef Py_ssize_t* cache_cols              # the row predicted: the registry columns its
    cdef double* cache_x                     # dict set and their values (every other column
                                             # is missing), so a check costs its keys
    cdef double* cache_pred                  # per tree: its class (index) or its mean
    cdef Py_ssize_t cache_cap, cache_k, cache_n, cache_nout, cache_trees
    cdef long long version                   # bumped whenever a tree may have changed
    cdef long long cache_version             # `version` at that prediction (valid if equal)
    cdef double cache_mean, cache_second      # the aggregate of that prediction (regression:
                                             # the mean and the mean of y^2)
    cdef bint cache_recorded                 # `cache_pred` holds that prediction's answers
    cdef unsigned long long row_tag          # that prediction's tag: each tree it walked keeps
                                             # it (`Tree.walk_tag`) with its walk, which the
                                             # learn of the same row takes (`_keep_walks`)
    # --- prediction intervals (`set_intervals`, regression): a compiled calibrator ---
    cdef Conformal* conformal                # NULL: no intervals
    # --- the last batch prediction of a forest that learns in batches, each tree's answers ---
    cdef object batch_X                      # its rows (a copy; small batches only)
    cdef object batch_pred                   # (rows, trees): each tree's class or mean
    cdef object batch_agg                    # (rows, 2): the forest's mean and variance, for
                                             # the interval calibrator (regression)
    cdef Py_ssize_t batch_nout
    cdef long long batch_version

    # --- the memory budget (`rebudget`): the forest's bytes, shared out among its trees ---
    cdef Budget memory                       # its share of each tree (`_budget.pxd`)

    cdef int _own(self) except -1
    cdef dict _forest_state(self)
    cdef int _set_master_seed(self, object seed) except -1
    cdef int _set_forest_state(self, dict state, bint borrow) except -1
    cdef object _replace_tree(self, Py_ssize_t i, object make_tree, object rows=*,
                              object targets=*)
    cdef object _start_background(self, Py_ssize_t i, object make_tree)
    cdef object _swap_in(self, Py_ssize_t i, object make_tree)
    cdef int _drop_background(self, Py_ssize_t i) except -1
    cdef int _reset_watch(self, Py_ssize_t i) except -1
    cdef int _after(self, object after, object X, object y) except -1
    cpdef int rebudget(self) except -1
    cdef long long _tree_cap(self, Py_ssize_t i)
    cdef int _check_budget(self) except -1
    cdef double _target(self, object y) except? -1.0
    cdef object _encode_targets(self, list ys)
    cdef int _register_labels(self, list ys) except -1
    cdef tuple _checked_rows(self, values, list names, list ys, bint register_features)
    cdef int _reserve(self, Py_ssize_t n) except -1
    cdef int _aggregate(self, const double* x, Py_ssize_t n_out, bint record=*,
                        bint keep=*) except -1
    cdef Py_ssize_t _n_out(self)
    cdef object _predict_rows(self, const double[:, ::1] X, bint keep=*)
    cdef object _predict_tree_rows(self, const double[:, ::1] X)
    cdef int _watch_errors(self, const double* x, Py_ssize_t n_features, double y,
                           const double* preds) except -1
    cdef int _detect(self, object make_tree) except -1
    cdef int _fit_background(self, Py_ssize_t i) except -1
    cdef int _remember(self, Py_ssize_t n_features, Py_ssize_t n_out) except -1
    cdef int _predict_row(self, Py_ssize_t n_features, Py_ssize_t n_out) except -1
    cdef int _keep_walks(self, Py_ssize_t n_features) except -1
    cdef bint _cached(self, const double* x, Py_ssize_t n_features, Py_ssize_t n_out) noexcept
    cdef bint _same_row(self, const double* x, Py_ssize_t n_features) noexcept
    cdef int _calibrate(self, const double* x, Py_ssize_t n_features, double y) except -1
    cdef bint _fitted(self)
    cdef Py_ssize_t _predict_value(self, dict x) except -1
    cdef int _learn_rows_watched(self, const double[:, ::1] X, const double[::1] y,
                                 object make_tree) except -1
    cdef int _learn_rows(self, object X, object y, object executor, Py_ssize_t n_tasks) except -1
    cdef int _learn_batch_rows(self, object X, object y, object executor, Py_ssize_t n_tasks,
                               object after, object make_tree) except -1
    cdef int _flush(self, object executor, Py_ssize_t n_tasks, object after,
                    object make_tree) except -1



cdef class BatchStep:
    cdef ForestCore core                     # the forest, under the lock its batch holds
    cdef bint open                           # the step is running (else every call raises)

    cdef ForestCore _forest(self)
