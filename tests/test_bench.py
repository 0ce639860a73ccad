"""The benchmark's plumbing (its numbers are recorded by running it, never asserted here): the
registry's streams load offline with their declared task and length, the split into halves is
a fixed rule, every estimator we export is benchmarked, a record of another version of ours is
never rendered with this one's, and the runner runs end to end on two small streams."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import subprocess
import sys

import pytest
from river import base

import river_forests
from benchmarks import harness, models, render, runner, store
from benchmarks import streams as registry
from tests.conftest import ESTIMATORS

SHARED = {"elec", "covtype"}

# The assignment of every stream to its half, pinned: a stream added later that moves one of
# these (the rule orders a category's streams by hash) is noticed here, not after a tuning.
HALVES = {
    "tuning": {
        "agrawal-recurring", "bananas", "breast-cancer", "cells", "chickweights", "crashes",
        "default", "diamonds", "elec", "friedman", "friedman-gra", "friedman-gsg", "planes2d",
        "hyperplane-100", "hyperplane-fast", "led-noise", "loan-grade", "one-hot", "penguins",
        "phishing", "randomtree", "rbf-10", "rbf-rare", "sea-gradual", "sine", "stagger-recurring",
        "telecom-churn", "wa-churn", "wages", "waveform", "agrawal-abrupt",
        "rbf-many-long", "waveform-long", "sea-long", "mixed-long", "hyperplane-drift-long",
        "rbf-drift-long", "mixed-sweep-long", "agrawal-sweep-long",
    },
}


@pytest.mark.parametrize("name", [n for n in registry.STREAMS if n not in SHARED])
def test_every_stream_loads_offline_with_its_declared_task_and_length(name):
    stream = registry.STREAMS[name]
    # a long stream is a generator that gives any length: its first rows stand for it here
    # (materialising a million rows would take a minute of the suite)
    n = stream.n if stream.category != "long" else 5_000
    data = stream.samples(n)
    assert len(data) == n
    x, y = data[0]
    assert x and all(isinstance(k, str) and isinstance(v, float) for k, v in x.items())
    if stream.task == "clf":
        assert all(isinstance(y, (int, str)) and not isinstance(y, bool) for _, y in data)
        assert len({y for _, y in data}) >= 2
    else:
        assert all(isinstance(y, float) for _, y in data)


@pytest.mark.parametrize("name", sorted(SHARED))
def test_the_streams_of_shared_data_load(name, shared_data):
    stream = registry.STREAMS[name]
    data = stream.samples()
    assert len(data) == stream.n and stream.task == "clf"


def test_the_registry_is_broad_enough():
    clf = registry.streams("clf")
    assert len(clf) >= 30 and len(registry.streams("reg")) >= 8
    assert {s.category for s in clf} == set(registry.CATEGORIES["clf"])
    # long streams in each half, stationary ones among the tuning half's
    long = [s for s in clf if s.category == "long"]
    for half in ("tuning", "report"):
        assert sum(s.half == half and s.n >= 200_000 for s in long) >= 6
    assert sum(s.half == "tuning" and not s.drifting for s in long) >= 4
    assert max(s.n for s in long if s.half == "tuning") >= 1_000_000
    assert any(s.drifting for s in registry.streams("reg"))
    assert len({len(s.samples(50)[0][0]) >= 100 for s in clf if s.name not in SHARED}) == 2  # wide ones too
    assert all(s.source and s.category in registry.CATEGORIES[s.task] for s in registry.STREAMS.values())


def test_no_reserved_data_set_is_used(monkeypatch):
    assert len(registry.RESERVED) == 12
    assert not registry.reserved("river.datasets.ImageSegments (7 classes)")
    # the check finds a name as a word, or as two words run together, whatever its case
    digest = hashlib.sha256(b"imagesegments").hexdigest()[:16]
    monkeypatch.setattr(registry, "RESERVED", registry.RESERVED | {digest})
    assert registry.reserved("river.datasets.ImageSegments") and registry.reserved("Image Segments")
    monkeypatch.undo()
    for s in registry.STREAMS.values():
        assert not registry.reserved(f"{s.name} {s.source}"), s.name


def test_the_split_into_halves_is_a_fixed_rule_balanced_by_category():
    first = {name: registry.half_of(name) for name in registry.STREAMS}
    assert first == {name: registry.half_of(name) for name in reversed(list(registry.STREAMS))}
    assert {n for n, h in first.items() if h == "tuning"} == HALVES["tuning"]
    counts = collections.Counter((s.task, s.category, s.half) for s in registry.STREAMS.values())
    for task, categories in registry.CATEGORIES.items():
        for c in categories:
            assert abs(counts[(task, c, "tuning")] - counts[(task, c, "report")]) <= 1, (task, c)


def test_every_estimator_we_export_is_benchmarked_at_its_defaults():
    for cls in ESTIMATORS:
        task = "clf" if "Classifier" in cls.__name__ else "reg"
        ours = [m for m in models.models(task, "ours") if m.config.startswith(f"{cls.__name__}(")]
        assert ours, cls.__name__
        # plain, and with detectors where the defaults have none
        watching = cls._defaults.get("drift_detector") is not None
        assert {m.drifting_only for m in ours} == ({False} if watching else {False, True})
        for m in ours:
            assert type(m.make(registry.STREAMS["elec"])) is cls
    for task in ("clf", "reg"):
        names = {m.name for m in models.models(task)}
        assert {"river HT", "river ARF", "river SRP", "river AMF", "MOA ARF"} <= names
    assert {"river HT (scaled)", "river ARF (scaled)"} <= {m.name for m in models.models("reg")}


def test_detectors_run_on_drifting_streams_only():
    drifting = next(s for s in registry.STREAMS.values() if s.drifting)
    stationary = registry.STREAMS["bananas"]
    assert any(m.drifting_only for m in models.models("clf", stream=drifting))
    assert not any(m.drifting_only for m in models.models("clf", stream=stationary))


def test_the_long_streams_run_every_forest_of_ours_and_four_peers():
    long = registry.STREAMS["sea-long"]
    names = {m.name for m in models.models("clf", stream=long)}
    assert {m.name for m in models.models("clf", "ours") if not m.drifting_only} <= names
    assert {m.name for m in models.models("clf", stream=long) if m.family != "ours"} == set(models.LONG_PEERS)
    assert "river HT" in {m.name for m in models.models("clf", stream=registry.STREAMS["bananas"])}


def _record(model, family, version, metric, stream="iris", recorded="2026-01-01T00:00:00"):
    return {"stream": stream, "task": "clf", "n": 150, "data": "d", "half": "report",
            "category": "real", "model": model, "family": family, "config": "c",
            "version": {"key": version, "commit": "0" * 40, "package": "0", "library": version},
            "protocol": store.PROTOCOL, "mode": "full", "fed": "one", "status": "ok", "seen": 150,
            "metric_name": "accuracy", "metric": metric, "seconds": 1.0, "samples_per_s": 150.0,
            "memory": 1000, "curve": [[150, metric]], "checkpoints": {},
            "machine": {"cpu": "cpu"}, "recorded": recorded}


@pytest.fixture
def tmp_store(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "STORE", tmp_path / "store")
    monkeypatch.setattr(render, "OUT", tmp_path / "report")
    monkeypatch.setattr(store, "our_version", lambda: {"key": "ours-new", "commit": "1" * 40,
                                                        "package": river_forests.__version__})
    return tmp_path


def test_a_record_of_another_version_of_ours_is_never_rendered_with_this_ones(tmp_store):
    for model, family, version, metric, when in [
        ("MondrianForest", "ours", "ours-old", 0.111, "2026-01-02T00:00:00"),  # newer, other code
        ("MondrianForest", "ours", "ours-new", 0.222, "2026-01-01T00:00:00"),
        ("XForest", "ours", "ours-old", 0.333, "2026-01-02T00:00:00"),  # only in the old version
        ("river ARF", "river", "river-0.26.1", 0.444, "2026-01-01T00:00:00"),
    ]:
        store.save(_record(model, family, version, metric, recorded=when),
                   store.path("full", "iris", model, version, "clf"))
    chosen, version = store.select(store.records("full"))
    assert version == "ours-new"  # the checked-out code's version
    assert {(r["model"], r["metric"]) for r in chosen} == {("MondrianForest", 0.222), ("river ARF", 0.444)}
    text = render.render("full").read_text()
    assert "0.222" in text and "0.444" in text and "0.111" not in text and "0.333" not in text
    assert "XForest" not in text and "ours-new" in text
    # asking for the old version renders it alone, never with the new one's records
    text = render.render("full", "ours-old").read_text()
    assert "0.111" in text and "0.333" in text and "0.222" not in text


def test_a_peer_record_of_other_samples_is_not_rendered(tmp_store):
    mine = _record("MondrianForest", "ours", "ours-new", 0.5)
    peer = dict(_record("river ARF", "river", "river-0.26.1", 0.9), data="other")
    assert render.consistent([mine, peer], "ours-new") == [mine]


def _git_repo(tmp_path, files: dict[str, str]):
    repo = tmp_path / "repo"
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return repo


def _commit(repo):
    for args in (["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *args], cwd=repo, check=True)


def test_the_store_refuses_uncommitted_package_code(tmp_path, monkeypatch):
    repo = _git_repo(tmp_path, {"river_forests/a.py": '"""A module."""\nx = 1  # one\n',
                                "setup.py": "", "pyproject.toml": "", "benchmarks/b.py": ""})
    monkeypatch.setattr(store, "ROOT", repo)
    monkeypatch.delenv("RIVER_FORESTS_BENCH_ALLOW_DIRTY", raising=False)
    store.our_version.cache_clear()
    try:
        clean = store.our_version()
        assert clean["key"].startswith("ours-") and len(clean["commit"]) == 40
        assert clean["key"] == store.key_at("HEAD")
        (repo / "benchmarks" / "b.py").write_text("changed = True\n")  # not the package: fine
        store.our_version.cache_clear()
        assert store.our_version()["key"] == clean["key"]
        # a docstring or a comment not committed yet: the commit's code behaves the same
        (repo / "river_forests" / "a.py").write_text('"""The module."""\nx = 1  # the one\n')
        store.our_version.cache_clear()
        assert store.our_version()["key"] == clean["key"]
        (repo / "river_forests" / "a.py").write_text("x = 2\n")
        store.our_version.cache_clear()
        with pytest.raises(store.DirtyTree, match="uncommitted(.|\n)*river_forests/a.py"):
            store.our_version()
        (repo / "river_forests" / "a.py").write_text("x = 1\n")
        (repo / "river_forests" / "new.py").write_text("")  # a module not added yet is code too
        store.our_version.cache_clear()
        with pytest.raises(store.DirtyTree, match="river_forests/new.py"):
            store.our_version()
        monkeypatch.setenv("RIVER_FORESTS_BENCH_ALLOW_DIRTY", "1")
        store.our_version.cache_clear()
        assert store.our_version()["key"].startswith("dirty-")
    finally:
        store.our_version.cache_clear()


def test_a_docstring_or_comment_commit_keeps_the_key_and_a_code_commit_changes_it(tmp_path, monkeypatch):
    repo = _git_repo(tmp_path, {
        "river_forests/a.py": 'def f():\n    """Doubles."""\n    return 2 * X  # twice\n\nX = 1\n',
        "river_forests/_core/t.pyx": "# the tree\n", "setup.py": "", "pyproject.toml": ""})
    monkeypatch.setattr(store, "ROOT", repo)
    first = store.key_at("HEAD")
    (repo / "river_forests" / "a.py").write_text('def f():\n    """Twice X."""\n\n    return 2 * X\n\nX = 1  # X\n')
    _commit(repo)
    assert store.key_at("HEAD") == store.key_at("HEAD~1") == first
    (repo / "river_forests" / "a.py").write_text('def f():\n    """Twice X."""\n    return 3 * X\n\nX = 1\n')
    _commit(repo)
    assert store.key_at("HEAD") != first
    (repo / "river_forests" / "a.py").write_text('def f():\n    """Doubles."""\n    return 2 * X  # twice\n\nX = 1\n')
    _commit(repo)
    assert store.key_at("HEAD") == first  # the same code again: the same key
    (repo / "river_forests" / "_core" / "t.pyx").write_text("# the trees\n")  # compiled sources: bytes
    _commit(repo)
    assert store.key_at("HEAD") != first


def _key(files):
    return store.code_key(store.code_digests({k: v.encode() for k, v in files.items()}))


# A package whose estimator builds its docstring from texts of two modules (as ours do, through
# ``forest_doc``), with a constant read by the code and by the docs.
DOCUMENTED = {
    "river_forests/_doc.py": '''"""Docs."""
_SHARED_DOC = {"n": """
    n
        How many."""}


def make_doc(summary, params):
    """The docstring."""
    return summary + params + _SHARED_DOC["n"]
''',
    "river_forests/model.py": '''from ._doc import make_doc

SCALE = 2.0
_PARAMS_DOC = """
    scale
        Default 2.0: tuned on 12 streams (+3%)."""
_PARAMS_DOC += f" Scale {SCALE}."


class Model:
    __doc__ = make_doc("A model.", _PARAMS_DOC)

    def __init__(self, scale=SCALE, kind="fast"):
        self.scale, self.kind = scale, kind
''',
    "river_forests/_core/_tree.pyx": "cdef class Tree:\n    pass\n",
    "setup.py": "from setuptools import setup\n",
    "pyproject.toml": "[project]\n",
}


@pytest.mark.parametrize("path, old, new", [
    ("river_forests/_doc.py", '"""Docs."""', '"""The docs."""'),
    ("river_forests/_doc.py", "How many.", "How many trees."),
    ("river_forests/_doc.py", '"""The docstring."""', '"""The docstring."""  # a comment'),
    ("river_forests/_doc.py", "    return summary", "    # a comment\n    return summary"),
    ("river_forests/_doc.py", '+ _SHARED_DOC["n"]', '+ "\\n" + _SHARED_DOC["n"]'),  # code of the docs
    ("river_forests/model.py", "tuned on 12 streams (+3%).", "tuned on the tuning half."),
    ("river_forests/model.py", "A model.", "A model of the data."),
])
def test_a_documentation_edit_keeps_the_key(path, old, new):
    edited = dict(DOCUMENTED)
    assert old in edited[path]
    edited[path] = edited[path].replace(old, new)
    assert _key(edited) == _key(DOCUMENTED)


@pytest.mark.parametrize("path, old, new", [
    ("river_forests/model.py", "SCALE = 2.0", "SCALE = 2.5"),  # read by the code and the docs
    ("river_forests/model.py", 'kind="fast"', 'kind="slow"'),  # a string the code reads
    ("river_forests/model.py", "self.scale, self.kind = scale, kind", "self.kind, self.scale = scale, kind"),
    ("river_forests/_core/_tree.pyx", "pass", "pass  # a comment"),  # compiled sources: bytes
    ("setup.py", "\n", "  # build\n"),
    ("pyproject.toml", "[project]", "[project]\nname = 'x'"),
])
def test_a_code_edit_changes_the_key(path, old, new):
    edited = dict(DOCUMENTED)
    assert old in edited[path]
    edited[path] = edited[path].replace(old, new)
    assert _key(edited) != _key(DOCUMENTED)


# A forest whose parameters are declared (`river_forests._params`): a declaration's doc and a
# class's rewording of it (``_docs``) are documentation, its default and its check are code.
DECLARED = dict(DOCUMENTED, **{"river_forests/forest.py": '''from ._params import Param, ints


def wording(name):
    return "Trees."


class Forest:
    n: int = Param(default=10, check=ints(1), doc="""
        How many trees.""")
    _docs = {"n": wording("n") + " Ten by default."}
'''})


@pytest.mark.parametrize("old, new, same", [
    ("How many trees.", "How many trees, each grown alone.", True),
    ("Ten by default.", "Ten.", True),
    ("default=10", "default=12", False),
    ("ints(1)", "ints(2)", False),
])
def test_a_parameter_s_documentation_is_documentation(old, new, same):
    edited = dict(DECLARED)
    path = "river_forests/forest.py"
    assert old in edited[path]
    edited[path] = edited[path].replace(old, new)
    assert (_key(edited) == _key(DECLARED)) is same


def test_a_new_or_moved_file_changes_the_key():
    assert _key(dict(DOCUMENTED, **{"river_forests/empty.py": ""})) != _key(DOCUMENTED)
    moved = dict(DOCUMENTED)
    moved["river_forests/model2.py"] = moved.pop("river_forests/model.py")
    assert _key(moved) != _key(DOCUMENTED)


def _trees(files):
    import ast

    return {p: ast.parse(t) for p, t in files.items() if p.startswith("river_forests/") and p.endswith(".py")}


def test_documentation_is_only_what_nothing_but_documentation_reads():
    assert store._strip_docs(_trees(DOCUMENTED)) == {
        ("river_forests/_doc.py", "_SHARED_DOC"), ("river_forests/_doc.py", "make_doc"),
        ("river_forests/model.py", "_PARAMS_DOC")}
    # a text some code reads (here, a check) is code
    read = dict(DOCUMENTED)
    read["river_forests/model.py"] += "\n\ndef check():\n    return 'scale' in _PARAMS_DOC\n"
    assert ("river_forests/model.py", "_PARAMS_DOC") not in store._strip_docs(_trees(read))


def test_the_key_of_a_checkout_is_the_same_in_every_process(tmp_path):
    """Sets and hashing of strings vary between processes (PYTHONHASHSEED): never the key. The
    repository is made here, so the test runs where the checkout is not a git clone (CI's copy)."""
    repo = _git_repo(tmp_path, {
        "river_forests/a.py": 'NAMES = {"alpha", "beta", "gamma", "delta"}\nX = {k: 1 for k in NAMES}\n',
        "river_forests/b.py": '"""Doc."""\nY = frozenset("abcdefgh")\n',
        "river_forests/_core/t.pyx": "# the tree\ncdef int n = 1\n", "setup.py": "", "pyproject.toml": ""})
    code = ("import pathlib, sys; from benchmarks import store; store.ROOT = pathlib.Path(sys.argv[1]); "
            "print(store.key_at('HEAD'))")
    keys = {subprocess.run([sys.executable, "-c", code, str(repo)], cwd=store.ROOT, capture_output=True,
                           text=True, env=dict(os.environ, PYTHONHASHSEED=seed), check=True).stdout.strip()
            for seed in ("1", "2", "3")}
    assert len(keys) == 1 and re.fullmatch(r"ours-[0-9a-f]{12}", keys.pop())


def test_the_runner_runs_two_small_streams_end_to_end_and_resumes(tmp_store, capsys):
    """A smoke test, not the benchmark: our forests and river's HT on two small streams."""
    pick = ["MondrianForest", "PurelyRandomForest (uniform)", "XForest", "river HT"]
    jobs = runner.plan(quick=True, streams=["iris", "trumpapproval"], families=["ours", "river"],
                       names=pick)
    assert {(j.stream, j.model) for j in jobs} >= {("iris", "XForest"), ("trumpapproval", "river HT")}
    assert runner.execute(runner.pending(jobs), n_jobs=1) == 0
    assert runner.pending(jobs) == []  # everything stored: a second run has nothing to do
    recs = store.records("quick")
    assert len(recs) == len(jobs) and {r["status"] for r in recs} == {"ok"}
    xforest = next(r for r in recs if r["model"] == "XForest")
    assert xforest["fed"] == "batches of 100" and xforest["version"]["key"] == "ours-new"
    ht = next(r for r in recs if r["model"] == "river HT" and r["stream"] == "iris")
    assert ht["version"]["key"].startswith("river-") and 0.5 < ht["metric"] <= 1
    text = render.render("quick").read_text()
    assert "average rank" in text and "| iris |" in text and "| trumpapproval |" in text
    assert (tmp_store / "report" / "quick.csv").exists()


def test_moa_rows_are_skipped_with_the_reason_when_moa_cannot_run(tmp_store, monkeypatch, capsys):
    from benchmarks import __main__ as cli
    from benchmarks import moa

    moa.available.cache_clear()
    monkeypatch.setattr(moa, "available", lambda: "Java not found (MOA needs Java 8+ on the PATH)")
    assert cli.main(["run", "--quick", "--streams", "iris", "--models", "river HT", "MOA ARF"]) == 0
    assert "MOA's rows skipped: Java not found" in capsys.readouterr().err
    assert [r["model"] for r in store.records("quick")] == ["river HT"]


def test_moa_runs_when_it_is_installed(tmp_store):
    from benchmarks import moa

    if moa.available():
        pytest.skip(f"MOA cannot run here: {moa.available()}")
    stream = registry.STREAMS["iris"]
    data = stream.samples()
    record = harness.run(stream, models.get("clf", "MOA HT"), data, "d", "test")
    assert record["status"] == "ok" and 0.7 < record["metric"] <= 1 and record["memory"] is None
    assert json.loads(json.dumps(record)) == record


def test_a_stream_not_yet_measured_for_every_model_is_left_out_of_the_ranks(tmp_store):
    for stream, model, family, version, metric in [
        ("iris", "MondrianForest", "ours", "ours-new", 0.91), ("iris", "river ARF", "river", "river-x", 0.92),
        ("wine", "MondrianForest", "ours", "ours-new", 0.93),  # river's ARF not run on it yet
    ]:
        store.save(_record(model, family, version, metric, stream=stream),
                   store.path("full", stream, model, version, "clf"))
    text = render.render("full").read_text()
    assert "| iris | 0.910 | **0.920** |" in text and "| wine |" not in text
    assert "wine (no river ARF)" in text and "1 streams, 2 models" in text


class _Mute(base.Classifier):
    """A classifier that learns and never predicts (river's metrics of no sample are 0)."""

    def learn_one(self, x, y):
        pass

    def predict_proba_one(self, x):
        return {}


def test_a_model_that_never_predicts_is_not_scored_zero():
    """river's MAE of no sample is 0 and would rank first: such a run is recorded as not ok,
    and ranks last, as a run stopped early."""
    from benchmarks.streams import STREAMS

    stream = STREAMS["iris"]
    data = stream.samples()[:40]
    spec = models.Model("mute", "river", "clf", lambda s: _Mute(), "mute")
    record = harness.run(stream, spec, data, "d", "test")
    assert record["seen"] == 40 and record["status"] == "no sample predicted"
    ht = harness.run(stream, models.get("clf", "river HT"), data, "d", "test")
    assert ht["status"] == "ok"


def test_the_long_streams_have_their_own_section_with_checkpoints_and_the_last_tenth(tmp_store):
    n = registry.STREAMS["sea-long"].n
    for model, family, version, early, late in [("MondrianForest", "ours", "ours-new", 0.80, 0.90),
                                                ("river ARF", "river", "river-x", 0.85, 0.85)]:
        r = _record(model, family, version, 0.0, stream="sea-long")
        # accuracy `early` over the first 90% of the rows, `late` over the last tenth
        step = n // 20
        r["curve"] = [[i, early if i <= 0.9 * n else (0.9 * n * early + (i - 0.9 * n) * late) / i]
                      for i in range(step, n + 1, step)]
        r.update(n=n, seen=n, category="long", half="tuning", metric=r["curve"][-1][1],
                 checkpoints={"10000": early, "50000": early, "200000": early})
        store.save(r, store.path("full", "sea-long", model, version, "clf"))
    text = render.render("full").read_text()
    assert "### Tuning half, classification: long streams" in text
    assert "| MondrianForest | 0.800 | 0.800 | 0.800 | 0.810 | 0.900 |" in text
    assert "| river ARF | 0.850 | 0.850 | 0.850 | 0.850 | 0.850 |" in text
    # a long stream is never in the short streams' ranks (where only four peers run)
    assert "sea-long (no" not in text


def test_prune_keeps_the_versions_pages_quote_and_deletes_the_rest(tmp_store, monkeypatch, capsys):
    from benchmarks import __main__ as cli

    # a page committed and then removed from the working tree still counts, as one not committed yet
    root = _git_repo(tmp_store, {"docs/z.md": "numbers of ours-777777777777"})
    (root / "docs" / "z.md").unlink()
    for page, text in {"benchmarks/results/report/full.md": "code version `ours-aaaaaaaaaaaa`",
                       "benchmarks/results/experiments/x.md": "at ours-bbbbbbbbbbbb, commit 1",
                       "docs/forests/y.md": "the run at ours-999999999999"}.items():
        (root / page).parent.mkdir(parents=True, exist_ok=True)
        (root / page).write_text(text)
    monkeypatch.setattr(store, "ROOT", root)
    monkeypatch.setattr(store, "key_at", lambda rev="HEAD": "ours-ffffffffffff")
    kept, deleted = [], []
    for stream, model, family, version, when, keep in [
        ("iris", "MondrianForest", "ours", "ours-aaaaaaaaaaaa", "2026-01-01", True),  # quoted
        ("iris", "MondrianForest", "ours", "ours-dddddddddddd", "2026-01-02", False),  # quoted nowhere
        ("iris", "MondrianForest", "ours", "dirty-eeeeeeeeeeee", "2026-01-03", False),
        ("iris", "MondrianForest", "ours", "ours-ffffffffffff", "2026-01-04", True),  # the code at HEAD
        ("iris", "XForest", "ours", "ours-999999999999", "2026-01-01", True),  # quoted by a docs page
        ("iris", "XForest", "ours", "ours-777777777777", "2026-01-01", True),  # by a committed page
        ("iris", "river ARF", "river", "river-0.26.0", "2026-01-01", False),  # an older library's
        ("iris", "river ARF", "river", "river-0.26.1", "2026-01-02", True),
        ("wine", "river ARF", "river", "river-0.26.0", "2026-01-01", True),  # the only one of its place
    ]:
        p = store.path("full", stream, model, version, "clf")
        store.save(_record(model, family, version, 0.5, stream=stream, recorded=when), p)
        (kept if keep else deleted).append(p)
    # a record moved from the old key, quoted by it
    moved = dict(_record("XForest", "ours", "ours-cccccccccccc", 0.5))
    moved["version"]["old_key"] = "ours-bbbbbbbbbbbb"
    store.save(moved, store.path("experiment-x", "experiment", "k", "ours-cccccccccccc"))
    kept.append(store.path("experiment-x", "experiment", "k", "ours-cccccccccccc"))
    lonely = store.path("quick", "iris", "MondrianForest", "ours-dddddddddddd", "clf")
    store.save(_record("MondrianForest", "ours", "ours-dddddddddddd", 0.5), lonely)
    deleted.append(lonely)

    assert cli.main(["prune"]) == 0  # a dry run
    out = capsys.readouterr().out
    assert "4 of 11 records to delete" in out and "a dry run" in out
    assert "ours-cccccccccccc (was ours-bbbbbbbbbbbb)" in out and "x.md" in out
    assert all(store.exists(p) for p in kept + deleted)
    assert cli.main(["prune", "--apply"]) == 0
    assert all(store.exists(p) for p in kept) and not any(store.exists(p) for p in deleted)
    assert not (store.STORE / "quick").exists()  # folders left empty go too
    assert store.prune_plan()[1] == []


# ------------------------------------------------------------------ how records are kept

def _loose(p, record):
    """A record as the store wrote it before issue 46: a file of its own, indented JSON."""
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def test_a_record_round_trips_through_its_pack_exactly(tmp_store):
    import gzip

    r = _record("MondrianForest", "ours", "ours-new", 0.1 + 0.2)
    r["curve"] = [[i, 1 / 3 + i * 1e-17] for i in range(1, 400)] + [[400, 5e-324]]
    r["checkpoints"] = {"1000": 0.8321369409166206, "2000": -0.0}
    p = store.path("full", "iris", "MondrianForest", "ours-new", "clf")
    store.save(r, p)
    assert not p.exists()  # kept in the pack of its mode and stream, not a file of its own
    pack = store.STORE / "full" / "iris.jsonl.gz"
    assert store.pack_of(p) == (pack, "clf-MondrianForest/ours-new")
    assert store.load(p) == r and store.records("full") == [r]  # every float exactly
    assert json.dumps(store.load(p)["checkpoints"]) == json.dumps(r["checkpoints"])  # -0.0 too
    store.load(p)["curve"].clear()  # a reader's record is its own: the next reader's is whole
    assert store.load(p) == r
    lines = gzip.decompress(pack.read_bytes()).decode().splitlines()
    assert json.loads(lines[0]) == {"pack": 1} and len(lines) == 2
    first = pack.read_bytes()
    other = _record("river ARF", "river", "river-x", 0.5)
    store.save(other, store.path("full", "iris", "river ARF", "river-x", "clf"))
    assert sorted(r_["model"] for r_ in store.records("full")) == ["MondrianForest", "river ARF"]
    store.save(dict(r, metric=0.75), p)  # a record saved again replaces the one at its address
    assert store.load(p)["metric"] == 0.75 and len(store.records("full")) == 2
    store.save(r, p)
    store.delete_records(store.path("full", "iris", "river ARF", "river-x", "clf"))
    assert pack.read_bytes() == first  # the same records, the same bytes (no churn in git)
    store.delete_records(p)
    assert not (store.STORE / "full").exists() and store.records("full") == []


def test_records_of_the_old_format_are_still_read_and_win_over_packed_ones(tmp_store):
    old = store.path("full", "iris", "XForest", "ours-new", "clf")
    _loose(old, _record("XForest", "ours", "ours-new", 0.7))
    packed = store.path("full", "iris", "MondrianForest", "ours-new", "clf")
    store.save(_record("MondrianForest", "ours", "ours-new", 0.6), packed)
    assert store.load(old)["metric"] == 0.7 and store.exists(old)
    assert {r["model"]: r["metric"] for r in store.records("full")} == {"XForest": 0.7, "MondrianForest": 0.6}
    # an older checkout writes a loose record at a packed one's address: the loose one is later
    _loose(packed, _record("MondrianForest", "ours", "ours-new", 0.65))
    assert store.load(packed)["metric"] == 0.65 and len(store.records("full")) == 2
    assert store.select(store.records("full"))[1] == "ours-new"
    store.save(_record("MondrianForest", "ours", "ours-new", 0.66), packed)  # saving removes it
    assert not packed.exists() and store.load(packed)["metric"] == 0.66


def _tree(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_converter_packs_old_records_and_shrinks_pictures_and_its_dry_run_changes_nothing(tmp_store, capsys):
    from PIL import Image

    from benchmarks import compact

    written = {}
    for stream, model, family, version in [("iris", "XForest", "ours", "ours-new"),
                                           ("iris", "river ARF", "river", "river-x"),
                                           ("wine", "XForest", "ours", "ours-old")]:
        p = store.path("full", stream, model, version, "clf")
        written[p] = _record(model, family, version, 0.123456789012345, stream=stream)
        _loose(p, written[p])
    exp = store.path("experiment-x", "experiment", "k", "ours-new")
    written[exp] = {"experiment": "x", "key": "k", "result": {"a": [0.1, 0.2]}, "version": {"key": "ours-new"}}
    _loose(exp, written[exp])
    packed = store.path("full", "iris", "MondrianForest", "ours-new", "clf")  # packed already
    written[packed] = _record("MondrianForest", "ours", "ours-new", 0.5)
    store.save(written[packed], packed)
    figures = tmp_store / "report" / "full"
    figures.mkdir(parents=True)
    plot = Image.new("RGBA", (300, 200), (255, 255, 255, 255))
    plot.paste((31, 119, 180, 255), (10, 10, 290, 100))
    plot.save(figures / "plot.png")
    see_through = Image.new("RGBA", (30, 20), (255, 0, 0, 128))  # transparent: left as it is
    see_through.save(figures / "glass.png")
    before = _tree(tmp_store)

    assert compact.main([]) == 0  # a dry run
    out = capsys.readouterr().out
    assert "4 loose records into 3 packs, 1 pictures" in out and "a dry run" in out
    assert _tree(tmp_store) == before

    assert compact.main(["--apply"]) == 0
    assert not list(store.STORE.glob(store.LOOSE))
    assert sorted(p.name for p in store.STORE.rglob("*") if p.is_file()) == [
        "experiment.jsonl.gz", "iris.jsonl.gz", "wine.jsonl.gz"]
    assert dict(store.entries()) == written  # nothing lost, nothing changed
    with Image.open(figures / "plot.png") as small:
        assert small.mode == "P" and small.size == (300, 200)
        assert small.convert("RGBA").tobytes() == plot.tobytes()  # two colours: exact
    assert (figures / "glass.png").read_bytes() == before["report/full/glass.png"]

    after = _tree(tmp_store)
    assert compact.main(["--apply"]) == 0  # again: nothing left to do
    assert "0 loose records into 0 packs, 0 pictures" in capsys.readouterr().out
    assert _tree(tmp_store) == after


def test_two_processes_writing_into_one_pack_lose_no_record(tmp_path, monkeypatch):
    code = ("import pathlib, sys; from benchmarks import store; store.STORE = pathlib.Path(sys.argv[1]); "
            "[store.save({'i': i, 'who': sys.argv[2]}, store.path('full', 'iris', sys.argv[2], f'v{i}', 'clf')) "
            "for i in range(40)]")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path), who], cwd=store.ROOT)
             for who in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    monkeypatch.setattr(store, "STORE", tmp_path)
    assert sorted((r["who"], r["i"]) for r in store.records("full")) == [(w, i) for w in "ab" for i in range(40)]


def test_ours_are_ranked_against_each_peer_at_its_better_input_on_each_stream():
    """`render.best_input_ranks`: river's ARF and Hoeffding tree each take, stream by stream,
    the better of their raw and scaled runs (the lower MAE), and are ranked among ours only;
    a peer whose two runs are not both benchmarked is left out."""
    def rec(model, family, metric):
        return {"model": model, "family": family, "status": "ok", "metric": metric}

    mae = {"s1": {"ours A": 1.0, "ours B": 3.0, "river ARF": 2.0, "river ARF (scaled)": 5.0,
                  "river HT": 9.0, "river HT (scaled)": 0.5},
           "s2": {"ours A": 4.0, "ours B": 1.0, "river ARF": 7.0, "river ARF (scaled)": 3.0,
                  "river HT": 6.0, "river HT (scaled)": 8.0}}
    families = {m: ("ours" if m.startswith("ours") else "river") for m in mae["s1"]}
    recs = [rec(m, families[m], v) for s in mae for m, v in mae[s].items()]
    values = {s: {m: rec(m, families[m], v) for m, v in mae[s].items()} for s in mae}
    lines = render.best_input_ranks(list(mae), list(mae["s1"]), values, recs)
    avg = {m: float(r) for m, r in re.findall(r"^\| (.+?) \| ([\d.]+) \|$", "\n".join(lines), re.M)}
    # s1: HT (scaled, 0.5) 1, ours A 2, ARF (raw, 2.0) 3, ours B 4;
    # s2: ours B 1, ARF (scaled, 3.0) 2, ours A 3, HT (raw, 6.0) 4
    assert avg == {"river HT": 2.5, "ours A": 2.5, "river ARF": 2.5, "ours B": 2.5}
    mae["s1"]["ours A"] = 0.1
    values["s1"]["ours A"] = rec("ours A", "ours", 0.1)
    lines = render.best_input_ranks(list(mae), list(mae["s1"]), values, recs)
    avg = {m: float(r) for m, r in re.findall(r"^\| (.+?) \| ([\d.]+) \|$", "\n".join(lines), re.M)}
    assert avg["ours A"] == 2.0 and avg["river HT"] == 3.0
    models_without_ht_scaled = [m for m in mae["s1"] if m != "river HT (scaled)"]
    lines = render.best_input_ranks(list(mae), models_without_ht_scaled, values, recs)
    assert "river HT" not in "\n".join(lines) and "river ARF" in "\n".join(lines)
