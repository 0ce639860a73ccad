"""How the stream-partitioning forest's defaults were chosen.

    python benchmarks/stream_partition_defaults.py           # 7 streams, ~15 minutes
    python benchmarks/stream_partition_defaults.py --quick   # streams cut to 5,000 samples

denil2013's section 5 uses lambda = 1 to 10, m = 10, tau = 0.001 to 0.1, alpha(d) = 1.1^d to
25 * 1.01^d and beta = 4 to 1000 alpha: fixed-size offline problems, not streams. Here the
choice is empirical: progressive-validation accuracy (10 trees, seed 1) on Phishing,
Bananas, ImageSegments, elec.csv, covtype's first 50,000 rows, Agrawal and RandomRBF
(50,000 each). Stage 1 crosses alpha, lambda (`candidate_features`), tau (`min_gain`) and
beta; stage 2 varies, one at a time from the best of stage 1, alpha_growth, m
(`candidate_points`), the structure fraction, smoothing, aggregation, the fringe and the
node cap; stage 3 checks the defaults drawn from both (accuracy weighed with memory) one
change at a time. The mean accuracy over the streams ranks the settings; the model's
pickled size (mean over streams) is reported beside it, as the fringe is most of it. Writes
benchmarks/results/stream_partition_defaults.md.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import pickle
import sys
import time
from pathlib import Path

from river import metrics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests import StreamPartitionForestClassifier  # noqa: E402
from river_forests.evaluation import load_stream, markdown_table, progressive_run  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
STREAMS = {"phishing": None, "bananas": None, "imagesegments": None, "elec": None,
           "covtype": 50_000, "agrawal": 50_000, "randomrbf": 50_000}

STAGE1 = {
    "alpha": [2.0, 5.0, 10.0, 25.0],
    "candidate_features": [1.0, 4.0, 9.0],
    "min_gain": [0.001, 0.01, 0.05],
    "beta": [4.0, 1000.0],
}
STAGE2 = {
    "alpha_growth": [1.01, 1.05, 1.2],
    "candidate_points": [5, 20],
    "structure_fraction": [0.3, 0.7],
    "smoothing": [0.0, 1.0, 4.0],
    "aggregation": ["vote"],
    "max_active_leaves": [64, 1024],
    "max_nodes": [1023, 16383],
}
#: stage 3: the defaults chosen from stages 1-2 (memory weighed with accuracy), then
#: one change at a time around them
STAGE3 = [
    {},
    {"candidate_features": 9.0},
    {"candidate_features": 32.0},
    {"alpha": 1.0},
    {"alpha_growth": 1.01},
    {"alpha_growth": 1.1},
    {"candidate_points": 10},
    {"beta": 1000.0},
    {"structure_fraction": 0.6},
    {"smoothing": 0.5},
    {"max_active_leaves": 64},
    {"max_active_leaves": 256},
]


def evaluate(data, params):
    accs, sizes = [], []
    for stream in data.values():
        model = StreamPartitionForestClassifier(n_estimators=10, seed=1, **params)
        accs.append(progressive_run(model, stream, metrics.Accuracy(), progress=None).metric)
        sizes.append(len(pickle.dumps(model)))
    return accs, sum(sizes) / len(sizes)


def row(params, accs, size):
    return ([", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in params.items())]
            + [f"{100 * a:.2f}" for a in accs] + [f"{100 * sum(accs) / len(accs):.2f}",
                                                   f"{size / 2**20:.2f}"])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    data = {s: load_stream(s, 5000 if args.quick else n) for s, n in STREAMS.items()}
    header = ["parameters"] + list(data) + ["mean", "MiB"]

    stage1 = []
    for values in itertools.product(*STAGE1.values()):
        params = dict(zip(STAGE1, values))
        accs, size = evaluate(data, params)
        stage1.append((params, row(params, accs, size)))
        print(" | ".join(stage1[-1][1]), flush=True)
    stage1.sort(key=lambda r: -float(r[1][-2]))
    best = stage1[0][0]

    stage2 = [stage1[0][1]]
    for name, values in STAGE2.items():
        for v in values:
            accs, size = evaluate(data, dict(best, **{name: v}))
            stage2.append(row({name: v}, accs, size))
            print(" | ".join(stage2[-1]), flush=True)
    stage1 = [r for _, r in stage1]

    defaults = {k: p.default for k, p in inspect.signature(StreamPartitionForestClassifier).parameters.items()
                if k in set(STAGE1) | set(STAGE2)}
    stage3 = []
    for change in STAGE3:
        accs, size = evaluate(data, dict(defaults, **change))
        stage3.append(row(change or {"defaults": "(see below)"}, accs, size))
        print(" | ".join(stage3[-1]), flush=True)

    lines = [
        "# Stream-partitioning forest: choosing the defaults",
        "",
        "Progressive accuracy (%), 10 trees, seed 1, parameters not named at their defaults"
        + (" (quick: streams cut to 5,000 samples)" if args.quick else "")
        + ". Streams: " + ", ".join(f"{s} ({len(d):,})" for s, d in data.items())
        + ". MiB: the pickled model, mean over the streams.",
        "",
        "## Stage 1: alpha x lambda x tau x beta (best 15 of "
        f"{len(stage1)}, by mean accuracy)",
        "",
    ]
    lines += markdown_table(header, stage1[:15])
    lines += ["", "Worst of stage 1: " + " | ".join(stage1[-1]), "",
              "## Stage 2: one parameter at a time from the best of stage 1 (first row)", ""]
    lines += markdown_table(header, stage2)
    lines += ["", "## Stage 3: the defaults, then one change at a time", "",
              "Defaults: " + ", ".join(f"{k}={v}" for k, v in defaults.items()) + ".", ""]
    lines += markdown_table(header, stage3)
    lines += ["", f"Run time: {time.perf_counter() - start:.0f} s."]
    out = RESULTS / ("stream_partition_defaults_quick.md" if args.quick
                     else "stream_partition_defaults.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
