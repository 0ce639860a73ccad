"""The tree protocol: node storage driven by one declaration table, the bookkeeping every
kind needs, smoothed prediction, subsampling, pickling.

See `_tree.pxd` for the fields and the protocol. Every method that runs per sample is `nogil` and touches no
Python object, so a forest can drive many trees from one compiled loop (or several threads).
"""

from cpython.mem cimport PyMem_Free
from libc.math cimport INFINITY, NAN, pow
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

cimport numpy as cnp

from ._axis cimport child
from ._pool cimport pool_bytes, pool_export, pool_import, pool_init, pool_relayout, pool_release
from ._random cimport rng_poisson, rng_randint, rng_seed, rng_uniform

cnp.import_array()


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


cdef object export_rows(const void* ptr, object dtype, int32_t rows, int32_t stride, int32_t cols):
    """Copy the first `cols` columns of a (rows x stride) block of `dtype` cells into a new
    numpy array."""
    cdef cnp.ndarray out = np.empty((rows, cols), dtype=dtype)
    cdef size_t item = out.itemsize
    cdef char* dst = <char*>cnp.PyArray_DATA(out)
    cdef int32_t i
    if cols > 0:
        for i in range(rows):
            memcpy(dst + <size_t>i * cols * item, <const char*>ptr + <size_t>i * stride * item, cols * item)
    return out


cdef int import_rows(void* ptr, object dtype, object array, int32_t stride) except -1:
    """Copy a 2-D array (converted to `dtype`) into the first columns of a (rows x stride)
    block of `dtype` cells."""
    cdef cnp.ndarray a = np.ascontiguousarray(array, dtype=dtype)
    cdef size_t item = a.itemsize
    cdef const char* src = <const char*>cnp.PyArray_DATA(a)
    cdef int32_t i, rows = a.shape[0], cols = a.shape[1]
    if cols > 0:
        for i in range(rows):
            memcpy(<char*>ptr + <size_t>i * stride * item, src + <size_t>i * cols * item, cols * item)
    return 0


cdef int32_t doubled(int32_t capacity, int32_t needed) noexcept nogil:
    """Capacity doubled (from at least 4) until it holds `needed`."""
    if capacity < 4:
        capacity = 4
    while capacity < needed:
        capacity *= 2
    return capacity


ctypedef struct Key:
    double key
    int32_t node


cdef inline bint _before(const Key* p, const Key* q) noexcept nogil:
    """The order of (key, node): total, so the selection is deterministic."""
    return p.key < q.key or (p.key == q.key and p.node < q.node)


cdef void select_smallest(Key* a, int32_t n, int32_t k) noexcept nogil:
    """Reorder a[:n] so that a[:k] holds its k smallest keys (quickselect, in O(n) on average;
    the pivot is the middle element, and which keys end in a[:k] does not depend on it)."""
    cdef int32_t lo = 0, hi = n - 1, i, j
    cdef Key pivot, t
    if k <= 0 or k >= n:
        return
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i = lo
        j = hi
        while i <= j:
            while _before(&a[i], &pivot):
                i += 1
            while _before(&pivot, &a[j]):
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        # a[lo..j] <= pivot <= a[i..hi]
        if k - 1 <= j:
            hi = j
        elif k - 1 >= i:
            lo = i
        else:
            return



cdef size_t _CELL_BYTES[3]
_CELL_BYTES[CELL_I32] = sizeof(int32_t)
_CELL_BYTES[CELL_F64] = sizeof(double)
_CELL_BYTES[CELL_F32] = sizeof(float)
_CELL_DTYPES = {CELL_I32: np.int32, CELL_F64: np.float64, CELL_F32: np.float32}


cdef inline void _set_cell(void* p, int cell, size_t i, double v) noexcept nogil:
    if cell == CELL_I32:
        (<int32_t*>p)[i] = <int32_t>v
    elif cell == CELL_F64:
        (<double*>p)[i] = v
    else:
        (<float*>p)[i] = <float>v


cdef inline void _fill_cells(void* p, int cell, size_t start, size_t stop, double v) noexcept nogil:
    cdef size_t i
    for i in range(start, stop):
        _set_cell(p, cell, i, v)


# ----------------------------------------------------------------------------------------
# the declaration table
# ----------------------------------------------------------------------------------------

cdef object _get_scalar(ScalarSpec* s):
    if s.kind == SCALAR_INT:
        return (<int*>s.ptr)[0]
    if s.kind == SCALAR_BOOL:
        return bool((<int*>s.ptr)[0])
    if s.kind == SCALAR_I32:
        return (<int32_t*>s.ptr)[0]
    if s.kind == SCALAR_I64:
        return (<long long*>s.ptr)[0]
    return (<double*>s.ptr)[0]


cdef inline size_t _rows(Tree tree, int rows) noexcept nogil:
    """Rows allocated in an array of row kind `rows`."""
    if rows == ROWS_NODE:
        return tree.capacity
    if rows == ROWS_SLOT:
        return tree.feature_capacity
    return <size_t>tree.capacity + 1


cdef inline size_t _stride(ArraySpec* a) noexcept nogil:
    """Cells per row of array `a`."""
    return <size_t>a.stride[0] if a.stride != NULL else 1


cdef object _export(Tree tree, ArraySpec* a):
    """The saved part of array `a` as a new numpy array (1-D for one cell per row)."""
    cdef int32_t rows = tree.n_nodes if a.rows == ROWS_NODE else tree.n_features
    cdef int32_t stride = <int32_t>_stride(a)
    cdef int32_t cols = a.cols[0] if a.cols != NULL else stride
    out = export_rows(a.ptr[0], _CELL_DTYPES[a.cell], rows, stride, cols)
    return out if a.stride != NULL else out.reshape(rows)


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
        self.declare_array(<void**>&self.left, b"left", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        self.declare_array(<void**>&self.right, b"right", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        self.declare_array(<void**>&self.parent, b"parent", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        self.declare_array(<void**>&self.feature, b"feature", CELL_I32, ROWS_NODE, NULL, NULL, True, -1)
        self.declare_array(<void**>&self.threshold, b"threshold", CELL_F64, ROWS_NODE, NULL, NULL, True, NAN)
        self.declare_array(<void**>&self.weight, b"weight", CELL_F64, ROWS_NODE, NULL, NULL, True, 0.0)
        self.declare_array(<void**>&self.value, b"value", CELL_F64, ROWS_NODE, &self.value_stride,
                           &self.n_values, True, 0.0)
        self.declare_array(<void**>&self.path, b"path", CELL_I32, ROWS_PATH, NULL, NULL, False, -1)
        self.declare_array(<void**>&self.columns, b"columns", CELL_I32, ROWS_SLOT, NULL, NULL, True, -1)
        self.declare_scalar(&self.task, b"task", SCALAR_INT, True)
        self.declare_scalar(&self.max_nodes, b"max_nodes", SCALAR_I32, True)
        self.declare_scalar(&self.max_bytes, b"max_bytes", SCALAR_I64, True)
        self.declare_scalar(&self.features_per_tree, b"features_per_tree", SCALAR_I32, True)
        self.declare_scalar(&self.smoothing, b"smoothing", SCALAR_F64, True)
        self.declare_scalar(&self.subsample_mode, b"subsample_mode", SCALAR_INT, True)
        self.declare_scalar(&self.subsample_rate, b"subsample_rate", SCALAR_F64, True)
        self.declare_scalar(&self.subsample_decay, b"subsample_decay", SCALAR_F64, True)
        self.declare_scalar(&self.n_offered, b"n_offered", SCALAR_I64, False)
        self.declare_scalar(&self.n_seen, b"n_seen", SCALAR_I64, False)
        self.declare_scalar(&self.root, b"root", SCALAR_I32, False)
        self.declare_scalar(&self.n_features, b"n_features", SCALAR_I32, False)
        self.declare_scalar(&self.n_columns, b"n_columns", SCALAR_I32, False)
        self.declare_scalar(&self.n_values, b"n_values", SCALAR_I32, False)
        self.gain_unit = 1.0
        self.declare_array(<void**>&self.gain, b"gain", CELL_F32, ROWS_NODE, NULL, NULL, True, 0.0)
        self.declare_scalar(&self.gain_growth, b"gain_growth", SCALAR_F64, True)
        self.declare_scalar(&self.gain_unit, b"gain_unit", SCALAR_F64, False)

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
        self._resize_values(2)
        self._resize_features(4)
        self._resize_nodes(min(16, self.max_nodes))
        self._start()

    cdef int _start(self) except -1:
        """Hook: a kind's first draws once the tree is seeded and allocated."""
        return 0

    def __dealloc__(self):
        cdef int k
        for k in range(self.n_arrays):
            if not (self.borrowed_mask >> k) & 1:
                free(self.arrays_[k].ptr[0])
            self.arrays_[k].ptr[0] = NULL
        for k in range(self.n_pools):
            pool_release(self.pools_[k].pool)

    # ---------------------------------------------------------------- the declaration table

    cdef int declare_array(self, void** ptr, const char* name, int cell, int rows, int32_t* stride,
                           int32_t* cols, bint saved, double fill) except -1:
        """Declare one array field of the tree (called from `__cinit__`): the table does the
        rest (allocation and growth with the node, slot or value widths, fill of new cells,
        free, size, state)."""
        if self.n_arrays >= MAX_ARRAYS:
            raise RuntimeError("too many tree arrays: raise MAX_ARRAYS in _tree.pxd")
        self.arrays_[self.n_arrays] = ArraySpec(ptr, name, cell, rows, stride, cols, saved, fill)
        self.n_arrays += 1
        return 0

    cdef int declare_scalar(self, void* ptr, const char* name, int kind, bint param) except -1:
        """Declare one scalar field (called from `__cinit__`): saved in the state under `name`,
        and a construction parameter of that name if `param`."""
        if self.n_scalars >= MAX_SCALARS:
            raise RuntimeError("too many tree scalars: raise MAX_SCALARS in _tree.pxd")
        self.scalars_[self.n_scalars] = ScalarSpec(ptr, name, kind, param)
        self.n_scalars += 1
        return 0

    cdef int declare_pool(self, Pool* pool, const char* name, int32_t* stride,
                          int32_t* cols) except -1:
        """Declare one pool field (`_pool.pxd`, called from `__cinit__`): blocks of rows of
        `stride` cells (a width field of the tree, NULL for 1) that the table relays out when
        that width grows, frees, counts and saves (`cols` cells of a row, NULL for all)."""
        if self.n_pools >= MAX_POOLS:
            raise RuntimeError("too many tree pools: raise MAX_POOLS in _tree.pxd")
        pool_init(pool, stride[0] if stride != NULL else 1)
        self.pools_[self.n_pools] = PoolSpec(pool, name, stride, cols)
        self.n_pools += 1
        return 0

    def _set_scalar(self, str name, object v, bint param_only):
        cdef int k
        cdef ScalarSpec* s
        cdef bytes key = name.encode()
        for k in range(self.n_scalars):
            s = &self.scalars_[k]
            if s.name == key and (s.param or not param_only):
                if s.kind == SCALAR_INT or s.kind == SCALAR_BOOL:
                    (<int*>s.ptr)[0] = <int>v
                elif s.kind == SCALAR_I32:
                    (<int32_t*>s.ptr)[0] = <int32_t>v
                elif s.kind == SCALAR_I64:
                    (<long long*>s.ptr)[0] = <long long>v
                else:
                    (<double*>s.ptr)[0] = <double>v
                return
        raise TypeError(f"{type(self).__name__} has no parameter {name!r}")

    # ---------------------------------------------------------------- node storage

    cdef int _resize_nodes(self, int32_t capacity) except -1 nogil:
        cdef int k
        cdef ArraySpec* a
        cdef size_t rows
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.rows == ROWS_SLOT:
                continue
            rows = capacity if a.rows == ROWS_NODE else <size_t>capacity + 1
            grow_array(a.ptr, rows * _stride(a) * _CELL_BYTES[a.cell])
        self.capacity = capacity
        return 0

    cdef int _resize_features(self, int32_t capacity) except -1 nogil:
        """`capacity` slots: per-slot arrays grow (new cells filled), and arrays with one cell
        per slot in each node row are restrided."""
        cdef int k
        cdef ArraySpec* a
        cdef int32_t old = self.feature_capacity
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.rows == ROWS_SLOT:
                grow_array(a.ptr, <size_t>capacity * _stride(a) * _CELL_BYTES[a.cell])
                _fill_cells(a.ptr[0], a.cell, <size_t>old * _stride(a),
                            <size_t>capacity * _stride(a), a.fill)
        self._restride(&self.feature_capacity, capacity)
        self.layout += 1
        return 0

    cdef int _resize_values(self, int32_t stride) except -1 nogil:
        return self._restride(&self.value_stride, stride)

    cdef int _restride(self, int32_t* stride, int32_t new_stride) except -1 nogil:
        """Give every node array whose row width is the field `stride` `new_stride` cells a row
        (new cells filled), and set the field."""
        cdef int k
        cdef ArraySpec* a
        cdef char cell[8]
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.stride == stride and a.rows != ROWS_SLOT:
                _set_cell(cell, a.cell, 0, a.fill)
                restride(a.ptr, _CELL_BYTES[a.cell], <int32_t>_rows(self, a.rows), stride[0],
                         new_stride, cell)
        for k in range(self.n_pools):
            if self.pools_[k].stride == stride:
                pool_relayout(self.pools_[k].pool, new_stride, 0)
        stride[0] = new_stride
        self.layout += 1
        return 0

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
            self.fit_budget()
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
        """A merge's last step (`river_forests.merge`), once `remap_state` renumbered the
        tree's columns into a registry of `n_columns` columns: offer it the columns it has
        not considered (`unseen`, in order: features it never saw) as if they had come after
        its own, then every column of the registry counts as considered. A tree that keeps
        every feature gets them all, one that samples keeps a uniform sample of them all."""
        self._writable()
        cdef Py_ssize_t i
        cdef int32_t k = self.n_columns
        if k + unseen.shape[0] != n_columns:
            raise ValueError(f"{unseen.shape[0]} unseen columns and {k} considered make "
                             f"{k + unseen.shape[0]}, not the registry's {n_columns}")
        with nogil:
            for i in range(unseen.shape[0]):
                self.offer_column(unseen[i], k + <int32_t>i)
            self.n_columns = n_columns
            self.ensure_features(n_columns)  # a kind's bookkeeping of its width

    #: keys of the saved state (`get_state`) whose int cells are registry columns (-1: none),
    #: and whose rows are indexed by class (`n_values` cells a row, pools included): what
    #: `remap_state` renumbers. A kind adds its own (`_bsp`: `feature_b`, ...).
    column_keys = ("feature", "columns")
    class_row_keys = ("value",)
    #: pools whose every k-th cell, from the first, is a class index (a kept point's target)
    class_cell_keys = {}

    @classmethod
    def remap_state(cls, dict state, columns, classes):
        """Renumber a saved state for another forest's registries (a merge): registry column c
        becomes `columns[c]`, class k becomes `classes[k]` (a classifier's). Rows indexed by
        class are widened to the largest new index the tree's classes take. A kind whose
        state holds columns or classes in another shape extends this."""
        cols = np.asarray(columns, dtype=np.int32)
        for key in cls.column_keys:
            a = np.asarray(state[key], dtype=np.int32)
            state[key] = np.where(a >= 0, cols[np.maximum(a, 0)], a).astype(np.int32)
        if state["task"] != TASK_CLASSIFICATION or state["n_values"] == 0:
            return state
        old = int(state["n_values"])
        kmap = np.asarray(classes, dtype=np.intp)[:old]
        width = int(kmap.max()) + 1
        for key in cls.class_row_keys:
            if key + "_offsets" in state:  # a pool: flat rows of `old` cells, offsets in cells
                rows = np.asarray(state[key]).reshape(-1, old)
                offsets = np.asarray(state[key + "_offsets"], dtype=np.int64)
                state[key + "_offsets"] = np.where(offsets >= 0, offsets // old * width, -1)
            else:
                rows = np.asarray(state[key]).reshape(-1, old)
            out = np.zeros((rows.shape[0], width), dtype=rows.dtype)
            out[:, kmap] = rows
            state[key] = out.reshape(-1) if key + "_offsets" in state else out
        for key, period in cls.class_cell_keys.items():
            a = np.array(state[key], dtype=np.float64)
            a[0::period] = kmap[a[0::period].astype(np.intp)]
            state[key] = a
        state["n_values"] = width
        return state

    cdef int ensure_values(self, int32_t n_values) except -1 nogil:
        if n_values > self.value_stride:
            self._resize_values(doubled(self.value_stride, n_values))
            self.fit_budget()
        if n_values > self.n_values:
            self.n_values = n_values
        return 0

    cdef bint can_add(self, int32_t k) noexcept nogil:
        """Whether `k` more nodes fit under `max_nodes` and the byte budget (`node_limit`)."""
        return self.n_nodes + k <= self.node_limit()

    cdef size_t row_bytes(self) noexcept nogil:
        """The bytes one more allocated node row costs, over every declared per-node array (the
        walk's scratch path included) at the tree's widths now."""
        cdef int k
        cdef size_t total = 0
        for k in range(self.n_arrays):
            if self.arrays_[k].rows != ROWS_SLOT:
                total += _stride(&self.arrays_[k]) * _CELL_BYTES[self.arrays_[k].cell]
        return total

    cdef size_t nbytes(self) noexcept nogil:
        """The bytes of the tree's storage: every declared array as allocated and every pool
        (what `__sizeof__` adds to the object's own)."""
        cdef int k
        cdef size_t total = 0
        for k in range(self.n_arrays):
            total += _rows(self, self.arrays_[k].rows) * _stride(&self.arrays_[k]) \
                * _CELL_BYTES[self.arrays_[k].cell]
        for k in range(self.n_pools):
            total += pool_bytes(self.pools_[k].pool)
        return total

    cdef int32_t node_limit(self) noexcept nogil:
        """The most nodes the tree may hold now: `max_nodes`, and under a byte budget the
        rows that fit in it beside what is not node rows (per-slot arrays, pools) at the
        tree's widths now. It falls when a width grows (a class, a feature) or a pool fills."""
        cdef size_t row, fixed, pools = 0
        cdef long long room
        cdef int k
        if self.max_bytes >= NO_BYTE_CAP:
            return self.max_nodes
        for k in range(self.n_pools):
            pools += pool_bytes(self.pools_[k].pool)
        if self.limit_nodes >= 0 and self.limit_layout == self.layout \
                and self.limit_bytes == self.max_bytes and self.limit_max == self.max_nodes \
                and self.limit_pools == pools:
            return self.limit_nodes  # nothing it depends on changed: the widths, the caps, the pools
        # allocated bytes = fixed + capacity * row (a path array's extra row is in `fixed`)
        row = self.row_bytes()
        fixed = self.nbytes() - <size_t>self.capacity * row
        room = (self.max_bytes - <long long>fixed) // <long long>row
        if room < 1:
            room = 1
        elif room > self.max_nodes:
            room = self.max_nodes
        self.limit_nodes = <int32_t>room
        self.limit_layout = self.layout
        self.limit_bytes = self.max_bytes
        self.limit_max = self.max_nodes
        self.limit_pools = pools
        return self.limit_nodes

    cdef int drop_growth(self) except -1 nogil:
        """Hook, over the byte budget: free what the kind keeps only to grow (BSP's kept
        points and hulls, the stream-partitioning fringe)."""
        return 0

    cdef int free_twig(self, int32_t node) except -1 nogil:
        """Hook: twig `node` (an interior node over two leaves) is about to become a leaf
        again (`shed_twigs`); the kind resets what it keeps of an interior node."""
        return 0

    cdef int32_t shed_twigs(self, int32_t want) except -1 nogil:
        """Make the `want` twigs (interior nodes over two leaves) that hold the least data
        leaves again (each after the kind's `free_twig`), freeing two rows each; returns the
        rows freed. A freed twig keeps its statistics, which already count its leaves'."""
        cdef int32_t j, n_twigs = 0, k, freed
        cdef Key* keys
        cdef int32_t* chosen
        if want < 1:
            want = 1
        keys = <Key*>malloc(<size_t>self.n_nodes * sizeof(Key) + 1)
        chosen = <int32_t*>malloc(<size_t>self.n_nodes * sizeof(int32_t) + 1)
        if keys == NULL or chosen == NULL:
            free(keys)
            free(chosen)
            with gil:
                raise MemoryError()
        for j in range(self.n_nodes):
            if self.left[j] >= 0 and self.left[self.left[j]] < 0 and self.left[self.right[j]] < 0:
                keys[n_twigs].key = self.weight[j]
                keys[n_twigs].node = j
                n_twigs += 1
        if want > n_twigs:
            want = n_twigs
        select_smallest(keys, n_twigs, want)
        for k in range(want):
            chosen[k] = keys[k].node
            self.free_twig(chosen[k])
        freed = self.collapse(chosen, want) if want > 0 else 0
        free(keys)
        free(chosen)
        return freed

    cdef int fit_budget(self) except -1 nogil:
        """Back under the byte budget after a width grew (a class, a feature: every node row
        widens): first drop what the kind keeps only to grow, then make the twigs that hold
        the least data leaves again, an eighth of the nodes at a time, and give their rows
        back. A kind whose pools hold blocks it cannot move stays as it is (BSP's pairs)."""
        cdef int k
        if self.max_bytes >= NO_BYTE_CAP or <long long>self.nbytes() <= self.max_bytes:
            return 0
        self.drop_growth()
        while <long long>self.nbytes() > self.max_bytes and self.n_nodes > 1:
            for k in range(self.n_pools):
                if self.pools_[k].pool.live > 0:
                    return 0
            if self.shed_twigs(self.n_nodes // 8) == 0:
                return 0
            self._resize_nodes(self.n_nodes)
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
            self._resize_nodes(min(doubled(self.capacity, j + 1), max(self.node_limit(), j + 1)))
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.rows == ROWS_NODE:
                width = _stride(a)
                _fill_cells(a.ptr[0], a.cell, <size_t>j * width, <size_t>(j + 1) * width, a.fill)
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
        if pp < 0:
            self.root = p
        elif self.left[pp] == node:
            self.left[pp] = p
        else:
            self.right[pp] = p
        self.parent[node] = p
        if new_right:
            self.left[p] = node
            self.right[p] = s
        else:
            self.left[p] = s
            self.right[p] = node
        return p

    cdef int32_t collapse(self, const int32_t* nodes, int32_t n) except -1 nogil:
        """Make each of the `n` given interior nodes, whose children must both be leaves, a
        leaf again, and free the children's rows: the last rows move into the holes (links
        fixed), so rows 0..n_nodes-1 stay the tree's nodes. The node keeps its statistics,
        which by the statistics rule already count every sample its children saw; the kind
        resets the rest of the node (its cut time, rate, ...). Returns the rows freed. For
        kinds without pools (their blocks would have to move too)."""
        cdef unsigned char* dead
        cdef int32_t i, j, src, dst, k, freed = 0
        cdef ArraySpec* a
        cdef size_t width, item
        self.reuse = 0
        for k in range(self.n_pools):
            if self.pools_[k].pool.live > 0:
                with gil:
                    raise NotImplementedError("collapse: a pool holds blocks (they would have to move)")
        dead = <unsigned char*>malloc(<size_t>self.n_nodes + 1)
        if dead == NULL:
            with gil:
                raise MemoryError()
        memset(dead, 0, <size_t>self.n_nodes + 1)
        for i in range(n):
            j = nodes[i]
            dead[self.left[j]] = 1
            dead[self.right[j]] = 1
            self.left[j] = -1
            self.right[j] = -1
            self.feature[j] = -1
            self.threshold[j] = NAN
            self.gain[j] = 0.0  # a leaf again: its split's credit goes with the split
            freed += 2
        # fill the lowest hole with the highest live row until none is left below the end
        dst = 0
        src = self.n_nodes - 1
        while True:
            while src >= 0 and dead[src]:
                src -= 1
            while dst < src and not dead[dst]:
                dst += 1
            if dst >= src:
                break
            for k in range(self.n_arrays):
                a = &self.arrays_[k]
                if a.rows == ROWS_NODE:
                    width = _stride(a)
                    item = _CELL_BYTES[a.cell]
                    memcpy(<char*>a.ptr[0] + <size_t>dst * width * item,
                           <char*>a.ptr[0] + <size_t>src * width * item, width * item)
            # relink: the parent's child, the children's parent, the root
            j = self.parent[dst]
            if j < 0:
                self.root = dst
            elif self.left[j] == src:
                self.left[j] = dst
            else:
                self.right[j] = dst
            if self.left[dst] >= 0:
                self.parent[self.left[dst]] = dst
                self.parent[self.right[dst]] = dst
            dead[dst] = 0
            dead[src] = 1
        self.n_nodes -= freed
        free(dead)
        return freed

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
            self.age_gain()
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
            self.credit(depth, y, w * CREDIT_EVERY)
        self.learn(x, n_features, y, w)
        self.reuse = 0  # a kind that walks its own way leaves it
        return 0

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        """The kind's update with a kept sample of weight `w` (the root exists)."""
        with gil:
            raise NotImplementedError

    cdef int age_gain(self) except -1 nogil:
        """One sample offered: every credit so far weighs 2^(-1 / halflife) less (lazily: later
        credits weigh `gain_growth` times more), the array divided down now and then."""
        cdef int32_t j
        cdef float inv
        self.gain_unit *= self.gain_growth
        if self.gain_unit > 1e15:
            inv = <float>(1.0 / self.gain_unit)
            for j in range(self.n_nodes):
                self.gain[j] *= inv
            self.gain_unit = 1.0
        return 0

    cdef int credit(self, int32_t depth, double y, double w) except -1 nogil:
        """Credit each interior node of `path[:depth]` (the walk of a sample of target `y` and
        weight `w`, before the tree learns it) with what its split did for the sample: the
        loss of the node's estimate less that of its child's, the estimates being the
        smoothed path estimates the predictions read (`blend_path`, for the sample's class or
        the mean). The loss is 1 - p(y) for a classifier, whose sum over a node's samples is
        the node's weight times its Gini impurity, so that a node's credit is its split's
        weighted Gini decrease, measured on each sample before it is learned; and the squared
        error over the root's variance for a regressor (a variance decrease, free of the
        target's units). The walk's credits stop at the first node that has seen no data (the
        nodes below it have seen none either: the statistics rule)."""
        cdef int32_t k, j, c = 0
        cdef double a = self.smoothing, est = 0.0, loss, prev = 0.0, nj, t, n0, inv, inv_var = 0.0
        cdef double unit = w * self.gain_unit
        cdef const double* v
        cdef bint have = False, clf = self.task == TASK_CLASSIFICATION
        if clf:
            c = <int32_t>y
        else:
            j = self.path[0]
            n0 = self.weight[j]
            if n0 <= 0.0:
                return 0
            v = self.value + <size_t>j * self.value_stride
            t = v[1] / n0 - (v[0] / n0) * (v[0] / n0)
            if not t > 1e-12 * (v[1] / n0 + 1e-300):
                return 0  # every target so far the same: nothing to explain
            inv_var = 1.0 / t
        for k in range(depth):  # the rows the loop reads, asked for at once (their misses overlap)
            j = self.path[k]
            RF_PREFETCH(self.gain + j)
            RF_PREFETCH(self.weight + j)
            RF_PREFETCH(self.value + <size_t>j * self.value_stride + c)
        for k in range(depth):
            j = self.path[k]
            nj = self.weight[j]
            if nj <= 0.0:
                break  # the nodes below an empty node are empty (the statistics rule)
            v = self.value + <size_t>j * self.value_stride
            t = v[c] if clf else v[0]
            if have:  # as `blend_path`: the reciprocal off the chain of dependent updates
                inv = 1.0 / (nj + a)
                est = (t + a * est) * inv
            else:
                est = t / nj
            loss = (1.0 - est) if clf else (y - est) * (y - est) * inv_var
            if have:
                self.gain[self.path[k - 1]] += <float>(unit * (prev - loss))
            prev = loss
            have = True
        return 0

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
        """XForest-Zero's refit (Xu et al., section 2.2), for every kind: clear the statistics
        (`clear_stats`), then count each row (weight 1) along its path by the statistics rule.
        No node is added, no cut moves, the generator is not drawn: only statistics change."""
        self._writable()
        cdef Py_ssize_t i
        cdef int32_t depth, k, top = 0
        if self.task == TASK_CLASSIFICATION:
            for i in range(y.shape[0]):
                if <int32_t>y[i] + 1 > top:
                    top = <int32_t>y[i] + 1
        with nogil:
            self.clear_stats()
            self.ensure_values(top)
            for i in range(X.shape[0] if self.root >= 0 else 0):
                depth = self.descend(row_of(X, i))
                for k in range(depth):
                    add_stats(self, self.path[k], y[i], 1.0)
                self.refit_sample(row_of(X, i), y[i], depth)
            self.after_refit()

    cdef int refit_sample(self, const double* x, double y, int32_t depth) except -1 nogil:
        """Hook: what else a kind learns from a refit's row, once it is counted along its path
        (`path[:depth]`)."""
        return 0

    cdef int after_refit(self) except -1 nogil:
        """Hook: the end of a refit (every row counted)."""
        return 0

    cdef int32_t order_nodes(self, int32_t* order) noexcept nogil:
        """Write the nodes breadth first from the root (parents before children) into
        `order` (n_nodes entries); returns how many."""
        cdef int32_t head = 0, tail = 0, j
        if self.root >= 0:
            order[tail] = self.root
            tail += 1
        while head < tail:
            j = order[head]
            head += 1
            if self.left[j] >= 0:
                order[tail] = self.left[j]
                order[tail + 1] = self.right[j]
                tail += 2
        return tail

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
        self._writable()
        with nogil:
            self.reuse = 0
            for i in range(X.shape[0]):
                self.learn_sample(row_of(X, i), n_features, y[i])

    def predict_rows(self, const double[:, ::1] X, int32_t n_out):
        """The tree's estimate of every row of `X` (`n_out` values a row: class probabilities,
        or regression's (mean, mean of y^2)), exactly as the forest reads it, for tests."""
        cdef Py_ssize_t i
        out = np.zeros((X.shape[0], n_out), dtype=np.float64)
        cdef double[:, ::1] view = out
        if self.root < 0:
            return out
        with nogil:
            for i in range(X.shape[0]):
                self.predict(row_of(X, i), &view[i, 0], n_out)
        return out

    # ---------------------------------------------------------------- introspection

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
        """Add each interior node's decayed credit (`credit`) to the registry columns its split
        cuts on, `out` being one cell a registry column; background of
        `ForestCore.importances`."""
        cdef int32_t j, k, n
        cdef int32_t cols[2]
        cdef double shares[2]
        cdef double inv = 1.0 / self.gain_unit
        cdef Py_ssize_t width = out.shape[0]
        for j in range(self.n_nodes):
            if self.left[j] < 0 or self.gain[j] == 0.0:
                continue
            n = self.split_columns(j, cols, shares)
            for k in range(n):
                if 0 <= cols[k] < width:
                    out[cols[k]] += self.gain[j] * inv * shares[k]

    def walk(self, const double[::1] x):
        """The nodes `x` (a row in registry order) goes through, root first."""
        cdef int32_t depth, k
        if self.root < 0:
            return []
        depth = self.descend(&x[0]) if x.shape[0] else self.descend(<const double*>NULL)
        return [self.path[k] for k in range(depth)]

    def node(self, int32_t j):
        """What the base knows of node `j`: its parent and children, its cut (registry
        columns, a threshold, each column's share of the credit), its weight and statistics
        (class weights, or (sum of w*y, sum of w*y^2)) and its decayed credit."""
        cdef int32_t k, n
        cdef int32_t cols[2]
        cdef double shares[2]
        if not 0 <= j < self.n_nodes:
            raise IndexError(f"node {j} is not one of the tree's {self.n_nodes} nodes")
        info = {"node": j, "parent": self.parent[j], "left": self.left[j], "right": self.right[j],
                "weight": self.weight[j],
                "value": [self.value[<size_t>j * self.value_stride + k] for k in range(self.n_values)],
                "gain": self.gain[j] / self.gain_unit}
        if self.left[j] >= 0:
            n = self.split_columns(j, cols, shares)
            info["columns"] = [cols[k] for k in range(n)]
            info["shares"] = [shares[k] for k in range(n)]
            info["threshold"] = self.threshold[j]
        return info

    def describe(self, int32_t j):
        """What the kind keeps at node `j` beyond the base's (`node`), for `debug_one` and
        `draw`: a box, a leaf's split candidates, ... (nothing here)."""
        return {}

    def estimate(self, int32_t j, int32_t n_out):
        """The smoothed estimate the predictions read at node `j` (`blend_path` along the path
        from the root to it): `n_out` class probabilities, or (mean, mean of y^2)."""
        cdef int32_t depth = 0, i = j, k
        if not 0 <= j < self.n_nodes:
            raise IndexError(f"node {j} is not one of the tree's {self.n_nodes} nodes")
        out = np.zeros(max(n_out, 2), dtype=np.float64)
        cdef double[::1] view = out
        while i >= 0:
            depth += 1
            i = self.parent[i]
        i = j
        for k in range(depth - 1, -1, -1):
            self.path[k] = i
            i = self.parent[i]
        self.walk_tag = 0
        self.reuse = 0
        self.blend_path(depth, &view[0], n_out)
        return out[:n_out] if self.task == TASK_CLASSIFICATION else out[:2]

    @property
    def walks_reused(self):
        """Learns that took the walk of the prediction before them (`route`); not saved."""
        return self.n_reused

    def set_max_bytes(self, long long max_bytes):
        """Set the tree's byte budget (its share of the forest's, `ForestCore.rebudget`); a
        tree over it sheds nodes at once (`fit_budget`). The share is the whole tree's, its
        object's own bytes (`sys.getsizeof` of an empty tree's storage) included."""
        max_bytes -= object.__sizeof__(self)
        self.max_bytes = max_bytes if max_bytes > 0 else 1
        if self.borrowed_mask:  # it only predicts: its own copy will fit the budget
            return
        with nogil:
            self.fit_budget()

    @property
    def widths_(self):
        """(allocated node rows, feature slots, statistics per node, bytes per node row)."""
        return self.capacity, self.feature_capacity, self.value_stride, self.row_bytes()

    @property
    def node_limit_(self):
        """The most nodes the tree may hold now (`node_limit`)."""
        return self.node_limit()

    @property
    def max_bytes_(self):
        """The tree's byte budget now (a very large number: none)."""
        return self.max_bytes

    def arrays(self):
        """The used part of the node storage as numpy arrays (a copy), for tests and plots."""
        return self.get_state()

    def __sizeof__(self):
        return object.__sizeof__(self) + self.nbytes()

    # ---------------------------------------------------------------- pickling

    cpdef dict get_state(self):
        """Every declared scalar and the used part of every saved array, by name, with the
        state's version, the tree kind and its router (`split`)."""
        cdef int k
        cdef ArraySpec* a
        cdef dict state = {"version": STATE_VERSION, "kind": type(self).__name__,
                           "split": self.split_kind,
                           "rng": (self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3)}
        for k in range(self.n_scalars):
            state[self.scalars_[k].name.decode()] = _get_scalar(&self.scalars_[k])
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.saved:
                state[a.name.decode()] = _export(self, a)
        for k in range(self.n_pools):
            name = self.pools_[k].name.decode()
            cols = self.pools_[k].cols[0] if self.pools_[k].cols != NULL else self.pools_[k].pool.stride
            state[name], state[name + "_offsets"], state[name + "_rows"] = pool_export(
                self.pools_[k].pool, cols)
        return state

    cpdef set_state(self, dict state, bint borrow=False, Py_ssize_t columns=-1):
        """Restore a state of `get_state` of this kind and of this version (an older one is
        migrated first: `river_forests._state.MIGRATIONS`). Every key is checked before the
        tree changes (`check_state`): a state that does not describe a tree of this kind
        raises ValueError, whatever it holds. A key a kind declared after the state was made
        is left at its default.

        With `borrow`, each node array whose saved rows are laid out as the tree reads them
        (C-contiguous, aligned, as many cells a row as the tree's width) is read where it
        lies, not copied (a memory-mapped file's pages: `river_forests.load(path,
        mmap=True)`); the tree then only predicts, until its forest gives it memory of its
        own (`ForestCore._own`, a load without `borrow`).

        `columns`: the width of the rows the tree will read (its forest's registry), which
        its cuts must lie within (-1: the columns the state says it considered)."""
        cdef int k
        cdef ArraySpec* a
        cdef int32_t n, rows
        cdef size_t width
        cdef cnp.ndarray view
        self.check_state(state, columns)
        self._unborrow()
        n = <int32_t>len(state["left"])
        for k in range(self.n_scalars):
            name = self.scalars_[k].name.decode()
            if name in state:
                self._set_scalar(name, state[name], False)
        self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3 = state["rng"]
        n_values = self.n_values
        if borrow:  # widths exactly the saved ones, so that saved rows are the tree's rows
            self._resize_features(max(self.n_features, 1))
            self._resize_values(max(n_values, 2))
        else:
            self._resize_features(doubled(self.feature_capacity, self.n_features))
            if self.value_stride == 0:  # widths as a new tree's (`__init__`), so a loaded tree
                self._resize_values(2)  # grows its rows (and fills a byte budget) as it would
            self.ensure_values(max(n_values, 2))
        self.n_values = n_values
        if not borrow:
            self._resize_nodes(max(n, 1))
        else:
            self.capacity = max(n, 1)
        self.n_nodes = n
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            rows = n if a.rows == ROWS_NODE else self.n_features
            name = a.name.decode()
            width = _stride(a)
            if borrow and a.rows != ROWS_SLOT:
                value = state.get(name) if a.saved and a.rows == ROWS_NODE else None
                if value is not None and n > 0 and width > 0 \
                        and (a.cols == NULL or <size_t>a.cols[0] == width) \
                        and value.flags.c_contiguous and value.flags.aligned:
                    view = value
                    a.ptr[0] = cnp.PyArray_DATA(view)
                    self.borrowed_mask |= 1ULL << k
                    continue
                grow_array(a.ptr, <size_t>_rows(self, a.rows) * width * _CELL_BYTES[a.cell])
            if a.rows == ROWS_PATH:
                continue
            _fill_cells(a.ptr[0], a.cell, 0, <size_t>rows * width, a.fill)
            if a.saved and name in state and rows > 0:
                values = np.asarray(state[name], dtype=_CELL_DTYPES[a.cell])
                if values.size > <size_t>rows * width:  # a width the kind's scalars disagree with
                    raise ValueError(f"tree array {name!r} has more cells a row than the tree "
                                     f"gives it ({values.size // rows} > {width})")
                import_rows(a.ptr[0], _CELL_DTYPES[a.cell], values.reshape(rows, -1),
                            <int32_t>width)
        if self.borrowed_mask:
            self.borrowed = state
        for k in range(self.n_pools):
            name = self.pools_[k].name.decode()
            cols = self.pools_[k].cols[0] if self.pools_[k].cols != NULL else self.pools_[k].pool.stride
            if name in state and not (borrow and name in self.learn_only_pools):
                pool_import(self.pools_[k].pool, state[name], state[name + "_offsets"],
                            state[name + "_rows"], cols)
            else:
                pool_release(self.pools_[k].pool)

    def _unborrow(self):
        """Forget the borrowed arrays (their pointers, never freed here): the tree holds no
        node array until it allocates its own."""
        cdef int k
        for k in range(self.n_arrays):
            if (self.borrowed_mask >> k) & 1:
                self.arrays_[k].ptr[0] = NULL
        self.borrowed_mask = 0
        self.borrowed = None

    cdef int _writable(self) except -1:
        """Raise unless the tree may change (it borrows no array of a mapped file)."""
        if self.borrowed_mask:
            raise RuntimeError("this tree reads a memory-mapped model file and only predicts: "
                               "learn through its forest, which first gives it memory of its "
                               "own")
        return 0

    def check_state(self, dict state, Py_ssize_t columns=-1):
        """Raise ValueError unless `state` is a state of this kind that `set_state` can load
        safely: the version, the kind and router; every scalar of its declared type and
        range; every array of the declared dtype and shape (rows: the nodes or the feature
        slots; cells: the widths the scalars give); the nodes one binary tree from `root`
        (children in range, each node the child of one parent, no cycle), its interior
        nodes cutting registry columns it has considered; no NaN where the kind never
        writes one (a box, a weight); pools whose blocks lie inside their data; and what it
        would allocate bounded by the state's own bytes. A kind adds its own checks
        (`check_kind_state`). Touches nothing."""
        cdef int k
        cdef ArraySpec* a
        cdef ScalarSpec* s
        version = state.get("version")
        if _is_int(version) and version > STATE_VERSION:
            raise ValueError(f"tree state version {version} is newer than this river_forests "
                             f"reads ({STATE_VERSION}): upgrade river_forests")
        if version != STATE_VERSION:
            raise ValueError(f"tree state version {version!r} is not {STATE_VERSION}: migrate "
                             "it first (river_forests._state.migrate_tree_state)")
        if state.get("kind") != type(self).__name__ or state.get("split") != self.split_kind:
            raise ValueError(f"a {state.get('kind')!r} state ({state.get('split')!r} cuts) cannot "
                             f"load into a {type(self).__name__}")
        rng = state.get("rng")
        if not (isinstance(rng, (tuple, list)) and len(rng) == 4
                and all(_is_int(v) and 0 <= v < 2**64 for v in rng) and any(rng)):
            raise ValueError("a tree's generator state must be four 64-bit words, not all 0")
        for k in range(self.n_scalars):
            s = &self.scalars_[k]
            name = s.name.decode()
            if name not in state:
                continue
            v = state[name]
            if s.kind == SCALAR_F64:
                if not _is_real(v) or v != v:
                    raise ValueError(f"tree scalar {name!r} must be a number, got {v!r}")
            elif s.kind == SCALAR_BOOL:
                if not isinstance(v, (bool, np.bool_, int, np.integer)) or v not in (0, 1):
                    raise ValueError(f"tree scalar {name!r} must be a bool, got {v!r}")
            else:
                bound = 2**63 if s.kind == SCALAR_I64 else 2**31
                if not _is_int(v) or not -bound <= v < bound:
                    raise ValueError(f"tree scalar {name!r} must be an integer that fits its "
                                     f"field, got {v!r}")
        left = _node_array(state, "left", np.int32)
        n = len(left)
        if n >= 2**31 - 1:
            raise ValueError(f"a tree of {n} nodes is more than a tree holds")
        get = lambda name, default: state[name] if name in state else default
        n_features = get("n_features", self.n_features)
        n_columns = get("n_columns", self.n_columns)
        n_values = get("n_values", self.n_values)
        task = get("task", self.task)
        if task not in (TASK_CLASSIFICATION, TASK_REGRESSION):
            raise ValueError(f"tree scalar 'task' must be 0 or 1, got {task!r}")
        if not 0 <= n_features <= min(get("features_per_tree", self.features_per_tree), MAX_WIDTH):
            raise ValueError(f"a tree of {n_features} feature slots is out of range")
        if not n_features <= n_columns <= MAX_WIDTH:
            raise ValueError(f"n_columns={n_columns} must lie in [n_features, {MAX_WIDTH}]")
        if not 0 <= n_values <= MAX_WIDTH:
            raise ValueError(f"a tree of {n_values} statistics a node is out of range")
        if get("subsample_mode", self.subsample_mode) not in (SUBSAMPLE_NONE, SUBSAMPLE_BERNOULLI,
                                                              SUBSAMPLE_POISSON):
            raise ValueError("tree scalar 'subsample_mode' must be 0, 1 or 2")
        if get("max_nodes", self.max_nodes) < 1 or get("max_bytes", self.max_bytes) < 1:
            raise ValueError("a tree's max_nodes and max_bytes must be at least 1")
        if get("n_seen", 0) < 0 or get("n_offered", 0) < 0:
            raise ValueError("a tree's sample counts must be >= 0")
        growth, unit = get("gain_growth", self.gain_growth), get("gain_unit", self.gain_unit)
        if not (growth == 0.0 or 1.0 < growth <= 2.0) or not 1.0 <= unit <= 2e15:
            raise ValueError("a tree's importance decay ('gain_growth' 0 or in (1, 2], "
                             "'gain_unit' in [1, 2e15]) is out of range")
        if "gain" in state and isinstance(state["gain"], np.ndarray) \
                and state["gain"].dtype == np.float32 and not np.isfinite(state["gain"]).all():
            raise ValueError("tree array 'gain' holds an infinite value")
        root = get("root", -1)
        # the arrays: dtype and shape; the bytes the tree will allocate for them
        state_bytes = 0
        alloc = 0
        for k in range(self.n_arrays):
            a = &self.arrays_[k]
            if a.rows == ROWS_PATH:
                continue
            rows = n if a.rows == ROWS_NODE else n_features
            if a.stride == NULL:
                cols = None
            else:  # the cells saved a row
                cols = _field_value(self, a.cols if a.cols != NULL else a.stride, state)
                if not (_is_int(cols) and 0 <= cols <= MAX_WIDTH):
                    raise ValueError(f"tree array {a.name.decode()!r}: {cols!r} cells a row")
            alloc += ((max(n, 1) + 1 if a.rows != ROWS_SLOT else max(2 * n_features, 4))
                      * _width(self, a.stride, state, n_features, n_values) * _CELL_BYTES[a.cell])
            name = a.name.decode()
            if not a.saved or name not in state:
                continue
            value = state[name]
            shape = (rows,) if cols is None else (rows, cols)
            if not isinstance(value, np.ndarray) or value.dtype != _CELL_DTYPES[a.cell] \
                    or value.shape != shape:
                raise ValueError(f"tree array {name!r} must be {np.dtype(_CELL_DTYPES[a.cell])} "
                                 f"of shape {shape}, got {_describe(value)}")
            state_bytes += value.nbytes
            if a.cell != CELL_I32 and a.fill == a.fill and value.size and np.isnan(value).any():
                raise ValueError(f"tree array {name!r} holds NaN")
        for k in range(self.n_pools):
            name = self.pools_[k].name.decode()
            if name not in state:
                continue
            data = state[name]
            offsets = state.get(name + "_offsets")
            rows_ = state.get(name + "_rows")
            if not (isinstance(data, np.ndarray) and data.dtype == np.float64 and data.ndim == 1
                    and isinstance(offsets, np.ndarray) and offsets.dtype == np.int64
                    and isinstance(rows_, np.ndarray) and rows_.dtype == np.int32
                    and offsets.ndim == rows_.ndim == 1 and len(offsets) == len(rows_)):
                raise ValueError(f"tree pool {name!r} must be float64 cells with int64 offsets "
                                 f"and int32 rows, one each a block")
            if len(rows_) and (rows_.min() < -1 or offsets.min() < -1):
                raise ValueError(f"tree pool {name!r} has negative rows or offsets")
            spec_cols = self.pools_[k].cols if self.pools_[k].cols != NULL else self.pools_[k].stride
            cols = _field_value(self, spec_cols, state) if spec_cols != NULL else 1
            if not (_is_int(cols) and 0 <= cols <= MAX_WIDTH):
                raise ValueError(f"tree pool {name!r}: {cols!r} cells a row")
            stride = _width(self, self.pools_[k].stride, state, n_features, n_values)
            live = rows_ >= 0
            if live.any():  # compared so that nothing overflows: offset + rows * cols <= size
                starts = offsets[live]
                if starts.min() < 0 or starts.max() > len(data) or (
                        cols and (rows_[live].astype(np.int64)
                                  > (len(data) - starts) // cols).any()):
                    raise ValueError(f"tree pool {name!r} has a block outside its data")
            state_bytes += data.nbytes + offsets.nbytes + rows_.nbytes
            alloc += int(rows_[live].sum()) * stride * 8 + len(rows_) * 16
        if alloc > 4 * state_bytes + (1 << 20):
            raise ValueError(f"the tree state claims {alloc:,} bytes of storage from "
                             f"{state_bytes:,} bytes of arrays")
        # the nodes: one binary tree from the root
        right = _node_array(state, "right", np.int32)
        parent = _node_array(state, "parent", np.int32)
        _check_links(left, right, parent, root)
        width = n_columns if columns < 0 else columns
        if "feature" in state:
            _check_cuts(state["feature"], left, width, "feature")
        if "columns" in state and n_features:
            slots = state["columns"]
            if slots.min() < 0 or slots.max() >= width:
                raise ValueError("the tree's feature slots hold columns it has not considered")
        self.check_kind_state(state, n, width)

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """Hook: a kind's own checks of a state of `n` nodes whose rows are `width` columns
        wide (`check_state` did the declared ones)."""

    def __reduce__(self):
        return (tree_from_state, (self.get_state(),))


#: the version of `Tree.get_state`'s dict (older ones: `river_forests._state.migrate_tree_state`)
TREE_STATE_VERSION = STATE_VERSION

#: the widest row a state may claim (cells) and the most columns a tree may consider
MAX_WIDTH = 2**24


cdef object _field_value(Tree self, int32_t* field, dict state):
    """The value `state` gives the width field `field` (a declared scalar), else the
    field's own."""
    cdef int k
    for k in range(self.n_scalars):
        if self.scalars_[k].ptr == <void*>field:
            name = self.scalars_[k].name.decode()
            if name in state:
                return state[name]
    return field[0]


cdef object _width(Tree self, int32_t* stride, dict state, object n_features, object n_values):
    """At most the cells a row of a loaded tree gets for the width field `stride` (NULL: 1):
    the slots and the statistics grow by doubling, a declared scalar is its value."""
    if stride == NULL:
        return 1
    if stride == &self.feature_capacity:
        return max(2 * n_features, 4)
    if stride == &self.value_stride:
        return max(2 * n_values, 2)
    v = _field_value(self, stride, state)
    return v if _is_int(v) and v > 0 else max(2 * n_features, 4) + 1


cdef bint _is_int(object v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


cdef bint _is_real(object v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


cdef str _describe(object v):
    if isinstance(v, np.ndarray):
        return f"{v.dtype} of shape {v.shape}"
    return type(v).__name__


cdef object _node_array(dict state, str name, object dtype):
    v = state.get(name)
    if not isinstance(v, np.ndarray) or v.dtype != dtype or v.ndim != 1:
        raise ValueError(f"tree array {name!r} must be a 1-D {np.dtype(dtype)} array, got "
                         f"{_describe(v)}")
    return v


def _check_links(left, right, parent, root):
    """Raise ValueError unless left/right/parent make one binary tree of every node from
    `root`: children in range, a node a leaf in both or neither, each node but the root the
    child of exactly one interior node (its `parent`), every node reachable."""
    n = len(left)
    if len(right) != n or len(parent) != n:
        raise ValueError("tree arrays 'left', 'right' and 'parent' differ in length")
    if n == 0:
        if root != -1:
            raise ValueError(f"an empty tree's root must be -1, got {root!r}")
        return
    if not (_is_int(root) and 0 <= root < n):
        raise ValueError(f"the root {root!r} is not a node of {n}")
    leaf = left < 0
    if (leaf != (right < 0)).any() or (left < -1).any() or (right < -1).any() \
            or left.max() >= n or right.max() >= n:
        raise ValueError("a node's children are out of range, or it has one child")
    inner = np.flatnonzero(~leaf)
    kids = np.concatenate([left[inner], right[inner]])
    if len(kids) != n - 1:
        raise ValueError(f"{len(inner)} interior nodes cannot make a tree of {n} nodes")
    if parent[root] != -1:
        raise ValueError("the root has a parent")
    seen = np.zeros(n, dtype=np.int32)
    np.add.at(seen, kids, 1)
    if seen[root] or (np.delete(seen, root) != 1).any():
        raise ValueError("a node is the child of no node or of several (a cycle or a share)")
    if (parent[kids] != np.concatenate([inner, inner])).any():
        raise ValueError("a node's parent is not the node whose child it is")
    # each node the child of exactly one other, the root of none: reachable unless a cycle
    # leaves the root's tree; walk it level by level
    level = np.array([root])
    reached = 1
    while len(level):
        inner_level = level[left[level] >= 0]
        level = np.concatenate([left[inner_level], right[inner_level]])
        reached += len(level)
        if reached > n:
            break
    if reached != n:
        raise ValueError("some nodes are not reachable from the root (a cycle)")


def _check_cuts(feature, left, n_columns, name):
    """Raise ValueError unless every interior node's cut reads a registry column the tree
    has considered (`feature` values of leaves are not read)."""
    inner = left >= 0
    if inner.any():
        f = feature[inner]
        if f.min() < 0 or f.max() >= n_columns:
            raise ValueError(f"an interior node cuts a column it has not considered ({name!r})")


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
