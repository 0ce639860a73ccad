"""The stream-partitioning forest on long stationary streams (issue 45): with
``max_active_leaves="auto"`` the fringe is as large as the tree's share of the budget holds,
so the forest spends its budget, keeps learning, and a larger budget is not worse."""

from __future__ import annotations

import pickle

import pytest
from river import datasets, metrics

from river_forests import StreamPartitionForestClassifier, StreamPartitionForestRegressor
from river_forests._progressive import iter_progressive_run


def _rbf(n, seed=5):
    gen = datasets.synth.RandomRBF(seed_model=seed, seed_sample=seed + 1, n_classes=6,
                                   n_features=12, n_centroids=60)
    return list(gen.take(n))


def _windows(model, data, parts):
    """Windowed accuracy over each of `parts` equal parts of `data` (progressive), and the
    largest memory seen at the part ends."""
    acc = metrics.Accuracy()
    out, prev_c, prev_n, peak = [], 0.0, 0.0, 0
    for _, _ in iter_progressive_run(model, data, acc, len(data) // parts):
        c, n = acc.cm.total_true_positives, acc.cm.total_weight
        out.append((c - prev_c) / (n - prev_n))
        prev_c, prev_n = c, n
        peak = max(peak, model._raw_memory_usage)
    return out, peak


@pytest.fixture(scope="module")
def rbf():
    return _rbf(60_000)


@pytest.fixture(scope="module")
def auto_run(rbf):
    model = StreamPartitionForestClassifier(n_estimators=5, max_active_leaves="auto",
                                            memory_budget="4MB", seed=42)
    wins, peak = _windows(model, rbf, 4)
    return model, wins, peak


def test_auto_keeps_learning_on_a_stationary_stream(auto_run):
    """The last quarter is at least as accurate as the second (a forest that stopped growing,
    or forgot, would not be)."""
    _, wins, _ = auto_run
    assert wins[3] >= wins[1] - 0.002, wins


def test_auto_spends_its_budget_and_stays_within_it(auto_run):
    model, _, peak = auto_run
    assert peak <= 4_000_000
    assert model._raw_memory_usage >= 0.8 * 4_000_000, model._raw_memory_usage


def test_a_fixed_fringe_leaves_a_large_budget_unspent(rbf):
    """The paper's fixed fringe stops at its count whatever the budget: the reason for auto."""
    fixed = StreamPartitionForestClassifier(n_estimators=5, max_active_leaves=16,
                                            memory_budget="4MB", seed=42)
    for x, y in rbf[:30_000]:
        fixed.learn_one(x, y)
    assert fixed.n_active_leaves <= 5 * 16
    assert fixed._raw_memory_usage < 0.5 * 4_000_000


def test_twice_the_budget_is_not_less_accurate(rbf):
    scores = {}
    for budget in ("2MB", "4MB"):
        model = StreamPartitionForestClassifier(n_estimators=5, max_active_leaves="auto",
                                                memory_budget=budget, seed=42)
        wins, peak = _windows(model, rbf[:40_000], 4)
        assert peak <= int(budget[0]) * 1_000_000
        scores[budget] = wins[-1] + wins[-2]
    assert scores["4MB"] >= scores["2MB"] - 0.004, scores


def test_the_auto_fringe_outgrows_a_fixed_one_under_a_large_budget(rbf):
    counts = {}
    for cap in (8, "auto"):
        model = StreamPartitionForestClassifier(n_estimators=3, max_active_leaves=cap,
                                                memory_budget="8MB", seed=1)
        for x, y in rbf[:15_000]:
            model.learn_one(x, y)
        counts[cap] = max(t.active_leaves for t in model._core.trees)
    assert counts[8] <= 8 < counts["auto"]


def test_auto_survives_a_pickle_within_its_budget(rbf):
    """A pickled auto forest stays auto and within its budget as it goes on learning. (Not bit
    for bit: a loaded tree's pools are laid out afresh, and under a binding byte budget its
    fringe decisions then differ; so does a fixed fringe's.)"""
    model = StreamPartitionForestClassifier(n_estimators=3, max_active_leaves="auto",
                                            memory_budget="1MB", seed=7)
    for x, y in rbf[:8000]:
        model.learn_one(x, y)
    back = pickle.loads(pickle.dumps(model))
    assert back.max_active_leaves == "auto"
    for x, y in rbf[8000:14_000]:
        back.learn_one(x, y)
        assert back._raw_memory_usage <= 1_000_000
    assert back.n_active_leaves > 0


def test_auto_regressor_stays_within_its_budget():
    model = StreamPartitionForestRegressor(n_estimators=3, max_active_leaves="auto",
                                           memory_budget="1MB", seed=3)
    for x, y in datasets.synth.Friedman(seed=4).take(8000):
        model.learn_one(x, y)
    assert model._raw_memory_usage <= 1_000_000
    assert model.n_splits > 0


@pytest.mark.parametrize("bad", ["Auto", "all", 0, -3, 2.5, True, None])
def test_bad_fringe_sizes_are_refused_by_name(bad):
    for cls in (StreamPartitionForestClassifier, StreamPartitionForestRegressor):
        with pytest.raises(ValueError, match="max_active_leaves"):
            cls(max_active_leaves=bad)
