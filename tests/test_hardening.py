"""The package as an attacker or a new user meets it: one model shared by threads, streams
with ever-new feature names, bad labels and frames. Each rejected input leaves the model
bit-identical (its pickle bytes). Every test runs on every estimator of `river_forests.__all__`
(the box tests on every one whose trees keep boxes of their data; the Mondrian trees'
boxes along the whole path on the Mondrian forest)."""

import itertools
import json
import math
import pickle
import subprocess
import sys
import threading
import warnings

import numpy as np
import pandas as pd
import pytest

import river_forests

from .conftest import (CLASSIFIERS, ESTIMATORS, PLAIN, REGRESSORS, batch_native, chunk_size,
                       flushed, name_of, target, uniform_stream)


def _trained(cls, n=200, d=3, seed=0):
    model = cls(n_estimators=3, seed=seed)
    for x, y in uniform_stream(n, d, seed=seed):
        model.learn_one(x, y if cls in CLASSIFIERS else float(y))
    return model


# ------------------------------------------------------------------ threads

THREADS_SCRIPT = """
import json, pickle, sys, threading
import numpy as np, pandas as pd
import river_forests
from river import base

cls = getattr(river_forests, sys.argv[1])
params = json.loads(sys.argv[3])  # every tree learns every row (conftest.PLAIN), small batches
native = not cls._learn_many_equals_learn_one
clf = issubclass(cls, base.Classifier)
rng = np.random.default_rng(0)
X = pd.DataFrame(rng.random((1200, 8)), columns=[f"f{i}" for i in range(8)])
y = pd.Series((X["f0"] > 0.5).astype(int) if clf else X["f0"] * 3.0)
rows = [(X.iloc[i].to_dict(), y.iloc[i]) for i in range(300)]

def learn_many(model, lo, hi):
    for i in range(lo, hi, 100):
        model.learn_many(X[i:i + 100], y[i:i + 100])

def learn_one(model):
    for x, t in rows:
        model.learn_one(x, t)

def serve(model):
    for _ in range(15):
        (model.predict_proba_many if clf else model.predict_many)(X[:300])
        model.predict_one({"f0": 0.3, "f1": 0.2})
        pickle.loads(pickle.dumps(model))

def run(*targets):
    ts = [threading.Thread(target=f, args=args) for f, *args in targets]
    for t in ts:
        t.start()
    for t in ts:
        t.join()

replaced = 0
for round_ in range(int(sys.argv[2])):
    a = cls(n_estimators=6, seed=round_, **params)
    b = cls(n_estimators=6, seed=round_, **params)
    run((learn_many, a, 0, 600), (learn_many, a, 600, 1200), (learn_one, b), (serve, b),
        (serve, a))
    # every tree learned every row exactly once, whatever the interleaving
    assert all(t.samples_seen == 1200 for t in a.trees), [t.samples_seen for t in a.trees]
    assert all(t.samples_seen == 300 for t in b.trees)
    if not native:
        continue
    # a batch-native forest learned every row in the batches it was given: 12 of 100 rows,
    # and learn_one's buffer every `batch_size` rows, none left pending
    assert a.n_batches == 12 and b.n_pending == 0
    assert b.n_batches == 300 // params["batch_size"]
    # and as it comes (bootstrap, swaps: trees replaced while others predict), learning rows
    # one by one and batches at once (each batch flushes the buffer first), served all along
    c = cls(n_estimators=6, seed=round_, batch_size=params["batch_size"])
    run((learn_many, c, 0, 600), (learn_one, c), (serve, c), (serve, c))
    c.flush()
    assert c.n_pending == 0 and c.n_batches >= 6 + 300 // params["batch_size"]
    for t in c.trees:
        offered = t.get_state()["n_offered"]
        # a tree there from the start was offered every row once; a replacement (after batch
        # b > 1) the rows from its batch on
        assert t.batches <= c.n_batches and (offered == 900) == (t.batches == c.n_batches), (
            offered, t.batches, c.n_batches)
    replaced += c.n_replaced
assert not native or replaced > 0, "the swaps should have run"
print("clean")
"""


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_one_model_shared_by_threads_never_crashes(cls):
    """Two threads learning batches of one model while others predict and pickle it, and a
    learn_one loop beside a server, 25 times over, in a subprocess: a crash is a failure.
    Every tree learns every row (`conftest.PLAIN`); a batch-native forest (XForest) learns
    batches of 10 (so `learn_one` learns many batches beside the server), and a model of its
    default parameters (bootstrap, swaps) also learns rows and batches at once while served."""
    # a small budget: what is under test is the lock, and each of the 750 pickles the
    # servers take copies the trees' pools, which the budget sizes (BSP's: 10 MB at 64 MB)
    params = {**PLAIN.get(cls, {}), **({"batch_size": 10} if batch_native(cls) else {}),
              "memory_budget": "2MB"}
    proc = subprocess.run(
        [sys.executable, "-c", THREADS_SCRIPT, cls.__name__, "25", json.dumps(params)],
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0 and "clean" in proc.stdout, (proc.returncode, proc.stderr[-2000:])


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_models_learning_in_threads_equal_models_learning_alone(cls):
    """The lock is per model: models learning side by side in threads each end exactly as if
    they had learned alone."""
    data = uniform_stream(800, 4, seed=3)
    if cls in REGRESSORS:
        data = [(x, float(y)) for x, y in data]
    X = pd.DataFrame([x for x, _ in data])
    y = pd.Series([t for _, t in data])

    def learn(model):
        for i in range(0, len(X), 200):
            model.learn_many(X[i:i + 200], y[i:i + 200])

    alone = [cls(n_estimators=4, seed=s) for s in range(3)]
    for model in alone:
        learn(model)
    together = [cls(n_estimators=4, seed=s) for s in range(3)]
    threads = [threading.Thread(target=learn, args=(m,)) for m in together]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for a, b in zip(alone, together):
        assert pickle.dumps(a) == pickle.dumps(b)


# ------------------------------------------------------------------ width


def _wide(n, vocabulary, seed=0):
    """`n` samples of 20 words out of `vocabulary`, uniformly (every word as likely)."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        words = rng.choice(vocabulary, size=20, replace=False)
        x = {f"w{w}": float(v) for w, v in zip(words, rng.random(20))}
        yield x, int(x.get("w0", 0.0) + rng.random() > 0.9)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_memory_is_bounded_by_parameters_whatever_the_width(cls):
    """20 words per sample out of 50,000: each tree keeps `features_per_tree` slots, so a node
    costs the same bytes on a 500- and a 50,000-word stream, and a tree's size is bounded by
    max_nodes and features_per_tree."""
    sizes = {}
    for vocabulary in (500, 50_000):
        model = cls(n_estimators=2, features_per_tree=16, max_nodes=255, seed=1)
        for x, y in _wide(3000, vocabulary):
            model.learn_one(x, y if cls in CLASSIFIERS else float(y))
        for tree in model.trees:
            state = tree.get_state()
            assert state["n_features"] <= 16 and len(state["columns"]) <= 16
            assert tree.node_count <= 255
        sizes[vocabulary] = max(t.__sizeof__() for t in model.trees)
        registry = len(model._core.features)
    assert registry > 20_000, "the stream should show tens of thousands of words"
    # per node: 4 int32 + weight, threshold + value stats + the kind's rows over 16 slots
    bound = 4096 + 255 * (64 + 8 * 8 + 2 * 8 + 8 * 16) + 16 * 8 * 8
    assert sizes[50_000] <= bound
    assert sizes[50_000] <= 2 * sizes[500]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_subspace_is_a_uniform_sample_of_the_columns(cls):
    """Past `features_per_tree` columns, new columns enter by reservoir sampling: over many
    trees every column is as likely to be kept (early columns are not favoured)."""
    model = cls(n_estimators=60, features_per_tree=8, seed=0)
    x = {f"f{i:03d}": 0.5 for i in range(400)}
    model.learn_one(x, target(cls, 1))
    flushed(model)  # a batch-native forest's trees take their columns when they learn the row
    kept = np.concatenate([t.get_state()["columns"] for t in model.trees])
    assert len(kept) == 60 * 8
    assert all(len(set(t.get_state()["columns"])) == 8 for t in model.trees)
    counts = np.bincount(kept // 100, minlength=4)  # kept columns per quarter of the 400
    assert counts.min() > 0.6 * counts.mean(), counts


def _has_boxes(cls) -> bool:
    """Whether the trees of `cls` (default parameters) keep per-node boxes of the data
    (`lower`, `upper`) and cut on one feature at a time (`feature`, `threshold`): Mondrian,
    purely random, ..."""
    state = cls(n_estimators=1, seed=0).trees[0].arrays()
    return "lower" in state and "upper" in state and state.get("split", "axis") == "axis"


BOXED = [cls for cls in ESTIMATORS if _has_boxes(cls)]


def test_some_estimators_keep_boxes():
    assert river_forests.MondrianForestClassifier in BOXED
    assert river_forests.MondrianForestRegressor in BOXED


def _path(s, x, names):
    """The nodes from the root to the leaf `x` reaches in the tree of state `s` (a missing
    split feature follows the heavier side)."""
    j, path = s["root"], []
    while j >= 0:
        path.append(j)
        if s["left"][j] < 0:
            break
        v = x.get(names[s["feature"][j]], math.nan)
        if v != v:
            j = s["left"][j] if s["weight"][s["left"][j]] >= s["weight"][s["right"][j]] else s["right"][j]
        else:
            j = s["left"][j] if v <= s["threshold"][j] else s["right"][j]
    return path


def _check_boxes_after_evictions(cls, along_the_path):
    """Learn a 60-word stream with 6 slots per tree (slots change hands all along) and check,
    every 25 samples, that the box of the leaf the point just learned reaches (of every node
    on its path if `along_the_path`) holds it in every kept feature."""
    # the purely random forest keeps boxes with its uniform split (the scale-invariant one,
    # its default, cuts at ranks of a reservoir instead)
    split = {"split": "uniform"} if cls.__name__.startswith("PurelyRandom") else {}
    model = cls(n_estimators=3, features_per_tree=6, seed=2, **split)
    data = list(_wide(1500, 60, seed=4))
    names = model._core.features.names
    checked = 0
    for i, (x, y) in enumerate(data):
        model.learn_one(x, target(cls, y))
        if i % 25:
            continue
        for tree in model.trees:
            s = tree.arrays()
            path = _path(s, x, names)
            for j in path if along_the_path else path[-1:]:
                for d, c in enumerate(s["columns"]):
                    v = x.get(names[c])
                    if v is not None:
                        assert s["lower"][j, d] <= v <= s["upper"][j, d]
                        checked += 1
    return checked


@pytest.mark.parametrize("cls", BOXED, ids=name_of)
def test_leaf_boxes_hold_their_points_after_slots_change_hands(cls):
    """After evictions the box of a point's leaf still holds the point, feature by feature
    (every kind with boxes stretches at least the leaf's)."""
    checked = _check_boxes_after_evictions(cls, along_the_path=False)
    assert checked > 250, "the points' kept features should have been checked in their leaves"


def test_boxes_hold_their_points_after_slots_change_hands():
    """After evictions the boxes still hold every point on its path, feature by feature (the
    Mondrian tree stretches every box on the path; a purely random tree only its leaf's)."""
    checked = _check_boxes_after_evictions(river_forests.MondrianForestClassifier, along_the_path=True)
    assert checked > 2000, "the points' kept features should have been checked on their paths"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_registry_stops_at_max_width_with_one_warning(cls):
    model = cls(n_estimators=2, max_width=50, seed=0)
    with pytest.warns(RuntimeWarning, match="max_width=50"):
        for x, y in itertools.islice(_wide(400, 5000), 200):
            model.learn_one(x, y if cls in CLASSIFIERS else float(y))
    assert len(model._core.features) == 50
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said once, not again
        model.learn_one({"brand_new": 1.0}, y if cls in CLASSIFIERS else float(y))
        X = pd.DataFrame({"another": [1.0, 2.0]})
        model.learn_many(X, pd.Series([y, y] if cls in CLASSIFIERS else [1.0, 2.0]))
    assert len(model._core.features) == 50
    restored = pickle.loads(pickle.dumps(model))
    assert restored._core.features.max_width == 50


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_wide_stream_learn_many_equals_learn_one(cls):
    """One `learn_many` of the whole stream is the `learn_one` loop; for a batch-native forest
    (XForest) it is `learn_many` over consecutive batches of its `batch_size`, as it comes
    (bootstrap, swaps) and `plain`, where every tree counts every row."""
    data = [(x, target(cls, y)) for x, y in _wide(300, 2000, seed=5)]
    cols = sorted({k for x, _ in data for k in x})
    X = pd.DataFrame([x for x, _ in data], columns=cols)  # NaN where a word is absent
    y = pd.Series([y for _, y in data])
    for extra in [{}, PLAIN[cls]] if cls in PLAIN else [{}]:
        every_row = cls not in PLAIN or extra == PLAIN[cls]
        one = cls(n_estimators=3, features_per_tree=8, seed=3, **extra)
        many = cls(n_estimators=3, features_per_tree=8, seed=3, **extra)
        for x, t in zip(X.to_dict("records"), y):
            one.learn_one(x, t)
        size = chunk_size(many, len(X))
        for i in range(0, len(X), size):
            many.learn_many(X[i:i + size], y[i:i + size])
        assert pickle.dumps(flushed(one)) == pickle.dumps(flushed(many))
        if every_row:
            assert all(t.samples_seen == 300 for t in many.trees)
        else:  # at most every row: rows skipped by a zero weight (the stream-partitioning
            # forest's Poisson(6)), or drawn by a bootstrap, or a replacement's batch alone
            assert all(0 < t.samples_seen <= 300 for t in many.trees)


def test_wide_sparse_stream_is_defined():
    from benchmarks.streams import STREAMS

    data = STREAMS["bag-of-words"].samples(200)
    assert all(len(x) == 20 for x, _ in data)
    assert len({k for x, _ in data for k in x}) > 1000


# ------------------------------------------------------------------ labels and targets

MISSING = [None, float("nan"), np.nan, np.float32("nan"), pd.NA, pd.NaT]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("label", MISSING, ids=repr)
def test_missing_label_is_an_error_and_changes_nothing(cls, label):
    model = _trained(cls)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="missing"):
        model.learn_one({"x0": 0.5, "new_feature": 1.0}, label)
    assert pickle.dumps(model) == before
    X = pd.DataFrame({"x0": [0.1, 0.2, 0.3], "new_feature": [1.0, 2.0, 3.0]})
    ys = [1, label, 0] if cls in CLASSIFIERS else [1.0, label, 0.0]
    with pytest.raises(ValueError, match="missing"):
        model.learn_many(X, pd.Series(ys, dtype=object))
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_nan_labels_never_become_classes(cls):
    """The reproducer: 4,000 rows with a NaN label gave 4,002 classes."""
    model = cls(n_estimators=2, seed=0)
    for i, (x, y) in enumerate(uniform_stream(300, 2)):
        try:
            model.learn_one(x, float("nan") if i % 3 == 0 else y)
        except ValueError:
            pass
    assert model._core.labels == [0, 1] or model._core.labels == [1, 0]


@pytest.mark.parametrize("cls", REGRESSORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("target", [1e200, -1e39, 10**400, float("inf")], ids=repr)
def test_out_of_range_target_is_an_error_and_changes_nothing(cls, target):
    model = _trained(cls)
    before = pickle.dumps(model)
    with pytest.raises(ValueError, match="1e38"):
        model.learn_one({"x0": 0.5}, target)
    with pytest.raises(ValueError, match="1e38"):
        model.learn_many(pd.DataFrame({"x0": [0.5, 0.6]}), pd.Series([1.0, target], dtype=object))
    assert pickle.dumps(model) == before
    sigma = model.predict_one({"x0": 0.5, "x1": 0.5, "x2": 0.5}, with_dist=True).sigma
    assert 0 < sigma < 1


# ------------------------------------------------------------------ frames and values


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_duplicate_columns_are_an_error_and_change_nothing(cls):
    model = _trained(cls)
    before = pickle.dumps(model)
    X = pd.DataFrame([[0.1, 0.2, 0.3]], columns=["x0", "x1", "x0"])
    with pytest.raises(ValueError, match="duplicate"):
        model.learn_many(X, pd.Series([1]))
    with pytest.raises(ValueError, match="duplicate"):
        model.predict_many(X)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_y_is_aligned_on_the_index_of_x(cls):
    data = uniform_stream(150, 3, seed=6)
    X = pd.DataFrame([x for x, _ in data], index=range(1000, 1150))
    y = pd.Series([t if cls in CLASSIFIERS else float(t) for _, t in data], index=X.index)
    aligned, shuffled = cls(n_estimators=2, seed=1), cls(n_estimators=2, seed=1)
    aligned.learn_many(X, y)
    shuffled.learn_many(X, y.sample(frac=1.0, random_state=0))  # same labels, other order
    assert pickle.dumps(aligned) == pickle.dumps(shuffled)
    before = pickle.dumps(aligned)
    with pytest.raises(ValueError, match="index"):
        aligned.learn_many(X, y.reset_index(drop=True))  # other labels: no silent matching
    assert pickle.dumps(aligned) == before


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_int_beyond_a_double_is_missing_like_1e300(cls):
    """10**400 is a value beyond +/-1e38, which the package documents as missing: it must
    neither raise OverflowError nor differ from any other out-of-range value."""
    huge, big = cls(n_estimators=2, seed=4), cls(n_estimators=2, seed=4)
    rows = [(x, y if cls in CLASSIFIERS else float(y)) for x, y in uniform_stream(100, 2, seed=2)]
    for i, (x, y) in enumerate(rows):
        xh, xb = dict(x), dict(x)
        if i % 7 == 0:
            xh["x1"], xb["x1"] = (10**400, 1e300) if i % 2 else (-(10**400), -1e300)
        huge.learn_one(xh, y)
        big.learn_one(xb, y)
    assert pickle.dumps(huge) == pickle.dumps(big)
    assert huge.predict_one({"x0": 0.5, "x1": 10**400}) == big.predict_one({"x0": 0.5, "x1": 1e300})
    X = pd.DataFrame({"x0": [0.2, 0.4], "x1": [10**400, 0.5]}, dtype=object)
    y = pd.Series([1, 0] if cls in CLASSIFIERS else [1.0, 0.0])
    huge.learn_many(X, y)
    big.learn_many(pd.DataFrame({"x0": [0.2, 0.4], "x1": [1e300, 0.5]}), y)
    assert pickle.dumps(huge) == pickle.dumps(big)

