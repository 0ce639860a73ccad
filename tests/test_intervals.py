"""Prediction intervals of the forest regressors (`confidence_level`, `with_interval`)."""

import math
import pickle

import numpy as np
import pandas as pd
import pytest
from river import conf
from river.datasets import synth

from river_forests import (BSPForestRegressor, MondrianForestRegressor,
                           PurelyRandomForestRegressor, XForestRegressor)

REGRESSORS = [MondrianForestRegressor, BSPForestRegressor, PurelyRandomForestRegressor]


def _friedman(n, seed=42):
    return list(synth.Friedman(seed=seed).take(n))


def _noise_stream(n, change, seed=0, before=0.5, after=2.0):
    """y = 3 x0 + x1 plus Gaussian noise whose scale jumps from `before` to `after` at `change`."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        x = {"x0": float(rng.random()), "x1": float(rng.random()), "x2": float(rng.random())}
        sd = before if i < change else after
        out.append((x, 3 * x["x0"] + x["x1"] + sd * float(rng.standard_normal())))
    return out


def _prequential(model, data):
    hits, widths = [], []
    for x, y in data:
        iv = model.predict_one(x, with_interval=True)
        hits.append(iv.lower <= y <= iv.upper)
        widths.append(iv.width)
        model.learn_one(x, y)
    return np.array(hits), np.array(widths)


@pytest.mark.parametrize("cls", REGRESSORS)
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_coverage_on_a_stationary_stream_is_within_the_binomial_band(cls, level):
    n = 3000
    model = cls(n_estimators=5, seed=1, confidence_level=level)
    hits, widths = _prequential(model, _friedman(n))
    band = 3 * math.sqrt(level * (1 - level) / n)  # three binomial standard deviations
    assert abs(hits.mean() - level) <= band
    # interval_coverage counts the rows whose interval was finite (calibrated)
    assert model.interval_coverage == pytest.approx(hits[np.isfinite(widths)].mean())
    # finite once calibrated, and positive
    assert np.isfinite(widths[100:]).all() and (widths[100:] > 0).all()


def test_the_interval_is_a_river_interval_centred_on_the_prediction():
    model = MondrianForestRegressor(n_estimators=3, seed=0)
    data = _friedman(300)
    first = model.predict_one(data[0][0], with_interval=True)
    assert isinstance(first, conf.Interval) and math.isinf(first.width)  # nothing calibrated
    for x, y in data:
        model.learn_one(x, y)
    x = data[0][0]
    iv = model.predict_one(x, with_interval=True)
    assert isinstance(iv, conf.Interval) and iv.lower < iv.upper
    assert iv.center == pytest.approx(model.predict_one(x))


def test_intervals_follow_a_change_of_the_noise_level_within_250_samples():
    change, n = 4000, 6000
    model = MondrianForestRegressor(n_estimators=5, seed=3, confidence_level=0.9)
    hits, widths = _prequential(model, _noise_stream(n, change))
    before = np.median(widths[change - 1000:change])
    # the noise's scale grew 4-fold: 250 samples later the intervals are 3 times as wide
    assert np.median(widths[change + 250:change + 500]) > 3 * before
    # and the coverage never dropped far below nominal, nor stayed there
    assert hits[change:change + 250].mean() > 0.84
    assert abs(hits[change + 250:].mean() - 0.9) < 0.03


def test_coverage_holds_by_deciles_of_the_feature_the_noise_grows_with():
    rng = np.random.default_rng(5)
    n = 8000
    X = rng.random((n, 4))
    y = 5 * X[:, 0] + 3 * X[:, 1] + (0.1 + 2 * X[:, 2] ** 2) * rng.standard_normal(n)
    data = [({f"x{j}": float(X[i, j]) for j in range(4)}, float(y[i])) for i in range(n)]
    model = MondrianForestRegressor(n_estimators=5, seed=2, confidence_level=0.9)
    hits, _ = _prequential(model, data)
    hits, x2 = hits[2000:], X[2000:, 2]
    edges = np.quantile(x2, np.linspace(0, 1, 11))
    group = np.clip(np.searchsorted(edges, x2, side="right") - 1, 0, 9)
    deciles = [hits[group == k].mean() for k in range(10)]
    assert max(abs(d - 0.9) for d in deciles) < 0.06, deciles


@pytest.mark.parametrize("cls", REGRESSORS)
def test_learn_many_gives_the_intervals_of_a_learn_one_loop(cls):
    data = _friedman(1500)
    X = pd.DataFrame([x for x, _ in data])
    y = pd.Series([t for _, t in data])
    a, b = cls(n_estimators=3, seed=4), cls(n_estimators=3, seed=4)
    a.learn_many(X.iloc[:700], y.iloc[:700])
    a.learn_many(X.iloc[700:], y.iloc[700:])
    for x, t in data:
        b.learn_one(x, t)
    sa, sb = a._core.interval_state, b._core.interval_state
    assert sa.keys() == sb.keys()
    for k in sa:
        assert np.array_equal(sa[k], sb[k]), k
    probe = _friedman(50, seed=9)
    for x, _ in probe:
        assert a.predict_one(x, with_interval=True) == b.predict_one(x, with_interval=True)


@pytest.mark.parametrize("cls", REGRESSORS)
def test_predict_many_gives_each_rows_interval(cls):
    data = _friedman(800)
    model = cls(n_estimators=3, seed=6)
    for x, t in data[:700]:
        model.learn_one(x, t)
    X = pd.DataFrame([x for x, _ in data[700:]], index=range(100, 200))
    frame = model.predict_many(X, with_interval=True)
    assert list(frame.columns) == ["prediction", "lower", "upper"]
    assert list(frame.index) == list(X.index)
    for (_, row), (x, _) in zip(frame.iterrows(), data[700:]):
        iv = model.predict_one(x, with_interval=True)
        assert row["lower"] == pytest.approx(iv.lower, rel=1e-12)
        assert row["upper"] == pytest.approx(iv.upper, rel=1e-12)
        assert row["prediction"] == pytest.approx(model.predict_one(x), rel=1e-12)


@pytest.mark.parametrize("cls", REGRESSORS)
def test_the_interval_state_pickles_and_resumes_bit_identically(cls):
    data = _friedman(1200)
    model = cls(n_estimators=3, seed=8, confidence_level=0.9)
    for x, t in data[:700]:
        model.predict_one(x, with_interval=True)
        model.learn_one(x, t)
    copy = pickle.loads(pickle.dumps(model))
    for x, t in data[700:]:
        assert copy.predict_one(x, with_interval=True) == model.predict_one(x, with_interval=True)
        copy.learn_one(x, t)
        model.learn_one(x, t)
    assert copy.interval_coverage == model.interval_coverage


def test_a_prediction_between_learns_changes_nothing():
    data = _friedman(600)
    a, b = MondrianForestRegressor(n_estimators=3, seed=1), MondrianForestRegressor(n_estimators=3, seed=1)
    for i, (x, t) in enumerate(data):
        a.predict_one(x, with_interval=True)
        a.predict_one(data[(i * 7) % len(data)][0])  # another row: the cache is of that one
        a.learn_one(x, t)
        b.learn_one(x, t)
    sa, sb = a._core.interval_state, b._core.interval_state
    for k in sa:
        assert np.array_equal(sa[k], sb[k]), k


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.2, "0.9", True, float("nan")])
def test_a_bad_confidence_level_is_a_value_error(level):
    with pytest.raises(ValueError, match="confidence_level"):
        MondrianForestRegressor(confidence_level=level)


def test_no_intervals_with_confidence_level_none():
    model = BSPForestRegressor(n_estimators=2, seed=0, confidence_level=None)
    data = _friedman(50)
    for x, t in data:
        model.learn_one(x, t)
    assert model.interval_coverage is None
    with pytest.raises(ValueError, match="confidence_level=None"):
        model.predict_one(data[0][0], with_interval=True)
    with pytest.raises(ValueError, match="confidence_level=None"):
        model.predict_many(pd.DataFrame([data[0][0]]), with_interval=True)
    fresh = BSPForestRegressor(n_estimators=2, seed=0, confidence_level=None)
    assert fresh.memory_bytes < BSPForestRegressor(n_estimators=2, seed=0).memory_bytes


def test_the_calibrator_keeps_a_bounded_window():
    model = PurelyRandomForestRegressor(n_estimators=2, seed=0)
    for x, t in _friedman(3000):
        model.learn_one(x, t)
    state = model._core.interval_state
    assert len(state["scores"]) == model.INTERVALS["window"]
    # every row but those of the warm-up, whose intervals were infinite
    assert 2950 <= state["n_checked"] < 3000


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95])
def test_xforest_gives_a_finite_interval_as_early_as_a_sequential_forest(level):
    """XForest's trees learn nothing before its first batch (100 rows) is full. Its
    calibrator learns that batch's rows as they come, each from the mean of the targets
    given before it, so its first finite interval comes at the row a sequential forest's
    does (not after two batches, as when its calibrator waited for the trees), centred on
    those targets; fed in batches, its second batch's intervals are finite."""
    data = _friedman(300)
    _, seq = _prequential(MondrianForestRegressor(n_estimators=5, seed=1,
                                                  confidence_level=level), data)
    model = XForestRegressor(seed=1, confidence_level=level)
    _, widths = _prequential(model, data[:60])
    first = int(np.argmax(np.isfinite(seq)))
    assert 0 < first < 30
    assert np.isinf(widths[:first]).all() and np.isfinite(widths[first:]).all()
    iv = model.predict_one(data[60][0], with_interval=True)
    assert model.predict_one(data[60][0]) is None  # no tree has learned a row
    assert iv.center == pytest.approx(np.mean([y for _, y in data[:60]]))
    assert model.interval_coverage is not None
    batches = XForestRegressor(seed=1, confidence_level=level)
    for i in range(0, 300, 100):
        X = pd.DataFrame([x for x, _ in data[i:i + 100]])
        y = pd.Series([t for _, t in data[i:i + 100]])
        pred = batches.predict_many(X, with_interval=True)
        assert np.isfinite(pred["upper"]).all() == (i > 0)
        batches.learn_many(X, y)
