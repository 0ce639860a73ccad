"""The shared forest plumbing: seeds, feature order, pickling, batches, bad input, labels."""

import copy
import itertools
import math
import pickle
import random

import numpy as np
import pandas as pd
import pytest
from river import compose, datasets, evaluate, metrics, preprocessing

from river_forests import MondrianForestClassifier, MondrianForestRegressor

from .conftest import uniform_stream

CLASSIFIERS = [
    dict(n_estimators=4, seed=1),
    dict(n_estimators=3, seed=2, lifetime=4.0, aggregation="vote", smoothing=0.0),
    dict(n_estimators=3, seed=3, subsampling="poisson", max_nodes=101),
    dict(n_estimators=3, seed=4, subsampling="bernoulli", subsample_rate=0.5),
]


def _state(model):
    return [t.arrays() for t in model.trees]


def _same_state(a, b):
    for sa, sb in zip(_state(a), _state(b)):
        assert sa.keys() == sb.keys()
        for k in sa:
            if isinstance(sa[k], np.ndarray):
                np.testing.assert_array_equal(sa[k], sb[k], err_msg=k)
            else:
                assert sa[k] == sb[k], k


@pytest.mark.parametrize("params", CLASSIFIERS)
def test_same_seed_same_model(phishing, params):
    a, b = MondrianForestClassifier(**params), MondrianForestClassifier(**params)
    for x, y in phishing[:400]:
        assert a.predict_proba_one(x) == b.predict_proba_one(x)
        a.learn_one(x, y)
        b.learn_one(x, y)
    _same_state(a, b)


def test_other_seed_other_model(phishing):
    a, b = MondrianForestClassifier(seed=1), MondrianForestClassifier(seed=2)
    for x, y in phishing[:400]:
        a.learn_one(x, y)
        b.learn_one(x, y)
    assert [t.arrays()["threshold"].tolist() for t in a.trees] != [
        t.arrays()["threshold"].tolist() for t in b.trees
    ]


@pytest.mark.parametrize("params", CLASSIFIERS)
def test_feature_order_does_not_matter(segments, params):
    rng = random.Random(0)
    a, b = MondrianForestClassifier(**params), MondrianForestClassifier(**params)
    for x, y in segments:
        keys = list(x)
        rng.shuffle(keys)
        xs = {k: x[k] for k in keys}
        assert a.predict_proba_one(x) == b.predict_proba_one(xs)
        a.learn_one(x, y)
        b.learn_one(xs, y)
    _same_state(a, b)


def test_new_features_arriving_together_get_canonical_columns():
    a, b = MondrianForestClassifier(seed=0), MondrianForestClassifier(seed=0)
    a.learn_one({"b": 1.0, "a": 2.0, 3: 0.5}, True)
    b.learn_one({3: 0.5, "a": 2.0, "b": 1.0}, True)
    assert a._core.features.names == b._core.features.names


@pytest.mark.parametrize("cls, params", [(MondrianForestClassifier, p) for p in CLASSIFIERS]
                         + [(MondrianForestRegressor, dict(seed=5, n_estimators=3))])
def test_pickle_mid_stream_resumes_identically(phishing, trump, cls, params):
    data = phishing if cls is MondrianForestClassifier else trump
    model = cls(**params)
    for x, y in data[:300]:
        model.learn_one(x, y)
    restored = pickle.loads(pickle.dumps(model))
    _same_state(model, restored)
    for x, y in data[300:700]:
        p = model.predict_one(x)
        assert p == restored.predict_one(x)
        model.learn_one(x, y)
        restored.learn_one(x, y)
    _same_state(model, restored)


def test_deepcopy_is_independent(phishing):
    model = MondrianForestClassifier(seed=1)
    for x, y in phishing[:100]:
        model.learn_one(x, y)
    clone = copy.deepcopy(model)
    before = pickle.dumps(clone)
    for x, y in phishing[100:300]:
        model.learn_one(x, y)
    assert pickle.dumps(clone) == before


def _batches(data, size):
    for i in range(0, len(data), size):
        chunk = data[i : i + size]
        yield chunk


@pytest.mark.parametrize("params", CLASSIFIERS)
def test_learn_many_equals_learn_one_loop(segments, params):
    one, many = MondrianForestClassifier(**params), MondrianForestClassifier(**params)
    rng = random.Random(1)
    features = list(segments[0][0])
    for chunk in _batches(segments, 37):
        cols = rng.sample(features, rng.randint(2, len(features)))  # features come and go
        xs = [{c: x[c] for c in cols} for x, _ in chunk]
        # a few missing values inside the batch: NaN, an infinity, a value too large for a box
        xs[0][cols[0]] = float("nan")
        xs[1][cols[1]] = float("inf")
        xs[2][cols[0]] = -1e300
        ys = [y for _, y in chunk]
        for x, y in zip(xs, ys):
            one.learn_one(x, y)
        many.learn_many(pd.DataFrame(xs, columns=cols), pd.Series(ys))
    _same_state(one, many)
    X = pd.DataFrame([x for x, _ in segments[:50]])
    probas = many.predict_proba_many(X)
    for i, (x, _) in enumerate(segments[:50]):
        expected = one.predict_proba_one(x)
        assert probas.iloc[i].to_dict() == pytest.approx(expected)
    assert list(many.predict_many(X)) == [one.predict_one(x) for x, _ in segments[:50]]


def test_threaded_learn_many_equals_learn_one_loop(segments):
    """Batches large enough for the thread pool, and more trees than threads."""
    from river_forests import _forest

    one, many = MondrianForestClassifier(n_estimators=7, seed=5), MondrianForestClassifier(n_estimators=7, seed=5)
    for chunk in _batches(segments, max(_forest.PARALLEL_MIN_ROWS, 150)):
        for x, y in chunk:
            one.learn_one(x, y)
        many.learn_many(pd.DataFrame([x for x, _ in chunk]), pd.Series([y for _, y in chunk]))
    _same_state(one, many)


def test_regressor_learn_many_equals_learn_one_loop(trump):
    one, many = MondrianForestRegressor(seed=3), MondrianForestRegressor(seed=3)
    for chunk in _batches(trump, 64):
        for x, y in chunk:
            one.learn_one(x, y)
        many.learn_many(pd.DataFrame([x for x, _ in chunk]), pd.Series([y for _, y in chunk]))
    _same_state(one, many)
    X = pd.DataFrame([x for x, _ in trump[:40]])
    np.testing.assert_allclose(many.predict_many(X), [one.predict_one(x) for x, _ in trump[:40]])


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("cls", [MondrianForestClassifier, MondrianForestRegressor])
def test_str_feature_raises_and_leaves_model_unchanged(cls):
    model = cls(seed=0)
    for x, y in uniform_stream(100, 3):
        model.learn_one(x, y)
    before = pickle.dumps(model)
    with pytest.raises(TypeError, match="'colour'"):
        model.learn_one({"x0": 0.1, "x1": 0.2, "new": 1.0, "colour": "red"}, 1)
    assert pickle.dumps(model) == before
    with pytest.raises(TypeError, match="'colour'"):
        model.predict_one({"x0": 0.1, "colour": "red"})
    X = pd.DataFrame({"x0": [0.1, 0.2], "new": [1.0, 2.0], "colour": ["red", "blue"]})
    with pytest.raises(TypeError, match="'colour'"):
        model.learn_many(X, pd.Series([0, 1]))
    assert pickle.dumps(model) == before


def test_bad_target_raises_and_leaves_model_unchanged():
    reg = MondrianForestRegressor(seed=0)
    for x, y in uniform_stream(50, 2):
        reg.learn_one(x, float(y))
    before = pickle.dumps(reg)
    for bad in (float("nan"), float("inf"), "3.0", None):
        with pytest.raises((ValueError, TypeError)):
            reg.learn_one({"x0": 0.5, "brand_new": 1.0}, bad)
        assert pickle.dumps(reg) == before
    clf = MondrianForestClassifier(seed=0)
    with pytest.raises(ValueError):
        clf.learn_one({"x0": 0.5}, None)
    with pytest.raises(ValueError):
        clf.learn_many(pd.DataFrame({"x0": [0.1, 0.2]}), pd.Series([1, None], dtype=object))
    assert clf.predict_proba_one({"x0": 0.5}) == {}
    assert clf._core.features.names == []
    # a bad label after new ones: no label and no feature of the batch is registered
    with pytest.raises(TypeError):
        clf.learn_many(pd.DataFrame({"x0": [0.1, 0.2, 0.3]}), pd.Series(["a", ["b"], "c"], dtype=object))
    assert clf._core.labels == []
    assert clf._core.features.names == []


@pytest.mark.parametrize("cls", [MondrianForestClassifier, MondrianForestRegressor])
def test_nan_none_and_inf_do_not_corrupt(cls):
    model = cls(n_estimators=3, seed=0)
    data = uniform_stream(1500, 3, seed=4)
    rng = random.Random(0)
    for x, y in data:
        x = dict(x)
        r = rng.random()
        if r < 0.1:
            x["x1"] = float("nan")
        elif r < 0.2:
            x["x2"] = float("inf") if rng.random() < 0.5 else -float("inf")
        elif r < 0.25:
            x["x0"] = None
        elif r < 0.27:  # finite, but beyond what a float32 box holds: missing too
            x["x0"] = 1e300 if rng.random() < 0.5 else -1e300
        model.learn_one(x, y)
    for tree in model.trees:
        s = tree.arrays()
        assert not np.isnan(s["lower"]).any() and not np.isnan(s["upper"]).any()
        seen = s["lower"] <= s["upper"]
        assert np.isfinite(s["lower"][seen]).all() and np.isfinite(s["upper"][seen]).all()
        assert np.isfinite(s["value"]).all() and np.isfinite(s["weight"]).all()
        assert np.isfinite(s["rate"]).all()
    for x in ({"x0": float("nan"), "x1": 0.3, "x2": 0.3}, {"x0": float("inf")}, {}):
        p = model.predict_one(x)
        if cls is MondrianForestRegressor:
            assert math.isfinite(p)
        else:
            proba = model.predict_proba_one(x)
            assert sum(proba.values()) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "params",
    [
        dict(n_estimators=0),
        dict(n_estimators=2.5),
        dict(lifetime="infinite"),
        dict(lifetime=-1.0),
        dict(lifetime_scale=0.0),
        dict(smoothing=-0.1),
        dict(smoothing=float("nan")),
        dict(max_nodes=0),
        dict(aggregation="median"),
        dict(subsampling="bootstrap"),
        dict(subsampling="bernoulli", subsample_rate=1.5),
        dict(subsample_rate=0.0),
        dict(seed="42"),
    ],
)
def test_bad_parameters_raise_value_error(params):
    with pytest.raises(ValueError):
        MondrianForestClassifier(**params)
    if "aggregation" not in params:  # the regressor has no aggregation parameter
        with pytest.raises(ValueError):
            MondrianForestRegressor(**params)


# ------------------------------------------------------------------ labels and aggregation


def test_bool_str_and_late_labels():
    model = MondrianForestClassifier(seed=0)
    data = uniform_stream(300, 2, seed=1)
    for x, y in data:
        model.learn_one(x, bool(y))
    assert set(model.predict_proba_one(data[0][0])) == {False, True}
    model.learn_one({"x0": 0.5, "x1": 0.5}, "late")
    proba = model.predict_proba_one({"x0": 0.5, "x1": 0.5})
    assert set(proba) == {False, True, "late"}
    assert sum(proba.values()) == pytest.approx(1.0)
    for _ in range(30):
        model.learn_one({"x0": 2.0, "x1": 2.0}, "late")
    assert model.predict_one({"x0": 2.0, "x1": 2.0}) == "late"


def test_vote_gives_vote_shares(phishing):
    model = MondrianForestClassifier(n_estimators=5, aggregation="vote", seed=0)
    for x, y in phishing[:300]:
        model.learn_one(x, y)
    for x, _ in phishing[300:340]:
        for p in model.predict_proba_one(x).values():
            assert round(p * 5, 9) == int(round(p * 5))


@pytest.mark.parametrize("mode, rate, expected", [("bernoulli", 0.3, 0.3), ("poisson", 1.0, 1 - math.exp(-1))])
def test_subsampling_rate(mode, rate, expected):
    model = MondrianForestClassifier(n_estimators=8, subsampling=mode, subsample_rate=rate, seed=0)
    for x, y in uniform_stream(4000, 2):
        model.learn_one(x, y)
    share = np.mean([t.samples_seen for t in model.trees]) / 4000
    assert share == pytest.approx(expected, abs=0.03)


def test_memory_is_bounded_by_max_nodes():
    model = MondrianForestClassifier(n_estimators=2, max_nodes=255, lifetime_scale=4.0, seed=0)
    data = uniform_stream(20000, 4, seed=2)
    sizes = []
    for i, (x, y) in enumerate(data, 1):
        model.learn_one(x, y)
        if i % 5000 == 0:
            sizes.append(model._raw_memory_usage)
    assert all(t.node_count <= 255 for t in model.trees)
    assert sizes[-1] == sizes[1]  # full at 10,000 samples, not a byte more after


def test_in_a_pipeline_with_progressive_validation():
    model = compose.Pipeline(preprocessing.StandardScaler(), MondrianForestClassifier(seed=1))
    metric = evaluate.progressive_val_score(datasets.Bananas(), model, metrics.Accuracy())
    assert metric.get() > 0.8


def test_accuracy_beats_the_majority_class(phishing):
    model = MondrianForestClassifier(seed=0)
    metric = metrics.Accuracy()
    for x, y in phishing:
        metric.update(y, model.predict_one(x))
        model.learn_one(x, y)
    assert metric.get() > 0.85  # the majority class is 0.56


@pytest.mark.parametrize("task", ["clf", "reg"])
def test_a_model_pickled_by_0_1_0_loads_and_resumes_identically(phishing, trump, task):
    """tests/data/mondrian_0.1.0.pkl was written by release 0.1.0 (before feature subspaces,
    max_width and the model lock): a forest saved mid-stream (250 samples, 2 trees) and the
    predictions it gave after learning the next 250. It must load, resume and give them."""
    import pathlib

    saved, expected = pickle.loads((pathlib.Path(__file__).parent / "data" / "mondrian_0.1.0.pkl").read_bytes())[task]
    model = pickle.loads(saved)
    data = (phishing if task == "clf" else trump)[:500]
    for x, y in data[250:]:
        model.learn_one(x, y)
    assert [model.predict_one(x) for x, _ in data] == expected
    assert model.clone().features_per_tree == 2**31 - 1  # its trees keep every feature
