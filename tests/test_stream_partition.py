"""denil2013's online random tree with stream partitioning (`_core/_stream_partition.pyx`),
checked one sample at a time against the paper's rules (section 3, appendix A)."""

from __future__ import annotations

import math
import pickle
import random
import sys

import numpy as np
import pytest

from river_forests import StreamPartitionForestClassifier
from river_forests._core._stream_partition import StreamPartitionTree

from .conftest import route

# the four histograms of a candidate split, as `fringe()` gives them
S_LEFT, S_RIGHT, E_LEFT, E_RIGHT = range(4)
PARTITION = ("left", "right", "feature", "threshold")


def _tree(**params):
    base = dict(task=0, max_nodes=10**6, seed=1, alpha=2.0, alpha_growth=1.1, beta=4.0)
    base.update(params)
    return StreamPartitionTree(**base)


def _data(n, d=3, n_classes=2, seed=0, noise=0.2):
    """`n` rows of `d` uniform features, labels from x0 + 0.5 x1 (with label noise)."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    score = X[:, 0] + 0.5 * X[:, 1] if d > 1 else X[:, 0]
    y = np.minimum((score / score.max() * n_classes).astype(int), n_classes - 1)
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return np.ascontiguousarray(X), y.astype(np.float64)


def _learn_one(tree, x, y) -> bool:
    """Learn one row; whether it went to the estimation stream."""
    before = tree.estimation_weight
    tree.learn_rows(np.ascontiguousarray(x, dtype=np.float64).reshape(1, -1),
                    np.array([y], dtype=np.float64))
    return tree.estimation_weight > before




def _depth(s, j):
    d = 0
    while s["parent"][j] >= 0:
        j = s["parent"][j]
        d += 1
    return d


def _alpha(tree_state, d):
    return tree_state["alpha"] * tree_state["alpha_growth"] ** d


def _xlog2x(c):
    return c * math.log2(c) if c > 0.0 else 0.0


def _gain(left, right):
    """Information gain (bits) of splitting histogram left + right (algorithm 8), in the
    kernel's order of operations (`_impurity.split_gain`)."""
    nl = nr = sl = sr = sa = 0.0
    for a, b in zip(left, right):
        nl += a
        nr += b
        sl += _xlog2x(a)
        sr += _xlog2x(b)
        sa += _xlog2x(a + b)
    t = nl + nr
    if t <= 0.0:
        return 0.0
    return ((_xlog2x(t) - sa) - (_xlog2x(nl) - sl) - (_xlog2x(nr) - sr)) / t


def _assert_same_state(a, b):
    """Two `get_state` dicts are identical: same keys, same scalars, same arrays (shape,
    dtype and cells; NaN equals NaN)."""
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert a[key].shape == b[key].shape and a[key].dtype == b[key].dtype, key
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            assert a[key] == b[key], key


# ------------------------------------------------------------------------ the two streams

def test_structure_points_never_change_a_prediction():
    """A structure point leaves `weight` and `value` of every existing node as they were
    (only the two leaves of a split it triggers are new); an estimation point adds exactly
    one count along its own path (the statistics rule) and nowhere else."""
    X, y = _data(2500, n_classes=3, seed=1)
    tree = _tree(seed=2)
    counts = {"structure": 0, "estimation": 0, "split": 0}
    before = tree.get_state()
    for x, c in zip(X, y):
        path = route(before, x) if before["root"] >= 0 else [0]
        est = _learn_one(tree, x, c)
        after = tree.get_state()
        n = len(before["weight"])
        w_old, w_new = before["weight"], after["weight"][:n]
        v_old = before["value"]
        v_new = after["value"][:n, :v_old.shape[1]]
        if est:
            counts["estimation"] += 1
            dw = np.zeros(n)
            dv = np.zeros_like(v_old)
            if n:
                dw[path] = 1.0
                dv[path, int(c)] = 1.0
            np.testing.assert_array_equal(w_new, w_old + dw)
            np.testing.assert_array_equal(v_new, v_old + dv)
        else:
            counts["structure"] += 1
            np.testing.assert_array_equal(w_new, w_old)
            np.testing.assert_array_equal(v_new, v_old)
            counts["split"] += len(after["weight"]) > n
        # a new class column starts at zero in every old node
        assert not after["value"][:n, v_old.shape[1]:].any()
        before = after
    assert min(counts.values()) > 50, counts


def test_estimation_points_never_change_the_partition():
    X, y = _data(2500, seed=3)
    tree = _tree(seed=4)
    n_est = 0
    before = tree.get_state()
    for x, c in zip(X, y):
        est = _learn_one(tree, x, c)
        after = tree.get_state()
        if est:
            n_est += 1
            assert len(after["left"]) == len(before["left"])
            for key in PARTITION:
                np.testing.assert_array_equal(after[key], before[key], err_msg=key)
        before = after
    assert n_est > 1000 and tree.splits > 50


def _relabelled_runs(d, seed):
    X, y = _data(3000, d=d, seed=seed)
    first = _tree(seed=seed, max_active=2**30)
    est = np.array([_learn_one(first, x, c) for x, c in zip(X, y)])
    other = y.copy()
    rng = np.random.default_rng(seed + 100)
    other[est] = rng.integers(0, 2, est.sum())  # new labels on estimation points only
    assert (other != y).sum() > 300
    a, b = _tree(seed=seed, max_active=2**30), _tree(seed=seed, max_active=2**30)
    a.learn_rows(X, y)
    b.learn_rows(X, other)
    return a, b


def test_estimation_labels_never_reach_the_partition_one_feature():
    """Unbounded fringe, one feature (every leaf's candidate draws are the same whatever the
    order the fringe takes leaves in): labels changed on estimation points only give the
    same partition."""
    for seed in range(3):
        a, b = _relabelled_runs(d=1, seed=seed)
        assert a.splits > 50
        sa, sb = a.get_state(), b.get_state()
        for key in PARTITION:
            np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)


def test_estimation_labels_never_reach_the_partition():
    """Unbounded fringe (the fringe policy never chooses): labels changed on estimation
    points only give the same partition (section 3.2: estimation points are not permitted
    to influence the shape of the tree partition)."""
    for seed in range(3):
        a, b = _relabelled_runs(d=3, seed=seed)
        assert a.splits > 50
        sa, sb = a.get_state(), b.get_state()
        for key in PARTITION:
            assert sa[key].shape == sb[key].shape, key
            np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)


# ------------------------------------------------------------------------ splitting

def test_no_split_before_alpha_estimation_points_a_side():
    """Every split's two new leaves start with at least alpha(d) estimation points, d the
    depth of the leaf that split (checked at creation), and their start statistics are what
    went through the parent (weight[l] + weight[r] <= weight[parent])."""
    X, y = _data(4000, n_classes=3, seed=5)
    tree = _tree(seed=6, alpha=1.5, alpha_growth=1.3, beta=3.0)
    checked = set()
    before = tree.get_state()
    for x, c in zip(X, y):
        _learn_one(tree, x, c)
        after = tree.get_state()
        n = len(before["left"])
        if n and len(after["left"]) > n:
            assert len(after["left"]) == n + 2
            l, r = n, n + 1
            p = after["parent"][l]
            assert after["parent"][r] == p and after["left"][p] == l and after["right"][p] == r
            a = _alpha(after, _depth(after, p))
            assert after["weight"][l] >= a and after["weight"][r] >= a
            assert after["weight"][l] + after["weight"][r] <= after["weight"][p]
            np.testing.assert_array_equal(after["weight"][[l, r]], after["value"][[l, r]].sum(axis=1))
            checked.add(_depth(after, p))
        before = after
    assert tree.splits > 50 and len(checked) >= 4, checked


def _valid(hist, thresholds, a):
    """(points x dims) mask of the valid candidates: a threshold, alpha estimation points on
    each side."""
    return (hist[:, :, E_LEFT].sum(-1) >= a) & (hist[:, :, E_RIGHT].sum(-1) >= a) \
        & ~np.isnan(thresholds)


def test_must_split_past_beta_and_not_below():
    """With ShouldSplit out of reach (tau huge), a structure point reaching a fringe leaf
    that holds beta(d) estimation points and has a valid candidate splits it; below beta(d)
    (or without a valid candidate) the leaf stays a leaf; an estimation point never splits."""
    X, y = _data(4000, seed=7)
    tree = _tree(seed=8, min_gain=1e9, alpha=2.0, alpha_growth=1.1, beta=6.0, max_active=32)
    cases = {"must": 0, "below_beta": 0, "no_valid": 0, "inactive": 0}
    for x, c in zip(X, y):
        s = tree.get_state()
        fringe = tree.fringe()
        if s["root"] < 0:
            _learn_one(tree, x, c)
            continue
        j = route(s, x)[-1]
        d = _depth(s, j)
        a = _alpha(s, d)
        est = _learn_one(tree, x, c)
        after = tree.get_state()
        if est:
            assert after["left"][j] < 0 and len(after["left"]) == len(s["left"])
            continue
        if j not in fringe:
            case = "inactive"
        else:
            _, thr, hist = fringe[j]
            if not _valid(hist, thr, a).any():
                case = "no_valid"
            elif s["weight"][j] >= s["beta"] * a:
                case = "must"
            else:
                case = "below_beta"
        cases[case] += 1
        assert (after["left"][j] >= 0) == (case == "must"), (case, j)
        assert len(after["left"]) == len(s["left"]) + (2 if case == "must" else 0)
    assert min(cases.values()) > 0 and cases["must"] > 40 and cases["below_beta"] > 100, cases


def test_splits_follow_algorithms_3_to_7():
    """At a structure point a fringe leaf splits iff it has a valid candidate and either a
    valid candidate's gain (structure histograms, the point included) exceeds tau or the leaf
    holds beta(d) estimation points; it splits at a valid candidate of largest gain, and the
    new leaves start with that candidate's estimation histograms."""
    X, y = _data(3000, n_classes=3, seed=9)
    tree = _tree(seed=10, min_gain=0.05, alpha=2.0, alpha_growth=1.2, beta=6.0, candidate_points=5,
                 max_active=24)
    m = 5
    cases = {"should": 0, "must": 0, "wait": 0}
    for x, c in zip(X, y):
        s = tree.get_state()
        if s["root"] < 0:
            _learn_one(tree, x, c)
            continue
        fringe = tree.fringe()
        j = route(s, x)[-1]
        a = _alpha(s, _depth(s, j))
        est = _learn_one(tree, x, c)
        if est or j not in fringe:
            continue
        after = tree.get_state()
        cols, thr, hist = fringe[j]
        hist = hist.copy()
        # the point's own contribution to the structure histograms
        for k, col in enumerate(cols):
            hist[:, k, S_LEFT, int(c)] += x[col] <= thr[:, k]
            hist[:, k, S_RIGHT, int(c)] += x[col] > thr[:, k]
        valid = _valid(hist, thr, a)
        gains = np.array([[_gain(hist[p, k, S_LEFT], hist[p, k, S_RIGHT]) for k in range(len(cols))]
                          for p in range(len(thr))]).reshape(thr.shape)
        should = bool((valid & (gains > s["min_gain"])).any())
        must = bool(valid.any()) and s["weight"][j] >= s["beta"] * a
        split = after["left"][j] >= 0
        assert split == (should or must), (should, must, split)
        if not split:
            cases["wait"] += valid.any()
            # a point among the leaf's first m became a candidate
            if len(thr) < m:
                assert tree.fringe()[j][1].shape[0] == len(thr) + 1
            continue
        cases["should" if should else "must"] += 1
        best = gains[valid].max()
        chosen = [(p, k) for p, k in zip(*np.nonzero(valid))
                  if cols[k] == after["feature"][j] and thr[p, k] == after["threshold"][j]]
        assert chosen, "the split is not one of the leaf's valid candidates"
        p, k = chosen[-1]
        assert gains[p, k] >= best - 1e-12
        l, r = after["left"][j], after["right"][j]
        np.testing.assert_array_equal(after["value"][l], hist[p, k, E_LEFT])
        np.testing.assert_array_equal(after["value"][r], hist[p, k, E_RIGHT])
    assert cases["should"] > 20 and cases["must"] > 0 and cases["wait"] > 20, cases


def test_information_gain_finds_the_informative_threshold():
    """y = (x0 > 0.5), x1 noise, every feature a candidate: the root splits on x0 near 0.5.
    (tau and alpha high enough that a noise candidate's gain does not pass ShouldSplit and
    every candidate has collected points before one is valid.)"""
    off = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        X = rng.random((1500, 2))
        y = (X[:, 0] > 0.5).astype(np.float64)
        tree = _tree(seed=seed, candidate_features=50.0, candidate_points=20, alpha=100.0,
                     beta=1000.0, min_gain=0.3)
        tree.learn_rows(X, y)
        s = tree.get_state()
        root = s["root"]
        assert s["left"][root] >= 0, seed
        assert s["feature"][root] == 0, seed
        off.append(abs(s["threshold"][root] - 0.5))
        # the leaves below predict almost pure classes
        l, r = s["left"][root], s["right"][root]
        assert s["value"][l, 0] / s["weight"][l] > 0.8 and s["value"][r, 1] / s["weight"][r] > 0.8
    assert max(off) < 0.15 and np.median(off) < 0.08, off


# ------------------------------------------------------------------------ the fringe

@pytest.mark.parametrize("max_active, max_nodes", [(1, 31), (3, 41), (8, 62)])
def test_the_fringe_never_exceeds_its_cap(max_active, max_nodes):
    """At every step: at most max_active leaves in the fringe, counted right, leaves only,
    each with its own slot and a `fringe()` entry; the fringe is as full as it can be while
    the tree can split, and empty once it cannot (two more nodes do not fit)."""
    X, y = _data(4000, seed=11)
    tree = _tree(seed=12, max_active=max_active, max_nodes=max_nodes)
    capped = 0
    for x, c in zip(X, y):
        _learn_one(tree, x, c)
        s = tree.get_state()
        active = np.flatnonzero(s["slot"] >= 0)
        leaves = np.flatnonzero(s["left"] < 0)
        assert tree.active_leaves == s["n_active"] == len(active) <= max_active
        assert (s["left"][active] < 0).all()
        assert len(set(s["slot"][active])) == len(active)
        assert sorted(tree.fringe()) == active.tolist()
        assert tree.node_count <= max_nodes
        if tree.node_count + 2 > max_nodes:
            assert tree.active_leaves == 0 and tree.fringe() == {}
            capped += 1
        else:
            assert tree.active_leaves == min(max_active, len(leaves))
    assert tree.node_count >= max_nodes - 1 and capped > 1000


def _score(s, j):
    """p(A) e(A) of a leaf as the fringe policy estimates it."""
    elapsed = s["n_estimation"] - s["born"][j]
    if elapsed <= 0.0:
        return 0.0
    return (s["weight"][j] - s["value"][j].max()) / elapsed


def test_the_fringe_takes_the_leaves_of_largest_p_times_e():
    """After a split, the leaves that entered the fringe score at least as high as every
    leaf left outside."""
    X, y = _data(4000, n_classes=3, seed=13, noise=0.4)
    tree = _tree(seed=14, max_active=4)
    checked = 0
    before = tree.get_state()
    for x, c in zip(X, y):
        _learn_one(tree, x, c)
        after = tree.get_state()
        if len(before["left"]) and len(after["left"]) > len(before["left"]):
            n = len(before["left"])
            was = np.concatenate([before["slot"], [-1, -1]]) >= 0
            now = after["slot"] >= 0
            leaves = after["left"] < 0
            entered = np.flatnonzero(now & ~was)
            outside = np.flatnonzero(leaves & ~now)
            assert tree.active_leaves == min(4, leaves.sum())  # the freed place is taken
            if len(outside):
                low = min(_score(after, j) for j in entered)
                high = max(_score(after, j) for j in outside)
                assert low >= high
                checked += 1
            assert n + 2 == len(after["left"])
        before = after
    assert checked > 30


def test_pool_memory_stays_bounded():
    """A stationary stream and a small node cap: the tree's bytes (pools included) after
    20,000 and 60,000 samples differ by less than 10%."""
    X, y = _data(60_000, seed=15)
    tree = _tree(seed=16, max_nodes=63, alpha=2.0, beta=4.0)
    tree.learn_rows(X[:20_000], y[:20_000])
    assert tree.node_count == 63 and tree.active_leaves == 0
    small = sys.getsizeof(tree)
    tree.learn_rows(X[20_000:], y[20_000:])
    large = sys.getsizeof(tree)
    assert abs(large - small) < 0.1 * small, (small, large)


# ------------------------------------------------------------------------ classes and pickles

def test_the_pool_regrows_when_a_class_appears():
    """A third (then a fifth: the value rows double 2 -> 4 -> 8) class mid-stream: the fringe
    histograms of the old classes are those before plus the new sample's counts in its own
    column, which starts at zero; a pickle round trip taken before and after it is exact."""
    X, y = _data(3000, n_classes=2, seed=19)
    rng = np.random.default_rng(20)
    y[1500:] = rng.integers(0, 3, 1500)
    y[1500] = 2
    y[2500:] = rng.integers(0, 5, 500)
    y[2500:2502] = [3, 4]
    tree = _tree(seed=21, max_active=16)
    tree.learn_rows(X[:1500], y[:1500])
    early = pickle.loads(pickle.dumps(tree))
    checked = 0
    for i in range(1500, 3000):
        x, c = X[i], y[i]
        new = c >= tree.get_state()["n_values"]
        if new:
            s = tree.get_state()
            fringe = tree.fringe()
            j = route(s, x)[-1]
            est = _learn_one(tree, x, c)
            after = tree.fringe()
            assert after, "an empty fringe checks nothing"
            for leaf, (cols, thr, hist) in after.items():
                if leaf not in fringe:
                    continue  # a new leaf of a split
                _, thr0, hist0 = fringe[leaf]
                k0 = hist0.shape[-1]
                assert hist.shape[-1] == c + 1
                expect = np.zeros(hist.shape[:-1])
                if leaf == j:
                    part = E_LEFT if est else S_LEFT
                    for k, col in enumerate(cols):
                        expect[:, k, part] = x[col] <= thr[:, k]
                        expect[:, k, part + 1] = x[col] > thr[:, k]
                    # a new candidate point of the leaf (structure stream) counts itself left
                    assert len(thr) == len(thr0) + (0 if est or len(thr0) == 10 else 1)
                    np.testing.assert_array_equal(thr[:len(thr0)], thr0)
                else:
                    assert len(thr) == len(thr0)
                np.testing.assert_array_equal(hist[:len(thr0), :, :, :k0], hist0)
                np.testing.assert_array_equal(hist[:, :, :, k0:].sum(-1), expect)
                checked += 1
        else:
            _learn_one(tree, x, c)
    assert checked > 20 and tree.get_state()["n_values"] == 5
    early.learn_rows(X[1500:], y[1500:])
    _assert_same_state(early.get_state(), tree.get_state())
    back = pickle.loads(pickle.dumps(tree))
    _assert_same_state(back.get_state(), tree.get_state())
    X2, y2 = _data(500, seed=22, n_classes=5)
    back.learn_rows(X2, y2)
    tree.learn_rows(X2, y2)
    _assert_same_state(back.get_state(), tree.get_state())


@pytest.mark.parametrize("max_active", [3, 2**30])
def test_a_mid_stream_pickle_resumes_bit_identically_tree(max_active):
    X, y = _data(4000, n_classes=3, seed=23)
    for cut in (1, 40, 700, 2500):
        tree = _tree(seed=24, max_active=max_active)
        tree.learn_rows(X[:cut], y[:cut])
        back = pickle.loads(pickle.dumps(tree))
        _assert_same_state(back.get_state(), tree.get_state())
        tree.learn_rows(X[cut:], y[cut:])
        back.learn_rows(X[cut:], y[cut:])
        assert tree.splits > 30
        _assert_same_state(back.get_state(), tree.get_state())


def test_a_pickle_at_the_node_cap_resumes_bit_identically():
    X, y = _data(3000, seed=25)
    tree = _tree(seed=26, max_nodes=41)
    tree.learn_rows(X, y)
    assert tree.node_count == 41 and tree.active_leaves == 0
    back = pickle.loads(pickle.dumps(tree))
    _assert_same_state(back.get_state(), tree.get_state())


def test_a_mid_stream_pickle_resumes_bit_identically_forest():
    rng = random.Random(27)
    stream = []
    for _ in range(3000):
        x = {"a": rng.random(), "b": rng.gauss(0, 2), "c": rng.random()}
        if rng.random() < 0.05:
            del x["c"]
        stream.append((x, ["lo", "mid", "hi"][min(int(x["a"] * 3 + 0.3 * rng.random()), 2)]))
    model = StreamPartitionForestClassifier(n_estimators=3, alpha=2.0, beta=4.0, max_active_leaves=8,
                                            splitter="points", honest=True, leaf_prediction="majority",
                                            subsampling=None, seed=28)
    for x, y in stream[:1200]:
        model.learn_one(x, y)
    back = pickle.loads(pickle.dumps(model))
    for x, y in stream[1200:]:
        assert back.predict_proba_one(x) == model.predict_proba_one(x)
        model.learn_one(x, y)
        back.learn_one(x, y)
    assert model.n_splits > 100
    assert back._core.labels == model._core.labels
    for a, b in zip(model.trees, back.trees):
        _assert_same_state(a.get_state(), b.get_state())


@pytest.mark.parametrize("name, bad", [
    ("structure_fraction", 0.0), ("structure_fraction", 1.0), ("structure_fraction", "half"),
    ("max_features", 0.5), ("max_features", float("nan")),
    ("candidate_points", 0), ("candidate_points", 2.5),
    ("min_gain", -0.1), ("alpha", 0.0), ("alpha_growth", 0.99), ("beta", 0.5),
    ("max_active_leaves", 0), ("max_active_leaves", True),
])
def test_bad_parameters_are_refused_by_name(name, bad):
    with pytest.raises(ValueError, match=name):
        StreamPartitionForestClassifier(**{name: bad})


def test_a_regression_tree_takes_the_papers_splitter_and_mean_leaves_only():
    StreamPartitionTree(task=1, max_nodes=7, seed=0)  # the points splitter, majority leaves
    with pytest.raises(ValueError, match="candidate points"):
        StreamPartitionTree(task=1, max_nodes=7, seed=0, splitter=1)
    with pytest.raises(ValueError, match="mean"):
        StreamPartitionTree(task=1, max_nodes=7, seed=0, leaf_prediction=2)


# ---------------------------------------------------------------- the regressor


def _step_stream(n, seed=0):
    """y = 10 [x0 > 0.5] + noise, x1..x3 irrelevant."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, 4))
    y = 10.0 * (X[:, 0] > 0.5) + 0.3 * rng.standard_normal(n)
    return [({f"x{j}": float(X[i, j]) for j in range(4)}, float(y[i])) for i in range(n)]


def test_the_regressors_fringe_sums_are_the_brute_force_sums():
    """With no split possible (alpha huge), each candidate (point p, feature k) holds the
    weight, sum and sum of squares of the targets of the structure points from the p-th on,
    per side of its threshold."""
    from river_forests import StreamPartitionForestRegressor

    data = _step_stream(60, seed=1)
    model = StreamPartitionForestRegressor(n_estimators=1, seed=0, alpha=1e9, subsampling=None,
                                           honest=False, max_features=5.0, candidate_points=4)
    for x, y in data:
        model.learn_one(x, y)
    (columns, thresholds, hists), = model.trees[0].fringe().values()
    names = list(model._core.features.names)
    for p in range(thresholds.shape[0]):
        for k, col in enumerate(columns):
            t = thresholds[p, k]
            for side in (0, 1):
                ys = [y for x, y in data[p:] if (x[names[col]] <= t) == (side == 0)]
                want = [sum(ys), sum(v * v for v in ys), len(ys)]
                assert hists[p, k, side] == pytest.approx(want, rel=1e-12, abs=1e-9)


def test_the_regressor_splits_where_the_target_jumps():
    from river_forests import StreamPartitionForestRegressor

    model = StreamPartitionForestRegressor(n_estimators=5, seed=3)
    for x, y in _step_stream(3000):
        model.learn_one(x, y)
    names = list(model._core.features.names)
    roots = [tree.get_state() for tree in model.trees]
    # most roots split on x0 (a root decides on its first structure points, which with
    # Poisson(10) weights are few: a tree may split on noise first and on x0 below)
    on_x0 = [st for st in roots if names[st["feature"][st["root"]]] == "x0"]
    assert len(on_x0) >= 3
    assert all(abs(st["threshold"][st["root"]] - 0.5) < 0.25 for st in on_x0)
    high = model.predict_one({"x0": 0.9, "x1": 0.5, "x2": 0.5, "x3": 0.5})
    low = model.predict_one({"x0": 0.1, "x1": 0.5, "x2": 0.5, "x3": 0.5})
    assert high > 7.5 and low < 2.5


def test_the_regressor_learns_friedman_better_than_the_mean():
    from river import metrics, stats
    from river.datasets import synth

    from river_forests import StreamPartitionForestRegressor

    model = StreamPartitionForestRegressor(n_estimators=5, seed=1)
    mae, base, mean = metrics.MAE(), metrics.MAE(), stats.Mean()
    for x, y in synth.Friedman(seed=42).take(4000):
        mae.update(y, model.predict_one(x))
        base.update(y, mean.get())
        model.learn_one(x, y)
        mean.update(y)
    assert mae.get() < 0.8 * base.get()


@pytest.mark.parametrize("params", [{"splitter": "gaussian"}, {"leaf_prediction": "adaptive"},
                                    {"honest": "yes"}, {"alpha": 0.0}, {"min_gain": -1.0}])
def test_the_regressor_refuses_bad_parameters(params):
    from river_forests import StreamPartitionForestRegressor

    with pytest.raises((ValueError, TypeError)):
        StreamPartitionForestRegressor(**params)
