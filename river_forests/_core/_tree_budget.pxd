# A tree under its byte budget (`Tree.max_bytes`, `Tree.node_limit`): nodes given back
# when a width grew past the budget or a kind needs room at its cap. Every function calls
# the kind's hooks (`drop_growth`, `free_twig`) through the tree.

from libc.stdint cimport int32_t

from ._tree cimport Tree

# the most nodes the tree may hold now (`max_nodes`, and the rows its byte budget leaves)
cdef int32_t node_limit(Tree tree) noexcept nogil
# set the tree's byte budget (its share of the forest's, its object included); sheds at once
cdef int set_max_bytes(Tree tree, long long max_bytes) except -1
# back under the byte budget after a width grew (a class, a feature)
cdef int fit_budget(Tree tree) except -1 nogil
# make the `want` twigs that hold the least data leaves again; returns the rows freed
cdef int32_t shed_twigs(Tree tree, int32_t want) except -1 nogil
# make the `n` given twigs leaves again and free their children's rows; returns the rows freed
cdef int32_t collapse(Tree tree, const int32_t* nodes, int32_t n) except -1 nogil
