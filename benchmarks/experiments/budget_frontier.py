"""Accuracy against the memory budget, for few and many classes: every classifier at its defaults.

    python -m benchmarks experiment budget_frontier            # elec (2 classes) and rbf-10 (10 classes), 20,000 samples each
    python -m benchmarks experiment budget_frontier --quick    # their first 5,000 samples, three budgets
    python -m benchmarks experiment budget_frontier --jobs 2   # in 2 processes

Every classifier of ``river_forests.__all__`` (the purely random forest at its default split)
at its defaults but ``memory_budget``, 10 trees, seed 42, progressive validation
(``river_forests._progressive.progressive_run``, accuracy) at budgets of 300 KB, 1 MB, 4 MB,
16 MB and 64 MB on the first 20,000 samples of two streams of the benchmark's **tuning half**:
elec (2 classes, 8 features) for few classes and rbf-10 (RandomRBF, 10 classes, 20 features)
for many. One measurement is one (stream, forest, budget). For each: the accuracy,
samples/s and the model's size at the end as river measures it (``_raw_memory_usage``) against
the budget. Writes ``benchmarks/results/experiments/budget_frontier.{md,png}`` (``_quick``
with ``--quick``): a table per stream and accuracy against budget (log scale), one panel per
stream. The forests' pages quote it for the trade-off of their default budget.
"""

from __future__ import annotations

import time

from benchmarks.experiments import _common

NAME = "budget_frontier"
SEED = 42
STREAMS = {"elec": "2 classes, 8 features", "rbf-10": "10 classes, 20 features"}
#: the smallest: about what ten empty trees of the largest kind take (a forest refuses less)
BUDGETS = ["300KB", "1MB", "4MB", "16MB", "64MB"]
QUICK_BUDGETS = ["300KB", "4MB", "64MB"]
QUICK_N = 5_000
FULL_N = 20_000


def _forests() -> list[str]:
    import river_forests
    from river import base

    return [n for n in river_forests.__all__ if isinstance(getattr(river_forests, n), type)
            and issubclass(getattr(river_forests, n), base.Classifier)]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    from benchmarks.streams import STREAMS as REGISTRY

    out = []
    for stream in STREAMS:
        assert REGISTRY[stream].half == "tuning", stream
        n = min(QUICK_N if quick else FULL_N, REGISTRY[stream].n)
        for forest in _forests():
            for budget in QUICK_BUDGETS if quick else BUDGETS:
                out.append((f"{stream}-{forest}-{budget}",
                            {"stream": stream, "n": n, "forest": forest, "budget": budget}))
    return out


def measure(params: dict) -> dict:
    import river_forests
    from river import metrics

    from benchmarks.streams import STREAMS as REGISTRY
    from river_forests._forest import parse_bytes
    from river_forests._progressive import progressive_run

    data = REGISTRY[params["stream"]].samples(params["n"])
    model = getattr(river_forests, params["forest"])(seed=SEED, memory_budget=params["budget"])
    t0 = time.perf_counter()
    r = progressive_run(model, data, metrics.Accuracy())
    return {"accuracy": float(r.metric), "samples_per_s": float(r.samples_per_s),
            "memory": int(model._raw_memory_usage), "nodes": int(model.n_nodes),
            "budget_bytes": parse_bytes("memory_budget", params["budget"]),
            "wall": time.perf_counter() - t0, "n": len(data)}


def report(results: dict, quick: bool) -> None:
    md, png = _common.outputs(NAME, quick)
    wanted = jobs(quick)
    budgets = QUICK_BUDGETS if quick else BUDGETS
    lines = ["# Accuracy against the memory budget", "",
             f"`python -m benchmarks experiment {NAME}{' --quick' if quick else ''}`; every "
             f"classifier at its defaults but `memory_budget`, 10 trees, seed {SEED}; "
             f"{_common.version_line()}; {_common.machine()}. Cells: accuracy (size at the end "
             "as a share of the budget).", ""]
    plt = _common.pyplot()
    fig, axes = plt.subplots(1, len(STREAMS), figsize=(6 * len(STREAMS), 4.2))
    for ax, (stream, what) in zip(axes, STREAMS.items()):
        lines += [f"## {stream} ({what})", ""]
        rows = []
        for forest in _forests():
            cells, xs, ys = [forest.replace("ForestClassifier", "")], [], []
            for b in budgets:
                r = results.get(f"{stream}-{forest}-{b}")
                if r is None:
                    cells.append("—")
                    continue
                cells.append(f"{100 * r['accuracy']:.2f}% ({r['memory'] / r['budget_bytes']:.0%})")
                xs.append(r["budget_bytes"] / 1e6)
                ys.append(100 * r["accuracy"])
            rows.append(cells)
            ax.plot(xs, ys, marker="o", label=cells[0])
        lines += _common.markdown_table(["forest", *budgets], rows) + [""]
        ax.set_xscale("log")
        _common.label_axes(ax, "memory budget (MB)", "progressive accuracy (%)", f"{stream}: {what}")
    axes[0].legend(fontsize=8)
    _common.save_figure(fig, png)
    lines += [f"![accuracy against budget]({png.name})", ""]
    missing = _common.missing(wanted, results)
    if missing:
        lines += [_common.missing_line(missing), ""]
    md.write_text("\n".join(lines) + "\n")
