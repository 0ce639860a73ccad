# The best-split search of the trees that split on a batch of labelled rows (XForest's CART
# splits, classification and regression): for a node's rows, try features drawn at random
# and, in each, every threshold between consecutive distinct sorted values, scoring both
# sides with the shared impurity kernels (`_impurity.pxd`: gini, entropy, squared error).
# Written once here, as scikit-learn keeps its Splitter apart from its trees. Scratch lives
# in a `Splitter` a tree sets up for one batch and releases after it: nothing per node,
# nothing kept between batches.

from libc.stdint cimport int32_t

from ._random cimport RNG

ctypedef struct SortItem:
    double value            # the row's value in the feature tried
    int32_t row             # the row's index in the batch


ctypedef struct SplitRecord:
    int32_t column          # registry column of the best split, -1 if no feature can split
    double threshold        # x[column] <= threshold goes left
    double gain             # impurity (or variance) decrease, over the rows with a value in
                            # `column`
    int32_t n_tried         # features whose values were sorted and scanned


ctypedef struct Splitter:
    SortItem* items         # one per row of the batch
    double* left            # the two sides' statistics during a scan: class histograms, or
    double* right           # (weight, weighted sum of centred targets) for CRITERION_MSE
    int32_t* order          # the tree's feature slots, shuffled as they are drawn
    int32_t n_rows          # rows the buffers hold
    int32_t n_classes       # cells `left` and `right` hold (classes; >= 2 for CRITERION_MSE)
    int32_t n_slots         # slots `order` holds


cdef int splitter_init(Splitter* s, int32_t n_rows, int32_t n_classes, int32_t n_slots) except -1 nogil
cdef void splitter_release(Splitter* s) noexcept nogil

cdef int best_split(Splitter* s, const double* X, Py_ssize_t row_stride,
                    const int32_t* rows, int32_t n_rows, const double* y, const double* w,
                    int32_t n_classes, const int32_t* columns, int32_t n_slots, int32_t n_try,
                    int criterion, RNG* rng, SplitRecord* out) except -1 nogil
