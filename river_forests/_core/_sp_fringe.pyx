"""The stream-partitioning tree's bounded fringe (denil2013, section 3.6).

At most `max_active` leaves collect candidate splits (the fringe); an inactive leaf keeps
its class histogram and `born`, which give p(A) (its share of the estimation points since it
began) and e(A) (the error of its majority class on them). When a leaf splits it leaves the
fringe, and the inactive leaves with the largest s(A) = p(A) e(A) (the two new ones among
them) take the free places. A tree at `max_nodes` cannot split: it empties its fringe, so
memory stays flat. The auto fringe (`FRINGE_AUTO`) has no count cap: its byte budget bounds
it, and a leaf waiting outside it takes the place of an active leaf far less promising.

A fringe slot is a block id in both of the tree's pools: `cands` (the candidates' columns,
and the splitter's own cells) and `hists` (their statistics), of the layout the tree's
splitter writes (`_sp_points`, `_sp_gaussian`).
"""

from libc.math cimport INFINITY, floor
from libc.stdint cimport int32_t
from libc.string cimport memset

from ._gaussian cimport G_ROWS
from ._impurity cimport sse
from ._pool cimport pool_alloc, pool_block, pool_free, pool_grow_cells, pool_has
from ._random cimport rng_poisson, rng_randint
from ._stream_partition cimport (FRINGE_AUTO, HEAD, PARTS, SPLITTER_GAUSSIAN, TAIL,
                                 StreamPartitionTree)
from ._tree cimport NO_BYTE_CAP, TASK_REGRESSION
from ._tree_table cimport nbytes, row_bytes

#: "auto": an inactive leaf displaces the active leaf of smallest s(A) when its s(A) is more
#: than this many times larger (hysteresis, so leaves do not trade places back and forth)
cdef double EVICT_RATIO = 2.0
cdef bint evict_on = True
#: "auto": the fringe is reviewed each time the tree's estimation weight passes a multiple of
#: this, split or not (a fringe of leaves that no longer split would never change otherwise)
cdef double EVICT_PERIOD = 1000.0


def _set_evict(bint on):
    """Measurement switch: the auto fringe's displacement of stale leaves (on by default)."""
    global evict_on
    evict_on = on


cdef double leaf_score(StreamPartitionTree tree, int32_t node) noexcept nogil:
    """s(A) = p(A) e(A) of a leaf, estimated from its estimation points: the points its
    majority class gets wrong over the estimation points the tree saw in its lifetime."""
    cdef double elapsed = tree.n_estimation - tree.born[node]
    cdef const double* v = tree.value + <size_t>node * tree.value_stride
    cdef double top = 0.0
    cdef int32_t k
    if elapsed <= 0.0:
        return 0.0
    if tree.task == TASK_REGRESSION:  # e(A): the squared error of the leaf's mean
        return sse(v[0], v[1], tree.weight[node]) / elapsed
    for k in range(tree.n_values):
        if v[k] > top:
            top = v[k]
    return (tree.weight[node] - top) / elapsed


cdef int fringe_enter(StreamPartitionTree tree, int32_t node) except -1 nogil:
    """Give leaf `node` a free fringe slot: draw its candidate dimensions (min(1 +
    Poisson(lambda), D), distinct, uniform: Floyd's sample) and allocate its blocks.
    Returns 1, or 0 if the blocks would not fit in the tree's byte budget (the leaf
    stays out of the fringe)."""
    cdef int32_t s = 0, dims, m = tree.candidate_points, i, jj, t, a, cells, rows
    cdef bint taken
    cdef double* cb
    if tree.n_features <= 0:
        return 0
    while pool_has(&tree.cands, s):
        s += 1
    dims = 1 + rng_poisson(&tree.rng, tree.candidate_features)
    if dims > tree.n_features:
        dims = tree.n_features
    if tree.splitter == SPLITTER_GAUSSIAN:
        cells = HEAD + dims + TAIL
        rows = dims * G_ROWS
    else:
        cells = HEAD + dims + m * dims + m
        rows = m * dims * PARTS
    if tree.max_bytes < NO_BYTE_CAP and <long long>(
            nbytes(tree) + 2 * row_bytes(tree) + sizeof(double) * (
                pool_grow_cells(&tree.cands, cells)
                + pool_grow_cells(&tree.hists, rows * tree.value_stride))) > tree.max_bytes:
        return 0
    cb = pool_alloc(&tree.cands, s, cells)
    cb[0] = dims
    cb[1] = 0
    i = 0
    for jj in range(tree.n_features - dims, tree.n_features):
        t = <int32_t>rng_randint(&tree.rng, jj + 1)
        taken = False
        for a in range(i):
            if <int32_t>cb[HEAD + a] == t:
                taken = True
                break
        cb[HEAD + i] = jj if taken else t
        i += 1
    for a in range(dims):  # slots -> registry columns: a candidate outlives its slot
        cb[HEAD + a] = tree.columns[<int32_t>cb[HEAD + a]]
    if tree.splitter == SPLITTER_GAUSSIAN:
        memset(cb + HEAD + dims, 0, TAIL * sizeof(double))
    pool_alloc(&tree.hists, s, rows)
    tree.slot[node] = s
    tree.n_active += 1
    return 1


cdef int fringe_leave(StreamPartitionTree tree, int32_t node) except -1 nogil:
    """Leaf `node` out of the fringe: its slot's blocks freed (a leaf not in it: nothing)."""
    cdef int32_t s = tree.slot[node]
    if s < 0:
        return 0
    pool_free(&tree.cands, s)
    pool_free(&tree.hists, s)
    tree.slot[node] = -1
    tree.n_active -= 1
    return 0


cdef int fringe_empty(StreamPartitionTree tree) except -1 nogil:
    """Every leaf out of the fringe (each keeps its histogram): over the byte budget or at
    the node cap; `fringe_refill` fills it again once nodes fit."""
    cdef int32_t j
    for j in range(tree.n_nodes):
        fringe_leave(tree, j)
    return 0


cdef bint may_fit(StreamPartitionTree tree) noexcept nogil:
    """Whether the smallest fringe block (one candidate feature) may fit in the byte
    budget: for the auto fringe, whose byte budget is its only cap, a cheap test before
    `fringe_enter` looks for a free slot at each sample of an inactive leaf. A fixed fringe
    does not ask (its results stay those of its releases)."""
    if tree.max_active != FRINGE_AUTO or tree.max_bytes >= NO_BYTE_CAP:
        return True
    return <long long>(nbytes(tree) + 2 * row_bytes(tree) + sizeof(double) * (
        HEAD + 1 + TAIL + G_ROWS * tree.value_stride)) <= tree.max_bytes


cdef int32_t fringe_slot(StreamPartitionTree tree, int32_t node) except -2 nogil:
    """The fringe slot of leaf `node`; a leaf outside the fringe enters it if there is a
    free place (the root, or features arrived late) and its blocks fit. -1: none."""
    if tree.slot[node] < 0 and tree.n_active < tree.max_active and tree.can_add(2) \
            and may_fit(tree):
        fringe_enter(tree, node)
    return tree.slot[node]


cdef bint all_fit(StreamPartitionTree tree, int32_t waiting) noexcept nogil:
    """Whether `waiting` more fringe blocks of the widest layout (every feature a
    candidate) fit in the tree's byte budget beside two more node rows."""
    cdef size_t cells, rows
    if tree.max_bytes >= NO_BYTE_CAP:
        return True
    if tree.splitter == SPLITTER_GAUSSIAN:
        cells = HEAD + tree.n_features + TAIL
        rows = <size_t>tree.n_features * G_ROWS
    else:
        cells = HEAD + tree.n_features + <size_t>tree.candidate_points * (tree.n_features + 1)
        rows = <size_t>tree.candidate_points * tree.n_features * PARTS
    return <long long>(nbytes(tree) + 2 * row_bytes(tree) + sizeof(double) * (
        pool_grow_cells(&tree.cands, <size_t>waiting * cells)
        + pool_grow_cells(&tree.hists, <size_t>waiting * rows * tree.value_stride))) \
        <= tree.max_bytes


cdef int fringe_refill(StreamPartitionTree tree) except -1 nogil:
    """Fill the fringe's free places with the inactive leaves of largest s(A); a tree that
    cannot split any more empties it. While every inactive leaf fits, they all enter, in
    node order (left child before right, as algorithm 2 draws their dimensions): no
    label decides anything then, so with a fringe that does not bind, estimation labels
    never reach the partition."""
    cdef int32_t j, best, waiting = 0
    cdef double s, top
    if not tree.can_add(2):
        return fringe_empty(tree)
    if tree.n_features <= 0:
        return 0
    for j in range(tree.n_nodes):
        if tree.left[j] < 0 and tree.slot[j] < 0:
            waiting += 1
    if waiting <= tree.max_active - tree.n_active and (
            tree.max_active != FRINGE_AUTO or all_fit(tree, waiting)):
        for j in range(tree.n_nodes):
            if tree.left[j] < 0 and tree.slot[j] < 0 and not fringe_enter(tree, j):
                return 0
        return 0
    while tree.n_active < tree.max_active and tree.n_features > 0:
        best = -1
        top = -1.0
        for j in range(tree.n_nodes):
            if tree.left[j] < 0 and tree.slot[j] < 0:
                s = leaf_score(tree, j)
                if s > top:
                    top = s
                    best = j
        if best < 0 or not fringe_enter(tree, best):
            break
    if tree.max_active == FRINGE_AUTO and evict_on:
        fringe_evict(tree)
    return 0


cdef int fringe_evict(StreamPartitionTree tree) except -1 nogil:
    """The auto fringe, full: the inactive leaf of largest s(A) takes the place of the
    active leaf of smallest s(A) if its s(A) is more than EVICT_RATIO times larger (a
    pure or starved leaf would otherwise hold its place for ever). One exchange per
    call (a split), so the fringe turns over slowly."""
    cdef int32_t j, best = -1, worst = -1
    cdef double s, top = 0.0, low = INFINITY
    for j in range(tree.n_nodes):
        if tree.left[j] >= 0:
            continue
        s = leaf_score(tree, j)
        if tree.slot[j] < 0:
            if s > top:
                top = s
                best = j
        elif s < low:
            low = s
            worst = j
    if best < 0:
        return 0
    if fringe_enter(tree, best) or worst < 0 or not top > EVICT_RATIO * low:
        return 0
    fringe_leave(tree, worst)
    if not fringe_enter(tree, best):
        fringe_enter(tree, worst)
    return 0


cdef int fringe_review(StreamPartitionTree tree, double before) except -1 nogil:
    """The auto fringe is reviewed (`fringe_evict`) each time the tree's estimation weight
    passes a multiple of EVICT_PERIOD, here from `before`, while the tree can still split."""
    if tree.max_active == FRINGE_AUTO and evict_on and tree.n_features > 0 \
            and floor(before / EVICT_PERIOD) != floor(tree.n_estimation / EVICT_PERIOD) \
            and tree.can_add(2):
        fringe_evict(tree)
    return 0


cdef int fringe_clear(StreamPartitionTree tree) except -1 nogil:
    """A refit's start: forget the fringe's class histograms (its candidate thresholds are
    structure, and stay) and restart p(A) (every leaf born at 0)."""
    cdef int32_t j, s
    for j in range(tree.n_nodes):
        tree.born[j] = 0.0
        s = tree.slot[j]
        if s >= 0 and pool_has(&tree.hists, s):
            memset(pool_block(&tree.hists, s), 0,
                   <size_t>tree.hists.rows[s] * tree.hists.stride * sizeof(double))
        if s >= 0 and tree.splitter == SPLITTER_GAUSSIAN:  # the summaries are labels too
            memset(pool_block(&tree.cands, s) + HEAD + <int32_t>pool_block(&tree.cands, s)[0],
                   0, TAIL * sizeof(double))
    return 0
