"""Consistency and rate of the Mondrian forest regressor (Mourtada et al., NIPS 2017).

What it shows
-------------
Mourtada, Gaïffas & Scornet (2017) prove that a Mondrian forest whose lifetime grows like
lambda_n ~ n^(1/(d+2)) is consistent and reaches the minimax rate for Lipschitz functions,
E[(f_hat(X) - f(X))^2] = O(n^(-2/(d+2))) (theorem 2; proposition 4 of their appendix E for
regression), while a forest with a *fixed* lifetime lambda is inconsistent (proposition 1):
its partition stops refining, so its excess risk stops falling and plateaus at a bias floor.

This experiment checks both statements on a regression problem in d = 2, where the
theoretical rate is n^(-2/(d+2)) = n^(-1/2):

* X ~ Uniform([0, 1]^2), Y = f(X) + N(0, 0.1^2), with the Lipschitz (not piecewise constant)
  function f(x) = |x0 - 0.4| + 0.5 * sin(2 * pi * x1) / pi (Lipschitz constant 1 in each
  coordinate; a kink along x0 = 0.4 and a smooth oscillation along x1).
* A fixed test set of 5,000 points; the metric is the excess risk
  E[(f_hat(X) - f(X))^2], the MSE against the noiseless f (the noise variance 0.01 is not
  included).
* One training stream per seed; each model learns the stream in mini-batches
  (``learn_many``, which gives exactly what ``learn_one`` would) and is evaluated
  (``predict_many``) at the checkpoints n = 250, 500, ..., 64000. All models see the same
  stream for a given seed.
* Models (``MondrianForestRegressor``, n_estimators=10, smoothing=1.0 (set explicitly),
  max_nodes=10**6 so the memory cap never interferes, leaf_model="mean", recycling=False:
  the paper's estimator): the consistent lifetime lambda_n = growth_scale * n^(1/4) with
  growth_scale in {1, 4}, and the fixed lifetimes lambda in {2, 8}. Results are averaged
  over 3 seeds.

One measurement (``measure``) is one (seed, model) pair: its excess risk at every checkpoint.
The report is a Markdown table (rows: n, columns: models) and, for each model, the
least-squares slope of log(excess risk) against log(n) over the last 5 checkpoints (n >= 4000
in the full run), next to the theoretical -2/(d+2) = -0.5; and a log-log plot with a
reference line of slope -0.5. Both go to ``benchmarks/results/experiments/``
(``consistency_mondrian.{md,png}``).

How to run
----------
From the repository root::

    python -m benchmarks experiment consistency_mondrian            # full run (a few seconds)
    python -m benchmarks experiment consistency_mondrian --quick    # checkpoints up to 8000, 1 seed

``--quick`` writes ``consistency_mondrian_quick.{md,png}`` so as not to overwrite the full
results; ``--jobs N`` runs N measurements at a time.

What to expect
--------------
The consistent forests' excess risk keeps falling along the whole range, roughly like
n^(-1/2), while the fixed-lifetime forests plateau: lambda = 2 is a coarse partition whose
bias dominates from the start (about 1.3e-2 at every n, slope ~0), lambda = 8 is finer and
improves a little at small n, then flattens at about 2.1e-3 (slope ~0 over n >= 4000).
The consistent forest with growth_scale=1 crosses below it near n = 4000; the one with
growth_scale=4 is below it at every n. In the full run (3 seeds) the fitted
slopes over n = 4000..64000 were about -0.58 (growth_scale=1) and -0.39 (growth_scale=4).
The second is flatter than -0.5 but has the lower risk throughout. A likely reason: a
Mondrian partition of lifetime lambda on the unit square has (1 + lambda)^2 cells on average,
so with growth_scale=4 a leaf holds only about 4 to 15 samples over that range. The trees
are then still pre-asymptotic (sparse and empty leaves lean on their parents), and the
variance has not yet reached its asymptotic sigma^2 lambda^2 / n level. The slope is an
estimate over a finite range of n, not the asymptotic exponent. A slope fitted on 5 points of
a 3-seed mean also moves by a few hundredths from one set of seeds to another.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.experiments import _common

NAME = "consistency_mondrian"
D = 2
NOISE_SD = 0.1
N_TEST = 5_000
BATCH = 1_000
FULL_CHECKPOINTS = [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000]
QUICK_MAX = 8_000
FULL_SEEDS = [0, 1, 2]
QUICK_SEEDS = [0]
N_ESTIMATORS = 10
N_SLOPE = 5  # the slope is fitted on the last N_SLOPE checkpoints
THEORY_SLOPE = -2 / (D + 2)
SMOOTHING = 1.0  # passed explicitly, so the results do not depend on the package default

# name -> (key, keyword arguments of MondrianForestRegressor)
MODELS = {
    "consistent, scale=1": ("consistent-scale1", dict(growth="consistent", growth_scale=1.0)),
    "consistent, scale=4": ("consistent-scale4", dict(growth="consistent", growth_scale=4.0)),
    "fixed, lambda=2": ("fixed-lambda2", dict(growth=2.0)),
    "fixed, lambda=8": ("fixed-lambda8", dict(growth=8.0)),
}
COLUMNS = ["x0", "x1"]


def f(X: np.ndarray) -> np.ndarray:
    """The regression function: Lipschitz, with a kink in x0 and a smooth wave in x1."""
    return np.abs(X[:, 0] - 0.4) + 0.5 * np.sin(2 * np.pi * X[:, 1]) / np.pi


def _settings(quick: bool) -> tuple[list[int], list[int]]:
    checkpoints = [n for n in FULL_CHECKPOINTS if n <= QUICK_MAX] if quick else FULL_CHECKPOINTS
    return checkpoints, QUICK_SEEDS if quick else FULL_SEEDS


def jobs(quick: bool) -> list[tuple[str, dict]]:
    """One measurement per (seed, model)."""
    checkpoints, seeds = _settings(quick)
    return [(f"seed{seed}-{key}", {"seed": seed, "model": name, "kwargs": kwargs,
                                    "checkpoints": checkpoints, "n_estimators": N_ESTIMATORS})
            for seed in seeds for name, (key, kwargs) in MODELS.items()]


def measure(params: dict) -> dict:
    """Excess risk of one model at every checkpoint, on the training stream of one seed."""
    import pandas as pd

    from river_forests import MondrianForestRegressor

    t0 = time.perf_counter()
    seed, checkpoints = params["seed"], params["checkpoints"]
    test_rng = np.random.default_rng(12345)
    X_test_np = test_rng.random((N_TEST, D))
    f_test = f(X_test_np)
    X_test = pd.DataFrame(X_test_np, columns=COLUMNS)

    rng = np.random.default_rng(1_000 + seed)
    n_max = checkpoints[-1]
    X = rng.random((n_max, D))
    y = f(X) + NOISE_SD * rng.standard_normal(n_max)
    X_df = pd.DataFrame(X, columns=COLUMNS)
    y_s = pd.Series(y)

    # the paper's estimator: mean leaves, no cap in reach (so no recycling)
    model = MondrianForestRegressor(n_estimators=params["n_estimators"], smoothing=SMOOTHING,
                                    memory_budget=None, max_nodes=10**6, seed=seed, leaf_model="mean",
                                    recycling=False, **params["kwargs"])
    risks = []
    for _ in _common.learn_to_checkpoints(model, X_df, y_s, checkpoints, BATCH):
        pred = model.predict_many(X_test).to_numpy()
        risks.append(float(np.mean((pred - f_test) ** 2)))
    return {"checkpoints": list(checkpoints), "risks": risks, "seconds": time.perf_counter() - t0}


def loglog_slope(ns, values) -> float:
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def report(results: dict[str, dict], quick: bool) -> None:
    import matplotlib.ticker

    plt = _common.pyplot()
    checkpoints, seeds = _settings(quick)
    wanted = dict(jobs(quick))
    per_model = {name: [] for name in MODELS}
    for key, params in wanted.items():
        if key in results:
            per_model[params["model"]].append(results[key]["risks"])
    missing = _common.missing(wanted.items(), results)
    names = [name for name in MODELS if per_model[name]]
    mean = {name: np.mean(per_model[name], axis=0) for name in names}
    seconds = _common.compute_seconds(results)

    slope_ns = checkpoints[-N_SLOPE:]
    slopes = {name: loglog_slope(slope_ns, mean[name][-N_SLOPE:]) for name in names}

    lines = [
        "# Mondrian forest: excess risk vs n (Mourtada et al. 2017, theorem 2 / proposition 1)",
        "",
        "Claim: a Mondrian forest with lifetime lambda_n ~ n^(1/(d+2)) is consistent and reaches "
        "the minimax rate n^(-2/(d+2)) for Lipschitz regression functions (theorem 2); a fixed "
        "lifetime is not consistent: its excess risk plateaus (proposition 1).",
        "",
        f"Setup: d = {D}, X ~ Uniform([0, 1]^{D}), f(x) = |x0 - 0.4| + 0.5 sin(2 pi x1) / pi, "
        f"noise sd = {NOISE_SD}, test set of {N_TEST} points, MondrianForestRegressor with "
        f"n_estimators = {N_ESTIMATORS}, smoothing = {SMOOTHING}, max_nodes = 10**6, "
        f"leaf_model = \"mean\", recycling = False, learned in mini-batches of {BATCH:,}, "
        f"mean over {len(seeds)} seed(s){' (quick run)' if quick else ''}. "
        "Entries: excess risk E[(f_hat(X) - f(X))^2].",
        "",
        _common.version_line(),
        "",
    ]
    if missing:
        lines += [_common.missing_line(missing), ""]
    lines += _common.markdown_table(
        ["n", *names], [[n, *(f"{mean[name][i]:.2e}" for name in names)] for i, n in enumerate(checkpoints)]
    )
    lines += [
        "",
        f"Least-squares log-log slope over the last {len(slope_ns)} checkpoints "
        f"(n = {slope_ns[0]} to {slope_ns[-1]}); theory for the consistent lifetime: "
        f"-2/(d+2) = {THEORY_SLOPE:.2f}.",
        "",
    ]
    lines += _common.markdown_table(["model", "slope", "theory"], [
        [name, f"{slopes[name]:.3f}", f"{THEORY_SLOPE:.2f}" if name.startswith("consistent") else "0 (plateau)"]
        for name in names
    ])
    lines += ["", f"Compute time: {seconds:.1f} s (sum over the {len(results)} measurements)."]
    md_path, png_path = _common.outputs(NAME, quick)
    md_path.write_text("\n".join(lines) + "\n")

    fig, ax = plt.subplots(figsize=(7, 5))
    ns = np.array(checkpoints, dtype=float)
    for name in names:
        ax.loglog(ns, mean[name], marker="o", label=f"{name} (slope {slopes[name]:.2f})")
    # reference line of slope -0.5, anchored at the first consistent model's first point
    anchor_name = "consistent, scale=1" if "consistent, scale=1" in mean else names[0]
    anchor = mean[anchor_name][0]
    ax.loglog(ns, anchor * (ns / ns[0]) ** THEORY_SLOPE, "k--",
              label=f"reference, slope {THEORY_SLOPE:.1f}")
    _common.label_axes(ax, "n (training samples)", "excess risk  E[(f_hat(X) - f(X))^2]",
                       f"Mondrian forest regressor, d={D}: consistent vs fixed lifetime\n"
                       f"mean over {len(seeds)} seed(s), slopes fitted on n >= {slope_ns[0]}")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    _common.save_figure(fig, png_path, dpi=120)
    print(f"wrote {md_path} and {png_path}")
