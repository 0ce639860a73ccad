"""``river-forests`` (or ``python -m river_forests`` outside the source tree): our forests
against river's trees and forests, one stream.

Progressive validation (predict, then learn, every sample) of every forest river_forests
exports against river's HoeffdingTree, ARF and AMF classifiers (or regressors, behind a
StandardScaler as in river's docs), printing accuracy (MAE), samples/s of the model's own
calls, and memory. A forest whose natural interface is mini-batches (its learn_many is not a
learn_one loop, e.g. XForest) is run as its users run it: each batch of its batch_size samples
is predicted (predict_proba_many) before it is learned (learn_many); its row of the table says
so.
"""

from __future__ import annotations

import argparse
import sys

from river import base, metrics

import river_forests

from .evaluation import STREAMS, Result, load_stream, progressive_run, river_baselines

#: the streams read from ../shared/data (or $RIVER_FORESTS_DATA), and their files
SHARED_FILES = {"elec": "elec.csv", "covtype": "covtype.csv.gz"}


class Parser(argparse.ArgumentParser):
    """One line on a mistake (``prog: error: message (see --help)``), not the usage dump."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def ours(task: str, n_estimators: int, seed: int) -> dict:
    """Every estimator the package exports for `task`, so a new forest shows up here too."""
    kind = base.Classifier if task == "clf" else base.Regressor
    found = {}
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if isinstance(cls, type) and issubclass(cls, kind):
            found[name] = cls(n_estimators=n_estimators, seed=seed)
    return found


def table_label(result: Result) -> str:
    """A model's label in the final table: its name, and for a model fed mini-batches how it
    was fed, since its samples/s and accuracy are those of batches, not of samples one by one."""
    if result.mode == "one":
        return result.model
    return f"{result.model} [learn_many, {result.mode}]"


def batch_footnote(results: list[Result]) -> str | None:
    """The line under the table naming the models fed mini-batches, and why; None if none was."""
    batched = [r.model for r in results if r.mode != "one"]
    if not batched:
        return None
    return (f"[learn_many, batches of k]: fed mini-batches, as they learn by design (learn_many "
            f"is not a learn_one loop for them): {', '.join(batched)}. Each batch of k samples "
            "was predicted (predict_proba_many / predict_many) before being learned (learn_many); "
            "every other model predicted, then learned, one sample at a time")


def main(argv=None) -> int:
    parser = Parser(prog="river-forests", description=__doc__,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="phishing", choices=sorted(STREAMS),
                        help="stream to run on (elec and covtype read elec.csv and covtype.csv.gz "
                             "from ../shared/data beside the repository, or from the folder "
                             "named by the RIVER_FORESTS_DATA environment variable)")
    parser.add_argument("-n", "--samples", type=positive_int, default=None,
                        help="first N samples only")
    parser.add_argument("--trees", type=positive_int, default=10,
                        help="trees per forest (default 10)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--only-ours", action="store_true", help="skip river's models")
    args = parser.parse_args(argv)

    task = STREAMS[args.dataset][0]
    try:
        data = load_stream(args.dataset, args.samples)
    except FileNotFoundError:
        if args.dataset not in SHARED_FILES:
            raise
        print(f"{parser.prog}: error: {args.dataset} needs ../shared/data/"
              f"{SHARED_FILES[args.dataset]}: put the data folder beside the repository or set "
              "RIVER_FORESTS_DATA=/path/to/folder", file=sys.stderr)
        return 2
    print(f"{args.dataset}: {len(data)} samples, progressive validation", file=sys.stderr)
    models = ours(task, args.trees, args.seed)
    if not args.only_ours:
        models.update({f"river {label}": model
                       for label, model in river_baselines(task, args.trees, args.seed).items()})
    results = []
    for label, model in models.items():
        metric = metrics.Accuracy() if task == "clf" else metrics.MAE()
        results.append(progressive_run(model, data, metric, label=label, stream=args.dataset))

    name = "accuracy" if task == "clf" else "MAE"
    base_row = results[0]
    labels = [table_label(r) for r in results]
    width = max([34, *map(len, labels)])
    print(f"\n{'model':<{width}} {name:>9} {'samples/s':>11} {'speed vs row 1':>14} {'memory MiB':>10}")
    for label, r in zip(labels, results):
        ratio = r.samples_per_s / base_row.samples_per_s
        print(f"{label:<{width}} {r.metric:>9.4f} {r.samples_per_s:>11,.0f} {ratio:>14.3f} "
              f"{r.memory / 2**20:>10.2f}")
    scaled = task == "reg" and not args.only_ours
    print(f"speed vs row 1: samples/s divided by {base_row.model}'s; forests of {args.trees} "
          f"trees, seed {args.seed}; memory in MiB (2**20 bytes)"
          + ("; river's regressors behind a StandardScaler" if scaled else ""))
    footnote = batch_footnote(results)
    if footnote:
        print(footnote)
    return 0


if __name__ == "__main__":
    sys.exit(main())
