"""`river_forests.distributed.learn` on a LocalCluster of two worker processes.

What it pins: split="trees" gives exactly the forest learn_many over the partitions in
order gives (every estimator whose trees learn apart), from a fresh or a trained model, for
more or fewer trees than workers; split="partitions" is reproducible and close to it on
held-back rows, and with its rows dealt across groups (mix, the default) close to it on
partitions in the data's order too, where a sub-forest per partition (mix=False) is not; a
worker that dies mid-run or a task that raises once changes nothing in
the result; bad inputs fail clearly, and the model passed in is never changed.
"""

import os
import pickle

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed", reason="the dask extra: pip install '.[dask]'")
dd = pytest.importorskip("dask.dataframe")

import river_forests  # noqa: E402
from river_forests import distributed as rfd  # noqa: E402

from .conftest import ESTIMATORS, is_classifier, name_of, shared, uniform_stream  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        yield c


def _frames(n=1200, d=4, seed=0, classifier=True):
    stream = uniform_stream(n, d, seed=seed)
    X = pd.DataFrame([x for x, _ in stream])
    y = pd.Series([(y if classifier else float(y) + x["x1"]) for x, y in stream])
    return X, y


def _sequential(model, Xd, yd):
    for p in range(Xd.npartitions):
        model.learn_many(Xd.partitions[p].compute(), yd.partitions[p].compute())
    if hasattr(model, "flush"):
        model.flush()
    return model


def _predictions(model, X):
    if is_classifier(type(model)):
        return model.predict_proba_many(X).to_numpy()
    return model.predict_many(X).to_numpy()


#: the forests whose trees learn apart from each other (not XForest's: its swaps compare them)
SPLITTABLE = [c for c in ESTIMATORS if c._after_batch is None]


@pytest.mark.parametrize("cls", SPLITTABLE, ids=name_of)
def test_split_trees_is_the_sequential_forest(client, cls):
    X, y = _frames(classifier=is_classifier(cls))
    Xd, yd = dd.from_pandas(X[:1000], npartitions=3), dd.from_pandas(y[:1000], npartitions=3)
    model = cls(**shared(cls, n_estimators=5, seed=3, drift_detector=None))
    snapshot = pickle.dumps(model)
    forest = rfd.learn(model, Xd, yd, split="trees")
    assert pickle.dumps(model) == snapshot  # the model passed in is not changed
    sequential = _sequential(cls(**shared(cls, n_estimators=5, seed=3, drift_detector=None)), Xd, yd)
    np.testing.assert_array_equal(_predictions(forest, X[1000:]), _predictions(sequential, X[1000:]))
    for mine, theirs in zip(forest.trees, sequential.trees):
        assert mine.node_count == theirs.node_count
        assert mine.samples_seen == theirs.samples_seen
    assert forest._core.master_seed == sequential._core.master_seed


def test_string_columns_are_categories_on_every_worker(client):
    """A string column is coded by the string alone: split over trees or partitions, the
    workers agree with each other and with the sequential forest."""
    X, y = _frames()
    X = X.assign(colour=np.where(y == 1, "red", "blue"), kind=pd.Categorical(["a", "b"] * 600))
    Xd, yd = dd.from_pandas(X[:1000], npartitions=3), dd.from_pandas(y[:1000], npartitions=3)
    M = river_forests.MondrianForestClassifier
    forest = rfd.learn(M(n_estimators=4, seed=3, drift_detector=None), Xd, yd, split="trees")
    sequential = _sequential(M(n_estimators=4, seed=3, drift_detector=None), Xd, yd)
    np.testing.assert_array_equal(_predictions(forest, X[1000:]), _predictions(sequential, X[1000:]))
    parts = rfd.learn(M(n_estimators=4, seed=3, drift_detector=None), Xd, yd, split="partitions")
    assert (parts.predict_many(X[1000:]) == y[1000:]).mean() > 0.95  # colour gives the label


@pytest.mark.parametrize("n_estimators", [1, 2, 7])
def test_split_trees_from_a_trained_model_continues_it(client, n_estimators):
    """Fewer, as many or more trees than the cluster's two threads; the model had learned
    before, and goes on from there."""
    cls = river_forests.MondrianForestClassifier
    X, y = _frames(n=1500)
    model = cls(n_estimators=n_estimators, seed=4, drift_detector=None)
    model.learn_many(X[:300], y[:300])
    Xd, yd = dd.from_pandas(X[300:1300], npartitions=4), dd.from_pandas(y[300:1300], npartitions=4)
    forest = rfd.learn(model, Xd, yd)
    sequential = pickle.loads(pickle.dumps(model))
    _sequential(sequential, Xd, yd)
    np.testing.assert_array_equal(_predictions(forest, X[1300:]), _predictions(sequential, X[1300:]))
    assert forest.n_estimators == n_estimators


def test_tree_groups_share_the_trees_out():
    assert rfd.tree_groups(7, 2) == [[0, 1, 2, 3], [4, 5, 6]]
    assert rfd.tree_groups(1, 4) == [[0]]
    assert rfd.tree_groups(4, 4) == [[0], [1], [2], [3]]
    groups = rfd.tree_groups(10, 3)
    assert sorted(i for g in groups for i in g) == list(range(10))
    assert max(map(len, groups)) - min(map(len, groups)) <= 1


def test_split_trees_refuses_forests_whose_trees_do_not_learn_apart(client):
    from river import drift

    X, y = _frames(n=200)
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    with pytest.raises(ValueError, match="split='partitions'"):
        rfd.learn(river_forests.XForestClassifier(n_estimators=2), Xd, yd, split="trees")
    with pytest.raises(ValueError, match="drift_detector"):
        rfd.learn(river_forests.MondrianForestClassifier(n_estimators=2, drift_detector=drift.ADWIN()),
                  Xd, yd, split="trees")
    # split="auto" (the default) takes the partitions for them: the classifiers' defaults
    # watch for drift
    auto = rfd.learn(river_forests.MondrianForestClassifier(n_estimators=2, seed=1), Xd, yd)
    assert auto.n_estimators == 2 and all(t.samples_seen > 0 for t in auto.trees)
    with pytest.raises(ValueError, match="drift_detector"):
        rfd.learn(river_forests.MondrianForestClassifier(n_estimators=2), Xd, yd, split="trees")
    # both train with split="partitions"
    forest = rfd.learn(river_forests.XForestClassifier(n_estimators=2, batch_size=50), Xd, yd,
                       split="partitions")
    assert forest.n_estimators == 2


def test_split_partitions_is_close_to_the_sequential_forest_and_reproducible(client):
    """Three partitions of 4,000 rows: a sub-forest each, merged. On 3,000 held-back rows,
    its accuracy is within 3 points of the sequential forest's; a second run gives the same
    forest (seeds from the model's seed and the partition's number)."""
    cls = river_forests.MondrianForestClassifier
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((15000, 4)), columns=[f"x{j}" for j in range(4)])
    y = pd.Series((X.x0 + X.x1 * X.x2 + 0.2 * rng.random(len(X)) > 0.8).astype(int))
    Xd, yd = dd.from_pandas(X[:12000], npartitions=3), dd.from_pandas(y[:12000], npartitions=3)
    model = cls(n_estimators=6, seed=5)
    forest = rfd.learn(model, Xd, yd, split="partitions")
    assert forest.n_estimators == 6  # ceil(6 / 3) trees in each of 3 partitions
    sequential = _sequential(cls(n_estimators=6, seed=5), Xd, yd)
    truth = y[12000:].to_numpy()
    ours = (forest.predict_many(X[12000:]).to_numpy() == truth).mean()
    theirs = (sequential.predict_many(X[12000:]).to_numpy() == truth).mean()
    assert ours > 0.8 and abs(ours - theirs) <= 0.03, (ours, theirs)
    again = rfd.learn(model, Xd, yd, split="partitions")
    np.testing.assert_array_equal(_predictions(again, X[12000:]), _predictions(forest, X[12000:]))
    more = rfd.learn(model, Xd, yd, split="partitions", trees_per_partition=3)
    assert more.n_estimators == 9
    # each tree has a tree of the model's share of the budget: 6 trees hold the model's
    budget = model._core.budget
    assert forest._core.budget <= budget and forest._raw_memory_usage <= budget
    assert forest._core.budget > 0.95 * budget
    assert more._core.budget <= 1.5 * budget
    # a trained model is merged with the partitions' sub-forests, its trees first
    trained = cls(n_estimators=2, seed=5)
    trained.learn_many(X[:500], y[:500])
    grown = rfd.learn(trained, Xd, yd, split="partitions")
    assert grown.n_estimators == 2 + 2  # one group (two trees a group) of two trees
    assert grown.trees[0].samples_seen == trained.trees[0].samples_seen


def test_split_partitions_without_mix_moves_no_rows_between_partitions(client):
    """mix=False: each partition's sub-forest learns its own rows only: a sub-forest's trees
    have seen exactly its partition's length."""
    cls = river_forests.PurelyRandomForestClassifier
    X, y = _frames(n=900)
    Xd, yd = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)
    lengths = [len(Xd.partitions[p].compute()) for p in range(3)]
    forest = rfd.learn(cls(n_estimators=3, seed=1), Xd, yd, split="partitions", mix=False)
    assert [t.samples_seen for t in forest.trees] == lengths


def test_share_rows_deal_every_row_once_and_evenly():
    """Group g takes every G-th row of each partition, the count starting p rows later in
    partition p: every row goes to one group, in order; over partitions of a length that is
    not a multiple of G the groups' totals differ by at most a few rows (without the shift,
    the first groups would take one more row of every partition)."""
    for lengths in ([7, 5, 9, 3, 4, 0, 1], [1003] * 7):
        for n_groups in (1, 2, 3, 4, 10):
            totals = [0] * n_groups
            for p, n in enumerate(lengths):
                shares = [rfd.share_rows(n, p, g, n_groups) for g in range(n_groups)]
                assert sorted(np.concatenate(shares).tolist()) == list(range(n))
                for g, share in enumerate(shares):
                    assert np.all(np.diff(share) == n_groups)  # in order, every G-th row
                    totals[g] += len(share)
            if lengths[0] == 1003:
                assert max(totals) - min(totals) <= 3, (n_groups, totals)


def _ordered_frames(n, seed=0):
    """A stream in the order of x0 (regions, as a file sorted by day, shop or sensor): the
    class boundary on x1 moves with x0, so a tree that saw one range of x0 predicts the
    others wrong."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.random((n, 2)), columns=["x0", "x1"])
    X = X.sort_values("x0", ignore_index=True)
    y = (X.x1 > 0.5 + 0.35 * np.sin(4 * np.pi * X.x0)).astype(int)
    return X, y


def test_split_partitions_on_ordered_partitions_is_close_to_the_sequential_forest(client):
    """Six partitions of consecutive rows of a stream in x0's order: with mix (the default)
    every tree learns a third of every partition (3 groups of 2 trees), in order, and the
    merged forest is within 3 points of the sequential one on rows from the whole space; a
    sub-forest per partition (mix=False) each knows a sixth of x0's range and falls well
    behind. Each group's trees saw the group's share of every partition."""
    cls = river_forests.MondrianForestClassifier
    X, y = _ordered_frames(6000)
    test, truth = _ordered_frames(2000, seed=1)
    Xd = dd.from_pandas(X, npartitions=6, sort=False)
    yd = dd.from_pandas(y, npartitions=6, sort=False)
    lengths = [len(Xd.partitions[p].compute()) for p in range(6)]
    sequential = _sequential(cls(n_estimators=6, seed=7, drift_detector=None), Xd, yd)
    mixed = rfd.learn(cls(n_estimators=6, seed=7, drift_detector=None), Xd, yd, split="partitions")
    apart = rfd.learn(cls(n_estimators=6, seed=7, drift_detector=None), Xd, yd, split="partitions", mix=False)

    def accuracy(forest):
        return (forest.predict_many(test).to_numpy() == truth.to_numpy()).mean()

    ours, theirs, old = accuracy(mixed), accuracy(sequential), accuracy(apart)
    assert ours > 0.85 and abs(ours - theirs) <= 0.03, (ours, theirs)
    assert old < theirs - 0.05, (old, theirs)
    assert rfd.default_groups(6, 6) == 3 and mixed.n_estimators == 6  # 3 groups of 2 trees
    assert [t.samples_seen for t in mixed.trees] == [
        sum(len(rfd.share_rows(n, p, g, 3)) for p, n in enumerate(lengths))
        for g in range(3) for _ in range(2)]


def test_split_partitions_is_one_forest_for_a_seed_and_a_partition_layout(client):
    """Same seed, same partitions: bit-identical predictions, run after run (each group's
    seed comes from the model's seed and the group's number, its rows from the layout); the
    seed or the number of groups changes the forest."""
    cls = river_forests.PurelyRandomForestClassifier
    X, y = _ordered_frames(1500)
    Xd = dd.from_pandas(X[:1200], npartitions=4, sort=False)
    yd = dd.from_pandas(y[:1200], npartitions=4, sort=False)
    runs = [rfd.learn(cls(n_estimators=5, seed=11), Xd, yd, split="partitions") for _ in range(2)]
    np.testing.assert_array_equal(_predictions(runs[0], X[1200:]), _predictions(runs[1], X[1200:]))
    assert runs[0].n_estimators == 6  # min(4, ceil(5 / 2)) = 3 groups of ceil(5 / 3) trees
    other_seed = rfd.learn(cls(n_estimators=5, seed=12), Xd, yd, split="partitions")
    two_groups = rfd.learn(cls(n_estimators=5, seed=11), Xd, yd, split="partitions", groups=2)
    assert two_groups.n_estimators == 6  # 2 groups of ceil(5 / 2) trees, other rows each
    for other in (other_seed, two_groups):
        assert not np.array_equal(_predictions(other, X[1200:]), _predictions(runs[0], X[1200:]))
    # without mix too: the forest of the sub-forests built and learned in this process,
    # run after run (every sub-forest is made by the caller, none on a worker)
    model = cls(n_estimators=10, seed=11)
    template = model.clone({"n_estimators": 3, **rfd.partition_budget(model, 3)})
    subs = []
    for p in range(4):
        sub = template.clone({"seed": rfd.partition_seed(model, p)})
        sub.learn_many(Xd.partitions[p].compute(), yd.partitions[p].compute())
        subs.append(sub)
    expected = _predictions(river_forests.merge(subs), X[1200:])
    for _ in range(3):
        apart = rfd.learn(model, Xd, yd, split="partitions", mix=False)
        np.testing.assert_array_equal(_predictions(apart, X[1200:]), expected)
    # more groups than rows: some groups learn nothing, no row is lost
    Xs, ys = dd.from_pandas(X[:12], npartitions=4), dd.from_pandas(y[:12], npartitions=4)
    many = rfd.learn(cls(n_estimators=2, seed=11), Xs, ys, split="partitions", groups=20,
                     trees_per_partition=1)
    assert many.n_estimators == 20 and sum(t.samples_seen for t in many.trees) == 12
    assert sorted(t.samples_seen for t in many.trees)[:8] == [0] * 8


def _flaky_chunk(spec):
    """A partition loader that misbehaves the first time it loads partition 1: it kills
    its worker process (mode "die") or raises (mode "raise"). Later loads are normal."""
    marker, mode, start, stop, classifier = spec
    if start > 0 and not os.path.exists(marker):
        open(marker, "w").close()
        if mode == "die":
            os._exit(1)
        raise RuntimeError("a flaky read")
    X, y = _frames(classifier=classifier)
    return pd.concat([X[start:stop], y[start:stop].rename("target")], axis=1)


def _flaky_frame(tmp_path, mode):
    marker = str(tmp_path / f"{mode}.marker")
    frame = dd.from_map(_flaky_chunk, [(marker, mode, a, a + 300, True) for a in (0, 300, 600)])
    return frame.drop(columns="target"), frame["target"]


def _assert_is_the_flaky_frames_sequential_forest(forest, fresh):
    """`forest` predicts as `fresh` does once it learned the flaky frame's three partitions
    (rows 0-900 of `_frames()`) in order."""
    X, y = _frames()
    for a in (0, 300, 600):
        fresh.learn_many(X[a:a + 300], y[a:a + 300])
    np.testing.assert_array_equal(_predictions(forest, X[900:]), _predictions(fresh, X[900:]))


def test_a_worker_dying_mid_run_changes_nothing(client, tmp_path):
    """Partition 1's first read kills its worker: Dask restarts it and recomputes what was
    lost; every task is pure, so the forest is still exactly the sequential one."""
    Xd, yd = _flaky_frame(tmp_path, "die")
    cls = river_forests.MondrianForestClassifier
    forest = rfd.learn(cls(n_estimators=4, seed=2, drift_detector=None), Xd, yd)
    assert os.path.exists(tmp_path / "die.marker")
    _assert_is_the_flaky_frames_sequential_forest(forest, cls(n_estimators=4, seed=2, drift_detector=None))


def test_a_task_that_raises_fails_the_run_or_is_retried(client, tmp_path):
    """Partition 1's first read raises: without retries the run fails and the model passed in
    is unchanged; with `retries=1` Dask runs the read again and the forest is exactly the
    sequential one. (Each run reads through its own marker, so its tasks' keys are new: a
    key that erred in a run whose futures are still held stays erred.)"""
    cls = river_forests.MondrianForestClassifier
    model = cls(n_estimators=3, seed=2, drift_detector=None)
    snapshot = pickle.dumps(model)
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    Xd, yd = _flaky_frame(tmp_path / "first", "raise")
    with pytest.raises(RuntimeError, match="flaky"):
        rfd.learn(model, Xd, yd)
    assert pickle.dumps(model) == snapshot
    Xd, yd = _flaky_frame(tmp_path / "second", "raise")
    forest = rfd.learn(model, Xd, yd, retries=1)
    assert os.path.exists(tmp_path / "second" / "raise.marker")
    _assert_is_the_flaky_frames_sequential_forest(forest, cls(n_estimators=3, seed=2, drift_detector=None))


def test_progress_bar(client, capsys):
    X, y = _frames(n=300)
    Xd, yd = dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2)
    rfd.learn(river_forests.MondrianForestClassifier(n_estimators=2, seed=1, drift_detector=None), Xd, yd,
              progress=True)
    out = capsys.readouterr()
    assert "100%" in out.out + out.err


def test_bad_inputs_fail_clearly(client, monkeypatch):
    M = river_forests.MondrianForestClassifier
    X, y = _frames(n=300)
    Xd, yd = dd.from_pandas(X, npartitions=3), dd.from_pandas(y, npartitions=3)
    with pytest.raises(ValueError, match="split"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="rows")
    with pytest.raises(TypeError, match="river_forests forest"):
        rfd.learn(object(), Xd, yd)
    with pytest.raises(TypeError, match="dask DataFrame"):
        rfd.learn(M(drift_detector=None), X, yd)
    with pytest.raises(TypeError, match="dask Series"):
        rfd.learn(M(drift_detector=None), Xd, y)
    with pytest.raises(ValueError, match="trees_per_partition"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="partitions", trees_per_partition=0)
    with pytest.raises(ValueError, match="trees_per_partition"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="trees", trees_per_partition=2)
    with pytest.raises(ValueError, match="retries"):
        rfd.learn(M(drift_detector=None), Xd, yd, retries=-1)
    with pytest.raises(ValueError, match="mix must be True or False"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="partitions", mix="yes")
    with pytest.raises(ValueError, match="mix=False is for split='partitions'"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="trees", mix=False)
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="groups must be an int >= 1"):
            rfd.learn(M(drift_detector=None), Xd, yd, split="partitions", groups=bad)
    with pytest.raises(ValueError, match="groups is for split='partitions'"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="trees", groups=2)
    with pytest.raises(ValueError, match="groups is for split='partitions' with mix=True"):
        rfd.learn(M(drift_detector=None), Xd, yd, split="partitions", mix=False, groups=2)
    dated = X.assign(when=pd.Timestamp("2020-01-01"))
    with pytest.raises(TypeError, match="when"):
        rfd.learn(M(drift_detector=None), dd.from_pandas(dated, npartitions=3), yd)
    with pytest.raises(ValueError, match="partitions"):
        rfd.learn(M(drift_detector=None), Xd, dd.from_pandas(y, npartitions=2))
    # same number of partitions, known divisions that differ
    shifted = y.copy()
    shifted.index = shifted.index + 50
    with pytest.raises(ValueError, match="aligned"):
        rfd.learn(M(drift_detector=None), Xd, dd.from_pandas(shifted, npartitions=3))
    # unknown divisions, partitions of different lengths: the task says which one
    Xu = dd.from_pandas(X, npartitions=3).clear_divisions()
    yu = dd.from_pandas(y[:-10], npartitions=3).clear_divisions()
    with pytest.raises(ValueError, match="partition 0"):
        rfd.learn(M(drift_detector=None), Xu, yu)
    # no client
    def no_client():
        raise ValueError("No global client found")

    monkeypatch.setattr(distributed, "get_client", no_client)
    with pytest.raises(ValueError, match="Dask cluster"):
        rfd.learn(M(drift_detector=None), Xd, yd)


def _receive(forests):
    """A task that is sent forests, as a worker of split="partitions" is (sub-forests)."""
    return len(forests)


def test_a_forest_cloned_on_a_worker_learns_as_in_this_process():
    """On a cluster of its own (workers that never built a forest), each worker first receives
    forests, as a mix run's steps do, then clones a template and learns a partition: budget and
    predictions as in this process, on both workers, twice; then split="partitions" without
    mix, after a run with it, is the merge of the sub-forests made here (test_budget.py says
    what once made a worker's clone learn otherwise)."""
    from .test_budget import UNPICKLED_FIRST, _template, clone_and_learn

    cls = river_forests.MondrianForestClassifier
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.random((3000, 6)), columns=[f"x{j}" for j in range(6)])
    y = (X["x0"] + 0.3 * rng.random(3000) > 0.6).astype(int)
    model, template = _template(cls)
    Xd, yd = dd.from_pandas(X[:2400], npartitions=4), dd.from_pandas(y[:2400], npartitions=4)
    parts = [(Xd.partitions[p].compute(), yd.partitions[p].compute()) for p in range(4)]
    expected = []
    for p in range(4):
        forest, shares = clone_and_learn(template, rfd.partition_seed(model, p), *parts[p])
        expected.append((shares, _predictions(forest, X[2400:])))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as c:
        workers = list(c.scheduler_info()["workers"])
        for w in workers:
            sent = [template.clone({"seed": i}) for i in range(UNPICKLED_FIRST)]
            assert c.submit(_receive, sent, workers=[w], pure=False).result() == len(sent)
        for _ in range(2):
            for w in workers:
                for p in range(4):
                    forest, shares = c.submit(clone_and_learn, template,
                                              rfd.partition_seed(model, p), *parts[p],
                                              workers=[w], pure=False).result()
                    assert shares == expected[p][0], (w, p)
                    np.testing.assert_array_equal(_predictions(forest, X[2400:]),
                                                  expected[p][1])
        subs = []
        for p in range(4):
            sub = template.clone({"seed": rfd.partition_seed(model, p)})
            sub.learn_many(*parts[p])
            subs.append(sub)
        merged = _predictions(river_forests.merge(subs), X[2400:])
        rfd.learn(model, Xd, yd, split="partitions", mix=True, client=c)
        apart = rfd.learn(model, Xd, yd, split="partitions", mix=False, client=c)
        np.testing.assert_array_equal(_predictions(apart, X[2400:]), merged)
