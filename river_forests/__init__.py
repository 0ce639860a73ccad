"""Consistent online random forests for river, with Cython-compiled trees."""

from .mondrian import MondrianForestClassifier, MondrianForestRegressor
from .purely_random import PurelyRandomForestClassifier, PurelyRandomForestRegressor

__all__ = [
    "MondrianForestClassifier",
    "MondrianForestRegressor",
    "PurelyRandomForestClassifier",
    "PurelyRandomForestRegressor",
]
__version__ = "0.1.0"
