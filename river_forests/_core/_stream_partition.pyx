"""The online random tree with stream partitioning (Denil, Matheson & de Freitas, ICML 2013).

Section 3 and the pseudo-code of appendix A, with the bounded fringe of section 3.6:

* **Two streams** (this class). Each point goes, independently in each tree, to the
  structure stream (probability `structure_fraction`) or to the estimation stream. Structure
  points choose the candidate thresholds and the statistics that rank the candidate splits;
  estimation points fill the class histograms the leaves predict from. A leaf's prediction
  never sees a structure point, and the partition never sees an estimation label (but
  through the fringe policy, as in the paper).
* **Candidates and splitting** (`_sp_points`, algorithms 3-7): a fringe leaf's first m
  structure points give its candidate thresholds in min(1 + Poisson(lambda), D) random
  dimensions; it splits at the valid candidate of largest information gain (ShouldSplit,
  MustSplit), and the two new leaves start with that split's estimation histograms. The
  Gaussian splitter and naive Bayes leaves (`_sp_gaussian`) are MOA's alternative.
* **The fringe** (`_sp_fringe`, section 3.6): at most `max_active` leaves collect
  candidates, the inactive ones ranked by p(A) e(A); a tree at `max_nodes` cannot split: it
  empties its fringe, so memory stays flat.

Statistics follow the base rule (`_tree.pxd`): an estimation point counts in every node of
its path, so smoothing leans on current parent estimates and a missing value goes to the
heavier side; a leaf's own statistics are exactly the paper's.

A regressor's linear leaves (`leaf_model="linear"`, `_leaf_linear`) learn as the leaves'
means do, from the estimation stream only: each estimation point steps its leaf's model (over
x from each slot's origin in units of its range, which every kept point stretches; an interior
node's model is never read again, only a leaf splits), and the two leaves of a split start from
their parent's model.

The information gain compares a candidate's sides over the structure points it has seen
(H of their union), where algorithm 8 takes H(A) over the leaf's whole life: the same when
every candidate saw the same points, and not biased towards late candidates otherwise.
"""

from libc.stdint cimport int32_t

import numpy as np

from ._tree import register_kind

from ._gaussian cimport G_ROWS
from ._leaf_linear cimport (LinearTree, declare_input, declare_input_range, declare_input_z,
                            declare_models, input_clear_slot, models_clear_input, models_observe,
                            models_predict)
from ._pool cimport pool_block
from ._random cimport rng_uniform
from ._sp_fringe cimport fringe_clear, fringe_empty, fringe_review
from ._sp_gaussian cimport gaussian_learn, leaf_naive_bayes
from ._sp_points cimport points_best, points_learn
from ._tree cimport (CELL_F64, CELL_I32, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32, SCALAR_INT,
                     TASK_REGRESSION, Tree)
from ._tree_table cimport declare_array, declare_pool, declare_scalar


cdef class StreamPartitionTree(LinearTree):
    """A stream-partitioning tree. Parameters by name: the base's (see `_tree.Tree`, task
    classification only), `structure_fraction`, `candidate_features`, `candidate_points`,
    `min_gain`, `alpha`, `alpha_growth`, `beta`, `max_active` and, for a regressor, `linear`
    and `linear_rate`."""

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
        # the input's arrays: `input_cols` cells a slot (a declared count, which a saved
        # state gives: 1 with linear leaves, else 0)
        declare_input(self, &self.inp, &self.n_input_cols, NULL)
        declare_input_range(self, &self.low, &self.high, &self.n_input_cols, &self.n_input_cols)
        declare_models(self, &self.models, &self.coef_cols, &self.linear, &self.linear_rate)
        declare_input_z(self, &self.inp, &self.n_input_cols)

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

    # ---------------------------------------------------------------- the protocol's hooks

    cdef int drop_growth(self) except -1 nogil:
        """Over the byte budget: the fringe empties (its leaves keep their histograms), as
        at the node cap; it fills again once nodes fit (`_sp_fringe`)."""
        return fringe_empty(self)

    cdef int32_t* input_cols(self) noexcept nogil:
        return &self.n_input_cols

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """A new feature in `slot`: no model has a slope for it, nor the input a range."""
        if self.models.stride > 0:
            models_clear_input(&self.models, self.n_nodes, slot)
            input_clear_slot(&self.inp, self.low, self.high, slot)
        return 0

    cdef int clear_stats(self) except -1 nogil:
        """A refit's start: besides the nodes' statistics (and linear models), forget the
        fringe's class histograms (its candidate thresholds are structure, and stay) and
        restart p(A)."""
        LinearTree.clear_stats(self)
        self.n_estimation = 0.0
        return fringe_clear(self)

    # ---------------------------------------------------------------- one sample

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        """A kept sample: to the structure stream or to the estimation stream (the paper's
        honest trees: one draw of the tree's generator), or to both (`honest=False`)."""
        cdef bint structure = True
        cdef double before = self.n_estimation
        cdef double g
        if self.honest:
            structure = rng_uniform(&self.rng) < self.structure_fraction
        if self.splitter == SPLITTER_GAUSSIAN:
            gaussian_learn(self, x, y, w, structure, not structure or not self.honest)
        else:
            # linear leaves: the input's range takes x in, `z` is x's (g: the slopes' step)
            g = models_observe(&self.models, &self.inp, self.low, self.high, self, x, w,
                               self.linear_rate)
            points_learn(self, x, y, w, structure, not structure or not self.honest, g)
        return fringe_review(self, before)

    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil:
        """The smoothed path estimate; at an active leaf with naive Bayes leaves (or adaptive
        ones where naive Bayes has been right more often than the majority class), the naive
        Bayes posterior instead; with linear leaves, the mean the leaf's model's."""
        cdef int32_t depth = self.descend(x), j, s, dims
        cdef const double* cb
        self.blend_path(depth, out, n_out)
        models_predict(&self.models, &self.inp, self, x, depth, out)
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
        if leaf_naive_bayes(self, j, s, x, out, n_out) < 0:  # no class with both: keep the path's
            self.blend_path(depth, out, n_out)

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """The fringe: each active leaf's slot a live block of both pools, of the layout its
        splitter writes (dims distinct-or-not candidate columns within the registry, at most
        `candidate_points` points so far), and no more slots than `max_active`."""
        get = lambda name, default: state[name] if name in state else default
        splitter, leaves = get("splitter", self.splitter), get("leaf_prediction", self.leaf_prediction)
        m, n_values = get("candidate_points", self.candidate_points), get("n_values", 0)
        LinearTree.check_kind_state(self, state, n, width)
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
        c = points_best(self, j, s, depth)
        info = {"candidates": dims * <int32_t>cb[1]}
        if c >= 0:
            info["best"] = (<int32_t>cb[HEAD + c % dims], cb[HEAD + dims + c])
        return info

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
