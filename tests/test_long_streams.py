"""Consistent forests keep learning on a long stream (issue 45), for every classifier we export
at its defaults: on a stationary stream the accuracy over a window never falls as rows arrive,
and a bigger budget is never worse; nor does it fall when the rows sweep across their space (a
stationary concept whose rows arrive sorted, as rows sorted by place or time do).

"Falls" is judged beyond noise: two windows' accuracies differ by more than two standard
errors of the difference of two proportions, 2 * sqrt(p (1 - p) (1/n1 + 1/n2)) with p their
pooled accuracy (about 0.5 points for 25,000 rows each at 90%). The streams are river's
generators with seeds of these tests (never a stream the benchmark reports on).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

import pytest
from river import metrics
from river.datasets import synth

from river_forests._progressive import iter_progressive_run
from tests.conftest import CLASSIFIERS, name_of

ROWS = 100_000

def _rbf(n: int, seed: int = 5) -> list:
    """A stationary stream: RandomRBF, 5 classes, 10 features, 50 centroids."""
    gen = synth.RandomRBF(seed_model=seed, seed_sample=seed + 1, n_classes=5, n_features=10,
                          n_centroids=50)
    return [({str(k): float(v) for k, v in x.items()}, y) for x, y in itertools.islice(gen, n)]


@pytest.fixture(scope="module")
def stream() -> list:
    return _rbf(ROWS)


def _windows(model, data: list, parts: int) -> list[tuple[float, float]]:
    """The accuracy over each of `parts` equal windows of the prequential run, with the rows it
    scored: ``[(accuracy, rows), ...]``."""
    metric = metrics.Accuracy()
    out, correct, scored = [], 0.0, 0.0
    for _ in iter_progressive_run(model, data, metric, len(data) // parts):
        w = metric.cm.total_weight
        c = metric.get() * w
        out.append(((c - correct) / (w - scored), w - scored))
        correct, scored = c, w
    return out


def _below(a: tuple, b: tuple) -> bool:
    """Whether window `a` (accuracy, rows) is below window `b` beyond noise."""
    (pa, na), (pb, nb) = a, b
    p = (pa * na + pb * nb) / (na + nb)
    return pa < pb - 2 * math.sqrt(p * (1 - p) * (1 / na + 1 / nb))


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_the_last_quarter_is_learned_at_least_as_well_as_the_second(cls, stream):
    quarters = _windows(cls(n_estimators=10, seed=42), stream, 4)
    assert len(quarters) == 4
    assert not _below(quarters[3], quarters[1]), quarters


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_twice_the_budget_is_not_less_accurate(cls, stream):
    # a small budget, so that the smaller forest is full early in the stream
    data = stream[:50_000]
    small, big = ([sum(a * n for a, n in _windows(cls(n_estimators=10, seed=42, memory_budget=b), data, 1)) / len(data)
                   for b in ("1MB", "2MB")])
    assert not _below((big, len(data)), (small, len(data))), (small, big)


def _swept_agrawal(n: int, seed: int = 11) -> list:
    """Agrawal's function 2 (5% perturbation), its rows in the order of a noisy random
    projection of their standardised features: the concept stays, the region the rows come
    from moves across the space (as the benchmark's ``*-sweep-long`` streams)."""
    gen = synth.Agrawal(classification_function=2, seed=seed, perturbation=0.05)
    rows = [({k: float(v) for k, v in x.items()}, y) for x, y in itertools.islice(gen, n)]
    keys = sorted(rows[0][0])
    X = np.array([[x[k] for k in keys] for x, _ in rows])
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    rng = np.random.default_rng(seed)
    p = X @ rng.normal(size=len(keys))
    order = np.argsort(p / p.std() + 0.3 * rng.normal(size=n), kind="stable")
    return [rows[i] for i in order]


@pytest.fixture(scope="module")
def swept() -> list:
    return _swept_agrawal(ROWS)


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_the_last_quarter_is_learned_at_least_as_well_as_the_second_when_rows_sweep(cls, swept):
    # without forgetting, a label-blind forest keeps the partition and counts it made where the
    # rows were early: at drift_detector=None the Mondrian and BSP forests fail this test (the
    # reason their default became "ADWIN", issue 45; see the forgetting experiment)
    quarters = _windows(cls(n_estimators=10, seed=42), swept, 4)
    assert not _below(quarters[3], quarters[1]), quarters
