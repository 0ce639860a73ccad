# The stream-partitioning tree's bounded fringe (denil2013, section 3.6): the leaves that
# collect candidate splits (active, each with a fringe slot: one block in each of the tree's
# pools), the inactive ones ranked by s(A) = p(A) e(A), and the policy that moves leaves in
# and out, for a fixed cap (`max_active`) or one set by the byte budget (`FRINGE_AUTO`).

from libc.stdint cimport int32_t

from ._stream_partition cimport StreamPartitionTree

# s(A) = p(A) e(A) of leaf `node`, from the estimation points it has seen since it began
cdef double leaf_score(StreamPartitionTree tree, int32_t node) noexcept nogil
# the fringe slot of leaf `node`, giving it one if there is room (-1: none)
cdef int32_t fringe_slot(StreamPartitionTree tree, int32_t node) except -2 nogil
# take leaf `node` out of the fringe (its blocks freed; it keeps its class histogram)
cdef int fringe_leave(StreamPartitionTree tree, int32_t node) except -1 nogil
# every leaf out of the fringe (a tree over its budget or at its node cap)
cdef int fringe_empty(StreamPartitionTree tree) except -1 nogil
# fill the fringe's free places with the inactive leaves of largest s(A) (after a split)
cdef int fringe_refill(StreamPartitionTree tree) except -1 nogil
# the auto fringe's periodic review, after a sample that took the estimation weight from
# `before` to the tree's `n_estimation`
cdef int fringe_review(StreamPartitionTree tree, double before) except -1 nogil
# a refit's start: forget the fringe's label statistics (its candidate thresholds stay)
cdef int fringe_clear(StreamPartitionTree tree) except -1 nogil
