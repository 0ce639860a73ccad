"""Mini-batch learning against a learn_one loop, per sample, same run.

    python benchmarks/learn_many_speed.py

On elec.csv (45,312 x 6) and the first 50,000 covtype rows, default MondrianForestClassifier
(10 trees): the time to learn the whole stream with a learn_one loop, and with learn_many on
mini-batches of 100, 1,000 and 10,000 rows (the DataFrames are built beforehand; both paths
give exactly the same model, which the script checks). learn_many runs the trees in parallel
threads (one per core, GIL released); the `1 thread` rows force the sequential path to show
what the threads add. Each time is the best of 9 interleaved runs. Writes
benchmarks/results/learn_many_speed.md.
"""

from __future__ import annotations

import os
import pickle
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import river_forests._forest as plumbing  # noqa: E402
from river_forests import MondrianForestClassifier  # noqa: E402
from river_forests.evaluation import load_stream  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def run(name, n=None, repeats=9):
    """Time every path `repeats` times, interleaved, and keep each path's best time: on a
    shared machine the other processes only ever add time."""
    data = load_stream(name, n)
    X = pd.DataFrame([x for x, _ in data])
    y = pd.Series([y for _, y in data])
    sizes = (100, 1000, 10_000)
    batches = {
        size: [(X.iloc[i : i + size], y.iloc[i : i + size]) for i in range(0, len(X), size)]
        for size in sizes
    }
    best = {}
    for _ in range(repeats):
        one = MondrianForestClassifier(seed=1)
        t = time.perf_counter()
        for x, yy in data:
            one.learn_one(x, yy)
        best["one"] = min(best.get("one", float("inf")), time.perf_counter() - t)
        reference = pickle.dumps([t.arrays() for t in one.trees])
        for threads in ("all", "1"):
            plumbing.PARALLEL_MIN_ROWS = 64 if threads == "all" else 10**12
            for size in sizes:
                many = MondrianForestClassifier(seed=1)
                t = time.perf_counter()
                for Xb, yb in batches[size]:
                    many.learn_many(Xb, yb)
                seconds = time.perf_counter() - t
                best[threads, size] = min(best.get((threads, size), float("inf")), seconds)
                same = pickle.dumps([t.arrays() for t in many.trees]) == reference
                assert same, "learn_many must give exactly the learn_one model"
        plumbing.PARALLEL_MIN_ROWS = 64
    rows = [(name, "learn_one loop", "-", best["one"], 1.0)]
    for threads in ("all", "1"):
        for size in sizes:
            seconds = best[threads, size]
            rows.append((name, f"learn_many, batch {size}", threads, seconds, best["one"] / seconds))
    return len(data), rows


def main():
    lines = [
        "# learn_many vs a learn_one loop",
        "",
        f"Produced by `python benchmarks/learn_many_speed.py` on {os.cpu_count()} cores "
        f"(load average {os.getloadavg()[0]:.1f} at the start: the `all` rows only gain where "
        "a core is free). Default MondrianForestClassifier, 10 trees; identical models checked; "
        "each time is the best of 9 interleaved runs.",
        "",
        "| stream | path | threads | us per sample | speed-up vs learn_one |",
        "|---|---|---|---|---|",
    ]
    for name, n in (("elec", None), ("covtype", 50_000)):
        count, rows = run(name, n)
        for stream, path, threads, seconds, ratio in rows:
            lines.append(f"| {stream} | {path} | {threads} | {1e6 * seconds / count:.2f} | {ratio:.2f} |")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "learn_many_speed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
