# The memory budget, compiled: the forest's bytes (`memory_budget`), shared out among its
# trees as the registries grow. A plain struct the forest holds (no object of its own, so
# it adds nothing to the bytes it shares out) and the functions that drive it: the shares
# (`budget_share`), a tree's and a background tree's caps, and the saved state.
#
# What a share is: the budget, less the forest's fixed part (its bytes outside the trees and
# the registries, measured by the Python layer), less what the registries take (names and
# labels, growing with the stream) and a batch forest's buffer, split into `slots` shares:
# one per tree; a background tree borrows `background_share` of its tree's share.

ctypedef struct Budget:
    long long total          # bytes the whole forest may take (0: no budget)
    long long fixed          # the forest's bytes outside the trees and the registries
    double slots             # shares the budget is split into: one per tree (a model of
                             # 0.2 with background trees: two)
    double background_share  # what a background tree borrows of its tree's share (1: a
                             # share of its own, as in 0.2); it gets the whole share when it
                             # takes the tree's place
    long long tree_bytes     # each tree's share now (`Tree.max_bytes`)
    Py_ssize_t names         # feature names counted in the last share
    long long name_bytes     # their bytes
    Py_ssize_t labels        # labels counted in the last share


cdef int budget_init(Budget* b, Py_ssize_t n_trees) noexcept
cdef bint budget_share(Budget* b, list names, Py_ssize_t n_labels, bint watching,
                       Py_ssize_t batch_size) except -1
cdef bint budget_stale(const Budget* b, Py_ssize_t n_names, Py_ssize_t n_labels) noexcept
cdef long long budget_background_bytes(const Budget* b) noexcept
cdef long long budget_tree_bytes(const Budget* b, bint has_background) noexcept
cdef dict budget_get_state(const Budget* b)
cdef int budget_set_state(Budget* b, dict state) except -1
