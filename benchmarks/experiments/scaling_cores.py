"""How training scales with cores: learn_many's threads, and Dask's split="trees".

    python -m benchmarks experiment scaling_cores --jobs 1           # 200,000 and 500,000 rows: ~5 minutes
    python -m benchmarks experiment scaling_cores --quick --jobs 1   # 10,000 rows, one round: ~15 s

**Run it with ``--jobs 1`` on an otherwise idle machine.** It measures wall time, with every
core of the machine in use (threads, then a Dask ``LocalCluster`` of k worker processes): a
measurement beside another one, or beside anything else, measures the contention, not the
scaling. Each measurement is one whole configuration (one number of rows), run in order.

On the first `rows` covtype rows (``covtype.csv.gz`` in the shared data folder, read as the
former script read it; a synthetic Agrawal stream of the same length without it), 200,000 and
500,000 rows (10,000 with ``--quick``), for the default MondrianForestClassifier and
BSPForestClassifier of 8 trees, the data cut in 4 chunks learned in order:

* ``learn_many, k threads``: one process, ``learn_many`` on each chunk, its trees shared
  out among k threads (the calling one and k - 1 of the pool);
* ``distributed trees, k workers``: ``river_forests.distributed.learn(split="trees")`` on a
  ``LocalCluster`` of k worker processes of one thread each, the chunks persisted on the
  cluster first (as a table read on the cluster would be). The time is ``learn``'s, from
  the call to the forest back in the calling process: scheduling, moving the chunks to
  every group, moving the trees back, all included. The cluster's start is not.

for k from 1 to the machine's cores. Every k is run 3 times (once with ``--quick``), rounds
interleaved, and the best time kept (a shared machine only ever adds time). The speedup is
against k = 1 of the same path, in the same measurement. It also checks that every forest
equals the sequential one, prediction for prediction (on the last 2,000 rows), and records
what moves: a chunk's bytes (each chunk goes to every group's worker) and the trained forest's
pickled bytes (the trees come back once; each task copies its group's trees). Writes
``results/experiments/scaling_cores.md`` and ``.png`` (speedup against cores), ``_quick``
names with ``--quick``.

What to expect (the runs recorded with the former script, two cores): ``learn_many`` 1.6x to
1.75x on two cores, ``split="trees"`` 1.2x to 1.65x (its fixed cost of moving chunks and trees
weighs less with more rows), every forest equal to the sequential one.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.experiments import _common

TREES = 8
PARTITIONS = 4
REPEATS = 3
FULL_ROWS = [200_000, 500_000]
QUICK_ROWS = 10_000
HELD = 2_000
FORESTS = ["Mondrian", "BSP"]
PATHS = ["learn_many", "distributed trees"]
TITLE = 'Scaling with cores: learn_many and distributed.learn(split="trees")'


def _forest_class(label: str):
    from river_forests import BSPForestClassifier, MondrianForestClassifier

    return {"Mondrian": MondrianForestClassifier, "BSP": BSPForestClassifier}[label]


# ---------------------------------------------------------------------------- the data

def data(rows: int):
    """The first `rows` covtype rows as a float64 DataFrame and a Series, each value read with
    Python's ``float`` (the former script's loader); Agrawal's synthetic stream without the
    shared data folder."""
    import pandas as pd

    from river_forests.__main__ import find_data_dir

    if find_data_dir() is not None:
        name, stream = "covtype", _common.samples("covtype", rows)
    else:
        from river.datasets import synth

        name, stream = "Agrawal (synthetic)", list(synth.Agrawal(seed=1).take(rows))
    X = pd.DataFrame([x for x, _ in stream]).astype(np.float64)
    y = pd.Series([y for _, y in stream])
    return name, X, y


def environment() -> str:
    import dask
    import distributed
    import pandas as pd

    return (f"{_common.machine()}, pandas {pd.__version__}, dask {dask.__version__}, distributed "
            f"{distributed.__version__}; `_mondrian` extension {_common.extension_built()}; load "
            f"average at start {_common.load_average()}")


# ---------------------------------------------------------------------------- one configuration

def set_threads(k: int) -> None:
    """learn_many's pool: k threads in all (the calling thread and k - 1 pool threads)."""
    import river_forests._forest as plumbing

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


def scaling(rows: int, trees: int, partitions: int, repeats: int) -> dict:
    """Every (forest, path, k), `repeats` interleaved rounds, the best time of each."""
    import logging
    import os
    import pickle
    import warnings

    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    import river_forests._forest as plumbing
    from river_forests import distributed as rfd

    t_start = time.perf_counter()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    env = environment()
    name, X, y = data(rows)
    held = X.iloc[-HELD:]
    bounds = np.linspace(0, len(X), partitions + 1).astype(int)
    chunks = [(X.iloc[a:b], y.iloc[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    Xd = dd.from_pandas(X, npartitions=partitions, sort=False)
    yd = dd.from_pandas(y, npartitions=partitions, sort=False)

    best, same, reference, sizes = {}, {}, {}, {}
    workers = plumbing._WORKERS
    warnings.filterwarnings("ignore", message="Sending large graph")  # persisting the chunks
    clusters = {k: LocalCluster(n_workers=k, threads_per_worker=1, processes=True,
                                dashboard_address=None, silence_logs=logging.ERROR)
                for k in range(1, cores + 1)}
    try:
        for _ in range(repeats):
            for label in FORESTS:
                cls = _forest_class(label)
                for k in range(1, cores + 1):
                    seconds, forest = time_learn_many(cls, trees, chunks, k)
                    key = (label, "learn_many", k)
                    best[key] = min(best.get(key, np.inf), seconds)
                    pred = forest.predict_proba_many(held).to_numpy()
                    reference.setdefault(label, pred)
                    sizes[label] = len(pickle.dumps(forest, protocol=pickle.HIGHEST_PROTOCOL))
                    same[key] = same.get(key, True) and bool(np.array_equal(pred, reference[label]))
                    with Client(clusters[k]) as client:
                        Xp, yp = client.persist([Xd, yd])
                        wait([Xp, yp])  # the chunks on the cluster before the clock starts
                        t = time.perf_counter()
                        forest = rfd.learn(cls(n_estimators=trees, seed=1), Xp, yp, split="trees")
                        seconds = time.perf_counter() - t
                    key = (label, "distributed trees", k)
                    best[key] = min(best.get(key, np.inf), seconds)
                    pred = forest.predict_proba_many(held).to_numpy()
                    same[key] = same.get(key, True) and bool(np.array_equal(pred, reference[label]))
    finally:
        for c in clusters.values():
            c.close()
        set_threads(workers)
    return {
        "data": name, "rows": int(len(X)), "trees": trees, "partitions": partitions,
        "repeats": repeats, "cores": cores, "environment": env,
        "chunk_mib": float(chunks[0][0].memory_usage(deep=True).sum() / 2**20),
        "pickled": {label: int(b) for label, b in sizes.items()},
        "timings": [{"forest": f, "path": p, "cores": k, "seconds": float(best[(f, p, k)]),
                     "same": same[(f, p, k)]} for (f, p, k) in best],
        "wall_s": time.perf_counter() - t_start,
    }


# ---------------------------------------------------------------------------- the experiment

def jobs(quick: bool) -> list[tuple[str, dict]]:
    rows = [QUICK_ROWS] if quick else FULL_ROWS
    return [(f"rows-{n}", {"rows": n, "trees": TREES, "partitions": PARTITIONS,
                           "repeats": 1 if quick else REPEATS}) for n in rows]


def measure(params: dict) -> dict:
    return scaling(params["rows"], params["trees"], params["partitions"], params["repeats"])


# ---------------------------------------------------------------------------- the report

def _table(res: dict) -> list[str]:
    t = {(r["forest"], r["path"], r["cores"]): r for r in res["timings"]}
    lines = ["| forest | path | cores | seconds | samples/s | speedup | same forest |",
             "|---|---|---:|---:|---:|---:|---|"]
    for label in FORESTS:
        for path in PATHS:
            if (label, path, 1) not in t:
                continue
            base = t[(label, path, 1)]["seconds"]
            for k in range(1, res["cores"] + 1):
                r = t[(label, path, k)]
                s = r["seconds"]
                lines.append(f"| {label} | {path} | {k} | {s:.2f} | {res['rows'] / s:,.0f} | "
                             f"{base / s:.2f}x | {'yes' if r['same'] else 'NO'} |")
    return lines


def plot(results: list, path) -> None:
    plt = _common.pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.3), squeeze=False)
    for ax, res in zip(axes[0], results):
        t = {(r["forest"], r["path"], r["cores"]): r["seconds"] for r in res["timings"]}
        ks = list(range(1, res["cores"] + 1))
        for i, label in enumerate(FORESTS):
            for way, ls, marker in zip(PATHS, ["-", "--"], ["o", "s"]):
                if (label, way, 1) in t:
                    ax.plot(ks, [t[(label, way, 1)] / t[(label, way, k)] for k in ks], color=f"C{i}",
                            ls=ls, marker=marker, label=f"{label}, {way}")
        ax.plot(ks, ks, color="k", lw=0.8, ls=":", label="linear")
        ax.set_xticks(ks)
        _common.label_axes(ax, "cores (threads or worker processes)", "speedup against one core",
                           f"{res['rows']:,} {res['data']} rows, {res['trees']} trees, "
                           f"{res['partitions']} chunks", title_size=10, grid=dict(alpha=0.3),
                           legend=dict(fontsize=7, loc="upper left"))
    _common.save_figure(fig, path, TITLE, dpi=110)


def report(results: dict, quick: bool) -> None:
    md, png = _common.outputs("scaling_cores", quick)
    wanted = jobs(quick)
    done = [results[k] for k, _ in wanted if k in results]
    missing = _common.missing(wanted, results)
    cmd = "python -m benchmarks experiment scaling_cores" + (" --quick" if quick else "") + " --jobs 1"
    lines = [
        f"# {TITLE}" + (" (quick)" if quick else ""),
        "",
        f"`{cmd}`; {_common.version_line()}.",
        "",
        "The claim: training a forest scales with the cores, whether its trees share them as "
        "threads of one process (`learn_many`) or as Dask worker processes "
        "(`river_forests.distributed.learn(split=\"trees\")`), and both give the sequential "
        "forest.",
        "",
        f"The setup: the first rows ({', '.join(f'{n:,}' for n in (p['rows'] for _, p in wanted))}) "
        f"of covtype in {PARTITIONS} chunks learned in order, {TREES} trees, default parameters, "
        f"seed 1; best of {wanted[0][1]['repeats']} interleaved rounds. `learn_many`: one process, "
        "its trees shared out among k threads. `distributed trees`: a `LocalCluster` of k worker "
        "processes of one thread each, the chunks persisted on it before the clock starts; the "
        "time is `learn`'s, from the call to the forest back (the cluster's start excluded). The "
        "speedup is against one core of the same path, same measurement; `same forest`: "
        f"predictions on the last {HELD:,} rows equal the sequential forest's. Wall times: run "
        "with `--jobs 1` on an otherwise idle machine.",
        "",
    ]
    if missing:
        lines += [_common.missing_line(missing), ""]
    for res in done:
        lines += [
            f"## {res['rows']:,} {res['data']} rows", "",
            f"Environment: {res['environment']}. Measured in {res['wall_s']:.0f} s.", "",
            f"What moves: a chunk is {res['chunk_mib']:.1f} MiB of float64 rows; the trained "
            "forests pickle to " + ", ".join(f"{res['pickled'][label] / 2**20:.1f} MiB ({label})"
                                             for label in FORESTS if label in res["pickled"]) + ".",
            "",
            *_table(res),
            "",
        ]
    if done:
        plot(done, png)
        lines += [f"Figure: `{png.name}` (speedup against cores, one panel per number of rows; "
                  "the dotted line is linear).", ""]
    md.write_text("\n".join(lines) + "\n")
