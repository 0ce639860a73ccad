"""Each regressor's leaf model, chosen on the benchmark's tuning half, long streams in.

    python -m benchmarks experiment leaf_model [--quick] [--jobs 2]

Every regressor of ours at its defaults but for the leaf model: ``leaf_model="mean"``, or
``"linear"`` with the slopes' step ``linear_rate`` 1 or 0.3. Prequential MAE, 10 trees, seed
42, fed as the benchmark feeds each forest (``river_forests._progressive``: one sample at a
time, a batch-native forest its mini-batches), on

- every regression stream of the tuning half (the whole stream's MAE), and
- the tuning half's four generated regression streams continued to 200,000 rows (Friedman,
  Planes2D and the two FriedmanDrift streams, their drifts at the same fractions of the
  stream): a default must serve a stream's first thousand rows and its last; judged by the
  MAE over the last tenth, with the first 1,000 rows and the whole stream beside it.

The rule, per forest: the smallest score, the geometric mean over the eleven of the MAE over
the forest's best configuration's on that stream (1: best everywhere). The seconds inside the
model's calls are recorded too (the cost of linear leaves; measured beside other jobs, so a
ratio, not a speed). Writes ``benchmarks/results/experiments/leaf_model.md``.
"""

from __future__ import annotations

NAME = "leaf_model"
QUICK_N = 2_000
LONG_N = 200_000
QUICK_LONG_N = 20_000
#: the tuning half's generated streams, continued (the benchmark stops them at 20,000 rows)
LONG = ("friedman", "planes2d", "friedman-gra", "friedman-gsg")
CONFIGS = {"mean": {"leaf_model": "mean"},
           "linear": {"leaf_model": "linear", "linear_rate": 1.0},
           "linear-0.3": {"leaf_model": "linear", "linear_rate": 0.3}}


def _forests() -> dict:
    from benchmarks.experiments import _common

    return _common.our_variants("reg")


def _streams(quick: bool) -> list[tuple[str, str, int | None]]:
    """(label, stream, rows): the tuning streams whole, then the long ones."""
    from benchmarks.experiments import _common

    out = [(s, s, QUICK_N if quick else None) for s in _common.grid_streams(quick)]
    long = LONG[:1] if quick else LONG
    return out + [(f"{s} (long)", s, QUICK_LONG_N if quick else LONG_N) for s in long]


def jobs(quick: bool) -> list[tuple[str, dict]]:
    forests = list(_forests())
    forests = forests[:2] if quick else forests
    return [(f"{label}|{forest}|{cfg}", {"stream": stream, "n": n, "forest": forest, "cfg": cfg})
            for label, stream, n in _streams(quick) for forest in forests for cfg in CONFIGS]


def _samples(stream: str, n: int | None) -> list:
    from benchmarks import streams

    s = streams.STREAMS[stream]
    if n is None or n <= s.n:
        return s.samples(n)
    # past the registry's length: the same generator, its drifts at the same fractions
    return list(streams._clean(s.load(n), n, s.task))


def scored(model, data: list) -> dict:
    """The model's prequential MAE over `data` (fed as the benchmark feeds it): over the
    whole stream, its first 1,000 rows and its last tenth, and the seconds inside its calls."""
    from river import metrics

    from river_forests._progressive import iter_progressive_run

    n = len(data)
    tail = n - n // 10
    mae, spent = metrics.MAE(), 0.0
    at = {}
    for i, spent in iter_progressive_run(model, data, mae, 1_000):
        at[i] = (mae.get() * mae._mean.n, mae._mean.n)  # (sum of errors, rows scored) so far
    ends = sorted(at)

    def window(lo: int, hi: int) -> float:
        """The MAE of the rows scored between the yields at or before `lo` and at `hi`."""
        s0, n0 = at.get(max((e for e in ends if e <= lo), default=0), (0.0, 0))
        s1, n1 = at[hi]
        return (s1 - s0) / (n1 - n0) if n1 > n0 else float("nan")

    first = min(e for e in ends if e >= min(1_000, n))
    return {"n": n, "mae": mae.get(), "first": window(0, first), "last": window(tail, ends[-1]),
            "seconds": spent}


def measure(params: dict) -> dict:
    cls, variant = _forests()[params["forest"]]
    data = _samples(params["stream"], params["n"])
    return scored(cls(n_estimators=10, seed=42, **variant, **CONFIGS[params["cfg"]]), data)


def report(results: dict, quick: bool) -> None:
    import math

    from benchmarks.experiments import _common

    md, _ = _common.outputs(NAME, quick)
    streams = _streams(quick)
    forests = list(_forests())
    forests = forests[:2] if quick else forests
    lines = _common.opening(
        NAME, quick, "Each regressor's leaf model (tuning half, long streams in)",
        "10 trees, seed 42, every regressor at its defaults but for `leaf_model` and "
        "`linear_rate`; prequential MAE, fed as the benchmark feeds each forest",
        jobs(quick), results)

    def judged(label: str, r: dict) -> float:
        return r["last"] if label.endswith("(long)") else r["mae"]

    chosen = {}
    for forest in forests:
        rows = []
        best = {label: min((judged(label, results[f"{label}|{forest}|{c}"]) for c in CONFIGS
                            if f"{label}|{forest}|{c}" in results), default=float("nan"))
                for label, _, _ in streams}
        for cfg in CONFIGS:
            rs = [results.get(f"{label}|{forest}|{cfg}") for label, _, _ in streams]
            if any(r is None for r in rs):
                continue
            score = math.exp(sum(math.log(judged(label, r) / best[label])
                                 for (label, _, _), r in zip(streams, rs)) / len(rs))
            seconds = sum(r["seconds"] for r in rs)
            rows.append([score, cfg, seconds, rs])
        if not rows:
            continue
        rows.sort(key=lambda r: r[0])
        chosen[forest] = rows[0][1]
        mean_s = next((r[2] for r in rows if r[1] == "mean"), float("nan"))
        lines += [f"## {forest}", ""]
        lines += _common.markdown_table(
            ["leaf model", "score", "time ÷ mean's"] + [label for label, _, _ in streams],
            [[cfg + (" **(chosen)**" if i == 0 else ""), f"{score:.3f}", f"{s / mean_s:.2f}"]
             + [f"{judged(label, r):.4g}" for (label, _, _), r in zip(streams, rs)]
             for i, (score, cfg, s, rs) in enumerate(rows)])
        long = [(label, i) for i, (label, _, _) in enumerate(streams) if label.endswith("(long)")]
        if long:
            lines += ["", "Long streams, MAE over the first 1,000 rows / the whole stream / "
                      "the last tenth:", ""]
            lines += _common.markdown_table(
                ["leaf model"] + [label for label, _ in long],
                [[cfg] + [f"{rs[i]['first']:.4g} / {rs[i]['mae']:.4g} / {rs[i]['last']:.4g}"
                          for _, i in long] for score, cfg, s, rs in rows])
        lines.append("")
    lines += ["Score: the geometric mean over the streams of the MAE over the forest's best "
              "configuration's on that stream (a long stream's MAE over its last tenth; 1: best "
              "everywhere); the smallest is chosen. Time: the seconds inside the model's calls "
              "over every stream, over the mean leaves'; measured beside other jobs.", "",
              "Chosen: " + ", ".join(f"{f}: {c}" for f, c in chosen.items()) + "."]
    md.write_text("\n".join(lines) + "\n")
