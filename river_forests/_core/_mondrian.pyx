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
"""

cdef enum:
    DEF_WARMUP = 16

from libc.math cimport INFINITY, NAN, pow
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

import numpy as np

from ._box cimport bracket, extension, outside, padded, stretch_box
from ._random cimport rng_exponential, rng_uniform
from ._tree cimport (TASK_CLASSIFICATION, Tree, add_stats, child, export_rows, export_vector,
                     grow_array, import_rows, prefetch_span, restride)


cdef class MondrianTree(Tree):

    def __cinit__(self, *args, **kwargs):
        # C fields start zeroed (pointers NULL); only the non-zero defaults are set here
        self.consistent = True
        self.warmup = DEF_WARMUP
        self.lifetime_scale = 1.0
        self.hazard = 1.0
        self.rescale_factor = 1.1

    def __init__(self, int task, int max_nodes, double smoothing, int subsample_mode,
                 double subsample_rate, uint64_t seed, bint consistent, double lifetime,
                 double lifetime_scale, int max_features=2**31 - 1):
        Tree.__init__(self, task, max_nodes, smoothing, subsample_mode, subsample_rate, seed,
                      max_features)
        self.consistent = consistent
        self.lifetime = 0.0
        self.fixed_lifetime = lifetime
        self.lifetime_scale = lifetime_scale
        self.hazard = rng_exponential(&self.rng, 1.0)

    def __dealloc__(self):
        free(self.tau)
        free(self.rate)
        free(self.lower)
        free(self.upper)
        free(self.scale)
        free(self.snapshot)
        free(self.origin)
        free(self.shifted)
        free(self.below)
        free(self.above)

    # ---------------------------------------------------------------- storage hooks

    cdef int _resize_nodes(self, int32_t capacity) except -1 nogil:
        cdef size_t n = capacity
        grow_array(<void**>&self.tau, n * sizeof(double))
        grow_array(<void**>&self.rate, n * sizeof(double))
        grow_array(<void**>&self.lower, n * self.feature_capacity * sizeof(float))
        grow_array(<void**>&self.upper, n * self.feature_capacity * sizeof(float))
        return Tree._resize_nodes(self, capacity)

    cdef int _resize_features(self, int32_t capacity) except -1 nogil:
        cdef int32_t old = self.feature_capacity
        cdef int32_t d
        cdef float empty_lower = INFINITY, empty_upper = -INFINITY
        restride(<void**>&self.lower, sizeof(float), self.capacity, old, capacity, &empty_lower)
        restride(<void**>&self.upper, sizeof(float), self.capacity, old, capacity, &empty_upper)
        grow_array(<void**>&self.scale, capacity * sizeof(double))
        grow_array(<void**>&self.snapshot, capacity * sizeof(double))
        grow_array(<void**>&self.origin, capacity * sizeof(double))
        grow_array(<void**>&self.shifted, capacity * sizeof(double))
        grow_array(<void**>&self.below, capacity * sizeof(float))
        grow_array(<void**>&self.above, capacity * sizeof(float))
        for d in range(old, capacity):
            self.scale[d] = 0.0
            self.snapshot[d] = 0.0
            self.origin[d] = NAN
            self.below[d] = NAN  # the padding of the box tests (_box.padded)
            self.above[d] = NAN
        return Tree._resize_features(self, capacity)

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """The feature in `slot` leaves the subspace: every box forgets it (an empty side), its
        origin and scale are reset for the next feature, and the split rates are rebuilt."""
        cdef int32_t j
        cdef size_t stride = self.feature_capacity
        for j in range(self.n_nodes):
            self.lower[<size_t>j * stride + slot] = INFINITY
            self.upper[<size_t>j * stride + slot] = -INFINITY
        self.origin[slot] = NAN
        self.scale[slot] = 0.0
        self.snapshot[slot] = 0.0
        return self.recompute_rates()

    cdef int32_t add_node(self, int32_t parent) except -1 nogil:
        cdef int32_t j = Tree.add_node(self, parent)
        cdef size_t row = <size_t>j * self.feature_capacity
        cdef int32_t d
        self.tau[j] = INFINITY
        self.rate[j] = 0.0
        for d in range(self.feature_capacity):
            self.lower[row + d] = INFINITY
            self.upper[row + d] = -INFINITY
        return j

    # ---------------------------------------------------------------- rates and scale

    cdef double leaf_size(self, int32_t node) noexcept nogil:
        """Scaled linear dimension sum_d scale_d * (upper_d - lower_d) of the node's box."""
        cdef size_t row = <size_t>node * self.feature_capacity
        cdef double s = 0.0, side
        cdef int32_t d
        for d in range(self.n_features):
            # a select, not a branch (whether a side is flat is data the predictor loses on);
            # adding scale * 0.0 leaves s exactly as skipping would
            side = <double>self.upper[row + d] - <double>self.lower[row + d]
            s += self.scale[d] * (side if side > 0.0 else 0.0)
        return s

    cdef void propagate_rate(self, int32_t node, double delta) noexcept nogil:
        while node >= 0:
            self.rate[node] += delta
            node = self.parent[node]

    cdef int recompute_rates(self) except -1 nogil:
        """Recompute every subtree rate from the leaves (after a rescale), in O(n_nodes)."""
        cdef int32_t* order = <int32_t*>malloc(<size_t>(self.n_nodes + 1) * sizeof(int32_t))
        cdef int32_t head = 0, tail = 0, j, k
        if order == NULL:
            with gil:
                raise MemoryError()
        if self.root >= 0:
            order[tail] = self.root
            tail += 1
        while head < tail:  # breadth-first: parents before children
            j = order[head]
            head += 1
            if self.left[j] >= 0:
                order[tail] = self.left[j]
                order[tail + 1] = self.right[j]
                tail += 2
        for k in range(tail - 1, -1, -1):
            j = order[k]
            if self.left[j] < 0:
                self.rate[j] = self.leaf_size(j)
            else:
                self.rate[j] = self.rate[self.left[j]] + self.rate[self.right[j]]
        free(order)
        return 0

    cdef void shift(self, const double* x) noexcept nogil:
        """`shifted` = the tree's slots of x (a registry row) minus origin, a feature's first
        value becoming its origin, and its float32 bracket `below` / `above`, what the box
        tests use."""
        cdef int32_t d
        cdef double v
        for d in range(self.n_features):
            v = x[self.columns[d]]
            if v == v and self.origin[d] != self.origin[d]:
                self.origin[d] = v
            self.shifted[d] = v - self.origin[d]
        bracket(self.shifted, self.below, self.above, self.n_features)

    cdef void stretch(self, int32_t node) noexcept nogil:
        """Stretch the node's box to hold the sample being learned (missing values never do).
        It grows exactly when `_box.outside` says the sample lies outside it."""
        cdef size_t row = <size_t>node * self.feature_capacity
        stretch_box(self.lower + row, self.upper + row, self.below, self.above,
                    padded(self.n_features))

    cdef int maybe_rescale(self, const double* x) except -1 nogil:
        """Refresh `scale` if x (shifted) stretches a root range past `rescale_factor` times
        its snapshot."""
        cdef size_t row = <size_t>self.root * self.feature_capacity
        cdef double lo, hi, v
        cdef int32_t d
        cdef int stale = 0
        for d in range(self.n_features):
            # branch-free, every sample: a missing v counts for nothing, and an empty side
            # (+inf, -inf) stretched to a present v spans 0
            v = x[d]
            lo = self.lower[row + d]
            hi = self.upper[row + d]
            lo = v if v < lo else lo
            hi = v if v > hi else hi
            stale |= (v == v) & (hi - lo > self.snapshot[d] * self.rescale_factor)
        if not stale:
            return 0
        for d in range(self.n_features):
            v = x[d]
            lo = self.lower[row + d]
            hi = self.upper[row + d]
            if v == v and lo <= hi:
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
            if lo < hi:
                self.snapshot[d] = hi - lo
                self.scale[d] = 1.0 / (hi - lo)
            else:
                self.snapshot[d] = 0.0
                self.scale[d] = 0.0
        return self.recompute_rates()

    # ---------------------------------------------------------------- lifetime growth

    cdef int32_t pick_leaf(self) noexcept nogil:
        """A leaf drawn with probability proportional to its linear dimension, top-down."""
        cdef int32_t j = self.root
        cdef double rl, rr
        while self.left[j] >= 0:
            rl = self.rate[self.left[j]]
            rr = self.rate[self.right[j]]
            if rl < 0.0:
                rl = 0.0
            if rr < 0.0:
                rr = 0.0
            if rl + rr <= 0.0:
                return -1
            j = self.left[j] if rng_uniform(&self.rng) * (rl + rr) < rl else self.right[j]
        return j

    cdef int grow_lifetime(self, double new_lifetime) except -1 nogil:
        """ExtendMondrian(lifetime -> new_lifetime) with one exponential clock for the tree."""
        cdef double total, budget, t
        cdef int32_t j
        cdef int retries = 0
        while True:
            total = self.rate[self.root]
            if total <= 1e-300 or self.n_nodes + 2 > self.max_nodes:
                break
            budget = total * (new_lifetime - self.lifetime)
            if self.hazard > budget:
                self.hazard -= budget
                break
            t = self.lifetime + self.hazard / total
            j = self.pick_leaf()
            if j < 0 or self.leaf_size(j) <= 0.0:
                # rounding drift in the summed rates: rebuild them once, then go on
                self.recompute_rates()
                retries += 1
                if retries > 2:
                    break
                continue
            self.split_leaf(j, t)
            self.lifetime = t
            self.hazard = rng_exponential(&self.rng, 1.0)
        self.lifetime = new_lifetime
        return 0

    cdef int split_leaf(self, int32_t node, double time) except -1 nogil:
        """Split a leaf inside its box at `time`; its two children have seen no data yet."""
        cdef size_t row = <size_t>node * self.feature_capacity
        cdef double total = self.leaf_size(node)
        cdef double u = rng_uniform(&self.rng) * total
        cdef double acc = 0.0, side
        cdef int32_t d, dim = -1, l, r
        for d in range(self.n_features):
            side = <double>self.upper[row + d] - <double>self.lower[row + d]
            if side > 0.0 and self.scale[d] > 0.0:
                dim = d
                acc += self.scale[d] * side
                if u < acc:
                    break
        l = self.add_node(node)
        r = self.add_node(node)
        row = <size_t>node * self.feature_capacity
        self.feature[node] = self.columns[dim]
        self.threshold[node] = self.origin[dim] + (self.lower[row + dim] + rng_uniform(&self.rng) * (
            <double>self.upper[row + dim] - <double>self.lower[row + dim]))
        self.tau[node] = time
        self.left[node] = l
        self.right[node] = r
        self.propagate_rate(node, -self.rate[node])
        return 0

    # ---------------------------------------------------------------- one sample

    cdef int split_above(self, int32_t node, const double* x, const double* xs, double time,
                         double total, double y, double w) except -1 nogil:
        """Insert a parent above `node`, split off x into a new leaf (conditional Mondrian).
        `xs` is x shifted by `origin`, the units of the boxes."""
        cdef double u = rng_uniform(&self.rng) * total
        cdef double acc = 0.0, v, lo, hi, thr, e
        cdef int32_t d, dim = -1, p, s, pp
        cdef size_t rj, rp, rs
        cdef bint x_right
        rj = <size_t>node * self.feature_capacity
        for d in range(self.n_features):
            e = extension(xs[d], self.lower[rj + d], self.upper[rj + d])
            if e > 0.0 and self.scale[d] > 0.0:
                dim = d
                acc += self.scale[d] * e
                if u < acc:
                    break
        p = self.add_node(self.parent[node])
        s = self.add_node(p)
        rj = <size_t>node * self.feature_capacity
        rp = <size_t>p * self.feature_capacity
        rs = <size_t>s * self.feature_capacity
        # the threshold in the units of x, between the box and x: the old points and x
        # are routed by `child` on the original values
        v = x[self.columns[dim]]
        hi = self.origin[dim] + self.upper[rj + dim]
        lo = self.origin[dim] + self.lower[rj + dim]
        x_right = xs[dim] > self.upper[rj + dim]
        if x_right:
            thr = hi + rng_uniform(&self.rng) * (v - hi)
        else:
            thr = v + rng_uniform(&self.rng) * (lo - v)
        memcpy(self.lower + rp, self.lower + rj, self.n_features * sizeof(float))
        memcpy(self.upper + rp, self.upper + rj, self.n_features * sizeof(float))
        self.stretch(p)
        self.stretch(s)
        self.tau[p] = time
        self.feature[p] = self.columns[dim]
        self.threshold[p] = thr
        self.weight[p] = self.weight[node]
        memcpy(self.value + <size_t>p * self.value_stride,
               self.value + <size_t>node * self.value_stride,
               self.value_stride * sizeof(double))
        self.rate[p] = self.rate[node]
        pp = self.parent[node]
        if pp < 0:
            self.root = p
        elif self.left[pp] == node:
            self.left[pp] = p
        else:
            self.right[pp] = p
        self.parent[node] = p
        if x_right:
            self.left[p] = node
            self.right[p] = s
        else:
            self.left[p] = s
            self.right[p] = node
        add_stats(self, p, y, w)
        add_stats(self, s, y, w)
        return 0

    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil:
        """Route x from the root, extending boxes and maybe splitting off x; update statistics.

        The hot loop of the tree. Updating a node changes neither its split nor its
        children's weights, so the next node on the path is found before this one is
        updated and its box rows, most of the bytes a walk reads, are requested first. Whether
        x lies outside a box is decided in float32 on its bracket (`_box.outside`); only then
        are the per-feature distances summed in float64 (`split_above`, rare, recomputes them
        to choose the dimension), and at the node cap, where no split can happen, never."""
        cdef int32_t j = self.root, d, nxt = -1
        cdef int32_t n_features = self.n_features
        cdef int32_t n_cols = padded(n_features)  # <= stride; `below`/`above` NaN past n_features
        cdef size_t stride = self.feature_capacity
        cdef size_t row_bytes = <size_t>n_features * sizeof(float)
        cdef const float* lo_row
        cdef const float* hi_row
        cdef const float* below = self.below
        cdef const float* above = self.above
        cdef const double* scale = self.scale
        cdef double parent_time = 0.0, total, e, node_time
        cdef bint can_split = self.n_nodes + 2 <= self.max_nodes
        cdef bint out, leaf
        while True:
            lo_row = self.lower + <size_t>j * stride
            hi_row = self.upper + <size_t>j * stride
            leaf = self.left[j] < 0
            if not leaf:
                nxt = child(self, j, x)
                prefetch_span(self.lower + <size_t>nxt * stride, row_bytes)
                prefetch_span(self.upper + <size_t>nxt * stride, row_bytes)
            # x lies outside the box, or gives it its first value on a side
            out = outside(below, above, lo_row, hi_row, n_cols)
            if out and can_split:
                total = 0.0
                for d in range(n_features):
                    total += scale[d] * extension(xs[d], lo_row[d], hi_row[d])
                if total > 0.0:
                    node_time = self.lifetime if leaf else self.tau[j]
                    e = parent_time + rng_exponential(&self.rng, total)
                    if e < node_time:
                        return self.split_above(j, x, xs, e, total, y, w)
            if out:
                self.stretch(j)
            add_stats(self, j, y, w)
            if leaf:
                if out:  # the leaf's box grew: so did its split rate
                    self.propagate_rate(j, self.leaf_size(j) - self.rate[j])
                return 0
            parent_time = self.tau[j]
            j = nxt

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        cdef double new_lifetime
        self.ensure_features(n_features)
        if self.task == TASK_CLASSIFICATION:
            self.ensure_values(<int32_t>y + 1)
        self.n_seen += 1
        if self.root < 0:
            self.root = self.add_node(-1)
        self.shift(x)
        if self.n_seen <= self.warmup:
            # lifetime 0: the root only learns its box and statistics
            self.stretch(self.root)
            add_stats(self, self.root, y, w)
            return 0
        self.maybe_rescale(self.shifted)
        if self.consistent:
            new_lifetime = self.lifetime_scale * pow(<double>self.n_seen, 1.0 / (self.n_features + 2))
        else:
            new_lifetime = self.fixed_lifetime
        if new_lifetime > self.lifetime:
            self.grow_lifetime(new_lifetime)
        return self.insert(x, self.shifted, y, w)

    # ---------------------------------------------------------------- introspection, pickling

    @property
    def current_lifetime(self):
        return self.lifetime

    def arrays(self):
        """The node storage as numpy arrays (a copy), boxes as float64 in the units of x; box
        column d is the tree's slot d, registry column ``columns[d]``."""
        state = self.get_state()
        origin = np.nan_to_num(state["origin"], nan=0.0)
        for side in ("lower", "upper"):
            state[side] = state[side].astype(np.float64) + origin
        return state

    def __sizeof__(self):
        return (Tree.__sizeof__(self)
                + self.capacity * (2 * sizeof(double) + 2 * self.feature_capacity * sizeof(float))
                + 4 * self.feature_capacity * sizeof(double))

    cpdef dict get_state(self):
        cdef dict state = Tree.get_state(self)
        cdef int32_t n = self.n_nodes, f = self.n_features
        state.update(
            tau=export_vector(self.tau, n),
            rate=export_vector(self.rate, n),
            lower=export_rows(self.lower, np.float32, n, self.feature_capacity, f),
            upper=export_rows(self.upper, np.float32, n, self.feature_capacity, f),
            scale=export_vector(self.scale, f),
            snapshot=export_vector(self.snapshot, f),
            origin=export_vector(self.origin, f),
            consistent=self.consistent,
            lifetime=self.lifetime,
            fixed_lifetime=self.fixed_lifetime,
            warmup=self.warmup,
            lifetime_scale=self.lifetime_scale,
            hazard=self.hazard,
            rescale_factor=self.rescale_factor,
        )
        return state

    cpdef set_state(self, dict state):
        cdef int32_t i, d, n, f
        Tree.set_state(self, state)
        n = self.n_nodes
        f = self.n_features
        for i in range(n):
            self.tau[i] = state["tau"][i]
            self.rate[i] = state["rate"][i]
            for d in range(self.feature_capacity):
                self.lower[<size_t>i * self.feature_capacity + d] = INFINITY
                self.upper[<size_t>i * self.feature_capacity + d] = -INFINITY
        import_rows(self.lower, np.float32, state["lower"], self.feature_capacity)
        import_rows(self.upper, np.float32, state["upper"], self.feature_capacity)
        for d in range(f):
            self.scale[d] = state["scale"][d]
            self.snapshot[d] = state["snapshot"][d]
            self.origin[d] = state["origin"][d]
        self.consistent = state["consistent"]
        self.lifetime = state["lifetime"]
        self.fixed_lifetime = state["fixed_lifetime"]
        self.warmup = state["warmup"]
        self.lifetime_scale = state["lifetime_scale"]
        self.hazard = state["hazard"]
        self.rescale_factor = state["rescale_factor"]
