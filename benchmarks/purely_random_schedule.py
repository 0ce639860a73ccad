"""How the purely random forest's cut schedule defaults were chosen (cuts_scale, cuts_exponent).

    python benchmarks/purely_random_schedule.py           # 5 streams, ~5 minutes
    python benchmarks/purely_random_schedule.py --quick   # streams cut to 5,000 samples

A tree has made k_n = floor(cuts_scale * n^cuts_exponent) cuts after n samples; any exponent
in (0, 1) meets biau2008's conditions (k_n -> infinity, k_n / n -> 0), so the choice is
empirical. Progressive-validation accuracy (10 trees, seed 1, everything else default) on Phishing, Bananas, ImageSegments, elec.csv and covtype's first 50,000
rows, for cuts_exponent in {0.4, 0.5, 0.6, 0.7, 0.8}, cuts_scale in {1, 4} and both
splits; the mean
accuracy over the streams ranks the settings. Writes
benchmarks/results/purely_random_schedule.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from river import metrics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests import PurelyRandomForestClassifier  # noqa: E402
from river_forests.evaluation import load_stream, markdown_table, progressive_run  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
STREAMS = {"phishing": None, "bananas": None, "imagesegments": None, "elec": None, "covtype": 50_000}
EXPONENTS = [0.4, 0.5, 0.6, 0.7, 0.8]
SCALES = [1.0, 4.0]
SPLITS = ["uniform", "scale_invariant"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    data = {s: load_stream(s, 5000 if args.quick else n) for s, n in STREAMS.items()}
    rows = []
    for split in SPLITS:
        for scale in SCALES:
            for exponent in EXPONENTS:
                accs = []
                for name, stream in data.items():
                    model = PurelyRandomForestClassifier(n_estimators=10, cuts_scale=scale,
                                                         cuts_exponent=exponent, split=split, seed=1)
                    accs.append(progressive_run(model, stream, metrics.Accuracy(), progress=None).metric)
                rows.append([split, f"{scale:g}", f"{exponent:g}"] + [f"{100 * a:.2f}" for a in accs]
                            + [f"{100 * sum(accs) / len(accs):.2f}"])
                print(" | ".join(rows[-1]), flush=True)
    lines = [
        "# Purely random forest: the cut schedule k_n = cuts_scale * n^cuts_exponent",
        "",
        "Progressive accuracy (%), 10 trees, seed 1, other parameters default"
        + (" (quick: streams cut to 5,000 samples)" if args.quick else "")
        + ". Streams: " + ", ".join(f"{s} ({len(d):,})" for s, d in data.items()) + ".",
        "",
    ]
    lines += markdown_table(["split", "cuts_scale", "cuts_exponent"] + list(data) + ["mean"], rows)
    for split in SPLITS:
        best = max((r for r in rows if r[0] == split), key=lambda r: float(r[-1]))
        lines += ["", f"Best mean for split={split}: cuts_scale={best[1]}, "
                  f"cuts_exponent={best[2]} ({best[-1]}%)."]
    lines += [
              "", f"Run time: {time.perf_counter() - start:.0f} s."]
    out = RESULTS / ("purely_random_schedule_quick.md" if args.quick else "purely_random_schedule.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
