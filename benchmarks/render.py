"""The renderer: the store's records of one version of ours (and the peers') as a report.

For each task and half: a table of the metric per stream (accuracy, or MAE for regression;
the best of each stream in bold), each model's average rank, a Friedman test over the streams
and a critical-difference diagram (Nemenyi post-hoc, from ``scikit-posthocs``), the speed and
memory of each model as a ratio to river's ARF on the same stream (geometric mean over the
streams), and learning curves. On the drifting streams, a second table adds our forests with
drift detectors (``+ ADWIN``).

A model whose run on a stream was stopped by ``--max-seconds`` ranks last there and shows "—".
A stream on which some model has no record yet (not run, or failed) is left out of the ranks
and named under the table, so a partial store never ranks a model on streams it was not
measured on. Peers' records are used only when they
measured the same samples as ours (the ``data`` digest), and only records of one version of
ours are read (``store.select``), so a table never mixes two versions of our code.

Writes ``results/report/<mode>.md``, ``<mode>.csv`` and the figures under
``results/report/<mode>/``; the docs' benchmark page includes the full run's report. It also
writes the "which forest when" page (``results/report/which.md``, ``which-quick.md`` for the
quick run; the docs' page of that name includes the full run's): the report half's average
ranks by group of streams (few or many classes, few or many features, drifting, label-sparse,
regression), the best of ours and the best peer in each, and our forests' speed and memory.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import numpy as np

from benchmarks import figures, store
from benchmarks import streams as stream_registry

OUT = Path(__file__).resolve().parent / "results" / "report"
REFERENCE = "river ARF"
FAMILY_ORDER = {"ours": 0, "river": 1, "moa": 2}
CURVE_CHECKPOINTS = ("1000", "2000", "5000", "10000")


def _complete(r: dict) -> bool:
    return r.get("status") == "ok" and r.get("metric") is not None and not math.isnan(r["metric"])


def table(recs: list[dict], task: str, half: str, with_detectors: bool = False, long: bool = False):
    """``(streams, models, values)``: values[stream][model] = record (complete or not). The
    long streams (category "long", where only four peers run) are apart: `long` selects them
    alone, else they are left out."""
    names = [s.name for s in stream_registry.streams(task, half)
             if (not with_detectors or s.drifting) and (s.category == "long") == long]
    values = defaultdict(dict)
    for r in recs:
        if r["task"] == task and r["stream"] in names:
            if r["model"].endswith(" + ADWIN") and not with_detectors:
                continue
            values[r["stream"]][r["model"]] = r
    names = [s for s in names if s in values]
    models = sorted({m for s in names for m in values[s]},
                    key=lambda m: (FAMILY_ORDER[_family(recs, m)], m))
    return names, models, values


def split_complete(names, models, values):
    """The streams every model has a record on, and the others with the models they lack."""
    full = [s for s in names if all(m in values[s] for m in models)]
    partial = {s: [m for m in models if m not in values[s]] for s in names if s not in full}
    return full, partial


def _family(recs, model):
    return next(r["family"] for r in recs if r["model"] == model)


def ranks(names, models, values, task):
    """Per-stream ranks (1 = best, ties averaged; incomplete = last) as an array."""
    from scipy.stats import rankdata

    sign = -1.0 if task == "clf" else 1.0
    out = np.zeros((len(names), len(models)))
    for i, s in enumerate(names):
        row = [sign * values[s][m]["metric"] if m in values[s] and _complete(values[s][m]) else math.inf
               for m in models]
        out[i] = rankdata(row, method="average")
    return out


def friedman(rank_matrix) -> tuple[float, float] | None:
    from scipy.stats import friedmanchisquare

    if rank_matrix.shape[0] < 2 or rank_matrix.shape[1] < 3:
        return None
    stat, p = friedmanchisquare(*rank_matrix.T)
    return float(stat), float(p)


def cd_diagram(names, models, values, task, rank_matrix, path: Path, title: str) -> bool:
    """A critical-difference diagram (Nemenyi after Friedman) drawn by scikit-posthocs."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import pandas as pd
        import scikit_posthocs as sp
    except ImportError:
        return False
    if rank_matrix.shape[0] < 2 or len(models) < 3:
        return False
    # Nemenyi on the ranks (higher is better for the test's input: negate ranks)
    frame = pd.DataFrame(-rank_matrix, columns=models)
    pvalues = sp.posthoc_nemenyi_friedman(frame)
    avg = pd.Series(rank_matrix.mean(axis=0), index=models)
    fig, ax = plt.subplots(figsize=(10, 2 + 0.22 * len(models)))
    sp.critical_difference_diagram(avg, pvalues, ax=ax, label_fmt_left="{label} ({rank:.1f})  ",
                                   label_fmt_right="  ({rank:.1f}) {label}")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figures.save(fig, path, dpi=110)
    plt.close(fig)
    return True


def _geomean(xs):
    xs = [x for x in xs if x is not None and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def ratios(names, models, values, key):
    """Per model, the geometric mean over streams of its `key` divided by river's ARF's."""
    out = {}
    for m in models:
        xs = []
        for s in names:
            r, ref = values[s].get(m), values[s].get(REFERENCE)
            if r and ref and _complete(r) and _complete(ref) and r.get(key) and ref.get(key):
                xs.append(r[key] / ref[key])
        out[m] = _geomean(xs)
    return out


def curves(recs, name, task, path: Path):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for r in sorted((r for r in recs if r["stream"] == name and r["task"] == task),
                    key=lambda r: (FAMILY_ORDER[r["family"]], r["model"])):
        if not r["curve"]:
            continue
        xs, ys = zip(*r["curve"])
        style = {"ours": "-", "river": "--", "moa": ":"}[r["family"]]
        ax.plot(xs, ys, style, label=r["model"], linewidth=1.2)
    ax.set_xlabel("samples")
    ax.set_ylabel("prequential accuracy" if task == "clf" else "prequential MAE")
    ax.set_title(name)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figures.save(fig, path, dpi=90)
    plt.close(fig)
    return True


def _fmt(x, task):
    return f"{x:.3f}" if task == "clf" else f"{x:.4g}"


def _cell(x, spec: str) -> str:
    """`x` formatted by `spec`, or "—" when there is none."""
    return format(x, spec) if x else "—"


def section(recs, task, half, mode, with_detectors=False) -> list[str]:
    names, models, values = table(recs, task, half, with_detectors)
    metric = "accuracy" if task == "clf" else "MAE"
    label = {"clf": "classification", "reg": "regression"}[task]
    what = "drifting streams, with our forests' detectors" if with_detectors else "all streams"
    lines = [f"### {half.capitalize()} half, {label}: {what}", ""]
    if not names:
        return lines + ["No records.", ""]
    names, partial = split_complete(names, models, values)
    if not names:
        return lines + [f"No stream has a record of every model yet ({len(partial)} partly measured).", ""]
    rk = ranks(names, models, values, task)
    avg = dict(zip(models, rk.mean(axis=0)))
    lines += [f"{len(names)} streams, {len(models)} models; {metric}, best of each stream in bold; "
              "— marks a run stopped before the end of the stream (ranked last).", ""]
    header = ["stream", *models]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    sign = 1 if task == "clf" else -1
    for s in names:
        done = {m: values[s][m]["metric"] for m in models if m in values[s] and _complete(values[s][m])}
        best = max(done.values(), key=lambda v: sign * v) if done else None
        cells = []
        for m in models:
            if m not in done:
                cells.append("—")
            else:
                text = _fmt(done[m], task)
                cells.append(f"**{text}**" if done[m] == best else text)
        lines.append("| " + " | ".join([s, *cells]) + " |")
    speed = ratios(names, models, values, "samples_per_s")
    memory = ratios(names, models, values, "memory")
    lines += ["", "| model | average rank | speed ÷ river ARF | memory ÷ river ARF |", "|---|---|---|---|"]
    for m in sorted(models, key=lambda m: avg[m]):
        lines.append(f"| {m} | {avg[m]:.2f} | {_cell(speed[m], '.2f')} | {_cell(memory[m], '.3f')} |")
    if partial:
        lines += ["", f"Not in these ranks yet ({len(partial)} streams without a record of every "
                  "model): " + "; ".join(f"{s} (no {', '.join(ms)})" for s, ms in partial.items()) + "."]
    if task == "reg":
        lines += best_input_ranks(names, models, values, recs)
    test = friedman(rk)
    lines.append("")
    if test:
        lines.append(f"Friedman test over {len(names)} streams: chi² = {test[0]:.1f}, p = {test[1]:.2g}.")
    tag = f"{task}-{half}" + ("-drift" if with_detectors else "")
    png = OUT / mode / f"cd-{tag}.png"
    if cd_diagram(names, models, values, task, rk, png,
                  f"{half} half, {label} ({what}): average ranks, Nemenyi critical difference"):
        lines += ["", f"![critical-difference diagram, {tag}]({png.relative_to(OUT).as_posix()})"]
    lines.append("")
    return lines


#: river's regressors the benchmark feeds both raw and scaled: each at its better input on
#: each stream (issue 47: on a real hourly-demand stream river's ARF does better raw)
BEST_INPUT = {"river ARF": ("river ARF", "river ARF (scaled)"),
              "river HT": ("river HT", "river HT (scaled)")}


def best_input_ranks(names, models, values, recs) -> list[str]:
    """Our regressors' average ranks against river's ARF and Hoeffding tree, each of those
    taking, on each stream, the better of its raw and scaled runs."""
    ours = [m for m in models if _family(recs, m) == "ours"]
    peers = {label: pair for label, pair in BEST_INPUT.items() if all(m in models for m in pair)}
    if not ours or not peers:
        return []
    vals = {s: {m: values[s][m] for m in ours if m in values[s]} for s in names}
    for s in names:
        for label, pair in peers.items():
            done = [values[s][m] for m in pair if m in values[s] and _complete(values[s][m])]
            if done:
                vals[s][label] = min(done, key=lambda r: r["metric"])
    cols = ours + list(peers)
    rk = ranks(names, cols, vals, "reg")
    avg = dict(zip(cols, rk.mean(axis=0)))
    lines = ["", "Ours against river's ARF and Hoeffding tree, each at its better input on each "
             "stream (raw or scaled), ranked among these only:", "",
             "| model | average rank |", "|---|---|"]
    return lines + [f"| {m} | {avg[m]:.2f} |" for m in sorted(cols, key=lambda m: avg[m])]


def learning_points(recs, task, half) -> list[str]:
    """Average metric at 1k, 2k, 5k, 10k samples and at the end, over the half's streams long
    enough, per model (what issue-style targets on the learning curve read)."""
    names, models, values = table(recs, task, half)
    names, _ = split_complete(names, models, values)
    lines = ["| model | " + " | ".join(f"{int(c):,}" for c in CURVE_CHECKPOINTS) + " | end |",
             "|---|" + "---|" * (len(CURVE_CHECKPOINTS) + 1)]
    for m in models:
        cells = []
        for c in (*CURVE_CHECKPOINTS, "end"):
            xs = [values[s][m]["metric"] if c == "end" else values[s][m]["checkpoints"].get(c)
                  for s in names if m in values[s] and _complete(values[s][m])
                  and (c == "end" or values[s][m]["n"] >= int(c))]
            xs = [x for x in xs if x is not None]
            cells.append(f"{sum(xs) / len(xs):.3f} ({len(xs)})" if xs else "—")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    return lines


#: the checkpoints of the long streams' tables (and the end, and the last tenth)
LONG_CHECKPOINTS = ("10000", "50000", "200000")


def _last_tenth(record: dict) -> float | None:
    """The metric over the last tenth of the stream, from the record's cumulative curve (a
    curve point every 1,000 rows on a long stream)."""
    curve = record.get("curve") or []
    if len(curve) < 10:
        return None
    (end_i, end_v), start = curve[-1], None
    for i, v in curve:
        if i <= end_i * 0.9:
            start = (i, v)
    if start is None:
        return None
    i, v = start
    return (end_v * end_i - v * i) / (end_i - i)


def long_section(recs, half: str, mode: str) -> list[str]:
    """The long streams of a half: per stream, each model's accuracy at 10k, 50k and 200k rows,
    at the end and over the last tenth, samples/s as a ratio to river's ARF on the stream, and
    memory; then each model's average rank by the last tenth over the streams every model
    finished. Our forests run on them with river's ARF and AMF and MOA's ARF and SRP only."""
    names, models, values = table(recs, "clf", half, long=True)
    lines = [f"### {half.capitalize()} half, classification: long streams", ""]
    if not names:
        return lines + ["No records.", ""]
    lines += ["Accuracy (cumulative, as `progressive_val_score` prints it) at each checkpoint and "
              "at the end; over the stream's last tenth; samples/s ÷ river ARF's on the stream; "
              "MB at the peak (MOA reports none). — : not reached (a run stopped early, "
              "ranked last).", ""]
    header = ["model", *(f"{int(c) // 1000}k" for c in LONG_CHECKPOINTS), "end", "last tenth",
              "speed ÷ river ARF", "MB"]
    lasts = defaultdict(dict)
    for s in names:
        n = stream_registry.STREAMS[s].n
        lines += [f"**{s}** ({n:,} rows; {stream_registry.STREAMS[s].source})", "",
                  "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        ref = values[s].get(REFERENCE)
        for m in models:
            r = values[s].get(m)
            if r is None:
                continue
            ok = _complete(r)
            last = _last_tenth(r) if ok else None
            if last is not None:
                lasts[s][m] = last
            speed = (r["samples_per_s"] / ref["samples_per_s"] if ref and ref.get("samples_per_s")
                     and r.get("samples_per_s") else None)
            cells = [_cell(r["checkpoints"].get(c), ".3f") if int(c) <= n else "" for c in LONG_CHECKPOINTS]
            cells += [_cell(r["metric"] if ok else None, ".3f"), _cell(last, ".3f"),
                      _cell(speed, ".1f"), _cell(r["memory"] / 1e6 if r.get("memory") else None, ",.1f")]
            lines.append("| " + " | ".join([m, *cells]) + " |")
        lines += ["", f"![{s}](" + (OUT / mode / "curves" / f"{s}.png").relative_to(OUT).as_posix() + ")", ""]
    full = [s for s in names if all(m in lasts[s] for m in models)]
    if full:
        import numpy as np
        from scipy.stats import rankdata

        rk = np.array([rankdata([-lasts[s][m] for m in models]) for s in full]).mean(axis=0)
        lines += [f"Average rank by the last tenth over {len(full)} long streams ({', '.join(full)}):", "",
                  "| model | average rank |", "|---|---|"]
        lines += [f"| {m} | {r:.2f} |" for r, m in sorted(zip(rk, models))]
        lines.append("")
    return lines


def consistent(recs: list[dict], ours: str | None) -> list[dict]:
    """Peers' records that measured the same samples as our records on the same stream."""
    digest = {(r["stream"], r["task"]): r["data"] for r in recs if r["family"] == "ours"}
    return [r for r in recs if r["family"] == "ours" or digest.get((r["stream"], r["task"])) in (None, r["data"])]


def provenance(recs: list[dict]) -> str:
    """Which version of ours and which peers' versions the records are."""
    mine = [r for r in recs if r["family"] == "ours"]
    peers = "Peers: " + ("; ".join(sorted({r["version"]["library"] for r in recs
                                            if r["family"] != "ours"})) or "none") + "."
    if not mine:
        return f"No records of ours in the store for this run. {peers}"
    v = mine[0]["version"]
    return (f"Our forests: code version `{v['key']}` (commit `{v['commit'][:10]}`, "
            f"package {v['package']}). {peers}")


# ------------------------------------------------------------------ which forest when

FEW_CLASSES = 3
FEW_FEATURES = 20
#: each group's table lists its TOP models, every one of ours and these peers, whatever their rank
TOP = 5
LANDMARKS = (REFERENCE, "MOA ARF")
FAMILY_LABEL = {"ours": "ours", "river": "river", "moa": "MOA"}

#: the groups of the "which forest when" page: (name, what its streams are, task, whether our
#: forests' detector variants join, test on the stream and its (classes, features) or None)
GROUPS = (
    ("few classes", f"classification streams of at most {FEW_CLASSES} classes", "clf", False,
     lambda s, d: d is not None and d[0] <= FEW_CLASSES),
    ("many classes", f"classification streams of more than {FEW_CLASSES} classes", "clf", False,
     lambda s, d: d is not None and d[0] > FEW_CLASSES),
    ("few features", f"classification streams of at most {FEW_FEATURES} features", "clf", False,
     lambda s, d: d is not None and d[1] <= FEW_FEATURES),
    ("many features", f"classification streams of more than {FEW_FEATURES} features", "clf", False,
     lambda s, d: d is not None and d[1] > FEW_FEATURES),
    ("drifting", "classification streams that drift (our forests also with ADWIN detectors, "
     "`+ ADWIN`)", "clf", True, lambda s, d: s.category == "drift"),
    ("label-sparse", "imbalanced classification streams (a rare label)", "clf", False,
     lambda s, d: s.category == "imbalanced"),
    ("regression", "every regression stream", "reg", False, lambda s, d: True),
)


@lru_cache(maxsize=None)
def stream_shape(name: str, n: int) -> tuple[int, int] | None:
    """(distinct labels, distinct features) of the first `n` samples of a stream, the samples
    its records measured; None when its data cannot be loaded here."""
    try:
        data = stream_registry.STREAMS[name].samples(n)
    except (OSError, ImportError):
        return None
    return len({y for _, y in data}), len(set().union(*(x.keys() for x, _ in data)))


def groups(recs: list[dict], half: str = "report", shape=None) -> dict[str, list[str]]:
    """Each group's streams of `half` that have records (a stream can be in several groups);
    `shape(name, n)` gives a classification stream's (classes, features), ``stream_shape`` by
    default."""
    shape = shape or stream_shape
    out = {}
    for name, _, task, detectors, member in GROUPS:
        names, _, values = table(recs, task, half, detectors)
        dims = {s: shape(s, next(iter(values[s].values()))["n"]) if task == "clf" else None
                for s in names}
        out[name] = [s for s in names if member(stream_registry.STREAMS[s], dims[s])]
    return out


def group_ranks(recs, task, half, detectors, members):
    """Over the streams `members`: the streams ranked (those every model of the group has a
    record on), the others with the models they lack, and each model's average rank."""
    names, models, values = table(recs, task, half, detectors)
    names = [s for s in names if s in members]
    models = [m for m in models if any(m in values[s] for s in names)]
    ranked, partial = split_complete(names, models, values)
    avg = dict(zip(models, ranks(ranked, models, values, task).mean(axis=0))) if ranked else {}
    return ranked, partial, avg


def _best(avg: dict, family: dict, ours: bool) -> str | None:
    """The model of the lowest average rank, among ours or among the peers."""
    pool = [m for m in avg if (family[m] == "ours") == ours]
    return min(pool, key=avg.get) if pool else None


def group_section(name, what, ranked, partial, avg, family) -> list[str]:
    lines = [f"### {name.capitalize()}", "",
             f"{what[0].upper()}{what[1:]}: {len(ranked)} ranked ({', '.join(ranked) or 'none'})."]
    if partial:
        lines[-1] += (" Not ranked yet (no record of every model): "
                      + "; ".join(f"{s} (no {', '.join(ms)})" for s, ms in partial.items()) + ".")
    if not avg:
        return lines + ["", "No stream of this group has a record of every model yet.", ""]
    order = sorted(avg, key=avg.get)
    best = _best(avg, family, ours=True)
    if best:
        tied = [m for m in order if m != best and family[m] == "ours" and avg[m] == avg[best]]
        lines += ["", f"Best of ours: **{best}**, average rank {avg[best]:.2f} "
                      f"({order.index(best) + 1} of {len(order)} models"
                      + (f"; tied with {', '.join(tied)}" if tied else "") + ")."]
    shown = [m for i, m in enumerate(order) if i < TOP or family[m] == "ours" or m in LANDMARKS]
    lines += ["", "| | model | family | average rank |", "|---|---|---|---|"]
    for m in shown:
        label = f"**{m}** (best of ours)" if m == best else m
        lines.append(f"| {order.index(m) + 1} | {label} | {FAMILY_LABEL[family[m]]} | {avg[m]:.2f} |")
    if len(order) > len(shown):
        lines += ["", f"{len(order) - len(shown)} more peers rank lower (every model is in the "
                      "benchmark report)."]
    return lines + [""]


def pick_table(results: dict, family: dict) -> list[str]:
    """One row per group: the best of ours and the best peer, with their average ranks."""
    lines = ["| streams | ranked | models | best of ours | its average rank | best peer | "
             "its average rank |", "|---|---|---|---|---|---|---|"]
    for name, (ranked, _, avg) in results.items():
        mine, peer = _best(avg, family, ours=True), _best(avg, family, ours=False)
        lines.append(f"| {name} | {len(ranked)} | {len(avg)} | {mine or '—'} | "
                     f"{_cell(avg.get(mine), '.2f')} | {peer or '—'} | {_cell(avg.get(peer), '.2f')} |")
    return lines


def _median(names, model, values, key):
    xs = [values[s][model][key] for s in names
          if model in values[s] and _complete(values[s][model]) and values[s][model].get(key)]
    return statistics.median(xs) if xs else None


def speed_memory(recs, family, half: str = "report") -> list[str]:
    """Our forests' (and river's ARF's) speed and memory over the streams of `half` ranked."""
    lines = [f"| model | task | speed ÷ {REFERENCE} | median samples/s | memory ÷ {REFERENCE} | "
             "median memory (MB) |", "|---|---|---|---|---|---|"]
    for task in ("clf", "reg"):
        names, models, values = table(recs, task, half)
        names, _ = split_complete(names, models, values)
        shown = [m for m in models if family[m] == "ours" or m == REFERENCE]
        speed = ratios(names, shown, values, "samples_per_s")
        memory = ratios(names, shown, values, "memory")
        for m in shown:
            sps, mem = _median(names, m, values, "samples_per_s"), _median(names, m, values, "memory")
            lines.append(f"| {m} | {task} | {_cell(speed[m], '.2f')} | {_cell(sps, ',.0f')} | "
                         f"{_cell(memory[m], '.3f')} | {_cell(mem and mem / 1e6, '.3g')} |")
    return lines


def which(recs: list[dict], mode: str, shape=None) -> list[str]:
    """The "which forest when" page: ranks by group, the pick table, speed and memory."""
    family = {r["model"]: r["family"] for r in recs}
    members = groups(recs, "report", shape)
    results = {name: group_ranks(recs, task, "report", detectors, members[name])
               for name, _, task, detectors, _ in GROUPS}
    lines = [f"# Which forest when ({mode} run)", "",
             f"{provenance(recs)} Ranks use the report half only, never the tuning half on "
             "which our defaults were chosen; 1 is the best rank.", "",
             "## Pick in a minute", "", *pick_table(results, family), "",
             "## Ranks by group", "",
             f"Average rank of each model over the group's streams, ranked per stream as the "
             f"benchmark report ranks them; each table lists the top {TOP}, every forest of ours "
             f"and {' and '.join(LANDMARKS)}.", ""]
    for name, what, *_ in GROUPS:
        lines += group_section(name, what, *results[name], family)
    lines += ["## Speed and memory", "",
              f"Over the report half's streams ranked: samples learned and predicted per second "
              f"and peak memory, as the geometric mean of the ratio to {REFERENCE}'s on the "
              f"same stream, and as medians (higher speed, lower memory is better).", "",
              *speed_memory(recs, family), ""]
    return lines


def which_path(mode: str) -> Path:
    return OUT / ("which.md" if mode == "full" else f"which-{mode}.md")


def render(mode: str = "full", ours: str | None = None) -> Path:
    recs, ours = store.select(store.records(mode), ours)
    recs = consistent(recs, ours)
    lines = [f"# Benchmark report ({mode} run)", "", provenance(recs)]
    machines = sorted({r["machine"]["cpu"] for r in recs})
    lines += ["", f"Measured on: {'; '.join(machines)}. Prequential (predict, then learn, each "
              "sample), the same materialised samples for every model; time inside the models' "
              "calls only; 10 trees or learners per forest, seed 42.", ""]
    rows = []
    for task in ("clf", "reg"):
        for half in ("tuning", "report"):
            lines += section(recs, task, half, mode)
            if task == "clf":
                lines += section(recs, task, half, mode, with_detectors=True)
            lines += [f"Average {'accuracy' if task == 'clf' else 'MAE'} along the stream "
                      f"({half} half; streams at least that long, their count in brackets):", "",
                      *learning_points(recs, task, half), ""]
            if task == "clf":
                lines += long_section(recs, half, mode)
    for r in recs:
        rows.append([r["stream"], r["task"], r["half"], r["category"], r["model"], r["family"],
                     r["version"]["key"], r["status"], r["metric"], r["samples_per_s"], r["memory"], r["n"]])
    lines += ["### Learning curves", ""]
    recorded = {r["stream"] for r in recs}
    for s in stream_registry.STREAMS.values():
        png = OUT / mode / "curves" / f"{s.name}.png"
        if s.name in recorded and curves(recs, s.name, s.task, png):
            lines += [f"![{s.name}]({png.relative_to(OUT).as_posix()})", ""]
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / f"{mode}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["stream", "task", "half", "category", "model", "family", "version", "status",
                    "metric", "samples_per_s", "memory_bytes", "n"])
        w.writerows(sorted(rows))
    path = OUT / f"{mode}.md"
    path.write_text("\n".join(lines) + "\n")
    which_path(mode).write_text("\n".join(which(recs, mode)) + "\n")
    return path


def main(quick: bool = False, ours: str | None = None) -> int:
    mode = "quick" if quick else "full"
    path = render(mode, ours)
    print(f"wrote {path} and {which_path(mode)}")
    return 0
