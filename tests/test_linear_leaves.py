"""Linear leaves (`leaf_model="linear"`, `_core/_leaf_linear`), one parameter of every forest
regressor: they fit a linear target far better than mean leaves, the inputs' units do not
matter, a model with them saves, loads and pickles to the bit, stays within its memory budget,
and passes river's checks."""

import itertools
import pickle

import numpy as np
import pandas as pd
import pytest
from river import checks, datasets

import river_forests

from .conftest import REGRESSORS, name_of

LINEAR = REGRESSORS


def linear_stream(n=3000, seed=0, factor=1.0, offset=0.0):
    """y = 3 x0 - 2 x1 + small noise, x uniform on [0, 1]^3 (x2 irrelevant); every input
    multiplied by `factor` and shifted by `offset` (the target unchanged)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = 3 * X[:, 0] - 2 * X[:, 1] + 0.05 * rng.normal(size=n)
    return [({f"x{i}": float(v * factor + offset) for i, v in enumerate(row)}, float(t))
            for row, t in zip(X, y)]


def prequential(model, data):
    """The predictions of each row before it is learned (0 where the model has none yet: an
    XForest before its first batch)."""
    out = []
    for x, y in data:
        p = model.predict_one(x)
        out.append(0.0 if p is None else p)
        model.learn_one(x, y)
    return np.array(out)


def mae(model, data):
    y = np.array([t for _, t in data])
    return float(np.mean(np.abs(prequential(model, data) - y)))


@pytest.mark.parametrize("cls", LINEAR, ids=name_of)
def test_linear_leaves_fit_a_linear_target_better_than_means(cls):
    data = linear_stream()
    means = mae(cls(n_estimators=10, seed=1, leaf_model="mean"), data)
    linear = mae(cls(n_estimators=10, seed=1, leaf_model="linear"), data)
    # (on this stream: Mondrian 0.45 to 0.09, purely random 0.18 to 0.09, BSP, whose oblique
    # cuts fit a plane well already, 0.12 to 0.11; stream partitioning 0.17 to 0.13, XForest
    # 0.16 to 0.08)
    assert linear < 0.9 * means, (means, linear)


@pytest.mark.parametrize("cls", LINEAR, ids=name_of)
def test_the_inputs_units_do_not_matter(cls):
    plain = prequential(cls(n_estimators=10, seed=1, leaf_model="linear"), linear_stream())
    scaled = prequential(cls(n_estimators=10, seed=1, leaf_model="linear"),
                         linear_stream(factor=1000.0, offset=500.0))
    assert np.abs(scaled - plain).max() <= 1e-6 * np.abs(plain).max()


@pytest.mark.parametrize("cls", LINEAR, ids=name_of)
def test_a_saved_loaded_and_a_pickled_model_go_on_to_the_bit(cls, tmp_path):
    data = linear_stream(1500, seed=2)
    model = cls(n_estimators=3, seed=1, leaf_model="linear", linear_rate=0.7)
    for x, y in data[:800]:
        model.learn_one(x, y)
    river_forests.save(model, tmp_path / "m.rf")
    copies = [river_forests.load(tmp_path / "m.rf"), pickle.loads(pickle.dumps(model))]
    ours = prequential(model, data[800:])
    for copy in copies:
        assert copy.leaf_model == "linear" and copy.linear_rate == 0.7
        assert np.array_equal(prequential(copy, data[800:]), ours)


@pytest.mark.parametrize("cls", LINEAR, ids=name_of)
def test_linear_leaves_stay_within_a_small_budget(cls):
    budget = 150_000
    model = cls(n_estimators=3, seed=1, memory_budget=budget, leaf_model="linear")
    peak = 0
    for i, (x, y) in enumerate(itertools.islice(datasets.synth.Friedman(seed=1), 3000), 1):
        model.learn_one(x, y)
        if i % 50 == 0:
            peak = max(peak, model._raw_memory_usage)
    assert max(peak, model._raw_memory_usage) <= budget


@pytest.mark.parametrize("cls", REGRESSORS, ids=name_of)
@pytest.mark.parametrize("name, bad", [("leaf_model", "cubic"), ("linear_rate", 0.0),
                                       ("linear_rate", 1.5)])
def test_bad_values_are_refused_by_name(cls, name, bad):
    with pytest.raises(ValueError, match=name):
        cls(**{name: bad})


@pytest.mark.parametrize("cls", LINEAR, ids=name_of)
def test_river_checks_pass_with_linear_leaves(cls):
    checks.check_estimator(cls(n_estimators=2, seed=0, leaf_model="linear"))


def test_classifiers_do_not_take_the_parameter():
    for cls in river_forests.__all__:
        cls = getattr(river_forests, cls)
        if isinstance(cls, type) and hasattr(cls, "_params") and cls not in REGRESSORS \
                and hasattr(cls, "_task"):
            assert "leaf_model" not in cls._params and "linear_rate" not in cls._params


@pytest.mark.parametrize("cls", LINEAR, ids=name_of)
def test_a_refit_fits_the_linear_leaves_again(cls):
    """refit_many relearns what the trees predict from on new targets, keeping the partition:
    after a refit on y' = 100 - y, a linear-leaf forest predicts about 100 - y."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(1000, 2)), columns=["x0", "x1"])
    y = 3.0 * X["x0"]
    x = {"x0": 0.5, "x1": 0.5}
    model = cls(n_estimators=3, leaf_model="linear", seed=0)
    model.learn_many(X, y)
    assert model.predict_one(x) == pytest.approx(1.5, abs=0.3)
    model.refit_many(X, 100.0 - y)
    assert model.predict_one(x) == pytest.approx(98.5, abs=1.0)


def test_xforest_trees_replaced_by_its_swaps_start_with_fresh_models():
    """XForest replaces trees between batches (`n_swaps`): with linear leaves too, the new
    tree learns from its first batch on, and the forest goes on fitting a linear target."""
    data = linear_stream(3000, seed=3)
    model = river_forests.XForestRegressor(n_estimators=4, n_swaps=2, seed=2, leaf_model="linear")
    errors = np.abs(prequential(model, data) - np.array([t for _, t in data]))
    assert model.n_replaced >= 2
    assert np.all(np.isfinite(errors)) and errors[-1000:].mean() < 0.2


@pytest.mark.parametrize("name", ["PurelyRandomForestRegressor",
                                  "StreamPartitionForestRegressor"])
def test_a_young_trees_ranges_do_not_blow_up_its_slopes(name):
    """A tree's leaves read each feature in units of the range it has seen, and when a range
    grows the slopes follow, so a model predicts what it did. A young tree's first rows span
    a little of each range: slopes fit across them, multiplied as the range grows ten- or a
    hundredfold, sent leaves far off (on this FriedmanDrift stream, 10 features in [0, 1],
    targets within about 0 to 30, both forests' worst errors pass 40 without the cap), and the purely
    random tree's leaves hand their models on to the halves they are cut into. A rescale steepens a slope by at most `SLOPE_CAP`: the forest stays
    within a few times the targets' spread, and without the cap it does not."""
    from river.datasets import synth

    from river_forests._core import _leaf_linear

    rows = list(synth.FriedmanDrift(drift_type="gra", position=(1000, 2000),
                                    seed=211).take(1000))

    def worst_error():
        model = getattr(river_forests, name)(n_estimators=10, seed=42, leaf_model="linear")
        worst = 0.0
        for x, y in rows:
            p = model.predict_one(x)
            if p is not None:
                worst = max(worst, abs(p - y))
            model.learn_one(x, y)
        return worst

    assert worst_error() < 40.0
    _leaf_linear.set_slope_cap(float("inf"))
    try:
        assert worst_error() > 40.0
    finally:
        _leaf_linear.set_slope_cap(_leaf_linear.SLOPE_CAP)


def test_the_slope_cap_is_checked():
    from river_forests._core import _leaf_linear

    with pytest.raises(ValueError, match="at least 1"):
        _leaf_linear.set_slope_cap(0.5)
    assert _leaf_linear.get_slope_cap() == _leaf_linear.SLOPE_CAP
