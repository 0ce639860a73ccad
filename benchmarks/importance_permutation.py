"""Where BSP misses the truth (experiment importances), is it the measure or the model? Held-out
permutation importance beside the forests' own importances.

    python -m benchmarks.importance_permutation

The BSP and Mondrian classifiers (10 trees, seed 42, defaults) learn 20,000 samples of each
Agrawal function BSP did not recover (3, 6, 8, 9; seed 7, balanced classes, as the
experiment), then predict 2,000 more: their accuracy, and for each feature the accuracy lost
when its values are shuffled among those 2,000 rows (permutation importance, which asks the
model's predictions directly and shares nothing between features). Printed: the top five of
each, beside the top five of ``feature_importances``. If a feature the function reads is
missing from both, the model does not use it, whatever the measure.
"""

from __future__ import annotations

import random

FUNCTIONS = (3, 6, 8, 9)
FORESTS = ("BSPForestClassifier", "MondrianForestClassifier")
TRAIN, TEST = 20_000, 2_000


def _top(scores: dict, k: int = 5) -> str:
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
    return ", ".join(f"{name} {v:.3f}" for name, v in ranked)


def main() -> None:
    from river.datasets import synth

    import river_forests
    from benchmarks.experiments import _common
    from benchmarks.experiments.importances import AGRAWAL

    print(f"`python -m benchmarks.importance_permutation`; {_common.version_line()}; "
          f"{_common.machine()}.\n")
    print("| function (reads) | forest | held-out accuracy | permutation: top five (accuracy "
          "lost) | feature_importances: top five |")
    print("|---|---|---:|---|---|")
    for f in FUNCTIONS:
        data = list(synth.Agrawal(classification_function=f, seed=7,
                                  balance_classes=True).take(TRAIN + TEST))
        train, test = data[:TRAIN], data[TRAIN:]
        for name in FORESTS:
            model = getattr(river_forests, name)(n_estimators=10, seed=42)
            for x, y in train:
                model.learn_one(x, y)
            base = sum(model.predict_one(x) == y for x, y in test) / TEST
            rng = random.Random(0)
            lost = {}
            for feature in test[0][0]:
                values = [x[feature] for x, _ in test]
                rng.shuffle(values)
                acc = sum(model.predict_one({**x, feature: v}) == y
                          for (x, y), v in zip(test, values)) / TEST
                lost[feature] = base - acc
            print(f"| {f} ({', '.join(sorted(AGRAWAL[f]))}) | {name} | {base:.3f} | {_top(lost)} | "
                  f"{_top(model.feature_importances)} |", flush=True)


if __name__ == "__main__":
    main()
