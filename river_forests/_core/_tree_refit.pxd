# XForest-Zero's refit (Xu et al., section 2.2) for every tree kind: clear the statistics,
# count a batch along its paths, the kind's hooks (`clear_stats`, `refit_sample`,
# `after_refit`); and the nodes in breadth-first order, parents first.

from libc.stdint cimport int32_t

from ._tree cimport Tree

# refit the tree's statistics on the rows of `X` (targets `y`); no node added, no draw
cdef int refit_rows(Tree tree, const double[:, ::1] X, const double[::1] y) except -1
# the nodes breadth first from the root into `order` (n_nodes entries); returns how many
cdef int32_t order_nodes(Tree tree, int32_t* order) noexcept nogil
