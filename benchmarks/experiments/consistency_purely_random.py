"""Consistency of the purely random forest classifier (Biau, Devroye & Lugosi, JMLR 2008).

What it shows
-------------
Biau, Devroye & Lugosi (2008) prove that the purely random forest classifier (theorem 2) and
its scale-invariant variant (theorem 4) are consistent, L(g_n) -> L* (the Bayes error),
whenever the number of cuts k of each tree satisfies k -> infinity and k / n -> 0. A fixed k
gives k + 1 cells whatever n, so the error stops falling at a level set by how well k + 1
random cells fit the Bayes boundary. The theorems give no rate.

This experiment checks both statements on a classification stream whose Bayes error is known
exactly:

* X ~ Uniform([0, 1]^2); the Bayes classifier is g*(x) = 1{x1 > 0.5 + 0.25 sin(2 pi x0)}
  (a smooth, not axis-aligned boundary, classes balanced), and Y = g*(X) flipped with
  probability 0.1. So eta(x) is 0.1 or 0.9 and L* = 0.1 exactly.
* The error of a trained model is computed from eta, not from noisy test labels:
  L(g_n) = L* + 0.8 P(g_n(X) != g*(X)), the probability estimated on a fixed set of 50,000
  test points (the same for every model, seed and n). This removes the label-noise variance
  from the estimate (a noisy 50,000-point test set would add a standard deviation of 0.0013,
  the size of the smallest excess errors). As a check, the error on noisy labels of the same
  points is printed for one model at the last checkpoint.
* One training stream per seed; each model learns it in chunks with ``learn_many`` (exactly
  a ``learn_one`` loop) and predicts the test set with ``predict_many`` at the checkpoints
  n = 250, 500, 1000, ..., 2,048,000 (doubling). All models see the same stream for a seed.
* Models: ``PurelyRandomForestClassifier(n_estimators=10, smoothing=0.5, max_nodes=10**6,
  seed=s)`` (smoothing set to the package default explicitly; max_nodes so high the memory
  cap never interferes, except where it is the point):

  - the consistent schedule k_n = floor(growth_scale * n^growth_exponent) with
    (growth_scale, growth_exponent) = (1, 0.5) and (4, 0.7) (the package default), each with
    ``split="uniform"`` (theorem 2) and ``split="scale_invariant"`` (theorem 4);
  - the fixed-k forests: with ``growth=k`` a tree follows the schedule up to k cuts,
    k_n = min(k, floor(growth_scale * n^growth_exponent)), then stops cutting (its leaves keep
    learning). ``growth=16`` and ``growth=256`` with ``growth_scale=1, growth_exponent=0.5`` (uniform
    split) and ``growth=256`` with the same schedule and the scale-invariant split: they
    coincide with the n^0.5 columns of the same split (same seed, same cuts) until the k-th
    cut, at n = k^2 (256 and 65,536), then stall. And ``growth=256`` alone, on the default
    schedule 4 n^0.7, which reaches 256 cuts at n = 381;
  - the package defaults, 4 n^0.7 with ``max_nodes=4095``: the memory cap stops the trees at
    2,047 cuts, reached at n = 7,415, a fixed-k forest too.

  As a check, for the first seed the n^0.5 schedule capped at 256 cuts by ``max_nodes=513``
  instead of ``growth=256`` is run as well and compared with ``growth=256 n^0.5`` at every
  checkpoint (the same forest is expected: the cap and a fixed k stop the trees alike).

  Results are averaged over 5 seeds.

One measurement (``measure``) is one (seed, model) pair: its excess error at every
checkpoint, and at the last one its cuts per tree, its error on noisy labels and the balance
of its cells; the check of the cap is one more measurement (the capped forest and its
``growth=256 n^0.5`` twin, first seed). The report writes Markdown tables (rows: n, columns:
models) of the excess error L(g_n) - L* and of the error L(g_n); for each model the least-squares slope of
log(excess error) against log(n) over the last 5 checkpoints (n >= 128,000 in the full run),
of the mean curve and per seed; and, at the last checkpoint, the cuts per tree and how
balanced the cells are (the exact probability mass of every leaf, from the trees'
thresholds), next to the paper's batch tree with as many cuts (simulated). It saves a
two-panel plot (error against n on a log x axis with the Bayes error as a horizontal line;
excess error on log-log axes) and the tables and conclusions to
``benchmarks/results/experiments/consistency_purely_random.{png,md}``.

How to run
----------
From the repository root::

    python -m benchmarks experiment consistency_purely_random           # full run (about 2 minutes)
    python -m benchmarks experiment consistency_purely_random --quick   # checkpoints up to 16,000, 1 seed

``--quick`` writes ``consistency_purely_random_quick.{md,png}`` so as not to overwrite the
full results; ``--jobs N`` runs N measurements at a time.

What to expect
--------------
The conclusions of the recorded full run are ``CONCLUSIONS`` below (also written into the
.md). In short: every consistent forest's excess error keeps falling to n = 2,048,000 and
every fixed-k forest plateaus (slopes -0.14 to -0.37 against |slope| <= 0.003), as theorems 2
and 4 say. A fixed k follows the schedule up to k, so each fixed-k forest is its consistent
twin stopped at k cuts (`growth=256 n^0.5` is `n^0.5` until its 256th cut, at n = 65,536),
and its plateau falls with k (excess error 6.1e-2 with 16 cuts, 3.35e-2 to 3.68e-2 with 256,
2.32e-2 with the defaults' 2,047), with cells like the paper's tree with as many cuts. The uniform purely
random forest converges slowly (error 0.120 at two million samples with n^0.5, 0.108 with
4 n^0.7, Bayes error 0.1): its cells are as unbalanced as the paper's remark 3 says they
are. The scale-invariant forest is much faster (0.1013 with 4 n^0.7) because, online, a
leaf can be rank-cut only once points have reached it, which steers the cuts to large cells.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from benchmarks.experiments import _common

NAME = "consistency_purely_random"
D = 2
FLIP = 0.1  # label noise: P(Y != g*(X) | X) = 0.1 everywhere
BAYES = FLIP  # L* for a deterministic boundary with symmetric label noise
MARGIN = 1 - 2 * FLIP  # |2 eta - 1|: the excess error of a wrong decision at x
N_TEST = 50_000
BATCH = 8_192
FULL_CHECKPOINTS = [250 * 2**j for j in range(14)]  # 250 .. 2,048,000
QUICK_MAX = 16_000
N_SLOPE = 5  # the slope is fitted on the last N_SLOPE checkpoints
N_ESTIMATORS = 10
SMOOTHING = 0.5  # the package default, passed explicitly
FULL_SEEDS = [0, 1, 2, 3, 4]
QUICK_SEEDS = [0]
N_PAPER_TREES = 10  # simulated batch trees per k for the cell-balance reference

# name -> keyword arguments of PurelyRandomForestClassifier (besides n_estimators, smoothing,
# seed); max_nodes is 10**6 unless given
MODELS = {
    "n^0.5": dict(growth="consistent", growth_scale=1.0, growth_exponent=0.5),
    "n^0.5 SI": dict(growth="consistent", growth_scale=1.0, growth_exponent=0.5, split="scale_invariant"),
    "4n^0.7": dict(growth="consistent", growth_scale=4.0, growth_exponent=0.7),
    "4n^0.7 SI": dict(growth="consistent", growth_scale=4.0, growth_exponent=0.7, split="scale_invariant"),
    "growth=16 n^0.5": dict(growth=16, growth_scale=1.0, growth_exponent=0.5),
    "growth=256 n^0.5": dict(growth=256, growth_scale=1.0, growth_exponent=0.5),
    "growth=256 n^0.5 SI": dict(growth=256, growth_scale=1.0, growth_exponent=0.5, split="scale_invariant"),
    "growth=256": dict(growth=256),
    "defaults": dict(max_nodes=4095),
}
#: the models' names in the measurements' keys (file names)
KEYS = {
    "n^0.5": "n0.5", "n^0.5 SI": "n0.5-SI", "4n^0.7": "4n0.7", "4n^0.7 SI": "4n0.7-SI",
    "growth=16 n^0.5": "cuts16-n0.5", "growth=256 n^0.5": "cuts256-n0.5",
    "growth=256 n^0.5 SI": "cuts256-n0.5-SI", "growth=256": "cuts256", "defaults": "defaults",
}
CONSISTENT = ["n^0.5", "n^0.5 SI", "4n^0.7", "4n^0.7 SI"]
# the check: the n^0.5 schedule capped at 256 cuts by max_nodes against growth=256 (first seed)
CAP_CHECK = ("growth=256 n^0.5", dict(growth="consistent", growth_scale=1.0, growth_exponent=0.5,
                                    max_nodes=2 * 256 + 1))
LEGEND = """Columns: `n^0.5` = k_n = floor(n^0.5), `4n^0.7` = k_n = floor(4 n^0.7) (the
package's default schedule); `SI` = `split="scale_invariant"` (theorem 4), otherwise
`split="uniform"` (theorem 2); `growth=k n^0.5` = `growth=k, growth_scale=1, growth_exponent=0.5`:
k_n = min(k, floor(n^0.5)), the n^0.5 schedule stopped at k cuts (reached at n = k^2);
`growth=256` = `growth=256` on the default schedule, min(256, floor(4 n^0.7)) (256 cuts at
n = 381); `defaults` = the package's defaults (4 n^0.7 and `max_nodes=4095`, so 2,047 cuts,
reached at n = 7,415)."""
COLUMNS = ["x0", "x1"]

CONCLUSIONS = """\
## Conclusions

* **The consistent schedules keep improving; the fixed-k forests stall.** All four
  consistent forests improve along the whole range, 250 to 2,048,000 samples, and none
  flattens: their log-log slopes over n = 128,000..2,048,000 are -0.14 (n^0.5), -0.19 (n^0.5
  SI), -0.22 (4 n^0.7) and -0.37 (4 n^0.7 SI) (per seed: standard deviation 0.03 to 0.07;
  the slopes table gives the range). Every fixed-k forest is flat over the same range (slope
  of the mean curve between -0.003 and 0.001; per seed between -0.019 and 0.016). A fixed k
  follows the schedule up to k, k_n = min(k, floor(growth_scale n^growth_exponent)), so each
  fixed-k column is its consistent twin stopped at k cuts. `growth=256 n^0.5` is identical to
  `n^0.5` up to n = 64,000 (same seed, same cuts; its 256th cut comes at n = 65,536), then
  stops at an excess error of 3.35e-2 while `n^0.5` goes on down to 2.04e-2; `growth=256 n^0.5
  SI` leaves `n^0.5 SI` at the same point and stays at 2.43e-2 against 1.36e-2. `growth=16
  n^0.5` (16th cut at n = 256) is flat at about 6.1e-2 from n = 2,000, and the package
  defaults (`defaults`: max_nodes=4095 stops the trees at 2,047 cuts at n = 7,415) follow
  `4n^0.7` to n = 8,000, then stay at 2.3e-2 while the uncapped forest reaches 8.3e-3. This
  is what theorems 2 and 4 predict (consistency when k -> infinity and k / n -> 0, none
  promised otherwise). Nothing here contradicts them.
* **The fixed-k forests behave like the paper's fixed-k forest.** Their plateau is the
  approximation error of k + 1 random cells, and it falls with k: 6.1e-2 with 16 cuts,
  3.35e-2 to 3.68e-2 with 256 and 2.32e-2 with 2,047 (uniform split). Their cells are like
  those of the paper's batch tree with as many cuts: 7 effective cells with 16 cuts (the
  paper's tree: 7), 28 with 256 (24) and 70 with 2,047 (66). When the k cuts are made
  matters little: `growth=256` on the default schedule (all 256 cuts by n = 381) levels off at
  3.68e-2 with 25 effective cells, against 3.35e-2 and 28 cells for `growth=256 n^0.5` (cuts
  spread up to n = 65,536), a gap within the seed-to-seed spread (standard deviations 5.2e-3
  and 9.6e-3 at n = 2,048,000). The memory cap acts as a fixed k: the n^0.5 schedule stopped
  at 256 cuts by `max_nodes=513` is the same forest as `growth=256 n^0.5` (for the first seed,
  the same prediction on all 50,000 test points at every checkpoint). With the
  scale-invariant split the 256 cells are more balanced (59 effective cells, the largest
  holding 13% of the mass, against 28 and 21% with the uniform split) and the plateau is
  lower (2.43e-2 against 3.35e-2), for the reason given below.
* **Approaching the Bayes error is slow for the uniform purely random forest.** At two
  million samples `n^0.5` still errs 0.120 against L* = 0.1 (excess 2.0e-2) and `4n^0.7`
  errs 0.108. At slope -0.14, halving the excess error of `n^0.5` would take about 120 times
  more data. The theorems give no rate, and the cell-balance table shows why it is slow: a
  purely random tree picks the leaf to cut uniformly among the leaves, whatever their size,
  so it keeps a few large cells. With 1,431 cuts the online `n^0.5` tree has the mass of
  only about 66 equal cells and its largest cell holds 15% of the mass, close to the paper's
  batch tree with 1,431 cuts (57 cells, 17%; remark 3: some cells never shrink). Large cells
  that straddle the boundary cost error until the averaging over trees smooths them out. So
  the uniform online forest behaves like the paper's forest, slow convergence included.
* **The scale-invariant forest converges much faster, and it departs from the paper.**
  `4n^0.7 SI` errs 0.1013 at n = 2,048,000 (excess 1.3e-3, slope -0.37); `n^0.5 SI` is 1.5
  times better than `n^0.5`. With X uniform, the paper's two forests should be alike: both
  pick the leaf uniformly, and a uniformly random rank is nearly a uniformly random
  position. The online trees are not alike: with 104,710 cuts, the `4n^0.7 SI` tree has
  43,401 effective cells and a largest cell of 0.1% of the mass, against 506 cells and 6%
  for `4n^0.7` (and 674 and 4% for the paper's tree). The reason is in the implementation: a
  scale-invariant leaf can be cut only once its reservoir holds two distinct values, that is
  once two points have reached it since it was made. Points reach large cells first, so the
  cuts go mostly to large cells, and all the more when the schedule runs ahead of the data
  (4 n^0.7 asks for 6 cuts at n = 2). It helps accuracy here, but theorem 4's proof is
  written for the paper's uniform choice of leaf: the SI columns measure this online
  variant, not the paper's theorem-4 forest.
* **Caveats.** One distribution (d = 2, a smooth boundary, label noise 0.1), 10 trees, 5
  seeds. The slopes are fitted on 5 points of a 5-seed mean and describe this range, not an
  asymptotic rate. The excess errors at n = 2,048,000 vary across seeds (standard deviation
  6.9e-3 for `n^0.5`, 1.8e-4 for `4n^0.7 SI`, 1.1e-2 for `growth=16 n^0.5`). The error is
  computed from eta; on the noisy labels of the same test points `n^0.5` errs 0.1217 against
  0.1204 computed, within the 0.0013 standard deviation of a noisy test set.
"""


def bayes(X: np.ndarray) -> np.ndarray:
    """g*(x) = 1{x1 > 0.5 + 0.25 sin(2 pi x0)}: the Bayes classifier (eta is 0.1 or 0.9)."""
    return (X[:, 1] > 0.5 + 0.25 * np.sin(2 * np.pi * X[:, 0])).astype(np.int64)


def cell_masses(tree) -> np.ndarray:
    """P(X in cell) of every leaf of a tree for X ~ Uniform([0, 1]^2), exactly: the cells are
    intersected with the unit square level by level from the root (x <= threshold goes left)."""
    s = tree.arrays()
    left, right, feature, threshold = s["left"], s["right"], s["feature"], s["threshold"]
    lo = np.zeros((len(left), D))
    hi = np.ones((len(left), D))
    masses = []
    frontier = np.array([s["root"]], dtype=np.int64)
    while frontier.size:
        leaf = left[frontier] < 0
        masses.append(np.prod(hi[frontier[leaf]] - lo[frontier[leaf]], axis=1))
        inner = frontier[~leaf]
        f, t = feature[inner], np.clip(threshold[inner], 0.0, 1.0)
        lft, rgt = left[inner], right[inner]
        lo[lft], hi[lft], lo[rgt], hi[rgt] = lo[inner], hi[inner], lo[inner], hi[inner]
        rows = np.arange(inner.size)
        hl = hi[lft]
        hl[rows, f] = np.minimum(hl[rows, f], t)
        hi[lft] = hl
        lr = lo[rgt]
        lr[rows, f] = np.maximum(lr[rows, f], t)
        lo[rgt] = lr
        frontier = np.concatenate([lft, rgt])
    m = np.concatenate(masses)
    return np.clip(m, 0.0, None)


def balance(masses: np.ndarray) -> tuple[float, float]:
    """The effective number of cells, exp(entropy of the cell masses), and the largest mass."""
    m = masses[masses > 0] / masses.sum()
    return float(np.exp(-np.sum(m * np.log(m)))), float(m.max())


def paper_tree_masses(k: int, rng: np.random.Generator) -> np.ndarray:
    """Cell volumes of the paper's batch purely random tree with k cuts on [0, 1]^2: each cut
    picks a leaf uniformly, a coordinate uniformly and a position uniformly on its side."""
    boxes = [(0.0, 1.0, 0.0, 1.0)]
    for _ in range(k):
        i = int(rng.integers(len(boxes)))
        a0, a1, b0, b1 = boxes[i]
        boxes[i] = boxes[-1]
        boxes.pop()
        if rng.random() < 0.5:
            c = rng.uniform(a0, a1)
            boxes += [(a0, c, b0, b1), (c, a1, b0, b1)]
        else:
            c = rng.uniform(b0, b1)
            boxes += [(a0, a1, b0, c), (a0, a1, c, b1)]
    b = np.array(boxes)
    return (b[:, 1] - b[:, 0]) * (b[:, 3] - b[:, 2])


def make_model(kwargs: dict, seed: int):
    from river_forests import PurelyRandomForestClassifier

    kwargs = dict(kwargs)
    kwargs.setdefault("max_nodes", 10**6)
    kwargs.setdefault("memory_budget", None)
    return PurelyRandomForestClassifier(n_estimators=N_ESTIMATORS, smoothing=SMOOTHING, seed=seed,
                                        **kwargs)


def learn_stream(model, checkpoints: list[int], X_df: pd.DataFrame, y_s: pd.Series,
                 X_test: pd.DataFrame) -> list[np.ndarray]:
    """Learn the stream in chunks; the test predictions at every checkpoint."""
    return [model.predict_many(X_test).to_numpy().astype(np.int64)
            for _ in _common.learn_to_checkpoints(model, X_df, y_s, checkpoints, BATCH)]


def loglog_slope(ns, values) -> float:
    values = np.asarray(values, dtype=float)
    if np.any(values <= 0):
        return float("nan")
    return float(np.polyfit(np.log(ns), np.log(values), 1)[0])


def _settings(quick: bool) -> tuple[list[int], list[int]]:
    checkpoints = [n for n in FULL_CHECKPOINTS if n <= QUICK_MAX] if quick else FULL_CHECKPOINTS
    return checkpoints, QUICK_SEEDS if quick else FULL_SEEDS


def jobs(quick: bool) -> list[tuple[str, dict]]:
    """One measurement per (seed, model), and the check of the cap for the first seed."""
    checkpoints, seeds = _settings(quick)
    out = [(f"seed{seed}-{KEYS[name]}", {"kind": "model", "seed": seed, "model": name,
                                         "kwargs": kwargs, "checkpoints": checkpoints})
           for seed in seeds for name, kwargs in MODELS.items()]
    twin, capped = CAP_CHECK
    out.append((f"seed{seeds[0]}-cap-check", {"kind": "cap_check", "seed": seeds[0], "model": twin,
                                              "kwargs": MODELS[twin], "capped": capped,
                                              "checkpoints": checkpoints}))
    return out


def _test_set():
    test_rng = np.random.default_rng(12345)
    X_test_np = test_rng.random((N_TEST, D))
    star_test = bayes(X_test_np)
    y_test_noisy = np.where(test_rng.random(N_TEST) < FLIP, 1 - star_test, star_test)
    return pd.DataFrame(X_test_np, columns=COLUMNS), star_test, y_test_noisy


def _training_stream(seed: int, n_max: int):
    rng = np.random.default_rng(1_000 + seed)
    X = rng.random((n_max, D))
    y = bayes(X)
    y = np.where(rng.random(n_max) < FLIP, 1 - y, y)
    return pd.DataFrame(X, columns=COLUMNS), pd.Series(y)


def measure(params: dict) -> dict:
    """One model on the training stream of one seed: its excess error at every checkpoint;
    at the last checkpoint its cuts per tree, its error on the test points' noisy labels and
    the balance of its cells. For the check of the cap (``kind == "cap_check"``): the number
    of test points where the max_nodes-capped forest predicts differently from its fixed-k
    twin, at every checkpoint."""
    t0 = time.perf_counter()
    seed, checkpoints = params["seed"], params["checkpoints"]
    X_test, star_test, y_test_noisy = _test_set()
    X_df, y_s = _training_stream(seed, checkpoints[-1])
    model = make_model(params["kwargs"], seed)
    preds = learn_stream(model, checkpoints, X_df, y_s, X_test)
    if params["kind"] == "cap_check":
        capped = make_model(params["capped"], seed)
        capped_preds = learn_stream(capped, checkpoints, X_df, y_s, X_test)
        return {"cap_check": [int(np.sum(p != q)) for p, q in zip(capped_preds, preds)],
                "cap_check_cuts": float(capped.n_cuts / N_ESTIMATORS),
                "seconds": time.perf_counter() - t0}
    cells = [balance(cell_masses(tree)) for tree in model.trees]
    return {
        "excess": [MARGIN * float(np.mean(p != star_test)) for p in preds],
        "growth": float(model.n_cuts / N_ESTIMATORS),
        "noisy": float(np.mean(preds[-1] != y_test_noisy)),
        "cells": float(np.mean([c[0] for c in cells])),
        "largest": float(np.mean([c[1] for c in cells])),
        "seconds": time.perf_counter() - t0,
    }


def report(results: dict[str, dict], quick: bool) -> None:
    plt = _common.pyplot()
    checkpoints, seeds = _settings(quick)
    wanted = jobs(quick)
    missing = _common.missing(wanted, results)
    per_model = {name: [] for name in MODELS}
    cap = None
    for key, params in wanted:
        if key not in results:
            continue
        if params["kind"] == "cap_check":
            cap = results[key]
        else:
            per_model[params["model"]].append(results[key])
    names = [name for name in MODELS if per_model[name]]
    elapsed = _common.compute_seconds(results)

    excess = {name: np.mean([r["excess"] for r in per_model[name]], axis=0) for name in names}
    excess_sd = {name: np.std([r["excess"] for r in per_model[name]], axis=0) for name in names}
    cuts = {name: np.mean([r["cuts"] for r in per_model[name]]) for name in names}
    noisy = {name: np.mean([r["noisy"] for r in per_model[name]]) for name in names}
    cells = {name: np.mean([r["cells"] for r in per_model[name]]) for name in names}
    largest = {name: np.mean([r["largest"] for r in per_model[name]]) for name in names}

    slope_ns = checkpoints[-N_SLOPE:]
    slopes = {name: loglog_slope(slope_ns, excess[name][-N_SLOPE:]) for name in names}
    seed_slopes = {name: [loglog_slope(slope_ns, r["excess"][-N_SLOPE:]) for r in per_model[name]]
                   for name in names}

    # the paper's batch tree with the same number of cuts, for the balance of its cells
    ref_rng = np.random.default_rng(7)
    paper = {}
    for k in sorted({int(round(c)) for c in cuts.values()}):
        b = [balance(paper_tree_masses(k, ref_rng)) for _ in range(N_PAPER_TREES)]
        paper[k] = (np.mean([x[0] for x in b]), np.mean([x[1] for x in b]))

    lines = [
        "# Purely random forest: error vs n (Biau, Devroye & Lugosi 2008, theorems 2 and 4)",
        "",
        "Claim: the purely random forest classifier (theorem 2) and its scale-invariant variant "
        "(theorem 4) are consistent, L(g_n) -> L*, when the number of cuts k of each tree "
        "satisfies k -> infinity and k / n -> 0; with a fixed k the error stops falling. The "
        "theorems give no rate.",
        "",
        f"Setup: X ~ Uniform([0, 1]^{D}), Y = 1{{x1 > 0.5 + 0.25 sin(2 pi x0)}} flipped with "
        f"probability {FLIP}: **Bayes error L* = {BAYES}** exactly. PurelyRandomForestClassifier "
        f"with n_estimators = {N_ESTIMATORS}, smoothing = {SMOOTHING}, max_nodes = 10**6 (except "
        f"`defaults`), learned in chunks of {BATCH:,} (`learn_many`), mean over {len(seeds)} "
        f"seed(s){' (quick run)' if quick else ''}. The error of a model is computed from eta on "
        f"{N_TEST:,} fixed test points: L(g_n) = L* + {MARGIN:.1f} P(g_n(X) != g*(X)).",
        "",
        _common.version_line(),
        "",
        LEGEND.replace("\n", " "),
        "",
    ]
    if missing:
        lines += [_common.missing_line(missing), ""]
    lines += ["## Excess error L(g_n) - L*", ""]
    lines += _common.markdown_table(
        ["n", *names],
        [[f"{n:,}", *(f"{excess[name][i]:.2e}" for name in names)] for i, n in enumerate(checkpoints)],
    )
    lines += [
        "",
        f"Standard deviation over the seeds at n = {checkpoints[-1]:,}: "
        + ", ".join(f"{name} {excess_sd[name][-1]:.1e}" for name in names) + ".",
        "",
        f"## Error L(g_n) (Bayes error {BAYES})",
        "",
    ]
    lines += _common.markdown_table(
        ["n", *names],
        [[f"{n:,}", *(f"{BAYES + excess[name][i]:.4f}" for name in names)]
         for i, n in enumerate(checkpoints)],
    )
    lines += [
        "",
        "## Slopes",
        "",
        f"Least-squares slope of log(excess error) against log(n) over the last {len(slope_ns)} "
        f"checkpoints (n = {slope_ns[0]:,} to {slope_ns[-1]:,}); the theorems give no rate, "
        "only that the consistent forests' excess error tends to 0 (a fixed k: no such "
        "guarantee, expected slope ~0). Slope of the mean curve, and mean and standard "
        f"deviation of the slopes of the seeds' curves. Cuts per tree at n = {checkpoints[-1]:,} "
        "(mean over trees and seeds).",
        "",
    ]
    lines += _common.markdown_table(
        ["model", "slope of the mean", "slope per seed: mean (sd)", "per seed: min, max",
         "cuts per tree", "excess error at n_max"],
        [[name, f"{slopes[name]:.3f}",
          f"{np.mean(seed_slopes[name]):.3f} ({np.std(seed_slopes[name]):.3f})",
          f"{min(seed_slopes[name]):.3f}, {max(seed_slopes[name]):.3f}",
          f"{cuts[name]:,.0f}", f"{excess[name][-1]:.2e}"] for name in names],
    )
    lines += [
        "",
        "## Balance of the cells",
        "",
        f"At n = {checkpoints[-1]:,}, the probability mass P(X in cell) of every leaf of every "
        "tree, computed exactly from the trees' thresholds (`model.trees`, `tree.arrays()`), "
        "summarised by the effective number of cells exp(entropy of the masses) (k + 1 for "
        "k + 1 equal cells) and the mass of the largest cell, mean over trees and seeds. "
        "The last two columns are the paper's batch purely random tree with the same number "
        f"of cuts on [0, 1]^2 (a leaf picked uniformly, {N_PAPER_TREES} simulated trees).",
        "",
    ]
    lines += _common.markdown_table(
        ["model", "cuts per tree", "effective cells", "largest cell", "paper: effective cells",
         "paper: largest cell"],
        [[name, f"{cuts[name]:,.0f}", f"{cells[name]:,.0f}", f"{largest[name]:.3f}",
          f"{paper[int(round(cuts[name]))][0]:,.0f}", f"{paper[int(round(cuts[name]))][1]:.3f}"]
         for name in names],
    )
    check = names[0]
    lines += [
        "",
        f"Check: at n = {checkpoints[-1]:,}, `{check}` errs on {noisy[check]:.4f} of the test "
        f"points' noisy labels, against L(g_n) = {BAYES + excess[check][-1]:.4f} computed from eta "
        f"(a noisy test set of {N_TEST:,} points has a standard deviation of about "
        f"{np.sqrt(BAYES * (1 - BAYES) / N_TEST):.4f}).",
        "",
    ]
    if cap is not None:
        worst = max(cap["cap_check"])
        lines += [
            f"Check of the cap: for seed {seeds[0]}, the n^0.5 schedule capped by "
            f"`max_nodes={CAP_CHECK[1]['max_nodes']}` ({cap['cap_check_cuts']:,.0f} cuts per "
            f"tree at the end) predicts differently from `{CAP_CHECK[0]}` on "
            f"{worst} of the {N_TEST:,} test points at worst over the "
            f"{len(checkpoints)} checkpoints"
            + (" (the same forest)." if worst == 0 else f" (per checkpoint: {cap['cap_check']})."),
            "",
        ]
    lines += [f"Compute time: {elapsed:.0f} s (sum over the {len(results)} measurements)."]
    if not quick:
        lines += ["", CONCLUSIONS.rstrip()]
    md_path, png_path = _common.outputs(NAME, quick)
    md_path.write_text("\n".join(lines) + "\n")

    fig, (ax_err, ax_ex) = plt.subplots(1, 2, figsize=(13, 5.5))
    ns = np.array(checkpoints, dtype=float)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, name in enumerate(names):
        style = "-" if name in CONSISTENT else "--"
        kw = dict(color=colors[i % len(colors)], linestyle=style, marker="o", markersize=3)
        ax_err.semilogx(ns, BAYES + excess[name], label=name, **kw)
        ax_ex.loglog(ns, excess[name], label=f"{name} (slope {slopes[name]:.2f})", **kw)
    ax_err.axhline(BAYES, color="k", linewidth=1.5, label=f"Bayes error L* = {BAYES}")
    _common.label_axes(ax_err, "n (training samples)", "error L(g_n)",
                       "error (solid: consistent k_n, dashed: fixed k)")
    _common.label_axes(ax_ex, "n (training samples)", "excess error L(g_n) - L*",
                       f"excess error, slopes fitted on n >= {slope_ns[0]:,}")
    for ax in (ax_err, ax_ex):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    _common.save_figure(fig, png_path, f"Purely random forest classifier ({N_ESTIMATORS} trees), "
                        f"d={D}, label noise {FLIP}: mean over {len(seeds)} seed(s)", dpi=120)
    print(f"wrote {md_path} and {png_path}")
