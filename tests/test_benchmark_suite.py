"""The benchmark suite's plumbing on tiny streams (its numbers are recorded by running it,
never asserted here): every stream loads, each run writes its record, tables and plot, and an
interrupted run resumes without recomputing what it recorded."""

import importlib.util
import json
from pathlib import Path

import pytest

from river_forests.evaluation import STREAMS, load_stream
from tests.conftest import CLASSIFIERS, ESTIMATORS, REGRESSORS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def suite():
    spec = importlib.util.spec_from_file_location("suite", ROOT / "benchmarks" / "suite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHARED = {"elec", "covtype"}  # read from ../shared/data: skipped without it, but not in CI


def check_loads(name):
    task = STREAMS[name][0]
    data = load_stream(name, 30)
    assert len(data) == 30
    ys = [y for _, y in data]
    assert all(isinstance(y, float) for y in ys) if task == "reg" else len(set(ys)) >= 1


def test_every_suite_stream_is_defined_and_loads(suite):
    for name in suite.STATIONARY + suite.DRIFTING + suite.REGRESSION:
        if name not in SHARED:
            check_loads(name)


def test_the_suite_streams_from_shared_data_load(suite, shared_data):
    names = [n for n in suite.STATIONARY + suite.DRIFTING + suite.REGRESSION if n in SHARED]
    assert names
    for name in names:
        check_loads(name)


def test_suite_covers_every_estimator_and_river_baseline(suite):
    """Our forests in the suite are every estimator of `river_forests.__all__` for the task,
    each under its class name, built as the suite says (10 trees, seed 42)."""
    for task, classes in (("clf", CLASSIFIERS), ("reg", REGRESSORS)):
        ours = suite.ours(task)
        assert list(ours) == [cls.__name__ for cls in classes]
        for cls in classes:
            model = ours[cls.__name__]()
            assert type(model) is cls and model.n_estimators == suite.TREES and model.seed == suite.SEED
            assert suite.short(cls.__name__).endswith(" (ours)")
        assert not set(ours) & set(suite.rivers(task))
    assert sorted([*suite.ours("clf"), *suite.ours("reg")]) == sorted(c.__name__ for c in ESTIMATORS)
    clf = list(suite.ours("clf")) + list(suite.rivers("clf"))
    reg = list(suite.ours("reg")) + list(suite.rivers("reg"))
    assert "MondrianForestClassifier" in clf and "MondrianForestRegressor" in reg
    assert {"HoeffdingAdaptiveTreeClassifier", "ExtremelyFastDecisionTreeClassifier", "AMFClassifier"} <= set(clf)
    assert {"OXTRegressor", "ARFRegressor"} <= set(reg)


def test_suite_labels_our_forests_as_ours(suite):
    assert suite.short("MondrianForestClassifier") == "MondrianForest (ours)"
    assert suite.short("PurelyRandomForestRegressor") == "PurelyRandomForest (ours)"
    assert suite.short("ARFClassifier") == "ARF" and suite.short("OXTRegressor") == "OXT"


def test_suite_writes_records_tables_and_curves_then_resumes(suite, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(suite, "QUICK_N", 120)
    args = ["--quick", "--streams", "phishing", "trumpapproval", "--out", str(tmp_path)]
    assert suite.main(args) == 0
    models = {task: [*suite.ours(task), *suite.rivers(task)] for task in ("clf", "reg")}
    for name, task in (("phishing", "clf"), ("trumpapproval", "reg")):
        record = json.loads((tmp_path / f"{name}.json").read_text())
        assert record["n"] == 120 and [r["model"] for r in record["results"]] == models[task]
        for r in record["results"]:
            assert r["curve"][-1][0] == 120 and r["samples_per_s"] > 0 and r["peak_memory"] > 0
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    table = (tmp_path / "results.md").read_text()
    assert "OXT" in table and "x ARF" in table
    for cls in ESTIMATORS:  # every forest of ours, in the summary tables and the stream's table
        assert f"| {suite.short(cls.__name__)} |" in table and f"| {cls.__name__} |" in table, cls
    csv_lines = (tmp_path / "results.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + len(models["clf"]) + len(models["reg"]) and "speed_vs_amf" in csv_lines[0]
    # a second run finds both records and recomputes nothing
    before = (tmp_path / "phishing.json").stat().st_mtime_ns
    assert suite.main(args) == 0
    assert (tmp_path / "phishing.json").stat().st_mtime_ns == before
