"""The forest's saved state (see `_forest_state.pxd`): the core's snapshot and the forest's
own state assembled from the parts' own keys, restored into the parts, and checked."""

from ._checks cimport is_int
from ._tree cimport Tree
from ._watch cimport DriftWatch

from ._budget import check_state as check_budget_state
from ._conformal import check_state as check_calibrator_state

#: the keys of a forest's state (`forest_state`), each a part's (the grove's, the batcher's,
#: the calibrator's), in the order saved files hold them (their bytes are pinned)
FOREST_KEYS = ("master_seed", "n_replaced", "n_batches", "batch_size", "rng", "pending_rows",
               "pending_targets", "background", "n_background", "watch", "budget",
               "background_share", "intervals")


cdef dict forest_snapshot(Grove grove, FeatureRegistry features, LabelRegistry targets,
                          bint classifier, bint vote, Batcher batcher, Calibrator calibrator):
    """The core's whole state as plain data: the trees' states (`Tree.get_state`, which name
    their kind, copied now), the task and the aggregation, the registries, and the forest's
    own state (`forest_state`)."""
    return {"trees": [(<Tree>t).get_state() for t in grove.trees],
            "classifier": bool(classifier), "vote": bool(vote),
            "names": list(features.names), "max_width": features.max_width,
            "full_warned": bool(features.full_warned), "labels": list(targets.labels),
            "forest": forest_state(grove, batcher, calibrator)}


cdef dict forest_state(Grove grove, Batcher batcher, Calibrator calibrator):
    """The forest's own state: the parts' own keys (`Grove.state`, `Batcher.state`, the
    calibrator's ``"intervals"``) in their saved order (`FOREST_KEYS`; a key it does not list
    comes last)."""
    cdef dict parts = {**grove.state(), **batcher.state(), "intervals": calibrator.state()}
    cdef dict state = {key: parts.pop(key) for key in FOREST_KEYS}
    state.update(parts)
    return state


cdef Calibrator restore_forest(dict state, bint borrow, Grove grove, Batcher batcher,
                               Calibrator calibrator, bint classifier, Py_ssize_t columns):
    """Restore `forest_state`'s dict (checked) into the parts (`borrow`, `columns`: for the
    background trees, as `tree_from_state`): the calibrator and the watch are built first, so
    that a state that fails leaves the forest as it was. The forest's calibrator is returned:
    the state's, or `calibrator` when the state has none (None)."""
    if state["intervals"] is not None:
        if classifier:
            raise ValueError("only a regressor has an interval calibrator")
        calibrator = Calibrator(state["intervals"])
    grove.set_state(state, borrow, columns)
    batcher.set_state(state)
    return calibrator


cdef int check_forest_state_of(dict state, Grove grove, bint classifier, Py_ssize_t n_names,
                               Py_ssize_t n_labels) except -1:
    """`check_forest_state` for the grove's trees as they are (their task, columns and
    classes)."""
    check_forest_state(state, [{"task": (<Tree>t).task, "n_columns": (<Tree>t).n_columns,
                                "n_values": (<Tree>t).n_values} for t in grove.trees],
                       classifier, n_names, n_labels)
    return 0


_I64 = 2**63


def check_snapshot(dict snap):
    """Raise ValueError unless `snap` has the shape of `forest_snapshot`'s dict: what the
    forest's compiled loops index (the trees' columns and classes within the registries, a
    buffered row within the registry, per-tree lists as long as the trees) is in range."""
    trees = snap.get("trees")
    if not isinstance(trees, list) or not trees or not all(isinstance(t, dict) for t in trees):
        raise ValueError("a forest's state needs a list of tree states")
    names, labels = snap.get("names"), snap.get("labels")
    if not isinstance(names, list) or not isinstance(labels, list):
        raise ValueError("a forest's feature names and labels must be lists")
    if not is_int(snap.get("max_width"), 1, 2**31) or len(names) > snap["max_width"]:
        raise ValueError("the feature registry holds more names than its max_width")
    try:
        if len(set(names)) != len(names) or len(set(labels)) != len(labels):
            raise ValueError("a forest's feature names and labels must be distinct")
    except TypeError:
        raise ValueError("a feature name or label is not hashable") from None
    classifier = snap.get("classifier")
    if not isinstance(classifier, bool) or not isinstance(snap.get("vote"), bool) \
            or not isinstance(snap.get("full_warned"), bool):
        raise ValueError("a forest's 'classifier', 'vote' and 'full_warned' are bools")
    forest = snap.get("forest")
    if not isinstance(forest, dict):
        raise ValueError("a forest's state needs its own state ('forest')")
    check_forest_state(forest, trees, classifier, len(names), len(labels))


def check_forest_state(dict forest, list trees, bint classifier, Py_ssize_t n_names,
                       Py_ssize_t n_labels):
    """Raise ValueError unless `forest` has the shape of `forest_state`'s dict for
    a forest of the trees `trees` (their states, or dicts of their "task", "n_columns" and
    "n_values") whose registries hold `n_names` features and `n_labels` labels. Each part
    checks its own keys (`DriftWatch.check_state`, `Batcher.check_state`, the interval
    calibrator's and the budget's
    `check_state`); every tree's task, columns and classes must be the forest's."""

    def check_tree(dict t):
        if t.get("task") != (0 if classifier else 1):
            raise ValueError("a tree's task is not the forest's")
        if not is_int(t.get("n_columns", 0), 0, n_names + 1):
            raise ValueError("a tree considered more columns than the registry holds")
        if classifier and not is_int(t.get("n_values", 0), 0, n_labels + 1):
            raise ValueError("a tree counts more classes than the forest knows")

    DriftWatch.check_state(forest, len(trees), check_tree)
    for t in trees:
        check_tree(t)
    if not is_int(forest.get("n_replaced")):
        raise ValueError("the forest's 'n_replaced' must be an integer >= 0")
    if forest.get("master_seed") is not None and not is_int(forest["master_seed"], -_I64, 2**64):
        raise ValueError("the forest's master seed must be an integer")
    rng = forest.get("rng")
    if not (isinstance(rng, (tuple, list)) and len(rng) == 4 and all(is_int(v, 0, 2**64) for v in rng)
            and any(rng)):
        raise ValueError("the forest's generator state must be four 64-bit words, not all 0")
    Batcher.check_state(forest, n_names, max([t.get("n_columns", 0) for t in trees] + [0]),
                        classifier, n_labels)
    check_budget_state(forest)
    intervals = forest.get("intervals")
    if intervals is not None:
        if classifier or not isinstance(intervals, dict):
            raise ValueError("only a regressor has an interval calibrator")
        check_calibrator_state(intervals)
