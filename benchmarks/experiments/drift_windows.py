"""Accuracy in windows around each known drift point of the benchmark's drifting streams.

    python -m benchmarks experiment drift_windows [--quick] [--jobs 2]

For every drifting classification stream of the registry with known drift points (both
halves: these plots report, they choose nothing), progressive validation as the benchmark runs
it of the package's recommended drifting configuration (the stream-partitioning forest with
ADWIN), the other forests with ADWIN, the stream-partitioning forest without detectors,
river's ARF and, where CapyMOA runs, MOA's ARF (10 trees, seed 42: the benchmark's models,
``benchmarks/models.py``). The accuracy is read every 100 samples, so each point of the plots
is the accuracy over the last 100 samples scored (``benchmarks/results/experiments/
drift_windows_<stream>.png``, from 2,000 samples before each drift point to 4,000 after it).
The table gives, per stream and model, the accuracy over the 2,000 samples before the first
drift point, the lowest 500-sample window after it and the accuracy over the 2,000 samples
after it. Writes ``benchmarks/results/experiments/drift_windows.md``.
"""

from __future__ import annotations

NAME = "drift_windows"
EVERY = 100
QUICK_N = 4_000
BEFORE, AFTER = 2_000, 4_000

MODELS = ["StreamPartitionForest + ADWIN", "XForest + ADWIN", "MondrianForest + ADWIN",
          "StreamPartitionForest", "river ARF", "MOA ARF"]


def _streams(quick: bool) -> list:
    from benchmarks.streams import STREAMS

    out = [s for s in STREAMS.values() if s.task == "clf" and s.drifting and s.drifts]
    return out[:2] if quick else out


def _models() -> list[str]:
    from benchmarks import moa

    return [m for m in MODELS if m != "MOA ARF" or moa.available() is None]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    out = []
    for s in _streams(quick):
        for m in _models():
            out.append((f"{s.name}-{m}", {"stream": s.name, "model": m,
                                          "n": min(s.n, QUICK_N) if quick else s.n,
                                          "every": EVERY}))
    return out


def measure(params: dict) -> dict:
    from river import metrics

    from benchmarks import harness, models
    from benchmarks.streams import STREAMS

    s = STREAMS[params["stream"]]
    spec = models.get("clf", params["model"])
    data = s.samples(params["n"])
    model = spec.make(s)
    metric = metrics.Accuracy()
    points = []
    for i, _ in harness._steps(model, spec.family, data, metric, params["every"]):
        points.append([i, metric.get(), float(metric.cm.total_weight)])
    return {"n": len(data), "points": points, "drifts": list(s.drifts)}


def windows(points: list) -> tuple[list, list]:
    """(end of each window, accuracy over the samples scored in it) from the running accuracy
    and the count of scored samples at each point."""
    ends, acc = [], []
    prev_i, prev_correct, prev_k = 0, 0.0, 0.0
    for i, a, k in points:
        correct = a * k
        if k > prev_k:
            ends.append(i)
            acc.append((correct - prev_correct) / (k - prev_k))
        prev_i, prev_correct, prev_k = i, correct, k
    return ends, acc


def _span_mean(ends, acc, lo, hi):
    vals = [a for e, a in zip(ends, acc) if lo < e <= hi]
    return sum(vals) / len(vals) if vals else float("nan")


def report(results: dict, quick: bool) -> None:
    from benchmarks.experiments import _common

    md, png = _common.outputs(NAME, quick)
    plt = _common.pyplot()
    lines = ["# Accuracy around the drift points", "",
             f"`python -m benchmarks experiment {NAME}{' --quick' if quick else ''}`; 10 trees, "
             f"seed 42, the benchmark's models; accuracy over windows of {EVERY} samples; "
             f"{_common.version_line()}; {_common.machine()}.", "",
             "Per stream: accuracy (%) over the 2,000 samples before its first drift point, the "
             "lowest 500-sample window in the 4,000 after it, and the accuracy over the 2,000 "
             "after it.", "",
             "| stream | model | before | lowest after | after |", "| --- | --- | ---: | ---: | ---: |"]
    for s in _streams(quick):
        runs = {m: results.get(f"{s.name}-{m}") for m in _models()}
        runs = {m: r for m, r in runs.items() if r}
        if not runs:
            continue
        at = [round(f * s.n) for f in s.drifts]
        fig, axes = plt.subplots(1, len(at), figsize=(5.2 * len(at), 3.6), squeeze=False)
        for m, r in runs.items():
            ends, acc = windows(r["points"])
            for ax, d in zip(axes[0], at):
                xs = [(e, a) for e, a in zip(ends, acc) if d - BEFORE < e <= d + AFTER]
                ax.plot([e for e, _ in xs], [100 * a for _, a in xs], label=m,
                        lw=2.2 if m == MODELS[0] else 1.2, ls="--" if "MOA" in m or "river" in m else "-")
            d = at[0]
            before = _span_mean(ends, acc, d - 2000, d)
            after = _span_mean(ends, acc, d, d + 2000)
            lowest = min((_span_mean(ends, acc, e - 500, e) for e in ends if d + 500 <= e <= d + AFTER),
                         default=float("nan"))
            lines.append(f"| {s.name} | {m} | {100 * before:.1f} | {100 * lowest:.1f} | {100 * after:.1f} |")
        for ax, d in zip(axes[0], at):
            ax.axvline(d, color="k", lw=0.8, ls=":")
            _common.label_axes(ax, "sample", f"accuracy over {EVERY} samples (%)",
                               f"{s.name}: drift at {d:,}", title_size=10, grid={"alpha": 0.3})
        axes[0][-1].legend(fontsize=7, loc="lower right")
        out = png.with_name(f"{png.stem}_{s.name}.png")
        _common.save_figure(fig, out, f"{s.name} ({s.half} half): {s.source}", title_size=11)
        plt.close(fig)
        lines.append("")
    lines += ["", "Plots: " + ", ".join(f"`{NAME}{'_quick' if quick else ''}_{s.name}.png`"
                                       for s in _streams(quick)), ""]
    md.write_text("\n".join(lines) + "\n")
