"""Writes the model files of the current format version that every later release's tests
load (`tests/test_save_load.py::test_a_file_of_an_earlier_format_loads_and_predicts_as_it_did`),
and what the saved models predicted, into ``tests/data/format<version>/``. Run by hand, once,
by the release that writes a new format version:

    python tests/data/make_fixtures.py

Each estimator is saved mid-stream, mid-warning: with drift detectors (river's ADWIN,
compiled, and a warning detector) on a stream whose concept changes at row 150 (the labels
flip, the targets rise by 20), saved at the first row after it where a background tree is
learning; the Mondrian forests also with a detector that runs in Python. `expected.json`
holds, for each file, the row it was saved at, the predictions of the next rows, then of the
rows after those once the model has learned them; from format 2 on, also the feature
importances the saved model reported.
"""

import json
import pathlib

from river import base, datasets, drift

import river_forests
from river_forests._state import STATE_VERSION

HERE = pathlib.Path(__file__).parent / f"format{STATE_VERSION}"
SWITCH, CHECK, GO_ON = 150, 30, 30


def cases():
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if not (isinstance(cls, type) and issubclass(cls, base.Estimator)):
            continue
        yield name, cls(n_estimators=3, seed=7, drift_detector=drift.ADWIN(delta=0.01),
                        warning_detector=drift.ADWIN(delta=0.3))
    yield "MondrianForestClassifier-ddm", river_forests.MondrianForestClassifier(
        n_estimators=3, seed=7, drift_detector=drift.binary.DDM(warm_start=20))
    yield "MondrianForestRegressor-page-hinkley", river_forests.MondrianForestRegressor(
        n_estimators=3, seed=7, drift_detector=drift.PageHinkley(threshold=5.0))


def rows(name):
    """The first 500 rows of Phishing (classifiers) or TrumpApproval, their concept changed
    at row SWITCH."""
    clf = "Classifier" in name
    data = list(datasets.Phishing() if clf else datasets.TrumpApproval())[:500]
    return [(x, y if i < SWITCH else (not y if clf else y + 20.0)) for i, (x, y) in enumerate(data)]


def learn_until_warning(model, data):
    """Learn rows until, past the switch, a background tree is learning (at most 400 rows);
    return how many were learned."""
    for i, (x, y) in enumerate(data[:400]):
        model.learn_one(x, y)
        if i >= SWITCH and any(b is not None for b in model._core.watch.background):
            return i + 1
    return 400


def predictions(model, xs):
    if "Classifier" in type(model).__name__:
        return [{str(k): v for k, v in model.predict_proba_one(x).items()} for x in xs]
    return [model.predict_one(x) for x in xs]


def main():
    expected = {}
    for name, model in cases():
        data = rows(name)
        at = learn_until_warning(model, data)
        background = sum(b is not None for b in model._core.watch.background)
        HERE.mkdir(exist_ok=True)
        river_forests.save(model, HERE / f"{name}.rf")
        importances = model.feature_importances
        check = data[at:at + CHECK]
        first = predictions(model, [x for x, _ in check])
        for x, y in check:
            model.learn_one(x, y)
        then = predictions(model, [x for x, _ in data[at + CHECK:at + CHECK + GO_ON]])
        expected[name] = {"saved_at": at, "background_trees": background,
                          "predictions": first, "after_learning": then,
                          "importances": importances}
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
