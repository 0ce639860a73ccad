"""XForestClassifier (Xu et al., algorithms 1 and 2, XForest-Zero of section 2.2): the XTree's
batch growth at the false roots, the forest's swaps, the batch buffer of `learn_one`,
`refit_many`, pickling, parameters and threads; and XForestRegressor, the same tree with
the squared error (section 9). Every expectation here is recomputed in
Python from the batch rows and the trees' state arrays (`get_state`), not read back from
the code under test."""

from __future__ import annotations

import collections
import pickle
import threading

import numpy as np
import pandas as pd
import pytest

from river_forests import StreamPartitionForestClassifier
from river_forests import XForestClassifier as _XForestClassifier
from river_forests import XForestRegressor as _XForestRegressor
from river_forests._core._random import tree_seed

from .conftest import ESTIMATORS, is_classifier, name_of, route, same_state

# ------------------------------------------------------------------------------- helpers


#: the paper's algorithm, which these tests check against algorithms 1 and 2 (the package's
#: defaults since 0.3.0 try 60% of the features, learn each batch without a bootstrap and
#: split nodes of 5 rows or more: `python -m benchmarks experiment few_samples`)
PAPER_ALGORITHM = dict(max_features="sqrt", bootstrap=True, min_samples_split=2, features_per_tree=64,
                       kept_rows=0, drift_detector=None)


def XForestClassifier(**params):
    return _XForestClassifier(**{**PAPER_ALGORITHM, **params})


def frame(V) -> pd.DataFrame:
    return pd.DataFrame(V, columns=[f"x{j}" for j in range(V.shape[1])])


def noisy_batch(rng, n, d=4, n_classes=2, noise=0.25):
    """`n` rows of `d` uniform features; the label is a band of x0 + x1 / 2 (`n_classes`
    bands), replaced by a random label with probability `noise` (so trees keep growing)."""
    V = rng.random((n, d))
    score = V[:, 0] + 0.5 * V[:, 1]
    y = np.digitize(score, np.linspace(0.0, 1.5, n_classes + 1)[1:-1])
    flip = rng.random(n) < noise
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return frame(V), pd.Series([f"c{k}" for k in y])


def states(model):
    return [t.get_state() for t in model.trees]


def depth_of(state, j) -> int:
    d = 0
    while state["parent"][j] >= 0:
        j = state["parent"][j]
        d += 1
    return d


def registry_rows(model, X: pd.DataFrame) -> np.ndarray:
    """X's rows in the forest's registry column order (what `route` reads)."""
    return X[model._core.features.names].to_numpy(dtype=np.float64)


def class_index(model, y) -> np.ndarray:
    return np.array([model._core.labels.index(v) for v in y])


def rows_at_nodes(state, rows) -> dict:
    """node -> indices of the rows whose path goes through it."""
    at = collections.defaultdict(list)
    for i, x in enumerate(rows):
        for j in route(state, x):
            at[j].append(i)
    return at


def leaf_estimate(state, x) -> np.ndarray:
    """A tree's prediction with smoothing 0: the class counts of the deepest node of the path
    that has seen data, normalised."""
    path = route(state, x)
    node = next(j for j in reversed(path) if state["weight"][j] > 0)
    return state["value"][node] / state["weight"][node]


def pickled(model) -> bytes:
    return pickle.dumps(model)


def _canonical(obj):
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.dtype.str, obj.shape, obj.tobytes())
    if isinstance(obj, dict):
        return ("dict", tuple(sorted(((repr(k), _canonical(v)) for k, v in obj.items()),
                                     key=lambda kv: kv[0])))
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, tuple(_canonical(v) for v in obj))
    if isinstance(obj, float):
        return ("float", np.float64(obj).tobytes())
    if isinstance(obj, type):
        return ("type", obj.__module__, obj.__qualname__)
    return obj


def snapshot(model):
    """Everything a model pickles, bit for bit (its parameters, its core's trees, registries,
    forest state and buffer), in a form that compares equal whatever pickle's memo did:
    two pickles of equal models may differ in bytes where one shares a string the other
    copies."""
    params = {k: v for k, v in model.__dict__.items() if k != "_core"}
    return _canonical((params, model._core.__reduce__()[1]))


# --------------------------------------------------------- 1. splits made never change


def test_existing_splits_never_change_and_new_nodes_are_appended():
    rng = np.random.default_rng(1)
    model = XForestClassifier(n_estimators=4, n_swaps=0, seed=7)
    X, y = noisy_batch(rng, 60)
    model.learn_many(X, y)
    prev = states(model)
    appended = became_interior = 0
    for _ in range(6):
        X, y = noisy_batch(rng, 60)
        model.learn_many(X, y)
        now = states(model)
        assert model.n_replaced == 0
        for old, new in zip(prev, now):
            n, m = len(old["left"]), len(new["left"])
            assert m >= n
            interior = old["left"] >= 0
            # old interior nodes: same cut, same children; every old node: same parent
            for key in ("feature", "threshold", "left", "right"):
                np.testing.assert_array_equal(new[key][:n][interior], old[key][interior])
            np.testing.assert_array_equal(new["parent"][:n], old["parent"])
            assert new["root"] == old["root"] == 0
            # a node that changed was a leaf, and its children are new nodes
            changed = new["left"][:n] != old["left"]
            assert (old["left"][changed] == -1).all() and (old["feature"][changed] == -1).all()
            assert (new["left"][:n][changed] >= n).all()
            assert (new["right"][:n][changed] == new["left"][:n][changed] + 1).all()
            became_interior += int(changed.sum())
            # appended nodes hang below an earlier node, as one of its two children
            for j in range(n, m):
                p = new["parent"][j]
                assert 0 <= p < j and j in (new["left"][p], new["right"][p])
            appended += m - n
            # statistics only accumulate; the bootstrap draws n rows for n rows
            assert (new["weight"][:n] >= old["weight"][:n]).all()
            assert (new["value"][:n, : old["value"].shape[1]] >= old["value"]).all()
            assert new["weight"][0] == old["weight"][0] + 60
        prev = now
    assert appended > 0 and became_interior > 0


# ------------------------------------------------ 2. a leaf splits only where justified


@pytest.mark.parametrize("regression", [False, True], ids=["classes", "values"])
def test_a_batch_of_one_target_never_splits(regression):
    """A batch whose rows all have one class (one value) splits nothing; a later such batch
    splits nothing more, whatever its target."""
    cls, batch = (XForestRegressor, regression_batch) if regression else \
        (XForestClassifier, noisy_batch)
    first, later = ([2.5], [-1.0]) if regression else (["a"], ["c1"])
    rng = np.random.default_rng(32 if regression else 2)
    model = cls(n_estimators=3, seed=1)
    X, _ = batch(rng, 50)
    model.learn_many(X, pd.Series(first * 50))
    assert [t.node_count for t in model.trees] == [1, 1, 1] and model.n_splits == 0
    X, y = batch(rng, 80)
    model.learn_many(X, y)
    grown = [t.node_count for t in model.trees]
    assert all(c > 1 for c in grown)
    for _ in range(3):
        X, _ = batch(rng, 80)
        model.learn_many(X, pd.Series(later * 80))
        assert [t.node_count for t in model.trees] == grown


def _two_leaf_tree(k, bootstrap, seed):
    """A one-tree forest whose first batch splits the root at x0 = 0.5 into two pure leaves
    (x1 is constant in that batch)."""
    model = XForestClassifier(n_estimators=1, max_features=None, min_samples_split=k,
                              bootstrap=bootstrap, n_swaps=0, seed=seed)
    X1 = pd.DataFrame({"x0": [0.0, 1.0] * 10, "x1": [0.5] * 20})
    model.learn_many(X1, pd.Series(["a", "b"] * 10))
    s = model.trees[0].get_state()
    assert len(s["left"]) == 3 and s["feature"][0] == 0 and s["threshold"][0] == 0.5
    return model


def _second_batch(n_left, n_right):
    """n_left rows in the root's left leaf (x0 = 0), n_right in its right leaf (x0 = 1), both
    of two classes separated by x1."""
    x1_l = np.linspace(0.1, 0.9, n_left)
    x1_r = np.linspace(0.1, 0.9, n_right)
    X = pd.DataFrame({"x0": [0.0] * n_left + [1.0] * n_right, "x1": np.r_[x1_l, x1_r]})
    y = ["a" if v < 0.5 else "b" for v in x1_l] + ["a" if v < 0.5 else "b" for v in x1_r]
    return X, pd.Series(y)


@pytest.mark.parametrize("k", [3, 5])
def test_min_samples_split_needs_that_many_rows_at_the_false_root(k):
    model = _two_leaf_tree(k, bootstrap=False, seed=0)
    X, y = _second_batch(k - 1, k)
    model.learn_many(X, y)
    s = model.trees[0].get_state()
    left, right = s["left"][0], s["right"][0]
    assert s["weight"][left] == 10 + (k - 1)  # the rows did reach the left leaf
    assert s["left"][left] == -1  # k - 1 rows: stays a leaf
    assert s["left"][right] >= 0 and s["feature"][right] == 1  # k rows: splits on x1
    # exactly k rows on the left: it splits too
    model = _two_leaf_tree(k, bootstrap=False, seed=0)
    model.learn_many(*_second_batch(k, k))
    s = model.trees[0].get_state()
    assert s["left"][s["left"][0]] >= 0


@pytest.mark.parametrize("k", [3, 5])
def test_min_samples_split_counts_distinct_rows_not_bootstrap_weight(k):
    """With the bootstrap a row may be drawn several times: a false root reached by k - 1
    distinct rows never splits, whatever their total weight."""
    heavy = 0
    for seed in range(40):
        model = _two_leaf_tree(k, bootstrap=True, seed=seed)
        left = model.trees[0].get_state()["left"][0]
        w0 = model.trees[0].get_state()["weight"][left]
        model.learn_many(*_second_batch(k - 1, k))
        s = model.trees[0].get_state()
        assert s["left"][left] == -1
        heavy += s["weight"][left] - w0 >= k
    assert heavy > 0  # some seeds did give the k - 1 rows a weight of k or more


def test_thresholds_are_midpoints_of_the_batch_rows_and_leaves_end_pure():
    """bootstrap=False, one tree, every feature: each split made by a batch cuts between two
    consecutive distinct values of the batch rows that reached the node, those rows are of
    more than one class, and the growth goes on until every leaf the batch reaches holds
    rows of one class (continuous features: any two rows can be separated)."""
    rng = np.random.default_rng(3)
    model = XForestClassifier(n_estimators=1, max_features=None, bootstrap=False, n_swaps=0,
                              seed=5)
    n_before, left_before = 0, np.array([], dtype=np.int32)
    checked = 0
    for _ in range(3):
        X, y = noisy_batch(rng, 40, d=3, n_classes=3, noise=0.3)
        model.learn_many(X, y)
        s = model.trees[0].get_state()
        rows = registry_rows(model, X)
        labels = y.to_numpy()
        at = rows_at_nodes(s, rows)
        made = [j for j in range(len(s["left"])) if s["left"][j] >= 0
                and (j >= n_before or left_before[j] < 0)]
        assert made
        for j in made:
            f, t = s["feature"][j], s["threshold"][j]
            idx = at[j]
            assert len(idx) >= 2 and len(set(labels[idx])) >= 2
            u = np.unique(rows[idx, f])
            assert t in set(u[:-1] / 2.0 + u[1:] / 2.0), (j, t, u)
            go_left = rows[idx, f] <= t
            assert 0 < go_left.sum() < len(idx)
            checked += 1
        for j, idx in at.items():
            if s["left"][j] < 0:
                assert len(set(labels[idx])) == 1, (j, labels[idx])
        n_before, left_before = len(s["left"]), s["left"].copy()
    assert checked > 10


def _impurity(counts, criterion):
    c = np.asarray(counts, dtype=float)
    p = c[c > 0] / c.sum()
    return 1.0 - np.sum(p * p) if criterion == "gini" else -np.sum(p * np.log2(p))


def brute_force_splits(V, y, criterion):
    """Every (gain, feature, threshold) of the rows, best first: gain is the parent's impurity
    minus the children's, weighted by their shares of the rows."""
    n, d = V.shape
    classes = np.unique(y)
    counts = lambda mask: [np.sum(y[mask] == c) for c in classes]  # noqa: E731
    parent = _impurity(counts(np.ones(n, bool)), criterion)
    out = []
    for f in range(d):
        u = np.unique(V[:, f])
        for a, b in zip(u[:-1], u[1:]):
            t = a / 2.0 + b / 2.0
            L = V[:, f] <= t
            gain = parent - L.sum() / n * _impurity(counts(L), criterion) \
                - (~L).sum() / n * _impurity(counts(~L), criterion)
            out.append((gain, f, t))
    return sorted(out, key=lambda r: -r[0])


def _root_split_data(seed):
    r = np.random.default_rng(seed)
    V = r.random((24, 4))
    y = np.digitize(V[:, 1] + 0.6 * r.random(24) * V[:, 2] + 0.3 * r.random(24), [0.6, 1.1])
    return V, y


# data seeds whose best split is unique (by more than 1e-6) under both criteria, and where
# the Gini and the entropy choose different splits
DIFFERENT_BEST = []
for _s in range(200):
    _V, _y = _root_split_data(_s)
    if len(np.unique(_y)) < 3:
        continue
    _g, _e = brute_force_splits(_V, _y, "gini"), brute_force_splits(_V, _y, "entropy")
    if _g[0][0] - _g[1][0] > 1e-6 and _e[0][0] - _e[1][0] > 1e-6 and _g[0][1:] != _e[0][1:]:
        DIFFERENT_BEST.append(_s)
    if len(DIFFERENT_BEST) == 4:
        break


@pytest.mark.parametrize("data_seed", DIFFERENT_BEST)
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_the_root_split_is_the_brute_force_best(data_seed, criterion):
    assert len(DIFFERENT_BEST) == 4
    V, y = _root_split_data(data_seed)
    _, f, t = brute_force_splits(V, y, criterion)[0]
    for tree_seed_ in range(3):  # the order features are tried in does not matter
        model = XForestClassifier(n_estimators=1, max_features=None, bootstrap=False,
                                  criterion=criterion, seed=tree_seed_)
        model.learn_many(frame(V), pd.Series(y))
        s = model.trees[0].get_state()
        assert (s["feature"][0], s["threshold"][0]) == (f, t)


def test_max_features_one_splits_at_the_best_cut_of_the_feature_drawn():
    """max_features=1: the root cuts one random non-constant feature (different features
    over seeds), at that feature's brute-force best threshold."""
    V, y = _root_split_data(DIFFERENT_BEST[0])
    best_of = {}
    for gain, f, t in brute_force_splits(V, y, "gini"):
        best_of.setdefault(f, []).append((gain, t))
    for f, cuts in best_of.items():  # each feature's best cut is unique
        assert cuts[0][0] - cuts[1][0] > 1e-9
    seen = set()
    for seed in range(30):
        model = XForestClassifier(n_estimators=1, max_features=1, bootstrap=False, seed=seed)
        model.learn_many(frame(V), pd.Series(y))
        s = model.trees[0].get_state()
        f = s["feature"][0]
        assert s["threshold"][0] == best_of[f][0][1]
        seen.add(f)
    assert len(seen) == 4


def test_max_depth_is_honoured():
    rng = np.random.default_rng(4)
    for max_depth in (1, 3):
        model = XForestClassifier(n_estimators=3, max_depth=max_depth, n_swaps=0, seed=2)
        for _ in range(5):
            model.learn_many(*noisy_batch(rng, 80, n_classes=3, noise=0.4))
        depths = [max(depth_of(s, j) for j in range(len(s["left"]))) for s in states(model)]
        assert max(depths) == max_depth and min(depths) >= 1
        if max_depth == 1:
            assert [t.node_count for t in model.trees] == [3, 3, 3]


def test_max_nodes_caps_every_tree():
    rng = np.random.default_rng(5)
    model = XForestClassifier(n_estimators=3, max_nodes=8, n_swaps=0, seed=3)
    for _ in range(6):
        model.learn_many(*noisy_batch(rng, 60, noise=0.4))
        assert all(t.node_count <= 8 for t in model.trees)
    assert [t.node_count for t in model.trees] == [7, 7, 7]  # a split adds two nodes
    for cap in (1, 2):  # no room for two children: the root stays a leaf
        model = XForestClassifier(n_estimators=2, max_nodes=cap, seed=3)
        for _ in range(3):
            model.learn_many(*noisy_batch(rng, 60, noise=0.4))
        assert [t.node_count for t in model.trees] == [1, 1]
        assert all(t.samples_seen > 0 for t in model.trees)


def test_breadth_first_growth_spreads_the_last_nodes():
    """A fresh tree capped at 15 nodes on a big noisy batch is the complete tree of depth 3
    (depth first would have gone deeper in one branch)."""
    rng = np.random.default_rng(6)
    model = XForestClassifier(n_estimators=1, max_nodes=15, bootstrap=False, n_swaps=0,
                              max_features=None, seed=1)
    model.learn_many(*noisy_batch(rng, 400, noise=0.45))
    s = model.trees[0].get_state()
    depths = [depth_of(s, j) for j in range(len(s["left"]))]
    leaves = [j for j in range(len(s["left"])) if s["left"][j] < 0]
    assert len(depths) == 15 and max(depths) == 3
    assert sorted(depths[j] for j in leaves) == [3] * 8


def test_breadth_first_growth_splits_every_false_root_before_their_children():
    """After a first batch that makes two leaves, a cap leaving room for two more splits
    spends it on the two false roots, one split each."""
    rng = np.random.default_rng(7)
    model = XForestClassifier(n_estimators=1, max_nodes=7, bootstrap=False, n_swaps=0,
                              max_features=None, seed=1)
    model.learn_many(pd.DataFrame({"x0": [0.0, 1.0], "x1": [0.5, 0.5]}), pd.Series(["a", "b"]))
    assert model.trees[0].node_count == 3
    V = rng.random((300, 2))
    y = np.where(rng.random(300) < 0.5, "a", "b")
    model.learn_many(frame(V), pd.Series(y))
    s = model.trees[0].get_state()
    assert len(s["left"]) == 7
    assert sorted(s["parent"][3:]) == [1, 1, 2, 2]


# ------------------------------------------------------------------ 3. the forest's swaps


def _swap_run(seed, n_batches, n_swaps=1, n_estimators=2):
    """Replacements after each batch (n_replaced increments) of a forest on tiny batches."""
    rng = np.random.default_rng(0)
    X = frame(rng.random((4, 2)))
    y = pd.Series(["a", "b", "a", "b"])
    model = XForestClassifier(n_estimators=n_estimators, n_swaps=n_swaps, seed=seed)
    out, last = [], 0
    for _ in range(n_batches):
        model.learn_many(X, y)
        out.append(model.n_replaced - last)
        last = model.n_replaced
    return out


def test_replacement_happens_with_probability_one_over_b():
    B, n_seeds = 10, 400
    runs = np.array([_swap_run(seed, B) for seed in range(n_seeds)])  # (seeds, batches)
    assert set(np.unique(runs)) <= {0, 1}
    assert runs[:, 0].sum() == 0  # batch 1 never replaces
    p = np.array([1.0 / b for b in range(2, B + 1)])
    # total replacements per forest: mean sum_{b=2}^{B} 1/b
    total = runs.sum(axis=1)
    se = np.sqrt(np.sum(p * (1 - p)) / n_seeds)
    assert abs(total.mean() - p.sum()) < 4 * se, (total.mean(), p.sum())
    # and batch by batch
    freq = runs[:, 1:].mean(axis=0)
    se_b = np.sqrt(p * (1 - p) / n_seeds)
    assert (np.abs(freq - p) < 4 * se_b).all(), (freq, p)


def test_no_swaps_without_n_swaps_and_n_swaps_trees_at_a_time():
    for seed in range(30):
        assert sum(_swap_run(seed, 8, n_swaps=0)) == 0
    steps = [s for seed in range(30) for s in _swap_run(seed, 8, n_swaps=2, n_estimators=3)]
    assert set(steps) == {0, 2}


def _tree_votes(state, rows):
    return np.array([int(np.argmax(leaf_estimate(state, x))) for x in rows])


def _accuracy(state, rows, targets) -> float:
    return float(np.mean(_tree_votes(state, rows) == targets))


def _spy_on_swaps(model, score=_accuracy, name="acc"):
    """Wrap the forest's after-batch step: before it runs (the trees have learned the
    batch), score each tree on the batch in Python (`score(state, rows, targets)`, recorded
    as `name`); after it, see which trees changed."""
    records = []
    original = model._after_batch

    def spy(core, rows, targets):
        old = list(core.trees)
        scores = np.array([score(t.get_state(), rows, targets) for t in old])
        k0 = core.n_replaced
        original(core, rows, targets)
        replaced = [i for i in range(len(old)) if core.trees[i] is not old[i]]
        records.append({name: scores, "replaced": replaced, "k0": k0, "rows": np.array(rows),
                        "targets": np.array(targets),
                        "new": [core.trees[i].get_state() for i in replaced]})

    model._after_batch = spy
    return records


@pytest.mark.parametrize("n_swaps", [1, 2])
def test_the_worst_trees_on_the_batch_are_replaced_by_trees_grown_on_it(n_swaps):
    rng = np.random.default_rng(8)
    n_est, n = 4, 30
    model = XForestClassifier(n_estimators=n_est, n_swaps=n_swaps, max_features=1, seed=11,
                              smoothing=0.0)  # the paper's leaf estimate scores the trees
    records = _spy_on_swaps(model)
    for _ in range(40):
        model.learn_many(*noisy_batch(rng, n, n_classes=3, noise=0.3))
    swaps = [r for r in records if r["replaced"]]
    assert len(swaps) >= 3 and model.n_replaced == n_swaps * len(swaps)
    assert any(len(set(r["acc"])) > 1 for r in swaps)  # the choice was not a blind tie
    for r in swaps:
        order = np.argsort(r["acc"], kind="stable")[:n_swaps]  # ties: the first trees
        assert sorted(r["replaced"]) == sorted(order.tolist())
        for m, i in enumerate(order):
            s = r["new"][r["replaced"].index(i)]  # the new tree as it took its place
            # grown on this batch alone: one batch, the bootstrap's n draws of its rows
            assert s["n_batches"] == 1 and 0 < s["n_seen"] <= n and s["weight"][0] == n
            # exactly the forest's next replacement seed, learning exactly this batch
            fresh = model._tree_factory(tree_seed(model._core.master_seed, n_est + r["k0"] + m))
            fresh.learn_rows(r["rows"], r["targets"])
            assert same_state(fresh.get_state(), s)


def test_same_seed_same_stream_same_replacements():
    def run(seed):
        rng = np.random.default_rng(9)
        model = XForestClassifier(n_estimators=3, n_swaps=1, batch_size=7, seed=seed)
        trace = []
        for x, y in zip(*_dict_stream(rng, 300)):
            model.learn_one(x, y)
            trace.append(model.n_replaced)
        return model, trace

    a, ta = run(4)
    b, tb = run(4)
    assert ta == tb and ta[-1] > 0 and snapshot(a) == snapshot(b)
    assert any(run(s)[1] != ta for s in (5, 6, 7))


# --------------------------------------------------------------- 4. refit (XForest-Zero)

STATISTICS = {"weight", "value", "n_values",
              # the stream-partitioning forest also forgets its fringe's histograms
              "born", "hists", "hists_offsets", "n_estimation",
              # the BSP tree forgets its kept points' targets (a later cut would count them)
              "targets",
              # the Mondrian tree refits its linear models and restarts its aggregation weights
              "coef", "logw", "logwt"}


def _refit_targets(cls, X, first_task):
    if is_classifier(cls):
        if first_task:
            return pd.Series(np.where(X["x0"] + 0.3 * X["x1"] > 0.6, "p", "q"))
        return pd.Series(np.where(X["x1"] > 0.5, "r", np.where(X["x2"] > 0.5, "p", "s")))
    return pd.Series(3.0 * X["x0"] - X["x1"]) if first_task else pd.Series(5.0 * X["x2"] ** 2)


PAPER_SPLITTER = dict(splitter="points", honest=True, leaf_prediction="majority")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_refit_keeps_the_structure_and_counts_the_refit_rows(cls):
    rng = np.random.default_rng(10)
    # the stream-partitioning forest's paper splitter: the Gaussian one keeps its split
    # counters beside the candidate columns, and a refit clears them with the summaries
    model = cls(n_estimators=3, seed=1, **(PAPER_SPLITTER if cls is StreamPartitionForestClassifier else {}))
    X = frame(rng.random((1000, 3)))
    y = _refit_targets(cls, X, True)
    for i in range(0, 1000, 100):
        model.learn_many(X.iloc[i:i + 100], y.iloc[i:i + 100])
    before = states(model)
    assert all(len(s["left"]) > 1 for s in before)
    X2 = frame(rng.random((200, 3)))
    y2 = _refit_targets(cls, X2, False)
    model.refit_many(X2, y2)
    after = states(model)
    rows = registry_rows(model, X2)
    for old, new in zip(before, after):
        for key in old:
            if key not in STATISTICS:
                u, v = old[key], new[key]
                assert same_state({key: u}, {key: v}), key
        assert not same_state({"w": old["weight"]}, {"w": new["weight"]})
        # the statistics are those of the refit rows alone, counted along their paths
        weight = np.zeros(len(new["left"]))
        value = np.zeros_like(new["value"])
        for x, t in zip(rows, y2):
            for j in route(new, x):
                weight[j] += 1.0
                if is_classifier(cls):
                    value[j, model._core.labels.index(t)] += 1.0
                else:  # (sum y, sum y^2); the stream-partitioning tree keeps a third, zero
                    value[j, :2] += (t, t * t)  # cell, for its fringe's sums of weights
        np.testing.assert_array_equal(new["weight"], weight)
        np.testing.assert_allclose(new["value"], value, rtol=1e-12, atol=0)


def test_refit_predictions_are_the_leaf_frequencies_of_the_refit_rows():
    rng = np.random.default_rng(11)
    model = XForestClassifier(n_estimators=1, n_swaps=0, seed=2, smoothing=0.0)
    for _ in range(3):
        X, y = noisy_batch(rng, 60, d=3)
        model.learn_many(X, y.map({"c0": "a", "c1": "b"}))
    X2, _ = noisy_batch(rng, 40, d=3)
    # the refit task: one old label, a new one
    y2 = pd.Series(np.where(X2["x2"] > 0.4, "c", "b"))
    model.refit_many(X2, y2)
    s = model.trees[0].get_state()
    labels = model._core.labels
    assert labels == ["a", "b", "c"]
    rows = registry_rows(model, X2)
    at = rows_at_nodes(s, rows)
    test = frame(rng.random((300, 3)))
    proba = model.predict_proba_many(test)[labels].to_numpy()
    unreached = 0
    for x, p in zip(registry_rows(model, test), proba):
        path = route(s, x)
        node = next(j for j in reversed(path) if at.get(j))
        unreached += node != path[-1]
        counts = np.array([np.sum(y2.to_numpy()[at[node]] == c) for c in labels])
        np.testing.assert_allclose(p, counts / counts.sum(), rtol=1e-12, atol=1e-15)
        assert p[0] == 0.0  # the old label no refit row holds
    assert unreached > 0  # some test points fall in leaves no refit row reached
    predicted = set(model.predict_many(X2))
    assert "c" in predicted and predicted <= {"b", "c"}


def test_refit_drops_the_buffered_rows():
    rng = np.random.default_rng(12)
    model = XForestClassifier(n_estimators=2, batch_size=10, seed=3)
    X, y = noisy_batch(rng, 27)
    for x, t in zip(X.to_dict("records"), y):
        model.learn_one(x, t)
    assert model.n_pending == 7 and model.n_batches == 2
    X2, y2 = noisy_batch(rng, 20)
    model.refit_many(X2, y2)
    assert model.n_pending == 0 and model.n_batches == 2
    frozen = pickled(model)
    model.flush()
    assert pickled(model) == frozen


def test_a_bad_refit_leaves_the_model_unchanged():
    rng = np.random.default_rng(13)
    model = XForestClassifier(n_estimators=2, batch_size=10, seed=3)
    X, y = noisy_batch(rng, 25)
    for x, t in zip(X.to_dict("records"), y):
        model.learn_one(x, t)
    frozen = pickled(model)
    X2, y2 = noisy_batch(rng, 20)
    with pytest.raises(ValueError):
        model.refit_many(X2, list(y2)[:-1])  # one label short
    assert pickled(model) == frozen
    with pytest.raises(ValueError):
        model.refit_many(X2, pd.Series(["new"] * 19 + [None]))  # a missing label
    assert pickled(model) == frozen and model.n_pending == 5


# ------------------------------------------------------------- 5. the batch buffer


def _dict_stream(rng, n, d=4):
    X, y = noisy_batch(rng, n, d=d)
    return X.to_dict("records"), list(y)


@pytest.mark.parametrize("n_swaps", [0, 1])
def test_learn_one_loop_equals_learn_many_chunks(n_swaps):
    rng = np.random.default_rng(14)
    X, y = noisy_batch(rng, 207)
    a = XForestClassifier(n_estimators=3, batch_size=10, n_swaps=n_swaps, seed=5)
    b = XForestClassifier(n_estimators=3, batch_size=10, n_swaps=n_swaps, seed=5)
    for i, (x, t) in enumerate(zip(X.to_dict("records"), y)):
        a.learn_one(x, t)
        assert a.n_pending == (i + 1) % 10
    assert a.n_pending == 7 and a.n_batches == 20
    for i in range(0, 207, 10):
        b.learn_many(X.iloc[i:i + 10], y.iloc[i:i + 10])
    assert b.n_batches == 21
    a.flush()
    assert a.n_pending == 0 and a.n_batches == 21
    assert snapshot(a) == snapshot(b)
    if n_swaps:
        assert a.n_replaced > 0
    a.flush()  # nothing buffered: nothing learned
    assert snapshot(a) == snapshot(b)


@pytest.mark.parametrize("n_swaps", [0, 1])
def test_learn_many_learns_the_buffer_first_as_a_batch_of_its_own(n_swaps):
    """Rows `learn_one` buffered, then a frame with a new feature and a new label: the
    buffer is learned first, as its own batch (before the frame's feature and label could
    matter), then the frame."""
    rng = np.random.default_rng(15)
    X, y = noisy_batch(rng, 43, d=4, n_classes=3)
    y.iloc[:3] = ["c0", "c1", "c0"]
    assert "c2" in set(y.iloc[3:])
    head = X.iloc[:3].drop(columns="x3")
    a = XForestClassifier(n_estimators=3, batch_size=10, n_swaps=n_swaps, seed=6)
    b = XForestClassifier(n_estimators=3, batch_size=10, n_swaps=n_swaps, seed=6)
    for x, t in zip(head.to_dict("records"), y.iloc[:3]):
        a.learn_one(x, t)
    assert a.n_pending == 3 and a.n_batches == 0
    a.learn_many(X.iloc[3:], y.iloc[3:])
    b.learn_many(head, y.iloc[:3])
    b.learn_many(X.iloc[3:], y.iloc[3:])
    assert a.n_pending == 0 and a.n_batches == b.n_batches == 2
    assert snapshot(a) == snapshot(b)


def test_predictions_use_the_trees_as_they_stand():
    rng = np.random.default_rng(16)
    X, y = noisy_batch(rng, 50)
    test, _ = noisy_batch(rng, 100)
    a = XForestClassifier(n_estimators=3, batch_size=20, seed=7)
    b = XForestClassifier(n_estimators=3, batch_size=20, seed=7)
    for x, t in zip(X.to_dict("records"), y):
        a.learn_one(x, t)
    b.learn_many(X.iloc[:20], y.iloc[:20])
    b.learn_many(X.iloc[20:40], y.iloc[20:40])
    assert a.n_pending == 10
    frozen = pickled(a)
    pa = a.predict_proba_many(test)
    pd.testing.assert_frame_equal(pa, b.predict_proba_many(test))
    assert [a.predict_one(x) for x in test.to_dict("records")] == list(b.predict_many(test))
    assert pickled(a) == frozen  # predicting learned nothing
    a.flush()
    assert not pa.equals(a.predict_proba_many(test))


# ------------------------------------------------------------------ 6. pickling


@pytest.mark.parametrize("seed", [3, None])
def test_a_pickle_taken_mid_stream_resumes_bit_identically(seed):
    rng = np.random.default_rng(17)
    model = XForestClassifier(n_estimators=3, batch_size=2, n_swaps=1, seed=seed)
    xs, ys = _dict_stream(rng, 4000)
    i = 0
    while model.n_replaced < 2 or model.n_pending == 0:
        model.learn_one(xs[i], ys[i])
        i += 1
    assert model.n_replaced >= 2 and model.n_pending == 1
    twin = pickle.loads(pickled(model))
    assert snapshot(twin) == snapshot(model)
    swaps = model.n_replaced
    more_x, more_y = _dict_stream(rng, 1001)
    for m in (model, twin):
        m.replace_tree(1)  # the replacement counter and seed carry on too
        for x, t in zip(more_x, more_y):
            m.learn_one(x, t)
        m.learn_many(*noisy_batch(np.random.default_rng(18), 30))
        m.learn_one(more_x[0], more_y[0])
    if seed is not None:
        assert model.n_replaced > swaps + 1  # the swaps went on after the pickle
    assert snapshot(twin) == snapshot(model)


# --------------------------------------------------------------- 7. bad parameters


@pytest.mark.parametrize("name, value", [
    ("max_features", "cube"), ("max_features", 0), ("max_features", 1.5),
    ("max_features", -1), ("max_features", 0.0), ("max_features", True),
    ("criterion", "mse"), ("min_samples_split", 1), ("min_samples_split", 2.0),
    ("max_depth", 0), ("max_depth", 1.5), ("batch_size", 0), ("n_swaps", -1),
    ("n_swaps", 4), ("bootstrap", "yes"),
])
def test_bad_parameters_raise_naming_the_parameter(name, value):
    with pytest.raises(ValueError, match=name):
        XForestClassifier(n_estimators=3, **{name: value})


def test_n_swaps_beyond_a_numpy_int_n_estimators_raises():
    with pytest.raises(ValueError, match="n_swaps"):
        XForestClassifier(n_estimators=np.int64(2), n_swaps=5)


def test_good_edge_parameters_are_accepted():
    for params in ({"max_features": 1}, {"max_features": 1.0}, {"max_features": None},
                   {"max_features": "log2"}, {"n_swaps": 3}, {"n_swaps": 0},
                   {"max_depth": 1}, {"batch_size": 1}, {"bootstrap": np.bool_(False)}):
        XForestClassifier(n_estimators=3, **params)


# ------------------------------------------------------------------ 8. threads


def test_learning_in_one_thread_while_another_predicts():
    """One thread learns batches (with swaps) while another predicts and pickles: no error,
    every prediction a distribution, and the final model is that of a sequential run (each
    batch, its swap included, is one call under the model's lock)."""
    rng = np.random.default_rng(19)
    batches = [noisy_batch(rng, 150, n_classes=3) for _ in range(40)]
    test, _ = noisy_batch(rng, 50)
    test_dicts = test.to_dict("records")

    def make():
        return XForestClassifier(n_estimators=4, n_swaps=1, seed=21)

    model, errors = make(), []
    started, done = threading.Event(), threading.Event()
    overlapped = [0]

    def learn():
        try:
            started.wait(10)
            for X, y in batches:
                model.learn_many(X, y)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            done.set()

    def predict():
        try:
            while True:
                started.set()
                finished = done.is_set()
                p = model.predict_proba_many(test)
                if p.shape[1]:
                    np.testing.assert_allclose(p.sum(axis=1), 1.0)
                    assert model.predict_one(test_dicts[0]) in set(p.columns)
                    one = model.predict_proba_one(test_dicts[1])
                    assert abs(sum(one.values()) - 1.0) < 1e-9
                pickle.loads(pickled(model))
                if finished:
                    break
                overlapped[0] += 1
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
            started.set()

    threads = [threading.Thread(target=learn), threading.Thread(target=predict)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors
    assert overlapped[0] >= 2  # the predictions did run while the model learned
    sequential = make()
    for X, y in batches:
        sequential.learn_many(X, y)
    assert model.n_replaced > 0 and model.n_batches == 40
    assert snapshot(model) == snapshot(sequential)


# ------------------------------------------------------- features that come and go


def test_learn_one_with_features_that_come_and_go_equals_learn_many():
    """A feature first seen in the second buffer, a value missing here and there: the rows
    `learn_one` buffered (NaN where a row lacks a feature) make the same batches as frames
    holding the features each chunk has."""
    rng = np.random.default_rng(20)
    X, y = noisy_batch(rng, 35, d=3)
    X.loc[:14, "x2"] = np.nan  # x2 appears at row 15
    X.loc[[3, 22], "x1"] = np.nan
    dicts = [{k: v for k, v in r.items() if v == v} for r in X.to_dict("records")]
    a = XForestClassifier(n_estimators=2, batch_size=10, seed=2)
    b = XForestClassifier(n_estimators=2, batch_size=10, seed=2)
    for x, t in zip(dicts, y):
        a.learn_one(x, t)
    a.flush()
    for i in range(0, 35, 10):
        b.learn_many(X.iloc[i:i + 10].dropna(axis=1, how="all"), y.iloc[i:i + 10])
    assert a.n_replaced > 0 and snapshot(a) == snapshot(b)


def test_a_missing_value_is_left_out_of_the_search_and_follows_the_heavier_side():
    rng = np.random.default_rng(21)
    X, y = noisy_batch(rng, 60, d=3, n_classes=3, noise=0.3)
    V = X.to_numpy().copy()
    V[rng.random(V.shape) < 0.2] = np.nan
    X = frame(V)
    model = XForestClassifier(n_estimators=1, max_features=None, bootstrap=False, seed=4)
    model.learn_many(X, y)
    s = model.trees[0].get_state()
    rows = registry_rows(model, X)
    # `route` sends a missing value to the heavier child (as the trees do when they predict);
    # for a split made by this batch, the child weights are this batch's rows alone
    at = rows_at_nodes(s, rows)
    checked_missing = 0
    for j in range(len(s["left"])):
        if s["left"][j] < 0:
            continue
        f, t = s["feature"][j], s["threshold"][j]
        v = rows[at[j], f]
        present = v[v == v]
        u = np.unique(present)
        assert t in set(u[:-1] / 2.0 + u[1:] / 2.0)
        n_left, n_right = np.sum(present <= t), np.sum(present > t)
        n_missing = len(v) - len(present)
        heavier_left = n_left >= n_right
        assert s["weight"][s["left"][j]] == n_left + (n_missing if heavier_left else 0)
        assert s["weight"][s["right"][j]] == n_right + (0 if heavier_left else n_missing)
        checked_missing += n_missing
    assert checked_missing > 0


# ------------------------------------------------------------------ 9. regression
# XForestRegressor: the same XTree and splitter with the squared error (CART's regression
# criterion); every expectation recomputed in Python from the rows and the trees' states.


def XForestRegressor(**params):
    return _XForestRegressor(**params)


def _sse(t) -> float:
    return float(np.sum((t - t.mean()) ** 2)) if len(t) else 0.0


def brute_force_regression_splits(V, y):
    """Every (SSE of the two sides, feature, threshold) of the rows, best first: each side's
    sum of squared errors about its own mean, over every midpoint of consecutive distinct
    values of every feature."""
    out = []
    for f in range(V.shape[1]):
        u = np.unique(V[:, f])
        for a, b in zip(u[:-1], u[1:]):
            t = a / 2.0 + b / 2.0
            L = V[:, f] <= t
            out.append((_sse(y[L]) + _sse(y[~L]), f, t))
    return sorted(out)


def _regression_data(seed, n=24, d=4):
    r = np.random.default_rng(seed)
    V = r.random((n, d))
    y = 3.0 * V[:, 1] + 2.0 * V[:, 2] ** 2 + 0.5 * r.standard_normal(n)
    return V, y


def regression_batch(rng, n, d=4, noise=0.5):
    V = rng.random((n, d))
    y = 10.0 * np.sin(np.pi * V[:, 0] * V[:, 1]) + 5.0 * V[:, 2] + noise * rng.standard_normal(n)
    return frame(V), pd.Series(y)


# data seeds whose best regression split is unique (by more than 1e-6)
UNIQUE_BEST = [s for s in range(50)
               if (lambda r: r[1][0] - r[0][0] > 1e-6)(brute_force_regression_splits(*_regression_data(s)))][:4]


@pytest.mark.parametrize("data_seed", UNIQUE_BEST)
def test_regression_root_split_is_the_brute_force_least_squared_error(data_seed):
    assert len(UNIQUE_BEST) == 4
    V, y = _regression_data(data_seed)
    _, f, t = brute_force_regression_splits(V, y)[0]
    for seed in range(3):  # the order features are tried in does not matter
        model = XForestRegressor(n_estimators=1, max_features=None, bootstrap=False,
                                 min_samples_split=2, seed=seed)
        model.learn_many(frame(V), pd.Series(y))
        s = model.trees[0].get_state()
        assert (s["feature"][0], s["threshold"][0]) == (f, t)


def test_regression_max_features_one_splits_at_the_best_cut_of_the_feature_drawn():
    V, y = _regression_data(UNIQUE_BEST[0])
    best_of = {}
    for err, f, t in brute_force_regression_splits(V, y):
        best_of.setdefault(f, []).append((err, t))
    for cuts in best_of.values():
        assert cuts[1][0] - cuts[0][0] > 1e-9
    seen = set()
    for seed in range(30):
        model = XForestRegressor(n_estimators=1, max_features=1, bootstrap=False,
                                 min_samples_split=2, seed=seed)
        model.learn_many(frame(V), pd.Series(y))
        s = model.trees[0].get_state()
        assert s["threshold"][0] == best_of[s["feature"][0]][0][1]
        seen.add(s["feature"][0])
    assert len(seen) == 4


@pytest.mark.parametrize("offset", [0.0, 1e8])
def test_every_regression_split_of_a_batch_minimises_the_squared_error_and_leaves_end_constant(offset):
    """One tree, every feature, no bootstrap: every split the batch makes is, among every
    feature and threshold, one of least total squared error of the batch rows that reached
    the node (ties may go either way), its threshold a midpoint of their values; growth goes
    on until each leaf the batch reaches holds one target value or fewer than
    min_samples_split rows. Targets a hundred million away from zero change nothing of it:
    the splitter centres them at each node, so no term of the order of n * 1e16 rounds the
    small differences away (uncentred, 65 of 141 splits were not the best here; from 1e7,
    some)."""
    rng = np.random.default_rng(30)
    for k in (2, 5):
        model = XForestRegressor(n_estimators=1, max_features=None, bootstrap=False,
                                 min_samples_split=k, n_swaps=0, seed=k)
        n_before, left_before, checked = 0, np.array([], dtype=np.int32), 0
        for _ in range(3):
            X, y = regression_batch(rng, 60)
            y.iloc[:6] = 1.5  # some equal targets
            y = y + offset
            model.learn_many(X, y)
            s = model.trees[0].get_state()
            rows, t = registry_rows(model, X), y.to_numpy()
            at = rows_at_nodes(s, rows)
            made = [j for j in range(len(s["left"])) if s["left"][j] >= 0
                    and (j >= n_before or left_before[j] < 0)]
            assert made
            for j in made:
                idx = at[j]
                best = brute_force_regression_splits(rows[idx], t[idx])[0][0]
                f, thr = s["feature"][j], s["threshold"][j]
                L = rows[idx, f] <= thr
                assert 0 < L.sum() < len(idx)
                assert _sse(t[idx][L]) + _sse(t[idx][~L]) == pytest.approx(best, rel=1e-9, abs=1e-9)
                u = np.unique(rows[idx, f])
                assert thr in set(u[:-1] / 2.0 + u[1:] / 2.0)
                checked += 1
            for j, idx in at.items():
                if s["left"][j] < 0:
                    assert len(idx) < k or len(set(t[idx])) == 1, (j, t[idx])
            n_before, left_before = len(s["left"]), s["left"].copy()
        assert checked > 20


def test_regression_leaves_predict_their_mean():
    """smoothing=0: a tree predicts the mean target of the deepest node of the path with
    data, and the forest the mean of its trees."""
    rng = np.random.default_rng(33)
    model = XForestRegressor(n_estimators=3, smoothing=0.0, seed=2, confidence_level=None,
                             leaf_model="mean")  # the paper's leaves
    for _ in range(4):
        model.learn_many(*regression_batch(rng, 100))
    test, _ = regression_batch(rng, 50)
    rows = registry_rows(model, test)
    expected = np.mean([[leaf_estimate(s, x)[0] for x in rows] for s in states(model)], axis=0)
    np.testing.assert_allclose(model.predict_many(test).to_numpy(dtype=float), expected, rtol=1e-12)
    assert [model.predict_one(x) for x in test.to_dict("records")] == pytest.approx(expected, rel=1e-12)


def test_regression_learns_friedman():
    """Prequentially on Friedman, far better than predicting the running mean."""
    from river import dummy, evaluate, metrics, stats
    from river.datasets import synth

    data = list(synth.Friedman(seed=42).take(5000))
    ours = evaluate.progressive_val_score(data, XForestRegressor(seed=1), metrics.MAE()).get()
    mean = evaluate.progressive_val_score(data, dummy.StatisticRegressor(stats.Mean()),
                                          metrics.MAE()).get()
    assert ours < 0.65 * mean, (ours, mean)  # measured: 2.18 against 4.01


@pytest.mark.parametrize("n_swaps", [0, 1])
def test_regression_learn_one_loop_equals_learn_many_chunks(n_swaps):
    """`learn_one` buffers: a loop over the stream is `learn_many` over chunks of
    batch_size, the interval calibrator included, and so are the predictions between (the
    trees as they stand: the buffer is not used before it is learned), but for the
    intervals of the first batch: until a tree has learned a row, the loop's are centred on
    the targets it buffered, where the chunks' forest, which has none, gives the whole
    line."""
    rng = np.random.default_rng(34)
    X, y = regression_batch(rng, 237)
    probe, _ = regression_batch(rng, 20)
    a = XForestRegressor(n_estimators=3, batch_size=10, n_swaps=n_swaps, seed=5)
    b = XForestRegressor(n_estimators=3, batch_size=10, n_swaps=n_swaps, seed=5)
    for i in range(0, 237, 10):
        for x, t in zip(X.iloc[i:i + 10].to_dict("records"), y.iloc[i:i + 10]):
            a.learn_one(x, t)
            if not a.n_pending:
                continue
            got = a.predict_many(probe, with_interval=True)
            want = b.predict_many(probe, with_interval=True)
            if i == 0:
                assert got["prediction"].tolist() == pytest.approx(
                    [np.mean(y.iloc[:a.n_pending])] * len(probe))
                assert np.isinf(want["lower"]).all() and np.isinf(want["upper"]).all()
            else:
                pd.testing.assert_frame_equal(got, want)
        b.learn_many(X.iloc[i:i + 10], y.iloc[i:i + 10])
    assert a.n_pending == 7 and a.n_batches == 23 and b.n_batches == 24
    assert a.predict_many(probe).tolist() != b.predict_many(probe).tolist()
    a.flush()
    assert a.n_pending == 0 and snapshot(a) == snapshot(b)
    if n_swaps:
        assert a.n_replaced > 0
    pd.testing.assert_series_equal(a.predict_many(probe), b.predict_many(probe))
    assert [a.predict_one(x) for x in probe.to_dict("records")] == b.predict_many(probe).tolist()
    assert a.interval_coverage == b.interval_coverage is not None


@pytest.mark.parametrize("seed", [3, None])
def test_a_regressor_pickled_mid_stream_predicts_and_resumes_identically(seed):
    rng = np.random.default_rng(35)
    model = XForestRegressor(n_estimators=3, batch_size=7, n_swaps=1, seed=seed)
    X, y = regression_batch(rng, 3000)
    xs, ys = X.to_dict("records"), list(y)
    i = 0
    while model.n_replaced < 2 or model.n_pending == 0:
        if i == 2000 and model.n_replaced < 2:
            # An unseeded forest may go long without a swap (over 3,000 rows for 2 of 40
            # seeds tried): replace trees by hand, so that the twin still has two to copy.
            model.replace_tree(0)
            model.replace_tree(2)
        model.learn_one(xs[i], ys[i])
        i += 1
    twin = pickle.loads(pickled(model))
    assert snapshot(twin) == snapshot(model)
    test, _ = regression_batch(rng, 40)
    for m in (model, twin):
        assert m.n_pending > 0
    pd.testing.assert_series_equal(twin.predict_many(test), model.predict_many(test))
    pd.testing.assert_frame_equal(twin.predict_many(test, with_interval=True),
                                  model.predict_many(test, with_interval=True))
    x0 = test.iloc[0].to_dict()
    assert twin.predict_one(x0) == model.predict_one(x0)
    assert twin.predict_one(x0, with_interval=True) == model.predict_one(x0, with_interval=True)
    swaps = model.n_replaced
    more_X, more_y = regression_batch(np.random.default_rng(36), 2000)
    for m in (model, twin):
        m.replace_tree(1)
        for x, t in zip(more_X.to_dict("records"), more_y):
            m.learn_one(x, t)
        m.learn_many(*regression_batch(np.random.default_rng(37), 30))
    if seed is not None:
        assert model.n_replaced > swaps + 1
    assert snapshot(twin) == snapshot(model)
    pd.testing.assert_frame_equal(twin.predict_many(test, with_interval=True),
                                  model.predict_many(test, with_interval=True))


def _squared_error(state, rows, targets) -> float:
    """A tree's mean squared error of its leaf means (smoothing 0) on the rows."""
    return float(np.mean([(leaf_estimate(state, x)[0] - v) ** 2 for x, v in zip(rows, targets)]))


@pytest.mark.parametrize("n_swaps", [1, 2])
def test_the_regressor_replaces_its_trees_of_largest_squared_error(n_swaps):
    rng = np.random.default_rng(38)
    n_est, n = 4, 30
    model = XForestRegressor(n_estimators=n_est, n_swaps=n_swaps, max_features=1, seed=11,
                             smoothing=0.0, leaf_model="mean")  # scored by leaf means below
    records = _spy_on_swaps(model, _squared_error, "mse")
    for _ in range(40):
        model.learn_many(*regression_batch(rng, n, noise=2.0))
    swaps = [r for r in records if r["replaced"]]
    assert len(swaps) >= 3 and model.n_replaced == n_swaps * len(swaps)
    for r in swaps:
        order = np.argsort(-r["mse"], kind="stable")[:n_swaps]
        assert sorted(r["replaced"]) == sorted(order.tolist())
        for m, i in enumerate(order):
            s = r["new"][r["replaced"].index(i)]
            assert s["n_batches"] == 1 and s["weight"][0] == n
            fresh = model._tree_factory(tree_seed(model._core.master_seed, n_est + r["k0"] + m))
            fresh.learn_rows(r["rows"], r["targets"])
            assert same_state(fresh.get_state(), s)


@pytest.mark.parametrize("name, value", [
    ("max_features", "cube"), ("max_features", 0), ("max_features", 1.5), ("max_features", 0.0),
    ("max_features", True), ("min_samples_split", 1), ("min_samples_split", 2.0),
    ("max_depth", 0), ("batch_size", 0), ("batch_size", 1.5), ("n_swaps", -1), ("n_swaps", 4),
    ("bootstrap", "yes"), ("confidence_level", 1.0), ("confidence_level", 0.0),
])
def test_regressor_bad_parameters_raise_naming_the_parameter(name, value):
    with pytest.raises(ValueError, match=name):
        XForestRegressor(n_estimators=3, **{name: value})


def test_the_regressor_has_no_impurity_criterion():
    with pytest.raises(TypeError, match="criterion"):
        XForestRegressor(criterion="gini")
    assert "criterion" not in XForestRegressor()._get_params()
    assert "aggregation" not in XForestRegressor()._get_params()


def test_an_xtree_refuses_a_criterion_of_the_other_task():
    from river_forests._core._xforest import XTree

    assert XTree(task=1, max_nodes=7, seed=0).get_state()["criterion"] == 2  # the MSE
    assert XTree(task=0, max_nodes=7, seed=0).get_state()["criterion"] == 1  # the gini
    with pytest.raises(ValueError, match="squared error"):
        XTree(task=1, criterion=1, max_nodes=7, seed=0)
    with pytest.raises(ValueError, match="gini or the entropy"):
        XTree(task=0, criterion=2, max_nodes=7, seed=0)


def test_regression_intervals_cover_friedman_at_their_level():
    """confidence_level=0.9 on Friedman: the share of targets inside the interval given
    before they were learned is within 3 points of 90%, whether the stream is fed by
    `learn_one` (intervals from `predict_one`) or in batches (from `predict_many`), which
    give the same intervals from the second batch on (in the first, `learn_one`'s are
    finite from the 15th row, centred on the targets buffered; `predict_many`'s, before any
    target is known, are the whole line)."""
    from river.datasets import synth

    data = list(synth.Friedman(seed=42).take(5000))
    one = XForestRegressor(seed=42, confidence_level=0.9, batch_size=100)
    covered, lows = [], []
    for x, y in data:
        interval = one.predict_one(x, with_interval=True)
        covered.append(interval.lower <= y <= interval.upper)
        lows.append(interval.lower)
        one.learn_one(x, y)
    assert abs(np.mean(covered) - 0.9) <= 0.03, np.mean(covered)
    assert abs(one.interval_coverage - 0.9) <= 0.03
    assert np.isinf(lows[:15]).all() and np.isfinite(lows[15:]).all()
    many = XForestRegressor(seed=42, confidence_level=0.9, batch_size=100)
    in_batches = []
    for i in range(0, len(data), 100):
        X = pd.DataFrame([x for x, _ in data[i:i + 100]])
        y = pd.Series([y for _, y in data[i:i + 100]])
        pred = many.predict_many(X, with_interval=True)
        assert (pred["lower"] <= pred["prediction"]).all() and (pred["prediction"] <= pred["upper"]).all()
        in_batches.extend(((pred["lower"] <= y) & (y <= pred["upper"])).tolist())
        many.learn_many(X, y)
    assert in_batches[100:] == covered[100:] and all(in_batches[:100])
    assert snapshot(one) == snapshot(many)
