# The online BSP tree of fan2020 (algorithms 3-6 and GenCutNotCross): oblique cuts in a pair
# of features, on the convex hulls of the data each node has seen. Boxes, scales, rates and
# the budget's clock come from `_boxtree.BoxTree`; the cut router from `_oblique.pxd`; 2-D
# hulls and random lines from `_hull.pxd`; a new parent above a node from `Tree.insert_parent`.

from libc.stdint cimport int32_t

from ._boxtree cimport BoxTree
from ._pool cimport Pool


cdef class BSPTree(BoxTree):
    # --- per node (`capacity` rows) ---
    cdef double* tau            # budget at which the node was cut (its cost, summed from the
                                # root); +inf for a leaf
    cdef int32_t* feature_b     # second registry column of the cut (`feature` holds the first)
    cdef double* coef_a         # the cut: coef_a * x[feature] + coef_b * x[feature_b] <= threshold
    cdef double* coef_b         #   goes left (see _oblique.pxd)
    cdef double* count          # points that went through the node (a node of <= 3 is never cut)
    cdef int32_t* stored        # points a leaf keeps (rows used of its `points` block)

    # --- pools ---
    cdef Pool hulls             # per node, for each pair p in order: [m_p, x0, y0, ..., x_m, y_m],
                                # the hull of the node's points projected on the pair's two slots
                                # (relative to `origin`), at most `max_hull_vertices` vertices
    cdef Pool points            # per leaf: kept points, a row of `feature_capacity` raw slot
                                # values each (NaN where missing)
    cdef Pool targets           # per leaf: (y, w) of each kept point, two cells a row
    cdef Pool pairs             # block 0: the tree's pairs of slots [a0, b0, a1, b1, ...]

    # --- parameters ---
    cdef bint consistent        # budget tau_n = budget_scale * n^(1/(d+2)) (True) or fixed_budget
    cdef double fixed_budget
    cdef double budget_scale
    cdef int32_t max_pairs      # pairs of features a tree cuts in (all of them while they fit)
    cdef int32_t max_hull_vertices  # vertices of a stored hull; a larger one is replaced by a
                                    # superset (`_hull.hull_reduce`)
    cdef int32_t max_leaf_points    # points a leaf keeps (a uniform sample past it)
    cdef int32_t warmup         # samples that only build the root before the first cut

    # --- state ---
    cdef int32_t n_pairs        # pairs in use
    cdef int32_t n_pair_slots   # slots whose pairs have been offered to the pair sample
    cdef long long n_candidates # pairs offered so far (the pair sample is a reservoir)
    cdef int32_t n_point_slots  # slots every kept point has a value (or NaN) for
    cdef long long n_cuts       # cuts made by the budget's clock
    cdef long long n_inserted   # cuts inserted above a node for a point outside its hull
    cdef bint grown_out         # the tree dropped its hulls and kept points (node cap or byte
                                # budget): it never cuts again, only its statistics learn

    # --- scratch (not saved) ---
    cdef double* scratch
    cdef size_t scratch_cells
    cdef int32_t* pair_a        # the pairs as slot indices (a copy of the `pairs` block)
    cdef int32_t* pair_b

    cdef double* work(self, size_t cells) except NULL nogil
    cdef size_t block_cells(self) noexcept nogil
    cdef size_t hull_cells(self) noexcept nogil
    cdef size_t points_cells(self) noexcept nogil
    cdef double* region(self, int k) noexcept nogil
    cdef int ensure_work(self) except -1 nogil
    cdef int load_pairs(self) except -1 nogil
    cdef int sync_pairs(self) except -1 nogil
    cdef int reset_hulls(self, const int32_t* keep, int32_t old_pairs) except -1 nogil
    cdef int set_hulls(self, int32_t node, const double* block, size_t cells) except -1 nogil
    cdef int sync_points(self) except -1 nogil
    cdef int keep_point(self, int32_t node, const double* x, double y, double w) except -1 nogil
    cdef int drop_points(self) except -1 nogil
    cdef int drop_growth(self) except -1 nogil
    cdef bint points_fit(self, size_t point_cells, size_t target_cells) noexcept nogil
    cdef bint can_add(self, int32_t k) noexcept nogil
    cdef int32_t split_columns(self, int32_t node, int32_t* cols, double* shares) noexcept nogil
    cdef int point_hulls(self, int32_t node, const double* pts, int32_t n) except -1 nogil
    cdef double hull_rate(self, int32_t node) noexcept nogil
    cdef bint holds(self, int32_t node, const double* xs) noexcept nogil
    cdef int32_t extended(self, int32_t node, const double* xs, double* block, double* delta,
                          double* rate, bint* grown) except -1 nogil
    cdef int32_t pick_pair(self, const double* src, const double* weight, double total,
                           const double** verts, int32_t* nv) noexcept nogil
    cdef int take_points(self, int32_t node, const double* pts, const double* tg, int32_t n,
                         double seen) except -1 nogil
    cdef int cut_not_crossing(self, int32_t node, const double* x, const double* xs,
                              const double* block, size_t cells, const double* delta,
                              double rate, double time, double y, double w) except -1 nogil
    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil
