"""Linear leaves, for any tree kind (`_leaf_linear.pxd`): the per-node linear models' growth
with the kind's input, their units, and their refit. The hot steps (a model's value, its
step, its copy to a new node) are inline in the .pxd."""

from libc.math cimport NAN
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from ._tree cimport CELL_F64, ROWS_NODE, SCALAR_BOOL, SCALAR_F64, SCALAR_I32, Tree
from ._tree_refit cimport order_nodes
from ._tree_table cimport declare_array, declare_scalar, restride_rows


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


cdef int models_resize(LinearLeaves* m, Tree tree, int32_t capacity) except -1 nogil:
    """`capacity` + 1 cells a node (the table restrides `coef`, new cells 0)."""
    restride_rows(tree, &m.stride, capacity + 1)
    return 0


cdef void models_clear_input(LinearLeaves* m, int32_t n_nodes, int32_t d) noexcept nogil:
    """No node has a coefficient for a new feature in input `d`."""
    cdef int32_t j
    for j in range(n_nodes):
        model_of(m, j)[1 + d] = 0.0


cdef void models_rescale(LinearLeaves* m, int32_t n_nodes, const double* before,
                         const double* after, int32_t n) noexcept nogil:
    """Input d went from x_d * before[d] to x_d * after[d]: its slope in every model is
    multiplied by before[d] / after[d] (0 where after[d] is 0), so every model predicts what
    it did."""
    cdef int32_t d, j
    cdef double ratio
    for d in range(n):
        if before[d] != after[d]:
            ratio = before[d] / after[d] if after[d] > 0.0 else 0.0
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
