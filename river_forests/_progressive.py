"""Progressive validation of one model on one materialised stream, timing the model's calls.

The loop the command line (``python -m river_forests``) runs, and the one the benchmark
(``benchmarks/``, outside the package) runs for river's models and ours. Each sample is first
predicted, then learned (progressive validation, as ``river.evaluate.progressive_val_score``
does, scoring the same); the clock runs only inside the model's ``predict_proba_one`` /
``predict_one`` and ``learn_one`` calls, so the samples/s of two models compare the models, not
the loop.

A *batch-native* model (``batch_native``: its class declares
``_learn_many_equals_learn_one = False``, as XForest does, whose trees grow from mini-batches)
is run the way its users run it, not one sample at a time, which would measure a model nobody
uses: each consecutive chunk of its ``batch_size`` samples is first predicted as a whole
(``predict_proba_many`` / ``predict_many``), then learned (``learn_many``), so no sample is
predicted by a model that has learned it. The chunks' DataFrames are built before the clock
starts (a user would already hold frames), the clock runs only inside those two calls, and the
metric is updated row by row, in stream order. ``Result.mode`` records which way a model ran.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from river import base, metrics

__all__ = ["Result", "batch_native", "batch_size_of", "iter_progressive_run", "progressive_run",
           "run_mode"]


@dataclass
class Result:
    n: int
    metric: float
    seconds: float
    memory: int
    curve: list = field(default_factory=list)
    #: how the model was fed: "one" (``learn_one``, sample by sample) or "batches of <size>"
    mode: str = "one"

    @property
    def samples_per_s(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else float("inf")


def batch_native(model) -> bool:
    """Whether `model` is run in mini-batches: its class declares that its ``learn_many`` is
    *not* a ``learn_one`` loop (``_learn_many_equals_learn_one = False``: mini-batches are how
    it learns, e.g. XForest's trees grow from CART splits on a batch). Fed one sample at a time
    such a model would be a different, degenerate model than the one its users run. Every other
    model, river's included, has ``learn_one`` as its natural interface (a model that does not
    declare the flag is taken to learn the same either way)."""
    return not getattr(model, "_learn_many_equals_learn_one", True) and hasattr(model, "learn_many")


def batch_size_of(model) -> int:
    """The mini-batch size a batch-native model is fed: its ``batch_size`` (100 when it has
    none, the package's default)."""
    size = getattr(model, "batch_size", 100)
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {size!r}")
    return int(size)


def run_mode(model) -> str:
    """How ``progressive_run`` feeds `model`: ``"one"`` sample at a time, or ``"batches of
    <size>"`` for a batch-native model (recorded in ``Result.mode``)."""
    return f"batches of {batch_size_of(model)}" if batch_native(model) else "one"


def iter_progressive_run(model, data: list, metric: metrics.base.Metric,
                         every: int | None = None) -> Iterator[tuple[int, float]]:
    """Progressive validation of `model` on `data`, updating `metric` as it goes: yields
    ``(samples seen, seconds spent in the model's own calls so far)`` at the first sample (or,
    for a batch-native model, the first chunk end) at or past each multiple of `every` (default
    n/100), and at the end. Between two yields the caller may measure the model, stopped clock
    and all: the suite samples its memory there. A sample the model cannot predict yet (None,
    no probabilities, or in a batch a row of probabilities that are all NaN, or a NaN
    regression) is learned but not scored, as in ``river.evaluate.progressive_val_score``."""
    n = len(data)
    every = every or max(n // 100, 1)
    steps = _in_batches(model, data, metric) if batch_native(model) else _one_by_one(model, data, metric)
    last = 0
    for i, spent in steps:
        if i // every > last // every or i == n:
            yield i, spent
        last = i


def _one_by_one(model, data: list, metric) -> Iterator[tuple[int, float]]:
    """Predict then ``learn_one`` each sample; yields after each one."""
    classifier = isinstance(model, base.Classifier)
    clock = time.perf_counter
    spent = 0.0
    for i, (x, y) in enumerate(data, 1):
        t0 = clock()
        if classifier:
            proba = model.predict_proba_one(x)
            y_pred = max(proba, key=proba.get) if proba else None
        else:
            y_pred = model.predict_one(x)
        model.learn_one(x, y)
        spent += clock() - t0
        if y_pred is not None and y_pred != {}:
            metric.update(y, y_pred)
        yield i, spent


def _in_batches(model, data: list, metric) -> Iterator[tuple[int, float]]:
    """Predict each chunk of ``batch_size`` samples as a whole, then ``learn_many`` it; yields
    after each chunk. Every frame is built first, outside the clock: a user of a batch model
    holds frames already, and building them is pandas' cost, not the model's. A chunk's rows
    keep their position in the stream as index; keys missing from a row's dict are NaN in
    its frame, which the forests read as missing values."""
    import pandas as pd

    size = batch_size_of(model)
    chunks = []
    for start in range(0, len(data), size):
        rows = data[start:start + size]
        index = pd.RangeIndex(start, start + len(rows))
        ys = [y for _, y in rows]
        chunks.append((pd.DataFrame([x for x, _ in rows], index=index), pd.Series(ys, index=index), ys))
    classifier = isinstance(model, base.Classifier)
    clock = time.perf_counter
    spent, seen = 0.0, 0
    for X, y, ys in chunks:
        t0 = clock()
        predicted = model.predict_proba_many(X) if classifier else model.predict_many(X)
        model.learn_many(X, y)
        spent += clock() - t0
        if len(predicted) != len(X):
            raise ValueError(
                f"{type(model).__name__} predicted {len(predicted)} rows for a batch of {len(X)}")
        y_preds = _labels(predicted) if classifier else predicted.tolist()
        for y_true, y_pred in zip(ys, y_preds):
            if y_pred is not None and not (isinstance(y_pred, float) and math.isnan(y_pred)):
                metric.update(y_true, y_pred)
        seen += len(X)
        yield seen, spent


def _labels(proba) -> list:
    """Each row's most probable label (the first column of the highest, as ``max`` over a
    ``predict_proba_one`` dict picks the first key), in row order; None for a row the model
    cannot predict yet: a frame without columns, or a row of NaN only."""
    import numpy as np

    if proba.shape[1] == 0:
        return [None] * len(proba)
    values = proba.to_numpy(dtype=float, na_value=np.nan)
    known = ~np.isnan(values).all(axis=1)
    best = np.where(np.isnan(values), -np.inf, values).argmax(axis=1)
    columns = proba.columns.tolist()
    return [columns[j] if ok else None for j, ok in zip(best.tolist(), known.tolist())]


def progressive_run(model, data: list, metric: metrics.base.Metric, every: int | None = None,
                    on_step=None) -> Result:
    """Predict-then-learn every sample of `data` (a batch-native model: every chunk, see
    ``iter_progressive_run``); time only the model's own calls. ``on_step(i, seconds, metric)``,
    if given, is called at each step of ``iter_progressive_run``, clock stopped."""
    curve = []
    spent = 0.0
    for i, spent in iter_progressive_run(model, data, metric, every):
        curve.append((i, metric.get()))
        if on_step is not None:
            on_step(i, spent, metric)
    return Result(n=len(data), metric=metric.get(), seconds=spent,
                  memory=model._raw_memory_usage, curve=curve, mode=run_mode(model))
