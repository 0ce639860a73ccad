"""XForest's regressor's defaults, chosen on the benchmark's tuning half.

    python -m benchmarks experiment xforest_regression [--quick] [--jobs 2]

Prequential MAE (10 trees, seed 42, no intervals), fed as the benchmark feeds a batch-native
forest (each mini-batch of `batch_size` rows predicted, then learned), every configuration
scored on every row but the first (a row the forest cannot predict yet, in its first batch,
charged the error of the mean of the targets before it: a larger batch pays for the start
it leaves unpredicted), on every regression stream of the tuning half, for a grid of the parameters the classifier's defaults may not carry over to
regression: `batch_size` (a leaf splits on the rows of one batch that reach it),
`min_samples_split` and `max_features`. The rule: the smallest geometric mean over the
streams of the MAE over the best configuration's on that stream. Writes
``benchmarks/results/experiments/xforest_regression.md``.
"""

from __future__ import annotations

NAME = "xforest_regression"
QUICK_N = 2_000
GRID = [dict(batch_size=b, min_samples_split=m, max_features=f)
        for b in (100, 250, 500) for m in (2, 5) for f in (0.6, 1.0)]


def _key(cfg: dict) -> str:
    return f"b{cfg['batch_size']}-m{cfg['min_samples_split']}-f{cfg['max_features']:g}"


def jobs(quick: bool) -> list[tuple[str, dict]]:
    from benchmarks.experiments import _common

    return _common.grid_jobs(GRID, _key, quick, QUICK_N)


def measure(params: dict) -> dict:
    from river import metrics

    from benchmarks.streams import STREAMS
    from river_forests import XForestRegressor

    data = STREAMS[params["stream"]].samples(params["n"])
    model = XForestRegressor(n_estimators=10, seed=42, confidence_level=None, **params["config"])
    # every configuration is scored on the same rows, every row but the first: a row the
    # forest cannot predict yet (the rows of its first batch) is charged the error of the
    # mean of the targets before it, the fallback a user would have, so a larger batch pays
    # for the start it leaves unpredicted; fed as the harness feeds a batch-native forest
    import pandas as pd

    size = params["config"]["batch_size"]
    mae, scored, fallback = metrics.MAE(), 0, 0
    total, count = 0.0, 0
    for start in range(0, len(data), size):
        rows = data[start:start + size]
        index = pd.RangeIndex(start, start + len(rows))
        X = pd.DataFrame([x for x, _ in rows], index=index)
        y = pd.Series([t for _, t in rows], index=index)
        predicted = model.predict_many(X).tolist()
        for t, p in zip(y.tolist(), predicted):
            if p is None or p != p:
                if count:
                    mae.update(t, total / count)
                    fallback += 1
            else:
                mae.update(t, p)
                scored += 1
            total += t
            count += 1
        model.learn_many(X, y)
    return {"n": len(data), "mae": mae.get(), "scored": scored, "fallback": fallback}


def report(results: dict, quick: bool) -> None:
    from benchmarks.experiments import _common

    _common.grid_report(
        NAME, "XForest's regressor's defaults", GRID, _key,
        ["batch_size", "min_samples_split", "max_features"],
        lambda c: [c["batch_size"], c["min_samples_split"], f"{c['max_features']:g}"],
        results, quick, QUICK_N)
