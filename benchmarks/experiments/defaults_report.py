"""The chosen defaults on the benchmark's report half: against today's, the paper's, and (Mondrian) before issue 17.

    python -m benchmarks experiment defaults_report            # every report-half stream of the forest's task
    python -m benchmarks experiment defaults_report --quick    # the first 2,000 samples of 4 streams per task
    python -m benchmarks experiment defaults_report --jobs 2

Run once, at the end of a change, to report: nothing is chosen on it. The same measurement as
``defaults`` (10 trees, seed 42, progressive validation) on the **report half**, with each
forest's ``defaults`` (the package's, chosen on the tuning half), ``today`` (the defaults
before), ``paper`` (the paper's configuration at the default memory budget) and, for the
Mondrian classifier, ``before issue 17``. Besides the ranks, the report lists every stream
where the defaults fall more than a point (accuracy; 1% of the MAE for a regressor) below the
paper's configuration or the forest before issue 17. Writes
``benchmarks/results/experiments/defaults_report.md``.
"""

from __future__ import annotations

from benchmarks.experiments import defaults as _defaults

NAME = "defaults_report"
KEPT = ("today", "paper", "before issue 17")
CONFIGS = {forest: {"defaults": {}, **{k: v for k, v in cands.items() if k in KEPT}}
           for forest, cands in _defaults.CANDIDATES.items()}
_defaults.REPORT_CONFIGS.update(CONFIGS)


def jobs(quick: bool) -> list[tuple[str, dict]]:
    return _defaults.jobs(quick, half="report", configs=CONFIGS)


measure = _defaults.measure


def below(results: dict, forest: str, against: str) -> list[str]:
    """The streams where the defaults fall more than a point below `against` (a regressor:
    an MAE more than 1% above)."""
    out = []
    clf = "Classifier" in forest
    for key, r in sorted(results.items()):
        if not key.endswith(f"-{forest}") or against not in r["configs"]:
            continue
        d, a = r["configs"]["defaults"]["metric"], r["configs"][against]["metric"]
        if (clf and d < a - 0.01) or (not clf and d > a * 1.01):
            shown = f"{100 * d:.2f}% against {100 * a:.2f}%" if clf else f"MAE {d:.4g} against {a:.4g}"
            out.append(f"{key[: -len(forest) - 1]} ({shown})")
    return out


def report(results: dict, quick: bool) -> None:
    _defaults.report(results, quick, half="report", name=NAME)
    md, _ = _defaults._common_outputs(NAME, quick)
    lines = ["## The defaults against today's", "",
             "The issue asks every forest's new defaults to rank better than its defaults of "
             "today (the rows `defaults` and `today` above, ranked among the rows of each "
             "stream):", ""]
    for forest, configs in CONFIGS.items():
        avg, streams = _defaults.ranks_of(results, forest, list(configs), "Classifier" in forest)
        if not streams or "today" not in avg:
            continue
        d, t = avg["defaults"], avg["today"]
        verdict = "better" if d < t else ("tied" if d == t else "**worse**")
        lines.append(f"- {forest}: {d:.2f} against {t:.2f} over {len(streams)} streams: {verdict}")
    lines += ["", "## More than a point below", ""]
    for forest, configs in CONFIGS.items():
        for against in ("paper", "before issue 17"):
            if against in configs:
                worse = below(results, forest, against)
                lines.append(f"- {forest} against {against}: "
                             + (", ".join(worse) if worse else "none"))
    with open(md, "a") as f:
        f.write("\n".join(lines) + "\n")
