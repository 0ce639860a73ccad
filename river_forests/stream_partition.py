"""Online random forests with stream partitioning (Denil, Matheson & de Freitas, ICML 2013)."""

from __future__ import annotations

from river import base, drift

from ._core._stream_partition import StreamPartitionTree
from ._forest import ForestClassifier, ForestRegressor, forest_doc, shared_doc
from ._params import Param, Parametrized, boolean, floats, ints, one_of, schedule

__all__ = ["StreamPartitionForestClassifier", "StreamPartitionForestRegressor"]

#: codes shared with `_core/_stream_partition.pxd` (SPLITTER_*, LEAF_*)
_SPLITTERS = {"points": 0, "gaussian": 1}
_LEAVES = {"majority": 0, "naive_bayes": 1, "adaptive": 2}
#: the compiled tree's `max_active` for ``max_active_leaves="auto"`` (`FRINGE_AUTO` there)
_FRINGE_AUTO = 2**31 - 1
#: the parameters issue 30 added, as a model pickled before them was built (the paper's)
_BEFORE_30 = {"splitter": "points", "honest": True, "leaf_prediction": "majority",
              "grace_period": 50.0, "split_confidence": 0.01, "tie_threshold": 0.05}


_ALGO_DOC = """
    Since 0.3.0 the defaults learn as MOA's adaptive random forest learns (chosen on streams
    where few of many features carry the class): every point is
    both a structure and an estimation point (``honest=False``), fringe leaves split on
    Gaussian summaries once the Hoeffding bound allows (``splitter="gaussian"``), predict by
    naive Bayes where it does better (``leaf_prediction="adaptive"``), and each tree weighs
    each sample by Poisson(10) (``subsampling="poisson"``, ``subsample_rate=10``), as ARF's
    online bagging does with Poisson(6). This leaves the paper's regime: the partition sees the labels the
    leaves predict from, so theorem 1's consistency no longer applies. The paper's trees
    are ``splitter="points", honest=True, leaf_prediction="majority", subsampling=None``
    (the documentation's page lists the whole configuration).

    Each tree of the paper is the online random tree of its section 3. Each point goes, in each
    tree independently, to the structure stream or to the estimation stream. A leaf tries a
    few random features and takes its first structure points' values as candidate
    thresholds; for each candidate split it counts the class histograms of both sides, per
    stream. At a structure point the leaf splits at the candidate of largest information
    gain (structure histograms only) once each side of that candidate holds alpha(d)
    estimation points and either the gain exceeds ``min_gain`` or the leaf holds beta(d)
    estimation points; the two new leaves start with that candidate's estimation histograms.
    Leaves predict from estimation points only, so a leaf's labels never chose its cell: the
    separation behind the paper's consistency proof (theorem 1). A bounded fringe caps the
    leaves collecting statistics (section 3.6), so memory is bounded by parameters.

    Missing features, None, NaN, infinities and values beyond +/-1e38 are "missing": they
    count on neither side of a candidate, and a missing split feature sends the point to
    the child that has seen more estimation points.

    One model may be shared by threads: each call holds the model's lock.

    The documentation's stream-partitioning page says how the defaults were chosen, with the
    measurements.
"""

_REFERENCES = """
    References
    ----------
    M. Denil, D. Matheson, N. de Freitas. Consistency of online random forests. Proceedings
    of the 30th International Conference on Machine Learning (ICML), 2013.
"""


def _fringe(max_active_leaves, forest) -> dict:
    auto = isinstance(max_active_leaves, str) and max_active_leaves == "auto"
    return {"max_active": _FRINGE_AUTO if auto else int(max_active_leaves)}


class _PaperParams(Parametrized):
    """The paper's parameters, shared by the classifier and the regressor (the regressor's
    words for them: its ``_docs``)."""

    _tree_class = StreamPartitionTree
    _defaults = {"smoothing": 0.0, "subsampling": "poisson", "subsample_rate": 10.0,
                 "features_per_tree": 256}
    _budget_margin = 0.03

    structure_fraction: float = Param(
        default=0.5, tree="structure_fraction", cast=float,
        check=floats(0.0, low_inclusive=False, below=(1.0, "the leaves need estimation points")),
        doc="""
        Probability that a tree sends a point to its structure stream (the points that choose
        the splits); the rest go to its estimation stream (the points its leaves predict
        from). Drawn independently in each tree. The paper's code uses one half, and so does
        the default.""")
    max_features: float = Param(
        default=17.0, check=floats(1.0, high=101.0),
        tree=lambda mean, forest: {"candidate_features": float(mean) - 1.0},
        doc="""
        Features a split tries (every forest's ``max_features``), here their mean: a leaf
        entering the fringe tries min(1 + Poisson(max_features - 1), d) distinct features,
        drawn uniformly (d: the tree's features); the paper's lambda is ``max_features - 1``.
        The paper used lambda = 1 and 10 on offline data; on streams where a few features
        matter a leaf must try most of them (the forest's docs page quotes the defaults run
        that chose the value).""")
    candidate_points: int = Param(
        default=5, check=ints(1, 10_000), tree="candidate_points", cast=int,
        doc="""
        Thresholds per candidate feature. Gaussian splitter: that many, evenly inside the
        range seen (MOA's 10; 5 was chosen on the few-samples tuning streams). Points
        splitter: m, a leaf's first m structure points give the thresholds (x <= value goes
        left); more thresholds cost fringe memory in proportion.""")
    min_gain: float = Param(
        default=0.001, check=floats(0.0), tree="min_gain", cast=float,
        doc="""
        tau: a leaf splits when a valid candidate's information gain (bits, on structure
        points) exceeds it (ShouldSplit). The paper's 0.001 (section 5.1).""")
    alpha: float = Param(
        default=2.0, check=floats(0.0, low_inclusive=False), tree="alpha", cast=float,
        doc="""
        alpha(0): a candidate split is valid once each of its sides holds
        alpha(d) = alpha * alpha_growth^d estimation points, d the leaf's depth (the root's
        is 0). Small values split early, which a stream rewards; too small a value splits on
        too little data.""")
    alpha_growth: float = Param(
        default=1.1, check=floats(1.0, high=10.0), tree="alpha_growth", cast=float,
        doc="""
        The growth rate of alpha(d). The paper's consistency needs alpha(d) -> infinity with
        d / alpha(d) -> 0: any rate above 1 gives it; 1 keeps alpha fixed (not consistent).
        The paper's 1.1 (section 5.1).""")
    beta: float = Param(
        default=4.0, check=floats(1.0), tree="beta", cast=float,
        doc="""
        beta(d) = beta * alpha(d) (beta >= 1): a leaf holding beta(d) estimation points splits
        at its next structure point if it has a valid candidate, whatever the gain
        (MustSplit), so no branch stops growing. The paper used 4 to 10,000.""")
    max_active_leaves: int | str = Param(
        default="auto", check=schedule("auto", ints(1, 2**30), says="an int >= 1"), tree=_fringe,
        doc="""
        The bounded fringe (section 3.6): at most this many leaves of a tree collect split
        statistics; the others keep only their class histogram. When a leaf splits, the
        inactive leaves with the largest p(A) e(A) (share of the estimation points times
        error of their majority class) take the free places. A fringe leaf costs
        about 32 * m * k * n_classes bytes, k its features (about 17 at the default lambda;
        the class count is rounded up to a power of two in memory): the fringe is most of the
        model's memory, within ``memory_budget``. An int is the paper's fixed fringe: with a
        large ``memory_budget`` it leaves most of the budget unused, as the fringe, not the
        budget, then stops the tree's growth.
        ``"auto"``: no count, the tree's share of ``memory_budget`` decides. Leaves enter the
        fringe while their statistics fit beside the tree's nodes; as the tree grows its nodes
        take the room and the fringe shrinks. A leaf that waits outside a full fringe takes
        the place of the active leaf of smallest p(A) e(A) when its own is more than twice
        as large (a pure leaf, or one that no longer sees data, would otherwise keep its place
        for ever), checked after each split and every 1,000 of a tree's sample weight. Twice
        the budget then buys about twice the fringe. With ``memory_budget=None`` nothing
        bounds the fringe but ``max_nodes``. The classifier's default is ``"auto"``, the
        regressor's 256 (not ranked with long streams yet): on the benchmark's tuning half,
        long streams included, ``"auto"`` ranked first, ahead of 256 and 128, by the first
        20,000 rows of every stream as well as by the long streams' last tenth
        (``python -m benchmarks experiment defaults``).""")
    honest: bool = Param(
        default=False, check=boolean(numpy=True), tree="honest", cast=bool,
        doc="""
        True: each point goes to the structure stream or to the estimation stream (the
        paper's separation, behind its consistency theorem). False (default since 0.3.0):
        every point is both, so a leaf learns from every sample; the partition then depends
        on the labels the leaves predict from, which theorem 1 does not cover.""")

    _docs = {
        "memory_budget": shared_doc("memory_budget") + """ The fringe is
        most of a tree's bytes: a leaf enters it only if its candidate statistics fit, and a
        full tree empties it; its leaves keep learning their class histograms. The fringe
        needs room of its own, so the forest stops short of the budget.""",
    }

    @property
    def n_splits(self) -> int:
        """Splits made so far, over all trees."""
        return sum(t.splits for t in self._core.trees)


def _check_leaves(name, value, forest):
    _leaf_choices(name, value, forest)
    if value != "majority" and forest.splitter != "gaussian":
        raise ValueError(f"leaf_prediction={value!r} reads the Gaussian summaries: "
                         "it needs splitter='gaussian'")


_leaf_choices = one_of(*_LEAVES)


class StreamPartitionForestClassifier(_PaperParams, ForestClassifier):
    _legacy_defaults = _BEFORE_30

    splitter: str = Param(
        default="gaussian", check=one_of(*_SPLITTERS), after="max_active_leaves",
        tree=lambda splitter, forest: {"splitter": _SPLITTERS[splitter]},
        doc="""
        How a fringe leaf finds its split. ``"gaussian"`` (default since 0.3.0): per-class
        Gaussian summaries of each candidate feature (weight, mean, variance, range), and
        every ``grace_period`` of structure weight the best of ``candidate_points`` thresholds
        per feature, evenly inside the range, scored by information gain on the class weights
        the Gaussians put on each side; the leaf splits once the Hoeffding bound separates
        the best feature from the runner-up (MOA's Hoeffding trees). ``"points"``: the paper's
        candidate thresholds, the values of the leaf's first ``candidate_points`` structure
        points, with the alpha/beta rules (``alpha``, ``alpha_growth``, ``beta`` and
        ``min_gain`` as ShouldSplit's tau apply to it only).""")
    leaf_prediction: str = Param(
        default="adaptive", check=_check_leaves, after="honest",
        tree=lambda leaves, forest: {"leaf_prediction": _LEAVES[leaves]},
        doc="""
        ``"majority"``: the leaf's class histogram (the paper's). ``"naive_bayes"``: at a
        fringe leaf, the histogram as prior times the Gaussian likelihoods of its candidate
        features (each variance at least (1% of the feature's range)^2). ``"adaptive"``
        (default since 0.3.0): naive Bayes where it has predicted the leaf's points better
        than the majority class so far (MOA's NBAdaptive). Naive Bayes needs
        ``splitter="gaussian"``; a leaf outside the fringe predicts its histogram.""")
    grace_period: float = Param(
        default=50.0, check=floats(0.0, low_inclusive=False), tree="grace_period", cast=float,
        after="leaf_prediction",
        doc="""
        Gaussian splitter: the structure weight a fringe leaf sees between two split checks
        (MOA's 50). With the default Poisson(10) weights, about every 5 samples.""")
    split_confidence: float = Param(
        default=0.1, check=floats(0.0, low_inclusive=False, high=1.0), tree="split_confidence",
        cast=float, after="grace_period",
        doc="""
        Gaussian splitter: delta of the Hoeffding bound eps = sqrt(R^2 ln(1/delta) / 2n),
        R = log2(classes), n the leaf's structure weight. MOA's is 0.01; 0.1 was chosen on the
        few-samples tuning streams.""")
    tie_threshold: float = Param(
        default=0.05, check=floats(0.0), tree="tie_threshold", cast=float,
        after="split_confidence",
        doc="""
        Gaussian splitter: split at the best candidate when eps falls below it, however
        close the runner-up (MOA's 0.05).""")

    _docs = {
        "aggregation": shared_doc("aggregation") + """ Here averaging is the default: a vote
        of a few trees moves in coarse steps, and the paper's vote was less accurate
        (the documentation's stream-partitioning page gives the measurement).""",
        "smoothing": shared_doc("smoothing").replace(
            "A leaf freshly\n        created by a split has seen no data, so it predicts its parent's estimate; with\n"
            "        ``smoothing=0`` this is a pure back-off to the deepest node with data.",
            "Every node counts\n        the estimation points that pass through it; a new leaf starts with the estimation\n"
            "        histogram its split collected. ``smoothing=0`` (default) is the paper's leaf\n"
            "        estimate."),
    }

    __doc__ = forest_doc(
        "Online random forest with stream partitioning (Denil, Matheson & de Freitas, 2013).",
        _ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import StreamPartitionForestClassifier

    >>> model = StreamPartitionForestClassifier(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.71%

    Agrawal's label depends on a few of its nine features (here on the age alone): the
    splits, chosen by information gain, find them:

    >>> model = StreamPartitionForestClassifier(n_estimators=10, seed=42)
    >>> stream = datasets.synth.Agrawal(seed=42).take(5000)
    >>> evaluate.progressive_val_score(stream, model, metrics.Accuracy())
    Accuracy: 99.04%
""" + _REFERENCES,
    )

    @property
    def n_active_leaves(self) -> int:
        """Leaves collecting split statistics, over all trees."""
        return sum(t.active_leaves for t in self._core.trees)

    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        # the paper's splitter, honest streams and majority leaves
        yield {"n_estimators": 2, "splitter": "points", "honest": True, "leaf_prediction": "majority",
               "subsampling": None, "alpha": 1.0, "beta": 2.0, "max_active_leaves": 2,
               "max_nodes": 31, "aggregation": "vote", "smoothing": 0.0, "seed": 2}
        yield {"n_estimators": 2, "max_features": 5.0, "subsampling": "poisson", "seed": 3}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "features_per_tree": 2, "alpha": 2.0, "seed": 4}
        # the fringe sized by the byte budget
        yield {"n_estimators": 2, "max_active_leaves": "auto", "memory_budget": "1MB", "seed": 5}


_REG_ALGO_DOC = """
    The regression trees of denil2013 (the paper's trees are regression trees as much as
    classification trees: the same two streams, fringe and alpha/beta rules, with the
    squared error in place of the entropy). Each point goes, in each tree, to the structure
    stream or to the estimation stream (``honest=True``, the paper's), or to both. A fringe
    leaf tries a few random features and takes its first structure points' values as
    candidate thresholds; for each candidate split it keeps, per side and stream, the
    weight, sum and sum of squares of the targets. At a structure point it splits at the
    candidate that decreases the structure points' squared error most, once each side
    holds alpha(d) estimation points and the decrease exceeds ``min_gain`` or the leaf holds
    beta(d) estimation points; the new leaves start with that candidate's estimation sums.
    A leaf predicts with its linear model, stepped by its estimation points
    (``leaf_model="linear"``, the default), or the (smoothed) mean of its estimation points;
    the forest, the mean of its trees', with prediction intervals (``confidence_level``).

    By default, as in the classifier, every point is both a structure and an estimation
    point, weighted Poisson(10) per tree (``honest=False``, ``subsampling="poisson"``,
    ``subsample_rate=10``); a side of a split needs an estimation weight of 80 at the root
    (``alpha``: about 8 samples), and a split a decrease of the squared error of 40%
    (``min_gain``) until MustSplit. The paper's honest streams without subsampling are one
    set of parameters away; the documentation's stream-partitioning page compares them.
"""


class StreamPartitionForestRegressor(_PaperParams, ForestRegressor):
    _defaults = {"min_gain": 0.4, "alpha": 80.0, "max_active_leaves": 256}
    _docs = {
        "structure_fraction": """
        Probability that a tree sends a point to its structure stream (the points that choose
        the splits) when ``honest``; the rest go to its estimation stream (the points its
        leaves average). The paper's code uses one half, and so does the default.""",
        "max_features": """
        Features a split tries, their mean: a leaf entering the fringe tries
        min(1 + Poisson(max_features - 1), d) distinct features, drawn uniformly (d: the
        tree's features); the paper's lambda is ``max_features - 1``.""",
        "candidate_points": """
        m: a leaf's first m structure points give the candidate thresholds of each of its
        features (x <= value goes left).""",
        "min_gain": """
        tau: a leaf splits when a valid candidate decreases the squared error of its
        structure points by more than this share (1 - (SSE' + SSE'') / SSE, in [0, 1]:
        free of the targets' scale) (ShouldSplit).""",
        "alpha": """
        alpha(0): a candidate split is valid once each of its sides holds
        alpha(d) = alpha * alpha_growth^d estimation points, d the leaf's depth.""",
        "alpha_growth": """
        The growth rate of alpha(d); the paper's consistency needs a rate above 1.""",
        "beta": """
        beta(d) = beta * alpha(d): a leaf holding beta(d) estimation points splits at its
        next structure point if it has a valid candidate, whatever the gain (MustSplit).""",
        "max_active_leaves": """
        The bounded fringe (section 3.6): at most this many leaves of a tree collect split
        statistics; when a leaf splits, the inactive leaves with the largest p(A) e(A)
        (share of the estimation points times the squared error of their mean) take the
        free places. ``"auto"``: as many as the tree's share of ``memory_budget`` holds
        beside its nodes, a waiting leaf displacing an active one of less than half its
        p(A) e(A) (see the classifier).""",
        "honest": """
        True: each point goes to the structure stream or to the estimation stream (the
        paper's separation, behind its consistency theorem). False: every point is both,
        so a leaf learns from every sample (theorem 1 then no longer applies).""",
    }

    __doc__ = forest_doc(
        "Online random forest regressor with stream partitioning (Denil, Matheson & de "
        "Freitas, 2013).",
        _REG_ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import StreamPartitionForestRegressor

    >>> model = StreamPartitionForestRegressor(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.385676
""" + _REFERENCES,
    )


    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1)}
        # the paper's honest trees, a small fringe and node cap
        yield {"n_estimators": 2, "honest": True, "subsampling": None, "alpha": 1.0,
               "beta": 2.0, "max_active_leaves": 2, "max_nodes": 31, "seed": 2}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "features_per_tree": 2, "alpha": 2.0, "seed": 4,
               "confidence_level": None}
        yield {"n_estimators": 2, "max_active_leaves": "auto", "memory_budget": "1MB", "seed": 5}
