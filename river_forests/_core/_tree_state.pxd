# A tree's saved state, driven by its declaration table (`_tree.pxd`: every declared scalar,
# saved array and pool, by name). `Tree.get_state`, `set_state`, `check_state`,
# `remap_state` and `adopt_columns` call these; a kind adds only its own checks
# (`Tree.check_kind_state`) and, if its state holds columns or classes in another shape,
# its remap.

from libc.stdint cimport int32_t

from ._tree cimport Tree

# the state as plain data: version, kind, router, generator, scalars, arrays, pools
cdef dict tree_get_state(Tree tree)
# every declared scalar by name, at its value
cdef dict tree_scalars(Tree tree)
# restore a checked state (`borrow`: read the node arrays where they lie; `columns`: the
# width of the rows the tree will read, -1 for the state's own)
cdef int tree_set_state(Tree tree, dict state, bint borrow, Py_ssize_t columns) except -1
# forget the borrowed arrays (never freed here)
cdef int tree_unborrow(Tree tree) except -1
# raise RuntimeError unless the tree may change (it borrows no array of a mapped file)
cdef int writable(Tree tree) except -1
# raise ValueError unless `set_state` can load `state` safely; touches nothing
cdef int tree_check_state(Tree tree, dict state, Py_ssize_t columns) except -1
# renumber a state's columns and classes for another forest's registries (a merge)
cdef dict tree_remap_state(object cls, dict state, object columns, object classes)
# a merge's last step: offer the tree the registry's columns it never considered
cdef int tree_adopt_columns(Tree tree, const int32_t[::1] unseen, int32_t n_columns) except -1
