"""Each node's hulls in the BSP tree (see `_bsp_hulls.pxd`)."""

cdef enum:
    HULL_SLACK = 2  # vertices a pair a new hull block has room for past its hulls

from libc.math cimport floor, isfinite
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ._box cimport outside, padded, round_down, round_up
from ._bsp cimport BSPTree, block_cells, hull_vertices, region
from ._bsp_pairs cimport load_pairs
from ._hull cimport hull_add, hull_build, hull_contains, hull_perimeter, hull_reduce
from ._pool cimport pool_alloc, pool_block, pool_free, pool_has


cdef int set_hulls(BSPTree t, int32_t node, const double* block, size_t cells) except -1 nogil:
    """Store `block` (scratch, never the pool's own cells) as the node's hulls: in place
    when they fit the node's block (its cells past them zeroed), else in a new block with
    room for `HULL_SLACK` more vertices a pair (at most the largest block). A hull grows by
    a vertex at a time, at every node a point lands outside of: without the room, each
    growth moved the block and left a hole the pool compacts away, a copy of every hull."""
    cdef double* dst
    cdef size_t room
    if cells == 0:  # no pair: nothing to keep
        return pool_free(&t.hulls, node)
    if pool_has(&t.hulls, node) and <size_t>t.hulls.rows[node] >= cells:
        dst = pool_block(&t.hulls, node)
        room = <size_t>t.hulls.rows[node]
        if room > cells:
            memset(dst + cells, 0, (room - cells) * sizeof(double))
    else:
        room = cells + 2 * HULL_SLACK * <size_t>t.n_pairs
        if room > block_cells(t):
            room = cells if cells > block_cells(t) else block_cells(t)
        dst = pool_alloc(&t.hulls, node, <int32_t>room)
    memcpy(dst, block, cells * sizeof(double))
    return 0


cdef int reset_hulls(BSPTree t, const int32_t* keep, int32_t old_pairs) except -1 nogil:
    """Lay every node's hulls out for the current pairs: entry p is kept where p <
    old_pairs and keep[p], else empty (a pair new to the tree, or a slot replaced); the
    rates follow. The scratch must be ready (`BSPTree.ensure_work`)."""
    cdef int32_t j, p, m
    cdef size_t at, pos
    cdef const double* src
    cdef double* out = region(t, 0)
    for j in range(t.n_nodes):
        at = 0
        pos = 0
        if not pool_has(&t.hulls, j):
            continue  # dropped at the node cap (a new node gets its hulls as it is made)
        src = pool_block(&t.hulls, j)
        for p in range(t.n_pairs):
            m = 0
            if src != NULL and p < old_pairs:
                m = <int32_t>src[pos]
                if keep[p]:
                    memcpy(out + at, src + pos, entry_cells(m) * sizeof(double))
                pos += entry_cells(m)
                if keep[p]:
                    at += entry_cells(m)
                    continue
            out[at] = 0.0
            at += 1
        set_hulls(t, j, out, at)
    t.recompute_rates()
    return 0


cdef int clear_slot_hulls(BSPTree t, int32_t slot) except -1 nogil:
    """The feature in `slot` leaves the subspace: every node forgets its hulls on the pairs
    that hold the slot (the pairs stay, their hulls start again empty)."""
    cdef int32_t* keep
    cdef int32_t p
    if t.pair_a == NULL:
        load_pairs(t)
    keep = <int32_t*>malloc((<size_t>t.n_pairs + 1) * sizeof(int32_t))
    if keep == NULL:
        with gil:
            raise MemoryError()
    for p in range(t.n_pairs):
        keep[p] = t.pair_a[p] != slot and t.pair_b[p] != slot
    t.ensure_work()
    reset_hulls(t, keep, t.n_pairs)
    free(keep)
    return 0


cdef int point_hulls(BSPTree t, int32_t node, const double* pts, int32_t n) except -1 nogil:
    """The node's hulls (and box) from `n` raw points (rows of `feature_capacity` slot
    values): what a child of a cut knows of its side."""
    cdef double* out = region(t, 1)
    cdef double* work = region(t, 4)
    cdef double* buf = work + 4 * <size_t>n + 4
    cdef size_t at = 0, fc = t.feature_capacity
    cdef size_t row = <size_t>node * fc
    cdef int32_t p, i, k, m, a, b, d
    cdef double va, vb, v
    for p in range(t.n_pairs):
        a = t.pair_a[p]
        b = t.pair_b[p]
        k = 0
        for i in range(n):
            va = pts[<size_t>i * fc + a]
            vb = pts[<size_t>i * fc + b]
            if va == va and vb == vb:
                buf[2 * k] = va - t.inp.origin[a]
                buf[2 * k + 1] = vb - t.inp.origin[b]
                k += 1
        m = hull_build(buf, k, work)
        if m > hull_vertices(t):
            m = hull_reduce(work, m, hull_vertices(t))
        out[at] = m
        memcpy(out + at + 1, work, 2 * <size_t>m * sizeof(double))
        at += entry_cells(m)
    set_hulls(t, node, out, at)
    for i in range(n):
        for d in range(t.n_features):
            v = pts[<size_t>i * fc + d] - t.inp.origin[d]
            if v == v:
                if round_down(v) < t.lower[row + d]:
                    t.lower[row + d] = round_down(v)
                if round_up(v) > t.upper[row + d]:
                    t.upper[row + d] = round_up(v)
    return 0


cdef size_t point_block(BSPTree t, const double* xs, double* out) noexcept nogil:
    """The hulls of the point xs (relative to `origin`) alone, into `out`: one vertex on each
    pair where it has both values, an empty hull where one is missing. Returns the cells."""
    cdef size_t at = 0
    cdef int32_t p
    for p in range(t.n_pairs):
        if xs[t.pair_a[p]] == xs[t.pair_a[p]] and xs[t.pair_b[p]] == xs[t.pair_b[p]]:
            out[at] = 1.0
            out[at + 1] = xs[t.pair_a[p]]
            out[at + 2] = xs[t.pair_b[p]]
            at += 3
        else:
            out[at] = 0.0
            at += 1
    return at


cdef double pair_perimeters(BSPTree t, const double* src, double* per) noexcept nogil:
    """The perimeter of each hull of the block `src` in root units (0 for a point or none),
    into per[p] unless `per` is NULL; returns their sum."""
    cdef size_t pos = 0
    cdef int32_t p, m
    cdef double total = 0.0, length
    for p in range(t.n_pairs):
        m = <int32_t>src[pos]
        length = hull_perimeter(src + pos + 1, m, t.inp.scale[t.pair_a[p]],
                                t.inp.scale[t.pair_b[p]]) if m >= 2 else 0.0
        if per != NULL:
            per[p] = length
        total += length
        pos += entry_cells(m)
    return total


cdef double hull_rate(BSPTree t, int32_t node) noexcept nogil:
    """Half the sum of the node's hull perimeters, in root units: the rate of its cuts."""
    if not pool_has(&t.hulls, node):
        return 0.0
    return 0.5 * pair_perimeters(t, pool_block(&t.hulls, node), NULL)


cdef bint holds(BSPTree t, int32_t node, const double* xs) noexcept nogil:
    """Whether every hull of the node holds the point xs (a missing value holds), for the
    sample being learned (xs is `shifted`). A point outside the node's box is outside its
    hulls, whose vertices are the points the box holds: that test costs a pass over the
    features, the exact one a pass over every hull's vertices. (A hull past
    `max_hull_vertices` is a superset that may stick out of the box by a sliver; a point
    there is then taken as outside, and `extended` finds it inside, growing nothing.)"""
    cdef const double* src
    cdef size_t pos = 0, row = <size_t>node * t.feature_capacity
    cdef int32_t p, m
    cdef double qa, qb
    if not pool_has(&t.hulls, node):
        return t.n_pairs == 0
    if outside(t.below, t.above, t.lower + row, t.upper + row, padded(t.n_features)):
        return False
    src = pool_block(&t.hulls, node)
    for p in range(t.n_pairs):
        m = <int32_t>src[pos]
        qa = xs[t.pair_a[p]]
        qb = xs[t.pair_b[p]]
        if qa == qa and qb == qb and not hull_contains(src + pos + 1, m, qa, qb):
            return False
        pos += entry_cells(m)
    return True


cdef int32_t extended(BSPTree t, int32_t node, const double* xs, double* block, double* delta,
                      double* rate, bint* grown, bint tested) except -1 nogil:
    """The node's hulls with the point xs (relative to `origin`) added, into `block`;
    delta[p] the perimeter increase of pair p (root units), rate[0] half their sum,
    grown[0] whether some hull grew. Returns the cells written (0, `block` untouched,
    when x lies in every hull). `tested`: the caller found `holds` false already."""
    cdef const double* src = pool_block(&t.hulls, node) if pool_has(&t.hulls, node) else NULL
    cdef double* work = region(t, 4)
    cdef size_t pos = 0, at = 0
    cdef int32_t p, m, k, a, b
    cdef double qa, qb, after
    rate[0] = 0.0
    grown[0] = False
    if src != NULL and not tested and holds(t, node, xs):
        return 0  # the common case: nothing to copy
    for p in range(t.n_pairs):
        m = <int32_t>src[pos] if src != NULL else 0
        a = t.pair_a[p]
        b = t.pair_b[p]
        qa = xs[a]
        qb = xs[b]
        delta[p] = 0.0
        if qa != qa or qb != qb or hull_contains(src + pos + 1 if src != NULL else NULL, m, qa, qb):
            block[at] = m
            if m > 0:
                memcpy(block + at + 1, src + pos + 1, 2 * <size_t>m * sizeof(double))
            at += entry_cells(m)
        else:
            grown[0] = True
            k = hull_add(src + pos + 1 if src != NULL else NULL, m, qa, qb, t.inp.scale[a],
                         t.inp.scale[b], work, &after)
            if after > 0.0:
                delta[p] = after
                rate[0] += 0.5 * after
            if k > hull_vertices(t):
                k = hull_reduce(work, k, hull_vertices(t))
            block[at] = k
            memcpy(block + at + 1, work, 2 * <size_t>k * sizeof(double))
            at += entry_cells(k)
        pos += entry_cells(m)
    return <int32_t>at


def check_hulls(const double[::1] data, const long long[::1] offsets, const int32_t[::1] rows,
                Py_ssize_t n_pairs, Py_ssize_t max_vertices):
    """Each live block of the hulls pool: one entry a pair (a vertex count m in [0,
    max_vertices], then 2m finite coordinates), within the block (`BSPTree.check_kind_state`;
    the pool check put every block inside `data`)."""
    cdef Py_ssize_t j, p, pos, end, k
    cdef double m
    for j in range(rows.shape[0]):
        if rows[j] < 0:
            continue
        pos = offsets[j]
        end = offsets[j] + rows[j]
        for p in range(n_pairs):
            if pos >= end:
                raise ValueError("a node's hulls are shorter than its pairs")
            m = data[pos]
            if not (0 <= m <= max_vertices and m == floor(m)):
                raise ValueError("a hull's vertex count is out of range")
            if pos + 1 + 2 * <Py_ssize_t>m > end:
                raise ValueError("a node's hulls overrun their block")
            for k in range(pos + 1, pos + 1 + 2 * <Py_ssize_t>m):
                if not isfinite(data[k]):
                    raise ValueError("a node's hull holds NaN or infinity")
            pos += 1 + 2 * <Py_ssize_t>m
