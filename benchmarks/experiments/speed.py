"""Speed as a ratio measured in one run: our forests against river's AMF and ARF.

    python -m benchmarks experiment speed --jobs 1            # about 4 minutes
    python -m benchmarks experiment speed --quick --jobs 1    # about a minute

**Run it with ``--jobs 1`` on an otherwise idle machine**: each job measures every model of
its setting in one process, in interleaved rounds (ours three times, river's twice; the
best round of each is kept, since a shared machine only ever adds time; every model first
runs 200 rows untimed, so imports and first calls stay out of the clock), so that a ratio
compares models measured side by side. Prequential, as the benchmark runs (``progressive_run``:
``predict_proba_one`` then ``learn_one`` each sample, only the model's calls timed; XForest in
its mini-batches, ``predict_proba_many`` then ``learn_many``, and also fed one sample at a
time), 10 trees, seed 42, every forest of ours at its defaults.

Settings (one job each):

* ``elec-10000`` and ``elec-all``: elec's first 10,000 rows (where the trees fill and recycle
  most) and all 45,312, read as the benchmark's former scripts read them
  (``_common.samples``); our forests, river's AMF and ARF;
* ``bag-of-words``: the benchmark's wide sparse stream (50,000-word vocabulary, 20 words a
  sample), its first ``WIDE_ROWS`` samples; our forests and river's ARF, with each model's
  size at the end (river's ``_raw_memory_usage``);
* ``one-hot-1000``: a one-hot table of 1,000 columns (`one_hot_1000`), its first
  ``WIDE_ROWS`` samples; as ``bag-of-words``;
* ``test-then-train``: on elec's first 10,000 rows, each of our forests' time for
  ``learn_one`` alone against ``predict_proba_one`` then ``learn_one`` of the same sample
  (three rounds, best of each).

The report also reads, from the benchmark's store, each of our forests' speed against river's
ARF on every stream of the full run at this code version (``python -m benchmarks run``):
those ratios are of separate runs (river's records are reused across versions).
Writes ``benchmarks/results/experiments/speed.md`` (``speed_quick.md`` with ``--quick``).
"""

from __future__ import annotations

import time

from benchmarks.experiments import _common

NAME = "speed"
SEED = 42
TREES = 10
ROUNDS = 3
RIVER_ROUNDS = 2
WIDE_ROWS, QUICK_WIDE_ROWS = 2_000, 300
ELEC_ALL, QUICK_ROWS = 45_312, 2_000
RIVER = ["river AMF", "river ARF"]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    short = QUICK_ROWS if quick else None
    return [
        ("elec-10000", {"setting": "elec", "rows": short or 10_000, "peers": RIVER}),
        ("elec-all", {"setting": "elec", "rows": short or ELEC_ALL, "peers": RIVER}),
        ("bag-of-words", {"setting": "wide", "rows": QUICK_WIDE_ROWS if quick else WIDE_ROWS,
                          "peers": ["river ARF"]}),
        ("one-hot-1000", {"setting": "wide", "stream": "one-hot-1000",
                          "rows": QUICK_WIDE_ROWS if quick else WIDE_ROWS, "peers": ["river ARF"]}),
        ("test-then-train", {"setting": "overhead", "rows": short or 10_000, "peers": []}),
    ]


def _ours() -> dict:
    """Our classifiers at their defaults, one per variant (``_common.our_variants``), and
    XForest fed one sample at a time as well."""
    out = {}
    for label, (cls, params) in _common.our_variants("clf").items():
        out[label] = (lambda cls=cls, params=params:
                      cls(n_estimators=TREES, seed=SEED, **params), None)
        if not getattr(cls, "_learn_many_equals_learn_one", True):
            out[label + ", learn_one"] = (lambda cls=cls, params=params:
                                          cls(n_estimators=TREES, seed=SEED, **params), "one")
    return out


def _river(name: str):
    from river import forest

    if name == "river AMF":
        return forest.AMFClassifier(n_estimators=TREES, seed=SEED)
    return forest.ARFClassifier(n_models=TREES, seed=SEED)


def one_hot_1000(n: int) -> list:
    """A one-hot table of 1,000 columns: the benchmark's ``one-hot`` stream (`streams._one_hot`:
    0/1 columns, every one a key; an absent key would be a missing value to our forests, and a
    column only ever 1 where present cannot be cut), with 10 attributes of 100 values instead
    of 8 of 30."""
    from benchmarks.streams import _one_hot

    return _one_hot(n, n_attributes=10, n_values=100)


def samples(stream: str, rows: int) -> list:
    """The first `rows` samples of `stream`: ``elec``, the benchmark's ``bag-of-words``, or
    ``one-hot-1000`` (`one_hot_1000`)."""
    if stream == "bag-of-words":
        from benchmarks.streams import STREAMS

        return STREAMS["bag-of-words"].samples()[:rows]
    if stream == "one-hot-1000":
        return one_hot_1000(rows)
    return _common.samples("elec", rows)


def _data(params: dict) -> list:
    return samples(params.get("stream", "elec" if params["setting"] != "wide" else "bag-of-words"),
                   params["rows"])


def _prequential(model, data, fed):
    """(accuracy, samples/s in the model's calls): predict then learn, as the benchmark."""
    from river import metrics

    from river_forests import _progressive

    metric = metrics.Accuracy()
    if fed == "one":  # a batch-native forest fed one sample at a time
        spent, seen = 0.0, 0
        for seen, spent in _progressive._one_by_one(model, data, metric):
            pass
        return metric.get(), seen / spent
    r = _progressive.progressive_run(model, data, metric)
    return r.metric, r.samples_per_s


def _learn_only(model, data) -> float:
    clock = time.perf_counter
    spent = 0.0
    for x, y in data:
        t = clock()
        model.learn_one(x, y)
        spent += clock() - t
    return len(data) / spent


def measure(params: dict) -> dict:
    data = _data(params)
    ours = _ours()
    out: dict = {"rows": len(data), "models": {}, "environment": _common.machine(),
                 "load": _common.load_average()}
    if params["setting"] == "overhead":  # a batch forest's learn_one buffers: no walk to take up
        ours = {k: v for k, v in ours.items()
                if v[1] is None and getattr(v[0](), "_learn_many_equals_learn_one", True)}
    # a first pass of every model on a few rows, untimed: imports and first calls out of the clock
    for make, fed in list(ours.values()) + [(lambda n=n: _river(n), None) for n in params["peers"]]:
        _prequential(make(), data[:200], fed)
    for r in range(ROUNDS):
        for label, (make, fed) in ours.items():
            m = out["models"].setdefault(label, {"speeds": []})
            if params["setting"] == "overhead":
                m.setdefault("learn_only", []).append(_learn_only(make(), data))
            model = make()
            accuracy, speed = _prequential(model, data, fed)
            m["speeds"].append(speed)
            m["accuracy"] = accuracy
            if params["setting"] == "wide":
                m["memory"] = int(model._raw_memory_usage)
        if r < RIVER_ROUNDS:
            for name in params["peers"]:
                model = _river(name)
                accuracy, speed = _prequential(model, data, None)
                m = out["models"].setdefault(name, {"speeds": []})
                m["speeds"].append(speed)
                m["accuracy"] = accuracy
                if params["setting"] == "wide":
                    m["memory"] = int(model._raw_memory_usage)
    for m in out["models"].values():
        m["best"] = max(m["speeds"])
        if "learn_only" in m:
            m["learn_only_best"] = max(m["learn_only"])
    return out


def _store_ratios() -> tuple[list, str]:
    """Each of our forests' speed over river ARF's on every stream of the benchmark's full run
    at this code version: (rows of the table, the version)."""
    from benchmarks import store

    try:
        key = store.our_version()["key"]
    except store.DirtyTree:
        return [], "a tree with uncommitted changes"
    recs = [r for r in store.records("full") if r.get("status") == "ok"]
    arf = {(r["stream"], r["task"]): r["samples_per_s"] for r in recs
           if r["model"] in ("river ARF",) and r["family"] == "river"}
    ratios: dict = {}
    for r in recs:
        if r["family"] != "ours" or r["version"]["key"] != key or "ADWIN" in r["model"]:
            continue
        base = arf.get((r["stream"], r["task"]))
        if base and r["samples_per_s"]:
            ratios.setdefault((r["task"], r["model"]), []).append((r["samples_per_s"] / base, r["stream"]))
    rows = []
    for (task, model), values in sorted(ratios.items()):
        values.sort()
        low, stream = values[0]
        geo = 1.0
        for v, _ in values:
            geo *= v ** (1.0 / len(values))
        below = sum(v < 50.0 for v, _ in values)
        rows.append([task, model, len(values), f"{geo:,.0f}x", f"{low:,.1f}x ({stream})",
                     f"{below}"])
    return rows, key


def report(results: dict, quick: bool) -> None:
    md, _ = _common.outputs(NAME, quick)
    lines = _common.heading(NAME, quick, "Speed, as ratios measured in one run",
                            f"{TREES} trees, seed {SEED}; best of {ROUNDS} rounds for ours, "
                            f"{RIVER_ROUNDS} for river's (interleaved, in one process per "
                            "setting); prequential, the models' calls timed")
    for job, title in (("elec-10000", "elec, first rows"), ("elec-all", "elec, every row")):
        r = results.get(job)
        if r is None:
            continue
        amf = r["models"].get("river AMF", {}).get("best")
        arf = r["models"].get("river ARF", {}).get("best")
        rows = []
        for label, m in r["models"].items():
            rows.append([label, f"{100 * m['accuracy']:.2f}%", f"{m['best']:,.0f}",
                         f"{m['best'] / amf:,.1f}x" if amf else "—",
                         f"{m['best'] / arf:,.1f}x" if arf else "—"])
        lines += [f"## {title} ({r['rows']:,} rows)", ""] + _common.markdown_table(
            ["model", "accuracy", "samples/s", "÷ river AMF", "÷ river ARF"], rows) + [""]
    for job, title in (("bag-of-words", "The wide sparse stream (bag of words, 50,000 words, "
                                        "20 a sample"),
                       ("one-hot-1000", "A one-hot table of 1,000 columns (10 of them 1 "
                                        "a sample")):
        r = results.get(job)
        if r is None:
            continue
        arf = r["models"].get("river ARF", {}).get("best")
        rows = [[label, f"{100 * m['accuracy']:.2f}%", f"{m['best']:,.0f}",
                 f"{m['best'] / arf:,.1f}x" if arf else "—", f"{m.get('memory', 0) / 1e6:,.1f}"]
                for label, m in r["models"].items()]
        lines += [f"## {title}; first {r['rows']:,} samples)", ""] + \
            _common.markdown_table(["model", "accuracy", "samples/s", "÷ river ARF", "MB at the end"],
                                   rows) + [""]
    r = results.get("test-then-train")
    if r is not None:
        rows = [[label, f"{m['learn_only_best']:,.0f}", f"{m['best']:,.0f}",
                 f"{m['learn_only_best'] / m['best']:.2f}"]
                for label, m in r["models"].items() if "learn_only_best" in m]
        lines += [f"## Test-then-train against learning alone (elec, {r['rows']:,} rows)", "",
                  "The cost of `predict_proba_one` then `learn_one` of each sample over "
                  "`learn_one` alone (the learn takes up the walk the prediction left).", ""] + \
            _common.markdown_table(["forest", "learn_one alone, samples/s",
                                    "predict then learn, samples/s", "cost ratio"], rows) + [""]
    rows, key = _store_ratios()
    lines += ["## Every stream of the benchmark (its store)", "",
              f"Our forests' samples/s over river ARF's, stream by stream, in the full run's "
              f"records of code version `{key}` (river's records reused: separate runs).", ""]
    lines += _common.markdown_table(["task", "forest", "streams", "geometric mean", "lowest",
                                     "streams under 50x"], rows) if rows else \
        ["No record of this version yet: run `python -m benchmarks run` first."]
    md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
