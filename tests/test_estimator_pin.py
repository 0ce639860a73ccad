"""Every public estimator's predictions and continued learning, pinned bit for bit against
the code before issue 46's refactoring (commit b0d5a9a2).

`tests/data/estimator_pin.json.gz` was written by `tests/data/make_estimator_pin.py` run on that
commit's build (its docstring says how): for each case, the estimator's parameters, all of
them spelled out, and what it predicted on a seeded stream, row by row, before and after a
copy by pickle and by ``river_forests.save``/``load``. This test builds the same models from
the same parameters with today's code and compares every prediction exactly. A refactoring
must keep them; a deliberate change of the model writes the fixture again in the commit that
makes it and says why (the known one: since 8954e31d the drift watch adds 48 bytes to river's
measure of a model, so under a tight memory budget a tree's share differs; no case here has
a tight budget; issue 47 changed the regressors' intervals, and XForest's calibrator step, and
wrote the fixture again).
"""

import gzip
import importlib.util
import json
import pathlib

import pytest

import river_forests

DATA = pathlib.Path(__file__).parent / "data"
FIXTURE = json.loads(gzip.decompress((DATA / "estimator_pin.json.gz").read_bytes()))

_spec = importlib.util.spec_from_file_location("make_estimator_pin", DATA / "make_estimator_pin.py")
pin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pin)

ROWS = {}


def _rows(task: str) -> list:
    if task not in ROWS:
        ROWS[task] = pin.STREAMS[task]()
    return ROWS[task]


def _bits(row: list) -> list:
    """A row's values, each as its exact bits (float.hex; None for a missing class)."""
    return [None if v is None else pin.decode_float(v).hex() for v in row]


def _first_difference(expected: list, got: list) -> str | None:
    if len(expected) != len(got):
        return f"{len(got)} rows, {len(expected)} expected"
    for i, (e, g) in enumerate(zip(expected, got)):
        if _bits(e) != _bits(g):
            return f"row {i}: {g} (bits {_bits(g)}), expected {e} (bits {_bits(e)})"
    return None


def test_the_pin_covers_every_public_estimator_and_every_case():
    estimators = {name for name in river_forests.__all__
                  if name.endswith(("Classifier", "Regressor"))}
    assert len(estimators) == 10
    assert {case["estimator"] for case in FIXTURE["cases"].values()} == estimators
    assert set(FIXTURE["cases"]) == set(pin.CASES)
    assert ((FIXTURE["n_rows"], FIXTURE["split"], FIXTURE["batch"])
            == (pin.N_ROWS, pin.SPLIT, pin.BATCH))


def test_the_streams_are_the_recorded_ones():
    """The pinned cases' drift detectors fire and their copies go on learning: the streams
    (river's generators) still give the rows the fixture was recorded on."""
    watched = [c for name, c in FIXTURE["cases"].items() if name.endswith("-watch")]
    assert any(sum(c["continued_summary"]["drifts_per_tree"]) > 0 for c in watched)
    for task, digest in FIXTURE["streams"].items():
        assert pin.rows_digest(_rows(task)) == digest, f"river's {task} stream changed"
    rows = _rows("classification")
    assert len(rows) == pin.N_ROWS and {y for _, y in rows} == set(pin.LABELS)


@pytest.mark.parametrize("name", sorted(FIXTURE["cases"]))
def test_predictions_and_continued_learning_are_pinned(name):
    case = FIXTURE["cases"][name]
    got = pin.run(case["estimator"], case["stream"], case["params"], case["batch"],
                  _rows(case["stream"]))
    problems = []
    for record in ("progressive", "continued", "pickled", "saved"):
        expected = case[record]
        expected = case[expected] if isinstance(expected, str) else expected
        mine = got[record]
        mine = got[mine] if isinstance(mine, str) else mine
        diff = _first_difference(expected, mine)
        if diff is not None:
            problems.append(f"{record}: {diff}")
    for summary in ("continued_summary", "pickled_summary", "saved_summary"):
        if got[summary] != case[summary]:
            problems.append(f"{summary}: {got[summary]}, expected {case[summary]}")
    assert not problems, (
        f"{name} ({case['estimator']}) no longer predicts as it did before issue 46 "
        f"(rows of the continued records count from row {FIXTURE['split']}):\n"
        + "\n".join(problems))
