"""Why an online StandardScaler in front of a Mondrian forest costs accuracy.

    python benchmarks/online_scaler.py

The forest measures each feature relative to the range of the data it has seen, so a fixed
affine rescaling changes nothing, and it needs no scaler. river's `StandardScaler` is online:
it maps sample t with the mean and variance of samples 1..t, so the same raw value lands
elsewhere as the stream goes on, while the trees' boxes and cuts stay where they were made. On
TrumpApproval, whose features trend, that doubles the forest's error: the trending
`ordinal_date` is mapped to a near-constant (about sqrt(3)) and the polls keep moving. This
script measures progressive MAE (mean over seeds 0-9, 10 trees) with no scaler, the online
scaler, a fixed scaler with the whole stream's statistics, the online scaler on the date only
and on the polls only, and river's AMF forest for context; then Friedman's stationary stream.
Writes benchmarks/results/online_scaler.md.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river import base, compose, datasets, evaluate, forest, metrics, preprocessing  # noqa: E402

from river_forests import MondrianForestRegressor  # noqa: E402
from river_forests.evaluation import markdown_table  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
SEEDS = range(10)


class FixedScaler(base.Transformer):
    """(x - mean) / std with fixed statistics: what a scaler fitted offline does."""

    def __init__(self, mean: dict, std: dict):
        self.mean = mean
        self.std = std

    def learn_one(self, x):
        pass

    def transform_one(self, x):
        return {k: (v - self.mean[k]) / self.std[k] if k in self.mean else v for k, v in x.items()}


def fixed(data):
    keys = list(data[0][0])
    mean = {k: statistics.fmean(x[k] for x, _ in data) for k in keys}
    std = {k: statistics.pstdev([x[k] for x, _ in data]) for k in keys}
    return FixedScaler(mean, std)


def online_on(keys):
    """river's online StandardScaler on `keys`; the other features pass through raw."""
    keys = list(keys)
    return compose.TransformerUnion(
        compose.Select(*keys) | preprocessing.StandardScaler(),
        compose.Discard(*keys),
    )


def mae(data, make_model, seeds):
    return statistics.fmean(
        evaluate.progressive_val_score(data, make_model(s), metrics.MAE()).get() for s in seeds
    )


def table(name, data, variants, seeds):
    rows = []
    for label, pre in variants.items():
        for cls_name, cls in (("MondrianForestRegressor", MondrianForestRegressor),
                              ("river AMFRegressor", forest.AMFRegressor)):
            if cls is forest.AMFRegressor and label not in ("no scaler", "online StandardScaler"):
                continue

            def make(seed, cls=cls, pre=pre):
                model = (cls(seed=seed) if cls is MondrianForestRegressor
                         else cls(n_estimators=10, seed=seed))
                return model if pre is None else pre() | model

            value = mae(data, make, seeds)
            rows.append((cls_name, label, f"{value:.4f}"))
            print(f"  {name:<14} {cls_name:<24} {label:<42} MAE {value:.4f}", file=sys.stderr)
    return [f"## {name} ({len(data):,} samples)", "",
            *markdown_table(["model", "preprocessing", "progressive MAE"], rows), ""]


def main():
    trump = list(datasets.TrumpApproval())
    polls = [k for k in trump[0][0] if k != "ordinal_date"]
    friedman = list(datasets.synth.Friedman(seed=42).take(5000))
    lines = [
        "# An online scaler in front of the Mondrian forest",
        "",
        "Produced by `python benchmarks/online_scaler.py`. Progressive MAE, mean over seeds "
        "0-9 (TrumpApproval) or 0-2 (Friedman), 10 trees. `fixed scaler`: (x - mean) / std with "
        "the whole stream's statistics, never updated (what a scaler fitted offline does).",
        "",
        *table("TrumpApproval", trump, {
            "no scaler": None,
            "online StandardScaler": preprocessing.StandardScaler,
            "fixed scaler": lambda: fixed(trump),
            "online StandardScaler on ordinal_date only": lambda: online_on(["ordinal_date"]),
            "online StandardScaler on the polls only": lambda: online_on(polls),
        }, SEEDS),
        *table("Friedman", friedman, {
            "no scaler": None,
            "online StandardScaler": preprocessing.StandardScaler,
            "fixed scaler": lambda: fixed(friedman),
        }, range(3)),
    ]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "online_scaler.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
