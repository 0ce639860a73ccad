"""Online BSP forests with oblique cuts (Fan, Li & Sisson, AISTATS 2020)."""

from __future__ import annotations

from river import base, drift

from ._core._bsp import BSPTree
from ._forest import ForestClassifier, ForestRegressor, forest_doc, shared_doc
from ._params import Param, Parametrized, floats, ints, schedule

__all__ = ["BSPForestClassifier", "BSPForestRegressor"]


def _budget(growth, forest) -> dict:
    consistent = growth == "consistent"
    return {"consistent": consistent, "fixed_budget": 0.0 if consistent else float(growth)}


#: the support rule ``min_split_points="auto"`` gives a regressor with linear leaves (a mean,
#: or a class distribution, is supported by the paper's 3 points; a linear model is not)
_LINEAR_SUPPORT = 32


def _support(value, forest) -> dict:
    if value == "auto":
        value = _LINEAR_SUPPORT if getattr(forest, "leaf_model", "mean") == "linear" else 3
    return {"min_points": float(value)}


class _BSPParams(Parametrized):
    """The parameters of the BSP classifier and regressor."""

    _tree_class = BSPTree
    _defaults = {"memory_budget": "64MB"}
    _budget_margin = 0.03
    #: added in 0.3.0: the values that reproduce the files written before them
    _added_params = {"min_split_points": 3, "axis_rate": 0.0}

    growth: str | float = Param(
        default="consistent", check=schedule("consistent", floats(0.0, low_inclusive=False)),
        tree=_budget,
        doc="""
        The growth schedule (every forest's ``growth``), here the BSP process's budget.
        ``"consistent"`` (default): the budget grows with the number n of samples a tree has
        learned, tau_n = growth_scale * n^(1/(d+2)) with d the number of the tree's features,
        the schedule of the paper's theorem 3 and of its experiments. A positive float gives a
        fixed budget (no longer consistent); kept for comparison.""")
    growth_scale: float = Param(
        default=1.0, check=floats(0.0, low_inclusive=False), tree="budget_scale", cast=float,
        doc="""
        Multiplies the consistent budget schedule. Ignored for a fixed budget.""")
    max_pairs: int = Param(
        default=16, check=ints(1, 2**20), tree="max_pairs", cast=int,
        doc="""
        Pairs of features a tree cuts in: all of them while the tree has few enough features
        (16 pairs: up to 6 features), else a uniform sample of that many pairs per tree (each
        tree its own). A node keeps one 2-D hull per pair, so time and memory per node grow
        with it; the paper's cost grows like d^2 with every pair (it reduced its datasets to
        4 principal components). Fewer pairs can cost accuracy (the documentation's BSP page
        gives a measurement).""")
    max_hull_vertices: int = Param(
        default=16, check=ints(4, 2**10), tree="max_hull_vertices", cast=int,
        doc="""
        Vertices of a stored 2-D hull (>= 4). A hull with more is replaced by the smallest
        enclosing polygon of that many vertices found by dropping edges (a superset: it still
        holds every point), which bounds a node's bytes.""")
    max_leaf_points: int = Param(
        default=32, check=ints(0, 2**16), tree="max_leaf_points", cast=int,
        doc="""
        Points a leaf keeps to build its children's hulls and statistics when it is cut (the
        paper keeps them all). Past it the leaf keeps a uniform sample of its points (reservoir
        sampling). 0 keeps none: children then start from empty hulls.""")

    min_split_points: int | str = Param(
        default="auto", check=schedule("auto", ints(0, 2**31 - 1), "an int >= 0"),
        tree=_support,
        doc="""
        A node that has seen this many points or fewer is never cut (the paper's rule, with
        3: algorithm 4, lines 2-3). ``"auto"`` (default): 3, the paper's, for the classifier
        and for mean leaves, and %d for a regressor with linear leaves, whose model a
        handful of points cannot fit: cutting a leaf into cells of two or three points then
        costs accuracy, and more memory buys smaller cells that predict worse (the
        documentation's BSP page gives the measurements that chose it).""" % _LINEAR_SUPPORT)
    axis_rate: float = Param(
        default=0.0, check=floats(0.0, high=1.0), tree="axis_rate", cast=float,
        doc="""
        Probability that a cut drawn as the budget grows (HullCut) runs along one axis of its
        pair, the axis in proportion to the hull's extent along it and the position uniform
        across it, instead of a line of the line measure. 0 is the paper's process, and the
        regressor's default; the classifier's is 0.25. An oblique line in a pair of a wide
        feature and a narrow or discrete one nearly always cuts the wide one; an axis cut
        reaches the narrow one too (the documentation's BSP page gives the ranks on the
        tuning half that chose them, and the features the importances recover).""")

    _docs = {
        "memory_budget": shared_doc("memory_budget") + """ With
        ``max_pairs``, ``max_hull_vertices`` and ``max_leaf_points``, it sets how far a tree
        grows: a cut needs room for its children's hulls. A tree short of room first halves
        the points its leaves keep or the vertices its hulls keep (a hull then encloses its
        data more loosely), as often as they allow; a tree that has no room left then drops
        its kept points and hulls (they serve only to cut) and stops cutting, while its node
        statistics keep learning. The hulls need room of their own, so the forest stops
        short of the budget. The default is 64 MB, four times the other forests': at 16 MB
        the hulls fill a tree's share before it has cut much (the documentation's BSP page
        gives the measurements and the ranks that chose it).""",
        "smoothing": shared_doc("smoothing") + """ 0 is the paper's prediction, the leaf's
        label distribution or mean. The classifier's default blends the path (0.5, since
        0.2.0) and the regressor's keeps the paper's 0, each ranked first (the
        documentation's BSP page gives the ranks).""",
    }

    @property
    def n_cuts(self) -> int:
        """Cuts made so far over all trees: by the budget's clock (HullCut) and above a node
        for a point outside its hull (GenCutNotCross)."""
        return sum(t.cuts + t.inserted for t in self._core.trees)


_ALGO_DOC = """
    Each tree is the online BSP process of the paper: every node keeps the convex hull of the
    points it has seen, through their projections on pairs of features, and a cut is a line in
    one pair (oblique there, parallel to the other axes). A point outside a node's hull may
    insert a cut above that node that separates it from the hull without crossing it
    (GenCutNotCross), at a rate equal to the perimeter it adds; when the budget grows, a leaf
    is cut at the rate of its hulls' perimeters, the pair in proportion to its perimeter and
    the line uniformly among those meeting the hull. A node of 3 points or fewer is never cut.
    Lengths are measured in units of the range of each feature the tree has seen, as the paper
    rescales to [0, 1]^d, so no scaler is needed. A missing value is left out of the hulls of
    its pairs, and a cut on a missing feature sends the sample to the child that has seen more
    data. A missing label (None, NaN, pd.NA) is a ValueError.

    The structure ignores the labels. With one feature there is no pair, and a tree is a
    single leaf.

    One model may be shared by threads: each call holds the model's lock, so a model can learn
    in one thread while others predict or pickle it.
"""

_REFERENCE = """
    References
    ----------
    X. Fan, B. Li, S. A. Sisson. Online Binary Space Partitioning Forests. AISTATS 2020,
    PMLR 108.
"""


class BSPForestClassifier(_BSPParams, ForestClassifier):
    _defaults = {"drift_detector": "ADWIN", "axis_rate": 0.25}

    __doc__ = forest_doc(
        "Online BSP forest classifier: oblique cuts on convex hulls (Fan et al., 2020).",
        _ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import BSPForestClassifier

    >>> model = BSPForestClassifier(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 89.99%
""" + _REFERENCE,
    )


    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "growth": 2.0, "aggregation": "vote", "max_nodes": 31,
               "max_leaf_points": 0}
        yield {"n_estimators": 2, "subsampling": "poisson", "smoothing": 0.0, "max_pairs": 3}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "features_per_tree": 2, "seed": 3}


class BSPForestRegressor(_BSPParams, ForestRegressor):
    _defaults = {"smoothing": 0.0}

    __doc__ = forest_doc(
        "Online BSP forest regressor: oblique cuts on convex hulls (Fan et al., 2020).",
        _ALGO_DOC + """
    A tree predicts with its leaf's linear model (``leaf_model="linear"``, the default) or
    the (smoothed) mean of its leaf; the forest averages its trees.
    ``predict_one(x, with_dist=True)`` also gives a predictive standard deviation.
""",
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import BSPForestRegressor

    >>> model = BSPForestRegressor(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.373719
""" + _REFERENCE,
    )


    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "growth": 2.0, "max_nodes": 31, "subsampling": "bernoulli",
               "subsample_rate": 0.7}
        yield {"n_estimators": 2, "features_per_tree": 3, "seed": 3, "max_hull_vertices": 4}
        # linear leaves, with a feature subspace (new slots, cleared ones) and a small cap
        yield {"n_estimators": 2, "leaf_model": "linear", "features_per_tree": 3,
               "max_nodes": 31, "seed": 4}
