"""Drift detectors that never hurt: every forest with and without detectors, on every stream.

    python -m benchmarks experiment drift               # the tuning half: chooses the swap rule
    python -m benchmarks experiment drift_report        # the report half: reports the choice
    python -m benchmarks experiment drift --quick       # the first 2,000 samples of 4 streams

For every estimator of ``river_forests.__all__`` (10 trees, seed 42, its defaults), on every
stream of the half of its task (stationary ones included), progressive validation as the
benchmark runs it (``river_forests._progressive.progressive_run``) of:

* ``plain``: no detector (the paper's algorithm);
* ``at drift``: river's ARF's detectors (ADWIN 0.001 for drifts, 0.01 for warnings) and
  ``background_swap="at_drift"``: the background tree (or a fresh one) takes the tree's
  place at the drift, as river's and MOA's ARF do;
* ``when better``: the same detectors, ``background_swap="when_better"``: a drift starts a
  duel the background tree wins once significantly better;
* ``when better, no warning``: the drift detector alone, ``"when_better"``: a background
  tree starts only at a drift (cheaper: none learns between drifts) (tuning half only).

A configuration *hurts* on a stream when its accuracy is more than half a point below the
plain forest's (for a regressor: its MAE more than 0.5% above). The rule chosen (the
package's default) is the one that hurts on the fewest (forest, stream) pairs of the tuning
half, ties broken by the better mean difference to the plain forests. The model's calls are
timed in the same process, one configuration after the other, so their time ratio to the
plain forest's is comparable within a row. Writes ``benchmarks/results/experiments/drift.md``
(``drift_report.md`` for the report half).
"""

from __future__ import annotations

import time

NAME = "drift"
HALF = "tuning"
N_ESTIMATORS = 10
SEED = 42
QUICK_N = 2_000

CONFIGS = {
    "plain": None,
    "at drift": "at_drift",
    "when better": "when_better",
    "when better, no warning": "when_better/drift",
}
#: the report half runs the plain forests and the rule the tuning half chose
REPORT_CONFIGS = {"plain": None, "when better, no warning": "when_better/drift"}

#: a configuration hurts where its accuracy is this far below the plain forest's (points), or
#: its MAE this far above (a fraction)
HURT_POINTS = 0.5
HURT_MAE = 0.005


def _estimators() -> list[tuple[str, str]]:
    import river_forests
    from river import base

    out = []
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if isinstance(cls, type) and issubclass(cls, base.Estimator):
            out.append((name, "clf" if issubclass(cls, base.Classifier) else "reg"))
    return out


def jobs(quick: bool, half: str = HALF, configs: dict | None = None) -> list[tuple[str, dict]]:
    from benchmarks.streams import streams

    configs = configs or (CONFIGS if half == "tuning" else REPORT_CONFIGS)
    out = []
    for forest, task in _estimators():
        for s in list(streams(task, half))[: 4 if quick else None]:
            out.append((f"{s.name}-{forest}", {
                "stream": s.name, "n": min(s.n, QUICK_N) if quick else s.n, "forest": forest,
                "task": task, "configs": configs, "n_estimators": N_ESTIMATORS, "seed": SEED}))
    return out


def measure(params: dict) -> dict:
    import river_forests
    from river import drift, metrics

    from benchmarks.streams import STREAMS
    from river_forests._progressive import progressive_run

    data = STREAMS[params["stream"]].samples(params["n"])
    cls = getattr(river_forests, params["forest"])
    out = {}
    for label, rule in params["configs"].items():
        extra = {} if rule is None else dict(
            drift_detector=drift.ADWIN(delta=0.001), warning_detector=drift.ADWIN(delta=0.01),
            background_swap=rule.split("/")[0])
        if rule is not None and rule.endswith("/drift"):  # the drift detector alone
            extra["warning_detector"] = None
        model = cls(n_estimators=params["n_estimators"], seed=params["seed"], **extra)
        metric = metrics.Accuracy() if params["task"] == "clf" else metrics.MAE()
        t0 = time.perf_counter()
        r = progressive_run(model, data, metric)
        out[label] = {"metric": float(r.metric), "samples_per_s": float(r.samples_per_s),
                      "wall": time.perf_counter() - t0,
                      "swaps": int(sum(model.swaps_per_tree)) if rule else 0,
                      "drifts": int(sum(model.drifts_per_tree)) if rule else 0}
    return {"n": len(data), "configs": out}


def _delta(task: str, plain: float, other: float) -> float:
    """How much better `other` is than `plain`: accuracy points, or MAE's relative drop (%)."""
    return 100 * (other - plain) if task == "clf" else 100 * (plain - other) / max(plain, 1e-12)


def _hurts(task: str, plain: float, other: float) -> bool:
    if task == "clf":
        return other < plain - HURT_POINTS / 100
    return other > plain * (1 + HURT_MAE)


def summary(results: dict, configs: dict) -> dict:
    """Per (forest, rule): streams, pairs that hurt (with their delta), mean delta, and the
    median time ratio to the plain forest."""
    import numpy as np

    out = {}
    for forest, task in _estimators():
        rows = {k[: -len(forest) - 1]: r for k, r in results.items() if k.endswith(f"-{forest}")}
        for label in configs:
            if configs[label] is None:
                continue
            deltas, hurts, ratios = [], [], []
            for stream, r in sorted(rows.items()):
                c = r["configs"]
                if label not in c or "plain" not in c:
                    continue
                d = _delta(task, c["plain"]["metric"], c[label]["metric"])
                deltas.append(d)
                ratios.append(c["plain"]["samples_per_s"] / c[label]["samples_per_s"])
                if _hurts(task, c["plain"]["metric"], c[label]["metric"]):
                    hurts.append((stream, d))
            out[(forest, label)] = {"task": task, "n": len(deltas), "hurts": hurts,
                                    "mean": float(np.mean(deltas)) if deltas else float("nan"),
                                    "ratio": float(np.median(ratios)) if ratios else float("nan"),
                                    "worst_ratio": float(np.max(ratios)) if ratios else float("nan")}
    return out


def chosen(summ: dict, configs: dict) -> str | None:
    rules = [lb for lb in configs if configs[lb] is not None]
    if not rules:
        return None
    score = {lb: (sum(len(v["hurts"]) for (f, l), v in summ.items() if l == lb),
                  -sum(v["mean"] for (f, l), v in summ.items() if l == lb)) for lb in rules}
    return min(rules, key=lambda lb: score[lb])


def report(results: dict, quick: bool, half: str = HALF, name: str = NAME) -> None:
    from benchmarks.experiments import _common

    configs = CONFIGS if half == "tuning" else REPORT_CONFIGS
    summ = summary(results, configs)
    best = chosen(summ, configs)
    lines = [f"# Drift detectors that never hurt: the {half} half", "",
             f"`python -m benchmarks experiment {name}{' --quick' if quick else ''}` "
             f"({'first 2,000 samples of 4 streams per task' if quick else 'every stream of the half, stationary ones included'}); "
             f"10 trees, seed {SEED}, each forest at its defaults, ADWIN(0.001) for drifts (and "
             f"ADWIN(0.01) for warnings where the rule has them); {_common.version_line()}; "
             f"{_common.machine()}.", "",
             f"Difference to the plain forest: accuracy points (classifiers) or the MAE's relative "
             f"drop in % (regressors); a rule *hurts* where it is below the plain forest by more "
             f"than {HURT_POINTS} point ({100 * HURT_MAE:.1f}% of MAE). Time: the model's calls, "
             f"over the plain forest's, same process.", "",
             "| forest | rule | streams | hurts on | mean difference | median time ratio | worst time ratio |",
             "| --- | --- | ---: | --- | ---: | ---: | ---: |"]
    for (forest, label), v in summ.items():
        hurt = ", ".join(f"{s} ({d:+.2f})" for s, d in v["hurts"]) or "none"
        lines.append(f"| {forest} | {label} | {v['n']} | {hurt} | {v['mean']:+.2f} | "
                     f"{v['ratio']:.2f} | {v['worst_ratio']:.2f} |")
    lines.append("")
    if half == "tuning" and best is not None:
        lines += ["## Chosen", "",
                  f"**{best}** (`{configs[best]}`): it hurts on the fewest (forest, stream) pairs of "
                  "the tuning half (ties: the better mean difference).", ""]
    lines += ["## Per stream", ""]
    for forest, task in _estimators():
        rows = sorted((k[: -len(forest) - 1], r) for k, r in results.items() if k.endswith(f"-{forest}"))
        if not rows:
            continue
        labels = list(configs)
        lines += [f"### {forest}", "",
                  "| stream | " + " | ".join(labels) + " | swaps (" + " / ".join(l for l in labels if configs[l]) + ") |",
                  "| --- | " + " | ".join("---:" for _ in labels) + " | ---: |"]
        for stream, r in rows:
            c = r["configs"]
            cells = []
            for lb in labels:
                if lb not in c:
                    cells.append("—")
                    continue
                m = c[lb]["metric"]
                cells.append(f"{100 * m:.2f}" if task == "clf" else f"{m:.4g}")
            swaps = " / ".join(str(c[lb]["swaps"]) for lb in labels if configs[lb] and lb in c)
            lines.append(f"| {stream} | " + " | ".join(cells) + f" | {swaps} |")
        lines.append("")
    md, _ = _common.outputs(name, quick)
    md.write_text("\n".join(lines) + "\n")
