# The stream-partitioning tree's paper splitter (denil2013, sections 3.3 and 3.4, algorithms
# 3-7): a fringe leaf's candidate thresholds are its first m structure points' values in its
# candidate dimensions; each candidate counts the class histograms (regression: the target
# sums) of its two sides, per stream, and the leaf splits at the best valid one.

from libc.stdint cimport int32_t

from ._stream_partition cimport StreamPartitionTree

# a kept sample of weight `w` through the paper's splitter, to the structure stream, the
# estimation stream or both: the path's statistics (and the leaf's linear model: `g` its
# step, the input `z` loaded), the leaf's candidates, perhaps a split
cdef int points_learn(StreamPartitionTree tree, const double* x, double y, double w,
                      bint structure, bint estimation, double g) except -1 nogil
# the candidate of fringe slot `s` to split leaf `node` (at `depth`) at now, or -1
cdef int32_t points_best(StreamPartitionTree tree, int32_t node, int32_t s,
                         int32_t depth) noexcept nogil
