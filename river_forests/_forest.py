"""River-facing plumbing shared by every forest of the package.

A forest here is a thin Python object: it validates its parameters, owns one compiled
:class:`~river_forests._core._forest.ForestCore` (the feature registry, the label registry and
the trees) and turns river's calls into single calls into that core. Each paper's module only
says how to build one tree (`_make_tree`) and which parameters it takes.
"""

from __future__ import annotations

import abc
import concurrent.futures
import numbers
import os
import random

import numpy as np
import pandas as pd
from river import base, proba

from ._core._forest import ForestCore
from ._core._random import tree_seed

__all__ = ["BaseForest", "ForestClassifier", "ForestRegressor"]

#: codes shared with `_core/_tree.pxd`
TASK_CLASSIFICATION, TASK_REGRESSION = 0, 1
SUBSAMPLING = {None: 0, "bernoulli": 1, "poisson": 2}
AGGREGATIONS = ("average", "vote")

#: below this many rows a mini-batch is learned in the calling thread
PARALLEL_MIN_ROWS = 64
_EXECUTOR = None
_WORKERS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _executor():
    """A process-wide thread pool for mini-batches: each group of trees learns its rows in
    its own task, with the GIL released. Trees share no state, so the result is exactly that
    of a sequential loop."""
    global _EXECUTOR
    if _EXECUTOR is None:
        _EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, _WORKERS - 1))
    return _EXECUTOR


def check_int(name, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {bound}, got {value!r}")


def check_float(name, value, low, low_inclusive=True, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < low or (value == low and not low_inclusive) or (high is not None and value > high):
        op = ">=" if low_inclusive else ">"
        bound = f"{op} {low}" + (f" and <= {high}" if high is not None else "")
        raise ValueError(f"{name} must be {bound}, got {value!r}")


class BaseForest(base.Estimator, abc.ABC):
    """Parameters and plumbing common to every forest.

    Subclasses call ``super().__init__`` with the shared parameters, validate their own before,
    and implement ``_make_tree(task, seed)``.
    """

    _task: int

    def __init__(
        self,
        n_estimators: int,
        subsampling: str | None,
        subsample_rate: float,
        features_per_tree: int,
        max_width: int,
        seed: int | None,
    ):
        self.n_estimators = n_estimators
        self.subsampling = subsampling
        self.subsample_rate = subsample_rate
        self.features_per_tree = features_per_tree
        self.max_width = max_width
        self.seed = seed
        check_int("n_estimators", n_estimators, 1)
        check_int("features_per_tree", features_per_tree, 1, 2**31 - 1)
        check_int("max_width", max_width, 1, 2**31 - 1)
        if subsampling not in SUBSAMPLING:
            raise ValueError(
                f"subsampling must be None, 'bernoulli' or 'poisson', got {subsampling!r}"
            )
        if subsampling == "bernoulli":
            check_float("subsample_rate", subsample_rate, 0.0, low_inclusive=False, high=1.0)
        else:
            check_float("subsample_rate", subsample_rate, 0.0, low_inclusive=False)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
            raise ValueError(f"seed must be None or an int, got {seed!r}")
        self._core = self._new_core()

    def __setstate__(self, state):
        # a model pickled before features_per_tree and max_width existed used every feature
        # and an unbounded registry: its trees were built that way
        state.setdefault("features_per_tree", 2**31 - 1)
        state.setdefault("max_width", 2**31 - 1)
        self.__dict__.update(state)

    # ------------------------------------------------------------------ construction

    @property
    def _vote(self) -> bool:
        return False

    @abc.abstractmethod
    def _make_tree(self, task: int, seed: int):
        """One compiled tree of this forest, seeded with the 64-bit `seed`."""

    def _new_core(self) -> ForestCore:
        seed = self.seed if self.seed is not None else random.SystemRandom().getrandbits(64)
        trees = [self._make_tree(self._task, tree_seed(seed, i)) for i in range(self.n_estimators)]
        return ForestCore(trees, self._task == TASK_CLASSIFICATION, self._vote,
                          max_width=self.max_width)

    @property
    def _subsampling_code(self) -> int:
        return SUBSAMPLING[self.subsampling]

    # ------------------------------------------------------------------ introspection

    @property
    def trees(self) -> list:
        """The compiled trees (read-only views for inspection)."""
        return list(self._core.trees)

    @property
    def n_nodes(self) -> int:
        """Total number of nodes over all trees."""
        return sum(t.node_count for t in self._core.trees)

    # ------------------------------------------------------------------ batches

    @staticmethod
    def _frame(X) -> tuple[np.ndarray, list]:
        """A DataFrame's values as float64 (NaN for missing ones; may be a read-only view of the
        frame) and its column names. Raises a ValueError for duplicate column names and a
        TypeError naming the first non-numeric column; touches no model state."""
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if not X.columns.is_unique:
            dups = X.columns[X.columns.duplicated()].unique().tolist()
            raise ValueError(f"X has duplicate column names {dups!r}: each feature needs one column")
        try:
            # one call for the whole frame: a per-column .iloc loop costs ~0.1 ms a column
            values = X.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError, OverflowError):
            values = np.column_stack([_column(X, j) for j in range(X.shape[1])]) if X.shape[1] \
                else np.empty((len(X), 0))
        return values, X.columns.tolist()

    @staticmethod
    def _targets(X: pd.DataFrame, y) -> list:
        """`y` as a list in the order of `X`'s rows: a Series is aligned on X's index as pandas
        aligns (same labels, any order); a Series with other labels is an error."""
        if isinstance(y, pd.Series):
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
        values, names = self._frame(X)
        ys = self._targets(X, y)
        if len(values) >= PARALLEL_MIN_ROWS and self.n_estimators > 1 and _WORKERS > 1:
            self._core.learn_batch(values, names, ys, executor=_executor(), n_tasks=_WORKERS)
        else:
            self._core.learn_batch(values, names, ys)

    def _predict_batch(self, X: pd.DataFrame) -> tuple[np.ndarray, list]:
        """The aggregated predictions of X's rows and the labels of their columns."""
        values, names = self._frame(X)
        return self._core.predict_batch(values, names)


def _column(X: pd.DataFrame, j: int) -> np.ndarray:
    """Column `j` as float64, the slow way: values beyond a double's range are missing (as in
    `learn_one`), a value that is not a real number is a TypeError naming the feature."""
    col = X.iloc[:, j]
    try:
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    except OverflowError:
        pass
    except (TypeError, ValueError):
        bad = next(
            (v for v in col if v is not None and v is not pd.NA
             and not isinstance(v, (numbers.Real, np.bool_))),
            None,
        )
        raise TypeError(
            f"feature {X.columns[j]!r} has a value of type {type(bad).__name__} ({bad!r}); "
            "river_forests trees need real numbers: encode it first, e.g. with "
            "river.preprocessing.OneHotEncoder or river.compose.SelectType"
        ) from None
    out = np.empty(len(col))
    for i, v in enumerate(col):
        try:
            out[i] = np.nan if v is None or v is pd.NA else float(v)
        except OverflowError:
            out[i] = np.nan
    return out


class ForestClassifier(BaseForest, base.MiniBatchClassifier):
    """A forest classifier: every label (bool, str, int, ...) may arrive at any time."""

    _task = TASK_CLASSIFICATION

    def __init__(self, n_estimators, aggregation, subsampling, subsample_rate, features_per_tree,
                 max_width, seed):
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be 'average' or 'vote', got {aggregation!r}")
        self.aggregation = aggregation
        super().__init__(n_estimators, subsampling, subsample_rate, features_per_tree, max_width,
                         seed)

    @property
    def _vote(self) -> bool:
        return self.aggregation == "vote"

    @property
    def _multiclass(self) -> bool:
        return True

    def learn_one(self, x: dict, y: base.typing.ClfTarget) -> None:
        self._core.learn_one(x, y)

    def predict_proba_one(self, x: dict, **kwargs) -> dict[base.typing.ClfTarget, float]:
        return self._core.predict_proba_one(x)

    def predict_one(self, x: dict, **kwargs) -> base.typing.ClfTarget | None:
        return self._core.predict_label_one(x)

    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        self._learn_batch(X, y)

    def predict_proba_many(self, X: pd.DataFrame) -> pd.DataFrame:
        proba_, labels = self._predict_batch(X)
        return pd.DataFrame(proba_, index=X.index, columns=labels)

    def predict_many(self, X: pd.DataFrame) -> pd.Series:
        proba_, labels = self._predict_batch(X)
        if not labels:
            return pd.Series([None] * len(X), index=X.index, dtype=object)
        return pd.Series([labels[i] for i in proba_.argmax(axis=1)], index=X.index)


class ForestRegressor(BaseForest, base.MiniBatchRegressor):
    """A forest regressor: the mean of the trees' smoothed leaf means."""

    _task = TASK_REGRESSION

    def learn_one(self, x: dict, y: base.typing.RegTarget) -> None:
        self._core.learn_one(x, y)

    def predict_one(self, x: dict, with_dist: bool = False):
        """Predict the target of `x`.

        With ``with_dist=True``, return a :class:`river.proba.Gaussian` with the forest's
        predictive mean and standard deviation: the spread of the mixture of the trees' leaf
        distributions (within-leaf variance plus disagreement between trees).
        """
        mean, var = self._core.predict_value_one(x)
        if not with_dist:
            return mean
        return proba.Gaussian._from_state(n=1, m=mean, var=var, ddof=0)

    def learn_many(self, X: pd.DataFrame, y: pd.Series) -> None:
        self._learn_batch(X, y)

    def predict_many(self, X: pd.DataFrame) -> pd.Series:
        pred, _ = self._predict_batch(X)
        return pd.Series(pred[:, 0], index=X.index, dtype=np.float64)
