"""The benchmark suite: every forest of the package against river's trees and forests.

    python benchmarks/suite.py --quick      # every stream cut to 3,000 samples, < 10 minutes
    python benchmarks/suite.py              # full lengths: hours (river's forests are slow)
    python benchmarks/suite.py --streams elec bananas --force   # some streams again

Every estimator exported by ``river_forests`` (default parameters, 10 trees, seed 42) runs
against river's HoeffdingTree, HoeffdingAdaptiveTree, ExtremelyFastDecisionTree, ARF (10
trees) and AMF (10 trees) classifiers, or HoeffdingTree, HoeffdingAdaptiveTree, ARF, AMF and
OXT regressors, with the loop of ``river_forests.evaluation.progressive_run`` (predict, then
learn, every sample, as ``river.evaluate.progressive_val_score`` does and scoring the same)
on:

- stationary classification: Phishing, Bananas, ImageSegments (bundled with river),
  ../shared/data/elec.csv, the first 200,000 rows of ../shared/data/covtype.csv.gz, RandomRBF,
  Agrawal and STAGGER (few informative features, where label-aware splits pay);
- drifting classification: Agrawal with an abrupt ConceptDriftStream, SEA with two gradual
  drifts, RandomRBFDrift, LEDDrift, Hyperplane with drift (100,000 samples each);
- regression: TrumpApproval, Friedman, FriedmanDrift.

river's regressors run behind a StandardScaler (their own docs do so; without it they diverge
on TrumpApproval's unscaled features); ours measure cells relative to the data range and need
none.

A forest whose natural interface is mini-batches (``evaluation.batch_native``: its
``learn_many`` is not a ``learn_one`` loop, e.g. XForest) is run as its users run it: each
chunk of its ``batch_size`` samples is predicted as a whole (``predict_proba_many`` /
``predict_many``), then learned (``learn_many``). Its record says so (``"mode": "batches of
100"``) and so does ``results.md``, under every table where it appears.

Measured per stream and model: accuracy (or MAE) at the end and along the stream, time spent
inside the model's own predict and learn calls (the stream, and a batch model's DataFrames, are
materialised in memory first; the metric and memory measurements are outside the clock), and
peak model memory (river's ``_raw_memory_usage``, sampled at ten points and at the end).
Throughput is reported as samples/s and as a ratio to river's ARF and AMF measured in the same
run. (Records written before the suite used this loop timed river's
``iter_progressive_val_score`` as a whole, the harness's per-sample cost included; their record
has no ``"harness"`` key, and ``results.md`` names those streams.)

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

from river import base, forest, metrics, preprocessing, tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import river_forests  # noqa: E402
from river_forests.evaluation import (  # noqa: E402
    STREAMS,
    iter_progressive_run,
    load_stream,
    markdown_table,
    run_mode,
    show_progress,
)

RESULTS = Path(__file__).resolve().parent / "results"
SEED = 42
TREES = 10
QUICK_N = 3_000  # 5,000 took 11 min with the full run and two builds competing for the 2 cores
CURVE_POINTS = 50
MEMORY_POINTS = 10
#: the loop the records were timed with (older records, without the key, timed river's
#: ``iter_progressive_val_score`` as a whole)
HARNESS = "progressive_run"

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
    """Progressive validation with ``progressive_run``'s loop, so a batch-native model is fed
    mini-batches as in the command line; only the model's own calls are timed, and memory is
    measured between two points of the curve. (Not ``progressive_run`` itself: it pickles the
    model at the end, which for river's AMF after 200,000 Covertype rows means gigabytes.)"""
    n = len(data)
    step = max(n // CURVE_POINTS, 1)
    memory_every = max(CURVE_POINTS // MEMORY_POINTS, 1)
    mode = run_mode(model)
    spent, peak, curve, last = 0.0, 0, [], 0
    for k, (seen, spent) in enumerate(iter_progressive_run(model, data, metric, every=step)):
        curve.append((seen, metric.get()))
        if k % memory_every == 0 or seen == n:
            peak = max(peak, model._raw_memory_usage)
        if progress is not None:
            show_progress(label, seen, n, metric, spent, progress, since=last)
        last = seen
    return {
        "model": label,
        "n": n,
        "mode": mode,
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
        "harness": HARNESS,
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
        "mode": r.get("mode", "one"),
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
        fed = "" if r.get("mode", "one") == "one" else f" [{r['mode']}]"
        ax.plot(steps, values, label=r["model"] + ("" if own else " (river)") + fed,
                linewidth=2.2 if own else 1.2, linestyle="-" if own else "--")
    ax.set_xlabel("samples seen")
    ax.set_ylabel(f"{stream['metric']} (progressive)")
    ax.set_title(f"{TITLES.get(stream['stream'], stream['stream'])}, {stream['n']:,} samples")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_summary(out: Path, quick: bool, order: list[str], command: str | None = None):
    """results.csv and results.md from every <stream>.json present, in suite order. `command`
    is the command line that results.md names (default: the suite's own, with --quick)."""
    streams = [json.loads((out / f"{s}.json").read_text()) for s in order if (out / f"{s}.json").exists()]
    if not streams:
        return
    rows = [row for s in streams for row in table_rows(s)]
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    command = command or "python benchmarks/suite.py" + (" --quick" if quick else "")
    lines = [
        f"# Benchmark suite{' (quick)' if quick else ''}",
        "",
        f"Produced by `{command}` ({streams[0]['machine']}). {_harness_text(streams)} Forests "
        f"have {TREES} trees, seed {SEED}, "
        "default parameters otherwise; river's regressors behind a StandardScaler. Column "
        "titles: HT, HAT, EFDT = river's Hoeffding, Hoeffding adaptive and extremely fast "
        "decision trees; ARF, AMF, OXT = river's adaptive random, Aggregated Mondrian and "
        "online extra trees forests. Speeds (**x ARF**, **x AMF**) are samples/s divided by "
        "river's ARF's or AMF's, measured on the same stream in the same run. Peak "
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
        note = batch_note(group)
        if note:
            lines += ["", note]
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
        note = batch_note([s], columns=False)
        if note:
            lines += ["", note]
        lines.append("")
    (out / "results.md").write_text("\n".join(lines))


def _harness_text(streams: list[dict]) -> str:
    """How the recorded streams were run and timed. Records without a ``"harness"`` key come
    from the suite's earlier loop (river's iterator, timed as a whole), whose speeds include the
    harness's own cost: said so, with their streams named, rather than mixed in silently."""
    current = ("Progressive validation (predict, then learn, as "
               "`river.evaluate.progressive_val_score` does, and scoring the same) with the loop "
               "of `river_forests.evaluation.progressive_run`: samples/s count only the time "
               "inside the model's own predict and learn calls.")
    earlier = ("Progressive validation with `river.evaluate.iter_progressive_val_score`, timed as "
               "a whole: the harness's own cost per sample is included for every model, so the "
               "speed ratios understate the gap.")
    old = [s["stream"] for s in streams if s.get("harness") != HARNESS]
    if not old:
        return current
    if len(old) == len(streams):
        return earlier
    return (f"{current} The records of {', '.join(old)} predate that loop: "
            + earlier[0].lower() + earlier[1:])


def batch_note(streams: list[dict], columns: bool = True) -> str | None:
    """The note under a table naming the models that were fed mini-batches (``learn_many``)
    and their batch size, or None if every model of these streams ran sample by sample. Such a
    model's numbers are those of its natural interface, not of a ``learn_one`` loop, and the
    reader of a table comparing it with per-sample models must know it. Model names as in the
    table: column titles (`columns`, see ``short``) or class names."""
    modes: dict[str, list[str]] = {}
    for s in streams:
        for r in s["results"]:
            mode = r.get("mode", "one")
            if mode != "one":
                name = short(r["model"]) if columns else r["model"]
                modes.setdefault(name, [])
                if mode not in modes[name]:
                    modes[name].append(mode)
    if not modes:
        return None
    which = "; ".join(f"{name}: {', '.join(m)}" for name, m in modes.items())
    return ("Fed in mini-batches through `learn_many` (" + which + "): these models learn from "
            "batches by design (their `learn_many` is not a `learn_one` loop), so each batch was "
            "predicted as a whole (`predict_proba_many` / `predict_many`), then learned. Every "
            "other model predicted, then learned, one sample at a time (`learn_one`).")


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
    parser.add_argument("--out", type=Path, help="output folder (default benchmarks/results/suite[-quick]); "
                        "its results.md names the command, with --streams and --out")
    args = parser.parse_args(argv)
    order = STATIONARY + DRIFTING + REGRESSION
    out = args.out or RESULTS / ("suite-quick" if args.quick else "suite")
    out.mkdir(parents=True, exist_ok=True)
    command = None
    if args.out:
        # a folder of its own: results.md names the streams and folder it was run with
        shown = args.out.resolve()
        shown = shown.relative_to(Path.cwd()) if shown.is_relative_to(Path.cwd()) else shown
        command = ("python benchmarks/suite.py" + (" --quick" if args.quick else "")
                   + (" --streams " + " ".join(args.streams) if args.streams else "") + f" --out {shown}")
    started = time.perf_counter()
    for name in args.streams or order:
        record = out / f"{name}.json"
        if record.exists() and not args.force:
            print(f"{name}: recorded already (--force to recompute)", file=sys.stderr)
            continue
        stream = run_stream(name, args.quick)
        record.write_text(json.dumps(stream))
        plot(stream, out / f"{name}.png")
        write_summary(out, args.quick, order, command)
    write_summary(out, args.quick, order, command)
    print(f"done in {time.perf_counter() - started:.0f} s; see {out / 'results.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
