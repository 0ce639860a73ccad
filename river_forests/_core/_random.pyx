"""Seeding helpers shared by every forest (the generator itself is inline in _random.pxd)."""

from libc.stdint cimport uint64_t

from ._random cimport splitmix64


def tree_seed(seed, Py_ssize_t index):
    """The 64-bit seed of tree `index` in a forest seeded with `seed` (an int)."""
    cdef uint64_t state = (<uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)) ^ (<uint64_t>index * 0xD1B54A32D192ED03ULL)
    splitmix64(&state)
    return splitmix64(&state)
