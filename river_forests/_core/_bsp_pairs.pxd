# The BSP tree's pairs of slots, the planes it cuts in: a uniform sample of at most
# `max_pairs` of them (a reservoir, offered the pairs of each slot as it arrives), saved as
# block 0 of the `pairs` pool and copied into `pair_a`/`pair_b` for the walk.

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree

# copy the `pairs` block into the slot arrays the walk reads
cdef int load_pairs(BSPTree t) except -1 nogil
# offer the pairs of the slots new since the last call to the sample; the hulls follow
cdef int sync_pairs(BSPTree t) except -1 nogil
