# The tree protocol: the compiled base class every tree kind derives from.
#
# A tree is one object holding parallel typed arrays (one row per node, grown by doubling),
# never one Python object per node. The base owns what every tree kind needs: the topology,
# the per-node statistics, the feature subspace and class widths, the sample count, the
# root, the node cap, the smoothed root-to-leaf prediction, the per-tree online subsampling,
# the random generator, and the storage of every array and scalar a kind declares.
#
# A kind (one file pair: `_mondrian`, `_purely_random`, ...) declares its extra arrays,
# scalars and per-leaf pools once, in its `__cinit__` (`_tree_table`: `declare_array` /
# `declare_scalar` / `declare_pool`): that one row drives allocation, growth, freeing, `__sizeof__`,
# `get_state`, `set_state` and the construction parameters, which reach the tree by name
# (`Tree(task=..., max_nodes=..., seed=..., ...)`). It then implements `learn` and, if it
# does not cut on one feature at a time, `descend` (the router; the axis-aligned one is
# `_axis.child`).
#
# THE STATISTICS RULE, the same for every kind, whether its paper updates the whole path
# (Mondrian, purely random) or only the leaves (denil2013, XForest):
#   * `weight[j]` and `value[j]` count the samples the kind predicts from (every sample, or
#     denil2013's estimation stream) that went through node j since it was created, on top
#     of the start statistics the kind may give a new node (a split's estimation histogram,
#     a batch's counts). A kind whose paper updates leaves only still counts along the path
#     it walks anyway: one add per level, and the leaves' own statistics are the paper's.
#   * Hence weight[parent] >= weight[left] + weight[right], class by class too: a child's
#     samples all went through its parent.
#   * Prediction (`blend_path`): the first node of the path with data gives its estimate,
#     each deeper node with data mixes its statistics with its parent's estimate as a prior
#     of strength `smoothing`; smoothing = 0 is the leaf's estimate, or the deepest
#     ancestor's with data while the leaf has none.
#   * A missing split feature sends a sample to the child of larger `weight` (`_axis.child`),
#     which by the rule is the side more of the stream went to.

from libc.stdint cimport int32_t, uint64_t

from ._pool cimport Pool
from ._random cimport RNG

cdef extern from *:
    """
    #define RF_NO_BYTE_CAP 0x3fffffffffffffffLL
    """
    long long NO_BYTE_CAP "RF_NO_BYTE_CAP"   # `max_bytes` of a tree without a byte budget

cdef enum:
    TASK_CLASSIFICATION = 0
    TASK_REGRESSION = 1

cdef enum:
    SUBSAMPLE_NONE = 0       # every tree learns every sample with weight 1
    SUBSAMPLE_BERNOULLI = 1  # a tree keeps a sample with probability q_n
    SUBSAMPLE_POISSON = 2    # online bagging: weight ~ Poisson(q_n)

cdef enum:
    STATE_VERSION = 2        # version of `get_state`'s dict (1: 0.1.0, no "version" key)

# --- the declaration table ---
cdef enum:
    CELL_I32 = 0             # int32_t cells
    CELL_F64 = 1             # double cells
    CELL_F32 = 2             # float cells

cdef enum:
    ROWS_NODE = 0            # one row per node (`capacity` rows; `n_nodes` saved)
    ROWS_SLOT = 1            # one row per feature slot (`feature_capacity` rows; `n_features` saved)
    ROWS_PATH = 2            # `capacity + 1` rows, scratch for a root-to-leaf walk

cdef enum:
    SCALAR_INT = 0           # C int
    SCALAR_BOOL = 1          # bint (a C int read back as a Python bool)
    SCALAR_I32 = 2           # int32_t
    SCALAR_I64 = 3           # long long
    SCALAR_F64 = 4           # double

cdef enum:
    MAX_WIDTH = 16777216     # 2**24: the widest row a saved state may claim (cells), and the
                             # most feature slots, columns or statistics a saved tree may hold

cdef enum:
    MAX_ARRAYS = 32
    MAX_SCALARS = 40
    MAX_POOLS = 4

ctypedef struct ArraySpec:
    void** ptr               # address of the array field
    const char* name         # key in the saved state
    int cell                 # CELL_*
    int rows                 # ROWS_*
    int32_t* stride          # cells per row (NULL: 1); a width field of the tree
    int32_t* cols            # cells per row saved (NULL: the whole stride)
    bint saved               # part of the pickled state (else scratch)
    double fill              # value of a new cell (-1 for int32 links)

ctypedef struct PoolSpec:
    Pool* pool               # a pool field of the tree (`_pool.pxd`): per-leaf data of varying size
    const char* name         # key of its cells in the saved state (offsets and rows beside it)
    int32_t* stride          # cells per row (NULL: 1); a width field of the tree
    int32_t* cols            # cells per row saved (NULL: the whole stride)

ctypedef struct ScalarSpec:
    void* ptr                # address of the scalar field
    const char* name         # key in the saved state and name of the construction parameter
    int kind                 # SCALAR_*
    bint param               # may be set by name when the tree is built
    # (a scalar's range is its kind's, not the object's: `_tree_table.scalar_range`. Kept out
    # of this struct, which every tree holds MAX_SCALARS of: its bytes count in the budget)


cdef class Tree:
    # --- node storage: `capacity` rows allocated, `n_nodes` used ---
    cdef int32_t* left          # left child, -1 for a leaf
    cdef int32_t* right         # right child, -1 for a leaf
    cdef int32_t* parent        # parent, -1 for the root
    cdef int32_t* feature       # split registry column of an axis-aligned interior node
                                # (x[feature] <= threshold -> left; see _axis.pxd)
    cdef double* threshold      # split threshold of an interior node
    cdef double* weight         # total sample weight routed through the node since its creation
    cdef double* value          # `value_stride` statistics per node: class weights (classification)
                                # or (sum of w*y, sum of w*y^2) (regression)
    cdef int32_t* path          # scratch: the nodes of the last root-to-leaf walk, root first
    cdef int32_t n_nodes        # nodes in use
    cdef int32_t capacity       # rows allocated in every node array
    cdef int32_t root           # index of the root, -1 while the tree is empty
    cdef int32_t max_nodes      # hard cap on n_nodes (2**31 - 1: none but the byte budget)
    cdef long long max_bytes    # the tree's memory budget: the bytes of its arrays and pools
                                # (its `__sizeof__` less the object) never grow past it by a
                                # new node; NO_BYTE_CAP: none (`node_limit`, `fit_budget`)
    # --- `node_limit`'s last answer, and what it was computed from (it is asked before every
    # split and every insertion: a walk over every array and pool each time is too slow) ---
    cdef int32_t limit_nodes    # the answer (-1: none yet)
    cdef long long limit_layout # `layout` then
    cdef long long limit_bytes  # `max_bytes` then
    cdef int32_t limit_max      # `max_nodes` then
    cdef size_t limit_pools     # the pools' bytes then
    cdef long long layout       # counts changes of the row widths (`_tree_table.restride_rows`, `resize_slots`)

    # --- the walk a prediction leaves for the learn of the same row (test-then-train) ---
    cdef int32_t walked         # length of the last walk `descend` wrote into `path`
    cdef unsigned long long walk_tag  # the forest's tag of the row of that walk, set by the
                                # forest after a one-row prediction; 0 after any other walk
    cdef int32_t reuse          # > 0: `path[:reuse]` is the walk of the row the next `learn`
                                # learns (the forest checked: same row, nothing learned since);
                                # taken by `route`, cleared by any change of the nodes
    cdef long long n_reused     # walks `route` took from a prediction (not saved)

    # --- a tree loaded memory-mapped (`set_state(state, borrow=True)`): bit k set when array
    # k points into `borrowed`'s arrays (a file's pages), which the tree never writes,
    # reallocates or frees; its forest gives it memory of its own before anything changes it
    cdef unsigned long long borrowed_mask
    cdef readonly object borrowed  # the state the borrowed arrays live in (None: none)

    # --- feature importances (`credit`): what each split has done for the predictions ---
    # gain[j] / gain_unit is the decayed sum, over the samples that went through interior
    # node j, of the loss of j's estimate less that of the child the sample went to (each
    # sample against the statistics before it: prequential), weighted by the sample's weight;
    # a sample counts 2^(-age / halflife), its age in samples offered to the tree since. The
    # decay is lazy: a credit is added times `gain_unit`, which grows by `gain_growth` a sample
    # offered, and the whole array is divided by it once it passes 1e15.
    cdef float* gain
    cdef double gain_unit
    cdef double gain_growth     # 2^(1 / halflife); 0: importances not tracked

    # --- the tree's feature subspace: the width policy of every tree kind ---
    # A tree works on at most `features_per_tree` features, its slots: per-node rows (boxes, ...)
    # have one cell per slot, never one per feature the stream has shown. The first
    # `features_per_tree` registry columns fill the slots in order (a narrow stream keeps every
    # feature, slot d = column d); later columns enter by reservoir sampling, so the subspace
    # is a uniform sample of the columns seen (see `ensure_features`).
    cdef int32_t* columns       # slot -> registry column (`feature_capacity` entries)
    cdef int32_t features_per_tree  # most slots
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
    cdef double subsample_rate  # q: Bernoulli keep probability, or Poisson mean
    cdef double subsample_decay # beta: q_n = q * n^-beta for the n-th sample offered (biau2008
                                # theorem 7 wants q_n -> 0 and n q_n -> infinity: 0 < beta < 1)
    cdef long long n_offered    # samples offered to this tree (learned or not)
    cdef long long n_seen       # samples this tree has learned (weight > 0)
    cdef RNG rng                # this tree's random generator (structure and subsampling)

    # --- the declaration table (see the top of this file) ---
    cdef ArraySpec arrays_[MAX_ARRAYS]
    cdef int n_arrays
    cdef ScalarSpec scalars_[MAX_SCALARS]
    cdef int n_scalars
    cdef PoolSpec pools_[MAX_POOLS]
    cdef int n_pools

    cdef int _start(self) except -1

    # node storage
    cdef bint can_add(self, int32_t k) noexcept nogil
    cdef int drop_growth(self) except -1 nogil
    cdef int free_twig(self, int32_t node) except -1 nogil
    cdef int32_t add_node(self, int32_t parent) except -1 nogil
    cdef int32_t add_children(self, int32_t node, int32_t column, double threshold) except -1 nogil
    cdef int32_t insert_parent(self, int32_t node, bint new_right) except -1 nogil
    cdef int _resize_features(self, int32_t capacity) except -1 nogil
    cdef int _clear_slot(self, int32_t slot) except -1 nogil
    cdef int ensure_features(self, int32_t n_columns) except -1 nogil
    cdef int offer_column(self, int32_t c, int32_t k) except -1 nogil
    cdef int ensure_values(self, int32_t n_values) except -1 nogil

    # learning
    cdef double draw_weight(self) noexcept nogil
    cdef int32_t split_columns(self, int32_t node, int32_t* cols, double* shares) noexcept nogil
    cdef int learn_sample(self, const double* x, int32_t n_features, double y) except -1 nogil
    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil
    cdef int clear_stats(self) except -1 nogil
    cdef int refit_sample(self, const double* x, double y, int32_t depth) except -1 nogil
    cdef int after_refit(self) except -1 nogil

    # prediction
    cdef int32_t descend(self, const double* x) noexcept nogil
    cdef int32_t route(self, const double* x) noexcept nogil
    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil
    cdef void blend_path(self, int32_t depth, double* out, int32_t n_out) noexcept nogil

    # the saved state (`_tree_state`)
    cpdef dict get_state(self)
    cpdef set_state(self, dict state, bint borrow=*, Py_ssize_t columns=*)


cdef enum:
    CREDIT_EVERY = 8         # a tree credits its splits with one sample of this many (`credit_due`)


cdef inline bint credit_due(long long offered) noexcept nogil:
    """Whether the `offered`-th sample offered to a tree (its `n_offered` then) is one its
    splits are credited with (`_tree_credit.credit`): one in CREDIT_EVERY, picked by a hash of its
    position (never the tree's generator, whose draws shape the tree; nor a fixed period,
    which a periodic stream could alias), its credit weighing CREDIT_EVERY times its weight."""
    cdef uint64_t z = <uint64_t>offered * 0x9E3779B97F4A7C15ULL
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return ((z ^ (z >> 31)) & (CREDIT_EVERY - 1)) == 0


cdef inline void add_stats(Tree tree, int32_t node, double y, double w) noexcept nogil:
    """Count a sample of target `y` (class index or value) and weight `w` in `node`."""
    cdef double* v = tree.value + <size_t>node * tree.value_stride
    tree.weight[node] += w
    if tree.task == TASK_CLASSIFICATION:
        v[<int32_t>y] += w
    else:
        v[0] += w * y
        v[1] += w * y * y


cdef inline void relink_child(Tree tree, int32_t parent, int32_t old, int32_t node) noexcept nogil:
    """Put `node` where `old` stood under `parent` (-1: as the tree's root)."""
    if parent < 0:
        tree.root = node
    elif tree.left[parent] == old:
        tree.left[parent] = node
    else:
        tree.right[parent] = node


cdef inline const double* row_of(const double[:, ::1] X, Py_ssize_t i) noexcept nogil:
    """The address of row `i` of a C-contiguous batch, also when the batch has no column (a
    forest that knows no feature yet: no tree reads a feature then)."""
    return <const double*>(X._data + i * X.strides[0])


# --- the declaration table's cells and rows (the base, `_tree_state`, `_tree_budget`) ---
cdef inline size_t cell_bytes(int cell) noexcept nogil:
    """The bytes of a cell of kind `cell` (CELL_*)."""
    if cell == CELL_I32:
        return sizeof(int32_t)
    if cell == CELL_F64:
        return sizeof(double)
    return sizeof(float)


cdef inline void set_cell(void* p, int cell, size_t i, double v) noexcept nogil:
    """Write `v` into cell `i` of an array of cells of kind `cell`."""
    if cell == CELL_I32:
        (<int32_t*>p)[i] = <int32_t>v
    elif cell == CELL_F64:
        (<double*>p)[i] = v
    else:
        (<float*>p)[i] = <float>v


cdef inline void fill_cells(void* p, int cell, size_t start, size_t stop, double v) noexcept nogil:
    """Write `v` into cells `start` to `stop` (excluded)."""
    cdef size_t i
    for i in range(start, stop):
        set_cell(p, cell, i, v)


cdef inline size_t table_rows(Tree tree, int rows) noexcept nogil:
    """Rows allocated in an array of row kind `rows`."""
    if rows == ROWS_NODE:
        return tree.capacity
    if rows == ROWS_SLOT:
        return tree.feature_capacity
    return <size_t>tree.capacity + 1


cdef inline size_t table_stride(ArraySpec* a) noexcept nogil:
    """Cells per row of array `a`."""
    return <size_t>a.stride[0] if a.stride != NULL else 1


# --- storage kernels shared by every tree kind ---
cdef int grow_array(void** ptr, size_t n_bytes) except -1 nogil
# row-major (rows x stride) blocks of `item`-byte cells (float64 statistics, float32 boxes)
cdef int restride(void** ptr, size_t item, int32_t rows, int32_t old_stride, int32_t new_stride,
                  const void* fill) except -1 nogil
cdef int32_t doubled(int32_t capacity, int32_t needed) noexcept nogil


# --- cache hint shared by every tree kind: a walk asks for the next node's rows early ---
# gcc's and clang's builtin; a compiler without it (MSVC) gets a no-op: a hint only, the walk
# reads the same rows either way.
cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define RF_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define RF_PREFETCH(p) ((void)(p))
    #endif
    """
    void RF_PREFETCH(const void* p) noexcept nogil


cdef inline void prefetch_span(const void* p, size_t n_bytes) noexcept nogil:
    """Hint the CPU to start loading the 64-byte lines of `n_bytes` bytes from `p`."""
    cdef size_t k = 0
    while k < n_bytes:
        RF_PREFETCH(<const char*>p + k)
        k += 64
