"""biau2008's purely random and scale-invariant forests, checked on trees the stream built."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from river_forests import PurelyRandomForestClassifier, PurelyRandomForestRegressor

SPLITS = ["uniform", "scale_invariant"]


def _stream(n, d=3, seed=0, transform=None):
    rng = random.Random(seed)
    for _ in range(n):
        x = {f"x{j}": rng.random() for j in range(d)}
        y = int(x["x0"] + 0.3 * x["x1"] > 0.7)
        if transform is not None:
            x = {k: transform(v) for k, v in x.items()}
        yield x, y


def _partition(model):
    """What the cuts made: every tree's topology, cut features and thresholds."""
    keys = ("left", "right", "parent", "feature", "threshold")
    return [tuple(t.get_state()[k].tobytes() for k in keys) + (t.cuts,) for t in model.trees]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("cls", [PurelyRandomForestClassifier, PurelyRandomForestRegressor])
def test_cuts_never_look_at_labels(cls, split):
    """Same features, same seed, other labels: the same partition."""
    rng = random.Random(1)
    data = list(_stream(3000, seed=2))
    a, b = cls(n_estimators=3, split=split, seed=5), cls(n_estimators=3, split=split, seed=5)
    for x, y in data:
        a.learn_one(x, y)
        b.learn_one(x, rng.choice("abc") if cls is PurelyRandomForestClassifier else rng.gauss(0, 9))
    assert a.n_cuts > 50
    assert _partition(a) == _partition(b)


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("scale, exponent", [(1.0, 0.5), (4.0, 0.7), (0.5, 0.9)])
def test_cuts_follow_the_schedule(split, scale, exponent):
    """After n samples a tree has made exactly k_n = floor(growth_scale * n^growth_exponent) cuts
    (continuous features: a leaf is always there to cut; no node cap in the way)."""
    model = PurelyRandomForestClassifier(n_estimators=2, growth_scale=scale, growth_exponent=exponent,
                                         split=split, max_nodes=10**6, seed=3)
    for n, (x, y) in enumerate(_stream(4000, seed=4), 1):
        model.learn_one(x, y)
        if n % 97 == 0 or n == 4000:
            k = math.floor(scale * n**exponent)
            for tree in model.trees:
                assert tree.cuts_scheduled == k
                # a rank cut needs a leaf holding two distinct values: while the schedule asks
                # for more cuts than the points can separate (4 n^0.7 > n / 2 early on) the
                # cuts wait, never run ahead, and catch up
                assert tree.cuts == k if split == "uniform" or n == 4000 else tree.cuts <= k
                assert tree.node_count == 2 * tree.cuts + 1
    assert model.trees[0].cuts / 4000 < 1  # k_n / n -> 0


def test_a_fixed_k_stops_and_the_cap_bounds_the_tree():
    # the uniform split (it cuts as the schedule says: the scale-invariant one waits for a
    # reservoir of two distinct values), at the exponent 0.7 of the check below
    fixed = PurelyRandomForestClassifier(n_estimators=2, growth=40, seed=0, split="uniform",
                                         growth_exponent=0.7)
    capped = PurelyRandomForestClassifier(n_estimators=2, max_nodes=31, seed=0, split="uniform",
                                          growth_exponent=0.7)
    for n, (x, y) in enumerate(_stream(3000, seed=1), 1):
        fixed.learn_one(x, y)
        capped.learn_one(x, y)
        if n == 10:  # a fixed k follows the schedule up to k, not all k cuts at once
            assert [t.cuts for t in fixed.trees] == [math.floor(4 * 10**0.7)] * 2
    assert [t.cuts for t in fixed.trees] == [40, 40]
    assert all(t.node_count == 31 and t.cuts == 15 for t in capped.trees)
    assert all(t.cuts_scheduled > 15 for t in capped.trees)


def _proba_stream(model, data):
    out = []
    for x, y in data:
        out.append(sorted(model.predict_proba_one(x).items()))
        model.learn_one(x, y)
    return out


def test_scale_invariant_predictions_ignore_monotone_transforms():
    """Ranks only: a strictly increasing transform of the features (here exp(5 x) - 3) gives
    exactly the same predictions; the uniform split, which measures lengths, does not."""
    plain = list(_stream(2500, seed=6))
    warped = list(_stream(2500, seed=6, transform=lambda v: math.exp(5 * v) - 3))
    for split, same in (("scale_invariant", True), ("uniform", False)):
        a = PurelyRandomForestClassifier(n_estimators=4, split=split, seed=8)
        b = PurelyRandomForestClassifier(n_estimators=4, split=split, seed=8)
        assert (_proba_stream(a, plain) == _proba_stream(b, warped)) is same, split


def test_uniform_cells_hold_their_data_boxes():
    """A leaf's box lies inside its geometric cell: below every cut it is on the left of, above
    every cut it is on the right of (up to the boxes' float32 outward rounding)."""
    model = PurelyRandomForestClassifier(n_estimators=2, seed=9, split="uniform")
    for x, y in _stream(3000, seed=10):
        model.learn_one(x, y)
    for tree in model.trees:
        s = tree.arrays()
        slot = {c: d for d, c in enumerate(s["columns"])}
        stack = [(s["root"], [])]
        checked = 0
        while stack:
            node, cuts = stack.pop()
            if s["left"][node] < 0:
                for f, t, side in cuts:
                    lo, hi = s["lower"][node, slot[f]], s["upper"][node, slot[f]]
                    if lo <= hi:  # the leaf has a box on that side
                        assert (hi <= t + 1e-6) if side == "left" else (lo >= t - 1e-6)
                        checked += 1
                continue
            f, t = s["feature"][node], s["threshold"][node]
            stack.append((s["left"][node], cuts + [(f, t, "left")]))
            stack.append((s["right"][node], cuts + [(f, t, "right")]))
        assert checked > 100


def test_scale_invariant_cuts_sit_on_data_values():
    """A rank cut's threshold is one of the leaf's values (so ranks, not distances, decide)."""
    data = list(_stream(1500, seed=11))
    seen = {f"x{j}": {x[f"x{j}"] for x, _ in data} for j in range(3)}
    model = PurelyRandomForestClassifier(n_estimators=2, split="scale_invariant", seed=12)
    for x, y in data:
        model.learn_one(x, y)
    names = list(model._core.features.names)
    for tree in model.trees:
        s = tree.get_state()
        interior = s["left"] >= 0
        assert interior.sum() > 20
        for f, t in zip(s["feature"][interior], s["threshold"][interior]):
            assert t in seen[names[f]]


def test_a_binary_feature_never_blocks_rank_cuts():
    """A leaf whose drawn coordinate is a feature that is (almost) always 0 draws another one
    once its reservoir fills with that single value: cuts keep coming on schedule."""
    rng = random.Random(13)
    model = PurelyRandomForestClassifier(n_estimators=3, split="scale_invariant", growth_scale=1.0,
                                         growth_exponent=0.5, max_nodes=10**6, seed=14)
    for _ in range(5000):
        x = {f"rare{j}": float(rng.random() < 0.001) for j in range(8)}
        x["u"] = rng.random()
        model.learn_one(x, int(x["u"] > 0.5))
    assert all(t.cuts >= 0.9 * t.cuts_scheduled for t in model.trees)


def test_decreasing_subsampling_rate():
    """subsample_decay=beta keeps the n-th sample with probability q n^-beta (theorem 7): a
    tree learns about sum_n q n^-beta of the N samples offered, a vanishing fraction."""
    n, q, beta = 20_000, 0.8, 0.5
    expected = sum(q * k**-beta for k in range(1, n + 1))
    model = PurelyRandomForestClassifier(n_estimators=8, subsampling="bernoulli", subsample_rate=q,
                                         subsample_decay=beta, seed=15)
    for x, y in _stream(n, seed=16):
        model.learn_one(x, y)
    seen = np.array([t.samples_seen for t in model.trees])
    assert abs(seen.mean() - expected) < 4 * math.sqrt(expected / 8)
    assert seen.max() < 0.02 * n


@pytest.mark.parametrize("params", [
    dict(growth="many"), dict(growth=0), dict(growth=1.5), dict(growth_scale=0.0), dict(growth_exponent=1.0),
    dict(growth_exponent=0.0), dict(split="median"), dict(pool_size=1), dict(subsample_decay=0.5),
    dict(subsampling="bernoulli", subsample_decay=1.0), dict(max_nodes=0), dict(smoothing=-1.0),
])
def test_bad_parameters(params):
    with pytest.raises(ValueError):
        PurelyRandomForestClassifier(**params)
    with pytest.raises(ValueError):
        PurelyRandomForestRegressor(**params)
