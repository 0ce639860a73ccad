"""The memory budget (see `_budget.pxd`): the shares, the caps and the saved state."""

import sys

from ._checks cimport is_int


cdef int budget_init(Budget* b, Py_ssize_t n_trees) noexcept:
    """No budget, one slot a tree, a background tree borrowing a whole share."""
    b.total = 0
    b.fixed = 0
    b.slots = max(1, n_trees)
    b.background_share = 1.0
    b.tree_bytes = 0
    b.names = 0
    b.name_bytes = 0
    b.labels = 0
    return 0


cdef bint budget_share(Budget* b, list names, Py_ssize_t n_labels, bint watching,
                       Py_ssize_t batch_size) except -1:
    """Share the budget out again for registries of `names` and `n_labels` labels (with the
    detectors `watching`, and a buffer of `batch_size` rows): True if there is a budget (the
    forest then gives its trees their caps), False without one."""
    cdef Py_ssize_t k, n = len(names)
    cdef long long share
    if b.total <= 0:
        return False
    if n < b.names:  # a registry rebuilt (a load): count its names again
        b.names = 0
        b.name_bytes = 0
    for k in range(b.names, n):
        b.name_bytes += sys.getsizeof(names[k])
    b.names = n
    b.labels = n_labels
    # a function of the registries' contents alone (not of their containers' spare
    # room), so a loaded forest shares its budget out exactly as the one it copies
    # (a batch forest's buffer holds up to `batch_size` rows as wide as the registry: an
    # array each, which river's measure counts as its object, its data, and its data
    # again (`getsizeof` of an array that owns its data includes it, and river adds
    # `nbytes`), a float target, and their lists' slots)
    share = <long long>((b.total - b.fixed - b.name_bytes
                         - (56 if watching else 48) * n - 160 * b.labels
                         - batch_size * (16 * n + 160)) / b.slots)
    if share < 1:
        share = 1
    b.tree_bytes = share
    return True


cdef bint budget_stale(const Budget* b, Py_ssize_t n_names, Py_ssize_t n_labels) noexcept:
    """Whether the registries grew since the last share (with a budget)."""
    return b.total > 0 and (n_names != b.names or n_labels != b.labels)


cdef long long budget_background_bytes(const Budget* b) noexcept:
    """A background tree's bytes: `background_share` of a tree's (at least 1)."""
    return max(1, <long long>(b.tree_bytes * b.background_share))


cdef long long budget_tree_bytes(const Budget* b, bint has_background) noexcept:
    """A tree's bytes: its share, less what its background tree borrows (a background share
    below 1; a model of 0.2 gave background trees shares of their own)."""
    if b.background_share < 1.0 and has_background:
        return max(1, b.tree_bytes - budget_background_bytes(b))
    return b.tree_bytes


cdef dict budget_get_state(const Budget* b):
    """The budget's keys of the forest's state."""
    return {"budget": (b.total, b.fixed, b.slots, b.tree_bytes),
            "background_share": b.background_share}


def check_state(dict state):
    """Raise ValueError unless `state` holds the budget's keys of a forest's state: the
    budget (bytes, fixed bytes, slots >= 1, ...) and the background share in [0, 1]."""
    budget = state.get("budget")
    if not (isinstance(budget, (tuple, list)) and len(budget) >= 3
            and all(is_int(v, -2**63) for v in budget[:2])
            and isinstance(budget[2], (int, float)) and 1 <= budget[2] <= 2**31):
        raise ValueError("the forest's budget must be (bytes, fixed bytes, slots >= 1, ...)")
    share = state.get("background_share")
    if not isinstance(share, (int, float)) or not 0.0 <= share <= 1.0:
        raise ValueError("the forest's background share must lie in [0, 1]")


cdef int budget_set_state(Budget* b, dict state) except -1:
    """Restore the budget's keys, checked first (`check_state`); the forest shares it out
    next (`budget_share`)."""
    check_state(state)
    b.total, b.fixed, b.slots = state["budget"][:3]
    b.background_share = state["background_share"]
    return 0
