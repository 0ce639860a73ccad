"""Mondrian forests with a growing lifetime (Mourtada, Gaïffas & Scornet, NIPS 2017)."""

from __future__ import annotations

from river import base, drift

from ._core._mondrian import MondrianTree
from ._forest import ForestClassifier, ForestRegressor, forest_doc, shared_doc
from ._params import Param, Parametrized, boolean, floats, schedule

__all__ = ["MondrianForestClassifier", "MondrianForestRegressor"]


def _lifetime(growth, forest) -> dict:
    consistent = growth == "consistent"
    return {"consistent": consistent, "fixed_lifetime": 0.0 if consistent else float(growth)}


class _MondrianParams(Parametrized):
    """The parameters of the Mondrian classifier and regressor (the regressor adds its
    leaves' models)."""

    _tree_class = MondrianTree
    # models pickled before these parameters existed ran the paper's tree: they load with it
    _legacy_defaults = {"weighted_prunings": False, "step": 1.0, "recycling": False,
                        "leaf_model": "mean", "linear_rate": 1.0}

    growth: str | float = Param(
        default="consistent", check=schedule("consistent", floats(0.0, low_inclusive=False)),
        tree=_lifetime,
        doc="""
        The growth schedule (every forest's ``growth``), here the Mondrian process's lifetime.
        ``"consistent"`` (default): the lifetime grows with the number n of samples a tree has
        learned, lambda_n = growth_scale * n^(1/(d+2)) with d the number of features, the
        schedule under which the paper proves consistency and minimax rates (theorems 1-2).
        A positive float gives the fixed-lifetime Mondrian forest of Lakshminarayanan et al.
        (2014), which the paper shows is inconsistent (proposition 1); kept for comparison.""")
    growth_scale: float = Param(
        default=2.0, check=floats(0.0, low_inclusive=False), tree="lifetime_scale", cast=float,
        doc="""
        Multiplies the consistent lifetime schedule (the theorems hold for any constant):
        a larger value gives finer partitions sooner, and fills the tree's share of the
        budget sooner. Ignored for a fixed lifetime. The paper's is 1. The classifier's
        default is 2, the regressor's 0.5, which keeps leaves large enough for their linear
        models (the documentation's Mondrian page gives the ranks that chose them).""")
    weighted_prunings: bool = Param(
        default=False, check=boolean(), tree="use_aggregation",
        doc="""
        Predict with the exponentially weighted average of the predictions of every pruning of
        the tree (Mourtada, Gaïffas and Scornet, AMF, 2021), computed along the path: each
        node keeps the log weight of its own predictions' cumulated loss (log loss, or squared
        error over twice the target variance) and the log weight of its subtree. Off by
        default: with the path smoothing it was less accurate on most streams tried, and each
        sample costs a logarithm per node of its path and an exponential per node on the way
        back (the documentation's Mondrian page gives the measurements).""")
    step: float = Param(
        default=1.0, check=floats(0.0, low_inclusive=False), tree="step", cast=float,
        doc="""
        The weights' learning rate (the loss's multiplier) with ``weighted_prunings``.""")
    recycling: bool = Param(
        default=False, check=boolean(), tree="recycling",
        doc="""
        At ``max_nodes``, free the twigs (interior nodes over two leaves) that hold the least
        data, a quarter of the nodes at a time; a freed twig becomes a leaf again (its
        statistics already count its leaves' samples) and rests until a sample reaches it.
        Splits then go on where the data is, in the same memory. ``False`` freezes a full
        tree's partition (the paper's tree never stops splitting: its memory is unbounded);
        its boxes and node statistics keep learning. The classifier's default is ``False``,
        the regressor's ``True``: a classifier that recycles frees the nodes that hold the
        least data, which are its newest, and on a long stationary stream it ends less
        accurate than one whose full trees keep their partition (the documentation's
        Mondrian page gives the ranks that chose the defaults).""")

    _docs = {
        "memory_budget": shared_doc("memory_budget") + """ A node costs
        about 8 bytes per feature of its tree (its box) and 8 per class, plus 70 (a
        regressor's linear leaves add 8 per feature). A full tree recycles nodes
        (``recycling``) or stops splitting; its boxes and node statistics keep learning.""",
        "smoothing": shared_doc("smoothing") + """ Positive values blend the path (a
        Dirichlet-style hierarchical smoothing, in the spirit of the hierarchical prior of
        Lakshminarayanan et al. that the paper cites). The default, 0.5, blends (the
        documentation's Mondrian page says how it was chosen).""",
    }


_ALGO_DOC = """
    Each tree is a Mondrian process on the range of the data it has seen, whose lifetime grows
    as the stream goes on, as in the paper's remark 3. A new point outside a node's box may
    insert a split above that node (the conditional Mondrian extension); when the lifetime
    grows, leaves split inside their box at a rate equal to their linear dimension, driven by
    one exponential clock per tree and a top-down choice of the leaf (ExtendMondrian). Side
    lengths are measured relative to the range of the tree's root box, so the forest does not
    care about the units of the features (no scaler is needed). Missing features, None, NaN,
    infinities and values beyond +/-1e38 are "missing": they never stretch a box, and a
    missing split feature sends the sample to the child that has seen more data. A missing
    label (None, NaN, pd.NA) is a ValueError, and so is a regression target beyond +/-1e38.

    One model may be shared by threads: each call holds the model's lock, so a model can learn
    in one thread while others predict or pickle it (calls on one model run one at a time; tree
    work runs without the GIL, so different models learn in parallel).
"""


class MondrianForestClassifier(_MondrianParams, ForestClassifier):
    _defaults = {"drift_detector": "ADWIN"}
    _tree_constants = {"linear": False, "linear_rate": 1.0}
    __doc__ = forest_doc(
        "Mondrian forest classifier with a growing lifetime (Mourtada et al., 2017).",
        _ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import MondrianForestClassifier

    >>> model = MondrianForestClassifier(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 90.15%

    References
    ----------
    J. Mourtada, S. Gaïffas, E. Scornet. Universal consistency and minimax rates for online
    Mondrian Forests. NIPS 2017.
    B. Lakshminarayanan, D. M. Roy, Y. W. Teh. Mondrian Forests: Efficient Online Random
    Forests. NIPS 2014.

    """,
    )

    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "growth": 2.0, "aggregation": "vote", "max_nodes": 31}
        yield {"n_estimators": 2, "subsampling": "poisson", "smoothing": 0.0}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "features_per_tree": 2, "seed": 3}
        # a small cap, so the checks' datasets make the trees recycle; and the aggregation
        yield {"n_estimators": 2, "max_nodes": 15, "weighted_prunings": True, "seed": 4}


class MondrianForestRegressor(_MondrianParams, ForestRegressor):
    # ranked first on the tuning half, ahead of the 16 MB every other forest but BSP takes:
    # smaller trees keep leaves large enough for their linear models
    _defaults = {"memory_budget": "4MB", "growth_scale": 0.5, "recycling": True}
    _docs = {"leaf_model": """
        ``"linear"`` (default): every node keeps a linear model of the target over the
        features (in units of the tree's root range), updated along the path: the slopes by
        normalized least mean squares, the intercept by the running mean of the residuals. A
        new node starts from its parent's model, so a leaf refines its ancestors' fit; the
        leaf's model predicts. ``"mean"``: the leaf's (smoothed) mean, the paper's."""}

    __doc__ = forest_doc(
        "Mondrian forest regressor with a growing lifetime (Mourtada et al., 2017).",
        _ALGO_DOC + """
    A tree predicts with its leaf's linear model (``leaf_model="linear"``, the default) or
    the (smoothed) mean of its leaf; the forest averages its trees.

    No scaler is needed, and an online one hurts: river's ``preprocessing.StandardScaler``
    maps the same raw value elsewhere as its statistics move, while the trees' boxes and cuts
    stay where they were made, so a stream whose features trend loses most (the
    documentation's Mondrian page shows it on TrumpApproval); a scaler with fixed statistics
    changes nothing.
    ``predict_one(x, with_dist=True)`` also gives a predictive standard deviation, that of the
    mixture of the trees' leaf distributions, at no extra cost.
""",
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import MondrianForestRegressor

    >>> model = MondrianForestRegressor(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.350228

    >>> x, y = next(iter(datasets.TrumpApproval()))
    >>> model.predict_one(x, with_dist=True).sigma >= 0
    True

    Prediction intervals, each asked for before its sample is learned:

    >>> model = MondrianForestRegressor(n_estimators=10, seed=42, confidence_level=0.9)
    >>> covered = 0
    >>> for x, y in datasets.TrumpApproval():
    ...     interval = model.predict_one(x, with_interval=True)
    ...     covered += interval.lower <= y <= interval.upper
    ...     model.learn_one(x, y)
    >>> print(f"coverage: {covered / 1001:.3f}")
    coverage: 0.899

    References
    ----------
    J. Mourtada, S. Gaïffas, E. Scornet. Universal consistency and minimax rates for online
    Mondrian Forests. NIPS 2017 (appendix E: regression).

    """,
    )

    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "growth": 2.0, "max_nodes": 31, "subsampling": "bernoulli",
               "subsample_rate": 0.7}
        yield {"n_estimators": 2, "features_per_tree": 3, "seed": 3}
        yield {"n_estimators": 2, "max_nodes": 15, "weighted_prunings": True, "seed": 4}
        yield {"n_estimators": 2, "leaf_model": "mean", "recycling": False, "seed": 5}

