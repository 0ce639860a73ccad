"""XForest-Zero's refit for every tree kind (`Tree.refit_rows`): new statistics from a
batch, the partition kept; and the breadth-first order of the nodes a kind's refit walks
(`order_nodes`).
"""

from libc.stdint cimport int32_t

from ._tree cimport TASK_CLASSIFICATION, Tree, add_stats, row_of
from ._tree_state cimport writable


cdef int refit_rows(Tree tree, const double[:, ::1] X, const double[::1] y) except -1:
    """XForest-Zero's refit (Xu et al., section 2.2), for every kind: clear the statistics
    (`clear_stats`), then count each row (weight 1) along its path by the statistics rule.
    No node is added, no cut moves, the generator is not drawn: only statistics change."""
    writable(tree)
    cdef Py_ssize_t i
    cdef int32_t depth, k, top = 0
    if tree.task == TASK_CLASSIFICATION:
        for i in range(y.shape[0]):
            if <int32_t>y[i] + 1 > top:
                top = <int32_t>y[i] + 1
    with nogil:
        tree.clear_stats()
        tree.ensure_values(top)
        for i in range(X.shape[0] if tree.root >= 0 else 0):
            depth = tree.descend(row_of(X, i))
            for k in range(depth):
                add_stats(tree, tree.path[k], y[i], 1.0)
            tree.refit_sample(row_of(X, i), y[i], depth)
        tree.after_refit()
    return 0


cdef int32_t order_nodes(Tree tree, int32_t* order) noexcept nogil:
    """Write the nodes breadth first from the root (parents before children) into
    `order` (n_nodes entries); returns how many."""
    cdef int32_t head = 0, tail = 0, j
    if tree.root >= 0:
        order[tail] = tree.root
        tail += 1
    while head < tail:
        j = order[head]
        head += 1
        if tree.left[j] >= 0:
            order[tail] = tree.left[j]
            order[tail + 1] = tree.right[j]
            tail += 2
    return tail
