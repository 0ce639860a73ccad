# The declaration table: a tree kind declares each of its fields once, from its
# `__cinit__`; that one row drives the field's allocation, growth, fill, bytes (the budget),
# saved form and checks (`_tree_state`) through these functions, for every tree kind.

from libc.stdint cimport int32_t

from ._pool cimport Pool
from ._tree cimport Tree

# one array field: its cells (CELL_*), rows (ROWS_*), width field (`stride`, NULL: 1), the
# cells of a row saved (`cols`, NULL: all), whether it is saved, the value of a new cell
cdef int declare_array(Tree tree, void** ptr, const char* name, int cell, int rows,
                       int32_t* stride, int32_t* cols, bint saved, double fill) except -1
# one scalar field (SCALAR_*): saved under `name`, a construction parameter if `param`, its
# saved value checked to lie in [lo, hi] (both inclusive; by default any value of its type)
cdef int declare_scalar(Tree tree, void* ptr, const char* name, int kind, bint param,
                        double lo=*, double hi=*) except -1
# the range [lo, hi] the tree's kind declared for its scalar `k`
cdef tuple scalar_range(Tree tree, int k)
# one pool field (`_pool.pxd`): blocks of rows of `stride` cells, `cols` of them saved
cdef int declare_pool(Tree tree, Pool* pool, const char* name, int32_t* stride,
                      int32_t* cols) except -1

# free every array the tree allocated (never a borrowed one) and release its pools
cdef int table_release(Tree tree) noexcept
# set the declared scalar `name` (a construction parameter only, if `param_only`)
cdef int set_scalar(Tree tree, str name, object v, bint param_only) except -1
# `capacity` rows in every node array
cdef int resize_nodes(Tree tree, int32_t capacity) except -1 nogil
# `capacity` feature slots: per-slot arrays grow, rows of one cell a slot are restrided
# (the base of `Tree._resize_features`, which a kind extends)
cdef int resize_slots(Tree tree, int32_t capacity) except -1 nogil
# `new_stride` cells a row for every node array and pool whose row width is the field `stride`
cdef int restride_rows(Tree tree, int32_t* stride, int32_t new_stride) except -1 nogil
# the bytes one more allocated node row costs at the tree's widths now
cdef size_t row_bytes(Tree tree) noexcept nogil
# the bytes of the tree's storage: every declared array as allocated and every pool
cdef size_t nbytes(Tree tree) noexcept nogil
