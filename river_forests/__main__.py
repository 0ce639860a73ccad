"""The ``river-forests`` command (``python -m river_forests`` outside the source tree): every
forest the package exports against river's Hoeffding tree, ARF and AMF on one stream, river's
ARF the reference for speed. What it does and its options are in `DESCRIPTION`, `EPILOG` and
the parser (`main`): ``river-forests --help`` prints them, as plain text for a terminal.

The benchmark that decides (many streams, MOA's forests beside river's, ranks and a Friedman
test) lives in the repository's ``benchmarks/`` folder: ``python -m benchmarks``.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

from river import base, datasets, forest, metrics, preprocessing, tree

import river_forests

from ._progressive import Result, progressive_run

#: river's bundled datasets the command offers, and their task
BUNDLED = {"phishing": ("clf", "Phishing"), "bananas": ("clf", "Bananas"),
           "imagesegments": ("clf", "ImageSegments"), "trumpapproval": ("reg", "TrumpApproval"),
           "chickweights": ("reg", "ChickWeights")}
#: the streams read from ../shared/data (or $RIVER_FORESTS_DATA), and their files
SHARED_FILES = {"elec": "elec.csv", "covtype": "covtype.csv.gz"}
STREAMS = sorted([*BUNDLED, *SHARED_FILES])
REFERENCE = "river ARF"  # the model every speed is divided by


def find_data_dir() -> Path | None:
    """The folder named by the ``RIVER_FORESTS_DATA`` environment variable when it is set (and
    only it: a wrong path is reported, not replaced by another folder), else ``shared/data``
    beside the repository (``../shared/data`` from its root); None if it has no elec.csv."""
    env = os.environ.get("RIVER_FORESTS_DATA")
    if env:
        return Path(env) if (Path(env) / "elec.csv").exists() else None
    here = Path(__file__).resolve()
    for root in [Path.cwd(), *Path.cwd().parents, *here.parents]:
        if (root / "shared" / "data" / "elec.csv").exists():
            return root / "shared" / "data"
    return None


def load_stream(name: str, n: int | None = None) -> tuple[str, list]:
    """``(task, the first n samples)`` of one of the command's streams."""
    if name in BUNDLED:
        task, cls = BUNDLED[name]
        return task, list(itertools.islice(getattr(datasets, cls)(), n))
    folder = find_data_dir()
    if folder is None:
        raise FileNotFoundError(SHARED_FILES[name])
    import csv
    import gzip

    path = folder / SHARED_FILES[name]
    with (gzip.open if path.suffix == ".gz" else open)(path, "rt") as f:
        reader = csv.reader(f)
        names = next(reader)[:-1]
        rows = [({k: float(v) for k, v in zip(names, row)}, int(row[-1]))
                for row in itertools.islice(reader, n)]
    return "clf", rows


#: what ``--help`` says first: plain text for a terminal (no markup), wrapped at 79 columns
DESCRIPTION = """\
Compare the forests of river-forests with river's own models on one stream.

Every forest the package exports is run with progressive validation (each
sample is predicted, then learned), beside river's HoeffdingTree, ARF and AMF
(classifiers, or regressors behind a StandardScaler on a regression stream).
The table gives each model's accuracy (MAE for a regression stream), samples
per second of its own calls, its speed as a multiple of river's ARF measured
in the same run, and its memory in MiB.

A forest that learns in mini-batches by design (XForest) is run as its users
run it: each batch is predicted, then learned; its row of the table says so."""


def epilog() -> str:
    """What ``--help`` says last: the streams (from the command's tables, so a new one is
    listed), where the data files are read from, and examples."""
    lines = ["streams (--dataset):"]
    for name in STREAMS:
        if name in BUNDLED:
            task, cls = BUNDLED[name]
            what = (f"{'classification' if task == 'clf' else 'regression'}, "
                    f"datasets.{cls}, bundled with river")
        else:
            what = f"classification, {SHARED_FILES[name]} in the data folder (below)"
        lines.append(f"  {name:<15} {what}")
    lines += [
        "",
        "data folder: elec and covtype read their files from the folder named by the",
        "RIVER_FORESTS_DATA environment variable if it is set, else from shared/data",
        "beside the repository (../shared/data from its root).",
        "",
        "examples:",
        "  river-forests                              phishing, every model",
        "  river-forests --dataset bananas -n 2000    the first 2,000 samples",
        "  river-forests --dataset trumpapproval --only-ours --trees 20",
        "  RIVER_FORESTS_DATA=/path/to/data river-forests --dataset elec",
        "",
        "The benchmark of the repository (thirty-odd streams, ranks, MOA's forests):",
        "python -m benchmarks, from a checkout.",
    ]
    return "\n".join(lines)


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


def rivers(task: str, n_estimators: int, seed: int) -> dict:
    """river's HoeffdingTree, ARF and AMF for `task`. The regressors sit behind a
    StandardScaler, as in river's docs: without it they diverge on unscaled features."""
    if task == "clf":
        return {
            "river HoeffdingTreeClassifier": tree.HoeffdingTreeClassifier(),
            REFERENCE: forest.ARFClassifier(n_models=n_estimators, seed=seed),
            "river AMFClassifier": forest.AMFClassifier(n_estimators=n_estimators, seed=seed),
        }
    scaled = preprocessing.StandardScaler
    return {
        "river HoeffdingTreeRegressor": scaled() | tree.HoeffdingTreeRegressor(),
        REFERENCE: scaled() | forest.ARFRegressor(n_models=n_estimators, seed=seed),
        "river AMFRegressor": scaled() | forest.AMFRegressor(n_estimators=n_estimators, seed=seed),
    }


def table_label(label: str, result: Result) -> str:
    """A model's label in the table: its name, and for a model fed mini-batches how it was
    fed, since its samples/s and accuracy are those of batches, not of samples one by one."""
    return label if result.mode == "one" else f"{label} [learn_many, {result.mode}]"


def batch_footnote(results: dict) -> str | None:
    """The line under the table naming the models fed mini-batches, and why; None if none was."""
    batched = [label for label, r in results.items() if r.mode != "one"]
    if not batched:
        return None
    return (f"[learn_many, batches of k]: fed mini-batches, as they learn by design (learn_many "
            f"is not a learn_one loop for them): {', '.join(batched)}. Each batch of k samples "
            "was predicted (predict_proba_many / predict_many) before being learned (learn_many); "
            "every other model predicted, then learned, one sample at a time")


def main(argv=None) -> int:
    parser = Parser(prog="river-forests", description=DESCRIPTION, epilog=epilog(),
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="phishing", choices=STREAMS, metavar="STREAM",
                        help="the stream to run on, one of: %(choices)s (default %(default)s; "
                             "listed below)")
    parser.add_argument("-n", "--samples", type=positive_int, default=None, metavar="N",
                        help="run on the first N samples only (default: the whole stream)")
    parser.add_argument("--trees", type=positive_int, default=10, metavar="K",
                        help="trees in every forest, ours and river's (default %(default)s)")
    parser.add_argument("--seed", type=int, default=42,
                        help="random seed of every model (default %(default)s)")
    parser.add_argument("--only-ours", action="store_true",
                        help="run the package's forests only, not river's models (the speed "
                             "ratio to river's ARF is then not given)")
    args = parser.parse_args(argv)

    try:
        task, data = load_stream(args.dataset, args.samples)
    except FileNotFoundError:
        print(f"{parser.prog}: error: {args.dataset} needs ../shared/data/"
              f"{SHARED_FILES[args.dataset]}: put the data folder beside the repository or set "
              "RIVER_FORESTS_DATA=/path/to/folder", file=sys.stderr)
        return 2
    print(f"{args.dataset}: {len(data)} samples, progressive validation", file=sys.stderr)
    models = ours(task, args.trees, args.seed)
    if not args.only_ours:
        models.update(rivers(task, args.trees, args.seed))
    results = {}
    for label, model in models.items():
        print(f"  {label} ...", file=sys.stderr, flush=True)
        metric = metrics.Accuracy() if task == "clf" else metrics.MAE()
        results[label] = progressive_run(model, data, metric)

    name = "accuracy" if task == "clf" else "MAE"
    reference = results.get(REFERENCE)
    labels = {label: table_label(label, r) for label, r in results.items()}
    width = max([34, *map(len, labels.values())])
    print(f"\n{'model':<{width}} {name:>9} {'samples/s':>11} {'x river ARF':>11} {'memory MiB':>10}")
    for label, r in results.items():
        ratio = f"{r.samples_per_s / reference.samples_per_s:>11.2f}" if reference else f"{'-':>11}"
        print(f"{labels[label]:<{width}} {r.metric:>9.4f} {r.samples_per_s:>11,.0f} {ratio} "
              f"{r.memory / 2**20:>10.2f}")
    print(f"x river ARF: samples/s divided by river's ARF's ({args.trees} trees), measured in this "
          f"run{'' if reference else ' (not run: --only-ours)'}; forests of {args.trees} trees, "
          f"seed {args.seed}; memory in MiB (2**20 bytes)"
          + ("; river's regressors behind a StandardScaler" if task == "reg" and reference else ""))
    footnote = batch_footnote(results)
    if footnote:
        print(footnote)
    return 0


if __name__ == "__main__":
    sys.exit(main())
