"""Models pickled by the release before the parameter renames (0.1, commit 0491b82) load,
read under their new names, predict exactly as they did and go on learning."""

import gzip
import json
import pickle
from pathlib import Path

import pytest
from river import datasets

import river_forests
from river_forests._forest import RENAMED
from tests.conftest import ESTIMATORS

DATA = Path(__file__).parent / "data" / "0.1"
EXPECTED = json.loads((DATA / "expected.json").read_text())


def _load(name):
    with gzip.open(DATA / f"{name}.pkl.gz", "rb") as f:
        return pickle.load(f)


def _rows(name):
    data = datasets.Phishing() if "Classifier" in name else datasets.TrumpApproval()
    return list(data)[:260]


#: forests exported since 0.1, which had no model to pickle
SINCE_0_1 = {"XForestRegressor", "StreamPartitionForestRegressor"}


def test_every_forest_has_a_fixture():
    classes = [cls.__name__ for cls in ESTIMATORS]
    assert sorted(EXPECTED) == sorted(c for c in classes if c not in SINCE_0_1)
    assert not SINCE_0_1 & set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_model_pickled_by_0_1_loads_and_predicts_as_it_did(name):
    model = _load(name)
    rows = _rows(name)
    expected = EXPECTED[name]["predictions"]
    for (x, _), want in zip(rows[150:200], expected):
        if isinstance(want, dict):
            got = {str(k): v for k, v in model.predict_proba_one(x).items()}
            assert got.keys() == want.keys()
            for k in want:
                assert got[k] == pytest.approx(want[k], rel=0, abs=1e-12)
        else:
            assert model.predict_one(x) == pytest.approx(want, rel=0, abs=1e-12)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_its_parameters_read_under_their_new_names(name):
    model = _load(name)
    params = model._get_params()
    old = EXPECTED[name]["params"]
    for key, value in old.items():
        new = RENAMED.get(key, key)
        assert new in params, key
        if key == "candidate_features":  # lambda -> max_features = lambda + 1
            assert params[new] == float(value) + 1.0
        elif key not in ("drift_detector", "warning_detector"):
            assert repr(params[new]) == value, key
    # it was bounded by its node cap, as it was built: no byte budget
    assert params["memory_budget"] is None


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_it_goes_on_learning_and_clones(name):
    model = _load(name)
    for x, y in _rows(name)[200:260]:
        model.learn_one(x, y)
    assert model.n_nodes > 0
    fresh = model.clone()
    assert fresh._get_params() == model._get_params()
