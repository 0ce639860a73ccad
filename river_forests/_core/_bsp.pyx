"""Online BSP tree (fan2020: algorithms 3-6 and the supplement's GenCutNotCross).

A node keeps the convex hull of the points it has seen, through their projections on pairs
of features (`_hull.pxd`), and a leaf keeps (a sample of) its points. A cut is a line in one
pair, parallel to the other axes (`_oblique.pxd`). Every length is measured in units of the
root range of each feature (`BoxTree.scale`), as the paper rescales the data to [0, 1]^d.

One tree runs the two mechanisms of the Mondrian tree, for the same reason (the BSP process,
like the Mondrian process, is a race of exponential clocks, self-consistent and Markov in its
budget):

* **Points outside a hull** (algorithm 4, lines 7-13). A point x outside node j's hull (in
  some pairs) adds the lines that meet the new hull but not the old one, at total rate
  R = sum over pairs of the perimeter increase, halved (see below). The cost of the first
  such line is c' ~ Exp(R) after j's parent was cut; if that comes before j's own cut (the
  budget, for a leaf), a new parent is inserted above j, cut by a line drawn from those
  (GenCutNotCross: pair in proportion to its increase, direction and position by the line
  measure), with x alone on the new side. Otherwise the hulls grow and x goes down.
* **Budget growth** (algorithms 2 and 5, HullCut). When the budget grows from tau to tau',
  each leaf is cut at the rate of its hulls' perimeters during (tau, tau']: one exponential
  clock per tree (`BoxTree.grow_lifetime`), the leaf drawn top-down in proportion to its
  rate. The pair is drawn in proportion to its perimeter, the direction theta with density
  proportional to the hull's width in that direction and the position uniformly across it,
  so the line is uniform for the line measure among those meeting the hull. The leaf's kept
  points go to the children, which build their hulls from them.

The rate is half the perimeters' sum, as in the paper's experiments (section 5: the
parameter of the cost's exponential is L/2); the budget is tau_n = budget_scale *
n^(1/(d+2)) (theorem 3). A node that has seen `min_points` points or fewer is never cut
(algorithm 4, lines 2-3, with 3; the forest's `min_split_points`): a leaf whose next point
arrives draws the cut it would have had since its birth, with the rate of the hull of its
`min_points` points, before that point goes down. The first
`warmup` samples only build the root, for the reason of the Mondrian tree's warm-up (units
measured against a range of two points mean nothing).

Bounded memory: hulls keep at most `max_hull_vertices` vertices (a superset replaces a larger
one), leaves keep at most `max_leaf_points` points (a uniform sample of the points they have
seen, reservoir sampling), each tree cuts in at most `max_pairs` pairs of its slots (a uniform
sample of the pairs, reservoir sampling as slots arrive). A tree short of bytes for new
nodes first halves the points its leaves keep or the vertices its hulls keep
(`_bsp_budget.make_room`), and a tree at `max_nodes`, or that can give no more room, drops
its kept points and its hulls (they serve only to cut): from then on it takes no byte more,
its statistics learning along the paths.

The class routes a sample (`insert`, algorithm 4) and holds the tree's hooks; the pair
sample, the hulls, the kept points, the cuts and the byte budget are modules of functions
taking the tree (`_bsp_pairs`, `_bsp_hulls`, `_bsp_points`, `_bsp_cuts`, `_bsp_budget`).
"""

cdef enum:
    DEF_WARMUP = 16

from libc.math cimport INFINITY, NAN, fabs, pow
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, realloc

import numpy as np

from ._bsp_hulls import check_hulls as _check_hulls
from ._bsp_points import check_targets as _check_targets
from ._tree import register_kind

from ._boxtree cimport BoxTree, learn_node
from ._bsp_budget cimport grow_out, make_room, nodes_fit
from ._bsp_cuts cimport cut_not_crossing, hull_cut
from ._bsp_hulls cimport (clear_slot_hulls, entry_cells, extended, holds, hull_rate,
                          set_hulls)
from ._bsp_pairs cimport load_pairs, sync_pairs
from ._bsp_points cimport clear_targets, keep_point, sync_points
from ._oblique cimport child
from ._pool cimport pool_block, pool_fill_columns, pool_has
from ._random cimport rng_exponential
from ._tree cimport (CELL_F64, CELL_I32, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32,
                     SCALAR_I64, TASK_CLASSIFICATION, Tree)
from ._tree_table cimport declare_array, declare_pool, declare_scalar


cdef class BSPTree(BoxTree):
    """An online BSP tree. Parameters by name: the base's (see `_tree.Tree`), `consistent`,
    `fixed_budget`, `budget_scale`, `max_pairs`, `max_hull_vertices`, `max_leaf_points`."""

    split_kind = "oblique"
    #: its predictions read none of these (hulls and kept points serve the cuts): a tree
    #: that reads a mapped file leaves them there until it learns (`Tree.set_state`)
    learn_only_pools = ("hulls", "points", "targets")
    # a merge renumbers the cut's second column and the kept points' classes too
    column_keys = Tree.column_keys + ("feature_b",)
    class_cell_keys = {"targets": 2}  # (y, w) a point

    def __cinit__(self, *args, **kwargs):
        self.consistent = True
        self.budget_scale = 1.0
        self.max_pairs = 16
        self.max_hull_vertices = 16
        self.max_leaf_points = 32
        self.warmup = DEF_WARMUP
        self.min_points = 3.0
        self.axis_rate = 0.0
        self.hazard = 1.0
        declare_array(self, <void**>&self.tau, b"tau", CELL_F64, ROWS_NODE, NULL, NULL, True, INFINITY)
        declare_array(self, <void**>&self.feature_b, b"feature_b", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        declare_array(self, <void**>&self.coef_a, b"coef_a", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.coef_b, b"coef_b", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.count, b"count", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.stored, b"stored", CELL_I32, ROWS_NODE, NULL, NULL, True, 0)
        declare_pool(self, &self.hulls, b"hulls", NULL, NULL)
        declare_pool(self, &self.points, b"points", &self.feature_capacity, &self.n_features)
        declare_pool(self, &self.targets, b"targets", NULL, NULL)
        declare_pool(self, &self.pairs, b"pairs", NULL, NULL)
        declare_scalar(self, &self.consistent, b"consistent", SCALAR_BOOL, True)
        declare_scalar(self, &self.fixed_budget, b"fixed_budget", SCALAR_F64, True)
        declare_scalar(self, &self.budget_scale, b"budget_scale", SCALAR_F64, True)
        declare_scalar(self, &self.max_pairs, b"max_pairs", SCALAR_I32, True, 1, 2**20)
        declare_scalar(self, &self.max_hull_vertices, b"max_hull_vertices", SCALAR_I32, True, 3,
                       2**10)
        declare_scalar(self, &self.max_leaf_points, b"max_leaf_points", SCALAR_I32, True, 0, 2**16)
        declare_scalar(self, &self.min_points, b"min_points", SCALAR_F64, True, 0.0, 2.0**31)
        declare_scalar(self, &self.axis_rate, b"axis_rate", SCALAR_F64, True, 0.0, 1.0)
        declare_scalar(self, &self.lifetime, b"budget", SCALAR_F64, False)
        declare_scalar(self, &self.hazard, b"hazard", SCALAR_F64, False)
        declare_scalar(self, &self.warmup, b"warmup", SCALAR_I32, False, 0)
        declare_scalar(self, &self.n_pairs, b"n_pairs", SCALAR_I32, False, 0)
        declare_scalar(self, &self.n_pair_slots, b"n_pair_slots", SCALAR_I32, False, 0)
        declare_scalar(self, &self.n_candidates, b"n_candidates", SCALAR_I64, False, 0)
        declare_scalar(self, &self.n_point_slots, b"n_point_slots", SCALAR_I32, False, 0)
        declare_scalar(self, &self.n_cuts, b"n_cuts", SCALAR_I64, False, 0)
        declare_scalar(self, &self.n_inserted, b"n_inserted", SCALAR_I64, False, 0)
        declare_scalar(self, &self.grown_out, b"grown_out", SCALAR_BOOL, False)
        declare_scalar(self, &self.vertex_cap, b"vertex_cap", SCALAR_I32, False, 0, 2**10)
        declare_scalar(self, &self.point_cap, b"point_cap", SCALAR_I32, False, 0, 2**16)

    cdef int _start(self) except -1:
        self.hazard = rng_exponential(&self.rng, 1.0)
        return 0

    def __dealloc__(self):
        free(self.scratch)
        free(self.pair_a)
        free(self.pair_b)

    # ---------------------------------------------------------------- scratch, hooks

    cdef int ensure_work(self) except -1 nogil:
        """The tree's scratch, laid out in regions (`_bsp.pxd`'s `region`). Called once at the
        start of an update (it may move), never in the middle of one."""
        cdef size_t cells = 2 * block_cells(self) + <size_t>self.n_pairs + 1 \
            + points_cells(self) + hull_cells(self)
        cdef void* mem
        if cells > self.scratch_cells or self.scratch == NULL:
            mem = realloc(self.scratch, (cells if cells > 0 else 1) * sizeof(double))
            if mem == NULL:
                with gil:
                    raise MemoryError()
            self.scratch = <double*>mem
            self.scratch_cells = cells
        return 0

    cdef double leaf_rate(self, int32_t node) noexcept nogil:
        """A leaf of more than `min_points` points is cut at the rate of its hulls (algorithm
        4, 2-5, with 3)."""
        if self.count[node] <= self.min_points:
            return 0.0
        return hull_rate(self, node)

    cdef int split_leaf(self, int32_t node, double time) except -1 nogil:
        """HullCut (`_bsp_cuts.hull_cut`)."""
        return hull_cut(self, node, time)

    cdef bint can_add(self, int32_t k) noexcept nogil:
        """The base's rule, and room for the new nodes' hulls (`_bsp_budget.nodes_fit`)."""
        return nodes_fit(self, k)

    cdef int drop_growth(self) except -1 nogil:
        """Over the byte budget: the kept points and hulls go, as at the node cap."""
        return grow_out(self)

    # ---------------------------------------------------------------- one sample

    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil:
        """Route x from the root (algorithm 4): at each node, maybe insert a cut above it for
        x outside its hulls, else grow them; at a leaf that this point makes cuttable, draw the
        cut it would have had; keep x in its leaf."""
        cdef int32_t j = self.root, cells
        cdef double parent_time = 0.0, node_time, e, rate, due
        cdef double* block = region(self, 0)
        cdef double* delta = region(self, 2)
        cdef bint can_split = not self.grown_out and self.can_add(2)
        cdef bint leaf, grown
        cdef int32_t depth, k, i
        cdef int verdict
        cdef double g = self.models_gain(x, w)  # linear leaves' step (0: none)
        if not can_split:
            # at the node cap no cut can happen: hulls and kept points are of no more use
            # (`grow_out` dropped them, and the tree is grown out for good even if the
            # bytes they freed make room again), only the statistics along the path learn
            while True:
                self.count[j] += 1.0
                learn_node(self, j, y, w, g)
                if self.left[j] < 0:
                    return 0
                j = child(self, j, x)
        # A node's hulls hold its children's (a child builds its own from the node's points),
        # so the nodes that hold x are a top part of its path: find the deepest one from the
        # bottom, and let the nodes above it only count x. (A hull past `max_hull_vertices` is
        # a superset of its own points, which may stick out of its parent's by a sliver; a
        # point there leaves the parent's hull as it is, an approximation of the same kind.)
        depth = self.route(x)
        k = depth - 2
        while k >= 0 and not holds(self, self.path[k + 1], xs):
            k -= 1
        for i in range(k + 1):
            j = self.path[i]
            self.count[j] += 1.0
            learn_node(self, j, y, w, g)
            parent_time = self.tau[j]
        # the scan's verdicts, reused on the way down: path[k + 1] holds x (if k >= 0), the
        # nodes below it do not (a node not on the scanned path, one just made, is tested)
        i = k + 1
        verdict = 1 if k >= 0 else -1
        j = self.path[i]
        while True:
            leaf = self.left[j] < 0
            if verdict == 1:
                cells = 0
                rate = 0.0
                grown = False
            else:
                cells = extended(self, j, xs, block, delta, &rate, &grown, verdict == 0)
            due = INFINITY
            if can_split and self.count[j] >= self.min_points:
                node_time = self.tau[j]
                if leaf:
                    node_time = self.lifetime
                    if self.count[j] < self.min_points + 1.0:
                        # a leaf of `min_points` becomes cuttable: the cut it would have had since its
                        # parent's, at the rate of its hull so far
                        e = hull_rate(self, j)
                        if e > 0.0:
                            due = parent_time + rng_exponential(&self.rng, e)
                            if due < node_time:
                                node_time = due
                if grown and rate > 0.0:
                    e = parent_time + rng_exponential(&self.rng, rate)
                    if e < node_time and cut_not_crossing(
                            self, j, x, xs, block, cells, delta, e, y, w, g) == 0:
                        return 0
                if leaf and due < self.lifetime:
                    self.split_leaf(j, due)
                    leaf = self.left[j] < 0
            if grown:
                set_hulls(self, j, block, cells)
                self.stretch(j)
            self.count[j] += 1.0
            learn_node(self, j, y, w, g)
            if leaf:
                keep_point(self, j, x, y, w)
                if grown or self.count[j] == self.min_points + 1.0:  # its rate changed
                    self.propagate_rate(j, self.leaf_rate(j) - self.rate[j])
                return 0
            parent_time = self.tau[j]
            j = child(self, j, x)
            i += 1
            verdict = 0 if i < depth and self.path[i] == j else -1

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        cdef double new_budget, rate
        cdef int32_t cells
        cdef bint grown
        cdef uint64_t slots
        sync_pairs(self)
        sync_points(self)
        self.ensure_work()
        slots = self.shift(x)
        if self.n_seen <= self.warmup and not self.grown_out:
            # budget 0: the root only learns its hulls, box, points and statistics
            cells = extended(self, self.root, self.shifted, region(self, 0), region(self, 2),
                             &rate, &grown, False)
            if grown or not pool_has(&self.hulls, self.root):
                set_hulls(self, self.root, region(self, 0), cells)
            self.stretch(self.root)
            self.count[self.root] += 1.0
            learn_node(self, self.root, y, w, self.models_gain(x, w))
            keep_point(self, self.root, x, y, w)
            return 0
        self.maybe_rescale(self.shifted, slots)
        if self.consistent:
            new_budget = self.budget_scale * pow(<double>self.n_seen, 1.0 / (self.n_features + 2))
        else:
            new_budget = self.fixed_budget
        if self.grown_out:  # no cut any more: the budget only counts (`grow_out`)
            if new_budget > self.lifetime:
                self.lifetime = new_budget
            return self.insert(x, self.shifted, y, w)
        if new_budget > self.lifetime:
            self.grow_lifetime(new_budget)
        if not self.can_add(2) and (self.points.live > 0 or self.hulls.live > 0) \
                and not make_room(self):
            grow_out(self)
        return self.insert(x, self.shifted, y, w)

    cdef int clear_stats(self) except -1 nogil:
        """A refit forgets the kept points' targets too (a later cut would count them)."""
        BoxTree.clear_stats(self)
        return clear_targets(self)

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """The feature in `slot` leaves the subspace: the hulls of its pairs and its values in
        the kept points are forgotten, then the boxes (`BoxTree._clear_slot`)."""
        clear_slot_hulls(self, slot)
        pool_fill_columns(&self.points, self.stored, self.n_nodes, slot, slot + 1, NAN)
        return BoxTree._clear_slot(self, slot)

    cdef int32_t split_columns(self, int32_t node, int32_t* cols, double* shares) noexcept nogil:
        """An oblique cut's two columns, each credited with its share of the variance of the
        cut's score coef_a * x_a + coef_b * x_b over the root box (independent features,
        each spread as its range, `scale`): (coef * range)^2 over their sum. A feature's
        share does not depend on its units, and a cut close to one axis credits that
        feature nearly alone."""
        cdef int32_t s, k
        cdef double m[2]
        cols[0] = self.feature[node]
        cols[1] = self.feature_b[node]
        m[0] = fabs(self.coef_a[node])
        m[1] = fabs(self.coef_b[node])
        for k in range(2):
            for s in range(self.n_features):
                if self.columns[s] == cols[k] and self.inp.scale[s] > 0.0:
                    m[k] /= self.inp.scale[s]
                    break
        m[0] *= m[0]
        m[1] *= m[1]
        if not m[0] + m[1] > 0.0:
            m[0] = 1.0
            m[1] = 1.0
        shares[0] = m[0] / (m[0] + m[1])
        shares[1] = 1.0 - shares[0]
        return 2


    # ---------------------------------------------------------------- prediction

    cdef int32_t descend(self, const double* x) noexcept nogil:
        """The oblique router's walk (`_oblique.child`)."""
        cdef int32_t j = self.root
        cdef int32_t depth = 0
        self.walk_tag = 0  # as `Tree.descend`: a walk of its own, unless the forest tags it
        while j >= 0:
            self.path[depth] = j
            depth += 1
            if self.left[j] < 0:
                break
            j = child(self, j, x)
        self.walked = depth
        return depth

    def describe(self, int32_t j):
        """The node's box (`BoxTree.describe`) and, if it is cut, its line's coefficients
        (coef_a * x[columns[0]] + coef_b * x[columns[1]] <= threshold goes left)."""
        info = BoxTree.describe(self, j)
        if self.left[j] >= 0:
            info["coefs"] = (self.coef_a[j], self.coef_b[j])
        return info

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """The pairs of slots (slots of the tree, `n_pairs` of them, within `max_pairs`); each
        node's hulls one entry a pair, at most `max_hull_vertices` finite vertices each; each
        leaf's kept points within `max_leaf_points` and within its blocks. (The cuts' second
        columns are checked by the base, `feature_b` being one of `column_keys`; the linear
        leaves' by BoxTree.)"""
        BoxTree.check_kind_state(self, state, n, width)
        get = lambda name, default: state[name] if name in state else default
        max_pairs, max_vertices = get("max_pairs", self.max_pairs), get("max_hull_vertices",
                                                                       self.max_hull_vertices)
        max_points, n_pairs = get("max_leaf_points", self.max_leaf_points), get("n_pairs", 0)
        n_features = get("n_features", 0)
        # (each scalar's own range comes from its declaration: what ties them is checked here)
        if n_pairs > max_pairs:
            raise ValueError("n_pairs is more than max_pairs")
        if get("n_pair_slots", 0) > n_features or get("n_point_slots", 0) > n_features:
            raise ValueError("the tree's slot counts are out of range")

        def blocks(name):
            if name not in state:
                return None
            return state[name], state[name + "_offsets"], state[name + "_rows"]

        pairs = blocks("pairs")
        if n_pairs:
            if pairs is None or len(pairs[2]) < 1 or pairs[2][0] < 2 * n_pairs:
                raise ValueError("the tree's pairs of slots are missing")
            cells = pairs[0][pairs[1][0]:pairs[1][0] + 2 * n_pairs]
            if not (np.all(cells == np.floor(cells)) and cells.min() >= 0
                    and cells.max() < n_features):
                raise ValueError("a pair of slots names a slot the tree lacks")
        hulls = blocks("hulls")
        if hulls is not None:
            _check_hulls(hulls[0], hulls[1], hulls[2], n_pairs, max_vertices)
        stored = state.get("stored")
        if stored is not None and n:
            if stored.min() < 0 or stored.max() > max_points:
                raise ValueError("a leaf keeps more points than max_leaf_points")
            keep = np.flatnonzero(stored > 0)
            for name, per in (("points", 1), ("targets", 2)):
                b = blocks(name)
                if not len(keep):
                    continue
                if b is None or keep.max() >= len(b[2]) or (b[2][keep] < per * stored[keep]).any():
                    raise ValueError(f"a leaf's kept points overrun its {name!r} block")
            targets = blocks("targets")
            classes = get("n_values", 0) if get("task", self.task) == TASK_CLASSIFICATION else -1
            if len(keep):
                _check_targets(targets[0], targets[1], np.ascontiguousarray(stored), classes)

    # ---------------------------------------------------------------- introspection, pickling

    cpdef set_state(self, dict state, bint borrow=False, Py_ssize_t columns=-1):
        Tree.set_state(self, state, borrow, columns)
        load_pairs(self)
        if "grown_out" not in state and not borrow:
            # a state from before `grown_out`: past the warm-up, a tree with pairs whose
            # hulls are all gone dropped them (`_bsp_budget.grow_out`)
            self.grown_out = self.n_seen > self.warmup and self.n_pairs > 0 \
                and self.hulls.live == 0

    @property
    def current_budget(self):
        return self.lifetime

    @property
    def cuts(self):
        """Cuts made by the budget's clock (HullCut)."""
        return self.n_cuts

    @property
    def inserted(self):
        """Cuts inserted above a node for a point outside its hull (GenCutNotCross)."""
        return self.n_inserted

    def pair_slots(self):
        """The tree's pairs of slots, an (n_pairs, 2) int array."""
        return np.array([(self.pair_a[p], self.pair_b[p]) for p in range(self.n_pairs)],
                        dtype=np.int64).reshape(-1, 2)

    def hull(self, int node, int pair):
        """Node `node`'s hull on pair `pair`, an (m, 2) array in the units of x."""
        cdef const double* src
        cdef size_t pos = 0
        cdef int32_t p, m
        if not 0 <= node < self.n_nodes or not 0 <= pair < self.n_pairs:
            raise IndexError("no such node or pair")
        if not pool_has(&self.hulls, node):
            return np.empty((0, 2))
        src = pool_block(&self.hulls, node)
        for p in range(pair):
            pos += entry_cells(<int32_t>src[pos])
        m = <int32_t>src[pos]
        out = np.array([src[pos + 1 + k] for k in range(2 * m)], dtype=np.float64).reshape(m, 2)
        out[:, 0] += self.inp.origin[self.pair_a[pair]]
        out[:, 1] += self.inp.origin[self.pair_b[pair]]
        return out

    def kept_points(self, int node):
        """Leaf `node`'s kept points: an (n, n_features) array of slot values, and (y, w)."""
        cdef int32_t n = self.stored[node] if 0 <= node < self.n_nodes else 0
        if n == 0 or not pool_has(&self.points, node):
            return np.empty((0, self.n_features)), np.empty((0, 2))
        pts = np.array([pool_block(&self.points, node)[k] for k in range(n * self.feature_capacity)])
        tg = np.array([pool_block(&self.targets, node)[k] for k in range(2 * n)])
        return pts.reshape(n, self.feature_capacity)[:, :self.n_features], tg.reshape(n, 2)


register_kind(BSPTree)
