"""split="partitions" against split="trees" (the sequential forest): accuracy and time.

    python benchmarks/distributed_partitions.py [--rows 200000] [--quick]

The first `rows` covtype rows (../shared/data; a synthetic Agrawal stream without it) are
cut in P partitions for P = 2, 4, 8 and 16, and learned on a LocalCluster of the machine's
cores (one-thread worker processes) by ``river_forests.distributed.learn`` with
``split="trees"`` (exactly the forest learn_many over the partitions in order gives,
whatever P) and with ``split="partitions"`` (a sub-forest per partition, merged), with the
default ``trees_per_partition`` (ceil(10 / P): 10 trees or a few more in all) and with 10
trees per partition. Default MondrianForestClassifier (10 trees), seed 1; accuracy on the
next 20,000 rows, held back. Twice: with the rows shuffled first (fixed permutation,
seed 0: partitions that are samples of one distribution, as a table's often are) and in
the file's order (covtype's rows are grouped by region: each partition then sees a
different part of the input space, and the held-back rows come after all of them).
Writes benchmarks/results/distributed_partitions.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.bsp_friedman import environment  # noqa: E402
from benchmarks.scaling_cores import data  # noqa: E402
from river_forests import MondrianForestClassifier  # noqa: E402
from river_forests import distributed as rfd  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
HELD = 20_000


def run(client, X0, y0, n, order):
    """Both splits at every P on the first `n` rows (shuffled or in order), scored on the
    next HELD."""
    import dask.dataframe as dd
    from distributed import wait

    perm = (np.random.default_rng(0).permutation(len(X0)) if order == "shuffled"
            else np.arange(len(X0)))
    X = X0.iloc[perm].reset_index(drop=True)
    y = y0.iloc[perm].reset_index(drop=True)
    Xt, yt = X.iloc[n:], y.iloc[n:].to_numpy()
    X, y = X.iloc[:n], y.iloc[:n]
    rows = []
    for P in (2, 4, 8, 16):
        Xd, yd = client.persist([dd.from_pandas(X, npartitions=P, sort=False),
                                 dd.from_pandas(y, npartitions=P, sort=False)])
        wait([Xd, yd])  # on the cluster before the clock starts
        for label, kwargs in (("trees", {}), ("partitions", {}),
                              ("partitions", {"trees_per_partition": 10})):
            model = MondrianForestClassifier(n_estimators=10, seed=1)
            t = time.perf_counter()
            forest = rfd.learn(model, Xd, yd, split=label, **kwargs)
            seconds = time.perf_counter() - t
            accuracy = float((forest.predict_many(Xt).to_numpy() == yt).mean())
            per = kwargs.get("trees_per_partition", "default")
            rows.append((order, P, label, per, forest.n_estimators, accuracy, seconds))
            print(rows[-1], flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--quick", action="store_true", help="20,000 rows")
    args = ap.parse_args()
    if args.quick:
        args.rows = 20_000
    from distributed import Client, LocalCluster

    warnings.filterwarnings("ignore", message="Sending large graph")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    env = environment("_mondrian")
    name, X0, y0 = data(args.rows + HELD)
    rows = []
    with LocalCluster(n_workers=cores, threads_per_worker=1, processes=True,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            Client(cluster) as client:
        for order in ("shuffled", "file order"):
            rows += run(client, X0, y0, args.rows, order)
    lines = ["# split=\"partitions\" against split=\"trees\"", "",
             f"`python benchmarks/distributed_partitions.py{' --quick' if args.quick else ''}`: "
             f"the first {args.rows + HELD:,} {name} rows, shuffled (a fixed permutation, seed "
             f"0) or in the file's order; the first {args.rows:,} of them learned in P "
             f"partitions on a LocalCluster of {cores} one-thread worker processes by a default "
             "MondrianForestClassifier(n_estimators=10, seed=1), the other "
             f"{HELD:,} held back for the accuracy. `trees` is exactly the sequential "
             "forest (learn_many over the partitions in order), whatever P.", "", *env, "",
             "| rows | P | split | trees per partition | trees | accuracy | seconds |",
             "|---|---:|---|---|---:|---:|---:|"]
    for order, P, label, per, n, acc, s in rows:
        lines.append(f"| {order} | {P} | {label} | {per if label == 'partitions' else ''} | {n} | "
                     f"{acc:.4f} | {s:.1f} |")
    out = RESULTS / ("distributed_partitions_quick.md" if args.quick
                     else "distributed_partitions.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
