# Feature importances: the credit a tree's splits earn as it learns (`Tree.gain`,
# `gain_unit`, `gain_growth`) and its sum by registry column.

from libc.stdint cimport int32_t

from ._tree cimport Tree

# one sample offered: every credit so far weighs 2^(-1 / halflife) less (lazily)
cdef int age_gain(Tree tree) except -1 nogil
# credit the interior nodes of `path[:depth]` with what their splits did for a sample
cdef int credit(Tree tree, int32_t depth, double y, double w) except -1 nogil
# add each interior node's decayed credit to the registry columns its split cuts on
cdef int tree_add_importances(Tree tree, double[::1] out) except -1
