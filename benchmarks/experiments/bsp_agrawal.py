"""Do the BSP forest's cuts reach every feature? Agrawal's ten functions (issue 48).

    python -m benchmarks experiment bsp_agrawal [--quick] [--jobs 2]

The importances experiment's recovery test (``importances.recovered``: every feature the
function reads ranks above every irrelevant one) on river's Agrawal generator, each of its ten
classification functions (seed 7, ``balance_classes=True``, 20,000 rows; ``--quick``: 3,000
rows, functions 3 and 9), for ``BSPForestClassifier`` at its defaults (``axis_rate=0.25``),
with the paper's lines (``axis_rate=0``) and with ``axis_rate=0.5``, and
``MondrianForestClassifier`` at its defaults: 10 trees, seed 42, ``drift_detector=None`` (the
generator does not drift), progressive validation (``predict_one`` then ``learn_one``), the
importances read at the end. Before issue 48 the BSP forest recovered 6 of the ten functions
and missed the low-range and discrete features (age, elevel, commission): an oblique line in
a pair of a wide feature and a narrow one nearly always cuts the wide one. Issue 48's target:
every function recovered, at an accuracy at least the Mondrian forest's on each. Writes
``benchmarks/results/experiments/bsp_agrawal.md``.
"""

from __future__ import annotations

from benchmarks.experiments import _common

NAME = "bsp_agrawal"
SEED = 42
TREES = 10
N, QUICK_N = 20_000, 3_000
QUICK_FUNCTIONS = (3, 9)
#: label -> (estimator, parameters)
MODELS = {
    "BSP (defaults)": ("BSPForestClassifier", {}),
    "BSP, paper's lines": ("BSPForestClassifier", {"axis_rate": 0.0}),
    "BSP, axis 0.5": ("BSPForestClassifier", {"axis_rate": 0.5}),
    "Mondrian (defaults)": ("MondrianForestClassifier", {}),
}


def _functions(quick: bool) -> tuple:
    from benchmarks.experiments import importances

    return QUICK_FUNCTIONS if quick else tuple(importances.AGRAWAL)


def jobs(quick: bool) -> list[tuple[str, dict]]:
    return [(f"{label}|f{f}", {"model": label, "function": f, "n": QUICK_N if quick else N})
            for label in MODELS for f in _functions(quick)]


def measure(params: dict) -> dict:
    import river_forests
    from river import metrics
    from river.datasets import synth

    from benchmarks.experiments import importances

    name, extra = MODELS[params["model"]]
    model = getattr(river_forests, name)(n_estimators=TREES, seed=SEED, drift_detector=None,
                                         **extra)
    acc = metrics.Accuracy()
    for x, y in synth.Agrawal(classification_function=params["function"], seed=7,
                              balance_classes=True).take(params["n"]):
        acc.update(y, model.predict_one(x))
        model.learn_one(x, y)
    imp = model.feature_importances
    truth = importances.AGRAWAL[params["function"]]
    ranked = importances._ranked(imp)
    return {"accuracy": acc.get(), "recovered": importances.recovered(imp, truth),
            "ranks": {str(k): ranked.index(k) + 1 for k in truth}}


def report(results: dict, quick: bool) -> None:
    md, _ = _common.outputs(NAME, quick)
    functions = _functions(quick)
    lines = _common.opening(
        NAME, quick, "The BSP forest's importances on Agrawal's ten functions",
        f"{TREES} trees, seed {SEED}, no drift detector; {QUICK_N if quick else N:,} rows of "
        "each function (seed 7, balanced classes); progressive accuracy; the importances at "
        "the end", jobs(quick), results)
    lines += ["A cell: progressive accuracy, then **yes** when every feature the function reads "
              "ranks above every irrelevant one (the importances experiment's test), else the "
              "ranks of its features (of 9).", ""]
    rows = []
    for label in MODELS:
        cells, hits, accs = [label], 0, []
        for f in functions:
            r = results.get(f"{label}|f{f}")
            if r is None:
                cells.append("—")
                continue
            hits += r["recovered"]
            accs.append(r["accuracy"])
            got = "yes" if r["recovered"] else ",".join(str(v) for v in sorted(r["ranks"].values()))
            cells.append(f"{100 * r['accuracy']:.1f}% {got}")
        cells += [f"{hits}/{len(functions)}",
                  f"{100 * sum(accs) / len(accs):.2f}%" if accs else "—"]
        rows.append(cells)
    lines += _common.markdown_table(["forest", *[f"f{f}" for f in functions], "recovered",
                                     "mean accuracy"], rows) + [""]
    mondrian = "Mondrian (defaults)"
    for label in MODELS:
        if label == mondrian:
            continue
        below = [f for f in functions if f"{label}|f{f}" in results and f"{mondrian}|f{f}" in results
                 and results[f"{label}|f{f}"]["accuracy"] < results[f"{mondrian}|f{f}"]["accuracy"]]
        lines.append(f"- {label}: below the Mondrian forest's accuracy on "
                     f"{', '.join(f'f{f}' for f in below) or 'no function'}.")
    md.write_text("\n".join(lines) + "\n")
