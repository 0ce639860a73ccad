# The Mondrian tree of mourtada2017 (growing lifetime) on the range of the data seen
# (conditional Mondrian of Lakshminarayanan et al. 2014, as in the paper's remark 3).
# Boxes, scales and rates come from `_boxtree.BoxTree`; a leaf's rate is its linear dimension.

from libc.stdint cimport int32_t

from ._boxtree cimport BoxTree


cdef class MondrianTree(BoxTree):
    # --- per node (`capacity` rows) ---
    cdef double* tau            # split time of an interior node; +inf for a leaf

    # --- lifetime ---
    cdef bint consistent        # lambda grows with n (True) or is fixed at `fixed_lifetime` (False)
    cdef double fixed_lifetime  # the lifetime of a fixed-lifetime tree
    cdef int32_t warmup         # samples that only build the root box before the first split
    cdef double lifetime_scale  # consistent schedule: lambda_n = lifetime_scale * n^(1/(d+2))

    cdef int split_above(self, int32_t node, const double* x, const double* xs, double time,
                         double total, double y, double w) except -1 nogil
    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil
