"""Online purely random and scale-invariant random trees (biau2008, section 3).

Batch, a purely random tree makes k cuts: each picks a leaf uniformly at random, a coordinate
uniformly at random and a position uniformly on the leaf cell's side; the tree predicts with
the labels of the training points in the leaf of x. Splits never look at labels. The forest
is consistent when k -> infinity and k / n -> 0 (theorem 2, on [0, 1]^d).

Online, here:

* **The schedule.** After its n-th sample a tree has made k_n cuts:
  k_n = floor(cuts_scale * n^cuts_exponent) with 0 < cuts_exponent < 1, so k_n -> infinity
  and k_n / n -> 0, the theorems' conditions (or min(k, that) for a fixed k, for comparison). A cut that is
  due while no leaf can be cut waits for one (rank cuts need two distinct values in a leaf:
  while the schedule asks for more cuts than the points can separate, early on, they lag
  and then catch up); a tree at `max_nodes` stops cutting.
* **The cell.** A stream has no fixed [0, 1]^d, so a leaf's cell is bounded by the range of
  the data seen: each node keeps the box of its data (`_boxtree`), the two halves of a cut
  start with the leaf's box clipped at the cut, and they stretch to the points that reach
  them. A cut picks a leaf uniformly among the leaves whose box has a side of positive
  length, a coordinate uniformly among those sides, and a position uniformly on it.
* **Scale-invariant cuts** (theorem 4): the position is a random rank among the leaf's
  points instead. The coordinate of a leaf's next cut is drawn when the leaf learns its
  first sample; the leaf then keeps a uniform reservoir of `pool_size` of its values in that
  coordinate (a leaf whose first 4 values there are all equal, as a rarely-set binary
  feature gives, draws its coordinate again). The cut is at a value u_i of the reservoir, i uniform over its distinct values
  but the largest (x <= u_i goes left: both halves hold points, as the paper's remark after
  theorem 4 allows). Only ranks, never distances, enter, so a strictly increasing transform
  of any feature leaves the partition (and the predictions) unchanged.

A tree predicts the smoothed estimate of the path (`Tree.blend_path`): the two halves of a
fresh cut have seen no data, so they lean on their parent until they have.
"""

from libc.math cimport INFINITY, NAN, floor, pow

cdef enum:
    # values of one coordinate a leaf waits for, all equal, before it draws another
    # coordinate (a continuous feature needs two values to be cut)
    REDRAW_AFTER = 4
from libc.stdint cimport int32_t, uint64_t

from ._axis cimport child
from ._box cimport round_down, round_up
from ._boxtree cimport BoxTree, learn_node
from ._leaf_linear cimport model_copy
from ._random cimport rng_randint, rng_uniform
from ._tree cimport (CELL_F64, CELL_I32, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32, Tree,
                     add_stats)
from ._tree_table cimport declare_array, declare_scalar
from ._tree import register_kind

import numpy as np


cdef class PurelyRandomTree(BoxTree):
    """A purely random tree. Parameters by name: the base's (see `_tree.Tree`), `consistent`,
    `fixed_cuts`, `cuts_scale`, `cuts_exponent`, `scale_invariant` and `pool_size`."""

    def __cinit__(self, *args, **kwargs):
        self.consistent = True
        self.cuts_scale = 1.0
        self.cuts_exponent = 0.5
        self.pool_size = 0
        declare_array(self, <void**>&self.next_slot, b"next_slot", CELL_I32, ROWS_NODE, NULL, NULL,
                            True, -1)
        declare_array(self, <void**>&self.pool, b"pool", CELL_F64, ROWS_NODE, &self.pool_size, NULL,
                            True, NAN)
        declare_array(self, <void**>&self.pool_seen, b"pool_seen", CELL_F64, ROWS_NODE, NULL, NULL,
                            True, 0.0)
        declare_scalar(self, &self.consistent, b"consistent", SCALAR_BOOL, True)
        declare_scalar(self, &self.fixed_cuts, b"fixed_cuts", SCALAR_I32, True, 0)
        declare_scalar(self, &self.cuts_scale, b"cuts_scale", SCALAR_F64, True)
        declare_scalar(self, &self.cuts_exponent, b"cuts_exponent", SCALAR_F64, True)
        declare_scalar(self, &self.scale_invariant, b"scale_invariant", SCALAR_BOOL, True)
        declare_scalar(self, &self.pool_size, b"pool_size", SCALAR_I32, True, 0)
        declare_scalar(self, &self.n_cuts, b"n_cuts", SCALAR_I32, False, 0)

    # ---------------------------------------------------------------- rates

    cdef double leaf_rate(self, int32_t node) noexcept nogil:
        """1 for a leaf that can be cut, 0 otherwise: the leaf to cut is uniform among them."""
        cdef const float* lo
        cdef const float* hi
        cdef int32_t d
        cdef int cuttable = 0
        if self.scale_invariant:
            return 1.0 if self.pool_cuttable(node) else 0.0
        lo = self.lower + <size_t>node * self.feature_capacity
        hi = self.upper + <size_t>node * self.feature_capacity
        for d in range(self.n_features):  # no early exit: a loop the compiler vectorizes
            cuttable |= hi[d] > lo[d]
        return 1.0 if cuttable else 0.0

    cdef int rates_after_clear(self, int32_t slot) except -1 nogil:
        """A leaf's rate is 0 or 1 (and a node's the count of cuttable leaves below it, exact
        in a double): each leaf's rate is taken again, and only a leaf whose rate changes
        (its reservoir was on `slot`, or `slot` was its box's only side of positive length)
        updates its ancestors; the rates then are those `recompute_rates` gives."""
        cdef int32_t j
        cdef double r
        for j in range(self.n_nodes):
            if self.left[j] < 0:
                r = self.leaf_rate(j)
                if r != self.rate[j]:
                    self.propagate_rate(j, r - self.rate[j])
        return 0

    cdef bint pool_cuttable(self, int32_t node) noexcept nogil:
        """Whether the leaf's reservoir holds two distinct values."""
        cdef const double* p = self.pool + <size_t>node * self.pool_size
        cdef int32_t k, n = <int32_t>min(self.pool_seen[node], <double>self.pool_size)
        for k in range(1, n):
            if p[k] != p[0]:
                return True
        return False

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """The feature in `slot` leaves the subspace: leaves whose next cut was to be on it
        forget their reservoir and draw again; the boxes forget it (BoxTree)."""
        cdef int32_t j, k
        for j in range(self.n_nodes):
            if self.next_slot[j] == slot:
                self.next_slot[j] = -1
                self.pool_seen[j] = 0.0
                for k in range(self.pool_size):
                    self.pool[<size_t>j * self.pool_size + k] = NAN
        return BoxTree._clear_slot(self, slot)

    # ---------------------------------------------------------------- one sample

    cdef int32_t cuts_due(self) noexcept nogil:
        """k_n for the n samples learned so far."""
        cdef double k = floor(self.cuts_scale * pow(<double>self.n_seen, self.cuts_exponent))
        cdef int32_t due = <int32_t>k if k < 2147483647.0 else 2147483647
        if not self.consistent and self.fixed_cuts < due:
            # a fixed k follows the schedule up to k: all k cuts at once would fall inside the
            # box of the first two points
            return self.fixed_cuts
        return due

    cdef int offer(self, int32_t node, const double* x) except -1 nogil:
        """Offer x's value in the leaf's cut coordinate to its reservoir (scale-invariant)."""
        cdef double v, seen
        cdef int32_t k
        cdef bint was
        if self.n_features == 0:
            return 0
        if self.next_slot[node] < 0:
            self.next_slot[node] = <int32_t>rng_randint(&self.rng, self.n_features)
        v = x[self.columns[self.next_slot[node]]]
        if v != v:
            return 0
        seen = self.pool_seen[node]
        was = self.rate[node] > 0.0
        if seen >= REDRAW_AFTER and not was:
            # REDRAW_AFTER values, all one: the leaf may never be cut in this coordinate (a
            # binary feature rarely 1, a constant one); draw the coordinate again, as the
            # uniform cut draws among the sides it can cut
            self.next_slot[node] = <int32_t>rng_randint(&self.rng, self.n_features)
            self.pool_seen[node] = 0.0
            return self.offer(node, x)
        self.pool_seen[node] = seen + 1.0
        if seen < self.pool_size:
            k = <int32_t>seen
        else:
            k = <int32_t>rng_randint(&self.rng, <Py_ssize_t>seen + 1)
            if k >= self.pool_size:
                return 0
        self.pool[<size_t>node * self.pool_size + k] = v
        if was != self.pool_cuttable(node):
            self.propagate_rate(node, -1.0 if was else 1.0)
        return 0

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        cdef int32_t j, leaf, due, depth, k
        cdef bint fit = self.models.stride > 0
        cdef uint64_t slots = 0
        if fit or not self.scale_invariant:
            slots = self.shift(x)
        if fit:  # linear leaves: their input's units, the root range (BoxTree)
            self.maybe_rescale(self.shifted, slots)
        depth = self.route(x)
        for k in range(depth - 1):
            add_stats(self, self.path[k], y, w)
        j = self.path[depth - 1]
        # the leaf's model alone learns: a tree predicts from its leaf's model, and a cut hands
        # it to the halves (the ancestors' models are never read)
        learn_node(self, j, y, w, self.models_gain(x, w) if fit else 0.0)
        if self.scale_invariant:
            self.offer(j, x)
        else:
            if self.outside_box(j, slots):
                self.stretch_slots(j, slots)
                if self.rate[j] <= 0.0 and self.leaf_rate(j) > 0.0:
                    self.propagate_rate(j, 1.0)
        if fit:  # the root's box: the root range (a leaf's box stretched above already)
            self.stretch(self.root)
        due = self.cuts_due()
        while self.n_cuts < due and self.rate[self.root] > 0.0 and self.can_add(2):
            leaf = self.pick_leaf()
            if leaf < 0 or self.leaf_rate(leaf) <= 0.0:
                self.recompute_rates()  # rounding cannot drift integer rates; a safety net
                break
            if self.scale_invariant:
                self.cut_rank(leaf)
            else:
                self.cut_uniform(leaf)
            self.n_cuts += 1
        return 0

    # ---------------------------------------------------------------- cuts

    cdef int cut_uniform(self, int32_t node) except -1 nogil:
        """Cut the leaf on a coordinate drawn uniformly among its box's sides of positive
        length, at a position uniform on that side."""
        cdef size_t row = <size_t>node * self.feature_capacity
        cdef int32_t d, m = 0, slot = -1, pick
        cdef double lo, hi, rel
        for d in range(self.n_features):
            if self.upper[row + d] > self.lower[row + d]:
                m += 1
        pick = <int32_t>rng_randint(&self.rng, m)
        for d in range(self.n_features):
            if self.upper[row + d] > self.lower[row + d]:
                if pick == 0:
                    slot = d
                    break
                pick -= 1
        lo = self.lower[row + slot]
        hi = self.upper[row + slot]
        rel = lo + rng_uniform(&self.rng) * (hi - lo)
        return self.split(node, slot, rel)

    cdef int cut_rank(self, int32_t node) except -1 nogil:
        """Cut the leaf in its drawn coordinate at u_i, i uniform among the distinct values of
        its reservoir but the largest (sorted u_1 < ... < u_m; x <= u_i goes left)."""
        cdef double* p = self.pool + <size_t>node * self.pool_size
        cdef int32_t n = <int32_t>min(self.pool_seen[node], <double>self.pool_size)
        cdef int32_t a, b, m = 0, pick
        cdef double v
        # insertion sort of at most pool_size values, in place (the reservoir's order is
        # no longer needed: the leaf stops being a leaf)
        for a in range(1, n):
            v = p[a]
            b = a - 1
            while b >= 0 and p[b] > v:
                p[b + 1] = p[b]
                b -= 1
            p[b + 1] = v
        for a in range(n):
            if a == 0 or p[a] != p[a - 1]:
                p[m] = p[a]
                m += 1
        pick = <int32_t>rng_randint(&self.rng, m - 1)
        return self.split(node, self.next_slot[node], p[pick])

    cdef int split(self, int32_t node, int32_t slot, double at) except -1 nogil:
        """Make leaf `node` interior, cut on `slot` at `at` (in the units of the boxes for a
        uniform cut, of x for a rank cut); its two new leaves start with its box clipped at
        the cut and no statistics."""
        cdef int32_t l = self.add_children(
            node, self.columns[slot], at if self.scale_invariant else self.inp.origin[slot] + at)
        cdef int32_t r = l + 1
        cdef size_t fc = self.feature_capacity
        cdef int32_t d
        if not self.scale_invariant:
            for d in range(self.n_features):
                self.lower[l * fc + d] = self.lower[node * fc + d]
                self.upper[l * fc + d] = self.upper[node * fc + d]
                self.lower[r * fc + d] = self.lower[node * fc + d]
                self.upper[r * fc + d] = self.upper[node * fc + d]
            self.upper[l * fc + slot] = round_up(at)
            self.lower[r * fc + slot] = round_down(at)
        if self.models.stride > 0:  # linear leaves: the halves start from the leaf's model
            model_copy(&self.models, l, node)
            model_copy(&self.models, r, node)
        self.rate[l] = self.leaf_rate(l)
        self.rate[r] = self.leaf_rate(r)
        self.propagate_rate(node, self.rate[l] + self.rate[r] - self.rate[node])
        return 0

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """A leaf's next cut slot is a slot of the tree (or -1: not drawn yet); the boxes'
        and the linear leaves' checks (BoxTree)."""
        BoxTree.check_kind_state(self, state, n, width)
        slots = state.get("next_slot")
        if slots is not None and n and (slots.min() < -1
                                        or slots.max() >= state.get("n_features", 0)):
            raise ValueError("a leaf's next cut slot is not a feature slot of the tree")
        seen = state.get("pool_seen")
        if seen is not None and n and not (np.isfinite(seen).all() and (seen >= 0).all()
                                           and (seen == np.floor(seen)).all()):
            raise ValueError("a leaf's count of pooled values is not a count")

    # ---------------------------------------------------------------- introspection

    @property
    def cuts(self):
        """Cuts made so far."""
        return self.n_cuts

    @property
    def cuts_scheduled(self):
        """k_n: the cuts the schedule asks for after the samples learned so far."""
        return self.cuts_due()


register_kind(PurelyRandomTree)
