"""The "which forest when" page (`benchmarks/render.py`), on synthetic records: which groups a
stream of the report half falls in, what the rendered page says, and that the docs' page shows
it. No stream is loaded (the streams' shapes are given) and nothing is run."""

from __future__ import annotations

import importlib.util
import pathlib
import types

import pytest

import river_forests
from benchmarks import render, store
from benchmarks import streams as registry

# report-half streams of each kind, with made-up (classes, features): iris few and few,
# leaves many and many, caravan imbalanced, agrawal-gradual drifting, trumpapproval regression
SHAPES = {"iris": (3, 4), "leaves": (32, 58), "caravan": (2, 85), "agrawal-gradual": (2, 9)}
#: best first on every stream (accuracy falls, MAE grows, along this order)
MODELS = [("XForest", "ours"), ("MOA ARF", "moa"), ("river ARF", "river"), ("MondrianForest", "ours")]


def _record(stream, model, family, metric):
    s = registry.STREAMS[stream]
    return {"stream": stream, "task": s.task, "n": 100, "data": "d", "half": s.half,
            "category": s.category, "model": model, "family": family, "config": "c",
            "version": {"key": "ours-new" if family == "ours" else f"{family}-1",
                        "commit": "1" * 40, "package": "0", "library": f"{family} 1"},
            "protocol": store.PROTOCOL, "mode": "full", "fed": "one", "status": "ok", "seen": 100,
            "metric_name": "accuracy", "metric": metric, "seconds": 1.0,
            "samples_per_s": 1000.0 if family == "ours" else 100.0,
            "memory": None if family == "moa" else 1000, "curve": [[100, metric]],
            "checkpoints": {}, "machine": {"cpu": "cpu"}, "recorded": "2026-01-01T00:00:00"}


def _records():
    recs = []
    for stream in [*SHAPES, "trumpapproval"]:
        assert registry.STREAMS[stream].half == "report", stream
        clf = registry.STREAMS[stream].task == "clf"
        models = [m for m in MODELS if clf or m[0] != "XForest"]  # XForest classifies only
        for rank, (model, family) in enumerate(models):
            recs.append(_record(stream, model, family, 0.9 - 0.1 * rank if clf else 1.0 + rank))
        if registry.STREAMS[stream].drifting:
            recs.append(_record(stream, "MondrianForest + ADWIN", "ours", 0.95))
    return recs


def _shape(name, n):
    return SHAPES[name]


def test_each_stream_falls_in_its_groups():
    groups = render.groups(_records(), shape=_shape)
    assert groups == {
        "few classes": ["iris", "caravan", "agrawal-gradual"],
        "many classes": ["leaves"],
        "few features": ["iris", "agrawal-gradual"],
        "many features": ["leaves", "caravan"],
        "drifting": ["agrawal-gradual"],
        "label-sparse": ["caravan"],
        "regression": ["trumpapproval"],
    }
    assert [g[0] for g in render.GROUPS] == list(groups)


def test_the_page_names_each_group_and_the_best_of_ours(tmp_path, monkeypatch):
    monkeypatch.setattr(render, "stream_shape", _shape)
    text = "\n".join(render.which(_records(), "full"))
    for name, *_ in render.GROUPS:
        assert f"### {name[0].upper()}{name[1:]}\n" in text, name
    assert "`ours-new`" in text and "report half only" in text
    # XForest wins every classification group; detector variants only in the drifting one
    assert text.count("Best of ours: **XForest**, average rank 1.00 (1 of 4 models).") == 5
    assert "Best of ours: **MondrianForest + ADWIN**, average rank 1.00 (1 of 5 models)." in text
    assert "| few classes | 3 | 4 | XForest | 1.00 | MOA ARF | 2.00 |" in text
    assert "| regression | 1 | 3 | MondrianForest | 3.00 | MOA ARF | 1.00 |" in text
    # speed and memory against river's ARF: ten times as fast, the same memory
    assert "| XForest | clf | 10.00 | 1,000 | 1.000 | 0.001 |" in text
    # rendering writes the page beside the report
    monkeypatch.setattr(store, "STORE", tmp_path / "store")
    monkeypatch.setattr(render, "OUT", tmp_path / "report")
    monkeypatch.setattr(store, "our_version", lambda: {"key": "ours-new", "commit": "1" * 40,
                                                        "package": river_forests.__version__})
    for r in _records():
        store.save(r, store.path("full", r["stream"], r["model"], r["version"]["key"], r["task"]))
    render.render("full")
    assert (tmp_path / "report" / "which.md").read_text().startswith("# Which forest when (full run)")


def test_the_docs_page_shows_the_rendered_page(tmp_path):
    pytest.importorskip("mkdocs")
    docs = pathlib.Path(__file__).resolve().parent.parent / "docs"
    spec = importlib.util.spec_from_file_location("docs_hooks", docs / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = (docs / "which.md").read_text(encoding="utf-8")
    assert hooks.WHICH_MARKER in page
    which = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="which.md"))
    hooks.ROOT = tmp_path
    assert "Not recorded yet" in hooks.on_page_markdown(page, which, None, None)
    report = tmp_path / "benchmarks" / "results" / "report"
    report.mkdir(parents=True)
    (report / "which.md").write_text("# Which forest when (full run)\n\n## Pick in a minute\n")
    shown = hooks.on_page_markdown(page, which, None, None)
    assert hooks.WHICH_MARKER not in shown and "(full run)" not in shown  # the page's title stays
    assert "\n## Pick in a minute" in shown  # under the page's title, not pushed deeper
