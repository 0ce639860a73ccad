"""The online BSP forest on Friedman's function: fan2020 section 5.2 (their figure 4).

    python benchmarks/bsp_friedman.py           # n = 500 ... 10,000, d = 5 and 10, 5 seeds: under a minute
    python benchmarks/bsp_friedman.py --quick   # n = 500 and 2,000, one seed (bsp_friedman_quick.*)

Fan, Li, Xu, Sisson & Wang (2020), section 5.2: x uniform on [0, 1]^d, y = 10 sin(pi x1 x2) +
20 (x3 - 1/2)^2 + 10 x4 + 5 x5 + N(0, 1), in two setups: d = 5 (every feature informative)
and d = 10 (five noise features added); RMSE against the number n of training samples. They
report the online BSP forest about 0.1 RMSE below the Mondrian forests.

Here the data are river's ``datasets.synth.Friedman`` (10 features uniform on [0, 1], keys
0-9, the first five informative, y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)^2 + 10 x3 + 5 x4 +
N(0, 1): the paper's function). The d = 5 setup keeps features 0-4 of the same samples, the
d = 10 setup all ten. Per repeat r (seed r for the forests, training stream
``Friedman(seed=100 + r)``, test stream ``Friedman(seed=10_000 + r)``): ``BSPForestRegressor``
and our ``MondrianForestRegressor`` (10 trees, every other parameter at its default) learn the
training stream in chunks of 100 (``learn_many``, which gives the model ``learn_one`` gives:
checked at the start of the run) and are evaluated, at each checkpoint n, on 2,000 test
samples (``predict_many``): the RMSE against the noisy y, and against the noiseless
f(x) recomputed from x with the formula above (the paper's "the true function is known"; its
square is the excess risk, the noisy RMSE^2 is about that plus the noise variance 1). The
models at n are the models after the first n training samples of the stream, so the checkpoints
of one repeat share a stream. Reported: mean +- sd over the repeats, the paired difference
Mondrian - BSP, how many repeats BSP wins and the nodes per tree; plot: RMSE against n (log
x), both setups. For reference, both forests again with ``max_nodes=32767``: at the default
cap (4,095 nodes per tree) BSP's trees are full between 4,000 and 5,000 samples.

Writes benchmarks/results/bsp_friedman.{md,png} (``_quick`` with --quick).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import river
from river.datasets import synth

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests import BSPForestRegressor, MondrianForestRegressor  # noqa: E402
from river_forests.evaluation import markdown_table  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
TREES = 10
CHUNK = 100
N_TEST = 2_000
SIZES = [500, 1_000, 2_000, 5_000, 10_000]
QUICK_SIZES = [500, 2_000]
REPEATS = 5
SETUPS = {5: list(range(5)), 10: list(range(10))}
#: the Mondrian forest as fan2020 compares it and as these results were recorded: the paper's
#: growth and mean leaves (its defaults before issue 17 moved them to recycling and linear leaves)
MONDRIAN = dict(lifetime_scale=2.0, recycling=False, max_nodes=4095, leaf_model="mean")
MODELS = {
    "BSP": lambda seed: BSPForestRegressor(n_estimators=TREES, seed=seed),
    "Mondrian": lambda seed: MondrianForestRegressor(n_estimators=TREES, seed=seed, **MONDRIAN),
}
#: for reference: the node cap raised from the default 4,095 to 32,767 per tree for both
UNCAPPED = 32_767
REFERENCE = {
    "BSP uncapped": lambda seed: BSPForestRegressor(n_estimators=TREES, seed=seed, max_nodes=UNCAPPED),
    "Mondrian uncapped": lambda seed: MondrianForestRegressor(
        n_estimators=TREES, seed=seed, **{**MONDRIAN, "max_nodes": UNCAPPED}),
}


def friedman(x: dict) -> float:
    """The noiseless function of river's ``synth.Friedman`` (its ``__iter__``, river 0.2x)."""
    return (10 * math.sin(math.pi * x[0] * x[1]) + 20 * (x[2] - 0.5) ** 2
            + 10 * x[3] + 5 * x[4])


def sample(seed: int, n: int):
    """n samples of ``Friedman(seed)``: the features (DataFrame, columns 0-9), y and f(x)."""
    rows = list(itertools.islice(synth.Friedman(seed=seed), n))
    X = pd.DataFrame([x for x, _ in rows])
    y = np.array([y for _, y in rows])
    f = np.array([friedman(x) for x, _ in rows])
    return X, y, f


def train_seed(r: int) -> int:
    return 100 + r


def test_seed(r: int) -> int:
    return 10_000 + r


def run_repeat(r: int, sizes: list[int], setups=SETUPS, models=MODELS) -> dict:
    """{(d, model, n): (rmse_y, rmse_f, train seconds so far, nodes per tree)} for repeat r."""
    X, y, _ = sample(train_seed(r), max(sizes))
    Xt, yt, ft = sample(test_seed(r), N_TEST)
    ys = pd.Series(y, index=X.index)
    out = {}
    for d, cols in setups.items():
        for name, make in models.items():
            model = make(r)
            spent, seen = 0.0, 0
            for n in sorted(sizes):
                t0 = time.perf_counter()
                for start in range(seen, n, CHUNK):
                    stop = min(start + CHUNK, n)
                    model.learn_many(X.iloc[start:stop, cols], ys.iloc[start:stop])
                spent += time.perf_counter() - t0
                seen = n
                pred = model.predict_many(Xt.iloc[:, cols]).to_numpy(dtype=float)
                out[(d, name, n)] = (float(np.sqrt(np.mean((pred - yt) ** 2))),
                                     float(np.sqrt(np.mean((pred - ft) ** 2))), spent,
                                     model.n_nodes / TREES)
    return out


def check_learn_many(n: int = 300) -> list[str]:
    """learn_many in chunks of 100 against a learn_one loop, same seed, d = 10: the test
    predictions must be identical."""
    X, y, _ = sample(7, n)
    Xt, _, _ = sample(8, 200)
    ys = pd.Series(y, index=X.index)
    lines = []
    for name, make in MODELS.items():
        a, b = make(0), make(0)
        for start in range(0, n, CHUNK):
            a.learn_many(X.iloc[start:start + CHUNK], ys.iloc[start:start + CHUNK])
        for x, yy in zip(X.to_dict("records"), y.tolist()):
            b.learn_one(x, yy)
        pa = a.predict_many(Xt).to_numpy()
        pb = np.array([b.predict_one(x) for x in Xt.to_dict("records")])
        same = np.array_equal(pa, pb)
        if not same:
            print(f"WARNING: {name}: learn_many and learn_one differ "
                  f"(max |diff| {np.max(np.abs(pa - pb)):.3g})", flush=True)
        lines.append(f"{name}: {'identical' if same else 'DIFFERENT (max |diff| %.3g)' % np.max(np.abs(pa - pb))}")
    return lines


def noise_check() -> str:
    """y - f(x) on 20,000 samples of Friedman(seed=0): should be N(0, 1)."""
    _, y, f = sample(0, 20_000)
    e = y - f
    return f"mean {e.mean():+.3f}, sd {e.std():.3f}"


def environment(extension: str = "_bsp") -> list[str]:
    """One line: machine, versions, the package's git commit, its files that differ from it,
    when the compiled `extension` loaded (the BSP trees' by default) was built, and the load
    average."""
    import importlib

    bsp_ext = importlib.import_module(f"river_forests._core.{extension}")

    try:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=all",
                                "--", "river_forests", "setup.py"],
                               capture_output=True, text=True, check=True).stdout.split("\n")
        dirty = [line[3:] for line in dirty if line.strip() and not line.endswith((".c", ".so"))]
        code = f"git {head}" + (f", uncommitted changes to {', '.join(dirty)}" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        code = "git unknown"
    built = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(os.path.getmtime(bsp_ext.__file__)))
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    return [f"Environment: {platform.machine()}, {os.cpu_count()} cores (shared), Python "
            f"{platform.python_version()}, river {river.__version__}, numpy {np.__version__}, "
            f"pandas {pd.__version__}; code {code}; `{extension}` extension built {built} UTC; "
            f"load average at start {load}."]


def summarise(runs: list[dict], sizes: list[int]):
    """{(d, n): dict of arrays over repeats}."""
    table = {}
    for d in SETUPS:
        for n in sizes:
            cell = {}
            for name in {**MODELS, **REFERENCE}:
                cell[name + "_y"] = np.array([run[(d, name, n)][0] for run in runs])
                cell[name + "_f"] = np.array([run[(d, name, n)][1] for run in runs])
                cell[name + "_s"] = np.array([run[(d, name, n)][2] for run in runs])
                cell[name + "_nodes"] = np.array([run[(d, name, n)][3] for run in runs])
            table[(d, n)] = cell
    return table


def ms(a: np.ndarray, digits: int = 3) -> str:
    if len(a) == 1:
        return f"{a[0]:.{digits}f}"
    return f"{a.mean():.{digits}f} ± {a.std(ddof=1):.{digits}f}"


def plot(table: dict, sizes: list[int], repeats: int, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=100, sharey=True)
    colours = {"BSP": "tab:red", "Mondrian": "tab:blue"}
    for ax, d in zip(axes, SETUPS):
        for name in MODELS:
            for kind, style, what in (("f", "-", "vs f(x)"), ("y", "--", "vs noisy y")):
                v = np.array([table[(d, n)][f"{name}_{kind}"] for n in sizes])
                err = v.std(axis=1, ddof=1) if repeats > 1 else None
                ax.errorbar(sizes, v.mean(axis=1), yerr=err, fmt="o" + style, color=colours[name],
                            capsize=3, markersize=4, linewidth=1.8 if kind == "f" else 1.0,
                            label=f"{name} forest, {what}")
            v = np.array([table[(d, n)][f"{name} uncapped_f"] for n in sizes])
            ax.plot(sizes, v.mean(axis=1), ":", color=colours[name], linewidth=1.2,
                    label=f"{name} forest, max_nodes={UNCAPPED:,}, vs f(x)")
        ax.set_xscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([f"{n:,}" for n in sizes], fontsize=8)
        ax.set_xlabel("training samples n")
        ax.set_title(f"d = {d}" + (" (all informative)" if d == 5 else " (5 informative, 5 noise)"))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("test RMSE (2,000 samples)")
    axes[0].legend(fontsize=8)
    fig.suptitle(f"Friedman's function: online BSP vs Mondrian forest, 10 trees, "
                 f"mean ± sd over {repeats} repeat(s)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 500 and 2,000, one repeat")
    parser.add_argument("--repeats", type=int, default=None, help=f"repeats (default {REPEATS}; 1 with --quick)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    sizes = QUICK_SIZES if args.quick else SIZES
    repeats = args.repeats or (1 if args.quick else REPEATS)
    env = environment()
    print(env[0], flush=True)
    noise = noise_check()
    print(f"y - f(x): {noise}", flush=True)
    same = check_learn_many()
    print("learn_many vs learn_one: " + "; ".join(same), flush=True)
    runs = []
    for r in range(repeats):
        runs.append(run_repeat(r, sizes, models={**MODELS, **REFERENCE}))
        for d in SETUPS:
            print(f"repeat {r} d={d}: " + ", ".join(
                f"n={n}: BSP {runs[-1][(d, 'BSP', n)][1]:.3f} Mondrian {runs[-1][(d, 'Mondrian', n)][1]:.3f}"
                for n in sizes), flush=True)
    table = summarise(runs, sizes)
    suffix = "_quick" if args.quick else ""
    png = RESULTS / f"bsp_friedman{suffix}.png"
    plot(table, sizes, repeats, png)

    command = "python benchmarks/bsp_friedman.py" + (" --quick" if args.quick else "") + (
        f" --repeats {args.repeats}" if args.repeats else "")
    reps = (f"r = 0..{repeats - 1}: {repeats} repeats, mean ± sd (sd over repeats, ddof 1). "
            if repeats > 1 else "r = 0: one repeat (no sd). ")
    lines = [
        "# Online BSP forest on Friedman's function (fan2020 section 5.2)" + (" (quick)" if args.quick else ""),
        "",
        f"Command: `{command}`. {env[0]}",
        "",
        f"river's `synth.Friedman` (x uniform on [0, 1]^10, y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)^2 "
        f"+ 10 x3 + 5 x4 + N(0, 1); check on 20,000 samples: y - f(x) has {noise}). d = 5: "
        "features 0-4 only; d = 10: all ten (five noise features). "
        f"`BSPForestRegressor(n_estimators={TREES}, seed=r)` and "
        f"`MondrianForestRegressor(n_estimators={TREES}, seed=r)`, defaults otherwise, learn "
        f"`Friedman(seed=100 + r)` in chunks of {CHUNK} (`learn_many`; identical to a `learn_one` "
        f"loop, checked on 300 samples: {'; '.join(same)}); after the first n samples they "
        f"predict {N_TEST:,} samples of `Friedman(seed=10000 + r)` (`predict_many`). "
        f"{reps}"
        "**RMSE vs f** is against the noiseless function (the paper's measure, since \"the true "
        "function is known\"); **RMSE vs y** against the noisy labels (about sqrt(RMSE_f^2 + 1)). "
        "**Mondrian - BSP** is the paired difference of the RMSE vs f (positive: BSP lower) "
        "and **BSP wins** counts the repeats where BSP's RMSE vs f is lower.",
        "",
    ]
    for d in SETUPS:
        lines += [f"## d = {d}" + (" (all informative)" if d == 5 else " (5 informative, 5 noise)"), ""]
        rows = []
        for n in sizes:
            c = table[(d, n)]
            diff = c["Mondrian_f"] - c["BSP_f"]
            rows.append([f"{n:,}", ms(c["BSP_f"]), ms(c["Mondrian_f"]), ms(diff),
                         f"{int((diff > 0).sum())}/{repeats}", ms(c["BSP_y"]), ms(c["Mondrian_y"]),
                         f"{c['BSP_nodes'].mean():,.0f}", f"{c['Mondrian_nodes'].mean():,.0f}",
                         f"{c['BSP_s'].mean():.2f}", f"{c['Mondrian_s'].mean():.3f}"])
        lines += markdown_table(
            ["n", "BSP RMSE vs f", "Mondrian RMSE vs f", "Mondrian - BSP", "BSP wins",
             "BSP RMSE vs y", "Mondrian RMSE vs y", "BSP nodes/tree", "Mondrian nodes/tree",
             "BSP train s", "Mondrian train s"], rows)
        lines += ["", f"For reference, both forests with `max_nodes={UNCAPPED}` (defaults otherwise, "
                  "same streams and seeds; dotted in the plot):", ""]
        rows = []
        for n in sizes:
            c = table[(d, n)]
            diff = c["Mondrian uncapped_f"] - c["BSP uncapped_f"]
            rows.append([f"{n:,}", ms(c["BSP uncapped_f"]), ms(c["Mondrian uncapped_f"]), ms(diff),
                         f"{int((diff > 0).sum())}/{repeats}",
                         f"{c['BSP uncapped_nodes'].mean():,.0f}", f"{c['Mondrian uncapped_nodes'].mean():,.0f}"])
        lines += markdown_table(
            ["n", "BSP RMSE vs f", "Mondrian RMSE vs f", "Mondrian - BSP", "BSP wins",
             "BSP nodes/tree", "Mondrian nodes/tree"], rows)
        lines.append("")
    lines += ["## Summary", ""]
    for d in SETUPS:
        lower = [n for n in sizes if table[(d, n)]["BSP_f"].mean() < table[(d, n)]["Mondrian_f"].mean()]
        gaps = ", ".join(f"{(table[(d, n)]['Mondrian_f'] - table[(d, n)]['BSP_f']).mean():+.3f}" for n in sizes)
        lines.append(f"- d = {d}: BSP's mean RMSE vs f is lower than the Mondrian forest's at "
                     f"{len(lower)} of {len(sizes)} sizes ({', '.join(f'{n:,}' for n in lower) or 'none'}); "
                     f"Mondrian - BSP by n: {gaps} (the paper: about +0.1).")
        full = [n for n in sizes if table[(d, n)]["BSP_nodes"].mean() >= 4095 - 1]
        if full:
            lines.append(f"  BSP's trees are at the default node cap (4,095) from n = {full[0]:,}: "
                         "their partitions stop growing there and only the leaf means learn; "
                         f"with `max_nodes={UNCAPPED}` BSP reaches "
                         + ", ".join(f"{table[(d, n)]['BSP uncapped_f'].mean():.3f}" for n in full)
                         + f" at n = {', '.join(f'{n:,}' for n in full)} (Mondrian "
                         + ", ".join(f"{table[(d, n)]['Mondrian uncapped_f'].mean():.3f}" for n in full) + ").")
    lines += [
        "",
        "Train s: seconds inside `learn_many` up to n (mean over repeats; wall clock on a shared "
        "machine, for scale only: speed is compared in `bsp_targets.md`).",
        "",
        f"![RMSE against n, d = 5 and d = 10](bsp_friedman{suffix}.png)",
        "",
        f"Run time: {time.perf_counter() - start:.0f} s.",
    ]
    out = RESULTS / f"bsp_friedman{suffix}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
