"""The drift experiment on the benchmark's report half, to report (never to choose): every
forest plain and with the detectors and the swap rule the tuning half chose (``drift``).

    python -m benchmarks experiment drift_report [--quick] [--jobs 2]

Writes ``benchmarks/results/experiments/drift_report.md``.
"""

from __future__ import annotations

from benchmarks.experiments import drift

NAME = "drift_report"
HALF = "report"


def jobs(quick: bool) -> list[tuple[str, dict]]:
    return drift.jobs(quick, HALF)


def measure(params: dict) -> dict:
    return drift.measure(params)


def report(results: dict, quick: bool) -> None:
    drift.report(results, quick, HALF, NAME)
