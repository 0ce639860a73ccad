"""The whole of covtype (581,012 rows): every forest of ours at its defaults against river's ARF
and AMF and MOA's ARF and SRP, with learning curves.

    python -m benchmarks experiment covtype_long            # every row
    python -m benchmarks experiment covtype_long --quick    # the first 20,000
    python -m benchmarks experiment covtype_long --jobs 2

Covertype is in the benchmark's report half: this experiment reports, it never chooses (the
defaults are chosen on the tuning half, long streams included, by ``defaults``). Progressive
validation (predict then learn each row; a batch-native forest is fed its batches), 10 trees,
seed 42, on ``covtype.csv.gz`` in file order (54 features, 7 classes, each value read with
Python's ``float``). For each model: the accuracy at 10,000, 50,000, 100,000, 200,000 rows and
at the end (cumulative, as ``progressive_val_score`` prints it), the accuracy of each window of
20,000 rows, samples/s (inside the model's calls), and the model's size as river measures it
(``_raw_memory_usage``) at each checkpoint. The peers' measurements are kept per library
version (river's, CapyMOA's), so they run once. Writes
``benchmarks/results/experiments/covtype_long.md`` and ``.png`` (``_quick`` with ``--quick``).
The targets of issue 45: at 200,000 rows the Mondrian forest at least .91, every forest at
least river's ARF, within 20 MB; our best forest at MOA's ARF is the moonshot.
"""

from __future__ import annotations

import time

from benchmarks import figures
from benchmarks.experiments import _common

NAME = "covtype_long"
ROWS, QUICK_ROWS = 581_012, 20_000
SEED = 42
TREES = 10
STEP = 1_000  # a curve point every STEP rows
CHECKPOINTS = (10_000, 50_000, 100_000, 200_000)
WINDOW = 20_000
PEERS = {"river ARF": "river", "river AMF": "river", "MOA ARF": "moa", "MOA SRP": "moa"}
#: rows a model learns, where not all of them
ROWS_OF: dict = {}


def _ours() -> list[str]:
    """Our classifiers as the benchmark names them (one per variant), at their defaults."""
    from benchmarks import models

    return [m.name for m in models.models("clf", "ours") if not m.drifting_only]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    rows = QUICK_ROWS if quick else ROWS
    return [(m, {"model": m, "rows": min(rows, ROWS_OF.get(m, rows))}) for m in [*_ours(), *PEERS]]


def family(params: dict) -> str:
    return PEERS.get(params["model"], "ours")


def _make(name: str):
    """The benchmark's model `name` (ours: 10 trees, seed 42, the defaults)."""
    from benchmarks import models

    return models.get("clf", name).make(None)


def measure(params: dict) -> dict:
    from river import metrics

    from benchmarks.harness import _steps

    data = _common.samples("covtype", params["rows"])
    name = params["model"]
    fam = family(params)
    model = _make(name)
    metric = metrics.Accuracy()
    curve, memory, spent, seen = [], [], 0.0, 0
    marks = [c for c in CHECKPOINTS if c < len(data)] + [len(data)]
    t0 = time.perf_counter()
    for seen, spent in _steps(model, fam, data, metric, STEP):
        curve.append([seen, float(metric.get()), float(metric.cm.total_weight)])
        if fam != "moa" and marks and seen >= marks[0]:
            memory.append([seen, int(model._raw_memory_usage)])
            marks = [c for c in marks if c > seen]
    return {"n": seen, "accuracy": float(metric.get()), "seconds": spent,
            "samples_per_s": seen / spent if spent else None, "curve": curve, "memory": memory,
            "wall": time.perf_counter() - t0, "environment": _common.machine(),
            "load": _common.load_average()}


def at(curve: list, n: int) -> float | None:
    """The cumulative accuracy at the curve's first point at or past `n` rows."""
    return next((v for i, v, _ in curve if i >= n), None)


def windows(curve: list, width: int) -> list[tuple[int, float]]:
    """The accuracy over each window of `width` rows: ``(end, accuracy)`` pairs, computed from
    the cumulative curve (correct predictions and scored rows at each end)."""
    out, last_i, last_c, last_w = [], 0, 0.0, 0.0
    for i, v, w in curve:
        if i - last_i >= width or i == curve[-1][0]:
            c = v * w
            if w > last_w:
                out.append((i, (c - last_c) / (w - last_w)))
            last_i, last_c, last_w = i, c, w
    return out


def report(results: dict, quick: bool) -> None:
    md, png = _common.outputs(NAME, quick)
    names = [k for k, _ in jobs(quick) if k in results]
    rows = []
    for name in names:
        r = results[name]
        mem = {i: m for i, m in r["memory"]}
        at200 = next((m for i, m in r["memory"] if i >= 200_000), None)
        rows.append([name, *(f"{at(r['curve'], c):.3f}" if at(r["curve"], c) is not None else "-"
                             for c in CHECKPOINTS), f"{r['accuracy']:.3f}", f"{r['n']:,}",
                     f"{r['samples_per_s']:,.0f}",
                     f"{at200 / 1e6:,.1f}" if at200 else "-",
                     f"{max(mem.values()) / 1e6:,.1f}" if mem else "-"])
    lines = _common.heading(NAME, quick, "The whole of covtype: learning curves",
                            f"{TREES} trees, seed {SEED}, every forest at its defaults; covtype "
                            "is in the report half, so nothing here was chosen on it")
    lines += _common.markdown_table(
        ["model", *(f"{c // 1000}k" for c in CHECKPOINTS), "end", "rows", "samples/s",
         "MB at 200k", "MB peak"], rows) + [""]
    lines += ["Accuracy over each window of 20,000 rows (the last one shorter):", ""]
    lines += _common.markdown_table(
        ["model", *(f"{i // 1000}k" for i, _ in windows(results[names[0]]["curve"], WINDOW))] if names else ["model"],
        [[n, *(f"{a:.3f}" for _, a in windows(results[n]["curve"], WINDOW))] for n in names]) + [""]
    if not quick:
        lines += _targets(results, names) + [""]
    missing = _common.missing(jobs(quick), results)
    if missing:
        lines += [_common.missing_line(missing), ""]
    md.write_text("\n".join(lines) + "\n")
    _plot(results, names, png)


def _targets(results: dict, names: list) -> list[str]:
    """Issue 45's targets at 200,000 rows, each met or not."""
    arf = results.get("river ARF")
    arf200 = at(arf["curve"], 200_000) if arf else None
    out = ["Issue 45's targets at 200,000 rows:", ""]
    for name in names:
        if name in PEERS:
            continue
        r = results[name]
        a = at(r["curve"], 200_000)
        mb = next((m for i, m in r["memory"] if i >= 200_000), None)
        checks = []
        if name == "MondrianForest":
            checks.append(f"at least .91: {'met' if a >= 0.91 else '**not met**'}")
        if arf200 is not None:
            checks.append(f"at least river's ARF ({arf200:.3f}): {'met' if a >= arf200 else '**not met**'}")
        if mb is not None:
            checks.append(f"within 20 MB ({mb / 1e6:.1f}): {'met' if mb <= 20e6 else '**not met**'}")
        out.append(f"- {name}: {a:.3f}; " + "; ".join(checks) + ".")
    return out


def _plot(results: dict, names: list, png) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(13, 4.8))
    for name in names:
        curve = results[name]["curve"]
        style = "--" if name in PEERS else "-"
        a.plot([i for i, _, _ in curve], [v for _, v, _ in curve], style, label=name, lw=1.2)
        w = windows(curve, WINDOW)
        b.plot([i for i, _ in w], [v for _, v in w], style, label=name, lw=1.2)
    a.set(title="cumulative accuracy (progressive validation)", xlabel="rows", ylabel="accuracy")
    b.set(title=f"accuracy over windows of {WINDOW:,} rows", xlabel="rows")
    a.set_ylim(0.3, 1.0)
    b.set_ylim(0.3, 1.0)
    b.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    figures.save(fig, png, dpi=110)
    plt.close(fig)
