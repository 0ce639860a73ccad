# The batcher, compiled: a forest that learns in batches (`batch_size` > 0, XForest) buffers
# the rows `learn_one` gives it until a batch is full, counts the batches it learns, and keeps
# its last predicted batch (each tree's answers, the forest's aggregate) for the detectors and
# the interval calibrator when it learns that batch next. Until a tree has learned a row, it
# predicts for the calibrator by the targets it was given (`unfitted`, `null_prediction`,
# `calibrate_unfitted`), so that the first batch gets finite intervals as a sequential
# forest's first rows do. It learns a batch (`learn`): with
# neither detectors nor a calibrator, through the grove (`_grove.pxd`); else row by row for a
# sequential forest (`_aggregator.pxd`), or from the kept answers. A part of the forest core
# (`_forest.pxd`), which calls it under the model's lock; it owns its saved keys (`n_batches`,
# `batch_size`, `pending_rows`, `pending_targets`) and their check.

from ._aggregator cimport Aggregate
from ._conformal cimport Calibrator
from ._features cimport FeatureRegistry
from ._grove cimport Grove


cdef class Batcher:
    cdef readonly Py_ssize_t size        # rows a batch holds (0: learn_one learns at once)
    cdef readonly long long n_batches    # batches learned (learn_many calls, full buffers)
    cdef list rows                       # buffered rows (registry order, their width then)
    cdef list targets                    # their encoded targets
    cdef object X                        # the last predicted batch's rows (a copy; small
                                         # batches only, see `predict`)
    cdef object pred                     # (rows, trees): each tree's class or mean
    cdef object agg                      # (rows, 2): the forest's mean and variance, for the
                                         # interval calibrator (regression)
    cdef Py_ssize_t nout                 # that prediction's number of outputs
    cdef long long version               # the forest's `version` then (-1: none kept)

    cdef bint add(self, double* x, Py_ssize_t n_features, double target) except -1
    cdef object take(self)
    cdef int drop(self) except -1
    cdef int learned(self) except -1
    cdef object predict(self, Aggregate* a, Grove grove, Calibrator calibrator,
                        const double[:, ::1] X, Py_ssize_t n_out, bint vote, bint classifier)
    cdef bint knows(self, object X, Py_ssize_t n_out, long long version) except -1
    cdef bint unfitted(self, Grove grove, Calibrator calibrator)
    cdef bint null_prediction(self, double* mean) except -1
    cdef int calibrate_unfitted(self, Calibrator calibrator, const double[:, ::1] rows,
                                const double[::1] targets, Py_ssize_t before) except -1
    cdef int calibrate_last(self, Calibrator calibrator) except -1
    cdef int learn(self, Aggregate* a, Grove grove, FeatureRegistry features,
                   Calibrator calibrator, object X, object y, Py_ssize_t n_out, bint vote,
                   bint classifier, object executor, Py_ssize_t n_tasks,
                   object make_tree, bint buffered) except -1
    cdef dict state(self)
    cdef int set_state(self, dict state) except -1
