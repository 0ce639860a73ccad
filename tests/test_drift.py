"""Drift adaptation (`drift_detector`, `warning_detector`) on every forest of
`river_forests.__all__`: each tree's prequential error feeds its own clone of each detector; a
warning starts a background tree, a drift (a rise of the error) puts the background tree, or a
fresh one, in the tree's place. Checked here: trees are replaced after an abrupt drift and
help, not on a stationary stream; falls of the error are ignored; the detectors are river
objects (clone, pickle, deepcopy); `learn_many` equals a `learn_one` loop (XForest: chunks of
`batch_size`); background trees and their seeds; the parameters' checks; bad input; the
bounded `drift_log`; models pickled before drift adaptation."""

from __future__ import annotations

import copy
import functools
import itertools
import pathlib
import pickle
import random

import numpy as np
import pandas as pd
import pytest
from river import drift
from river.datasets import synth
from river.drift import binary

from river_forests import MondrianForestClassifier, MondrianForestRegressor, XForestClassifier, XForestRegressor
from river_forests._core._random import tree_seed
from river_forests._forest import BaseForest

from .conftest import CLASSIFIERS, ESTIMATORS, batch_native, is_classifier, name_of, same_state

# ------------------------------------------------------------------------------- helpers

#: XForest's own swaps (algorithm 2) replace trees too and count in `n_replaced`: the tests
#: that count replacements as drifts turn them off (see
#: `test_xforest_swaps_do_not_trigger_drifts_on_a_stationary_stream` for the default)
NO_SWAPS = {XForestClassifier: dict(n_swaps=0), XForestRegressor: dict(n_swaps=0)}

#: lengths of the accuracy streams: agrawal-abrupt drifts at N_CLF // 2 (Agrawal function
#: 0 -> 2), friedman-drift at N_REG // 3 (and back at 2 N_REG // 3)
N_CLF, N_REG = 10_000, 12_000
#: length of the streams of the mechanism tests (drift at 2000, resp. 1000 and 2000)
N_SHORT = 4_000


def _make(name: str, n: int):
    """The seeded streams these tests were calibrated on: Agrawal function 0 -> 2 at n/2
    (abrupt: the change takes n/200 samples), Friedman's function with global recurring abrupt
    drifts at n/3 and 2n/3, and the stationary Agrawal function 0 and Friedman."""
    if name == "agrawal-abrupt":
        return synth.ConceptDriftStream(
            stream=synth.Agrawal(classification_function=0, seed=42),
            drift_stream=synth.Agrawal(classification_function=2, seed=43),
            position=n // 2, width=max(n // 200, 1), seed=42)
    if name == "friedman-drift":
        return synth.FriedmanDrift(drift_type="gra", position=(n // 3, 2 * n // 3), seed=42)
    if name == "agrawal":
        return synth.Agrawal(classification_function=0, seed=42)
    return synth.Friedman(seed=42)


@functools.lru_cache(maxsize=None)
def _stream(name: str, n: int) -> tuple:
    return tuple(itertools.islice(_make(name, n), n))


def drifting(cls, n: int) -> tuple[tuple, int]:
    """A seeded stream with an abrupt drift for `cls`, and the drift's position."""
    if is_classifier(cls):
        return _stream("agrawal-abrupt", n), n // 2
    return _stream("friedman-drift", n), n // 3


def stationary(cls, n: int) -> tuple:
    return _stream("agrawal" if is_classifier(cls) else "friedman", n)


def arf_detectors() -> dict:
    """river ARF's detectors (a fresh pair: tests must not share detector objects)."""
    return dict(drift_detector=drift.ADWIN(delta=0.001), warning_detector=drift.ADWIN(delta=0.01))


def sensitive_detectors() -> dict:
    """Detectors that act early on the short streams: a warning is checked at every sample
    (clock=1), so a background tree usually learns a while before the drift that swaps it in."""
    return dict(drift_detector=drift.ADWIN(delta=0.01),
                warning_detector=drift.ADWIN(delta=0.1, clock=1))


def periodic_detectors(warning=True) -> dict:
    """river's DummyDriftDetector: a drift every 10 samples since the last reset and (if
    `warning`) a warning every 4: per tree, warnings at samples 4 and 8, a drift at 10 (both
    detectors reset), warnings at 14 and 18, a drift at 20, ..."""
    # (seeded: its generator, unused by the fixed trigger, is then the same in every copy)
    dets = dict(drift_detector=drift.DummyDriftDetector(t_0=10, seed=0))
    if warning:
        dets["warning_detector"] = drift.DummyDriftDetector(t_0=4, seed=0)
    return dets


#: XForest learning each sample as a batch of one, every tree the row as it is: one row per
#: `learn_one`, as the sequential forests (its after-batch step then watches each row at once)
ONE_ROW = {XForestClassifier: dict(batch_size=1, bootstrap=False),
           XForestRegressor: dict(batch_size=1, bootstrap=False)}


#: node caps in place of a byte budget: with a warning detector, a budget is shared with the
#: background trees each tree may start (each tree gets half), so the forests with and without
#: detectors would not grow the same trees; a cap leaves the detectors' effect alone
CAPS = {"MondrianForestClassifier": 1023, "MondrianForestRegressor": 1023, "XForestClassifier": 32767,
        "XForestRegressor": 32767}


def make(cls, detectors: dict | None = None, **params):
    """`cls` with 5 trees, seed 1, XForest without its own swaps, and `detectors` acting as
    river's ARF's do (``background_swap="at_drift"``: the mechanism these tests pin; the
    default's duels are tested at the end)."""
    extra = {"background_swap": "at_drift"} if detectors else {}
    return cls(**{"n_estimators": 5, "seed": 1, "memory_budget": None,
                  "max_nodes": CAPS.get(cls.__name__, 4095), **NO_SWAPS.get(cls, {}),
                  **(detectors or {"drift_detector": None}), **extra, **params})


def loss(cls, prediction, y) -> float:
    """0/1 or absolute error; a regressor that cannot predict yet (None: a batch-native one
    before its first batch) is scored as one predicting 0, as the others do then."""
    if is_classifier(cls):
        return float(prediction != y)
    return abs((0.0 if prediction is None else prediction) - y)


def run(model, data) -> list:
    """Prequential run (predict, then learn each sample): the losses."""
    cls = type(model)
    out = []
    for x, y in data:
        out.append(loss(cls, model.predict_one(x), y))
        model.learn_one(x, y)
    return out


def flip(cls, rows) -> list:
    """`rows` with flipped targets (1 - y for Agrawal's 0/1 labels, -y for a regressor)."""
    return [(x, 1 - y if is_classifier(cls) else -y) for x, y in rows]


def adapting(cls) -> list:
    """The short drifting stream, then again with flipped targets (a sure rise of every
    tree's error): a stream on which the sensitive detectors surely act, whatever the seed."""
    data, _ = drifting(cls, N_SHORT)
    return list(data) + flip(cls, data)


@functools.lru_cache(maxsize=None)
def plain_losses(cls, n: int) -> tuple:
    """The prequential losses of `make(cls)` (no detectors) on `drifting(cls, n)`."""
    return tuple(run(make(cls), drifting(cls, n)[0]))


def prediction(model, x):
    return model.predict_proba_one(x) if is_classifier(type(model)) else model.predict_one(x)


def assert_same_model(a, b):
    """Same trees, background trees, counters, reports and detector states."""
    ca, cb = a._core, b._core
    assert len(ca.trees) == len(cb.trees)
    for i, (ta, tb) in enumerate(zip(ca.trees, cb.trees)):
        assert type(ta) is type(tb) and same_state(ta.get_state(), tb.get_state()), f"tree {i}"
    for i, (ta, tb) in enumerate(zip(ca.watch.background, cb.watch.background)):
        assert (ta is None) == (tb is None), f"background {i}"
        if ta is not None:
            assert same_state(ta.get_state(), tb.get_state()), f"background {i}"
    assert (ca.n_replaced, ca.watch.n_background, ca.master_seed) == (cb.n_replaced, cb.watch.n_background,
                                                               cb.master_seed)
    assert a.drift_log == b.drift_log
    assert a.drifts_per_tree == b.drifts_per_tree
    assert a.warnings_per_tree == b.warnings_per_tree
    assert a.swaps_per_tree == b.swaps_per_tree
    assert ca.watch.n_watched == cb.watch.n_watched
    # the detectors' state (compiled ADWINs, or river objects), the duels and counts
    assert pickle.dumps(ca.watch.state()["watch"]) == pickle.dumps(cb.watch.state()["watch"])


def learned_rows(model, t: int) -> int:
    """Rows the trees have learned after `t` calls of `learn_one`: all of them, or, for a
    forest that buffers (XForest), those of its full batches."""
    return t - model.n_pending if batch_native(type(model)) else t


def until_adapted(model, data, need_background=True) -> int:
    """Learn `data` until a drift and a warning happened and (if `need_background`) a
    background tree exists; the number of samples learned."""
    for t, (x, y) in enumerate(data, 1):
        model.learn_one(x, y)
        if sum(model.drifts_per_tree) and sum(model.warnings_per_tree) and (
                not need_background or any(b is not None for b in model._core.watch.background)):
            return t
    raise AssertionError("no drift, warning and background tree on the stream")


# ------------------------------------------------------------------------------- adaptation

#: how much detectors cut the error after the drift, at least (adaptive <= ratio * plain),
#: measured on agrawal-abrupt (error over the second half) and friedman-drift (MAE between
#: the changes, n/3 to 2n/3); seed 1, 5 trees. Measured ratios: BSP 0.59, Mondrian 0.59,
#: purely random 0.86, stream partitioning 0.62 (classifiers); BSP 0.89, Mondrian 0.86,
#: purely random 0.97, stream partitioning 0.89 (regressors); XForest (no swaps) 1.44, its
#: regressor (no swaps) 0.77 with mean leaves, 0.94 with linear leaves (the default since
#: issue 47: the old trees' leaves follow the new concept too, so a fresh tree gains less).
RATIO = {"BSPForestRegressor": 0.95, "MondrianForestRegressor": 0.95,
         "StreamPartitionForestRegressor": 0.95, "XForestRegressor": 0.95}
#: the forests whose detectors do not buy accuracy on these streams (asserted not to cost
#: more than 5%): purely random trees cut at random, whatever the labels, so a fresh tree
#: is not much better than an old one; XForest's trees keep growing from every batch and a
#: fresh XTree learns Agrawal function 2 slowly
NO_GAIN = {"PurelyRandomForestRegressor", "PurelyRandomForestClassifier"}
# (the classifier gained 10% with the uniform split, its default before 0.2.0; with the
# scale-invariant split a fresh tree waits for its reservoirs before it cuts: 4% here)
#: forests whose detectors cost accuracy here, so only the bookkeeping is asserted: XForest's
#: trees keep growing from every batch (they follow the change), while a replaced XTree starts
#: from nothing (error after the drift 0.205 with ARF's detectors against 0.143 without)
#: The stream-partitioning forest's defaults since 0.3.0 (Hoeffding splits on every point,
#: Poisson(6) weights, naive Bayes leaves) relearn this drift faster than a fresh tree does:
#: error after it 0.057 with ARF's detectors against 0.017 without (DDM: 0.051). Issue 31.
COSTS = {"XForestClassifier", "StreamPartitionForestClassifier"}
#: the forests whose warning detector may raise one warning on the stationary stream
WARNS = {"StreamPartitionForestRegressor"}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_an_abrupt_drift_replaces_trees_after_it_and_helps(cls):
    """On a seeded abrupt drift, with ARF's detectors (ADWIN 0.001 / 0.01): at least one tree
    is replaced, every replacement is counted once (`n_replaced` equals the sum of
    `drifts_per_tree`, `drift_log` holds them all, in order), at least 80% of them come
    after the drift point, and the error after the drift is lower than the same forest's
    without detectors by the margin of `RATIO` (0.8 by default; `NO_GAIN` forests: no more
    than 5% higher; `COSTS`: not asserted)."""
    n = N_CLF if is_classifier(cls) else N_REG
    data, at = drifting(cls, n)
    adaptive = make(cls, arf_detectors())
    lp, la = list(plain_losses(cls, n)), run(adaptive, data)

    drifts = adaptive.drifts_per_tree
    assert adaptive.n_replaced >= 1
    assert adaptive.n_replaced == sum(drifts)
    log = adaptive.drift_log
    assert len(log) == sum(drifts)
    assert [p for p, _ in log] == sorted(p for p, _ in log)
    assert all(1 <= p <= n and 0 <= i < 5 for p, i in log)
    assert [sum(1 for _, i in log if i == k) for k in range(5)] == drifts
    assert sum(p > at for p, _ in log) >= 0.8 * len(log), log

    window = slice(at, n) if is_classifier(cls) else slice(at, 2 * n // 3)
    err_plain, err_adaptive = np.mean(lp[window]), np.mean(la[window])
    if cls.__name__ in COSTS:
        pass
    elif cls.__name__ in NO_GAIN:
        assert err_adaptive <= 1.05 * err_plain, (err_adaptive, err_plain)
    else:
        assert err_adaptive <= RATIO.get(cls.__name__, 0.8) * err_plain, (err_adaptive, err_plain)
    # before the drift the detectors changed nothing the forest predicts
    first = min([p for p, _ in log] + [at])
    assert lp[:first - 1] == la[:first - 1]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_stationary_stream_replaces_no_tree(cls):
    """On a stationary stream of the same length (agrawal, friedman) with the same detectors,
    no tree is replaced and no warning raised (measured: none for every forest, XForest
    without its own swaps), and the forest predicts exactly what the forest without
    detectors predicts, sample by sample (the detectors change nothing the trees learn)."""
    data = stationary(cls, N_CLF if is_classifier(cls) else N_REG)
    plain, adaptive = make(cls), make(cls, arf_detectors())
    for x, y in data:
        assert prediction(adaptive, x) == prediction(plain, x)
        plain.learn_one(x, y)
        adaptive.learn_one(x, y)
    assert adaptive.n_replaced == 0 and adaptive.drift_log == []
    assert adaptive.drifts_per_tree == [0] * 5
    # the warning detector (ADWIN 0.01) may flag a rise that its drift detector does not
    # confirm: measured once, in one of the stream-partitioning regressor's 5 trees (its
    # errors rise for a while after a split made on few samples)
    assert sum(adaptive.warnings_per_tree) <= (1 if cls.__name__ in WARNS else 0)
    assert plain.n_replaced == 0 and plain.drift_log == [] and plain.drifts_per_tree == [0] * 5


def test_xforest_swaps_do_not_trigger_drifts_on_a_stationary_stream():
    """XForest with its default swaps (n_swaps=1) and ARF's detectors replaces no tree on a
    drift on a stationary stream (its own swaps still happen)."""
    model = XForestClassifier(n_estimators=5, seed=1, **arf_detectors())
    for x, y in stationary(XForestClassifier, N_CLF):
        model.learn_one(x, y)
    assert model.n_replaced > 0  # the swaps
    assert model.drift_log == []


def _fall_then_rise(rise: bool, n=3000, seed=0) -> list:
    """x0..x3 uniform; the label is a coin flip for the noisy half and x0 > 0.5 for the
    clean half: the trees' error falls from 1/2 to ~0 (noisy half first) or rises."""
    rng = random.Random(seed)
    out = []
    for t in range(n):
        x = {f"x{j}": rng.random() for j in range(4)}
        noisy = (t >= n // 2) if rise else (t < n // 2)
        y = rng.random() < 0.5 if noisy else x["x0"] > 0.5
        out.append((x, int(y)))
    return out


class CountingADWIN(drift.ADWIN):
    """ADWIN counting its detections (of a rise or a fall) in a class attribute."""

    detections = 0

    def update(self, x):
        super().update(x)
        if self.drift_detected:
            type(self).detections += 1


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_fall_of_the_error_is_ignored_and_a_rise_acts(cls, monkeypatch):
    """ADWIN flags a change of the mean either way. When the trees' error falls (random
    labels, then a clean concept), the detectors detect it and no tree is replaced nor
    background tree started; when it rises (the clean concept, then random labels), trees
    are replaced, after the change."""
    monkeypatch.setattr(CountingADWIN, "detections", 0)
    target = (lambda y: y) if is_classifier(cls) else float
    fall = [(x, target(y)) for x, y in _fall_then_rise(rise=False)]
    model = make(cls, dict(drift_detector=CountingADWIN(delta=0.002),
                           warning_detector=CountingADWIN(delta=0.01)))
    for x, y in fall:
        model.learn_one(x, y)
    assert CountingADWIN.detections > 0
    assert model.n_replaced == 0 and model.warnings_per_tree == [0] * 5
    assert all(b is None for b in model._core.watch.background) and model._core.watch.n_background == 0

    rise = [(x, target(y)) for x, y in _fall_then_rise(rise=True)]
    model = make(cls, dict(drift_detector=drift.ADWIN(delta=0.01)))
    for x, y in rise:
        model.learn_one(x, y)
    assert model.n_replaced >= 1
    assert all(p > len(rise) // 2 for p, _ in model.drift_log), model.drift_log


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_the_errors_are_each_trees_loss_before_it_learns_the_sample(cls):
    """`core.watch.last_errors` after `learn_one` (after a batch, for XForest: its last row) holds
    each tree's loss on the last sample from its prediction before it learned the sample: 0/1
    for a classifier (argmax of its probabilities), |mean - y| for a regressor; whether the
    forest predicted the sample first (test-then-train, reused) or not."""
    data, _ = drifting(cls, N_SHORT)
    model = make(cls, dict(drift_detector=drift.ADWIN()), n_estimators=3)
    for x, y in data[:300]:
        model.learn_one(x, y)
    chunk = data[300:300 + (model.batch_size if batch_native(cls) else 1)]
    X = pd.DataFrame([x for x, _ in chunk])
    per_tree, labels = model._predict_trees_batch(X)  # (n_trees, n_rows, n_out)
    for x, y in chunk:
        model.learn_one(x, y)
    if is_classifier(cls):
        expected = [[float(labels[int(np.argmax(per_tree[t, r]))] != y) for t in range(3)]
                    for r, (_, y) in enumerate(chunk)]
    else:
        expected = [[abs(per_tree[t, r, 0] - y) for t in range(3)]
                    for r, (_, y) in enumerate(chunk)]
    assert np.allclose(np.asarray(model._core.watch.last_errors, dtype=float), expected[-1])
    # predicted first, one sample: the trees' answers are reused, the errors the same
    twin = make(cls, dict(drift_detector=drift.ADWIN()), n_estimators=3)
    for x, y in data[:300]:
        twin.learn_one(x, y)
    for x, y in chunk:
        prediction(twin, x)
        twin.learn_one(x, y)
    assert np.allclose(np.asarray(twin._core.watch.last_errors, dtype=float), expected[-1])


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_the_first_sample_is_an_error_for_every_tree(cls):
    """A classifier's first sample has a label no tree knows: its error is 1 for every tree."""
    model = cls(n_estimators=3, seed=1, drift_detector=drift.ADWIN(),
                **({"batch_size": 1} if batch_native(cls) else {}))
    model.learn_one({"a": 1.0}, "first")
    assert model._core.watch.last_errors == [1.0, 1.0, 1.0]


# ------------------------------------------------------------------------------- river objects


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_clone_has_fresh_detectors_with_the_same_params(cls):
    """`clone()` of a forest that has drifted has detectors with the same parameters and no
    history (a state equal to a new forest's), no drift, warning, log or background tree,
    and learns as a new forest with the same parameters. The user's detector objects are
    never updated (each tree has its own)."""
    data, _ = drifting(cls, N_SHORT)
    dets = sensitive_detectors()
    model = make(cls, dets)
    until_adapted(model, data, need_background=False)
    clone = model.clone()
    assert clone._get_params() == model._get_params()
    assert clone.drift_detector is not model.drift_detector
    assert clone.drift_detector._get_params() == dets["drift_detector"]._get_params()
    fresh_d = pickle.dumps(dets["drift_detector"].clone())
    fresh_w = pickle.dumps(dets["warning_detector"].clone())
    assert pickle.dumps(clone._core.watch.state()["watch"]) == \
        pickle.dumps(make(cls, sensitive_detectors())._core.watch.state()["watch"])
    assert pickle.dumps(clone._core.watch.state()["watch"]) != pickle.dumps(model._core.watch.state()["watch"])
    assert clone.drifts_per_tree == [0] * 5 and clone.warnings_per_tree == [0] * 5
    assert clone.drift_log == [] and clone.n_replaced == 0
    assert clone._core.watch.n_background == 0 and clone._core.watch.background == [None] * 5
    # the user's objects: untouched
    assert pickle.dumps(dets["drift_detector"]) == fresh_d
    assert pickle.dumps(dets["warning_detector"]) == fresh_w
    new = make(cls, sensitive_detectors())
    for x, y in data[:2500]:
        assert prediction(clone, x) == prediction(new, x)
        clone.learn_one(x, y)
        new.learn_one(x, y)
    assert_same_model(clone, new)


def _pickled(model):
    return pickle.loads(pickle.dumps(model))


@pytest.mark.parametrize("copier", [_pickled, copy.deepcopy], ids=["pickle", "deepcopy"])
@pytest.mark.parametrize("seed", [1, None], ids=["seed1", "seedNone"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_copy_taken_mid_drift_resumes_identically(cls, seed, copier):
    """A forest pickled (or deep-copied) after a drift and a warning, while a background tree
    exists, then fed 800 more samples and 600 with flipped targets (a sure rise of every
    tree's error), gives bit-identical predictions, drift logs, counters, detectors, trees
    and background trees as the original continuing; with seed=None too (the master seed
    travels with the core). With seed 1 new warnings and replacements happen after the
    copy (with seed=None they happen or not: see the periodic test below)."""
    stream = adapting(cls)
    for attempt in range(5):
        model = make(cls, sensitive_detectors(), seed=seed, n_estimators=3)
        try:
            t = until_adapted(model, stream)
            break
        except AssertionError:
            # seed=None draws a new master seed each time: a draw whose trees never hold a
            # background tree and a drift at once on this stream is a property of that draw
            # (rare: none in 60 draws of the purely random regressor, once in a CI run), not
            # of the copy under test, so draw again
            if seed is not None or attempt == 4:
                raise
    rest = stream[t:t + 800] + flip(cls, stream[t + 800:t + 1400])
    _copy_and_resume(model, copier, rest, events=seed is not None)


@pytest.mark.parametrize("copier", [_pickled, copy.deepcopy], ids=["pickle", "deepcopy"])
@pytest.mark.parametrize("seed", [1, None], ids=["seed1", "seedNone"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_copy_resumes_identically_through_new_replacements(cls, seed, copier):
    """As above with periodic detectors (a warning every 4 samples, a drift every 10; XForest
    in batches of 25): the copy is taken with a background tree, and the new background
    trees and replacements after it (surely there) are seeded identically in both, also for
    seed=None."""
    model = make(cls, periodic_detectors(), seed=seed, n_estimators=3,
                 **({"batch_size": 25} if batch_native(cls) else {}))
    data, _ = drifting(cls, N_SHORT)
    t = until_adapted(model, data)
    _copy_and_resume(model, copier, data[t:t + 300], events=True)


def _copy_and_resume(model, copier, rest, events: bool):
    assert any(b is not None for b in model._core.watch.background)
    twin = copier(model)
    assert_same_model(model, twin)
    before = (model.n_replaced, model._core.watch.n_background)
    for x, y in rest:
        assert prediction(twin, x) == prediction(model, x)
        model.learn_one(x, y)
        twin.learn_one(x, y)
    if events:
        assert model.n_replaced > before[0] and model._core.watch.n_background > before[1]
    assert_same_model(model, twin)


# ------------------------------------------------------------------------------- batches


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_learn_many_equals_a_learn_one_loop(cls):
    """With detectors, `learn_many` over chunks (of 50 rows; of `batch_size` for XForest,
    with its swaps) gives exactly what a `learn_one` loop gives: the same predictions
    before each chunk, drift logs, replacements and trees (a classifier also meets a new
    label in the middle of a chunk, after the drift)."""
    data = list(drifting(cls, N_SHORT)[0])
    if is_classifier(cls):
        data[2345] = (data[2345][0], 2)
    one, many = _learn_many_and_a_loop(cls, data)
    assert one.n_replaced >= 1 and sum(one.warnings_per_tree) >= 1
    assert_same_model(one, many)


def _learn_many_and_a_loop(cls, data, **params):
    """Two forests with the sensitive detectors (XForest with its swaps), one fed `data` by
    `learn_many` over chunks (of 50 rows; of `batch_size` for XForest), the other by a
    `learn_one` loop, their predictions compared before each chunk: (loop, batches)."""
    extra = {"n_swaps": 1} if batch_native(cls) else {}
    one = make(cls, sensitive_detectors(), **extra, **params)
    many = make(cls, sensitive_detectors(), **extra, **params)
    size = int(many.batch_size) if batch_native(cls) else 50
    for start in range(0, len(data), size):
        chunk = data[start:start + size]
        X = pd.DataFrame([x for x, _ in chunk])
        y = pd.Series([y for _, y in chunk])
        if is_classifier(cls):
            pd.testing.assert_frame_equal(many.predict_proba_many(X), one.predict_proba_many(X))
        else:
            pd.testing.assert_series_equal(many.predict_many(X), one.predict_many(X))
        many.learn_many(X, y)
        for x, yy in chunk:
            one.learn_one(x, yy)
    return one, many


# ------------------------------------------------------------------------------- background trees


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_background_trees_start_on_a_warning_and_take_the_place_on_a_drift(cls):
    """With periodic detectors (warnings at samples 4, 8, drift at 10, then again every 10),
    sample by sample: a warning starts a background tree of the tree's kind, seeded
    `tree_seed(master_seed, -2 - k)` for the k-th (k = `n_background` before it, trees in
    order), that has learned nothing yet and then learns every sample (`samples_seen`
    counts those since the warning; a second warning starts another); on the drift the
    background tree (2 samples learned) becomes `core.trees[i]`, the slot is emptied and
    `n_replaced` counts it. The reports match: `warnings_per_tree`, `drifts_per_tree`,
    `drift_log` ((10, 0), (10, 1), (10, 2), (20, 0), ...)."""
    model = make(cls, periodic_detectors(), n_estimators=3, **ONE_ROW.get(cls, {}))
    core, master = model._core, model._core.master_seed
    data, _ = drifting(cls, N_SHORT)
    for t, (x, y) in enumerate(data[:95], 1):
        before, nb, nr = list(core.watch.background), core.watch.n_background, core.n_replaced
        model.learn_one(x, y)
        phase = t % 10
        for i in range(3):
            b = core.watch.background[i]
            if phase == 0:  # the drift: the background tree takes the tree's place
                assert core.trees[i] is before[i] and core.trees[i].samples_seen == 2
                assert b is None
            elif phase in (4, 8):  # a warning: a new background tree, seeded in order
                assert b is not None and b is not before[i] and type(b) is type(core.trees[i])
                assert b.samples_seen == 0
                seeded = model._tree_factory(tree_seed(master, -2 - (nb + i)))
                assert same_state(b.get_state(), seeded.get_state())
            elif phase < 4:
                assert b is None
            else:
                assert b is before[i] and b.samples_seen == phase % 4
        assert core.watch.n_background == nb + (3 if phase in (4, 8) else 0)
        assert core.n_replaced == nr + (3 if phase == 0 else 0)
    assert model.warnings_per_tree == [19] * 3 and model.drifts_per_tree == [9] * 3
    assert model.drift_log == [(p, i) for p in range(10, 95, 10) for i in range(3)]
    # a different seed would have given another tree: the seed check above means something
    other = model._tree_factory(tree_seed(master, -1))
    assert not same_state(other.get_state(), model._tree_factory(tree_seed(master, -2)).get_state())


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_without_a_background_tree_a_drift_brings_a_fresh_tree(cls):
    """With a drift detector only (a drift every 10 samples), each drift replaces the tree by
    a fresh tree of its kind that has learned nothing, seeded `tree_seed(master_seed,
    n_estimators + k)` for the forest's k-th replacement (trees in order); no background tree
    is ever started."""
    model = make(cls, periodic_detectors(warning=False), n_estimators=3, **ONE_ROW.get(cls, {}))
    core, master = model._core, model._core.master_seed
    data, _ = drifting(cls, N_SHORT)
    for t, (x, y) in enumerate(data[:60], 1):
        before, nr = list(core.trees), core.n_replaced
        model.learn_one(x, y)
        for i in range(3):
            if t % 10 == 0:
                tree = core.trees[i]
                assert tree is not before[i] and type(tree) is type(before[i])
                assert tree.samples_seen == 0
                seeded = model._tree_factory(tree_seed(master, 3 + nr + i))
                assert same_state(tree.get_state(), seeded.get_state())
            else:
                assert core.trees[i] is before[i]
    assert core.n_replaced == 18 and core.watch.n_background == 0 and core.watch.background == [None] * 3
    assert model.warnings_per_tree == [0] * 3


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_background_trees_on_a_real_drift(cls):
    """On the abrupt drift with ADWIN detectors (warnings checked at every sample): each
    background tree is of its tree's kind and has learned exactly the rows learned since
    its warning (whole batches for XForest, here without bootstrap and in batches of 20: in
    batches of 100 the abrupt drift brings the warning and the drift in the same batch, and
    the background tree swapped in has learned nothing), and at least once a drift swaps in
    a background tree that had learned since its warning."""
    # (and splits down to 5 rows, the classifier's default: the regressor's 2 grows trees that
    # ADWIN replaces before their background trees learn)
    extra = dict(bootstrap=False, batch_size=20, min_samples_split=5) if batch_native(cls) else {}
    model = make(cls, sensitive_detectors(), n_estimators=3, **extra)
    core = model._core
    data, _ = drifting(cls, N_SHORT)
    started = [None] * 3  # rows learned when each tree's background tree started
    swapped_in = 0
    for t, (x, y) in enumerate(data, 1):
        before = list(core.watch.background)
        model.learn_one(x, y)
        rows = learned_rows(model, t)
        for i in range(3):
            b = core.watch.background[i]
            if b is not None and b is not before[i]:
                started[i] = rows  # a warning (after the row or batch was learned)
            if b is not None:
                assert type(b) is type(core.trees[i])
                assert b.samples_seen == rows - started[i]
            if before[i] is not None and core.trees[i] is before[i]:
                swapped_in += before[i].samples_seen > 0
    assert swapped_in >= 1
    assert sum(model.warnings_per_tree) >= 1 and model.n_replaced >= 1


@pytest.mark.parametrize("seed", [7, None], ids=["seed7", "seedNone"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_same_seed_same_adaptation(cls, seed):
    """Two forests with the same seed (or one forest and a copy of it taken before it
    learned, for seed=None) adapt identically to the drift: same predictions, logs,
    replacements, trees and background trees."""
    data = adapting(cls)[:N_SHORT + 800]
    a = make(cls, sensitive_detectors(), seed=seed, n_estimators=3)
    b = make(cls, sensitive_detectors(), seed=seed, n_estimators=3) if seed is not None \
        else pickle.loads(pickle.dumps(a))
    for x, y in data:
        assert prediction(a, x) == prediction(b, x)
        a.learn_one(x, y)
        b.learn_one(x, y)
    assert a.n_replaced >= 1 and a._core.watch.n_background >= 1
    assert_same_model(a, b)


# ------------------------------------------------------------------------------- parameters


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_bad_detectors_raise_a_value_error_naming_the_parameter(cls):
    """A detector that is not a river drift detector (a string, the class, another river
    object), a warning_detector without a drift_detector and a binary detector on a
    regressor raise a ValueError whose message starts with the parameter's name."""
    from river import stats

    for bad in ("adwin", drift.ADWIN, stats.Mean()):
        with pytest.raises(ValueError, match=r"^drift_detector"):
            cls(drift_detector=bad)
        with pytest.raises(ValueError, match=r"^warning_detector"):
            cls(drift_detector=drift.ADWIN(), warning_detector=bad)
    with pytest.raises(ValueError, match=r"^warning_detector needs a drift_detector"):
        cls(drift_detector=None, warning_detector=drift.ADWIN())
    # "ADWIN" names river's ADWIN(delta=0.001): the default of four classifiers
    assert cls(drift_detector="ADWIN", n_estimators=2).drifts_per_tree == [0, 0]
    if is_classifier(cls):
        model = cls(drift_detector=binary.DDM(), warning_detector=binary.DDM(drift_threshold=2.0))
        assert model.drifts_per_tree == [0] * model.n_estimators
    else:
        with pytest.raises(ValueError, match=r"^drift_detector: a binary detector"):
            cls(drift_detector=binary.DDM())
        with pytest.raises(ValueError, match=r"^warning_detector: a binary detector"):
            cls(drift_detector=drift.ADWIN(), warning_detector=binary.DDM())


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_a_binary_detector_adapts_a_classifier(cls):
    """river's binary DDM (drift) and DDM with a lower threshold (warning) watch the 0/1
    errors: trees are replaced, at least 75% of them after the drift (BSP's first trees
    trip DDM once at sample 71), and, except for the `COSTS` forests (XForest, whose fresh
    trees learn the new concept slowly: its error after the drift is twice the plain
    forest's; the stream-partitioning forest, whose trees relearn faster than fresh ones),
    the error after the drift is at most 0.9 times the plain forest's (measured 0.53 to
    0.86)."""
    data, at = drifting(cls, N_CLF)
    model = make(cls, dict(drift_detector=binary.DDM(),
                           warning_detector=binary.DDM(drift_threshold=2.0)))
    losses = run(model, data)
    assert model.n_replaced >= 1 and model.n_replaced == sum(model.drifts_per_tree)
    assert sum(model.warnings_per_tree) >= 1
    assert sum(p > at for p, _ in model.drift_log) >= 0.75 * len(model.drift_log)
    if not batch_native(cls) and cls.__name__ not in COSTS:
        bound = 1.05 if cls.__name__ in NO_GAIN else 0.9
        assert np.mean(losses[at:]) <= bound * np.mean(plain_losses(cls, N_CLF)[at:])


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_bad_input_raises_and_changes_nothing(cls):
    """Mid-stream, with a background tree (and rows buffered, for XForest): a missing label
    (None, NaN), a label of the wrong type in `learn_one`, and in `learn_many` a batch with
    a missing target in its middle, with a y of the wrong length or with a non-numeric
    feature, each raise, and leave the model as it was (its pickle is byte-identical; the
    same detector objects; the same last errors); it then learns as a copy that never saw
    them."""
    data = adapting(cls)
    model = make(cls, sensitive_detectors(), n_estimators=3)
    t = until_adapted(model, data)
    for x, y in data[t:t + 7]:
        model.learn_one(x, y)
    if batch_native(cls):
        assert model.n_pending > 0
    snapshot = pickle.dumps(model)
    last = model._core.watch.last_errors
    x = data[0][0]
    chunk = data[t + 7:t + 27]
    X = pd.DataFrame([x for x, _ in chunk])
    ys = [y for _, y in chunk]
    bad_type = [1] if is_classifier(cls) else "1.5"
    calls = [
        (ValueError, lambda: model.learn_one(x, None)),
        (ValueError, lambda: model.learn_one(x, float("nan"))),
        (TypeError, lambda: model.learn_one(x, bad_type)),
        (ValueError, lambda: model.learn_many(X, pd.Series(ys[:10] + [None] + ys[11:]))),
        (TypeError, lambda: model.learn_many(X, pd.Series(ys[:10] + [bad_type] + ys[11:]))),
        (ValueError, lambda: model.learn_many(X, pd.Series(ys[:-1]))),
        (TypeError, lambda: model.learn_many(X.assign(x_obj=[object()] * len(X)), pd.Series(ys))),
    ]
    if is_classifier(cls):  # a new label before the bad one: not registered either
        calls.append((ValueError, lambda: model.learn_many(
            X, pd.Series(["new"] + ys[1:10] + [None] + ys[11:]))))
    for error, call in calls:
        with pytest.raises(error):
            call()
        assert pickle.dumps(model) == snapshot
        assert model._core.watch.last_errors == last
    twin = pickle.loads(snapshot)
    for x, y in data[t + 7:t + 507]:
        assert prediction(twin, x) == prediction(model, x)
        model.learn_one(x, y)
        twin.learn_one(x, y)
    assert_same_model(model, twin)


# ------------------------------------------------------------------------------- reports


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_the_drift_log_keeps_the_last_drift_log_entries(cls, monkeypatch):
    """`drift_log` keeps the last `DRIFT_LOG` drifts (a class attribute, read when the
    detectors are set up: at construction and by `clone()`), also through pickling, while
    `drifts_per_tree` and `n_replaced` count them all. A drift every 10 samples on 3 trees,
    200 samples: 60 drifts, the log the last 7, by sample position (1 for the first sample
    watched) and tree."""
    monkeypatch.setattr(BaseForest, "DRIFT_LOG", 7)
    data, _ = drifting(cls, N_SHORT)
    model = make(cls, periodic_detectors(warning=False), n_estimators=3)
    for x, y in data[:100]:
        model.learn_one(x, y)
    model = pickle.loads(pickle.dumps(model))
    for x, y in data[100:200]:
        model.learn_one(x, y)
    everything = [(p, i) for p in range(10, 201, 10) for i in range(3)]
    assert model.drift_log == everything[-7:]
    assert model.drifts_per_tree == [20] * 3 and model.n_replaced == 60
    # a clone sets up its detectors anew: with the bound of now (DummyDriftDetector.clone()
    # takes no new_params, so river's clone() of a model holding one fails: ADWIN here)
    assert make(cls, arf_detectors()).clone()._core.watch.drift_log.maxlen == 7
    monkeypatch.undo()
    assert BaseForest.DRIFT_LOG == 1000
    assert model._core.watch.drift_log.maxlen == 7 and len(model.drift_log) == 7  # the model keeps its bound


@pytest.mark.parametrize("task", ["clf", "reg"])
def test_a_model_pickled_before_drift_adaptation_loads_without_detectors(task):
    """The 0.1.0 pickles (tests/data/mondrian_0.1.0.pkl, no detector attributes) load as
    forests without detectors: no drift, warning, log or background tree, nothing tracked,
    and they keep learning (with no replacement)."""
    path = pathlib.Path(__file__).parent / "data" / "mondrian_0.1.0.pkl"
    saved, _ = pickle.loads(path.read_bytes())[task]
    model = pickle.loads(saved)
    assert type(model) is (MondrianForestClassifier if task == "clf" else MondrianForestRegressor)
    n = model.n_estimators
    assert model.drift_detector is None and model.warning_detector is None
    assert model.drifts_per_tree == [0] * n and model.warnings_per_tree == [0] * n
    assert model.drift_log == [] and model.n_replaced == 0
    assert model._core.watch.background == [None] * n and model._core.watch.watching is False
    for x, y in drifting(type(model), N_SHORT)[0][:200]:
        model.learn_one(x, y)
    assert model.n_replaced == 0 and model.drift_log == []
    assert model.clone().drift_detector is None


# ------------------------------------------------------------------------------- when better


class PythonADWIN(drift.ADWIN):
    """river's ADWIN under another class: the forest calls it as any river detector, where it
    runs `drift.ADWIN` itself compiled."""


@pytest.mark.parametrize("swap", ["at_drift", "when_better"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_the_compiled_adwin_acts_as_rivers_in_the_forest(cls, swap):
    """The forest runs river's ADWIN compiled (`_core/_adwin.pyx`) and any other detector as a
    river object: with ADWINs and with the same ADWINs called from Python, sample by sample
    the same predictions, warnings, drifts, swaps, log and trees."""
    data = adapting(cls)
    a = make(cls, sensitive_detectors(), n_estimators=3, background_swap=swap)
    b = make(cls, dict(drift_detector=PythonADWIN(delta=0.01),
                       warning_detector=PythonADWIN(delta=0.1, clock=1)),
             n_estimators=3, background_swap=swap)
    assert a._core.watch.compiled and not b._core.watch.compiled
    for x, y in data:
        assert prediction(a, x) == prediction(b, x)
        a.learn_one(x, y)
        b.learn_one(x, y)
    assert sum(a.drifts_per_tree) >= 1 and sum(a.swaps_per_tree) >= 1
    for name in ("drifts_per_tree", "warnings_per_tree", "swaps_per_tree", "drift_log", "n_replaced"):
        assert getattr(a, name) == getattr(b, name), name
    for ta, tb in zip(a._core.trees + a._core.watch.background, b._core.trees + b._core.watch.background):
        assert (ta is None) == (tb is None)
        if ta is not None:
            assert same_state(ta.get_state(), tb.get_state())


def _duelling(model) -> bool:
    return any(model._core.watch.state()["watch"]["pending"])


@pytest.mark.parametrize("copier", [_pickled, copy.deepcopy], ids=["pickle", "deepcopy"])
@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_copy_taken_mid_duel_resumes_identically(cls, copier):
    """With ``background_swap="when_better"``, a forest copied while a duel is on (a drift
    flagged, its background tree not yet better) then fed the rest of the stream and the
    stream with flipped targets gives bit-identical predictions, swaps, detectors and trees
    as the original continuing."""
    stream = adapting(cls)
    model = make(cls, sensitive_detectors(), n_estimators=3, background_swap="when_better")
    for t, (x, y) in enumerate(stream, 1):
        model.learn_one(x, y)
        if _duelling(model) and any(b is not None for b in model._core.watch.background):
            break
    else:
        pytest.fail("no duel on the stream")
    twin = copier(model)
    assert_same_model(model, twin)
    for x, y in stream[t:t + 1500] + flip(cls, stream[t + 1500:t + 2500]):
        assert prediction(twin, x) == prediction(model, x)
        model.learn_one(x, y)
        twin.learn_one(x, y)
    assert_same_model(model, twin)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_learn_many_equals_a_learn_one_loop_when_better(cls):
    """As `test_learn_many_equals_a_learn_one_loop`, with duels (the default rule)."""
    one, many = _learn_many_and_a_loop(cls, adapting(cls), n_estimators=3,
                                       background_swap="when_better")
    assert sum(one.drifts_per_tree) >= 1 and sum(one.swaps_per_tree) >= 1
    assert_same_model(one, many)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_false_alarm_keeps_the_grown_tree_when_better(cls):
    """A detector that cries drift every 100 samples on a stationary stream: replacing the
    trees at once (river's ARF's rule) costs accuracy, while the duels keep the grown trees
    (a background tree takes a place only when it predicts better) and the forest predicts
    about as the forest without detectors (within 1 point of accuracy, 3% of MAE: a young
    tree's linear leaves are behind a grown tree's for longer than its mean leaves, and the
    duels score a background tree on the rows since it started; the purely random
    regressor's cost 2.3%). Averaged over three seeds of the forests: on this short stream
    the forest without detectors varies much from seed to seed, and one seed's duels may
    cost more than a point where the others' gain several (the BSP classifier, issue 48)."""
    data = stationary(cls, N_SHORT)
    dets = lambda: dict(drift_detector=drift.DummyDriftDetector(t_0=100, seed=0))  # noqa: E731
    plain, err_duels, err_at_once = [], [], []
    for seed in (1, 2, 3):
        plain.append(np.mean(run(make(cls, seed=seed), data)))
        duels = make(cls, dets(), background_swap="when_better", seed=seed)
        at_once = make(cls, dets(), background_swap="at_drift", seed=seed)
        err_duels.append(np.mean(run(duels, data)))
        err_at_once.append(np.mean(run(at_once, data)))
        assert sum(duels.swaps_per_tree) < sum(at_once.swaps_per_tree)
    plain, err_duels, err_at_once = np.mean(plain), np.mean(err_duels), np.mean(err_at_once)
    if is_classifier(cls):
        assert err_duels <= plain + 0.01, (err_duels, plain, err_at_once)
    else:
        assert err_duels <= 1.03 * plain, (err_duels, plain, err_at_once)
    assert err_at_once > err_duels, (err_duels, err_at_once)


@pytest.mark.parametrize("name", ["mondrian", "xforest"])
def test_a_model_pickled_by_0_2_with_detectors_resumes_as_it_would_have(name):
    """tests/data/drift_0.2.pkl: forests pickled by 0.2 (a14bde2) mid-stream, 500 samples
    after a drift, their detectors then the forest's river objects; and what they predicted
    and detected over the next 1,500 samples under 0.2. Loaded now, they keep river's
    ADWIN objects (called from the loop) and ARF's rule, and resume exactly as they would
    have."""
    path = pathlib.Path(__file__).parent / "data" / "drift_0.2.pkl"
    blob, preds, log, drifts, warnings = pickle.loads(path.read_bytes())[name]
    model = pickle.loads(blob)
    assert model.background_swap == "at_drift" and not model._core.watch.compiled
    stream = list(itertools.islice(synth.ConceptDriftStream(
        synth.Agrawal(classification_function=0, seed=1), synth.Agrawal(classification_function=2, seed=2),
        position=1000, width=20, seed=3), 3000))
    for (x, y), expected in zip(stream[1500:], preds):
        assert model.predict_proba_one(x) == expected
        model.learn_one(x, y)
    assert (model.drift_log, model.drifts_per_tree, model.warnings_per_tree) == (log, drifts, warnings)


def test_a_batch_forest_keeps_a_bounded_copy_of_a_predicted_batch():
    """XForest with a detector keeps a predicted batch's rows and its trees' answers for its
    detectors (test-then-train on batches), but only a batch of at most 16,384 cells: a wide
    batch is not copied (memory does not grow with the width), and the trees' errors on it,
    recomputed, are the same."""
    rng = random.Random(0)
    def frame(n, width):
        return pd.DataFrame([{f"w{rng.randrange(width)}": 1.0 for _ in range(5)} for _ in range(n)]).fillna(0.0)
    for width, kept in ((20, True), (2000, False)):
        model = XForestClassifier(n_estimators=3, seed=1, drift_detector=drift.ADWIN())
        X = frame(100, width)
        y = pd.Series([int(X.iloc[i].sum() > 4) for i in range(100)])
        model.learn_many(X, y)
        X2 = frame(100, width)
        before = model.memory_bytes
        model.predict_proba_many(X2)
        grown = model.memory_bytes - before  # the kept rows and answers, if any
        assert (grown > 100 * width * 8) is kept and grown < 2 * 16384 * 8
        twin = pickle.loads(pickle.dumps(model))  # a copy holds no cached batch
        model.learn_many(X2, y)
        twin.learn_many(X2, y)
        assert model._core.watch.last_errors == twin._core.watch.last_errors
        assert_same_model(model, twin)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_predicting_in_another_thread_changes_nothing_the_detectors_see(cls):
    """One thread learns the drifting stream (test-then-train: it predicts each row, then
    learns it, so the trees' answers are reused for their errors) while another predicts other
    rows and batches all along: the forest ends exactly as one that learned alone (a
    prediction of another row in between never lends its answers to the learned row)."""
    import threading

    data = adapting(cls)[:3000]
    others = [x for x, _ in data[::-1][:200]]
    X = pd.DataFrame(others)
    alone = make(cls, sensitive_detectors(), n_estimators=3, background_swap="when_better")
    shared = make(cls, sensitive_detectors(), n_estimators=3, background_swap="when_better")
    for x, y in data:
        prediction(alone, x)
        alone.learn_one(x, y)
    done = threading.Event()

    def learn():
        for x, y in data:
            prediction(shared, x)
            shared.learn_one(x, y)
        done.set()

    def serve():
        while not done.is_set():
            for x in others[:20]:
                prediction(shared, x)
            (shared.predict_proba_many if is_classifier(cls) else shared.predict_many)(X)

    threads = [threading.Thread(target=learn), threading.Thread(target=serve)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(alone.drifts_per_tree) >= 1
    assert_same_model(alone, shared)
