"""One model on one stream: progressive validation, timed inside the model's calls.

river's models and ours run through the package's own loop (``river_forests._progressive``:
predict, then learn, each sample, scored as ``river.evaluate.progressive_val_score`` scores;
a batch-native forest is fed the chunks its users feed it); MOA's through ``benchmarks.moa``,
on the same materialised samples. Measured: the metric at the end and along the stream (50
points, or one every 1,000 samples on a stream over 50,000, and at 1,000, 2,000, 5,000, 10,000,
50,000 and 200,000 samples), the seconds spent inside the model's
calls, and peak memory (river's ``_raw_memory_usage``, sampled at ten points and at the end,
clock stopped; MOA's learners report none).
"""

from __future__ import annotations

import datetime
import platform
import time

from river import metrics

from benchmarks import store

CURVE_POINTS = 50
#: a curve point at least every this many samples (a long stream's curve is finer than 50
#: points, so that its checkpoints and windows are exact)
CURVE_STEP = 1_000
CHECKPOINTS = (1_000, 2_000, 5_000, 10_000, 50_000, 200_000)
MEMORY_POINTS = 10


def metric_for(task: str):
    return metrics.Accuracy() if task == "clf" else metrics.MAE()


def scored(metric) -> float:
    """The samples `metric` (of `metric_for`) has scored: river's MAE of no sample is 0, an
    accuracy of none 0, and neither may rank a model that never predicted."""
    return float(metric.cm.total_weight if isinstance(metric, metrics.Accuracy) else metric._mean.n)


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    return {"cpu": cpu, "python": platform.python_version(), "system": platform.system()}


def _steps(model, family, data, metric, every):
    if family == "moa":
        yield from model.run(data, metric, every)
    else:
        from river_forests._progressive import iter_progressive_run

        yield from iter_progressive_run(model, data, metric, every)


def run(stream, model_spec, data: list, data_key: str, mode: str, max_seconds: float | None = None,
        progress=None) -> dict:
    """Run `model_spec` on `data` (the first samples of `stream`) and return its record."""
    n = len(data)
    every = max(min(n // CURVE_POINTS, CURVE_STEP), 1)
    metric = metric_for(stream.task)
    model = model_spec.make(stream)
    memory_every = max(n // MEMORY_POINTS, 1)
    curve, checkpoints, peak = [], {}, None
    status, spent, seen = "ok", 0.0, 0
    wall = time.monotonic()
    next_memory = memory_every
    for i, spent in _steps(model, model_spec.family, data, metric, every):
        seen = i
        value = metric.get()
        curve.append([i, value])
        for c in CHECKPOINTS:
            if c not in checkpoints and i >= c:
                checkpoints[c] = value
        if model_spec.family != "moa" and (i >= next_memory or i == n):
            peak = max(peak or 0, model._raw_memory_usage)
            next_memory = (i // memory_every + 1) * memory_every
        if progress is not None:
            progress(i, n, value, spent)
        if max_seconds is not None and time.monotonic() - wall > max_seconds and i < n:
            status = f"stopped after {i} of {n} samples: over {max_seconds:.0f} s"
            break
    if status == "ok" and seen > 0 and scored(metric) == 0:
        status = "no sample predicted"  # ranked last, as a run stopped early
    mode_fed = "one"
    if model_spec.family != "moa":
        from river_forests._progressive import run_mode

        mode_fed = run_mode(model)
    return {
        "stream": stream.name, "task": stream.task, "n": n, "data": data_key,
        "half": stream.half, "category": stream.category,
        "model": model_spec.name, "family": model_spec.family, "config": model_spec.config,
        "version": store.version_of(model_spec.family), "protocol": store.PROTOCOL,
        "mode": mode, "fed": mode_fed, "status": status, "seen": seen,
        "metric_name": "accuracy" if stream.task == "clf" else "MAE",
        "metric": metric.get(), "seconds": spent,
        "samples_per_s": seen / spent if spent > 0 else None,
        "memory": peak, "curve": curve, "checkpoints": {str(k): v for k, v in checkpoints.items()},
        "machine": machine(),
        "recorded": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
