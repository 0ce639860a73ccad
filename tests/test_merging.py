"""`river_forests.merge`: one forest holding every tree of several, for every estimator.

What it pins: the merged forest predicts the tree-weighted mean of the parts' predictions
when the parts learned different features and different classes; it keeps learning (the
features one part never saw included) and pickles; the parts are left as they were; bad
inputs raise before anything is built.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from river import drift

import river_forests
from river_forests import merge

from .conftest import ESTIMATORS, is_classifier, name_of, shared, uniform_stream

N_A, N_B = 3, 2


def _label(cls, y, extra):
    """A classifier's label (an extra class for every 7th sample of a part), a regressor's
    float target."""
    if is_classifier(cls):
        return extra if extra else f"c{y}"
    return float(y) + (0.5 if extra else 0.0)


def _parts(cls, n=400, **params):
    """Two forests of `cls` of N_A and N_B trees that learned different streams: part A
    never saw x1 and has a class of its own ("only_a"), part B never saw x0 and has its own
    feature "b" and class ("only_b")."""
    a = cls(**shared(cls, n_estimators=N_A, seed=1, **params))
    b = cls(**shared(cls, n_estimators=N_B, seed=2, **params))
    for i, (x, y) in enumerate(uniform_stream(n, 4, seed=1)):
        del x["x1"]
        a.learn_one(x, _label(cls, y, "only_a" if i % 7 == 0 else None))
    for i, (x, y) in enumerate(uniform_stream(n, 4, seed=2)):
        del x["x0"]
        x["b"] = (i % 5) / 5
        b.learn_one(x, _label(cls, y, "only_b" if i % 5 == 0 else None))
    return a, b


def _rows(n=60, seed=9):
    rows = []
    for x, _ in uniform_stream(n, 4, seed=seed):
        x["b"] = 0.4
        rows.append(x)
    return rows


def _weighted_mean_proba(parts, x):
    total = sum(p.n_estimators for p in parts)
    out = {}
    for p in parts:
        for c, v in p.predict_proba_one(x).items():
            out[c] = out.get(c, 0.0) + p.n_estimators * v / total
    return out


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_merged_forest_predicts_the_tree_weighted_mean_of_its_parts(cls):
    """Different features and classes in each part: every tree's numbers are mapped, so each
    tree predicts what it did, and the forest the weighted mean (a class a part never saw
    counts as 0 for it)."""
    a, b = _parts(cls)
    merged = merge([a, b])
    assert type(merged) is cls and merged.n_estimators == N_A + N_B
    assert merged.seed == a.seed
    rows = _rows()
    if is_classifier(cls):
        assert set(merged._core.labels) == set(a._core.labels) | set(b._core.labels)
        for x in rows:
            want = _weighted_mean_proba([a, b], x)
            got = merged.predict_proba_one(x)
            assert set(got) == set(want)
            for c in want:
                assert got[c] == pytest.approx(want[c], abs=1e-12)
        # the batch path agrees
        X = pd.DataFrame(rows)
        many = merged.predict_proba_many(X)
        for i, x in enumerate(rows):
            for c, v in merged.predict_proba_one(x).items():
                assert many.iloc[i][c] == pytest.approx(v, abs=1e-12)
    else:
        for x in rows:
            want = (N_A * a.predict_one(x) + N_B * b.predict_one(x)) / (N_A + N_B)
            assert merged.predict_one(x) == pytest.approx(want, abs=1e-9)
        X = pd.DataFrame(rows)
        want = (N_A * a.predict_many(X) + N_B * b.predict_many(X)) / (N_A + N_B)
        np.testing.assert_allclose(merged.predict_many(X), want, atol=1e-9)
    assert set(merged._core.features.names) == {"x0", "x1", "x2", "x3", "b"}


def test_merged_vote_forest_counts_every_trees_vote():
    """aggregation="vote": each tree's vote counts once in the merged forest."""
    cls = river_forests.MondrianForestClassifier
    a, b = _parts(cls, aggregation="vote")
    merged = merge([a, b])
    for x in _rows():
        want = _weighted_mean_proba([a, b], x)
        got = merged.predict_proba_one(x)
        for c in want:
            assert got[c] == pytest.approx(want[c], abs=1e-12)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_merged_forest_keeps_learning_and_pickles(cls):
    """The merged forest learns by learn_one and learn_many, on the features one part never
    saw too (its trees take them up), and a pickled copy resumes identically."""
    a, b = _parts(cls)
    merged = merge([a, b])
    saved = pickle.loads(pickle.dumps(merged))
    rows = _rows()
    before = [merged.predict_one(x) for x in rows] if not is_classifier(cls) else \
        [merged.predict_proba_one(x) for x in rows]
    seen = [t.samples_seen for t in merged.trees]
    more = uniform_stream(600, 4, seed=5)
    for x, y in more[:300]:
        x["b"] = 0.1
        merged.learn_one(x, _label(cls, y, None))
    X = pd.DataFrame([dict(x, b=0.2) for x, _ in more[300:]])
    Y = pd.Series([_label(cls, y, None) for _, y in more[300:]])
    merged.learn_many(X, Y)
    if hasattr(merged, "flush"):
        merged.flush()
    assert sum(t.samples_seen for t in merged.trees) > sum(seen)
    after = [merged.predict_one(x) for x in rows] if not is_classifier(cls) else \
        [merged.predict_proba_one(x) for x in rows]
    assert after != before
    # every tree works on every feature the forest knows (5 fit in features_per_tree)
    for tree in merged.trees:
        assert tree.arrays()["n_columns"] == 5
        assert sorted(tree.arrays()["columns"].tolist()) == [0, 1, 2, 3, 4]
    # the pickled copy learns the same rows into the same forest
    for x, y in more[:300]:
        x["b"] = 0.1
        saved.learn_one(x, _label(cls, y, None))
    saved.learn_many(X, Y)
    if hasattr(saved, "flush"):
        saved.flush()
    for x in rows:
        if is_classifier(cls):
            assert saved.predict_proba_one(x) == merged.predict_proba_one(x)
        else:
            assert saved.predict_one(x) == merged.predict_one(x)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_merge_leaves_its_parts_unchanged(cls):
    a, b = _parts(cls)
    snapshots = [pickle.dumps(a), pickle.dumps(b)]
    merged = merge([a, b])
    for x, y in uniform_stream(50, 4, seed=3):
        merged.learn_one(x, _label(cls, y, None))
    assert [pickle.dumps(a), pickle.dumps(b)] == snapshots


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_merge_of_one_forest_predicts_as_it(cls):
    a, _ = _parts(cls)
    merged = merge([a])
    for x in _rows():
        if is_classifier(cls):
            assert merged.predict_proba_one(x) == pytest.approx(a.predict_proba_one(x), abs=1e-12)
        else:
            assert merged.predict_one(x) == pytest.approx(a.predict_one(x), abs=1e-12)


def test_merge_of_same_registries_keeps_each_tree_as_it_was():
    """Two forests on the same stream: nothing to map, every tree's state is its own."""
    cls = river_forests.MondrianForestClassifier
    stream = uniform_stream(300, 3, seed=4)
    a, b = cls(n_estimators=2, seed=1), cls(n_estimators=3, seed=2)
    for x, y in stream:
        a.learn_one(x, y)
        b.learn_one(x, y)
    merged = merge([a, b])
    for mine, theirs in zip(merged.trees, a.trees + b.trees):
        s, t = mine.arrays(), theirs.arrays()
        for key in ("left", "feature", "threshold", "weight", "value", "columns"):
            np.testing.assert_array_equal(s[key], t[key])


def test_merge_learns_what_a_batch_native_forest_buffered():
    """XForest's learn_one buffers rows: the merged forest has them learned (by that part's
    trees), the part still has them buffered."""
    cls = river_forests.XForestClassifier
    a = cls(n_estimators=2, batch_size=50, seed=1)
    for x, y in uniform_stream(120, 3, seed=1):
        a.learn_one(x, y)
    assert a.n_pending == 20
    merged = merge([a, cls(n_estimators=1, batch_size=50, seed=2)])
    assert a.n_pending == 20 and merged.n_pending == 0
    copy = pickle.loads(pickle.dumps(a))
    copy.flush()
    x = uniform_stream(1, 3, seed=8)[0][0]
    part = copy.predict_proba_one(x)
    got = merged.predict_proba_one(x)
    empty = 1 / len(merged._core.labels)  # the other part has not learned: uniform
    for c in got:
        assert got[c] == pytest.approx((2 * part.get(c, 0.0) + empty) / 3, abs=1e-12)


def test_merge_keeps_each_trees_drift_detectors():
    cls = river_forests.MondrianForestClassifier
    parts = [cls(n_estimators=n, seed=s, drift_detector=drift.ADWIN()) for n, s in ((2, 1), (3, 2))]
    stream = uniform_stream(400, 3, seed=1)
    for part in parts:
        for x, y in stream:
            part.learn_one(x, y)
    merged = merge(parts)
    assert len(merged.drifts_per_tree) == 5
    w = merged._core.watch.state()["watch"]
    assert len(w["adwins"]) == 5 and len(w["pending"]) == 5
    # each tree keeps its own detector's state
    parts_w = [p._core.watch.state()["watch"] for p in parts]
    assert w["adwins"] == parts_w[0]["adwins"] + parts_w[1]["adwins"]
    assert merged.drifts_per_tree == parts[0].drifts_per_tree + parts[1].drifts_per_tree
    # an abrupt change: the merged forest's detectors still replace trees
    for x, y in uniform_stream(3000, 3, seed=2, label=lambda x: int(x["x0"] < 0.4)):
        merged.learn_one(x, y)
    assert sum(merged.drifts_per_tree) > sum(parts[0].drifts_per_tree + parts[1].drifts_per_tree)


def test_merge_errors():
    M = river_forests.MondrianForestClassifier
    with pytest.raises(ValueError, match="at least one"):
        merge([])
    with pytest.raises(TypeError, match="river_forests forests"):
        merge([object()])
    with pytest.raises(TypeError, match="one class"):
        merge([M(n_estimators=1), river_forests.PurelyRandomForestClassifier(n_estimators=1)])
    with pytest.raises(ValueError, match="max_nodes"):
        merge([M(max_nodes=63), M(max_nodes=127)])
    # n_estimators and seed may differ
    assert merge([M(n_estimators=1, seed=1), M(n_estimators=2, seed=2)]).n_estimators == 3
    a, b = M(n_estimators=1, max_width=2), M(n_estimators=1, max_width=2)
    a.learn_one({"p": 1.0, "q": 2.0}, True)
    b.learn_one({"r": 1.0}, False)
    with pytest.raises(ValueError, match="max_width"):
        merge([a, b])


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if not is_classifier(c)], ids=name_of)
def test_merged_linear_leaves_predict_the_weighted_mean_and_keep_learning(cls):
    """Linear leaves survive a merge: each tree's models are over its own slots (from their
    origins, in its root range's units), so the merged forest predicts the tree-weighted mean
    of the parts' linear predictions, learns on (the feature part A never saw takes a slot
    whose models start with no slope for it) and pickles."""
    a, b = _parts(cls, leaf_model="linear")
    means = _parts(cls, leaf_model="mean")
    merged = merge([a, b])
    rows = _rows()
    want = [(N_A * a.predict_one(x) + N_B * b.predict_one(x)) / (N_A + N_B) for x in rows]
    got = [merged.predict_one(x) for x in rows]
    assert got == pytest.approx(want, abs=1e-9)
    mean_merged = merge(list(means))
    assert got != pytest.approx([mean_merged.predict_one(x) for x in rows], abs=1e-6)
    saved = pickle.loads(pickle.dumps(merged))
    for m in (merged, saved):
        for x, y in uniform_stream(300, 4, seed=5):
            x["b"] = 0.1
            m.learn_one(x, _label(cls, y, None))
        if hasattr(m, "flush"):
            m.flush()
    after = [merged.predict_one(x) for x in rows]
    assert after != got and all(np.isfinite(after))
    assert [saved.predict_one(x) for x in rows] == after
