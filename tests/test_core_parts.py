"""The forest core's parts other than the drift watch (`test_watch.py`): the interval
calibrator (`_core/_conformal.pxd`) and the memory budget (`_core/_budget.pxd`) each check
their own saved state."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from river.datasets import synth

from river_forests import MondrianForestRegressor, ModelFileError, from_state, to_state
from river_forests._core._budget import check_state as check_budget_state
from river_forests._core._conformal import check_state as check_calibrator_state


def _regressor():
    model = MondrianForestRegressor(n_estimators=2, seed=4, memory_budget="1MB")
    for x, y in itertools.islice(synth.Friedman(seed=6), 200):
        model.learn_one(x, y)
    assert model.interval_coverage is not None
    return model


def _same(a, b):
    return pickle.dumps(to_state(a)) == pickle.dumps(to_state(b))


def _damaged_calibrator(intervals, damage):
    damaged = {"alpha": 1.5, "window": 0, "scores": np.zeros(intervals["window"] + 1),
               "h": intervals["h"][:-1], "n_misses": -1, "b": float("nan")}
    return dict(intervals, **{damage: damaged[damage]})


CALIBRATOR_DAMAGES = ["alpha", "window", "scores", "h", "n_misses", "b"]
BUDGET_DAMAGES = {"too short": {"budget": (1, 2)}, "no slot": {"budget": (10**6, 0, 0.0, 0)},
                  "bytes not an int": {"budget": (1.5, 0, 1, 0)},
                  "share above 1": {"background_share": 1.5}}


@pytest.mark.parametrize("damage", CALIBRATOR_DAMAGES)
def test_the_calibrator_checks_its_own_state(damage):
    state = _regressor()._core.interval_state
    check_calibrator_state(state)
    with pytest.raises(ValueError, match="interval calibrator"):
        check_calibrator_state(_damaged_calibrator(state, damage))


@pytest.mark.parametrize("damage", CALIBRATOR_DAMAGES)
def test_a_saved_model_with_a_damaged_calibrator_is_a_model_file_error(damage):
    state = to_state(_regressor())
    forest = state["core"]["forest"]
    forest["intervals"] = _damaged_calibrator(forest["intervals"], damage)
    with pytest.raises(ModelFileError, match="interval calibrator"):
        from_state(state)


@pytest.mark.parametrize("damage", list(BUDGET_DAMAGES))
def test_the_budget_checks_its_own_state(damage):
    model = _regressor()
    state = to_state(model)["core"]["forest"]
    check_budget_state(state)
    with pytest.raises(ValueError, match="budget|share"):
        check_budget_state(dict(state, **BUDGET_DAMAGES[damage]))
    saved = to_state(model)
    saved["core"]["forest"].update(BUDGET_DAMAGES[damage])
    with pytest.raises(ModelFileError):
        from_state(saved)
