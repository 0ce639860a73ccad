"""The command line and the progressive loop behind it (which the benchmark runs too)."""

import re

import pandas as pd
import pytest
from river import compose, datasets, evaluate, forest, metrics, preprocessing

import river_forests
from river_forests import MondrianForestClassifier, _progressive
from river_forests import __main__ as cli
from river_forests.__main__ import load_stream, main, rivers
from river_forests._progressive import progressive_run
from tests.conftest import CLASSIFIERS, ESTIMATORS, REGRESSORS, is_classifier, name_of, shared_data_dir


def _rows(out: str) -> dict:
    """The table of the command's output: model label -> its four numbers (metric, samples/s,
    speed ratio, memory), however long the label; a model fed mini-batches is keyed by its
    name, without its " [learn_many, batches of k]" mark."""
    rows = {}
    for line in out.splitlines():
        parts = line.rsplit(maxsplit=4)
        if len(parts) == 5:
            rows[parts[0].split(" [learn_many, ")[0]] = parts[1:]
    return rows


def test_command_line_runs(capsys):
    assert main(["--dataset", "phishing", "-n", "150", "--only-ours"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert "samples/s" in out and not any(label.startswith("river") for label in rows)
    for cls in CLASSIFIERS:  # every classifier the package exports, one row each
        assert 0.5 < float(rows[cls.__name__][0]) <= 1.0, cls.__name__
    assert not any(cls.__name__ in out for cls in REGRESSORS)


def test_regression_command_line_runs(capsys):
    # 600 rows: a batch-native forest predicts nothing in its first batch (the XForest
    # regressor's is 500 rows)
    assert main(["--dataset", "trumpapproval", "-n", "600", "--only-ours", "--trees", "3"]) == 0
    out = capsys.readouterr().out
    assert "MAE" in out
    rows = _rows(out)
    for cls in REGRESSORS:  # every regressor the package exports, one row each
        assert 0.0 < float(rows[cls.__name__][0]) < 100, cls.__name__
    assert not any(cls.__name__ in out for cls in CLASSIFIERS)


def test_shared_data_is_found_from_the_repository(shared_data):
    assert (shared_data / "elec.csv").is_file() and (shared_data / "covtype.csv.gz").is_file()
    elec = load_stream("elec", 50)[1]
    cov = load_stream("covtype", 50)[1]
    assert len(elec) == 50 and len(elec[0][0]) == 6 and {y for _, y in elec} <= {0, 1}
    assert len(cov[0][0]) == 54 and {y for _, y in cov} <= set(range(1, 8))


@pytest.mark.parametrize("cls", CLASSIFIERS, ids=name_of)
def test_progressive_run_reports_time_memory_and_curve(cls):
    data = load_stream("bananas", 400)[1]
    r = progressive_run(cls(seed=0), data, metrics.Accuracy(), every=100)
    assert r.n == 400 and r.seconds > 0 and r.memory > 0
    assert [i for i, _ in r.curve] == [100, 200, 300, 400]
    assert 0.5 < r.metric <= 1.0


@pytest.mark.parametrize("ci, outcome", [
    (None, pytest.skip.Exception), ("", pytest.skip.Exception), ("0", pytest.skip.Exception),
    ("false", pytest.skip.Exception), ("true", pytest.fail.Exception), ("1", pytest.fail.Exception),
])
def test_tests_without_the_shared_data_skip_but_fail_under_ci(monkeypatch, ci, outcome):
    monkeypatch.setattr(cli, "find_data_dir", lambda: None)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match="shared/data not found"):
        shared_data_dir()


def test_command_line_without_the_shared_data_says_where_to_put_it(monkeypatch, capsys):
    monkeypatch.setattr(cli, "find_data_dir", lambda: None)
    for name, file in (("elec", "elec.csv"), ("covtype", "covtype.csv.gz")):
        assert main(["--dataset", name, "-n", "10"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert err.startswith(f"river-forests: error: {name} needs ../shared/data/{file}")
        assert "RIVER_FORESTS_DATA=" in err


def _help(capsys) -> str:
    with pytest.raises(SystemExit) as exit:
        main(["--help"])
    assert exit.value.code == 0
    return capsys.readouterr().out


def test_help_documents_the_data_folder_variable(capsys):
    assert "RIVER_FORESTS_DATA" in _help(capsys)


def test_help_is_plain_text_naming_every_option_and_stream(capsys, monkeypatch):
    """``--help`` is read in a terminal: no reStructuredText or Markdown markup (it printed
    the module's docstring, backticks and all), every option and every stream named, within
    an 80-column terminal."""
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps the options to the terminal's width
    out = _help(capsys)
    for markup in ("``", ":func:", ":class:", ":mod:", ":data:", "**"):
        assert markup not in out, markup
    assert not re.search(r"`[^`\n]+`", out), "backticks"
    for option in ("--dataset", "-n N, --samples N", "--trees", "--seed", "--only-ours",
                   "-h, --help"):
        assert re.search(rf"^  {option}\s", out, re.M), f"{option} is not listed"
    for stream in cli.STREAMS:
        assert re.search(rf"^  {stream}\s", out, re.M), f"{stream} is not listed"
    assert max(map(len, out.splitlines())) <= 80


@pytest.mark.parametrize("args, option, value", [
    (["-n", "0"], "-n/--samples", "0"), (["-n", "-5"], "-n/--samples", "-5"),
    (["--trees", "0"], "--trees", "0"), (["--trees", "-1"], "--trees", "-1"),
])
def test_command_line_rejects_counts_below_one_in_one_line(capsys, args, option, value):
    with pytest.raises(SystemExit) as exit:
        main(["--only-ours", *args])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and err.count("\n") == 1
    assert err.startswith(
        f"river-forests: error: argument {option}: must be a positive integer, got {value}")


@pytest.mark.parametrize("make", [
    *(pytest.param(lambda cls=cls: cls(n_estimators=3, seed=1), id=cls.__name__) for cls in ESTIMATORS),
    pytest.param(lambda: forest.AMFRegressor(n_estimators=3, seed=1), id="AMFRegressor"),
])
def test_progressive_run_scores_like_river_progressive_val_score(make):
    """Both skip the samples a model cannot predict yet: before its first sample the forest
    gives no probabilities and river's AMFRegressor predicts None. A batch-native forest is
    fed mini-batches instead (its learn_many is not a learn_one loop): it scores as the plain
    predict-a-batch-then-learn-it loop a user would write (tests/test_batch_native_runs.py
    checks that loop on fakes)."""
    clf = is_classifier(type(make()))
    dataset, metric = (datasets.Phishing(), metrics.Accuracy) if clf else (datasets.TrumpApproval(), metrics.MAE)
    run = progressive_run(make(), list(dataset), metric())
    if not _progressive.batch_native(make()):
        assert run.mode == "one"
        assert run.metric == evaluate.progressive_val_score(dataset, make(), metric()).get()
        return
    model, expected = make(), metric()
    size = _progressive.batch_size_of(model)
    X = pd.DataFrame([x for x, _ in dataset])  # Phishing: every row has every feature
    y = pd.Series([y for _, y in dataset])
    for start in range(0, len(X), size):
        X_batch, y_batch = X.iloc[start:start + size], y.iloc[start:start + size]
        predicted = model.predict_proba_many(X_batch) if clf else model.predict_many(X_batch)
        for y_true, (_, row) in zip(y_batch, predicted.iterrows() if clf else predicted.items()):
            if clf and row.notna().any():
                expected.update(y_true, row.idxmax())
            elif not clf and pd.notna(row):
                expected.update(y_true, row)
        model.learn_many(X_batch, y_batch)
    assert run.mode == f"batches of {size}" and run.metric == expected.get()


def test_river_regressors_are_scaled_in_the_comparison(capsys):
    for model in rivers("reg", 2, 0).values():
        assert isinstance(model, compose.Pipeline)
        assert isinstance(next(iter(model.steps.values())), preprocessing.StandardScaler)
    assert not any(isinstance(m, compose.Pipeline) for m in rivers("clf", 2, 0).values())
    assert main(["--dataset", "trumpapproval", "-n", "200", "--trees", "2"]) == 0
    out = capsys.readouterr().out
    rows = _rows(out)
    assert float(rows["river HoeffdingTreeRegressor"][0]) < 100  # 474,066,522 unscaled
    assert all(cls.__name__ in rows for cls in REGRESSORS)
    assert "x river ARF" in out and "memory MiB" in out and "StandardScaler" in out
    assert float(rows["river ARF"][2]) == 1.0  # the reference for speed, measured in this run


class TwinForestClassifier(MondrianForestClassifier):
    """A stand-in for a forest the package will export next."""


def test_command_line_compares_every_forest_the_package_exports(monkeypatch, capsys):
    monkeypatch.setattr(river_forests, "TwinForestClassifier", TwinForestClassifier, raising=False)
    monkeypatch.setattr(river_forests, "__all__", [*river_forests.__all__, "TwinForestClassifier"])
    assert main(["--dataset", "phishing", "-n", "50", "--only-ours"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "TwinForestClassifier" in rows
    assert all(cls.__name__ in rows for cls in CLASSIFIERS)


def test_an_explicit_data_folder_is_the_only_one_tried(monkeypatch, tmp_path):
    monkeypatch.setenv("RIVER_FORESTS_DATA", str(tmp_path))
    assert cli.find_data_dir() is None  # no fallback to ../shared/data behind the user's back
    (tmp_path / "elec.csv").write_text("a,b,class\n")
    assert cli.find_data_dir() == tmp_path
