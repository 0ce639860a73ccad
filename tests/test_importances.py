"""Feature importances (`feature_importances`) and the look inside the trees (`debug_one`,
`draw`, `to_text`), for every estimator."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from river import drift

import river_forests
from river_forests import merge

from .conftest import ESTIMATORS, batch_native, chunk_size, flushed, is_classifier, name_of

FEATURES = [f"x{i}" for i in range(5)]


def stream(n, seed=0, informative=("x0",)):
    """Five uniform features; the target depends on `informative` only: a threshold on
    their sum (classification), or the sum times 3 with a little noise (regression)."""
    rng = random.Random(seed)
    for _ in range(n):
        x = {f: rng.random() for f in FEATURES}
        s = sum(x[f] for f in informative) / len(informative)
        yield x, s > 0.5, 3.0 * s + 0.1 * rng.gauss(0.0, 1.0)


def learned(cls, n=2000, seed=0, informative=("x0",), **params):
    model = cls(**{"n_estimators": 5, "seed": 1, **params})
    for x, yc, yr in stream(n, seed, informative):
        model.learn_one(x, yc if is_classifier(cls) else yr)
    return flushed(model)


@pytest.fixture(scope="module", params=ESTIMATORS, ids=name_of)
def fitted(request):
    return learned(request.param)


def test_importances_sum_to_one_and_name_every_feature(fitted):
    imp = fitted.feature_importances
    assert sorted(imp) == FEATURES
    assert all(v >= 0.0 for v in imp.values())
    assert sum(imp.values()) == pytest.approx(1.0, abs=1e-12)


def test_the_informative_feature_is_on_top(fitted):
    imp = fitted.feature_importances
    assert max(imp, key=imp.get) == "x0", imp
    assert imp["x0"] > 0.5, imp


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_two_informative_features_rank_above_the_three_others(cls):
    imp = learned(cls, n=3000, seed=2, informative=("x1", "x3")).feature_importances
    assert min(imp["x1"], imp["x3"]) > max(imp["x0"], imp["x2"], imp["x4"]), imp


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_before_any_split_the_shares_are_equal_and_empty_before_any_feature(cls):
    model = cls(n_estimators=2, seed=0)
    assert model.feature_importances == {}
    x, yc, yr = next(stream(1))
    model.learn_one(x, yc if is_classifier(cls) else yr)
    flushed(model)
    assert model.feature_importances == {f: 0.2 for f in FEATURES}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_pickling_saving_and_copying_keep_them(cls, tmp_path):
    model = learned(cls, n=600)
    imp = model.feature_importances
    assert pickle.loads(pickle.dumps(model)).feature_importances == imp
    river_forests.save(model, tmp_path / "m.rf")
    assert river_forests.load(tmp_path / "m.rf").feature_importances == imp
    assert river_forests.load(tmp_path / "m.rf", mmap=True).feature_importances == imp
    assert model.clone(include_attributes=True).feature_importances == imp


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_merge_sums_the_parts_credits(cls):
    a = learned(cls, n=600, seed=0)
    b = learned(cls, n=600, seed=1)
    merged = merge([a, b])
    raw = {n: 0.0 for n in FEATURES}
    for part in (a, b):
        for name, v in zip(part._core.features.names, part._core.importances()):
            raw[name] += v
    got = dict(zip(merged._core.features.names, merged._core.importances()))
    assert got == pytest.approx(raw, rel=1e-6, abs=1e-9)
    kept = {n: max(v, 0.0) for n, v in raw.items()}
    total = sum(kept.values())
    assert merged.feature_importances == pytest.approx({n: v / total for n, v in kept.items()})


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_learn_one_equals_learn_many(cls):
    import pandas as pd

    rows = list(stream(900, seed=3))
    one = cls(n_estimators=3, seed=4)
    many = cls(n_estimators=3, seed=4)
    for x, yc, yr in rows:
        one.learn_one(x, yc if is_classifier(cls) else yr)
    flushed(one)
    size = chunk_size(many, 128)
    for i in range(0, len(rows), size):
        part = rows[i:i + size]
        X = pd.DataFrame([x for x, _, _ in part])
        y = pd.Series([yc if is_classifier(cls) else yr for _, yc, yr in part])
        many.learn_many(X, y)
    assert np.array_equal(one._core.importances(), many._core.importances())
    assert one.feature_importances == many.feature_importances


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if not batch_native(c)], ids=name_of)
def test_a_prediction_before_the_learn_changes_nothing(cls):
    """The credit takes the walk a prediction left (test-then-train) or walks itself: the
    same credits either way, and the same with `debug_one` in between."""
    plain, tested, debugged = (cls(n_estimators=3, seed=5) for _ in range(3))
    for x, yc, yr in stream(700, seed=6):
        y = yc if is_classifier(cls) else yr
        plain.learn_one(x, y)
        tested.predict_one(x)
        tested.learn_one(x, y)
        debugged.predict_one(x)
        debugged.debug_one(x, trees=[0])
        debugged.learn_one(x, y)
    assert np.array_equal(plain._core.importances(), tested._core.importances())
    assert np.array_equal(plain._core.importances(), debugged._core.importances())


def test_importance_halflife_is_checked_and_none_turns_them_off():
    cls = river_forests.PurelyRandomForestClassifier
    for bad in (0, 0.5, -3, float("inf"), "long", True):
        with pytest.raises(ValueError, match="importance_halflife"):
            cls(importance_halflife=bad)
    model = learned(cls, n=300, importance_halflife=None)
    assert not model._core.importances().any()
    with pytest.raises(ValueError, match="importance_halflife=None"):
        model.feature_importances


def test_old_credits_fade_with_the_halflife():
    """A short memory follows a switch of the informative feature; without detectors, a long
    one still ranks the old feature first."""
    cls = river_forests.PurelyRandomForestClassifier
    for halflife, first in ((300, "x2"), (10**9, "x0")):
        model = cls(n_estimators=5, seed=1, importance_halflife=halflife, drift_detector=None)
        for x, y, _ in stream(3000, seed=0, informative=("x0",)):
            model.learn_one(x, y)
        for x, y, _ in stream(3000, seed=1, informative=("x2",)):
            model.learn_one(x, y)
        imp = model.feature_importances
        assert max(imp, key=imp.get) == first, (halflife, imp)


def test_with_detectors_the_new_feature_takes_the_top_after_a_switch():
    cls = river_forests.MondrianForestClassifier
    model = cls(n_estimators=5, seed=1, drift_detector=drift.ADWIN(delta=0.001))
    for x, y, _ in stream(3000, seed=0, informative=("x0",)):
        model.learn_one(x, y)
    assert max(model.feature_importances, key=model.feature_importances.get) == "x0"
    for x, y, _ in stream(3000, seed=1, informative=("x2",)):
        model.learn_one(x, y)
    imp = model.feature_importances
    assert sum(model.swaps_per_tree) > 0
    assert max(imp, key=imp.get) == "x2", imp


def test_a_state_with_an_infinite_credit_or_a_bad_decay_is_refused():
    model = learned(river_forests.MondrianForestClassifier, n=300)
    tree = model._core.trees[0]
    state = tree.get_state()
    bad = dict(state, gain=np.full_like(state["gain"], np.inf))
    with pytest.raises(ValueError, match="infinite"):
        tree.check_state(bad)
    for key, value in (("gain_growth", 3.0), ("gain_growth", 0.5), ("gain_unit", 0.0)):
        with pytest.raises(ValueError, match=f"importance decay|{key}' must lie in"):
            tree.check_state(dict(state, **{key: value}))


# ------------------------------------------------------------------ a look inside


def test_debug_one_walks_every_tree_and_changes_nothing(fitted):
    x = {"x0": 0.9, "x1": 0.1, "x2": 0.5, "x3": 0.5, "x4": None, "unknown": 3.0}
    before = fitted.predict_one(x)
    text = fitted.debug_one(x)
    assert fitted.predict_one(x) == before
    assert text.count("Tree ") == fitted.n_estimators
    assert text.count("prediction: ") == fitted.n_estimators
    assert "x0 <= " in text or " * x0 + " in text or " * x0 <= " in text
    assert "? yes" in text or "? no" in text
    assert fitted.debug_one(x, trees=[1]).startswith("Tree 1 (")


def test_debug_one_shows_a_box_or_the_split_candidates():
    for cls in (river_forests.MondrianForestClassifier, river_forests.BSPForestRegressor):
        assert "box: x0 in [" in learned(cls, n=300).debug_one({f: 0.5 for f in FEATURES})
    model = learned(river_forests.StreamPartitionForestClassifier, n=300)
    assert "split candidates" in model.debug_one({f: 0.5 for f in FEATURES})


def test_to_text_lists_each_node_once_and_respects_max_depth(fitted):
    tree = fitted._core.trees[0]
    lines = fitted.to_text(0).splitlines()
    assert len(lines) == tree.node_count
    assert sum("leaf ->" in line for line in lines) == (tree.node_count + 1) // 2
    shallow = fitted.to_text(0, max_depth=1).splitlines()
    assert len(shallow) == min(3, tree.node_count)
    with pytest.raises(ValueError, match="tree must be"):
        fitted.to_text(fitted.n_estimators)
    with pytest.raises(ValueError, match="max_depth"):
        fitted.to_text(0, max_depth=-1)


def test_draw_gives_graphviz_the_same_nodes(fitted):
    graphviz = pytest.importorskip("graphviz")
    dot = fitted.draw(0, max_depth=2)
    assert isinstance(dot, graphviz.Digraph)
    nodes = fitted.to_text(0, max_depth=2).splitlines()
    assert dot.source.count(" -> ") == len(nodes) - 1
    assert ('label=yes' in dot.source) == (len(nodes) > 1)


def test_a_file_of_format_1_gets_the_default_halflife_and_learns_credits():
    """Migration 1 -> 2: a model saved before importances loads with the default halflife,
    its trees with that decay and no credit; what it learns after the load is credited."""
    import pathlib

    from river_forests._forest import SHARED_DEFAULTS, importance_growth

    path = pathlib.Path(__file__).parent / "data" / "format1" / "PurelyRandomForestClassifier.rf"
    model = river_forests.load(path)
    assert model.importance_halflife == SHARED_DEFAULTS["importance_halflife"]
    want = importance_growth(SHARED_DEFAULTS["importance_halflife"])
    assert all(t.get_state()["gain_growth"] == want for t in model._core.trees)
    assert not model._core.importances().any()
    shares = set(model.feature_importances.values())
    assert len(shares) == 1  # equal shares: no credit yet
    from river import datasets

    for x, y in list(datasets.Phishing())[:300]:
        model.learn_one(x, y)
    assert len(set(model.feature_importances.values())) > 1
