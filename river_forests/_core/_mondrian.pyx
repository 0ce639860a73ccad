"""Online Mondrian tree with a growing lifetime (mourtada2017, algorithms 1-4 and remark 3).

One tree runs two mechanisms per sample, both exact consequences of the Mondrian process
being a race of exponential clocks:

* **Conditional Mondrian extension** (LRT14, the paper's remark 3). Each node keeps the box of
  the data it has seen. A point x outside a node's box, at distance e_d in dimension d, may
  start a new split above that node: the split time is tau_parent + Exp(sum_d e_d); if it comes
  before the node's own split time (the lifetime lambda for a leaf), a new parent is inserted
  that separates x (in a fresh leaf) from the old node. Otherwise the box grows to hold x.
* **ExtendMondrian** (the paper's algorithm 3, efficient form). When the lifetime grows from
  lambda to lambda', each leaf splits at rate |A| (its linear dimension) during (lambda,
  lambda']. One exponential clock per tree tracks the total rate sum_leaves |A|; when it rings
  the leaf to split is found top-down, each step choosing a child in proportion to the summed
  linear dimension of the leaves below it (kept in `rate`). The split dimension is drawn in
  proportion to the side lengths, the threshold uniformly inside the leaf's box. The two
  children start with empty boxes: they have seen no data yet.

Features are measured in units of the root box (the range of everything the tree has seen), so
the tree is invariant to rescaling any feature, as the paper's [0, 1]^d setting assumes. The
scale is refreshed whenever a root range grows by more than `rescale_factor`. The first
`warmup` samples only stretch the root box: splits drawn against the range of two or three
points would be measured in units that the next points make meaningless (the sum of the
relative extensions of a growing range diverges like log(final / initial range)). After the
warm-up the lifetime is raised from 0 by ExtendMondrian, which samples the Mondrian process
on the warm-up box.

Three options go beyond the paper (each off gives its tree back, bit for bit):

* **Recycling at the node cap** (`recycling`): a full tree frees the twigs holding the least
  data (`recycle`, through the shared `_tree_budget.collapse`), which rest until a sample reaches them.
* **Linear leaves** (`linear`, regression; the shared part `_leaf_linear`): each node keeps a
  linear model of the target over x in units of the root range (`z`, `load_z`), stepped along
  the path like the statistics and inherited by new nodes; the leaf's model predicts.
* **Aggregation over prunings** (`use_aggregation`, AMF): each node keeps the log weight of its
  own predictions' cumulated loss (`logw`) and of its subtree over every pruning (`logwt`);
  the prediction is their mixture along the path (`aggregate_path`).
"""

cdef enum:
    DEF_WARMUP = 16

cdef double LOG2 = 0.6931471805599453


from libc.math cimport INFINITY, exp, fabs, log, log1p, pow
from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memcpy

import numpy as np

from ._tree import register_kind

from ._axis cimport child
from ._box cimport DENSE_ROW, extension, outside, outside_set, padded, rf_lowest_bit
from ._boxtree cimport BoxTree
from ._leaf_linear cimport model_copy, model_fit, model_gain, model_of, model_predict, model_value
from ._random cimport rng_exponential, rng_uniform
from ._tree cimport (CELL_F64, CELL_I32, ROWS_NODE, ROWS_PATH, ROWS_SLOT, SCALAR_BOOL, SCALAR_F64,
                     SCALAR_I32, SCALAR_I64, TASK_CLASSIFICATION, TASK_REGRESSION,
                     add_stats, prefetch_span)
from ._tree_budget cimport node_limit, shed_twigs
from ._tree_table cimport declare_array, declare_scalar


cdef class MondrianTree(BoxTree):
    """A Mondrian tree. Parameters by name: the base's (see `_tree.Tree`), `consistent`,
    `fixed_lifetime` and `lifetime_scale`."""

    def __cinit__(self, *args, **kwargs):
        # C fields start zeroed (pointers NULL); only the non-zero defaults are set here
        self.consistent = True
        self.warmup = DEF_WARMUP
        self.lifetime_scale = 1.0
        self.hazard = 1.0
        self.step = 1.0
        self.models.z_cells = 1  # its budget has always counted `z`, linear leaves or not
        declare_array(self, <void**>&self.tau, b"tau", CELL_F64, ROWS_NODE, NULL, NULL, True, INFINITY)
        declare_array(self, <void**>&self.logw, b"logw", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.logwt, b"logwt", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.resting, b"resting", CELL_I32, ROWS_NODE, NULL, NULL, True, 0)
        declare_array(self, <void**>&self.path_coef, b"path_coef", CELL_F64, ROWS_PATH, NULL, NULL,
                            False, 0.0)
        declare_scalar(self, &self.consistent, b"consistent", SCALAR_BOOL, True)
        declare_scalar(self, &self.fixed_lifetime, b"fixed_lifetime", SCALAR_F64, True)
        declare_scalar(self, &self.lifetime_scale, b"lifetime_scale", SCALAR_F64, True)
        declare_scalar(self, &self.use_aggregation, b"use_aggregation", SCALAR_BOOL, True)
        declare_scalar(self, &self.step, b"step", SCALAR_F64, True)
        declare_scalar(self, &self.recycling, b"recycling", SCALAR_BOOL, True)
        declare_scalar(self, &self.n_recycled, b"n_recycled", SCALAR_I64, False, 0)
        declare_scalar(self, &self.lifetime, b"lifetime", SCALAR_F64, False)
        declare_scalar(self, &self.warmup, b"warmup", SCALAR_I32, False, 0)
        declare_scalar(self, &self.hazard, b"hazard", SCALAR_F64, False)

    cdef int _start(self) except -1:
        self.hazard = rng_exponential(&self.rng, 1.0)
        return 0

    cdef double leaf_rate(self, int32_t node) noexcept nogil:
        """A leaf splits at the rate of its linear dimension (ExtendMondrian); a leaf that
        recycling made of a twig (`resting`) waits for a sample before it may split again."""
        if self.resting[node]:
            return 0.0
        return self.leaf_size(node)

    # ---------------------------------------------------------------- lifetime growth
    # (ExtendMondrian: `BoxTree.grow_lifetime`'s clock over the leaves' linear dimensions)

    cdef int split_leaf(self, int32_t node, double time) except -1 nogil:
        """Split a leaf inside its box at `time`; its two children have seen no data yet."""
        cdef size_t row = <size_t>node * self.feature_capacity
        cdef double total = self.leaf_size(node)
        cdef double u = rng_uniform(&self.rng) * total
        cdef double acc = 0.0, side
        cdef int32_t d, dim = -1, l
        for d in range(self.n_features):
            side = <double>self.upper[row + d] - <double>self.lower[row + d]
            if side > 0.0 and self.inp.scale[d] > 0.0:
                dim = d
                acc += self.inp.scale[d] * side
                if u < acc:
                    break
        self.add_children(node, self.columns[dim], self.inp.origin[dim] + (
            self.lower[row + dim] + rng_uniform(&self.rng) * (
                <double>self.upper[row + dim] - <double>self.lower[row + dim])))
        self.tau[node] = time
        self.propagate_rate(node, -self.rate[node])
        # Aggregation: the children have seen no data and predict as their parent does (the
        # path estimate backs off to it), as if they had been there all along: they share the
        # leaf's past loss. Any shares summing to one leave the leaf's subtree weight exactly
        # as it was (log((e^w + e^(w/2 + w/2)) / 2) = w), and within a child the share is an
        # offset common to the child and its subtree, which cancels in its weight.
        l = self.left[node]
        if self.models.stride > 0:  # linear leaves: the children start from their parent's model
            model_copy(&self.models, l, node)
            model_copy(&self.models, l + 1, node)
        self.logw[l] = 0.5 * self.logw[node]
        self.logwt[l] = self.logw[l]
        self.logw[l + 1] = self.logw[l]
        self.logwt[l + 1] = self.logw[l]
        return 0

    # ---------------------------------------------------------------- at the node cap

    cdef int recycle(self) except -1 nogil:
        """Free nodes for new splits at the cap: the twigs (interior nodes over two leaves)
        that hold the least data, an eighth of the cap of them at a time (a quarter of the nodes),
        become leaves again (`_tree_budget.shed_twigs`). A freed twig keeps its box and statistics
        (which already count its leaves' samples) and rests until a sample reaches it; then it
        may split again when the process says so. The nodes go where the data is dense, in
        bounded memory."""
        self.n_recycled += shed_twigs(self, node_limit(self) // 8)
        return 0

    cdef int free_twig(self, int32_t node) except -1 nogil:
        """A twig becoming a leaf: no cut time, and it rests (see `leaf_rate`)."""
        self.tau[node] = INFINITY
        self.resting[node] = 1  # no split until a sample comes (see `leaf_rate`)
        self.propagate_rate(node, -self.rate[node])
        if self.use_aggregation:
            self.update_weights_up(node)
        return 0

    # ---------------------------------------------------------------- aggregation

    cdef double node_loss(self, int32_t node, double y, double prior, double var,
                          double* estimate) noexcept nogil:
        """The loss of the node's prediction of target `y` before it learns it, and that
        prediction (`estimate`: the probability of class y, or the mean). A node predicts by
        the path rule of `blend_path`: its statistics with the parent's prediction `prior` as
        a prior of strength `smoothing`. Log loss for classes (floored at 1e-12), squared
        error over twice the target's variance `var` for values, so `step` is unit-free. With
        linear leaves a node's prediction of a value is its model's (`z` holds the sample);
        `estimate` stays the mean, the prior of the path rule."""
        cdef double n = self.weight[node], a = self.smoothing, e = prior, r
        cdef const double* v = self.value + <size_t>node * self.value_stride
        if self.task == TASK_CLASSIFICATION:
            if n + a > 0.0:
                e = (v[<int32_t>y] + a * prior) / (n + a)
            estimate[0] = e
            return -log(e if e > 1e-12 else 1e-12)
        if n + a > 0.0:
            e = (v[0] + a * prior) / (n + a)
        estimate[0] = e
        if self.models.stride > 0 and self.n_features > 0:  # linear leaves: the node's model
            r = y - model_value(&self.models, node, self.inp.z, self.n_features)
        else:
            r = y - e
        return r * r / (2.0 * var)

    cdef void update_weights_up(self, int32_t node) noexcept nogil:
        """Recompute the subtree weights from leaf `node` up to the root (the nodes whose
        subtree changed): logwt = log((e^logw + e^(logwt_left + logwt_right)) / 2)."""
        cdef double a, b, hi, d
        cdef int32_t j
        self.logwt[node] = self.logw[node]
        j = self.parent[node]
        while j >= 0:
            a = self.logw[j]
            b = self.logwt[self.left[j]] + self.logwt[self.right[j]]
            hi = a if a > b else b
            d = fabs(a - b)
            # past 40 nats the smaller term is below double precision of the larger
            self.logwt[j] = hi - LOG2 + (log1p(exp(-d)) if d < 40.0 else 0.0)
            j = self.parent[j]

    cdef int aggregate_path(self, int32_t depth, double* out, int32_t n_out) except -1 nogil:
        """The aggregated prediction along `path[:depth]` (AMF): the mixture, over every
        pruning of the tree, of the prediction of the pruning's leaf on the path, weighted by
        the pruning's prior (2^-nodes) times e^(-step * its cumulated loss). Computed top-down:
        node k of the path weighs w_k = e^(logw - logwt) / 2 of what its ancestors left, the
        leaf all that is left. Node predictions are the path rule's (`blend_path`); writes
        class probabilities, or (mean, mean of y^2)."""
        cdef int32_t k, c, j, known
        cdef double left_over = 1.0, wk, est, est2, acc, n, f, spread, a = self.smoothing
        cdef const double* v
        cdef bint linear = self.models.stride > 0 and self.n_features > 0
        for k in range(depth):
            j = self.path[k]
            if k == depth - 1:
                self.path_coef[k] = left_over
            else:
                wk = 0.5 * exp(self.logw[j] - self.logwt[j])
                if wk > 1.0:
                    wk = 1.0
                self.path_coef[k] = left_over * wk
                left_over *= 1.0 - wk
        if self.task == TASK_CLASSIFICATION:
            known = self.n_values if self.n_values < n_out else n_out
            for c in range(n_out):
                if known == 0:
                    out[c] = 1.0 / n_out
                    continue
                est = 1.0 / known if c < known else 0.0
                acc = 0.0
                for k in range(depth):
                    j = self.path[k]
                    n = self.weight[j]
                    if n + a > 0.0:
                        est = ((self.value[<size_t>j * self.value_stride + c] if c < known else 0.0)
                               + a * est) / (n + a)
                    acc += self.path_coef[k] * est
                out[c] = acc
            return 0
        # values: node k predicts f_k (its mean, or its linear model's value at x, `z` loaded
        # by the caller) with the spread v_k of its targets; the mixture's moments follow
        out[0] = 0.0
        out[1] = 0.0
        n = self.weight[self.root]
        if depth == 0 or n <= 0.0:
            return 0
        v = self.value + <size_t>self.root * self.value_stride
        est = v[0] / n
        est2 = v[1] / n
        for k in range(depth):
            j = self.path[k]
            n = self.weight[j]
            if n + a > 0.0:
                v = self.value + <size_t>j * self.value_stride
                est = (v[0] + a * est) / (n + a)
                est2 = (v[1] + a * est2) / (n + a)
            f = est
            if linear:
                f = model_value(&self.models, j, self.inp.z, self.n_features)
            spread = est2 - est * est
            out[0] += self.path_coef[k] * f
            out[1] += self.path_coef[k] * (f * f + (spread if spread > 0.0 else 0.0))
        return 0

    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil:
        cdef int32_t depth = self.descend(x)
        cdef bint linear = self.models.stride > 0 and depth > 0 and self.n_features > 0
        if linear:  # a tree with no feature has no model but the mean
            self.load_z(x)
        if self.use_aggregation:
            self.aggregate_path(depth, out, n_out)
            return
        self.blend_path(depth, out, n_out)
        if linear:
            model_predict(&self.models, self.path[depth - 1], self.inp.z, self.n_features, out)

    cdef int clear_stats(self) except -1 nogil:
        """A refit also forgets what was learned from the old targets: the aggregation
        weights, and the linear models (`BoxTree`)."""
        cdef int32_t j
        for j in range(self.n_nodes):
            self.logw[j] = 0.0
            self.logwt[j] = 0.0
        return BoxTree.clear_stats(self)

    # ---------------------------------------------------------------- one sample

    cdef int split_above(self, int32_t node, const double* x, const double* xs, double time,
                         double total, double y, double w, double loss, double g) except -1 nogil:
        """Insert a parent above `node`, split off x into a new leaf (conditional Mondrian).
        `xs` is x shifted by `origin`, the units of the boxes. `loss` is node's loss on x
        (aggregation): the parent, which has node's statistics and past, and the new leaf,
        which predicts as its parent, both take it; node itself did not see x. `g` is the step
        of the linear models (`_leaf_linear.model_gain`)."""
        cdef double u = rng_uniform(&self.rng) * total
        cdef double acc = 0.0, v, lo, hi, thr, e
        cdef int32_t d, dim = -1, p, s
        cdef size_t rj, rp
        cdef bint x_right
        rj = <size_t>node * self.feature_capacity
        for d in range(self.n_features):
            e = extension(xs[d], self.lower[rj + d], self.upper[rj + d])
            if e > 0.0 and self.inp.scale[d] > 0.0:
                dim = d
                acc += self.inp.scale[d] * e
                if u < acc:
                    break
        # the threshold in the units of x, between the box and x: the old points and x
        # are routed by `child` on the original values
        v = x[self.columns[dim]]
        hi = self.inp.origin[dim] + self.upper[rj + dim]
        lo = self.inp.origin[dim] + self.lower[rj + dim]
        x_right = xs[dim] > self.upper[rj + dim]
        if x_right:
            thr = hi + rng_uniform(&self.rng) * (v - hi)
        else:
            thr = v + rng_uniform(&self.rng) * (lo - v)
        p = self.insert_parent(node, x_right)
        s = self.right[p] if x_right else self.left[p]
        rj = <size_t>node * self.feature_capacity
        rp = <size_t>p * self.feature_capacity
        memcpy(self.lower + rp, self.lower + rj, self.n_features * sizeof(float))
        memcpy(self.upper + rp, self.upper + rj, self.n_features * sizeof(float))
        self.stretch(p)
        self.stretch(s)
        self.tau[p] = time
        self.feature[p] = self.columns[dim]
        self.threshold[p] = thr
        self.rate[p] = self.rate[node]
        add_stats(self, p, y, w)
        add_stats(self, s, y, w)
        if self.models.stride > 0:
            # p starts from node's model and learns x (having counted x already: its intercept
            # step is 1 / (weight + 1), one sample gentler than on a walk); s starts from p's
            model_copy(&self.models, p, node)
            model_fit(&self.models, p, self.inp.z, self.n_features, y, self.weight[p], g)
            model_copy(&self.models, s, p)
        if self.use_aggregation:
            self.logw[p] = self.logw[node] - self.step * w * loss
            self.logw[s] = -self.step * w * loss
            self.update_weights_up(s)
        return 0

    cdef int insert(self, const double* x, const double* xs, uint64_t slots, double y,
                    double w) except -1 nogil:
        """Route x from the root, extending boxes and maybe splitting off x; update statistics.
        `slots`: x's set slots (`BoxTree.shift`).

        The hot loop of the tree. Updating a node changes neither its split nor its
        children's weights, so the next node on the path is found before this one is
        updated and its box rows, most of the bytes a walk reads, are requested first. Whether
        x lies outside a box is decided in float32 on its bracket (`_box.outside`); only then
        are the per-feature distances summed in float64 (`split_above`, rare, recomputes them
        to choose the dimension), and at the node cap, where no split can happen, never."""
        cdef int32_t j = self.root, d, nxt = -1, k = 0
        cdef int32_t kept = self.reuse  # > 0: `path` holds x's walk (`Tree.route`)
        if kept > 0 and self.walk_tag != 0:  # a prediction's walk (`Tree.route`)
            self.n_reused += 1
        cdef int32_t n_features = self.n_features
        cdef int32_t n_cols = padded(n_features)  # <= stride; `below`/`above` NaN past n_features
        cdef size_t stride = self.feature_capacity
        cdef size_t row_bytes = <size_t>n_features * sizeof(float)
        cdef const float* lo_row
        cdef const float* hi_row
        cdef const float* below = self.below
        cdef const float* above = self.above
        cdef const double* scale = self.inp.scale
        cdef double parent_time = 0.0, total, e, node_time
        cdef bint can_split = self.can_add(2)
        cdef bint out, leaf
        cdef bint agg = self.use_aggregation
        cdef double prior = 0.0, var = 1.0, loss = 0.0, est, g = 0.0
        cdef bint fit = self.models.stride > 0
        cdef bint sparse = slots != <uint64_t>DENSE_ROW  # the box loops over x's set slots
        cdef uint64_t mask
        if fit:
            g = model_gain(self.linear_rate, w, self.load_z(x))
        if agg:
            prior = self.aggregation_start(&var)
        while True:
            lo_row = self.lower + <size_t>j * stride
            hi_row = self.upper + <size_t>j * stride
            leaf = self.left[j] < 0
            if not leaf:
                nxt = self.path[k + 1] if kept > 0 else child(self, j, x)
                if not sparse:  # a sparse x reads a few cells of a row, if any
                    prefetch_span(self.lower + <size_t>nxt * stride, row_bytes)
                    prefetch_span(self.upper + <size_t>nxt * stride, row_bytes)
            # x lies outside the box, or gives it its first value on a side
            if sparse:
                out = outside_set(below, above, lo_row, hi_row, slots)
            else:
                out = outside(below, above, lo_row, hi_row, n_cols)
            if agg:
                loss = self.node_loss(j, y, prior, var, &est)
                prior = est
            if out and can_split:
                total = 0.0
                if sparse:  # the same terms in the same order: a missing slot adds +0.0
                    mask = slots
                    while mask:
                        d = rf_lowest_bit(mask)
                        mask &= mask - 1
                        total += scale[d] * extension(xs[d], lo_row[d], hi_row[d])
                else:
                    for d in range(n_features):
                        total += scale[d] * extension(xs[d], lo_row[d], hi_row[d])
                if total > 0.0:
                    node_time = self.lifetime if leaf else self.tau[j]
                    e = parent_time + rng_exponential(&self.rng, total)
                    if e < node_time:
                        return self.split_above(j, x, xs, e, total, y, w, loss, g)
            if out:
                self.stretch_slots(j, slots)
            if agg:
                self.logw[j] -= self.step * w * loss
            if fit:
                model_fit(&self.models, j, self.inp.z, n_features, y, self.weight[j], g)
            if leaf and self.resting[j]:
                self.resting[j] = 0
                out = True  # a resting leaf wakes up: its split rate comes back
            add_stats(self, j, y, w)
            if leaf:
                if out:  # the leaf's box grew: so did its split rate
                    self.propagate_rate(j, self.leaf_size(j) - self.rate[j])
                if agg:
                    self.update_weights_up(j)
                return 0
            parent_time = self.tau[j]
            j = nxt
            k += 1

    cdef double aggregation_start(self, double* var) noexcept nogil:
        """The prior of the root's prediction (uniform over the known classes, or the
        root's mean) and, for values, the variance of the targets so far (1 while unknown)."""
        cdef double n = self.weight[self.root], m, s
        cdef const double* v = self.value + <size_t>self.root * self.value_stride
        var[0] = 1.0
        if self.task == TASK_CLASSIFICATION:
            return 1.0 / self.n_values
        if n <= 0.0:
            return 0.0
        m = v[0] / n
        s = v[1] / n - m * m
        if s > 1e-12 * (m * m + 1e-300):
            var[0] = s
        return m

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        cdef double new_lifetime, prior, var, nz
        cdef uint64_t slots = self.shift(x)
        if self.n_seen <= self.warmup:
            # lifetime 0: the root only learns its box and statistics (and its model, whose
            # intercept starts at the first target: the inputs start at 0, the origin)
            self.stretch(self.root)
            nz = self.load_z(x) if self.models.stride > 0 else 1.0
            if self.use_aggregation:
                prior = self.aggregation_start(&var)
                self.logw[self.root] -= self.step * w * self.node_loss(self.root, y, prior, var, &prior)
                self.logwt[self.root] = self.logw[self.root]
            if self.models.stride > 0:
                if self.n_seen == 1:
                    model_of(&self.models, self.root)[0] = y
                else:
                    model_fit(&self.models, self.root, self.inp.z, self.n_features, y,
                              self.weight[self.root], model_gain(self.linear_rate, w, nz))
            add_stats(self, self.root, y, w)
            return 0
        self.maybe_rescale(self.shifted, slots)
        if self.recycling and not self.can_add(2):
            self.recycle()
        if self.consistent:
            new_lifetime = self.lifetime_scale * pow(<double>self.n_seen, 1.0 / (self.n_features + 2))
        else:
            new_lifetime = self.fixed_lifetime
        if new_lifetime > self.lifetime:
            self.grow_lifetime(new_lifetime)
        return self.insert(x, self.shifted, slots, y, w)

    # ---------------------------------------------------------------- introspection, pickling

    @property
    def current_lifetime(self):
        return self.lifetime


register_kind(MondrianTree)
