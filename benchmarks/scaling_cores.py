"""How training scales with cores: learn_many's threads, and Dask's split="trees".

    python benchmarks/scaling_cores.py [--rows 200000] [--trees 8] [--partitions 4]
                                       [--repeats 3] [--quick]

On the first `rows` covtype rows (../shared/data; a synthetic Agrawal stream of the same
length without it), for the default MondrianForestClassifier and BSPForestClassifier of
`trees` trees, the data cut in `partitions` chunks learned in order:

* ``learn_many, k threads``: one process, ``learn_many`` on each chunk, its trees shared
  out among k threads (the calling one and k - 1 of the pool);
* ``distributed trees, k workers``: ``river_forests.distributed.learn(split="trees")`` on a
  ``LocalCluster`` of k worker processes of one thread each, the chunks persisted on the
  cluster first (as a table read on the cluster would be). The time is ``learn``'s, from
  the call to the forest back in the calling process: scheduling, moving the chunks to
  every group, moving the trees back, all included. The cluster's start is not.

for k from 1 to the machine's cores. Every k is run `repeats` times, rounds interleaved,
and the best time kept (a shared machine only ever adds time). The speedup is against
k = 1 of the same path, in the same run (a `--rows` other than the default writes
scaling_cores_<rows>.md). The script also checks that every forest equals
the sequential one, prediction for prediction, and records what moves: a chunk's bytes
(each chunk goes to every group's worker) and the trained forest's pickled bytes (the trees
come back once; each task copies its group's trees). Writes
benchmarks/results/scaling_cores.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import pickle
import warnings
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import river_forests._forest as plumbing  # noqa: E402
from benchmarks.bsp_friedman import environment  # noqa: E402
from river_forests import BSPForestClassifier, MondrianForestClassifier  # noqa: E402
from river_forests import distributed as rfd  # noqa: E402
from river_forests.evaluation import find_data_dir, load_stream  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
FORESTS = {"Mondrian": MondrianForestClassifier, "BSP": BSPForestClassifier}


def data(rows: int):
    if find_data_dir() is not None:
        name, stream = "covtype", load_stream("covtype", rows)
    else:
        from river.datasets import synth

        name, stream = "Agrawal (synthetic)", list(synth.Agrawal(seed=1).take(rows))
    X = pd.DataFrame([x for x, _ in stream]).astype(np.float64)
    y = pd.Series([y for _, y in stream])
    return name, X, y


def set_threads(k: int) -> None:
    """learn_many's pool: k threads in all (the calling thread and k - 1 pool threads)."""
    plumbing._WORKERS = k
    if plumbing._EXECUTOR is not None:
        plumbing._EXECUTOR.shutdown()
    plumbing._EXECUTOR = None


def time_learn_many(cls, trees, chunks, k):
    set_threads(k)
    forest = cls(n_estimators=trees, seed=1)
    t = time.perf_counter()
    for Xc, yc in chunks:
        forest.learn_many(Xc, yc)
    return time.perf_counter() - t, forest


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--trees", type=int, default=8)
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="10,000 rows, one round")
    args = ap.parse_args()
    if args.quick:
        args.rows, args.repeats = 10_000, 1
    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    env = environment("_mondrian")
    name, X, y = data(args.rows)
    held = X.iloc[-2000:]
    bounds = np.linspace(0, len(X), args.partitions + 1).astype(int)
    chunks = [(X.iloc[a:b], y.iloc[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    Xd = dd.from_pandas(X, npartitions=args.partitions, sort=False)
    yd = dd.from_pandas(y, npartitions=args.partitions, sort=False)

    best, same = {}, {}
    reference = {}
    warnings.filterwarnings("ignore", message="Sending large graph")  # persisting the chunks
    clusters = {k: LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                                dashboard_address=None, silence_logs=logging.ERROR)
                for k in range(1, cores + 1)}
    sizes = {}
    try:
        for _ in range(args.repeats):
            for label, cls in FORESTS.items():
                for k in range(1, cores + 1):
                    seconds, forest = time_learn_many(cls, args.trees, chunks, k)
                    key = (label, "learn_many", k)
                    best[key] = min(best.get(key, np.inf), seconds)
                    pred = forest.predict_proba_many(held).to_numpy()
                    reference.setdefault(label, pred)
                    sizes[label] = len(pickle.dumps(forest, protocol=pickle.HIGHEST_PROTOCOL))
                    same[key] = same.get(key, True) and np.array_equal(pred, reference[label])
                    with Client(clusters[k]) as client:
                        Xp, yp = client.persist([Xd, yd])
                        wait([Xp, yp])  # the chunks on the cluster before the clock starts
                        t = time.perf_counter()
                        forest = rfd.learn(cls(n_estimators=args.trees, seed=1), Xp, yp,
                                           split="trees")
                        seconds = time.perf_counter() - t
                    key = (label, "distributed trees", k)
                    best[key] = min(best.get(key, np.inf), seconds)
                    pred = forest.predict_proba_many(held).to_numpy()
                    same[key] = same.get(key, True) and np.array_equal(pred, reference[label])
                    print(label, k, {kk: round(v, 2) for kk, v in best.items() if kk[0] == label},
                          flush=True)
    finally:
        for c in clusters.values():
            c.close()
        set_threads(plumbing._WORKERS)

    lines = ["# Scaling with cores: learn_many and distributed.learn(split=\"trees\")", "",
             f"`python benchmarks/scaling_cores.py{' --quick' if args.quick else ''}`: the first "
             f"{len(X):,} {name} rows in {args.partitions} chunks learned in order, "
             f"{args.trees} trees, default parameters, seed 1; best of {args.repeats} "
             "interleaved rounds. The speedup is against one core of the same path, same run; "
             "`same forest`: predictions on 2,000 rows equal the sequential forest's.", "",
             *env, "",
             f"What moves: a chunk is {chunks[0][0].memory_usage(deep=True).sum() / 2**20:.1f} "
             "MiB of float64 rows; the trained forests pickle to "
             + ", ".join(f"{sizes[label] / 2**20:.1f} MiB ({label})" for label in FORESTS) + ".",
             "",
             "| forest | path | cores | seconds | samples/s | speedup | same forest |",
             "|---|---|---:|---:|---:|---:|---|"]
    for label in FORESTS:
        for path in ("learn_many", "distributed trees"):
            base = best[(label, path, 1)]
            for k in range(1, cores + 1):
                s = best[(label, path, k)]
                lines.append(f"| {label} | {path} | {k} | {s:.2f} | {len(X) / s:,.0f} | "
                             f"{base / s:.2f}x | {'yes' if same[(label, path, k)] else 'NO'} |")
    suffix = "_quick" if args.quick else ("" if args.rows == 200_000 else f"_{args.rows}")
    out = RESULTS / f"scaling_cores{suffix}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
