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
n^(1/(d+2)) (theorem 3). A node that has seen 3 points or fewer is never cut (algorithm 4,
lines 2-3): a leaf whose fourth point arrives draws the cut it would have had since its
birth, with the rate of its three-point hull, before that point goes down. The first
`warmup` samples only build the root, for the reason of the Mondrian tree's warm-up (units
measured against a range of two points mean nothing).

Bounded memory: hulls keep at most `max_hull_vertices` vertices (a superset replaces a larger
one), leaves keep at most `max_leaf_points` points (a uniform sample of the points they have
seen, reservoir sampling), each tree cuts in at most `max_pairs` pairs of its slots (a uniform
sample of the pairs, reservoir sampling as slots arrive), and a tree at `max_nodes`, which
cannot cut any more, drops its kept points and its hulls (they serve only to cut): from then
on it takes no byte more, its statistics learning along the paths.
"""

cdef enum:
    DEF_WARMUP = 16

from libc.math cimport INFINITY, NAN, fabs, floor, isfinite, pow
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import numpy as np

from ._tree import register_kind

from ._box cimport round_down, round_up
from ._boxtree cimport BoxTree
from ._hull cimport hull_add, hull_build, hull_contains, hull_perimeter, hull_reduce, line_hitting, line_separating
from ._oblique cimport child, goes_left
from ._pool cimport (pool_alloc, pool_block, pool_fill_columns, pool_free, pool_grow_cells, pool_has,
                     pool_release)
from ._random cimport rng_exponential, rng_randint, rng_uniform
from ._tree cimport (NO_BYTE_CAP, CELL_F64, CELL_I32, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32,
                     SCALAR_I64, TASK_CLASSIFICATION, Tree, add_stats, doubled)
from ._tree_table cimport declare_array, declare_pool, declare_scalar, nbytes, row_bytes


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

    cdef int _start(self) except -1:
        self.hazard = rng_exponential(&self.rng, 1.0)
        return 0

    def __dealloc__(self):
        free(self.scratch)
        free(self.pair_a)
        free(self.pair_b)

    # ---------------------------------------------------------------- scratch

    cdef double* work(self, size_t cells) except NULL nogil:
        """The tree's scratch, at least `cells` long. Called once at the start of an update
        (it may move), never in the middle of one."""
        cdef void* mem
        if cells > self.scratch_cells or self.scratch == NULL:
            mem = realloc(self.scratch, (cells if cells > 0 else 1) * sizeof(double))
            if mem == NULL:
                with gil:
                    raise MemoryError()
            self.scratch = <double*>mem
            self.scratch_cells = cells
        return self.scratch

    cdef size_t block_cells(self) noexcept nogil:
        """Cells of the largest hull block."""
        return <size_t>self.n_pairs * (1 + 2 * <size_t>self.max_hull_vertices) + 1

    cdef size_t hull_cells(self) noexcept nogil:
        """Cells of the 2-D hull scratch (a leaf's kept points, or a hull and a point)."""
        cdef size_t n = self.max_leaf_points if self.max_leaf_points > self.max_hull_vertices + 1 \
            else self.max_hull_vertices + 1
        return 8 * (n + 4)

    cdef size_t points_cells(self) noexcept nogil:
        # rows of slot values, then (y, w) and a side per point
        return <size_t>self.max_leaf_points * (self.feature_capacity + 3) + self.feature_capacity

    cdef double* region(self, int k) noexcept nogil:
        """Scratch regions: 0 the block being extended (insert), 1 a child's block (a cut),
        2 per-pair numbers, 3 a leaf's points, 4 2-D hull work. Valid after `work`."""
        cdef size_t b = self.block_cells()
        cdef size_t at = 0
        if k > 0:
            at += b
        if k > 1:
            at += b
        if k > 2:
            at += <size_t>self.n_pairs + 1
        if k > 3:
            at += self.points_cells()
        return self.scratch + at

    cdef int ensure_work(self) except -1 nogil:
        self.work(2 * self.block_cells() + <size_t>self.n_pairs + 1 + self.points_cells()
                  + self.hull_cells())
        return 0

    # ---------------------------------------------------------------- pairs of slots

    cdef int load_pairs(self) except -1 nogil:
        """Copy the `pairs` block into the slot arrays the walk reads."""
        cdef int32_t p
        cdef const double* src
        free(self.pair_a)
        free(self.pair_b)
        self.pair_a = <int32_t*>malloc((<size_t>self.max_pairs + 1) * sizeof(int32_t))
        self.pair_b = <int32_t*>malloc((<size_t>self.max_pairs + 1) * sizeof(int32_t))
        if self.pair_a == NULL or self.pair_b == NULL:
            with gil:
                raise MemoryError()
        if self.n_pairs > 0:
            src = pool_block(&self.pairs, 0)
            for p in range(self.n_pairs):
                self.pair_a[p] = <int32_t>src[2 * p]
                self.pair_b[p] = <int32_t>src[2 * p + 1]
        return 0

    cdef int sync_pairs(self) except -1 nogil:
        """Offer the pairs of the slots that arrived since the last sample to the tree's pair
        sample (a reservoir of `max_pairs`, in order of arrival); a pair replaced in it is
        forgotten by every hull (`reset_hulls`)."""
        cdef int32_t s, t, k, p, old = self.n_pairs
        cdef int32_t* keep
        cdef double* dst
        if self.pair_a == NULL:
            self.load_pairs()
        if self.n_pair_slots >= self.n_features:
            return 0
        keep = <int32_t*>malloc((<size_t>self.max_pairs + 1) * sizeof(int32_t))
        if keep == NULL:
            with gil:
                raise MemoryError()
        for p in range(self.max_pairs):
            keep[p] = 1
        for s in range(self.n_pair_slots, self.n_features):
            for t in range(s):
                if self.n_pairs < self.max_pairs:
                    self.pair_a[self.n_pairs] = t
                    self.pair_b[self.n_pairs] = s
                    self.n_pairs += 1
                else:
                    k = <int32_t>rng_randint(&self.rng, <Py_ssize_t>(self.n_candidates + 1))
                    if k < self.max_pairs:
                        self.pair_a[k] = t
                        self.pair_b[k] = s
                        keep[k] = 0
                self.n_candidates += 1
        self.n_pair_slots = self.n_features
        if self.n_pairs == 0:  # one slot: no pair yet
            free(keep)
            return 0
        dst = pool_alloc(&self.pairs, 0, 2 * self.n_pairs)
        for p in range(self.n_pairs):
            dst[2 * p] = self.pair_a[p]
            dst[2 * p + 1] = self.pair_b[p]
        self.ensure_work()
        self.reset_hulls(keep, old)
        free(keep)
        return 0

    cdef int reset_hulls(self, const int32_t* keep, int32_t old_pairs) except -1 nogil:
        """Lay every node's hulls out for the current pairs: entry p is kept where p <
        old_pairs and keep[p], else empty (a pair new to the tree, or a slot replaced)."""
        cdef int32_t j, p, m
        cdef size_t at, pos
        cdef const double* src
        cdef double* out = self.region(0)
        for j in range(self.n_nodes):
            at = 0
            pos = 0
            if not pool_has(&self.hulls, j):
                continue  # dropped at the node cap (a new node gets its hulls as it is made)
            src = pool_block(&self.hulls, j)
            for p in range(self.n_pairs):
                m = 0
                if src != NULL and p < old_pairs:
                    m = <int32_t>src[pos]
                    if keep[p]:
                        memcpy(out + at, src + pos, (1 + 2 * <size_t>m) * sizeof(double))
                    pos += 1 + 2 * <size_t>m
                    if keep[p]:
                        at += 1 + 2 * <size_t>m
                        continue
                out[at] = 0.0
                at += 1
            self.set_hulls(j, out, at)
        self.recompute_rates()
        return 0

    cdef int set_hulls(self, int32_t node, const double* block, size_t cells) except -1 nogil:
        """Store `block` (scratch, never the pool's own cells) as the node's hulls."""
        cdef double* dst
        if cells == 0:  # no pair: nothing to keep
            return pool_free(&self.hulls, node)
        if pool_has(&self.hulls, node) and self.hulls.rows[node] == <int32_t>cells:
            dst = pool_block(&self.hulls, node)  # same size: in place
        else:
            dst = pool_alloc(&self.hulls, node, <int32_t>cells)
        memcpy(dst, block, cells * sizeof(double))
        return 0

    # ---------------------------------------------------------------- kept points

    cdef int sync_points(self) except -1 nogil:
        """Kept points have a value for every slot in use: a slot new since they were kept is
        missing for them (NaN)."""
        if self.n_point_slots >= self.n_features:
            return 0
        pool_fill_columns(&self.points, self.stored, self.n_nodes, self.n_point_slots, self.n_features, NAN)
        self.n_point_slots = self.n_features
        return 0

    cdef int keep_point(self, int32_t node, const double* x, double y, double w) except -1 nogil:
        """Keep the sample in leaf `node` (its count already includes it): appended while the
        leaf keeps fewer than `max_leaf_points`, then by reservoir sampling."""
        cdef int32_t n = self.stored[node], rows, new_rows, d
        cdef size_t fc = self.feature_capacity
        cdef long long k
        cdef double* row
        cdef double* tmp
        cdef double* dst
        if not self.can_add(2) or self.max_leaf_points <= 0:
            return 0
        if n < self.max_leaf_points:
            rows = self.points.rows[node] if pool_has(&self.points, node) else 0
            if n >= rows:
                new_rows = 2 * rows if rows >= 2 else 2
                if new_rows > self.max_leaf_points:
                    new_rows = self.max_leaf_points
                if self.max_bytes < NO_BYTE_CAP and not self.points_fit(new_rows * fc, 2 * new_rows):
                    return 0
                tmp = <double*>malloc((<size_t>n * (fc + 2) + 1) * sizeof(double))
                if tmp == NULL:
                    with gil:
                        raise MemoryError()
                if n > 0:
                    memcpy(tmp, pool_block(&self.points, node), <size_t>n * fc * sizeof(double))
                    memcpy(tmp + <size_t>n * fc, pool_block(&self.targets, node),
                           2 * <size_t>n * sizeof(double))
                dst = pool_alloc(&self.points, node, new_rows)
                memcpy(dst, tmp, <size_t>n * fc * sizeof(double))
                dst = pool_alloc(&self.targets, node, 2 * new_rows)
                memcpy(dst, tmp + <size_t>n * fc, 2 * <size_t>n * sizeof(double))
                free(tmp)
            k = n
            self.stored[node] = n + 1
        else:
            k = <long long>rng_randint(&self.rng, <Py_ssize_t>self.count[node])
            if k >= self.max_leaf_points:
                return 0
        row = pool_block(&self.points, node) + <size_t>k * fc
        for d in range(self.n_features):
            row[d] = x[self.columns[d]]
        for d in range(self.n_features, <int32_t>fc):
            row[d] = NAN
        row = pool_block(&self.targets, node) + 2 * <size_t>k
        row[0] = y
        row[1] = w
        return 0

    cdef int drop_points(self) except -1 nogil:
        """A tree at its node cap cannot cut any more: its leaves' points and every node's
        hulls, which serve only to cut, are of no use. Routing and prediction read the cuts
        and the statistics alone. (Most of a tree's bytes go: on elec, 5.0 MB down to 1.0.)

        The tree is grown out for good (`grown_out`): the bytes freed would let `can_add`
        pass again, but a node's hulls are then no longer those of its points (a hull rebuilt
        from the points after the drop is a sliver of the node's data), and a cut drawn on
        them is not the paper's. Before 0.3.x the tree went on cutting: the first points after
        a drop grew one-point hulls on every node of their path, the next point outside such
        a hull inserted a parent (GenCutNotCross) whose line crossed the node's data, with a
        fresh leaf on x's side near the root, which the next drop froze there. Such leaves
        took most of the stream (on RandomRBF, 16 MB: a depth-2 leaf 8,000 of 30,000 rows),
        and accuracy fell as the stream went on (0.84 to 0.63 a tenth)."""
        cdef int32_t j
        self.grown_out = True
        pool_release(&self.points)
        pool_release(&self.targets)
        pool_release(&self.hulls)
        for j in range(self.n_nodes):
            self.stored[j] = 0
        self.recompute_rates()  # every leaf's rate is 0 without its hulls: the clock stops
        return 0

    cdef bint points_fit(self, size_t point_cells, size_t target_cells) noexcept nogil:
        """Whether blocks of these cells fit in the byte budget, the pools' repacking into a
        larger buffer included (`pool_alloc`: a quarter of the live cells more)."""
        cdef size_t extra = pool_grow_cells(&self.points, point_cells) \
            + pool_grow_cells(&self.targets, target_cells)
        return <long long>(nbytes(self) + extra * sizeof(double)) <= self.max_bytes

    cdef bint can_add(self, int32_t k) noexcept nogil:
        """The base's rule, and under a byte budget room for the new nodes' hulls too (a
        node's hulls live in a pool, outside its row)."""
        if not Tree.can_add(self, k):
            return False
        if self.max_bytes >= NO_BYTE_CAP or self.hulls.live == 0:
            return True
        return <long long>(nbytes(self) + k * row_bytes(self) + sizeof(double)
                           * pool_grow_cells(&self.hulls, k * self.block_cells())) <= self.max_bytes

    cdef int drop_growth(self) except -1 nogil:
        """Over the byte budget: the kept points and hulls go, as at the node cap."""
        return self.drop_points()

    # ---------------------------------------------------------------- hulls

    cdef int point_hulls(self, int32_t node, const double* pts, int32_t n) except -1 nogil:
        """The node's hulls (and box) from `n` raw points (rows of `feature_capacity` slot
        values): what a child of a cut knows of its side."""
        cdef double* out = self.region(1)
        cdef double* work = self.region(4)
        cdef double* buf = work + 4 * <size_t>n + 4
        cdef size_t at = 0, fc = self.feature_capacity
        cdef size_t row = <size_t>node * fc
        cdef int32_t p, i, k, m, a, b, d
        cdef double va, vb, v
        for p in range(self.n_pairs):
            a = self.pair_a[p]
            b = self.pair_b[p]
            k = 0
            for i in range(n):
                va = pts[<size_t>i * fc + a]
                vb = pts[<size_t>i * fc + b]
                if va == va and vb == vb:
                    buf[2 * k] = va - self.origin[a]
                    buf[2 * k + 1] = vb - self.origin[b]
                    k += 1
            m = hull_build(buf, k, work)
            if m > self.max_hull_vertices:
                m = hull_reduce(work, m, self.max_hull_vertices)
            out[at] = m
            memcpy(out + at + 1, work, 2 * <size_t>m * sizeof(double))
            at += 1 + 2 * <size_t>m
        self.set_hulls(node, out, at)
        for i in range(n):
            for d in range(self.n_features):
                v = pts[<size_t>i * fc + d] - self.origin[d]
                if v == v:
                    if round_down(v) < self.lower[row + d]:
                        self.lower[row + d] = round_down(v)
                    if round_up(v) > self.upper[row + d]:
                        self.upper[row + d] = round_up(v)
        return 0

    cdef double hull_rate(self, int32_t node) noexcept nogil:
        """Half the sum of the node's hull perimeters, in root units: the rate of its cuts."""
        cdef const double* src
        cdef size_t pos = 0
        cdef int32_t p, m
        cdef double total = 0.0
        if not pool_has(&self.hulls, node):
            return 0.0
        src = pool_block(&self.hulls, node)
        for p in range(self.n_pairs):
            m = <int32_t>src[pos]
            if m >= 2:
                total += hull_perimeter(src + pos + 1, m, self.scale[self.pair_a[p]],
                                        self.scale[self.pair_b[p]])
            pos += 1 + 2 * <size_t>m
        return 0.5 * total

    cdef double leaf_rate(self, int32_t node) noexcept nogil:
        """A leaf of more than 3 points is cut at the rate of its hulls (algorithm 4, 2-5)."""
        if self.count[node] <= 3.0:
            return 0.0
        return self.hull_rate(node)

    cdef bint holds(self, int32_t node, const double* xs) noexcept nogil:
        """Whether every hull of the node holds the point xs (a missing value holds)."""
        cdef const double* src
        cdef size_t pos = 0
        cdef int32_t p, m
        cdef double qa, qb
        if not pool_has(&self.hulls, node):
            return self.n_pairs == 0
        src = pool_block(&self.hulls, node)
        for p in range(self.n_pairs):
            m = <int32_t>src[pos]
            qa = xs[self.pair_a[p]]
            qb = xs[self.pair_b[p]]
            if qa == qa and qb == qb and not hull_contains(src + pos + 1, m, qa, qb):
                return False
            pos += 1 + 2 * <size_t>m
        return True

    cdef int32_t extended(self, int32_t node, const double* xs, double* block, double* delta,
                          double* rate, bint* grown) except -1 nogil:
        """The node's hulls with the point xs (relative to `origin`) added, into `block`;
        delta[p] the perimeter increase of pair p (root units), rate[0] half their sum,
        grown[0] whether some hull grew. Returns the cells written (0, `block` untouched,
        when x lies in every hull)."""
        cdef const double* src = pool_block(&self.hulls, node) if pool_has(&self.hulls, node) else NULL
        cdef double* work = self.region(4)
        cdef size_t pos = 0, at = 0
        cdef int32_t p, m, k, a, b
        cdef double qa, qb, sa, sb, before, after
        rate[0] = 0.0
        grown[0] = False
        if src != NULL and self.holds(node, xs):
            return 0  # the common case: nothing to copy
        for p in range(self.n_pairs):
            m = <int32_t>src[pos] if src != NULL else 0
            a = self.pair_a[p]
            b = self.pair_b[p]
            qa = xs[a]
            qb = xs[b]
            delta[p] = 0.0
            if qa != qa or qb != qb or hull_contains(src + pos + 1 if src != NULL else NULL, m, qa, qb):
                block[at] = m
                if m > 0:
                    memcpy(block + at + 1, src + pos + 1, 2 * <size_t>m * sizeof(double))
                at += 1 + 2 * <size_t>m
            else:
                grown[0] = True
                k = hull_add(src + pos + 1 if src != NULL else NULL, m, qa, qb, self.scale[a],
                             self.scale[b], work, &after)
                if after > 0.0:
                    delta[p] = after
                    rate[0] += 0.5 * after
                if k > self.max_hull_vertices:
                    k = hull_reduce(work, k, self.max_hull_vertices)
                block[at] = k
                memcpy(block + at + 1, work, 2 * <size_t>k * sizeof(double))
                at += 1 + 2 * <size_t>k
            pos += 1 + 2 * <size_t>m
        return <int32_t>at

    # ---------------------------------------------------------------- cuts

    cdef int32_t pick_pair(self, const double* src, const double* weight, double total,
                           const double** verts, int32_t* nv) noexcept nogil:
        """A pair drawn in proportion to `weight` (one number per pair, `total` their sum),
        with its hull in the node's block `src` (verts[0], nv[0] vertices). The last pair of
        positive weight if rounding runs past the end; -1 if none has any."""
        cdef double u = rng_uniform(&self.rng) * total, acc = 0.0
        cdef size_t pos = 0
        cdef int32_t p, m, picked = -1
        for p in range(self.n_pairs):
            m = <int32_t>src[pos]
            if weight[p] > 0.0:
                picked = p
                verts[0] = src + pos + 1
                nv[0] = m
                acc += weight[p]
                if u < acc:
                    break
            pos += 1 + 2 * <size_t>m
        return picked

    cdef int split_leaf(self, int32_t node, double time) except -1 nogil:
        """Cut leaf `node` at `time` (HullCut, one level): a pair in proportion to its
        perimeter, a line meeting its hull from the line measure; the kept points go to the
        children, which build their hulls, boxes and statistics from them."""
        cdef const double* src = pool_block(&self.hulls, node)
        cdef double* pts = self.region(3)
        cdef double* per = self.region(2)
        cdef double* tg
        cdef double* sides
        cdef size_t fc = self.feature_capacity, pos = 0
        cdef int32_t p, m, a = -1, b = -1, n, i, j, l, r, nl, side, nv = 0
        cdef double total = 0.0, ca, cb, off, thr, va, vb, seen, t
        cdef const double* verts = NULL
        for p in range(self.n_pairs):
            m = <int32_t>src[pos]
            per[p] = hull_perimeter(src + pos + 1, m, self.scale[self.pair_a[p]],
                                    self.scale[self.pair_b[p]]) if m >= 2 else 0.0
            total += per[p]
            pos += 1 + 2 * <size_t>m
        if total <= 0.0:
            return 0
        p = self.pick_pair(src, per, total, &verts, &nv)
        a = self.pair_a[p]
        b = self.pair_b[p]
        if line_hitting(verts, nv, self.scale[a], self.scale[b], self.region(4), &self.rng,
                        &ca, &cb, &off) != 0:
            return 0
        thr = off + ca * self.origin[a] + cb * self.origin[b]
        # the leaf's points leave the pool before the children's blocks are allocated in it
        n = self.stored[node]
        seen = self.count[node]
        tg = pts + <size_t>self.max_leaf_points * fc
        sides = tg + 2 * <size_t>self.max_leaf_points
        if n > 0:
            memcpy(pts, pool_block(&self.points, node), <size_t>n * fc * sizeof(double))
            memcpy(tg, pool_block(&self.targets, node), 2 * <size_t>n * sizeof(double))
        pool_free(&self.points, node)
        pool_free(&self.targets, node)
        self.stored[node] = 0
        l = self.add_children(node, self.columns[a], thr)
        r = l + 1
        self.feature_b[node] = self.columns[b]
        self.coef_a[node] = ca
        self.coef_b[node] = cb
        self.tau[node] = time
        self.n_cuts += 1
        # each kept point goes where the walk would send it (a missing value to the side
        # heavier so far), and counts there
        nl = 0
        for i in range(n):
            va = pts[<size_t>i * fc + a]
            vb = pts[<size_t>i * fc + b]
            if va != va or vb != vb:
                side = l if self.weight[l] >= self.weight[r] else r
            else:
                side = l if goes_left(ca, cb, thr, va, vb) else r
            sides[i] = 0.0 if side == l else 1.0
            nl += side == l
            add_stats(self, side, tg[2 * i], tg[2 * i + 1])
        # left points first (a swap partition), then each child takes its share
        i = 0
        j = n - 1
        while i < j:
            if sides[i] == 0.0:
                i += 1
            elif sides[j] == 1.0:
                j -= 1
            else:
                for p in range(<int32_t>fc):
                    t = pts[<size_t>i * fc + p]
                    pts[<size_t>i * fc + p] = pts[<size_t>j * fc + p]
                    pts[<size_t>j * fc + p] = t
                for p in range(2):
                    t = tg[2 * i + p]
                    tg[2 * i + p] = tg[2 * j + p]
                    tg[2 * j + p] = t
                sides[i] = 0.0
                sides[j] = 1.0
        self.take_points(l, pts, tg, nl, floor(seen * nl / n + 0.5) if n > 0 else 0.0)
        self.take_points(r, pts + <size_t>nl * fc, tg + 2 * nl, n - nl,
                         floor(seen * (n - nl) / n + 0.5) if n > 0 else 0.0)
        self.rate[l] = self.leaf_rate(l)
        self.rate[r] = self.leaf_rate(r)
        self.propagate_rate(node, self.rate[l] + self.rate[r] - self.rate[node])
        return 0

    cdef int take_points(self, int32_t node, const double* pts, const double* tg, int32_t n,
                         double seen) except -1 nogil:
        """A new child of a cut takes its `n` kept points: its hulls, box and count (the
        points the parent saw on this side, estimated from its sample) come from them."""
        cdef double* dst
        cdef size_t fc = self.feature_capacity
        self.point_hulls(node, pts, n)
        self.count[node] = seen if seen > n else n
        if n > 0:
            dst = pool_alloc(&self.points, node, n)
            memcpy(dst, pts, <size_t>n * fc * sizeof(double))
            dst = pool_alloc(&self.targets, node, 2 * n)
            memcpy(dst, tg, 2 * <size_t>n * sizeof(double))
        self.stored[node] = n
        return 0

    cdef int cut_not_crossing(self, int32_t node, const double* x, const double* xs,
                              const double* block, size_t cells, const double* delta,
                              double rate, double time, double y, double w) except -1 nogil:
        """Insert a parent above `node`, cut by a line between node's hull and x
        (GenCutNotCross: the pair in proportion to its perimeter increase), with x alone in a
        new leaf on the other side. `block` holds node's hulls with x added: the parent's.
        Returns 1, changing nothing, if no line could be drawn (a rounding). (It returned -1
        before 0.3.0, which the `except -1` declaration read as an error with no exception
        set: a crash, met on telecom-churn with half the budget per tree.)"""
        cdef const double* src = pool_block(&self.hulls, node)
        cdef size_t pos = 0, at, fc = self.feature_capacity
        cdef size_t rj, rp
        cdef int32_t p, m, a = -1, b = -1, nv = 0, q, s
        cdef double ca, cb, off, thr, total = 0.0
        cdef const double* verts = NULL
        cdef double* one = self.region(1)
        for p in range(self.n_pairs):
            total += delta[p]
        p = self.pick_pair(src, delta, total, &verts, &nv)
        if p >= 0:
            a = self.pair_a[p]
            b = self.pair_b[p]
        if a < 0 or line_separating(verts, nv, xs[a], xs[b], self.scale[a], self.scale[b],
                                    self.region(4), &self.rng, &ca, &cb, &off) != 0:
            return 1
        thr = off + ca * self.origin[a] + cb * self.origin[b]
        if goes_left(ca, cb, thr, x[self.columns[a]], x[self.columns[b]]):
            return 1  # x on the line, to the last bit
        q = self.insert_parent(node, True)
        s = self.right[q]
        self.feature[q] = self.columns[a]
        self.feature_b[q] = self.columns[b]
        self.coef_a[q] = ca
        self.coef_b[q] = cb
        self.threshold[q] = thr
        self.tau[q] = time
        self.n_inserted += 1
        self.set_hulls(q, block, cells)
        rj = <size_t>node * fc
        rp = <size_t>q * fc
        memcpy(self.lower + rp, self.lower + rj, self.n_features * sizeof(float))
        memcpy(self.upper + rp, self.upper + rj, self.n_features * sizeof(float))
        self.stretch(q)
        self.count[q] = self.count[node] + 1.0
        self.rate[q] = self.rate[node]
        add_stats(self, q, y, w)
        # the new leaf: x alone
        at = 0
        for p in range(self.n_pairs):
            if xs[self.pair_a[p]] == xs[self.pair_a[p]] and xs[self.pair_b[p]] == xs[self.pair_b[p]]:
                one[at] = 1.0
                one[at + 1] = xs[self.pair_a[p]]
                one[at + 2] = xs[self.pair_b[p]]
                at += 3
            else:
                one[at] = 0.0
                at += 1
        self.set_hulls(s, one, at)
        self.stretch(s)
        self.count[s] = 1.0
        add_stats(self, s, y, w)
        self.keep_point(s, x, y, w)
        return 0

    # ---------------------------------------------------------------- one sample

    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil:
        """Route x from the root (algorithm 4): at each node, maybe insert a cut above it for
        x outside its hulls, else grow them; at a leaf whose fourth point this is, draw the
        cut it would have had; keep x in its leaf."""
        cdef int32_t j = self.root, cells
        cdef double parent_time = 0.0, node_time, e, rate, due
        cdef double* block = self.region(0)
        cdef double* delta = self.region(2)
        cdef bint can_split = not self.grown_out and self.can_add(2)
        cdef bint leaf, grown
        cdef int32_t depth, k, i
        if not can_split:
            # at the node cap no cut can happen: hulls and kept points are of no more use
            # (`drop_points` dropped them, and the tree is grown out for good even if the
            # bytes they freed make room again), only the statistics along the path learn
            while True:
                self.count[j] += 1.0
                add_stats(self, j, y, w)
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
        while k >= 0 and not self.holds(self.path[k + 1], xs):
            k -= 1
        for i in range(k + 1):
            j = self.path[i]
            self.count[j] += 1.0
            add_stats(self, j, y, w)
            parent_time = self.tau[j]
        j = self.path[k + 1]
        while True:
            leaf = self.left[j] < 0
            cells = self.extended(j, xs, block, delta, &rate, &grown)
            due = INFINITY
            if can_split and self.count[j] >= 3.0:
                node_time = self.tau[j]
                if leaf:
                    node_time = self.lifetime
                    if self.count[j] < 4.0:
                        # a 3-point leaf becomes cuttable: the cut it would have had since its
                        # parent's, at the rate of its hull so far
                        e = self.hull_rate(j)
                        if e > 0.0:
                            due = parent_time + rng_exponential(&self.rng, e)
                            if due < node_time:
                                node_time = due
                if grown and rate > 0.0:
                    e = parent_time + rng_exponential(&self.rng, rate)
                    if e < node_time and self.cut_not_crossing(
                            j, x, xs, block, cells, delta, rate, e, y, w) == 0:
                        return 0
                if leaf and due < self.lifetime:
                    self.split_leaf(j, due)
                    leaf = self.left[j] < 0
            if grown:
                self.set_hulls(j, block, cells)
                self.stretch(j)
            self.count[j] += 1.0
            add_stats(self, j, y, w)
            if leaf:
                self.keep_point(j, x, y, w)
                if grown or self.count[j] == 4.0:  # its rate changed
                    self.propagate_rate(j, self.leaf_rate(j) - self.rate[j])
                return 0
            parent_time = self.tau[j]
            j = child(self, j, x)

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        cdef double new_budget, rate
        cdef int32_t cells
        cdef bint grown
        self.sync_pairs()
        self.sync_points()
        self.ensure_work()
        self.shift(x)
        if self.n_seen <= self.warmup and not self.grown_out:
            # budget 0: the root only learns its hulls, box, points and statistics
            cells = self.extended(self.root, self.shifted, self.region(0), self.region(2), &rate,
                                  &grown)
            if grown or not pool_has(&self.hulls, self.root):
                self.set_hulls(self.root, self.region(0), cells)
            self.stretch(self.root)
            self.count[self.root] += 1.0
            add_stats(self, self.root, y, w)
            self.keep_point(self.root, x, y, w)
            return 0
        self.maybe_rescale(self.shifted)
        if self.consistent:
            new_budget = self.budget_scale * pow(<double>self.n_seen, 1.0 / (self.n_features + 2))
        else:
            new_budget = self.fixed_budget
        if self.grown_out:  # no cut any more: the budget only counts (`drop_points`)
            if new_budget > self.lifetime:
                self.lifetime = new_budget
            return self.insert(x, self.shifted, y, w)
        if new_budget > self.lifetime:
            self.grow_lifetime(new_budget)
        if not self.can_add(2) and (self.points.live > 0 or self.hulls.live > 0):
            self.drop_points()
        return self.insert(x, self.shifted, y, w)

    cdef int clear_stats(self) except -1 nogil:
        """A refit forgets the kept points' targets too (a later cut would count them)."""
        cdef int32_t j, i
        cdef double* tg
        Tree.clear_stats(self)
        for j in range(self.n_nodes):
            if self.stored[j] > 0 and pool_has(&self.targets, j):
                tg = pool_block(&self.targets, j)
                for i in range(2 * self.stored[j]):
                    tg[i] = 0.0
        return 0

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """The feature in `slot` leaves the subspace: the hulls of its pairs and its values in
        the kept points are forgotten, then the boxes (`BoxTree._clear_slot`)."""
        cdef int32_t* keep
        cdef int32_t p
        if self.pair_a == NULL:
            self.load_pairs()
        keep = <int32_t*>malloc((<size_t>self.n_pairs + 1) * sizeof(int32_t))
        if keep == NULL:
            with gil:
                raise MemoryError()
        for p in range(self.n_pairs):
            keep[p] = self.pair_a[p] != slot and self.pair_b[p] != slot
        self.ensure_work()
        self.reset_hulls(keep, self.n_pairs)
        free(keep)
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
                if self.columns[s] == cols[k] and self.scale[s] > 0.0:
                    m[k] /= self.scale[s]
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
        columns are checked by the base, `feature_b` being one of `column_keys`.)"""
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
        self.load_pairs()
        if "grown_out" not in state and not borrow:
            # a state from before `grown_out`: past the warm-up, a tree with pairs whose
            # hulls are all gone dropped them (`drop_points`)
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
            pos += 1 + 2 * <size_t>src[pos]
        m = <int32_t>src[pos]
        out = np.array([src[pos + 1 + k] for k in range(2 * m)], dtype=np.float64).reshape(m, 2)
        out[:, 0] += self.origin[self.pair_a[pair]]
        out[:, 1] += self.origin[self.pair_b[pair]]
        return out

    def kept_points(self, int node):
        """Leaf `node`'s kept points: an (n, n_features) array of slot values, and (y, w)."""
        cdef int32_t n = self.stored[node] if 0 <= node < self.n_nodes else 0
        if n == 0 or not pool_has(&self.points, node):
            return np.empty((0, self.n_features)), np.empty((0, 2))
        pts = np.array([pool_block(&self.points, node)[k] for k in range(n * self.feature_capacity)])
        tg = np.array([pool_block(&self.targets, node)[k] for k in range(2 * n)])
        return pts.reshape(n, self.feature_capacity)[:, :self.n_features], tg.reshape(n, 2)


def _check_hulls(const double[::1] data, const long long[::1] offsets, const int32_t[::1] rows,
                 Py_ssize_t n_pairs, Py_ssize_t max_vertices):
    """Each live block of the hulls pool: one entry a pair (a vertex count m in [0,
    max_vertices], then 2m finite coordinates), within the block (`check_kind_state`; the
    pool check put every block inside `data`)."""
    cdef Py_ssize_t j, p, pos, end, k
    cdef double m
    for j in range(rows.shape[0]):
        if rows[j] < 0:
            continue
        pos = offsets[j]
        end = offsets[j] + rows[j]
        for p in range(n_pairs):
            if pos >= end:
                raise ValueError("a node's hulls are shorter than its pairs")
            m = data[pos]
            if not (0 <= m <= max_vertices and m == floor(m)):
                raise ValueError("a hull's vertex count is out of range")
            if pos + 1 + 2 * <Py_ssize_t>m > end:
                raise ValueError("a node's hulls overrun their block")
            for k in range(pos + 1, pos + 1 + 2 * <Py_ssize_t>m):
                if not isfinite(data[k]):
                    raise ValueError("a node's hull holds NaN or infinity")
            pos += 1 + 2 * <Py_ssize_t>m


def _check_targets(const double[::1] data, const long long[::1] offsets, const int32_t[::1] stored,
                   Py_ssize_t classes):
    """Each leaf's kept targets (y, w): finite, w >= 0, y a class index below `classes` (a
    classifier's; -1: a regressor's). The blocks were checked to hold them."""
    cdef Py_ssize_t j, i, at
    cdef double y, w
    for j in range(stored.shape[0]):
        if stored[j] <= 0:
            continue
        at = offsets[j]
        for i in range(stored[j]):
            y = data[at + 2 * i]
            w = data[at + 2 * i + 1]
            if not (isfinite(y) and isfinite(w) and w >= 0) or (
                    classes >= 0 and not (0 <= y < classes and y == floor(y))):
                raise ValueError("a kept point's target or weight is not one the tree counts")


register_kind(BSPTree)
