"""Batch-native estimators (``_learn_many_equals_learn_one = False``, e.g. XForest) are run by
the progressive loop, the command line and the benchmark as their users run them: each chunk of
``batch_size`` samples predicted as a whole (``predict_proba_many`` / ``predict_many``), then
learned (``learn_many``), never through ``learn_one``; and every output says so. The
estimators here are fakes that count their calls, so these tests stand without XForest."""

import collections
import math
from pathlib import Path

import pandas as pd
import pytest
from river import base, datasets, evaluate, linear_model, metrics

import river_forests.__main__ as cli
from river_forests import MondrianForestClassifier
from river_forests._progressive import (
    Result,
    _labels,
    batch_native,
    batch_size_of,
    iter_progressive_run,
    progressive_run,
    run_mode,
)

ROOT = Path(__file__).resolve().parents[1]


class BatchMajorityClassifier(base.MiniBatchClassifier):
    """Predicts the label frequencies seen so far (so the majority label wins, the first in
    sorted order on a tie); no columns before any sample. Records every call it receives."""

    _learn_many_equals_learn_one = False

    def __init__(self, batch_size: int = 7):
        self.batch_size = batch_size
        self.counts = collections.Counter()
        self.calls = []
        self.frames = []

    def learn_one(self, x, y):
        self.calls.append(("learn_one", 1))
        self.counts[y] += 1

    def predict_proba_one(self, x):
        self.calls.append(("predict_proba_one", 1))
        total = sum(self.counts.values())
        return {c: self.counts[c] / total for c in sorted(self.counts)}

    def learn_many(self, X, y):
        assert X.index.equals(y.index)
        self.calls.append(("learn_many", len(X)))
        self.frames.append(X)
        self.counts.update(y.tolist())

    def predict_proba_many(self, X):
        self.calls.append(("predict_proba_many", len(X)))
        total = sum(self.counts.values())
        return pd.DataFrame({c: [self.counts[c] / total] * len(X) for c in sorted(self.counts)},
                            index=X.index)


class BatchMeanRegressor(base.MiniBatchRegressor):
    """Predicts the mean target seen so far (NaN before any sample); records its calls."""

    _learn_many_equals_learn_one = False

    def __init__(self, batch_size: int = 7):
        self.batch_size = batch_size
        self.total, self.count = 0.0, 0
        self.calls = []

    def learn_one(self, x, y):
        self.calls.append(("learn_one", 1))
        self.total, self.count = self.total + y, self.count + 1

    def predict_one(self, x):
        self.calls.append(("predict_one", 1))
        return self.total / self.count if self.count else None

    def learn_many(self, X, y):
        self.calls.append(("learn_many", len(X)))
        self.total, self.count = self.total + float(y.sum()), self.count + len(y)

    def predict_many(self, X):
        self.calls.append(("predict_many", len(X)))
        mean = self.total / self.count if self.count else math.nan
        return pd.Series([mean] * len(X), index=X.index, dtype=float)


class SampleMajorityClassifier(BatchMajorityClassifier):
    """The same model declaring that its learn_many is a learn_one loop: fed sample by sample."""

    _learn_many_equals_learn_one = True


class NoBatchLogisticRegression(linear_model.LogisticRegression):
    """river's model, failing if the harness ever feeds it a batch."""

    def learn_many(self, X, y):
        pytest.fail("learn_many called on a model that learns one sample at a time")


# 30 samples, chunks of 7, 7, 7, 7, 2; the label runs make every chunk's prediction known
LABELS = [1] * 7 + [0] * 7 + [0] * 7 + [1] * 7 + [1, 0]
DATA = [({"a": float(i), **({"b": 1.0} if i % 3 == 0 else {})}, y) for i, y in enumerate(LABELS)]


def test_the_flags():
    assert batch_native(BatchMajorityClassifier()) and batch_native(BatchMeanRegressor())
    assert not batch_native(SampleMajorityClassifier())
    assert not batch_native(MondrianForestClassifier())  # declares True, or says nothing yet
    assert not batch_native(linear_model.LogisticRegression())  # river's: has learn_many, no flag
    assert batch_size_of(BatchMajorityClassifier()) == 7 and batch_size_of(MondrianForestClassifier()) == 100
    assert run_mode(BatchMajorityClassifier(batch_size=5)) == "batches of 5"
    assert run_mode(MondrianForestClassifier()) == "one"
    with pytest.raises(ValueError, match="batch_size"):
        batch_size_of(BatchMajorityClassifier(batch_size=0))


def test_a_batch_native_classifier_is_fed_chunks_predicted_before_learned():
    model = BatchMajorityClassifier()
    r = progressive_run(model, DATA, metrics.Accuracy())
    assert model.calls == [(kind, size) for size in (7, 7, 7, 7, 2)
                           for kind in ("predict_proba_many", "learn_many")]
    assert r.mode == "batches of 7" and r.n == 30 and r.seconds > 0
    assert r.memory > 0
    # by hand: chunk 1 unscored (no columns yet); chunk 2 predicts 1 (7 ones seen), 0 right;
    # chunk 3 a 7-7 tie -> 0, 7 right; chunk 4 predicts 0, 0 right; chunk 5 a 14-14 tie -> 0:
    # 1 right of 2. 8 right of 23 scored.
    assert r.metric == pytest.approx(8 / 23)
    # a learn_one loop would score differently: the fake learns differently in batches
    one_by_one = progressive_run(SampleMajorityClassifier(), DATA, metrics.Accuracy())
    assert one_by_one.metric != r.metric


def test_the_frames_hold_every_key_of_their_rows_and_their_stream_positions():
    model = BatchMajorityClassifier()
    progressive_run(model, DATA, metrics.Accuracy())
    first, last = model.frames[0], model.frames[-1]
    assert list(first.columns) == ["a", "b"] and list(first.index) == list(range(7))
    assert first["b"].isna().tolist() == [i % 3 != 0 for i in range(7)]  # missing keys: NaN
    assert list(last.index) == [28, 29] and list(last.columns) == ["a"]  # 28, 29: no "b"


def test_a_batch_native_regressor_is_fed_chunks_and_unknown_predictions_are_not_scored():
    ys = [float(i % 5) for i in range(30)]
    data = [({"a": float(i)}, y) for i, y in enumerate(ys)]
    model = BatchMeanRegressor()
    r = progressive_run(model, data, metrics.MAE())
    assert model.calls == [(kind, size) for size in (7, 7, 7, 7, 2)
                           for kind in ("predict_many", "learn_many")]
    errors = []
    for start in range(7, 30, 7):  # chunk 1: NaN predictions, learned but not scored
        mean = sum(ys[:start]) / start
        errors += [abs(y - mean) for y in ys[start:start + 7]]
    assert r.mode == "batches of 7" and r.metric == pytest.approx(sum(errors) / len(errors))


def test_a_normal_model_still_learns_one_sample_at_a_time():
    model = SampleMajorityClassifier()
    r = progressive_run(model, DATA, metrics.Accuracy())
    assert {kind for kind, _ in model.calls} == {"predict_proba_one", "learn_one"}
    assert len(model.calls) == 60 and r.mode == "one"
    # river's own mini-batch model declares nothing: one by one, scored as river scores it
    data = list(datasets.Phishing())[:200]
    expected = evaluate.progressive_val_score(data, linear_model.LogisticRegression(), metrics.Accuracy())
    r = progressive_run(NoBatchLogisticRegression(), data, metrics.Accuracy())
    assert r.mode == "one" and r.metric == expected.get()


def test_the_curve_keeps_its_cadence_at_chunk_ends():
    # points at the chunk end crossing each multiple of 10 (14, 21) and at the end (30)
    r = progressive_run(BatchMajorityClassifier(), DATA, metrics.Accuracy(), every=10)
    assert [i for i, _ in r.curve] == [14, 21, 30]
    # one sample at a time: exactly the multiples, as before
    r = progressive_run(SampleMajorityClassifier(), DATA, metrics.Accuracy(), every=10)
    assert [i for i, _ in r.curve] == [10, 20, 30]
    points = list(iter_progressive_run(BatchMajorityClassifier(batch_size=10), DATA, metrics.Accuracy(),
                                       every=10))
    assert [i for i, _ in points] == [10, 20, 30] and points[0][1] <= points[-1][1]


def test_rows_of_nan_probabilities_or_no_columns_are_not_predicted():
    proba = pd.DataFrame({"x": [0.2, math.nan, 0.5], "y": [0.8, math.nan, 0.5]})
    assert _labels(proba) == ["y", None, "x"]  # a tie: the first column, as max over a dict
    assert _labels(pd.DataFrame(index=range(3))) == [None, None, None]
    assert _labels(pd.DataFrame({True: [0.4], False: [0.6]})) == [False]


def _result(mode="one"):
    return Result(n=10, metric=0.5, seconds=1.0, memory=2**20, mode=mode)


def test_the_command_line_labels_batch_fed_models():
    assert cli.table_label("MondrianForestClassifier", _result()) == "MondrianForestClassifier"
    assert cli.table_label("XForestClassifier", _result("batches of 100")) == \
        "XForestClassifier [learn_many, batches of 100]"
    assert cli.batch_footnote({"A": _result()}) is None
    note = cli.batch_footnote({"A": _result(), "XForestClassifier": _result("batches of 100")})
    assert note.startswith("[learn_many, batches of k]: ") and "learn_many" in note
    assert note.split("):")[1].split(".")[0].strip() == "XForestClassifier"  # the models named: not A


def test_the_command_line_runs_batch_native_models_in_batches(monkeypatch, capsys):
    made = {}

    def ours(task, n_estimators, seed):
        made["fake"] = BatchMajorityClassifier()
        return {"BatchMajority": made["fake"], "MondrianForestClassifier": MondrianForestClassifier(
            n_estimators=n_estimators, seed=seed)}

    monkeypatch.setattr(cli, "ours", ours)
    assert cli.main(["--dataset", "phishing", "-n", "50", "--only-ours"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert {kind for kind, _ in made["fake"].calls} == {"predict_proba_many", "learn_many"}
    header = next(i for i, line in enumerate(out) if line.startswith("model"))
    rows = out[header + 1:header + 3]
    assert rows[0].startswith("BatchMajority [learn_many, batches of 7] ")
    assert rows[1].startswith("MondrianForestClassifier ") and "[" not in rows[1]
    # the numbers stay in aligned columns under the header, however long a label
    assert len({len(line) for line in [out[header], *rows]}) == 1
    assert any(line.startswith("[learn_many, batches of k]: ") and "): BatchMajority." in line
               for line in out)


def test_the_benchmark_runs_batch_native_models_in_batches():
    from benchmarks import harness
    from benchmarks.models import Model
    from benchmarks.streams import STREAMS

    made = {}

    def make(stream, cls=BatchMajorityClassifier):
        made["model"] = cls()
        return made["model"]

    spec = Model("BatchMajority", "river", "clf", make, "fake")
    record = harness.run(STREAMS["phishing"], spec, DATA, "digest", "test")
    assert {kind for kind, _ in made["model"].calls} == {"predict_proba_many", "learn_many"}
    assert record["fed"] == "batches of 7" and record["metric"] == pytest.approx(8 / 23)
    assert record["curve"][-1][0] == 30 and record["memory"] > 0
    spec = Model("S", "river", "clf", lambda s: make(s, SampleMajorityClassifier), "fake")
    assert harness.run(STREAMS["phishing"], spec, DATA, "digest", "test")["fed"] == "one"
