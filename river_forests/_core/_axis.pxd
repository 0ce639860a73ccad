# The axis-aligned router: a node cuts one feature at a threshold. Inlined into the walks of
# the tree kinds that cut this way (a virtual call per node would cost as much as the work).
# A kind with other cuts (BSP's oblique ones) brings its own router and overrides
# `Tree.descend`; the saved state names the router (`"split"`), and the partition pictures
# read it.

from libc.stdint cimport int32_t

from ._tree cimport Tree


cdef inline int32_t child(Tree tree, int32_t node, const double* x) noexcept nogil:
    """The child of interior `node` that `x` goes to: left when x[feature] <= threshold.

    A missing value goes to the child that has seen more weight: the one rule every kind
    uses for missing values, written here once."""
    cdef double v = x[tree.feature[node]]
    cdef int32_t l = tree.left[node]
    cdef int32_t r = tree.right[node]
    if v != v:
        return l if tree.weight[l] >= tree.weight[r] else r
    return l if v <= tree.threshold[node] else r
