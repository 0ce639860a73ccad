"""Data boxes and split rates, shared by the Mondrian, purely random and BSP trees
(`_boxtree.pxd`).

Features are measured in units of the root box (the range of everything the tree has seen),
refreshed whenever a root range grows by more than `rescale_factor`: what makes a kind that
draws in proportion to side lengths invariant to rescaling a feature. A regressor's linear
leaves (`_leaf_linear`) take the same units: the origins, units and rescale rule are the
part's (`LeafInput`), fed the root box's range here; the models' input `z` is x from `origin`
times `scale` (`load_z`), and the models follow a rescale (`maybe_rescale`).
"""

from libc.math cimport INFINITY, NAN
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from ._box cimport (DENSE_ROW, bracket, outside, outside_set, padded, rf_lowest_bit,
                   stretch_box, stretch_set)
from ._leaf_linear cimport (LinearTree, declare_input, declare_input_z, declare_models,
                            input_clear_slot, input_load, input_outgrown, input_rescale_begin,
                            input_rescale_end, input_set_span, model_gain, models_clear_input)
from ._random cimport rng_exponential, rng_uniform
from ._tree cimport CELL_F32, CELL_F64, ROWS_NODE, ROWS_SLOT
from ._tree_table cimport declare_array
from ._tree_refit cimport order_nodes


cdef enum:
    # a sample setting at most one in this many of a tree's slots takes the sparse box loops
    SPARSE_SHARE = 8


cdef class BoxTree(LinearTree):

    def __cinit__(self, *args, **kwargs):
        declare_array(self, <void**>&self.rate, b"rate", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.lower, b"lower", CELL_F32, ROWS_NODE, &self.feature_capacity,
                            &self.n_features, True, INFINITY)
        declare_array(self, <void**>&self.upper, b"upper", CELL_F32, ROWS_NODE, &self.feature_capacity,
                            &self.n_features, True, -INFINITY)
        declare_input(self, &self.inp, NULL, NULL)  # `origin` and `scale` are the boxes' too
        declare_array(self, <void**>&self.shifted, b"shifted", CELL_F64, ROWS_SLOT, NULL, NULL, False, NAN)
        # NaN past n_features is the padding of the box tests (_box.padded)
        declare_array(self, <void**>&self.below, b"below", CELL_F32, ROWS_SLOT, NULL, NULL, False, NAN)
        declare_array(self, <void**>&self.above, b"above", CELL_F32, ROWS_SLOT, NULL, NULL, False, NAN)
        declare_models(self, &self.models, &self.coef_cols, &self.linear, &self.linear_rate)
        declare_input_z(self, &self.inp, &self.models.z_cells)

    # ---------------------------------------------------------------- linear leaves
    # (`_leaf_linear`: the models over `z`, one input a slot; `LinearTree` the protocol's hooks)

    cdef double load_z(self, const double* x) noexcept nogil:
        """`z` = the tree's slots of the registry row `x`, from their origins, in units of the
        root range, 0 where missing (the models' inputs, when learning, predicting or
        refitting); returns 1 + |z|^2, the normalizer of the models' steps."""
        return input_load(&self.inp, x, self.columns, self.n_features)

    cdef double models_gain(self, const double* x, double w) noexcept nogil:
        """With linear leaves, load `z` from x and return the slopes' step for (x, w)
        (`model_gain`); else 0, computing nothing."""
        if not self.fits_models():
            return 0.0
        return model_gain(self.linear_rate, w, self.load_z(x))

    # ---------------------------------------------------------------- the feature slots

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """The feature in `slot` leaves the subspace: every box forgets it (an empty side), its
        origin and scale are reset for the next feature, no model has a slope for it, and the
        split rates are rebuilt."""
        cdef int32_t j
        cdef size_t stride = self.feature_capacity
        if self.models.stride > 0:
            models_clear_input(&self.models, self.n_nodes, slot)
        for j in range(self.n_nodes):
            self.lower[<size_t>j * stride + slot] = INFINITY
            self.upper[<size_t>j * stride + slot] = -INFINITY
        input_clear_slot(&self.inp, NULL, NULL, slot)
        return self.rates_after_clear(slot)

    cdef int rates_after_clear(self, int32_t slot) except -1 nogil:
        """The split rates once `slot` is cleared from every box: rebuilt (`recompute_rates`);
        a kind whose rates are counts updates only the leaves that change."""
        return self.recompute_rates()

    def arrays(self):
        """The node storage as numpy arrays (a copy), boxes as float64 in the units of x; box
        column d is the tree's slot d, registry column ``columns[d]``."""
        state = self.get_state()
        origin = np.nan_to_num(state["origin"], nan=0.0)
        for side in ("lower", "upper"):
            state[side] = state[side].astype(np.float64) + origin
        return state

    def describe(self, int32_t j):
        """The node's box: (registry column, lowest, highest value seen) for each slot it has
        seen a value of, in the units of x (float32 rounded outward)."""
        cdef int32_t d
        cdef size_t row = <size_t>j * self.feature_capacity
        if not 0 <= j < self.n_nodes:
            raise IndexError(f"node {j} is not one of the tree's {self.n_nodes} nodes")
        box = []
        for d in range(self.n_features):
            if self.lower[row + d] <= self.upper[row + d]:
                box.append((self.columns[d], self.lower[row + d] + self.inp.origin[d],
                            self.upper[row + d] + self.inp.origin[d]))
        return {"box": box}

    # ---------------------------------------------------------------- boxes

    cdef uint64_t shift(self, const double* x) noexcept nogil:
        """`shifted` = the tree's slots of x (a registry row) minus origin, a feature's first
        value becoming its origin, and its float32 bracket `below` / `above`, what the box
        tests use. Returns the slots x sets, as a mask (bit d for slot d), when x is sparse
        (sets at most one in SPARSE_SHARE of the tree's slots, at most 64 slots: a bag of
        words, a one-hot table), else DENSE_ROW: the box loops given that mask
        (`outside_box`, `stretch_slots`, `maybe_rescale`) then go over the set slots only,
        with the same answers."""
        cdef int32_t d, n_set = 0
        cdef double v
        cdef uint64_t mask = 0
        for d in range(self.n_features):
            v = x[self.columns[d]]
            if v == v:
                if self.inp.origin[d] != self.inp.origin[d]:
                    self.inp.origin[d] = v
                n_set += 1
                if d < 64:
                    mask |= (<uint64_t>1) << d
            self.shifted[d] = v - self.inp.origin[d]
        bracket(self.shifted, self.below, self.above, self.n_features)
        if self.n_features <= 64 and n_set * SPARSE_SHARE <= self.n_features:
            return mask
        return <uint64_t>DENSE_ROW

    cdef void stretch(self, int32_t node) noexcept nogil:
        """Stretch the node's box to hold the sample being learned (missing values never do).
        It grows exactly when `outside_box` says the sample lies outside it."""
        cdef size_t row = <size_t>node * self.feature_capacity
        stretch_box(self.lower + row, self.upper + row, self.below, self.above,
                    padded(self.n_features))

    cdef void stretch_slots(self, int32_t node, uint64_t slots) noexcept nogil:
        """`stretch`, given the sample's slots (`shift`)."""
        cdef size_t row = <size_t>node * self.feature_capacity
        if slots != <uint64_t>DENSE_ROW:
            stretch_set(self.lower + row, self.upper + row, self.below, self.above, slots)
        else:
            stretch_box(self.lower + row, self.upper + row, self.below, self.above,
                        padded(self.n_features))

    cdef bint outside_box(self, int32_t node, uint64_t slots) noexcept nogil:
        """Whether the sample being learned, whose slots `shift` gave, lies outside the node's
        box or gives it its first value on a side (`_box.outside`)."""
        cdef size_t row = <size_t>node * self.feature_capacity
        if slots != <uint64_t>DENSE_ROW:
            return outside_set(self.below, self.above, self.lower + row, self.upper + row, slots)
        return outside(self.below, self.above, self.lower + row, self.upper + row,
                       padded(self.n_features))

    cdef double leaf_size(self, int32_t node) noexcept nogil:
        """Scaled linear dimension sum_d scale_d * (upper_d - lower_d) of the node's box."""
        cdef size_t row = <size_t>node * self.feature_capacity
        cdef const float* lo = self.lower + row
        cdef const float* hi = self.upper + row
        cdef double s = 0.0, side
        cdef int32_t d
        cdef uint64_t sides = 0
        if self.n_features <= 64:
            # the sides of positive length first (no dependency from one slot to the next), then
            # their sum in ascending order: what the loop below adds, less its +0.0 terms; a
            # box a sparse stream stretched has few
            for d in range(self.n_features):
                sides |= (<uint64_t>(hi[d] > lo[d])) << d
            while sides:
                d = rf_lowest_bit(sides)
                sides &= sides - 1
                s += self.inp.scale[d] * (<double>hi[d] - <double>lo[d])
            return s
        for d in range(self.n_features):
            # a select, not a branch (whether a side is flat is data the predictor loses on);
            # adding scale * 0.0 leaves s exactly as skipping would
            side = <double>hi[d] - <double>lo[d]
            s += self.inp.scale[d] * (side if side > 0.0 else 0.0)
        return s

    cdef int maybe_rescale(self, const double* x, uint64_t slots) except -1 nogil:
        """Refresh `scale` if x (shifted; its slots as `shift` gave them) stretches a root
        range past `rescale_factor` times its snapshot; the linear models follow the new units
        (`z` keeps the old ones)."""
        cdef size_t row = <size_t>self.root * self.feature_capacity
        cdef double lo, hi, v
        cdef int32_t d
        cdef int stale = 0
        if slots != <uint64_t>DENSE_ROW:  # the slots x sets: a missing v counts for nothing
            while slots:
                d = rf_lowest_bit(slots)
                slots &= slots - 1
                v = x[d]
                lo = self.lower[row + d]
                hi = self.upper[row + d]
                lo = v if v < lo else lo
                hi = v if v > hi else hi
                stale |= input_outgrown(&self.inp, d, hi - lo)
        else:
            for d in range(self.n_features):
                # branch-free, every sample: a missing v counts for nothing, and an empty side
                # (+inf, -inf) stretched to a present v spans 0
                v = x[d]
                lo = self.lower[row + d]
                hi = self.upper[row + d]
                lo = v if v < lo else lo
                hi = v if v > hi else hi
                stale |= (v == v) & input_outgrown(&self.inp, d, hi - lo)
        if not stale:
            return 0
        input_rescale_begin(&self.inp, &self.models, self.n_features)
        for d in range(self.n_features):
            v = x[d]
            lo = self.lower[row + d]
            hi = self.upper[row + d]
            if v == v and lo <= hi:
                if v < lo:
                    lo = v
                if v > hi:
                    hi = v
            input_set_span(&self.inp, d, hi - lo)
        input_rescale_end(&self.inp, &self.models, self.n_nodes, self.n_features)
        return self.recompute_rates()

    # ---------------------------------------------------------------- rates

    cdef double leaf_rate(self, int32_t node) noexcept nogil:
        """The rate at which the kind splits leaf `node`."""
        return 0.0

    cdef int free_twig(self, int32_t node) except -1 nogil:
        """A twig becoming a leaf (`_tree_budget.shed_twigs`) takes no rate: it waits, as a leaf,
        until a sample stretches its box or the kind gives it one."""
        self.propagate_rate(node, -self.rate[node])
        return 0

    cdef void propagate_rate(self, int32_t node, double delta) noexcept nogil:
        while node >= 0:
            self.rate[node] += delta
            node = self.parent[node]

    cdef int recompute_rates(self) except -1 nogil:
        """Recompute every subtree rate from the leaves (after a rescale), in O(n_nodes)."""
        cdef int32_t* order = <int32_t*>malloc(<size_t>(self.n_nodes + 1) * sizeof(int32_t))
        cdef int32_t j, k
        if order == NULL:
            with gil:
                raise MemoryError()
        for k in range(order_nodes(self, order) - 1, -1, -1):  # children before parents
            j = order[k]
            if self.left[j] < 0:
                self.rate[j] = self.leaf_rate(j)
            else:
                self.rate[j] = self.rate[self.left[j]] + self.rate[self.right[j]]
        free(order)
        return 0

    cdef int32_t pick_leaf(self) noexcept nogil:
        """A leaf drawn with probability proportional to its rate, top-down (-1 if none has a
        positive rate)."""
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

    # ---------------------------------------------------------------- the clocks

    cdef int grow_lifetime(self, double new_lifetime) except -1 nogil:
        """Grow the partition from `lifetime` to `new_lifetime` with one exponential clock for
        the tree: the leaves split at their rates, a race the clock runs on their sum (kept at
        the root of `rate`); when it rings, the leaf is drawn top-down (`pick_leaf`) and split
        at that time (`split_leaf`). Stops at the node cap."""
        cdef double total, budget, t
        cdef int32_t j
        cdef int retries = 0
        while True:
            total = self.rate[self.root]
            if total <= 1e-300 or not self.can_add(2):
                break
            budget = total * (new_lifetime - self.lifetime)
            if self.hazard > budget:
                self.hazard -= budget
                break
            t = self.lifetime + self.hazard / total
            j = self.pick_leaf()
            if j < 0 or self.leaf_rate(j) <= 0.0:
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
        """The kind's split of leaf `node` at `time` (its rate rang)."""
        with gil:
            raise NotImplementedError
