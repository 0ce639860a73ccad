"""The forest core's parts other than the drift watch (`test_watch.py`): the interval
calibrator (`_core/_conformal.pxd`), the memory budget (`_core/_budget.pxd`) and the batcher
(`_core/_batcher.pxd`) each check their own saved state; the grove (`_core/_grove.pxd`)
puts trees in their places with their seeds and shares; the label registry
(`_core/_labels.pxd`) checks a batch's targets before it registers one; the forest's own state goes through public methods (`forest_state`,
`set_forest_state`), checked before anything changes; and a forest's after-batch step holds
the forest through a `BatchStep` during that step only."""

from __future__ import annotations

import copy
import itertools
import pickle
import sys

import numpy as np
import pandas as pd
import pytest
from river.datasets import synth

from river_forests import (MondrianForestClassifier, MondrianForestRegressor, ModelFileError,
                           XForestClassifier, from_state, to_state)
from river_forests._core._batcher import Batcher
from river_forests._core._budget import check_state as check_budget_state
from river_forests._core._conformal import check_state as check_calibrator_state


def _regressor():
    model = MondrianForestRegressor(n_estimators=2, seed=4, memory_budget="1MB")
    for x, y in itertools.islice(synth.Friedman(seed=6), 200):
        model.learn_one(x, y)
    assert model.interval_coverage is not None
    return model


def _same(a, b):
    return pickle.dumps(to_state(a)) == pickle.dumps(to_state(b))


def _damaged_calibrator(intervals, damage):
    damaged = {"alpha": 1.5, "window": 0, "scores": np.zeros(intervals["window"] + 1),
               "h": intervals["h"][:-1], "n_misses": -1, "b": float("nan")}
    return dict(intervals, **{damage: damaged[damage]})


CALIBRATOR_DAMAGES = ["alpha", "window", "scores", "h", "n_misses", "b"]
BUDGET_DAMAGES = {"too short": {"budget": (1, 2)}, "no slot": {"budget": (10**6, 0, 0.0, 0)},
                  "bytes not an int": {"budget": (1.5, 0, 1, 0)},
                  "share above 1": {"background_share": 1.5}}


@pytest.mark.parametrize("damage", CALIBRATOR_DAMAGES)
def test_the_calibrator_checks_its_own_state(damage):
    state = _regressor()._core.interval_state
    check_calibrator_state(state)
    with pytest.raises(ValueError, match="interval calibrator"):
        check_calibrator_state(_damaged_calibrator(state, damage))


@pytest.mark.parametrize("damage", CALIBRATOR_DAMAGES)
def test_a_saved_model_with_a_damaged_calibrator_is_a_model_file_error(damage):
    state = to_state(_regressor())
    forest = state["core"]["forest"]
    forest["intervals"] = _damaged_calibrator(forest["intervals"], damage)
    with pytest.raises(ModelFileError, match="interval calibrator"):
        from_state(state)


@pytest.mark.parametrize("damage", list(BUDGET_DAMAGES))
def test_the_budget_checks_its_own_state(damage):
    model = _regressor()
    state = to_state(model)["core"]["forest"]
    check_budget_state(state)
    with pytest.raises(ValueError, match="budget|share"):
        check_budget_state(dict(state, **BUDGET_DAMAGES[damage]))
    saved = to_state(model)
    saved["core"]["forest"].update(BUDGET_DAMAGES[damage])
    with pytest.raises(ModelFileError):
        from_state(saved)


#: damages of the forest's own keys of its state
FOREST_DAMAGES = {"rng": {"rng": (0, 0, 0, 0)}, "n_replaced": {"n_replaced": -2},
                  "pending rows": {"pending_rows": [1.0]}}


@pytest.mark.parametrize("damage", CALIBRATOR_DAMAGES + list(BUDGET_DAMAGES) + list(FOREST_DAMAGES))
def test_a_damaged_forest_state_raises_and_leaves_the_forest_as_it_was(damage):
    model = _regressor()
    state = copy.deepcopy(model._core.forest_state())
    if damage in CALIBRATOR_DAMAGES:
        state["intervals"] = _damaged_calibrator(state["intervals"], damage)
    else:
        state.update({**BUDGET_DAMAGES, **FOREST_DAMAGES}[damage])
    twin = copy.deepcopy(model)
    with pytest.raises(ValueError):
        twin._core.set_forest_state(state)
    assert _same(twin, model)


def test_the_forest_state_round_trips_through_its_public_methods():
    model = _regressor()
    state = model._core.forest_state()
    twin = copy.deepcopy(model)
    twin._core.set_forest_state(copy.deepcopy(state))
    assert pickle.dumps(twin._core.forest_state()) == pickle.dumps(state)


def test_a_batch_step_holds_the_forest_during_its_step_only():
    kept = []

    class Spy(XForestClassifier):
        def _after_batch(self, step, rows, targets):
            kept.append((step, len(step.trees), step.n_batches, step.n_replaced))
            super()._after_batch(step, rows, targets)

    model = Spy(n_estimators=3, seed=1, batch_size=20)
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((60, 3)), columns=list("abc"))
    model.learn_many(X, pd.Series(X["a"] > 0.5))
    assert [k[1:] for k in kept] == [(3, 1, 0)]
    for call in (lambda s: s.uniform(), lambda s: s.trees,
                 lambda s: s.replace_tree(0, model._tree_factory)):
        with pytest.raises(RuntimeError, match="over"):
            call(kept[0][0])


def _buffering():
    """An XForest with rows buffered (not learned yet): the batcher's keys in its state."""
    model = XForestClassifier(n_estimators=2, seed=3, batch_size=50)
    for x, y in itertools.islice(synth.Agrawal(seed=1), 70):
        model.learn_one(x, y)
    assert model._core.n_pending == 20 and model._core.n_batches == 1
    return model


#: damages of the batcher's keys
BATCHER_DAMAGES = {"count": ({"n_batches": -1}, "n_batches"),
                   "size": ({"batch_size": 1.5}, "batch_size"),
                   "more rows than a batch": ({"batch_size": 10}, "batch size"),
                   "rows and targets": ({"pending_targets": []}, "batch size"),
                   "row too wide": (lambda f: {"pending_rows": [np.zeros(99)] * 20}, "width"),
                   "row not float": (lambda f: {"pending_rows": [r.astype(np.float32)
                                                                 for r in f["pending_rows"]]}, "width"),
                   "narrow rows": (lambda f: {"pending_rows": [r[:1] for r in f["pending_rows"]]},
                                   "narrower"),
                   "unknown class": (lambda f: {"pending_targets": [7.0] * 20}, "class"),
                   "not a number": (lambda f: {"pending_targets": [float("nan")] * 20}, "class")}


@pytest.mark.parametrize("damage", list(BATCHER_DAMAGES))
def test_the_batcher_checks_its_own_state(damage):
    model = _buffering()
    forest = model._core.forest_state()
    n_names, labels = len(model._core.features.names), len(model._core.labels)
    Batcher.check_state(forest, n_names, 9, True, labels)
    change, message = BATCHER_DAMAGES[damage]
    damaged = dict(forest, **(change(forest) if callable(change) else change))
    with pytest.raises(ValueError, match=message):
        Batcher.check_state(damaged, n_names, 9, True, labels)
    saved = to_state(model)
    saved["core"]["forest"] = damaged
    with pytest.raises(ModelFileError):
        from_state(saved)


def test_buffered_rows_are_saved_and_learned_as_they_would_have_been():
    model = _buffering()
    twin = from_state(to_state(model))
    assert twin._core.n_pending == 20 and twin._core.n_batches == 1
    rest = list(itertools.islice(synth.Agrawal(seed=2), 40))
    for x, y in rest:
        model.learn_one(x, y)
        twin.learn_one(x, y)
    assert model._core.n_batches == twin._core.n_batches == 2
    assert _same(model, twin)


def test_the_label_registry_checks_a_whole_batch_before_it_registers_a_label():
    model = MondrianForestClassifier(n_estimators=2, seed=0)
    X = pd.DataFrame({"a": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match="missing"):
        model.learn_many(X, pd.Series(["x", "y", None]))
    assert model._core.labels == [] and model._core.features.names == []
    model.learn_many(X, pd.Series(["y", "x", "y"]))
    assert model._core.labels == ["y", "x"]
    assert model._core.targets.labels is model._core.labels
    assert model._core.targets.index == {"y": 0, "x": 1}


@pytest.mark.skipif(sys.maxsize < 2**63 - 1, reason="the layout pinned is 64-bit CPython's")
def test_the_core_and_its_parts_count_as_the_core_did():
    """The label registry, the batcher, the grove and the calibrator, objects of their own
    now, count in river's measure of a model as the fields of the core they were: the core and
    these parts weigh what the core object weighed before them (416 bytes), so a budget's
    `fixed` part, measured then and saved with a model, means the same bytes (and a new
    model's is the same)."""
    core = MondrianForestClassifier(n_estimators=2, seed=0)._core
    scratch = 2 * 8 * 8  # two scratch rows of 8 doubles, nothing cached yet
    parts = sys.getsizeof(core.targets) + sys.getsizeof(core.batcher) + sys.getsizeof(core.grove)
    parts += sys.getsizeof(core.calibrator)
    assert core.__sizeof__() + parts == 416 + scratch
    assert type(core).__basicsize__ < 416


def test_the_grove_seeds_a_replacement_from_the_master_seed_and_gives_it_its_share():
    model = MondrianForestClassifier(n_estimators=3, seed=5, memory_budget="2MB",
                                     drift_detector=None)
    for x, y in itertools.islice(synth.Agrawal(seed=0), 50):
        model.learn_one(x, y)
    core, grove = model._core, model._core.grove
    assert core.trees is grove.trees and core.watch is grove.watch
    assert core.master_seed == grove.master_seed and core.n_replaced == grove.n_replaced == 0
    seeds = []
    new = core.replace_tree(1, lambda seed: seeds.append(seed) or model._tree_factory(seed))
    assert core.trees[1] is new and core.n_replaced == 1
    from river_forests._core._random import tree_seed
    assert seeds == [tree_seed(core.master_seed, 3)]
    assert new.max_bytes_ + object.__sizeof__(new) == core.tree_bytes
    with pytest.raises(IndexError):
        core.replace_tree(3, model._tree_factory)


def test_each_tree_kind_keeps_its_object_size():
    """A tree's object (its declaration table, its scalars) counts in its share of the
    forest's memory budget, so a field added to it changes what a forest whose budget is
    full learns, however little it is (a range added to each of the table's 40 scalar
    entries, 640 bytes, changed the purely random forest's predictions on elec's 45,312
    rows: a scalar's range is its kind's, kept outside the object). A change of these sizes
    must be deliberate, and said in the changelog."""
    from river_forests._core._tree import TREE_KINDS

    sizes = {name: cls().__sizeof__() for name, cls in sorted(TREE_KINDS.items())}
    # linear leaves in every box kind (issue 47): 40 bytes more in a BSP and a purely random
    # tree (the models' fields, which the Mondrian tree held already); then in the
    # stream-partitioning and XForest trees, 80 bytes more in each (`LinearTree`'s models,
    # input and rate, 72, the input's range, 16; less 8 of padding that moving an int field
    # beside another freed, the new int fields in padding); issue 48: 24 bytes more in a BSP
    # tree (its support rule and axis rate, two doubles; the caps the budget lowers, two ints)
    assert sizes == {"BSPTree": 4260, "MondrianTree": 3848, "PurelyRandomTree": 3744,
                     "StreamPartitionTree": 3744, "XTree": 3660}
