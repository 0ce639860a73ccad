"""Build the compiled trees.

Every Cython compiler directive is set here, once. ``RIVER_FORESTS_DEBUG=1`` turns on
bounds checking, wraparound and ``initializedcheck`` (and -O0 -g, not stripped) for a debug
test run (``.ci/run``).

The same file builds on Linux, macOS and Windows (the wheels, ``[tool.cibuildwheel]`` in
``pyproject.toml``): the compiler flags are chosen by the compiler actually used (MSVC, or
gcc/clang and their kin), a release build strips its extensions (no debug info nor symbol table
in a wheel: ``benchmarks/results/package``), and both Cython and the C compiler run on every
core. Cython runs at build time only (``build_ext``), so the sdist carries the ``.pyx`` and
``.pxd`` sources and never generated C.
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("RIVER_FORESTS_DEBUG", "0") not in ("", "0")

directives = {
    "language_level": "3",
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": not DEBUG,
    # nonecheck stays off: the nogil kernels read attributes of typed tree arguments, and
    # checking those for None needs the GIL, so Cython refuses to compile them with it
    "nonecheck": False,
    "embedsignature": True,
}

MODULES = [
    "_random", "_checks", "_features", "_pool", "_tree", "_tree_table", "_tree_state",
    "_tree_budget", "_tree_credit", "_tree_refit", "_tree_inspect", "_boxtree", "_mondrian", "_purely_random",
    "_leaf_linear",
    "_stream_partition", "_sp_fringe", "_sp_points", "_sp_gaussian", "_splitter", "_xforest", "_hull", "_bsp", "_bsp_pairs",
    "_bsp_hulls", "_bsp_points", "_bsp_cuts", "_bsp_budget", "_adwin", "_conformal",
    "_budget", "_watch", "_labels", "_cache", "_batcher", "_grove", "_aggregator", "_forest_state",
    "_forest",
    "_mapping",
]

# The generated C depends on the directives, which cythonize does not track: regenerate it
# whenever the build switches between debug and optimised.
STAMP = os.path.join("river_forests", "_core", ".build-mode")
MODE = "debug" if DEBUG else "release"


def flags(compiler_type: str, platform: str = sys.platform) -> tuple[list[str], list[str]]:
    """The (compile, link) flags for a compiler of this `compiler_type` on `platform`.

    - MSVC: ``/O2``; it writes no debug info unless asked, so a release needs no stripping
      (debug: ``/Od /Z7``, linked with ``/DEBUG``: ``/Z7`` keeps each object's debug info in
      the object, where ``/Zi`` would have the parallel compilers share one .pdb).
    - gcc, clang and the other unix-like drivers (mingw32, cygwin): ``-O3``, with ``-g0``
      after Python's own CFLAGS (which carry ``-g``) so that no debug info is written, and the
      symbol table stripped at link time: ``-s`` (GNU ld, gold, lld: ``--strip-all``; the
      dynamic symbols Python imports, ``PyInit_*``, stay) on Linux and the BSDs, and on macOS,
      whose ld64 has no ``--strip-all``, ``-Wl,-S`` (no debug map) and ``-Wl,-x`` (no local
      symbols; the exported ``PyInit_*`` stays). Debug: ``-O0 -g``, unstripped.
    """
    if compiler_type == "msvc":
        return (["/Od", "/Z7"], ["/DEBUG"]) if DEBUG else (["/O2"], [])
    if DEBUG:
        return ["-O0", "-g"], []
    if platform == "darwin":
        return ["-O3", "-g0"], ["-Wl,-S", "-Wl,-x"]
    return ["-O3", "-g0"], ["-s"]


class BuildExt(build_ext):
    """Cythonize at build time, then compile with the flags of the compiler in use, on every
    core (``-j``/``--parallel`` still overrides)."""

    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        import numpy as np
        from Cython.Build import cythonize

        previous = open(STAMP).read() if os.path.exists(STAMP) else None
        generated = cythonize(
            self.extensions,
            compiler_directives=directives,
            force=previous != MODE,
            nthreads=os.cpu_count() or 1,
        )
        # build the extensions setuptools prepared, from the C that Cython wrote
        sources = {ext.name: ext.sources for ext in generated}
        compile_args, link_args = flags(self.compiler.compiler_type)
        for ext in self.extensions:
            ext.sources = sources[ext.name]
            ext.include_dirs.append(np.get_include())
            ext.extra_compile_args = compile_args + ext.extra_compile_args
            ext.extra_link_args = link_args + ext.extra_link_args
        super().build_extensions()
        with open(STAMP, "w") as f:
            f.write(MODE)


extensions = [
    Extension(
        f"river_forests._core.{name}",
        [f"river_forests/_core/{name}.pyx"],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

# cythonize's worker processes re-import the main module where processes are spawned
# (Windows, macOS): only the process that builds runs setup()
if __name__ == "__main__":
    setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt})
