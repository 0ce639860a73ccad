"""The compiled tree base: node storage, statistics, smoothed prediction, subsampling, pickling.

See `_tree.pxd` for the fields. Every method that runs per sample is `nogil` and touches no
Python object, so a forest can drive many trees from one compiled loop (or several threads).
"""

from cpython.mem cimport PyMem_Free
from libc.math cimport INFINITY, NAN
from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

cimport numpy as cnp

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


cdef inline int32_t doubled(int32_t capacity, int32_t needed) noexcept nogil:
    """Capacity doubled (from at least 4) until it holds `needed`."""
    if capacity < 4:
        capacity = 4
    while capacity < needed:
        capacity *= 2
    return capacity


cdef inline object _export_i32(const int32_t* ptr, int32_t n):
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] view = out
    if n > 0:
        memcpy(&view[0], ptr, n * sizeof(int32_t))
    return out


cdef object export_vector(const double* ptr, int32_t n):
    """Copy `n` doubles into a new numpy array."""
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] view = out
    if n > 0:
        memcpy(&view[0], ptr, n * sizeof(double))
    return out


# ----------------------------------------------------------------------------------------
# the base tree
# ----------------------------------------------------------------------------------------

cdef class Tree:

    def __cinit__(self, *args, **kwargs):
        # C fields start zeroed (pointers NULL); only the non-zero defaults are set here
        self.root = -1
        self.max_nodes = 1
        self.max_features = 2**31 - 1
        self.subsample_rate = 1.0

    def __init__(self, int task, int max_nodes, double smoothing, int subsample_mode,
                 double subsample_rate, uint64_t seed, int max_features=2**31 - 1):
        self.task = task
        self.max_nodes = max_nodes
        self.max_features = max_features
        self.smoothing = smoothing
        self.subsample_mode = subsample_mode
        self.subsample_rate = subsample_rate
        rng_seed(&self.rng, seed)
        if task == TASK_REGRESSION:
            self.n_values = 2
            self._resize_values(2)
        else:
            self._resize_values(2)
        self._resize_features(4)
        self._resize_nodes(min(16, max_nodes))

    def __dealloc__(self):
        free(self.left)
        free(self.right)
        free(self.parent)
        free(self.feature)
        free(self.threshold)
        free(self.weight)
        free(self.value)
        free(self.path)
        free(self.columns)

    # ---------------------------------------------------------------- node storage

    cdef int _resize_nodes(self, int32_t capacity) except -1 nogil:
        cdef size_t n = capacity
        grow_array(<void**>&self.left, n * sizeof(int32_t))
        grow_array(<void**>&self.right, n * sizeof(int32_t))
        grow_array(<void**>&self.parent, n * sizeof(int32_t))
        grow_array(<void**>&self.feature, n * sizeof(int32_t))
        grow_array(<void**>&self.threshold, n * sizeof(double))
        grow_array(<void**>&self.weight, n * sizeof(double))
        grow_array(<void**>&self.value, n * self.value_stride * sizeof(double))
        grow_array(<void**>&self.path, (n + 1) * sizeof(int32_t))
        self.capacity = capacity
        return 0

    cdef int _resize_features(self, int32_t capacity) except -1 nogil:
        grow_array(<void**>&self.columns, <size_t>capacity * sizeof(int32_t))
        self.feature_capacity = capacity
        return 0

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """Forget what the tree kind keeps of the feature in `slot` (it leaves the subspace);
        splits already made on it stay, routing by its registry column."""
        return 0

    cdef int _resize_values(self, int32_t stride) except -1 nogil:
        cdef double zero = 0.0
        restride(<void**>&self.value, sizeof(double), self.capacity, self.value_stride, stride, &zero)
        self.value_stride = stride
        return 0

    cdef int ensure_features(self, int32_t n_columns) except -1 nogil:
        """Consider the registry columns the tree has not considered yet for its subspace: each
        takes a free slot while there is one; then column c replaces a uniformly random slot
        with probability max_features / (c + 1) (reservoir sampling), the slot's old feature
        being forgotten (`_clear_slot`). Random draws happen only past `max_features` columns."""
        cdef int32_t c, slot
        for c in range(self.n_columns, n_columns):
            if self.n_features < self.max_features:
                if self.n_features >= self.feature_capacity:
                    self._resize_features(doubled(self.feature_capacity, self.n_features + 1))
                self.columns[self.n_features] = c
                self.n_features += 1
            else:
                slot = <int32_t>rng_randint(&self.rng, <Py_ssize_t>c + 1)
                if slot < self.max_features:
                    self._clear_slot(slot)
                    self.columns[slot] = c
        if n_columns > self.n_columns:
            self.n_columns = n_columns
        return 0

    cdef int ensure_values(self, int32_t n_values) except -1 nogil:
        if n_values > self.value_stride:
            self._resize_values(doubled(self.value_stride, n_values))
        if n_values > self.n_values:
            self.n_values = n_values
        return 0

    cdef int32_t add_node(self, int32_t parent) except -1 nogil:
        """Append a fresh leaf under `parent` (-1 for a root) and return its index."""
        cdef int32_t j = self.n_nodes
        if j >= self.capacity:
            self._resize_nodes(min(doubled(self.capacity, j + 1), max(self.max_nodes, j + 1)))
        self.n_nodes = j + 1
        self.left[j] = -1
        self.right[j] = -1
        self.parent[j] = parent
        self.feature[j] = -1
        self.threshold[j] = NAN
        self.weight[j] = 0.0
        memset(self.value + <size_t>j * self.value_stride, 0, self.value_stride * sizeof(double))
        return j

    # ---------------------------------------------------------------- learning

    cdef double draw_weight(self) noexcept nogil:
        if self.subsample_mode == SUBSAMPLE_NONE:
            return 1.0
        if self.subsample_mode == SUBSAMPLE_BERNOULLI:
            return 1.0 if rng_uniform(&self.rng) < self.subsample_rate else 0.0
        return <double>rng_poisson(&self.rng, self.subsample_rate)

    cdef int learn_sample(self, const double* x, int32_t n_features, double y) except -1 nogil:
        cdef double w = self.draw_weight()
        if w > 0.0:
            return self.learn(x, n_features, y, w)
        return 0

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        with gil:
            raise NotImplementedError

    # ---------------------------------------------------------------- prediction

    cdef int32_t descend(self, const double* x) noexcept nogil:
        """Walk from the root to the leaf of `x`, recording the nodes in `path`; return its length."""
        cdef int32_t j = self.root
        cdef int32_t depth = 0
        while j >= 0:
            self.path[depth] = j
            depth += 1
            if self.left[j] < 0:
                break
            j = child(self, j, x)
        return depth

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
        with nogil:
            for i in range(X.shape[0]):
                self.learn_sample(&X[i, 0], n_features, y[i])

    # ---------------------------------------------------------------- introspection

    @property
    def node_count(self):
        return self.n_nodes

    @property
    def samples_seen(self):
        return self.n_seen

    def arrays(self):
        """The used part of the node storage as numpy arrays (a copy), for tests and plots."""
        return self.get_state()

    def __sizeof__(self):
        cdef size_t per_node = 4 * sizeof(int32_t) + 2 * sizeof(double) + self.value_stride * sizeof(double)
        return (object.__sizeof__(self) + self.capacity * per_node + (self.capacity + 1) * sizeof(int32_t)
                + self.feature_capacity * sizeof(int32_t))

    # ---------------------------------------------------------------- pickling

    cpdef dict get_state(self):
        cdef int32_t n = self.n_nodes
        return {
            "task": self.task,
            "max_nodes": self.max_nodes,
            "smoothing": self.smoothing,
            "subsample_mode": self.subsample_mode,
            "subsample_rate": self.subsample_rate,
            "n_seen": self.n_seen,
            "rng": (self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3),
            "root": self.root,
            "n_features": self.n_features,
            "max_features": self.max_features,
            "n_columns": self.n_columns,
            "columns": _export_i32(self.columns, self.n_features),
            "n_values": self.n_values,
            "left": _export_i32(self.left, n),
            "right": _export_i32(self.right, n),
            "parent": _export_i32(self.parent, n),
            "feature": _export_i32(self.feature, n),
            "threshold": export_vector(self.threshold, n),
            "weight": export_vector(self.weight, n),
            "value": export_rows(self.value, np.float64, n, self.value_stride, self.n_values),
        }

    cpdef set_state(self, dict state):
        cdef int32_t n = len(state["left"])
        cdef int32_t i
        self.task = state["task"]
        self.max_nodes = state["max_nodes"]
        self.smoothing = state["smoothing"]
        self.subsample_mode = state["subsample_mode"]
        self.subsample_rate = state["subsample_rate"]
        self.n_seen = state["n_seen"]
        self.rng.s0, self.rng.s1, self.rng.s2, self.rng.s3 = state["rng"]
        self.root = state["root"]
        self.n_features = 0
        self.n_columns = 0
        self.n_values = 0
        self.max_features = max(<int32_t>state["n_features"], 1)
        self.ensure_features(self.max_features)
        # a state saved before feature subspaces existed: slot d was column d, no bound
        self.max_features = state.get("max_features", 2**31 - 1)
        self.n_features = state["n_features"]
        self.n_columns = state.get("n_columns", self.n_features)
        cdef const int32_t[::1] columns = state.get(
            "columns", np.arange(self.n_features, dtype=np.int32))
        for i in range(self.n_features):
            self.columns[i] = columns[i]
        self.ensure_values(max(<int32_t>state["n_values"], 2))
        self.n_values = state["n_values"]
        self._resize_nodes(max(n, 1))
        self.n_nodes = n
        cdef const int32_t[::1] left = state["left"]
        cdef const int32_t[::1] right = state["right"]
        cdef const int32_t[::1] parent = state["parent"]
        cdef const int32_t[::1] feature = state["feature"]
        cdef const double[::1] threshold = state["threshold"]
        cdef const double[::1] weight = state["weight"]
        for i in range(n):
            self.left[i] = left[i]
            self.right[i] = right[i]
            self.parent[i] = parent[i]
            self.feature[i] = feature[i]
            self.threshold[i] = threshold[i]
            self.weight[i] = weight[i]
        memset(self.value, 0, <size_t>n * self.value_stride * sizeof(double))
        import_rows(self.value, np.float64, state["value"], self.value_stride)

    def __reduce__(self):
        return (_rebuild_tree, (type(self), self.get_state()))


def _rebuild_tree(cls, state):
    tree = cls.__new__(cls)
    tree.set_state(state)
    return tree
