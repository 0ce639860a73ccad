"""Every forest against river's AMFClassifier on elec.csv, 10 trees each, one run.

    python benchmarks/speed_vs_amf.py           # full elec.csv (45,312 samples), ~3 minutes
    python benchmarks/speed_vs_amf.py --quick   # first 5,000 samples

Progressive validation (predict, then learn, each sample; only the model's calls are timed)
of river's AMFClassifier (n_estimators=10, the paper-grade online forest river ships) and of
every classifier in ``river_forests.__all__`` at its defaults with n_estimators=10 (the
purely random forest with both splits; its default is the uniform one). Reports accuracy, samples/s as a multiple of AMF's
in the same run (the machine is shared: only same-run ratios mean anything), peak traced
memory while learning and the pickled size of the final model. To damp the load of other
processes, the models run in two interleaved rounds and each keeps its faster one.
Writes benchmarks/results/speed_vs_amf.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from river import forest, metrics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from river_forests.evaluation import load_stream, markdown_table, our_variants, progressive_run  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def models():
    out = {"AMFClassifier (river)": lambda: forest.AMFClassifier(n_estimators=10, seed=1)}
    for label, (cls, params) in our_variants("clf").items():
        out[label] = lambda cls=cls, params=params: cls(n_estimators=10, seed=1, **params)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    data = load_stream("elec", 5000 if args.quick else None)
    best = {}
    for _ in range(2):
        for label, make in models().items():
            r = progressive_run(make(), data, metrics.Accuracy(), label=label, stream="elec", progress=None)
            if label not in best or r.seconds < best[label].seconds:
                best[label] = r
            print(f"{label}: {r.metric:.4f} {r.samples_per_s:,.0f} samples/s", flush=True)
    amf = best["AMFClassifier (river)"].samples_per_s
    rows = [
        [label, f"{100 * r.metric:.2f}", f"{r.samples_per_s:,.0f}", f"{r.samples_per_s / amf:.0f}x",
         f"{r.memory / 2**20:.2f}", f"{r.pickled / 2**20:.2f}"]
        for label, r in best.items()
    ]
    lines = [
        "# Speed against river's AMFClassifier on elec.csv (10 trees, one run)",
        "",
        f"{len(data):,} samples, progressive validation, default parameters, seed 1; best of two "
        "interleaved rounds per model.",
        "",
    ]
    lines += markdown_table(["model", "accuracy %", "samples/s", "vs AMF", "peak MiB", "pickled MiB"], rows)
    lines += ["", f"Run time: {time.perf_counter() - start:.0f} s."]
    out = RESULTS / ("speed_vs_amf_quick.md" if args.quick else "speed_vs_amf.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
