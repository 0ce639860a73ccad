"""The BSP regressor's accuracy against its memory budget, on Friedman's function (issue 48).

    python -m benchmarks experiment bsp_frontier            # d = 5 and 10, n = 5,000 and 20,000, 3 repeats
    python -m benchmarks experiment bsp_frontier --quick    # d = 10, n = 2,000, three budgets, one repeat
    python -m benchmarks experiment bsp_frontier --jobs 2

Issue 48's frontier must never bend back: more memory must never cost accuracy. Before it, the
regressor's leaves were cut down to two or three points (the paper's support rule), so a
larger budget bought smaller cells that predicted worse (at 5,000 rows, 4 MB, 64 MB and a
4,095-node cap gave 3.14, 2.21 and 1.60). Here ``BSPForestRegressor`` at its defaults but
``memory_budget`` (10 trees, seed r), and the same with the paper's support rule
(``min_split_points=3``), learn ``Friedman(seed=100 + r)`` as ``bsp_friedman`` feeds it (the
first d features, chunks of 100 through ``learn_many``) and predict 2,000 rows of
``Friedman(seed=10000 + r)`` after n rows: the RMSE against the noisy y, the nodes per tree
and the model's size (river's measure) at the end. Budgets from 2 MB to 128 MB, and none (no
byte cap, and a node cap of a million, which no tree here reaches: the trees grow as the
schedule and the support rule let them). Writes
``benchmarks/results/experiments/bsp_frontier.{md,png}``.
"""

from __future__ import annotations

import numpy as np

from benchmarks.experiments import _common

NAME = "bsp_frontier"
TREES = 10
BUDGETS = ["2MB", "4MB", "8MB", "16MB", "32MB", "64MB", "128MB", None]
QUICK_BUDGETS = ["2MB", "64MB", None]
SIZES = [5_000, 20_000]
QUICK_SIZES = [2_000]
REPEATS = 3
#: the node cap of the runs without a byte budget: more nodes than any tree here grows
UNCAPPED = 1_000_000
DS = (5, 10)
#: label -> parameters over the defaults
CONFIGS = {"defaults": {}, "paper's support (3)": {"min_split_points": 3}}


def _plan(quick: bool):
    if quick:
        return QUICK_BUDGETS, QUICK_SIZES, 1, (10,)
    return BUDGETS, SIZES, REPEATS, DS


def _label(budget) -> str:
    return budget or "none"


def jobs(quick: bool) -> list[tuple[str, dict]]:
    budgets, sizes, repeats, ds = _plan(quick)
    return [(f"{cfg}|d{d}|{_label(b)}|r{r}", {"config": cfg, "d": d, "budget": b, "repeat": r,
                                               "sizes": sizes})
            for cfg in CONFIGS for d in ds for b in budgets for r in range(repeats)]


def measure(params: dict) -> dict:
    from river_forests import BSPForestRegressor

    from benchmarks.experiments import bsp_friedman

    # no byte budget: a node cap the trees never reach stands for none (memory must be bounded)
    cap = {} if params["budget"] else {"max_nodes": UNCAPPED}
    model = BSPForestRegressor(n_estimators=TREES, seed=params["repeat"],
                               memory_budget=params["budget"], **cap, **CONFIGS[params["config"]])
    run = bsp_friedman.learn_and_score(model, params["repeat"], params["d"], params["sizes"])
    return {str(n): {"rmse": run["rmse_y"][i], "nodes": run["nodes"][i],
                     "memory": run["memory"][i]} for i, n in enumerate(run["n"])}


def report(results: dict, quick: bool) -> None:
    from benchmarks.experiments import bsp_friedman

    budgets, sizes, repeats, ds = _plan(quick)
    md, png = _common.outputs(NAME, quick)
    lines = _common.opening(
        NAME, quick, "The BSP regressor's accuracy against its memory budget (Friedman)",
        f"{TREES} trees, seeds 0 to {repeats - 1}; RMSE against the noisy y on {bsp_friedman.N_TEST:,} held-out "
        "rows, mean over the repeats (nodes per tree; the model's size at the end, MB)",
        jobs(quick), results)
    plt = _common.pyplot()
    fig, axes = plt.subplots(1, len(ds) * len(sizes), figsize=(4.5 * len(ds) * len(sizes), 4), squeeze=False)
    panel = 0
    for d in ds:
        for n in sizes:
            lines += [f"## d = {d}, n = {n:,}", ""]
            rows = []
            ax = axes[0][panel]
            panel += 1
            for cfg in CONFIGS:
                cells, xs, ys = [cfg], [], []
                for i, b in enumerate(budgets):
                    recs = [results.get(f"{cfg}|d{d}|{_label(b)}|r{r}") for r in range(repeats)]
                    recs = [x[str(n)] for x in recs if x is not None]
                    if len(recs) < repeats:
                        cells.append("—")
                        continue
                    rmse = np.mean([x["rmse"] for x in recs])
                    cells.append(f"{rmse:.3f} ({np.mean([x['nodes'] for x in recs]):,.0f}; "
                                 f"{np.mean([x['memory'] for x in recs]) / 1e6:.1f})")
                    xs.append(i)
                    ys.append(rmse)
                rows.append(cells)
                ax.plot(xs, ys, marker="o", label=cfg)
            lines += _common.markdown_table(["support rule", *[_label(b) for b in budgets]], rows) + [""]
            ax.set_xticks(range(len(budgets)))
            ax.set_xticklabels([_label(b) for b in budgets], fontsize=7, rotation=45)
            _common.label_axes(ax, "memory budget", "test RMSE", f"d = {d}, n = {n:,}")
    axes[0][0].legend(fontsize=8)
    _common.save_figure(fig, png)
    lines += [f"![RMSE against budget]({png.name})", ""]
    md.write_text("\n".join(lines) + "\n")
