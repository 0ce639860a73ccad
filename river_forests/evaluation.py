"""Progressive validation of several models on one stream, with timing and memory.

Used by the command line (``python -m river_forests``) and by the scripts in ``benchmarks/``.
Each sample is first predicted, then learned (progressive validation, as
``river.evaluate.progressive_val_score`` does); the clock runs only inside the model's
``predict_proba_one`` / ``predict_one`` and ``learn_one`` calls, so the samples/s of two
models compare the models, not the harness. Streams are materialised in memory first.

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

import csv
import gzip
import itertools
import os
import pickle
import math
import numbers
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from river import base, datasets, forest, metrics, preprocessing, tree
from river.datasets import synth

__all__ = [
    "Result",
    "batch_native",
    "batch_size_of",
    "find_data_dir",
    "iter_progressive_run",
    "load_stream",
    "markdown_table",
    "progressive_run",
    "river_baselines",
    "our_variants",
    "run_mode",
    "show_progress",
    "STREAMS",
]


def find_data_dir() -> Path | None:
    """The folder named by the ``RIVER_FORESTS_DATA`` environment variable when it is set (and
    only it: a wrong path is reported, not replaced by another folder), else ``shared/data``
    beside the repository (``../shared/data`` from its root); None if it has no elec.csv."""
    env = os.environ.get("RIVER_FORESTS_DATA")
    if env:
        return Path(env) if (Path(env) / "elec.csv").exists() else None
    candidates = []
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


def _drifting(make):
    """A generator whose drift points are placed relative to the stream length `n`, so that a
    shortened (quick) run still crosses them."""
    return lambda n: itertools.islice(make(n), n)


def _agrawal_abrupt(n):
    # classification function 0 -> 2 at the middle of the stream, abrupt: the change takes
    # n/200 samples (river's sigmoid overflows for a width much smaller than position/175)
    return synth.ConceptDriftStream(
        stream=synth.Agrawal(classification_function=0, seed=42),
        drift_stream=synth.Agrawal(classification_function=2, seed=43),
        position=n // 2, width=max(n // 200, 1), seed=42,
    )


def _sea_drift(n):
    # SEA concepts 0 -> 1 -> 2 with 10% label noise, gradual changes (width n/20) at n/3, 2n/3
    later = synth.ConceptDriftStream(
        stream=synth.SEA(variant=1, noise=0.1, seed=43),
        drift_stream=synth.SEA(variant=2, noise=0.1, seed=44),
        position=n // 3, width=max(n // 20, 1), seed=43,
    )
    return synth.ConceptDriftStream(
        stream=synth.SEA(variant=0, noise=0.1, seed=42), drift_stream=later,
        position=n // 3, width=max(n // 20, 1), seed=42,
    )


def _wide_sparse(n, vocabulary=50_000, active=20, seed=42):
    """A bag-of-words stream: each sample holds `active` distinct words of a `vocabulary`, drawn
    with Zipf frequencies (exponent 1.1, as in text), each with a tf-idf-like value in
    [0.1, 1.1); the label is the sign of a fixed random linear score of the words present,
    flipped for 5% of the samples. Feature names are "w<rank>"."""
    import numpy as np

    rng = np.random.default_rng(seed)
    cdf = np.cumsum(np.arange(1, vocabulary + 1) ** -1.1)
    cdf /= cdf[-1]
    beta = rng.normal(size=vocabulary)
    for _ in range(n):
        words = []
        while len(words) < active:
            for w in np.searchsorted(cdf, rng.random(2 * active)).tolist():
                if w not in words and w < vocabulary:
                    words.append(w)
                    if len(words) == active:
                        break
        values = 0.1 + rng.random(active)
        score = float(beta[words] @ values)
        y = (score > 0) != (rng.random() < 0.05)
        yield {f"w{w}": v for w, v in zip(words, values.tolist())}, int(y)


#: name -> (task, loader(n) -> iterable of (x, y), default length)
STREAMS = {
    "phishing": ("clf", _river(datasets.Phishing), 1250),
    "bananas": ("clf", _river(datasets.Bananas), 5300),
    "imagesegments": ("clf", _river(datasets.ImageSegments), 2310),
    "elec": ("clf", _shared("elec.csv"), 45312),
    "covtype": ("clf", _shared("covtype.csv.gz"), 100_000),
    "randomrbf": ("clf", _river(lambda: synth.RandomRBF(seed_model=42, seed_sample=42, n_classes=5, n_features=10)), 100_000),
    # a few features matter (salary, age, ...; 9 features): label-aware splits pay here
    "agrawal": ("clf", _river(lambda: synth.Agrawal(classification_function=0, seed=42)), 100_000),
    "stagger": ("clf", _river(lambda: synth.STAGGER(classification_function=0, seed=42)), 100_000),
    # drifting classification streams
    "agrawal-abrupt": ("clf", _drifting(_agrawal_abrupt), 100_000),
    "sea-drift": ("clf", _drifting(_sea_drift), 100_000),
    "randomrbf-drift": ("clf", _river(lambda: synth.RandomRBFDrift(
        seed_model=42, seed_sample=42, n_classes=5, n_features=10, n_centroids=50,
        change_speed=0.001, n_drift_centroids=25)), 100_000),
    "led-drift": ("clf", _river(lambda: synth.LEDDrift(
        seed=42, noise_percentage=0.1, irrelevant_features=True, n_drift_features=7)), 100_000),
    "hyperplane-drift": ("clf", _river(lambda: synth.Hyperplane(
        seed=42, n_features=10, n_drift_features=5, mag_change=0.001, noise_percentage=0.05)), 100_000),
    # 50,000-word vocabulary, 20 words per sample: width must not set memory or speed
    "wide-sparse": ("clf", _wide_sparse, 20_000),
    # regression
    "trumpapproval": ("reg", _river(datasets.TrumpApproval), 1001),
    "friedman": ("reg", _river(lambda: synth.Friedman(seed=42)), 20_000),
    # Friedman's function with two global abrupt changes (at n/3 and 2n/3)
    "friedman-drift": ("reg", _drifting(lambda n: synth.FriedmanDrift(
        drift_type="gra", position=(n // 3, 2 * n // 3), seed=42)), 100_000),
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
    #: how the model was fed: "one" (``learn_one``, sample by sample) or "batches of <size>"
    #: (``predict_proba_many``/``predict_many`` then ``learn_many``, see ``run_mode``)
    mode: str = "one"

    @property
    def samples_per_s(self) -> float:
        return self.n / self.seconds if self.seconds > 0 else float("inf")


def markdown_table(header: list, rows: list) -> list[str]:
    """The lines of a Markdown table (cells formatted with ``str``)."""
    lines = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in rows]
    return lines


def show_progress(label, i, n, metric, seconds, out, since: int | None = None):
    """One progress line: a bar, the metric so far and the model's samples/s; redrawn in place
    on a terminal, printed at each quarter otherwise (logs stay short). `since` is the sample
    count of the previous call: a quarter crossed since then prints, so a model fed in chunks
    whose ends miss the exact quarters still logs four lines (default: the sample before)."""
    rate = i / seconds if seconds > 0 else 0.0
    bar = "#" * int(30 * i / n) + "." * (30 - int(30 * i / n))
    line = f"  {label:<34} [{bar}] {i:>7}/{n} {metric}  {rate:,.0f} samples/s"
    quarter = max(n // 4, 1)
    since = i - 1 if since is None else since
    if out.isatty():
        out.write("\r" + line)
        if i == n:
            out.write("\n")
    elif i == n or i // quarter > since // quarter:
        out.write(line + "\n")
    out.flush()


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


def our_variants(task: str = "clf") -> dict:
    """Every estimator of ``river_forests.__all__`` for `task` ("clf" or "reg"), as
    ``{label: (class, params)}``, with one entry per value of a parameter that chooses the
    paper's variant (an estimator's ``_variants``, e.g. the purely random forest's
    ``split``): what a benchmark compares."""
    import river_forests

    out = {}
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if (task == "clf") != issubclass(cls, base.Classifier):
            continue
        short = name.replace("ForestClassifier", "").replace("ForestRegressor", "")
        variants = getattr(cls, "_variants", {})
        if not variants:
            out[short] = (cls, {})
        for param, values in variants.items():
            for value in values:
                out[f"{short} ({value})"] = (cls, {param: value})
    return out


def river_baselines(task: str, n_estimators: int, seed: int) -> dict:
    """river's HoeffdingTree, ARF and AMF for `task` ("clf" or "reg"), by class name. The
    regressors sit behind a StandardScaler, as in river's docs: without it they diverge on
    unscaled features (TrumpApproval)."""
    if task == "clf":
        return {
            "HoeffdingTreeClassifier": tree.HoeffdingTreeClassifier(),
            "ARFClassifier": forest.ARFClassifier(n_models=n_estimators, seed=seed),
            "AMFClassifier": forest.AMFClassifier(n_estimators=n_estimators, seed=seed),
        }
    scaled = preprocessing.StandardScaler
    return {
        "HoeffdingTreeRegressor": scaled() | tree.HoeffdingTreeRegressor(),
        "ARFRegressor": scaled() | forest.ARFRegressor(n_models=n_estimators, seed=seed),
        "AMFRegressor": scaled() | forest.AMFRegressor(n_estimators=n_estimators, seed=seed),
    }


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


def progressive_run(
    model,
    data: list,
    metric: metrics.base.Metric,
    label: str = "",
    stream: str = "",
    every: int | None = None,
    progress=sys.stderr,
) -> Result:
    """Predict-then-learn every sample of `data`; time only the model's own calls. As in
    ``river.evaluate.progressive_val_score``, a sample the model cannot predict yet (None, or
    no probabilities) is learned but not scored, so the two report the same metric. A
    batch-native model is fed chunks of its ``batch_size`` instead, each predicted as a whole
    before it is learned (see ``iter_progressive_run``); ``Result.mode`` says which."""
    n = len(data)
    mode = run_mode(model)
    curve = []
    spent, last = 0.0, 0
    for i, spent in iter_progressive_run(model, data, metric, every):
        curve.append((i, metric.get()))
        if progress is not None:
            show_progress(label, i, n, metric, spent, progress, since=last)
        last = i
    return Result(
        model=label,
        stream=stream,
        n=n,
        metric=metric.get(),
        seconds=spent,
        memory=model._raw_memory_usage,
        pickled=len(pickle.dumps(model)),
        curve=curve,
        mode=mode,
    )
