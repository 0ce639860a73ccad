"""How far a rescale may steepen the linear leaves' slopes, chosen on the tuning half.

    python -m benchmarks experiment slope_cap [--quick] [--jobs 2]

A tree's linear leaves read each feature in units of the range it has seen (``LeafInput``).
When a range grows past its snapshot the units change, and the slopes follow: a slope learned
when a feature's range was r and now read over a range R is multiplied by R / r, so the model
predicts what it did. That is exact for a tree that has seen much of each range, but a young
tree's first rows span a little of it: slopes fit across two rows a hundredth of the range
apart, multiplied by a hundred, send a leaf's prediction far off, and in the purely random
tree, whose leaves hand their models to the halves they are cut into, the whole tree inherits
them. ``_leaf_linear.set_slope_cap`` bounds the factor a rescale applies (1: slopes stay in
units of the range; inf: exact).

Every regressor of ours with linear leaves (``linear_rate`` 1, 10 trees, seed 42), fed as the
benchmark feeds it (``river_forests._progressive``), prequential MAE, on

- every regression stream of the tuning half, whole, and
- fresh draws of the tuning half's generators, 3,000 rows each (FriedmanDrift's recurring
  and gradual drifts at rows 1,000 and 2,000, Friedman; five seeds each, seeds 100 to 104
  that the benchmark does not use): a young tree's first rows are where a cap acts, and
  one seed says little;
- the tuning half's four generated streams continued to 200,000 rows, as the leaf-model
  experiment runs them, judged by the MAE over their last tenth: a cap must not cost a
  stream's end.

The rule: the cap with the smallest score, the geometric mean over the forests of each
forest's geometric mean of its three groups' scores (a group's score: the geometric mean
over its streams of the MAE over the best cap's on that stream). Writes
``benchmarks/results/experiments/slope_cap.md``.
"""

from __future__ import annotations

NAME = "slope_cap"
CAPS = (1.0, 1.5, 2.0, 4.0, float("inf"))
FRESH_N = 3_000
SEEDS = tuple(range(100, 105))
#: (label, generator, its parameters but the seed)
GENERATORS = (("FriedmanDrift gra", "FriedmanDrift", {"drift_type": "gra", "position": (1000, 2000)}),
              ("FriedmanDrift gsg", "FriedmanDrift", {"drift_type": "gsg", "position": (1000, 2000),
                                                      "transition_window": 200}),
              ("Friedman", "Friedman", {}))


def _forests() -> dict:
    from benchmarks.experiments import _common

    return _common.our_variants("reg")


def _streams(quick: bool) -> list[tuple[str, str]]:
    """(label, group): the tuning streams, the fresh draws, then the long streams."""
    from benchmarks.experiments import _common, leaf_model

    out = [(s, "tuning") for s in _common.grid_streams(quick)]
    seeds = SEEDS[:1] if quick else SEEDS
    gens = GENERATORS[:1] if quick else GENERATORS
    long = leaf_model.LONG[:1] if quick else leaf_model.LONG
    return (out + [(f"{label} seed {seed}", "fresh") for label, _, _ in gens for seed in seeds]
            + [(f"{s} (long)", "long") for s in long])


def _caps(quick: bool) -> tuple:
    return (1.0, float("inf")) if quick else CAPS


def jobs(quick: bool) -> list[tuple[str, dict]]:
    forests = list(_forests())
    forests = forests[:2] if quick else forests
    return [(f"{label}|{forest}|{cap:g}", {"stream": label, "forest": forest, "cap": cap,
                                           "quick": quick})
            for label, _ in _streams(quick) for forest in forests for cap in _caps(quick)]


def _samples(label: str, quick: bool) -> list:
    from river.datasets import synth

    from benchmarks import streams
    from benchmarks.experiments import leaf_model

    if label.endswith(" (long)"):
        return leaf_model._samples(label[:-len(" (long)")],
                                   leaf_model.QUICK_LONG_N if quick else leaf_model.LONG_N)
    for name, gen, params in GENERATORS:
        if label.startswith(name + " seed "):
            seed = int(label.rsplit(" ", 1)[1])
            return list(getattr(synth, gen)(seed=seed, **params).take(FRESH_N))
    return streams.STREAMS[label].samples(2_000 if quick else None)


def measure(params: dict) -> dict:
    from river_forests._core import _leaf_linear

    from benchmarks.experiments import leaf_model

    cls, variant = _forests()[params["forest"]]
    data = _samples(params["stream"], params["quick"])
    _leaf_linear.set_slope_cap(params["cap"])
    try:
        model = cls(n_estimators=10, seed=42, **variant, leaf_model="linear", linear_rate=1.0)
        return leaf_model.scored(model, data)
    finally:
        _leaf_linear.set_slope_cap(_leaf_linear.SLOPE_CAP)


def report(results: dict, quick: bool) -> None:
    import math

    from benchmarks.experiments import _common

    md, _ = _common.outputs(NAME, quick)
    streams = _streams(quick)
    caps = _caps(quick)
    forests = list(_forests())
    forests = forests[:2] if quick else forests
    lines = _common.opening(
        NAME, quick, "How far a rescale may steepen the linear leaves' slopes",
        "10 trees, seed 42, every regressor with linear leaves (`linear_rate` 1); prequential "
        "MAE, fed as the benchmark feeds each forest",
        jobs(quick), results)

    def mae(label, forest, cap):
        """The stream's MAE, a long stream's over its last tenth."""
        r = results.get(f"{label}|{forest}|{cap:g}")
        return float("nan") if r is None else r["last" if label.endswith("(long)") else "mae"]

    def group_score(forest, cap, group):
        """The geometric mean over the group's streams of the MAE over the best cap's."""
        logs = []
        for label, g in streams:
            if g != group:
                continue
            best = min(mae(label, forest, c) for c in caps)
            logs.append(math.log(mae(label, forest, cap) / best))
        return math.exp(sum(logs) / len(logs)) if logs else float("nan")

    def worst(forest, cap, group):
        return max(mae(label, forest, cap) / min(mae(label, forest, c) for c in caps)
                   for label, g in streams if g == group)

    score = {}
    rows = []
    for forest in forests:
        row = [forest]
        for cap in caps:
            t, f, g = (group_score(forest, cap, group) for group in ("tuning", "fresh", "long"))
            score[forest, cap] = (t * f * g) ** (1 / 3)
            row.append(f"{t:.3f} / {f:.3f} (worst {worst(forest, cap, 'fresh'):.2f}) / {g:.3f}")
        rows.append(row)
    total = {cap: math.exp(sum(math.log(score[f, cap]) for f in forests) / len(forests))
             for cap in caps}
    chosen = min(caps, key=lambda c: total[c])
    lines += ["Per forest and cap: the tuning streams' score / the fresh draws' score (the "
              "worst fresh draw's MAE over the best cap's on it) / the long streams' score (the "
              "MAE over their last tenth). A score is the geometric mean over the group's "
              "streams of the MAE over the best cap's (1: best everywhere).", ""]
    lines += _common.markdown_table(["forest"] + [f"cap {c:g}" for c in caps], rows)
    lines += ["", "Overall (the geometric mean over the forests of each forest's three groups' "
              "geometric mean):", ""]
    lines += _common.markdown_table(
        ["cap", "score"], [[f"{c:g}" + (" **(chosen)**" if c == chosen else ""),
                           f"{total[c]:.4f}"] for c in caps])
    lines += ["", "MAE per stream (a long stream's over its last tenth):", ""]
    for forest in forests:
        lines += [f"### {forest}", ""]
        lines += _common.markdown_table(
            ["stream", "group"] + [f"cap {c:g}" for c in caps],
            [[label, g] + [f"{mae(label, forest, c):.4g}" for c in caps] for label, g in streams])
        lines.append("")
    lines += [f"Chosen: cap {chosen:g}."]
    md.write_text("\n".join(lines) + "\n")
