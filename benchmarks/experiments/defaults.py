"""Defaults chosen by rank on the benchmark's tuning half: every forest's candidates.

    python -m benchmarks experiment defaults            # every tuning-half stream of the forest's task
    python -m benchmarks experiment defaults --quick    # the first 2,000 samples of each
    python -m benchmarks experiment defaults --jobs 2   # in 2 processes

For every forest of ``river_forests.__all__``, a handful of candidate configurations (the
levers the issue names: the growth constant against the budget, smoothing, the split rule,
features per split, the fringe, the batch), 10 trees, seed 42, progressive validation
(``river_forests._progressive.progressive_run``: accuracy, or MAE for a regressor) on every
stream of the **tuning half** of the registry (``benchmarks/streams.py``) of the forest's task.
Each candidate is ranked against the forest's other candidates on each stream (1 is best, ties
share the mean rank); the candidate of best average rank among those at the library's
memory budget becomes the default. Rows that are not candidates ride along for the record:

* ``today``: the forest's defaults before this change (``max_nodes`` as it was, no byte budget);
* ``paper``: the paper's own configuration at the default memory budget (the docs list it,
  one line per forest); where it is one of the candidates it is that row;
* ``before issue 17`` (Mondrian classifier only): ``growth_scale=2``, 4,095 nodes, frozen at
  the cap.

One measurement is one (stream, forest) pair, its configurations one after the other in the
same process (samples/s comparable within a row only). Writes
``benchmarks/results/experiments/defaults.md`` and ``.csv`` (``_quick`` with ``--quick``).
``defaults_report`` runs the chosen defaults against ``today``, ``paper`` and ``before issue
17`` on the report half, to report.
"""

from __future__ import annotations

import time

NAME = "defaults"
HALF = "tuning"
N_ESTIMATORS = 10
SEED = 42
QUICK_N = 2_000

#: forest -> {label: params}; "today", "paper" and "before issue 17" are kept for the record,
#: every other label is a candidate for the default (its params over the new defaults)
#: the purely random forest's candidates: the same for its classifier and its regressor
_PURELY_RANDOM = {
        "today": {"memory_budget": None, "max_nodes": 4095, "split": "uniform", "growth_exponent": 0.7},
        "paper": {"split": "uniform", "growth_scale": 1.0, "growth_exponent": 0.5, "smoothing": 0.0},
        "uniform, n^0.7": {"split": "uniform", "growth_exponent": 0.7},
        "uniform, n^0.8": {"split": "uniform", "growth_exponent": 0.8},
        "scale-invariant, n^0.7": {"split": "scale_invariant", "growth_exponent": 0.7},
        "scale-invariant, n^0.8": {"split": "scale_invariant", "growth_exponent": 0.8},
}

CANDIDATES = {
    "MondrianForestClassifier": {
        "today": {"memory_budget": None, "max_nodes": 1023, "growth_scale": 65536.0, "smoothing": 0.5},
        "before issue 17": {"memory_budget": None, "max_nodes": 4095, "growth_scale": 2.0,
                            "recycling": False},
        "paper": {"growth_scale": 1.0, "recycling": False, "smoothing": 0.0},
        "scale 65536": {"growth_scale": 65536.0},
        "scale 16": {"growth_scale": 16.0},
        "scale 2": {"growth_scale": 2.0},
        "scale 65536, smoothing 2": {"growth_scale": 65536.0, "smoothing": 2.0},
    },
    "MondrianForestRegressor": {
        "today": {"memory_budget": None, "max_nodes": 1023, "growth_scale": 0.5},
        "paper": {"growth_scale": 1.0, "recycling": False, "leaf_model": "mean", "smoothing": 0.0},
        "scale 0.5": {"growth_scale": 0.5},
        "scale 2": {"growth_scale": 2.0},
        "scale 65536": {"growth_scale": 65536.0},
        "scale 0.5, mean leaves": {"growth_scale": 0.5, "leaf_model": "mean"},
        "scale 0.5, 4MB": {"growth_scale": 0.5, "memory_budget": "4MB"},
    },
    "PurelyRandomForestClassifier": _PURELY_RANDOM,
    "PurelyRandomForestRegressor": _PURELY_RANDOM,
    "BSPForestClassifier": {
        "today": {"memory_budget": None, "max_nodes": 4095, "smoothing": 0.0},
        "paper": {"growth_scale": 1.0, "smoothing": 0.0},
        "smoothing 0.5": {"growth_scale": 1.0, "smoothing": 0.5},
        "16MB": {"memory_budget": "16MB", "smoothing": 0.0},
        "16MB, smoothing 0.5": {"memory_budget": "16MB", "smoothing": 0.5},
    },
    "BSPForestRegressor": {
        "today": {"memory_budget": None, "max_nodes": 4095, "smoothing": 0.0},
        "paper": {"growth_scale": 1.0, "smoothing": 0.0},
        "16MB": {"memory_budget": "16MB", "smoothing": 0.0},
    },
    "StreamPartitionForestClassifier": {
        "today": {"memory_budget": None, "max_nodes": 4095, "max_active_leaves": 128},
        "paper": {"max_features": 11.0, "candidate_points": 10, "alpha": 5.0, "beta": 10.0,
                  "aggregation": "vote", "smoothing": 0.0},
        "17 features": {"max_features": 17.0, "max_active_leaves": 128},
        "9 features": {"max_features": 9.0, "max_active_leaves": 128},
        "alpha 4": {"max_features": 17.0, "alpha": 4.0, "max_active_leaves": 128},
        "256 active leaves": {"max_features": 17.0, "max_active_leaves": 256},
    },
    "XForestClassifier": {
        "today": {"memory_budget": None, "max_nodes": 32767, "smoothing": 0.0},
        "paper": {"max_features": "sqrt", "batch_size": 100, "smoothing": 0.0},
        "half the features": {"max_features": 0.5, "smoothing": 0.0},
        "batch 50": {"batch_size": 50, "smoothing": 0.0},
        "smoothing 0.5": {"smoothing": 0.5},
    },
}
RECORD_ONLY = ("today", "before issue 17")


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
                "stream": s.name, "n": min(s.n, QUICK_N) if quick else s.n, "forest": forest,
                "task": task, "configs": cands, "n_estimators": N_ESTIMATORS, "seed": SEED}))
    return out


def measure(params: dict) -> dict:
    import river_forests
    from river import metrics

    from benchmarks.streams import STREAMS
    from river_forests._progressive import progressive_run

    data = STREAMS[params["stream"]].samples(params["n"])
    cls = getattr(river_forests, params["forest"])
    out = {}
    for label, extra in params["configs"].items():
        model = cls(n_estimators=params["n_estimators"], seed=params["seed"], **extra)
        metric = metrics.Accuracy() if params["task"] == "clf" else metrics.MAE()
        t0 = time.perf_counter()
        r = progressive_run(model, data, metric)
        out[label] = {"metric": float(r.metric), "samples_per_s": float(r.samples_per_s),
                      "memory": int(model._raw_memory_usage), "nodes": int(model.n_nodes),
                      "wall": time.perf_counter() - t0}
    return {"n": len(data), "configs": out}


def ranks_of(results: dict, forest: str, labels: list[str], higher_better: bool) -> tuple[dict, list]:
    """Average rank of each label over the streams where every label was measured, and those
    streams."""
    import numpy as np
    from scipy.stats import rankdata

    per = {label: [] for label in labels}
    streams = []
    for key, r in sorted(results.items()):
        if not key.endswith(f"-{forest}") or not all(lb in r["configs"] for lb in labels):
            continue
        values = np.array([r["configs"][lb]["metric"] for lb in labels])
        rk = rankdata(-values if higher_better else values)
        for lb, x in zip(labels, rk):
            per[lb].append(float(x))
        streams.append(key[: -len(forest) - 1])
    return {lb: float(np.mean(v)) if v else float("nan") for lb, v in per.items()}, streams


def _table(results, forest, half, chosen_label=None) -> tuple[list[str], str | None]:
    import numpy as np

    configs = CANDIDATES[forest] if half == "tuning" else REPORT_CONFIGS[forest]
    labels = list(configs)
    clf = "Classifier" in forest
    avg, streams = ranks_of(results, forest, labels, clf)
    cands = [lb for lb in labels if lb not in RECORD_ONLY] if half == "tuning" else labels
    cand_avg, _ = ranks_of(results, forest, cands, clf)
    # ties: the better mean metric over the same streams
    mean = {lb: float(np.mean([r["configs"][lb]["metric"] for key, r in results.items()
                               if key.endswith(f"-{forest}") and key[: -len(forest) - 1] in streams]))
            for lb in cands} if streams else {}
    best = min(cands, key=lambda lb: (cand_avg[lb], -mean[lb] if clf else mean[lb])) if streams else None
    lines = [f"### {forest}", "",
             f"{len(streams)} streams of the {half} half. Rank among all rows / among the "
             f"candidates; mean {'accuracy' if clf else 'MAE'}, memory (MB, 10^6 bytes, river's "
             "measure at the end) and samples/s over the streams.", "",
             "| configuration | params | avg rank | avg rank (candidates) | mean metric | mean MB | median samples/s |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for lb in sorted(labels, key=lambda k: avg[k]):
        rows = [r["configs"][lb] for key, r in results.items() if key.endswith(f"-{forest}")
                and lb in r["configs"] and key[: -len(forest) - 1] in streams]
        if not rows:
            continue
        metric = np.mean([x["metric"] for x in rows])
        mem = np.mean([x["memory"] for x in rows]) / 1e6
        speed = np.median([x["samples_per_s"] for x in rows])
        mark = (" **(chosen)**" if lb == (chosen_label or best) else "") + (
            " (best here)" if chosen_label and lb == best and lb != chosen_label else "")
        cr = f"{cand_avg[lb]:.2f}" if lb in cand_avg else "—"
        shown = f"{100 * metric:.2f}%" if clf else f"{metric:.4g}"
        lines.append(f"| {lb}{mark} | `{configs[lb]}` | {avg[lb]:.2f} | {cr} | {shown} | "
                     f"{mem:.2f} | {speed:,.0f} |")
    return lines + [""], best


REPORT_CONFIGS: dict = {}


def _common_outputs(name: str, quick: bool):
    from benchmarks.experiments import _common

    return _common.outputs(name, quick)


def report(results: dict, quick: bool, half: str = HALF, name: str = NAME) -> None:
    from benchmarks.experiments import _common

    forests = CANDIDATES if half == "tuning" else REPORT_CONFIGS
    lines = [f"# Defaults: {'candidates on the tuning' if half == 'tuning' else 'the chosen defaults on the report'} half",
             "", f"`python -m benchmarks experiment {name}{' --quick' if quick else ''}` "
             f"({'first 2,000 samples of 4 streams per task' if quick else 'every stream of the half'}); "
             f"10 trees, seed {SEED}; {_common.version_line()}; {_common.machine()}.", ""]
    chosen = {}
    for forest in forests:
        # the tuning half marks what it chose; the report half marks the package's defaults
        table, best = _table(results, forest, half, None if half == "tuning" else "defaults")
        chosen[forest] = best
        lines += table
    if half == "tuning":
        lines += ["## Chosen", ""] + [f"- {f}: **{b}** `{CANDIDATES[f].get(b)}`" for f, b in chosen.items()] + [""]
    md, _ = _common.outputs(name, quick)
    md.write_text("\n".join(lines) + "\n")
