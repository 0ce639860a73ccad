"""The benchmark suite: every forest of the package against river's trees and forests.

    python benchmarks/suite.py --quick      # every stream cut to 3,000 samples, < 10 minutes
    python benchmarks/suite.py              # full lengths: hours (river's forests are slow)
    python benchmarks/suite.py --streams elec bananas --force   # some streams again
    python benchmarks/suite.py --n 20000 --streams agrawal-abrupt sea-drift --out DIR   # shorter

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

On the drifting classification streams every forest of ours also runs with drift adaptation,
with the detectors river's ARF uses by default (``drift_detector=drift.ADWIN(delta=0.001),
warning_detector=drift.ADWIN(delta=0.01)``), labelled ``<class> + ADWIN``; their records hold
the drifts and warnings per tree and a summary of where the drifts were detected (the first
positions per tree, counts per tenth of the stream and, on streams with known drift points,
how many trees detected each drift and how late). Every model's record on those streams also
has a windowed prequential accuracy (the last ``WINDOW`` samples, ``WINDOW_POINTS`` points
along the stream), plotted around each known drift point (``DRIFT_POINTS``), or along the
whole stream for the streams that drift continuously, in ``<stream>-window.png``.

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
(learning curves: the metric against samples seen, every model on one plot); on a drifting
stream also ``<stream>-window.png`` (windowed accuracy around the drifts). ``--n N`` cuts every
stream to N samples (the drift points stay at their fractions of the stream).
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from river import base, drift, forest, metrics, preprocessing, tree

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

#: drifting streams: known drift points as (position, width) for a stream of n samples, as
#: ``evaluation.STREAMS`` places them (SEA's second change sits n/3 samples into the second
#: concept's stream, which starts at n/3); the other drifting streams move continuously
#: (RandomRBFDrift's centroids, Hyperplane's weights) or not at all over time (river's LEDDrift
#: swaps its features once, when the stream starts): plotted along the whole stream
DRIFT_POINTS = {
    "agrawal-abrupt": lambda n: [(n // 2, max(n // 200, 1))],
    "sea-drift": lambda n: [(n // 3, max(n // 20, 1)), (2 * n // 3, max(n // 20, 1))],
}
WINDOW = 1_000  # windowed accuracy: the last WINDOW samples (n/20 for shorter streams)
WINDOW_POINTS = 500  # points of the windowed curve along the stream
ADAPTIVE_TAG = " + ADWIN"  # label of a forest of ours with the recommended detectors
FIRST_DRIFTS = 5  # drift positions kept per tree in a record

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
    """A column title: river's usual abbreviations; ours without the Classifier/Regressor tail
    (an adaptive variant keeps its tag: "MondrianForest + ADWIN (ours)")."""
    if model in RIVER_SHORT:
        return RIVER_SHORT[model]
    name, tag = (model[:-len(ADAPTIVE_TAG)], ADAPTIVE_TAG) if model.endswith(ADAPTIVE_TAG) else (model, "")
    return name.removesuffix("Classifier").removesuffix("Regressor") + tag + " (ours)"


def is_ours(model: str) -> bool:
    return model.removesuffix(ADAPTIVE_TAG) in river_forests.__all__


def adaptive(task: str) -> dict:
    """Every estimator of ours for this task with drift adaptation: the detectors river's ARF
    uses by default, ADWIN(delta=0.001) for drifts and ADWIN(delta=0.01) for warnings (each
    tree gets its own copies); 10 trees, seed 42, default parameters otherwise."""
    kind = base.Classifier if task == "clf" else base.Regressor
    found = {}
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if isinstance(cls, type) and issubclass(cls, kind):
            found[name + ADAPTIVE_TAG] = lambda cls=cls: cls(
                n_estimators=TREES, seed=SEED, drift_detector=drift.ADWIN(delta=0.001),
                warning_detector=drift.ADWIN(delta=0.01))
    return found


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


class Windowed:
    """A metric that also keeps its value over the last `window` samples scored (accuracy or
    mean absolute error: the mean of the per-sample scores in the window). Updated outside the
    clock, like the metric it wraps."""

    def __init__(self, metric, window: int):
        self.metric = metric
        self.accuracy = isinstance(metric, metrics.Accuracy)
        self.scores = collections.deque(maxlen=window)
        self.total = 0.0

    def update(self, y_true, y_pred):
        self.metric.update(y_true, y_pred)
        score = float(y_true == y_pred) if self.accuracy else abs(y_true - y_pred)
        if len(self.scores) == self.scores.maxlen:
            self.total -= self.scores[0]
        self.scores.append(score)
        self.total += score

    def windowed(self) -> float | None:
        return self.total / len(self.scores) if self.scores else None

    def get(self):
        return self.metric.get()

    def __str__(self):
        return str(self.metric)


def window_for(n: int) -> int:
    """The window of the windowed accuracy: WINDOW samples, n/20 for a stream shorter than
    20 x WINDOW (a quick run)."""
    return max(min(WINDOW, n // 20), 1)


def run_one(model, data: list, metric, label: str, progress=sys.stderr, stream: str | None = None) -> dict:
    """Progressive validation with ``progressive_run``'s loop, so a batch-native model is fed
    mini-batches as in the command line; only the model's own calls are timed, and memory is
    measured between two points of the curve. (Not ``progressive_run`` itself: it pickles the
    model at the end, which for river's AMF after 200,000 Covertype rows means gigabytes.)
    On a drifting stream (`stream` in DRIFTING) the record also has the windowed metric along
    the stream and, for a model with drift detectors, where they fired (``drift_summary``)."""
    n = len(data)
    step = max(n // CURVE_POINTS, 1)
    memory_every = max(CURVE_POINTS // MEMORY_POINTS, 1)
    mode = run_mode(model)
    drifting = stream in DRIFTING
    if drifting:
        metric = Windowed(metric, window_for(n))
        every = max(n // WINDOW_POINTS, 1)
    else:
        every = step
    spent, peak, curve, window, last = 0.0, 0, [], [], 0
    for seen, spent in iter_progressive_run(model, data, metric, every=every):
        if drifting and metric.windowed() is not None:
            window.append((seen, round(metric.windowed(), 4)))
        if seen // step > last // step or seen == n:
            if len(curve) % memory_every == 0 or seen == n:
                peak = max(peak, model._raw_memory_usage)
            curve.append((seen, metric.get()))
        if progress is not None:
            show_progress(label, seen, n, metric, spent, progress, since=last)
        last = seen
    record = {
        "model": label,
        "n": n,
        "mode": mode,
        "value": metric.get(),
        "seconds": spent,
        "samples_per_s": n / spent if spent > 0 else float("inf"),
        "peak_memory": peak,
        "curve": curve,
    }
    if drifting:
        record["window"] = {"size": metric.scores.maxlen, "curve": window}
    if hasattr(model, "drift_log") and model.drift_detector is not None:  # ours, adaptive
        record["drift"] = drift_summary(model, n, stream)
    return record


def drift_summary(model, n: int, stream: str | None) -> dict:
    """What a model's detectors did, kept short: drifts and warnings per tree, the first
    FIRST_DRIFTS drift positions of each tree, the drifts per tenth of the stream and, for each
    known drift point of the stream, how many trees detected a drift between its start and n/10
    samples after it (and the median delay of their first detection after the start). Positions
    count samples from 1. The detector settings are recorded too."""
    log = model.drift_log
    per_tree = model.drifts_per_tree
    first = [[] for _ in per_tree]
    for position, tree_index in log:
        if len(first[tree_index]) < FIRST_DRIFTS:
            first[tree_index].append(position)
    tenths = [0] * 10
    for position, _ in log:
        tenths[min((position - 1) * 10 // n, 9)] += 1
    known = []
    for point, width in DRIFT_POINTS.get(stream, lambda n: [])(n):
        start, end = point - width // 2, point + n // 10
        delays = {}
        for position, tree_index in log:
            if start <= position <= end and tree_index not in delays:
                delays[tree_index] = position - start
        ordered = sorted(delays.values())
        known.append({
            "point": point, "width": width, "trees": len(delays),
            "median_delay": ordered[len(ordered) // 2] if ordered else None,
        })
    return {
        "detectors": {"drift_detector": repr(model.drift_detector),
                      "warning_detector": repr(model.warning_detector)},
        "drifts_per_tree": per_tree,
        "warnings_per_tree": model.warnings_per_tree,
        "total": sum(per_tree),
        # drift_log keeps the last DRIFT_LOG drifts: past that, the oldest are gone
        "logged": len(log),
        "first_positions": first,
        "per_tenth": tenths,
        "known": known,
    }


def run_stream(name: str, quick: bool, progress=sys.stderr, n: int | None = None,
               code: str | None = None) -> dict:
    task = STREAMS[name][0]
    n = QUICK_N if quick else (n or LENGTHS.get(name))
    data = load_stream(name, n)
    if progress is not None:
        print(f"{name}: {len(data)} samples", file=progress)
    results = []
    models = {**ours(task), **(adaptive(task) if name in DRIFTING else {}), **rivers(task)}
    for label, make in models.items():
        metric = metrics.Accuracy() if task == "clf" else metrics.MAE()
        results.append(run_one(make(), data, metric, label, progress, stream=name))
    return {
        "stream": name,
        "task": task,
        "n": len(data),
        "metric": "accuracy" if task == "clf" else "MAE",
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "code": code or code_version(),
        "harness": HARNESS,
        "results": results,
    }


def code_version() -> str:
    """The package's git commit, its files that differ from it (if any), and when its newest
    file (module or compiled extension) was written. Taken when a run starts: a process keeps
    the code it imported, whatever changes on disk afterwards."""
    root = Path(__file__).resolve().parents[1]
    newest = max((f.stat().st_mtime for f in (root / "river_forests").rglob("*")
                  if f.suffix in (".py", ".so")), default=0)
    written = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(newest))
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "river_forests"],
                               capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return f"git unknown, package files written up to {written}"
    dirty = [line[3:] for line in dirty if line.strip() and not line.endswith((".c", ".so"))]
    return (f"git {head}" + (f", uncommitted changes to {', '.join(dirty)}" if dirty else "")
            + f", package files written up to {written}")


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
    if len(stream["results"]) > 10:  # the drifting streams: 15 models, tab10 would repeat
        ax.set_prop_cycle(color=plt.get_cmap("tab20").colors)
    for r in stream["results"]:
        steps, values = zip(*r["curve"])
        own = is_ours(r["model"])
        fed = "" if r.get("mode", "one") == "one" else f" [{r['mode']}]"
        style = "-." if r["model"].endswith(ADAPTIVE_TAG) else "-" if own else "--"
        ax.plot(steps, values, label=r["model"] + ("" if own else " (river)") + fed,
                linewidth=2.2 if own else 1.2, linestyle=style)
    ax.set_xlabel("samples seen")
    ax.set_ylabel(f"{stream['metric']} (progressive)")
    ax.set_title(f"{TITLES.get(stream['stream'], stream['stream'])}, {stream['n']:,} samples")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7 if len(stream["results"]) <= 10 else 5.5, loc="best")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def window_models(stream: dict) -> list[dict]:
    """The models of the windowed plot: river's ARF, HAT and HT, our Mondrian forest without
    and with drift adaptation, and our best adaptive forest on this stream (if another)."""
    by_name = {r["model"]: r for r in stream["results"] if "window" in r}
    wanted = ["ARFClassifier", "HoeffdingAdaptiveTreeClassifier", "HoeffdingTreeClassifier",
              "MondrianForestClassifier", "MondrianForestClassifier" + ADAPTIVE_TAG]
    best = best_adaptive(stream)
    if best is not None and best["model"] not in wanted:
        wanted.append(best["model"])
    return [by_name[m] for m in wanted if m in by_name]


def best_adaptive(stream: dict) -> dict | None:
    """Our adaptive forest with the best final metric on this stream."""
    mine = [r for r in stream["results"] if r["model"].endswith(ADAPTIVE_TAG)]
    if not mine:
        return None
    pick = max if stream["task"] == "clf" else min
    return pick(mine, key=lambda r: r["value"])


def plot_window(stream: dict, path: Path) -> bool:
    """The windowed metric around each known drift point of the stream (a panel per point,
    n/6 samples either side, the transition shaded), or along the whole stream when it has no
    known points; ticks at the bottom mark where the adaptive forests' trees were replaced
    (their first positions per tree). False (nothing written) if no record has a window."""
    chosen = window_models(stream)
    if not chosen:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = stream["n"]
    points = DRIFT_POINTS.get(stream["stream"], lambda n: [])(n)
    spans = [(max(p - n // 6, 0), min(p + n // 6, n)) for p, _ in points] or [(0, n)]
    fig, axes = plt.subplots(1, len(spans), figsize=(7.5 if len(spans) == 1 else 10, 4.8), dpi=100,
                             squeeze=False, sharey=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    size = chosen[0]["window"]["size"]
    for k, (ax, (lo, hi)) in enumerate(zip(axes[0], spans)):
        for j, r in enumerate(chosen):
            own = is_ours(r["model"])
            adaptive_model = r["model"].endswith(ADAPTIVE_TAG)
            shown = [(s, v) for s, v in r["window"]["curve"] if lo <= s <= hi]
            if not shown:
                continue
            xs, ys = zip(*shown)
            label = (short(r["model"]) if own else short(r["model"]) + " (river)") + f": {r['value']:.3f}"
            ax.plot(xs, ys, color=colours[j % len(colours)], label=label,
                    linewidth=2.0 if own else 1.3, linestyle="-." if adaptive_model else "-" if own else "--")
            if adaptive_model:
                ticks = [p for tree in r["drift"]["first_positions"] for p in tree if lo <= p <= hi]
                ax.plot(ticks, [0.02 + 0.035 * (j % 3)] * len(ticks), "|", color=colours[j % len(colours)],
                        markersize=8, transform=ax.get_xaxis_transform())
        if points:
            p, width = points[k]
            ax.axvline(p, color="black", linewidth=0.8)
            ax.axvspan(p - width / 2, p + width / 2, color="grey", alpha=0.2)
            ax.set_title(f"drift at {p:,}", fontsize=9)
        ax.set_xlim(lo, hi)
        ax.set_xlabel("samples seen")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(f"{stream['metric']}, last {size:,} samples")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7,
               title=f"{stream['metric']} over the whole stream; ticks at the bottom: trees replaced "
                     "by the adaptive forests (first positions per tree)", title_fontsize=7)
    fig.suptitle(f"{TITLES.get(stream['stream'], stream['stream'])}, {n:,} samples: "
                 f"{stream['metric']} over the last {size:,} samples", fontsize=10)
    fig.tight_layout(rect=(0, 0.17, 1, 1))
    fig.savefig(path)
    plt.close(fig)
    return True


def drift_lines(stream: dict) -> list[str]:
    """The drift section of a stream in results.md: what each adaptive forest's detectors did."""
    adaptive_results = [r for r in stream["results"] if "drift" in r]
    if not adaptive_results:
        return []
    points = DRIFT_POINTS.get(stream["stream"], lambda n: [])(stream["n"])
    lines = [
        "Drift adaptation (our forests with `drift_detector=ADWIN(delta=0.001)`, "
        "`warning_detector=ADWIN(delta=0.01)`): drifts detected (each replaced a tree) and "
        "warnings (each started a background tree), in total and per tree; the first drift of "
        "each tree (sample position, - for none); drifts per tenth of the stream"
        + ("; for each known drift point, the trees that detected a drift between the start "
           "of the transition and n/10 samples after the point, and the median delay of their "
           "first detection after the start" if points else "") + ":",
        "",
    ]
    header = ["model", "accuracy" if stream["task"] == "clf" else stream["metric"], "drifts",
              "per tree", "warnings", "first drift per tree", "per tenth"]
    header += [f"drift at {p:,}: trees, delay" for p, _ in points]
    rows = []
    for r in adaptive_results:
        d = r["drift"]
        firsts = " ".join(f"{t[0]:,}" if t else "-" for t in d["first_positions"])
        row = [short(r["model"]), f"{r['value']:.4f}", f"{d['total']:,}",
               " ".join(map(str, d["drifts_per_tree"])), f"{sum(d['warnings_per_tree']):,}",
               firsts, " ".join(map(str, d["per_tenth"]))]
        row += [f"{k['trees']}/{len(d['drifts_per_tree'])}, "
                + ("-" if k["median_delay"] is None else f"{k['median_delay']:,}") for k in d["known"]]
        rows.append(row)
    lines += markdown_table(header, rows)
    if any(r["drift"]["logged"] < r["drift"]["total"] for r in adaptive_results):
        lines += ["", "Where a model detected more drifts than its `drift_log` keeps (the last "
                  "1,000), the first positions and tenths count the logged ones only."]
    return lines


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
        f"Produced by `{command}` ({streams[0]['machine']}{_code_text(streams)}). "
        f"{_harness_text(streams)} Forests have {TREES} trees, seed {SEED}, "
        "default parameters otherwise; river's regressors behind a StandardScaler. Column "
        "titles: HT, HAT, EFDT = river's Hoeffding, Hoeffding adaptive and extremely fast "
        "decision trees; ARF, AMF, OXT = river's adaptive random, Aggregated Mondrian and "
        "online extra trees forests. Speeds (**x ARF**, **x AMF**) are samples/s divided by "
        "river's ARF's or AMF's, measured on the same stream in the same run. Peak "
        "memory is river's `_raw_memory_usage`, the largest of eleven samples along the stream."
        + (f" Titles ending in `{ADAPTIVE_TAG} (ours)`: our forest with drift adaptation, "
           "`drift_detector=drift.ADWIN(delta=0.001), warning_detector=drift.ADWIN(delta=0.01)` "
           "(river's ARF's defaults), run on the drifting streams; each drifting stream's section "
           "below says what their detectors did and plots the windowed accuracy around its drifts."
           if any("drift" in r for st in streams for r in st["results"]) else ""),
        "",
    ]
    for task, title in (("clf", "Classification: accuracy"), ("reg", "Regression: MAE")):
        group = [s for s in streams if s["task"] == task]
        if not group:
            continue
        # every model of the group, in order of first appearance (the drifting streams have
        # our adaptive forests too): a stream without one has an empty cell
        names = list(dict.fromkeys(r["model"] for s in group for r in s["results"]))
        models = [short(m) for m in names]

        def cells(s, fmt):
            found = {r["model"]: r for r in s["results"]}
            return [fmt(found[m]) if m in found else "" for m in names]

        lines += [f"## {title} (higher is better)" if task == "clf" else f"## {title} (lower is better)", ""]
        lines += markdown_table(
            ["stream", "n", *models],
            [[s["stream"], s["n"], *cells(s, lambda r, s=s: _best(s, r))] for s in group],
        )
        note = batch_note(group)
        if note:
            lines += ["", note]
        lines += ["", "Speed: samples/s as a multiple of river's ARF's (same runs):", ""]
        arf = {s["stream"]: reference(s, "ARF")["samples_per_s"] for s in group}
        lines += markdown_table(
            ["stream", *models],
            [[s["stream"], *cells(s, lambda r, s=s: f"{r['samples_per_s'] / arf[s['stream']]:.2f}")]
             for s in group],
        )
        lines += ["", "Peak memory (MB):", ""]
        lines += markdown_table(
            ["stream", *models],
            [[s["stream"], *cells(s, lambda r: f"{r['peak_memory'] / 2**20:.2f}")] for s in group],
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
        drifts = drift_lines(s)
        if drifts:
            lines += [""] + drifts
        if (out / f"{s['stream']}-window.png").exists():
            lines += ["", f"![{s['stream']}, windowed]({s['stream']}-window.png)"]
        lines.append("")
    (out / "results.md").write_text("\n".join(lines))


def _code_text(streams: list[dict]) -> str:
    """The code the records were made with (records before the key have none: named, as made
    by earlier code, when others have one)."""
    codes = list(dict.fromkeys(s["code"] for s in streams if "code" in s))
    older = [s["stream"] for s in streams if "code" not in s]
    text = "; code " + ", ".join(codes) if codes else ""
    if codes and older:
        text += f"; the records of {', '.join(older)} were made by earlier code"
    return text


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
    parser.add_argument("--n", type=int, help="every stream cut to N samples (drift points stay at "
                        "their fractions of the stream); use with --out")
    parser.add_argument("--streams", nargs="+", choices=STATIONARY + DRIFTING + REGRESSION,
                        help="run only these streams")
    parser.add_argument("--force", action="store_true", help="recompute streams already recorded")
    parser.add_argument("--out", type=Path, help="output folder (default benchmarks/results/suite[-quick]); "
                        "its results.md names the command, with --streams and --out")
    args = parser.parse_args(argv)
    if args.n is not None and (args.quick or args.out is None):
        parser.error("--n needs --out (a folder of its own: the default folders hold one length) "
                     "and excludes --quick")
    order = STATIONARY + DRIFTING + REGRESSION
    out = args.out or RESULTS / ("suite-quick" if args.quick else "suite")
    out.mkdir(parents=True, exist_ok=True)
    command = None
    if args.out:
        # a folder of its own: results.md names the streams and folder it was run with
        shown = args.out.resolve()
        shown = shown.relative_to(Path.cwd()) if shown.is_relative_to(Path.cwd()) else shown
        command = ("python benchmarks/suite.py" + (" --quick" if args.quick else "")
                   + (f" --n {args.n}" if args.n else "")
                   + (" --streams " + " ".join(args.streams) if args.streams else "") + f" --out {shown}")
    started = time.perf_counter()
    code = code_version()  # the code this process imported (the package may change meanwhile)
    for name in args.streams or order:
        record = out / f"{name}.json"
        if record.exists() and not args.force:
            print(f"{name}: recorded already (--force to recompute)", file=sys.stderr)
            continue
        stream = run_stream(name, args.quick, n=args.n, code=code)
        if code_version() != code:
            print(f"WARNING: the package changed on disk since this run started ({code}; now "
                  f"{code_version()}): this process still runs the code it started with", file=sys.stderr)
        record.write_text(json.dumps(stream))
        plot(stream, out / f"{name}.png")
        plot_window(stream, out / f"{name}-window.png")
        write_summary(out, args.quick, order, command)
    write_summary(out, args.quick, order, command)
    print(f"done in {time.perf_counter() - started:.0f} s; see {out / 'results.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
