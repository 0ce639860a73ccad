"""Feature importances (`_tree.pxd`, the `gain` array): each interior node's decayed credit
for what its split did for the predictions, given by a sample one in CREDIT_EVERY as the tree
learns it (`credit`, `age_gain`, called from `Tree.learn_sample` and XForest's batches), and
added up by registry column for the forest (`tree_add_importances`).
"""

from libc.stdint cimport int32_t

from ._tree cimport RF_PREFETCH, TASK_CLASSIFICATION, Tree


cdef int age_gain(Tree tree) except -1 nogil:
    """One sample offered: every credit so far weighs 2^(-1 / halflife) less (lazily: later
    credits weigh `gain_growth` times more), the array divided down now and then."""
    cdef int32_t j
    cdef float inv
    tree.gain_unit *= tree.gain_growth
    if tree.gain_unit > 1e15:
        inv = <float>(1.0 / tree.gain_unit)
        for j in range(tree.n_nodes):
            tree.gain[j] *= inv
        tree.gain_unit = 1.0
    return 0


cdef int credit(Tree tree, int32_t depth, double y, double w) except -1 nogil:
    """Credit each interior node of `path[:depth]` (the walk of a sample of target `y` and
    weight `w`, before the tree learns it) with what its split did for the sample: the
    loss of the node's estimate less that of its child's, the estimates being the
    smoothed path estimates the predictions read (`blend_path`, for the sample's class or
    the mean). The loss is 1 - p(y) for a classifier, whose sum over a node's samples is
    the node's weight times its Gini impurity, so that a node's credit is its split's
    weighted Gini decrease, measured on each sample before it is learned; and the squared
    error over the root's variance for a regressor (a variance decrease, free of the
    target's units). The walk's credits stop at the first node that has seen no data (the
    nodes below it have seen none either: the statistics rule)."""
    cdef int32_t k, j, c = 0
    cdef double a = tree.smoothing, est = 0.0, loss, prev = 0.0, nj, t, n0, inv, inv_var = 0.0
    cdef double unit = w * tree.gain_unit
    cdef const double* v
    cdef bint have = False, clf = tree.task == TASK_CLASSIFICATION
    if clf:
        c = <int32_t>y
    else:
        j = tree.path[0]
        n0 = tree.weight[j]
        if n0 <= 0.0:
            return 0
        v = tree.value + <size_t>j * tree.value_stride
        t = v[1] / n0 - (v[0] / n0) * (v[0] / n0)
        if not t > 1e-12 * (v[1] / n0 + 1e-300):
            return 0  # every target so far the same: nothing to explain
        inv_var = 1.0 / t
    for k in range(depth):  # the rows the loop reads, asked for at once (their misses overlap)
        j = tree.path[k]
        RF_PREFETCH(tree.gain + j)
        RF_PREFETCH(tree.weight + j)
        RF_PREFETCH(tree.value + <size_t>j * tree.value_stride + c)
    for k in range(depth):
        j = tree.path[k]
        nj = tree.weight[j]
        if nj <= 0.0:
            break  # the nodes below an empty node are empty (the statistics rule)
        v = tree.value + <size_t>j * tree.value_stride
        t = v[c] if clf else v[0]
        if have:  # as `blend_path`: the reciprocal off the chain of dependent updates
            inv = 1.0 / (nj + a)
            est = (t + a * est) * inv
        else:
            est = t / nj
        loss = (1.0 - est) if clf else (y - est) * (y - est) * inv_var
        if have:
            tree.gain[tree.path[k - 1]] += <float>(unit * (prev - loss))
        prev = loss
        have = True
    return 0


cdef int tree_add_importances(Tree tree, double[::1] out) except -1:
    """Add each interior node's decayed credit (`credit`) to the registry columns its split
    cuts on, `out` being one cell a registry column; background of
    `ForestCore.importances`."""
    cdef int32_t j, k, n
    cdef int32_t cols[2]
    cdef double shares[2]
    cdef double inv = 1.0 / tree.gain_unit
    cdef Py_ssize_t width = out.shape[0]
    for j in range(tree.n_nodes):
        if tree.left[j] < 0 or tree.gain[j] == 0.0:
            continue
        n = tree.split_columns(j, cols, shares)
        for k in range(n):
            if 0 <= cols[k] < width:
                out[cols[k]] += tree.gain[j] * inv * shares[k]
    return 0
