"""river's own estimator checks, run check by check so a failure names the check, on every
estimator of `river_forests.__all__` and every parameter set of its `_unit_test_params()`."""

import pytest
from river import checks

from .conftest import ESTIMATORS, name_of


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


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_check_estimator(cls):
    """The whole suite in one call, exactly as river users run it."""
    checks.check_estimator(cls(n_estimators=2, seed=0))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_every_estimator_has_unit_test_params(cls):
    """river's checks above run once per parameter set: an estimator without its own would be
    checked with its defaults only (river's fallback), or not at all."""
    params = list(cls._unit_test_params())
    assert params and all(isinstance(p, dict) for p in params)
    owner = next(k for k in cls.__mro__ if "_unit_test_params" in vars(k))
    assert owner.__module__.startswith("river_forests"), (
        f"{cls.__name__} inherits river's default _unit_test_params from {owner.__qualname__}")
