import itertools
import os
import random

import numpy as np
import pytest
from river import base, datasets

import river_forests
from river_forests import __main__ as cli

# Every estimator the package exports, so that the cross-estimator tests (river's checks, the
# plumbing, the hardening, the CLI, the suite, the docs) check a new forest the day it joins
# `river_forests.__all__`. Tests built on these lists construct estimators with the parameters
# every forest shares only (n_estimators, seed, aggregation for classifiers, max_nodes,
# smoothing, subsampling, subsample_rate, features_per_tree, max_width) or with a forest's own
# `_unit_test_params()`.
EXPORTS = [getattr(river_forests, name) for name in river_forests.__all__]
ESTIMATORS = [obj for obj in EXPORTS if isinstance(obj, type) and issubclass(obj, base.Estimator)]
CLASSIFIERS = [cls for cls in ESTIMATORS if issubclass(cls, base.Classifier)]
REGRESSORS = [cls for cls in ESTIMATORS if issubclass(cls, base.Regressor)]


def name_of(cls) -> str:
    """A test id: the estimator's class name."""
    return cls.__name__


def is_classifier(cls) -> bool:
    return issubclass(cls, base.Classifier)


def shared(cls, **params) -> dict:
    """`params` for `cls`: the classifiers' own shared parameter (`aggregation`) is dropped for
    a regressor, so one list of parameter sets serves every estimator."""
    if not is_classifier(cls):
        params.pop("aggregation", None)
    return params


def target(cls, y):
    """A uniform_stream label as `cls` learns it: the label itself, or a float for a regressor."""
    return y if is_classifier(cls) else float(y)


# ------------------------------------------------------------------ batch-native forests
# A forest whose class says `_learn_many_equals_learn_one = False` (XForest) learns in
# mini-batches: its `learn_one` buffers `batch_size` rows and learns each full buffer as one
# batch (`n_pending` rows wait, `flush()` learns them now), and a batch is not a loop of single
# rows. What holds for it instead: a `learn_one` loop gives exactly what `learn_many` over
# consecutive chunks of `batch_size` rows gives. The generic tests follow the flag through the
# helpers below, so they check the same thing as before for every other forest.


def batch_native(cls) -> bool:
    """Whether `cls` declares that its `learn_many` is not a `learn_one` loop (XForest)."""
    return not cls._learn_many_equals_learn_one


def chunk_size(model, size: int) -> int:
    """Rows per `learn_many` call that a `learn_one` loop over the same rows matches: any
    `size` for a sequential forest, the model's own `batch_size` for a batch-native one."""
    return int(model.batch_size) if batch_native(type(model)) else size


def flushed(model):
    """`model`, having learned the rows a batch-native forest's `learn_one` buffered (nothing
    to do for a sequential forest, nor for a batch-native one with nothing pending)."""
    if batch_native(type(model)):
        model.flush()
        assert model.n_pending == 0
    return model


#: per-estimator parameters under which every tree learns every row it is given (no
#: resampling) and keeps it (no tree replaced): XForest's bootstrap keeps about 63% of a
#: batch's rows per tree, and its swaps replace trees by new ones grown on one batch. For the
#: generic tests that count a tree's samples; the others run each forest as it is.
PLAIN = {river_forests.XForestClassifier: dict(bootstrap=False, n_swaps=0),
         river_forests.XForestRegressor: dict(bootstrap=False, n_swaps=0),
         # no Poisson weights, and leaves that predict their path's statistics
         river_forests.StreamPartitionForestClassifier: dict(subsampling=None, leaf_prediction="majority"),
         river_forests.StreamPartitionForestRegressor: dict(subsampling=None)}


def plain(cls, **params):
    """A `cls(**params)` whose every tree learns every row (`PLAIN`); `params` win."""
    return cls(**{**PLAIN.get(cls, {}), **params})


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def shared_data_dir():
    """../shared/data, or skip the test on a machine without it: but CI must run such tests,
    so there its absence fails them."""
    found = cli.find_data_dir()
    if found is None:
        if in_ci():
            pytest.fail("../shared/data not found (elec.csv, covtype.csv.gz); CI must run the "
                        "tests that use it: set RIVER_FORESTS_DATA to the folder holding them")
        pytest.skip("../shared/data not found (elec.csv, covtype.csv.gz): set RIVER_FORESTS_DATA "
                    "to the folder holding them")
    return found


@pytest.fixture(scope="session")
def shared_data():
    return shared_data_dir()


@pytest.fixture(scope="session")
def phishing():
    return list(datasets.Phishing())


@pytest.fixture(scope="session")
def segments():
    return list(itertools.islice(datasets.ImageSegments(), 600))


@pytest.fixture(scope="session")
def trump():
    return list(datasets.TrumpApproval())


def uniform_stream(n, d, seed=0, label=None):
    """`n` samples of `d` uniform features x0..x{d-1}, labelled 0/1 (or by `label(x)`)."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        x = {f"x{j}": rng.random() for j in range(d)}
        y = label(x) if label else int(x["x0"] + 0.3 * rng.random() > 0.6)
        out.append((x, y))
    return out


def route(state, x, start=None):
    """The root-to-leaf path of `x` (a sequence in registry-column order) read from a tree's
    state arrays (from node `start` if given), by the router its state names: the axis one,
    x[feature] <= threshold goes left, or the oblique one, coef_a x[feature] + coef_b
    x[feature_b] <= threshold goes left; a missing value goes to the child of larger weight
    (the left one on a tie). Empty for an empty tree."""
    j = state["root"] if start is None else start
    if j < 0:
        return []
    oblique = state.get("split") == "oblique"
    path = [j]
    while state["left"][j] >= 0:
        l, r = state["left"][j], state["right"][j]
        if oblique:
            va, vb = x[state["feature"][j]], x[state["feature_b"][j]]
            missing = va != va or vb != vb
            left = not missing and state["coef_a"][j] * va + state["coef_b"][j] * vb <= state["threshold"][j]
        else:
            v = x[state["feature"][j]]
            missing = v != v
            left = not missing and v <= state["threshold"][j]
        if missing:
            j = l if state["weight"][l] >= state["weight"][r] else r
        else:
            j = l if left else r
        path.append(j)
    return path


def same_state(a: dict, b: dict) -> bool:
    """Two tree states (`Tree.get_state()` dicts) equal key by key, arrays to the bit (NaN
    equal to NaN in float arrays)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        u, v = a[k], b[k]
        if isinstance(u, np.ndarray):
            if u.shape != v.shape or not np.array_equal(u, v, equal_nan=u.dtype.kind == "f"):
                return False
        elif u != v:
            return False
    return True
