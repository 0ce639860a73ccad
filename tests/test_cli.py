"""The command line and the evaluation helpers behind it and the benchmarks."""

from river import metrics

from river_forests import MondrianForestClassifier
from river_forests.__main__ import main
from river_forests.evaluation import find_data_dir, load_stream, progressive_run


def test_command_line_runs(capsys):
    assert main(["--dataset", "phishing", "-n", "150", "--only-ours"]) == 0
    out = capsys.readouterr().out
    assert "MondrianForestClassifier(10)" in out and "samples/s" in out


def test_regression_command_line_runs(capsys):
    assert main(["--dataset", "trumpapproval", "-n", "100", "--only-ours", "--trees", "3"]) == 0
    assert "MAE" in capsys.readouterr().out


def test_shared_data_is_found_from_the_repository():
    assert find_data_dir() is not None, "../shared/data must sit beside the repository"
    elec = load_stream("elec", 50)
    cov = load_stream("covtype", 50)
    assert len(elec) == 50 and len(elec[0][0]) == 6 and {y for _, y in elec} <= {0, 1}
    assert len(cov[0][0]) == 54 and {y for _, y in cov} <= set(range(1, 8))


def test_progressive_run_reports_time_memory_and_curve():
    data = load_stream("bananas", 400)
    r = progressive_run(MondrianForestClassifier(seed=0), data, metrics.Accuracy(), progress=None, every=100)
    assert r.n == 400 and r.seconds > 0 and r.memory > 0 and r.pickled > 0
    assert [i for i, _ in r.curve] == [100, 200, 300, 400]
    assert 0.5 < r.metric <= 1.0
