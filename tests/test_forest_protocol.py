"""The forest-level protocol: what a forest offers above its trees."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from .conftest import (CLASSIFIERS, ESTIMATORS, PLAIN, REGRESSORS, batch_native, is_classifier,
                       name_of, plain)


def _frame(n, seed):
    rng = random.Random(seed)
    rows = [{"a": rng.random(), "b": rng.gauss(0, 2), "c": rng.random()} for _ in range(n)]
    X = pd.DataFrame(rows)
    X.loc[::17, "b"] = np.nan  # missing values take the same route in every prediction
    return X


def _target(cls, X):
    if is_classifier(cls):
        return pd.Series(np.where(X["a"] + 0.3 * X["c"] > 0.6, "yes", "no"))
    return pd.Series(3.0 * X["a"] - X["c"] + 0.1 * X["b"].fillna(0.0))


CASES = [(cls, agg) for cls in CLASSIFIERS for agg in ("average", "vote")] + \
    [(cls, None) for cls in REGRESSORS]


@pytest.mark.parametrize("cls, aggregation", CASES,
                         ids=[f"{name_of(c)}-{a or 'mean'}" for c, a in CASES])
def test_per_tree_predictions_make_the_forest_prediction(cls, aggregation):
    """`_predict_trees_batch` gives each tree's own prediction of each row; the forest's is
    their mean (or their vote shares), row for row."""
    extra = {"aggregation": aggregation} if aggregation else {}
    model = cls(n_estimators=4, seed=3, **extra)
    X = _frame(3000, 1)
    model.learn_many(X, _target(cls, X))
    test = _frame(300, 2)
    per_tree, labels = model._predict_trees_batch(test)
    assert per_tree.shape[:2] == (4, 300)
    # the trees differ (else the check below proves little)
    assert np.abs(per_tree[0] - per_tree[1]).max() > 0
    if is_classifier(cls):
        assert sorted(labels) == ["no", "yes"] and per_tree.shape[2] == 2
        np.testing.assert_allclose(per_tree.sum(axis=2), 1.0)
        if aggregation == "vote":
            votes = np.zeros((300, 2))
            for t in range(4):
                votes[np.arange(300), per_tree[t].argmax(axis=1)] += 1
            expected = votes / 4
        else:
            expected = per_tree.mean(axis=0)
        forest = model.predict_proba_many(test)[labels].to_numpy()
        np.testing.assert_allclose(forest, expected, rtol=1e-12, atol=1e-12)
    else:
        np.testing.assert_allclose(model.predict_many(test).to_numpy(), per_tree[:, :, 0].mean(axis=0),
                                   rtol=1e-12, atol=1e-12)
        assert (per_tree[:, :, 1] >= 0).all()


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_per_tree_predictions_of_an_empty_forest(cls):
    model = cls(n_estimators=2, seed=1)
    per_tree, labels = model._predict_trees_batch(_frame(5, 1))
    if is_classifier(cls):
        assert per_tree.shape == (2, 5, 0) and labels == []
    else:
        assert per_tree.shape == (2, 5, 2) and (per_tree == 0).all()


@pytest.mark.parametrize("cls", REGRESSORS, ids=name_of)
def test_an_empty_regressor_predicts_a_batch(cls):
    """No feature registered yet: the rows have no column, and the prediction is 0; a
    batch-native regressor (XForest), which would give it for a whole batch, predicts None
    until a tree has learned a sample, as river's progressive validation expects of a model
    that cannot predict yet."""
    model = cls(n_estimators=2, seed=1)
    if batch_native(cls):
        assert model.predict_many(_frame(4, 1)).isna().all()
        assert model.predict_one(_frame(1, 1).iloc[0].to_dict()) is None
        model.learn_one({"a": 1.0}, 2.0)  # buffered, not learned
        assert model.predict_one({"a": 1.0}) is None
        model.flush()
        assert model.predict_one({"a": 1.0}) == 2.0
        assert (model.predict_many(_frame(4, 1)) == 2.0).all()
    else:
        assert (model.predict_many(_frame(4, 1)) == 0.0).all()


def _learn(model, X, cls):
    model.learn_many(X, _target(cls, X))
    return model


def _states(model):
    return [t.get_state() for t in model.trees]


def _same(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        u, v = np.asarray(a[k]), np.asarray(b[k])
        if u.shape != v.shape or not np.array_equal(u, v, equal_nan=u.dtype.kind == "f"):
            return False
    return True


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
@pytest.mark.parametrize("seed", [5, None])
def test_replace_tree_is_reproducible_and_resumes_from_a_pickle(cls, seed):
    """A replacement is a fresh tree seeded from the forest's master seed and its count of
    replacements, both pickled: a pickle taken mid-stream replaces and learns exactly as
    the original, also with seed=None. (Every tree learns every row: `plain`, so no
    bootstrap and no swap of XForest's own.)"""
    import pickle

    X1, X2 = _frame(1500, 1), _frame(1500, 2)
    model = _learn(plain(cls, n_estimators=3, seed=seed), X1, cls)
    model.replace_tree(1)
    twin = pickle.loads(pickle.dumps(model))
    for m in (model, twin):
        assert m.trees[1].samples_seen == 0 and m.trees[0].samples_seen == 1500
        m.replace_tree(2)
        _learn(m, X2, cls)
    for a, b in zip(_states(model), _states(twin)):
        assert _same(a, b)
    # a replacement is not a copy of the tree it replaces, nor of the forest's first trees
    fresh = _learn(plain(cls, n_estimators=3, seed=seed), X1, cls) if seed is not None else None
    if fresh is not None:
        _learn(fresh, X2, cls)
        assert not _same(fresh.trees[2].get_state(), model.trees[2].get_state())
        assert _same(fresh.trees[0].get_state(), model.trees[0].get_state())


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_the_same_seed_replaces_alike(cls):
    X = _frame(800, 3)
    a, b = (_learn(cls(n_estimators=2, seed=9), X, cls) for _ in range(2))
    for m in (a, b):
        m.replace_tree(0)
        m.replace_tree(0)
        _learn(m, X, cls)
    assert all(_same(u, v) for u, v in zip(_states(a), _states(b)))
    with pytest.raises(ValueError, match="i must be"):
        a.replace_tree(2)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_batch_without_features_is_learned_and_predicted(cls):
    """Rows with no column (a frame of only an index) are samples without features: every
    tree counts them at its root (read past no row: the debug build checks it; `plain`: no
    bootstrap of XForest's, which would count the distinct rows it drew)."""
    X = pd.DataFrame(index=range(64))
    y = pd.Series(["a", "b"] * 32) if is_classifier(cls) else pd.Series([1.0, 3.0] * 32)
    model = plain(cls, n_estimators=2, seed=1)
    model.learn_many(X, y)
    assert all(t.samples_seen == 64 for t in model.trees)
    per_tree, _ = model._predict_trees_batch(X)
    # every row is the root's estimate (the stream-partitioning trees count their
    # estimation half only, so not exactly the half of each class)
    assert (per_tree == per_tree[:, :1]).all()
    if is_classifier(cls):
        np.testing.assert_allclose(per_tree.sum(axis=2), 1.0)
        assert np.abs(per_tree - 0.5).max() < 0.2
    else:
        assert np.abs(per_tree[:, :, 0] - 2.0).max() < 0.3
    if cls in PLAIN:
        # as the forest comes (a tree may skip rows: the stream-partitioning forest's
        # Poisson(6) weights of 0, or XForest's bootstrap when asked for)
        model = cls(n_estimators=2, seed=1)
        model.learn_many(X, y)
        assert all(0 < t.samples_seen <= 64 for t in model.trees)
        per_tree, _ = model._predict_trees_batch(X)
        assert (per_tree == per_tree[:, :1]).all()
        if is_classifier(cls):
            np.testing.assert_allclose(per_tree.sum(axis=2), 1.0)
        else:  # a mean of the targets 1 and 3, and a variance
            assert ((1.0 <= per_tree[:, :, 0]) & (per_tree[:, :, 0] <= 3.0)).all()
            assert (per_tree[:, :, 1] >= 0.0).all()
