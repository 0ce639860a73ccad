"""Consistency and rate of the Mondrian forest regressor (Mourtada et al., NIPS 2017).

What it shows
-------------
Mourtada, Gaïffas & Scornet (2017) prove that a Mondrian forest whose lifetime grows like
lambda_n ~ n^(1/(d+2)) is consistent and reaches the minimax rate for Lipschitz functions,
E[(f_hat(X) - f(X))^2] = O(n^(-2/(d+2))) (theorem 2; proposition 4 of their appendix E for
regression), while a forest with a *fixed* lifetime lambda is inconsistent (proposition 1):
its partition stops refining, so its excess risk stops falling and plateaus at a bias floor.

This script checks both statements on a regression problem in d = 2, where the theoretical
rate is n^(-2/(d+2)) = n^(-1/2):

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
  max_nodes=10**6 so the memory cap never interferes): the consistent lifetime
  lambda_n = lifetime_scale * n^(1/4) with lifetime_scale in {1, 4}, and the fixed lifetimes
  lambda in {2, 8}. Results are averaged over 3 seeds.

It prints a Markdown table (rows: n, columns: models) and, for each model, the least-squares
slope of log(excess risk) against log(n) over the last 5 checkpoints (n >= 4000 in the full
run), next to the theoretical -2/(d+2) = -0.5. It saves a log-log plot with a reference line
of slope -0.5 to ``benchmarks/results/consistency_mondrian.png`` and the table and slopes to
``benchmarks/results/consistency_mondrian.md``.

How to run
----------
From the repository root::

    python benchmarks/consistency_mondrian.py           # full run (a few seconds)
    python benchmarks/consistency_mondrian.py --quick   # checkpoints up to 8000, 1 seed

``--quick`` writes ``consistency_mondrian_quick.{md,png}`` so as not to overwrite the full
results; ``--outdir`` chooses another output folder.

What to expect
--------------
The consistent forests' excess risk keeps falling along the whole range, roughly like
n^(-1/2), while the fixed-lifetime forests plateau: lambda = 2 is a coarse partition whose
bias dominates from the start (about 1.3e-2 at every n, slope ~0), lambda = 8 is finer and
improves a little at small n, then flattens at about 2.1e-3 (slope ~0 over n >= 4000).
The consistent forest with lifetime_scale=1 crosses below it near n = 4000; the one with
lifetime_scale=4 is below it at every n. In the full run (3 seeds) the fitted
slopes over n = 4000..64000 were about -0.58 (lifetime_scale=1) and -0.39 (lifetime_scale=4).
The second is flatter than -0.5 but has the lower risk throughout. A likely reason: a
Mondrian partition of lifetime lambda on the unit square has (1 + lambda)^2 cells on average,
so with lifetime_scale=4 a leaf holds only about 4 to 15 samples over that range. The trees
are then still pre-asymptotic (sparse and empty leaves lean on their parents), and the
variance has not yet reached its asymptotic sigma^2 lambda^2 / n level. The slope is an
estimate over a finite range of n, not the asymptotic exponent. A slope fitted on 5 points of a 3-seed mean also moves by a
few hundredths from one set of seeds to another.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests.evaluation import markdown_table  # noqa: E402

D = 2
NOISE_SD = 0.1
N_TEST = 5_000
BATCH = 1_000
FULL_CHECKPOINTS = [250, 500, 1000, 2000, 4000, 8000, 16000, 32000, 64000]
N_SLOPE = 5  # the slope is fitted on the last N_SLOPE checkpoints
THEORY_SLOPE = -2 / (D + 2)
SMOOTHING = 1.0  # passed explicitly, so the results do not depend on the package default

# name -> keyword arguments of MondrianForestRegressor
MODELS = {
    "consistent, scale=1": dict(lifetime="consistent", lifetime_scale=1.0),
    "consistent, scale=4": dict(lifetime="consistent", lifetime_scale=4.0),
    "fixed, lambda=2": dict(lifetime=2.0),
    "fixed, lambda=8": dict(lifetime=8.0),
}
COLUMNS = ["x0", "x1"]


def f(X: np.ndarray) -> np.ndarray:
    """The regression function: Lipschitz, with a kink in x0 and a smooth wave in x1."""
    return np.abs(X[:, 0] - 0.4) + 0.5 * np.sin(2 * np.pi * X[:, 1]) / np.pi


def run_seed(seed: int, checkpoints: list[int], X_test: pd.DataFrame, f_test: np.ndarray,
             n_estimators: int) -> dict[str, list[float]]:
    """Excess risk of every model at every checkpoint, on one training stream."""
    from river_forests import MondrianForestRegressor

    rng = np.random.default_rng(1_000 + seed)
    n_max = checkpoints[-1]
    X = rng.random((n_max, D))
    y = f(X) + NOISE_SD * rng.standard_normal(n_max)
    X_df = pd.DataFrame(X, columns=COLUMNS)
    y_s = pd.Series(y)

    risks: dict[str, list[float]] = {}
    for name, kwargs in MODELS.items():
        # the paper's estimator: mean leaves, no cap in reach (so no recycling)
        model = MondrianForestRegressor(n_estimators=n_estimators, smoothing=SMOOTHING,
                                        max_nodes=10**6, seed=seed, leaf_model="mean",
                                        recycling=False, **kwargs)
        risks[name] = []
        n_seen = 0
        for n in checkpoints:
            for start in range(n_seen, n, BATCH):
                stop = min(start + BATCH, n)
                model.learn_many(X_df.iloc[start:stop], y_s.iloc[start:stop])
            n_seen = n
            pred = model.predict_many(X_test).to_numpy()
            risks[name].append(float(np.mean((pred - f_test) ** 2)))
    return risks


def loglog_slope(ns, values) -> float:
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="checkpoints up to 8000 and a single seed")
    parser.add_argument("--outdir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "results"),
                        help="folder for the .md and .png results (default: benchmarks/results)")
    args = parser.parse_args()

    checkpoints = [n for n in FULL_CHECKPOINTS if n <= 8000] if args.quick else FULL_CHECKPOINTS
    seeds = [0] if args.quick else [0, 1, 2]
    n_estimators = 10
    suffix = "_quick" if args.quick else ""

    test_rng = np.random.default_rng(12345)
    X_test_np = test_rng.random((N_TEST, D))
    f_test = f(X_test_np)
    X_test = pd.DataFrame(X_test_np, columns=COLUMNS)

    t0 = time.perf_counter()
    per_seed = [run_seed(s, checkpoints, X_test, f_test, n_estimators) for s in seeds]
    elapsed = time.perf_counter() - t0
    mean = {name: np.mean([r[name] for r in per_seed], axis=0) for name in MODELS}

    slope_ns = checkpoints[-N_SLOPE:]
    slopes = {name: loglog_slope(slope_ns, mean[name][-N_SLOPE:]) for name in MODELS}

    lines = [
        "# Mondrian forest: excess risk vs n (Mourtada et al. 2017, theorem 2 / proposition 1)",
        "",
        f"d = {D}, f(x) = |x0 - 0.4| + 0.5 sin(2 pi x1) / pi, noise sd = {NOISE_SD}, "
        f"test set of {N_TEST} points, n_estimators = {n_estimators}, smoothing = {SMOOTHING}, "
        f"max_nodes = 10**6, mean over {len(seeds)} seed(s). "
        "Entries: excess risk E[(f_hat(X) - f(X))^2].",
        "",
    ]
    lines += markdown_table(
        ["n", *MODELS], [[n, *(f"{mean[name][i]:.2e}" for name in MODELS)] for i, n in enumerate(checkpoints)]
    )
    lines += [
        "",
        f"Least-squares log-log slope over the last {len(slope_ns)} checkpoints "
        f"(n = {slope_ns[0]} to {slope_ns[-1]}); theory for the consistent lifetime: "
        f"-2/(d+2) = {THEORY_SLOPE:.2f}.",
        "",
    ]
    lines += markdown_table(["model", "slope", "theory"], [
        [name, f"{slopes[name]:.3f}", f"{THEORY_SLOPE:.2f}" if name.startswith("consistent") else "0 (plateau)"]
        for name in MODELS
    ])
    lines += ["", f"Run time: {elapsed:.1f} s."]
    text = "\n".join(lines) + "\n"
    print(text, end="")

    os.makedirs(args.outdir, exist_ok=True)
    md_path = os.path.join(args.outdir, f"consistency_mondrian{suffix}.md")
    with open(md_path, "w") as fh:
        fh.write(text)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    ns = np.array(checkpoints, dtype=float)
    for name in MODELS:
        ax.loglog(ns, mean[name], marker="o", label=f"{name} (slope {slopes[name]:.2f})")
    # reference line of slope -0.5, anchored at the first consistent model's first point
    anchor = mean["consistent, scale=1"][0]
    ax.loglog(ns, anchor * (ns / ns[0]) ** THEORY_SLOPE, "k--",
              label=f"reference, slope {THEORY_SLOPE:.1f}")
    ax.set_xlabel("n (training samples)")
    ax.set_ylabel("excess risk  E[(f_hat(X) - f(X))^2]")
    ax.set_title(f"Mondrian forest regressor, d={D}: consistent vs fixed lifetime\n"
                 f"mean over {len(seeds)} seed(s), slopes fitted on n >= {slope_ns[0]}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    png_path = os.path.join(args.outdir, f"consistency_mondrian{suffix}.png")
    fig.savefig(png_path, dpi=120)
    print(f"\nWrote {md_path} and {png_path}")


if __name__ == "__main__":
    main()
