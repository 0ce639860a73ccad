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

NAME = "sp_regression"
QUICK_N = 2_000
GRID = [dict(alpha=float(a), min_gain=g, honest=h, subsampling=s)
        for a in (20, 80, 320) for g in (0.2, 0.4, 0.6, 0.8)
        for h, s in ((False, "poisson"), (True, None))]


def _key(cfg: dict) -> str:
    return f"a{cfg['alpha']:g}-g{cfg['min_gain']:g}-{'honest' if cfg['honest'] else 'both'}"


def jobs(quick: bool) -> list[tuple[str, dict]]:
    from benchmarks.experiments import _common

    return _common.grid_jobs(GRID, _key, quick, QUICK_N)


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

    _common.grid_report(
        NAME, "The stream-partitioning regressor's defaults", GRID, _key,
        ["alpha", "min_gain", "streams"],
        lambda c: [f"{c['alpha']:g}", f"{c['min_gain']:g}",
                   "honest" if c["honest"] else "both, Poisson(10)"],
        results, quick, QUICK_N)
