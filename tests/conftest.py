import itertools
import os
import random

import pytest
from river import datasets

from river_forests import evaluation


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def shared_data_dir():
    """../shared/data, or skip the test on a machine without it: but CI must run such tests,
    so there its absence fails them."""
    found = evaluation.find_data_dir()
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
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        x = {f"x{j}": rng.random() for j in range(d)}
        y = label(x) if label else int(x["x0"] + 0.3 * rng.random() > 0.6)
        out.append((x, y))
    return out
