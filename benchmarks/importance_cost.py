"""What feature importances add to `learn_one`'s time: each estimator, 10 trees, seed 42,
its defaults, learning elec's first N rows (regressors: the third feature from the other
five), with ``importance_halflife`` at its default against ``None`` (not tracked).

    python -m benchmarks.importance_cost [N] [--repeat R] [--only NAME] [--off]

In one process, the two models of each estimator learn the same rows in turn, R times (A B A
B ...), the learn loop alone timed (the rows are read first); printed: the median over the
pairs of time(on) / time(off), and its range. ``--only NAME --off`` runs one model once (the
whole process, for a timer outside it: ``importance_halflife=None`` with ``--off``).
"""

from __future__ import annotations

import argparse
import statistics
import time


def _rows(name: str, n: int) -> list:
    from benchmarks.experiments import _common

    data = _common.samples("elec", n)
    if "Classifier" in name:
        return data
    return [({k: v for k, v in x.items() if k != "feat_3"}, x["feat_3"]) for x, _ in data]


def _learn(name: str, rows: list, on: bool) -> float:
    import river_forests
    from river_forests._forest import SHARED_DEFAULTS

    halflife = SHARED_DEFAULTS["importance_halflife"] if on else None
    model = getattr(river_forests, name)(n_estimators=10, seed=42, importance_halflife=halflife)
    start = time.perf_counter()
    for x, y in rows:
        model.learn_one(x, y)
    return time.perf_counter() - start


def main(argv=None) -> None:
    import river_forests

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", nargs="?", type=int, default=20_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only")
    p.add_argument("--off", action="store_true")
    a = p.parse_args(argv)
    names = [a.only] if a.only else [n for n in river_forests.__all__
                                     if isinstance(getattr(river_forests, n), type)]
    if a.only and a.repeat == 1:
        t = _learn(a.only, _rows(a.only, a.n), not a.off)
        print(f"{a.only} importances {'off' if a.off else 'on'}: {t:.3f} s")
        return
    print(f"learn_one on elec's first {a.n:,} rows, 10 trees, seed 42; time with importances "
          f"over time without, median of {a.repeat} pairs [min, max]")
    for name in names:
        rows = _rows(name, a.n)
        _learn(name, rows[:2000], True)  # warm-up
        ratios = []
        for _ in range(a.repeat):
            off = _learn(name, rows, False)
            on = _learn(name, rows, True)
            ratios.append(on / off)
        print(f"{name:34s} {statistics.median(ratios):.3f} [{min(ratios):.3f}, {max(ratios):.3f}]",
              flush=True)


if __name__ == "__main__":
    main()
