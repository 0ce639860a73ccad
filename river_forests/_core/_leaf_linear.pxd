# Linear leaves, a part any tree kind may hold: a linear model of the target per node (a
# regressor's), over an input vector the kind provides (its own standardised form of the
# sample: the Mondrian tree's is x in units of the root range), stepped along a sample's path
# by normalised least mean squares, inherited by new nodes from the node they came from, and
# read where the kind predicts (the leaf's model for the path's mean, or each node's in a
# mixture along the path).
#
# The kind keeps its input vector `z` (n <= stride - 1 values, 0 where a feature is missing)
# and 1 + |z|^2, and calls this part where its nodes change: it declares the models' fields
# in its table (`declare_models`: `coef`, `coef_cols`, `linear`, `linear_rate`, the same names
# for every kind), widens it with its input
# (`models_resize`), clears an input slot a new feature takes (`models_clear_input`),
# follows a change of its input's units (`models_rescale`), steps the models of a sample's
# path (`model_fit`), hands a node's model to a new node (`model_copy`), predicts
# (`model_value`, `model_predict`) and refits (`models_forget`, `models_refit_row`,
# `models_restart`, at `Tree.clear_stats`, `refit_sample`, `after_refit`).

from libc.stdint cimport int32_t
from libc.string cimport memcpy

from ._linear cimport linear_step, linear_value
from ._tree cimport Tree


ctypedef struct LinearLeaves:
    double* coef        # `stride` cells per node: the intercept, then one coefficient per input
    int32_t stride      # cells per node row: the input's capacity + 1; 0 while linear leaves are off
    int32_t z_cells     # cells a slot of the kind's input `z`, if it declares it with this width:
                        # 1 with linear leaves, else 0 (in the struct's padding: no byte more)


# the models' saved fields, declared once for every kind: `coef` (`cols` the cells a row it
# saves: n + 1), its saved width `coef_cols`, and the parameters `linear` and `linear_rate`
cdef int declare_models(Tree tree, LinearLeaves* m, int32_t* cols, bint* linear,
                        double* linear_rate) except -1
# the input's capacity (the kind's slots): `capacity` + 1 cells a node, new cells 0
cdef int models_resize(LinearLeaves* m, Tree tree, int32_t capacity) except -1 nogil
# a new feature in input `d`: no coefficient for it in any node
cdef void models_clear_input(LinearLeaves* m, int32_t n_nodes, int32_t d) noexcept nogil
# input d was x_d * before[d] and is x_d * after[d] now: the slopes follow, each model
# predicts what it did (an input whose factor became 0 loses its slope)
cdef void models_rescale(LinearLeaves* m, int32_t n_nodes, const double* before,
                         const double* after, int32_t n) noexcept nogil
# a refit begins: every model is to be fitted again (`models_refit_row`, `models_restart`)
cdef void models_forget(LinearLeaves* m, int32_t n_nodes) noexcept nogil
# a refit's row (input z, target y, slopes' step g) on its path `tree.path[:depth]`, which
# has counted it already
cdef void models_refit_row(LinearLeaves* m, Tree tree, int32_t depth, const double* z,
                           int32_t n, double y, double g) noexcept nogil
# a refit ends: the nodes no row reached start from their parents' models
cdef int models_restart(LinearLeaves* m, Tree tree) except -1 nogil


cdef inline double* model_of(const LinearLeaves* m, int32_t node) noexcept nogil:
    """The node's row of coefficients."""
    return m.coef + <size_t>node * m.stride


cdef inline double model_value(const LinearLeaves* m, int32_t node, const double* z,
                               int32_t n) noexcept nogil:
    """The node's model at input z."""
    return linear_value(model_of(m, node), z, n)


cdef inline double model_gain(double rate, double w, double nz) noexcept nogil:
    """The slopes' step for a sample of weight w and input z (nz = 1 + |z|^2): normalised
    least mean squares, `rate` in (0, 1], a weight above 1 stepping as 1."""
    return rate * (w if w < 1.0 else 1.0) / nz


cdef inline void model_fit(LinearLeaves* m, int32_t node, const double* z, int32_t n, double y,
                           double weight, double g) noexcept nogil:
    """One step of the node's model towards y, before the node counts y (`weight`: its weight
    before): the slopes by normalised least mean squares (g: `model_gain`), the intercept by
    the running mean of the residuals over the node's samples (a step of 1 / (weight + 2):
    the first residual counts half against the model the node started from), so where the
    inputs do not vary the model is the mean."""
    cdef double* c = model_of(m, node)
    cdef double r = y - linear_value(c, z, n)
    linear_step(c, z, n, r / (weight + 2.0), g * r)


cdef inline void model_copy(LinearLeaves* m, int32_t node, int32_t source) noexcept nogil:
    """A new node starts from the model of the node it came from."""
    memcpy(model_of(m, node), model_of(m, source), m.stride * sizeof(double))


cdef inline void model_predict(const LinearLeaves* m, int32_t leaf, const double* z, int32_t n,
                               double* out) noexcept nogil:
    """A regressor's (mean, mean of y^2) from its path (`out`) with the leaf's model for the
    mean: the model's value at z, the spread the path's."""
    cdef double f = model_value(m, leaf, z, n)
    cdef double var = out[1] - out[0] * out[0]
    out[0] = f
    out[1] = f * f + (var if var > 0.0 else 0.0)
