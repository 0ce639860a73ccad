"""The tree protocol every tree kind stands on (`_core/_tree.pxd`)."""

from __future__ import annotations

import pickle
import random
import sys

import numpy as np
import pytest

import river_forests
from river_forests._core._mondrian import MondrianTree
from river_forests._core._purely_random import PurelyRandomTree

from .conftest import ESTIMATORS

KINDS = [MondrianTree, PurelyRandomTree]


def _learn(model, n=600, seed=0):
    rng = random.Random(seed)
    for _ in range(n):
        x = {"a": rng.random(), "b": rng.gauss(0, 3)}
        model.learn_one(x, int(x["a"] > 0.5))
    return model


@pytest.mark.parametrize("kind", KINDS)
def test_parameters_reach_a_tree_by_name(kind):
    tree = kind(task=0, max_nodes=7, smoothing=0.25, seed=3)
    state = tree.get_state()
    assert (state["max_nodes"], state["smoothing"], state["task"]) == (7, 0.25, 0)
    with pytest.raises(TypeError, match="no parameter 'bogus'"):
        kind(task=0, max_nodes=7, seed=3, bogus=1)
    with pytest.raises(TypeError):
        kind(0, 7)  # never positionally


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_the_state_names_its_version_kind_and_router(cls):
    model = _learn(cls(n_estimators=2, seed=1))
    state = model.trees[0].get_state()
    assert state["version"] == 2 and state["split"] == "axis"
    assert state["kind"] == type(model.trees[0]).__name__
    # the base's bookkeeping, the same for every kind
    assert state["n_seen"] == 600 and state["n_offered"] == 600
    assert state["n_features"] == 2 and state["root"] >= 0


def test_a_state_loads_only_into_its_kind_and_version():
    state = _learn(river_forests.MondrianForestClassifier(n_estimators=1, seed=1)).trees[0].get_state()
    with pytest.raises(ValueError, match="cannot load into a PurelyRandomTree"):
        PurelyRandomTree.__new__(PurelyRandomTree).set_state(state)
    with pytest.raises(ValueError, match="newer"):
        MondrianTree.__new__(MondrianTree).set_state(dict(state, version=99))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_node_cap_is_refused_in_the_base(cls):
    """max_nodes is validated once, in the forest base, and no kind grows past it."""
    for bad in (0, -1, 2**31, 1.5, True):
        with pytest.raises(ValueError, match="max_nodes"):
            cls(max_nodes=bad)
    model = _learn(cls(n_estimators=3, max_nodes=9, seed=2), n=3000)
    assert all(t.node_count <= 9 for t in model.trees)
    assert any(t.node_count >= 7 for t in model.trees)
    one = _learn(cls(n_estimators=1, max_nodes=1, seed=2), n=500)
    assert one.trees[0].node_count == 1


@pytest.mark.parametrize("kind", KINDS)
def test_size_and_state_follow_the_declared_arrays(kind):
    """Every declared array is counted by __sizeof__, and a state round trip gives back the
    same state (every saved array and scalar)."""
    model = _learn(river_forests.MondrianForestClassifier(n_estimators=1, seed=4)) if kind is MondrianTree \
        else _learn(river_forests.PurelyRandomForestClassifier(n_estimators=1, split="scale_invariant", seed=4))
    tree = model.trees[0]
    assert sys.getsizeof(tree) > tree.node_count * 8 * 8
    back = pickle.loads(pickle.dumps(tree))
    a, b = tree.get_state(), back.get_state()
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)  # NaN equals NaN here
            assert a[key].dtype == b[key].dtype
        else:
            assert a[key] == b[key], key
