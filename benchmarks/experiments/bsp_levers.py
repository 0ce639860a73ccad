"""The BSP forest's support rule and axis cuts, chosen on the tuning half (issue 48).

    python -m benchmarks experiment bsp_levers [--quick] [--jobs 2]

Two levers of ``BSPForestClassifier`` and ``BSPForestRegressor``:

- ``min_split_points``: a node that has seen this many points or fewer is never cut (the
  paper's rule, with 3). A cell of three points supports a mean, not a linear model: the
  regressor's linear leaves are tried at 3 (the paper's), 12, 24, 32, 48 and 64;
- ``axis_rate``: the probability that a budget cut runs along one axis of its pair instead of
  a line of the line measure (0: the paper's), so that a narrow or discrete feature paired
  with a wide one is cut too: the classifier at 0, 0.25 and 0.5, the regressor at 0.25 with
  the support 24.

10 trees, seed 42, every other parameter at its default, progressive validation as the
defaults experiment runs it (``defaults.measure``) on every stream of the **tuning half** of
the forest's task, the long streams cut at ``LONG_ROWS`` rows (the BSP forest is the slowest
of ours), and, for the regressor, whose half has no long stream, the tuning half's four
generated streams continued to ``LONG_ROWS`` rows (as the leaf-model experiment continues
them). The rule is the defaults experiment's (``defaults.scores``): the mean of the rank by
the first 20,000 rows of every stream and the rank by the last tenth of the long ones (for a
continued stream, the last tenth only: its start is the tuning stream's). Writes
``benchmarks/results/experiments/bsp_levers.md``.
"""

from __future__ import annotations

NAME = "bsp_levers"
LONG_ROWS = 100_000
QUICK_LONG_ROWS = 5_000
CONFIGS = {
    "BSPForestClassifier": {
        "paper's support and lines": {"min_split_points": 3, "axis_rate": 0.0},
        "axis 0.25": {"axis_rate": 0.25},
        "axis 0.5": {"axis_rate": 0.5},
    },
    "BSPForestRegressor": {
        "support 3 (the paper's)": {"min_split_points": 3},
        "support 12": {"min_split_points": 12},
        "support 24": {"min_split_points": 24},
        "support 32": {"min_split_points": 32},
        "support 48": {"min_split_points": 48},
        "support 64": {"min_split_points": 64},
        "support 24, axis 0.25": {"min_split_points": 24, "axis_rate": 0.25},
    },
}
FOREST = {"reg": "BSPForestRegressor", "clf": "BSPForestClassifier"}


def _continued(quick: bool) -> tuple:
    from benchmarks.experiments import leaf_model

    return leaf_model.LONG[:1] if quick else leaf_model.LONG


def jobs(quick: bool) -> list[tuple[str, dict]]:
    from benchmarks.experiments import defaults

    rows = QUICK_LONG_ROWS if quick else LONG_ROWS
    out = []
    for key, params in defaults.jobs(quick, configs=CONFIGS):
        params = dict(params, n=min(params["n"], rows))
        out.append((key, params))
    forest = FOREST["reg"]
    for s in _continued(quick):
        out.append((f"{s} (continued)-{forest}", {
            "stream": s, "n": rows, "forest": forest, "task": "reg", "continued": True,
            "configs": CONFIGS[forest], "n_estimators": defaults.N_ESTIMATORS,
            "seed": defaults.SEED}))
    return out


def measure(params: dict) -> dict:
    from benchmarks.experiments import defaults, leaf_model

    if not params.get("continued"):
        return defaults.measure(params)
    # a generated stream continued past the registry's length: its last tenth only
    data = leaf_model._samples(params["stream"], params["n"])
    out = defaults.measure(dict(params, data=data))
    for config in out["configs"].values():
        config["short"] = None
    return out


def report(results: dict, quick: bool) -> None:
    from benchmarks.experiments import defaults

    defaults.report(results, quick, half="tuning", name=NAME, forests=CONFIGS,
                    title="The BSP forest's support rule and axis cuts",
                    intro=[f"The long streams cut at {QUICK_LONG_ROWS if quick else LONG_ROWS:,} "
                           "rows; the regressor's four generated tuning streams continued to "
                           "as many (\"continued\": ranked by their last tenth only).", ""])
