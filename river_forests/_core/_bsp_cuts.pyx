"""The BSP tree's cuts (see `_bsp_cuts.pxd`)."""

from libc.stdint cimport int32_t
from libc.string cimport memcpy

from ._bsp cimport BSPTree, region
from ._bsp_hulls cimport entry_cells, pair_perimeters, point_block, set_hulls
from ._bsp_points cimport deal_points, keep_point, lift_points
from ._hull cimport line_hitting, line_separating
from ._oblique cimport goes_left
from ._pool cimport pool_block
from ._random cimport rng_uniform
from ._boxtree cimport learn_node
from ._leaf_linear cimport model_copy
from ._tree cimport add_stats


cdef int32_t pick_pair(BSPTree t, const double* src, const double* weight, double total,
                       const double** verts, int32_t* nv) noexcept nogil:
    """A pair drawn in proportion to `weight` (one number per pair, `total` their sum),
    with its hull in the node's block `src` (verts[0], nv[0] vertices). The last pair of
    positive weight if rounding runs past the end; -1 if none has any."""
    cdef double u = rng_uniform(&t.rng) * total, acc = 0.0
    cdef size_t pos = 0
    cdef int32_t p, m, picked = -1
    for p in range(t.n_pairs):
        m = <int32_t>src[pos]
        if weight[p] > 0.0:
            picked = p
            verts[0] = src + pos + 1
            nv[0] = m
            acc += weight[p]
            if u < acc:
                break
        pos += entry_cells(m)
    return picked


cdef int axis_hitting(BSPTree t, const double* verts, int32_t nv, int32_t a, int32_t b,
                      Cut* cut, double* off) noexcept nogil:
    """A line along one axis of the pair (a, b) meeting the hull `verts` (nv vertices,
    relative to `origin`): the axis drawn in proportion to the hull's extent along it (root
    units), the position uniformly across that extent, as a Mondrian cut of the hull's
    bounding box. Returns 1 if the hull has no extent."""
    cdef double lo[2]
    cdef double hi[2]
    cdef double ext[2]
    cdef int32_t q, k
    if nv < 2:
        return 1
    for k in range(2):
        lo[k] = verts[k]
        hi[k] = verts[k]
    for q in range(1, nv):
        for k in range(2):
            lo[k] = min(lo[k], verts[2 * q + k])
            hi[k] = max(hi[k], verts[2 * q + k])
    ext[0] = t.inp.scale[a] * (hi[0] - lo[0])
    ext[1] = t.inp.scale[b] * (hi[1] - lo[1])
    if not ext[0] + ext[1] > 0.0:
        return 1
    k = 0 if rng_uniform(&t.rng) * (ext[0] + ext[1]) < ext[0] else 1
    cut.ca = t.inp.scale[a] if k == 0 else 0.0
    cut.cb = t.inp.scale[b] if k == 1 else 0.0
    off[0] = (cut.ca + cut.cb) * (lo[k] + rng_uniform(&t.rng) * (hi[k] - lo[k]))
    return 0


cdef int draw_cut(BSPTree t, const double* src, const double* weight, double total,
                  const double* xs, Cut* cut) noexcept nogil:
    """A cut of the node whose hulls are the block `src`: a pair drawn in proportion to
    `weight`, then a line of the line measure in it (in root units), meeting the pair's hull
    (HullCut) when `xs` is NULL, else separating the hull from the point xs (relative to
    `origin`; GenCutNotCross). A HullCut line is instead along one axis of the pair with
    probability `axis_rate` (`axis_hitting`). The line is then written in raw units. Returns 1 if no line
    could be drawn (no pair of positive weight, or a rounding)."""
    cdef const double* verts = NULL
    cdef int32_t nv = 0, a, b
    cdef int32_t p = pick_pair(t, src, weight, total, &verts, &nv)
    cdef double off
    if p < 0:
        return 1
    a = t.pair_a[p]
    b = t.pair_b[p]
    if xs == NULL and t.axis_rate > 0.0 and rng_uniform(&t.rng) < t.axis_rate:
        if axis_hitting(t, verts, nv, a, b, cut, &off) != 0:
            return 1
    elif xs == NULL:
        if line_hitting(verts, nv, t.inp.scale[a], t.inp.scale[b], region(t, 4), &t.rng,
                        &cut.ca, &cut.cb, &off) != 0:
            return 1
    elif line_separating(verts, nv, xs[a], xs[b], t.inp.scale[a], t.inp.scale[b],
                         region(t, 4), &t.rng, &cut.ca, &cut.cb, &off) != 0:
        return 1
    cut.a = a
    cut.b = b
    cut.thr = off + cut.ca * t.inp.origin[a] + cut.cb * t.inp.origin[b]
    return 0


cdef inline void set_cut(BSPTree t, int32_t node, const Cut* cut, double time) noexcept nogil:
    """Write the cut's line on `node`, cut at `time` (its cost, summed from the root)."""
    t.feature[node] = t.columns[cut.a]
    t.feature_b[node] = t.columns[cut.b]
    t.coef_a[node] = cut.ca
    t.coef_b[node] = cut.cb
    t.threshold[node] = cut.thr
    t.tau[node] = time


cdef int hull_cut(BSPTree t, int32_t node, double time) except -1 nogil:
    """Cut leaf `node` at `time` (HullCut, one level): a pair in proportion to its
    perimeter, a line meeting its hull from the line measure; the kept points go to the
    children, which build their hulls, boxes and statistics from them."""
    cdef const double* src = pool_block(&t.hulls, node)
    cdef double* per = region(t, 2)
    cdef double total = pair_perimeters(t, src, per), seen
    cdef int32_t n, l, r
    cdef Cut cut
    if total <= 0.0:
        return 0
    if draw_cut(t, src, per, total, NULL, &cut) != 0:
        return 0
    # the leaf's points leave the pool before the children's blocks are allocated in it
    seen = t.count[node]
    n = lift_points(t, node)
    l = t.add_children(node, t.columns[cut.a], cut.thr)
    r = l + 1
    set_cut(t, node, &cut, time)
    t.n_cuts += 1
    if t.models.stride > 0:  # linear leaves: the children start from the leaf's model
        model_copy(&t.models, l, node)
        model_copy(&t.models, r, node)
    deal_points(t, l, r, n, seen, &cut)
    t.rate[l] = t.leaf_rate(l)
    t.rate[r] = t.leaf_rate(r)
    t.propagate_rate(node, t.rate[l] + t.rate[r] - t.rate[node])
    return 0


cdef int cut_not_crossing(BSPTree t, int32_t node, const double* x, const double* xs,
                          const double* block, size_t cells, const double* delta,
                          double time, double y, double w, double g) except -1 nogil:
    """Insert a parent above `node`, cut by a line between node's hull and x
    (GenCutNotCross: the pair in proportion to its perimeter increase), with x alone in a
    new leaf on the other side. `block` holds node's hulls with x added: the parent's.
    Returns 1, changing nothing, if no line could be drawn (a rounding). (It returned -1
    before 0.3.0, which the `except -1` declaration read as an error with no exception
    set: a crash, met on telecom-churn with half the budget per tree.)"""
    cdef size_t fc = t.feature_capacity, rj, rp
    cdef int32_t p, q, s
    cdef double total = 0.0
    cdef double* one = region(t, 1)
    cdef Cut cut
    for p in range(t.n_pairs):
        total += delta[p]
    if draw_cut(t, pool_block(&t.hulls, node), delta, total, xs, &cut) != 0:
        return 1
    if goes_left(cut.ca, cut.cb, cut.thr, x[t.columns[cut.a]], x[t.columns[cut.b]]):
        return 1  # x on the line, to the last bit
    q = t.insert_parent(node, True)
    s = t.right[q]
    set_cut(t, q, &cut, time)
    t.n_inserted += 1
    set_hulls(t, q, block, cells)
    rj = <size_t>node * fc
    rp = <size_t>q * fc
    memcpy(t.lower + rp, t.lower + rj, t.n_features * sizeof(float))
    memcpy(t.upper + rp, t.upper + rj, t.n_features * sizeof(float))
    t.stretch(q)
    t.count[q] = t.count[node] + 1.0
    t.rate[q] = t.rate[node]
    if t.models.stride > 0:  # linear leaves: q starts from node's model, then learns x
        model_copy(&t.models, q, node)
    learn_node(t, q, y, w, g)
    # the new leaf: x alone (starting from q's model)
    if t.models.stride > 0:
        model_copy(&t.models, s, q)
    set_hulls(t, s, one, point_block(t, xs, one))
    t.stretch(s)
    t.count[s] = 1.0
    add_stats(t, s, y, w)
    keep_point(t, s, x, y, w)
    return 0
