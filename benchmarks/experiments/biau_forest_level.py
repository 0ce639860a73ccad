"""biau2008's forest-level results, for every forest: vote vs average, and subsampling q_n.

    python -m benchmarks experiment biau_forest_level           # elec + covtype's first 100,000 rows
    python -m benchmarks experiment biau_forest_level --quick   # first 10,000 rows of each

What it shows
-------------
Biau, Devroye & Lugosi, "Consistency of random forests and other averaging classifiers"
(JMLR 2008). Section 2 of the paper: a forest may combine its trees by majority vote (the
voting classifier) or by averaging their class probabilities (the averaged classifier); both
are consistent when the trees are (proposition 1). Section 5: each tree may learn a
subsample, every sample kept with probability q_n, and theorem 7 shows that a rate
decreasing with n (q_n -> 0, n q_n -> infinity) can make even an inconsistent rule
consistent. Every forest of the package has both as parameters (``aggregation``;
``subsampling``, ``subsample_rate``, ``subsample_decay``: q_n = subsample_rate *
n^-subsample_decay).

For every classifier in ``river_forests.__all__`` (the purely random forest with both
splits), 10 trees, seed 1, default parameters otherwise, progressive validation
(``river_forests._progressive.progressive_run``, accuracy) on elec (all 45,312 samples) and
covtype's first 100,000 rows (the stream registry's loader, read past the registry's
50,000), with:

* average (the default) and vote;
* Bernoulli subsampling at a fixed q = 0.632 (about the share of distinct samples in a
  bootstrap sample, Breiman's bagging) and online bagging (Poisson(1) weights);
* Bernoulli subsampling with q_n = n^-beta for beta in {0.2, 0.4}: each tree learns about
  n^(1 - beta) / (1 - beta) samples, a vanishing share of the stream.

One measurement (``measure``) is one (stream, forest) pair: its six configurations, one after
the other in the same process, so the speed of each is relative to the forest's default
(average, no subsampling) measured alongside it. The report gives accuracy, that relative
speed, and the samples a tree learned (mean over trees), one table per stream, and a bar
plot of the accuracies, in ``benchmarks/results/experiments/biau_forest_level.{md,png}``
(``_quick`` with ``--quick``).

What to expect
--------------
From the run recorded before this experiment moved here (Mondrian and the two purely random
forests; the forests added since are rows of their own):

- **Average beats vote** for every forest on both streams, by 0.05 to 2.3 points (covtype:
  Mondrian 84.72 against 82.93, scale-invariant 84.34 against 82.04): averaging keeps each
  tree's confidence, a vote throws it away. Both are consistent (proposition 1); ``average``
  stays the default everywhere.
- **A fixed subsampling rate** (Bernoulli q = 0.632, or Poisson(1) online bagging) stays
  within about a point of no subsampling, with trees that learn 63% of the stream; the
  data-blind uniform purely random forest gains from the extra diversity on covtype
  (75.20 against 73.29).
- **A decreasing rate q_n = n^-beta** (theorem 7) makes each tree learn a vanishing share
  of the stream: 6,600 of 45,312 elec samples at beta = 0.2, about 1,000 at beta = 0.4.
  At these lengths it costs accuracy: up to 2.8 points at beta = 0.2 and up to 10 points at
  beta = 0.4 (scale-invariant on covtype, 1,663 samples per tree), except the
  scale-invariant forest on elec, which gains a point at beta = 0.2. Theorem 7 is
  asymptotic (n q_n -> infinity); the rate buys cheaper, more diverse trees, useful when
  each tree must stay small.
- Speed ratios come from one run on a shared machine that other benchmarks may load at the
  same time; read them as rough (the first configuration of each row, the default, also
  pays for warm-up).
"""

from __future__ import annotations

import re
import time

from benchmarks.experiments import _common

NAME = "biau_forest_level"
N_ESTIMATORS = 10
SEED = 1
#: stream -> samples (None: the whole stream) in the full run; the quick run takes QUICK_N of each
FULL_N = {"elec": None, "covtype": 100_000}
QUICK_N = 10_000

CONFIGS = {
    "average": {},
    "vote": {"aggregation": "vote"},
    "bernoulli q=0.632": {"subsampling": "bernoulli", "subsample_rate": 0.632},
    "poisson(1)": {"subsampling": "poisson", "subsample_rate": 1.0},
    "q_n = n^-0.2": {"subsampling": "bernoulli", "subsample_rate": 1.0, "subsample_decay": 0.2},
    "q_n = n^-0.4": {"subsampling": "bernoulli", "subsample_rate": 1.0, "subsample_decay": 0.4},
}


def _length(stream: str, quick: bool) -> int:
    from benchmarks.streams import STREAMS

    return QUICK_N if quick else (FULL_N[stream] or STREAMS[stream].n)


def _data(stream: str, n: int) -> list:
    """The first `n` samples of a registered stream; past the registry's length (covtype: it
    keeps 50,000 rows, this experiment reads 100,000), through the registry's own loader."""
    from benchmarks.streams import STREAMS

    s = STREAMS[stream]
    if n <= s.n:
        return s.samples(n)
    return [(dict(x), y) for x, y in s.load(n)]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    """One measurement per (stream, forest): the forest's six configurations."""
    out = []
    for stream in FULL_N:
        for label, (cls, params) in _common.our_variants().items():
            key = f"{stream}-" + re.sub(r"[^A-Za-z0-9._-]+", "-", label).strip("-")
            out.append((key, {"stream": stream, "n": _length(stream, quick), "forest": label,
                              "class": cls.__name__, "params": params, "configs": CONFIGS,
                              "n_estimators": N_ESTIMATORS, "seed": SEED}))
    return out


def measure(params: dict) -> dict:
    """Progressive accuracy, samples/s and samples learned per tree of each configuration."""
    import river_forests
    from river import metrics

    from river_forests._progressive import progressive_run

    t0 = time.perf_counter()
    data = _data(params["stream"], params["n"])
    cls = getattr(river_forests, params["class"])
    out = {}
    for config, extra in params["configs"].items():
        model = cls(n_estimators=params["n_estimators"], seed=params["seed"], **params["params"],
                    **extra)
        r = progressive_run(model, data, metrics.Accuracy())
        learned = sum(t.samples_seen for t in model.trees) / len(model.trees)
        out[config] = {"accuracy": float(r.metric), "samples_per_s": float(r.samples_per_s),
                       "seconds": float(r.seconds), "learned": float(learned), "mode": r.mode}
    return {"n": len(data), "configs": out, "seconds": time.perf_counter() - t0}


def report(results: dict[str, dict], quick: bool) -> None:
    import numpy as np

    plt = _common.pyplot()
    wanted = jobs(quick)
    missing = _common.missing(wanted, results)
    streams = list(FULL_N)
    version = _common.version_line()
    lines = [
        "# biau2008 at the forest level: vote vs average, and subsampling q_n",
        "",
        "Claim (Biau, Devroye & Lugosi 2008): the voting and the averaged forest are both "
        "consistent when the trees are (proposition 1); a subsampling rate q_n -> 0 with "
        "n q_n -> infinity can make even an inconsistent rule consistent (theorem 7).",
        "",
        f"Setup: every classifier of the package, progressive accuracy (%), {N_ESTIMATORS} "
        f"trees, seed {SEED}, other parameters default, on elec and covtype"
        + (f" (first {QUICK_N:,} samples of each: quick run)" if quick else "")
        + ". Speed is relative to the same forest's default (average, no subsampling) in the "
        "same measurement; 'learned' is the mean number of samples a tree learned.",
        "",
        version,
    ]
    if missing:
        lines += ["", _common.missing_line(missing)]
    acc = {}
    for stream in streams:
        rows_ = [(p["forest"], results[k]) for k, p in wanted if p["stream"] == stream and k in results]
        if not rows_:
            continue
        n = rows_[0][1]["n"]
        lines += ["", f"## {stream} ({n:,} samples)", ""]
        rows = []
        for label, r in rows_:
            base = r["configs"]["average"]["samples_per_s"]
            cells = [label]
            for config in CONFIGS:
                c = r["configs"][config]
                cells.append(f"{100 * c['accuracy']:.2f} ({c['samples_per_s'] / base:.2f}x, "
                             f"{c['learned']:,.0f})")
                acc[stream, label, config] = 100 * c["accuracy"]
            rows.append(cells)
        lines += _common.markdown_table(["forest", *CONFIGS], rows)
        lines += ["", "Cells: accuracy (speed relative to average, samples learned per tree)."]
        fed = sorted({c["mode"] for _, r in rows_ for c in r["configs"].values()} - {"one"})
        if fed:
            batch = [label for label, r in rows_ if r["configs"]["average"]["mode"] != "one"]
            lines += [f"{', '.join(batch)}: fed {', '.join(fed)} (batch-native), the others one "
                      "sample at a time."]
    seconds = _common.compute_seconds(results)
    lines += ["", f"Compute time: {seconds:.0f} s (sum over the {len(results)} measurements)."]
    md_path, png_path = _common.outputs(NAME, quick)
    md_path.write_text("\n".join(lines) + "\n")

    forests = list(dict.fromkeys(label for _, label, _ in acc))
    fig, axes = plt.subplots(1, len(streams), figsize=(7 * len(streams), 5), squeeze=False)
    width = 0.8 / len(CONFIGS)
    for ax, stream in zip(axes[0], streams):
        x = np.arange(len(forests))
        for j, config in enumerate(CONFIGS):
            values = [acc.get((stream, f, config), np.nan) for f in forests]
            ax.bar(x + (j - (len(CONFIGS) - 1) / 2) * width, values, width, label=config)
        ax.set_xticks(x)
        ax.set_xticklabels(forests, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("progressive accuracy (%)")
        finite = [a for (s, _, _), a in acc.items() if s == stream]
        if finite:
            ax.set_ylim(max(0.0, min(finite) - 5), min(100.0, max(finite) + 2))
        ax.set_title(stream)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    _common.save_figure(fig, png_path, f"Vote vs average and subsampling q_n ({N_ESTIMATORS} "
                        f"trees, seed {SEED})" + (" (quick)" if quick else ""), dpi=120)
    print(f"wrote {md_path} and {png_path}")
