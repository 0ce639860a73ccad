"""The extremely simple streaming forest, XForest (Xu et al.), mini-batch first: a classifier
and, carried over to regression as CART does, a regressor."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from river import base, drift

from ._core._xforest import XTree
from ._forest import ForestClassifier, ForestRegressor, _index, forest_doc, shared_doc
from ._params import Param, Parametrized, boolean, check_float, check_int, ints, one_of, optional

__all__ = ["XForestClassifier", "XForestRegressor"]

#: codes shared with `_core/_xforest.pxd` (TRY_*) and `_core/_impurity.pxd` (CRITERION_*)
_TRY = {"sqrt": 1, "log2": 2, None: 4}
_CRITERIA = {"entropy": 0, "gini": 1}
_MSE = 2  # the regressor's: CART's squared error

_MEMORY_DOC = """ A batch grows the leaves it
        reaches breadth first (all false roots one level, then the next), so when a tree is
        full its last nodes are spread over the batch's leaves; a full tree stops splitting,
        and its leaves keep counting the samples that reach them. Replacements bring fresh
        trees. The rows ``learn_one`` buffers (``batch_size`` rows as wide as the features
        seen) count in the budget too."""

_BATCH_NATIVE_DOC = """
    XForest is batch-native: ``learn_many`` is its natural interface, and unlike the other
    forests of the package its result is not that of a ``learn_one`` loop. ``learn_one``
    buffers ``batch_size`` rows, so the forest works in river pipelines and
    ``evaluate.progressive_val_score`` all the same. Every forest's ``refit_many`` is the
    paper's XForest-Zero (section 2.2): the leaves refit on another task's labels, the
    splits kept.
"""

_MISSING_DOC = """
    A missing value (absent key, None, NaN) is left out of a split's search and sent to the
    side more of the batch went to; at prediction, to the child that has seen more samples.

    One model may be shared by threads: each call holds the model's lock.
"""

_ALGO_DOC = """
    Each tree is an XTree (algorithm 1): a decision tree grown further by every batch. The
    batch (resampled with replacement for each tree with ``bootstrap``) is routed to the
    leaves it reaches (the "false roots"), and each of them is split as scikit-learn's decision tree would
    split it on the rows that reached it: at the best impurity split among ``max_features``
    random features, recursively while a node holds ``min_samples_split`` rows of more than
    one class (and is above ``max_depth``). Splits already made never change. Every sample
    counts in every node it passes through, so a leaf's class counts hold every sample
    that ever reached it.

    The forest (algorithm 2) then, after batch b > 1 and with probability 1/b, replaces its
    ``n_swaps`` trees of lowest accuracy on the batch by new trees grown on that batch: old
    trees whose early splits no longer fit give way, less and less often.
""" + _BATCH_NATIVE_DOC + _MISSING_DOC

_REGRESSOR_ALGO_DOC = """
    Xu et al.'s forest classifies; this is its regression form, carried over as CART carries
    a decision tree over to regression. Each tree is an XTree (algorithm 1): a decision tree
    grown further by every batch. The batch (resampled with replacement for each tree, with
    ``bootstrap``) is routed to the leaves it reaches (the "false roots"), and each of them
    is split as scikit-learn's regression tree would split it on the rows that reached it:
    at the threshold, among ``max_features`` random features, whose two sides have the
    least squared error about their means (the largest decrease of the variance),
    recursively while a node holds ``min_samples_split`` rows whose targets are not all
    equal (and is above ``max_depth``). Splits already made never change. Every sample
    counts in every node it passes through, so a leaf's sums of targets hold every sample
    that ever reached it. A tree predicts with its leaf's linear model (``leaf_model="linear"``,
    the default) or the (smoothed) mean of its leaf; the forest averages its trees.

    The forest (algorithm 2) then, after batch b > 1 and with probability 1/b, replaces its
    ``n_swaps`` trees of largest mean squared error on the batch by new trees grown on that
    batch: old trees whose early splits no longer fit give way, less and less often.
""" + _BATCH_NATIVE_DOC.replace("task's labels", "task's targets") + """
    Until a tree has learned a sample (the first ``batch_size`` rows of a stream) the forest
    has nothing to predict from: ``predict_one`` returns None (``predict_many``, None in
    every row), which river's ``evaluate.progressive_val_score`` leaves out, as it does a
    classifier's before its first label. Its intervals are not: its calibrator learns those
    rows as they come, each from the mean of the targets before it, so an interval is
    finite from the row a sequential forest's is (the 15th or so at 90%), centred on the
    mean of the targets buffered.
""" + _MISSING_DOC

_REFERENCES = """
    References
    ----------
    H. Xu. Extremely Simple Streaming Forest. arXiv, 2024 (algorithms 1 and 2; XForest-Zero:
    section 2.2).
"""


def _check_tried(name, value, forest):
    if isinstance(value, str) or value is None:
        if value not in _TRY:
            raise ValueError(
                f"max_features must be 'sqrt', 'log2', None, an int >= 1 or a float in "
                f"(0, 1], got {value!r}")
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        check_int(name, value, 1)
    else:
        check_float(name, value, 0.0, low_inclusive=False, high=1.0)


def _tried(max_features, forest) -> dict:
    """The compiled `split_features_mode` (`_core/_xforest.pxd`'s TRY_*) and its value."""
    if isinstance(max_features, str) or max_features is None:
        mode, value = _TRY[max_features], 0.0
    elif isinstance(max_features, numbers.Integral):
        mode, value = 0, float(max_features)
    else:
        mode, value = 3, float(max_features)
    return {"split_features_mode": mode, "split_features": value}


def _check_swaps(name, value, forest):
    n = forest.n_estimators
    check_int(name, value, 0, int(n) if isinstance(n, numbers.Integral) else None)


class _XForestParams(Parametrized):
    """Parameter handling and the batch protocol shared by the XForest classifier and
    regressor (a mixin before `ForestClassifier` / `ForestRegressor`)."""

    _tree_class = XTree
    _learn_many_equals_learn_one = False
    #: parameters added since the model files of this format version (`_state._build`): the
    #: values that reproduce the files written before them
    _added_params = {"kept_rows": 0}
    _defaults = {"smoothing": 0.5, "features_per_tree": 256}

    max_features: str | int | float | None = Param(
        default=0.6, check=_check_tried, tree=_tried,
        doc="""
        Features a split tries, drawn at random among the tree's (scikit-learn's
        ``max_features``): ``"sqrt"`` (the paper's sqrt(d)), ``"log2"``, an int, a float in
        (0, 1] (that fraction of d; 0.6, MOA's ARF's share, is the default since 0.3.0) or
        None (all of them). A drawn feature that is constant at the node does not count, as
        in scikit-learn. The documentation's XForest page quotes the run that chose 0.6.""")
    min_samples_split: int = Param(
        default=5, check=ints(2, 2**31 - 1), tree="min_samples_split", cast=int,
        doc="""
        A node splits only if at least this many distinct rows of the batch reach it (and
        they are not all of one class). 5 by default since 0.3.0 (the paper's and
        scikit-learn's: 2; the documentation's XForest page quotes the run that chose it).""")
    max_depth: int | None = Param(
        default=None, check=optional(ints(1, 2**31 - 1)),
        tree=lambda depth, forest: {"max_depth": int(depth or 0)},
        doc="""
        Nodes at this depth stay leaves (the root is at depth 0); None: no limit but
        ``max_nodes``.""")
    batch_size: int = Param(
        default=100, check=ints(1, 2**31 - 1),
        doc="""
        Rows ``learn_one`` buffers before it learns them as one batch: XForest learns in
        mini-batches, and 100 is the paper's size. ``learn_many`` learns the batch it is
        given as one batch (after the rows ``learn_one`` buffered, as a batch of their own).
        Predictions use the trees as they stand; ``flush()`` learns the buffer now.""")
    n_swaps: int = Param(
        default=1, check=_check_swaps,
        doc="""
        After batch b > 1, with probability 1/b, the forest scores every tree on that batch
        (accuracy) and replaces its ``n_swaps`` worst trees by new trees grown on that batch
        alone (algorithm 2). 0 never replaces a tree.""")
    bootstrap: bool = Param(
        default=False, check=boolean(numpy=True), tree="bootstrap", cast=bool,
        doc="""
        True: each tree learns a resample of each batch drawn with replacement (algorithm 2).
        False (default since 0.3.0): every tree learns the batch as it is (the trees then
        differ by their feature draws), so a split sees every row of a small batch (the
        documentation's XForest page quotes the run that chose it).""")
    kept_rows: int = Param(
        default=4, check=ints(0, 2**31 - 1), tree="keep_per_leaf", cast=int,
        doc="""
        Rows a leaf keeps, from the batches that reached it without splitting it, to grow
        from with the next batch's. 0 (the paper's): a node splits on the rows of the
        current batch alone, so once a tree has many leaves few of them get
        ``min_samples_split`` rows of one batch, and the tree all but stops growing however
        long the stream. k > 0: each leaf that does not split keeps its last k rows (their
        features and target), and the next batch's rows that reach it join them, so a leaf
        splits once ``min_samples_split`` rows have reached it over any number of batches:
        the trees go on growing with the stream until they fill their share of
        ``memory_budget``. Kept rows count in the budget (a row costs 8 bytes a feature,
        and 16 more); a tree that is full, or over its budget, drops them. The
        classifier's default is 4 (``min_samples_split - 1``), ranked first on short and
        long streams (the documentation's XForest page gives the ranks); the regressor's is
        0 (not ranked with long streams yet).""")

    def _batch_size(self) -> int:
        return int(self.batch_size)

    # ------------------------------------------------------------------ the batch protocol

    def _tree_scores(self, predictions: np.ndarray, targets) -> np.ndarray:
        """Each tree's score on a batch, higher is better, from its predictions of the batch
        (`BatchStep.predict_trees`: (n_trees, n_rows, n_out))."""
        raise NotImplementedError

    def _after_batch(self, step, rows, targets) -> None:
        """Algorithm 2's swap, under the model's lock once batch b is learned: if b > 1, with
        probability 1/b (the forest's own generator), score each tree on the batch
        (`_tree_scores`) and replace the `n_swaps` of lowest score (ties: the first trees)
        by new trees grown on the batch."""
        b = step.n_batches
        if b <= 1 or self.n_swaps == 0 or len(targets) == 0:
            return
        if step.uniform() >= 1.0 / b:
            return
        scores = self._tree_scores(step.predict_trees(rows), targets)  # (n_trees,)
        for i in np.argsort(scores, kind="stable")[: self.n_swaps]:
            step.replace_tree(int(i), self._tree_factory, rows, targets)

    def learn_one(self, x: dict, y) -> None:
        """Buffer the sample; every ``batch_size`` samples, learn them as one batch."""
        self._core.learn_one(x, y, after=self._after_batch, make_tree=self._make,
                            **self._threads(self.batch_size))

    def flush(self) -> None:
        """Learn the rows ``learn_one`` buffered now, as one (shorter) batch."""
        self._core.flush(after=self._after_batch, make_tree=self._make,
                         **self._threads(self.batch_size))

    @property
    def n_pending(self) -> int:
        """Rows ``learn_one`` buffered and has not learned yet."""
        return self._core.n_pending

    @property
    def n_batches(self) -> int:
        """Batches learned so far."""
        return self._core.n_batches

    @property
    def n_splits(self) -> int:
        """Splits made so far by the trees in the forest now."""
        return sum(t.splits for t in self._core.trees)

    def _unit_test_skips(self):
        # Algorithm 1 grows a tree from a whole batch at once (the best split of the rows that
        # reach a leaf), so learning a batch is by design not a loop of single rows: the
        # declared `_learn_many_equals_learn_one = False`.
        return {"check_learn_many_matches_learn_one"}


class XForestClassifier(_XForestParams, ForestClassifier):
    _defaults = {"drift_detector": "ADWIN"}
    _docs = {
        "memory_budget": shared_doc("memory_budget") + """ A node costs
        36 bytes plus 8 per class (rounded up to a power of two).""" + _MEMORY_DOC,
        "smoothing": shared_doc("smoothing").replace(
            "A leaf freshly\n        created by a split has seen no data, so it predicts its parent's estimate; with\n"
            "        ``smoothing=0`` this is a pure back-off to the deepest node with data.",
            "A leaf starts\n        with the batch rows that created it. ``smoothing=0`` is the paper's leaf estimate;\n"
            "        0.5, the default since 0.2.0, ranked first (the documentation's XForest\n"
            "        page gives the ranks)."),
    }

    criterion: str = Param(
        default="gini", check=one_of("gini", "entropy"), after="max_features",
        tree=lambda criterion, forest: {"criterion": _CRITERIA[criterion]},
        doc="""
        The impurity a split decreases most: ``"gini"`` (default, scikit-learn's and the
        paper's) or ``"entropy"``.""")

    __doc__ = forest_doc(
        "The extremely simple streaming forest, XForest (Xu et al.), mini-batch first.",
        _ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import XForestClassifier

    >>> model = XForestClassifier(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 87.11%

    The natural interface is the mini-batch one:

    >>> import pandas as pd
    >>> rows = list(datasets.Phishing())
    >>> model = XForestClassifier(n_estimators=10, seed=42)
    >>> for i in range(0, 1000, 100):
    ...     batch = rows[i:i + 100]
    ...     model.learn_many(pd.DataFrame([x for x, _ in batch]), pd.Series([y for _, y in batch]))
    >>> test = rows[1000:]
    >>> X_test = pd.DataFrame([x for x, _ in test])
    >>> y_test = pd.Series([y for _, y in test])
    >>> print(f"{(model.predict_many(X_test) == y_test).mean():.2%}")
    93.20%
""" + _REFERENCES,
    )


    def _tree_scores(self, predictions, targets):
        """Accuracy on the batch (the paper's)."""
        votes = predictions.argmax(axis=2)  # (n_trees, n_rows)
        return (votes == np.asarray(targets, dtype=np.int64)[None, :]).mean(axis=1)

    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "batch_size": 10, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "batch_size": 10, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "batch_size": 7, "max_features": None, "criterion": "entropy",
               "max_depth": 4, "max_nodes": 31, "aggregation": "vote", "seed": 2}
        yield {"n_estimators": 2, "batch_size": 5, "bootstrap": False, "max_features": 0.5,
               "subsampling": "poisson", "seed": 3}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "batch_size": 10, "features_per_tree": 2, "max_features": 1,
               "seed": 4}
        # leaves that keep rows across batches, a slot reservoir forgetting their features
        yield {"n_estimators": 2, "batch_size": 10, "kept_rows": 3, "features_per_tree": 3,
               "seed": 5}


class XForestRegressor(_XForestParams, ForestRegressor):
    _defaults = {"min_samples_split": 2, "kept_rows": 0}
    _tree_constants = {"criterion": _MSE}
    #: the interval calibrator's settings (see `ForestRegressor.INTERVALS`), chosen for
    #: XForest on the tuning half (the intervals experiment's second table, with linear
    #: leaves): its spread, from leaves that start with a batch's rows, is a poor normaliser
    #: kept at a fixed power (wider intervals over the tuning streams), so its coefficient is
    #: learned from 0, and its bins step faster than the other forests'
    INTERVALS = {"gamma": 0.01, "window": 2000, "lr": 0.2, "lr_beta": 0.05, "beta": 0.0}
    _docs = {
        "max_features": """
        Features a split tries, drawn at random among the tree's (scikit-learn's
        ``max_features``): ``"sqrt"`` (the paper's sqrt(d)), ``"log2"``, an int, a float in
        (0, 1] (that fraction of d; 0.6, the classifier's default, is the default) or None
        (all of them). A drawn feature that is constant at the node does not count, as in
        scikit-learn.""",
        "min_samples_split": """
        A node splits only if at least this many distinct rows of the batch reach it (and
        their targets are not all equal). 2 by default, chosen with ``batch_size`` and
        ``max_features`` (the documentation's XForest page quotes the run).""",
        "n_swaps": """
        After batch b > 1, with probability 1/b, the forest scores every tree on that batch
        (mean squared error) and replaces its ``n_swaps`` worst trees by new trees grown on
        that batch alone (algorithm 2). 0 never replaces a tree.""",
        "bootstrap": """
        True: each tree learns a resample of each batch drawn with replacement (algorithm 2).
        False (default, as the classifier's): every tree learns the batch as it is (the trees
        then differ by their feature draws), so a split sees every row of a small batch.""",
        "memory_budget": shared_doc("memory_budget") + """ A node costs
        52 bytes (36, and 16 for its sums of targets).""" + _MEMORY_DOC,
        "smoothing": shared_doc("smoothing").replace(
            "A leaf freshly\n        created by a split has seen no data, so it predicts its parent's estimate; with\n"
            "        ``smoothing=0`` this is a pure back-off to the deepest node with data.",
            "A leaf starts\n        with the batch rows that created it. ``smoothing=0`` is the leaf's mean, CART's;\n"
            "        0.5 is the classifier's default."),
    }

    __doc__ = forest_doc(
        "The extremely simple streaming forest, XForest (Xu et al.), for regression, mini-batch "
        "first.",
        _REGRESSOR_ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import XForestRegressor

    >>> model = XForestRegressor(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 1.716776

    The natural interface is the mini-batch one:

    >>> import pandas as pd
    >>> rows = list(datasets.TrumpApproval())
    >>> model = XForestRegressor(n_estimators=10, seed=42)
    >>> for i in range(0, 800, 100):
    ...     batch = rows[i:i + 100]
    ...     model.learn_many(pd.DataFrame([x for x, _ in batch]), pd.Series([y for _, y in batch]))
    >>> test = rows[800:]
    >>> X_test = pd.DataFrame([x for x, _ in test])
    >>> y_test = pd.Series([y for _, y in test])
    >>> print(f"{(model.predict_many(X_test) - y_test).abs().mean():.4f}")
    1.5490

    Prediction intervals, each batch's asked for before the batch is learned. All the
    intervals of a batch come from the calibrator as it stood before the batch, as the
    predictions come from the trees as they stood: the first batch's, asked for before any
    target is known, are infinite (they cover their targets whatever they are); the
    calibrator learns that batch's rows one at a time, each from the mean of the targets
    before it, so the second batch's are finite:

    >>> from river.datasets import synth
    >>> rows = list(synth.Friedman(seed=42).take(10_000))
    >>> model = XForestRegressor(n_estimators=10, seed=42, confidence_level=0.9)
    >>> covered = 0
    >>> for i in range(0, 10_000, 500):
    ...     X = pd.DataFrame([x for x, _ in rows[i:i + 500]])
    ...     y = pd.Series([y for _, y in rows[i:i + 500]])
    ...     pred = model.predict_many(X, with_interval=True)
    ...     covered += ((pred["lower"] <= y) & (y <= pred["upper"])).sum()
    ...     model.learn_many(X, y)
    >>> print(f"coverage: {covered / 10_000:.3f}")
    coverage: 0.905
    >>> print(f"coverage of the finite intervals: {model.interval_coverage:.3f}")
    coverage of the finite intervals: 0.900
""" + _REFERENCES,
    )


    @property
    def _learned(self) -> bool:
        """Whether a tree has learned a sample: until then the forest has nothing to predict
        from (the first ``batch_size`` rows of a stream)."""
        return any(t.samples_seen > 0 for t in self._core.trees)

    def predict_one(self, x: dict, with_interval: bool = False, with_dist: bool = False):
        """Predict the target of `x` (see `ForestRegressor.predict_one`): None while no tree
        has learned a sample (river's ``progressive_val_score`` leaves such a prediction
        out), as a classifier predicts None before its first label; an interval is then
        centred on the mean of the targets buffered (the whole line before the first)."""
        if not with_interval and not self._learned:
            return None
        return super().predict_one(x, with_interval=with_interval, with_dist=with_dist)

    def predict_many(self, X: pd.DataFrame, with_interval: bool = False):
        """Predict the targets of the rows of `X` (see `ForestRegressor.predict_many`): None in
        every row while no tree has learned a sample, as `predict_one`."""
        if not with_interval and not self._learned:
            return pd.Series([None] * X.shape[0], index=_index(X), dtype=object)
        return super().predict_many(X, with_interval=with_interval)

    def _tree_scores(self, predictions, targets):
        """Minus the mean squared error on the batch: the loss the splits decrease."""
        errors = predictions[:, :, 0] - np.asarray(targets, dtype=np.float64)[None, :]
        return -np.mean(errors * errors, axis=1)

    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "batch_size": 10, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "batch_size": 10, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "batch_size": 7, "max_features": None, "max_depth": 4,
               "max_nodes": 31, "confidence_level": 0.8, "seed": 2}
        yield {"n_estimators": 2, "batch_size": 5, "bootstrap": True, "max_features": "sqrt",
               "min_samples_split": 2, "subsampling": "poisson", "confidence_level": None,
               "seed": 3}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "batch_size": 10, "features_per_tree": 2, "max_features": 1,
               "seed": 4}
        # leaves that keep rows across batches, a slot reservoir forgetting their features
        yield {"n_estimators": 2, "batch_size": 10, "kept_rows": 3, "features_per_tree": 3,
               "seed": 5}
