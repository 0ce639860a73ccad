# The stream-partitioning tree's Gaussian splitter (MOA's Hoeffding tree leaf, on the fringe)
# and the naive Bayes leaves that read its summaries: a fringe leaf keeps per-class Gaussian
# summaries of its candidate features (`_gaussian.pxd`) and splits once the Hoeffding bound
# separates its best feature from the runner-up.

from libc.stdint cimport int32_t

from ._stream_partition cimport StreamPartitionTree

# a kept sample of weight `w` through the Gaussian splitter, to the structure stream, the
# estimation stream or both: adaptive leaves' scores, the path's statistics, the leaf's
# summaries, perhaps a split
cdef int gaussian_learn(StreamPartitionTree tree, const double* x, double y, double w,
                        bint structure, bint estimation) except -1 nogil
# naive Bayes at active leaf `node` (fringe slot `s`): the posterior into `out[:n_out]` (if
# not NULL); returns the most probable class, or -1
cdef int32_t leaf_naive_bayes(StreamPartitionTree tree, int32_t node, int32_t s,
                              const double* x, double* out, int32_t n_out) noexcept nogil
