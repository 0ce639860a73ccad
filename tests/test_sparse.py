"""Sparse input: a SciPy sparse matrix and a frame of pandas sparse columns learn and predict as
the dense frame they stand for (a matrix's unstored entries missing, as a dict's absent keys; a
sparse column's, its fill value), whole or a block of rows at a time; and a sparse dict stream
(a sample setting few of a tree's slots, which the box kinds then test and stretch over those
slots only) learns exactly as it did when every slot was visited."""

import hashlib

import numpy as np
import pandas as pd
import pytest

import river_forests
from river_forests import _forest

from .conftest import ESTIMATORS, is_classifier, name_of

sp = pytest.importorskip("scipy.sparse")


def _matrix(n=360, d=120, density=0.04, seed=1):
    m = sp.random(n, d, density=density, format="csr", random_state=seed)
    s = np.asarray(m @ np.where(np.arange(d) % 2, 1.0, -1.0)).ravel()
    return m, s


def _missing_frame(m):
    """The dense frame a SciPy matrix stands for: NaN where nothing is stored."""
    dense = np.full(m.shape, np.nan)
    coo = m.tocoo()
    dense[coo.row, coo.col] = coo.data
    return pd.DataFrame(dense)


def _targets(cls, s):
    return pd.Series((s > 0).astype(int)) if is_classifier(cls) else pd.Series(s)


def _answers(model, X):
    out = model.predict_proba_many(X) if is_classifier(type(model)) else model.predict_many(X)
    return np.ascontiguousarray(out.to_numpy(dtype=float))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_scipy_matrix_learns_as_the_frame_of_its_stored_entries(cls):
    m, s = _matrix()
    y = _targets(cls, s)
    frame = _missing_frame(m)
    a, b = cls(n_estimators=3, seed=2), cls(n_estimators=3, seed=2)
    a.learn_many(m[:300], y[:300])
    b.learn_many(frame[:300], y[:300])
    got = a.predict_proba_many(m[300:]) if is_classifier(cls) else a.predict_many(m[300:])
    assert list(got.index) == list(range(60))  # a matrix's rows, numbered
    np.testing.assert_array_equal(_answers(a, m[300:]), _answers(b, frame[300:]))


@pytest.mark.parametrize("cls", [c for c in ESTIMATORS if c._learn_many_equals_learn_one],
                         ids=name_of)
def test_a_sparse_batch_learned_by_blocks_is_the_whole_batch(cls, monkeypatch):
    """A sequential forest learns a batch row after row: blocks of a few rows (what bounds
    the memory of a wide batch) give what the whole gives."""
    m, s = _matrix()
    y = _targets(cls, s)
    whole = cls(n_estimators=3, seed=4)
    whole.learn_many(m, y)
    monkeypatch.setattr(_forest, "SPARSE_BLOCK_BYTES", 8 * m.shape[1] * 7)  # blocks of 7 rows
    blocks = cls(n_estimators=3, seed=4)
    blocks.learn_many(m, y)
    np.testing.assert_array_equal(_answers(blocks, m), _answers(whole, m))


@pytest.mark.parametrize("cls", [river_forests.MondrianForestClassifier,
                                 river_forests.XForestRegressor], ids=name_of)
def test_pandas_sparse_columns_mean_their_fill_value(cls):
    """A sparse column of fill value 0 (what ``DataFrame.sparse.from_spmatrix`` gives) stands
    for zeros, one of fill value NaN for missing values: as ``X.sparse.to_dense()``."""
    m, s = _matrix(d=40, density=0.2)
    y = _targets(cls, s)
    zeros = pd.DataFrame.sparse.from_spmatrix(m)
    frame = _missing_frame(m)
    nans = frame.astype(pd.SparseDtype("float64", np.nan))
    for sparse, dense in ((zeros, pd.DataFrame(m.toarray())), (nans, frame)):
        a, b = cls(n_estimators=3, seed=3), cls(n_estimators=3, seed=3)
        a.learn_many(sparse[:300], y[:300])
        b.learn_many(dense[:300], y[:300])
        np.testing.assert_array_equal(_answers(a, sparse[300:]), _answers(b, dense[300:]))


def test_bad_sparse_input_fails_clearly_and_changes_nothing():
    m, s = _matrix()
    model = river_forests.MondrianForestClassifier(n_estimators=2, seed=1)
    model.learn_many(m[:100], pd.Series((s[:100] > 0).astype(int)))
    before = _answers(model, m[300:])
    with pytest.raises(ValueError, match="rows but y has"):
        model.learn_many(m[100:200], [0, 1])
    with pytest.raises(TypeError, match="numbers"):
        model.learn_many(pd.DataFrame({"a": pd.arrays.SparseArray(["x", "y"])}), [0, 1])
    with pytest.raises(TypeError, match="DataFrame or a SciPy sparse matrix"):
        model.learn_many(np.zeros((2, 3)), [0, 1])
    np.testing.assert_array_equal(_answers(model, m[300:]), before)


def _sparse_stream(n=400, width=400, k=5, seed=3, regression=False):
    """Dicts of `k` of `width` words: a sample sets at most one in eight of a tree's 64 slots."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        cols = rng.choice(width, size=k, replace=False)
        x = {f"w{c}": float(rng.random()) for c in cols}
        s = sum(v * (1 if int(c) % 2 else -1) for c, v in zip(cols, x.values()))
        out.append((x, s if regression else int(s > 0)))
    return out


#: test-then-train digests of the stream above (3 trees, seed 5) at commit 1894aacb, where
#: every box loop visited every slot of a tree: the loops over a sparse sample's set slots
#: (`_boxtree.BoxTree.shift`'s mask), the leaves' dimension over their sides of positive
#: length and the purely random rates after a slot swap must give the same answers, bit for
#: bit, with a byte budget too
BEFORE = {
    ("MondrianForestClassifier", ()): "2a1d4f7decb760ef",
    ("MondrianForestClassifier", (("memory_budget", "200KB"),)): "dc82db96e1cf9e54",
    ("MondrianForestRegressor", ()): "7078d311da0879e3",
    ("MondrianForestRegressor", (("memory_budget", "200KB"),)): "ce770f61b09db178",
    ("PurelyRandomForestClassifier", ()): "3c7e13aabdbba58c",
    ("PurelyRandomForestClassifier", (("split", "uniform"),)): "22e7d1c1e0e19935",
    ("PurelyRandomForestClassifier", (("memory_budget", "200KB"),)): "884b8401269ea99d",
    ("PurelyRandomForestRegressor", (("split", "uniform"),)): "c2b9c779b68911e3",
    ("BSPForestClassifier", ()): "59209f90913776bb",
    ("XForestClassifier", ()): "8f71f8f9d03cb1d1",
    ("XForestClassifier", (("memory_budget", "200KB"),)): "82a03ac2f1b5a443",
}


@pytest.mark.parametrize("name,params", list(BEFORE), ids=lambda v: str(v))
def test_sparse_samples_learn_as_before_the_set_slot_loops(name, params):
    regression = "Regressor" in name
    model = getattr(river_forests, name)(n_estimators=3, seed=5, **dict(params))
    h = hashlib.sha256()
    for x, y in _sparse_stream(regression=regression):
        h.update(repr(model.predict_one(x) if regression
                      else sorted(model.predict_proba_one(x).items())).encode())
        model.learn_one(x, y)
    assert h.hexdigest()[:16] == BEFORE[(name, params)]
