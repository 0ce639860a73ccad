"""Consistent online random forests for river, with Cython-compiled trees."""

from ._merge import merge
from ._version import __version__
from ._file import load, save
from ._state import ModelFileError, from_state, to_state
from .bsp import BSPForestClassifier, BSPForestRegressor
from .mondrian import MondrianForestClassifier, MondrianForestRegressor
from .purely_random import PurelyRandomForestClassifier, PurelyRandomForestRegressor
from .stream_partition import StreamPartitionForestClassifier, StreamPartitionForestRegressor
from .xforest import XForestClassifier, XForestRegressor

__all__ = [
    "BSPForestClassifier",
    "BSPForestRegressor",
    "MondrianForestClassifier",
    "MondrianForestRegressor",
    "PurelyRandomForestClassifier",
    "PurelyRandomForestRegressor",
    "StreamPartitionForestClassifier",
    "StreamPartitionForestRegressor",
    "XForestClassifier",
    "XForestRegressor",
    "merge",
    "save",
    "load",
    "to_state",
    "from_state",
    "ModelFileError",
]
