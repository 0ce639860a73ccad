"""River-facing plumbing shared by every forest of the package.

A forest here is a thin Python object: it validates its parameters, owns one compiled
:class:`~river_forests._core._forest.ForestCore` (the feature registry, the label registry and
the trees) and turns river's calls into single calls into that core. Each paper's module only
says which compiled tree it grows and with which parameters of its own; the parameters every
forest shares are declared here once (`river_forests._params`: their defaults, checks, compiled
names and documentation).
"""

from __future__ import annotations

import abc
import concurrent.futures
import numbers
import contextlib
import os
import random
import re
import sys
import threading
from typing import ClassVar

import numpy as np
import pandas as pd
from river import base, conf, proba

from ._core._features import string_code
from ._core._forest import ForestCore
from ._core._random import tree_seed
from ._params import (_PARAMETERS_MARK, Param, Parametrized, check_float, check_int, floats, ints,
                      one_of, optional)

__all__ = ["BaseForest", "ForestClassifier", "ForestRegressor"]

#: codes shared with `_core/_tree.pxd`
TASK_CLASSIFICATION, TASK_REGRESSION = 0, 1
SUBSAMPLING = {None: 0, "bernoulli": 1, "poisson": 2}
AGGREGATIONS = ("average", "vote")

#: below this many rows a mini-batch is learned in the calling thread
PARALLEL_MIN_ROWS = 64

#: the package's estimators by class name, filled as the modules that define them are
#: imported (`BaseForest.__init_subclass__`): a saved state names its estimator so, and
#: `river_forests._state` finds the class here without importing the package
ESTIMATORS: dict = {}

#: the module that turns a model into its state and back (``"module"``:
#: `river_forests._state`, whose ``to_state`` and ``from_state`` pickling goes through): it
#: registers itself here when it is imported (it imports this module, which does not import
#: it back)
PERSISTENCE: dict = {}
_EXECUTOR = None
_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


_LOCAL = threading.local()


@contextlib.contextmanager
def serial():
    """In this block, the calling thread's forests learn their mini-batches in the calling
    thread alone: where the caller already runs one task per core (a Dask worker's
    threads, `river_forests.distributed`), a forest's own threads would only compete."""
    before = getattr(_LOCAL, "serial", False)
    _LOCAL.serial = True
    try:
        yield
    finally:
        _LOCAL.serial = before


def _executor():
    """A process-wide thread pool for mini-batches: each group of trees learns its rows in
    its own task, with the GIL released. Trees share no state, so the result is exactly that
    of a sequential loop."""
    global _EXECUTOR
    if _EXECUTOR is None:
        _EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, _WORKERS - 1))
    return _EXECUTOR


#: detectors named by a string (a parameter's default must not be a shared object)
DETECTORS = {"ADWIN": "river.drift.ADWIN(delta=0.001)"}


def detector_of(value):
    """The detector a ``drift_detector`` or ``warning_detector`` value stands for: a name of
    `DETECTORS` gives a fresh detector, anything else is itself."""
    if isinstance(value, str):
        if value == "ADWIN":
            from river import drift

            return drift.ADWIN(delta=0.001)
        raise ValueError(f"a detector named by a string must be one of {sorted(DETECTORS)}, "
                         f"got {value!r}")
    return value


#: `background_swap` values -> codes of `_core/_watch.pxd`
SWAP_RULES = {"at_drift": 0, "when_better": 1}

#: parameters renamed in 0.2.0, old name -> new name (the changelog lists them); a model
#: pickled before loads with them renamed, a constructor given an old name says the new one
RENAMED = {
    "lifetime": "growth", "lifetime_scale": "growth_scale",
    "cuts": "growth", "cuts_scale": "growth_scale", "cuts_exponent": "growth_exponent",
    "budget": "growth", "budget_scale": "growth_scale",
    "use_aggregation": "weighted_prunings",
    "candidate_features": "max_features",
}

#: names users bring from river's forests (0.26's ARFClassifier/ARFRegressor, AMFClassifier,
#: OXTRegressor) and scikit-learn's for concepts the forests share under another name here:
#: name -> (what to write instead, `{value}` the value given; whose name it is). A
#: constructor given one says what to write (where the name is not a parameter of its own)
FOREIGN = {
    "n_models": ("n_estimators={value}", "river's ARF and OXT forests call it n_models"),
    "n_trees": ("n_estimators={value}", "the number of trees"),
    "random_state": ("seed={value}", "scikit-learn's name for the seed; an int here"),
    "lambda_value": ("subsampling='poisson', subsample_rate={value}",
                     "river's ARF: the Poisson rate of its online bagging"),
    "resampling_strategy": ("subsampling='poisson' (OXT's 'bagging') or 'bernoulli' "
                            "('subbagging')", "river's OXTRegressor"),
    "resampling_rate": ("subsample_rate={value}", "river's OXTRegressor"),
    "max_size": ("memory_budget='...MiB'", "river's max_size is each tree's MiB; "
                 "memory_budget is the whole forest's, in bytes or a string such as '100MiB'"),
    "max_leaf_nodes": ("max_nodes=...", "scikit-learn's; max_nodes caps each tree's nodes, "
                       "inner ones included: 2 * leaves - 1"),
    "max_samples": ("subsampling='bernoulli', subsample_rate={value}",
                    "scikit-learn's share of the samples each tree learns"),
    "bootstrap": ("subsampling='poisson'", "online bagging; scikit-learn's bootstrap"),
}


def importance_growth(halflife) -> float:
    """A tree's `gain_growth` for ``importance_halflife`` (0: importances not tracked)."""
    return 0.0 if halflife is None else float(2.0 ** (1.0 / halflife))


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_bytes(name: str, value) -> int | None:
    """A size in bytes from an int or float, or a string such as ``"40MB"`` (KB, MB, GB:
    powers of 1000; KiB, MiB, GiB: of 1024); None stays None."""
    if value is None:
        return None
    if isinstance(value, str):
        m = re.fullmatch(r"\s*((?:\d+(?:\.\d*)?|\.\d+)(?:e\d+)?)\s*([a-zA-Z]*)\s*", value)
        unit = m.group(2).lower() if m else None
        if unit not in _UNITS:
            raise ValueError(f"{name} must be a number of bytes or a string such as '40MB' "
                             f"(units B, KB, MB, GB, KiB, MiB, GiB), got {value!r}")
        number = float(m.group(1)) * _UNITS[unit]
    elif isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
    else:
        raise ValueError(f"{name} must be None, a number of bytes or a string such as '40MB', "
                         f"got {value!r}")
    if not np.isfinite(number) or number < 1 or number >= 2**62:
        raise ValueError(f"{name} must be at least 1 byte and finite, got {value!r}")
    return int(number)


def forest_doc(summary: str, description: str, examples: str) -> str:
    """An estimator's docstring in river's layout: the summary line, the description, the
    parameters (generated from the class's declarations: `river_forests._params`), and the
    examples (with the references)."""
    return (f"{summary}\n{description}\n    Parameters\n    ----------{_PARAMETERS_MARK}"
            f"\n\n    Examples\n    --------\n{examples}")


def _check_seed(name, value, forest):
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ValueError(f"{name} must be None or an int, got {value!r}")


def _check_budget(name, value, forest):
    parse_bytes(name, value)


def _check_max_nodes(name, value, forest):
    if value is not None:
        check_int(name, value, 1, 2**31 - 1)
    elif forest.memory_budget is None:
        raise ValueError("memory_budget=None needs max_nodes: memory must be bounded")


def _check_rate(name, value, forest):
    check_float(name, value, 0.0, low_inclusive=False,
                high=1.0 if forest.subsampling == "bernoulli" else None)


_check_decay_range = floats(0.0, below=(1.0, "the rate q_n = subsample_rate * n^-subsample_decay "
                                             "must keep n * q_n growing"))


def _check_decay(name, value, forest):
    _check_decay_range(name, value, forest)
    if value > 0.0 and forest.subsampling is None:
        raise ValueError("subsample_decay needs subsampling='bernoulli' or 'poisson'")


def _check_detector(name, det, forest):
    if det is None:
        return
    if isinstance(det, str):
        if det not in DETECTORS:
            raise ValueError(f"{name} must be None, {' or '.join(map(repr, DETECTORS))} "
                             f"or a river drift detector (e.g. river.drift.ADWIN()), "
                             f"got {det!r}")
        det = detector_of(det)
    binary = isinstance(det, base.BinaryDriftDetector)
    if not (isinstance(det, base.DriftDetector) or binary):
        raise ValueError(f"{name} must be None, {' or '.join(map(repr, DETECTORS))} "
                         "or a river drift detector (e.g. river.drift.ADWIN()), got "
                         f"{det!r}")
    if binary and forest._task != TASK_CLASSIFICATION:
        raise ValueError(f"{name}: a binary detector ({type(det).__name__}) watches 0/1 "
                         "errors; a regressor's error is real, use e.g. drift.ADWIN()")


def _check_warning(name, det, forest):
    _check_detector(name, det, forest)
    if det is not None and forest.drift_detector is None:
        raise ValueError("warning_detector needs a drift_detector: its background trees "
                         "take a tree's place only on a drift")


class BaseForest(Parametrized, base.Estimator, abc.ABC):
    """Parameters and plumbing common to every forest.

    The parameters are declared (`river_forests._params.Param`): ``n_estimators``, the one
    taken by position, and the ones every forest shares, here; a kind's own in its mixin and
    its classes. From the declarations each class gets its ``__init__`` (which sets them and
    calls `_setup`), their checks, its docstring's parameters and its compiled trees'
    parameters (``_tree_class``, `_tree_params`): every tree kind takes the shared ones the
    same way.
    """

    _task: ClassVar[int]

    #: what a background tree borrows of its tree's share of the budget while it learns
    #: alongside it (the tree sheds nodes to lend it, and gets them back when the background
    #: tree goes; a background tree that takes the tree's place gets the whole share): a
    #: forest whose detectors start no background tree grows the trees it grows without
    #: detectors (``python -m benchmarks experiment drift``)
    _background_share = 0.125

    #: the budget's share kept for what a tree's pools add between two checks (a repacked
    #: pool's spare room): more for the kinds whose pools hold most of their bytes
    _budget_margin = 0.01

    _shared_params = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # a public estimator of the package registers by name (`ESTIMATORS`)
        if cls.__module__.startswith(__package__ + ".") and cls.__module__ != __name__ \
                and not cls.__name__.startswith("_"):
            ESTIMATORS[cls.__name__] = cls

    n_estimators: int = Param(
        default=10, check=ints(1), kw_only=False,
        doc="""
        Number of trees.""")
    memory_budget: int | float | str | None = Param(
        default="16MB", check=_check_budget,
        doc="""
        The forest's memory, in bytes (an int) or as a string such as ``"40MB"`` (KB, MB, GB:
        powers of 1000; KiB, MiB, GiB: of 1024): the size river reports for the model
        (``model._raw_memory_usage``, every object the forest holds) stays within it,
        whatever the length or the width of the stream and the number of classes. The
        forest shares it out among its trees as features and labels arrive; a tree turns its
        share into nodes at the widths it has (a node's bytes grow with the features it
        works on and the classes), stops adding nodes when the next would not fit, and, if a
        new class or feature widens every node, frees the nodes holding the least data to fit
        again. Most forests fill it on a long stream. None: no byte budget (then
        ``max_nodes`` must be given).""")
    max_nodes: int | None = Param(
        default=None, check=_check_max_nodes,
        tree=lambda v, forest: {"max_nodes": v if v is not None else 2**31 - 1},
        doc="""
        An extra cap on the nodes of each tree, beside the byte budget (None, the default:
        the budget alone). For experiments that compare trees of a given size.""")
    smoothing: float = Param(
        default=0.5, check=floats(0.0), tree="smoothing", cast=float,
        doc="""
        How a node's estimate leans on its parent's. Each node keeps the statistics of every
        sample routed through it since it was created; a prediction walks from the root to the
        leaf and, at each node that has seen data, mixes the node's own statistics with its
        parent's estimate as a prior of this strength:
        ``(stats + smoothing * parent_estimate) / (weight + smoothing)``. A leaf freshly
        created by a split has seen no data, so it predicts its parent's estimate; with
        ``smoothing=0`` this is a pure back-off to the deepest node with data.""")
    subsampling: str | None = Param(
        default=None, check=one_of(*SUBSAMPLING),
        tree=lambda v, forest: {"subsample_mode": SUBSAMPLING[v]},
        doc="""
        Online subsampling of the stream for each tree (biau2008, section 5): ``None`` (every
        tree learns every sample), ``"bernoulli"`` (a tree keeps a sample with probability
        q_n) or ``"poisson"`` (online bagging: the sample's weight is Poisson(q_n)).""")
    subsample_rate: float = Param(
        default=1.0, check=_check_rate, tree="subsample_rate", cast=float,
        doc="""
        q: the keep probability (Bernoulli) or mean weight (Poisson) of the first sample.""")
    subsample_decay: float = Param(
        default=0.0, check=_check_decay, tree="subsample_decay", cast=float,
        doc="""
        beta in [0, 1): the n-th sample a tree is offered is kept at rate
        q_n = subsample_rate * n^-beta. 0 (default) keeps the rate fixed. A positive beta
        gives the decreasing rate of biau2008's theorem 7 (q_n -> 0 and n q_n -> infinity,
        which holds exactly for 0 < beta < 1): each tree learns a vanishing fraction of the
        stream, about subsample_rate * n^(1 - beta) / (1 - beta) samples, so the trees grow
        more diverse and cheaper; bagging then makes even an inconsistent base rule (the
        1-nearest neighbour of theorem 7) consistent. Needs ``subsampling``.""")
    features_per_tree: int = Param(
        default=64, check=ints(1, 2**31 - 1), tree="features_per_tree",
        doc="""
        Most features one tree works on: its per-node rows (boxes, ...) have one cell per kept
        feature, never one per feature the stream has shown, so a node's bytes and a sample's
        cost do not grow with the width of the stream (bag of words, one-hot ids). The first
        ``features_per_tree`` features fill a tree in order, so a narrower stream keeps them
        all; past that, each new feature enters a tree by reservoir sampling (the kept set is
        a uniform sample of the features seen, different in each tree) and the feature it
        replaces is forgotten by the tree. A larger value gains a little accuracy on a wide
        stream at much more time and memory (the documentation's Mondrian page measures
        it on a bag of words).""")
    max_width: int = Param(
        default=100_000, check=ints(1, 2**31 - 1),
        doc="""
        Most feature names the forest registers. Past it, features not seen before are
        ignored (as unknown features are at prediction time), with one warning; put
        ``river.preprocessing.FeatureHasher`` in front for an unbounded vocabulary. Memory is
        bounded by ``n_estimators * max_nodes`` node rows of at most ``features_per_tree``
        cells plus ``max_width`` names, whatever the length or the width of the stream.""")
    drift_detector: str | base.DriftDetector | base.BinaryDriftDetector | None = Param(
        default=None, check=_check_detector,
        doc="""
        Drift adaptation, as river's ``ARFClassifier`` has it: a river drift detector
        (``river.drift.ADWIN()``, ``PageHinkley()``, ...; a binary one such as
        ``drift.binary.DDM()`` for a classifier) that each tree gets a fresh copy of. It
        watches the tree's prequential error, each sample's loss before the tree learns it:
        0/1 for a classifier, the absolute error of the tree's mean for a regressor. A drift
        is a rise of the error (a detector that tracks its window's mean, as ADWIN does, also
        flags falls, which a learning tree's error makes and which are ignored); what follows
        is ``background_swap``'s. river's ``drift.ADWIN`` runs compiled inside the forest's
        loop (the same detections, no Python call per tree and sample); another detector is
        called from it. ``"ADWIN"`` names ``river.drift.ADWIN(delta=0.001)`` (a string, so
        that the default is not a shared object): the default of the Mondrian, purely
        random, BSP and XForest classifiers, since a forest that learned a region of the
        input space early otherwise keeps its partition and counts there when the rows move
        on (rows sorted by place or time; the documentation's drift page quotes the run that
        chose it). None: the paper's algorithm,
        no adaptation (the default of the stream-partitioning classifier and of every
        regressor).
        ``drifts_per_tree``, ``swaps_per_tree`` and ``drift_log`` report what happened. With
        a detector, ``learn_many`` learns its rows one at a time in one compiled loop (each
        tree's error on a row comes before it learns the row, and a replacement takes effect
        at once), exactly as a ``learn_one`` loop does.""")
    warning_detector: str | base.DriftDetector | base.BinaryDriftDetector | None = Param(
        default=None, check=_check_warning,
        doc="""
        A second, more sensitive detector on the same error (None: none): on a warning the
        tree starts a background tree of its kind (a fresh one, seeded reproducibly from the
        forest's seed), which learns alongside it from then on. Needs ``drift_detector``.
        Without one, a background tree starts at a drift: the recommended setting
        (``drift_detector=drift.ADWIN(delta=0.001)`` alone, as accurate as with river's ARF's
        warning detector ``drift.ADWIN(delta=0.01)`` and cheaper; the documentation's drift
        page quotes the run).""")
    background_swap: str = Param(
        default="when_better", check=one_of(*SWAP_RULES),
        doc="""
        What a drift does. ``"at_drift"``: the tree's background tree (or, without one, a
        fresh tree) takes its place at once, as river's and MOA's adaptive random forests
        do. ``"when_better"`` (default): the drift starts a duel (and a background tree, if
        the tree has none); the background tree takes the tree's place once it makes
        significantly fewer errors than the tree on the rows since the drift (those it could
        predict, the recent ones weighing more: the k-th latest 0.99^k; the weighted sum S of
        the differences of their errors is positive and S^2 > 4 Q, Q the sum of their squared
        weighted differences: two standard deviations), and is dropped once significantly
        worse (S < 0 and S^2 > 9 Q, after at least 100 rows). A false alarm then costs a
        background tree's learning, not a grown tree; a real drift swaps a little later
        (the documentation's drift page quotes the run that chose it).""")
    importance_halflife: float | None = Param(
        default=1_000, check=optional(floats(1.0)),
        tree=lambda v, forest: {"gain_growth": importance_growth(v)},
        doc="""
        The memory of ``feature_importances``, in samples: a sample's contribution counts
        half as much this many samples later, so the importances follow a drifting stream;
        a split that is pruned or a tree that is replaced takes its contribution with it.
        The default ranks the informative features first most often on drifting streams
        (the documentation's importances page gives the run that chose it). A shorter
        memory also follows the trees as they grow: a credit earned while a tree was
        small fades as its deeper splits take over. None: importances are not tracked
        (``feature_importances`` raises), nor paid for.""")
    seed: int | None = Param(
        default=None, check=_check_seed,
        doc="""
        Random seed. The same seed on the same stream gives the same model, whatever the
        order of the features in the dicts.""")

    def _setup(self) -> None:
        """The rest of the construction, once the generated ``__init__`` set the parameters:
        check them, build the compiled core, its detectors and its budget."""
        self._check_params()
        self._budget_bytes = parse_bytes("memory_budget", self.memory_budget)
        self._core = self._new_core()
        self._reset_detectors()
        self._set_budget()

    @classmethod
    def _unknown_hint(cls, name: str, value) -> str:
        """What a constructor of `cls` given the unknown keyword `name` adds to its TypeError:
        the parameter a renamed one became (`RENAMED`), or ours for river's or scikit-learn's
        name (`FOREIGN`); '' if none."""
        own = cls._params
        new = RENAMED.get(name)
        if new in own:
            return f": renamed {new} in 0.2.0 (see the changelog)"
        if name in FOREIGN:
            instead, whose = FOREIGN[name]
            return f": use {instead.format(value=repr(value))} ({whose})"
        return ""

    # ------------------------------------------------------------------ the memory budget

    def _set_budget(self) -> None:
        """Hand the budget to the core: what the forest itself takes outside its trees and
        registries is measured once here, the rest the core shares out among the trees as
        names and labels arrive (a background tree borrows `_background_share` of its
        tree's share)."""
        core = self._core
        if self._budget_bytes is None:  # a new core has none
            return
        trees = sum(sys.getsizeof(t) for t in core.trees)
        fixed = int(self._raw_memory_usage) - trees
        # headroom for what grows with the stream outside the trees and the registries (the
        # core counts those, and a batch forest's buffer): the drift log
        fixed += 72 * self.DRIFT_LOG if self.drift_detector is not None else 0
        core.set_budget(int(self._budget_bytes), int(fixed + self._budget_margin * self._budget_bytes),
                        self.n_estimators, self._background_share)
        need = max(sys.getsizeof(t) for t in core.trees)
        if core.tree_bytes < need:
            least = self._budget_bytes + int((need - core.tree_bytes) * self.n_estimators) + 1
            raise ValueError(f"memory_budget={self.memory_budget!r} is too small for "
                             f"{self.n_estimators} empty trees: give at least {least:,} bytes")

    @property
    def memory_bytes(self) -> int:
        """The forest's memory now, in bytes, as river measures it (``_raw_memory_usage``:
        every object the forest holds, the trees' node storage included)."""
        return int(self._raw_memory_usage)

    # ------------------------------------------------------------------ drift adaptation

    #: drift positions kept by `drift_log` (the most recent; memory stays bounded)
    DRIFT_LOG = 1000

    def _reset_detectors(self):
        """A fresh copy of each detector for each tree, and empty reports (in the core, which
        runs them in its per-sample loop)."""
        self._core.set_watch(detector_of(self.drift_detector), detector_of(self.warning_detector),
                             SWAP_RULES[self.background_swap], self.DRIFT_LOG)

    @property
    def _make(self):
        """The tree factory the core starts background trees and replacements with (None
        without detectors)."""
        return self._tree_factory if self.drift_detector is not None else None

    @property
    def drifts_per_tree(self) -> list:
        """Drifts detected by each tree's detector so far."""
        return list(self._core.watch.drift_counts)

    @property
    def warnings_per_tree(self) -> list:
        """Warnings detected by each tree's warning detector so far (each one started a
        background tree)."""
        return list(self._core.watch.warning_counts)

    @property
    def swaps_per_tree(self) -> list:
        """Trees put in each tree's place by drift adaptation so far (its background tree, or
        a fresh one): one per drift with ``background_swap="at_drift"``, one per duel won
        with ``"when_better"``."""
        return list(self._core.watch.swap_counts)

    @property
    def drift_log(self) -> list:
        """(sample, tree) of the last drifts detected (at most `DRIFT_LOG`): the sample's
        position among the samples the detectors watched (1 for the first), and the tree
        whose detector fired."""
        return list(self._core.watch.drift_log)

    def _learn_adaptive(self, x, y) -> None:
        """learn_one with detectors: the core runs them in its loop (a batch-native forest's
        as each batch is learned)."""
        if self._learn_many_equals_learn_one:
            self._core.learn_one(x, y, make_tree=self._tree_factory)
        else:
            self._core.learn_one(x, y, after=self._after_batch, make_tree=self._tree_factory,
                                 **self._threads(self._batch_size()))

    #: values of parameters added since 0.1 that reproduce a model pickled before them (the
    #: migration from the pickles of 0.1 to 0.2, `river_forests._state.MIGRATIONS`)
    _legacy_defaults: ClassVar[dict] = {}

    def __reduce__(self):
        """Pickling goes through the model's one versioned state (`river_forests._state`):
        the pickle holds plain data and the estimator's name, never a compiled class."""
        state = PERSISTENCE["module"]
        return (state.from_state, (state.to_state(self, strict=False),))

    def __setstate__(self, state):
        """A model pickled by 0.1 to 0.2 (its ``__dict__``): migrated to this release's state
        and built from it (`river_forests._state.MIGRATIONS`)."""
        model = PERSISTENCE["module"].from_state({"version": 0, "estimator": type(self).__name__,
                                                  "attrs": state})
        self.__dict__.update(model.__dict__)

    # ------------------------------------------------------------------ construction

    @property
    def _vote(self) -> bool:
        return False

    #: the compiled tree class of this forest (a `_core._tree.Tree` kind)
    _tree_class: ClassVar[type]

    def _make_tree(self, task: int, seed: int):
        """One compiled tree of this forest, seeded with the 64-bit `seed` (with its share of
        the memory budget once the forest has one)."""
        tree = self._tree_class(task=task, seed=seed, **self._tree_params())
        core = getattr(self, "_core", None)
        if core is not None and core.budget > 0:
            tree.set_max_bytes(core.tree_bytes)
        return tree

    #: whether `learn_many` gives exactly what a `learn_one` loop over its rows gives. True for
    #: the forests whose paper is sequential; a batch-native forest (XForest) says False, and
    #: the harness (`evaluation.progressive_run`, the CLI, the suite) then feeds it batches of
    #: its `batch_size`, as a user would.
    _learn_many_equals_learn_one = True

    def _batch_size(self) -> int:
        """Rows `learn_one` buffers before learning them as one batch; 0: learn at once."""
        return 0

    #: the forest's after-batch step, `after(step, rows, targets)`, run under the model's lock
    #: once each batch is learned (None: nothing), `step` a `_core._forest.BatchStep`: what the
    #: step sees of the forest and may change. A tree it replaces starts afresh with its
    #: detectors too (`ForestCore._after`).
    _after_batch = None

    def _new_core(self) -> ForestCore:
        # the master seed is kept in the core (also when drawn for seed=None) and pickled with
        # it, with the count of replacements: tree k of the forest's life is seeded from both
        master_seed = self.seed if self.seed is not None else random.SystemRandom().getrandbits(64)
        trees = [self._make_tree(self._task, tree_seed(master_seed, i))
                 for i in range(self.n_estimators)]
        return ForestCore(trees, self._task == TASK_CLASSIFICATION, self._vote,
                          max_width=self.max_width, master_seed=master_seed,
                          batch_size=self._batch_size())

    def _tree_factory(self, seed: int):
        """A fresh tree of this forest seeded with `seed` (what a replacement is)."""
        return self._make_tree(self._task, seed)

    def replace_tree(self, i: int) -> None:
        """Replace tree `i` by a fresh tree of the same kind and parameters (XForest's swaps,
        drift adaptation). The k-th replacement in the forest's life is seeded with
        ``tree_seed(master_seed, n_estimators + k)``: reproducible from the forest's seed,
        and, for ``seed=None``, from the master seed drawn at construction and pickled with
        the forest, so a pickled forest replaces trees exactly as the original would."""
        check_int("i", i, 0, self.n_estimators - 1)
        self._core.replace_tree(i, self._tree_factory)

    @property
    def n_replaced(self) -> int:
        """Trees replaced so far in the forest's life."""
        return self._core.n_replaced

    def refit_many(self, X: pd.DataFrame, y) -> None:
        """Refit the leaves on new labelled data without adding a node (XForest-Zero, Xu et
        al., section 2.2): every node's statistics are cleared, then each row of `X` is
        counted, with weight 1, in every node of its path in every tree. The partition the
        forest learned (on another task, say) stays exactly as it is; only the statistics
        the trees predict from change, and new labels (or targets) are learned. Rows that
        ``learn_one`` buffered and had not learned yet are dropped. Unknown features are
        ignored, as at prediction; every target is checked before the model changes."""
        values, names = self._frame(X)
        self._core.refit_batch(values, names, self._targets(X, y))

    # ------------------------------------------------------------------ introspection

    @property
    def trees(self) -> list:
        """The compiled trees (read-only views for inspection)."""
        return list(self._core.trees)

    @property
    def n_nodes(self) -> int:
        """Total number of nodes over all trees."""
        return sum(t.node_count for t in self._core.trees)

    @property
    def feature_importances(self) -> dict:
        """Feature name -> importance, summing to 1, updated as the forest learns: what the
        splits on each feature have done for the predictions lately. Each tree credits each
        split, for each sample that goes through it, with the loss of the node's estimate
        less that of the child the sample goes to, measured before it learns the sample (a
        classifier's loss 1 - p(y), so a split's credit is its weighted Gini decrease; a
        regressor's, the squared error over the target's variance); a sample counts half
        as much ``importance_halflife`` samples later. Summed over the trees, the negative
        part dropped, normalised. {} before the forest knows a feature; equal shares while
        no split has earned a positive credit. The docs' importances page says what it
        recovers and where it is biased."""
        from ._inspect import feature_importances

        return feature_importances(self)

    def debug_one(self, x: dict, trees=None) -> str:
        """How each tree predicts `x`, as text: the cut of every node on its path and the
        way `x` went, the weight the node has seen and its split's credit (see
        `feature_importances`), the leaf with its box (Mondrian, purely random, BSP) or its
        split candidates (stream-partitioning), and the tree's prediction. `trees`: the
        indices of the trees to show (all by default). Changes nothing."""
        from ._inspect import debug_one

        return debug_one(self, x, trees)

    def draw(self, tree: int = 0, max_depth: int | None = None):
        """Tree `tree` as a ``graphviz.Digraph`` (needs the ``draw`` extra; rendering it needs
        Graphviz's ``dot``): each interior node's cut, each leaf's estimate, every node's
        weight; the edges say whether the cut holds. `max_depth`: the deepest level drawn
        (None: all). `to_text` gives the same in text."""
        from ._inspect import draw

        return draw(self, tree, max_depth)

    def to_text(self, tree: int = 0, max_depth: int | None = None) -> str:
        """Tree `tree` as indented text (what `draw` pictures), with each split's credit."""
        from ._inspect import to_text

        return to_text(self, tree, max_depth)

    # ------------------------------------------------------------------ batches

    @staticmethod
    def _frame(X) -> tuple[np.ndarray, list]:
        """A DataFrame's values as float64 (NaN for missing ones; may be a read-only view of the
        frame) and its column names. Raises a ValueError for duplicate column names and a
        TypeError naming the first column with a value that is neither a number nor a string;
        touches no model state."""
        if _is_sparse(X):  # the dense frame it stands for (`_sparse`)
            csr, names, _ = _sparse(X)
            return _dense(csr), names
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame or a SciPy sparse matrix, got "
                            f"{type(X).__name__}")
        if not X.columns.is_unique:
            dups = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"X has duplicate column names {dups!r}: each feature needs one column")
        # each distinct dtype checked once: a wide frame (a bag of words) has thousands of
        # columns and a handful of dtypes, and the check costs pandas microseconds each
        if all(pd.api.types.is_numeric_dtype(t) for t in set(X.dtypes)):
            try:
                # one call for the whole frame, not a pandas call per column
                values = X.to_numpy(dtype=np.float64, na_value=np.nan)
                return values, X.columns.tolist()
            except (TypeError, ValueError, OverflowError):
                pass
        # a column of strings (categories), objects, or ints beyond a double: one at a time
        values = np.column_stack([_column(X, j) for j in range(X.shape[1])]) if X.shape[1] \
            else np.empty((len(X), 0))
        return values, X.columns.tolist()

    @staticmethod
    def _targets(X: pd.DataFrame, y) -> list:
        """`y` as a list in the order of `X`'s rows: a Series is aligned on X's index as pandas
        aligns (same labels, any order); a Series with other labels is an error. A matrix
        has no index: its rows take y's values in order."""
        if isinstance(y, pd.Series) and isinstance(X, pd.DataFrame):
            if not y.index.equals(X.index):
                if not (len(y) == len(X) and y.index.is_unique and X.index.is_unique
                        and X.index.isin(y.index).all()):
                    raise ValueError(
                        "y's index does not match X's: pass y with the same index labels as X "
                        "(in any order), or a list"
                    )
                y = y.reindex(X.index)
            return y.tolist()
        return list(y)

    def _learn_batch(self, X: pd.DataFrame, y) -> None:
        if _is_sparse(X):
            return self._learn_sparse(X, y)
        values, names = self._frame(X)
        ys = self._targets(X, y)
        # with detectors, a sequential forest's core learns the rows one at a time, watched
        self._core.learn_batch(values, names, ys, after=self._after_batch, make_tree=self._make,
                               **self._threads(len(values)))

    def _learn_sparse(self, X, y) -> None:
        """A SciPy sparse matrix or a frame of sparse columns: learned as the dense frame it
        stands for (`_sparse`), a block of rows at a time, each block as wide as the registry
        and at most SPARSE_BLOCK_BYTES: a sequential forest learns a batch row after row, so
        the blocks learn what the whole would. A forest that learns in batches (XForest) takes
        it as one batch, dense."""
        csr, names, _ = _sparse(X)
        ys = self._targets(X, y)
        if len(ys) != csr.shape[0]:
            raise ValueError(f"X has {csr.shape[0]} rows but y has {len(ys)}")
        self._core.check_batch(range(csr.shape[0]), names, ys)  # every target first
        step = csr.shape[0] if not self._learn_many_equals_learn_one \
            else self._sparse_block(len(names))
        for start in range(0, max(csr.shape[0], 1), step):
            stop = start + step
            self._core.learn_batch(_dense(csr[start:stop]), names, ys[start:stop],
                                   after=self._after_batch, make_tree=self._make,
                                   **self._threads(min(step, csr.shape[0])))

    def _sparse_block(self, n_columns: int) -> int:
        """Rows of a block of a sparse batch: at most SPARSE_BLOCK_BYTES as wide as the
        registry will be (or the matrix, if wider)."""
        width = max(n_columns, len(self._core.features.names))
        return max(1, SPARSE_BLOCK_BYTES // (8 * max(width, 1)))

    def _threads(self, n_rows: int) -> dict:
        """How a batch of `n_rows` rows is learned: its trees shared out among the process's
        thread pool when it is worth it, else in the calling thread."""
        if n_rows >= PARALLEL_MIN_ROWS and self.n_estimators > 1 and _WORKERS > 1 \
                and not getattr(_LOCAL, "serial", False):
            return {"executor": _executor(), "n_tasks": _WORKERS}
        return {}

    def _predict_batch(self, X: pd.DataFrame) -> tuple[np.ndarray, list]:
        """The aggregated predictions of X's rows and the labels of their columns (a sparse
        X a block of rows at a time, as `_learn_sparse`)."""
        if _is_sparse(X):
            csr, names, _ = _sparse(X)
            step = self._sparse_block(len(names))
            parts, labels = [], []
            for start in range(0, csr.shape[0], step):
                pred, labels = self._core.predict_batch(_dense(csr[start:start + step]), names)
                parts.append(pred)
            if not parts:
                return self._core.predict_batch(np.empty((0, len(names))), names)
            return (np.concatenate(parts) if len(parts) > 1 else parts[0]), labels
        values, names = self._frame(X)
        return self._core.predict_batch(values, names)

    def _predict_trees_batch(self, X: pd.DataFrame) -> tuple[np.ndarray, list]:
        """Each tree's own predictions of X's rows, (n_trees, n_rows, n_out), and the labels
        of the last axis (classification; regression gives (mean, variance)): to score trees
        on a batch, compiled, without a Python loop per row."""
        values, names = self._frame(X)
        return self._core.predict_trees_batch(values, names)


#: the most bytes of a block of rows a sparse batch is densified into (`_learn_sparse`)
SPARSE_BLOCK_BYTES = 8 << 20


def _is_sparse(X) -> bool:
    """Whether X is a SciPy sparse matrix or array, or a frame whose every column is sparse."""
    if type(X).__module__.startswith("scipy.sparse"):
        return True
    return isinstance(X, pd.DataFrame) and X.shape[1] > 0 and all(
        isinstance(t, pd.SparseDtype) for t in X.dtypes)


def _sparse(X):
    """(CSR matrix of float64, feature names, index) of a sparse X, with the meaning of a
    value that is not stored: for a SciPy matrix, a missing value, as an absent key of a
    dict (a bag of words as a matrix learns as the same words as dicts; store a 0 to give
    one); for a frame's sparse columns, their fill value, as pandas means it (0, or NaN:
    missing). The features of a SciPy matrix are its column numbers, 0 to n - 1."""
    import scipy.sparse as sp

    if isinstance(X, pd.DataFrame):
        if not X.columns.is_unique:
            dups = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"X has duplicate column names {dups!r}: each feature needs one column")
        if any(not pd.api.types.is_numeric_dtype(t.subtype) for t in X.dtypes):
            raise TypeError("X's sparse columns must be numbers")
        # each column's stored values, then its fill value where none is stored
        cols = []
        for j in range(X.shape[1]):
            arr = X.iloc[:, j].array
            fill = float(arr.fill_value)
            stored = np.asarray(arr.sp_index.indices)
            vals = np.asarray(arr.sp_values, dtype=np.float64)
            if fill == fill:  # a number: the rows it stands for are that value
                dense = np.full(len(arr), fill)
                dense[stored] = vals
                keep = np.arange(len(arr))
                cols.append((keep, dense))
            else:
                cols.append((stored, vals))
        rows = np.concatenate([c[0] for c in cols]) if cols else np.empty(0, np.intp)
        data = np.concatenate([c[1] for c in cols]) if cols else np.empty(0)
        colidx = np.concatenate([np.full(len(c[0]), j) for j, c in enumerate(cols)]) \
            if cols else np.empty(0, np.intp)
        csr = sp.csr_array((data, (rows, colidx)), shape=X.shape)
        return csr, X.columns.tolist(), X.index
    csr = sp.csr_array(X, dtype=np.float64)
    csr.sum_duplicates()
    return csr, list(range(csr.shape[1])), pd.RangeIndex(csr.shape[0])


def _index(X):
    """The index of the answers for X's rows: a frame's, or 0 to n - 1 for a matrix."""
    return X.index if isinstance(X, pd.DataFrame) else pd.RangeIndex(X.shape[0])


def _dense(block) -> np.ndarray:
    """A CSR block as a dense float64 array: NaN where nothing is stored (missing)."""
    coo = block.tocoo()
    out = np.full(block.shape, np.nan)
    out[coo.row, coo.col] = coo.data
    return out


def _column(X: pd.DataFrame, j: int) -> np.ndarray:
    """Column `j` as float64, as `learn_one` reads a value: a string is a category, stored as
    its code (`string_code`); None, NA and values beyond a double's range are missing; any
    other value that is not a real number is a TypeError naming the feature."""
    col = X.iloc[:, j]
    if pd.api.types.is_numeric_dtype(col.dtype):
        try:
            return col.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError, OverflowError):
            pass
    # each distinct value once: a column of categories costs its distinct values in Python
    try:
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
    except TypeError:  # an unhashable value (a list, ...): the loop below names it
        codes, uniques = np.arange(len(col)), col.to_numpy(dtype=object)
    mapped = np.empty(len(uniques) + 1)
    mapped[-1] = np.nan  # the sentinel -1: None, NaN, NA
    for i, v in enumerate(np.asarray(uniques, dtype=object)):
        if isinstance(v, str):
            mapped[i] = string_code(v)
        elif v is None or v is pd.NA:
            mapped[i] = np.nan
        elif isinstance(v, (numbers.Real, np.bool_)):
            try:
                mapped[i] = float(v)
            except OverflowError:
                mapped[i] = np.nan
        else:
            raise TypeError(
                f"feature {X.columns[j]!r} has a value of type {type(v).__name__} ({v!r}); "
                "river_forests trees take real numbers and strings (categories): convert it "
                "first, e.g. with str, or drop it with river.compose.SelectType"
            )
    return mapped[codes]


class ForestClassifier(BaseForest, base.MiniBatchClassifier):
    """A forest classifier: every label (bool, str, int, ...) may arrive at any time."""

    _task = TASK_CLASSIFICATION
    _shared_params = True

    aggregation: str = Param(
        default="average", check=one_of(*AGGREGATIONS), after="smoothing",
        doc="""
        How the trees' class probabilities are combined (biau2008, section 2): ``"average"``
        (default) takes their mean, the averaged classifier; ``"vote"`` gives each tree one
        vote for its most probable class, probabilities being vote shares, the voting
        classifier. Both are consistent when the trees are (the paper's proposition 1); the
        documentation's forest pages compare them.""")

    @property
    def _vote(self) -> bool:
        return self.aggregation == "vote"

    @property
    def _multiclass(self) -> bool:
        return True

    def learn_one(self, x: dict, y: base.typing.ClfTarget) -> None:
        if self.drift_detector is not None:
            return self._learn_adaptive(x, y)
        self._core.learn_one(x, y)

    def predict_proba_one(self, x: dict, **kwargs) -> dict[base.typing.ClfTarget, float]:
        return self._core.predict_proba_one(x)

    def predict_one(self, x: dict, **kwargs) -> base.typing.ClfTarget | None:
        return self._core.predict_label_one(x)

    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        self._learn_batch(X, y)

    def predict_proba_many(self, X: pd.DataFrame) -> pd.DataFrame:
        proba_, labels = self._predict_batch(X)
        return pd.DataFrame(proba_, index=_index(X), columns=labels)

    def predict_many(self, X: pd.DataFrame) -> pd.Series:
        proba_, labels = self._predict_batch(X)
        if not labels:
            return pd.Series([None] * X.shape[0], index=_index(X), dtype=object)
        return pd.Series([labels[i] for i in proba_.argmax(axis=1)], index=_index(X))


class ForestRegressor(BaseForest, base.MiniBatchRegressor):
    """A forest regressor: the mean of the trees' predictions (each its leaf's linear model's,
    or its smoothed mean: `leaf_model`), with prediction intervals (`confidence_level`)."""

    _task = TASK_REGRESSION
    _shared_params = True
    #: files of format 3 written before every regressor had linear leaves had mean leaves
    #: (the Mondrian regressor's files name their own)
    _added_params: ClassVar[dict] = {"leaf_model": "mean", "linear_rate": 1.0}

    confidence_level: float | None = Param(
        default=0.95, after="background_swap",
        check=optional(floats(0.0, low_inclusive=False, high=1.0,
                              below=(1.0, "an interval that always holds is the whole line"))),
        doc="""
        The level of the prediction intervals, in (0, 1): ``predict_one(x,
        with_interval=True)`` returns a ``river.conf.Interval`` meant to hold the target this
        often (``predict_many(X, with_interval=True)``, a frame with ``lower`` and ``upper``
        columns). The intervals are learned online from the forest's own prequential
        residuals (each row's, before the forest learns it): normalised conformal prediction
        with a local scale (a log-linear model of the residuals' size over binned features
        and the trees' spread) and an adaptive level (adaptive conformal inference), so that
        the share of targets inside their interval converges to this level on any stream,
        drifting ones included, and holds within each region of a feature where the noise
        differs (the documentation's intervals page quotes the run that chose the method).
        None: no intervals (nor their cost).""")
    leaf_model: str = Param(
        default="linear", after="confidence_level", check=one_of("mean", "linear"),
        tree=lambda leaf_model, forest: {"linear": leaf_model == "linear"},
        doc="""
        ``"linear"`` (default): every node keeps a linear model of the target over the
        sample's features (from each feature's origin, in units of the range the tree has
        seen of it, so that the features' units do not matter), stepped where the node's mean
        counts the sample: the slopes by normalized least mean squares, the intercept by the
        running mean of the residuals; a root's model starts at its first target. A new node
        starts from the model of the node it came from, so a leaf refines its ancestors' fit;
        the leaf's model gives the prediction's mean. ``"mean"``: the leaf's (smoothed) mean,
        the papers' estimator. The leaf-model experiment chose linear leaves for every
        regressor on the benchmark's tuning half (the documentation's regression page quotes
        it).""")
    linear_rate: float = Param(
        default=1.0, after="leaf_model", check=floats(0.0, low_inclusive=False, high=1.0),
        tree=lambda linear_rate, forest: {"linear_rate": float(linear_rate)},
        doc="""
        The normalized step of the linear leaves' slopes, in (0, 1]: 1 fits each sample
        exactly in the direction of its features.""")

    #: the interval calibrator's settings (`_core/_conformal.pxd`; the docs' intervals page
    #: quotes the run that chose them): the step of the adaptive level, the scores kept, the
    #: step of the scale model's bins, the step and the start of its spread term's
    #: coefficient (a step of 0 keeps it: the scale follows the square root of the forest's
    #: standard deviation, relative to its running geometric mean)
    INTERVALS = {"gamma": 0.01, "window": 2000, "lr": 0.1, "lr_beta": 0.0, "beta": 0.5}

    def _new_core(self) -> ForestCore:
        core = super()._new_core()
        self._set_intervals(core)
        return core

    def _set_intervals(self, core) -> None:
        alpha = 0.0 if self.confidence_level is None else 1.0 - self.confidence_level
        core.set_intervals(alpha, **self.INTERVALS)

    def learn_one(self, x: dict, y: base.typing.RegTarget) -> None:
        if self.drift_detector is not None:
            return self._learn_adaptive(x, y)
        self._core.learn_one(x, y)

    def predict_one(self, x: dict, with_interval: bool = False, with_dist: bool = False):
        """Predict the target of `x`.

        With ``with_interval=True``, return a :class:`river.conf.Interval` at the forest's
        ``confidence_level`` (as ``river.conf.RegressionJackknife`` does), centred on the
        prediction. It is infinite while the forest has seen too few targets to calibrate it
        (at 95%, the first 25 or so).

        With ``with_dist=True``, return a :class:`river.proba.Gaussian` with the forest's
        predictive mean and standard deviation: the spread of the mixture of the trees' leaf
        distributions (within-leaf variance plus disagreement between trees). It is not
        calibrated: the interval is.
        """
        if with_interval:
            self._check_intervals()
            _, _, lower, upper = self._core.predict_interval_one(x)
            return conf.Interval(lower, upper)
        mean, var = self._core.predict_value_one(x)
        if not with_dist:
            return mean
        return proba.Gaussian._from_state(n=1, m=mean, var=var, ddof=0)

    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        self._learn_batch(X, y)

    def predict_many(self, X: pd.DataFrame, with_interval: bool = False):
        """Predict the targets of the rows of `X` (a Series); with ``with_interval=True``, a
        frame with the ``prediction`` and the interval's ``lower`` and ``upper`` bounds, every
        row's interval from the calibrator as it stands (a batch is predicted before it is
        learned)."""
        if with_interval:
            self._check_intervals()
            values, names = self._frame(X)
            out = self._core.predict_interval_batch(values, names)
            return pd.DataFrame({"prediction": out[:, 0], "lower": out[:, 2],
                                 "upper": out[:, 3]}, index=_index(X))
        pred, _ = self._predict_batch(X)
        return pd.Series(pred[:, 0], index=_index(X), dtype=np.float64)

    def _check_intervals(self) -> None:
        if self.confidence_level is None:
            raise ValueError("with_interval=True needs intervals: this forest was built with "
                             "confidence_level=None")

    @property
    def interval_coverage(self) -> float | None:
        """The share of the rows learned so far that fell inside the interval the forest
        gave them before learning them, of those whose interval was finite (None before the
        first): the prequential coverage the calibrator steers to ``confidence_level``."""
        state = self._core.interval_state
        if state is None or state["n_checked"] == 0:
            return None
        return 1.0 - state["n_misses"] / state["n_checked"]


#: the shared parameters' defaults, by name (a forest changes one in its ``_defaults``)
SHARED_DEFAULTS = {n: p.default for cls in (ForestClassifier, ForestRegressor)
                   for n, p in cls._params.items() if p.shared}


def shared_doc(name: str) -> str:
    """The documentation of a shared parameter, for a forest that adds to it (``_docs``)."""
    for cls in (ForestClassifier, ForestRegressor):
        if name in cls._params:
            return cls._params[name].doc
    raise KeyError(name)
