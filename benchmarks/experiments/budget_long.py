"""Does a forest that leaves part of its budget unspent on a long stream miss accuracy? Each
classifier at its defaults against the same with twice the budget, on the tuning half's long
streams.

    python -m benchmarks experiment budget_long            # each long stream's first 200,000 rows
    python -m benchmarks experiment budget_long --quick    # the first 2,000 rows of 4 streams
    python -m benchmarks experiment budget_long --jobs 2

Issue 45 asks that a forest spend its budget (at least 80% of it by the end of a long stream)
or show that more would not help. A forest stops spending for reasons of its own: its leaves
are pure (a concept it has learned, as Mixed's), its detector replaced a full tree by a young
one, the stream-partitioning forest's fringe has nothing left worth splitting, a BSP leaf
keeps too few points to cut. This experiment measures both halves of the sentence on the
**tuning half**'s long classification streams (10 trees, seed 42, progressive validation, each
stream's first ``ROWS`` rows, the harness of ``defaults``): the share of the budget each forest
holds at the end (river's measure, ``_raw_memory_usage``, over the budget it was given), and its
accuracy over the last tenth of the rows at its default budget and at twice that. The purely
random forest runs both of its splits (the scale-invariant default and uniform). Writes
``benchmarks/results/experiments/budget_long.md``.
"""

from __future__ import annotations

from benchmarks.experiments import defaults as _defaults

NAME = "budget_long"
ROWS = 200_000
#: forest -> {label: params over the package's defaults}; the label ends in "2x" for twice
#: the forest's default budget
FORESTS = {
    "MondrianForestClassifier": {"defaults": {}, "2x": {"memory_budget": "32MB"}},
    "PurelyRandomForestClassifier": {
        "defaults": {}, "2x": {"memory_budget": "32MB"},
        "uniform": {"split": "uniform"}, "uniform 2x": {"split": "uniform", "memory_budget": "32MB"}},
    "BSPForestClassifier": {"defaults": {}, "2x": {"memory_budget": "128MB"}},
    "StreamPartitionForestClassifier": {"defaults": {}, "2x": {"memory_budget": "32MB"}},
    "XForestClassifier": {"defaults": {}, "2x": {"memory_budget": "32MB"}},
}
#: the difference in last-tenth accuracy under which twice the budget is said not to help
#: (a tenth of a point: the spread of one forest's last tenth over seeds is larger)
TIE = 0.001


def _long_streams(quick: bool) -> list:
    from benchmarks.streams import streams

    found = [s for s in streams("clf", "tuning") if s.category == "long"]
    return found[:4] if quick else found


def jobs(quick: bool) -> list[tuple[str, dict]]:
    rows = _defaults.QUICK_N if quick else ROWS
    return [(f"{s.name}-{forest}", {
        "stream": s.name, "n": min(s.n, rows), "forest": forest, "task": "clf", "configs": configs,
        "n_estimators": _defaults.N_ESTIMATORS, "seed": _defaults.SEED})
        for forest, configs in FORESTS.items() for s in _long_streams(quick)]


def measure(params: dict) -> dict:
    out = _defaults.measure(params)
    if params["n"] <= _defaults.SHORT:  # a quick run: score the whole run as its last tenth
        for res in out["configs"].values():
            res.setdefault("last", res["metric"])
    return out


def _pairs(forest: str) -> list[tuple[str, str]]:
    labels = list(FORESTS[forest])
    return [(a, b) for a in labels for b in labels if b == ("2x" if a == "defaults" else a + " 2x")]


def report(results: dict, quick: bool) -> None:
    from benchmarks.experiments import _common

    rows, verdicts = [], []
    for forest in FORESTS:
        for base, twice in _pairs(forest):
            name = forest.replace("Classifier", "") + ("" if base == "defaults" else f" ({base})")
            used, gains, low = [], [], []
            for key, res in sorted((k, r) for k, r in results.items() if k.endswith(f"-{forest}")):
                stream = key[: -len(forest) - 1]
                a, b = res["configs"][base], res["configs"][twice]
                share = a["memory"] / a["budget"]
                gain = b["last"] - a["last"]
                used.append(share)
                gains.append(gain)
                if share < 0.8:
                    low.append(gain)
                rows.append(f"| {name} | {stream} | {res['n']:,} | {share:.0%} | "
                            f"{b['memory'] / a['budget']:.0%} | {a['last']:.4f} | {b['last']:.4f} | "
                            f"{gain * 100:+.2f} |")
            mean_low = sum(low) / len(low) if low else 0.0
            spent = (f"- {name}: budget spent at the end {min(used):.0%} to {max(used):.0%} (mean "
                     f"{sum(used) / len(used):.0%}); twice the budget changes the last tenth by "
                     f"{min(gains) * 100:+.2f} to {max(gains) * 100:+.2f} points (mean "
                     f"{sum(gains) / len(gains) * 100:+.2f}). ")
            if not low:
                verdicts.append(spent + "It spends at least 80% of its budget on every long stream.")
            else:
                verdicts.append(
                    spent + f"On the {len(low)} streams where it holds under 80% of its budget, twice "
                    f"the budget changes it by {mean_low * 100:+.2f} on average: "
                    + ("more would not help." if mean_low <= TIE else
                       "**more would help**: the budget limits the forest although it does "
                       "not spend it."))
    out_md, _ = _common.outputs(NAME, quick)
    lines = [
        "# Twice the budget on the tuning half's long streams", "",
        f"`python -m benchmarks experiment {NAME}{' --quick' if quick else ''}`; "
        f"{_common.version_line()}; {_common.machine()}.", "",
        "Each classifier at its defaults (10 trees, seed 42) and with twice its default budget, "
        f"each long stream's first {ROWS:,} rows. *Spent*: river's measure of the model at the "
        "end over the default budget (and the twice-budget model's over the same default budget); "
        "*last tenth*: accuracy over the last tenth of the rows; *gain*: twice the budget's "
        "last tenth minus the default's, in points. See the module's docstring.", "",
        "| forest | stream | rows | spent | spent, 2x | last tenth | last tenth, 2x | gain |",
        "|---|---|---:|---:|---:|---:|---:|---:|", *rows, "", "## Read", "", *verdicts, ""]
    out_md.write_text("\n".join(lines))
    print(f"wrote {out_md}")
