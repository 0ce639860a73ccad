# A pool of per-leaf data of varying size, shared by the tree kinds that keep more than a
# fixed row per node: denil2013's candidate splits and their class histograms, XForest's and
# BSP's per-leaf points and hulls. One flat buffer per pool (never an allocation per leaf),
# blocks addressed by an id the kind chooses (a fringe slot, a node), a free list of cell
# ranges with first fit, and a compaction that keeps the used cells within 1.5 times the live ones,
# so memory stays bounded by what the kind keeps alive.
#
# A block is `rows` rows of `stride` cells (float64). The stride is a width field of the tree
# (the class count's `value_stride` for histograms, 1 for plain numbers); when the tree widens
# it (a new class), the tree's table relays every block out at the new width
# (`pool_relayout`), new cells zero. A tree declares its pools once (`Tree.declare_pool`):
# the table then frees them, counts their bytes and pickles them as flat arrays plus offsets.

from libc.stdint cimport int32_t


ctypedef struct Pool:
    double* data            # the cells of every block
    size_t used             # cells handed out from the start of `data` (free ranges included)
    size_t capacity         # cells allocated in `data`
    size_t live             # cells in live blocks
    int32_t stride          # cells per row of every block
    long long* start        # block id -> its first cell in `data`
    int32_t* rows           # block id -> its rows, -1 for an id not in use
    int32_t n_ids           # length of the id table (ids from n_ids on are not in use)
    long long* free_start   # the free list: ranges of cells below `used`, sorted, coalesced
    long long* free_cells
    int32_t n_free
    int32_t free_capacity


cdef int pool_init(Pool* pool, int32_t stride) noexcept nogil
cdef void pool_release(Pool* pool) noexcept nogil
cdef double* pool_alloc(Pool* pool, int32_t block, int32_t rows) except NULL nogil
cdef int pool_free(Pool* pool, int32_t block) except -1 nogil
cdef int pool_relayout(Pool* pool, int32_t stride, size_t spare) except -1 nogil
cdef size_t pool_bytes(const Pool* pool) noexcept nogil
cdef int pool_fill_columns(Pool* pool, const int32_t* used, int32_t n_blocks, int32_t first,
                           int32_t last, double value) noexcept nogil

# pickling: the live blocks as one flat array of `cols` cells per row, with offsets and rows
cdef tuple pool_export(const Pool* pool, int32_t cols)
cdef int pool_import(Pool* pool, object data, object offsets, object rows, int32_t cols) except -1


cdef inline size_t pool_grow_cells(const Pool* pool, size_t cells) noexcept nogil:
    """The most cells a `pool_alloc` of `cells` cells may add to the pool's buffer: the block,
    and, when it does not fit, the repacking's spare room (`pool_alloc`). For a kind that
    checks a byte budget before it keeps more."""
    if pool.used + cells <= pool.capacity:
        return cells
    return 2 * cells + (pool.live + cells) // 4 + 64


cdef inline bint pool_has(const Pool* pool, int32_t block) noexcept nogil:
    """Whether id `block` holds a live block."""
    return 0 <= block < pool.n_ids and pool.rows[block] >= 0


cdef inline double* pool_block(const Pool* pool, int32_t block) noexcept nogil:
    """The cells of live block `block` (valid until the pool's next alloc or relayout)."""
    return pool.data + pool.start[block]
