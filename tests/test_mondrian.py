"""The Mondrian process invariants of mourtada2017, checked on trees the stream built."""

import math

import numpy as np
import pytest
from river import compose, datasets, evaluate, metrics, preprocessing

from river_forests import MondrianForestClassifier, MondrianForestRegressor

from .conftest import uniform_stream


def _grow(model, data):
    for x, y in data:
        model.learn_one(x, y)
    return model


def _check_tree(state):
    left, right, parent = state["left"], state["right"], state["parent"]
    lower, upper, tau = state["lower"], state["upper"], state["tau"]
    feature, threshold, weight = state["feature"], state["threshold"], state["weight"]
    n = len(left)
    root = state["root"]
    assert parent[root] == -1
    leaves = [j for j in range(n) if left[j] < 0]
    assert len(leaves) * 2 - 1 == n, "a binary tree with n nodes has (n + 1) / 2 leaves"
    for j in range(n):
        if left[j] < 0:
            assert right[j] < 0 and math.isinf(tau[j])
            continue
        f, thr = feature[j], threshold[j]
        # the threshold lies in the range of data the node had seen when it split
        assert lower[j, f] <= thr <= upper[j, f]
        for c in (left[j], right[j]):
            assert parent[c] == j
            # split times increase with depth
            assert tau[j] < tau[c]
            # children's boxes lie inside the parent's box (empty sides are +inf/-inf)
            seen = lower[c] <= upper[c]
            assert np.all(lower[j][seen] <= lower[c][seen])
            assert np.all(upper[c][seen] <= upper[j][seen])
        # data on each side of the threshold
        lc, rc = left[j], right[j]
        if lower[lc, f] <= upper[lc, f]:
            assert upper[lc, f] <= thr
        if lower[rc, f] <= upper[rc, f]:
            assert lower[rc, f] > thr
        # a node has seen at least what its children saw since they were created
        assert weight[j] >= weight[lc] + weight[rc] - 1e-9
    # the summed split rate of the root equals that of its leaves
    assert state["rate"][root] == pytest.approx(sum(state["rate"][j] for j in leaves), rel=1e-6, abs=1e-9)
    return len(leaves)


@pytest.mark.parametrize("lifetime", ["consistent", 3.0])
def test_invariants_classifier(segments, lifetime):
    model = _grow(MondrianForestClassifier(n_estimators=4, growth=lifetime, seed=3), segments)
    for tree in model.trees:
        state = tree.arrays()
        assert _check_tree(state) > 10
        assert state["weight"][state["root"]] == len(segments)


def test_invariants_regressor(trump):
    model = _grow(MondrianForestRegressor(n_estimators=3, seed=5), trump)
    for tree in model.trees:
        assert _check_tree(tree.arrays()) > 10


def test_invariants_at_the_node_cap(phishing):
    model = _grow(MondrianForestClassifier(n_estimators=3, max_nodes=63, seed=2), phishing)
    for tree in model.trees:
        assert tree.node_count <= 63
        _check_tree(tree.arrays())


def test_consistent_lifetime_schedule():
    data = uniform_stream(2000, 3, seed=1)
    model = _grow(MondrianForestClassifier(n_estimators=2, growth_scale=1.5, seed=0), data)
    for tree in model.trees:
        assert tree.current_lifetime == pytest.approx(1.5 * 2000 ** (1 / (3 + 2)))


def test_fixed_lifetime_does_not_grow():
    data = uniform_stream(500, 2, seed=1)
    model = _grow(MondrianForestClassifier(n_estimators=2, growth=2.5, seed=0), data)
    assert all(t.current_lifetime == 2.5 for t in model.trees)


@pytest.mark.parametrize("lam", [1.0, 2.0, 4.0, 8.0])
def test_number_of_leaves_follows_lemma_2(lam):
    """On [0, 1]^2 a Mondrian partition MP(lam) has E[#cells] = (1 + lam)^2 (each side adds
    lam * length cuts in expectation), below the paper's bound (e (lam + 1))^d (lemma 2)."""
    d = 2
    data = uniform_stream(3000, d, seed=7)
    model = _grow(MondrianForestClassifier(n_estimators=30, growth=lam, max_nodes=10**6, seed=1), data)
    leaves = np.mean([(t.node_count + 1) / 2 for t in model.trees])
    assert 0.7 * (1 + lam) ** d < leaves < 1.3 * (1 + lam) ** d
    assert leaves <= (math.e * (lam + 1)) ** d


def test_leaves_grow_with_the_consistent_lifetime():
    d = 2
    data = uniform_stream(20000, d, seed=3)
    model = MondrianForestClassifier(n_estimators=10, growth_scale=2.0, max_nodes=10**6, seed=4)
    counts = []
    for i, (x, y) in enumerate(data, 1):
        model.learn_one(x, y)
        if i in (500, 4000, 20000):
            lam = 2.0 * i ** (1 / (d + 2))
            leaves = np.mean([(t.node_count + 1) / 2 for t in model.trees])
            counts.append(leaves)
            # children of a lifetime split start empty, so a tree holds somewhat fewer cells
            # than the fixed-domain process; never more than lemma 2 allows
            assert leaves <= (math.e * (lam + 1)) ** d
            assert leaves > 0.3 * lam**d
    assert counts[0] < counts[1] < counts[2]


def test_forest_is_scale_invariant(segments):
    """Side lengths are measured relative to the root range: multiplying a feature by a power
    of two (exact in floating point) changes nothing."""
    a = MondrianForestClassifier(n_estimators=3, seed=9)
    b = MondrianForestClassifier(n_estimators=3, seed=9)
    key = next(iter(segments[0][0]))
    for x, y in segments:
        xb = dict(x)
        xb[key] = x[key] * 1024.0
        assert a.predict_proba_one(x) == b.predict_proba_one(xb)
        a.learn_one(x, y)
        b.learn_one(xb, y)
    assert a.n_nodes == b.n_nodes


def test_boxes_hold_their_points_at_a_large_offset():
    """Boxes are float32 relative to each feature's first value, rounded outward: a feature
    with a large offset (a timestamp, say) keeps the precision of its spread, and a point
    just learned lies in every box on its path (boxes hold what a node saw since its
    creation, so this is checked right after each learn)."""
    offset = 1.7e9  # float32 steps are 128 wide here: without the origin every box would be
    data = [({"t": offset + x["x0"], "u": x["x1"]}, y) for x, y in uniform_stream(3000, 2, seed=5)]
    model = MondrianForestClassifier(n_estimators=3, seed=6)
    checked = 0
    for i, (x, y) in enumerate(data):
        model.learn_one(x, y)
        if i % 7:
            continue
        names = model._core.features.names
        for tree in model.trees:
            s = tree.arrays()
            j = s["root"]
            while True:
                for c, name in enumerate(names):
                    assert s["lower"][j, c] <= x[name] <= s["upper"][j, c]
                checked += 1
                if s["left"][j] < 0:
                    break
                j = s["left"][j] if x[names[s["feature"][j]]] <= s["threshold"][j] else s["right"][j]
    assert checked > 3 * len(data) // 7 * 5, "the paths should be several nodes deep"
    c = model._core.features.names.index("t")
    for tree in model.trees:
        s = tree.arrays()
        _check_tree(s)
        width = s["upper"][s["root"], c] - s["lower"][s["root"], c]
        spread = max(x["t"] for x, _ in data) - min(x["t"] for x, _ in data)
        assert spread <= width <= spread + 1e-5


def test_regressor_predictive_distribution(trump):
    model = _grow(MondrianForestRegressor(n_estimators=5, seed=1), trump[:500])
    x = trump[600][0]
    dist = model.predict_one(x, with_dist=True)
    assert dist.mu == pytest.approx(model.predict_one(x))
    assert 0 < dist.sigma < 20


def test_smoothing_zero_backs_off_to_the_deepest_node_with_data():
    """With smoothing=0 a tree predicts the class shares of the deepest node on the path that
    has seen data: the leaf, or its nearest non-empty ancestor after a fresh split."""
    data = uniform_stream(3000, 2, seed=2)
    model = _grow(MondrianForestClassifier(n_estimators=1, smoothing=0.0, seed=2), data)
    s = model.trees[0].arrays()
    names = model._core.features.names
    empty_leaves = 0
    for x, _ in uniform_stream(300, 2, seed=9):
        j, deepest = s["root"], None
        while True:
            if s["weight"][j] > 0:
                deepest = j
            if s["left"][j] < 0:
                break
            v = x[names[s["feature"][j]]]
            j = s["left"][j] if v <= s["threshold"][j] else s["right"][j]
        empty_leaves += s["weight"][j] == 0
        expected = s["value"][deepest] / s["weight"][deepest]
        proba = model.predict_proba_one(x)
        got = [proba[label] for label in model._core.labels]
        assert got == pytest.approx(list(expected))
    assert empty_leaves > 0, "the stream should leave some fresh, empty leaves to back off from"


# ------------------------------------------------------------------ the Mondrian forests' own
# parameters and bars (the plumbing every forest shares is tested on every estimator in
# test_plumbing.py and test_hardening.py)


@pytest.mark.parametrize("params", [
    dict(growth="infinite"),
    dict(growth=-1.0),
    dict(growth=0.0),
    dict(growth=float("inf")),
    dict(growth_scale=0.0),
    dict(growth_scale=float("nan")),
], ids=repr)
@pytest.mark.parametrize("cls", [MondrianForestClassifier, MondrianForestRegressor],
                         ids=lambda c: c.__name__)
def test_bad_mondrian_parameters_raise_value_error(cls, params):
    with pytest.raises(ValueError):
        cls(**params)


def test_memory_is_bounded_by_max_nodes():
    model = MondrianForestClassifier(n_estimators=2, max_nodes=255, growth_scale=4.0, seed=0)
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
