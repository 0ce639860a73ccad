"""The papers' reproductions, each a named experiment on the benchmark's runner and store.

``python -m benchmarks experiment NAME [--quick] [--jobs 2]``; ``python -m benchmarks
experiment list`` names them. Each module defines ``jobs(quick)``, ``measure(params)`` and
``report(results, quick)`` (see ``benchmarks/runner.py``); its records are keyed by the version
of the package's code like every other record of ours, and its tables and plots go to
``benchmarks/results/experiments/``.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "results" / "experiments"


def names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])
                  if not m.name.startswith("_"))
