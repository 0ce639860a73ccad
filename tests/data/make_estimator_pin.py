"""Writes the estimator pin (`tests/test_estimator_pin.py`): what every public estimator of
the package predicted, learning progressively and going on learning after a copy, on two
streams (Phishing's first rows, their labels flipped for a while, and Friedman's generator,
its targets raised for a while: drifts that the cases with detectors see), recorded by the code before issue 46's refactoring (commit b0d5a9a2, the
parent of its first code commit 9829962e):

    git worktree add --detach ../base b0d5a9a2
    (cd ../base && python setup.py build_ext --inplace)
    PYTHONPATH=../base python tests/data/make_estimator_pin.py tests/data/estimator_pin.json.gz

Written again by this script at issue 47's change of the intervals (the calibrator's
defaults, and XForest's first batch calibrated row by row): the regressors' interval bounds
changed, every other value is the one recorded at b0d5a9a2 (the parameters now spell out
`leaf_model` and `linear_rate`, at the values that give the models recorded then). Issue 47's
step of XForest's calibrator (`XForestRegressor.INTERVALS`, lr 0.2) changed its interval
bounds once more: its four cases were run again from their stored parameters (`run`), and
only their bounds differ.

Each case builds one estimator with every constructor parameter spelled out (the fixture
stores them, as the recording version's ``_get_params()`` gave them, and the test builds the
model from those, so a changed default cannot change the model the test compares) and:

- predicts each of the first `SPLIT` rows before learning it (``predict_proba_one`` then
  ``learn_one``; a regressor's ``predict_one``, its ``with_dist`` sigma and its
  ``with_interval`` bounds), or, for a batch case, each batch of `BATCH` rows before learning
  it (``predict_proba_many`` / ``predict_many(with_interval=True)``, then ``learn_many``);
- copies the model (``pickle`` and ``river_forests.save``/``load``) and goes on with the
  model and with each copy over the rest of the rows, predicting before learning: the
  continued learning. A copy's records are stored once when they equal the model's.

Floats are stored exactly (JSON numbers are Python's shortest repr, which round-trips; an
infinite bound as the string "inf"); a missing class as null. The JSON is gzipped (without a
time stamp, so the same records give the same bytes): some 600 KB of digits in 200 KB.
"""

import gzip
import hashlib
import itertools
import json
import pathlib
import pickle
import sys
import tempfile

import pandas as pd
from river import datasets, drift
from river.datasets import synth

import river_forests

N_ROWS, SPLIT, BATCH = 300, 200, 25
LABELS = (False, True)


#: the rows whose concept is changed (see the streams): a drift before the copies are made
#: and its end after, in the continued learning
CHANGED = range(100, 240)


def classification_rows() -> list:
    """The first rows of Phishing (river's bundled data set; real features, boolean labels),
    their labels flipped over the rows of `CHANGED`: a drift the detectors see."""
    rows = itertools.islice(datasets.Phishing(), N_ROWS)
    return [(x, not y if i in CHANGED else y) for i, (x, y) in enumerate(rows)]


def regression_rows() -> list:
    """Friedman's regression stream, its targets raised by 20 over the rows of `CHANGED`."""
    rows = synth.Friedman(seed=42).take(N_ROWS)
    return [(x, y + 20.0 if i in CHANGED else y) for i, (x, y) in enumerate(rows)]


STREAMS = {"classification": classification_rows, "regression": regression_rows}


def _adwin(delta):
    return {"__detector__": "ADWIN", "delta": delta}


#: the drift watch: river's ADWIN compiled in the core, sensitive enough that on these few
#: rows it fires, with a warning detector whose warnings grow background trees (duels, swaps)
WATCH = dict(drift_detector=_adwin(0.05), warning_detector=_adwin(0.3))
#: the detector four classifiers watch with by default since 09458e05 (spelled out: before it,
#: the default was None and no string named a detector)
ADWIN_DEFAULT = dict(drift_detector=_adwin(0.001), warning_detector=None)
NO_WATCH = dict(drift_detector=None, warning_detector=None)

_SMALL = dict(n_estimators=5, seed=42)

#: name -> (estimator, stream, parameters given, batch); the rest of the parameters are the
#: recording version's defaults, stored in the fixture
CASES = {}
for _name in ("BSPForest", "MondrianForest", "PurelyRandomForest", "StreamPartitionForest",
              "XForest"):
    for _kind, _stream in (("Classifier", "classification"), ("Regressor", "regression")):
        _cls = _name + _kind
        _own = dict(_SMALL, batch_size=40) if _name == "XForest" else _SMALL
        CASES[f"{_cls}"] = (_cls, _stream, dict(_own, **NO_WATCH), False)
        CASES[f"{_cls}-watch"] = (_cls, _stream, dict(_own, **WATCH), False)
        if _kind == "Classifier" and _name != "StreamPartitionForest":
            CASES[f"{_cls}-adwin"] = (_cls, _stream, dict(_own, **ADWIN_DEFAULT), False)
        if _name == "XForest":  # batch-native: its own batches too
            CASES[f"{_cls}-batches"] = (_cls, _stream, dict(_own, **NO_WATCH), True)
            CASES[f"{_cls}-batches-watch"] = (_cls, _stream, dict(_own, **WATCH), True)

# parameters that take another compiled path
CASES.update({
    "PurelyRandomForestClassifier-uniform": (
        "PurelyRandomForestClassifier", "classification",
        dict(_SMALL, split="uniform", **NO_WATCH), False),
    "PurelyRandomForestRegressor-uniform": (
        "PurelyRandomForestRegressor", "regression",
        dict(_SMALL, split="uniform", **NO_WATCH), False),
    "MondrianForestClassifier-fixed-vote-prunings": (
        "MondrianForestClassifier", "classification",
        dict(_SMALL, growth=2.0, aggregation="vote", weighted_prunings=True, max_nodes=63,
             **NO_WATCH), False),
    "MondrianForestRegressor-mean-leaves": (
        "MondrianForestRegressor", "regression",
        dict(_SMALL, leaf_model="mean", recycling=False, **NO_WATCH), False),
    "MondrianForestClassifier-poisson-reservoir-at-drift": (
        "MondrianForestClassifier", "classification",
        dict(_SMALL, subsampling="poisson", features_per_tree=4, background_swap="at_drift",
             **WATCH), False),
    "StreamPartitionForestClassifier-points-majority": (
        "StreamPartitionForestClassifier", "classification",
        dict(_SMALL, splitter="points", leaf_prediction="majority", **NO_WATCH), False),
    "StreamPartitionForestClassifier-naive-bayes-honest": (
        "StreamPartitionForestClassifier", "classification",
        dict(_SMALL, leaf_prediction="naive_bayes", honest=True, **NO_WATCH), False),
    "XForestClassifier-entropy-bootstrap": (
        "XForestClassifier", "classification",
        dict(_SMALL, criterion="entropy", bootstrap=True, kept_rows=0, batch_size=20,
             **NO_WATCH), True),
    "BSPForestRegressor-bernoulli-capped": (
        "BSPForestRegressor", "regression",
        dict(_SMALL, subsampling="bernoulli", subsample_rate=0.7, max_nodes=63, **NO_WATCH),
        False),
})


# -- parameters as plain data ------------------------------------------------------------

def encode_param(value):
    if isinstance(value, drift.ADWIN):
        return {"__detector__": "ADWIN", **value._get_params()}
    if isinstance(value, tuple) and len(value) == 2 and value[0] is drift.ADWIN:
        return {"__detector__": "ADWIN", **value[1]}  # river's _get_params() of an estimator
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"no plain form for the parameter value {value!r}")


def decode_param(value):
    if isinstance(value, dict) and value.get("__detector__") == "ADWIN":
        return drift.ADWIN(**{k: v for k, v in value.items() if k != "__detector__"})
    return value


def build(estimator: str, params: dict):
    """The estimator built with `params` (plain data, detectors as their spec). A parameter
    added after the fixture was recorded takes the value that gives the model recorded
    (`_added_params`, what a file saved before it loads with: the regressors' mean leaves),
    not today's default."""
    cls = getattr(river_forests, estimator)
    given = {k: decode_param(v) for k, v in params.items()}
    return cls(**{**getattr(cls, "_added_params", {}), **given})


# -- floats as plain data ----------------------------------------------------------------

def encode_float(v):
    if v is None:
        return None
    v = float(v)
    return v if v == v and abs(v) != float("inf") else repr(v)


def decode_float(v):
    return None if v is None else float(v)


# -- the recording -----------------------------------------------------------------------

def _predict_one(model, x, task: str) -> list:
    if task == "classification":
        proba = model.predict_proba_one(x)
        return [encode_float(proba.get(c)) for c in LABELS]
    mean = model.predict_one(x)
    dist = model.predict_one(x, with_dist=True)  # None where the trees give no spread
    interval = model.predict_one(x, with_interval=True)
    return [encode_float(mean), encode_float(None if dist is None else dist.sigma),
            encode_float(interval.lower),
            encode_float(interval.upper)]


def _predict_batch(model, rows, task: str) -> list:
    X = pd.DataFrame([x for x, _ in rows])
    if task == "classification":
        proba = model.predict_proba_many(X)
        return [[encode_float(proba[c].iloc[i]) if c in proba.columns else None for c in LABELS]
                for i in range(len(X))]
    out = model.predict_many(X, with_interval=True)
    return [[encode_float(out["prediction"].iloc[i]), encode_float(out["lower"].iloc[i]),
             encode_float(out["upper"].iloc[i])] for i in range(len(X))]


def _learn(model, rows, task: str, batch: bool) -> list:
    """Predict each row (each batch of rows) before learning it; the predictions."""
    out = []
    if batch:
        for start in range(0, len(rows), BATCH):
            chunk = rows[start:start + BATCH]
            out.extend(_predict_batch(model, chunk, task))
            model.learn_many(pd.DataFrame([x for x, _ in chunk]), pd.Series([y for _, y in chunk]))
        return out
    for x, y in rows:
        out.append(_predict_one(model, x, task))
        model.learn_one(x, y)
    return out


def _summary(model) -> dict:
    """Counts a user reads off the model at the end (ints)."""
    return {"n_nodes": int(model.n_nodes),
            "drifts_per_tree": [int(v) for v in model.drifts_per_tree],
            "swaps_per_tree": [int(v) for v in model.swaps_per_tree]}


def run(estimator: str, task: str, params: dict, batch: bool, rows=None) -> dict:
    """Build the model from `params` and record what it predicts (see the module's
    docstring)."""
    rows = STREAMS[task]() if rows is None else rows
    model = build(estimator, params)
    record = {"progressive": _learn(model, rows[:SPLIT], task, batch)}
    pickled = pickle.loads(pickle.dumps(model))
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "model.rf"
        river_forests.save(model, path)
        saved = river_forests.load(path)
    for name, copy in (("continued", model), ("pickled", pickled), ("saved", saved)):
        preds = _learn(copy, rows[SPLIT:], task, batch)
        same = name != "continued" and json.dumps(preds) == json.dumps(record["continued"])
        record[name] = "continued" if same else preds  # json: -0.0 is not 0.0
        record[f"{name}_summary"] = _summary(copy)
    return record


def rows_digest(rows: list) -> str:
    """A digest of a stream's rows (each feature's value exactly), to tell a changed stream
    from a changed model."""
    h = hashlib.sha256()
    for x, y in rows:
        h.update(repr(sorted((k, float(v).hex()) for k, v in x.items())).encode())
        h.update(repr(y).encode())
    return h.hexdigest()


def explicit_params(estimator: str, given: dict) -> dict:
    """Every constructor parameter of the estimator built with `given`, as plain data."""
    model = build(estimator, given)
    return {k: encode_param(v) for k, v in sorted(model._get_params().items())}


def main(out: str) -> None:
    rows = {task: make() for task, make in STREAMS.items()}
    cases = {}
    for name, (estimator, task, given, batch) in CASES.items():
        params = explicit_params(estimator, given)
        cases[name] = {"estimator": estimator, "stream": task, "batch": batch,
                       "params": params, **run(estimator, task, params, batch, rows[task])}
        print(name, cases[name]["continued_summary"], file=sys.stderr)
    import river

    doc = {"recorded_by": f"river_forests {river_forests.__version__} at commit b0d5a9a2, "
                          f"river {river.__version__}",
           "n_rows": N_ROWS, "split": SPLIT, "batch": BATCH,
           "streams": {task: rows_digest(r) for task, r in rows.items()}, "cases": cases}
    text = json.dumps(doc, separators=(",", ":"), sort_keys=True) + "\n"
    pathlib.Path(out).write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1
         else str(pathlib.Path(__file__).parent / "estimator_pin.json.gz"))
