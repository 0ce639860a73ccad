"""The declaration table (`_tree.pxd`): a tree kind declares each array, scalar and pool
field once, from its `__cinit__` (`declare_array`, `declare_scalar`, `declare_pool`), and one
row of the table does the rest for it, whatever its kind: growth with the node rows, the
feature slots or a row width (filling new cells), the bytes it takes, its scalars set by
name, its release.
"""

from libc.stdint cimport int32_t
from libc.math cimport INFINITY
from libc.stdlib cimport free

from ._pool cimport Pool, pool_bytes, pool_init, pool_relayout, pool_release
from ._tree cimport (MAX_ARRAYS, MAX_POOLS, MAX_SCALARS, ROWS_NODE, ROWS_SLOT, SCALAR_BOOL,
                     SCALAR_I32, SCALAR_I64, SCALAR_INT, ArraySpec, PoolSpec, ScalarSpec, Tree,
                     cell_bytes, fill_cells, grow_array, restride, set_cell, table_rows,
                     table_stride)


cdef int declare_array(Tree tree, void** ptr, const char* name, int cell, int rows,
                       int32_t* stride, int32_t* cols, bint saved, double fill) except -1:
    """Declare one array field of the tree (called from `__cinit__`): the table does the
    rest (allocation and growth with the node, slot or value widths, fill of new cells,
    free, size, state)."""
    if tree.n_arrays >= MAX_ARRAYS:
        raise RuntimeError("too many tree arrays: raise MAX_ARRAYS in _tree.pxd")
    tree.arrays_[tree.n_arrays] = ArraySpec(ptr, name, cell, rows, stride, cols, saved, fill)
    tree.n_arrays += 1
    return 0


cdef int declare_scalar(Tree tree, void* ptr, const char* name, int kind, bint param,
                        double lo=-INFINITY, double hi=INFINITY) except -1:
    """Declare one scalar field (called from `__cinit__`): saved in the state under `name`,
    a construction parameter of that name if `param`, and a saved value must lie in
    [`lo`, `hi`] (`check_state`; besides its type's own range)."""
    if tree.n_scalars >= MAX_SCALARS:
        raise RuntimeError("too many tree scalars: raise MAX_SCALARS in _tree.pxd")
    tree.scalars_[tree.n_scalars] = ScalarSpec(ptr, name, kind, param)
    ranges = _RANGES.setdefault(type(tree), [])
    if len(ranges) == tree.n_scalars:  # the kind's first tree: every other declares alike
        ranges.append((lo, hi))
    tree.n_scalars += 1
    return 0


#: each tree kind's scalars' ranges, in their order of declaration (a kind's, not a tree's:
#: the table every tree holds stays as small as it was, since its bytes count in the budget)
_RANGES = {}


cdef tuple scalar_range(Tree tree, int k):
    """The range [lo, hi] the tree's kind declared for its scalar `k`."""
    return _RANGES[type(tree)][k]


cdef int declare_pool(Tree tree, Pool* pool, const char* name, int32_t* stride,
                      int32_t* cols) except -1:
    """Declare one pool field (`_pool.pxd`, called from `__cinit__`): blocks of rows of
    `stride` cells (a width field of the tree, NULL for 1) that the table relays out when
    that width grows, frees, counts and saves (`cols` cells of a row, NULL for all)."""
    if tree.n_pools >= MAX_POOLS:
        raise RuntimeError("too many tree pools: raise MAX_POOLS in _tree.pxd")
    pool_init(pool, stride[0] if stride != NULL else 1)
    tree.pools_[tree.n_pools] = PoolSpec(pool, name, stride, cols)
    tree.n_pools += 1
    return 0


cdef int table_release(Tree tree) noexcept:
    """Free every array the tree allocated (never a borrowed one) and release its pools."""
    cdef int k
    for k in range(tree.n_arrays):
        if not (tree.borrowed_mask >> k) & 1:
            free(tree.arrays_[k].ptr[0])
        tree.arrays_[k].ptr[0] = NULL
    for k in range(tree.n_pools):
        pool_release(tree.pools_[k].pool)
    return 0


cdef int set_scalar(Tree tree, str name, object v, bint param_only) except -1:
    """Set the declared scalar `name` to `v` (a construction parameter only, if
    `param_only`); TypeError if the tree declares none of that name."""
    cdef int k
    cdef ScalarSpec* s
    cdef bytes key = name.encode()
    for k in range(tree.n_scalars):
        s = &tree.scalars_[k]
        if s.name == key and (s.param or not param_only):
            if s.kind == SCALAR_INT or s.kind == SCALAR_BOOL:
                (<int*>s.ptr)[0] = <int>v
            elif s.kind == SCALAR_I32:
                (<int32_t*>s.ptr)[0] = <int32_t>v
            elif s.kind == SCALAR_I64:
                (<long long*>s.ptr)[0] = <long long>v
            else:
                (<double*>s.ptr)[0] = <double>v
            return 0
    raise TypeError(f"{type(tree).__name__} has no parameter {name!r}")


cdef int resize_nodes(Tree tree, int32_t capacity) except -1 nogil:
    """`capacity` rows in every node array (and `capacity + 1` in a walk's scratch)."""
    cdef int k
    cdef ArraySpec* a
    cdef size_t rows
    for k in range(tree.n_arrays):
        a = &tree.arrays_[k]
        if a.rows == ROWS_SLOT:
            continue
        rows = capacity if a.rows == ROWS_NODE else <size_t>capacity + 1
        grow_array(a.ptr, rows * table_stride(a) * cell_bytes(a.cell))
    tree.capacity = capacity
    return 0


cdef int resize_slots(Tree tree, int32_t capacity) except -1 nogil:
    """`capacity` slots: per-slot arrays grow (new cells filled), and arrays with one cell
    per slot in each node row are restrided."""
    cdef int k
    cdef ArraySpec* a
    cdef int32_t old = tree.feature_capacity
    for k in range(tree.n_arrays):
        a = &tree.arrays_[k]
        if a.rows == ROWS_SLOT:
            grow_array(a.ptr, <size_t>capacity * table_stride(a) * cell_bytes(a.cell))
            fill_cells(a.ptr[0], a.cell, <size_t>old * table_stride(a),
                        <size_t>capacity * table_stride(a), a.fill)
    restride_rows(tree, &tree.feature_capacity, capacity)
    tree.layout += 1
    return 0


cdef int restride_rows(Tree tree, int32_t* stride, int32_t new_stride) except -1 nogil:
    """Give every node array whose row width is the field `stride` `new_stride` cells a row
    (new cells filled), and set the field."""
    cdef int k
    cdef ArraySpec* a
    cdef char cell[8]
    for k in range(tree.n_arrays):
        a = &tree.arrays_[k]
        if a.stride == stride and a.rows != ROWS_SLOT:
            set_cell(cell, a.cell, 0, a.fill)
            restride(a.ptr, cell_bytes(a.cell), <int32_t>table_rows(tree, a.rows), stride[0],
                     new_stride, cell)
    for k in range(tree.n_pools):
        if tree.pools_[k].stride == stride:
            pool_relayout(tree.pools_[k].pool, new_stride, 0)
    stride[0] = new_stride
    tree.layout += 1
    return 0


cdef size_t row_bytes(Tree tree) noexcept nogil:
    """The bytes one more allocated node row costs, over every declared per-node array (the
    walk's scratch path included) at the tree's widths now."""
    cdef int k
    cdef size_t total = 0
    for k in range(tree.n_arrays):
        if tree.arrays_[k].rows != ROWS_SLOT:
            total += table_stride(&tree.arrays_[k]) * cell_bytes(tree.arrays_[k].cell)
    return total


cdef size_t nbytes(Tree tree) noexcept nogil:
    """The bytes of the tree's storage: every declared array as allocated and every pool
    (what `__sizeof__` adds to the object's own)."""
    cdef int k
    cdef size_t total = 0
    for k in range(tree.n_arrays):
        total += table_rows(tree, tree.arrays_[k].rows) * table_stride(&tree.arrays_[k]) \
            * cell_bytes(tree.arrays_[k].cell)
    for k in range(tree.n_pools):
        total += pool_bytes(tree.pools_[k].pool)
    return total
