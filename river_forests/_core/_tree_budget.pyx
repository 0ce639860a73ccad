"""A tree under its byte budget: the most nodes it may hold (`node_limit`), its share of the
forest's budget (`set_max_bytes`); the twigs that hold the least data become leaves again
(`shed_twigs`, over `collapse`, which frees rows and keeps rows 0..n_nodes-1 the tree's
nodes), and a tree over its budget after a width grew sheds until it fits (`fit_budget`).
The kind's hooks (`Tree.drop_growth`, `Tree.free_twig`) say what it keeps beyond the base's.
"""

from libc.math cimport NAN
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from ._pool cimport pool_bytes
from ._tree cimport (NO_BYTE_CAP, ROWS_NODE, ArraySpec, Tree, cell_bytes, relink_child,
                     table_stride)
from ._tree_table cimport nbytes, resize_nodes, row_bytes


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


cdef int32_t node_limit(Tree tree) noexcept nogil:
    """The most nodes the tree may hold now: `max_nodes`, and under a byte budget the
    rows that fit in it beside what is not node rows (per-slot arrays, pools) at the
    tree's widths now. It falls when a width grows (a class, a feature) or a pool fills."""
    cdef size_t row, fixed, pools = 0
    cdef long long room
    cdef int k
    if tree.max_bytes >= NO_BYTE_CAP:
        return tree.max_nodes
    for k in range(tree.n_pools):
        pools += pool_bytes(tree.pools_[k].pool)
    if tree.limit_nodes >= 0 and tree.limit_layout == tree.layout \
            and tree.limit_bytes == tree.max_bytes and tree.limit_max == tree.max_nodes \
            and tree.limit_pools == pools:
        return tree.limit_nodes  # nothing it depends on changed: the widths, the caps, the pools
    # allocated bytes = fixed + capacity * row (a path array's extra row is in `fixed`)
    row = row_bytes(tree)
    fixed = nbytes(tree) - <size_t>tree.capacity * row
    room = (tree.max_bytes - <long long>fixed) // <long long>row
    if room < 1:
        room = 1
    elif room > tree.max_nodes:
        room = tree.max_nodes
    tree.limit_nodes = <int32_t>room
    tree.limit_layout = tree.layout
    tree.limit_bytes = tree.max_bytes
    tree.limit_max = tree.max_nodes
    tree.limit_pools = pools
    return tree.limit_nodes


cdef int32_t shed_twigs(Tree tree, int32_t want) except -1 nogil:
    """Make the `want` twigs (interior nodes over two leaves) that hold the least data
    leaves again (each after the kind's `free_twig`), freeing two rows each; returns the
    rows freed. A freed twig keeps its statistics, which already count its leaves'."""
    cdef int32_t j, n_twigs = 0, k, freed
    cdef Key* keys
    cdef int32_t* chosen
    if want < 1:
        want = 1
    keys = <Key*>malloc(<size_t>tree.n_nodes * sizeof(Key) + 1)
    chosen = <int32_t*>malloc(<size_t>tree.n_nodes * sizeof(int32_t) + 1)
    if keys == NULL or chosen == NULL:
        free(keys)
        free(chosen)
        with gil:
            raise MemoryError()
    for j in range(tree.n_nodes):
        if tree.left[j] >= 0 and tree.left[tree.left[j]] < 0 and tree.left[tree.right[j]] < 0:
            keys[n_twigs].key = tree.weight[j]
            keys[n_twigs].node = j
            n_twigs += 1
    if want > n_twigs:
        want = n_twigs
    select_smallest(keys, n_twigs, want)
    for k in range(want):
        chosen[k] = keys[k].node
        tree.free_twig(chosen[k])
    freed = collapse(tree, chosen, want) if want > 0 else 0
    free(keys)
    free(chosen)
    return freed


cdef int set_max_bytes(Tree tree, long long max_bytes) except -1:
    """Set the tree's byte budget (its share of the forest's, `ForestCore.rebudget`); a
    tree over it sheds nodes at once (`fit_budget`). The share is the whole tree's, its
    object's own bytes (`sys.getsizeof` of an empty tree's storage) included."""
    max_bytes -= object.__sizeof__(tree)
    tree.max_bytes = max_bytes if max_bytes > 0 else 1
    if tree.borrowed_mask:  # it only predicts: its own copy will fit the budget
        return 0
    with nogil:
        fit_budget(tree)
    return 0


cdef int fit_budget(Tree tree) except -1 nogil:
    """Back under the byte budget after a width grew (a class, a feature: every node row
    widens): first drop what the kind keeps only to grow, then make the twigs that hold
    the least data leaves again, an eighth of the nodes at a time, and give their rows
    back. A kind whose pools hold blocks it cannot move stays as it is (BSP's pairs)."""
    cdef int k
    if tree.max_bytes >= NO_BYTE_CAP or <long long>nbytes(tree) <= tree.max_bytes:
        return 0
    tree.drop_growth()
    while <long long>nbytes(tree) > tree.max_bytes and tree.n_nodes > 1:
        for k in range(tree.n_pools):
            if tree.pools_[k].pool.live > 0:
                return 0
        if shed_twigs(tree, tree.n_nodes // 8) == 0:
            return 0
        resize_nodes(tree, tree.n_nodes)
    return 0


cdef int32_t collapse(Tree tree, const int32_t* nodes, int32_t n) except -1 nogil:
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
    tree.reuse = 0
    for k in range(tree.n_pools):
        if tree.pools_[k].pool.live > 0:
            with gil:
                raise NotImplementedError("collapse: a pool holds blocks (they would have to move)")
    dead = <unsigned char*>malloc(<size_t>tree.n_nodes + 1)
    if dead == NULL:
        with gil:
            raise MemoryError()
    memset(dead, 0, <size_t>tree.n_nodes + 1)
    for i in range(n):
        j = nodes[i]
        dead[tree.left[j]] = 1
        dead[tree.right[j]] = 1
        tree.left[j] = -1
        tree.right[j] = -1
        tree.feature[j] = -1
        tree.threshold[j] = NAN
        tree.gain[j] = 0.0  # a leaf again: its split's credit goes with the split
        freed += 2
    # fill the lowest hole with the highest live row until none is left below the end
    dst = 0
    src = tree.n_nodes - 1
    while True:
        while src >= 0 and dead[src]:
            src -= 1
        while dst < src and not dead[dst]:
            dst += 1
        if dst >= src:
            break
        for k in range(tree.n_arrays):
            a = &tree.arrays_[k]
            if a.rows == ROWS_NODE:
                width = table_stride(a)
                item = cell_bytes(a.cell)
                memcpy(<char*>a.ptr[0] + <size_t>dst * width * item,
                       <char*>a.ptr[0] + <size_t>src * width * item, width * item)
        # relink: the parent's child, the children's parent, the root
        relink_child(tree, tree.parent[dst], src, dst)
        if tree.left[dst] >= 0:
            tree.parent[tree.left[dst]] = dst
            tree.parent[tree.right[dst]] = dst
        dead[dst] = 0
        dead[src] = 1
    tree.n_nodes -= freed
    free(dead)
    return freed
