"""The online BSP forest on Friedman's function: fan2020 section 5.2 (their figure 4).

    python -m benchmarks experiment bsp_friedman           # n = 1,000 ... 20,000, d = 5 and 10, 5 repeats: minutes
    python -m benchmarks experiment bsp_friedman --quick   # n = 500 and 2,000, one repeat: seconds

Fan, Li, Xu, Sisson & Wang (2020), section 5.2: x uniform on [0, 1]^d, y = 10 sin(pi x1 x2) +
20 (x3 - 1/2)^2 + 10 x4 + 5 x5 + N(0, 1), in two setups: d = 5 (every feature informative)
and d = 10 (five noise features added); RMSE against the number n of training samples. They
report the online BSP forest about 0.1 RMSE below the Mondrian forests.

Here the data are river's ``datasets.synth.Friedman`` (10 features uniform on [0, 1], keys
0-9, the first five informative, y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)^2 + 10 x3 + 5 x4 +
N(0, 1): the paper's function). The d = 5 setup keeps features 0-4 of the same samples, the
d = 10 setup all ten. Per repeat r (seed r for the forests, training stream
``Friedman(seed=100 + r)``, test stream ``Friedman(seed=10_000 + r)``), four forests of 10
trees learn the training stream in chunks of 100 (``learn_many``, which gives the model
``learn_one`` gives: checked by the measurement ``checks``) and are evaluated, at each
checkpoint n, on 2,000 test samples (``predict_many``): ``BSPForestRegressor`` and
``MondrianForestRegressor`` at their defaults (linear leaves), and each with
``leaf_model="mean"`` (the BSP regressor's is then the paper's configuration: the support rule
``"auto"`` gives the paper's 3 points). The RMSE against the noisy y, and against the
noiseless f(x) recomputed from x with the formula above (the paper's "the true function is
known"; its square is the excess risk, the noisy RMSE^2 is about that plus the noise
variance 1). The models at n are the models after the first n training samples of the
stream, so the checkpoints of one repeat share a stream. One measurement is one (repeat, d,
model). Reported: mean +- sd over the repeats, for each leaf model the paired difference
Mondrian - BSP and how many repeats BSP wins, the nodes per tree; plot: RMSE against n (log
x), both setups.

Issue 48's target: at the defaults, the BSP regressor's RMSE below the Mondrian regressor's
with the same leaf model at every n from 1,000 to 20,000, at d = 5 and d = 10.

Writes ``benchmarks/results/experiments/bsp_friedman.{md,png}`` (``_quick`` with --quick).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np
import pandas as pd

from river_forests import BSPForestRegressor, MondrianForestRegressor

from benchmarks.experiments import _common

NAME = "bsp_friedman"
TREES = 10
CHUNK = 100
N_TEST = 2_000
SIZES = [1_000, 2_000, 5_000, 10_000, 20_000]
QUICK_SIZES = [500, 2_000]
REPEATS = 5
QUICK_REPEATS = 1
SETUPS = {5: list(range(5)), 10: list(range(10))}
#: the forests, by leaf model: (BSP, Mondrian) with linear leaves (the defaults), then mean
LEAVES = {"linear": ("BSP", "Mondrian"), "mean": ("BSP mean", "Mondrian mean")}
MODELS = {
    "BSP": lambda seed: BSPForestRegressor(n_estimators=TREES, seed=seed),
    "Mondrian": lambda seed: MondrianForestRegressor(n_estimators=TREES, seed=seed),
    "BSP mean": lambda seed: BSPForestRegressor(n_estimators=TREES, seed=seed, leaf_model="mean"),
    "Mondrian mean": lambda seed: MondrianForestRegressor(n_estimators=TREES, seed=seed,
                                                          leaf_model="mean"),
}
ALL_MODELS = MODELS


def friedman(x: dict) -> float:
    """The noiseless function of river's ``synth.Friedman`` (its ``__iter__``, river 0.2x)."""
    return (10 * math.sin(math.pi * x[0] * x[1]) + 20 * (x[2] - 0.5) ** 2
            + 10 * x[3] + 5 * x[4])


def sample(seed: int, n: int):
    """n samples of ``Friedman(seed)``: the features (DataFrame, columns 0-9), y and f(x)."""
    from river.datasets import synth

    rows = list(itertools.islice(synth.Friedman(seed=seed), n))
    X = pd.DataFrame([x for x, _ in rows])
    y = np.array([y for _, y in rows])
    f = np.array([friedman(x) for x, _ in rows])
    return X, y, f


def train_seed(r: int) -> int:
    return 100 + r


def test_seed(r: int) -> int:
    return 10_000 + r


# ---------------------------------------------------------------------------- the measurements

def run_one(r: int, d: int, name: str, sizes: list[int]) -> dict:
    """Model `name` on repeat r's stream, setup d (`learn_and_score`)."""
    return learn_and_score(ALL_MODELS[name](r), r, d, sizes)


def learn_and_score(model, r: int, d: int, sizes: list[int]) -> dict:
    """`model` learns repeat r's training stream, setup d, in chunks of ``CHUNK``: per
    checkpoint n, the RMSE on the test rows vs y and vs f(x), the seconds spent in
    ``learn_many`` so far, the nodes per tree and the model's size (river's measure)."""
    cols = SETUPS[d]
    X, y, _ = sample(train_seed(r), max(sizes))
    Xt, yt, ft = sample(test_seed(r), N_TEST)
    ys = pd.Series(y, index=X.index)
    out = {"n": [], "rmse_y": [], "rmse_f": [], "train_s": [], "nodes": [], "memory": []}
    spent, seen = 0.0, 0
    for n in sorted(sizes):
        t0 = time.perf_counter()
        for start in range(seen, n, CHUNK):
            stop = min(start + CHUNK, n)
            model.learn_many(X.iloc[start:stop, cols], ys.iloc[start:stop])
        spent += time.perf_counter() - t0
        seen = n
        pred = model.predict_many(Xt.iloc[:, cols]).to_numpy(dtype=float)
        out["n"].append(int(n))
        out["rmse_y"].append(float(np.sqrt(np.mean((pred - yt) ** 2))))
        out["rmse_f"].append(float(np.sqrt(np.mean((pred - ft) ** 2))))
        out["train_s"].append(float(spent))
        out["nodes"].append(float(model.n_nodes / TREES))
        out["memory"].append(int(model._raw_memory_usage))
    return out


def check_learn_many(n: int = 300) -> dict:
    """learn_many in chunks of 100 against a learn_one loop, same seed, d = 10: the test
    predictions must be identical. {model: max |difference|} (0 expected)."""
    X, y, _ = sample(7, n)
    Xt, _, _ = sample(8, 200)
    ys = pd.Series(y, index=X.index)
    out = {}
    for name, make in MODELS.items():
        a, b = make(0), make(0)
        for start in range(0, n, CHUNK):
            a.learn_many(X.iloc[start:start + CHUNK], ys.iloc[start:start + CHUNK])
        for x, yy in zip(X.to_dict("records"), y.tolist()):
            b.learn_one(x, yy)
        pa = a.predict_many(Xt).to_numpy(dtype=float)
        pb = np.array([b.predict_one(x) for x in Xt.to_dict("records")], dtype=float)
        out[name] = {"identical": bool(np.array_equal(pa, pb)),
                     "max_abs_diff": float(np.max(np.abs(pa - pb)))}
    return out


def noise_check() -> dict:
    """y - f(x) on 20,000 samples of Friedman(seed=0): should be N(0, 1)."""
    _, y, f = sample(0, 20_000)
    e = y - f
    return {"mean": float(e.mean()), "sd": float(e.std())}


def environment() -> str:
    """One line: machine, versions and the load average when the checks ran."""
    return f"{_common.machine(' (shared)')}, pandas {pd.__version__}; load average {_common.load_average()}"


def _plan(quick: bool) -> tuple[list[int], int]:
    return (QUICK_SIZES, QUICK_REPEATS) if quick else (SIZES, REPEATS)


def _key(r: int, d: int, name: str) -> str:
    return f"r{r}_d{d}_{name.lower().replace(' ', '-')}"


def jobs(quick: bool) -> list[tuple[str, dict]]:
    sizes, repeats = _plan(quick)
    out = [("checks", {"kind": "checks"})]
    for r in range(repeats):
        for d in SETUPS:
            for name in ALL_MODELS:
                out.append((_key(r, d, name), {"kind": "run", "repeat": r, "d": d, "model": name,
                                               "sizes": list(sizes)}))
    return out


def measure(params: dict) -> dict:
    t0 = time.perf_counter()
    if params["kind"] == "checks":
        result = {"environment": environment(), "noise": noise_check(),
                  "learn_many": check_learn_many()}
    else:
        result = run_one(params["repeat"], params["d"], params["model"], params["sizes"])
    result["seconds"] = time.perf_counter() - t0
    return result


# ---------------------------------------------------------------------------- the report

def ms(a: np.ndarray, digits: int = 3) -> str:
    if len(a) == 0:
        return "n/a"
    if len(a) == 1:
        return f"{a[0]:.{digits}f}"
    return f"{a.mean():.{digits}f} ± {a.std(ddof=1):.{digits}f}"


def summarise(results: dict, sizes: list[int], repeats: int) -> dict:
    """{(d, n): {"<model>_<y|f|s|nodes>": array over the repeats measured for every model}}."""
    table = {}
    for d in SETUPS:
        # only repeats where every model was measured, so the differences stay paired
        done = [r for r in range(repeats) if all(_key(r, d, m) in results for m in ALL_MODELS)]
        for n in sizes:
            cell = {}
            for name in ALL_MODELS:
                recs = [results[_key(r, d, name)] for r in done]
                idx = [rec["n"].index(n) for rec in recs]
                for short, field in (("y", "rmse_y"), ("f", "rmse_f"), ("s", "train_s"),
                                     ("nodes", "nodes")):
                    cell[f"{name}_{short}"] = np.array([rec[field][i] for rec, i in zip(recs, idx)])
            table[(d, n)] = cell
    return table


COLOURS = {"BSP": "tab:red", "Mondrian": "tab:blue", "BSP mean": "tab:orange",
           "Mondrian mean": "tab:cyan"}


def plot(table: dict, sizes: list[int], repeats: int, path, version_line: str):
    plt = _common.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.3), dpi=100, sharey=True)
    for ax, d in zip(axes, SETUPS):
        for name in MODELS:
            v = np.array([table[(d, n)][f"{name}_f"] for n in sizes])
            if v.size == 0:
                continue
            err = v.std(axis=1, ddof=1) if v.shape[1] > 1 else None
            ax.errorbar(sizes, v.mean(axis=1), yerr=err, fmt="o-" if "mean" not in name else "s--",
                        color=COLOURS[name], capsize=3, markersize=4, linewidth=1.4,
                        label=f"{name} forest" + ("" if "mean" in name else ", linear leaves"))
        ax.set_xscale("log")
        ax.set_xticks(sizes)
        ax.set_xticklabels([f"{n:,}" for n in sizes], fontsize=8)
        ax.minorticks_off()
        ax.set_xlabel("training samples n")
        ax.set_title(f"d = {d}" + (" (all informative)" if d == 5 else " (5 informative, 5 noise)"))
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"test RMSE vs f(x) ({N_TEST:,} samples)")
    axes[0].legend(fontsize=8)
    _common.save_figure(fig, path, f"Friedman's function: online BSP vs Mondrian forest, {TREES} "
                        f"trees, mean ± sd over {repeats} repeat(s)\n{version_line}", title_size=10)


def report(results: dict[str, dict], quick: bool) -> None:
    version_line = _common.version_line()
    sizes, repeats = _plan(quick)
    md, png = _common.outputs(NAME, quick)
    missing = _common.missing(jobs(quick), results)
    table = summarise(results, sizes, repeats)
    plot(table, sizes, repeats, png, version_line)

    checks = results.get("checks")
    if checks is not None:
        noise = f"mean {checks['noise']['mean']:+.3f}, sd {checks['noise']['sd']:.3f}"
        same = "; ".join(
            f"{name}: " + ("identical" if c["identical"] else f"DIFFERENT (max |diff| {c['max_abs_diff']:.3g})")
            for name, c in checks["learn_many"].items())
        env = f"Environment (when the checks ran): {checks['environment']}."
    else:
        noise = same = "not measured (the measurement `checks` is missing)"
        env = ""
    n_done = {d: len(table[(d, sizes[0])]["BSP_f"]) for d in SETUPS}
    reps = (f"r = 0..{repeats - 1}: {repeats} repeats, mean ± sd (sd over repeats, ddof 1). "
            if repeats > 1 else "r = 0: one repeat (no sd). ")
    command = f"python -m benchmarks experiment {NAME}" + (" --quick" if quick else "")
    lines = [
        "# Online BSP forest on Friedman's function (fan2020 section 5.2)" + (" (quick)" if quick else ""),
        "",
        "Fan, Li, Xu, Sisson & Wang (2020), section 5.2 (figure 4): on Friedman's function, d = 5 "
        "(all informative) and d = 10 (five noise features), the online BSP forest's test RMSE "
        "is about 0.1 below the Mondrian forests' at every number n of training samples.",
        "",
        f"Command: `{command}`. {version_line}. {env}",
        "",
        f"river's `synth.Friedman` (x uniform on [0, 1]^10, y = 10 sin(pi x0 x1) + 20 (x2 - 0.5)^2 "
        f"+ 10 x3 + 5 x4 + N(0, 1); check on 20,000 samples: y - f(x) has {noise}). d = 5: "
        "features 0-4 only; d = 10: all ten (five noise features). "
        f"`BSPForestRegressor(n_estimators={TREES}, seed=r)` and "
        f"`MondrianForestRegressor(n_estimators={TREES}, seed=r)` at their defaults (linear "
        "leaves), and each with `leaf_model=\"mean\"` (for the BSP forest the paper's "
        "configuration), learn "
        f"`Friedman(seed=100 + r)` in chunks of {CHUNK} (`learn_many`; identical to a `learn_one` "
        f"loop, checked on 300 samples, d = 10: {same}); after the first n samples they "
        f"predict {N_TEST:,} samples of `Friedman(seed=10000 + r)` (`predict_many`). "
        f"{reps}"
        "**RMSE vs f** is against the noiseless function (the paper's measure, since \"the true "
        "function is known\"); **RMSE vs y** against the noisy labels (about sqrt(RMSE_f^2 + 1)). "
        "**Mondrian - BSP** is the paired difference of the RMSE vs f between the two forests "
        "with the same leaf model (positive: BSP lower) and **BSP wins** counts the repeats "
        "where BSP's RMSE vs f is lower.",
        "",
    ]
    if missing:
        lines += [f"**Incomplete: missing measurements {', '.join(missing)}** (rerun the "
                  "experiment; the tables use the repeats where every model was measured: "
                  + ", ".join(f"d = {d}: {n_done[d]}" for d in SETUPS) + ").", ""]
    for d in SETUPS:
        done = n_done[d]
        lines += [f"## d = {d}" + (" (all informative)" if d == 5 else " (5 informative, 5 noise)"), ""]
        for leaf, (bsp, mon) in LEAVES.items():
            lines += [f"**{leaf.capitalize()} leaves**" + (" (the defaults)" if leaf == "linear" else
                                                          " (BSP: the paper's configuration)"), ""]
            rows = []
            for n in sizes:
                c = table[(d, n)]
                diff = c[f"{mon}_f"] - c[f"{bsp}_f"]
                rows.append([f"{n:,}", ms(c[f"{bsp}_f"]), ms(c[f"{mon}_f"]), ms(diff),
                             f"{int((diff > 0).sum())}/{done}", ms(c[f"{bsp}_y"]), ms(c[f"{mon}_y"]),
                             f"{np.mean(c[f'{bsp}_nodes']):,.0f}", f"{np.mean(c[f'{mon}_nodes']):,.0f}",
                             f"{np.mean(c[f'{bsp}_s']):.2f}", f"{np.mean(c[f'{mon}_s']):.3f}"])
            lines += _common.markdown_table(
                ["n", "BSP RMSE vs f", "Mondrian RMSE vs f", "Mondrian - BSP", "BSP wins",
                 "BSP RMSE vs y", "Mondrian RMSE vs y", "BSP nodes/tree", "Mondrian nodes/tree",
                 "BSP train s", "Mondrian train s"], rows)
            lines.append("")
    lines += ["## Summary", ""]
    for d in SETUPS:
        if not n_done[d]:
            lines.append(f"- d = {d}: no complete repeat measured.")
            continue
        for leaf, (bsp, mon) in LEAVES.items():
            lower = [n for n in sizes if table[(d, n)][f"{bsp}_f"].mean() < table[(d, n)][f"{mon}_f"].mean()]
            gaps = ", ".join(f"{(table[(d, n)][f'{mon}_f'] - table[(d, n)][f'{bsp}_f']).mean():+.3f}"
                             for n in sizes)
            lines.append(f"- d = {d}, {leaf} leaves: BSP's mean RMSE vs f is lower than the Mondrian "
                         f"forest's at {len(lower)} of {len(sizes)} sizes "
                         f"({', '.join(f'{n:,}' for n in lower) or 'none'}); Mondrian - BSP by n: "
                         f"{gaps} (the paper: about +0.1).")
    compute_s = _common.compute_seconds(results)
    lines += [
        "",
        "Train s: seconds inside `learn_many` up to n (mean over repeats; wall clock on a shared "
        "machine, for scale only: speed is compared in `speed.md`).",
        "",
        f"![RMSE against n, d = 5 and d = 10]({png.name})",
        "",
        f"Compute time: {compute_s:.0f} s summed over the {len(results)} measurements.",
    ]
    md.write_text("\n".join(lines) + "\n")
