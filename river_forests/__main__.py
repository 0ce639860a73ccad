"""``river-forests`` (or ``python -m river_forests`` outside the source tree): our forests
against river's trees and forests, one stream.

Progressive validation (predict, then learn, every sample) of the Mondrian forest against
river's HoeffdingTreeClassifier, ARFClassifier and AMFClassifier (or the regressors), printing
accuracy (MAE), samples/s of the model's own calls, and memory.
"""

from __future__ import annotations

import argparse
import sys

from river import forest, metrics, tree

from . import MondrianForestClassifier, MondrianForestRegressor
from .evaluation import STREAMS, load_stream, progressive_run


def models(task: str, n_estimators: int, seed: int) -> dict:
    if task == "clf":
        return {
            f"MondrianForestClassifier({n_estimators})": MondrianForestClassifier(n_estimators=n_estimators, seed=seed),
            "river HoeffdingTreeClassifier": tree.HoeffdingTreeClassifier(),
            f"river ARFClassifier({n_estimators})": forest.ARFClassifier(n_models=n_estimators, seed=seed),
            f"river AMFClassifier({n_estimators})": forest.AMFClassifier(n_estimators=n_estimators, seed=seed),
        }
    return {
        f"MondrianForestRegressor({n_estimators})": MondrianForestRegressor(n_estimators=n_estimators, seed=seed),
        "river HoeffdingTreeRegressor": tree.HoeffdingTreeRegressor(),
        f"river ARFRegressor({n_estimators})": forest.ARFRegressor(n_models=n_estimators, seed=seed),
        f"river AMFRegressor({n_estimators})": forest.AMFRegressor(n_estimators=n_estimators, seed=seed),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="river-forests", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="phishing", choices=sorted(STREAMS),
                        help="stream to run on (elec and covtype read ../shared/data)")
    parser.add_argument("-n", "--samples", type=int, default=None, help="first N samples only")
    parser.add_argument("--trees", type=int, default=10, help="trees per forest (default 10)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--only-ours", action="store_true", help="skip river's models")
    args = parser.parse_args(argv)

    task = STREAMS[args.dataset][0]
    data = load_stream(args.dataset, args.samples)
    print(f"{args.dataset}: {len(data)} samples, progressive validation", file=sys.stderr)
    results = []
    for label, model in models(task, args.trees, args.seed).items():
        if args.only_ours and label.startswith("river"):
            continue
        metric = metrics.Accuracy() if task == "clf" else metrics.MAE()
        results.append(progressive_run(model, data, metric, label=label, stream=args.dataset))

    name = "accuracy" if task == "clf" else "MAE"
    base = results[0]
    print(f"\n{'model':<34} {name:>9} {'samples/s':>11} {'x ours':>8} {'memory':>10}")
    for r in results:
        ratio = r.samples_per_s / base.samples_per_s
        print(f"{r.model:<34} {r.metric:>9.4f} {r.samples_per_s:>11,.0f} {ratio:>8.3f} "
              f"{r.memory / 2**20:>8.2f}MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
