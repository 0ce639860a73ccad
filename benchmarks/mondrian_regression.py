"""The Mondrian forest regressor's new defaults (issue 17) against its old ones and river's regressors.

    python benchmarks/mondrian_regression.py           # Friedman 20,000 and 100,000, TrumpApproval: about 25 minutes
    python benchmarks/mondrian_regression.py --quick   # Friedman 5,000 and TrumpApproval, fewer models: under a minute

Measured: progressive-validation MAE (``metrics.MAE()``, every sample predicted, then learned,
with the loop of ``river_forests.evaluation.progressive_run``, which times only the model's own
calls), samples/s and the size of the pickled model at the end of the stream, on

- ``friedman``: river's ``synth.Friedman(seed=42)`` (10 features uniform on [0, 1], five
  informative, N(0, 1) noise), its first 20,000 samples (``load_stream("friedman")``) and
  its first 100,000 (``load_stream("friedman", 100000)``);
- ``trumpapproval``: river's ``datasets.TrumpApproval`` (1,001 samples, 6 features that trend).

Models, 10 trees and seed 1 for every forest:

- ours, ``MondrianForestRegressor(n_estimators=10, seed=1)`` with its new defaults
  (``leaf_model="linear", linear_rate=1.0, lifetime_scale=0.5, recycling=True``, and
  ``max_nodes`` 1023 since commit ecbecd1: the results name the defaults of the code that ran,
  read from the class); the default with ``max_nodes=2047`` (issue 17's first cap); the same
  with ``leaf_model="mean"``; the old defaults, before issue 17
  (``leaf_model="mean", lifetime_scale=2.0, recycling=False, max_nodes=4095``); the paper's
  settings (``leaf_model="mean", lifetime_scale=1.0, recycling=False, smoothing=0.0``); the
  default with ``use_aggregation=True``, and, to see what aggregation does to a mean leaf,
  ``leaf_model="mean", use_aggregation=True``;
- river's ``HoeffdingTreeRegressor()`` (linear-model leaves by default),
  ``HoeffdingAdaptiveTreeRegressor(seed=1)``, ``ARFRegressor(n_models=10, seed=1)`` and
  ``AMFRegressor(n_estimators=10, seed=1)``, each behind an online
  ``preprocessing.StandardScaler`` as ``river_forests.evaluation.river_baselines("reg", 10, 1)``
  builds them (the suite's river models; HAT, which it does not build, the same way). On
  TrumpApproval and Friedman 20,000 they also run without the scaler (river's models as the
  issue names them); on Friedman 100,000 only the two Hoeffding trees do (the unscaled ARF and
  AMF would add about 20 minutes).

Then the justification of the defaults: our default on Friedman 20,000 for lifetime_scale in
{0.25, 0.5, 1, 2} x linear_rate in {0.5, 1.0} (8 runs; TrumpApproval's MAE alongside).

With ``--quick``: Friedman cut to 5,000 samples (no 100,000 run), ours default, mean leaves
and the old defaults, river's scaled HT and ARF; the same sweep on the 5,000 samples.

One run, one process, streams materialised in memory first. Samples/s are wall clock on a
shared machine: indicative only. Writes benchmarks/results/mondrian_regression.{md,png}
(``_quick`` with --quick).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
from river import forest, metrics, preprocessing, tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests import MondrianForestRegressor  # noqa: E402
from river_forests.evaluation import (  # noqa: E402
    load_stream, markdown_table, progressive_run, river_baselines)

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bsp_friedman import environment as bsp_environment  # noqa: E402
TREES = 10
SEED = 1
MB = 2**20

DEFAULT = "ours: default (linear leaves)"
CAP2047 = "ours: max_nodes=2047"
MEAN = "ours: leaf_model=\"mean\""
BEFORE = "ours: before issue 17"
PAPER = "ours: the paper's settings"
AGG = "ours: use_aggregation=True"
MEAN_AGG = "ours: leaf_model=\"mean\", use_aggregation=True"
#: label -> (parameters beyond n_estimators and seed, as written in the table)
OURS = {
    DEFAULT: {},
    CAP2047: {"max_nodes": 2047},
    MEAN: {"leaf_model": "mean"},
    BEFORE: {"leaf_model": "mean", "lifetime_scale": 2.0, "recycling": False, "max_nodes": 4095},
    PAPER: {"leaf_model": "mean", "lifetime_scale": 1.0, "recycling": False, "smoothing": 0.0},
    AGG: {"use_aggregation": True},
    MEAN_AGG: {"leaf_model": "mean", "use_aggregation": True},
}
QUICK_OURS = [DEFAULT, MEAN, BEFORE]

HT, HAT, ARF, AMF = "HoeffdingTreeRegressor", "HoeffdingAdaptiveTreeRegressor", "ARFRegressor", "AMFRegressor"
RIVER = [HT, HAT, ARF, AMF]
QUICK_RIVER = [HT, ARF]


def scaled_label(name: str) -> str:
    return f"river: {name} (scaled)"


def bare_label(name: str) -> str:
    return f"river: {name} (no scaler)"

SCALES = [0.25, 0.5, 1.0, 2.0]
RATES = [0.5, 1.0]


def ours(label: str, **extra) -> MondrianForestRegressor:
    return MondrianForestRegressor(n_estimators=TREES, seed=SEED, **{**OURS[label], **extra})


def river_model(name: str, scaled: bool):
    """river's regressor `name`, behind a StandardScaler (as ``river_baselines`` builds it) or
    bare."""
    if scaled:
        if name == HAT:  # river_baselines has no HAT: the same pipeline
            return preprocessing.StandardScaler() | tree.HoeffdingAdaptiveTreeRegressor(seed=SEED)
        return river_baselines("reg", TREES, SEED)[name]
    return {
        HT: lambda: tree.HoeffdingTreeRegressor(),
        HAT: lambda: tree.HoeffdingAdaptiveTreeRegressor(seed=SEED),
        ARF: lambda: forest.ARFRegressor(n_models=TREES, seed=SEED),
        AMF: lambda: forest.AMFRegressor(n_estimators=TREES, seed=SEED),
    }[name]()


def plan(quick: bool) -> list[tuple[str, str, int | None, list[str], list[str], list[str]]]:
    """(key, stream, n, our labels, river's scaled, river's bare) per table."""
    if quick:
        return [
            ("friedman-5000", "friedman", 5_000, QUICK_OURS, QUICK_RIVER, []),
            ("trumpapproval", "trumpapproval", None, QUICK_OURS, QUICK_RIVER, []),
        ]
    return [
        ("trumpapproval", "trumpapproval", None, list(OURS), RIVER, RIVER),
        ("friedman-20000", "friedman", None, list(OURS), RIVER, RIVER),
        ("friedman-100000", "friedman", 100_000, list(OURS), RIVER, [HT, HAT]),
    ]


def run(model, data, label: str) -> dict:
    r = progressive_run(model, data, metrics.MAE(), label=label[:34], progress=None)
    out = {"label": label, "mae": r.metric, "speed": r.samples_per_s, "pickled": r.pickled / MB,
           "seconds": r.seconds}
    if isinstance(model, MondrianForestRegressor):
        out["nodes"] = model.n_nodes / TREES
    print(f"  {label:<60} MAE {r.metric:.4f}  {r.samples_per_s:>9,.0f} samples/s  "
          f"{r.pickled / MB:7.2f} MB pickled  ({r.seconds:.1f} s)", flush=True)
    return out


def defaults() -> dict:
    """The regressor's defaults in the code that runs (all but n_estimators, seed, the drift
    detectors and the subsampling, feature and width parameters)."""
    import inspect

    keep = ["lifetime", "lifetime_scale", "use_aggregation", "recycling", "leaf_model",
            "linear_rate", "smoothing", "max_nodes"]
    sig = inspect.signature(MondrianForestRegressor.__init__).parameters
    return {k: sig[k].default for k in keep}


def params_text(params: dict) -> str:
    return ", ".join(f"{k}={v!r}".replace("'", '"') for k, v in params.items())


def built_at() -> float:
    """When the Mondrian extension file on disk was last written."""
    import river_forests._core._mondrian as ext

    return os.path.getmtime(ext.__file__)


def environment() -> str:
    """One line: machine, versions, the package's commit and its uncommitted files (read
    only), when the Mondrian extension was built, and the load average."""
    return bsp_environment("_mondrian")[0]


def title(key: str) -> str:
    if key == "trumpapproval":
        return "TrumpApproval (1,001 samples)"
    return f"Friedman, seed 42 ({int(key.split('-')[1]):,} samples)"


def plot(tables: dict, sweep: list[dict], sweep_key: str, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = list(tables)
    cols = 2
    nrows = (len(keys) + 2) // cols
    fig, grid = plt.subplots(nrows, cols, figsize=(12, 4.6 * nrows), dpi=100)
    axes = list(np.ravel(grid))
    for ax in axes[len(keys) + 1:]:
        ax.remove()
    axes = axes[:len(keys) + 1]
    for ax, key in zip(axes, keys):
        rows = tables[key]
        labels = [r["label"].replace("ours: ", "") for r in rows]
        colours = ["tab:blue" if r["label"].startswith("ours") else "tab:orange" for r in rows]
        colours[[r["label"] for r in rows].index(DEFAULT)] = "navy"
        y = np.arange(len(rows))[::-1]
        # a diverged model (river's unscaled trees on TrumpApproval) is drawn cut, hatched
        cap = 3 * float(np.median([r["mae"] for r in rows]))
        shown = [min(r["mae"], cap) for r in rows]
        bars = ax.barh(y, shown, color=colours)
        for bar, yi, r in zip(bars, y, rows):
            if r["mae"] > cap:
                bar.set_hatch("//")
            ax.text(min(r["mae"], cap), yi, f" diverged: {mae(r['mae'])}" if r["mae"] > cap else f" {r['mae']:.3f}",
                    va="center", fontsize=7)
        ax.set_yticks(y)
        ax.set_yticklabels([s.replace("Regressor", "") for s in labels], fontsize=7)
        ax.set_xlabel("progressive MAE")
        ax.set_title(title(key), fontsize=9)
        ax.set_xlim(0, max(shown) * 1.45)
        ax.grid(axis="x", alpha=0.3)
    ax = axes[-1]
    for rate, style in zip(RATES, ("o--", "o-")):
        ax.plot(SCALES, [s["mae"] for s in sweep if s["rate"] == rate], style, label=f"linear_rate={rate}")
    ax.set_xscale("log", base=2)
    ax.set_xticks(SCALES)
    ax.set_xticklabels([str(s) for s in SCALES])
    ax.set_xlabel("lifetime_scale")
    ax.set_ylabel("progressive MAE")
    ax.set_title(f"sweep of our default on\n{title(sweep_key)}", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.suptitle("Mondrian forest regressor (ours, blue; default navy) and river's (orange), "
                 "10 trees, seed 1", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def mae(v: float) -> str:
    """An MAE to four decimals; a diverged one (river's unscaled trees on TrumpApproval) in
    scientific notation."""
    return f"{v:.4f}" if abs(v) < 1e4 else f"{v:.3g}"


def verdict(a: float, b: float) -> str:
    return "yes" if a <= b else "no"


def summary(tables: dict, sweep: list[dict], sweep_key: str, quick: bool) -> list[str]:
    get = {key: {r["label"]: r for r in rows} for key, rows in tables.items()}
    lines = ["## What it shows", ""]
    for key in tables:
        if not key.startswith("friedman"):
            continue
        t = get[key]
        d = t[DEFAULT]["mae"]
        river_best = min((r for r in tables[key] if not r["label"].startswith("ours")), key=lambda r: r["mae"])

        def versus(name):
            """The verdict against river's `name`, scaled and (when run) without the scaler."""
            parts = []
            for label, how in ((scaled_label(name), "scaled"), (bare_label(name), "unscaled")):
                if label in t:
                    parts.append(f"{verdict(d, t[label]['mae'])} against the {how} one "
                                 f"({mae(t[label]['mae'])})")
            return "; ".join(parts)

        line = (f"- {title(key)}: our default's MAE is {d:.4f}. "
                f"**At most river's ARFRegressor's (the target): {versus(ARF)}.** "
                f"**At most HoeffdingTreeRegressor's (the stretch goal): {versus(HT)}.** "
                f"The best river model here is {river_best['label']} at {mae(river_best['mae'])}.")
        others = [f"mean leaves {t[MEAN]['mae']:.4f}", f"before issue 17 {t[BEFORE]['mae']:.4f}"]
        if PAPER in t:
            others.append(f"the paper's settings {t[PAPER]['mae']:.4f}")
        if AGG in t:
            same = "identical to the default's" if t[AGG]["mae"] == d else f"the default {d:.4f}"
            others.append(f"the default with use_aggregation=True {t[AGG]['mae']:.4f} ({same}; "
                          f"{t[AGG]['speed'] / t[DEFAULT]['speed']:.2f}x its samples/s)")
        if MEAN_AGG in t:
            others.append(f"mean leaves with aggregation {t[MEAN_AGG]['mae']:.4f}")
        line += " Ours otherwise: " + "; ".join(others) + "."
        arf_key = scaled_label(ARF)
        line += (f" Speed: our default {t[DEFAULT]['speed']:,.0f} samples/s, "
                 f"{t[DEFAULT]['speed'] / t[arf_key]['speed']:,.0f}x the scaled ARF's "
                 f"{t[arf_key]['speed']:,.0f}; pickled {t[DEFAULT]['pickled']:.2f} MB against "
                 f"ARF's {t[arf_key]['pickled']:.2f} MB.")
        lines.append(line)
    t = get["trumpapproval"]
    d = t[DEFAULT]["mae"]
    rivers = [r for r in tables["trumpapproval"] if not r["label"].startswith("ours")]
    beaten = [r for r in rivers if d <= r["mae"]]
    ranked = sorted(tables["trumpapproval"], key=lambda r: r["mae"])
    rank = [r["label"] for r in ranked].index(DEFAULT) + 1
    best_ours = next(r for r in ranked if r["label"].startswith("ours"))
    lines.append(
        f"- TrumpApproval: our default's MAE is {d:.4f}, at most that of {len(beaten)} of the "
        f"{len(rivers)} river runs ("
        + ", ".join(f"{r['label']} {mae(r['mae'])}" for r in rivers)
        + f"); rank {rank} of {len(ranked)} models (best: {ranked[0]['label']} {ranked[0]['mae']:.4f}"
        + ("" if best_ours is ranked[0] else f"; best of ours: {best_ours['label']} {best_ours['mae']:.4f}")
        + "). "
        f"Mean leaves {t[MEAN]['mae']:.4f}, before issue 17 {t[BEFORE]['mae']:.4f}"
        + (f", the paper's settings {t[PAPER]['mae']:.4f}" if PAPER in t else "") + ".")
    best = min(sweep, key=lambda s: s["mae"])
    default = next(s for s in sweep if s["default"])
    order = sorted(sweep, key=lambda s: s["mae"])
    lines.append(
        f"- Sweep on {title(sweep_key)}: the default (lifetime_scale=0.5, linear_rate=1.0) has MAE "
        f"{default['mae']:.4f}, rank {order.index(default) + 1} of {len(sweep)}"
        + ("" if best is default else f"; the lowest is lifetime_scale={best['scale']}, "
           f"linear_rate={best['rate']} at {best['mae']:.4f}")
        + f"; the range is {order[0]['mae']:.4f} to {order[-1]['mae']:.4f}. On TrumpApproval the default's "
        f"MAE is {default['trump']:.4f} (range over the sweep {min(s['trump'] for s in sweep):.4f} "
        f"to {max(s['trump'] for s in sweep):.4f}).")
    lines += ["", "Samples/s are indicative: wall clock inside the models' calls on a shared "
              "machine, one run; compare them within a table only."]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="Friedman 5,000 samples (no 100,000 run), fewer models")
    args = parser.parse_args(argv)
    # pickling river's unscaled Hoeffding tree on TrumpApproval recurses deeper than the default
    # 1,000 frames (its splitters' search trees over a trending feature are chains)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    start = time.perf_counter()
    env = environment()
    built = built_at()
    print(env, flush=True)
    tables, data = {}, {}
    for key, stream, n, our_labels, scaled, bare in plan(args.quick):
        data[key] = load_stream(stream, n)
        print(f"{key}: {len(data[key]):,} samples", flush=True)
        rows = [run(ours(label), data[key], label) for label in our_labels]
        rows += [run(river_model(name, True), data[key], scaled_label(name)) for name in scaled]
        rows += [run(river_model(name, False), data[key], bare_label(name)) for name in bare]
        tables[key] = rows
    sweep_key = "friedman-5000" if args.quick else "friedman-20000"
    print(f"sweep on {sweep_key}", flush=True)
    sweep = []
    for scale in SCALES:
        for rate in RATES:
            label = f"lifetime_scale={scale}, linear_rate={rate}"
            r = run(ours(DEFAULT, lifetime_scale=scale, linear_rate=rate), data[sweep_key], label)
            t = run(ours(DEFAULT, lifetime_scale=scale, linear_rate=rate), data["trumpapproval"],
                    label + " (trump)")
            sweep.append({**r, "scale": scale, "rate": rate, "trump": t["mae"],
                          "default": scale == 0.5 and rate == 1.0})

    suffix = "_quick" if args.quick else ""
    RESULTS.mkdir(exist_ok=True)
    png = RESULTS / f"mondrian_regression{suffix}.png"
    plot(tables, sweep, sweep_key, png)
    command = "RIVER_FORESTS_DATA=/work/shared/data python benchmarks/mondrian_regression.py" + (
        " --quick" if args.quick else "")
    lines = [
        "# Mondrian forest regressor: the new defaults (issue 17) against the old and river's"
        + (" (quick)" if args.quick else ""),
        "",
        f"Command: `{command}` (one run). {env}",
        "",
        "Progressive validation (`river_forests.evaluation.progressive_run`: each sample "
        "predicted, then learned; only the model's own calls are timed), `metrics.MAE()`. "
        "**pickled MB**: `len(pickle.dumps(model)) / 2**20` at the end of the stream. "
        f"Every forest has 10 trees and seed 1: ours is `MondrianForestRegressor(n_estimators=10, "
        f"seed=1, ...)` with the parameters below (the default: `{params_text(defaults())}`); "
        "river's are `HoeffdingTreeRegressor()`, `HoeffdingAdaptiveTreeRegressor(seed=1)`, "
        "`ARFRegressor(n_models=10, seed=1)` and `AMFRegressor(n_estimators=10, seed=1)`; "
        "`(scaled)` marks them behind an online `preprocessing.StandardScaler`, as "
        "`river_baselines(\"reg\", 10, 1)` builds them for the suite (HAT the same way), "
        "`(no scaler)` without it. Friedman is river's `synth.Friedman(seed=42)`, TrumpApproval river's "
        "`datasets.TrumpApproval` (`load_stream`).",
        "",
        "Our models:",
        "",
    ]
    for label in (QUICK_OURS if args.quick else OURS):
        lines.append(f"- {label}: `{params_text(OURS[label]) or 'no parameter beyond n_estimators and seed'}`")
    lines.append("")
    for key, rows in tables.items():
        lines += [f"## {title(key)}", ""]
        lines += markdown_table(
            ["model", "MAE", "samples/s", "pickled MB"],
            [[("**" + r["label"] + "**") if r["label"] == DEFAULT else r["label"], mae(r["mae"]),
              f"{r['speed']:,.0f}", f"{r['pickled']:.2f}"] for r in rows])
        lines.append("")
    lines += [f"## Sweep of the default on {title(sweep_key)}", "",
              "Our default with lifetime_scale and linear_rate varied (everything else at its "
              "default); TrumpApproval's MAE for the same settings alongside. Nodes/tree at the "
              f"end of the Friedman stream (the cap is {defaults()['max_nodes']:,}, with recycling).", ""]
    lines += markdown_table(
        ["lifetime_scale", "linear_rate", "Friedman MAE", "samples/s", "pickled MB", "nodes/tree",
         "TrumpApproval MAE"],
        [[s["scale"], s["rate"], f"**{s['mae']:.4f}**" if s["default"] else f"{s['mae']:.4f}",
          f"{s['speed']:,.0f}", f"{s['pickled']:.2f}", f"{s['nodes']:,.0f}", f"{s['trump']:.4f}"]
         for s in sweep])
    lines += ["", "Bold: the default.", ""]
    lines += summary(tables, sweep, sweep_key, args.quick)
    lines += ["", f"![MAE per model and stream, and the sweep](mondrian_regression{suffix}.png)", ""]
    if built_at() != built:
        # the process keeps the extension it loaded: the numbers are those of the build named above
        lines += ["Note: the `_mondrian` extension on disk was rebuilt during this run; every number "
                  "above comes from the build loaded at the start (named in the environment line).", ""]
    lines.append(f"Run time: {time.perf_counter() - start:.0f} s.")
    out = RESULTS / f"mondrian_regression{suffix}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
