"""Feature importances (`feature_importances`): do they recover the truth, and follow drift?

    python -m benchmarks experiment importances [--quick] [--jobs 2]

Three parts, every forest, 10 trees, seed 42, the forest's defaults:

* **Recovery** (a ground truth, chooses nothing): each classifier on river's Agrawal
  generator, each of its 10 classification functions (seed 7, ``balance_classes=True``:
  unbalanced, functions 7 and 9 give one class 98.4% and 99.8% of the time, which leaves
  nothing to recover), and each regressor on river's
  Friedman #1 (seed 7; features 0 to 4 informative, 5 to 9 noise), 20,000 samples
  (``--quick``: 3,000). A function is recovered when every feature it reads ranks above
  every feature it does not.
* **Halflife** (the tuning half: chooses ``importance_halflife``): the streams of the
  benchmark's tuning half whose informative features are known, drifting and not: the two
  drifting Agrawal streams, ``agrawal-recurring`` (functions 3 -> 6 -> 3 -> 6) and
  ``agrawal-abrupt`` (0 -> 2), each classifier with ``drift.ADWIN(delta=0.001)`` (the drift
  setting the tuning half chose); and ``friedman`` (Friedman #1, stationary), each
  regressor; halflives 1,000 to 20,000 samples. Score: the share of the readings (every 250
  samples; on the drifting streams from the first drift on, on ``friedman`` from sample
  2,000 on) at which the features in force (`proxies` left out) rank above all others. The
  default is the halflife of the best mean score over the (forest, stream) pairs.
* **Drift** (reports): an abrupt switch from Agrawal function 2 (age, elevel) to function 6
  (salary, commission, loan) after 20,000 samples (seeds 11 and 12; 10,000 after), each
  classifier with ``drift.ADWIN(delta=0.001)`` and the default halflife, importances read
  every 250 samples: when do the new function's features take the top three places? The
  plot is ``importances.png``.

Writes ``benchmarks/results/experiments/importances.md`` and ``importances.png``.
"""

from __future__ import annotations

from benchmarks import figures
from benchmarks.experiments import _common

NAME = "importances"
SEED = 42
TREES = 10
N, QUICK_N = 20_000, 3_000
EVERY = 250
HALFLIVES = (1_000, 2_000, 5_000, 10_000, 20_000)
SWITCH = (2, 6)
AFTER, QUICK_AFTER = 10_000, 3_000
WITHIN = 5_000

#: the features each Agrawal classification function reads (river's `agrawal.py`); functions
#: 5 to 9 read `commission`, which the generator sets to 0 for salaries of 75,000 or more
AGRAWAL = {
    0: {"age"},
    1: {"age", "salary"},
    2: {"age", "elevel"},
    3: {"age", "elevel", "salary"},
    4: {"age", "salary", "loan"},
    5: {"age", "salary", "commission"},
    6: {"salary", "commission", "loan"},
    7: {"salary", "commission", "elevel"},
    8: {"salary", "commission", "elevel", "loan"},
    9: {"salary", "commission", "elevel", "hvalue", "hyears"},
}
FRIEDMAN = {0, 1, 2, 3, 4}

#: features the generator derives from another one: `commission` is 0 exactly when `salary`
#: is 75,000 or more, and `hvalue` is (8 - zipcode) * 100,000 times a uniform factor in
#: [0.5, 1.5). A function that reads the one is not independent of the other, which carries
#: its information by proxy: such a feature is neither informative nor irrelevant, and is
#: left out of the comparison
PROXIES = {"salary": {"commission"}, "hvalue": {"zipcode"}}


def _estimators(kind: str) -> list[str]:
    import river_forests
    from river import base

    cls = base.Classifier if kind == "clf" else base.Regressor
    return [n for n in river_forests.__all__
            if isinstance(getattr(river_forests, n), type)
            and issubclass(getattr(river_forests, n), cls)]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    n = QUICK_N if quick else N
    out = []
    for est in _estimators("clf"):
        for f in AGRAWAL:
            out.append((f"recover-{est}-agrawal{f}",
                        {"part": "recover", "estimator": est, "function": f, "n": n}))
    for f in AGRAWAL:  # why the recovery balances the classes
        out.append((f"balance-agrawal{f}", {"part": "balance", "function": f, "n": n}))
    for est in _estimators("reg"):
        out.append((f"recover-{est}-friedman", {"part": "recover", "estimator": est,
                                                "function": "friedman", "n": n}))
    for est in _estimators("clf"):
        out.append((f"drift-{est}", {"part": "drift", "estimator": est, "switch": list(SWITCH),
                                     "n": n, "after": QUICK_AFTER if quick else AFTER,
                                     "every": EVERY}))
        for stream in ("agrawal-recurring", "agrawal-abrupt"):
            for h in (HALFLIVES[1:3] if quick else HALFLIVES):
                out.append((f"halflife-{est}-{stream}-{h}",
                            {"part": "halflife", "estimator": est, "stream": stream,
                             "halflife": h, "n": n, "every": EVERY}))
    for est in _estimators("reg"):
        for h in (HALFLIVES[1:3] if quick else HALFLIVES):
            out.append((f"halflife-{est}-friedman-{h}",
                        {"part": "halflife", "estimator": est, "stream": "friedman",
                         "halflife": h, "n": n, "every": EVERY}))
    return out


def _model(name: str, **params):
    import river_forests

    return getattr(river_forests, name)(n_estimators=TREES, seed=SEED, **params)


def _adwin():
    from river import drift

    return drift.ADWIN(delta=0.001)


def _ranked(imp: dict) -> list:
    return sorted(imp, key=lambda k: (-imp[k], str(k)))


def proxies(truth: set) -> set:
    """The features that carry some of `truth`'s information by construction (`PROXIES`)."""
    return set().union(*(PROXIES.get(k, set()) for k in truth)) - set(truth)


def recovered(imp: dict, truth: set) -> bool:
    """Every feature of `truth` ranks above every irrelevant feature (neither in `truth` nor
    one of its proxies)."""
    others = [v for k, v in imp.items() if k not in truth and k not in proxies(truth)]
    return bool(others) and min(imp[k] for k in truth) > max(others)


def measure(params: dict) -> dict:
    import time

    from river.datasets import synth

    start = time.perf_counter()
    if params["part"] == "balance":
        ys = [y for _, y in synth.Agrawal(classification_function=params["function"],
                                          seed=7).take(params["n"])]
        ones = sum(ys) / len(ys)
        return {"majority": max(ones, 1.0 - ones), "seconds": time.perf_counter() - start}
    if params["part"] == "recover":
        f = params["function"]
        if f == "friedman":
            data = synth.Friedman(seed=7).take(params["n"])
            truth = FRIEDMAN
        else:
            data = synth.Agrawal(classification_function=f, seed=7,
                                 balance_classes=True).take(params["n"])
            truth = AGRAWAL[f]
        model = _model(params["estimator"])
        for x, y in data:
            model.learn_one(x, y)
        imp = model.feature_importances
        return {"importances": {str(k): v for k, v in imp.items()},
                "truth": sorted(str(k) for k in truth),
                "recovered": recovered(imp, truth), "seconds": time.perf_counter() - start}
    if params["part"] == "halflife":
        from benchmarks.streams import STREAMS

        s = STREAMS[params["stream"]]
        data = s.samples(params["n"])
        if s.name == "friedman":
            truths, bounds = [{str(k) for k in FRIEDMAN}], [2_000, params["n"]]
            model = _model(params["estimator"], importance_halflife=params["halflife"])
        else:
            functions = {"agrawal-recurring": (3, 6, 3, 6), "agrawal-abrupt": (0, 2)}[s.name]
            truths = [AGRAWAL[f] for f in functions]
            bounds = [int(d * params["n"]) for d in s.drifts] + [params["n"]]
            model = _model(params["estimator"], drift_detector=_adwin(),
                           importance_halflife=params["halflife"])
        hits, reads = 0, 0
        for i, (x, y) in enumerate(data, 1):
            model.learn_one(x, y)
            if i > bounds[0] and i % params["every"] == 0:
                k = next(j for j, b in enumerate(bounds) if i <= b)
                hits += recovered(model.feature_importances, truths[k - (s.name == "friedman")])
                reads += 1
        return {"score": hits / max(reads, 1), "reads": reads,
                "seconds": time.perf_counter() - start}
    # drift
    a, b = params["switch"]
    model = _model(params["estimator"], drift_detector=_adwin())
    readings = []
    stream = [(synth.Agrawal(classification_function=a, seed=11), params["n"]),
              (synth.Agrawal(classification_function=b, seed=12), params["after"])]
    i = 0
    for gen, n in stream:
        for x, y in gen.take(n):
            model.learn_one(x, y)
            i += 1
            if i % params["every"] == 0:
                readings.append([i, dict(model.feature_importances)])
    return {"readings": readings, "switch_at": params["n"], "old": sorted(AGRAWAL[a]),
            "new": sorted(AGRAWAL[b]), "swaps": sum(model.swaps_per_tree),
            "seconds": time.perf_counter() - start}


def _first_on_top(r: dict) -> tuple:
    """(samples after the switch of the first reading with the new features on top, whether
    they stay on top from there to the end, on top at +WITHIN)."""
    new = set(r["new"])
    after = [(i - r["switch_at"], recovered(imp, new)) for i, imp in r["readings"]
             if i > r["switch_at"]]
    first = next((t for t, ok in after if ok), None)
    stays = first is not None and all(ok for t, ok in after if t >= first)
    at = [ok for t, ok in after if t <= WITHIN]
    return first, stays, (at[-1] if at else False)


def report(results: dict, quick: bool) -> None:
    md, png = _common.outputs(NAME, quick)
    n = QUICK_N if quick else N
    lines = _common.heading(
        NAME, quick, "Feature importances: recovery and drift",
        f"{TREES} trees, seed {SEED}, defaults; recovery on {n:,} samples (Agrawal with "
        "balanced classes); the halflife on the tuning half's drifting Agrawal streams (with "
        "drift.ADWIN(delta=0.001)) and friedman; an abrupt switch Agrawal "
        f"{SWITCH[0]} -> {SWITCH[1]} with drift.ADWIN(delta=0.001)")
    # recovery
    clfs, regs = _estimators("clf"), _estimators("reg")
    lines += ["## Recovery", "",
              "A cell says whether every feature the function reads ranks above every "
              "irrelevant one (yes), else the informative features' ranks (of 9). Irrelevant: "
              "not read by the function, nor a proxy of a feature it reads (the generator "
              "sets commission to 0 exactly when salary >= 75,000, so commission carries "
              "salary's information; and hvalue is (8 - zipcode) * 100,000 * U(0.5, 1.5), so "
              "zipcode carries hvalue's). Agrawal functions 0-9 for the classifiers, Friedman "
              "#1 for the regressors.", "",
              "| estimator | " + " | ".join(f"f{f}" for f in AGRAWAL) + " | recovered |",
              "|---|" + "---|" * len(AGRAWAL) + "---:|"]
    total, ok_all = 0, 0
    for est in clfs:
        cells, ok = [], 0
        for f in AGRAWAL:
            r = results.get(f"recover-{est}-agrawal{f}")
            if r is None:
                cells.append("–")
                continue
            ranks = _ranked(r["importances"])
            if r["recovered"]:
                cells.append("yes")
                ok += 1
            else:
                cells.append(",".join(str(ranks.index(k) + 1) for k in sorted(
                    r["truth"], key=ranks.index)))
        total += len(AGRAWAL)
        ok_all += ok
        lines.append(f"| {est} | " + " | ".join(cells) + f" | {ok}/{len(AGRAWAL)} |")
    lines += ["", "| estimator | Friedman #1: top five | ranks of features 0-4 | recovered |",
              "|---|---|---|---:|"]
    for est in regs:
        r = results.get(f"recover-{est}-friedman")
        if r is None:
            continue
        ranks = _ranked(r["importances"])
        lines.append(f"| {est} | {', '.join(ranks[:5])} | "
                     f"{', '.join(str(ranks.index(str(k)) + 1) for k in sorted(FRIEDMAN))} | "
                     f"{'yes' if r['recovered'] else 'no'} |")
    lines += ["", f"Agrawal functions recovered: {ok_all} of {total} (forest x function).", ""]
    shares = [(f, results[f"balance-agrawal{f}"]["majority"]) for f in AGRAWAL
              if f"balance-agrawal{f}" in results]
    if shares:
        lines += ["Why the classes are balanced: without `balance_classes`, the share of the "
                  "majority class (seed 7) is " + ", ".join(f"f{f} {v:.3f}" for f, v in shares)
                  + ".", ""]
    # importances of one function, for the reader
    lines += ["Importances on Agrawal function 9 (salary, commission, elevel, hvalue, hyears):",
              "", "| estimator | " + " | ".join(sorted(AGRAWAL[9]) + ["age", "car", "zipcode",
                                                                         "loan"]) + " |",
              "|---|" + "---:|" * 9]
    cols = sorted(AGRAWAL[9]) + ["age", "car", "zipcode", "loan"]
    for est in clfs:
        r = results.get(f"recover-{est}-agrawal9")
        if r is not None:
            lines.append(f"| {est} | " + " | ".join(f"{r['importances'][c]:.3f}" for c in cols)
                         + " |")
    # halflife
    lines += ["", "## The halflife, on the tuning half", "",
              "Share of the readings (every 250 samples: after the first drift on the "
              "drifting Agrawal streams, with ADWIN; from sample 2,000 on friedman) at which "
              "the features in force rank above all others; the mean over the (forest, "
              "stream) pairs last.", "",
              "| estimator | stream | " + " | ".join(f"{h:,}" for h in HALFLIVES) + " |",
              "|---|---|" + "---:|" * len(HALFLIVES)]
    means = {h: [] for h in HALFLIVES}
    pairs = [(est, stream) for est in clfs for stream in ("agrawal-recurring", "agrawal-abrupt")]
    pairs += [(est, "friedman") for est in regs]
    for est, stream in pairs:
        cells = []
        for h in HALFLIVES:
            r = results.get(f"halflife-{est}-{stream}-{h}")
            cells.append("–" if r is None else f"{r['score']:.2f}")
            if r is not None:
                means[h].append(r["score"])
        lines.append(f"| {est} | {stream} | " + " | ".join(cells) + " |")
    lines.append("| mean | | " + " | ".join(f"{sum(v) / len(v):.3f}" if v else "–"
                                               for v in means.values()) + " |")
    scored = {h: sum(v) / len(v) for h, v in means.items() if v}
    if scored:
        best = max(scored, key=lambda h: (scored[h], -h))
        lines += ["", f"Best mean: halflife {best:,} ({scored[best]:.4f}), the default."]
    # drift
    lines += ["", f"## Drift: Agrawal {SWITCH[0]} -> {SWITCH[1]}", "",
              f"The new function's features ({', '.join(sorted(AGRAWAL[SWITCH[1]]))}) against "
              f"the old one's ({', '.join(sorted(AGRAWAL[SWITCH[0]]))}); readings every "
              f"{EVERY} samples.", "",
              "| estimator | trees swapped | first on top (samples after the switch) | "
              f"on top from then on | on top at +{WITHIN:,} |", "|---|---:|---:|---|---|"]
    drift_results = {est: results[f"drift-{est}"] for est in clfs if f"drift-{est}" in results}
    for est, r in drift_results.items():
        first, stays, at = _first_on_top(r)
        lines.append(f"| {est} | {r['swaps']} | {'never' if first is None else f'{first:,}'} | "
                     f"{'yes' if stays else 'no'} | {'yes' if at else 'no'} |")
    md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if drift_results:
        _plot(drift_results, png)


def _plot(drift_results: dict, png) -> None:
    plt = _common.pyplot()
    names = list(drift_results)
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), sharey=True)
    axes = list(axes) if len(names) > 1 else [axes]
    for ax, est in zip(axes, names):
        r = drift_results[est]
        xs = [i for i, _ in r["readings"]]
        features = sorted({k for _, imp in r["readings"] for k in imp})
        for f in features:
            style = "-" if f in r["new"] else "--" if f in r["old"] else ":"
            width = 1.8 if f in r["new"] or f in r["old"] else 0.9
            ax.plot(xs, [imp.get(f, 0.0) for _, imp in r["readings"]], style, lw=width, label=f)
        ax.axvline(r["switch_at"], color="k", lw=0.8)
        ax.set_title(est.replace("Classifier", ""), fontsize=9)
        ax.set_xlabel("samples")
    axes[0].set_ylabel("feature importance")
    axes[-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle(f"Agrawal {SWITCH[0]} -> {SWITCH[1]} at the line (ADWIN): new features solid, "
                 "old dashed, others dotted", fontsize=9)
    fig.tight_layout()
    figures.save(fig, png, dpi=110)
    plt.close(fig)
