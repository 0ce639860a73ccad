"""The per-leaf pool of varying-size blocks (see `_pool.pxd`)."""

from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as np

cimport numpy as cnp

cnp.import_array()

cdef enum:
    # below this many cells of garbage a pool is never compacted (a compaction copies the
    # live blocks: not worth it for a few rows)
    COMPACT_SLACK = 4096


cdef int _grow(void** ptr, size_t n_bytes) except -1 nogil:
    cdef void* mem = realloc(ptr[0], n_bytes if n_bytes > 0 else 1)
    if mem == NULL:
        with gil:
            raise MemoryError()
    ptr[0] = mem
    return 0


cdef int pool_init(Pool* pool, int32_t stride) noexcept nogil:
    memset(pool, 0, sizeof(Pool))
    pool.stride = stride if stride > 0 else 1
    return 0


cdef void pool_release(Pool* pool) noexcept nogil:
    free(pool.data)
    free(pool.start)
    free(pool.rows)
    free(pool.free_start)
    free(pool.free_cells)
    pool_init(pool, pool.stride)


cdef int _ensure_ids(Pool* pool, int32_t n) except -1 nogil:
    cdef int32_t k, old = pool.n_ids
    cdef int32_t cap
    if n <= old:
        return 0
    cap = old if old >= 4 else 4
    while cap < n:
        cap *= 2
    _grow(<void**>&pool.start, <size_t>cap * sizeof(long long))
    _grow(<void**>&pool.rows, <size_t>cap * sizeof(int32_t))
    for k in range(old, cap):
        pool.start[k] = 0
        pool.rows[k] = -1
    pool.n_ids = cap
    return 0


cdef int _add_free(Pool* pool, long long start, long long cells) except -1 nogil:
    """Return a range to the free list: sorted insert, merged with its neighbours; a range
    that ends the used part shortens it instead."""
    cdef int32_t i = 0, k
    if cells <= 0:
        return 0
    while i < pool.n_free and pool.free_start[i] < start:
        i += 1
    # merge with the range before and/or after
    if i > 0 and pool.free_start[i - 1] + pool.free_cells[i - 1] == start:
        i -= 1
        pool.free_cells[i] += cells
    else:
        if pool.n_free >= pool.free_capacity:
            pool.free_capacity = pool.free_capacity * 2 if pool.free_capacity >= 4 else 4
            _grow(<void**>&pool.free_start, <size_t>pool.free_capacity * sizeof(long long))
            _grow(<void**>&pool.free_cells, <size_t>pool.free_capacity * sizeof(long long))
        for k in range(pool.n_free, i, -1):
            pool.free_start[k] = pool.free_start[k - 1]
            pool.free_cells[k] = pool.free_cells[k - 1]
        pool.free_start[i] = start
        pool.free_cells[i] = cells
        pool.n_free += 1
    if i + 1 < pool.n_free and pool.free_start[i] + pool.free_cells[i] == pool.free_start[i + 1]:
        pool.free_cells[i] += pool.free_cells[i + 1]
        for k in range(i + 1, pool.n_free - 1):
            pool.free_start[k] = pool.free_start[k + 1]
            pool.free_cells[k] = pool.free_cells[k + 1]
        pool.n_free -= 1
    # the last range reaching the end of the used part gives its cells back
    k = pool.n_free - 1
    if k >= 0 and <size_t>(pool.free_start[k] + pool.free_cells[k]) == pool.used:
        pool.used = <size_t>pool.free_start[k]
        pool.n_free -= 1
    return 0


cdef double* pool_alloc(Pool* pool, int32_t block, int32_t rows) except NULL nogil:
    """A zeroed block of `rows` rows under id `block` (an old block of that id is freed).
    First fit in the free list, else at the end of the used cells."""
    cdef long long cells = <long long>rows * pool.stride
    cdef long long start = -1
    cdef int32_t i, k
    if block < 0 or rows < 0:
        with gil:
            raise ValueError(f"pool_alloc: bad block {block} or rows {rows}")
    pool_free(pool, block)
    _ensure_ids(pool, block + 1)
    for i in range(pool.n_free):
        if pool.free_cells[i] >= cells:
            start = pool.free_start[i]
            pool.free_start[i] += cells
            pool.free_cells[i] -= cells
            if pool.free_cells[i] == 0:
                for k in range(i, pool.n_free - 1):
                    pool.free_start[k] = pool.free_start[k + 1]
                    pool.free_cells[k] = pool.free_cells[k + 1]
                pool.n_free -= 1
            break
    if start < 0:
        if pool.used + <size_t>cells > pool.capacity:
            # out of room: pack the live blocks into a buffer with a quarter of spare room
            # (a copy, as realloc's would be); a fringe's blocks come and go at a steady
            # total, so doubling would leave the buffer half empty for good
            pool_relayout(pool, pool.stride, (pool.live + <size_t>cells) // 4 + <size_t>cells + 64)
        start = <long long>pool.used
        pool.used += <size_t>cells
    pool.start[block] = start
    pool.rows[block] = rows
    pool.live += <size_t>cells
    memset(pool.data + start, 0, <size_t>cells * sizeof(double))
    return pool.data + start


cdef int pool_free(Pool* pool, int32_t block) except -1 nogil:
    """Free the block of id `block` (nothing if none). When the garbage passes half the live
    cells the pool compacts, so its buffer stays within about 1.5 times what is alive (plus
    the growth margin of a half)."""
    cdef long long cells
    if not pool_has(pool, block):
        return 0
    cells = <long long>pool.rows[block] * pool.stride
    pool.live -= <size_t>cells
    _add_free(pool, pool.start[block], cells)
    pool.rows[block] = -1
    if 2 * pool.used > 3 * pool.live + 2 * COMPACT_SLACK or \
            pool.capacity > 2 * pool.used + 2 * COMPACT_SLACK:
        pool_relayout(pool, pool.stride, 0)
    return 0


cdef int pool_relayout(Pool* pool, int32_t stride, size_t spare) except -1 nogil:
    """Lay every live block out again, packed in id order, at `stride` cells per row (the
    first min(old, new) cells of each row kept, new cells zero): a widening (new class) or a
    compaction. The buffer is reallocated to fit, with `spare` cells of room after them."""
    cdef size_t total = 0, at = 0
    cdef int32_t b, i, keep = pool.stride if pool.stride < stride else stride
    cdef double* mem
    cdef const double* src
    if stride <= 0:
        stride = 1
    for b in range(pool.n_ids):
        if pool.rows[b] >= 0:
            total += <size_t>pool.rows[b] * stride
    mem = <double*>malloc((total + spare if total + spare > 0 else 1) * sizeof(double))
    if mem == NULL:
        with gil:
            raise MemoryError()
    for b in range(pool.n_ids):
        if pool.rows[b] < 0:
            continue
        src = pool.data + pool.start[b]
        for i in range(pool.rows[b]):
            memcpy(mem + at + <size_t>i * stride, src + <size_t>i * pool.stride, keep * sizeof(double))
            if stride > keep:
                memset(mem + at + <size_t>i * stride + keep, 0, (stride - keep) * sizeof(double))
        pool.start[b] = <long long>at
        at += <size_t>pool.rows[b] * stride
    free(pool.data)
    pool.data = mem
    pool.capacity = total + spare if total + spare > 0 else 1
    pool.used = total
    pool.live = total
    pool.stride = stride
    pool.n_free = 0
    return 0


cdef size_t pool_bytes(const Pool* pool) noexcept nogil:
    """Bytes allocated by the pool."""
    return (pool.capacity * sizeof(double)
            + <size_t>pool.n_ids * (sizeof(long long) + sizeof(int32_t))
            + <size_t>pool.free_capacity * 2 * sizeof(long long))


cdef int pool_fill_columns(Pool* pool, const int32_t* used, int32_t n_blocks, int32_t first,
                           int32_t last, double value) noexcept nogil:
    """Set cells [first, last) of the rows of blocks 0 .. n_blocks - 1 to `value`: every row
    of a live block, or, with `used`, its first used[b] rows (rows of data kept in blocks, as
    the trees keep points, with a column new since they were kept, or one forgotten)."""
    cdef int32_t b, i, c, rows
    cdef double* row
    for b in range(min(n_blocks, pool.n_ids)):
        if not pool_has(pool, b):
            continue
        rows = pool.rows[b] if used == NULL else min(used[b], pool.rows[b])
        for i in range(rows):
            row = pool_block(pool, b) + <size_t>i * pool.stride
            for c in range(first, last):
                row[c] = value
    return 0


cdef tuple pool_export(const Pool* pool, int32_t cols):
    """(data, offsets, rows): the live blocks' first `cols` cells of each row, packed in id
    order into one flat float64 array; offsets[b] is block b's first cell in it (-1 if id b
    is not in use) and rows[b] its rows."""
    cdef int32_t b, i, n = pool.n_ids
    cdef size_t total = 0, at = 0
    if cols > pool.stride:
        cols = pool.stride
    for b in range(n):
        if pool.rows[b] >= 0:
            total += <size_t>pool.rows[b] * cols
    data = np.empty(total, dtype=np.float64)
    offsets = np.full(n, -1, dtype=np.int64)
    rows = np.full(n, -1, dtype=np.int32)
    cdef double[::1] d = data
    cdef long long[::1] o = offsets
    cdef int32_t[::1] r = rows
    cdef const double* src
    for b in range(n):
        if pool.rows[b] < 0:
            continue
        o[b] = <long long>at
        r[b] = pool.rows[b]
        src = pool.data + pool.start[b]
        for i in range(pool.rows[b]):
            if cols > 0:
                memcpy(&d[at], src + <size_t>i * pool.stride, cols * sizeof(double))
            at += cols
    return data, offsets, rows


cdef int pool_import(Pool* pool, object data, object offsets, object rows, int32_t cols) except -1:
    """Replace the pool's blocks with those of `pool_export`'s arrays (cells past `cols` in a
    row are zero)."""
    cdef const double[::1] d = np.ascontiguousarray(data, dtype=np.float64)
    cdef const long long[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const int32_t[::1] r = np.ascontiguousarray(rows, dtype=np.int32)
    cdef int32_t b, i
    cdef double* dst
    cdef int32_t stride = pool.stride
    if cols > stride:
        raise ValueError(f"a pool of {cols} columns cannot load into {stride}")
    pool_release(pool)
    pool.stride = stride
    _ensure_ids(pool, <int32_t>r.shape[0])  # the id table as saved, free ids included
    for b in range(r.shape[0]):
        if r[b] < 0:
            continue
        if o[b] < 0 or o[b] > d.shape[0] or (cols > 0 and r[b] > (d.shape[0] - o[b]) // cols):
            raise ValueError("corrupt pool state: a block lies outside its data")
        dst = pool_alloc(pool, b, r[b])
        for i in range(r[b]):
            if cols > 0:
                memcpy(dst + <size_t>i * stride, &d[o[b] + <long long>i * cols], cols * sizeof(double))
    return 0
