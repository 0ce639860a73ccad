"""Memory and speed on covtype's first 200,000 rows: the Mondrian forest at its defaults against river's AMF and ARF.

    python -m benchmarks experiment covtype_memory            # 200,000 rows
    python -m benchmarks experiment covtype_memory --quick    # 20,000 rows
    python -m benchmarks experiment covtype_memory --jobs 3   # the three models at once

Progressive validation (``river_forests._progressive.progressive_run``: predict then learn
each sample, only the model's calls timed), accuracy, 10 trees, seed 42, on the first 200,000
rows of ``covtype.csv.gz`` (the shared data folder; 54 features, 7 classes, read with Python's
``float``) of: ``MondrianForestClassifier`` and ``PurelyRandomForestClassifier`` at their
defaults (``memory_budget="16MB"``), river's ``forest.AMFClassifier(n_estimators=10)`` and
``forest.ARFClassifier(n_models=10)``. For each: accuracy, samples/s, and the model's size as
river measures it (``_raw_memory_usage``) after every 50,000 rows and at the end. The issue's
targets: the Mondrian forest at most a tenth of AMF's memory; the Mondrian and purely random
forests at least 50 times ARF's samples/s. Writes
``benchmarks/results/experiments/covtype_memory.md`` (``_quick`` with ``--quick``). Run it
on an otherwise idle machine: the speed ratios compare models measured in separate processes.
"""

from __future__ import annotations

import time

from benchmarks.experiments import _common

NAME = "covtype_memory"
ROWS, QUICK_ROWS = 200_000, 20_000
SEED = 42
MODELS = ["MondrianForestClassifier", "PurelyRandomForestClassifier", "AMFClassifier", "ARFClassifier"]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    return [(m, {"model": m, "rows": QUICK_ROWS if quick else ROWS}) for m in MODELS]


def _make(name: str):
    import river_forests
    from river import forest

    if name == "AMFClassifier":
        return forest.AMFClassifier(n_estimators=10, seed=SEED)
    if name == "ARFClassifier":
        return forest.ARFClassifier(n_models=10, seed=SEED)
    return getattr(river_forests, name)(n_estimators=10, seed=SEED)


def measure(params: dict) -> dict:
    from river import metrics

    from river_forests._progressive import iter_progressive_run

    data = _common.samples("covtype", params["rows"])
    model = _make(params["model"])
    metric = metrics.Accuracy()
    every = max(len(data) // 4, 1)
    memory, spent, seen = [], 0.0, 0
    t0 = time.perf_counter()
    for seen, spent in iter_progressive_run(model, data, metric, every=every):
        memory.append([seen, int(model._raw_memory_usage)])
    return {"n": seen, "accuracy": float(metric.get()), "seconds": spent,
            "samples_per_s": seen / spent if spent else None, "memory": memory,
            "wall": time.perf_counter() - t0, "environment": _common.machine(),
            "load": _common.load_average()}


def report(results: dict, quick: bool) -> None:
    md, _ = _common.outputs(NAME, quick)
    rows = []
    for name in MODELS:
        r = results.get(name)
        if r is None:
            continue
        mem = r["memory"][-1][1] / 1e6
        rows.append([name, f"{r['n']:,}", f"{100 * r['accuracy']:.2f}%", f"{r['samples_per_s']:,.0f}",
                     f"{mem:,.1f}", " / ".join(f"{m / 1e6:,.1f}" for _, m in r["memory"])])
    lines = _common.heading(NAME, quick, "Memory and speed on covtype's first 200,000 rows",
                            f"10 trees, seed {SEED}")
    lines += _common.markdown_table(["model", "rows", "accuracy", "samples/s", "MB at the end",
                                     "MB at each quarter"], rows) + [""]
    mf, amf, arf = (results.get(k) for k in ("MondrianForestClassifier", "AMFClassifier", "ARFClassifier"))
    if mf and amf:
        ratio = mf["memory"][-1][1] / amf["memory"][-1][1]
        lines.append(f"- Mondrian forest's memory / AMF's: {ratio:.3f} (target: at most 0.1).")
    for name in ("MondrianForestClassifier", "PurelyRandomForestClassifier"):
        r = results.get(name)
        if r and arf:
            lines.append(f"- {name} samples/s / ARF's: {r['samples_per_s'] / arf['samples_per_s']:.1f}x "
                         "(target: at least 50x).")
    missing = _common.missing(jobs(quick), results)
    if missing:
        lines += ["", _common.missing_line(missing)]
    md.write_text("\n".join(lines) + "\n")
