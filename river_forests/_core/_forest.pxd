# The compiled forest loop shared by every forest: one call per sample drives all trees.

from cpython.pythread cimport PyThread_type_lock

from ._aggregator cimport Aggregate
from ._batcher cimport Batcher
from ._conformal cimport Calibrator
from ._features cimport FeatureRegistry
from ._grove cimport Grove
from ._labels cimport LabelRegistry


cdef class ForestCore:
    cdef readonly Grove grove                # the trees, their seeds, replacements, background
                                             # trees (the drift watch) and budget shares
    cdef readonly FeatureRegistry features   # feature name -> column
    cdef readonly LabelRegistry targets      # labels by index, the targets' checks
    cdef readonly bint classifier            # classification (True) or regression (False)
    cdef readonly bint vote                  # aggregate by majority vote instead of averaging
    cdef bint borrowing                      # a tree reads a memory-mapped file (`_own`)
    cdef PyThread_type_lock lock             # held by every public method (see _lock.pxd)

    cdef readonly Batcher batcher            # learn_one's buffer of a forest that learns in
                                             # batches, its count, its last predicted batch
    cdef Aggregate agg                       # the trees' answers aggregated, and the last
                                             # one-sample prediction (`_aggregator.pxd`)
    cdef readonly Calibrator calibrator      # prediction intervals (`set_intervals`,
                                             # regression): the struct, or none

    cdef int _own(self) except -1
    cdef int _set_forest_state(self, dict state, bint borrow) except -1
    cdef int _after(self, object after, object X, object y) except -1
    cpdef int rebudget(self) except -1
    cdef int _check_budget(self) except -1
    cdef tuple _checked_rows(self, values, list names, list ys, bint register_features)
    cdef Py_ssize_t _n_out(self)
    cdef object _predict_rows(self, const double[:, ::1] X)
    cdef Py_ssize_t _predict_one(self, dict x) except -1
    cdef int _learn_batch_rows(self, object X, object y, object executor, Py_ssize_t n_tasks,
                               object after, object make_tree, bint buffered) except -1
    cdef int _flush(self, object executor, Py_ssize_t n_tasks, object after,
                    object make_tree) except -1


cdef class BatchStep:
    cdef ForestCore core                     # the forest, under the lock its batch holds
    cdef bint open                           # the step is running (else every call raises)

    cdef ForestCore _forest(self)
