"""river's own estimator checks, run check by check so a failure names the check."""

import pytest
from river import checks

from river_forests import MondrianForestClassifier, MondrianForestRegressor

ESTIMATORS = [MondrianForestClassifier, MondrianForestRegressor]


def _cases():
    for cls in ESTIMATORS:
        for i, params in enumerate(cls._unit_test_params()):
            model = cls(**params)
            for check in checks.yield_checks(model):
                if check.__name__ in model._unit_test_skips():
                    continue
                yield pytest.param(model, check, id=f"{cls.__name__}[{i}]-{check.__name__}")


@pytest.mark.parametrize("model, check", list(_cases()))
def test_river_check(model, check):
    check(model.clone())


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_check_estimator(cls):
    """The whole suite in one call, exactly as river users run it."""
    checks.check_estimator(cls(n_estimators=2, seed=0))
