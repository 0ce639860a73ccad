# The Mondrian tree of mourtada2017 (growing lifetime) on the range of the data seen
# (conditional Mondrian of Lakshminarayanan et al. 2014, as in the paper's remark 3).

from libc.stdint cimport int32_t

from ._tree cimport Tree


cdef class MondrianTree(Tree):
    # --- per node (`capacity` rows) ---
    cdef double* tau            # split time of an interior node; +inf for a leaf
    cdef double* rate           # sum, over the leaves below (or the node itself if a leaf), of
                                # the leaf's scaled linear dimension: its split rate
    cdef float* lower           # `feature_capacity` columns per node: lower corner of the box of
                                # data the node has seen, relative to `origin`, rounded down
                                # (+inf where it has seen none); see _box.pxd
    cdef float* upper           # upper corner of that box, rounded up (-inf where it has seen none)

    # --- per feature (`feature_capacity` entries) ---
    cdef double* scale          # 1 / range of the root box at the last rescale (0 if no range)
    cdef double* snapshot       # the root range `scale` was computed from
    cdef double* origin         # the first value the tree saw of the feature (NaN before): the
                                # boxes' zero
    cdef double* shifted        # scratch: the sample being learned, minus `origin` (NaN if missing)
    cdef float* below           # scratch: `shifted` rounded down to float32 (see _box.bracket)
    cdef float* above           # scratch: `shifted` rounded up to float32

    # --- lifetime ---
    cdef bint consistent        # lambda grows with n (True) or is fixed at `lifetime` (False)
    cdef double lifetime        # current lifetime lambda (0 during the warm-up)
    cdef double fixed_lifetime  # the lifetime of a fixed-lifetime tree
    cdef int32_t warmup         # samples that only build the root box before the first split
    cdef double lifetime_scale  # consistent schedule: lambda_n = lifetime_scale * n^(1/(d+2))
    cdef double hazard          # the tree's exponential clock: integrated split rate left
                                # before the next lifetime-growth split (an Exp(1) draw)
    cdef double rescale_factor  # rescale when a root range exceeds snapshot * rescale_factor

    cdef double leaf_size(self, int32_t node) noexcept nogil
    cdef void propagate_rate(self, int32_t node, double delta) noexcept nogil
    cdef int recompute_rates(self) except -1 nogil
    cdef void shift(self, const double* x) noexcept nogil
    cdef void stretch(self, int32_t node) noexcept nogil
    cdef int maybe_rescale(self, const double* xs) except -1 nogil
    cdef int grow_lifetime(self, double new_lifetime) except -1 nogil
    cdef int32_t pick_leaf(self) noexcept nogil
    cdef int split_leaf(self, int32_t node, double time) except -1 nogil
    cdef int split_above(self, int32_t node, const double* x, const double* xs, double time,
                         double total, double y, double w) except -1 nogil
    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil

