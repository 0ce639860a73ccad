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

from libc.math cimport INFINITY, NAN, exp, floor, log, log2, pow, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

from ._tree import register_kind

from ._axis cimport child
from ._gaussian cimport (G_HIGH, G_LOW, G_MEAN, G_ROWS, gauss_add, gauss_below, gauss_scale, gauss_span,
                         gauss_variance, normal_below)
from ._impurity cimport CRITERION_ENTROPY, entropy_gain, split_gain, sse, variance_gain, xlog2x
from ._pool cimport pool_alloc, pool_block, pool_free, pool_grow_cells, pool_has
from ._random cimport rng_poisson, rng_randint, rng_uniform
from ._tree cimport (NO_BYTE_CAP, CELL_F64, CELL_I32, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32,
                     SCALAR_INT, TASK_CLASSIFICATION, TASK_REGRESSION, Tree, add_stats)
from ._tree_table cimport declare_array, declare_pool, declare_scalar, nbytes, row_bytes

cdef enum:
    # cells of a candidates block before the columns: n_dims, n_points
    HEAD = 2
    # histograms per candidate split: structure left/right, estimation left/right
    PARTS = 4
    STRUCTURE = 0
    ESTIMATION = 2
    # cells of a Gaussian candidates block after its columns: structure weight seen, at the
    # last split check, and the weight the majority class and naive Bayes predicted right
    TAIL = 4
    SEEN = 0
    CHECKED = 1
    MAJORITY_RIGHT = 2
    BAYES_RIGHT = 3

cdef enum:
    # regression: cells of a histogram (sum w y, sum w y^2, w), and the weight's
    REG_CELLS = 3
    REG_WEIGHT = 2

#: `max_active` of a fringe sized by the byte budget ("auto"): no count cap, and a leaf that
#: waits outside a full fringe takes the place of an active leaf far less promising
cdef int32_t FRINGE_AUTO = 2147483647
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


#: a side of a Gaussian split must hold this share of the leaf's weight (MOA's 1%)
cdef double MIN_BRANCH_FRACTION = 0.01
#: naive Bayes: a class's variance in a feature is at least (this * the feature's range)^2
cdef double MIN_SD_SHARE = 0.01


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
        self.splitter = SPLITTER_POINTS
        self.honest = True
        self.grace_period = 50.0
        self.split_confidence = 0.01
        self.tie_threshold = 0.05
        self.leaf_prediction = LEAF_MAJORITY
        declare_array(self, <void**>&self.slot, b"slot", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        declare_array(self, <void**>&self.born, b"born", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_pool(self, &self.cands, b"cands", NULL, NULL)
        declare_pool(self, &self.hists, b"hists", &self.value_stride, &self.n_values)
        declare_scalar(self, &self.structure_fraction, b"structure_fraction", SCALAR_F64, True)
        declare_scalar(self, &self.candidate_features, b"candidate_features", SCALAR_F64, True)
        declare_scalar(self, &self.candidate_points, b"candidate_points", SCALAR_I32, True, 1,
                       2**16)
        declare_scalar(self, &self.min_gain, b"min_gain", SCALAR_F64, True)
        declare_scalar(self, &self.alpha, b"alpha", SCALAR_F64, True)
        declare_scalar(self, &self.alpha_growth, b"alpha_growth", SCALAR_F64, True)
        declare_scalar(self, &self.beta, b"beta", SCALAR_F64, True)
        declare_scalar(self, &self.max_active, b"max_active", SCALAR_I32, True, 1)
        declare_scalar(self, &self.splitter, b"splitter", SCALAR_INT, True, SPLITTER_POINTS,
                       SPLITTER_GAUSSIAN)
        declare_scalar(self, &self.honest, b"honest", SCALAR_BOOL, True)
        declare_scalar(self, &self.grace_period, b"grace_period", SCALAR_F64, True)
        declare_scalar(self, &self.split_confidence, b"split_confidence", SCALAR_F64, True)
        declare_scalar(self, &self.tie_threshold, b"tie_threshold", SCALAR_F64, True)
        declare_scalar(self, &self.leaf_prediction, b"leaf_prediction", SCALAR_INT, True, LEAF_MAJORITY,
                       LEAF_ADAPTIVE)
        declare_scalar(self, &self.n_estimation, b"n_estimation", SCALAR_F64, False, 0.0)
        declare_scalar(self, &self.n_active, b"n_active", SCALAR_I32, False, 0)
        declare_scalar(self, &self.n_splits, b"n_splits", SCALAR_I32, False, 0)

    cdef int _start(self) except -1:
        if self.task == TASK_REGRESSION:
            if self.splitter != SPLITTER_POINTS or self.leaf_prediction != LEAF_MAJORITY:
                raise ValueError("a stream-partitioning regression tree splits at the paper's "
                                 "candidate points and predicts the leaf's mean")
            # a histogram of regression targets is (sum w y, sum w y^2, w): three cells
            self.ensure_values(REG_CELLS)
        if self.splitter != SPLITTER_POINTS and self.splitter != SPLITTER_GAUSSIAN:
            raise ValueError(f"unknown splitter {self.splitter}")
        if self.leaf_prediction < LEAF_MAJORITY or self.leaf_prediction > LEAF_ADAPTIVE:
            raise ValueError(f"unknown leaf prediction {self.leaf_prediction}")
        if self.leaf_prediction != LEAF_MAJORITY and self.splitter != SPLITTER_GAUSSIAN:
            raise ValueError("naive Bayes leaves read the Gaussian splitter's summaries")
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
        if self.task == TASK_REGRESSION:  # e(A): the squared error of the leaf's mean
            return sse(v[0], v[1], self.weight[node]) / elapsed
        for k in range(self.n_values):
            if v[k] > top:
                top = v[k]
        return (self.weight[node] - top) / elapsed

    cdef int activate(self, int32_t node) except -1 nogil:
        """Give leaf `node` a free fringe slot: draw its candidate dimensions (min(1 +
        Poisson(lambda), D), distinct, uniform: Floyd's sample) and allocate its blocks.
        Returns 1, or 0 if the blocks would not fit in the tree's byte budget (the leaf
        stays out of the fringe)."""
        cdef int32_t s = 0, dims, m = self.candidate_points, i, jj, t, a, cells, rows
        cdef bint taken
        cdef double* cb
        if self.n_features <= 0:
            return 0
        while pool_has(&self.cands, s):
            s += 1
        dims = 1 + rng_poisson(&self.rng, self.candidate_features)
        if dims > self.n_features:
            dims = self.n_features
        if self.splitter == SPLITTER_GAUSSIAN:
            cells = HEAD + dims + TAIL
            rows = dims * G_ROWS
        else:
            cells = HEAD + dims + m * dims + m
            rows = m * dims * PARTS
        if self.max_bytes < NO_BYTE_CAP and <long long>(
                nbytes(self) + 2 * row_bytes(self) + sizeof(double) * (
                    pool_grow_cells(&self.cands, cells)
                    + pool_grow_cells(&self.hists, rows * self.value_stride))) > self.max_bytes:
            return 0
        cb = pool_alloc(&self.cands, s, cells)
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
        if self.splitter == SPLITTER_GAUSSIAN:
            memset(cb + HEAD + dims, 0, TAIL * sizeof(double))
        pool_alloc(&self.hists, s, rows)
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
        if waiting <= self.max_active - self.n_active and (
                self.max_active != FRINGE_AUTO or self.all_fit(waiting)):
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
        if self.max_active == FRINGE_AUTO and evict_on:
            self.evict()
        return 0

    cdef bint may_fit(self) noexcept nogil:
        """Whether the smallest fringe block (one candidate feature) may fit in the byte
        budget: for the auto fringe, whose byte budget is its only cap, a cheap test before
        `activate` looks for a free slot at each sample of an inactive leaf. A fixed fringe
        does not ask (its results stay those of its releases)."""
        if self.max_active != FRINGE_AUTO or self.max_bytes >= NO_BYTE_CAP:
            return True
        return <long long>(nbytes(self) + 2 * row_bytes(self) + sizeof(double) * (
            HEAD + 1 + TAIL + G_ROWS * self.value_stride)) <= self.max_bytes

    cdef bint all_fit(self, int32_t waiting) noexcept nogil:
        """Whether `waiting` more fringe blocks of the widest layout (every feature a
        candidate) fit in the tree's byte budget beside two more node rows."""
        cdef size_t cells, rows
        if self.max_bytes >= NO_BYTE_CAP:
            return True
        if self.splitter == SPLITTER_GAUSSIAN:
            cells = HEAD + self.n_features + TAIL
            rows = <size_t>self.n_features * G_ROWS
        else:
            cells = HEAD + self.n_features + <size_t>self.candidate_points * (self.n_features + 1)
            rows = <size_t>self.candidate_points * self.n_features * PARTS
        return <long long>(nbytes(self) + 2 * row_bytes(self) + sizeof(double) * (
            pool_grow_cells(&self.cands, <size_t>waiting * cells)
            + pool_grow_cells(&self.hists, <size_t>waiting * rows * self.value_stride))) \
            <= self.max_bytes

    cdef int evict(self) except -1 nogil:
        """The auto fringe, full: the inactive leaf of largest s(A) takes the place of the
        active leaf of smallest s(A) if its s(A) is more than EVICT_RATIO times larger (a
        pure or starved leaf would otherwise hold its place for ever). One exchange per
        call (a split), so the fringe turns over slowly."""
        cdef int32_t j, best = -1, worst = -1
        cdef double s, top = 0.0, low = INFINITY
        for j in range(self.n_nodes):
            if self.left[j] >= 0:
                continue
            s = self.score(j)
            if self.slot[j] < 0:
                if s > top:
                    top = s
                    best = j
            elif s < low:
                low = s
                worst = j
        if best < 0:
            return 0
        if self.activate(best) or worst < 0 or not top > EVICT_RATIO * low:
            return 0
        self.deactivate(worst)
        if not self.activate(best):
            self.activate(worst)
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
            if s >= 0 and self.splitter == SPLITTER_GAUSSIAN:  # the summaries are labels too
                memset(pool_block(&self.cands, s) + HEAD + <int32_t>pool_block(&self.cands, s)[0],
                       0, TAIL * sizeof(double))
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

    cdef int count(self, int32_t s, const double* x, double y, double w,
                   int32_t part) except -1 nogil:
        """Count x (class y, or target y for regression, weight w) on its side of every
        candidate split of fringe slot `s`, in the histograms of `part` (STRUCTURE or
        ESTIMATION). A value or threshold that is missing counts nowhere."""
        cdef const double* cb = pool_block(&self.cands, s)
        cdef double* h = pool_block(&self.hists, s)
        cdef int32_t dims = <int32_t>cb[0], n = <int32_t>cb[1], k, p, c
        cdef size_t stride = self.hists.stride
        cdef const double* thr = cb + HEAD + dims
        cdef double v, t
        cdef double* cell
        cdef bint regression = self.task == TASK_REGRESSION
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

    # ---------------------------------------------------------------- splitting

    def describe(self, int32_t j):
        """An active leaf's split candidates (denil2013's candidate features and points): how
        many, and the one it would split at now (registry column, threshold), if any."""
        cdef int32_t s, c, depth = 0, i = j, dims
        cdef const double* cb
        if not 0 <= j < self.n_nodes:
            raise IndexError(f"node {j} is not one of the tree's {self.n_nodes} nodes")
        s = self.slot[j]
        if self.left[j] >= 0 or s < 0:
            return {}
        while self.parent[i] >= 0:
            depth += 1
            i = self.parent[i]
        cb = pool_block(&self.cands, s)
        dims = <int32_t>cb[0]
        c = self.best_split(j, s, depth)
        info = {"candidates": dims * <int32_t>cb[1]}
        if c >= 0:
            info["best"] = (<int32_t>cb[HEAD + c % dims], cb[HEAD + dims + c])
        return info

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
            if self.task == TASK_REGRESSION:
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
            if self.task == TASK_REGRESSION:
                g = variance_gain(row, row + stride)
            else:
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
            if self.task == TASK_REGRESSION:
                total = v[REG_WEIGHT]
                v[REG_WEIGHT] = 0.0  # a node's weight lives in `weight`
            else:
                for k in range(self.n_values):
                    total += v[k]
            self.weight[l + side] = total
            self.born[l + side] = born
        self.deactivate(node)
        self.n_splits += 1
        return self.refill()

    # ---------------------------------------------------------------- one sample

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        """A kept sample: to the structure stream or to the estimation stream (the paper's
        honest trees: one draw of the tree's generator), or to both (`honest=False`)."""
        cdef bint structure = True
        cdef double before = self.n_estimation
        if self.honest:
            structure = rng_uniform(&self.rng) < self.structure_fraction
        if self.splitter == SPLITTER_GAUSSIAN:
            self.learn_gaussian(x, y, w, structure, not structure or not self.honest)
        else:
            self.learn_points(x, y, w, structure, not structure or not self.honest)
        if self.max_active == FRINGE_AUTO and evict_on and self.n_features > 0 \
                and floor(before / EVICT_PERIOD) != floor(self.n_estimation / EVICT_PERIOD) \
                and self.can_add(2):
            self.evict()
        return 0

    cdef int learn_points(self, const double* x, double y, double w, bint structure,
                          bint estimation) except -1 nogil:
        """The paper's splitter: candidate thresholds from the leaf's first structure points,
        their histograms, algorithms 3-7."""
        cdef int32_t depth = self.route(x), j = self.path[depth - 1], s, c, k
        if estimation:
            for k in range(depth):
                add_stats(self, self.path[k], y, w)
            self.n_estimation += w
        depth -= 1  # the leaf's depth (the root's is 0)
        s = self.slot[j]
        if s < 0 and self.n_active < self.max_active and self.can_add(2) and self.may_fit():
            # a free place in the fringe (the root, or features arrived late)
            self.activate(j)
            s = self.slot[j]
        if s < 0:
            return 0
        if estimation:
            self.count(s, x, y, w, ESTIMATION)
        if not structure:
            return 0
        self.add_point(s, x)
        self.count(s, x, y, w, STRUCTURE)
        c = self.best_split(j, s, depth)
        if c >= 0 and self.can_add(2):
            self.split(j, s, c)
        return 0

    # ---------------------------------------------------------------- the Gaussian splitter

    cdef int learn_gaussian(self, const double* x, double y, double w, bint structure,
                            bint estimation) except -1 nogil:
        """MOA's Hoeffding tree leaf, on the fringe: an active leaf keeps per-class Gaussian
        summaries of its candidate features (structure points); every `grace_period` of
        structure weight it splits at the best of `candidate_points` thresholds per feature
        once the Hoeffding bound separates the best feature from the runner-up (or falls
        below `tie_threshold`). With adaptive leaves, before a point is counted, the leaf
        scores its majority class and its naive Bayes guess on it."""
        cdef int32_t depth = self.route(x), j = self.path[depth - 1], s, k, dims, c, top
        cdef int32_t label = <int32_t>y
        cdef double* cb
        cdef double* g
        cdef const double* v
        s = self.slot[j]
        if s < 0 and self.n_active < self.max_active and self.can_add(2) and self.may_fit():
            self.activate(j)
            s = self.slot[j]
        if s >= 0 and self.leaf_prediction == LEAF_ADAPTIVE:
            cb = pool_block(&self.cands, s)
            dims = <int32_t>cb[0]
            v = self.value + <size_t>j * self.value_stride
            top = 0
            for c in range(1, self.n_values):
                if v[c] > v[top]:
                    top = c
            if self.weight[j] > 0.0 and top == label:
                cb[HEAD + dims + MAJORITY_RIGHT] += w
            if self.naive_bayes(j, s, x, NULL, 0) == label:
                cb[HEAD + dims + BAYES_RIGHT] += w
        if estimation:
            for k in range(depth):
                add_stats(self, self.path[k], y, w)
            self.n_estimation += w
        if s < 0 or not structure:
            return 0
        cb = pool_block(&self.cands, s)
        g = pool_block(&self.hists, s)
        dims = <int32_t>cb[0]
        for k in range(dims):
            if x[<int32_t>cb[HEAD + k]] == x[<int32_t>cb[HEAD + k]]:
                gauss_add(g + <size_t>k * G_ROWS * self.hists.stride, self.hists.stride, label,
                          x[<int32_t>cb[HEAD + k]], w)
        cb[HEAD + dims + SEEN] += w
        if cb[HEAD + dims + SEEN] - cb[HEAD + dims + CHECKED] < self.grace_period:
            return 0
        cb[HEAD + dims + CHECKED] = cb[HEAD + dims + SEEN]
        if self.can_add(2):
            self.gauss_split(j, s)
        return 0

    cdef int gauss_split(self, int32_t node, int32_t s) except -1 nogil:
        """The Hoeffding test at leaf `node` (fringe slot `s`): per candidate feature, the best
        information gain over `candidate_points` thresholds evenly inside the range seen, each
        side's class weights estimated from the Gaussians (a side must hold 1% of the weight);
        split at the best if it beats the runner-up feature (or no split, gain 0) by more than
        eps = sqrt(R^2 ln(1/delta) / 2n), R = log2(classes), n the structure weight seen, or if
        eps < tie_threshold. The children start with the leaf's class histogram shared out as
        the chosen feature's Gaussians share each class."""
        cdef double* cb = pool_block(&self.cands, s)
        cdef const double* g
        cdef size_t stride = self.hists.stride
        cdef int32_t dims = <int32_t>cb[0], nv = self.n_values, bins = self.candidate_points
        cdef int32_t k, i, c, p, present, best_k = -1, l
        cdef double low, high, total, t, gain, nl, sl, sr, lw, parent, eps, r
        cdef double n = cb[HEAD + dims + SEEN]
        cdef double first = 0.0, second = 0.0, dim_best, dim_t, best_t = 0.0, share
        cdef double* scratch = <double*>malloc(5 * <size_t>(nv if nv > 0 else 1) * sizeof(double))
        cdef double* w          # the classes present: weight, mean, scale, lowest, highest value
        cdef double* mean
        cdef double* sd
        cdef double* lo
        cdef double* hi
        cdef double* v
        if scratch == NULL:
            with gil:
                raise MemoryError()
        w = scratch
        mean = scratch + nv
        sd = scratch + 2 * nv
        lo = scratch + 3 * nv
        hi = scratch + 4 * nv
        try:
            for k in range(dims):
                g = pool_block(&self.hists, s) + <size_t>k * G_ROWS * stride
                present = 0
                parent = 0.0
                total = 0.0
                low = INFINITY
                high = -INFINITY
                for c in range(nv):
                    if g[c] <= 0.0:
                        continue
                    w[present] = g[c]
                    mean[present] = g[G_MEAN * stride + c]
                    sd[present] = gauss_scale(g, stride, c)
                    lo[present] = g[G_LOW * stride + c]
                    hi[present] = g[G_HIGH * stride + c]
                    low = lo[present] if lo[present] < low else low
                    high = hi[present] if hi[present] > high else high
                    total += g[c]
                    parent -= xlog2x(g[c])
                    present += 1
                if present < 2 or not high > low:
                    continue  # one class, or one value: nothing to gain
                parent += xlog2x(total)
                dim_best = 0.0
                dim_t = low
                for i in range(bins):
                    t = low + (high - low) * (i + 1) / (bins + 1)
                    nl = 0.0
                    sl = 0.0
                    sr = 0.0
                    for p in range(present):
                        lw = normal_below(w[p], mean[p], sd[p], lo[p], hi[p], t)
                        nl += lw
                        sl += xlog2x(lw)
                        sr += xlog2x(w[p] - lw)
                    if nl < MIN_BRANCH_FRACTION * total or total - nl < MIN_BRANCH_FRACTION * total:
                        continue
                    gain = entropy_gain(parent, total, nl, sl, total - nl, sr)
                    if gain > dim_best:
                        dim_best = gain
                        dim_t = t
                if dim_best > first:
                    second = first
                    first = dim_best
                    best_k = k
                    best_t = dim_t
                elif dim_best > second:
                    second = dim_best
            if best_k < 0 or first <= self.min_gain:
                return 0
            r = log2(<double>(nv if nv > 2 else 2))
            eps = sqrt(r * r * log(1.0 / self.split_confidence) / (2.0 * n))
            if not (first - second > eps or eps < self.tie_threshold):
                return 0
            g = pool_block(&self.hists, s) + <size_t>best_k * G_ROWS * stride
            l = self.add_children(node, <int32_t>cb[HEAD + best_k], best_t)
            v = self.value + <size_t>node * self.value_stride
            total = 0.0
            for c in range(nv):
                # left: the class's share below the threshold, rounded to a whole weight (the
                # weights are whole: counts stay exact, and a parent holds its children's
                # weight through every later addition); right: the rest
                share = gauss_below(g, stride, c, best_t) / g[c] if g[c] > 0.0 else 0.5
                lw = floor(v[c] * share + 0.5)
                if lw > v[c]:
                    lw = v[c]
                self.value[<size_t>l * self.value_stride + c] = lw
                self.value[<size_t>(l + 1) * self.value_stride + c] = v[c] - lw
                total += lw
            self.weight[l] = total
            self.weight[l + 1] = self.weight[node] - total if self.weight[node] > total else 0.0
            self.born[l] = self.n_estimation
            self.born[l + 1] = self.n_estimation
            self.deactivate(node)
            self.n_splits += 1
            self.refill()
        finally:
            free(scratch)
        return 0

    cdef int naive_bayes(self, int32_t node, int32_t s, const double* x, double* out,
                         int32_t n_out) noexcept nogil:
        """Naive Bayes at active leaf `node` (fringe slot `s`): the leaf's class histogram as
        the prior, the Gaussians of its candidate features as the likelihoods (a feature's
        variance floored at (1% of its range)^2; a missing value is left out). Writes the
        posterior into `out[:n_out]` (if not NULL) and returns the most probable class, or -1
        when no class has both prior weight and summaries."""
        cdef const double* cb = pool_block(&self.cands, s)
        cdef const double* g
        cdef const double* v = self.value + <size_t>node * self.value_stride
        cdef size_t stride = self.hists.stride
        cdef int32_t dims = <int32_t>cb[0], nv = self.n_values, k, c, best = -1
        cdef double top = -INFINITY, low, high, min_var, xv, total, var, d
        cdef double local[128]
        cdef double* score = local
        cdef double* volume     # per class, a product of variances not yet in the score's log
        if nv > 64:
            score = <double*>malloc(2 * <size_t>nv * sizeof(double))
            if score == NULL:
                return -1
        volume = score + nv
        for c in range(nv):
            score[c] = log(v[c]) if v[c] > 0.0 else -INFINITY
            volume[c] = 1.0
        for k in range(dims):
            xv = x[<int32_t>cb[HEAD + k]]
            if xv != xv:
                continue
            g = pool_block(&self.hists, s) + <size_t>k * G_ROWS * stride
            gauss_span(g, stride, nv, &low, &high)
            if not high >= low:
                continue
            min_var = MIN_SD_SHARE * (high - low)
            min_var = min_var * min_var if min_var > 0.0 else 1e-12
            for c in range(nv):
                if score[c] == -INFINITY:
                    continue
                if g[c] <= 0.0:  # a class without values has no likelihood
                    score[c] = -INFINITY
                    continue
                # log N(xv; mean, var), its log(2 pi var) taken once per few features
                var = gauss_variance(g, stride, c, min_var)
                d = xv - g[G_MEAN * stride + c]
                score[c] -= 0.5 * d * d / var
                volume[c] *= 6.283185307179586 * var
                if not 1e-100 < volume[c] < 1e100:
                    score[c] -= 0.5 * log(volume[c])
                    volume[c] = 1.0
        for c in range(nv):
            if score[c] > -INFINITY:
                score[c] -= 0.5 * log(volume[c])
        for c in range(nv):
            if score[c] > top:
                top = score[c]
                best = c
        if out != NULL and best >= 0:
            total = 0.0
            for c in range(n_out):
                out[c] = exp(score[c] - top) if c < nv and score[c] > -INFINITY else 0.0
                total += out[c]
            for c in range(n_out):
                out[c] /= total
        if score != local:
            free(score)
        return best

    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil:
        """The smoothed path estimate; at an active leaf with naive Bayes leaves (or adaptive
        ones where naive Bayes has been right more often than the majority class), the naive
        Bayes posterior instead."""
        cdef int32_t depth = self.descend(x), j, s, dims
        cdef const double* cb
        self.blend_path(depth, out, n_out)
        if self.leaf_prediction == LEAF_MAJORITY or depth <= 0:
            return
        j = self.path[depth - 1]
        s = self.slot[j]
        if s < 0 or self.weight[j] <= 0.0:
            return
        if self.leaf_prediction == LEAF_ADAPTIVE:
            cb = pool_block(&self.cands, s)
            dims = <int32_t>cb[0]
            if cb[HEAD + dims + BAYES_RIGHT] <= cb[HEAD + dims + MAJORITY_RIGHT]:
                return
        if self.naive_bayes(j, s, x, out, n_out) < 0:  # no class with both: keep the path's
            self.blend_path(depth, out, n_out)

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """The fringe: each active leaf's slot a live block of both pools, of the layout its
        splitter writes (dims distinct-or-not candidate columns within the registry, at most
        `candidate_points` points so far), and no more slots than `max_active`."""
        get = lambda name, default: state[name] if name in state else default
        splitter, leaves = get("splitter", self.splitter), get("leaf_prediction", self.leaf_prediction)
        m, n_values = get("candidate_points", self.candidate_points), get("n_values", 0)
        # (each scalar's own range comes from its declaration: what ties them is checked here)
        if leaves != LEAF_MAJORITY and splitter != SPLITTER_GAUSSIAN:
            raise ValueError("a leaf prediction the splitter cannot serve")
        slot = state.get("slot")
        if slot is None or not n:
            return
        left = state["left"]
        active = slot >= 0
        if (active & (left >= 0)).any():
            raise ValueError("an interior node holds a fringe slot")
        used = slot[active]
        if len(np.unique(used)) != len(used) or len(used) != get("n_active", len(used)) \
                or len(used) > get("max_active", self.max_active):
            raise ValueError("the fringe's slots are shared, miscounted or too many")
        blocks = {}
        for name in ("cands", "hists"):
            if name not in state:
                if len(used):
                    raise ValueError(f"active leaves without their {name!r} pool")
                continue
            rows = state[name + "_rows"]
            if len(used) and (used.max() >= len(rows) or (rows[used] < 0).any()):
                raise ValueError(f"an active leaf's slot is not a block of {name!r}")
            blocks[name] = (state[name], state[name + "_offsets"], rows)
        if not len(used):
            return
        data, offsets, rows = blocks["cands"]
        hist_rows = blocks["hists"][2]
        for s in used:
            block = data[offsets[s]:offsets[s] + rows[s]]
            if len(block) < HEAD:
                raise ValueError("a candidates block is shorter than its head")
            dims, points = block[0], block[1]
            if not (dims == int(dims) and 1 <= dims <= width and points == int(points)
                    and 0 <= points <= m):
                raise ValueError("a candidates block's head is out of range")
            dims = int(dims)
            want = HEAD + dims + TAIL if splitter == SPLITTER_GAUSSIAN else HEAD + dims + m * dims + m
            want_rows = dims * G_ROWS if splitter == SPLITTER_GAUSSIAN else m * dims * PARTS
            if len(block) != want or hist_rows[s] != want_rows:
                raise ValueError("a fringe block's size is not its layout's")
            cols = block[HEAD:HEAD + dims]
            if not (np.all(cols == np.floor(cols)) and cols.min() >= 0 and cols.max() < width):
                raise ValueError("a candidate column is not a column of the registry")

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
        pictures. With the Gaussian splitter, {leaf: (columns, summaries, counters)}: the
        (columns x 5 x classes) summaries (weight, mean, squared deviations, lowest, highest
        value per class, `_gaussian.pxd`) and the structure weight seen, at the last split
        check, and the weight the majority class and naive Bayes predicted right."""
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
            if self.splitter == SPLITTER_GAUSSIAN:
                g = np.array([h[k] for k in range(dims * G_ROWS * self.hists.stride)])
                g = g.reshape(dims, G_ROWS, self.hists.stride)[:, :, :self.n_values]
                out[j] = (cols, g, np.array([cb[HEAD + dims + k] for k in range(TAIL)]))
                continue
            thr = np.array([cb[HEAD + dims + k] for k in range(n * dims)]).reshape(n, dims)
            hist = np.array([h[k] for k in range(m * dims * PARTS * self.hists.stride)])
            hist = hist.reshape(m, dims, PARTS, self.hists.stride)[:n, :, :, :self.n_values]
            out[j] = (cols, thr, hist)
        return out


register_kind(StreamPartitionTree)
