"""Consistent online random forests for river, with Cython-compiled trees."""

from .mondrian import MondrianForestClassifier, MondrianForestRegressor

__all__ = ["MondrianForestClassifier", "MondrianForestRegressor"]
__version__ = "0.1.0"
