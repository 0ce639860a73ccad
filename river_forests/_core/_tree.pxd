# The compiled tree base class every forest's trees derive from.
#
# A tree is one object holding parallel typed arrays (one row per node, grown by doubling),
# never one Python object per node. The base owns what every tree kind needs: the topology,
# an axis-aligned split, the per-node statistics, the smoothed root-to-leaf prediction, the
# per-tree online subsampling and the random generator. A tree kind adds its own arrays by
# overriding the `_resize_*` hooks and implements `learn`.

from libc.stdint cimport int32_t, uint64_t

from ._random cimport RNG

cdef enum:
    TASK_CLASSIFICATION = 0
    TASK_REGRESSION = 1

cdef enum:
    SUBSAMPLE_NONE = 0       # every tree learns every sample with weight 1
    SUBSAMPLE_BERNOULLI = 1  # a tree keeps a sample with probability `subsample_rate`
    SUBSAMPLE_POISSON = 2    # online bagging: weight ~ Poisson(`subsample_rate`)


cdef class Tree:
    # --- node storage: `capacity` rows allocated, `n_nodes` used ---
    cdef int32_t* left          # left child, -1 for a leaf
    cdef int32_t* right         # right child, -1 for a leaf
    cdef int32_t* parent        # parent, -1 for the root
    cdef int32_t* feature       # split registry column of an interior node
                                # (x[feature] <= threshold -> left)
    cdef double* threshold      # split threshold of an interior node
    cdef double* weight         # total sample weight routed through the node since its creation
    cdef double* value          # `value_stride` statistics per node: class weights (classification)
                                # or (sum of w*y, sum of w*y^2) (regression)
    cdef int32_t* path          # scratch: the nodes of the last root-to-leaf walk, root first
    cdef int32_t n_nodes        # nodes in use
    cdef int32_t capacity       # rows allocated in every node array
    cdef int32_t root           # index of the root, -1 while the tree is empty
    cdef int32_t max_nodes      # hard cap on n_nodes: the memory bound of the tree

    # --- the tree's feature subspace: the width policy of every tree kind ---
    # A tree works on at most `max_features` features, its slots: per-node rows (boxes, ...)
    # have one cell per slot, never one per feature the stream has shown. The first
    # `max_features` registry columns fill the slots in order (a narrow stream keeps every
    # feature, slot d = column d); later columns enter by reservoir sampling, so the subspace
    # is a uniform sample of the columns seen (see `ensure_features`).
    cdef int32_t* columns       # slot -> registry column (`feature_capacity` entries)
    cdef int32_t max_features   # most slots
    cdef int32_t n_columns      # registry columns considered for the subspace so far
    cdef int32_t n_features     # slots in use
    cdef int32_t feature_capacity  # allocated slots (stride of per-slot node arrays):
                                   # a power of two >= 4, so rows pad to _box.BOX_LANES
    cdef int32_t n_values       # classes the tree knows (classification) or 2 (regression)
    cdef int32_t value_stride   # allocated statistics per node (stride of `value`)

    # --- behaviour ---
    cdef int task               # TASK_CLASSIFICATION or TASK_REGRESSION
    cdef double smoothing       # strength of the parent's estimate in a node's estimate (>= 0)
    cdef int subsample_mode     # SUBSAMPLE_NONE / _BERNOULLI / _POISSON
    cdef double subsample_rate  # Bernoulli keep probability, or Poisson mean
    cdef long long n_seen       # samples this tree has learned (weight > 0)
    cdef RNG rng                # this tree's random generator (structure and subsampling)

    # node storage
    cdef int32_t add_node(self, int32_t parent) except -1 nogil
    cdef int _resize_nodes(self, int32_t capacity) except -1 nogil
    cdef int _resize_features(self, int32_t capacity) except -1 nogil
    cdef int _resize_values(self, int32_t stride) except -1 nogil
    cdef int _clear_slot(self, int32_t slot) except -1 nogil
    cdef int ensure_features(self, int32_t n_columns) except -1 nogil
    cdef int ensure_values(self, int32_t n_values) except -1 nogil

    # learning
    cdef double draw_weight(self) noexcept nogil
    cdef int learn_sample(self, const double* x, int32_t n_features, double y) except -1 nogil
    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil

    # prediction
    cdef int32_t descend(self, const double* x) noexcept nogil
    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil
    cdef void blend_path(self, int32_t depth, double* out, int32_t n_out) noexcept nogil

    # pickling
    cpdef dict get_state(self)
    cpdef set_state(self, dict state)


# --- per-node kernels shared by every tree kind, inlined into each hot loop (a virtual call
# per node would cost as much as the work) ---
cdef inline int32_t child(Tree tree, int32_t node, const double* x) noexcept nogil:
    """The child of interior `node` that `x` goes to; a missing value goes to the heavier side."""
    cdef double v = x[tree.feature[node]]
    cdef int32_t l = tree.left[node]
    cdef int32_t r = tree.right[node]
    if v != v:
        return l if tree.weight[l] >= tree.weight[r] else r
    return l if v <= tree.threshold[node] else r


cdef inline void add_stats(Tree tree, int32_t node, double y, double w) noexcept nogil:
    """Count a sample of target `y` (class index or value) and weight `w` in `node`."""
    cdef double* v = tree.value + <size_t>node * tree.value_stride
    tree.weight[node] += w
    if tree.task == TASK_CLASSIFICATION:
        v[<int32_t>y] += w
    else:
        v[0] += w * y
        v[1] += w * y * y


# --- storage kernels shared by every tree kind ---
cdef int grow_array(void** ptr, size_t n_bytes) except -1 nogil
# row-major (rows x stride) blocks of `item`-byte cells (float64 statistics, float32 boxes)
cdef int restride(void** ptr, size_t item, int32_t rows, int32_t old_stride, int32_t new_stride,
                  const void* fill) except -1 nogil
cdef object export_vector(const double* ptr, int32_t n)
cdef object export_rows(const void* ptr, object dtype, int32_t rows, int32_t stride, int32_t cols)
cdef int import_rows(void* ptr, object dtype, object array, int32_t stride) except -1


# --- cache hint shared by every tree kind: a walk asks for the next node's rows early ---
cdef extern from *:
    """
    #define RF_PREFETCH(p) __builtin_prefetch((const void*)(p))
    """
    void RF_PREFETCH(const void* p) noexcept nogil


cdef inline void prefetch_span(const void* p, size_t n_bytes) noexcept nogil:
    """Hint the CPU to start loading the 64-byte lines of `n_bytes` bytes from `p`."""
    cdef size_t k = 0
    while k < n_bytes:
        RF_PREFETCH(<const char*>p + k)
        k += 64
