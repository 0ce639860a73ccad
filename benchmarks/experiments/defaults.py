"""Defaults chosen by rank on the benchmark's tuning half: every forest's candidates.

    python -m benchmarks experiment defaults            # every tuning-half stream of the forest's task
    python -m benchmarks experiment defaults --quick    # the first 2,000 samples of each
    python -m benchmarks experiment defaults --jobs 2   # in 2 processes

For every forest of ``river_forests.__all__``, a handful of candidate configurations (the
levers that decide how a forest grows: the lifetime's scale, the cut schedule, smoothing, the
fringe, the trees' replacement), 10 trees, seed 42, progressive validation (accuracy, or MAE
for a regressor) on every stream of the **tuning half** of the registry
(``benchmarks/streams.py``) of the forest's task, its long streams included. The rows:

* ``today``: the forest's defaults before this change, with the parameters that make them so;
* ``paper``: the paper's own configuration at the default memory budget (the docs list it,
  one line per forest);
* the other levers, each over the package's defaults.

**The choice rule** (``scores``). On each stream the candidates are ranked (1 is best, ties
share the mean rank) twice: by the metric over the stream's first 20,000 rows (a short stream
whole, a long one's start) and, on the long streams, by the metric over their last tenth (the
50,000 rows before the millionth, on a stream of a million). A candidate's score is the mean
of its two average ranks; the best score becomes the default (ties: the better mean metric).
Why: a default must serve the first thousand rows and the millionth. Counted once each among
some forty streams, six long ones would be outvoted by the short tables, and the defaults of
issue 29 were chosen that way; weighing the two halves of the question equally, neither can
be traded away. The regressors' half has no long stream yet: their score is the first rank.

One measurement is one (stream, forest) pair, its configurations one after the other in the
same process (samples/s comparable within a row only). Writes
``benchmarks/results/experiments/defaults.md`` and ``.csv`` (``_quick`` with ``--quick``).
``defaults_report`` runs the chosen defaults against ``today`` and ``paper`` on the report
half, to report.
"""

from __future__ import annotations

import time

NAME = "defaults"
HALF = "tuning"
N_ESTIMATORS = 10
SEED = 42
QUICK_N = 2_000
#: a stream longer than this is scored along its length too: its first SHORT rows stand for a
#: short stream (the metric there), its last LAST fraction for the long run (the metric over it)
SHORT = 20_000
LAST = 0.1
CURVE_STEP = 1_000

#: forest -> {label: params}, every label a candidate (its params over the package's defaults)
#: the purely random forest's candidates: the same for its classifier and its regressor
_PURELY_RANDOM = {
        "paper": {"split": "uniform", "growth_scale": 1.0, "growth_exponent": 0.5, "smoothing": 0.0},
        "today": {"growth_scale": 4.0, "split": "scale_invariant", "growth_exponent": 0.8},
        "scale-invariant, n^0.7": {"split": "scale_invariant", "growth_exponent": 0.7},
        "uniform, n^0.8": {"split": "uniform", "growth_exponent": 0.8},
}

#: issue 45 re-ranks the classifiers with the long streams in: the rows are ``today``, the
#: defaults of issue 29 (each a candidate, with the parameters that make it today's), the paper's configuration, and the levers that
#: decide how a forest grows on a long stream (the lifetime's scale, the cut schedule, the
#: fringe, the trees' replacement)
CANDIDATES = {
    "MondrianForestClassifier": {
        "today": {"growth_scale": 2.0},
        "paper": {"growth_scale": 1.0, "recycling": False, "smoothing": 0.0},
        "scale 8": {"growth_scale": 8.0},
        "scale 65536": {"growth_scale": 65536.0},
        "no recycling": {"growth_scale": 2.0, "recycling": False},
    },
    "MondrianForestRegressor": {
        "today": {"growth_scale": 0.5},
        "paper": {"growth_scale": 1.0, "recycling": False, "leaf_model": "mean", "smoothing": 0.0},
        "scale 2": {"growth_scale": 2.0},
        "scale 65536": {"growth_scale": 65536.0},
        "scale 0.5, mean leaves": {"growth_scale": 0.5, "leaf_model": "mean"},
        "scale 0.5, 16MB": {"growth_scale": 0.5, "memory_budget": "16MB"},
    },
    "PurelyRandomForestClassifier": _PURELY_RANDOM,
    "PurelyRandomForestRegressor": _PURELY_RANDOM,
    "BSPForestClassifier": {
        "today": {"growth_scale": 1.0, "smoothing": 0.5},
        "paper": {"growth_scale": 1.0, "smoothing": 0.0},
        "16MB, smoothing 0.5": {"memory_budget": "16MB", "smoothing": 0.5},
    },
    "BSPForestRegressor": {
        "today": {"growth_scale": 1.0, "smoothing": 0.0},
        "16MB": {"memory_budget": "16MB", "smoothing": 0.0},
    },
    "StreamPartitionForestClassifier": {
        "today": {"max_features": 17.0, "max_active_leaves": 256},
        "paper": {"max_features": 11.0, "candidate_points": 10, "alpha": 5.0, "beta": 10.0,
                  "aggregation": "vote", "smoothing": 0.0},
        "128 active leaves": {"max_features": 17.0, "max_active_leaves": 128},
        "auto fringe": {"max_features": 17.0, "max_active_leaves": "auto"},
    },
    "XForestClassifier": {
        "today": {"smoothing": 0.5},
        "paper": {"max_features": "sqrt", "batch_size": 100, "smoothing": 0.0},
        "half the features": {"max_features": 0.5, "smoothing": 0.0},
        "kept rows 4": {"kept_rows": 4},
        "kept rows 4, smoothing 0": {"kept_rows": 4, "smoothing": 0.0},
    },
}
#: rows of the long streams a forest runs on, where not all of them
LONG_ROWS: dict = {}
RECORD_ONLY: tuple = ()


def candidates(forest: str) -> list[str]:
    """The labels that may become the default (the paper's configuration competes too)."""
    return [k for k in CANDIDATES[forest] if k not in RECORD_ONLY]


def _streams(half: str, task: str, quick: bool) -> list:
    from benchmarks.streams import streams

    return [s for s in streams(task, half)][: 4 if quick else None]


def jobs(quick: bool, half: str = HALF, configs: dict | None = None) -> list[tuple[str, dict]]:
    import river_forests
    from river import base

    out = []
    for forest, cands in (configs or CANDIDATES).items():
        cls = getattr(river_forests, forest)
        task = "clf" if issubclass(cls, base.Classifier) else "reg"
        for s in _streams(half, task, quick):
            out.append((f"{s.name}-{forest}", {
                "stream": s.name, "n": min(s.n, QUICK_N if quick else LONG_ROWS.get(forest, s.n)),
                "forest": forest,
                "task": task, "configs": cands, "n_estimators": N_ESTIMATORS, "seed": SEED}))
    return out


def measure(params: dict) -> dict:
    import river_forests
    from river import metrics

    from benchmarks.streams import STREAMS
    from river_forests._progressive import iter_progressive_run

    data = params.get("data")  # rows a caller built (a stream continued past the registry's)
    if data is None:
        data = STREAMS[params["stream"]].samples(params["n"])
    cls = getattr(river_forests, params["forest"])
    long = len(data) > SHORT
    out = {}
    for label, extra in params["configs"].items():
        model = cls(n_estimators=params["n_estimators"], seed=params["seed"], **built(extra))
        metric = metrics.Accuracy() if params["task"] == "clf" else metrics.MAE()
        t0 = time.perf_counter()
        curve, spent, seen = [], 0.0, 0
        for seen, spent in iter_progressive_run(model, data, metric, CURVE_STEP if long else len(data)):
            curve.append([seen, float(metric.get()), _scored(metric)])
        out[label] = {"metric": float(metric.get()), "samples_per_s": seen / spent if spent else 0.0,
                      "memory": int(model._raw_memory_usage), "nodes": int(model.n_nodes),
                      "budget": model._budget_bytes, "wall": time.perf_counter() - t0}
        if long:
            out[label].update(short=_at(curve, SHORT), last=_window(curve, LAST), curve=curve)
    return {"n": len(data), "configs": out}


def built(params: dict) -> dict:
    """A candidate's parameters as the estimator takes them: a drift detector is named in the
    records (``"ADWIN(0.001)"``: ``river.drift.ADWIN(delta=0.001)``), a fresh one per model."""
    out = dict(params)
    for key in ("drift_detector", "warning_detector"):
        spec = out.get(key)
        if isinstance(spec, str):
            from river import drift

            name, _, arg = spec.partition("(")
            if name != "ADWIN":
                raise ValueError(f"unknown detector {spec!r}")
            out[key] = drift.ADWIN(delta=float(arg.rstrip(")")))
    return out


def _scored(metric) -> float:
    return float(metric.cm.total_weight if hasattr(metric, "cm") else metric._mean.n)


def _at(curve: list, n: int) -> float:
    """The cumulative metric at the first curve point at or past `n` rows."""
    return next(v for i, v, _ in curve if i >= n)


def _window(curve: list, fraction: float) -> float:
    """The metric over the last `fraction` of the stream (from the cumulative curve: the
    difference of the totals at its two ends over the rows scored between them)."""
    end_i, end_v, end_w = curve[-1]
    start = next(p for p in reversed(curve) if p[0] <= end_i * (1 - fraction))
    _, v, w = start
    return (end_v * end_w - v * w) / (end_w - w)


def _value(config: dict, field: str):
    """A configuration's metric for a rank: ``"metric"`` at the end of the stream, ``"short"``
    over its first ``SHORT`` rows (a short stream's end), ``"last"`` over its last tenth (long
    streams only: None on a short one)."""
    if field == "short":
        return config.get("short", config["metric"])
    return config.get(field)


def ranks_of(results: dict, forest: str, labels: list[str], higher_better: bool,
             field: str = "metric") -> tuple[dict, list]:
    """Average rank of each label by `field` (see `_value`) over the streams where every label
    was measured (and has that field), and those streams."""
    import numpy as np
    from scipy.stats import rankdata

    per = {label: [] for label in labels}
    streams = []
    for key, r in sorted(results.items()):
        if not key.endswith(f"-{forest}") or not all(lb in r["configs"] for lb in labels):
            continue
        values = [_value(r["configs"][lb], field) for lb in labels]
        if any(v is None for v in values):
            continue
        values = np.array(values)
        rk = rankdata(-values if higher_better else values)
        for lb, x in zip(labels, rk):
            per[lb].append(float(x))
        streams.append(key[: -len(forest) - 1])
    return {lb: float(np.mean(v)) if v else float("nan") for lb, v in per.items()}, streams


def scores(results: dict, forest: str, labels: list[str], higher_better: bool) -> tuple[dict, dict]:
    """The choice rule: each label's score is the mean of two average ranks, one over every
    stream of the half by its first ``SHORT`` rows (a short stream whole, a long one's start),
    one over the long streams by the metric of their last tenth, so that a default must serve
    a stream's first thousand rows and its millionth alike: counted once each among 40
    streams, six long streams would otherwise be outvoted by the short ones. Without long
    streams (the regressors' half, a quick run) the score is the first rank. Returns the
    scores and ``{"short": (ranks, streams), "last": (ranks, streams)}``."""
    short = ranks_of(results, forest, labels, higher_better, "short")
    last = ranks_of(results, forest, labels, higher_better, "last")
    if last[1]:
        score = {lb: (short[0][lb] + last[0][lb]) / 2 for lb in labels}
    else:
        score = dict(short[0])
    return score, {"short": short, "last": last}


def _table(results, forest, half, chosen_label=None, configs=None) -> tuple[list[str], str | None]:
    import numpy as np

    if configs is None:
        configs = CANDIDATES[forest] if half == "tuning" else REPORT_CONFIGS[forest]
    labels = list(configs)
    clf = "Classifier" in forest
    score, parts = scores(results, forest, labels, clf)
    short_rank, streams = parts["short"]
    last_rank, long_streams = parts["last"]
    cands = [lb for lb in labels if lb not in RECORD_ONLY] if half == "tuning" else labels
    cand_score, _ = scores(results, forest, cands, clf)

    def rows_of(lb, names):
        return [r["configs"][lb] for key, r in results.items() if key.endswith(f"-{forest}")
                and lb in r["configs"] and key[: -len(forest) - 1] in names]

    # ties: the better mean metric over the same streams
    mean = {lb: float(np.mean([x["metric"] for x in rows_of(lb, streams)])) for lb in cands} if streams else {}
    best = min(cands, key=lambda lb: (cand_score[lb], -mean[lb] if clf else mean[lb])) if streams else None
    what = "accuracy" if clf else "MAE"
    lines = [f"### {forest}", "",
             f"{len(streams)} streams of the {half} half, {len(long_streams)} of them long. Score: "
             "the mean of the rank by the first 20,000 rows (every stream) and the rank by the "
             "last tenth (the long streams), among all rows / among the candidates; mean "
             f"{what} at the end, over the first 20,000 rows and over the long streams' last "
             "tenth; memory (MB, 10^6 bytes, river's measure at the end) and the share of the "
             "budget it is on the long streams; samples/s.", "",
             "| configuration | params | rank, first 20k | rank, last tenth | score | score (candidates) "
             f"| mean {what} | first 20k | last tenth | mean MB | budget used, long | median samples/s |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for lb in sorted(labels, key=lambda k: score[k]):
        rows = rows_of(lb, streams)
        if not rows:
            continue
        longs = rows_of(lb, long_streams)
        metric = np.mean([x["metric"] for x in rows])
        first = np.mean([_value(x, "short") for x in rows])
        last = f"{np.mean([x['last'] for x in longs]):.4f}" if longs else "—"
        used = (f"{100 * np.mean([x['memory'] / x['budget'] for x in longs if x.get('budget')]):.0f}%"
                if any(x.get("budget") for x in longs) else "—")
        mem = np.mean([x["memory"] for x in rows]) / 1e6
        speed = np.median([x["samples_per_s"] for x in rows])
        mark = (" **(chosen)**" if lb == (chosen_label or best) else "") + (
            " (best here)" if chosen_label and lb == best and lb != chosen_label else "")
        cr = f"{cand_score[lb]:.2f}" if lb in cand_score else "—"
        lr = f"{last_rank[lb]:.2f}" if long_streams else "—"
        shown = f"{100 * metric:.2f}%" if clf else f"{metric:.4g}"
        lines.append(f"| {lb}{mark} | `{configs[lb]}` | {short_rank[lb]:.2f} | {lr} | {score[lb]:.2f} | "
                     f"{cr} | {shown} | {first:.4f} | {last} | {mem:.2f} | {used} | {speed:,.0f} |")
    return lines + [""], best


REPORT_CONFIGS: dict = {}


def _common_outputs(name: str, quick: bool):
    from benchmarks.experiments import _common

    return _common.outputs(name, quick)


def report(results: dict, quick: bool, half: str = HALF, name: str = NAME, forests: dict | None = None,
           title: str | None = None, intro: list[str] | None = None) -> None:
    from benchmarks.experiments import _common

    if forests is None:
        forests = CANDIDATES if half == "tuning" else REPORT_CONFIGS
    title = title or f"Defaults: {'candidates on the tuning' if half == 'tuning' else 'the chosen defaults on the report'} half"
    lines = [f"# {title}", "", *(intro or []),
             f"`python -m benchmarks experiment {name}{' --quick' if quick else ''}` "
             f"({'first 2,000 samples of 4 streams per task' if quick else 'every stream of the half'}); "
             f"10 trees, seed {SEED}; {_common.version_line()}; {_common.machine()}.", ""]
    chosen = {}
    for forest in forests:
        # the tuning half marks what it chose; the report half marks the package's defaults
        table, best = _table(results, forest, half, None if half == "tuning" else "defaults",
                             forests[forest])
        chosen[forest] = best
        lines += table
    if half == "tuning":
        lines += ["## Chosen", ""] + [f"- {f}: **{b}** `{forests[f].get(b)}`" for f, b in chosen.items()] + [""]
    md, _ = _common.outputs(name, quick)
    md.write_text("\n".join(lines) + "\n")
