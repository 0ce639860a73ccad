# The forest's saved state, compiled: the core's snapshot and the forest's own state assembled
# from its parts' own keys (`Grove.state`, `Batcher.state`, the calibrator's, the
# registries'), in the order saved files hold them; restored into the parts; and checked before
# anything is built from it (each part checks its own keys). Functions the forest core
# (`_forest.pxd`) calls under the model's lock, as `Tree`'s state is `_tree_state`'s.

from ._batcher cimport Batcher
from ._conformal cimport Calibrator
from ._features cimport FeatureRegistry
from ._grove cimport Grove
from ._labels cimport LabelRegistry

# the core's whole state as plain data (`ForestCore.snapshot`)
cdef dict forest_snapshot(Grove grove, FeatureRegistry features, LabelRegistry targets,
                          bint classifier, bint vote, Batcher batcher, Calibrator calibrator)
# the forest's own state: the parts' keys in their saved order (`ForestCore.forest_state`)
cdef dict forest_state(Grove grove, Batcher batcher, Calibrator calibrator)
# restore a checked state into the parts; the forest's calibrator
cdef Calibrator restore_forest(dict state, bint borrow, Grove grove, Batcher batcher,
                               Calibrator calibrator, bint classifier, Py_ssize_t columns)
# raise ValueError unless `state` describes a forest of the grove's trees and these registries
cdef int check_forest_state_of(dict state, Grove grove, bint classifier, Py_ssize_t n_names,
                               Py_ssize_t n_labels) except -1
