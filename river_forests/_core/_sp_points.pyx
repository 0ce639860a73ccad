"""The stream-partitioning tree's paper splitter (denil2013, sections 3.3 and 3.4, algorithms
3-7), on a fringe slot's blocks (`_sp_fringe`).

* **Candidates.** A leaf entering the fringe has drawn its candidate dimensions
  (`_sp_fringe`); its first m structure points' values in them are the candidate thresholds
  (x <= threshold goes left, as the axis router). Each candidate split keeps four class
  histograms, its two sides for each stream, counted from the point that created it on.
  Candidates block (`cands`): [n_dims, n_points, columns[n_dims], thresholds[m][n_dims],
  born[m]]; histograms block (`hists`): PARTS rows per (point, dimension).
* **Splitting**, at a structure point, for a leaf at depth d: a split is valid when both its
  sides hold at least alpha(d) = alpha * alpha_growth^d estimation points; the leaf splits
  if some valid split has a gain above tau (ShouldSplit) or, failing that, if it holds at
  least beta(d) = beta * alpha(d) estimation points (MustSplit); it splits at the valid
  candidate of largest information gain (structure histograms only, entropy in bits,
  `_impurity.pxd`; regression: the relative variance decrease). The two new leaves start
  with that split's estimation histograms.
"""

from libc.math cimport INFINITY, pow
from libc.stdint cimport int32_t
from libc.string cimport memcpy

from ._impurity cimport CRITERION_ENTROPY, split_gain, variance_gain
from ._leaf_linear cimport model_copy, model_learn
from ._pool cimport pool_block
from ._sp_fringe cimport fringe_leave, fringe_refill, fringe_slot
from ._stream_partition cimport (ESTIMATION, HEAD, PARTS, REG_WEIGHT, STRUCTURE,
                                 StreamPartitionTree)
from ._tree cimport TASK_REGRESSION, add_stats


cdef int points_learn(StreamPartitionTree tree, const double* x, double y, double w,
                      bint structure, bint estimation, double g) except -1 nogil:
    """The paper's splitter: candidate thresholds from the leaf's first structure points,
    their histograms, algorithms 3-7. An estimation point steps its leaf's linear model (`g`:
    its step, `z` loaded; an interior node's is never read again: only a leaf splits, its
    two leaves starting from its model)."""
    cdef int32_t depth = tree.route(x), j = tree.path[depth - 1], s, c, k
    if estimation:
        model_learn(&tree.models, tree, j, tree.inp.z, y, w, g)
        for k in range(depth - 1):
            add_stats(tree, tree.path[k], y, w)
        tree.n_estimation += w
    depth -= 1  # the leaf's depth (the root's is 0)
    s = fringe_slot(tree, j)
    if s < 0:
        return 0
    if estimation:
        count(tree, s, x, y, w, ESTIMATION)
    if not structure:
        return 0
    add_point(tree, s, x)
    count(tree, s, x, y, w, STRUCTURE)
    c = points_best(tree, j, s, depth)
    if c >= 0 and tree.can_add(2):
        split(tree, j, s, c)
    return 0


cdef int add_point(StreamPartitionTree tree, int32_t s, const double* x) except -1 nogil:
    """A structure point among the leaf's first m: its values become candidate thresholds."""
    cdef double* cb = pool_block(&tree.cands, s)
    cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], m = tree.candidate_points, k
    if n >= m:
        return 0
    for k in range(dims):
        cb[HEAD + dims + n * dims + k] = x[<int32_t>cb[HEAD + k]]
    cb[HEAD + dims + m * dims + n] = tree.n_estimation
    cb[1] = n + 1
    return 0


cdef int count(StreamPartitionTree tree, int32_t s, const double* x, double y, double w,
               int32_t part) except -1 nogil:
    """Count x (class y, or target y for regression, weight w) on its side of every
    candidate split of fringe slot `s`, in the histograms of `part` (STRUCTURE or
    ESTIMATION). A value or threshold that is missing counts nowhere."""
    cdef const double* cb = pool_block(&tree.cands, s)
    cdef double* h = pool_block(&tree.hists, s)
    cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], k, p, c
    cdef size_t stride = tree.hists.stride
    cdef const double* thr = cb + HEAD + dims
    cdef double v, t
    cdef double* cell
    cdef bint regression = tree.task == TASK_REGRESSION
    for k in range(dims):
        v = x[<int32_t>cb[HEAD + k]]
        if v != v:
            continue
        for p in range(n):
            c = p * dims + k
            t = thr[c]
            if t != t:
                continue
            cell = h + (<size_t>c * PARTS + part + (0 if v <= t else 1)) * stride
            if regression:
                cell[0] += w * y
                cell[1] += w * y * y
                cell[REG_WEIGHT] += w
            else:
                cell[<int32_t>y] += w
    return 0


cdef int32_t points_best(StreamPartitionTree tree, int32_t node, int32_t s,
                         int32_t depth) noexcept nogil:
    """Algorithms 3-7 at a structure point: the candidate to split leaf `node` at, or -1.
    Valid: both sides hold alpha(d) estimation points. Split if a valid candidate's gain
    exceeds tau (ShouldSplit) or the leaf holds beta(d) estimation points (MustSplit);
    the split is the valid candidate of largest gain (the last of equals, as BestSplit)."""
    cdef const double* cb = pool_block(&tree.cands, s)
    cdef const double* h = pool_block(&tree.hists, s)
    cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], c, k, best = -1
    cdef int32_t nv = tree.n_values
    cdef size_t stride = tree.hists.stride
    cdef const double* row
    cdef double a = tree.alpha * pow(tree.alpha_growth, depth)
    cdef double el, er, g, top = -INFINITY
    cdef bint should = False
    for c in range(n * dims):
        if cb[HEAD + dims + c] != cb[HEAD + dims + c]:
            continue
        row = h + <size_t>c * PARTS * stride
        if tree.task == TASK_REGRESSION:
            el = row[ESTIMATION * stride + REG_WEIGHT]
            er = row[(ESTIMATION + 1) * stride + REG_WEIGHT]
        else:
            el = 0.0
            er = 0.0
            for k in range(nv):
                el += row[ESTIMATION * stride + k]
                er += row[(ESTIMATION + 1) * stride + k]
        if el < a or er < a:
            continue
        if tree.task == TASK_REGRESSION:
            g = variance_gain(row, row + stride)
        else:
            g = split_gain(row, row + stride, nv, CRITERION_ENTROPY)
        if g > tree.min_gain:
            should = True
        if g >= top:
            top = g
            best = c
    if best < 0:
        return -1
    if should or tree.weight[node] >= tree.beta * a:
        return best
    return -1


cdef int split(StreamPartitionTree tree, int32_t node, int32_t s, int32_t c) except -1 nogil:
    """Split leaf `node` at candidate `c` of its fringe slot `s`: the two new leaves start
    with the candidate's estimation histograms, born when the candidate was; the leaf
    leaves the fringe and the fringe is refilled. With linear leaves, both start from the
    leaf's model."""
    cdef const double* cb = pool_block(&tree.cands, s)
    cdef int32_t dims = <int32_t>cb[0], m = tree.candidate_points, k, l, r, side
    cdef int32_t column = <int32_t>cb[HEAD + c % dims]
    cdef double threshold = cb[HEAD + dims + c]
    cdef double born = cb[HEAD + dims + m * dims + c // dims]
    cdef const double* h
    cdef double* v
    cdef double total
    l = tree.add_children(node, column, threshold)
    r = l + 1
    if tree.models.stride > 0:
        model_copy(&tree.models, l, node)
        model_copy(&tree.models, r, node)
    h = pool_block(&tree.hists, s) + (<size_t>c * PARTS + ESTIMATION) * tree.hists.stride
    for side in range(2):
        v = tree.value + <size_t>(l + side) * tree.value_stride
        memcpy(v, h + <size_t>side * tree.hists.stride, tree.value_stride * sizeof(double))
        total = 0.0
        if tree.task == TASK_REGRESSION:
            total = v[REG_WEIGHT]
            v[REG_WEIGHT] = 0.0  # a node's weight lives in `weight`
        else:
            for k in range(tree.n_values):
                total += v[k]
        tree.weight[l + side] = total
        tree.born[l + side] = born
    fringe_leave(tree, node)
    tree.n_splits += 1
    return fringe_refill(tree)
