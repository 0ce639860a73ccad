"""The documentation: it builds with zero warnings, offline, and its examples run.

* `test_docs_build_strict` runs ``mkdocs build --strict`` (every warning is an error: broken
  links, missing pages, docstrings mkdocstrings cannot parse) into a temporary directory and
  checks that every page of the navigation and the recorded benchmark results are in the
  output.
* `test_docs_examples` runs the ```python blocks of each page in order, in one namespace per
  page, like a notebook: the examples users copy are the examples the suite checks. The pages
  are every ``docs/**/*.md``, not a list, but those that show what their code prints, which
  ``tests/test_docs_outputs.py`` runs (and compares), so that each page runs once.
* `test_estimator_examples` runs the docstring examples of every estimator of
  `river_forests.__all__`, so a new forest's examples run the day it is exported, even when
  only ``tests/`` is run.
* `test_module_examples` runs the docstring examples of every Python module of the
  `river_forests` that is imported: the installed wheel's under CI (``.ci/run`` runs the suite
  against it, from a folder without the checkout's package), the checkout's in a developer's
  editable install. pytest's ``--doctest-modules`` would collect the checkout's files, never
  what a user installs. The compiled modules (`.pyx`) hold no ``>>>`` examples, which
  `test_no_examples_in_compiled_code` keeps true, since no doctest finder reads them.
"""

import doctest
import importlib.util
import io
import os
import pathlib
import pkgutil
import re
import subprocess
import sys

import pytest

import river_forests

from .conftest import ESTIMATORS, name_of
from .test_docs_outputs import SHOWING

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
CODE = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)

pytest.importorskip("mkdocs", reason="docs dependencies: pip install -e '.[docs]'")
pytest.importorskip("mkdocstrings_handlers.python", reason="docs dependencies")


def _built(site: pathlib.Path, page: str) -> pathlib.Path:
    """Where mkdocs writes `page` (directory URLs: a/b.md -> a/b/index.html)."""
    stem = page[: -len(".md")]
    return site / ("index.html" if stem == "index" else f"{stem}/index.html")


def test_docs_build_strict(tmp_path):
    site = tmp_path / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    # the source tree first, so mkdocstrings documents this checkout
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    for page in PAGES:
        assert _built(site, page).is_file(), f"{page} was not built"
    api = _built(site, "api.md").read_text(encoding="utf-8")
    for name in river_forests.__all__:
        assert f'id="river_forests.{name}"' in api, f"{name} is missing from the API page"
    # the recorded results are published (not the raw store), and the benchmark page shows
    # the rendered report and its pictures
    results = ROOT / "benchmarks" / "results"
    for path in results.rglob("*"):
        rel = path.relative_to(results)
        if path.suffix in (".csv", ".png") and rel.parts[0] != "store":
            assert (site / "benchmarks" / "results" / rel).is_file(), str(rel)
    assert not (site / "benchmarks" / "results" / "store").exists()
    bench = _built(site, "benchmarks.md").read_text(encoding="utf-8")
    assert "<!-- benchmark-report -->" not in bench and "<!-- experiments -->" not in bench
    for png in sorted((results / "report" / "full").glob("*.png")):
        assert f"results/report/full/{png.name}" in bench, png.name


def _hooks(root):
    """docs/hooks.py as a module, reading the results of the repository at `root`."""
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ROOT = root
    return module


def test_benchmark_page_shows_whatever_the_benchmark_recorded(tmp_path):
    hooks = _hooks(tmp_path)
    assert "Not recorded yet" in hooks.report_section()
    assert hooks.experiment_list() == "No experiment recorded yet."
    report = tmp_path / "benchmarks" / "results" / "report"
    (report / "full").mkdir(parents=True)
    (report / "full.md").write_text(
        "# Benchmark report\n\n### Tuning half\n\n| a |\n|---|\n| 1 |\n\n![cd](full/cd-clf-tuning.png)\n")
    section = hooks.report_section()
    assert "# Benchmark report" not in section  # the file's title gives way to the page's
    assert "#### Tuning half" in section  # its headings nest under the page's
    assert "![cd](benchmarks/results/report/full/cd-clf-tuning.png)" in section  # links resolve
    experiments = tmp_path / "benchmarks" / "results" / "experiments"
    experiments.mkdir()
    (experiments / "denil_mixture.md").write_text("# The mixture\n")
    (experiments / "frontier_quick.md").write_text("# Frontier (quick)\n")
    listed = hooks.experiment_list()
    assert "[The mixture](benchmarks/results/experiments/denil_mixture.md)" in listed
    assert "`python -m benchmarks experiment denil_mixture`" in listed
    assert "`python -m benchmarks experiment frontier --quick`" in listed


def test_forest_pages_quote_the_recorded_defaults_runs(tmp_path):
    hooks = _hooks(tmp_path)
    assert "has not been recorded yet" in hooks.defaults_section("forests/xforest.md")
    experiments = tmp_path / "benchmarks" / "results" / "experiments"
    experiments.mkdir(parents=True)
    (experiments / "defaults.md").write_text(
        "# Defaults\n\n`python -m benchmarks experiment defaults` (run X)\n\n"
        "### XForestClassifier\n\n| configuration |\n|---|\n| smoothing 0.5 **(chosen)** |\n\n"
        "### BSPForestClassifier\n\n| configuration |\n|---|\n| paper |\n\n## Chosen\n")
    (experiments / "defaults_report.md").write_text(
        "# Defaults report\n\n`python -m benchmarks experiment defaults_report`\n\n"
        "### XForestClassifier\n\n| defaults |\n\n## More than a point below\n\n"
        "- XForestClassifier against paper: none\n- BSPForestClassifier against paper: iris\n")
    section = hooks.defaults_section("forests/xforest.md")
    assert section.startswith("## Defaults")
    assert "#### XForestClassifier" in section and "smoothing 0.5 **(chosen)**" in section
    assert "BSPForestClassifier" not in section  # another page's rows stay on that page
    assert "(run X)" in section and "- XForestClassifier against paper: none" in section
    page = "intro\n\n<!-- defaults-section -->\n## Parameters\n"

    class Page:
        class file:
            src_uri = "forests/xforest.md"

    assert "## Defaults" in hooks.on_page_markdown(page, Page, None, None)


@pytest.mark.parametrize("page", [p for p in PAGES if CODE.search((DOCS / p).read_text("utf-8"))
                                  and f"docs/{p}" not in SHOWING])
def test_docs_examples(page):
    """The python blocks of a page that shows no output (`test_docs_outputs` runs the others,
    comparing what they print), in order, in one namespace."""
    namespace = {"__name__": f"docs.{page}"}
    for i, block in enumerate(CODE.findall((DOCS / page).read_text(encoding="utf-8"))):
        exec(compile(block, f"{page} (python block {i + 1})", "exec"), namespace)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_estimator_examples(cls):
    """The estimator's docstring has examples that build it, in a Python module (where
    ``--doctest-modules`` collects them), and they pass with the flags pyproject.toml sets."""
    module = sys.modules[cls.__module__]
    assert module.__file__.endswith(".py"), f"{cls.__name__}'s examples would not be collected"
    tests = [t for t in doctest.DocTestFinder().find(cls, cls.__name__, module=module) if t.examples]
    assert any(t.name == cls.__name__ for t in tests), f"{cls.__name__}'s docstring has no example"
    assert any(f"{cls.__name__}(" in e.source for t in tests for e in t.examples), (
        f"{cls.__name__}'s examples never build a {cls.__name__}")
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in tests:
        out = io.StringIO()
        result = runner.run(test, out=out.write)
        assert result.failed == 0, out.getvalue()


def _python_modules() -> list:
    """The dotted names of the imported `river_forests`'s Python modules."""
    names = ["river_forests"]
    for info in pkgutil.walk_packages(river_forests.__path__, "river_forests."):
        origin = importlib.util.find_spec(info.name).origin or ""
        if origin.endswith(".py"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _python_modules())
def test_module_examples(name):
    """Every docstring example of the module passes, with the flags pyproject.toml sets for
    doctests (NORMALIZE_WHITESPACE, ELLIPSIS)."""
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(module, name):
        out = io.StringIO()
        result = runner.run(test, out=out.write)
        assert result.failed == 0, out.getvalue()


def test_the_examples_of_the_package_are_found():
    """The finder above sees the modules that hold examples (a wrong walk would pass empty)."""
    names = _python_modules()
    assert {"river_forests.mondrian", "river_forests._state", "river_forests.distributed"} <= set(names)
    examples = sum(len(t.examples) for n in names
                   for t in doctest.DocTestFinder().find(importlib.import_module(n), n))
    assert examples > 100


@pytest.mark.skipif(not (ROOT / "river_forests" / "_core").is_dir(),
                    reason="the compiled sources are read from a checkout beside the tests; CI "
                           "runs this on its debug build")
def test_no_examples_in_compiled_code():
    compiled = sorted((ROOT / "river_forests" / "_core").glob("*.pyx"))
    assert compiled
    for path in compiled:
        assert ">>>" not in path.read_text(encoding="utf-8"), (
            f"{path.name} has a doctest example that pytest cannot collect from a compiled "
            "module: move it to a Python module's docstring or to the docs"
        )
