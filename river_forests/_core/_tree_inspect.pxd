# What a tree shows of itself, for Python (`_inspect.py`'s `debug_one` and `draw`, tests,
# ): the Tree methods of these names call these. None is on a
# learning or predicting path of the forest.

from libc.stdint cimport int32_t

from ._tree cimport Tree

# the nodes `x` (a row in registry order) goes through, root first
cdef list tree_walk(Tree tree, const double[::1] x)
# node `j`'s parent, children, cut, weight, statistics and decayed credit
cdef dict tree_node(Tree tree, int32_t j)
# the smoothed estimate the predictions read at node `j`
cdef object tree_estimate(Tree tree, int32_t j, int32_t n_out)
# the tree's estimate of every row of `X` (`n_out` values a row)
cdef object tree_predict_rows(Tree tree, const double[:, ::1] X, int32_t n_out)
