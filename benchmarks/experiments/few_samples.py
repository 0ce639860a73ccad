"""Learning from few samples: the label-aware forests' learning curves against MOA's ARF.

    python -m benchmarks experiment few_samples            # the tuning half: choose
    python -m benchmarks experiment few_samples --quick    # its first 2,000 samples of each
    python -m benchmarks experiment few_samples_report     # the report half: report

Where the concept lives in a few of many features (Agrawal's functions, few-informative
generators, one-hot tables), the stream-partitioning forest and XForest against MOA's
adaptive random forest (10 trees), at 1,000, 2,000, 5,000 and 10,000 samples and at the end of
the stream (progressive accuracy so far, as the benchmark's checkpoints).

* **Tuning half** (the registry's tuning streams of this kind): each forest's candidate
  configurations (each its params over the package's defaults at the run, so a row that
  does not name a parameter the defaults later took shows them), 10 trees, seed 42. Among the candidates at least ``SPEED`` times as fast
  as river's ARF (median samples/s over the streams, the issue's speed target), the one of
  best mean accuracy over every (stream, checkpoint) becomes the default.
* **Report half** (the registry's report streams of this kind; ``few_samples_report``): the
  package's defaults against the 0.2 defaults and the paper's configuration, to report,
  never to choose.

The peers' curves (MOA's ARF and SRP, river's ARF) are the benchmark's own records
(``python -m benchmarks run``), read from the store: the same samples, the same protocol.
Writes ``benchmarks/results/experiments/few_samples.md`` (``_quick`` with ``--quick``) and a
plot of the curves.
"""

from __future__ import annotations

import time

from benchmarks.experiments import _common

NAME = "few_samples"
HALVES = ("tuning",)
N_ESTIMATORS = 10
SEED = 42
QUICK_N = 2_000
CHECKPOINTS = (1_000, 2_000, 5_000, 10_000)

#: the streams where few of many features carry the class, by half (registry names)
STREAMS = {
    "tuning": ("agrawal-abrupt", "agrawal-recurring", "led-noise", "one-hot", "waveform"),
    "report": ("agrawal-2", "agrawal-5", "agrawal-8", "agrawal-rare", "agrawal-gradual",
               "informative-10of200", "led-drift"),
}
#: the benchmark's models whose records give the peers' curves
PEERS = ("MOA ARF", "MOA SRP", "river ARF")
TARGET = "MOA ARF"
#: a default must learn at least this many times as fast as river's ARF (median samples/s)
SPEED = 30

#: the 0.2 defaults and the paper's configurations, written out in full (the package's
#: defaults move; ``features_per_tree`` too, 64 in 0.2)
_SP_02 = {"splitter": "points", "honest": True, "leaf_prediction": "majority",
          "structure_fraction": 0.5, "max_features": 17.0, "candidate_points": 5, "alpha": 2.0,
          "beta": 4.0, "max_active_leaves": 256, "smoothing": 0.0, "subsampling": None,
          "features_per_tree": 64}
_SP_PAPER = {**_SP_02, "max_features": 11.0, "candidate_points": 10, "alpha": 5.0, "beta": 10.0,
             "aggregation": "vote"}
#: MOA's configuration, the first round's centre (its delta written out: the package's
#: default took the fourth round's 0.1)
_SP_BASE = {"splitter": "gaussian", "honest": False, "leaf_prediction": "adaptive",
            "candidate_points": 10, "subsampling": "poisson", "subsample_rate": 6.0,
            "features_per_tree": 64, "split_confidence": 0.01}
_XF_02 = {"max_features": "sqrt", "criterion": "gini", "min_samples_split": 2, "batch_size": 100,
          "bootstrap": True, "smoothing": 0.5, "features_per_tree": 64}
_XF_PAPER = {**_XF_02, "smoothing": 0.0}
_SP_R3 = {**_SP_BASE, "candidate_points": 5, "features_per_tree": 256, "subsample_rate": 10.0}
_XF_BEST = {**_XF_02, "max_features": 0.6, "features_per_tree": 256, "bootstrap": False}

#: forest -> {label: params}; "0.2 defaults" rides along for the record, every other label
#: is a candidate (the paper's configuration competes too)
CANDIDATES = {
    "StreamPartitionForestClassifier": {
        "0.2 defaults": _SP_02,
        "paper": _SP_PAPER,
        "Gaussian, shared, adaptive, Poisson(6)": _SP_BASE,
        "... honest": {**_SP_BASE, "honest": True},
        "... majority leaves": {**_SP_BASE, "leaf_prediction": "majority"},
        "... naive Bayes leaves": {**_SP_BASE, "leaf_prediction": "naive_bayes"},
        "... no resampling": {**_SP_BASE, "subsampling": None, "subsample_rate": 1.0},
        "... Poisson(3)": {**_SP_BASE, "subsample_rate": 3.0},
        "... grace 20": {**_SP_BASE, "grace_period": 20.0},
        "... grace 200": {**_SP_BASE, "grace_period": 200.0},
        "... 9 features": {**_SP_BASE, "max_features": 9.0},
        "... 33 features": {**_SP_BASE, "max_features": 33.0},
        "... 5 thresholds": {**_SP_BASE, "candidate_points": 5},
        "... 256 features a tree": {**_SP_BASE, "features_per_tree": 256},
        "points, shared, Poisson(6)": {**_SP_02, "honest": False, "subsampling": "poisson",
                                       "subsample_rate": 6.0},
        # the second round, around the first round's best (5 thresholds)
        "5 thresholds, 9 features": {**_SP_BASE, "candidate_points": 5, "max_features": 9.0},
        "5 thresholds, 256 features a tree": {**_SP_BASE, "candidate_points": 5,
                                              "features_per_tree": 256},
        "5 thresholds, 9 features, 256 a tree": {**_SP_BASE, "candidate_points": 5,
                                                 "max_features": 9.0, "features_per_tree": 256},
        "5 thresholds, grace 20": {**_SP_BASE, "candidate_points": 5, "grace_period": 20.0},
        # the third round, around the second round's best (5 thresholds, 256 features a tree)
        "round 2, Poisson(10)": {**_SP_BASE, "candidate_points": 5, "features_per_tree": 256,
                                 "subsample_rate": 10.0},
        "round 2, 3 thresholds": {**_SP_BASE, "candidate_points": 3,
                                  "features_per_tree": 256},
        "round 2, 512 active leaves": {**_SP_BASE, "candidate_points": 5, "features_per_tree": 256,
                                       "max_active_leaves": 512},
        "round 2, grace 30": {**_SP_BASE, "candidate_points": 5, "features_per_tree": 256,
                              "grace_period": 30.0},
        # the fourth round, around the third round's best (Poisson(10))
        "round 3, Poisson(15)": {**_SP_R3, "subsample_rate": 15.0},
        "round 3, Poisson(20)": {**_SP_R3, "subsample_rate": 20.0},
        "round 3, grace 100": {**_SP_R3, "grace_period": 100.0},
        "round 3, delta 0.1": {**_SP_R3, "split_confidence": 0.1},
    },
    "XForestClassifier": {
        "0.2 defaults": _XF_02,
        "paper": _XF_PAPER,
        "60% of the features": {**_XF_02, "max_features": 0.6},
        "every feature": {**_XF_02, "max_features": None},
        "batch 50": {**_XF_02, "batch_size": 50},
        "batch 20": {**_XF_02, "batch_size": 20},
        "min_samples_split 10": {**_XF_02, "min_samples_split": 10},
        "entropy": {**_XF_02, "criterion": "entropy"},
        "no bootstrap": {**_XF_02, "bootstrap": False},
        "60%, entropy": {**_XF_02, "max_features": 0.6, "criterion": "entropy"},
        "every feature, 256 a tree": {**_XF_02, "max_features": None, "features_per_tree": 256},
        "60%, 256 a tree": {**_XF_02, "max_features": 0.6, "features_per_tree": 256},
        # the second round, around the first round's best (60%, 256 a tree)
        "60%, 256 a tree, no bootstrap": {**_XF_02, "max_features": 0.6, "features_per_tree": 256,
                                          "bootstrap": False},
        "60%, 256 a tree, smoothing 0": {**_XF_02, "max_features": 0.6, "features_per_tree": 256,
                                         "smoothing": 0.0},
        "60%, 1024 a tree": {**_XF_02, "max_features": 0.6, "features_per_tree": 1024},
        # the third round, around the second round's best (60%, 256 a tree, no bootstrap)
        "round 2, batch 200": {**_XF_BEST, "batch_size": 200},
        "round 2, min_samples_split 5": {**_XF_BEST, "min_samples_split": 5},
        "round 2, entropy": {**_XF_BEST, "criterion": "entropy"},
        "round 2, every feature": {**_XF_BEST, "max_features": None},
        "round 2, smoothing 2": {**_XF_BEST, "smoothing": 2.0},
        "round 2, Poisson(1) weights": {**_XF_BEST, "subsampling": "poisson", "subsample_rate": 1.0},
        # the fourth round, around the third round's best (batches of 200)
        "round 3, batch 400": {**_XF_BEST, "batch_size": 400},
        "round 3, min_samples_split 5": {**_XF_BEST, "batch_size": 200, "min_samples_split": 5},
        "round 3, entropy": {**_XF_BEST, "batch_size": 200, "criterion": "entropy"},
    },
}
RECORD_ONLY = ("0.2 defaults",)

#: the report half: the package's defaults ({}), the 0.2 defaults and the paper's
REPORT_CONFIGS = {forest: {"defaults": {}, "0.2 defaults": c["0.2 defaults"], "paper": c["paper"]}
                  for forest, c in CANDIDATES.items()}


def _short(forest: str) -> str:
    return forest.replace("ForestClassifier", "")


def jobs(quick: bool, halves: tuple = HALVES) -> list[tuple[str, dict]]:
    from benchmarks.streams import STREAMS as REGISTRY

    out = []
    for half in halves:
        for name in STREAMS[half]:
            s = REGISTRY[name]
            for forest in CANDIDATES:
                out.append((f"{half}-{name}-{_short(forest)}", {
                    "half": half, "stream": name, "n": min(s.n, QUICK_N) if quick else s.n,
                    "forest": forest, "n_estimators": N_ESTIMATORS, "seed": SEED,
                    "configs": CANDIDATES[forest] if half == "tuning" else REPORT_CONFIGS[forest]}))
    return out


def _curve(model, data: list) -> tuple[dict, float]:
    """Progressive accuracy at each checkpoint within the stream and at its end, and the
    seconds spent in the model's calls. A sample the model could not predict counts as an
    error here (the benchmark leaves it out): a batch-native forest predicts nothing before
    its first batch, and leaving its first batch out would favour large batches at 1,000
    samples (MOA's and our other forests predict from the second sample on)."""
    from river import metrics

    from river_forests._progressive import iter_progressive_run

    metric = metrics.Accuracy()
    points, spent = {}, 0.0
    marks = sorted({c for c in CHECKPOINTS if c <= len(data)} | {len(data)})
    for i, spent in iter_progressive_run(model, data, metric, every=1_000):
        for c in marks:
            if str(c) not in points and i >= c:
                points[str(c)] = float(metric.get()) * metric.cm.total_weight / i
    points["full"] = float(metric.get()) * metric.cm.total_weight / len(data)
    return points, spent


def measure(params: dict) -> dict:
    import river_forests

    from benchmarks.streams import STREAMS as REGISTRY

    data = REGISTRY[params["stream"]].samples(params["n"])
    cls = getattr(river_forests, params["forest"])
    out = {}
    for label, extra in params["configs"].items():
        model = cls(n_estimators=params["n_estimators"], seed=params["seed"], **extra)
        t0 = time.perf_counter()
        points, spent = _curve(model, data)
        out[label] = {"points": points, "samples_per_s": len(data) / spent if spent > 0 else None,
                      "memory": int(model._raw_memory_usage), "wall": time.perf_counter() - t0}
    return {"n": len(data), "configs": out}


# ----------------------------------------------------------------------------- the peers

#: the benchmark's names of the label-aware forests' records
BENCH_NAMES = {"StreamPartitionForestClassifier": "StreamPartitionForest",
               "XForestClassifier": "XForest"}


def peer_points(stream: str, model: str, n: int, version: str | None = None) -> dict | None:
    """The benchmark's (full) record of `model` on `stream` (the latest, or that of `version`)
    as checkpoints of a run over its first `n` samples (``None`` if the store has none): the
    accuracy so far at 1k, 2k, 5k and 10k below `n`, and at `n` ("full"; a prefix of the
    stream scores what the full run scored at that point). The benchmark's protocol: a sample
    a model could not predict is left out."""
    from benchmarks import store

    folder = "clf-" + store.slug(model)
    records = []
    for p, r in store.entries("full", stream):
        if (p.parent.name == folder and r.get("status") == "ok"
                and (version is None or r["version"].get("key") == version)):
            records.append(r)
    if not records:
        return None
    r = max(records, key=lambda r: r.get("recorded", ""))
    cp = {int(k): float(v) for k, v in r.get("checkpoints", {}).items()}
    cp[r["n"]] = float(r["metric"])
    if n not in cp:
        return None
    points = {str(k): v for k, v in cp.items() if k < n}
    points["full"] = cp[n]
    return {"points": points, "samples_per_s": r.get("samples_per_s")}


# ----------------------------------------------------------------------------- the report

def marks_of(n: int) -> list[str]:
    return [str(c) for c in CHECKPOINTS if c < n] + ["full"]


def summary(results: dict, half: str, forest: str, quick: bool) -> tuple[list, dict]:
    """Per configuration: the mean accuracy at each checkpoint over the half's streams where
    every configuration and the target were measured, the mean over every (stream,
    checkpoint), the mean gap to the target there, and the median samples/s; and the streams."""
    import numpy as np

    rows = {}
    streams = []
    for name in STREAMS[half]:
        r = results.get(f"{half}-{name}-{_short(forest)}")
        target = peer_points(name, TARGET, r["n"]) if r else None
        if r is None or target is None:
            continue
        streams.append((name, r["n"], r["configs"], target))
    labels = list(streams[0][2]) if streams else []
    for label in labels:
        per_mark = {m: [] for m in ["1000", "2000", "5000", "10000", "full"]}
        gaps, speeds = [], []
        for name, n, configs, target in streams:
            p = configs[label]["points"]
            for m in marks_of(n):
                key = m if m in p else "full"
                per_mark[m].append(p[key])
                gaps.append(p[key] - target["points"].get(m, target["points"]["full"]))
            speeds.append(configs[label]["samples_per_s"])
        rows[label] = {"marks": {m: float(np.mean(v)) if v else None for m, v in per_mark.items()},
                       "mean": float(np.mean([x for v in per_mark.values() for x in v])),
                       "gap": float(np.mean(gaps)), "speed": float(np.median(speeds))}
    return streams, rows


def _fmt(v) -> str:
    return "—" if v is None else f"{100 * v:.2f}"


def report(results: dict, quick: bool, name: str = NAME, halves: tuple = HALVES) -> None:
    import numpy as np

    md, png = _common.outputs(name, quick)
    lines = ["# Learning from few samples", "",
             f"`python -m benchmarks experiment {name}{' --quick' if quick else ''}`; "
             f"{N_ESTIMATORS} trees, seed {SEED}; {_common.version_line()}; {_common.machine()}. "
             "Progressive accuracy (%) so far at 1k, 2k, 5k and 10k samples and at the end of "
             f"each stream; the gap is to {TARGET} (10 learners), averaged over every (stream, "
             "checkpoint). The peers' rows are the benchmark's records of the same streams. A "
             "sample a model could not predict counts as an error here (XForest predicts nothing "
             "before its first batch; the peers predict from the first sample).", ""]
    missing = _common.missing(jobs(quick, halves), results)
    if missing:
        lines += [_common.missing_line(missing), ""]
    plt = _common.pyplot()
    chosen = {}
    for half in halves:
        names = STREAMS[half]
        lines += [f"## {half.capitalize()} half", "", "Streams: " + ", ".join(names) + ".", ""]
        for forest in CANDIDATES:
            streams, rows = summary(results, half, forest, quick)
            if not rows:
                continue
            cands = [lb for lb in rows if lb not in RECORD_ONLY] if half == "tuning" else list(rows)
            arf = [peer_points(name, "river ARF", n) for name, n, *_ in streams]
            floor = SPEED * float(np.median([p["samples_per_s"] for p in arf])) if all(arf) else 0.0
            fast = [lb for lb in cands if rows[lb]["speed"] >= floor] or cands
            best = max(fast, key=lambda lb: rows[lb]["mean"])
            chosen[forest] = best if half == "tuning" else "defaults"
            peers = {}
            for peer in PEERS:
                pts = [peer_points(name, peer, n) for name, n, *_ in streams]
                if all(pts):
                    per_mark = {m: [] for m in ["1000", "2000", "5000", "10000", "full"]}
                    gaps = []
                    for (name, n, _, target), p in zip(streams, pts):
                        for m in marks_of(n):
                            v = p["points"].get(m, p["points"]["full"])
                            per_mark[m].append(v)
                            gaps.append(v - target["points"].get(m, target["points"]["full"]))
                    peers[peer] = {"marks": {m: float(np.mean(v)) if v else None for m, v in per_mark.items()},
                                   "mean": float(np.mean([x for v in per_mark.values() for x in v])),
                                   "gap": float(np.mean(gaps)),
                                   "speed": float(np.median([p["samples_per_s"] for p in pts]))}
            table = []
            for label in sorted(rows, key=lambda lb: -rows[lb]["mean"]):
                r = rows[label]
                mark = " **(chosen)**" if half == "tuning" and label == best else ""
                table.append([label + mark, *(_fmt(r["marks"][m]) for m in ["1000", "2000", "5000", "10000", "full"]),
                              f"{100 * r['mean']:.2f}", f"{100 * r['gap']:+.2f}", f"{r['speed']:,.0f}"])
            for peer, r in peers.items():
                table.append([f"*{peer}*", *(_fmt(r["marks"][m]) for m in ["1000", "2000", "5000", "10000", "full"]),
                              f"{100 * r['mean']:.2f}", f"{100 * r['gap']:+.2f}",
                              f"{r['speed']:,.0f}" if r["speed"] else "—"])
            lines += [f"### {_short(forest)} ({len(streams)} streams)", ""]
            lines += _common.markdown_table(
                ["configuration", "1k", "2k", "5k", "10k", "end", "mean", f"gap to {TARGET}", "median samples/s"],
                table) + [""]
            if half == "tuning":
                slow = [lb for lb in cands if lb not in fast]
                lines += [f"Chosen: **{best}** = `{CANDIDATES[forest][best]}`: the best mean "
                          f"among the candidates at least {SPEED} times as fast as river's ARF "
                          f"({floor:,.0f} samples/s)" + (f"; slower: {', '.join(slow)}" if slow else "")
                          + ".", ""]
            # per stream, the forest's first row against the target
            head = "defaults" if half == "report" else best
            lines += [f"Per stream, {head} against the peers (1k / 2k / 5k / 10k / end):", ""]
            per = []
            for name, n, configs, target in streams:
                cells = [name]
                for who in (head, *PEERS):
                    p = configs[who]["points"] if who == head else (peer_points(name, who, n) or {}).get("points")
                    cells.append(" / ".join(_fmt(p.get(m, p.get("full"))) for m in marks_of(n)) if p else "—")
                per.append(cells)
            lines += _common.markdown_table(["stream", f"{_short(forest)} {head}", *PEERS], per) + [""]
        # the same comparison in the benchmark's own records (its protocol leaves out a sample
        # a model could not predict: XForest's first batch), at this code version
        from benchmarks import store

        key = store.our_version()["key"]
        table = []
        from benchmarks.streams import STREAMS as REGISTRY

        ours = list(BENCH_NAMES.values())
        # MOA's ARF carries ADWIN detectors: our forests with the same ones where the stream
        # drifts (the benchmark's "+ ADWIN" rows), beside them as they come
        adwin = [f"{o} (+ ADWIN where the stream drifts)" for o in ours]
        for who in (*ours, *adwin, *PEERS):
            per_mark = {m: [] for m in ["1000", "2000", "5000", "10000", "full"]}
            ok = True
            for name in names:
                n = min(REGISTRY[name].n, QUICK_N) if quick else REGISTRY[name].n
                model = who.split(" (+")[0] + (" + ADWIN" if who in adwin and REGISTRY[name].drifting else "")
                p = peer_points(name, model, n, key if who in ours or who in adwin else None)
                if p is None:
                    ok = False
                    break
                for m in marks_of(n):
                    per_mark[m].append(p["points"].get(m, p["points"]["full"]))
            if ok:
                table.append([who, *(_fmt(float(np.mean(v))) if v else "—" for v in per_mark.values())])
        if table:
            lines += [f"### In the benchmark's records ({key} for ours)", "",
                      "The defaults' rows of the benchmark (`python -m benchmarks run`), whose "
                      "protocol leaves out a sample a model could not predict (XForest's first "
                      "batch of 100), on the same streams; mean accuracy (%) so far:", ""]
            lines += _common.markdown_table(["model", "1k", "2k", "5k", "10k", "end"], table) + [""]
        # the curves of the half's streams: the forests' defaults or chosen rows and the peers
        fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.6), squeeze=False)
        for ax, name in zip(axes[0], names):
            for forest in CANDIDATES:
                r = results.get(f"{half}-{name}-{_short(forest)}")
                if r is None:
                    continue
                label = chosen.get(forest, "defaults")
                p = r["configs"][label]["points"]
                xs = [int(m) for m in marks_of(r["n"]) if m != "full"] + [r["n"]]
                ax.plot(xs, [100 * p.get(str(x), p["full"]) for x in xs], marker="o", label=_short(forest))
            for peer in PEERS:
                r = results.get(f"{half}-{name}-{_short(next(iter(CANDIDATES)))}")
                p = peer_points(name, peer, r["n"]) if r else None
                if p:
                    xs = [c for c in CHECKPOINTS if c < r["n"]] + [r["n"]]
                    ax.plot(xs, [100 * p["points"].get(str(x), p["points"]["full"]) for x in xs],
                            marker=".", linestyle="--", label=peer)
            ax.set_xscale("log")
            _common.label_axes(ax, "samples", "progressive accuracy (%)", name)
        axes[0][0].legend(fontsize=7)
        _common.save_figure(fig, png.with_name(png.stem + f"_{half}.png"))
    md.write_text("\n".join(lines) + "\n")
    print(f"wrote {md}")
