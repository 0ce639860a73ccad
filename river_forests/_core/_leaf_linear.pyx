"""Linear leaves, for any tree kind (`_leaf_linear.pxd`): the per-node linear models' growth
with the kind's input, the input's units (`LeafInput`: origins, ranges, the rescale rule),
and the models' refit. The hot steps (a model's value, its step, its copy to a new node, the
input's load) are inline in the .pxd."""

from libc.math cimport INFINITY, NAN
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._tree cimport (CELL_F64, ROWS_NODE, ROWS_SLOT, SCALAR_BOOL, SCALAR_F64, SCALAR_I32,
                     TASK_REGRESSION, Tree)
from ._tree_refit cimport order_nodes
from ._tree_table cimport declare_array, declare_scalar, resize_slots, restride_rows


cdef class LinearTree(Tree):
    """What a kind with linear leaves overrides of the protocol, once: its slots' and widths'
    growth, its prediction's mean, its refit, its saved state's check. Not a kind."""

    cdef bint fits_models(self) noexcept nogil:
        """Whether the tree has linear leaves and a feature to fit them on."""
        return models_on(&self.models, self)

    cdef int32_t* input_cols(self) noexcept nogil:
        """The declared count of the input's saved cells a slot (a kind without boxes'), or
        NULL (the box kinds save one always)."""
        return NULL

    cdef int _resize_features(self, int32_t capacity) except -1 nogil:
        return models_resize_slots(&self.models, self, self.linear and self.task == TASK_REGRESSION,
                                   capacity, self.input_cols())

    cdef int ensure_features(self, int32_t n_columns) except -1 nogil:
        Tree.ensure_features(self, n_columns)
        return models_widths(&self.models, self, &self.coef_cols)

    cdef void predict(self, const double* x, double* out, int32_t n_out) noexcept nogil:
        """The path's blend (`Tree.blend_path`), its mean the leaf's model's with linear leaves."""
        cdef int32_t depth = self.descend(x)
        self.blend_path(depth, out, n_out)
        models_predict(&self.models, &self.inp, self, x, depth, out)

    cdef int clear_stats(self) except -1 nogil:
        """A refit also forgets the linear models (`refit_sample` fits them again)."""
        if self.models.stride > 0:
            models_forget(&self.models, self.n_nodes)
        return Tree.clear_stats(self)

    cdef int refit_sample(self, const double* x, double y, int32_t depth) except -1 nogil:
        """A refit's row on its path (`path[:depth]`, counted already): the linear models of
        the path take their step, as when the tree learns."""
        return models_refit_sample(&self.models, &self.inp, self, x, y, depth, self.linear_rate)

    cdef int after_refit(self) except -1 nogil:
        """Nodes no refit row reached start from their parents' models."""
        return models_restart(&self.models, self) if self.models.stride > 0 else 0

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """Linear leaves' coefficients (a regressor's): at most n_features + 1 a node, or none."""
        check_models(state, self.linear, self.task, self.coef_cols)


cdef int declare_models(Tree tree, LinearLeaves* m, int32_t* cols, bint* linear,
                        double* linear_rate) except -1:
    """The models' fields in the kind's table, under the names every kind saves them by;
    off (`linear` False, no cells a row) until the tree's parameters turn them on."""
    linear_rate[0] = 0.5
    declare_array(tree, <void**>&m.coef, b"coef", CELL_F64, ROWS_NODE, &m.stride, cols, True, 0.0)
    declare_scalar(tree, linear, b"linear", SCALAR_BOOL, True)
    declare_scalar(tree, linear_rate, b"linear_rate", SCALAR_F64, True)
    declare_scalar(tree, cols, b"coef_cols", SCALAR_I32, False, 0)
    return 0


cdef int declare_input(Tree tree, LeafInput* inp, int32_t* cells, int32_t* cols) except -1:
    """The input's saved fields, `cells` a slot (NULL: one, whether linear leaves are on or
    not: the box kinds' boxes and rates use `origin` and `scale`), `cols` of them saved."""
    inp.rescale_factor = 1.1
    declare_array(tree, <void**>&inp.scale, b"scale", CELL_F64, ROWS_SLOT, cells, cols, True, 0.0)
    declare_array(tree, <void**>&inp.snapshot, b"snapshot", CELL_F64, ROWS_SLOT, cells, cols, True,
                  0.0)
    declare_array(tree, <void**>&inp.origin, b"origin", CELL_F64, ROWS_SLOT, cells, cols, True, NAN)
    declare_scalar(tree, &inp.rescale_factor, b"rescale_factor", SCALAR_F64, False)
    return 0


cdef int declare_input_z(Tree tree, LeafInput* inp, int32_t* cells) except -1:
    """The input's scratch `z`, `cells` a slot (`LinearLeaves.z_cells`)."""
    declare_array(tree, <void**>&inp.z, b"z", CELL_F64, ROWS_SLOT, cells, NULL, False, 0.0)
    return 0


cdef int declare_input_range(Tree tree, double** low, double** high, int32_t* cells,
                             int32_t* cols) except -1:
    """A kind without boxes: the lowest and highest x - origin of each slot (+inf, -inf
    before its first value), `cells` a slot, `cols` of them saved (the declared scalar
    `input_cols`: a saved state says how many, so that it is checked before it is loaded)."""
    declare_array(tree, <void**>low, b"input_low", CELL_F64, ROWS_SLOT, cells, cols, True, INFINITY)
    declare_array(tree, <void**>high, b"input_high", CELL_F64, ROWS_SLOT, cells, cols, True,
                  -INFINITY)
    declare_scalar(tree, cols, b"input_cols", SCALAR_I32, False, 0, 1)
    return 0


cdef int models_resize_slots(LinearLeaves* m, Tree tree, bint on, int32_t capacity,
                             int32_t* cols) except -1 nogil:
    """`capacity` slots (the table resizes every per-slot array); with linear leaves (`on`,
    a regressor's) the input takes a cell a slot (`cols`: as many saved) and the models
    `capacity` + 1 a node."""
    if on:
        m.z_cells = 1
        if cols != NULL:
            cols[0] = 1
    resize_slots(tree, capacity)
    if on:
        models_resize(m, tree, tree.feature_capacity)
    return 0


cdef int models_widths(LinearLeaves* m, Tree tree, int32_t* cols) except -1 nogil:
    """The models' saved cells a row: n_features + 1 with linear leaves."""
    if m.stride > 0:
        cols[0] = tree.n_features + 1
    return 0


cdef int check_models(dict state, bint linear, int task, int32_t cols) except -1:
    """Linear leaves' coefficients (a regressor's): at most n_features + 1 a node, or none
    (`linear`, `task`, `cols`: the tree's, where the state has none)."""
    linear = state.get("linear", linear) and state.get("task", task) == TASK_REGRESSION
    cols = state.get("coef_cols", cols)
    if not 0 <= cols <= (state.get("n_features", 0) + 1 if linear else 0):
        raise ValueError("the leaves' linear coefficients do not match 'linear' and the "
                         "tree's features")
    return 0


cdef void input_clear_slot(LeafInput* inp, double* low, double* high, int32_t slot) noexcept nogil:
    """The slot's feature leaves the subspace: no origin, no range (`low`, `high`: a kind
    without boxes', NULL for a box kind)."""
    inp.origin[slot] = NAN
    inp.scale[slot] = 0.0
    inp.snapshot[slot] = 0.0
    if low != NULL:
        low[slot] = INFINITY
        high[slot] = -INFINITY


cdef void input_rescale_begin(LeafInput* inp, const LinearLeaves* m, int32_t n) noexcept nogil:
    """A rescale begins: with linear leaves, `z` keeps the old units (`scale`)."""
    cdef int32_t d
    if m.stride > 0:
        for d in range(n):
            inp.z[d] = inp.scale[d]


cdef void input_rescale_end(LeafInput* inp, LinearLeaves* m, int32_t n_nodes, int32_t n) noexcept nogil:
    """A rescale ends: the models follow the new units (`z` holds the old ones)."""
    if m.stride > 0:
        models_rescale(m, n_nodes, inp.z, inp.scale, n)


cdef double models_observe(LinearLeaves* m, LeafInput* inp, double* low, double* high, Tree tree,
                           const double* x, double w, double rate) noexcept nogil:
    """A kind without boxes learns x: each slot's first value becomes its origin, its range
    (`low`, `high`, from the origin) stretches to x, and where a range outgrew its snapshot
    every slot takes its range as its units (the models follow); then `z` is x's. Returns the
    slopes' step (`model_gain`), or 0 without linear leaves."""
    cdef int32_t d, n = tree.n_features
    cdef double v
    cdef bint stale = False
    if not models_on(m, tree):
        return 0.0
    for d in range(n):
        v = x[tree.columns[d]]
        if v != v:
            continue
        if inp.origin[d] != inp.origin[d]:
            inp.origin[d] = v
        v -= inp.origin[d]
        if v < low[d]:
            low[d] = v
        if v > high[d]:
            high[d] = v
        stale |= input_outgrown(inp, d, high[d] - low[d])
    if stale:
        input_rescale_begin(inp, m, n)
        for d in range(n):
            input_set_span(inp, d, high[d] - low[d])
        input_rescale_end(inp, m, tree.n_nodes, n)
    return model_gain(rate, w, input_load(inp, x, tree.columns, n))


cdef void models_predict(LinearLeaves* m, LeafInput* inp, Tree tree, const double* x,
                         int32_t depth, double* out) noexcept nogil:
    """With linear leaves, the mean of `out` (the path's blend, `path[:depth]`) is the
    leaf's model's at x."""
    if depth > 0 and models_on(m, tree):
        input_load(inp, x, tree.columns, tree.n_features)
        model_predict(m, tree.path[depth - 1], inp.z, tree.n_features, out)


cdef int models_refit_sample(LinearLeaves* m, LeafInput* inp, Tree tree, const double* x,
                             double y, int32_t depth, double rate) except -1 nogil:
    """A refit's row on its path (`path[:depth]`, counted already): the path's models take
    their step, as when the tree learns."""
    cdef double nz
    if models_on(m, tree):
        nz = input_load(inp, x, tree.columns, tree.n_features)
        models_refit_row(m, tree, depth, inp.z, tree.n_features, y, model_gain(rate, 1.0, nz))
    return 0


cdef int models_resize(LinearLeaves* m, Tree tree, int32_t capacity) except -1 nogil:
    """`capacity` + 1 cells a node (the table restrides `coef`, new cells 0)."""
    restride_rows(tree, &m.stride, capacity + 1)
    return 0


cdef void models_clear_input(LinearLeaves* m, int32_t n_nodes, int32_t d) noexcept nogil:
    """No node has a coefficient for a new feature in input `d`."""
    cdef int32_t j
    for j in range(n_nodes):
        model_of(m, j)[1 + d] = 0.0


#: the factor a rescale multiplies a slope by, at most (`models_rescale`): chosen on the
#: benchmark's tuning half and fresh draws of its generators (benchmarks/experiments/slope_cap.py)
SLOPE_CAP = 1.5
cdef double slope_cap = SLOPE_CAP


def set_slope_cap(double cap):
    """Set the cap for every tree of the process: for the experiment that chose `SLOPE_CAP`,
    not for a user (a tree does not save it)."""
    global slope_cap
    if not cap >= 1.0:
        raise ValueError(f"the slope cap must be at least 1, got {cap}")
    slope_cap = cap


def get_slope_cap():
    """The cap every tree of the process applies (`set_slope_cap`)."""
    return slope_cap


cdef void models_rescale(LinearLeaves* m, int32_t n_nodes, const double* before,
                         const double* after, int32_t n) noexcept nogil:
    """Input d went from x_d * before[d] to x_d * after[d]: its slope in every model is
    multiplied by before[d] / after[d] (0 where after[d] is 0), so every model predicts what
    it did; but by at most `slope_cap`. A range that jumps (a young tree's, whose first rows
    spanned a little of it) says the slopes were fit across too little of it to be worth
    that factor: they keep part of their value in units of the range instead."""
    cdef int32_t d, j
    cdef double ratio
    for d in range(n):
        if before[d] != after[d]:
            ratio = before[d] / after[d] if after[d] > 0.0 else 0.0
            ratio = ratio if ratio < slope_cap else slope_cap
            for j in range(n_nodes):
                model_of(m, j)[1 + d] *= ratio


cdef void models_forget(LinearLeaves* m, int32_t n_nodes) noexcept nogil:
    """A refit forgets the models: a NaN intercept marks one not fitted since the refit
    began (`model_restart` starts it from its parent's)."""
    cdef int32_t j
    for j in range(n_nodes):
        model_of(m, j)[0] = NAN


cdef void model_restart(LinearLeaves* m, Tree tree, int32_t node) noexcept nogil:
    """A node's model not fitted since a refit began starts from its parent's (the root's
    from 0 slopes at its mean)."""
    cdef double* c = model_of(m, node)
    cdef int32_t p = tree.parent[node]
    if c[0] == c[0]:
        return
    if p >= 0:
        model_copy(m, node, p)
    else:
        memset(c, 0, m.stride * sizeof(double))
        if tree.weight[node] > 0.0:
            c[0] = tree.value[<size_t>node * tree.value_stride] / tree.weight[node]


cdef void models_refit_row(LinearLeaves* m, Tree tree, int32_t depth, const double* z,
                           int32_t n, double y, double g) noexcept nogil:
    """The models of the row's path take their step, as when the tree learns: each before
    its node counts the row (which the refit counted already)."""
    cdef int32_t k, j
    for k in range(depth):
        j = tree.path[k]
        model_restart(m, tree, j)
        model_fit(m, j, z, n, y, tree.weight[j] - 1.0, g)


cdef int models_restart(LinearLeaves* m, Tree tree) except -1 nogil:
    """The nodes no refit row reached start from their parents' models, parents first."""
    cdef int32_t* order = <int32_t*>malloc(<size_t>(tree.n_nodes + 1) * sizeof(int32_t))
    cdef int32_t k
    if order == NULL:
        with gil:
            raise MemoryError()
    for k in range(order_nodes(tree, order)):
        model_restart(m, tree, order[k])
    free(order)
    return 0
