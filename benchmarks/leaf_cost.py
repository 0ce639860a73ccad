"""What linear leaves cost: each regressor with ``leaf_model="linear"`` against ``"mean"``.

    python -m benchmarks.leaf_cost [--rows 3000] [--stream friedman] [--rounds 3]

Each regressor of the package (10 trees, seed 42, at its defaults but for the leaf model, no
intervals) runs progressive validation over the stream's first N rows, fed as the benchmark
feeds it (``river_forests._progressive``). Two measures of the same loop:

- **instructions** (callgrind, in a fresh process each, instrumentation switched on after the
  import, the data, a warm-up model's first 50 rows and the model are ready): deterministic
  on a shared machine;
- **time** inside the model's calls, the two leaf models interleaved in one process, the
  least of `rounds` rounds each (the full stream, 20,000 rows for friedman).

Issue 47 allows linear leaves at most 1.3 times the time of mean leaves. Needs valgrind for
the first measure. Writes ``results/experiments/leaf_cost.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

from benchmarks.compare_builds import ROOT

REGRESSORS = ["MondrianForestRegressor", "PurelyRandomForestRegressor", "BSPForestRegressor",
              "StreamPartitionForestRegressor", "XForestRegressor"]

_CHILD = r"""
import json, os, subprocess, sys
root, rows, stream, name, leaf = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
sys.path[:0] = [root]
import river_forests
from river import metrics
from benchmarks.streams import STREAMS
from river_forests._progressive import iter_progressive_run
data = STREAMS[stream].samples()[:rows]
def make():
    return getattr(river_forests, name)(n_estimators=10, seed=42, leaf_model=leaf,
                                        confidence_level=None)
for _ in iter_progressive_run(make(), data[:50], metrics.MAE(), 50):
    pass  # what the first rows import or build once is not the loop's
model = make()
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True)
for _ in iter_progressive_run(model, data, metrics.MAE(), len(data)):
    pass
subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True)
"""


def instructions(rows: int, stream: str, name: str, leaf: str) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                           "--callgrind-out-file=/dev/null", sys.executable, "-c", _CHILD,
                           str(ROOT), str(rows), stream, name, leaf],
                          check=True, capture_output=True, text=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def seconds(stream: str, name: str, rounds: int) -> dict:
    """The least time inside the model's calls over the whole stream, per leaf model, the
    two interleaved round by round."""
    from river import metrics

    import river_forests
    from benchmarks.streams import STREAMS
    from river_forests._progressive import iter_progressive_run

    data = STREAMS[stream].samples()
    best = {}
    for _ in range(rounds):
        for leaf in ("mean", "linear"):
            model = getattr(river_forests, name)(n_estimators=10, seed=42, leaf_model=leaf,
                                                 confidence_level=None)
            spent = 0.0
            for _, spent in iter_progressive_run(model, data, metrics.MAE(), len(data)):
                pass
            best[leaf] = min(best.get(leaf, float("inf")), spent)
    return best


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=3_000)
    parser.add_argument("--stream", default="friedman")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    from benchmarks import store
    from benchmarks.experiments import _common

    head = store.our_version()
    rows = []
    for name in REGRESSORS:
        mean, linear = (instructions(args.rows, args.stream, name, leaf) for leaf in ("mean", "linear"))
        t = seconds(args.stream, name, args.rounds)
        rows.append([name.replace("ForestRegressor", ""), f"{mean:,}", f"{linear:,}",
                     f"{linear / mean:.2f}", f"{t['mean']:.2f}", f"{t['linear']:.2f}",
                     f"{t['linear'] / t['mean']:.2f}"])
        print(rows[-1], file=sys.stderr, flush=True)
    lines = [f"# What linear leaves cost", "",
             f"`python -m benchmarks.leaf_cost --rows {args.rows} --stream {args.stream} "
             f"--rounds {args.rounds}`; code version `{head['key']}`, commit "
             f"{head['commit'][:10]}; {_common.machine()}. Progressive validation, 10 trees, "
             f"seed 42, each regressor at its defaults but for the leaf model, no intervals. "
             f"Instructions: the loop over the stream's first {args.rows:,} rows (callgrind); "
             f"time: the seconds inside the model's calls over the whole stream, the least of "
             f"{args.rounds} interleaved rounds.", ""]
    lines += _common.markdown_table(
        ["forest", "instructions, mean", "instructions, linear", "linear ÷ mean",
         "seconds, mean", "seconds, linear", "linear ÷ mean"], rows)
    out = ROOT / "benchmarks" / "results" / "experiments" / "leaf_cost.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
