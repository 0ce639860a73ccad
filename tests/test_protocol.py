"""The tree protocol every tree kind stands on (`_core/_tree.pxd`)."""

from __future__ import annotations

import math
import pickle
import random
import sys

import numpy as np
import pytest

import river_forests
from river_forests._core._mondrian import MondrianTree
from river_forests._core._purely_random import PurelyRandomTree
from river_forests._core._stream_partition import StreamPartitionTree
from river_forests._core._xforest import XTree

from .conftest import ESTIMATORS, plain, route

KINDS = [MondrianTree, PurelyRandomTree, StreamPartitionTree, XTree]

#: a one-tree forest of each kind (stream partitioning with low alpha and beta, so its trees
#: split on short streams)
FORESTS = {
    "mondrian": lambda **kw: river_forests.MondrianForestClassifier(**kw),
    "purely_random": lambda **kw: river_forests.PurelyRandomForestClassifier(**kw),
    "scale_invariant": lambda **kw: river_forests.PurelyRandomForestClassifier(
        split="scale_invariant", **kw),
    # leaves that predict their path's statistics (naive Bayes leaves replace them)
    "stream_partition": lambda **kw: river_forests.StreamPartitionForestClassifier(
        **{"alpha": 2.0, "beta": 4.0, "leaf_prediction": "majority", "grace_period": 5.0,
           "tie_threshold": 0.5, **kw}),
    "xforest": lambda **kw: river_forests.XForestClassifier(**kw),
}
FOREST_OF = {MondrianTree: "mondrian", PurelyRandomTree: "scale_invariant",
             StreamPartitionTree: "stream_partition", XTree: "xforest"}


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


#: the tree kind and router of each estimator's trees: an estimator joining
#: `river_forests.__all__` says here which it uses
TREE_OF = {
    river_forests.MondrianForestClassifier: ("MondrianTree", "axis"),
    river_forests.MondrianForestRegressor: ("MondrianTree", "axis"),
    river_forests.PurelyRandomForestClassifier: ("PurelyRandomTree", "axis"),
    river_forests.PurelyRandomForestRegressor: ("PurelyRandomTree", "axis"),
    river_forests.StreamPartitionForestClassifier: ("StreamPartitionTree", "axis"),
    river_forests.StreamPartitionForestRegressor: ("StreamPartitionTree", "axis"),
    river_forests.XForestClassifier: ("XTree", "axis"),
    river_forests.XForestRegressor: ("XTree", "axis"),
    river_forests.BSPForestClassifier: ("BSPTree", "oblique"),
    river_forests.BSPForestRegressor: ("BSPTree", "oblique"),
}


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_the_state_names_its_version_kind_and_router(cls):
    """`plain`: every tree learns every row (no bootstrap or swap of XForest's), so the base's
    counts are the stream's; 600 rows are 6 whole batches of XForest's default 100."""
    assert cls in TREE_OF, f"{cls.__name__}: add its tree kind and router to TREE_OF"
    kind, router = TREE_OF[cls]
    model = _learn(plain(cls, n_estimators=2, seed=1))
    state = model.trees[0].get_state()
    assert state["version"] == 2 and state["split"] == router
    assert state["kind"] == type(model.trees[0]).__name__ == kind
    # the base's bookkeeping, the same for every kind
    assert state["n_seen"] == 600 and state["n_offered"] == 600
    assert state["n_features"] == 2 and state["root"] >= 0


def test_a_state_loads_only_into_its_kind_and_version():
    state = _learn(river_forests.MondrianForestClassifier(n_estimators=1, seed=1)).trees[0].get_state()
    with pytest.raises(ValueError, match="cannot load into a PurelyRandomTree"):
        PurelyRandomTree.__new__(PurelyRandomTree).set_state(state)
    with pytest.raises(ValueError, match="newer"):
        MondrianTree.__new__(MondrianTree).set_state(dict(state, version=99))
    with pytest.raises(ValueError, match="cannot load into a StreamPartitionTree"):
        StreamPartitionTree.__new__(StreamPartitionTree).set_state(state)
    ours = _learn(FORESTS["stream_partition"](n_estimators=1, seed=1)).trees[0].get_state()
    with pytest.raises(ValueError, match="cannot load into a MondrianTree"):
        MondrianTree.__new__(MondrianTree).set_state(ours)


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
    model = _learn(FORESTS[FOREST_OF[kind]](n_estimators=1, seed=4))
    tree = model.trees[0]
    assert type(tree) is kind
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


# ------------------------------------------------------------------------ THE STATISTICS RULE
# (`_tree.pxd`), the same for every kind, checked on one-tree forests through the state arrays

LABELS = ("no", "yes", "maybe")


def _rule_stream(n, seed):
    """Three features (c missing now and then), three string labels, the third arriving
    late."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        x = {"a": rng.random(), "b": rng.gauss(0, 3), "c": rng.random()}
        if rng.random() < 0.05:
            del x["c"]
        k = int(x["a"] + 0.1 * x["b"] + 0.2 * rng.random() > 0.6)
        if i > n // 3 and x["a"] > 0.8 and rng.random() < 0.5:
            k = 2
        out.append((x, LABELS[k]))
    return out


def _row(model, x):
    """`x` in the registry's column order, NaN for a missing feature."""
    return [float(x[name]) if name in x else math.nan for name in model._core.features.names]




def _blend_path(s, path, n_out):
    """`Tree.blend_path` in Python: the first node with data gives its estimate, each deeper
    node with data mixes its counts with its parent's estimate as a prior of strength
    `smoothing`."""
    a = s["smoothing"]
    known = min(s["n_values"], n_out)
    out = [1.0 / n_out] * n_out
    have = False
    for j in path:
        nj = s["weight"][j]
        if nj <= 0.0:
            continue
        v = s["value"][j]
        if not have:
            out = [v[c] / nj for c in range(known)] + [0.0] * (n_out - known)
            have = True
        else:
            inv = 1.0 / (nj + a)
            out = [(v[c] + a * out[c]) * inv for c in range(known)] + \
                [a * out[c] * inv for c in range(known, n_out)]
    return out


def _expected_proba(model, x):
    s = model.trees[0].get_state()
    labels = model._core.labels
    if not labels:
        return {}
    out = _blend_path(s, route(s, _row(model, x)), len(labels))
    return {labels[c]: p for c, p in enumerate(out)}


RULE_CASES = [(name, smoothing, subsampling) for name in FORESTS for smoothing in (0.0, 0.7)
              for subsampling in (None, "bernoulli")]


def _rule_model(name, smoothing, subsampling):
    extra = dict(subsampling="bernoulli", subsample_rate=0.7) if subsampling else {}
    if name == "mondrian":
        # the paper's growth (no recycling): its trees split on both sides of the data, so
        # the heavier child of a split is sometimes the right one, which the checks need
        extra.update(growth_scale=2.0, recycling=False, max_nodes=4095)
    return FORESTS[name](n_estimators=1, smoothing=smoothing, seed=31, **extra)


@pytest.mark.parametrize("name, smoothing, subsampling", RULE_CASES)
def test_a_parent_holds_its_childrens_statistics(name, smoothing, subsampling):
    """weight[parent] >= weight[left] + weight[right], and class by class, at every step."""
    model = _rule_model(name, smoothing, subsampling)
    checked = 0
    for i, (x, y) in enumerate(_rule_stream(1500, seed=32), 1):
        model.learn_one(x, y)
        if i % 50:
            continue
        s = model.trees[0].get_state()
        inner = np.flatnonzero(s["left"] >= 0)
        l, r = s["left"][inner], s["right"][inner]
        assert (s["weight"][inner] >= s["weight"][l] + s["weight"][r]).all()
        assert (s["value"][inner] >= s["value"][l] + s["value"][r]).all()
        # a node's weight is its class counts (classification)
        np.testing.assert_allclose(s["weight"], s["value"].sum(axis=1), rtol=0, atol=1e-9)
        checked += len(inner)
    assert model.trees[0].node_count >= 15 and checked > 100


@pytest.mark.parametrize("name, smoothing, subsampling", RULE_CASES)
def test_a_prediction_blends_its_path(name, smoothing, subsampling):
    """predict_proba_one is `blend_path` over the path the state arrays give (labels by
    class index), before the tree has data, while a label is new, and on a grown tree."""
    model = _rule_model(name, smoothing, subsampling)
    data = _rule_stream(1200, seed=33)
    queries = _rule_stream(40, seed=34)
    for i, (x, y) in enumerate(data):
        if i % 60 == 0 or i < 5:
            for q, _ in queries[:10] if i < 1000 else queries:
                got, want = model.predict_proba_one(q), _expected_proba(model, q)
                assert got.keys() == want.keys()
                assert got == pytest.approx(want, abs=1e-12)
        model.learn_one(x, y)
    assert model.trees[0].node_count >= 15
    assert len(model._core.labels) == 3


@pytest.mark.parametrize("name, smoothing, subsampling", RULE_CASES)
def test_a_missing_split_feature_goes_to_the_heavier_child(name, smoothing, subsampling):
    """A sample without a split's feature follows the child that has seen more weight; the
    model predicts the blend of that path."""
    model = _rule_model(name, smoothing, subsampling)
    for x, y in _rule_stream(1500, seed=35):
        model.learn_one(x, y)
    s = model.trees[0].get_state()
    names = model._core.features.names
    labels = model._core.labels
    heavier_right = differs = 0
    for q, _ in _rule_stream(200, seed=36):
        full = _row(model, q)
        path = route(s, full)
        # drop the feature of an interior node on q's path
        pick = path[len(path) // 2 - 1] if len(path) > 2 else path[0]
        if s["left"][pick] < 0:
            continue
        # the first node of the path that splits on that feature: the paths part there
        node = next(j for j in path if s["feature"][j] == s["feature"][pick] and s["left"][j] >= 0)
        name_ = names[s["feature"][node]]
        x = {k: v for k, v in q.items() if k != name_}
        missing = route(s, _row(model, x))
        assert missing[:path.index(node) + 1] == path[:path.index(node) + 1]
        l, r = s["left"][node], s["right"][node]
        nxt = missing[path.index(node) + 1]
        assert nxt == (l if s["weight"][l] >= s["weight"][r] else r)
        heavier_right += nxt == r
        want = _blend_path(s, missing, len(labels))
        got = model.predict_proba_one(x)
        assert [got[c] for c in labels] == pytest.approx(want, abs=1e-12)
        # the lighter child's side would predict otherwise (the check can tell them apart)
        lighter = l if nxt == r else r
        other = _blend_path(s, path[:path.index(node) + 1] + route(s, full, start=lighter),
                            len(labels))
        differs += max(abs(a - b) for a, b in zip(other, want)) > 1e-9
    assert heavier_right > 5 and differs > 20, (heavier_right, differs)

