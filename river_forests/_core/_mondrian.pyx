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

from libc.math cimport INFINITY, pow
from libc.stdint cimport int32_t
from libc.string cimport memcpy

import numpy as np

from ._axis cimport child
from ._box cimport extension, outside, padded
from ._boxtree cimport BoxTree
from ._random cimport rng_exponential, rng_uniform
from ._tree cimport (CELL_F64, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32, TASK_CLASSIFICATION,
                     add_stats, prefetch_span)


cdef class MondrianTree(BoxTree):
    """A Mondrian tree. Parameters by name: the base's (see `_tree.Tree`), `consistent`,
    `fixed_lifetime` and `lifetime_scale`."""

    def __cinit__(self, *args, **kwargs):
        # C fields start zeroed (pointers NULL); only the non-zero defaults are set here
        self.consistent = True
        self.warmup = DEF_WARMUP
        self.lifetime_scale = 1.0
        self.hazard = 1.0
        self.declare_array(<void**>&self.tau, b"tau", CELL_F64, ROWS_NODE, NULL, NULL, True, INFINITY)
        self.declare_scalar(&self.consistent, b"consistent", SCALAR_BOOL, True)
        self.declare_scalar(&self.fixed_lifetime, b"fixed_lifetime", SCALAR_F64, True)
        self.declare_scalar(&self.lifetime_scale, b"lifetime_scale", SCALAR_F64, True)
        self.declare_scalar(&self.lifetime, b"lifetime", SCALAR_F64, False)
        self.declare_scalar(&self.warmup, b"warmup", SCALAR_I32, False)
        self.declare_scalar(&self.hazard, b"hazard", SCALAR_F64, False)

    cdef int _start(self) except -1:
        self.hazard = rng_exponential(&self.rng, 1.0)
        return 0

    cdef double leaf_rate(self, int32_t node) noexcept nogil:
        """A leaf splits at the rate of its linear dimension (ExtendMondrian)."""
        return self.leaf_size(node)

    # ---------------------------------------------------------------- lifetime growth
    # (ExtendMondrian: `BoxTree.grow_lifetime`'s clock over the leaves' linear dimensions)

    cdef int split_leaf(self, int32_t node, double time) except -1 nogil:
        """Split a leaf inside its box at `time`; its two children have seen no data yet."""
        cdef size_t row = <size_t>node * self.feature_capacity
        cdef double total = self.leaf_size(node)
        cdef double u = rng_uniform(&self.rng) * total
        cdef double acc = 0.0, side
        cdef int32_t d, dim = -1
        for d in range(self.n_features):
            side = <double>self.upper[row + d] - <double>self.lower[row + d]
            if side > 0.0 and self.scale[d] > 0.0:
                dim = d
                acc += self.scale[d] * side
                if u < acc:
                    break
        self.add_children(node, self.columns[dim], self.origin[dim] + (
            self.lower[row + dim] + rng_uniform(&self.rng) * (
                <double>self.upper[row + dim] - <double>self.lower[row + dim])))
        self.tau[node] = time
        self.propagate_rate(node, -self.rate[node])
        return 0

    # ---------------------------------------------------------------- one sample

    cdef int split_above(self, int32_t node, const double* x, const double* xs, double time,
                         double total, double y, double w) except -1 nogil:
        """Insert a parent above `node`, split off x into a new leaf (conditional Mondrian).
        `xs` is x shifted by `origin`, the units of the boxes."""
        cdef double u = rng_uniform(&self.rng) * total
        cdef double acc = 0.0, v, lo, hi, thr, e
        cdef int32_t d, dim = -1, p, s
        cdef size_t rj, rp
        cdef bint x_right
        rj = <size_t>node * self.feature_capacity
        for d in range(self.n_features):
            e = extension(xs[d], self.lower[rj + d], self.upper[rj + d])
            if e > 0.0 and self.scale[d] > 0.0:
                dim = d
                acc += self.scale[d] * e
                if u < acc:
                    break
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
        cdef bint can_split = self.can_add(2)
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
