"""How the Mondrian forest's defaults were chosen: smoothing, lifetime_scale, max_nodes.

    python benchmarks/mondrian_tuning.py

Progressive-validation accuracy (10 trees, seed 1, everything else default) on Phishing,
Bananas, ImageSegments and elec.csv, for smoothing in {0, 0.5, 1, 2} (0 = pure back-off to
the deepest node with data; > 0 = blend the root-to-leaf path) and lifetime_scale in
{1, 2, 4}; then max_nodes in {1023, 2047, 4095, 8191} on elec.csv. The mean accuracy over the
four streams ranks the settings. Writes benchmarks/results/mondrian_tuning.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from river import metrics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests import MondrianForestClassifier  # noqa: E402
from river_forests.evaluation import load_stream, progressive_run  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
STREAMS = ["phishing", "bananas", "imagesegments", "elec"]


def accuracy(data, **params):
    model = MondrianForestClassifier(n_estimators=10, seed=1, **params)
    r = progressive_run(model, data, metrics.Accuracy(), progress=None)
    return r.metric, r.samples_per_s


def main():
    data = {name: load_stream(name) for name in STREAMS}
    lines = [
        "# Mondrian forest: choosing the defaults",
        "",
        "Produced by `python benchmarks/mondrian_tuning.py`. Progressive-validation accuracy, "
        "10 trees, seed 1, other parameters at their defaults.",
        "",
        "| smoothing | lifetime_scale | " + " | ".join(STREAMS) + " | mean |",
        "|---|---|" + "---|" * (len(STREAMS) + 1),
    ]
    best = None
    for smoothing in (0.0, 0.5, 1.0, 2.0):
        for scale in (1.0, 2.0, 4.0):
            accs = [accuracy(data[s], smoothing=smoothing, lifetime_scale=scale)[0] for s in STREAMS]
            mean = sum(accs) / len(accs)
            if best is None or mean > best[0]:
                best = (mean, smoothing, scale)
            lines.append(f"| {smoothing} | {scale} | " + " | ".join(f"{a:.4f}" for a in accs) + f" | {mean:.4f} |")
            print(lines[-1], flush=True)
    lines += [
        "",
        f"Best mean: smoothing={best[1]}, lifetime_scale={best[2]} ({best[0]:.4f}).",
        "",
        "Decision: the means differ by about a point at most, so the defaults are chosen for",
        "long streams at the default memory cap. A larger lifetime_scale fills the node cap",
        "earlier on elec.csv (45k samples), after which the structure is frozen, and loses",
        "there; lifetime_scale=2 is the largest scale without that loss. At that scale a",
        "blended path (smoothing > 0) beats the pure back-off (smoothing=0) on the mean, and",
        "0.5 is the best of the blends: defaults smoothing=0.5, lifetime_scale=2.0.",
        "",
    ]
    lines += ["## max_nodes on elec.csv", "", "| max_nodes | accuracy | samples/s |", "|---|---|---|"]
    for cap in (1023, 2047, 4095, 8191):
        acc, speed = accuracy(data["elec"], max_nodes=cap)
        lines.append(f"| {cap} | {acc:.4f} | {speed:,.0f} |")
        print(lines[-1], flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "mondrian_tuning.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
