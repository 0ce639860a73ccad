"""The benchmark suite: every forest of the package against river's trees and forests.

    python benchmarks/suite.py --quick      # every stream cut to 3,000 samples, < 10 minutes
    python benchmarks/suite.py              # full lengths: hours (river's forests are slow)
    python benchmarks/suite.py --streams elec bananas --force   # some streams again

Every estimator exported by ``river_forests`` (default parameters, 10 trees, seed 42) runs
against river's HoeffdingTree, HoeffdingAdaptiveTree, ExtremelyFastDecisionTree, ARF (10
trees) and AMF (10 trees) classifiers, or HoeffdingTree, HoeffdingAdaptiveTree, ARF, AMF and
OXT regressors, with ``river.evaluate.iter_progressive_val_score`` (predict, then learn,
every sample) on:

- stationary classification: Phishing, Bananas, ImageSegments (bundled with river),
  ../shared/data/elec.csv, the first 200,000 rows of ../shared/data/covtype.csv.gz, RandomRBF,
  Agrawal and STAGGER (few informative features, where label-aware splits pay);
- drifting classification: Agrawal with an abrupt ConceptDriftStream, SEA with two gradual
  drifts, RandomRBFDrift, LEDDrift, Hyperplane with drift (100,000 samples each);
- regression: TrumpApproval, Friedman, FriedmanDrift.

river's regressors run behind a StandardScaler (their own docs do so; without it they diverge
on TrumpApproval's unscaled features); ours measure cells relative to the data range and need
none.

Measured per stream and model: accuracy (or MAE) at the end and along the stream, time spent
inside the progressive-validation loop (the stream is materialised in memory first; memory
measurements are excluded), and peak model memory (river's ``_raw_memory_usage``, sampled at
ten points and at the end). The harness itself (the metric update, the loop) costs every
model the same few microseconds per sample, so ratios understate the gap between a fast and
a slow model. Throughput is reported as samples/s and as a ratio to river's ARF and AMF
measured in the same run.

Output, in ``benchmarks/results/suite/`` (``suite-quick/`` with ``--quick``): one
``<stream>.json`` per stream (kept, so that an interrupted run resumes where it stopped;
``--force`` recomputes), ``results.csv``, ``results.md`` (the tables) and ``<stream>.png``
(learning curves: the metric against samples seen, every model on one plot).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import time
from pathlib import Path

from river import base, evaluate, forest, metrics, preprocessing, tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import river_forests  # noqa: E402
from river_forests.evaluation import STREAMS, load_stream, markdown_table, show_progress  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SEED = 42
TREES = 10
QUICK_N = 3_000  # 5,000 took 11 min with the full run and two builds competing for the 2 cores
CURVE_POINTS = 50
MEMORY_POINTS = 10

STATIONARY = [
    "phishing", "bananas", "imagesegments", "elec", "covtype", "randomrbf", "agrawal", "stagger",
]
DRIFTING = ["agrawal-abrupt", "sea-drift", "randomrbf-drift", "led-drift", "hyperplane-drift"]
REGRESSION = ["trumpapproval", "friedman", "friedman-drift"]
LENGTHS = {"covtype": 200_000}  # full-run lengths that differ from the stream's default

TITLES = {
    "phishing": "Phishing", "bananas": "Bananas", "imagesegments": "ImageSegments",
    "elec": "Electricity (elec.csv)", "covtype": "Covertype (first 200,000 rows)",
    "randomrbf": "RandomRBF", "agrawal": "Agrawal (function 0)", "stagger": "STAGGER (concept 0)",
    "agrawal-abrupt": "Agrawal, abrupt drift",
    "sea-drift": "SEA, gradual drifts", "randomrbf-drift": "RandomRBFDrift",
    "led-drift": "LEDDrift", "hyperplane-drift": "Hyperplane with drift",
    "trumpapproval": "TrumpApproval", "friedman": "Friedman", "friedman-drift": "FriedmanDrift",
}


RIVER_SHORT = {
    "HoeffdingTreeClassifier": "HT", "HoeffdingAdaptiveTreeClassifier": "HAT",
    "ExtremelyFastDecisionTreeClassifier": "EFDT", "ARFClassifier": "ARF", "AMFClassifier": "AMF",
    "HoeffdingTreeRegressor": "HT", "HoeffdingAdaptiveTreeRegressor": "HAT", "ARFRegressor": "ARF",
    "AMFRegressor": "AMF", "OXTRegressor": "OXT",
}


def short(model: str) -> str:
    """A column title: river's usual abbreviations; ours without the Classifier/Regressor tail."""
    if model in RIVER_SHORT:
        return RIVER_SHORT[model]
    return model.removesuffix("Classifier").removesuffix("Regressor") + " (ours)"


def ours(task: str) -> dict:
    """Every estimator the package exports for this task, default parameters, 10 trees."""
    kind = base.Classifier if task == "clf" else base.Regressor
    found = {}
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if isinstance(cls, type) and issubclass(cls, kind):
            found[name] = lambda cls=cls: cls(n_estimators=TREES, seed=SEED)
    return found


def rivers(task: str) -> dict:
    if task == "clf":
        return {
            "HoeffdingTreeClassifier": lambda: tree.HoeffdingTreeClassifier(),
            "HoeffdingAdaptiveTreeClassifier": lambda: tree.HoeffdingAdaptiveTreeClassifier(seed=SEED),
            "ExtremelyFastDecisionTreeClassifier": lambda: tree.ExtremelyFastDecisionTreeClassifier(),
            "ARFClassifier": lambda: forest.ARFClassifier(n_models=TREES, seed=SEED),
            "AMFClassifier": lambda: forest.AMFClassifier(n_estimators=TREES, seed=SEED),
        }
    scaled = preprocessing.StandardScaler
    return {
        "HoeffdingTreeRegressor": lambda: scaled() | tree.HoeffdingTreeRegressor(),
        "HoeffdingAdaptiveTreeRegressor": lambda: scaled() | tree.HoeffdingAdaptiveTreeRegressor(seed=SEED),
        "ARFRegressor": lambda: scaled() | forest.ARFRegressor(n_models=TREES, seed=SEED),
        "AMFRegressor": lambda: scaled() | forest.AMFRegressor(n_estimators=TREES, seed=SEED),
        "OXTRegressor": lambda: scaled() | forest.OXTRegressor(n_models=TREES, seed=SEED),
    }


def run_one(model, data: list, metric, label: str, progress=sys.stderr) -> dict:
    """Progressive validation with river's iterator; the clock stops while we measure memory."""
    n = len(data)
    step = max(n // CURVE_POINTS, 1)
    memory_every = max(CURVE_POINTS // MEMORY_POINTS, 1)
    steps = evaluate.iter_progressive_val_score(dataset=data, model=model, metric=metric, step=step)
    spent, peak, curve = 0.0, 0, []
    resumed = time.perf_counter()
    for k, state in enumerate(steps):
        spent += time.perf_counter() - resumed
        seen = state["Step"]
        curve.append((seen, metric.get()))
        if k % memory_every == 0 or seen == n:
            peak = max(peak, model._raw_memory_usage)
        if progress is not None:
            show_progress(label, seen, n, metric, spent, progress)
        resumed = time.perf_counter()
    return {
        "model": label,
        "n": n,
        "value": metric.get(),
        "seconds": spent,
        "samples_per_s": n / spent if spent > 0 else float("inf"),
        "peak_memory": peak,
        "curve": curve,
    }


def run_stream(name: str, quick: bool, progress=sys.stderr) -> dict:
    task = STREAMS[name][0]
    n = QUICK_N if quick else LENGTHS.get(name)
    data = load_stream(name, n)
    if progress is not None:
        print(f"{name}: {len(data)} samples", file=progress)
    results = []
    for label, make in {**ours(task), **rivers(task)}.items():
        metric = metrics.Accuracy() if task == "clf" else metrics.MAE()
        results.append(run_one(make(), data, metric, label, progress))
    return {
        "stream": name,
        "task": task,
        "n": len(data),
        "metric": "accuracy" if task == "clf" else "MAE",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "results": results,
    }


def reference(stream: dict, prefix: str) -> dict:
    """river's ARF or AMF (classifier or regressor) in this stream's run."""
    return next(r for r in stream["results"] if r["model"].startswith(prefix))


def table_rows(stream: dict) -> list[dict]:
    arf, amf = reference(stream, "ARF"), reference(stream, "AMF")
    return [{
        "stream": stream["stream"],
        "n": stream["n"],
        "model": r["model"],
        "metric": stream["metric"],
        "value": round(r["value"], 4),
        "samples_per_s": round(r["samples_per_s"]),
        "speed_vs_arf": round(r["samples_per_s"] / arf["samples_per_s"], 2),
        "speed_vs_amf": round(r["samples_per_s"] / amf["samples_per_s"], 2),
        "peak_memory_mb": round(r["peak_memory"] / 2**20, 2),
    } for r in stream["results"]]


def plot(stream: dict, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    mine = set(river_forests.__all__)
    for r in stream["results"]:
        steps, values = zip(*r["curve"])
        own = r["model"] in mine
        ax.plot(steps, values, label=r["model"] + ("" if own else " (river)"),
                linewidth=2.2 if own else 1.2, linestyle="-" if own else "--")
    ax.set_xlabel("samples seen")
    ax.set_ylabel(f"{stream['metric']} (progressive)")
    ax.set_title(f"{TITLES.get(stream['stream'], stream['stream'])}, {stream['n']:,} samples")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_summary(out: Path, quick: bool, order: list[str]):
    """results.csv and results.md from every <stream>.json present, in suite order."""
    streams = [json.loads((out / f"{s}.json").read_text()) for s in order if (out / f"{s}.json").exists()]
    if not streams:
        return
    rows = [row for s in streams for row in table_rows(s)]
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    command = "python benchmarks/suite.py" + (" --quick" if quick else "")
    lines = [
        f"# Benchmark suite{' (quick)' if quick else ''}",
        "",
        f"Produced by `{command}` ({streams[0]['machine']}). Progressive validation with "
        f"`river.evaluate.iter_progressive_val_score`; forests have {TREES} trees, seed {SEED}, "
        "default parameters otherwise; river's regressors behind a StandardScaler. Column "
        "titles: HT, HAT, EFDT = river's Hoeffding, Hoeffding adaptive and extremely fast "
        "decision trees; ARF, AMF, OXT = river's adaptive random, Aggregated Mondrian and "
        "online extra trees forests. Speeds (**x ARF**, **x AMF**) are samples/s divided by "
        "river's ARF's or AMF's, measured on the same stream in the same run; the harness's own cost "
        "per sample is included for every model, so these ratios understate the gap. Peak "
        "memory is river's `_raw_memory_usage`, the largest of eleven samples along the stream.",
        "",
    ]
    for task, title in (("clf", "Classification: accuracy"), ("reg", "Regression: MAE")):
        group = [s for s in streams if s["task"] == task]
        if not group:
            continue
        models = [short(r["model"]) for r in group[0]["results"]]
        lines += [f"## {title} (higher is better)" if task == "clf" else f"## {title} (lower is better)", ""]
        lines += markdown_table(
            ["stream", "n", *models],
            [[s["stream"], s["n"], *(_best(s, r) for r in s["results"])] for s in group],
        )
        lines += ["", "Speed: samples/s as a multiple of river's ARF's (same runs):", ""]
        arf = {s["stream"]: reference(s, "ARF")["samples_per_s"] for s in group}
        lines += markdown_table(
            ["stream", *models],
            [[s["stream"], *(f"{r['samples_per_s'] / arf[s['stream']]:.2f}" for r in s["results"])]
             for s in group],
        )
        lines += ["", "Peak memory (MB):", ""]
        lines += markdown_table(
            ["stream", *models],
            [[s["stream"], *(f"{r['peak_memory'] / 2**20:.2f}" for r in s["results"])] for s in group],
        )
        lines.append("")
    lines += ["## Every stream", ""]
    for s in streams:
        lines += [f"### {TITLES.get(s['stream'], s['stream'])}", "", f"![{s['stream']}]({s['stream']}.png)", ""]
        cols = ["model", s["metric"], "samples/s", "x ARF", "x AMF", "peak memory (MB)"]
        lines += markdown_table(cols, [
            [r["model"], f"{r['value']:.4f}", f"{r['samples_per_s']:,}", r["speed_vs_arf"],
             r["speed_vs_amf"], r["peak_memory_mb"]] for r in table_rows(s)
        ])
        lines.append("")
    (out / "results.md").write_text("\n".join(lines))


def _best(stream: dict, result: dict) -> str:
    """The value, in bold when it is the best of the stream."""
    values = [r["value"] for r in stream["results"]]
    best = max(values) if stream["task"] == "clf" else min(values)
    text = f"{result['value']:.4f}"
    return f"**{text}**" if result["value"] == best else text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help=f"every stream cut to {QUICK_N:,} samples")
    parser.add_argument("--streams", nargs="+", choices=STATIONARY + DRIFTING + REGRESSION,
                        help="run only these streams")
    parser.add_argument("--force", action="store_true", help="recompute streams already recorded")
    parser.add_argument("--out", type=Path, help="output folder (default benchmarks/results/suite[-quick])")
    args = parser.parse_args(argv)
    order = STATIONARY + DRIFTING + REGRESSION
    out = args.out or RESULTS / ("suite-quick" if args.quick else "suite")
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for name in args.streams or order:
        record = out / f"{name}.json"
        if record.exists() and not args.force:
            print(f"{name}: recorded already (--force to recompute)", file=sys.stderr)
            continue
        stream = run_stream(name, args.quick)
        record.write_text(json.dumps(stream))
        plot(stream, out / f"{name}.png")
        write_summary(out, args.quick, order)
    write_summary(out, args.quick, order)
    print(f"done in {time.perf_counter() - started:.0f} s; see {out / 'results.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
