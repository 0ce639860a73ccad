"""The points a leaf of the BSP tree keeps (see `_bsp_points.pxd`)."""

from libc.math cimport NAN, floor, isfinite
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from ._bsp cimport BSPTree, leaf_points, region
from ._bsp_budget cimport points_fit
from ._bsp_cuts cimport Cut
from ._bsp_hulls cimport point_hulls
from ._oblique cimport goes_left
from ._pool cimport pool_alloc, pool_block, pool_fill_columns, pool_free, pool_has
from ._random cimport rng_randint
from ._tree cimport NO_BYTE_CAP, add_stats


cdef int sync_points(BSPTree t) except -1 nogil:
    """Kept points have a value for every slot in use: a slot new since they were kept is
    missing for them (NaN)."""
    if t.n_point_slots >= t.n_features:
        return 0
    pool_fill_columns(&t.points, t.stored, t.n_nodes, t.n_point_slots, t.n_features, NAN)
    t.n_point_slots = t.n_features
    return 0


cdef int keep_point(BSPTree t, int32_t node, const double* x, double y, double w) except -1 nogil:
    """Keep the sample in leaf `node` (its count already includes it): appended while the
    leaf keeps fewer than `max_leaf_points`, then by reservoir sampling."""
    cdef int32_t n = t.stored[node], rows, new_rows, d
    cdef size_t fc = t.feature_capacity
    cdef long long k
    cdef double* row
    cdef double* tmp
    cdef double* dst
    cdef int32_t cap = leaf_points(t)
    if not t.can_add(2) or cap <= 0:
        return 0
    if n < cap:
        rows = t.points.rows[node] if pool_has(&t.points, node) else 0
        if n >= rows:
            new_rows = 2 * rows if rows >= 2 else 2
            if new_rows > cap:
                new_rows = cap
            if t.max_bytes < NO_BYTE_CAP and not points_fit(t, new_rows * fc, 2 * new_rows):
                return 0
            tmp = <double*>malloc((<size_t>n * (fc + 2) + 1) * sizeof(double))
            if tmp == NULL:
                with gil:
                    raise MemoryError()
            if n > 0:
                memcpy(tmp, pool_block(&t.points, node), <size_t>n * fc * sizeof(double))
                memcpy(tmp + <size_t>n * fc, pool_block(&t.targets, node),
                       2 * <size_t>n * sizeof(double))
            dst = pool_alloc(&t.points, node, new_rows)
            memcpy(dst, tmp, <size_t>n * fc * sizeof(double))
            dst = pool_alloc(&t.targets, node, 2 * new_rows)
            memcpy(dst, tmp + <size_t>n * fc, 2 * <size_t>n * sizeof(double))
            free(tmp)
        k = n
        t.stored[node] = n + 1
    else:
        k = <long long>rng_randint(&t.rng, <Py_ssize_t>t.count[node])
        if k >= cap:
            return 0
    row = pool_block(&t.points, node) + <size_t>k * fc
    for d in range(t.n_features):
        row[d] = x[t.columns[d]]
    for d in range(t.n_features, <int32_t>fc):
        row[d] = NAN
    row = pool_block(&t.targets, node) + 2 * <size_t>k
    row[0] = y
    row[1] = w
    return 0


cdef int32_t lift_points(BSPTree t, int32_t node) except -1 nogil:
    """Leaf `node`'s kept points into scratch region 3 (their rows, then their (y, w) from
    `max_leaf_points` rows on), out of the pools before a cut allocates its children's
    blocks in them. Returns how many."""
    cdef double* pts = region(t, 3)
    cdef size_t fc = t.feature_capacity
    cdef int32_t n = t.stored[node]
    if n > 0:
        memcpy(pts, pool_block(&t.points, node), <size_t>n * fc * sizeof(double))
        memcpy(pts + <size_t>t.max_leaf_points * fc, pool_block(&t.targets, node),
               2 * <size_t>n * sizeof(double))
    pool_free(&t.points, node)
    pool_free(&t.targets, node)
    t.stored[node] = 0
    return n


cdef int take_points(BSPTree t, int32_t node, const double* pts, const double* tg, int32_t n,
                     double seen) except -1 nogil:
    """A new child of a cut takes its `n` kept points: its hulls, box and count (the
    points the parent saw on this side, estimated from its sample) come from them."""
    cdef double* dst
    cdef size_t fc = t.feature_capacity
    point_hulls(t, node, pts, n)
    t.count[node] = seen if seen > n else n
    if n > 0:
        dst = pool_alloc(&t.points, node, n)
        memcpy(dst, pts, <size_t>n * fc * sizeof(double))
        dst = pool_alloc(&t.targets, node, 2 * n)
        memcpy(dst, tg, 2 * <size_t>n * sizeof(double))
    t.stored[node] = n
    return 0


cdef int deal_points(BSPTree t, int32_t l, int32_t r, int32_t n, double seen,
                     const Cut* cut) except -1 nogil:
    """The `n` points `lift_points` took from a leaf that saw `seen` go to its new children
    `l` and `r`: each where the walk would send it (a missing value to the side heavier so
    far), counted in its statistics, and kept there."""
    cdef size_t fc = t.feature_capacity
    cdef double* pts = region(t, 3)
    cdef double* tg = pts + <size_t>t.max_leaf_points * fc
    cdef double* sides = tg + 2 * <size_t>t.max_leaf_points
    cdef int32_t i, j, p, nl = 0, side
    cdef double va, vb, v
    for i in range(n):
        va = pts[<size_t>i * fc + cut.a]
        vb = pts[<size_t>i * fc + cut.b]
        if va != va or vb != vb:
            side = l if t.weight[l] >= t.weight[r] else r
        else:
            side = l if goes_left(cut.ca, cut.cb, cut.thr, va, vb) else r
        sides[i] = 0.0 if side == l else 1.0
        nl += side == l
        add_stats(t, side, tg[2 * i], tg[2 * i + 1])
    # left points first (a swap partition), then each child takes its share
    i = 0
    j = n - 1
    while i < j:
        if sides[i] == 0.0:
            i += 1
        elif sides[j] == 1.0:
            j -= 1
        else:
            for p in range(<int32_t>fc):
                v = pts[<size_t>i * fc + p]
                pts[<size_t>i * fc + p] = pts[<size_t>j * fc + p]
                pts[<size_t>j * fc + p] = v
            for p in range(2):
                v = tg[2 * i + p]
                tg[2 * i + p] = tg[2 * j + p]
                tg[2 * j + p] = v
            sides[i] = 0.0
            sides[j] = 1.0
    take_points(t, l, pts, tg, nl, floor(seen * nl / n + 0.5) if n > 0 else 0.0)
    take_points(t, r, pts + <size_t>nl * fc, tg + 2 * nl, n - nl,
                floor(seen * (n - nl) / n + 0.5) if n > 0 else 0.0)
    return 0


cdef int clear_targets(BSPTree t) except -1 nogil:
    """Zero every kept point's (y, w): a refit forgets them too (a later cut would count
    them)."""
    cdef int32_t j, i
    cdef double* tg
    for j in range(t.n_nodes):
        if t.stored[j] > 0 and pool_has(&t.targets, j):
            tg = pool_block(&t.targets, j)
            for i in range(2 * t.stored[j]):
                tg[i] = 0.0
    return 0


def check_targets(const double[::1] data, const long long[::1] offsets, const int32_t[::1] stored,
                  Py_ssize_t classes):
    """Each leaf's kept targets (y, w): finite, w >= 0, y a class index below `classes` (a
    classifier's; -1: a regressor's). The blocks were checked to hold them
    (`BSPTree.check_kind_state`)."""
    cdef Py_ssize_t j, i, at
    cdef double y, w
    for j in range(stored.shape[0]):
        if stored[j] <= 0:
            continue
        at = offsets[j]
        for i in range(stored[j]):
            y = data[at + 2 * i]
            w = data[at + 2 * i + 1]
            if not (isfinite(y) and isfinite(w) and w >= 0) or (
                    classes >= 0 and not (0 <= y < classes and y == floor(y))):
                raise ValueError("a kept point's target or weight is not one the tree counts")
