"""The memory budget: `memory_budget` bounds what river measures of a forest, with the same
meaning for every forest, whatever the width of the stream and the number of classes."""

import itertools
import pickle

import pytest
from river import datasets

import river_forests
from river_forests._forest import parse_bytes

from .conftest import ESTIMATORS, batch_native

CLASSES = list(ESTIMATORS)
CLASSIFIERS = [c for c in CLASSES if "Classifier" in c.__name__]
REGRESSORS = [c for c in CLASSES if "Regressor" in c.__name__]
BUDGET = 300_000
#: forests that fill their budget on a long enough stream, to within 10%; the BSP and
#: stream-partitioning trees keep what they grow with (hulls and kept points, the fringe)
#: in pools that need room of their own, and stop short of the budget by up to a quarter
FILLS = {c for c in CLASSES if not c.__name__.startswith(("BSP", "StreamPartition", "XForest"))}


def rbf(n, n_features, n_classes, seed=1):
    gen = datasets.synth.RandomRBF(seed_model=seed, seed_sample=seed, n_classes=n_classes,
                                   n_features=n_features)
    return list(itertools.islice(gen, n))


def late_classes(n, n_features, n_classes, seed=2):
    """A stream whose classes arrive one by one over its first half: every tree is full
    before the last classes come, and each new class widens every node."""
    out = []
    for i, (x, y) in enumerate(rbf(n, n_features, n_classes, seed)):
        top = 2 + (n_classes - 2) * min(1.0, 2 * i / n)
        out.append((x, y if y < top else y % 2))
    return out


def friedman(n, seed=1):
    return list(itertools.islice(datasets.synth.Friedman(seed=seed), n))


def _peak(model, data, every=50):
    peak = 0
    for i, (x, y) in enumerate(data, 1):
        model.learn_one(x, y)
        if i % every == 0:
            peak = max(peak, model._raw_memory_usage)
    return max(peak, model._raw_memory_usage)


#: XForest's learn_one buffer holds `batch_size` rows as wide as the registry, whatever the
#: budget: 100 rows of 300 features take 490 KB of a 300 KB budget (531 KB at the peak, with
#: or without a detector; the check every 50 rows used to miss it). The buffer should flush
#: early when its rows would not fit (issue 49: wide rows)
_WIDE_BUFFER = pytest.mark.xfail(strict=True, reason="XForest's row buffer is not bounded by the budget on wide rows")


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("n_features, n_classes", [(3, 2), (40, 10), (300, 3)])
def test_the_budget_is_never_exceeded(cls, n_features, n_classes, request):
    if n_features == 300 and batch_native(cls):
        request.applymarker(_WIDE_BUFFER)
    model = cls(n_estimators=3, seed=1, memory_budget=BUDGET)
    assert _peak(model, rbf(2500, n_features, n_classes), every=1) <= BUDGET


@pytest.mark.parametrize("cls", [c for c in CLASSIFIERS if not c.__name__.startswith("BSP")],
                         ids=lambda c: c.__name__)
def test_classes_arriving_after_the_trees_filled_do_not_break_it(cls):
    """Each new class widens every node; a full tree then frees the nodes holding the least
    data (BSP keeps its nodes: its pairs sit in a pool it cannot move, see the changelog)."""
    model = cls(n_estimators=3, seed=1, memory_budget=BUDGET)
    assert _peak(model, late_classes(4000, 8, 20), every=20) <= BUDGET
    assert len(model._core.labels) > 16  # past 16: every node row widened twice after 4


@pytest.mark.parametrize("cls", REGRESSORS, ids=lambda c: c.__name__)
def test_a_regressor_stays_within_it(cls):
    model = cls(n_estimators=3, seed=1, memory_budget=BUDGET)
    assert _peak(model, friedman(3000)) <= BUDGET


@pytest.mark.parametrize("cls", sorted(FILLS, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_full_forest_measures_its_budget_within_ten_percent(cls):
    data = rbf(4000, 20, 5) if cls in CLASSIFIERS else friedman(4000)
    # without a detector: one keeps room for background trees and its drift log
    model = cls(n_estimators=3, seed=1, memory_budget=BUDGET, drift_detector=None)
    _peak(model, data)
    assert 0.9 * BUDGET <= model._raw_memory_usage <= BUDGET
    assert model.memory_bytes == model._raw_memory_usage


#: a BSP tree short of bytes halves the points its leaves keep and the vertices its hulls keep
#: (down to 8) and goes on cutting (issue 48); when neither can give more, it drops them and
#: stops cutting for good (cutting again from hulls of one or two points made its accuracy
#: fall, issue 45): the room they leave, most of a tree's bytes, is not used by more nodes
_UNSPENT = {river_forests.BSPForestClassifier, river_forests.BSPForestRegressor}


@pytest.mark.parametrize("cls", [pytest.param(c, marks=pytest.mark.xfail(
    strict=True, reason="a grown-out BSP tree leaves its hulls' room unused"))
    if c in _UNSPENT else c for c in CLASSES], ids=lambda c: c.__name__)
def test_every_forest_uses_most_of_a_budget_it_outgrows(cls):
    if batch_native(cls):  # XForest grows its trees from batches: a long stream fills them
        data = rbf(12000, 20, 5)
        # splits down to 2 rows (the paper's): the default 5 fills the budget more slowly; batches
        # of 100 (the regressor's 500 keep 500 rows' room in the budget for learn_one's buffer,
        # empty at the end of this stream)
        model = cls(n_estimators=3, seed=1, memory_budget=BUDGET, n_swaps=0, min_samples_split=2,
                    batch_size=100, drift_detector=None)
    else:
        # the stream-partitioning forest's Gaussian fringe is small: more splits to fill it
        n = 8000 if cls is river_forests.StreamPartitionForestClassifier else 4000
        data = rbf(n, 20, 5) if cls in CLASSIFIERS else friedman(n)
        model = cls(n_estimators=3, seed=1, memory_budget=BUDGET, drift_detector=None)
    _peak(model, data)
    assert 0.7 * BUDGET <= model._raw_memory_usage <= BUDGET


def test_a_larger_budget_gives_more_nodes():
    cls = river_forests.MondrianForestClassifier
    data = rbf(3000, 10, 5)
    small, large = (cls(seed=1, memory_budget=b, drift_detector=None) for b in ("200KB", "800KB"))
    for x, y in data:
        small.learn_one(x, y)
        large.learn_one(x, y)
    assert large.n_nodes > 3 * small.n_nodes


def test_a_pickled_forest_keeps_its_budget_and_resumes_identically():
    cls = river_forests.MondrianForestClassifier
    data = rbf(3000, 10, 5)
    model = cls(seed=1, memory_budget="200KB", drift_detector=None)
    for x, y in data[:1500]:
        model.learn_one(x, y)
    copy = pickle.loads(pickle.dumps(model))
    for x, y in data[1500:]:
        model.learn_one(x, y)
        copy.learn_one(x, y)
    for a, b in zip(model.trees, copy.trees):
        sa, sb = a.get_state(), b.get_state()
        assert sa["max_bytes"] == sb["max_bytes"]
        assert (sa["left"] == sb["left"]).all() and (sa["value"] == sb["value"]).all()


@pytest.mark.parametrize("text, expected", [
    ("40MB", 40_000_000), ("40 MB", 40_000_000), ("1.5GB", 1_500_000_000), ("512KiB", 524_288),
    ("2MiB", 2 * 2**20), ("1000", 1000), ("1e6B", 1_000_000), (123456, 123456), (2.5e6, 2_500_000),
    (None, None),
])
def test_sizes_read_as_users_write_them(text, expected):
    assert parse_bytes("memory_budget", text) == expected


@pytest.mark.parametrize("bad", ["40 parsecs", "MB", "-3MB", 0, -1, float("nan"), True, [1]])
def test_a_bad_budget_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="memory_budget"):
        river_forests.MondrianForestClassifier(memory_budget=bad)


def test_a_budget_too_small_for_the_trees_says_how_much_is_needed():
    with pytest.raises(ValueError, match="too small .* at least"):
        river_forests.MondrianForestClassifier(n_estimators=10, memory_budget="20KB")


def test_no_budget_needs_a_node_cap():
    with pytest.raises(ValueError, match="max_nodes"):
        river_forests.MondrianForestClassifier(memory_budget=None)
    river_forests.MondrianForestClassifier(memory_budget=None, max_nodes=255)


@pytest.mark.parametrize("old, new", [("lifetime_scale", "growth_scale"), ("cuts", "growth"),
                                      ("use_aggregation", "weighted_prunings")])
def test_an_old_parameter_name_says_its_new_one(old, new):
    cls = river_forests.PurelyRandomForestClassifier if old == "cuts" \
        else river_forests.MondrianForestClassifier
    with pytest.raises(TypeError, match=f"renamed {new}"):
        cls(**{old: 1})


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_one_vocabulary(cls):
    """The shared parameters come by keyword, after the forest's own, with one name per
    concept: the growth schedule is `growth`, features tried per split `max_features`."""
    import inspect

    params = inspect.signature(cls).parameters
    keywords = [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY]
    shared = keywords[keywords.index("memory_budget"):]
    assert shared[:3] == ["memory_budget", "max_nodes", "smoothing"] and shared[-1] == "seed"
    for old in ("lifetime", "lifetime_scale", "cuts", "cuts_scale", "budget", "budget_scale",
                "use_aggregation", "candidate_features"):
        assert old not in params


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_background_trees_borrow_from_their_trees_within_the_budget(cls):
    """With detectors that start background trees again and again (a warning every 40
    samples, a drift every 100; XForest in batches of 20), the forest stays within its
    budget; a tree with a background tree lends it an eighth of its share, and a tree without
    one keeps the whole share (the forest's share less the detectors' own bytes and the drift
    log's, as many trees as without detectors)."""
    from river import drift

    extra = {"batch_size": 20} if batch_native(cls) else {}
    model = cls(n_estimators=3, seed=1, memory_budget=BUDGET, background_swap="at_drift",
                drift_detector=drift.DummyDriftDetector(t_0=100, seed=0),
                warning_detector=drift.DummyDriftDetector(t_0=40, seed=0), **extra)
    # (2,960 samples: the last drift at 2,900, a warning at 2,940 since)
    data = rbf(2960, 10, 3) if cls in CLASSIFIERS else friedman(2960)
    assert _peak(model, data, every=10) <= BUDGET
    core = model._core
    share = core.tree_bytes
    for tree, background in zip(core.trees, core.watch.background):
        own = object.__sizeof__(tree)  # a tree's share counts its object's bytes too
        if background is None:
            assert tree.max_bytes_ + own == share
        else:
            assert background.max_bytes_ + object.__sizeof__(background) == share // 8
            assert tree.max_bytes_ + own == share - share // 8
    assert any(b is not None for b in core.watch.background)


# ------------------------------------------------------------------ the measure's history
# A forest measures once, when it is built, what it takes outside its trees (river's
# `_raw_memory_usage`, `BaseForest._set_budget`), and the trees share out the rest. Before
# saving went through `from_state` (cf7c34bc), unpickling set a forest's attributes into its
# class's shared keys without adding a name: a process that had unpickled nine forests of a
# class gave the next one it built a dict of its own, which river counts (832 bytes more for a
# Mondrian classifier), so each tree's share was 832 / n_estimators smaller, and where the
# budget binds the trees shed other nodes. That was the "sub-forest cloned on a Dask worker
# learns differently run after run" of 6b4f8060: a worker that had unpickled the sub-forests
# of an earlier run built its clones with smaller shares. These tests pin that a forest
# learns the same whatever its process did before (see also test_dask.py).

#: forests unpickled before the first one is built: more than the room CPython 3.11 leaves in
#: a class's shared keys beside a forest's attributes
UNPICKLED_FIRST = 12


def _frames(n=3000, d=6, seed=0, classifier=True):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, d)), columns=[f"x{j}" for j in range(d)])
    y = (X["x0"] + 0.3 * rng.random(n) > 0.6).astype(int)
    return X, (y if classifier else y.astype(float) + X["x1"])


def _shares(forest):
    """What the forest measured at construction: its budget's parts."""
    return tuple(forest._core.forest_state()["budget"])


def clone_and_learn(template, seed, X, y):
    """A clone of `template`, its budget's parts, and its predictions of `test` after learning
    (X, y) in one thread: what `split="partitions", mix=False` once did on a worker."""
    from river_forests._forest import serial

    forest = template.clone({"seed": seed})
    shares = _shares(forest)
    with serial():
        forest.learn_many(X, y)
    return forest, shares


def _digest(model, X):
    import hashlib

    import numpy as np

    out = model.predict_proba_many(X) if "Classifier" in type(model).__name__ \
        else model.predict_many(X)
    return hashlib.sha1(np.ascontiguousarray(out.to_numpy()).tobytes()).hexdigest()


def _template(cls):
    """A 3-tree sub-forest of a 10-tree forest whose 2 MB budget binds on `_frames`' rows."""
    from river_forests import distributed as rfd

    model = cls(n_estimators=10, seed=11, memory_budget="2MB")
    return model, model.clone({"n_estimators": 3, **rfd.partition_budget(model, 3)})


def test_a_forest_built_after_unpickled_ones_learns_as_one_built_here(tmp_path):
    """In a fresh interpreter (two hash seeds) that unpickles forests of every class before it
    builds any, a clone learns as here: the same budget's parts, the same predictions."""
    import os
    import subprocess
    import sys

    from river_forests import distributed as rfd

    cases, expected = [], {}
    for cls in CLASSES:
        X, y = _frames(classifier=cls in CLASSIFIERS)
        model, template = _template(cls)
        seed = rfd.partition_seed(model, 1)
        here = pickle.loads(pickle.dumps(template, protocol=pickle.HIGHEST_PROTOCOL))
        forest, shares = clone_and_learn(here, seed, X[:2500], y[:2500])
        expected[cls.__name__] = (shares, _digest(forest, X[2500:]))
        cases.append((cls.__name__, [template.clone() for _ in range(UNPICKLED_FIRST)], seed,
                      X[:2500], y[:2500], X[2500:]))
    payload = tmp_path / "cases.pkl"
    payload.write_bytes(pickle.dumps(cases, protocol=pickle.HIGHEST_PROTOCOL))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    child = (
        "import pickle, sys\n"
        f"sys.path.insert(0, {root!r})\n"
        f"cases = pickle.loads(open({str(payload)!r}, 'rb').read())  # every forest unpickled first\n"
        "from tests.test_budget import clone_and_learn, _digest\n"
        "out = {}\n"
        "for name, templates, seed, X, y, test in cases:\n"
        "    forest, shares = clone_and_learn(templates[0], seed, X, y)\n"
        "    out[name] = (shares, _digest(forest, test))\n"
        "sys.stdout.buffer.write(pickle.dumps(out))\n")
    for hashseed in ("0", "1"):
        done = subprocess.run([sys.executable, "-c", child], capture_output=True, timeout=600,
                              env=dict(os.environ, PYTHONHASHSEED=hashseed))
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        got = pickle.loads(done.stdout)
        for name, (shares, digest) in expected.items():
            assert got[name][0] == shares, f"{name}: budget {got[name][0]} there, {shares} here"
            assert got[name][1] == digest, f"{name}: other predictions there"


#: the regressors whose clone measures its budget a few bytes apart when the model it is
#: cloned from was unpickled: two float parameters that share one object when the model is
#: built from its defaults are two objects when it is rebuilt from its saved state, and
#: river's walk counts a shared object once
FLOAT_IDENTITY = {"MondrianForestRegressor", "BSPForestRegressor",
                  "PurelyRandomForestRegressor", "XForestRegressor"}


@pytest.mark.parametrize("cls", [
    pytest.param(c, marks=pytest.mark.xfail(
        c.__name__ in FLOAT_IDENTITY, strict=True,
        reason="the budget's fixed part counts a float parameter once or twice, as its "
               "default's object is shared or not: making the measure depend on values only "
               "moves every budgeted result, left for a change that may")) for c in CLASSES],
    ids=lambda c: c.__name__)
def test_a_clone_of_an_unpickled_model_has_the_budget_of_a_clone_of_the_model(cls):
    """The budget a forest measures at construction depends on its parameters' values, not on
    which objects hold them."""
    model, _ = _template(cls)
    again = pickle.loads(pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL))
    assert _shares(again.clone({"seed": 5})) == _shares(model.clone({"seed": 5}))
