"""Training a forest on a Dask cluster: `learn`.

Needs the ``dask`` extra (``pip install "river-forests[dask]"``: dask's DataFrame and its
distributed scheduler). Dask schedules the work; this module only says what a task is:

* ``split="trees"``: the forest's trees are shared out in groups, one per worker thread,
  and each group learns every partition in order (one task per group and partition, each taking the
  group's trees from the task before it). Trees are independent, so the groups put back
  together are exactly the forest ``learn_many`` over the partitions in order gives.
* ``split="partitions"``: the forest is cut into sub-forests, each learning a part of the
  rows, and the sub-forests are merged (`river_forests.merge`): the subsampled forest of
  biau2008, section 5. By default (``mix=True``) the rows are dealt across time: group g's
  sub-forest learns every partition's rows g, g + G, g + 2G, ... (one task per group and
  G partitions, each taking the group's sub-forest from the task before), so every tree sees
  a sample of the whole history, in order, whatever order the partitions follow. With
  ``mix=False`` each partition trains a sub-forest on its rows alone (one task per partition,
  on the worker that holds it): no row moves, but partitions that follow the file's order
  (days, shops, sensors) give trees that each saw one region of the space.

Every task is a pure function of its inputs (it copies the trees it is given, learns, and
returns the copy): a task Dask runs again, after a worker was lost, gives the same trees,
and the forest passed in is never changed. The result comes back once every task is done.
"""

from __future__ import annotations

import copy
import math
import pickle
import uuid

import numpy as np
import pandas as pd

from ._core._random import tree_seed
from ._forest import BaseForest, parse_bytes, serial
from ._merge import forest_of, merge

__all__ = ["learn", "tree_groups", "default_groups"]

SPLITS = ("auto", "trees", "partitions")

#: `tree_seed` index of partition p's sub-forest seed: -PARTITION_SEED - p (apart from the
#: trees' (>= 0), the forest's generator (-1), background trees (-2, -3, ...) would need
#: a million of them to meet it)
PARTITION_SEED = 1 << 20


def _imports():
    try:
        import dask
        import dask.dataframe as dd
        import distributed
    except ImportError as e:  # pragma: no cover - exercised without the extra only
        raise ImportError(
            "river_forests.distributed needs Dask: pip install 'river-forests[dask]'"
        ) from e
    return dask, dd, distributed


def _trees_depend(model) -> bool:
    """Whether the forest's trees learn together: XForest's swaps compare all its trees after
    each batch, and a drift detector's replacement is seeded by the forest's count of
    replacements so far."""
    return type(model)._after_batch is not None or model.drift_detector is not None


def learn(model, X, y, split: str = "auto", *, mix: bool = True, groups: int | None = None,
          trees_per_partition: int | None = None, client=None, progress: bool = False,
          retries: int = 0):
    """Train `model` on a Dask DataFrame `X` and Series `y` on the current Dask client, and
    return the trained forest (`model` is not changed).

    Parameters
    ----------
    model
        A river_forests forest, fresh or already trained: training goes on from its state.
    X
        A ``dask.dataframe.DataFrame`` of numeric, boolean or string (categorical) columns.
    y
        A ``dask.dataframe.Series`` of targets with the same partitions as `X`: partition p
        of `y` labels the rows of partition p of `X` (same length, same index).
    split
        ``"auto"`` (default): ``"trees"`` for a forest whose trees learn apart from each
        other, else ``"partitions"`` (XForest, and a forest with a drift detector: the
        Mondrian, purely random, BSP and XForest classifiers at their defaults; pass
        ``drift_detector=None`` for the exact ``"trees"`` split).
        ``"trees"``: the trees are shared out in groups, one per thread of the
        cluster's workers (`tree_groups`), and each group learns every partition in order,
        in one thread. The result is
        exactly the forest ``model.learn_many`` over the partitions in order gives:
        prediction for prediction, for any number of workers. Each partition's rows reach
        every group's worker, and the groups' trees stay where they are or move between
        tasks as Dask sees fit; no per-sample result moves. Needs a forest whose trees
        learn apart from each other: not XForest (its swaps compare all its trees after
        each batch) and no drift detector (a replacement's seed counts the forest's
        replacements so far).
        ``"partitions"``: sub-forests of `trees_per_partition` trees, each learning a part
        of the rows (see `mix`) and seeded from the model's seed and its number
        (`partition_seed`), are merged (`river_forests.merge`; a trained `model` is merged
        with them, first). Each sub-forest has its trees' part of the memory budget
        (`partition_budget`), so each tree has the share a tree of `model` has: the merged
        forest holds `model`'s ``memory_budget`` when it has ``n_estimators`` trees.
    mix
        ``split="partitions"`` only. ``True`` (default): the rows are dealt across time
        into `groups` groups, and group g's sub-forest learns, partition after partition in
        order, the partition's rows g, g + G, g + 2G, ... (the count starting p rows later in
        partition p, so the groups stay even): each tree learns a sample of every partition,
        in the order of the data, as the sequential forest does, at 1 / G of the rows. The
        group's steps run one after the other, the groups side by side: a step takes the
        sub-forest of the step before, copies it and learns the group's shares of the next
        G partitions (about one partition's rows; never the group's rows at once). What
        moves between workers: the shares, about (workers - 1) / workers of the table
        once, and the sub-forests between a group's steps and to the merge.
        ``False``: each partition trains a sub-forest on its rows alone, on the worker that
        holds it; no row moves, only the sub-forests, to the merge. Close to the sequential
        forest only when the partitions look alike (shuffled rows); with partitions in the
        file's order each tree knows one region of the space.
    groups
        ``split="partitions"`` with ``mix=True`` only: the number G of groups (of
        sub-forests, and of tasks that run side by side). Default: `default_groups`,
        ``min(npartitions, ceil(n_estimators / 2))``, two trees a group. It depends on the
        model and the partitions alone, not on the cluster, so a seed and a partition layout
        give one forest on any cluster. More groups: more parallelism, fewer rows per tree
        (each sees 1 / G of them) and more, smaller shares to move.
    trees_per_partition
        ``split="partitions"`` only: trees of each sub-forest (a group's with ``mix=True``,
        a partition's with ``mix=False``). Default: ``ceil(n_estimators / G)``, G the
        number of groups (or of partitions), so the merged forest has at least the model's
        ``n_estimators`` trees.
    client
        A ``distributed.Client``; default: the current one (``distributed.get_client()``).
    progress
        Show Dask's progress bar (``distributed.progress``) while the tasks run. The
        client's dashboard shows them either way, as ``river-forests-trees`` or
        ``river-forests-partitions`` tasks (and ``river-forests-deal`` with ``mix``).
    retries
        Times Dask runs a task again after it raised (``Client.compute``'s ``retries``).
        A task lost with its worker is recomputed by Dask regardless; either way it gives
        the same trees.

    Examples
    --------

    >>> import dask.dataframe as dd
    >>> from distributed import Client, LocalCluster
    >>> from river import datasets
    >>> import pandas as pd
    >>> from river_forests import MondrianForestClassifier
    >>> from river_forests import distributed as rfd

    >>> data = pd.DataFrame([x for x, _ in datasets.Phishing()])
    >>> labels = pd.Series([y for _, y in datasets.Phishing()])
    >>> X = dd.from_pandas(data[:1000], npartitions=4)
    >>> y = dd.from_pandas(labels[:1000], npartitions=4)

    >>> with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
    ...                   dashboard_address=None) as cluster, Client(cluster):
    ...     # split="auto" (the default): "trees", exact, for trees that learn apart
    ...     forest = rfd.learn(MondrianForestClassifier(n_estimators=4, seed=1, drift_detector=None), X, y)
    ...     mixed = rfd.learn(MondrianForestClassifier(n_estimators=4, seed=1), X, y,
    ...                       split="partitions")  # 2 groups of 2 trees, each half of every partition
    ...     again = rfd.learn(MondrianForestClassifier(n_estimators=4, seed=1), X, y,
    ...                       split="partitions")

    >>> sequential = MondrianForestClassifier(n_estimators=4, seed=1, drift_detector=None)
    >>> for p in range(4):
    ...     sequential.learn_many(X.partitions[p].compute(), y.partitions[p].compute())
    >>> test = data[1000:]
    >>> bool((forest.predict_proba_many(test) == sequential.predict_proba_many(test)).all().all())
    True
    >>> for f in (forest, mixed):
    ...     print(f"{(f.predict_many(test) == labels[1000:].to_numpy()).mean():.1%}")
    90.8%
    92.0%
    >>> bool((mixed.predict_proba_many(test) == again.predict_proba_many(test)).all().all())
    True

    """
    dask, dd, distributed = _imports()
    if not isinstance(model, BaseForest):
        raise TypeError(f"model must be a river_forests forest, got {type(model).__name__}")
    if split not in SPLITS:
        raise ValueError(f"split must be 'auto', 'trees' or 'partitions', got {split!r}")
    if split == "auto":
        split = "partitions" if _trees_depend(model) else "trees"
    if not isinstance(X, dd.DataFrame):
        raise TypeError(f"X must be a dask DataFrame, got {type(X).__name__}")
    if not isinstance(y, dd.Series):
        raise TypeError(f"y must be a dask Series, got {type(y).__name__}")
    if not isinstance(mix, bool):
        raise ValueError(f"mix must be True or False, got {mix!r}")
    if not mix and split != "partitions":
        raise ValueError("mix=False is for split='partitions': with split='trees' every tree "
                         "learns every partition in order, and no rows are dealt")
    for name, value in (("trees_per_partition", trees_per_partition), ("groups", groups)):
        if value is None:
            continue
        if split != "partitions":
            raise ValueError(f"{name} is for split='partitions'")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int >= 1, got {value!r}")
    if groups is not None and not mix:
        raise ValueError("groups is for split='partitions' with mix=True (with mix=False, "
                         "each partition is a group)")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries must be an int >= 0, got {retries!r}")
    if split == "trees" and _trees_depend(model):
        raise ValueError(
            f"split='trees' needs trees that learn apart from each other; {type(model).__name__}"
            + (" replaces trees on drifts (drift_detector)" if model.drift_detector is not None
               else " compares all its trees after each batch")
            + ": use split='partitions'")
    check_frame(X, y)
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError:
            raise ValueError("river_forests.distributed.learn runs on a Dask cluster: start a "
                             "distributed.Client first, or pass client=") from None
    model = copy.deepcopy(model)  # a snapshot, taken under the model's lock
    Xs, ys = X.to_delayed(), y.to_delayed()
    token = uuid.uuid4().hex[:12]
    if split == "trees":
        groups = tree_groups(model.n_estimators, _n_threads(client))
        tasks = []
        for g, trees in enumerate(groups):
            sub = dask.delayed(_with_trees(model, [model._core.trees[i] for i in trees]),
                               name=f"river-forests-group-{token}-{g}")
            for p in range(len(Xs)):
                sub = dask.delayed(_learn_partition, pure=True)(
                    sub, Xs[p], ys[p], p, dask_key_name=f"river-forests-trees-{token}-{g}-{p}")
            tasks.append(sub)
        result = dask.delayed(_assemble, pure=True)(
            tasks, dask_key_name=f"river-forests-assemble-{token}")
    else:
        n_groups = (groups or default_groups(model.n_estimators, len(Xs))) if mix else len(Xs)
        k = trees_per_partition or max(1, math.ceil(model.n_estimators / n_groups))
        template = model.clone({"n_estimators": k, **partition_budget(model, k)})
        if mix:
            subs = []
            for g in range(n_groups):
                sub = dask.delayed(template.clone({"seed": partition_seed(model, g)}),
                                   name=f"river-forests-group-{token}-{g}")
                # a step learns its shares of G partitions: about one partition's rows
                for start in range(0, len(Xs), n_groups):
                    shares = [dask.delayed(_deal, pure=True)(
                                  Xs[p], ys[p], p, g, n_groups,
                                  dask_key_name=f"river-forests-deal-{token}-{g}-{p}")
                              for p in range(start, min(start + n_groups, len(Xs)))]
                    sub = dask.delayed(_learn_shares, pure=True)(
                        sub, shares, start,
                        dask_key_name=f"river-forests-partitions-{token}-{g}-{start}")
                subs.append(sub)
        else:
            subs = [dask.delayed(_learn_partition, pure=True)(
                        template.clone({"seed": partition_seed(model, p)}), Xs[p], ys[p], p,
                        dask_key_name=f"river-forests-partitions-{token}-{p}")
                    for p in range(len(Xs))]
        if _has_learned(model):
            subs = [model] + subs
        result = dask.delayed(merge, pure=True)(subs, dask_key_name=f"river-forests-merge-{token}")
    future = client.compute(result, retries=retries)
    if progress:
        distributed.progress(future)
    return future.result()


def check_frame(X, y) -> None:
    """What can be checked before any task runs: columns of numbers or strings (categories,
    coded by a hash of the string, so every partition and worker gives a value the same code)
    and matching partitions."""
    bad = [c for c, t in X.dtypes.items()
           if not (pd.api.types.is_numeric_dtype(t) or pd.api.types.is_bool_dtype(t)
                   or pd.api.types.is_object_dtype(t) or pd.api.types.is_string_dtype(t)
                   or isinstance(t, pd.CategoricalDtype))]
    if bad:
        raise TypeError(f"X has columns {bad!r} of dtypes {[str(X.dtypes[c]) for c in bad]}: "
                        "river_forests trees take real numbers and strings (categories); "
                        "convert them first (e.g. a date to its parts, or with astype(str))")
    if X.npartitions != y.npartitions:
        raise ValueError(f"X has {X.npartitions} partitions and y {y.npartitions}: partition p "
                         "of y must label partition p of X (e.g. y = frame['label'], "
                         "X = frame.drop(columns='label'))")
    if X.known_divisions and y.known_divisions and tuple(X.divisions) != tuple(y.divisions):
        raise ValueError("X's and y's partitions are not aligned (their divisions differ): "
                         "partition p of y must label partition p of X")


def tree_groups(n_trees: int, n_threads: int) -> list[list[int]]:
    """The trees' indices in ``min(n_trees, n_threads)`` groups of consecutive trees, sizes
    differing by one at most: the unit of work of ``split="trees"``, one group for each
    thread of the cluster's workers (each group's tasks learn in one thread)."""
    k = max(1, min(n_trees, n_threads))
    bounds = np.linspace(0, n_trees, k + 1).round().astype(int)
    return [list(range(bounds[g], bounds[g + 1])) for g in range(k)]


def default_groups(n_trees: int, n_partitions: int) -> int:
    """``split="partitions"``'s number of groups with ``mix=True`` by default: two trees a
    group, ``ceil(n_trees / 2)``, and no more groups than partitions. Each tree learns 1 / G
    of the rows: as accurate as one tree a group, in less time (the documentation's
    distributed page quotes the run that chose it)."""
    return max(1, min(n_partitions, math.ceil(n_trees / 2)))


def partition_budget(model, k: int) -> dict:
    """The ``memory_budget`` of a partition's sub-forest of `k` trees: `k` trees' part of
    `model`'s, so each tree grows in the share of the budget a tree of `model` has, and the
    merged forest of ``npartitions * k`` trees holds `model`'s budget when that is
    ``n_estimators`` (``npartitions * k / n_estimators`` times it otherwise). Without a budget
    (``memory_budget=None``), nothing to change."""
    budget = parse_bytes("memory_budget", model.memory_budget)
    if budget is None:
        return {}
    return {"memory_budget": max(1, budget * k // model.n_estimators)}


def partition_seed(model, p: int) -> int:
    """The seed of sub-forest `p` (``split="partitions"``: group p's with ``mix=True``,
    partition p's with ``mix=False``): from the model's master seed (its seed, or the one it
    drew for ``seed=None``), so a run is reproducible and a retried task grows the same
    trees."""
    return tree_seed(model._core.master_seed, -PARTITION_SEED - p)


def _n_threads(client) -> int:
    """The cluster's worker threads: one group of trees (one task at a time) for each."""
    workers = client.scheduler_info(n_workers=-1)["workers"].values()
    return max(1, sum(w.get("nthreads", 1) for w in workers))


def _has_learned(model) -> bool:
    core = model._core
    return bool(core.labels or core.features.names or core.n_pending
                or any(t.samples_seen for t in core.trees))


def _partition_data(X, y, p):
    if not isinstance(X, pd.DataFrame) or not isinstance(y, pd.Series):
        raise TypeError(f"partition {p}: X must give pandas DataFrames and y Series")
    if len(X) != len(y):
        raise ValueError(f"partition {p} of X has {len(X)} rows and y's has {len(y)}: X's and "
                         "y's partitions are not aligned")
    return X, y


def _learn_partition(forest, X, y, p):
    """A group's step: a copy of `forest` (the group's trees) that learned partition `p`."""
    X, y = _partition_data(X, y, p)
    # a copy (a pickle's round trip, the cheapest): the input stays as it was, so a task run
    # again after it raised learns from the same trees
    forest = pickle.loads(pickle.dumps(forest, protocol=pickle.HIGHEST_PROTOCOL))
    with serial():  # the worker's threads run the other groups
        forest.learn_many(X, y)
    return forest


def share_rows(n: int, p: int, g: int, n_groups: int) -> np.ndarray:
    """The positions, among partition `p`'s `n` rows, of group `g`'s share (``mix=True``):
    every `n_groups`-th row, the count starting `p` rows later in partition `p`, so that
    partitions whose lengths are not multiples of the number of groups still share their
    rows out evenly."""
    return np.arange((g - p) % n_groups, n, n_groups)


def _deal(X, y, p, g, n_groups):
    """Group `g`'s share of partition `p` (``mix=True``), rows in their order."""
    X, y = _partition_data(X, y, p)
    rows = share_rows(len(X), p, g, n_groups)
    return X.iloc[rows], y.iloc[rows]


def _learn_shares(forest, shares, p):
    """A group's step (``mix=True``): a copy of `forest` that learned the group's `shares`
    of consecutive partitions from partition `p` on, in their order (`forest` itself when
    they have no rows)."""
    X = pd.concat([X for X, _ in shares])
    y = pd.concat([y for _, y in shares])
    if not len(X):
        return forest
    return _learn_partition(forest, X, y, p)


def _with_trees(forest, trees):
    """A forest like `forest` (parameters, registries, the forest's own state) holding
    `trees` instead of its own (the same objects). `forest` must not be in use by another
    thread."""
    core = forest._core
    state = dict(core.forest_state(), background=[None] * len(trees), watch=None)
    return forest_of(forest, trees, core.features.names, core.labels, state,
                     core.features.full_warned)


def _assemble(groups):
    """The groups of ``split="trees"`` back together, trees in their order: every group
    learned the same partitions in the same order, so their registries and their forest
    states are the same, and the forest is group 0's holding every group's trees. The trees
    are not copied: no task changes its inputs, so a rerun assembles the same forest."""
    return _with_trees(groups[0], [t for g in groups for t in g._core.trees])
