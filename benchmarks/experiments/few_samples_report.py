"""Learning from few samples, the report half: the label-aware forests' defaults (chosen by
``few_samples`` on the tuning half) against their 0.2 defaults and the papers' configurations,
and MOA's and river's forests, on the report streams where few of many features carry the
class. Run to report, never to choose.

    python -m benchmarks experiment few_samples_report
"""

from __future__ import annotations

from benchmarks.experiments import few_samples

NAME = "few_samples_report"
HALVES = ("report",)


def jobs(quick: bool) -> list[tuple[str, dict]]:
    return few_samples.jobs(quick, HALVES)


def measure(params: dict) -> dict:
    return few_samples.measure(params)


def report(results: dict, quick: bool) -> None:
    few_samples.report(results, quick, NAME, HALVES)
