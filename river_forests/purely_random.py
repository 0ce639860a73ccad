"""Purely random and scale-invariant random forests (Biau, Devroye & Lugosi, JMLR 2008)."""

from __future__ import annotations

from river import base, drift

from ._core._purely_random import PurelyRandomTree
from ._forest import ForestClassifier, ForestRegressor, forest_doc
from ._params import Param, Parametrized, floats, ints, one_of, schedule

__all__ = ["PurelyRandomForestClassifier", "PurelyRandomForestRegressor"]

SPLITS = ("uniform", "scale_invariant")


def _cuts(growth, forest) -> dict:
    consistent = growth == "consistent"
    return {"consistent": consistent, "fixed_cuts": 0 if consistent else int(growth)}


class _PurelyRandomParams(Parametrized):
    """The parameters of the purely random classifier and regressor."""

    _tree_class = PurelyRandomTree
    #: values of a parameter that are different algorithms of the paper, for the benchmarks
    _variants = {"split": SPLITS}

    growth: str | int = Param(
        default="consistent", check=schedule("consistent", ints(1, 2**31 - 1)), tree=_cuts,
        doc="""
        The growth schedule (every forest's ``growth``), here the number of cuts.
        ``"consistent"`` (default): after its n-th sample a tree has made
        k_n = floor(growth_scale * n^growth_exponent) cuts, so k_n -> infinity and k_n / n -> 0,
        the conditions of the paper's theorems 2 and 4. A positive int k stops the schedule at
        k cuts (k_n = min(k, floor(growth_scale * n^growth_exponent))), the inconsistent forest
        whose error levels off once its k cells are fit; kept for comparison (the
        documentation's purely random page shows both).""")
    growth_scale: float = Param(
        default=4.0, check=floats(0.0, low_inclusive=False), tree="cuts_scale", cast=float,
        doc="""
        Multiplies the schedule.""")
    growth_exponent: float = Param(
        default=0.8, tree="cuts_exponent", cast=float,
        check=floats(0.0, low_inclusive=False,
                     below=(1.0, "k_n = growth_scale * n^growth_exponent must keep k_n / n -> 0")),
        doc="""
        In (0, 1): any exponent there meets the theorems' conditions, so the defaults were
        chosen by rank on streams: k_n = 4 n^0.8 for the classifier, 4 n^0.7 for the
        regressor (the documentation's purely random page gives the ranks). Fewer cuts leave
        the cells coarse; a tree stops cutting when its share of ``memory_budget`` is full,
        the price of bounded memory.""")
    split: str = Param(
        default="scale_invariant", check=one_of(*SPLITS),
        tree=lambda split, forest: {"scale_invariant": split == "scale_invariant"},
        doc="""
        ``"scale_invariant"`` (default): a uniformly random rank among the leaf's points
        (theorem 4): only the order of the values matters, so a strictly increasing transform
        of any feature changes nothing. ``"uniform"``: a cut's position is uniform on the
        chosen side of the leaf's cell, the purely random forest of theorem 2. The
        scale-invariant split costs ``8 * pool_size`` bytes per node; it is the default since
        0.2.0 (``"uniform"`` before), ranked first for both tasks (the documentation's purely
        random page gives the ranks).""")
    pool_size: int = Param(
        default=16, check=ints(2, 2**16),
        # the reservoir costs memory only where it is used
        tree=lambda size, forest: {"pool_size": int(size) if forest.split == "scale_invariant"
                                   else 0},
        doc="""
        Scale-invariant split only: the values of its cut coordinate a leaf keeps (a uniform
        reservoir) to draw the rank from; a leaf can be cut once they hold two distinct
        values. Costs ``8 * pool_size`` bytes per node.""")

    @property
    def n_cuts(self) -> int:
        """Cuts made so far, over all trees."""
        return sum(t.cuts for t in self._core.trees)


_ALGO_DOC = """
    Each tree is the purely random tree of the paper's section 3, grown online: each cut
    picks a leaf uniformly at random, a coordinate uniformly at random and a position
    uniformly in the leaf's cell, and never looks at the labels, so the partition is a
    function of the features and the seed only. A stream has no fixed box, so a leaf's cell
    is bounded by the range of the data seen: a cut's two halves start with the leaf's data
    box clipped at the cut and stretch to the points that reach them (a coordinate is drawn
    among the sides of positive length). The number of cuts follows the schedule k_n; cells
    made since a sample passed lean on their parent's estimate (``smoothing``) until they
    have data of their own. Missing features, None, NaN, infinities and values beyond
    +/-1e38 are "missing": they never stretch a box, and a missing split feature sends the
    sample to the child that has seen more data.

    One model may be shared by threads: each call holds the model's lock.
"""

_REFERENCES = """
    References
    ----------
    G. Biau, L. Devroye, G. Lugosi. Consistency of random forests and other averaging
    classifiers. Journal of Machine Learning Research 9 (2008), 2015-2033.
"""


class PurelyRandomForestClassifier(_PurelyRandomParams, ForestClassifier):
    _defaults = {"drift_detector": "ADWIN"}
    __doc__ = forest_doc(
        "Purely random forest classifier (Biau, Devroye & Lugosi, 2008), online.",
        _ALGO_DOC,
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import PurelyRandomForestClassifier

    >>> model = PurelyRandomForestClassifier(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.47%

    The scale-invariant forest cuts at ranks, so a strictly increasing transform of the
    features (here every value cubed) leaves its predictions unchanged:

    >>> from river import compose
    >>> cube = compose.FuncTransformer(lambda x: {k: v ** 3 for k, v in x.items()})
    >>> model = PurelyRandomForestClassifier(n_estimators=10, split="scale_invariant", seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.47%
    >>> model = cube | PurelyRandomForestClassifier(n_estimators=10, split="scale_invariant", seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 88.47%
""" + _REFERENCES,
    )


    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "split": "scale_invariant", "aggregation": "vote", "max_nodes": 31,
               "seed": 2}
        yield {"n_estimators": 2, "growth": 8, "subsampling": "bernoulli", "subsample_rate": 0.8,
               "subsample_decay": 0.3, "smoothing": 0.0, "seed": 4}
        # fewer slots than the checks' datasets have features: the reservoir subspace path
        yield {"n_estimators": 2, "features_per_tree": 2, "split": "scale_invariant", "seed": 3}


class PurelyRandomForestRegressor(_PurelyRandomParams, ForestRegressor):
    _defaults = {"growth_exponent": 0.7}

    __doc__ = forest_doc(
        "Purely random forest regressor (Biau, Devroye & Lugosi, 2008), online.",
        _ALGO_DOC + """
    A tree predicts from its leaf: its linear model (``leaf_model``, the default) or its
    (smoothed) mean, the paper's local averaging estimate (its section 4); the forest
    averages its trees (the paper's averaging rule for regression).
""",
        examples="""
    >>> from river import datasets, evaluate, metrics
    >>> from river_forests import PurelyRandomForestRegressor

    >>> model = PurelyRandomForestRegressor(n_estimators=10, seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.444722

    Cutting uniformly in a cell, as the paper's purely random forest does:

    >>> model = PurelyRandomForestRegressor(n_estimators=10, split="uniform", seed=42)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 0.317891
""" + _REFERENCES,
    )


    @classmethod
    def _unit_test_params(cls):
        yield {"n_estimators": 3, "seed": 1}
        # drift adaptation: a sensitive detector, so river's checks see trees replaced
        yield {"n_estimators": 3, "seed": 2, "drift_detector": drift.ADWIN(delta=0.1),
               "warning_detector": drift.ADWIN(delta=0.3)}
        yield {"n_estimators": 2, "split": "scale_invariant", "max_nodes": 31,
               "subsampling": "poisson", "subsample_decay": 0.5, "seed": 2}
        yield {"n_estimators": 2, "features_per_tree": 3, "seed": 3}
        # linear leaves, with both cuts and a feature subspace (new slots, cleared ones)
        yield {"n_estimators": 2, "leaf_model": "linear", "features_per_tree": 3, "seed": 4}
        yield {"n_estimators": 2, "leaf_model": "linear", "split": "scale_invariant",
               "linear_rate": 0.5, "max_nodes": 31, "seed": 5}

