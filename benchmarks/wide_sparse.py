"""A wide sparse stream: does width set our memory or our speed?

    python benchmarks/wide_sparse.py            # 20,000 samples, every model
    python benchmarks/wide_sparse.py --quick    # 3,000 samples

The stream (`wide-sparse` in `river_forests.evaluation.STREAMS`) is bag-of-words-like: 20
words per sample out of a 50,000-word vocabulary with Zipf frequencies (33,000 distinct words in
20,000 samples). Progressive validation (predict, then learn) of every forest of the package
(10 trees) at several subspace sizes `features_per_tree` (each tree keeps a uniform sample of
that many of the columns, its per-node rows one cell per kept feature), of the default forest
behind river's `FeatureHasher` (which folds the vocabulary into 1,024 columns first), and of
river's ARF (10 trees) and Hoeffding tree, in the same run: accuracy, samples/s
of the model's own calls, memory at the end and pickled size after 6,000 samples. Writes
benchmarks/results/wide_sparse.md.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river import compose, forest, metrics, preprocessing, tree  # noqa: E402

import river_forests  # noqa: E402
from river_forests.evaluation import load_stream, markdown_table  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
TREES = 10
SEED = 42
PICKLE_AT = 6_000
SUBSPACES = (16, 64, 256)


def models() -> dict:
    out = {}
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if not name.endswith("Classifier"):
            continue
        default = cls().features_per_tree
        for k in SUBSPACES:
            tag = " (default)" if k == default else ""
            out[f"{name}(features_per_tree={k}){tag}"] = (
                lambda cls=cls, k=k: cls(n_estimators=TREES, features_per_tree=k, seed=SEED))
        out[f"FeatureHasher(1024) | {name}"] = (
            lambda cls=cls: compose.Pipeline(
                preprocessing.FeatureHasher(n_features=1024, seed=SEED),
                cls(n_estimators=TREES, seed=SEED)))
    out["river ARFClassifier(10)"] = lambda: forest.ARFClassifier(n_models=TREES, seed=SEED)
    out["river HoeffdingTreeClassifier"] = lambda: tree.HoeffdingTreeClassifier()
    return out


def run(label, model, data):
    metric = metrics.Accuracy()
    spent, pickled = 0.0, None
    clock = time.perf_counter
    for i, (x, y) in enumerate(data, 1):
        t0 = clock()
        y_pred = model.predict_one(x)
        model.learn_one(x, y)
        spent += clock() - t0
        if y_pred is not None:
            metric.update(y, y_pred)
        if i == PICKLE_AT:
            pickled = len(pickle.dumps(model))
    print(f"  {label:<58} acc {metric.get():.4f}  {len(data) / spent:>9,.0f} samples/s",
          file=sys.stderr)
    return dict(model=label, accuracy=metric.get(), speed=len(data) / spent,
                memory=model._raw_memory_usage, pickled=pickled)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="3,000 samples")
    args = parser.parse_args(argv)
    n = 3_000 if args.quick else 20_000
    data = load_stream("wide-sparse", n)
    words = len({k for x, _ in data for k in x})
    results = []
    for label, make in models().items():
        results.append(run(label, make(), data))
    arf = next(r for r in results if r["model"].startswith("river ARF"))
    rows = [
        (r["model"], f"{r['accuracy']:.4f}", f"{r['speed']:,.0f}", f"{r['speed'] / arf['speed']:.1f}",
         f"{r['memory'] / 1e6:.1f}", "-" if r["pickled"] is None else f"{r['pickled'] / 1e6:.1f}")
        for r in results
    ]
    lines = [
        f"# Wide sparse stream ({n:,} samples)",
        "",
        f"Produced by `python benchmarks/wide_sparse.py{' --quick' if args.quick else ''}` on "
        f"{os.cpu_count()} cores (load average {os.getloadavg()[0]:.1f} at the start). The "
        f"stream: 20 words per sample from a 50,000-word Zipf vocabulary, {words:,} distinct "
        "words in this run. Progressive validation, 10 trees, seed 42; samples/s of the model's "
        "own calls, `x ARF` its ratio to river's ARF in this run; memory is river's "
        "`_raw_memory_usage` at the end (MB = 10^6 bytes), pickled the pickle's size after "
        f"{PICKLE_AT:,} samples.",
        "",
        *markdown_table(["model", "accuracy", "samples/s", "x ARF", "memory MB", "pickled MB"], rows),
    ]
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / ("wide_sparse_quick.md" if args.quick else "wide_sparse.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
