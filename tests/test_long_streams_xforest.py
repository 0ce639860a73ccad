"""XForest on long stationary streams (issue 45): with ``kept_rows`` a leaf grows from the
rows of every batch that reached it, so the trees keep growing until their budget is spent
and the forest keeps learning; ``kept_rows=0`` is the paper's per-batch rule."""

import pickle

import numpy as np
import pandas as pd
import pytest
from river import metrics
from river.datasets import synth

from river_forests import XForestClassifier, XForestRegressor
from river_forests._progressive import iter_progressive_run


def _rbf(n, seed=3):
    return list(synth.RandomRBF(seed_model=seed, seed_sample=seed + 1, n_classes=4, n_features=8,
                                n_centroids=40).take(n))


_DATA = {}


def _data(n):
    if n not in _DATA:
        _DATA[n] = _rbf(n)
    return _DATA[n]


def _windows(model, data, parts):
    """Accuracy over each of `parts` equal windows of the stream (prequential)."""
    metric = metrics.Accuracy()
    accs, prev, prev_n = [], 0, 0
    for i, _ in iter_progressive_run(model, data, metric, len(data) // parts):
        correct = metric.cm.total_true_positives
        accs.append((correct - prev) / (i - prev_n))
        prev, prev_n = correct, i
    return accs


def test_kept_rows_keeps_learning_on_a_long_stationary_stream():
    data = _data(100_000)
    model = XForestClassifier(n_estimators=10, seed=42, kept_rows=4, memory_budget="4MB")
    q = _windows(model, data, 4)
    assert q[3] >= q[1] - 0.002, q
    # and it spends its budget
    assert 0.8 * 4 * 2**20 <= model._raw_memory_usage <= 4 * 2**20


def test_kept_rows_beats_the_per_batch_rule_late_in_the_stream():
    data = _data(100_000)
    late = {}
    for k in (0, 4):
        model = XForestClassifier(n_estimators=10, seed=42, kept_rows=k, memory_budget="4MB")
        late[k] = _windows(model, data, 4)[3]
        if k == 0:
            nodes0 = sum(t.node_count for t in model._core.trees)
        else:
            nodes4 = sum(t.node_count for t in model._core.trees)
    assert late[4] > late[0] + 0.01, late
    assert nodes4 > 2 * nodes0


def test_twice_the_budget_is_not_less_accurate():
    data = _data(100_000)
    acc = {}
    for budget in ("1MB", "2MB"):
        model = XForestClassifier(n_estimators=10, seed=42, kept_rows=4, memory_budget=budget)
        acc[budget] = _windows(model, data, 4)[3]
    assert acc["2MB"] >= acc["1MB"] - 0.003, acc


def test_kept_rows_zero_is_the_paper_rule():
    """kept_rows=0 keeps nothing (the regressor's default; the classifier's is 4 since issue
    45), where kept_rows=4 does."""
    assert XForestClassifier().kept_rows == 4 and XForestRegressor().kept_rows == 0
    data = _data(5_000)
    a = XForestClassifier(n_estimators=3, seed=1, kept_rows=0)
    b = XForestClassifier(n_estimators=3, seed=1, kept_rows=4)
    _windows(a, data, 2)
    _windows(b, data, 2)
    assert all(t.rows_kept == 0 for t in a._core.trees)
    assert any(t.rows_kept > 0 for t in b._core.trees)
    assert sum(t.node_count for t in b._core.trees) > sum(t.node_count for t in a._core.trees)


@pytest.mark.parametrize("value", [-1, 1.5, True, "4", None])
def test_kept_rows_must_be_a_count(value):
    with pytest.raises(ValueError, match="kept_rows"):
        XForestClassifier(kept_rows=value)
    with pytest.raises(ValueError, match="kept_rows"):
        XForestRegressor(kept_rows=value)


def test_kept_rows_are_bounded_and_survive_pickling():
    data = _data(20_000)
    model = XForestClassifier(n_estimators=3, seed=7, kept_rows=3, batch_size=50)
    for i in range(0, 10_000, 50):
        chunk = data[i:i + 50]
        model.learn_many(pd.DataFrame([x for x, _ in chunk]), pd.Series([y for _, y in chunk]))
    for tree in model._core.trees:
        assert 0 < tree.rows_kept <= 3 * tree.node_count
    copy = pickle.loads(pickle.dumps(model))
    assert [t.rows_kept for t in copy._core.trees] == [t.rows_kept for t in model._core.trees]
    for m in (model, copy):
        for i in range(10_000, 20_000, 50):
            chunk = data[i:i + 50]
            m.learn_many(pd.DataFrame([x for x, _ in chunk]), pd.Series([y for _, y in chunk]))
    X = pd.DataFrame([x for x, _ in data[:300]])
    assert np.array_equal(model.predict_proba_many(X).to_numpy(), copy.predict_proba_many(X).to_numpy())


def test_kept_rows_with_features_that_come_and_go():
    """Features new after rows were kept are missing for them, as are features a tree's slot
    reservoir forgets; nothing breaks and the trees keep growing."""
    rng = np.random.default_rng(0)
    model = XForestClassifier(n_estimators=3, seed=3, kept_rows=5, features_per_tree=4, batch_size=40)
    for b in range(60):
        width = 3 + b // 10  # a feature more every 10 batches
        X = pd.DataFrame(rng.normal(size=(40, width)), columns=[f"f{j}" for j in range(width)])
        y = pd.Series((X["f0"] + X["f1"] > 0).astype(int))
        model.learn_many(X, y)
    assert all(t.node_count > 3 for t in model._core.trees)
    x = {f"f{j}": 0.5 for j in range(8)}
    assert set(model.predict_proba_one(x)) == {0, 1}


def test_regressor_kept_rows_keeps_learning():
    data = list(synth.Friedman(seed=5).take(40_000))
    err = {}
    for k in (0, 4):
        model = XForestRegressor(n_estimators=5, seed=42, kept_rows=k)
        metric = metrics.MAE()
        for _ in iter_progressive_run(model, data, metric, 10_000):
            pass
        err[k] = metric.get()
    assert err[4] < err[0], err
