"""The compiled ADWIN (`_core/_adwin.pyx`) against river's `drift.ADWIN`: on the same
sequences, with river's parameters, the same window (width, total, variance) after every
update and the same detections."""

from __future__ import annotations

import random

import pytest
from river import drift

from river_forests._core._adwin import CompiledADWIN


def _errors(seed: int) -> list[float]:
    """A tree's 0/1 errors through three concepts, then real values and a long quiet tail."""
    rng = random.Random(seed)
    out = [float(rng.random() < 0.2) for _ in range(3000)]
    out += [float(rng.random() < 0.5) for _ in range(3000)]
    out += [rng.gauss(0.0, 1.0) for _ in range(1500)]
    out += [float(rng.random() < 0.05) for _ in range(12000)]
    return out


@pytest.mark.parametrize("params", [
    {}, {"delta": 0.001, "clock": 1}, {"delta": 0.1, "clock": 16}, {"delta": 0.3},
    {"clock": 5, "max_buckets": 3, "min_window_length": 10, "grace_period": 50},
])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_compiled_adwin_is_rivers(params, seed):
    ours, theirs = CompiledADWIN(**params), drift.ADWIN(**params)
    detections = []
    for i, x in enumerate(_errors(seed)):
        ours.update(x)
        theirs.update(x)
        assert ours.drift_detected == theirs.drift_detected, i
        assert (ours.width, ours.total, ours.variance) == (theirs.width, theirs.total, theirs.variance), i
        assert ours.estimation == theirs.estimation, i
        if ours.drift_detected:
            detections.append(i)
    assert detections, "the sequences change: both detectors must see it"
    assert ours.n_detections == len(detections)


def test_the_update_after_a_detection_starts_an_empty_window():
    ours = CompiledADWIN(delta=0.1, clock=1)
    for x in [0.0] * 300 + [1.0] * 300:
        ours.update(x)
        if ours.drift_detected:
            break
    else:
        pytest.fail("no detection")
    ours.update(1.0)
    assert not ours.drift_detected and ours.width == 1 and ours.total == 1.0


def test_a_quiet_stream_keeps_one_window():
    ours = CompiledADWIN()
    rng = random.Random(3)
    for _ in range(100_000):
        ours.update(float(rng.random() < 0.1))
    assert ours.n_detections == 0 and ours.width == 100_000


@pytest.mark.parametrize("bad", [{"delta": 0.0}, {"delta": 1.0}, {"clock": 0}, {"max_buckets": 0},
                                 {"min_window_length": 0}, {"grace_period": -1}])
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        CompiledADWIN(**bad)
