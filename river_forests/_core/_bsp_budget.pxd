# The BSP tree under its byte budget: the nodes' rows, the hulls (a pool outside the rows) and
# the kept points (two pools) share the tree's bytes (`Tree.max_bytes`). A tree short of room
# for new nodes first halves the points its leaves keep or the vertices its hulls keep
# (`make_room`); when neither can give more, it drops its hulls and kept points for good
# (`grow_out`).

from libc.stdint cimport int32_t

from ._bsp cimport BSPTree

# the base's rule (`Tree.can_add`), and room under the byte budget for k nodes' hulls too
cdef bint nodes_fit(BSPTree t, int32_t k) noexcept nogil
# whether blocks of these cells fit in the byte budget, the pools' repacking included
cdef bint points_fit(BSPTree t, size_t point_cells, size_t target_cells) noexcept nogil
# halve the kept points' or the hulls' cap until two new nodes fit; False if neither can
cdef bint make_room(BSPTree t) except -1 nogil
# drop every kept point and hull: the tree never cuts again, its statistics go on learning
cdef int grow_out(BSPTree t) except -1 nogil
