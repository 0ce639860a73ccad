"""One benchmark model, one stream, progressive validation, as one process: for timing a whole
run from outside (several runs, a ratio pair by pair against another model).

    python -m benchmarks.time_one "StreamPartitionForest" led-drift 5000
    python -m benchmarks.time_one "river ARF" led-drift 5000
    python -m benchmarks.time_one "MOA ARF" led-drift 5000      # with CapyMOA installed

Builds the model as the benchmark does (``benchmarks/models.py``: 10 trees, seed 42), feeds
it the stream's first N samples with ``river_forests._progressive.progressive_run`` (a
batch-native forest in chunks of its batch size) and prints the accuracy and the samples/s
spent in the model's own calls. The data is materialised before the clock starts, so a
process timer sees the model's work plus a fixed start-up cost (imports and the stream).
"""

from __future__ import annotations

import sys


def main(argv: list[str]) -> None:
    from river import metrics

    from benchmarks import models
    from benchmarks.streams import STREAMS
    from river_forests._progressive import progressive_run

    name, stream, n = argv[0], argv[1], int(argv[2]) if len(argv) > 2 else None
    s = STREAMS[stream]
    spec = models.get(s.task, name)
    model = spec.make(s)
    data = s.samples()[:n]  # the full stream's first n (a generator's drift sits at fractions of its length)
    metric = metrics.Accuracy() if s.task == "clf" else metrics.MAE()
    if spec.family == "moa":  # MOA's learners run through CapyMOA (benchmarks/moa.py)
        from benchmarks import harness

        seen, spent = 0, 0.0
        for seen, spent in harness._steps(model, "moa", data, metric, len(data)):
            pass
        value, speed = metric.get(), seen / spent
    else:
        r = progressive_run(model, data, metric)
        value, speed = r.metric, r.samples_per_s
    print(f"{name} on {stream} ({len(data)} samples): {value:.4f}, "
          f"{speed:,.0f} samples/s in the model's calls")


if __name__ == "__main__":
    main(sys.argv[1:])
