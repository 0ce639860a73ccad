# The compiled forest loop shared by every forest: one call per sample drives all trees.

from cpython.pythread cimport PyThread_type_lock

from ._features cimport FeatureRegistry
from ._random cimport RNG


cdef class ForestCore:
    cdef readonly list trees                 # the Tree objects (any tree kind)
    cdef readonly FeatureRegistry features   # feature name -> column
    cdef readonly dict label_index           # class label -> class index (classification)
    cdef readonly list labels                # class index -> label, in order of first sight
    cdef readonly bint classifier            # classification (True) or regression (False)
    cdef readonly bint vote                  # aggregate by majority vote instead of averaging
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

    # --- drift adaptation (the forest's detectors watch what the core records) ---
    cdef readonly list background            # per tree: a background tree learning alongside
                                             # it since a warning (None: none)
    cdef readonly long long n_background     # background trees started (seeds the next one)
    cdef public bint track                   # record each tree's prequential error
    cdef readonly object last_errors         # each tree's error on each row of the last learn call,
                                             # before it learned them (a list of rows of n_trees)

    # --- the memory budget (`rebudget`): the forest's bytes, shared out among its trees ---
    cdef public long long budget             # bytes the whole forest may take (0: no budget)
    cdef public long long budget_fixed       # the forest's bytes outside the trees and the
                                             # registries (set by the Python layer)
    cdef public Py_ssize_t budget_slots      # trees the budget is shared among (a background
                                             # tree per tree counts when one may start)
    cdef readonly long long tree_bytes       # each tree's share now (`Tree.max_bytes`)
    cdef Py_ssize_t budget_names             # feature names counted in the last share
    cdef long long name_bytes                # their bytes
    cdef Py_ssize_t budget_labels            # labels counted in the last share

    cpdef int rebudget(self) except -1
    cdef int _check_budget(self) except -1
    cdef double _target(self, object y) except? -1.0
    cdef object _encode_targets(self, list ys)
    cdef int _register_labels(self, list ys) except -1
    cdef tuple _checked_rows(self, values, list names, list ys, bint register_features)
    cdef int _reserve(self, Py_ssize_t n) except -1
    cdef int _aggregate(self, const double* x, Py_ssize_t n_out) except -1
    cdef Py_ssize_t _n_out(self)
    cdef object _predict_rows(self, const double[:, ::1] X)
    cdef object _predict_tree_rows(self, const double[:, ::1] X)
    cdef object _tree_errors(self, const double[:, ::1] X, const double[::1] y)
    cdef list _errors_of(self, const double* x, double y)
    cdef int _learn_rows(self, object X, object y, object executor, Py_ssize_t n_tasks) except -1
    cdef int _learn_batch_rows(self, object X, object y, object executor, Py_ssize_t n_tasks,
                               object after) except -1
    cdef int _flush(self, object executor, Py_ssize_t n_tasks, object after) except -1
