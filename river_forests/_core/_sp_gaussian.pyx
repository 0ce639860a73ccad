"""The stream-partitioning tree's Gaussian splitter and naive Bayes leaves (MOA's Hoeffding
tree leaves, on the fringe of `_sp_fringe`).

Candidates block (`cands`): [n_dims, n_points (0), columns[n_dims], then TAIL cells: the
structure weight seen, at the last split check, and the weight the majority class and naive
Bayes predicted right]; summaries block (`hists`): G_ROWS rows per candidate feature
(`_gaussian.pxd`). The threshold search and naive Bayes are the shared kernels of
`_gaussian.pxd`; what is the tree's here is when to check, when to split and how the
children start.
"""

from libc.math cimport floor, log, log2, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

from ._gaussian cimport G_ROWS, gauss_add, gauss_below, gauss_best_threshold, gauss_naive_bayes
from ._pool cimport pool_block
from ._sp_fringe cimport fringe_leave, fringe_refill, fringe_slot
from ._stream_partition cimport (BAYES_RIGHT, CHECKED, HEAD, LEAF_ADAPTIVE, MAJORITY_RIGHT, SEEN,
                                 StreamPartitionTree)
from ._tree cimport add_stats

#: a side of a Gaussian split must hold this share of the leaf's weight (MOA's 1%)
cdef double MIN_BRANCH_FRACTION = 0.01
#: naive Bayes: a class's variance in a feature is at least (this * the feature's range)^2
cdef double MIN_SD_SHARE = 0.01


cdef int gaussian_learn(StreamPartitionTree tree, const double* x, double y, double w,
                        bint structure, bint estimation) except -1 nogil:
    """MOA's Hoeffding tree leaf, on the fringe: an active leaf keeps per-class Gaussian
    summaries of its candidate features (structure points); every `grace_period` of
    structure weight it splits at the best of `candidate_points` thresholds per feature
    once the Hoeffding bound separates the best feature from the runner-up (or falls
    below `tie_threshold`). With adaptive leaves, before a point is counted, the leaf
    scores its majority class and its naive Bayes guess on it."""
    cdef int32_t depth = tree.route(x), j = tree.path[depth - 1], s, k, dims, c, top
    cdef int32_t label = <int32_t>y
    cdef double* cb
    cdef double* g
    cdef const double* v
    s = fringe_slot(tree, j)
    if s >= 0 and tree.leaf_prediction == LEAF_ADAPTIVE:
        cb = pool_block(&tree.cands, s)
        dims = <int32_t>cb[0]
        v = tree.value + <size_t>j * tree.value_stride
        top = 0
        for c in range(1, tree.n_values):
            if v[c] > v[top]:
                top = c
        if tree.weight[j] > 0.0 and top == label:
            cb[HEAD + dims + MAJORITY_RIGHT] += w
        if leaf_naive_bayes(tree, j, s, x, NULL, 0) == label:
            cb[HEAD + dims + BAYES_RIGHT] += w
    if estimation:
        for k in range(depth):
            add_stats(tree, tree.path[k], y, w)
        tree.n_estimation += w
    if s < 0 or not structure:
        return 0
    cb = pool_block(&tree.cands, s)
    g = pool_block(&tree.hists, s)
    dims = <int32_t>cb[0]
    for k in range(dims):
        if x[<int32_t>cb[HEAD + k]] == x[<int32_t>cb[HEAD + k]]:
            gauss_add(g + <size_t>k * G_ROWS * tree.hists.stride, tree.hists.stride, label,
                      x[<int32_t>cb[HEAD + k]], w)
    cb[HEAD + dims + SEEN] += w
    if cb[HEAD + dims + SEEN] - cb[HEAD + dims + CHECKED] < tree.grace_period:
        return 0
    cb[HEAD + dims + CHECKED] = cb[HEAD + dims + SEEN]
    if tree.can_add(2):
        gaussian_split(tree, j, s)
    return 0


cdef int gaussian_split(StreamPartitionTree tree, int32_t node, int32_t s) except -1 nogil:
    """The Hoeffding test at leaf `node` (fringe slot `s`): per candidate feature, the best
    information gain over `candidate_points` thresholds evenly inside the range seen
    (`gauss_best_threshold`; a side must hold 1% of the weight); split at the best if it
    beats the runner-up feature (or no split, gain 0) by more than eps = sqrt(R^2 ln(1/delta)
    / 2n), R = log2(classes), n the structure weight seen, or if eps < tie_threshold. The
    children start with the leaf's class histogram shared out as the chosen feature's
    Gaussians share each class."""
    cdef double* cb = pool_block(&tree.cands, s)
    cdef const double* g
    cdef size_t stride = tree.hists.stride
    cdef int32_t dims = <int32_t>cb[0], nv = tree.n_values, k, c, best_k = -1, l
    cdef double n = cb[HEAD + dims + SEEN], gain, t, best_t = 0.0, eps, r, share, lw, total
    cdef double first = 0.0, second = 0.0
    cdef double* scratch = <double*>malloc(5 * <size_t>(nv if nv > 0 else 1) * sizeof(double))
    cdef const double* v
    if scratch == NULL:
        with gil:
            raise MemoryError()
    try:
        for k in range(dims):
            gain = gauss_best_threshold(pool_block(&tree.hists, s) + <size_t>k * G_ROWS * stride,
                                        stride, nv, tree.candidate_points, MIN_BRANCH_FRACTION,
                                        scratch, &t)
            if gain > first:
                second = first
                first = gain
                best_k = k
                best_t = t
            elif gain > second:
                second = gain
        if best_k < 0 or first <= tree.min_gain:
            return 0
        r = log2(<double>(nv if nv > 2 else 2))
        eps = sqrt(r * r * log(1.0 / tree.split_confidence) / (2.0 * n))
        if not (first - second > eps or eps < tree.tie_threshold):
            return 0
        g = pool_block(&tree.hists, s) + <size_t>best_k * G_ROWS * stride
        l = tree.add_children(node, <int32_t>cb[HEAD + best_k], best_t)
        v = tree.value + <size_t>node * tree.value_stride
        total = 0.0
        for c in range(nv):
            # left: the class's share below the threshold, rounded to a whole weight (the
            # weights are whole: counts stay exact, and a parent holds its children's
            # weight through every later addition); right: the rest
            share = gauss_below(g, stride, c, best_t) / g[c] if g[c] > 0.0 else 0.5
            lw = floor(v[c] * share + 0.5)
            if lw > v[c]:
                lw = v[c]
            tree.value[<size_t>l * tree.value_stride + c] = lw
            tree.value[<size_t>(l + 1) * tree.value_stride + c] = v[c] - lw
            total += lw
        tree.weight[l] = total
        tree.weight[l + 1] = tree.weight[node] - total if tree.weight[node] > total else 0.0
        tree.born[l] = tree.n_estimation
        tree.born[l + 1] = tree.n_estimation
        fringe_leave(tree, node)
        tree.n_splits += 1
        fringe_refill(tree)
    finally:
        free(scratch)
    return 0


cdef int32_t leaf_naive_bayes(StreamPartitionTree tree, int32_t node, int32_t s,
                              const double* x, double* out, int32_t n_out) noexcept nogil:
    """Naive Bayes at active leaf `node` (fringe slot `s`): the leaf's class histogram as
    the prior, the Gaussians of its candidate features as the likelihoods (a feature's
    variance floored at (1% of its range)^2; a missing value is left out). Writes the
    posterior into `out[:n_out]` (if not NULL) and returns the most probable class, or -1
    when no class has both prior weight and summaries."""
    cdef const double* cb = pool_block(&tree.cands, s)
    return gauss_naive_bayes(tree.value + <size_t>node * tree.value_stride, tree.n_values,
                             pool_block(&tree.hists, s), tree.hists.stride, x, cb + HEAD,
                             <int32_t>cb[0], MIN_SD_SHARE, out, n_out)
