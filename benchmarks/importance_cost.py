"""What feature importances add to `learn_one`'s time: each estimator, 10 trees, seed 42,
its defaults, learning elec's first N rows (regressors: the third feature from the other
five), with ``importance_halflife`` at its default against ``None`` (not tracked).

    python -m benchmarks.importance_cost [N] [--repeat R] [--chunk C] [--only NAME] [--off]

In one process, the two models of each estimator learn the same rows side by side, in turns
of 500 rows (``--chunk``), each turn's learn loop timed in CPU time (the rows are read
first), so that the machine's changes of speed weigh on both; R such pairs of models
(``--repeat``); printed: the median over the pairs of time(on) / time(off), and its range. ``--only NAME --off`` runs one model once (the
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


def _model(name: str, on: bool):
    import river_forests
    from river_forests._forest import SHARED_DEFAULTS

    halflife = SHARED_DEFAULTS["importance_halflife"] if on else None
    return getattr(river_forests, name)(n_estimators=10, seed=42, importance_halflife=halflife)


def _learn(model, rows: list) -> float:
    start = time.process_time()  # the process's CPU time: what the machine's other work adds
    for x, y in rows:                # to the wall clock is not the model's
        model.learn_one(x, y)
    return time.process_time() - start


def _pair(name: str, rows: list, chunk: int) -> float:
    """time(on) / time(off) of two models learning the rows, in turns of `chunk` rows (a
    change of the machine's speed then weighs on both alike)."""
    on, off = _model(name, True), _model(name, False)
    t_on = t_off = 0.0
    for i in range(0, len(rows), chunk):
        part = rows[i:i + chunk]
        t_off += _learn(off, part)
        t_on += _learn(on, part)
    return t_on / t_off


def main(argv=None) -> None:
    from river import base

    import river_forests

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", nargs="?", type=int, default=20_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--only")
    p.add_argument("--off", action="store_true")
    p.add_argument("--chunk", type=int, default=500)
    a = p.parse_args(argv)
    names = [a.only] if a.only else [n for n in river_forests.__all__
                                     if isinstance(getattr(river_forests, n), type)
                                     and issubclass(getattr(river_forests, n), base.Estimator)]
    if a.only and a.repeat == 1:
        t = _learn(_model(a.only, not a.off), _rows(a.only, a.n))
        print(f"{a.only} importances {'off' if a.off else 'on'}: {t:.3f} s")
        return
    from benchmarks.experiments import _common

    print(f"`python -m benchmarks.importance_cost {a.n} --repeat {a.repeat} --chunk {a.chunk}`; "
          f"{_common.version_line()}; {_common.machine()}.\n")
    print(f"learn_one on elec's first {a.n:,} rows, 10 trees, seed 42; CPU time with "
          f"importances over time without, median of {a.repeat} pairs [min, max]")
    for name in names:
        rows = _rows(name, a.n)
        _learn(_model(name, True), rows[:2000])  # warm-up
        ratios = [_pair(name, rows, a.chunk) for _ in range(a.repeat)]
        print(f"{name:34s} {statistics.median(ratios):.3f} [{min(ratios):.3f}, {max(ratios):.3f}]",
              flush=True)


if __name__ == "__main__":
    main()
