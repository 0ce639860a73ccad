"""The BSP tree's sample of pairs of slots (see `_bsp_pairs.pxd`)."""

from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc

from ._bsp cimport BSPTree
from ._bsp_hulls cimport reset_hulls
from ._pool cimport pool_alloc, pool_block
from ._random cimport rng_randint


cdef int load_pairs(BSPTree t) except -1 nogil:
    """Copy the `pairs` block into the slot arrays the walk reads."""
    cdef int32_t p
    cdef const double* src
    free(t.pair_a)
    free(t.pair_b)
    t.pair_a = <int32_t*>malloc((<size_t>t.max_pairs + 1) * sizeof(int32_t))
    t.pair_b = <int32_t*>malloc((<size_t>t.max_pairs + 1) * sizeof(int32_t))
    if t.pair_a == NULL or t.pair_b == NULL:
        with gil:
            raise MemoryError()
    if t.n_pairs > 0:
        src = pool_block(&t.pairs, 0)
        for p in range(t.n_pairs):
            t.pair_a[p] = <int32_t>src[2 * p]
            t.pair_b[p] = <int32_t>src[2 * p + 1]
    return 0


cdef int sync_pairs(BSPTree t) except -1 nogil:
    """Offer the pairs of the slots that arrived since the last sample to the tree's pair
    sample (a reservoir of `max_pairs`, in order of arrival); a pair replaced in it is
    forgotten by every hull (`_bsp_hulls.reset_hulls`)."""
    cdef int32_t s, u, k, p, old = t.n_pairs
    cdef int32_t* keep
    cdef double* dst
    if t.pair_a == NULL:
        load_pairs(t)
    if t.n_pair_slots >= t.n_features:
        return 0
    keep = <int32_t*>malloc((<size_t>t.max_pairs + 1) * sizeof(int32_t))
    if keep == NULL:
        with gil:
            raise MemoryError()
    for p in range(t.max_pairs):
        keep[p] = 1
    for s in range(t.n_pair_slots, t.n_features):
        for u in range(s):
            if t.n_pairs < t.max_pairs:
                t.pair_a[t.n_pairs] = u
                t.pair_b[t.n_pairs] = s
                t.n_pairs += 1
            else:
                k = <int32_t>rng_randint(&t.rng, <Py_ssize_t>(t.n_candidates + 1))
                if k < t.max_pairs:
                    t.pair_a[k] = u
                    t.pair_b[k] = s
                    keep[k] = 0
            t.n_candidates += 1
    t.n_pair_slots = t.n_features
    if t.n_pairs == 0:  # one slot: no pair yet
        free(keep)
        return 0
    dst = pool_alloc(&t.pairs, 0, 2 * t.n_pairs)
    for p in range(t.n_pairs):
        dst[2 * p] = t.pair_a[p]
        dst[2 * p + 1] = t.pair_b[p]
    t.ensure_work()
    reset_hulls(t, keep, old)
    free(keep)
    return 0
