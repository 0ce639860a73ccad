"""What a user installs. `.ci/run` builds the wheel (`python -m build`, from the sdist), repairs
it with auditwheel, installs it into a fresh environment in which no C compiler and no Cython
can be found, and runs this suite against it, naming that environment in
``RIVER_FORESTS_EXPECT_INSTALLED``; these tests check that the suite did test the wheel and
what the wheel holds. In a developer's editable install they skip."""

import importlib.metadata
import importlib.util
import os
import pathlib
import shutil
import sys

import pytest

import river_forests

EXPECT = os.environ.get("RIVER_FORESTS_EXPECT_INSTALLED")
pytestmark = pytest.mark.skipif(not EXPECT, reason="checks an installed wheel: .ci/run names "
                                "its environment in RIVER_FORESTS_EXPECT_INSTALLED")
PACKAGE = pathlib.Path(river_forests.__file__).resolve().parent


def test_the_suite_imports_the_installed_wheel():
    from river_forests._core import _tree

    assert pathlib.Path(EXPECT).resolve() in PACKAGE.parents, PACKAGE
    assert pathlib.Path(_tree.__file__).resolve().parent == PACKAGE / "_core"
    assert pathlib.Path(sys.prefix).resolve() == pathlib.Path(EXPECT).resolve()


def test_the_environment_has_no_compiler_and_no_cython():
    assert importlib.util.find_spec("Cython") is None
    assert not [c for c in ("cc", "gcc", "clang", "c++") if shutil.which(c)]


def test_the_installed_package_is_lean():
    files = [f for f in PACKAGE.rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    assert not [f.name for f in files if f.suffix in (".c", ".cpp", ".h", ".pyx", ".html")]
    assert sum(f.stat().st_size for f in files) <= 12 * 2**20
    extensions = [f for f in files if f.suffix in (".so", ".pyd")]
    assert extensions
    for ext in extensions:  # stripped: no symbol table, no debug information
        raw = ext.read_bytes()
        assert b".symtab\x00" not in raw and b".debug_info\x00" not in raw, ext.name


def test_the_wheel_says_what_it_is():
    meta = importlib.metadata.metadata("river-forests")
    assert meta["Name"] == "river-forests" and meta["Version"] == river_forests.__version__
    assert "BSD-3-Clause" in (meta.get("License-Expression") or meta.get("License") or "")
    assert any(c.startswith("Programming Language :: Python :: 3") for c in
               meta.get_all("Classifier") or [])
    files = [str(f) for f in importlib.metadata.files("river-forests")]
    assert any(f.endswith("LICENSE") for f in files), files
