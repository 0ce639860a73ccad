"""Advantage of a forest: denil2013's section 5.1 (figure 2) for the stream-partitioning forest.

What it shows
-------------
Denil, Matheson & de Freitas (ICML 2013), section 5.1: on "a synthetic five class mixture of
Gaussians problem with significant class overlap and variation in prior weights" the
accuracy of their online forest (100 trees, lambda = 1, m = 10, tau = 0.001,
alpha(d) = 1.1^d, beta(d) = 1000 alpha(d)) approaches the Bayes accuracy and "consistently
dominates the expected accuracy of the trees" (figure 2: accuracy against the number of
training points, forest and mean tree, one standard deviation over 10 runs shaded, the Bayes
accuracy as a horizontal line). This experiment repeats it for
``river_forests.StreamPartitionForestClassifier``:

* The mixture (``PRIORS``, ``MEANS``, ``COVS`` below, also written into the output): five
  2-D Gaussians with unequal priors (0.30 to 0.10) and overlapping, differently shaped
  covariances. Samples are drawn with numpy from fixed seeds.
* The Bayes rule is argmax_k prior_k N(x; mu_k, Sigma_k); its accuracy E[max_k P(k | x)] is
  estimated from the exact posteriors on 200,000 fresh points (Monte Carlo standard error
  reported; the measurement ``bayes``). For reference the Bayes rule's accuracy on the test
  set's labels is given too.
* Each seed s draws its own training stream of 100,000 points and seeds its forests with s
  (3 seeds). Every forest learns the stream online, with ``learn_many`` on the consecutive
  chunks between checkpoints (exactly a ``learn_one`` loop for this estimator; checked below
  on a short stream). At n = 500, 1k, 2k, 5k, 10k, 20k, 40k, 60k and 100k it predicts a fixed
  test set of 10,000 points: the forest's accuracy, and the accuracy of each of its trees
  alone, averaged over the trees (the "expected accuracy of the trees" of figure 2). One
  measurement is one (seed, setting) pair.
* A single tree's prediction: the forest's per-tree predictions (``_predict_trees_batch``,
  each tree's own ``predict`` in one compiled loop). Checks (the measurement ``checks``, and
  inside every (seed, setting) measurement): a forest of ``n_estimators=1`` predicts the same
  probabilities as its one tree, a ``learn_one`` loop gives the probabilities of one
  ``learn_many`` call, and at every checkpoint the forest's probabilities are the aggregation
  (mean, or vote shares) of its trees'.
* Settings (``SETTINGS``):

  - ``defaults, 10 trees``: every parameter at the estimator's default, read from the class
    signature at run time (the recorded values are in the output);
  - ``paper, 10 trees`` and ``paper, 100 trees``: section 5.1's parameters,
    max_features = 2 (lambda = 1), candidate_points = 10 (m), min_gain = 0.001 (tau),
    alpha = 1 and alpha_growth = 1.1 (alpha(d) = 1.1^d), beta = 1000 (beta(d) =
    1000 alpha(d)), with smoothing = 0 (the paper's leaf estimate), aggregation = "vote"
    (proposition 2's voting classifier), an unbounded fringe (max_active_leaves = 2**30) and
    max_nodes = 2**20 - 1 (the paper has no caps); structure_fraction stays at the default
    one half (the paper's code).

* The targets, stated as MET / NOT MET in the output: with 10 trees, the forest's mean
  accuracy at n = 60,000 is within 3 points of the Bayes accuracy (each 10-tree setting);
  and the forest's accuracy dominates the mean accuracy of its trees (every setting,
  checkpoint and seed).

Usage
-----
From the repository root::

    python -m benchmarks experiment denil_mixture           # 3 seeds: about half a minute of compute
    python -m benchmarks experiment denil_mixture --quick   # checkpoints up to 10,000, 1 seed: seconds

Writes ``benchmarks/results/experiments/denil_mixture.md`` (tables, the mixture's parameters,
checks, compute time, the targets' verdict) and ``denil_mixture.png`` (accuracy against n in
the style of the paper's figure 2, and a scatter of the mixture); ``--quick`` writes
``denil_mixture_quick.{md,png}``. Expect every target MET: the 10-tree forests within about
half a point of the Bayes accuracy (0.841) at n = 60,000, and the forest above its mean tree
at every checkpoint (by about 10 points at n = 500, 1 to 2 points at n = 100,000).
"""

from __future__ import annotations

import inspect
import time

import numpy as np
import pandas as pd

from river_forests import StreamPartitionForestClassifier

from benchmarks.experiments import _common

NAME = "denil_mixture"

# ---------------------------------------------------------------------------- the mixture

N_CLASSES = 5
PRIORS = np.array([0.30, 0.25, 0.20, 0.15, 0.10])
MEANS = np.array([[0.0, 0.0], [2.1, 0.5], [0.6, 2.2], [-1.6, 1.6], [1.8, -2.0]])
COVS = np.array([
    [[1.0, 0.3], [0.3, 0.6]],
    [[0.5, -0.2], [-0.2, 0.8]],
    [[0.7, 0.25], [0.25, 0.5]],
    [[0.4, 0.0], [0.0, 0.9]],
    [[0.6, 0.2], [0.2, 0.4]],
])
COLUMNS = ["x0", "x1"]

# ---------------------------------------------------------------------------- the experiment

FULL_CHECKPOINTS = [500, 1_000, 2_000, 5_000, 10_000, 20_000, 40_000, 60_000, 100_000]
QUICK_MAX = 10_000
TARGET_N = 60_000          # the accuracy target is read at this checkpoint
TARGET_GAP = 0.03          # ... and must be within this of the Bayes accuracy
N_TEST = 10_000
N_BAYES = 200_000          # Monte Carlo sample for the Bayes accuracy
N_BAYES_QUICK = 50_000
N_SCATTER = 5_000
FULL_SEEDS = [0, 1, 2]     # stream seed base + s and forest seed s
QUICK_SEEDS = [0]
STREAM_SEED_BASE = 1_000
TEST_SEED = 7
BAYES_SEED = 2013
CHECK_SEED = 99            # the checks' short training stream (3,000 points)

PAPER = dict(
    max_features=2.0,          # lambda = max_features - 1 = 1
    candidate_points=10,       # m = 10
    min_gain=0.001,            # tau = 0.001
    alpha=1.0,                 # alpha(d) = 1.1^d
    alpha_growth=1.1,
    beta=1000.0,               # beta(d) = 1000 alpha(d)
    smoothing=0.0,             # the paper's leaf estimate
    aggregation="vote",        # the voting classifier of proposition 2
    max_active_leaves=2**30,   # unbounded fringe
    max_nodes=2**20 - 1,       # no node cap in the paper
    memory_budget=None,
)


def estimator_defaults() -> dict:
    """The estimator's defaults, read from its signature (all but n_estimators and seed)."""
    sig = inspect.signature(StreamPartitionForestClassifier.__init__)
    return {name: p.default for name, p in sig.parameters.items()
            if name not in ("self", "n_estimators", "seed")}


# name -> (n_estimators, keyword arguments, counts for the 10-tree accuracy target, key slug)
SETTINGS = {
    "defaults, 10 trees": (10, estimator_defaults(), True, "defaults-10trees"),
    "paper, 10 trees": (10, PAPER, True, "paper-10trees"),
    "paper, 100 trees": (100, PAPER, False, "paper-100trees"),
}


def sample(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """n points of the mixture: (X of shape (n, 2), class labels 0..4)."""
    y = rng.choice(N_CLASSES, size=n, p=PRIORS)
    chol = np.linalg.cholesky(COVS)
    z = rng.standard_normal((n, 2))
    return MEANS[y] + np.einsum("nij,nj->ni", chol[y], z), y


def posteriors(X: np.ndarray) -> np.ndarray:
    """P(k | x) for every row of X, from the known densities (log-sum-exp)."""
    logp = np.empty((len(X), N_CLASSES))
    for k in range(N_CLASSES):
        inv = np.linalg.inv(COVS[k])
        d = X - MEANS[k]
        maha = np.einsum("ni,ij,nj->n", d, inv, d)
        logp[:, k] = (np.log(PRIORS[k]) - 0.5 * np.log(np.linalg.det(2 * np.pi * COVS[k]))
                      - 0.5 * maha)
    logp -= logp.max(axis=1, keepdims=True)
    p = np.exp(logp)
    return p / p.sum(axis=1, keepdims=True)


def test_set() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The fixed test set: X, labels and the exact posteriors."""
    X_test, y_test = sample(np.random.default_rng(TEST_SEED), N_TEST)
    return X_test, y_test, posteriors(X_test)


# ---------------------------------------------------------------------------- one tree alone

def tree_probas(model, values: np.ndarray) -> tuple[np.ndarray, list]:
    """(n_trees, n_rows, n_classes) class probabilities of each tree alone, and the labels:
    the forest's per-tree predictions (`_predict_trees_batch`, one compiled loop per tree)."""
    return model._predict_trees_batch(pd.DataFrame(values, columns=COLUMNS))


def to_labels(proba: np.ndarray, labels: list) -> np.ndarray:
    """Predicted labels (first maximum, as the forest breaks ties)."""
    return np.asarray(labels)[proba.argmax(axis=-1)]


def tree_depths(tree) -> np.ndarray:
    """Depths of a tree's leaves (the root at depth 0); nodes are stored parents first."""
    arrays = tree.arrays()
    parent, left = np.asarray(arrays["parent"]), np.asarray(arrays["left"])
    depth = np.zeros(len(parent), dtype=np.int64)
    for j in range(len(parent)):
        if parent[j] >= 0:
            depth[j] = depth[parent[j]] + 1
    return depth[left < 0]


# ---------------------------------------------------------------------------- checks

def check_one_tree(X: np.ndarray, y: np.ndarray, X_test: np.ndarray) -> int:
    """With n_estimators=1 the forest and its one-tree core must agree: the largest number
    of test points (over the settings) where their probabilities differ (0 expected)."""
    worst = 0
    for n_est, kwargs, _, _ in SETTINGS.values():
        model = StreamPartitionForestClassifier(**dict(kwargs, n_estimators=1, seed=0))
        model.learn_many(pd.DataFrame(X, columns=COLUMNS), pd.Series(y))
        forest = model.predict_proba_many(pd.DataFrame(X_test, columns=COLUMNS)).to_numpy()
        alone = tree_probas(model, X_test)[0][0]
        if model.aggregation == "vote":  # one tree's vote: all of it on its best class
            alone = np.eye(alone.shape[1])[alone.argmax(axis=1)]
        worst = max(worst, int(np.sum(np.any(forest != alone, axis=1))))
    return worst


def check_learn_one(X: np.ndarray, y: np.ndarray, X_test: np.ndarray) -> int:
    """`learn_one` loop vs one `learn_many` call (paper settings, 3 trees): the number of
    test points whose probabilities differ (0 expected)."""
    a = StreamPartitionForestClassifier(**dict(PAPER, n_estimators=3, seed=0))
    b = StreamPartitionForestClassifier(**dict(PAPER, n_estimators=3, seed=0))
    for row, label in zip(X, y):
        a.learn_one({"x0": float(row[0]), "x1": float(row[1])}, int(label))
    b.learn_many(pd.DataFrame(X, columns=COLUMNS), pd.Series(y))
    test = pd.DataFrame(X_test, columns=COLUMNS)
    pa = a.predict_proba_many(test)
    pb = b.predict_proba_many(test)[pa.columns]
    return int(np.sum(np.any(pa.to_numpy() != pb.to_numpy(), axis=1)))


# ---------------------------------------------------------------------------- the measurements

def _measure_bayes(n_bayes: int) -> dict:
    """The Bayes accuracy, from the exact posteriors of fresh points, and on the test set."""
    X_b, y_b = sample(np.random.default_rng(BAYES_SEED), n_bayes)
    post_b = posteriors(X_b)
    top = post_b.max(axis=1)
    _, y_test, post_test = test_set()
    return {
        "n_bayes": n_bayes,
        "bayes": float(top.mean()),
        "bayes_se": float(top.std(ddof=1) / np.sqrt(n_bayes)),
        "bayes_labels": float(np.mean(post_b.argmax(axis=1) == y_b)),
        "bayes_share": [float(v) for v in np.bincount(post_b.argmax(axis=1), minlength=N_CLASSES) / n_bayes],
        "bayes_test": float(np.mean(post_test.argmax(axis=1) == y_test)),
        "bayes_test_post": float(post_test.max(axis=1).mean()),
    }


def _measure_checks() -> dict:
    """The machinery's checks on a short stream (3,000 points)."""
    X_test, _, _ = test_set()
    X_c, y_c = sample(np.random.default_rng(CHECK_SEED), 3_000)
    return {"one_tree_diff": check_one_tree(X_c, y_c, X_test[:2_000]),
            "learn_one_diff": check_learn_one(X_c[:2_000], y_c[:2_000], X_test[:2_000])}


def _measure_run(setting: str, seed: int, checkpoints: list[int]) -> dict:
    """One setting on seed `seed`'s stream: per checkpoint the forest's accuracy (test labels,
    and expected accuracy from the posteriors), the mean and spread of its trees' accuracies,
    the worst mismatch between the forest and the aggregation of its trees, tree sizes at the
    end, and the time spent learning and predicting."""
    X_test, y_test, post_test = test_set()
    X, y = sample(np.random.default_rng(STREAM_SEED_BASE + seed), checkpoints[-1])
    X_df = pd.DataFrame(X, columns=COLUMNS)
    y_s = pd.Series(y)
    test_df = pd.DataFrame(X_test, columns=COLUMNS)
    n_est, kwargs, _, _ = SETTINGS[setting]
    model = StreamPartitionForestClassifier(**dict(kwargs, n_estimators=n_est, seed=seed))
    rec = {"forest": [], "forest_post": [], "tree": [], "tree_min": [], "tree_max": [],
           "mismatch": 0, "learn_s": 0.0, "predict_s": 0.0}
    prev = 0
    for n in checkpoints:
        t0 = time.perf_counter()
        model.learn_many(X_df.iloc[prev:n], y_s.iloc[prev:n])
        rec["learn_s"] += time.perf_counter() - t0
        prev = n
        t0 = time.perf_counter()
        proba_df = model.predict_proba_many(test_df)
        trees, labels = tree_probas(model, X_test)
        rec["predict_s"] += time.perf_counter() - t0
        # the forest's probabilities are the aggregation of its trees' (same label order)
        proba = proba_df[labels].to_numpy()
        if model._core.vote:
            agg = np.eye(len(labels))[trees.argmax(axis=-1)].mean(axis=0)
        else:
            agg = trees.mean(axis=0)
        rec["mismatch"] = max(rec["mismatch"],
                              int(np.sum(~np.all(np.isclose(agg, proba, rtol=0, atol=1e-12),
                                                 axis=1))))
        pred = to_labels(proba, labels).astype(int)
        rec["forest"].append(float(np.mean(pred == y_test)))
        rec["forest_post"].append(float(np.mean(post_test[np.arange(len(pred)), pred])))
        tree_acc = np.mean(to_labels(trees, labels).astype(int) == y_test[None, :], axis=1)
        rec["tree"].append(float(tree_acc.mean()))
        rec["tree_min"].append(float(tree_acc.min()))
        rec["tree_max"].append(float(tree_acc.max()))
    trees_ = model._core.trees
    depths = [tree_depths(t) for t in trees_]
    rec["nodes"] = float(np.mean([t.node_count for t in trees_]))
    rec["depth_mean"] = float(np.mean([d.mean() for d in depths]))
    rec["depth_max"] = float(np.mean([d.max() for d in depths]))
    rec["active"] = float(np.mean([t.active_leaves for t in trees_]))
    rec["model_params"] = _plain(dict(kwargs, n_estimators=n_est))
    return rec


def _plain(params: dict) -> dict:
    """`params` with every value JSON-serialisable (others as their repr)."""
    return {k: (val if isinstance(val, (int, float, str, bool, type(None))) else repr(val))
            for k, val in params.items()}


def _plan(quick: bool) -> tuple[list[int], list[int], int]:
    checkpoints = [n for n in FULL_CHECKPOINTS if n <= QUICK_MAX] if quick else FULL_CHECKPOINTS
    return checkpoints, (QUICK_SEEDS if quick else FULL_SEEDS), (N_BAYES_QUICK if quick else N_BAYES)


def _run_key(setting: str, seed: int) -> str:
    return f"seed{seed}_{SETTINGS[setting][3]}"


def jobs(quick: bool) -> list[tuple[str, dict]]:
    checkpoints, seeds, n_bayes = _plan(quick)
    out = [("bayes", {"kind": "bayes", "n_bayes": n_bayes}), ("checks", {"kind": "checks"})]
    # the longest first (100 trees)
    for setting in sorted(SETTINGS, key=lambda s: -SETTINGS[s][0]):
        for seed in seeds:
            out.append((_run_key(setting, seed), {"kind": "run", "setting": setting, "seed": seed,
                                                  "checkpoints": list(checkpoints)}))
    return out


def measure(params: dict) -> dict:
    t0 = time.perf_counter()
    if params["kind"] == "bayes":
        result = _measure_bayes(params["n_bayes"])
    elif params["kind"] == "checks":
        result = _measure_checks()
    else:
        result = _measure_run(params["setting"], params["seed"], params["checkpoints"])
    result["seconds"] = time.perf_counter() - t0
    return result


# ---------------------------------------------------------------------------- the report

def fmt(values: np.ndarray) -> str:
    return f"{np.mean(values):.4f} ± {np.std(values):.4f}"


def report(results: dict[str, dict], quick: bool) -> None:
    from matplotlib.colors import ListedColormap

    plt = _common.pyplot()
    version_line = _common.version_line()
    checkpoints, seeds, n_bayes = _plan(quick)
    target_n = TARGET_N if TARGET_N in checkpoints else checkpoints[-1]
    t_i = checkpoints.index(target_n)
    missing = _common.missing(jobs(quick), results)
    title = "# Advantage of a forest: denil2013 section 5.1 (figure 2), StreamPartitionForestClassifier"
    md_path, png_path = _common.outputs(NAME, quick)
    if "bayes" not in results:
        md_path.write_text("\n".join([title + (" (quick)" if quick else ""), "",
                                      f"Incomplete: missing measurements {', '.join(missing)}; "
                                      "rerun the experiment.", "", version_line]) + "\n")
        return
    b = results["bayes"]
    bayes = b["bayes"]
    checks = results.get("checks")

    # per setting, the seeds measured: {setting: [result, ...]}
    runs = {name: [results[_run_key(name, s)] for s in seeds if _run_key(name, s) in results]
            for name in SETTINGS}
    names = [name for name in SETTINGS if runs[name]]

    def stack(name, key):
        return np.array([r[key] for r in runs[name]])  # (seeds, checkpoints) or (seeds,)

    # the defaults as recorded by the measurement (else as read now)
    recorded = runs["defaults, 10 trees"]
    defaults = dict(recorded[0]["model_params"]) if recorded else _plain(estimator_defaults())
    defaults.pop("n_estimators", None)
    order = list(estimator_defaults())  # the signature's order (the store sorts the keys)
    defaults = dict(sorted(defaults.items(),
                           key=lambda kv: order.index(kv[0]) if kv[0] in order else len(order)))
    compute_s = _common.compute_seconds(results)

    lines = [
        title + (" (quick)" if quick else ""),
        "",
        "Denil, Matheson & de Freitas (ICML 2013), section 5.1 / figure 2: on a five-class "
        "Gaussian mixture with significant class overlap and unequal priors, the online forest's "
        "accuracy approaches the Bayes accuracy and consistently dominates the expected accuracy "
        "of its trees. Here for `StreamPartitionForestClassifier`: a five-class 2-D Gaussian "
        "mixture with overlapping classes and unequal priors. Each "
        f"forest learns a stream of {checkpoints[-1]:,} points online (`learn_many` on the chunks "
        "between checkpoints, identical to a `learn_one` loop) and is tested at every checkpoint "
        f"on the same {N_TEST:,} held-out points: the forest's accuracy and the mean accuracy of "
        "its trees, each tree predicting alone. Mean ± standard deviation over "
        f"{len(seeds)} seed(s) (seed s: training stream drawn with numpy seed "
        f"{STREAM_SEED_BASE} + s, forest seed s)" + (" (quick run)" if quick else "") + ". "
        f"Run with `python -m benchmarks experiment {NAME}" + (" --quick" if quick else "") + "`.",
        "",
        version_line + ".",
        "",
    ]
    if missing:
        lines += [f"**Incomplete: missing measurements {', '.join(missing)}** (rerun the "
                  "experiment; the tables below use what was measured).", ""]
    lines += ["## The mixture", ""]
    lines += _common.markdown_table(
        ["class", "prior", "mean", "covariance", "share of the Bayes rule's decisions"],
        [[k, f"{PRIORS[k]:.2f}", f"({MEANS[k][0]:g}, {MEANS[k][1]:g})",
          f"[[{COVS[k][0][0]:g}, {COVS[k][0][1]:g}], [{COVS[k][1][0]:g}, {COVS[k][1][1]:g}]]",
          f"{b['bayes_share'][k]:.3f}"] for k in range(N_CLASSES)],
    )
    lines += [
        "",
        f"**Bayes accuracy E[max_k P(k | X)] = {bayes:.4f}** (Monte Carlo over {b['n_bayes']:,} "
        f"points drawn with seed {BAYES_SEED}, standard error {b['bayes_se']:.4f}; the Bayes rule "
        f"argmax_k prior_k N(x; mu_k, Sigma_k) is right on {b['bayes_labels']:.4f} of those "
        f"points' labels). On the {N_TEST:,}-point test set (seed {TEST_SEED}) the Bayes rule is "
        f"right on {b['bayes_test']:.4f} of the labels, and E[max_k P(k | x)] over its points is "
        f"{b['bayes_test_post']:.4f}: a {N_TEST:,}-point test set has a standard deviation of "
        f"about {np.sqrt(bayes * (1 - bayes) / N_TEST):.4f} on an accuracy.",
        "",
        "## Settings",
        "",
        "- `defaults, 10 trees`: n_estimators=10, the estimator's defaults read from its "
        "signature: " + ", ".join(f"{k}={val!r}" for k, val in defaults.items()) + ".",
        "- `paper, 10 trees` / `paper, 100 trees`: section 5.1's parameters: "
        + ", ".join(f"{k}={val!r}" for k, val in PAPER.items())
        + "; the others at their defaults (structure_fraction="
        f"{defaults.get('structure_fraction')!r}, features_per_tree="
        f"{defaults.get('features_per_tree')!r}).",
        "",
    ]
    for name in names:
        forest, forest_post, tree = (stack(name, "forest"), stack(name, "forest_post"),
                                     stack(name, "tree"))
        tmin, tmax = stack(name, "tree_min"), stack(name, "tree_max")
        lines += [f"## {name}", ""]
        lines += _common.markdown_table(
            ["n", "forest accuracy", "mean tree accuracy", "forest - mean tree",
             "worst / best tree", "forest, from P(k|x)", "Bayes"],
            [[f"{n:,}", fmt(forest[:, i]), fmt(tree[:, i]),
              f"{np.mean(forest[:, i] - tree[:, i]):+.4f}",
              f"{np.mean(tmin[:, i]):.4f} / {np.mean(tmax[:, i]):.4f}", fmt(forest_post[:, i]),
              f"{bayes:.4f}"] for i, n in enumerate(checkpoints)],
        )
        learn_s = np.mean(stack(name, "learn_s"))
        lines += [
            "",
            f"At n = {checkpoints[-1]:,}: {np.mean(stack(name, 'nodes')):,.0f} nodes per tree, "
            f"leaf depth {np.mean(stack(name, 'depth_mean')):.1f} on average "
            f"(deepest {np.mean(stack(name, 'depth_max')):.0f}), "
            f"{np.mean(stack(name, 'active')):,.0f} leaves in the fringe per tree; learning took "
            f"{learn_s:.1f} s per seed "
            f"({checkpoints[-1] / max(learn_s, 1e-9):,.0f} samples/s with "
            f"`learn_many`), predicting the forest and every tree alone at "
            f"{len(checkpoints)} checkpoints {np.mean(stack(name, 'predict_s')):.1f} s.",
            "",
        ]

    lines += [
        "## Columns and checks",
        "",
        "`forest accuracy` and `mean tree accuracy`: on the test set's labels; `worst / best "
        "tree`: the worst and best single tree of the forest (mean over seeds); `forest, from "
        "P(k|x)`: the forest's expected accuracy mean_x P(forest(x) | x) over the test points, "
        "computed from the exact posteriors (no label noise, directly comparable with the Bayes "
        "accuracy E[max_k P(k | X)]).",
        "",
    ]
    if checks is not None:
        lines += [
            f"- A forest of `n_estimators=1` and its one tree (`_predict_trees_batch`) give "
            f"different probabilities on {checks['one_tree_diff']} of 2,000 test points (each "
            "setting, 3,000 training points).",
            f"- A `learn_one` loop and one `learn_many` call (paper settings, 3 trees, 2,000 "
            f"points) give different probabilities on {checks['learn_one_diff']} of 2,000 test "
            "points.",
        ]
    else:
        lines.append("- The measurement `checks` (n_estimators=1 vs its tree, learn_one vs "
                     "learn_many) is missing.")
    lines += [
        "- At every checkpoint the forest's probabilities differ from the aggregation of its "
        "trees' one-tree probabilities (vote shares, or their mean for `average`) on "
        + ", ".join(f"{max(r['mismatch'] for r in runs[n])} ({n})" for n in names)
        + f" of the {N_TEST:,} test points at worst.",
        "",
        "## Targets",
        "",
    ]
    verdicts = []
    for name in names:
        _, _, counts, _ = SETTINGS[name]
        forest = stack(name, "forest")
        gap = bayes - forest[:, t_i].mean()
        met = gap <= TARGET_GAP
        if counts:
            verdicts.append(met)
        lines.append(
            f"- Accuracy within {100 * TARGET_GAP:.0f} points of the Bayes accuracy at "
            f"n = {target_n:,}, `{name}`: forest {forest[:, t_i].mean():.4f} ± "
            f"{forest[:, t_i].std():.4f} against Bayes {bayes:.4f}, "
            f"gap {100 * gap:+.2f} points (from the posteriors: "
            f"{100 * (bayes - stack(name, 'forest_post')[:, t_i].mean()):+.2f}; worst seed "
            f"{100 * (bayes - forest[:, t_i].min()):+.2f}): **{'MET' if met else 'NOT MET'}**"
            + ("" if counts else " (not part of the target: 100 trees)") + ".")
    dom_lines, dom_ok = [], True
    for name in names:
        forest, tree = stack(name, "forest"), stack(name, "tree")
        mean_ok = int(np.sum(forest.mean(axis=0) > tree.mean(axis=0)))
        seed_ok = int(np.sum(forest > tree))
        dom_ok &= seed_ok == forest.size
        dom_lines.append(
            f"`{name}` {mean_ok}/{len(checkpoints)} checkpoints (mean over seeds), "
            f"{seed_ok}/{forest.size} (checkpoint, seed) pairs, margin "
            f"{100 * np.min(forest - tree):+.2f} to {100 * np.max(forest - tree):+.2f} points")
    lines.append("- The forest's accuracy dominates the mean accuracy of its trees: "
                 + "; ".join(dom_lines) + f": **{'MET' if dom_ok else 'NOT MET'}**.")
    all_met = bool(verdicts) and all(verdicts)
    lines += [
        "",
        f"**Verdict: 10 trees within {100 * TARGET_GAP:.0f} points of the Bayes accuracy at "
        f"n = {target_n:,}: {'MET' if all_met else 'NOT MET'} "
        f"({sum(verdicts)}/{len(verdicts)} 10-tree settings); forest dominates the mean tree: "
        f"{'MET' if dom_ok else 'NOT MET'}.**"
        + (" (quick run: the accuracy target is read at the last checkpoint, "
           f"n = {target_n:,}.)" if quick and target_n != TARGET_N else ""),
        "",
        f"![forest and mean tree accuracy against n; the mixture]({png_path.name})",
        "",
        f"Compute time: {compute_s:.0f} s summed over the {len(results)} measurements "
        f"({len(seeds)} seed(s) x {len(SETTINGS)} settings, the Bayes accuracy and the checks).",
    ]

    # ------------------------------------------------------------------------ the plot
    fig, (ax, ax_mix) = plt.subplots(1, 2, figsize=(14, 5.8),
                                     gridspec_kw={"width_ratios": [1.6, 1]})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    ns = np.array(checkpoints, dtype=float)
    for i, name in enumerate(names):
        c = colors[i % len(colors)]
        for key, style, label in (("forest", "-", "forest"), ("tree", "--", "mean tree")):
            vals = stack(name, key)
            m, s = vals.mean(axis=0), vals.std(axis=0)
            ax.semilogx(ns, m, style, color=c, marker="o", markersize=3, label=f"{name}: {label}")
            ax.fill_between(ns, m - s, m + s, color=c, alpha=0.15, linewidth=0)
    ax.axhline(bayes, color="k", linewidth=1.5, label=f"Bayes accuracy {bayes:.3f}")
    ax.axvline(target_n, color="grey", linewidth=0.8, linestyle=":")
    _common.label_axes(ax, "n (training points)", f"accuracy on {N_TEST:,} test points",
                       f"forest (solid) and mean tree (dashed), ±1 sd over {len(seeds)} seed(s)",
                       grid=dict(visible=True, which="both", alpha=0.3),
                       legend=dict(fontsize=8, loc="lower right"))

    X_test, y_test, _ = test_set()
    g0 = np.linspace(-4.5, 5.0, 300)
    g1 = np.linspace(-5.0, 5.0, 300)
    G0, G1 = np.meshgrid(g0, g1)
    regions = posteriors(np.column_stack([G0.ravel(), G1.ravel()])).argmax(axis=1).reshape(G0.shape)
    cmap = ListedColormap(colors[:N_CLASSES])
    ax_mix.contourf(G0, G1, regions, levels=np.arange(N_CLASSES + 1) - 0.5, cmap=cmap, alpha=0.15)
    ax_mix.scatter(X_test[:N_SCATTER, 0], X_test[:N_SCATTER, 1], c=y_test[:N_SCATTER], cmap=cmap,
                   vmin=-0.5, vmax=N_CLASSES - 0.5, s=3, alpha=0.6)
    for k in range(N_CLASSES):
        ax_mix.plot([], [], "o", color=colors[k], label=f"class {k} (prior {PRIORS[k]:.2f})")
    ax_mix.legend(fontsize=7, loc="upper right", markerscale=1)
    ax_mix.set_xlim(g0[0], g0[-1])
    ax_mix.set_ylim(g1[0], g1[-1])
    ax_mix.set_aspect("equal")
    ax_mix.set_title(f"the mixture: {N_SCATTER:,} points, Bayes regions shaded")
    _common.save_figure(fig, png_path, "StreamPartitionForestClassifier on a five-class Gaussian "
                        f"mixture (denil2013 section 5.1, figure 2); {version_line}"
                        + (" (quick)" if quick else ""), dpi=120)
    md_path.write_text("\n".join(lines) + "\n")
