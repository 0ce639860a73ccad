import itertools
import random

import pytest
from river import datasets


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
