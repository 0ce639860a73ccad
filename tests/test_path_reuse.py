"""Test-then-train walks each tree once: the learn of a row takes the walk its prediction
just left (`Tree.route`, `Aggregator.keep_walks`), and gives exactly the model the plain
calls give, whatever comes between the prediction and the learn."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from river import datasets

from .conftest import ESTIMATORS, batch_native, is_classifier, name_of


def _stream(cls, n, seed=3):
    gen = datasets.synth.Agrawal(seed=seed) if is_classifier(cls) else datasets.synth.Friedman(seed=seed)
    rows = list(itertools.islice(gen, n))
    for i, (x, _) in enumerate(rows):
        if i % 13 == 0:
            x[list(x)[i % len(x)]] = float("nan")  # a missing value routes by the children's weights
    return rows


def _first_difference(a, b):
    """The first tree array that differs between two forests, or None."""
    for ta, tb in zip(a._core.trees, b._core.trees):
        sa, sb = ta.get_state(), tb.get_state()
        assert sa.keys() == sb.keys()
        for k in sa:
            va, vb = sa[k], sb[k]
            if isinstance(va, np.ndarray):
                if not np.array_equal(va, vb, equal_nan=True):
                    return k
            elif va != vb and not (va != va and vb != vb):
                return k
    return None


SEQUENTIAL = [cls for cls in ESTIMATORS if not batch_native(cls)]


@pytest.mark.parametrize("cls", SEQUENTIAL, ids=name_of)
def test_predict_then_learn_equals_learn(cls):
    """A forest that predicts each row before it learns it ends bit for bit where one that
    only learns ends, and the learns took their walks from the predictions."""
    rows = _stream(cls, 1500)
    tested, plain = cls(n_estimators=4, seed=1), cls(n_estimators=4, seed=1)
    for x, y in rows:
        tested.predict_one(x)
        tested.learn_one(x, y)
        plain.learn_one(x, y)
    assert _first_difference(tested, plain) is None
    assert sum(t.walks_reused for t in tested._core.trees) > 0
    assert sum(t.walks_reused for t in plain._core.trees) == 0


@pytest.mark.parametrize("cls", SEQUENTIAL, ids=name_of)
def test_a_walk_is_not_taken_after_anything_between(cls):
    """Between the prediction and the learn: another row learned, another row predicted,
    a batch predicted, a new feature: the learn walks again, and the model is the plain one."""
    rows = _stream(cls, 1200, seed=5)
    tested, plain = cls(n_estimators=3, seed=2), cls(n_estimators=3, seed=2)
    batch = pd.DataFrame([x for x, _ in rows[:20]])
    for i, (x, y) in enumerate(rows):
        case = i % 5
        tested.predict_one(x)
        if case == 1:  # another row predicted
            tested.predict_one(rows[i - 1][0])
        elif case == 2:  # a batch predicted
            tested.predict_many(batch)
        elif case == 3:  # this row learned twice: the second learn walks again
            tested.learn_one(x, y)
            plain.learn_one(x, y)
        elif case == 4:  # a feature the prediction did not have
            x = dict(x, extra=float(i))
        tested.learn_one(x, y)
        plain.learn_one(x, y)
    assert _first_difference(tested, plain) is None
