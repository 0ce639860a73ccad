# The Mondrian tree of mourtada2017 (growing lifetime) on the range of the data seen
# (conditional Mondrian of Lakshminarayanan et al. 2014, as in the paper's remark 3).
# Boxes, scales and rates come from `_boxtree.BoxTree`; a leaf's rate is its linear dimension.
# Beyond the paper, as options: recycling at the node cap, linear leaves (regression), and AMF's
# aggregation over the prunings of the tree (see the module's docstring).

from libc.stdint cimport int32_t, uint64_t

from ._boxtree cimport BoxTree


cdef class MondrianTree(BoxTree):
    # --- per node (`capacity` rows) ---
    cdef double* tau            # split time of an interior node; +inf for a leaf
    cdef double* logw           # aggregation (AMF): log weight of the node's own predictions,
                                # -step * their cumulated loss on the samples through it
    cdef double* logwt          # log of the subtree's weight over every pruning of it:
                                # logw for a leaf, log((e^logw + e^(logwt_left + logwt_right)) / 2)
    cdef int32_t* resting       # recycling: 1 for a leaf freed from a twig that no sample has
                                # reached since (it does not split until one does)
    cdef double* path_coef      # scratch: the aggregated weight of each node of a walk

    # --- lifetime ---
    cdef bint consistent        # lambda grows with n (True) or is fixed at `fixed_lifetime` (False)
    cdef double fixed_lifetime  # the lifetime of a fixed-lifetime tree
    cdef int32_t warmup         # samples that only build the root box before the first split
    cdef double lifetime_scale  # consistent schedule: lambda_n = lifetime_scale * n^(1/(d+2))

    # --- aggregation over the prunings of the tree (Mourtada et al. 2021, AMF) ---
    cdef bint use_aggregation   # predict with the exponentially weighted mixture of prunings
    cdef double step            # learning rate of the weights (the loss's multiplier)

    # --- at the node cap ---
    cdef bint recycling         # free the twigs holding the least data for new cuts (else freeze)
    cdef long long n_recycled   # nodes freed so far

    cdef int split_above(self, int32_t node, const double* x, const double* xs, double time,
                         double total, double y, double w, double loss, double g) except -1 nogil
    cdef double node_loss(self, int32_t node, double y, double prior, double var,
                          double* estimate) noexcept nogil
    cdef int recycle(self) except -1 nogil
    cdef int free_twig(self, int32_t node) except -1 nogil
    cdef double aggregation_start(self, double* var) noexcept nogil
    cdef void update_weights_up(self, int32_t node) noexcept nogil
    cdef int aggregate_path(self, int32_t depth, double* out, int32_t n_out) except -1 nogil
    cdef int insert(self, const double* x, const double* xs, uint64_t slots, double y,
                    double w) except -1 nogil
