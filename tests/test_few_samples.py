"""Issue 30's levers of the stream-partitioning tree, checked against brute force: the
per-class Gaussian summaries (`_core/_gaussian.pxd`), naive Bayes and adaptive leaves, the
Hoeffding split test, shared streams; learn_one equal to learn_many; bad parameters."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pandas as pd
import pytest

from river_forests import StreamPartitionForestClassifier
from river_forests._core._stream_partition import StreamPartitionTree

GAUSSIAN, NAIVE_BAYES, ADAPTIVE, MAJORITY = 1, 1, 2, 0


def _tree(**params):
    base = dict(task=0, max_nodes=10**6, seed=1, splitter=GAUSSIAN, honest=False,
                candidate_features=10.0, candidate_points=10, grace_period=10**9)
    base.update(params)
    return StreamPartitionTree(**base)


def _data(n, d=3, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    X[:, 0] = X[:, 0] * 4 - 1
    y = np.minimum((X[:, 0] + 1) / 4 * n_classes, n_classes - 1).astype(int)
    flip = rng.random(n) < 0.2
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return np.ascontiguousarray(X), y.astype(np.float64)


def _learn(tree, X, y):
    tree.learn_rows(np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64))


def _naive_bayes(prior, g, cols, x):
    """Brute force: prior times the product of per-class normal densities, each variance at
    least (1% of the feature's range over the classes)^2; classes without prior weight or
    without values drop out."""
    n_classes = len(prior)
    score = np.array([math.log(p) if p > 0 else -math.inf for p in prior])
    for k, col in enumerate(cols):
        v = x[col]
        if math.isnan(v):
            continue
        w, mean, m2, low, high = g[k]
        seen = w > 0
        span = high[seen].max() - low[seen].min()
        floor = (0.01 * span) ** 2 if span > 0 else 1e-12
        for c in range(n_classes):
            if score[c] == -math.inf:
                continue
            if w[c] <= 0:
                score[c] = -math.inf
                continue
            var = max(m2[c] / w[c], floor)
            score[c] += -0.5 * (v - mean[c]) ** 2 / var - 0.5 * math.log(2 * math.pi * var)
    top = score.max()
    p = np.where(score > -math.inf, np.exp(score - top), 0.0)
    return p / p.sum()


def test_gaussian_summaries_are_the_per_class_moments():
    X, y = _data(300)
    X[::7, 1] = np.nan  # a missing value counts in no summary
    tree = _tree()
    _learn(tree, X, y)
    (leaf, (cols, g, counters)), = tree.fringe().items()
    assert counters[0] == 300  # the structure weight seen: every point (shared streams)
    for k, col in enumerate(cols):
        for c in range(3):
            v = X[y == c, col]
            v = v[~np.isnan(v)]
            w, mean, m2, low, high = g[k, :, c]
            assert w == len(v)
            assert mean == pytest.approx(v.mean(), rel=1e-12)
            assert m2 == pytest.approx(((v - v.mean()) ** 2).sum(), rel=1e-9)
            assert (low, high) == (v.min(), v.max())


@pytest.mark.parametrize("splits", [False, True])
def test_naive_bayes_leaves_match_brute_force(splits):
    X, y = _data(600, d=4)
    tree = _tree(leaf_prediction=NAIVE_BAYES, grace_period=50.0 if splits else 10**9,
                 smoothing=0.0, max_active=3)
    _learn(tree, X, y)
    if splits:
        assert tree.splits > 0
    state = tree.get_state()
    fringe = tree.fringe()
    Xt, _ = _data(200, d=4, seed=1)
    Xt[::5, 2] = np.nan
    got = tree.predict_rows(Xt, 3)
    checked = 0
    for x, p in zip(Xt, got):
        j = state["root"]
        while state["left"][j] >= 0:
            j = state["left"][j] if x[state["feature"][j]] <= state["threshold"][j] else state["right"][j]
        if j not in fringe:  # an inactive leaf predicts its histogram
            assert p == pytest.approx(state["value"][j][:3] / state["weight"][j])
            continue
        cols, g, _ = fringe[j]
        np.testing.assert_allclose(p, _naive_bayes(state["value"][j][:3], g, cols, x), rtol=1e-9, atol=1e-12)
        checked += 1
    assert checked > 50


def test_adaptive_leaves_count_who_was_right_and_follow_the_better():
    X, y = _data(400, d=3)
    tree = _tree(leaf_prediction=ADAPTIVE, smoothing=0.0)
    majority_right = bayes_right = 0.0
    for i in range(len(X)):
        if i > 0:
            state = tree.get_state()
            (_, (cols, g, counters)), = tree.fringe().items()
            nv = state["n_values"]
            prior = state["value"][state["root"]][:nv]
            nb = _naive_bayes(prior, g, cols, X[i])
            majority_right += float(np.argmax(prior) == y[i])
            bayes_right += float(np.argmax(nb) == y[i])
            expect = np.zeros(3)
            expect[:nv] = nb if counters[3] > counters[2] else prior / prior.sum()
            np.testing.assert_allclose(tree.predict_rows(X[i:i + 1], 3)[0], expect, rtol=1e-9, atol=1e-12)
        _learn(tree, X[i:i + 1], y[i:i + 1])
    (_, (_, _, counters)), = tree.fringe().items()
    assert (counters[2], counters[3]) == (majority_right, bayes_right)


def _hoeffding(g, bins, n_classes, delta, tie, min_gain):
    """Brute force of the split test: per feature the best entropy gain over `bins` thresholds
    evenly inside the range, each class's left weight from its normal distribution function
    (all of it above its highest value, none below its lowest), sides of at least 1%."""
    def H(h):
        t = h.sum()
        return 0.0 if t <= 0 else -sum(c / t * math.log2(c / t) for c in h if c > 0)

    best = []
    for k in range(len(g)):
        w, mean, m2, low, high = g[k]
        seen = w > 0
        lo, hi = low[seen].min(), high[seen].max()
        top = (0.0, None)
        if hi > lo:
            for i in range(bins):
                t = lo + (hi - lo) * (i + 1) / (bins + 1)
                left = np.zeros(n_classes)
                for c in range(n_classes):
                    if w[c] <= 0 or t < low[c]:
                        continue
                    if t >= high[c]:
                        left[c] = w[c]
                        continue
                    sd = math.sqrt(m2[c] / w[c])
                    left[c] = w[c] * 0.5 * math.erfc((mean[c] - t) / (sd * math.sqrt(2))) if sd > 0 else (
                        w[c] if t >= mean[c] else 0.0)
                right = np.where(w > 0, w, 0) - left
                total = w[seen].sum()
                if left.sum() < 0.01 * total or right.sum() < 0.01 * total:
                    continue
                gain = H(left + right) - left.sum() / total * H(left) - right.sum() / total * H(right)
                if gain > top[0]:
                    top = (gain, t)
        best.append(top)
    order = sorted(range(len(best)), key=lambda k: -best[k][0])
    first = best[order[0]]
    second = best[order[1]][0] if len(order) > 1 else 0.0
    n = g[0][0].sum()
    eps = math.sqrt(math.log2(max(n_classes, 2)) ** 2 * math.log(1 / delta) / (2 * n))
    split = first[0] > min_gain and (first[0] - second > eps or eps < tie)
    return split, order[0], first[1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_split_test_is_the_hoeffding_bound(seed):
    """Learn point by point; at each check (every grace period), the tree splits exactly when
    the brute-force test on the summaries says so, at its feature and threshold."""
    X, y = _data(2000, d=3, seed=seed)
    tree = _tree(grace_period=25.0, split_confidence=0.05, tie_threshold=0.02, min_gain=0.0,
                 max_active=1, seed=seed)
    decided = 0
    for i in range(len(X)):
        before = tree.fringe()
        _learn(tree, X[i:i + 1], y[i:i + 1])
        if tree.splits == 0:
            (_, (_, _, counters)), = tree.fringe().items()
            if counters[1] == counters[0] and counters[0] % 25 == 0 and counters[0] > 0:
                decided += 1  # a check that did not split: the brute force agrees
                (_, (cols, g, _)), = tree.fringe().items()
                assert not _hoeffding(g, 10, 3, 0.05, 0.02, 0.0)[0]
            continue
        # the first split: the summaries just before it, plus the point that triggered it
        (_, (cols, g, _)), = before.items()
        g = g.copy()
        for k, col in enumerate(cols):
            c = int(y[i])
            w, mean, m2 = g[k, 0, c], g[k, 1, c], g[k, 2, c]
            v = X[i, col]
            n = w + 1
            d = v - mean
            g[k, 0, c], g[k, 1, c] = n, mean + d / n
            g[k, 2, c] = m2 + d * (v - g[k, 1, c])
            g[k, 3, c], g[k, 4, c] = (min(g[k, 3, c], v), max(g[k, 4, c], v)) if w > 0 else (v, v)
        split, k, t = _hoeffding(g, 10, 3, 0.05, 0.02, 0.0)
        assert split
        state = tree.get_state()
        assert state["feature"][state["root"]] == cols[k]
        assert state["threshold"][state["root"]] == pytest.approx(t, rel=1e-12)
        break
    else:
        pytest.fail("no split in 2,000 points of an informative stream")
    assert decided > 0


def test_children_share_the_leaf_histogram_as_the_gaussians_share_each_class():
    X, y = _data(3000, d=2)
    tree = _tree(grace_period=50.0, max_active=1)
    _learn(tree, X, y)
    s = tree.get_state()
    root = s["root"]
    l, r = s["left"][root], s["right"][root]
    assert l >= 0
    # every class's weight of the root is split between its children (with what came after)
    assert (s["value"][l] + s["value"][r] <= s["value"][root] + 1e-9).all()
    assert s["weight"][l] > 0 and s["weight"][r] > 0


CONFIGS = [
    dict(splitter="gaussian", honest=False, leaf_prediction="adaptive", subsampling="poisson",
         subsample_rate=6.0),
    dict(splitter="gaussian", honest=True, leaf_prediction="naive_bayes"),
    dict(splitter="points", honest=False, leaf_prediction="majority"),
]


def _stream(n=1500, seed=3):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, 5)), columns=[f"x{i}" for i in range(5)])
    y = pd.Series(((X.x0 > 0.5) ^ (X.x3 > 0.3)).astype(int))
    return X, y


@pytest.mark.parametrize("config", CONFIGS)
def test_learn_one_equals_learn_many(config):
    X, y = _stream()
    one = StreamPartitionForestClassifier(n_estimators=3, seed=7, **config)
    many = StreamPartitionForestClassifier(n_estimators=3, seed=7, **config)
    for x, t in zip(X.to_dict("records"), y):
        one.learn_one(x, t)
    for i in range(0, len(X), 128):
        many.learn_many(X.iloc[i:i + 128], y.iloc[i:i + 128])
    np.testing.assert_array_equal(one.predict_proba_many(X).to_numpy(), many.predict_proba_many(X).to_numpy())
    assert one.n_splits == many.n_splits > 0


@pytest.mark.parametrize("config", CONFIGS)
def test_a_mid_stream_pickle_resumes_bit_identically(config):
    X, y = _stream()
    rows = list(zip(X.to_dict("records"), y))
    a = StreamPartitionForestClassifier(n_estimators=2, seed=9, **config)
    for x, t in rows[:700]:
        a.learn_one(x, t)
    b = pickle.loads(pickle.dumps(a))
    for x, t in rows[700:]:
        a.learn_one(x, t)
        b.learn_one(x, t)
    np.testing.assert_array_equal(a.predict_proba_many(X).to_numpy(), b.predict_proba_many(X).to_numpy())


def test_shared_streams_learn_faster_than_honest_ones_on_a_clean_concept():
    X, y = _stream(3000)
    acc = {}
    for honest in (True, False):
        model = StreamPartitionForestClassifier(n_estimators=5, seed=1, splitter="gaussian", honest=honest)
        right = 0
        for x, t in zip(X.to_dict("records"), y):
            right += model.predict_one(x) == t
            model.learn_one(x, t)
        acc[honest] = right / len(X)
    assert acc[False] > acc[True]


@pytest.mark.parametrize("name, bad", [
    ("splitter", "random"), ("honest", "yes"), ("leaf_prediction", "nb"),
    ("grace_period", 0.0), ("split_confidence", 0.0), ("split_confidence", 1.5),
    ("tie_threshold", -0.1),
])
def test_bad_parameters_are_refused_by_name(name, bad):
    with pytest.raises(ValueError, match=name):
        StreamPartitionForestClassifier(splitter="gaussian", **{name: bad}) if name != "splitter" \
            else StreamPartitionForestClassifier(**{name: bad})


def test_naive_bayes_leaves_need_the_gaussian_splitter():
    with pytest.raises(ValueError, match="splitter='gaussian'"):
        StreamPartitionForestClassifier(splitter="points", leaf_prediction="adaptive")
