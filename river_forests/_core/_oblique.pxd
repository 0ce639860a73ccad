# The oblique router: a node cuts a pair of features along a line, x goes left when
# coef_a * x[feature] + coef_b * x[feature_b] <= threshold. Inlined into the walks of the
# kinds that cut this way (BSP), as `_axis.child` is into the axis-aligned ones; the saved
# state says "oblique" (`split`), and the partition pictures read it.

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree


cdef inline bint goes_left(double ca, double cb, double threshold, double va,
                           double vb) noexcept nogil:
    """The side of a cut, written once: the walk and the redistribution of a leaf's kept
    points at a cut must agree to the last bit."""
    return ca * va + cb * vb <= threshold


cdef inline int32_t child(BSPTree tree, int32_t node, const double* x) noexcept nogil:
    """The child of interior `node` that `x` goes to. A missing value of either feature sends
    x to the child that has seen more weight (the rule of `_axis.child`)."""
    cdef double va = x[tree.feature[node]]
    cdef double vb = x[tree.feature_b[node]]
    cdef int32_t l = tree.left[node]
    cdef int32_t r = tree.right[node]
    if va != va or vb != vb:
        return l if tree.weight[l] >= tree.weight[r] else r
    return l if goes_left(tree.coef_a[node], tree.coef_b[node], tree.threshold[node], va, vb) else r
