"""The online random tree with stream partitioning (Denil, Matheson & de Freitas, ICML 2013).

Section 3 and the pseudo-code of appendix A, with the bounded fringe of section 3.6:

* **Two streams.** Each point goes, independently in each tree, to the structure stream
  (probability `structure_fraction`) or to the estimation stream. Structure points choose
  the candidate thresholds and the statistics that rank the candidate splits; estimation
  points fill the class histograms the leaves predict from. A leaf's prediction never sees a
  structure point, and the partition never sees an estimation label (but through the fringe
  policy below, as in the paper).
* **Candidates.** A leaf entering the fringe picks min(1 + Poisson(lambda), D) distinct
  dimensions uniformly (D: the tree's features) and takes its first m structure points'
  values in them as candidate thresholds (x <= threshold goes left, as the axis router).
  Each candidate split keeps four class histograms, its two sides for each stream, counted
  from the point that created it on.
* **Splitting** (algorithms 3-7), at a structure point, for a leaf at depth d:
  a split is valid when both its sides hold at least alpha(d) = alpha * alpha_growth^d
  estimation points; the leaf splits if some valid split has a gain above tau (ShouldSplit)
  or, failing that, if it holds at least beta(d) = beta * alpha(d) estimation points
  (MustSplit); it splits at the valid candidate of largest information gain (structure
  histograms only, entropy in bits, `_impurity.pxd`). The two new leaves start with that
  split's estimation histograms.
* **The fringe** (section 3.6): at most `max_active` leaves collect candidates; an inactive
  leaf keeps its class histogram and `born`, which give p(A) (its share of the estimation
  points since it began) and e(A) (the error of its majority class on them). When a leaf
  splits it leaves the fringe, and the inactive leaves with the largest p * e (the two new
  ones among them) take the free places. A tree at `max_nodes` cannot split: it empties its
  fringe, so memory stays flat.

Statistics follow the base rule (`_tree.pxd`): an estimation point counts in every node of
its path, so smoothing leans on current parent estimates and a missing value goes to the
heavier side; a leaf's own statistics are exactly the paper's.

The information gain compares a candidate's sides over the structure points it has seen
(H of their union), where algorithm 8 takes H(A) over the leaf's whole life: the same when
every candidate saw the same points, and not biased towards late candidates otherwise.
"""

from libc.math cimport INFINITY, NAN, pow
from libc.stdint cimport int32_t
from libc.string cimport memcpy, memset

import numpy as np

from ._axis cimport child
from ._impurity cimport CRITERION_ENTROPY, split_gain
from ._pool cimport pool_alloc, pool_block, pool_free, pool_grow_cells, pool_has
from ._random cimport rng_poisson, rng_randint, rng_uniform
from ._tree cimport (NO_BYTE_CAP, CELL_F64, CELL_I32, ROWS_NODE, SCALAR_F64, SCALAR_I32, TASK_CLASSIFICATION,
                     Tree, add_stats)

cdef enum:
    # cells of a candidates block before the columns: n_dims, n_points
    HEAD = 2
    # histograms per candidate split: structure left/right, estimation left/right
    PARTS = 4
    STRUCTURE = 0
    ESTIMATION = 2


cdef class StreamPartitionTree(Tree):
    """A stream-partitioning tree. Parameters by name: the base's (see `_tree.Tree`, task
    classification only), `structure_fraction`, `candidate_features`, `candidate_points`,
    `min_gain`, `alpha`, `alpha_growth`, `beta` and `max_active`."""

    class_row_keys = Tree.class_row_keys + ("hists",)

    @classmethod
    def remap_state(cls, dict state, columns, classes):
        """The base's renumbering, and the candidates' registry columns inside each fringe
        block (`cands`: [n_dims, n_points, columns[n_dims], ...])."""
        super(StreamPartitionTree, cls).remap_state(state, columns, classes)
        cols = np.asarray(columns, dtype=np.float64)
        cands = np.array(state["cands"], dtype=np.float64)
        for o in state["cands_offsets"]:
            if o >= 0:
                dims = int(cands[o])
                cands[o + HEAD:o + HEAD + dims] = cols[cands[o + HEAD:o + HEAD + dims].astype(np.intp)]
        state["cands"] = cands
        return state

    def __cinit__(self, *args, **kwargs):
        self.structure_fraction = 0.5
        self.candidate_features = 1.0
        self.candidate_points = 10
        self.min_gain = 0.001
        self.alpha = 1.0
        self.alpha_growth = 1.1
        self.beta = 1000.0
        self.max_active = 2**30
        self.declare_array(<void**>&self.slot, b"slot", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        self.declare_array(<void**>&self.born, b"born", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        self.declare_pool(&self.cands, b"cands", NULL, NULL)
        self.declare_pool(&self.hists, b"hists", &self.value_stride, &self.n_values)
        self.declare_scalar(&self.structure_fraction, b"structure_fraction", SCALAR_F64, True)
        self.declare_scalar(&self.candidate_features, b"candidate_features", SCALAR_F64, True)
        self.declare_scalar(&self.candidate_points, b"candidate_points", SCALAR_I32, True)
        self.declare_scalar(&self.min_gain, b"min_gain", SCALAR_F64, True)
        self.declare_scalar(&self.alpha, b"alpha", SCALAR_F64, True)
        self.declare_scalar(&self.alpha_growth, b"alpha_growth", SCALAR_F64, True)
        self.declare_scalar(&self.beta, b"beta", SCALAR_F64, True)
        self.declare_scalar(&self.max_active, b"max_active", SCALAR_I32, True)
        self.declare_scalar(&self.n_estimation, b"n_estimation", SCALAR_F64, False)
        self.declare_scalar(&self.n_active, b"n_active", SCALAR_I32, False)
        self.declare_scalar(&self.n_splits, b"n_splits", SCALAR_I32, False)

    cdef int _start(self) except -1:
        if self.task != TASK_CLASSIFICATION:
            raise ValueError("a stream-partitioning tree classifies (information gain on labels)")
        return 0

    # ---------------------------------------------------------------- the fringe

    cdef double score(self, int32_t node) noexcept nogil:
        """s(A) = p(A) e(A) of a leaf, estimated from its estimation points: the points its
        majority class gets wrong over the estimation points the tree saw in its lifetime."""
        cdef double elapsed = self.n_estimation - self.born[node]
        cdef const double* v = self.value + <size_t>node * self.value_stride
        cdef double top = 0.0
        cdef int32_t k
        if elapsed <= 0.0:
            return 0.0
        for k in range(self.n_values):
            if v[k] > top:
                top = v[k]
        return (self.weight[node] - top) / elapsed

    cdef int activate(self, int32_t node) except -1 nogil:
        """Give leaf `node` a free fringe slot: draw its candidate dimensions (min(1 +
        Poisson(lambda), D), distinct, uniform: Floyd's sample) and allocate its blocks.
        Returns 1, or 0 if the blocks would not fit in the tree's byte budget (the leaf
        stays out of the fringe)."""
        cdef int32_t s = 0, dims, m = self.candidate_points, i, jj, t, a
        cdef bint taken
        cdef double* cb
        if self.n_features <= 0:
            return 0
        while pool_has(&self.cands, s):
            s += 1
        dims = 1 + rng_poisson(&self.rng, self.candidate_features)
        if dims > self.n_features:
            dims = self.n_features
        if self.max_bytes < NO_BYTE_CAP and <long long>(
                self.nbytes() + 2 * self.row_bytes() + sizeof(double) * (
                    pool_grow_cells(&self.cands, HEAD + dims + m * dims + m)
                    + pool_grow_cells(&self.hists, m * dims * PARTS * self.value_stride))) > self.max_bytes:
            return 0
        cb = pool_alloc(&self.cands, s, HEAD + dims + m * dims + m)
        cb[0] = dims
        cb[1] = 0
        i = 0
        for jj in range(self.n_features - dims, self.n_features):
            t = <int32_t>rng_randint(&self.rng, jj + 1)
            taken = False
            for a in range(i):
                if <int32_t>cb[HEAD + a] == t:
                    taken = True
                    break
            cb[HEAD + i] = jj if taken else t
            i += 1
        for a in range(dims):  # slots -> registry columns: a candidate outlives its slot
            cb[HEAD + a] = self.columns[<int32_t>cb[HEAD + a]]
        pool_alloc(&self.hists, s, m * dims * PARTS)
        self.slot[node] = s
        self.n_active += 1
        return 1

    cdef int deactivate(self, int32_t node) except -1 nogil:
        cdef int32_t s = self.slot[node]
        if s < 0:
            return 0
        pool_free(&self.cands, s)
        pool_free(&self.hists, s)
        self.slot[node] = -1
        self.n_active -= 1
        return 0

    cdef int drop_growth(self) except -1 nogil:
        """Over the byte budget: the fringe empties (its leaves keep their histograms), as
        at the node cap; `refill` fills it again once nodes fit."""
        cdef int32_t j
        for j in range(self.n_nodes):
            self.deactivate(j)
        return 0

    cdef int refill(self) except -1 nogil:
        """Fill the fringe's free places with the inactive leaves of largest s(A); a tree that
        cannot split any more empties it. While every inactive leaf fits, they all enter, in
        node order (left child before right, as algorithm 2 draws their dimensions): no
        label decides anything then, so with a fringe that does not bind, estimation labels
        never reach the partition."""
        cdef int32_t j, best, waiting = 0
        cdef double s, top
        if not self.can_add(2):
            for j in range(self.n_nodes):
                self.deactivate(j)
            return 0
        if self.n_features <= 0:
            return 0
        for j in range(self.n_nodes):
            if self.left[j] < 0 and self.slot[j] < 0:
                waiting += 1
        if waiting <= self.max_active - self.n_active:
            for j in range(self.n_nodes):
                if self.left[j] < 0 and self.slot[j] < 0 and not self.activate(j):
                    return 0
            return 0
        while self.n_active < self.max_active and self.n_features > 0:
            best = -1
            top = -1.0
            for j in range(self.n_nodes):
                if self.left[j] < 0 and self.slot[j] < 0:
                    s = self.score(j)
                    if s > top:
                        top = s
                        best = j
            if best < 0 or not self.activate(best):
                break
        return 0

    cdef int clear_stats(self) except -1 nogil:
        """A refit's start: besides the nodes' statistics, forget the fringe's class
        histograms (its candidate thresholds are structure, and stay) and restart p(A)."""
        cdef int32_t j, s
        Tree.clear_stats(self)
        self.n_estimation = 0.0
        for j in range(self.n_nodes):
            self.born[j] = 0.0
            s = self.slot[j]
            if s >= 0 and pool_has(&self.hists, s):
                memset(pool_block(&self.hists, s), 0,
                       <size_t>self.hists.rows[s] * self.hists.stride * sizeof(double))
        return 0

    # ---------------------------------------------------------------- candidate statistics

    cdef int add_point(self, int32_t s, const double* x) except -1 nogil:
        """A structure point among the leaf's first m: its values become candidate thresholds."""
        cdef double* cb = pool_block(&self.cands, s)
        cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], m = self.candidate_points, k
        if n >= m:
            return 0
        for k in range(dims):
            cb[HEAD + dims + n * dims + k] = x[<int32_t>cb[HEAD + k]]
        cb[HEAD + dims + m * dims + n] = self.n_estimation
        cb[1] = n + 1
        return 0

    cdef int count(self, int32_t s, const double* x, int32_t y, double w,
                   int32_t part) except -1 nogil:
        """Count x (class y, weight w) on its side of every candidate split of fringe slot
        `s`, in the histograms of `part` (STRUCTURE or ESTIMATION). A value or threshold that
        is missing counts nowhere."""
        cdef const double* cb = pool_block(&self.cands, s)
        cdef double* h = pool_block(&self.hists, s)
        cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], k, p, c
        cdef size_t stride = self.hists.stride
        cdef const double* thr = cb + HEAD + dims
        cdef double v, t
        for k in range(dims):
            v = x[<int32_t>cb[HEAD + k]]
            if v != v:
                continue
            for p in range(n):
                c = p * dims + k
                t = thr[c]
                if t != t:
                    continue
                h[(<size_t>c * PARTS + part + (0 if v <= t else 1)) * stride + y] += w
        return 0

    # ---------------------------------------------------------------- splitting

    cdef int32_t best_split(self, int32_t node, int32_t s, int32_t depth) noexcept nogil:
        """Algorithms 3-7 at a structure point: the candidate to split leaf `node` at, or -1.
        Valid: both sides hold alpha(d) estimation points. Split if a valid candidate's gain
        exceeds tau (ShouldSplit) or the leaf holds beta(d) estimation points (MustSplit);
        the split is the valid candidate of largest gain (the last of equals, as BestSplit)."""
        cdef const double* cb = pool_block(&self.cands, s)
        cdef const double* h = pool_block(&self.hists, s)
        cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], c, k, best = -1
        cdef int32_t nv = self.n_values
        cdef size_t stride = self.hists.stride
        cdef const double* row
        cdef double a = self.alpha * pow(self.alpha_growth, depth)
        cdef double el, er, g, top = -INFINITY
        cdef bint should = False
        for c in range(n * dims):
            if cb[HEAD + dims + c] != cb[HEAD + dims + c]:
                continue
            row = h + <size_t>c * PARTS * stride
            el = 0.0
            er = 0.0
            for k in range(nv):
                el += row[ESTIMATION * stride + k]
                er += row[(ESTIMATION + 1) * stride + k]
            if el < a or er < a:
                continue
            g = split_gain(row, row + stride, nv, CRITERION_ENTROPY)
            if g > self.min_gain:
                should = True
            if g >= top:
                top = g
                best = c
        if best < 0:
            return -1
        if should or self.weight[node] >= self.beta * a:
            return best
        return -1

    cdef int split(self, int32_t node, int32_t s, int32_t c) except -1 nogil:
        """Split leaf `node` at candidate `c` of its fringe slot `s`: the two new leaves start
        with the candidate's estimation histograms, born when the candidate was; the leaf
        leaves the fringe and the fringe is refilled."""
        cdef const double* cb = pool_block(&self.cands, s)
        cdef int32_t dims = <int32_t>cb[0], m = self.candidate_points, k, l, r, side
        cdef int32_t column = <int32_t>cb[HEAD + c % dims]
        cdef double threshold = cb[HEAD + dims + c]
        cdef double born = cb[HEAD + dims + m * dims + c // dims]
        cdef const double* h
        cdef double* v
        cdef double total
        l = self.add_children(node, column, threshold)
        r = l + 1
        h = pool_block(&self.hists, s) + (<size_t>c * PARTS + ESTIMATION) * self.hists.stride
        for side in range(2):
            v = self.value + <size_t>(l + side) * self.value_stride
            memcpy(v, h + <size_t>side * self.hists.stride, self.value_stride * sizeof(double))
            total = 0.0
            for k in range(self.n_values):
                total += v[k]
            self.weight[l + side] = total
            self.born[l + side] = born
        self.deactivate(node)
        self.n_splits += 1
        return self.refill()

    # ---------------------------------------------------------------- one sample

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        cdef bint structure = rng_uniform(&self.rng) < self.structure_fraction
        cdef int32_t j = self.root, depth = 0, s, c
        while True:
            if not structure:
                add_stats(self, j, y, w)
            if self.left[j] < 0:
                break
            j = child(self, j, x)
            depth += 1
        if not structure:
            self.n_estimation += w
        s = self.slot[j]
        if s < 0 and self.n_active < self.max_active and self.can_add(2):
            # a free place in the fringe (the root, or features arrived late)
            self.activate(j)
            s = self.slot[j]
        if s < 0:
            return 0
        if not structure:
            return self.count(s, x, <int32_t>y, w, ESTIMATION)
        self.add_point(s, x)
        self.count(s, x, <int32_t>y, w, STRUCTURE)
        c = self.best_split(j, s, depth)
        if c >= 0 and self.can_add(2):
            self.split(j, s, c)
        return 0

    # ---------------------------------------------------------------- introspection

    @property
    def active_leaves(self):
        """Leaves in the fringe (collecting split statistics)."""
        return self.n_active

    @property
    def splits(self):
        """Splits made so far."""
        return self.n_splits

    @property
    def estimation_weight(self):
        """Estimation weight seen so far."""
        return self.n_estimation

    def fringe(self):
        """The fringe as {leaf: (columns, thresholds, histograms)}: the candidate columns, the
        (points x columns) thresholds and the (points x columns x 4 x classes) histograms
        (structure left, structure right, estimation left, estimation right), for tests and
        pictures."""
        cdef int32_t j, s, dims, n, m = self.candidate_points
        cdef const double* cb
        cdef const double* h
        out = {}
        for j in range(self.n_nodes):
            s = self.slot[j]
            if s < 0:
                continue
            cb = pool_block(&self.cands, s)
            h = pool_block(&self.hists, s)
            dims = <int32_t>cb[0]
            n = <int32_t>cb[1]
            cols = np.array([cb[HEAD + k] for k in range(dims)], dtype=np.int64)
            thr = np.array([cb[HEAD + dims + k] for k in range(n * dims)]).reshape(n, dims)
            hist = np.array([h[k] for k in range(m * dims * PARTS * self.hists.stride)])
            hist = hist.reshape(m, dims, PARTS, self.hists.stride)[:n, :, :, :self.n_values]
            out[j] = (cols, thr, hist)
        return out
