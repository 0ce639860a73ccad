"""The tree protocol: node storage driven by one declaration table, the bookkeeping every
kind needs, smoothed prediction, subsampling.

See `_tree.pxd` for the fields and the protocol. Every method that runs per sample is `nogil`
and touches no Python object, so a forest can drive many trees from one compiled loop (or
several threads). The rest lives in modules of its own, each a set of functions of the tree:
the declaration table's storage (`_tree_table`), its saved state (`_tree_state`), its byte
budget (`_tree_budget`), its feature importances (`_tree_credit`), its refit
(`_tree_refit`), what it shows of itself to Python (`_tree_inspect`).
"""

from libc.math cimport NAN, pow
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

from ._axis cimport child
from ._random cimport rng_poisson, rng_randint, rng_seed, rng_uniform
from ._tree_budget cimport fit_budget, node_limit, set_max_bytes
from ._tree_credit cimport age_gain, credit, tree_add_importances
from ._tree_inspect cimport tree_estimate, tree_node, tree_predict_rows, tree_walk
from ._tree_refit cimport refit_rows
from ._tree_state cimport (tree_adopt_columns, tree_check_state, tree_get_state, tree_scalars,
                           tree_remap_state, tree_set_state, tree_unborrow, writable)
from ._tree_table cimport (declare_array, declare_scalar, nbytes, resize_nodes, resize_slots,
                           restride_rows, row_bytes, set_scalar, table_release)


# ----------------------------------------------------------------------------------------
# storage kernels
# ----------------------------------------------------------------------------------------

cdef int grow_array(void** ptr, size_t n_bytes) except -1 nogil:
    """realloc that raises MemoryError instead of returning NULL."""
    cdef void* mem
    if n_bytes == 0:
        return 0
    mem = realloc(ptr[0], n_bytes)
    if mem == NULL:
        with gil:
            raise MemoryError()
    ptr[0] = mem
    return 0


cdef int restride(void** ptr, size_t item, int32_t rows, int32_t old_stride, int32_t new_stride,
                  const void* fill) except -1 nogil:
    """Give a row-major (rows x old_stride) block of `item`-byte cells `new_stride` columns,
    copying the cell at `fill` into the new ones."""
    cdef char* mem
    cdef const char* src = <const char*>ptr[0]
    cdef int32_t i, j
    cdef int32_t keep = old_stride if old_stride < new_stride else new_stride
    if rows == 0 or new_stride == old_stride:
        return 0
    mem = <char*>malloc(<size_t>rows * new_stride * item)
    if mem == NULL:
        with gil:
            raise MemoryError()
    for i in range(rows):
        if keep > 0:
            memcpy(mem + <size_t>i * new_stride * item, src + <size_t>i * old_stride * item, keep * item)
        for j in range(keep, new_stride):
            memcpy(mem + (<size_t>i * new_stride + j) * item, fill, item)
    free(ptr[0])
    ptr[0] = mem
    return 0


cdef int32_t doubled(int32_t capacity, int32_t needed) noexcept nogil:
    """Capacity doubled (from at least 4) until it holds `needed`."""
    if capacity < 4:
        capacity = 4
    while capacity < needed:
        capacity *= 2
    return capacity


# ----------------------------------------------------------------------------------------
# the base tree
# ----------------------------------------------------------------------------------------

cdef class Tree:
    #: the router of the kind's interior nodes, saved in its state ("axis": _axis.child)
    split_kind = "axis"
    #: the kind's pools its predictions never read: a tree loaded to predict from a mapped
    #: file (`set_state(borrow=True)`) does not copy them; it reads them from its state when
    #: its forest gives it memory of its own
    learn_only_pools = ()

    def __cinit__(self, *args, **kwargs):
        # C fields start zeroed (pointers NULL); only the non-zero defaults are set here
        self.root = -1
        self.max_nodes = 1
        self.limit_nodes = -1
        self.features_per_tree = 2**31 - 1
        self.max_bytes = NO_BYTE_CAP
        self.subsample_rate = 1.0
        # the base's rows of the declaration table
        declare_array(self, <void**>&self.left, b"left", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        declare_array(self, <void**>&self.right, b"right", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        declare_array(self, <void**>&self.parent, b"parent", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        declare_array(self, <void**>&self.feature, b"feature", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        declare_array(self, <void**>&self.threshold, b"threshold", CELL_F64, ROWS_NODE, NULL, NULL, True, NAN)
        declare_array(self, <void**>&self.weight, b"weight", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_array(self, <void**>&self.value, b"value", CELL_F64, ROWS_NODE, &self.value_stride,
                            &self.n_values, True, 0.0)
        declare_array(self, <void**>&self.path, b"path", CELL_I32, ROWS_PATH, NULL, NULL, False, -1)
        declare_array(self, <void**>&self.columns, b"columns", CELL_I32, ROWS_SLOT, NULL, NULL, True, -1)
        declare_scalar(self, &self.task, b"task", SCALAR_INT, True, TASK_CLASSIFICATION,
                       TASK_REGRESSION)
        declare_scalar(self, &self.max_nodes, b"max_nodes", SCALAR_I32, True, 1)
        declare_scalar(self, &self.max_bytes, b"max_bytes", SCALAR_I64, True, 1)
        declare_scalar(self, &self.features_per_tree, b"features_per_tree", SCALAR_I32, True, 1)
        declare_scalar(self, &self.smoothing, b"smoothing", SCALAR_F64, True, 0.0)
        declare_scalar(self, &self.subsample_mode, b"subsample_mode", SCALAR_INT, True, SUBSAMPLE_NONE,
                       SUBSAMPLE_POISSON)
        declare_scalar(self, &self.subsample_rate, b"subsample_rate", SCALAR_F64, True, 0.0)
        declare_scalar(self, &self.subsample_decay, b"subsample_decay", SCALAR_F64, True, 0.0)
        declare_scalar(self, &self.n_offered, b"n_offered", SCALAR_I64, False, 0)
        declare_scalar(self, &self.n_seen, b"n_seen", SCALAR_I64, False, 0)
        declare_scalar(self, &self.root, b"root", SCALAR_I32, False, -1)
        declare_scalar(self, &self.n_features, b"n_features", SCALAR_I32, False, 0, MAX_WIDTH)
        declare_scalar(self, &self.n_columns, b"n_columns", SCALAR_I32, False, 0, MAX_WIDTH)
        declare_scalar(self, &self.n_values, b"n_values", SCALAR_I32, False, 0, MAX_WIDTH)
        self.gain_unit = 1.0
        declare_array(self, <void**>&self.gain, b"gain", CELL_F32, ROWS_NODE, NULL, NULL, True, 0.0)
        declare_scalar(self, &self.gain_growth, b"gain_growth", SCALAR_F64, True, 0.0, 2.0)
        declare_scalar(self, &self.gain_unit, b"gain_unit", SCALAR_F64, False, 1.0, 2e15)

    def __init__(self, **params):
        """A new empty tree. Every parameter is given by name: the base's (`task`,
        `max_nodes`, `max_bytes`, `features_per_tree`, `smoothing`, `subsample_mode`, `subsample_rate`,
        `subsample_decay`, `seed`) and those the kind declares; the forest validated them."""
        seed = params.pop("seed", 0)
        for name, v in params.items():
            self._set_scalar(name, v, True)
        rng_seed(&self.rng, <uint64_t>seed)
        if self.task == TASK_REGRESSION:
            self.n_values = 2
        restride_rows(self, &self.value_stride, 2)
        self._resize_features(4)
        resize_nodes(self, min(16, self.max_nodes))
        self._start()

    cdef int _start(self) except -1:
        """Hook: a kind's first draws once the tree is seeded and allocated."""
        return 0

    def __dealloc__(self):
        table_release(self)

    # ---------------------------------------------------------------- the declaration table
    # (`_tree_table`: declare_array, declare_scalar, declare_pool)

    def _set_scalar(self, str name, object v, bint param_only):
        set_scalar(self, name, v, param_only)

    @classmethod
    def declared_scalars(cls):
        """Each scalar a tree of this kind declares, by name, at the value it takes before
        any parameter is set: the value `set_state` leaves a scalar its state lacks at."""
        return tree_scalars(cls.__new__(cls))

    # ---------------------------------------------------------------- node storage

    cdef int _resize_features(self, int32_t capacity) except -1 nogil:
        """`capacity` feature slots (`_tree_table.resize_slots`); a kind extends this."""
        return resize_slots(self, capacity)

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """Forget what the tree kind keeps of the feature in `slot` (it leaves the subspace);
        splits already made on it stay, routing by its registry column."""
        return 0

    cdef int ensure_features(self, int32_t n_columns) except -1 nogil:
        """Consider the registry columns the tree has not considered yet for its subspace: each
        takes a free slot while there is one; then column c replaces a uniformly random slot
        with probability features_per_tree / (c + 1) (reservoir sampling), the slot's old feature
        being forgotten (`_clear_slot`). Random draws happen only past `features_per_tree` columns."""
        cdef int32_t c
        cdef int32_t width = self.feature_capacity
        for c in range(self.n_columns, n_columns):
            self.offer_column(c, c)
        if n_columns > self.n_columns:
            self.n_columns = n_columns
        if self.feature_capacity != width:
            fit_budget(self)
        return 0

    cdef int offer_column(self, int32_t c, int32_t k) except -1 nogil:
        """Offer registry column `c`, the `k`-th column (from 0) the tree considers, to the
        subspace: a free slot while there is one, else a uniformly random slot with
        probability features_per_tree / (k + 1) (the reservoir's step)."""
        cdef int32_t slot
        if self.n_features < self.features_per_tree:
            if self.n_features >= self.feature_capacity:
                self._resize_features(doubled(self.feature_capacity, self.n_features + 1))
            self.columns[self.n_features] = c
            self.n_features += 1
        else:
            slot = <int32_t>rng_randint(&self.rng, <Py_ssize_t>k + 1)
            if slot < self.features_per_tree:
                self._clear_slot(slot)
                self.columns[slot] = c
        return 0

    def adopt_columns(self, const int32_t[::1] unseen, int32_t n_columns):
        """A merge's last step: offer the tree the registry's columns it never considered
        (`_tree_state.tree_adopt_columns`)."""
        tree_adopt_columns(self, unseen, n_columns)

    #: keys of the saved state (`get_state`) whose int cells are registry columns (-1: none),
    #: and whose rows are indexed by class (`n_values` cells a row, pools included): what
    #: `remap_state` renumbers, and the columns `check_state` checks against the registry.
    #: A kind adds its own (`_bsp`: `feature_b`, ...).
    column_keys = ("feature", "columns")
    class_row_keys = ("value",)
    #: pools whose every k-th cell, from the first, is a class index (a kept point's target)
    class_cell_keys = {}

    @classmethod
    def remap_state(cls, dict state, columns, classes):
        """Renumber a saved state for another forest's registries, a merge
        (`_tree_state.tree_remap_state`); a kind whose state holds columns or classes in
        another shape extends this."""
        return tree_remap_state(cls, state, columns, classes)

    cdef int ensure_values(self, int32_t n_values) except -1 nogil:
        if n_values > self.value_stride:
            restride_rows(self, &self.value_stride, doubled(self.value_stride, n_values))
            fit_budget(self)
        if n_values > self.n_values:
            self.n_values = n_values
        return 0

    cdef bint can_add(self, int32_t k) noexcept nogil:
        """Whether `k` more nodes fit under `max_nodes` and the byte budget (`node_limit`)."""
        return self.n_nodes + k <= node_limit(self)

    cdef int drop_growth(self) except -1 nogil:
        """Hook, over the byte budget: free what the kind keeps only to grow (BSP's kept
        points and hulls, the stream-partitioning fringe)."""
        return 0

    cdef int free_twig(self, int32_t node) except -1 nogil:
        """Hook: twig `node` (an interior node over two leaves) is about to become a leaf
        again (`shed_twigs`); the kind resets what it keeps of an interior node."""
        return 0

    cdef int32_t add_node(self, int32_t parent) except -1 nogil:
        """Append a fresh leaf under `parent` (-1 for a root) and return its index; every
        declared node array gets its fill value. Refuses (RuntimeError) past `max_nodes`: a
        kind checks `can_add` before it splits."""
        cdef int32_t j = self.n_nodes
        cdef int k
        cdef ArraySpec* a
        cdef size_t width
        self.reuse = 0  # a kept walk may pass through the node that gets children
        if j >= self.max_nodes:
            with gil:
                raise RuntimeError(f"a tree may hold at most max_nodes={self.max_nodes} nodes")
        if j >= self.capacity:
            resize_nodes(self, min(doubled(self.capacity, j + 1), max(node_limit(self), j + 1)))
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.rows == ROWS_NODE:
                width = table_stride(a)
                fill_cells(a.ptr[0], a.cell, <size_t>j * width, <size_t>(j + 1) * width, a.fill)
        self.n_nodes = j + 1
        self.parent[j] = parent
        return j

    cdef int32_t add_children(self, int32_t node, int32_t column, double threshold) except -1 nogil:
        """Make leaf `node` interior, cutting registry column `column` at `threshold` (axis
        router: x[column] <= threshold goes left), over two fresh leaves that have seen no data.
        Returns the left child; the right one is the next index."""
        cdef int32_t l = self.add_node(node)
        cdef int32_t r = self.add_node(node)
        self.feature[node] = column
        self.threshold[node] = threshold
        self.left[node] = l
        self.right[node] = r
        return l

    cdef int32_t insert_parent(self, int32_t node, bint new_right) except -1 nogil:
        """Insert a new interior node p above `node`, with a fresh leaf s as its other child
        (on the right if `new_right`); p takes node's place under its parent and starts with
        node's statistics (everything that reached p went through node). Returns p; s is
        p's other child. The caller sets p's cut."""
        cdef int32_t p = self.add_node(self.parent[node])
        cdef int32_t s = self.add_node(p)
        cdef int32_t pp = self.parent[node]
        self.weight[p] = self.weight[node]
        memcpy(self.value + <size_t>p * self.value_stride,
               self.value + <size_t>node * self.value_stride,
               self.value_stride * sizeof(double))
        relink_child(self, pp, node, p)
        self.parent[node] = p
        if new_right:
            self.left[p] = node
            self.right[p] = s
        else:
            self.left[p] = s
            self.right[p] = node
        return p

    # ---------------------------------------------------------------- learning

    cdef double draw_weight(self) noexcept nogil:
        """The weight of the next sample offered to the tree: 1, or Bernoulli(q_n), or
        Poisson(q_n), with q_n = subsample_rate * n^-subsample_decay for the n-th sample."""
        cdef double q = self.subsample_rate
        self.n_offered += 1
        if self.subsample_mode == SUBSAMPLE_NONE:
            return 1.0
        if self.subsample_decay > 0.0:
            q = q * pow(<double>self.n_offered, -self.subsample_decay)
        if self.subsample_mode == SUBSAMPLE_BERNOULLI:
            return 1.0 if rng_uniform(&self.rng) < q else 0.0
        return <double>rng_poisson(&self.rng, q)

    cdef int learn_sample(self, const double* x, int32_t n_features, double y) except -1 nogil:
        """Offer one sample to the tree: draw its weight and, if kept, do the bookkeeping every
        kind needs (admit new features, make room for a new class, count it, create the root)
        before the kind's `learn`."""
        cdef double w = self.draw_weight()
        cdef int32_t depth
        if self.gain_growth > 0.0:
            age_gain(self)
        if w <= 0.0:
            self.reuse = 0
            return 0
        self.ensure_features(n_features)
        if self.task == TASK_CLASSIFICATION:
            self.ensure_values(<int32_t>y + 1)
        self.n_seen += 1
        if self.root < 0:
            self.root = self.add_node(-1)
        if self.gain_growth > 0.0 and self.left[self.root] >= 0 and credit_due(self.n_offered):
            # the walk the credit takes is the one the kind's `learn` takes next (`route`)
            depth = self.reuse
            if depth <= 0:
                depth = self.descend(x)
                self.reuse = depth
            credit(self, depth, y, w * CREDIT_EVERY)
        self.learn(x, n_features, y, w)
        self.reuse = 0  # a kind that walks its own way leaves it
        return 0

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        """The kind's update with a kept sample of weight `w` (the root exists)."""
        with gil:
            raise NotImplementedError

    cdef int32_t split_columns(self, int32_t node, int32_t* cols, double* shares) noexcept nogil:
        """The registry columns interior `node` cuts on and the share of its credit each takes
        (at most 2); returns how many. Axis-aligned here: its one feature."""
        cols[0] = self.feature[node]
        shares[0] = 1.0
        return 1

    cdef int clear_stats(self) except -1 nogil:
        """Forget every node's statistics, and whatever else the kind learned from targets (a
        kind keeping more overrides this and calls it): the partition stays as it is. The
        first step of a refit (`refit_rows`)."""
        if self.n_nodes > 0:
            memset(self.weight, 0, <size_t>self.n_nodes * sizeof(double))
            memset(self.value, 0, <size_t>self.n_nodes * self.value_stride * sizeof(double))
        return 0

    def refit_rows(self, const double[:, ::1] X, const double[::1] y):
        """XForest-Zero's refit (`_tree_refit.refit_rows`): only the statistics change."""
        refit_rows(self, X, y)

    cdef int refit_sample(self, const double* x, double y, int32_t depth) except -1 nogil:
        """Hook: what else a kind learns from a refit's row, once it is counted along its path
        (`path[:depth]`)."""
        return 0

    cdef int after_refit(self) except -1 nogil:
        """Hook: the end of a refit (every row counted)."""
        return 0

    # ---------------------------------------------------------------- prediction

    cdef int32_t descend(self, const double* x) noexcept nogil:
        """The router: walk from the root to the leaf of `x`, recording the nodes in `path`;
        return its length. Axis-aligned here; a kind with other cuts overrides it."""
        cdef int32_t j = self.root
        cdef int32_t depth = 0
        self.walk_tag = 0
        while j >= 0:
            self.path[depth] = j
            depth += 1
            if self.left[j] < 0:
                break
            j = child(self, j, x)
        self.walked = depth
        return depth

    cdef int32_t route(self, const double* x) noexcept nogil:
        """The walk of `x` into `path` for a learn, as `descend`: the walk the prediction of
        the same row left there when the forest said it may be taken (`reuse`: same row,
        nothing learned since, no node added or removed since), else a new one."""
        cdef int32_t depth = self.reuse
        if depth > 0:
            self.reuse = 0
            if self.walk_tag != 0:  # a prediction's walk (else `learn_sample`'s own, for `credit`)
                self.n_reused += 1
            return depth
        return self.descend(x)

    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil:
        self.blend_path(self.descend(x), out, n_out)

    cdef void blend_path(self, int32_t depth, double* out, int32_t n_out) noexcept nogil:
        """Smoothed estimate along `path[:depth]`, root first.

        The first node on the path that has seen data gives its empirical estimate; each deeper
        node that has seen data then mixes its own statistics with its parent's estimate as a
        prior of strength `smoothing`: est = (stats + smoothing * est_parent) / (weight + smoothing).
        With smoothing = 0 this is the leaf estimate, backing off to the deepest ancestor with
        data when the leaf is empty (a fresh split). Classification writes `n_out` class
        probabilities (uniform for an empty tree); regression writes (mean, mean of y^2).
        """
        cdef int32_t k, c, j
        cdef int32_t known
        cdef double nj, inv, a = self.smoothing
        cdef double* v
        cdef bint have = False
        if self.task == TASK_CLASSIFICATION:
            known = self.n_values if self.n_values < n_out else n_out
            for c in range(n_out):
                out[c] = 1.0 / n_out
        else:
            known = 2
            out[0] = 0.0
            out[1] = 0.0
        for k in range(depth):
            j = self.path[k]
            nj = self.weight[j]
            if nj <= 0.0:
                continue
            v = self.value + <size_t>j * self.value_stride
            if not have:
                for c in range(known):
                    out[c] = v[c] / nj
                for c in range(known, n_out):
                    out[c] = 0.0
                have = True
            else:
                # one reciprocal per node, off the chain of dependent updates from the root
                # down (a division per class on that chain would set its pace)
                inv = 1.0 / (nj + a)
                for c in range(known):
                    out[c] = (v[c] + a * out[c]) * inv
                for c in range(known, n_out):
                    out[c] = a * out[c] * inv

    # ---------------------------------------------------------------- batch entry points

    def learn_rows(self, const double[:, ::1] X, const double[::1] y):
        """Learn every row of `X` in order, exactly as that many `learn_sample` calls."""
        cdef Py_ssize_t i
        cdef int32_t n_features = <int32_t>X.shape[1]
        writable(self)
        with nogil:
            self.reuse = 0
            for i in range(X.shape[0]):
                self.learn_sample(row_of(X, i), n_features, y[i])

    def predict_rows(self, const double[:, ::1] X, int32_t n_out):
        """The tree's estimate of every row of `X`, for tests (`_tree_inspect`)."""
        return tree_predict_rows(self, X, n_out)

    # ---------------------------------------------------------------- introspection
    # (`_tree_inspect`: what a tree shows of itself, for Python)

    @property
    def node_count(self):
        return self.n_nodes

    @property
    def root_node(self):
        """The root's index (-1 while the tree is empty)."""
        return self.root

    @property
    def samples_seen(self):
        return self.n_seen

    def add_importances(self, double[::1] out):
        """Add each interior node's decayed credit to the registry columns its split cuts
        on (`ForestCore.importances`)."""
        tree_add_importances(self, out)

    def walk(self, const double[::1] x):
        """The nodes `x` (a row in registry order) goes through, root first."""
        return tree_walk(self, x)

    def node(self, int32_t j):
        """What the base knows of node `j` (`_tree_inspect.tree_node`)."""
        return tree_node(self, j)

    def describe(self, int32_t j):
        """What the kind keeps at node `j` beyond the base's (`node`), for `debug_one` and
        `draw`: a box, a leaf's split candidates, ... (nothing here)."""
        return {}

    def estimate(self, int32_t j, int32_t n_out):
        """The smoothed estimate the predictions read at node `j`."""
        return tree_estimate(self, j, n_out)

    @property
    def walks_reused(self):
        """Learns that took the walk of the prediction before them (`route`); not saved."""
        return self.n_reused

    def set_max_bytes(self, long long max_bytes):
        """Set the tree's byte budget, its share of the forest's (`_tree_budget`)."""
        set_max_bytes(self, max_bytes)

    @property
    def widths_(self):
        """(allocated node rows, feature slots, statistics per node, bytes per node row)."""
        return self.capacity, self.feature_capacity, self.value_stride, row_bytes(self)

    @property
    def node_limit_(self):
        """The most nodes the tree may hold now (`node_limit`)."""
        return node_limit(self)

    @property
    def max_bytes_(self):
        """The tree's byte budget now (a very large number: none)."""
        return self.max_bytes

    def arrays(self):
        """The used part of the node storage as numpy arrays (a copy), for tests and plots."""
        return self.get_state()

    def __sizeof__(self):
        return object.__sizeof__(self) + nbytes(self)

    # ---------------------------------------------------------------- pickling

    cpdef dict get_state(self):
        """The tree as plain data (`_tree_state.tree_get_state`)."""
        return tree_get_state(self)

    cpdef set_state(self, dict state, bint borrow=False, Py_ssize_t columns=-1):
        """Restore a checked state of this kind and version (`_tree_state.tree_set_state`;
        `borrow`: read the node arrays where they lie, a mapped file's pages; `columns`: the
        width of the rows the tree will read)."""
        tree_set_state(self, state, borrow, columns)

    def _unborrow(self):
        """Forget the borrowed arrays (their pointers, never freed here)."""
        tree_unborrow(self)

    def check_state(self, dict state, Py_ssize_t columns=-1):
        """Raise ValueError unless `set_state` can load `state` safely
        (`_tree_state.tree_check_state`, then the kind's `check_kind_state`). Touches
        nothing."""
        tree_check_state(self, state, columns)

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """Hook: a kind's own checks of a state of `n` nodes whose rows are `width` columns
        wide (`check_state` did the declared ones)."""

    def __reduce__(self):
        return (tree_from_state, (self.get_state(),))


#: the version of `Tree.get_state`'s dict (older ones: `river_forests._state.migrate_tree_state`)
TREE_STATE_VERSION = STATE_VERSION



#: the tree kinds by name (`register_kind`): a saved state names its kind, never a class
TREE_KINDS = {}


def register_kind(cls):
    """Make the tree kind `cls` loadable by its name (each kind's module, at import)."""
    TREE_KINDS[cls.__name__] = cls
    return cls


def tree_from_state(dict state, bint borrow=False, Py_ssize_t columns=-1):
    """A tree of the kind `state` names (`TREE_KINDS`), restored from it (`set_state`;
    `borrow`: reading its node arrays where they lie; `columns`: the registry's width)."""
    kind = state.get("kind")
    cls = TREE_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown tree kind {kind!r}")
    tree = cls.__new__(cls)
    tree.set_state(state, borrow, columns)
    return tree


def _rebuild_tree(cls, state):
    """A tree pickled before trees were saved by kind name (its class pickled): migrated to
    this version (`river_forests._state`), then `tree_from_state`."""
    from river_forests._state import migrate_tree_state

    return tree_from_state(migrate_tree_state(dict(state, kind=cls.__name__)))
