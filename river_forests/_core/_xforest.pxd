# The extremely simple streaming tree of Xu et al. (XTree, algorithm 1): a batch of labelled
# rows grows the tree at the leaves it reaches ("false roots"), each split the best impurity
# split of the batch rows at the node among a few random features (the shared best-split
# search, `_splitter.pxd`): gini or entropy for a classifier, the squared error (CART's
# regression criterion) for a regressor. Existing splits never change. The tree's own state is the base's
# node arrays (and a regressor's linear leaves, `_leaf_linear`, stepped by the batch's rows in
# order along their paths, where the means count them).

from libc.stdint cimport int32_t

from ._leaf_linear cimport LinearTree
from ._pool cimport Pool

cdef enum:
    # how many features a split tries, from the tree's d features (scikit-learn's max_features)
    TRY_COUNT = 0        # min(split_features, d)
    TRY_SQRT = 1         # floor(sqrt(d))
    TRY_LOG2 = 2         # floor(log2(d))
    TRY_FRACTION = 3     # floor(split_features * d)
    TRY_ALL = 4          # d
    # (each at least 1)


cdef class XTree(LinearTree):
    # --- parameters ---
    cdef int32_t min_samples_split  # a node splits only if at least this many distinct batch
                                    # rows reach it (scikit-learn's min_samples_split, >= 2)
    cdef int32_t max_depth          # nodes at this depth stay leaves (root: depth 0); 0: no limit
    cdef int split_features_mode    # TRY_*
    cdef int32_t kept_rows          # rows a leaf keeps from the batches that did not split it,
                                    # to grow from with the next batch's (0: none, the paper's;
                                    # beside the mode: two ints fill 8 bytes, no padding)
    cdef double split_features      # the count (TRY_COUNT) or fraction (TRY_FRACTION)
    cdef int criterion              # _impurity.CRITERION_GINI or _ENTROPY (classification),
                                    # CRITERION_MSE (regression; the task's default)
    cdef bint bootstrap             # each batch is resampled with replacement (algorithm 2)

    # --- kept rows (kept_rows > 0) ---
    cdef Pool points                # per leaf: its kept rows, a row of `feature_capacity` slots
    cdef Pool targets               # per leaf: (y, w) of each kept row, two cells a row
    cdef int32_t n_kept_slots       # slots the kept rows have a value (or NaN) for
    cdef int32_t n_input_cols       # linear leaves: cells a slot of the input's arrays (1, or 0;
                                    # saved as `input_cols`; in padding before a long long)

    # --- counters ---
    cdef long long n_batches        # batches learned
    cdef int32_t n_splits           # splits made

    # --- linear leaves (a regressor's; `LinearTree`): the input's own range, no box here ---
    cdef double* low                # per slot: the lowest x - origin seen (`n_input_cols` cells:
                                    # none without linear leaves, as the input's other arrays)
    cdef double* high               # per slot: the highest x - origin seen

    cdef int32_t n_try(self) noexcept nogil
    cdef int grow(self, const double[:, ::1] X, const double[::1] y) except -1 nogil
    cdef int sync_kept(self) except -1 nogil
    cdef int drop_kept(self) except -1 nogil
    cdef int32_t n_kept(self) noexcept nogil
