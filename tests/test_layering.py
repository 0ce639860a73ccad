"""The package's layering (issue 46): the Python modules talk to the compiled objects through
their public methods only, the package's modules import one another without a cycle, and no
module the package imports imports the package itself (the estimators are found through the
registry their modules fill, `river_forests._forest.ESTIMATORS`)."""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import pkgutil

import river_forests
import river_forests._core
from river_forests._forest import ESTIMATORS, BaseForest

PACKAGE = pathlib.Path(river_forests.__file__).parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py"))


def _tree(name):
    return ast.parse((PACKAGE / f"{name}.py").read_text())


def _compiled_private_names():
    """The private names (one leading underscore) the compiled classes show to Python."""
    names = set()
    for info in pkgutil.iter_modules(river_forests._core.__path__):
        module = importlib.import_module(f"river_forests._core.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                names |= {n for n in vars(cls) if n.startswith("_") and not n.startswith("__")}
    return names


#: expressions that hold compiled objects in the Python layer: the core, its parts, trees,
#: the after-batch step
COMPILED = ("core", "grove", "tree", "trees", "step", "watch", "features", "background",
            "batcher", "targets", "t")


def _holds_compiled(node):
    while isinstance(node, ast.Subscript):
        node = node.value
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return name.lstrip("_") in COMPILED or name.endswith("_core")


def test_no_module_outside_the_core_calls_a_private_name_of_a_compiled_object():
    private = _compiled_private_names()
    found = []
    for name in MODULES:
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__") \
                    and (node.attr in private or _holds_compiled(node.value)):
                found.append(f"{name}.py:{node.lineno}: {ast.unparse(node)}")
    assert found == []


def test_the_scan_finds_a_private_call_on_a_compiled_object():
    """The scan above is not vacuous: it finds what it looks for."""
    node = ast.parse("model._core._forest_state()").body[0].value.func
    assert _holds_compiled(node.value)
    node = ast.parse("core.trees[0]._tree").body[0].value
    assert _holds_compiled(node.value)
    assert not _holds_compiled(ast.parse("model._tree_class").body[0].value.value)


def _imports(name):
    """The package's modules `name` imports (at any depth of its code: a deferred import is
    a dependency too); "__init__" for the package itself."""
    out = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "river_forests":
                    out.add(parts[1] if len(parts) > 1 else "__init__")
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 or module.split(".")[0] == "river_forests":
                path = module.split(".")[1:] if node.level == 0 else module.split(".")
                path = [p for p in path if p]
                if path:
                    out.add(path[0])
                else:  # from . import x: a module of the package, or a name of the package
                    for alias in node.names:
                        out.add(alias.name if alias.name in MODULES else "__init__")
    return {m for m in out if m in MODULES and m != name}


def test_the_package_imports_no_cycle():
    graph = {name: _imports(name) for name in MODULES}
    state = {}

    def visit(name, path):
        state[name] = "open"
        for dep in graph[name]:
            assert state.get(dep) != "open", f"import cycle: {' -> '.join(path + [dep])}"
            if dep not in state:
                visit(dep, path + [dep])
        state[name] = "done"

    for name in MODULES:
        if name not in state:
            visit(name, [name])


def test_no_module_inside_the_package_imports_the_package():
    """Only the command line (`python -m river_forests`, which the package never imports)
    starts from the package."""
    assert [m for m in MODULES if m not in ("__init__", "__main__") and "__init__" in _imports(m)] == []


def test_the_import_scan_sees_deferred_and_root_imports():
    assert {"_state", "_forest"} <= _imports("_merge")
    assert "_inspect" in _imports("_forest")  # inside a method
    assert "__init__" in _imports("__main__")


def test_the_registry_holds_the_public_estimators():
    public = {n for n in river_forests.__all__
              if isinstance(getattr(river_forests, n), type)
              and issubclass(getattr(river_forests, n), BaseForest)}
    assert set(ESTIMATORS) == public and len(public) == 10
    assert all(ESTIMATORS[n] is getattr(river_forests, n) for n in public)
