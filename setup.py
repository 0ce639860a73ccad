"""Build the compiled trees.

Every Cython compiler directive is set here, once. ``RIVER_FORESTS_DEBUG=1`` turns on
bounds checking, wraparound and ``initializedcheck`` (and -O0 -g) for a debug test run; CI runs
the whole test suite on that build (``.ci/run``).
"""

import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

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

compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]

MODULES = [
    "_random", "_features", "_pool", "_tree", "_boxtree", "_mondrian", "_purely_random",
    "_stream_partition", "_splitter", "_xforest", "_hull", "_bsp", "_adwin", "_conformal", "_forest",
    "_mapping",
]

extensions = [
    Extension(
        f"river_forests._core.{name}",
        [f"river_forests/_core/{name}.pyx"],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=compile_args,
    )
    for name in MODULES
]

# The generated C depends on the directives, which cythonize does not track: regenerate it
# whenever the build switches between debug and optimised.
STAMP = os.path.join("river_forests", "_core", ".build-mode")
mode = "debug" if DEBUG else "release"
previous = open(STAMP).read() if os.path.exists(STAMP) else None
setup(ext_modules=cythonize(extensions, compiler_directives=directives, force=previous != mode))
with open(STAMP, "w") as f:
    f.write(mode)
