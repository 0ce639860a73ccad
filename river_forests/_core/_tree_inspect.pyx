"""What a tree shows of itself, for Python: the walk of a row, a node's links, cut,
statistics and credit, the smoothed estimate at a node, its predictions of a batch.
`Tree.walk`, `node`, `estimate` and `predict_rows` are these functions; none runs while the
tree learns.
"""

from libc.stdint cimport int32_t

import numpy as np

from ._tree cimport TASK_CLASSIFICATION, Tree, row_of


cdef object tree_predict_rows(Tree tree, const double[:, ::1] X, int32_t n_out):
    """The tree's estimate of every row of `X` (`n_out` values a row: class probabilities,
    or regression's (mean, mean of y^2)), exactly as the forest reads it, for tests."""
    cdef Py_ssize_t i
    out = np.zeros((X.shape[0], n_out), dtype=np.float64)
    cdef double[:, ::1] view = out
    if tree.root < 0:
        return out
    with nogil:
        for i in range(X.shape[0]):
            tree.predict(row_of(X, i), &view[i, 0], n_out)
    return out


cdef list tree_walk(Tree tree, const double[::1] x):
    """The nodes `x` (a row in registry order) goes through, root first."""
    cdef int32_t depth, k
    if tree.root < 0:
        return []
    depth = tree.descend(&x[0]) if x.shape[0] else tree.descend(<const double*>NULL)
    return [tree.path[k] for k in range(depth)]


cdef dict tree_node(Tree tree, int32_t j):
    """What the base knows of node `j`: its parent and children, its cut (registry
    columns, a threshold, each column's share of the credit), its weight and statistics
    (class weights, or (sum of w*y, sum of w*y^2)) and its decayed credit."""
    cdef int32_t k, n
    cdef int32_t cols[2]
    cdef double shares[2]
    if not 0 <= j < tree.n_nodes:
        raise IndexError(f"node {j} is not one of the tree's {tree.n_nodes} nodes")
    info = {"node": j, "parent": tree.parent[j], "left": tree.left[j], "right": tree.right[j],
            "weight": tree.weight[j],
            "value": [tree.value[<size_t>j * tree.value_stride + k] for k in range(tree.n_values)],
            "gain": tree.gain[j] / tree.gain_unit}
    if tree.left[j] >= 0:
        n = tree.split_columns(j, cols, shares)
        info["columns"] = [cols[k] for k in range(n)]
        info["shares"] = [shares[k] for k in range(n)]
        info["threshold"] = tree.threshold[j]
    return info


cdef object tree_estimate(Tree tree, int32_t j, int32_t n_out):
    """The smoothed estimate the predictions read at node `j` (`blend_path` along the path
    from the root to it): `n_out` class probabilities, or (mean, mean of y^2)."""
    cdef int32_t depth = 0, i = j, k
    if not 0 <= j < tree.n_nodes:
        raise IndexError(f"node {j} is not one of the tree's {tree.n_nodes} nodes")
    out = np.zeros(max(n_out, 2), dtype=np.float64)
    cdef double[::1] view = out
    while i >= 0:
        depth += 1
        i = tree.parent[i]
    i = j
    for k in range(depth - 1, -1, -1):
        tree.path[k] = i
        i = tree.parent[i]
    tree.walk_tag = 0
    tree.reuse = 0
    tree.blend_path(depth, &view[0], n_out)
    return out[:n_out] if tree.task == TASK_CLASSIFICATION else out[:2]
