"""The stream-partitioning forest regressor's defaults, chosen on the benchmark's tuning half.

    python -m benchmarks experiment sp_regression [--quick] [--jobs 2]

Prequential MAE (10 trees, seed 42, no intervals) on every regression stream of the tuning
half, for a grid of the parameters the classifier's tuning does not carry over to
regression: `alpha` (the estimation weight each side of a split needs), `min_gain` (here a
relative decrease of the squared error) and the streams a point goes to (`honest`, the
paper's structure/estimation split without subsampling, or every point to both streams with
Poisson(10) weights, the classifier's defaults). The rule: the smallest geometric mean over
the streams of the MAE over the best configuration's on that stream. Writes
``benchmarks/results/experiments/sp_regression.md``.
"""

from __future__ import annotations

import math

NAME = "sp_regression"
QUICK_N = 2_000
GRID = [dict(alpha=float(a), min_gain=g, honest=h, subsampling=s)
        for a in (20, 80, 320) for g in (0.2, 0.4, 0.6, 0.8)
        for h, s in ((False, "poisson"), (True, None))]


def _key(cfg: dict) -> str:
    return f"a{cfg['alpha']:g}-g{cfg['min_gain']:g}-{'honest' if cfg['honest'] else 'both'}"


def _streams(quick: bool) -> list:
    from benchmarks.streams import streams

    out = [s.name for s in streams("reg", "tuning")]
    return out[:2] if quick else out


def jobs(quick: bool) -> list[tuple[str, dict]]:
    grid = GRID[:3] if quick else GRID
    return [(f"{s}-{_key(c)}", {"stream": s, "config": c, "n": QUICK_N if quick else None})
            for s in _streams(quick) for c in grid]


def measure(params: dict) -> dict:
    from river import metrics

    from benchmarks.streams import STREAMS
    from river_forests import StreamPartitionForestRegressor

    data = STREAMS[params["stream"]].samples(params["n"])
    model = StreamPartitionForestRegressor(n_estimators=10, seed=42, confidence_level=None,
                                           **params["config"])
    mae = metrics.MAE()
    for x, y in data:
        mae.update(y, model.predict_one(x))
        model.learn_one(x, y)
    return {"n": len(data), "mae": mae.get()}


def report(results: dict, quick: bool) -> None:
    from benchmarks.experiments import _common

    md, _ = _common.outputs(NAME, quick)
    grid = GRID[:3] if quick else GRID
    streams = _streams(quick)
    lines = ["# The stream-partitioning regressor's defaults (tuning half)", "",
             f"`python -m benchmarks experiment {NAME}{' --quick' if quick else ''}`; 10 trees, "
             f"seed 42; prequential MAE; {_common.version_line()}; {_common.machine()}.", ""]
    miss = _common.missing(jobs(quick), results)
    if miss:
        lines += [_common.missing_line(miss), ""]
    rows = []
    best = {s: min((results[f"{s}-{_key(c)}"]["mae"] for c in grid if f"{s}-{_key(c)}" in results),
                   default=float("nan")) for s in streams}
    for c in grid:
        maes = [results.get(f"{s}-{_key(c)}", {}).get("mae") for s in streams]
        if any(m is None for m in maes):
            continue
        score = math.exp(sum(math.log(m / best[s]) for m, s in zip(maes, streams)) / len(streams))
        rows.append((score, c, maes))
    rows.sort(key=lambda r: r[0])
    lines += _common.markdown_table(
        ["alpha", "min_gain", "streams", "score"] + streams,
        [[f"{c['alpha']:g}", f"{c['min_gain']:g}",
          "honest" if c["honest"] else "both, Poisson(10)", f"{score:.3f}"
          + (" **(chosen)**" if i == 0 else "")] + [f"{m:.4g}" for m in maes]
         for i, (score, c, maes) in enumerate(rows)])
    lines += ["", "Score: the geometric mean over the streams of the MAE over the best "
              "configuration's on that stream (1: best everywhere)."]
    md.write_text("\n".join(lines) + "\n")
