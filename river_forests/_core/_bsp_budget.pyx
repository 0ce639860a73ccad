"""The BSP tree under its byte budget (see `_bsp_budget.pxd`)."""

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree, block_cells
from ._pool cimport pool_grow_cells, pool_release
from ._tree cimport NO_BYTE_CAP, Tree
from ._tree_table cimport nbytes, row_bytes


cdef bint nodes_fit(BSPTree t, int32_t k) noexcept nogil:
    """The base's rule, and under a byte budget room for the new nodes' hulls too (a
    node's hulls live in a pool, outside its row)."""
    if not Tree.can_add(t, k):
        return False
    if t.max_bytes >= NO_BYTE_CAP or t.hulls.live == 0:
        return True
    return <long long>(nbytes(t) + k * row_bytes(t) + sizeof(double)
                       * pool_grow_cells(&t.hulls, k * block_cells(t))) <= t.max_bytes


cdef bint points_fit(BSPTree t, size_t point_cells, size_t target_cells) noexcept nogil:
    """Whether blocks of these cells fit in the byte budget, the pools' repacking into a
    larger buffer included (`pool_alloc`: a quarter of the live cells more)."""
    cdef size_t extra = pool_grow_cells(&t.points, point_cells) \
        + pool_grow_cells(&t.targets, target_cells)
    return <long long>(nbytes(t) + extra * sizeof(double)) <= t.max_bytes


cdef int grow_out(BSPTree t) except -1 nogil:
    """A tree at its node cap (or over its byte budget) cannot cut any more: its leaves'
    points and every node's hulls, which serve only to cut, are of no use. Routing and
    prediction read the cuts and the statistics alone. (Most of a tree's bytes go: on elec,
    5.0 MB down to 1.0.)

    The tree is grown out for good (`grown_out`): the bytes freed would let `can_add`
    pass again, but a node's hulls are then no longer those of its points (a hull rebuilt
    from the points after the drop is a sliver of the node's data), and a cut drawn on
    them is not the paper's. Before 0.3.x the tree went on cutting: the first points after
    a drop grew one-point hulls on every node of their path, the next point outside such
    a hull inserted a parent (GenCutNotCross) whose line crossed the node's data, with a
    fresh leaf on x's side near the root, which the next drop froze there. Such leaves
    took most of the stream, and accuracy fell as the stream went on."""
    cdef int32_t j
    t.grown_out = True
    pool_release(&t.points)
    pool_release(&t.targets)
    pool_release(&t.hulls)
    for j in range(t.n_nodes):
        t.stored[j] = 0
    t.recompute_rates()  # every leaf's rate is 0 without its hulls: the clock stops
    return 0
