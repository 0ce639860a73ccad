"""The BSP tree under its byte budget (see `_bsp_budget.pxd`)."""

cdef enum:
    MIN_CAP = 8  # the fewest points a leaf, or vertices a hull, the budget brings them to

from libc.stdint cimport int32_t

from libc.string cimport memcpy

from ._bsp cimport BSPTree, hull_vertices, leaf_points, region
from ._bsp_hulls cimport entry_cells
from ._hull cimport hull_reduce
from ._pool cimport (pool_alloc, pool_block, pool_grow_cells, pool_has, pool_release,
                     pool_relayout)
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
                       * pool_grow_cells(&t.hulls, k * capped_cells(t))) <= t.max_bytes


cdef inline size_t capped_cells(BSPTree t) noexcept nogil:
    """Cells of the largest hull block at the vertex cap in force."""
    return <size_t>t.n_pairs * (1 + 2 * <size_t>hull_vertices(t)) + 1


cdef bint make_room(BSPTree t) except -1 nogil:
    """Over the byte budget, before a tree stops cutting: halve the points a leaf keeps or
    the vertices a hull keeps (whichever pool holds more bytes, while its cap is above
    `MIN_CAP`), every leaf and node brought down at once, until two new nodes fit. So a
    tree spends its budget on nodes as long as its hulls and kept points can give room, and
    its hulls stay supersets of its nodes' data, on which the cuts stay the paper's. Returns
    whether two new nodes fit (else the tree grows out, `grow_out`)."""
    cdef int32_t points, vertices
    if not Tree.can_add(t, 2):  # the node cap, which no byte given back lifts
        return False
    while not t.can_add(2):
        points = leaf_points(t)
        vertices = hull_vertices(t)
        if points > MIN_CAP and (vertices <= MIN_CAP
                                 or t.points.live + t.targets.live >= t.hulls.live):
            t.point_cap = points // 2 if points // 2 > MIN_CAP else MIN_CAP
            shrink_points(t)
        elif vertices > MIN_CAP:
            t.vertex_cap = vertices // 2 if vertices // 2 > MIN_CAP else MIN_CAP
            shrink_hulls(t)
        else:
            return False
    return True


cdef int shrink_points(BSPTree t) except -1 nogil:
    """Every leaf keeps at most `leaf_points` points: the first of its rows, a uniform sample
    of the leaf's points since its rows are (reservoir sampling), in a block of that size."""
    cdef int32_t j, n, cap = leaf_points(t)
    cdef size_t fc = t.feature_capacity
    cdef double* pts = region(t, 3)
    cdef double* tg = pts + <size_t>t.max_leaf_points * fc
    cdef double* dst
    for j in range(t.n_nodes):
        n = t.stored[j]
        if not pool_has(&t.points, j) or t.points.rows[j] <= cap:
            continue
        if n > cap:
            n = cap
        memcpy(pts, pool_block(&t.points, j), <size_t>n * fc * sizeof(double))
        memcpy(tg, pool_block(&t.targets, j), 2 * <size_t>n * sizeof(double))
        dst = pool_alloc(&t.points, j, cap)
        memcpy(dst, pts, <size_t>n * fc * sizeof(double))
        dst = pool_alloc(&t.targets, j, 2 * cap)
        memcpy(dst, tg, 2 * <size_t>n * sizeof(double))
        t.stored[j] = n
    # the bytes given back: the pools packed, with the spare room of a repacking (so that
    # the next blocks need no larger buffer, `pool_grow_cells`)
    pool_relayout(&t.points, t.points.stride, t.points.live // 4 + 64)
    pool_relayout(&t.targets, t.targets.stride, t.targets.live // 4 + 64)
    return 0


cdef int shrink_hulls(BSPTree t) except -1 nogil:
    """Every hull keeps at most `hull_vertices` vertices (a superset of the larger, as
    `_hull.hull_reduce` makes it), each node's in a block of its size; the rates follow."""
    cdef int32_t j, p, m, cap = hull_vertices(t)
    cdef size_t pos, at
    cdef const double* src
    cdef double* out = region(t, 0)
    cdef double* work = region(t, 4)
    cdef double* dst
    for j in range(t.n_nodes):
        if not pool_has(&t.hulls, j):
            continue
        src = pool_block(&t.hulls, j)
        pos = 0
        at = 0
        for p in range(t.n_pairs):
            m = <int32_t>src[pos]
            memcpy(work, src + pos + 1, 2 * <size_t>m * sizeof(double))
            pos += entry_cells(m)
            if m > cap:
                m = hull_reduce(work, m, cap)
            out[at] = m
            memcpy(out + at + 1, work, 2 * <size_t>m * sizeof(double))
            at += entry_cells(m)
        dst = pool_alloc(&t.hulls, j, <int32_t>at)
        memcpy(dst, out, at * sizeof(double))
    pool_relayout(&t.hulls, t.hulls.stride, t.hulls.live // 4 + 64)
    t.recompute_rates()
    return 0


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
