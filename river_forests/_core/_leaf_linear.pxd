# Linear leaves, a part any tree kind may hold: a linear model of the target per node (a
# regressor's), over the kind's input vector `z` (`LeafInput`: x from a per-slot origin in units
# of a per-slot range), stepped along a sample's path by normalised least mean squares,
# inherited by new nodes from the node they came from, and read where the kind predicts (the
# leaf's model for the path's mean, or each node's in a mixture along the path).
#
# The input (`LeafInput`, one for every kind): per feature slot an `origin` (the first value
# seen), a `scale` (1 / the slot's range at the last rescale) and its `snapshot` (that range),
# the rescale rule (a range grown past `rescale_factor` times its snapshot: `input_outgrown`,
# `input_set_span`, between `input_rescale_begin` and `input_rescale_end`, which the models
# follow), and `z` = (x - origin) * scale, 0 where missing (`input_load`). The box kinds
# (`_boxtree`) feed the rule their root box's range; a kind without boxes tracks its own range
# per slot (`low`, `high`: `declare_input_range`, `models_observe`); its input's arrays have
# `input_cols` cells a slot (a declared count, which a saved state gives), none while linear
# leaves are off.
#
# The kind calls this part where its nodes change: it declares the models' fields in its
# table (`declare_models`: `coef`, `coef_cols`, `linear`, `linear_rate`, the same names for
# every kind) and the input's (`declare_input`, `declare_input_z`), widens them with its slots
# (`models_resize_slots`), clears an input slot a new feature takes (`models_clear_input`,
# `input_clear_slot`), steps the models of a sample's path (`model_fit`, `model_learn`), hands
# a node's model to a new node (`model_copy`), predicts (`models_predict`) and refits
# (`models_forget`, `models_refit_sample`, `models_restart`, at `Tree.clear_stats`,
# `refit_sample`, `after_refit`). `LinearTree`, the base of every kind that may have them (not a
# kind), holds the fields and overrides the protocol's hooks with these calls, once.

from libc.stdint cimport int32_t
from libc.string cimport memcpy

from ._linear cimport linear_step, linear_value
from ._tree cimport Tree, add_stats


ctypedef struct LinearLeaves:
    double* coef        # `stride` cells per node: the intercept, then one coefficient per input
    int32_t stride      # cells per node row: the input's capacity + 1; 0 while linear leaves are off
    int32_t z_cells     # cells a slot of the kind's input `z`, if it declares it with this width:
                        # 1 with linear leaves, else 0 (in the struct's padding: no byte more)


ctypedef struct LeafInput:
    double* origin      # per slot: the first value the tree saw of the feature (NaN before): z's 0
    double* scale       # per slot: 1 / the slot's range at the last rescale (0 if no range)
    double* snapshot    # per slot: the range `scale` was computed from
    double* z           # scratch, per slot: (x - origin) * scale, 0 where missing: the models' input
    double rescale_factor  # rescale when a range exceeds its snapshot times this


cdef class LinearTree(Tree):
    # --- linear leaves (a regressor's): a model per node over `inp.z` ---
    cdef LinearLeaves models    # the coefficients (`coef`): the intercept, then one per slot;
                                # stride feature_capacity + 1, or 0 without linear leaves
    cdef LeafInput inp          # the models' input (its fields the kind declares: `declare_input`,
                                # `declare_input_z`): per slot `origin` (the first value seen,
                                # NaN before: z's 0; a box kind's boxes' too), `scale` (1 / the
                                # slot's range at the last rescale, 0 if none; a box kind's root
                                # box's), `snapshot` (that range), `rescale_factor`, and `z`
                                # (scratch: x from `origin` in units of the range, 0 where
                                # missing; `models.z_cells` a slot, 1 with linear leaves and in
                                # every Mondrian tree, whose budget always counted it; else 0)
    cdef int32_t coef_cols      # cells saved per row of `coef`: n_features + 1, or 0
    cdef bint linear            # a node predicts with its linear model (else its mean)
    cdef double linear_rate     # normalized step of the slopes' updates, in (0, 1]

    cdef bint fits_models(self) noexcept nogil
    cdef int32_t* input_cols(self) noexcept nogil


# the models' saved fields, declared once for every kind: `coef` (`cols` the cells a row it
# saves: n + 1), its saved width `coef_cols`, and the parameters `linear` and `linear_rate`
cdef int declare_models(Tree tree, LinearLeaves* m, int32_t* cols, bint* linear,
                        double* linear_rate) except -1
# the input's fields: `scale`, `snapshot`, `origin` (saved; `cells` a slot, NULL: 1, `cols` of
# them saved, NULL: all) and the scalar `rescale_factor`; then, after `declare_models`, the
# scratch `z` (`cells` a slot)
cdef int declare_input(Tree tree, LeafInput* inp, int32_t* cells, int32_t* cols) except -1
cdef int declare_input_z(Tree tree, LeafInput* inp, int32_t* cells) except -1
# a kind without boxes: its own range of each slot, x - origin's lowest and highest (saved,
# `cells` a slot, `cols` of them saved: the declared scalar `input_cols`)
cdef int declare_input_range(Tree tree, double** low, double** high, int32_t* cells,
                             int32_t* cols) except -1
# the input's capacity (the kind's slots): `capacity` + 1 cells a node, new cells 0
cdef int models_resize(LinearLeaves* m, Tree tree, int32_t capacity) except -1 nogil
# the tree's slots resized to `capacity` (`_tree_table.resize_slots`), with the input and the
# models, which are on (`on`: a regressor with linear leaves) or cost no byte (`cols`: the
# input's saved cells a slot, 1 when on, of a kind without boxes; else NULL)
cdef int models_resize_slots(LinearLeaves* m, Tree tree, bint on, int32_t capacity,
                             int32_t* cols) except -1 nogil
# the saved width of the models: n_features + 1 cells a row with linear leaves
cdef int models_widths(LinearLeaves* m, Tree tree, int32_t* cols) except -1 nogil
# a saved state's models: at most n_features + 1 coefficients a node, or none
cdef int check_models(dict state, bint linear, int task, int32_t cols) except -1
# the slot's feature leaves: its origin and range are the next feature's
cdef void input_clear_slot(LeafInput* inp, double* low, double* high, int32_t slot) noexcept nogil
# a rescale: `scale` kept in `z` (the models' units before); `input_set_span` each slot; the
# models follow (`models_rescale`) from the old units to the new
cdef void input_rescale_begin(LeafInput* inp, const LinearLeaves* m, int32_t n) noexcept nogil
cdef void input_rescale_end(LeafInput* inp, LinearLeaves* m, int32_t n_nodes, int32_t n) noexcept nogil
# a kind without boxes learning x: its range (`low`, `high`, origins) takes x in, rescaling
# when a range outgrew its snapshot, and `z` is x's; returns the slopes' step for (x, w)
# (`model_gain`), 0 (nothing computed) without linear leaves
cdef double models_observe(LinearLeaves* m, LeafInput* inp, double* low, double* high, Tree tree,
                           const double* x, double w, double rate) noexcept nogil
# a prediction's mean from the leaf's model (`path[:depth]` walked, `out` the path's blend)
cdef void models_predict(LinearLeaves* m, LeafInput* inp, Tree tree, const double* x,
                         int32_t depth, double* out) noexcept nogil
# a refit's row x: `models_refit_row` on `z`, if the tree has linear leaves
cdef int models_refit_sample(LinearLeaves* m, LeafInput* inp, Tree tree, const double* x,
                             double y, int32_t depth, double rate) except -1 nogil
# a new feature in input `d`: no coefficient for it in any node
cdef void models_clear_input(LinearLeaves* m, int32_t n_nodes, int32_t d) noexcept nogil
# input d was x_d * before[d] and is x_d * after[d] now: the slopes follow, each model
# predicts what it did (an input whose factor became 0 loses its slope), but no slope grows by
# more than the module's cap (`SLOPE_CAP`: a young tree's ranges jump)
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


cdef inline bint models_on(const LinearLeaves* m, Tree tree) noexcept nogil:
    """Whether the tree has linear leaves and a feature to fit them on."""
    return m.stride > 0 and tree.n_features > 0


cdef inline void model_learn(LinearLeaves* m, Tree tree, int32_t node, const double* z, double y,
                             double w, double g) noexcept nogil:
    """Node `node` learns (y, w): its linear model's step first (`g`: `model_gain`, `z`
    loaded), if the tree has linear leaves, then its statistics. The root's model starts at
    its first target, as the Mondrian tree's does: from 0, the first residuals are the
    target's size, and the slopes, stepped by them over inputs that have barely varied yet,
    take values the data never supported."""
    if models_on(m, tree):
        if node == tree.root and tree.weight[node] <= 0.0:
            model_of(m, node)[0] = y
        else:
            model_fit(m, node, z, tree.n_features, y, tree.weight[node], g)
    add_stats(tree, node, y, w)


cdef inline double input_load(LeafInput* inp, const double* x, const int32_t* columns,
                              int32_t n) noexcept nogil:
    """`z` = the slots (`columns`) of the registry row `x`, from their origins, in units of
    their ranges, 0 where missing; returns 1 + |z|^2, the normaliser of the models' steps."""
    cdef int32_t d
    cdef double v, nz = 1.0
    for d in range(n):
        v = (x[columns[d]] - inp.origin[d]) * inp.scale[d]
        v = v if v == v else 0.0
        inp.z[d] = v
        nz += v * v
    return nz


cdef inline bint input_outgrown(const LeafInput* inp, int32_t d, double span) noexcept nogil:
    """The rescale rule: slot d's range `span` outgrew its snapshot."""
    return span > inp.snapshot[d] * inp.rescale_factor


cdef inline void input_set_span(LeafInput* inp, int32_t d, double span) noexcept nogil:
    """Slot d's units are now its range `span` (none if not positive)."""
    if span > 0.0:
        inp.snapshot[d] = span
        inp.scale[d] = 1.0 / span
    else:
        inp.snapshot[d] = 0.0
        inp.scale[d] = 0.0
