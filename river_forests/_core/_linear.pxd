# Linear models in tree nodes: a row of coefficients (intercept first, then one per input)
# over an input vector a tree kind provides. The kernel of the linear leaves (`_leaf_linear`),
# which any kind may hold (the Mondrian regressor's do).

cdef inline double linear_value(const double* coef, const double* z, int n) noexcept nogil:
    """coef[0] + sum_d coef[1 + d] * z[d]."""
    cdef double s = coef[0]
    cdef int d
    for d in range(n):
        s += coef[1 + d] * z[d]
    return s


cdef inline void linear_step(double* coef, const double* z, int n, double g0, double g) noexcept nogil:
    """coef += (g0, g * z): a gradient step on the squared error, with g0 and g the residual
    times the intercept's and the slopes' step sizes."""
    cdef int d
    coef[0] += g0
    for d in range(n):
        coef[1 + d] += g * z[d]
