"""Forgetting on long streams: every classifier's defaults with and without a drift detector, on the tuning half.

    python -m benchmarks experiment forgetting            # every tuning-half classification stream
    python -m benchmarks experiment forgetting --quick    # the first 2,000 samples of 4 streams
    python -m benchmarks experiment forgetting --jobs 2

Issue 45's second step. The defaults run of issue 45 (``defaults``) grew the forests with the
data on long streams, but a forest that has learned a region of the input space early keeps
its partition there: on a stream whose rows sweep across their space (rows sorted by place or
time, as covertype's are by area; the ``*-sweep-long`` streams of the registry), a forest of
ours that has seen everything ends below a fresh forest started late. The lever named there is
forgetting. The rows, per classifier (10 trees, seed 42, progressive validation on every
stream of the **tuning half**, long streams included):

* ``today``: the package's defaults, with the parameters that make them so;
* ``ADWIN``: the same with ``drift_detector=river.drift.ADWIN(delta=0.001)``, the detector
  the ``drift`` experiment chose on the tuning half's drifting streams (a fresh copy per
  tree, watching the tree's prequential error; a drift starts a background tree that takes
  the tree's place when significantly better, ``background_swap="when_better"``).

Chosen by ``defaults``' rule (:func:`benchmarks.experiments.defaults.scores`): the mean of the
rank by the first 20,000 rows (every stream) and the rank by the last tenth (the long
streams). The regressors are not run: their half has no long stream. Writes
``benchmarks/results/experiments/forgetting.md``.
"""

from __future__ import annotations

from benchmarks.experiments import defaults as _defaults

NAME = "forgetting"
DETECTOR = "ADWIN(0.001)"
#: the package's defaults after the ``defaults`` run of issue 45, spelled out
TODAY = {
    "MondrianForestClassifier": {"growth_scale": 2.0, "recycling": False},
    "PurelyRandomForestClassifier": {"growth_scale": 4.0, "split": "scale_invariant",
                                     "growth_exponent": 0.8},
    "BSPForestClassifier": {"growth_scale": 1.0, "smoothing": 0.5},
    "StreamPartitionForestClassifier": {"max_features": 17.0, "max_active_leaves": "auto"},
    "XForestClassifier": {"kept_rows": 4},
}
#: since the run of the page (the chosen detector is now the default of four of them), both
#: rows name their detector: ``today`` is the defaults of that run, without one
CONFIGS = {forest: {"today": {**today, "drift_detector": None},
                    "ADWIN": {**today, "drift_detector": DETECTOR}}
           for forest, today in TODAY.items()}


def jobs(quick: bool) -> list[tuple[str, dict]]:
    return _defaults.jobs(quick, half="tuning", configs=CONFIGS)


measure = _defaults.measure


def report(results: dict, quick: bool) -> None:
    _defaults.report(
        results, quick, half="tuning", name=NAME, forests=CONFIGS,
        title="Forgetting: each classifier's defaults with and without a drift detector, tuning half",
        intro=["The rows: `today`, the package's defaults; `ADWIN`, the same with "
               f"`drift_detector={DETECTOR}` (see the module's docstring). Chosen by the "
               "`defaults` experiment's rule.", ""])
