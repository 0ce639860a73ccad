"""biau2008's forest-level results, for every forest: vote vs average, and subsampling q_n.

    python benchmarks/biau_forest_level.py           # elec.csv + covtype's first 100,000 rows
    python benchmarks/biau_forest_level.py --quick   # first 10,000 rows of each

Section 2 of the paper: a forest may combine its trees by majority vote (the voting
classifier) or by averaging their class probabilities (the averaged classifier); both are
consistent when the trees are (proposition 1). Section 5: each tree may learn a subsample,
every sample kept with probability q_n, and theorem 7 shows that a rate decreasing with n
(q_n -> 0, n q_n -> infinity) can make even an inconsistent rule consistent. Every forest of
the package has both as parameters (``aggregation``; ``subsampling``, ``subsample_rate``,
``subsample_decay``: q_n = subsample_rate * n^-subsample_decay).

For every classifier in ``river_forests.__all__`` (the purely random forest with both
splits), 10 trees, seed 1, default parameters otherwise, progressive validation on elec.csv
and covtype's first 100,000 rows, with:

* average (the default) and vote;
* Bernoulli subsampling at a fixed q = 0.632 (about the share of distinct samples in a
  bootstrap sample, Breiman's bagging) and online bagging (Poisson(1) weights);
* Bernoulli subsampling with q_n = n^-beta for beta in {0.2, 0.4}: each tree learns about
  n^(1 - beta) / (1 - beta) samples, a vanishing share of the stream.

Reports accuracy, samples/s relative to the default configuration of the same forest in the
same run, and the samples a tree learned (mean over trees). Writes
benchmarks/results/biau_forest_level.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from river import metrics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests.evaluation import load_stream, markdown_table, our_variants, progressive_run  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

CONFIGS = {
    "average": {},
    "vote": {"aggregation": "vote"},
    "bernoulli q=0.632": {"subsampling": "bernoulli", "subsample_rate": 0.632},
    "poisson(1)": {"subsampling": "poisson", "subsample_rate": 1.0},
    "q_n = n^-0.2": {"subsampling": "bernoulli", "subsample_rate": 1.0, "subsample_decay": 0.2},
    "q_n = n^-0.4": {"subsampling": "bernoulli", "subsample_rate": 1.0, "subsample_decay": 0.4},
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    n = 10_000 if args.quick else None
    streams = {"elec": load_stream("elec", n), "covtype": load_stream("covtype", n or 100_000)}
    lines = [
        "# biau2008 at the forest level: vote vs average, and subsampling q_n",
        "",
        "Progressive accuracy (%), 10 trees, seed 1, other parameters default. Speed is "
        "relative to the same forest's default (average, no subsampling) in the same run; "
        "'learned' is the mean number of samples a tree learned.",
    ]
    for stream, data in streams.items():
        lines += ["", f"## {stream} ({len(data):,} samples)", ""]
        header = ["forest"] + list(CONFIGS)
        rows = []
        for label, (cls, params) in our_variants("clf").items():
            cells, base = [label], None
            for config, extra in CONFIGS.items():
                model = cls(n_estimators=10, seed=1, **params, **extra)
                r = progressive_run(model, data, metrics.Accuracy(), progress=None)
                base = base or r.samples_per_s
                learned = sum(t.samples_seen for t in model.trees) / len(model.trees)
                cells.append(f"{100 * r.metric:.2f} ({r.samples_per_s / base:.2f}x, {learned:,.0f})")
                print(stream, label, config, cells[-1], flush=True)
            rows.append(cells)
        lines += markdown_table(header, rows)
        lines += ["", "Cells: accuracy (speed relative to average, samples learned per tree)."]
    lines += ["", f"Run time: {time.perf_counter() - start:.0f} s."]
    out = RESULTS / ("biau_forest_level_quick.md" if args.quick else "biau_forest_level.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
