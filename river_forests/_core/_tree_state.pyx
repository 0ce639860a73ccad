"""A tree's saved state, driven by its declaration table (`_tree.pxd`): the state as plain
data (`tree_get_state`), its restore (`tree_set_state`, copying or borrowing a mapped file's
arrays), its checks before anything is allocated (`tree_check_state`), and the renumbering
of a state for another forest's registries (a merge: `tree_remap_state`,
`tree_adopt_columns`). `Tree.get_state`, `set_state`, `check_state`, `remap_state` and
`adopt_columns` are these functions.
"""

from libc.stdint cimport int32_t
from libc.string cimport memcpy

import numpy as np

cimport numpy as cnp

from ._pool cimport pool_export, pool_import, pool_release
from ._tree cimport (CELL_F32, CELL_F64, CELL_I32, MAX_WIDTH, ROWS_NODE, ROWS_PATH, ROWS_SLOT,
                     SCALAR_BOOL, SCALAR_F64, SCALAR_I32, SCALAR_I64, SCALAR_INT, STATE_VERSION,
                     TASK_CLASSIFICATION, TASK_REGRESSION, ArraySpec, ScalarSpec, Tree, cell_bytes, doubled,
                     fill_cells, grow_array, table_rows, table_stride)
from ._tree_table cimport resize_nodes, restride_rows, scalar_range, set_scalar

cnp.import_array()

_CELL_DTYPES = {CELL_I32: np.int32, CELL_F64: np.float64, CELL_F32: np.float32}


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


cdef object _export(Tree tree, ArraySpec* a):
    """The saved part of array `a` as a new numpy array (1-D for one cell per row)."""
    cdef int32_t rows = tree.n_nodes if a.rows == ROWS_NODE else tree.n_features
    cdef int32_t stride = <int32_t>table_stride(a)
    cdef int32_t cols = a.cols[0] if a.cols != NULL else stride
    out = export_rows(a.ptr[0], _CELL_DTYPES[a.cell], rows, stride, cols)
    return out if a.stride != NULL else out.reshape(rows)


cdef dict tree_get_state(Tree tree):
    """Every declared scalar and the used part of every saved array, by name, with the
    state's version, the tree kind and its router (`split`)."""
    cdef int k
    cdef ArraySpec* a
    cdef dict state = {"version": STATE_VERSION, "kind": type(tree).__name__,
                       "split": tree.split_kind,
                       "rng": (tree.rng.s0, tree.rng.s1, tree.rng.s2, tree.rng.s3)}
    for k in range(tree.n_scalars):
        state[tree.scalars_[k].name.decode()] = _get_scalar(&tree.scalars_[k])
    for k in range(tree.n_arrays):
        a = &tree.arrays_[k]
        if a.saved:
            state[a.name.decode()] = _export(tree, a)
    for k in range(tree.n_pools):
        name = tree.pools_[k].name.decode()
        cols = tree.pools_[k].cols[0] if tree.pools_[k].cols != NULL else tree.pools_[k].pool.stride
        state[name], state[name + "_offsets"], state[name + "_rows"] = pool_export(
            tree.pools_[k].pool, cols)
    return state


cdef dict tree_scalars(Tree tree):
    """Every declared scalar by name, at its value."""
    cdef int k
    return {tree.scalars_[k].name.decode(): _get_scalar(&tree.scalars_[k])
            for k in range(tree.n_scalars)}


cdef int tree_set_state(Tree tree, dict state, bint borrow, Py_ssize_t columns) except -1:
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
    tree.check_state(state, columns)
    tree_unborrow(tree)
    n = <int32_t>len(state["left"])
    for k in range(tree.n_scalars):
        name = tree.scalars_[k].name.decode()
        if name in state:
            set_scalar(tree, name, state[name], False)
    tree.rng.s0, tree.rng.s1, tree.rng.s2, tree.rng.s3 = state["rng"]
    n_values = tree.n_values
    if borrow:  # widths exactly the saved ones, so that saved rows are the tree's rows
        tree._resize_features(max(tree.n_features, 1))
        restride_rows(tree, &tree.value_stride, max(n_values, 2))
    else:
        tree._resize_features(doubled(tree.feature_capacity, tree.n_features))
        if tree.value_stride == 0:  # widths as a new tree's (`__init__`), so a loaded tree
            # grows its rows (and fills a byte budget) as it would
            restride_rows(tree, &tree.value_stride, 2)
        tree.ensure_values(max(n_values, 2))
    tree.n_values = n_values
    if not borrow:
        resize_nodes(tree, max(n, 1))
    else:
        tree.capacity = max(n, 1)
    tree.n_nodes = n
    for k in range(tree.n_arrays):
        a = &tree.arrays_[k]
        rows = n if a.rows == ROWS_NODE else tree.n_features
        name = a.name.decode()
        width = table_stride(a)
        if borrow and a.rows != ROWS_SLOT:
            value = state.get(name) if a.saved and a.rows == ROWS_NODE else None
            if value is not None and n > 0 and width > 0 \
                    and (a.cols == NULL or <size_t>a.cols[0] == width) \
                    and value.flags.c_contiguous and value.flags.aligned:
                view = value
                a.ptr[0] = cnp.PyArray_DATA(view)
                tree.borrowed_mask |= 1ULL << k
                continue
            grow_array(a.ptr, <size_t>table_rows(tree, a.rows) * width * cell_bytes(a.cell))
        if a.rows == ROWS_PATH:
            continue
        fill_cells(a.ptr[0], a.cell, 0, <size_t>rows * width, a.fill)
        if a.saved and name in state and rows > 0:
            values = np.asarray(state[name], dtype=_CELL_DTYPES[a.cell])
            if values.size > <size_t>rows * width:  # a width the kind's scalars disagree with
                raise ValueError(f"tree array {name!r} has more cells a row than the tree "
                                 f"gives it ({values.size // rows} > {width})")
            import_rows(a.ptr[0], _CELL_DTYPES[a.cell], values.reshape(rows, -1),
                        <int32_t>width)
    if tree.borrowed_mask:
        tree.borrowed = state
    for k in range(tree.n_pools):
        name = tree.pools_[k].name.decode()
        cols = tree.pools_[k].cols[0] if tree.pools_[k].cols != NULL else tree.pools_[k].pool.stride
        if name in state and not (borrow and name in tree.learn_only_pools):
            pool_import(tree.pools_[k].pool, state[name], state[name + "_offsets"],
                        state[name + "_rows"], cols)
        else:
            pool_release(tree.pools_[k].pool)
    return 0


cdef int tree_unborrow(Tree tree) except -1:
    """Forget the borrowed arrays (their pointers, never freed here): the tree holds no
    node array until it allocates its own."""
    cdef int k
    for k in range(tree.n_arrays):
        if (tree.borrowed_mask >> k) & 1:
            tree.arrays_[k].ptr[0] = NULL
    tree.borrowed_mask = 0
    tree.borrowed = None
    return 0


cdef int writable(Tree tree) except -1:
    """Raise unless the tree may change (it borrows no array of a mapped file)."""
    if tree.borrowed_mask:
        raise RuntimeError("this tree reads a memory-mapped model file and only predicts: "
                           "learn through its forest, which first gives it memory of its "
                           "own")
    return 0


cdef int tree_check_state(Tree tree, dict state, Py_ssize_t columns) except -1:
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
    if state.get("kind") != type(tree).__name__ or state.get("split") != tree.split_kind:
        raise ValueError(f"a {state.get('kind')!r} state ({state.get('split')!r} cuts) cannot "
                         f"load into a {type(tree).__name__}")
    rng = state.get("rng")
    if not (isinstance(rng, (tuple, list)) and len(rng) == 4
            and all(_is_int(v) and 0 <= v < 2**64 for v in rng) and any(rng)):
        raise ValueError("a tree's generator state must be four 64-bit words, not all 0")
    for k in range(tree.n_scalars):
        s = &tree.scalars_[k]
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
        lo, hi = scalar_range(tree, k)  # the range its declaration gives
        if not lo <= v <= hi:
            raise ValueError(f"tree scalar {name!r} must lie in [{_bound(lo)}, "
                             f"{_bound(hi)}], got {v!r}")
    left = _node_array(state, "left", np.int32)
    n = len(left)
    if n >= 2**31 - 1:
        raise ValueError(f"a tree of {n} nodes is more than a tree holds")
    n_features = _given(state, "n_features", tree.n_features)
    n_columns = _given(state, "n_columns", tree.n_columns)
    n_values = _given(state, "n_values", tree.n_values)
    # (each scalar's own range was checked above, from its declaration; what is left is
    # what ties scalars together)
    if n_features > _given(state, "features_per_tree", tree.features_per_tree):
        raise ValueError(f"a tree of {n_features} feature slots is out of range")
    if n_columns < n_features:
        raise ValueError(f"n_columns={n_columns} must lie in [n_features, {MAX_WIDTH}]")
    growth = _given(state, "gain_growth", tree.gain_growth)
    if not (growth == 0.0 or 1.0 < growth):
        raise ValueError("a tree's importance decay ('gain_growth' 0 or in (1, 2]) is out "
                         "of range")
    if "gain" in state and isinstance(state["gain"], np.ndarray) \
            and state["gain"].dtype == np.float32 and not np.isfinite(state["gain"]).all():
        raise ValueError("tree array 'gain' holds an infinite value")
    root = _given(state, "root", -1)
    # the arrays: dtype and shape; the bytes the tree will allocate for them
    state_bytes = 0
    alloc = 0
    for k in range(tree.n_arrays):
        a = &tree.arrays_[k]
        if a.rows == ROWS_PATH:
            continue
        rows = n if a.rows == ROWS_NODE else n_features
        if a.stride == NULL:
            cols = None
        else:  # the cells saved a row
            cols = _field_value(tree, a.cols if a.cols != NULL else a.stride, state)
            if not (_is_int(cols) and 0 <= cols <= MAX_WIDTH):
                raise ValueError(f"tree array {a.name.decode()!r}: {cols!r} cells a row")
        alloc += ((max(n, 1) + 1 if a.rows != ROWS_SLOT else max(2 * n_features, 4))
                  * _width(tree, a.stride, state, n_features, n_values) * cell_bytes(a.cell))
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
    for k in range(tree.n_pools):
        name = tree.pools_[k].name.decode()
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
        spec_cols = tree.pools_[k].cols if tree.pools_[k].cols != NULL else tree.pools_[k].stride
        cols = _field_value(tree, spec_cols, state) if spec_cols != NULL else 1
        if not (_is_int(cols) and 0 <= cols <= MAX_WIDTH):
            raise ValueError(f"tree pool {name!r}: {cols!r} cells a row")
        stride = _width(tree, tree.pools_[k].stride, state, n_features, n_values)
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
    for k in range(tree.n_arrays):  # the arrays whose cells are registry columns (`column_keys`)
        a = &tree.arrays_[k]
        name = a.name.decode()
        if name not in tree.column_keys or name not in state:
            continue
        if a.rows == ROWS_NODE:  # the cuts of the interior nodes
            _check_cuts(state[name], left, width, name)
        elif n_features:  # the feature slots
            slots = state[name]
            if slots.min() < 0 or slots.max() >= width:
                raise ValueError("the tree's feature slots hold columns it has not considered")
    tree.check_kind_state(state, n, width)
    return 0


cdef int tree_adopt_columns(Tree tree, const int32_t[::1] unseen, int32_t n_columns) except -1:
    """A merge's last step (`river_forests.merge`), once `remap_state` renumbered the
    tree's columns into a registry of `n_columns` columns: offer it the columns it has
    not considered (`unseen`, in order: features it never saw) as if they had come after
    its own, then every column of the registry counts as considered. A tree that keeps
    every feature gets them all, one that samples keeps a uniform sample of them all."""
    writable(tree)
    cdef Py_ssize_t i
    cdef int32_t k = tree.n_columns
    if k + unseen.shape[0] != n_columns:
        raise ValueError(f"{unseen.shape[0]} unseen columns and {k} considered make "
                         f"{k + unseen.shape[0]}, not the registry's {n_columns}")
    with nogil:
        for i in range(unseen.shape[0]):
            tree.offer_column(unseen[i], k + <int32_t>i)
        tree.n_columns = n_columns
        tree.ensure_features(n_columns)  # a kind's bookkeeping of its width
    return 0


cdef dict tree_remap_state(object cls, dict state, object columns, object classes):
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


cdef object _field_value(Tree tree, int32_t* field, dict state):
    """The value `state` gives the width field `field` (a declared scalar), else the
    field's own."""
    cdef int k
    for k in range(tree.n_scalars):
        if tree.scalars_[k].ptr == <void*>field:
            name = tree.scalars_[k].name.decode()
            if name in state:
                return state[name]
    return field[0]


cdef object _width(Tree tree, int32_t* stride, dict state, object n_features, object n_values):
    """At most the cells a row of a loaded tree gets for the width field `stride` (NULL: 1):
    the slots and the statistics grow by doubling, a declared scalar is its value (0 too:
    arrays a state says are off take no cell), another field at most the slots and one."""
    cdef int k
    if stride == NULL:
        return 1
    if stride == &tree.feature_capacity:
        return max(2 * n_features, 4)
    if stride == &tree.value_stride:
        return max(2 * n_values, 2)
    v = _field_value(tree, stride, state)
    if _is_int(v) and v == 0:
        for k in range(tree.n_scalars):
            if tree.scalars_[k].ptr == <void*>stride:
                return 0
    return v if _is_int(v) and v > 0 else max(2 * n_features, 4) + 1


cdef object _given(dict state, str name, object default):
    """`state[name]`, or `default` where the state has no such key."""
    return state[name] if name in state else default


cdef str _bound(double b):
    """A declared bound as the check's message shows it (an integral one without '.0')."""
    return str(int(b)) if b == b and abs(b) < 2.0**63 and b == <long long>b else str(b)


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
    has considered (`feature` values of leaves are not read), `feature` being the node
    array `name` of the kind's `column_keys`."""
    inner = left >= 0
    if inner.any():
        f = feature[inner]
        if f.min() < 0 or f.max() >= n_columns:
            raise ValueError(f"an interior node cuts a column it has not considered ({name!r})")
