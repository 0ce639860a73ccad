"""distributed.learn(split="partitions") on ordered and shuffled partitions (issue 33).

    python -m benchmarks experiment dask_partitions --jobs 1           # ~8 minutes
    python -m benchmarks experiment dask_partitions --quick --jobs 1   # ~1 minute

**Run it with ``--jobs 1`` on an otherwise idle machine**: it measures wall time on a Dask
``LocalCluster`` of two one-thread worker processes (one cluster per measurement).

The claim: with ``mix=True`` (the default: every partition's rows dealt across G groups, each
group's sub-forest learning a 1/G sample of the whole history in order), ``split="partitions"``
is as accurate as the sequential forest whatever the partitions' order, where the old
behaviour (``mix=False``: a sub-forest per partition, on its rows alone) falls behind when
the partitions follow the file's order; and it takes less wall time than the sequential
forest.

Each measurement is one (data, forest): for the training rows in the file's order
(``ordered``) and shuffled once (``shuffled``, numpy seed 0), the test rows the same:

* ``covtype``: rows 0 to 200,000 of covtype.csv.gz (20,000 with ``--quick``) learned,
  the next 20,000 (2,000) tested; 4 and 16 partitions of consecutive rows;
* ``elec``: elec.csv's 48 rows a day in weeks of 336 rows, the first 130 weeks (43,680 rows)
  learned in 130 partitions, one a week, the last 1,632 rows (the 4.9 weeks left) tested
  (``--quick``: 30 weeks learned, the next 1,632 rows tested).

Per seed (1 to 8 for the Mondrian forest on covtype, 1 to 5 on elec, 1 to 3 for the purely
random forest; 1 to 2 with ``--quick``) it learns the forest (10 trees, defaults, that
seed): ``sequential``, ``learn_many`` over all the training rows in order in this process,
under ``river_forests._forest.serial()`` (one thread); ``mix``,
``distributed.learn(split="partitions")`` (G = ``default_groups``); where one tree a group
is other groups (covtype's 16 partitions, elec's 130) also ``mix, G = trees`` (``groups=10``):
elec, the tuning half's stream, is where the default G is chosen; ``no mix``, the same
with ``mix=False``. The
partitions are persisted on the cluster before the clock starts; a distributed time runs
from the call to the forest back in this process (the cluster's start excluded). Seed 1 is
learned ``rounds`` times (interleaved, the best time kept: a shared machine only ever adds
time), and its forests must predict alike in every round (``same``: bit-identical
probabilities). Bytes moved: every worker's incoming transfers from other workers
(``Worker.transfer_incoming_log``, cleared before each call): rows (groups' shares and whole
partitions); and the merged forest's pickle (what comes back to the caller). Writes
``results/experiments/dask_partitions.md`` and
``.png`` (``_quick`` names with ``--quick``).
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.experiments import _common

TREES = 10
WEEK = 48 * 7
FULL = {
    "covtype": {"rows": 200_000, "held": 20_000, "partitions": [4, 16]},
    "elec": {"rows": 130 * WEEK, "held": 45_312 - 130 * WEEK, "partitions": ["weeks"]},
}
QUICK = {
    "covtype": {"rows": 20_000, "held": 2_000, "partitions": [4, 16]},
    "elec": {"rows": 30 * WEEK, "held": 1_632, "partitions": ["weeks"]},
}
#: (data, forest) measured: the default forest on both, one other forest on covtype
RUNS = [("covtype", "Mondrian"), ("elec", "Mondrian"), ("covtype", "PurelyRandom")]
#: seeds of each (full run): a forest's accuracy on covtype's next 20,000 rows moves by 2 to 3
#: points from seed to seed, so the default forest's differences are means over 8
SEEDS = {("covtype", "Mondrian"): 8, ("elec", "Mondrian"): 5, ("covtype", "PurelyRandom"): 3}
ORDERS = ["ordered", "shuffled"]
#: the distributed ways: the default (mix, `default_groups`), the old one (no mix), and mix
#: with one tree a group (G = min(partitions, trees)) where that is other groups: the default
#: G is chosen between the two on elec, the tuning half's stream (covtype is the report half's)
WAYS = ["mix", "mix, G = trees", "no mix"]
TITLE = 'distributed.learn(split="partitions") on ordered and shuffled partitions'


def _forest_class(label: str):
    from river_forests import MondrianForestClassifier, PurelyRandomForestClassifier

    return {"Mondrian": MondrianForestClassifier,
            "PurelyRandom": PurelyRandomForestClassifier}[label]


def frames(name: str, rows: int, held: int):
    """The first ``rows + held`` rows of covtype or elec (the shared data folder, each value
    read with Python's ``float``) as a float64 DataFrame and a Series."""
    import pandas as pd

    stream = _common.samples(name, rows + held)
    return (pd.DataFrame([x for x, _ in stream]).astype(np.float64),
            pd.Series([y for _, y in stream]))


# ---------------------------------------------------------------------------- one measurement

def _incoming(dask_worker) -> dict:
    """The bytes of rows this worker received from the others since `_clear` (Dask's
    estimates): groups' shares, and whole partitions (where Dask ran a partition's task on
    the other worker). Not the sub-forests: Dask's estimate of an object it does not know is
    not its bytes."""
    moved = {"shares": 0, "partitions": 0}
    for entry in dask_worker.transfer_incoming_log:
        for key, nbytes in entry["keys"].items():
            if str(key).startswith("river-forests-deal-"):
                moved["shares"] += int(nbytes)
            elif not str(key).startswith("river-forests-"):
                moved["partitions"] += int(nbytes)
    return moved


def _clear(dask_worker) -> None:
    dask_worker.transfer_incoming_log.clear()


def _moved(per_worker) -> dict:
    per_worker = list(per_worker)
    return {"moved": sum(m["shares"] + m["partitions"] for m in per_worker),
            "moved_partitions": sum(m["partitions"] for m in per_worker)}


def _digest(forest, X) -> str:
    import hashlib

    return hashlib.sha256(forest.predict_proba_many(X).to_numpy().tobytes()).hexdigest()[:16]


def _accuracy(forest, X, y) -> float:
    return float((forest.predict_many(X).to_numpy() == y).mean())


def ways(n_partitions: int) -> list[str]:
    """The distributed ways measured on `n_partitions` partitions."""
    from river_forests.distributed import default_groups

    one_a_group = min(n_partitions, TREES)
    return [w for w in WAYS if w != "mix, G = trees"
            or default_groups(TREES, n_partitions) != one_a_group]


def groups(way: str, n_partitions: int) -> int | None:
    return min(n_partitions, TREES) if way == "mix, G = trees" else None


def partitions(name: str, layout, rows: int) -> int:
    """The number of partitions of a layout: a count, or ``"weeks"`` (one per 336 rows)."""
    return -(-rows // WEEK) if layout == "weeks" else int(layout)


def compare(data: str, forest: str, rows: int, held: int, layouts: list, seeds: list,
            rounds: int) -> dict:
    """Every (order, layout, way, seed) of one data set and forest on one cluster."""
    import logging
    import pickle
    import warnings

    import dask.dataframe as dd
    from distributed import Client, LocalCluster, wait

    from benchmarks.experiments.scaling_cores import environment
    from river_forests import distributed as rfd
    from river_forests._forest import serial

    t_start = time.perf_counter()
    env = environment()
    cls = _forest_class(forest)
    X, y = frames(data, rows, held)
    test, truth = X.iloc[rows:], y.iloc[rows:].to_numpy()
    runs = []
    warnings.filterwarnings("ignore", message="Sending large graph")  # persisting the rows
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        for order in ORDERS:
            rng = np.random.default_rng(0)
            index = np.arange(rows) if order == "ordered" else rng.permutation(rows)
            Xo = X.iloc[index].reset_index(drop=True)
            yo = y.iloc[index].reset_index(drop=True)
            table_bytes = int(Xo.memory_usage().sum() + yo.memory_usage())
            persisted = {}
            for layout in layouts:
                P = partitions(data, layout, rows)
                Xd = dd.from_pandas(Xo, chunksize=-(-rows // P), sort=False)
                yd = dd.from_pandas(yo, chunksize=-(-rows // P), sort=False)
                assert Xd.npartitions == P, (Xd.npartitions, P)
                persisted[layout] = client.persist([Xd, yd])
                wait(persisted[layout])
            for seed in seeds:
                for round_ in range(rounds if seed == seeds[0] else 1):
                    model = cls(n_estimators=TREES, seed=seed)
                    sequential = model.clone()
                    with serial():
                        t = time.perf_counter()
                        sequential.learn_many(Xo, yo)
                        seconds = time.perf_counter() - t
                    runs.append({"order": order, "layout": "all", "way": "sequential",
                                 "seed": seed, "round": round_, "seconds": seconds,
                                 "accuracy": _accuracy(sequential, test, truth),
                                 "digest": _digest(sequential, test), "moved": 0,
                                 "moved_partitions": 0,
                                 "groups": None,
                                 "trees": sequential.n_estimators})
                    for layout in layouts:
                        Xp, yp = persisted[layout]
                        for way in ways(Xp.npartitions):
                            client.run(_clear)
                            t = time.perf_counter()
                            learned = rfd.learn(model, Xp, yp, split="partitions",
                                                mix=way != "no mix",
                                                groups=groups(way, Xp.npartitions))
                            seconds = time.perf_counter() - t
                            runs.append({
                                "order": order, "layout": str(layout), "way": way,
                                "partitions": Xp.npartitions, "seed": seed, "round": round_,
                                "seconds": seconds, "accuracy": _accuracy(learned, test, truth),
                                "digest": _digest(learned, test),
                                **_moved(client.run(_incoming).values()),
                                "result_bytes": len(pickle.dumps(learned, protocol=5)),
                                "trees": learned.n_estimators,
                                "groups": None if way == "no mix" else (
                                    groups(way, Xp.npartitions)
                                    or rfd.default_groups(TREES, Xp.npartitions))})
            runs = [dict(r, table_bytes=table_bytes) if r["order"] == order else r for r in runs]
    return {"data": data, "forest": forest, "rows": rows, "held": held, "seeds": seeds,
            "rounds": rounds, "environment": env, "load_after": _common.load_average(),
            "runs": runs, "wall_s": time.perf_counter() - t_start}


# ---------------------------------------------------------------------------- the experiment

def jobs(quick: bool) -> list[tuple[str, dict]]:
    sizes = QUICK if quick else FULL
    out = []
    for data, forest in RUNS:
        s = sizes[data]
        n_seeds = 2 if quick else SEEDS[(data, forest)]
        out.append((f"{data}-{forest}", {
            "data": data, "forest": forest, "rows": s["rows"], "held": s["held"],
            "layouts": s["partitions"], "seeds": list(range(1, n_seeds + 1)),
            "rounds": 1 if quick else 3, "ways": WAYS}))
    return out


def measure(params: dict) -> dict:
    return compare(params["data"], params["forest"], params["rows"], params["held"],
                   params["layouts"], params["seeds"], params["rounds"])


# ---------------------------------------------------------------------------- the report

def summary(res: dict) -> list[dict]:
    """One row per (order, layout, way): mean accuracy over the seeds and seed 1's, its
    difference from the sequential forest's (same order, same seeds), the best time of seed
    1's rounds and its ratio to the sequential forest's, bytes moved, same forest per round."""
    rows = []
    runs = res["runs"]
    for order in ORDERS:
        seq = [r for r in runs if r["order"] == order and r["way"] == "sequential"]
        seq_acc = {r["seed"]: r["accuracy"] for r in seq}
        seq_time = min(r["seconds"] for r in seq if r["seed"] == res["seeds"][0])
        settings = [("all", "sequential")] + [(lay, w) for lay in dict.fromkeys(
            r["layout"] for r in runs if r["way"] != "sequential") for w in WAYS
            if any(r["layout"] == lay and r["way"] == w for r in runs)]
        for layout, way in settings:
            mine = [r for r in runs if r["order"] == order and r["layout"] == layout
                    and r["way"] == way]
            first = [r for r in mine if r["seed"] == res["seeds"][0]]
            acc = {r["seed"]: r["accuracy"] for r in mine}
            gaps = np.array([acc[s] - seq_acc[s] for s in acc])
            rows.append({
                "order": order, "layout": layout, "way": way,
                "partitions": mine[0].get("partitions", 1), "trees": mine[0]["trees"],
                "accuracy": float(np.mean(list(acc.values()))),
                "seed1": acc[res["seeds"][0]],
                "gap": float(gaps.mean()),
                "gap_se": float(gaps.std(ddof=1) / np.sqrt(len(gaps))) if len(gaps) > 1 else 0.0,
                "groups": mine[0].get("groups"),
                "gap_seed1": acc[res["seeds"][0]] - seq_acc[res["seeds"][0]],
                "seconds": min(r["seconds"] for r in first),
                "ratio": min(r["seconds"] for r in first) / seq_time,
                "moved": float(np.median([r["moved"] for r in first])),
                "moved_partitions": float(np.median([r["moved_partitions"] for r in first])),
                "table": first[0]["table_bytes"],
                "result": first[0].get("result_bytes", 0),
                "same": len({r["digest"] for r in first}) == 1,
            })
    return rows


def _table(res: dict) -> list[str]:
    header = ["order", "partitions", "way", "groups", "trees", "accuracy (mean)", "vs sequential",
              "seed 1", "vs sequential (seed 1)", "seconds", "time / sequential",
              "rows moved", "of which whole partitions", "forest back", "same forest"]
    body = []
    for r in summary(res):
        seq = r["way"] == "sequential"
        body.append([
            r["order"], "-" if seq else r["partitions"], r["way"],
            "-" if r["groups"] is None else r["groups"], r["trees"],
            f"{r['accuracy']:.4f}",
            "" if seq else f"{100 * r['gap']:+.1f} ± {100 * r['gap_se']:.1f}",
            f"{r['seed1']:.4f}", "" if seq else f"{100 * r['gap_seed1']:+.1f}",
            f"{r['seconds']:.2f}", "" if seq else f"{r['ratio']:.2f}",
            "" if seq else f"{r['moved'] / 2**20:.1f} MiB ({r['moved'] / r['table']:.0%})",
            "" if seq else f"{r['moved_partitions'] / 2**20:.1f} MiB",
            "" if seq else f"{r['result'] / 2**20:.1f} MiB",
            "yes" if r["same"] else "NO"])
    return _common.markdown_table(header, body)


def plot(results: list, path) -> None:
    plt = _common.pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(4.6 * len(results), 4.0), squeeze=False)
    for ax, res in zip(axes[0], results):
        rows = [r for r in summary(res) if r["way"] != "sequential"]
        labels = list(dict.fromkeys(f"{r['order']}\n{r['partitions']} parts" for r in rows))
        xs = np.arange(len(labels))
        for i, way in enumerate(WAYS):
            gaps = [100 * next((r["gap"] for r in rows if r["way"] == way
                                and f"{r['order']}\n{r['partitions']} parts" == lab), np.nan)
                    for lab in labels]
            ax.bar(xs + (i - 1) * 0.27, gaps, width=0.27, label=way, color=f"C{i}")
        ax.axhline(0, color="k", lw=0.8)
        for level in (-3, -1):
            ax.axhline(level, color="grey", lw=0.6, ls=":")
        ax.set_xticks(xs)
        ax.set_xticklabels(labels, fontsize=7)
        _common.label_axes(ax, "", "accuracy - sequential's (points, mean over seeds)",
                           f"{res['data']}, {res['forest']}", title_size=10,
                           grid=dict(alpha=0.3, axis="y"), legend=dict(fontsize=8))
    _common.save_figure(fig, path, TITLE, title_size=11, dpi=110)


#: the report's paragraphs
CLAIM = (
    "The claim: `split=\"partitions\"` with `mix=True` (the default: every partition's rows "
    "dealt across G groups, group g's sub-forest learning rows g, g + G, ... of every "
    "partition, in order) is as accurate as the sequential forest "
    "whether the partitions follow the file's order or not; `mix=False` (a sub-forest per "
    "partition on its rows alone, the behaviour before) falls behind on ordered partitions.")
SETUP = (
    "The setup: 10 trees, default parameters, seeds 1 to n (n given with each table; "
    "accuracy: mean over the seeds; `vs sequential`: the mean of each seed's difference, in "
    "points, ± its standard error); `groups`: G of `mix` (default `default_groups`: "
    "min(partitions, ceil(trees / 2)); `mix, G = trees`: one tree a group, "
    "min(partitions, trees)); `sequential`: `learn_many` over all the training "
    "rows in order, one thread (`serial()`), in the calling process; `mix` and `no mix`: "
    "`distributed.learn(split=\"partitions\")` on a `LocalCluster` of 2 one-thread worker "
    "processes, the partitions persisted on it first, the time from the call to the forest "
    "back. Time: seed 1, best of {rounds} interleaved rounds; `same "
    "forest`: seed 1's forests predict bit-identical probabilities in every round. Bytes "
    "moved between workers (the workers' incoming transfers, Dask's size estimates, median "
    "of the rounds): `rows moved`, groups' shares and whole partitions (where Dask ran a "
    "partition's task on the other worker), and what part of the training table's bytes "
    "that is; `forest back`: the merged forest's pickle, what comes back to the caller. "
    "The sub-forests also move, to the merge's worker (at most the merged forest's bytes "
    "once more): Dask does not know their size, so they are not counted. Ordered: the "
    "file's order, partitions of consecutive rows; shuffled: the training rows shuffled once "
    "(seed 0); the test rows the same. covtype: the first rows learned, the next ones tested; "
    "elec: one partition per week (336 rows), the tail tested.")


def report(results: dict, quick: bool) -> None:
    md, png = _common.outputs("dask_partitions", quick)
    wanted = jobs(quick)
    done = [results[k] for k, _ in wanted if k in results]
    missing = _common.missing(wanted, results)
    quick_flag = " --quick" if quick else ""
    lines = [f"# {TITLE}" + (" (quick)" if quick else ""), "",
             f"`python -m benchmarks experiment dask_partitions{quick_flag} --jobs 1`; "
             f"{_common.version_line()}.", "",
             CLAIM, "", SETUP.format(rounds=wanted[0][1]["rounds"]), ""]
    if missing:
        lines += [_common.missing_line(missing), ""]
    for res in done:
        lines += [
            f"## {res['data']}, {res['forest']}: {res['rows']:,} rows learned, "
            f"{res['held']:,} tested, seeds 1 to {max(res['seeds'])}", "",
            f"Environment: {res['environment']}; load average at the end {res['load_after']}. "
            f"Measured in {res['wall_s']:.0f} s.", "",
            *_table(res), "",
        ]
    if done:
        plot(done, png)
        lines += [f"Figure: `{png.name}` (accuracy minus the sequential forest's, mean over "
                  "the seeds, per order and partition count; dotted lines at -1 and -3 points).",
                  ""]
    md.write_text("\n".join(lines) + "\n")
