"""Progressive validation of several models on one stream, with timing and memory.

Used by the command line (``python -m river_forests``) and by the scripts in ``benchmarks/``.
Each sample is first predicted, then learned (progressive validation, as
``river.evaluate.progressive_val_score`` does); the clock runs only inside the model's
``predict_proba_one`` / ``predict_one`` and ``learn_one`` calls, so the samples/s of two
models compare the models, not the harness. Streams are materialised in memory first.
"""

from __future__ import annotations

import csv
import gzip
import itertools
import os
import pickle
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from river import base, datasets, metrics
from river.datasets import synth

__all__ = ["Result", "find_data_dir", "load_stream", "progressive_run", "STREAMS"]


def find_data_dir() -> Path | None:
    """``shared/data`` beside the repository (``../shared/data`` from its root), or the
    folder named by the ``RIVER_FORESTS_DATA`` environment variable."""
    env = os.environ.get("RIVER_FORESTS_DATA")
    candidates = [Path(env)] if env else []
    here = Path(__file__).resolve()
    for root in [Path.cwd(), *Path.cwd().parents, *here.parents]:
        candidates.append(root / "shared" / "data")
    for c in candidates:
        if (c / "elec.csv").exists():
            return c
    return None


def _csv(path: Path, n: int | None):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        reader = csv.reader(f)
        header = next(reader)
        names, target = header[:-1], header[-1]
        for row in itertools.islice(reader, n):
            yield {k: float(v) for k, v in zip(names, row)}, int(row[-1])


def _shared(name: str):
    def load(n):
        data_dir = find_data_dir()
        if data_dir is None:
            raise FileNotFoundError(
                "shared/data not found: run from the repository root (with ../shared/data beside "
                "it) or set RIVER_FORESTS_DATA"
            )
        return _csv(data_dir / name, n)

    return load


def _river(make):
    return lambda n: itertools.islice(make(), n)


#: name -> (task, loader(n) -> iterable of (x, y), default length)
STREAMS = {
    "phishing": ("clf", _river(datasets.Phishing), 1250),
    "bananas": ("clf", _river(datasets.Bananas), 5300),
    "imagesegments": ("clf", _river(datasets.ImageSegments), 2310),
    "elec": ("clf", _shared("elec.csv"), 45312),
    "covtype": ("clf", _shared("covtype.csv.gz"), 100_000),
    "randomrbf": ("clf", _river(lambda: synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5, n_features=10)), 100_000),
    "trumpapproval": ("reg", _river(datasets.TrumpApproval), 1001),
    "friedman": ("reg", _river(lambda: synth.Friedman(seed=42)), 20_000),
}


def load_stream(name: str, n: int | None = None) -> list:
    """The first `n` samples of a named stream (its default length if `n` is None)."""
    task, loader, default = STREAMS[name]
    return list(loader(n if n is not None else default))


@dataclass
class Result:
    model: str
    stream: str
    n: int
    metric: float
    seconds: float
    memory: int
    pickled: int
    curve: list = field(default_factory=list)

    @property
    def samples_per_s(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else float("inf")


def _progress(label, i, n, metric, seconds, out):
    rate = i / seconds if seconds > 0 else 0.0
    bar = "#" * int(30 * i / n) + "." * (30 - int(30 * i / n))
    line = f"  {label:<34} [{bar}] {i:>7}/{n} {metric}  {rate:,.0f} samples/s"
    if out.isatty():
        out.write("\r" + line)
        if i == n:
            out.write("\n")
    elif i == n or i % max(n // 4, 1) == 0:
        out.write(line + "\n")
    out.flush()


def progressive_run(
    model,
    data: list,
    metric: metrics.base.Metric,
    label: str = "",
    stream: str = "",
    every: int | None = None,
    progress=sys.stderr,
) -> Result:
    """Predict-then-learn every sample of `data`; time only the model's own calls."""
    n = len(data)
    every = every or max(n // 100, 1)
    classifier = isinstance(model, base.Classifier)
    clock = time.perf_counter
    spent = 0.0
    curve = []
    for i, (x, y) in enumerate(data, 1):
        t0 = clock()
        if classifier:
            proba = model.predict_proba_one(x)
            y_pred = max(proba, key=proba.get) if proba else None
        else:
            y_pred = model.predict_one(x)
            if y_pred is None:  # some river regressors say nothing before their first sample
                y_pred = 0.0
        model.learn_one(x, y)
        spent += clock() - t0
        metric.update(y, y_pred)
        if i % every == 0 or i == n:
            curve.append((i, metric.get()))
            if progress is not None:
                _progress(label, i, n, metric, spent, progress)
    return Result(
        model=label,
        stream=stream,
        n=n,
        metric=metric.get(),
        seconds=spent,
        memory=model._raw_memory_usage,
        pickled=len(pickle.dumps(model)),
        curve=curve,
    )
