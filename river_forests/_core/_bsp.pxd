# The online BSP tree of fan2020 (algorithms 3-6 and GenCutNotCross): oblique cuts in a pair
# of features, on the convex hulls of the data each node has seen. Boxes, scales, rates and
# the budget's clock come from `_boxtree.BoxTree`; the cut router from `_oblique.pxd`; 2-D
# hulls and random lines from `_hull.pxd`; a new parent above a node from `Tree.insert_parent`.
# The class routes a sample (`insert`, algorithm 4); its concerns are modules of functions
# taking the tree: `_bsp_pairs` (the sample of pairs of slots), `_bsp_hulls` (each node's
# hulls: layout, upkeep as points arrive, measures), `_bsp_points` (the points a leaf keeps
# and where they go at a cut), `_bsp_cuts` (a cut drawn on a pair, made on a leaf or inserted
# above a node) and `_bsp_budget` (nodes, hulls and kept points under the byte budget).

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
    cdef double* count          # points that went through the node (a node of at most
                                # `min_points` is never cut)
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
    cdef double min_points      # a node of at most this many points is never cut (the
                                # paper's 3)
    cdef double axis_rate       # probability that a budget cut snaps to one axis of its pair
                                # (0: the paper's line measure)

    # --- state ---
    cdef int32_t n_pairs        # pairs in use
    cdef int32_t n_pair_slots   # slots whose pairs have been offered to the pair sample
    cdef long long n_candidates # pairs offered so far (the pair sample is a reservoir)
    cdef int32_t n_point_slots  # slots every kept point has a value (or NaN) for
    cdef long long n_cuts       # cuts made by the budget's clock
    cdef long long n_inserted   # cuts inserted above a node for a point outside its hull
    cdef bint grown_out         # the tree dropped its hulls and kept points (node cap or byte
                                # budget): it never cuts again, only its statistics learn
    cdef int32_t vertex_cap     # vertices a stored hull keeps now, once the byte budget has
                                # lowered it (`_bsp_budget.make_room`); 0: max_hull_vertices
    cdef int32_t point_cap      # points a leaf keeps now, likewise; 0: max_leaf_points

    # --- scratch (not saved) ---
    cdef double* scratch
    cdef size_t scratch_cells
    cdef int32_t* pair_a        # the pairs as slot indices (a copy of the `pairs` block)
    cdef int32_t* pair_b

    cdef int ensure_work(self) except -1 nogil
    cdef bint can_add(self, int32_t k) noexcept nogil
    cdef int drop_growth(self) except -1 nogil
    cdef int32_t split_columns(self, int32_t node, int32_t* cols, double* shares) noexcept nogil
    cdef int insert(self, const double* x, const double* xs, double y, double w) except -1 nogil


# --- the caps in force: the parameters, until the byte budget lowers them ---

cdef inline int32_t hull_vertices(BSPTree t) noexcept nogil:
    """Vertices a stored hull keeps now (a larger hull is replaced by a superset)."""
    return t.vertex_cap if t.vertex_cap > 0 else t.max_hull_vertices


cdef inline int32_t leaf_points(BSPTree t) noexcept nogil:
    """Points a leaf keeps now (a uniform sample past it)."""
    return t.point_cap if t.point_cap > 0 else t.max_leaf_points


# --- the scratch's layout: regions of `scratch`, valid after `ensure_work` ---

cdef inline size_t block_cells(BSPTree t) noexcept nogil:
    """Cells of the largest hull block."""
    return <size_t>t.n_pairs * (1 + 2 * <size_t>t.max_hull_vertices) + 1


cdef inline size_t hull_cells(BSPTree t) noexcept nogil:
    """Cells of the 2-D hull scratch (a leaf's kept points, or a hull and a point)."""
    cdef size_t n = t.max_leaf_points if t.max_leaf_points > t.max_hull_vertices + 1 \
        else t.max_hull_vertices + 1
    return 8 * (n + 4)


cdef inline size_t points_cells(BSPTree t) noexcept nogil:
    """Cells of a leaf's points in scratch: rows of slot values, then (y, w) and a side per
    point."""
    return <size_t>t.max_leaf_points * (t.feature_capacity + 3) + t.feature_capacity


cdef inline double* region(BSPTree t, int k) noexcept nogil:
    """Scratch regions: 0 the block being extended (insert), 1 a child's block (a cut),
    2 per-pair numbers, 3 a leaf's points, 4 2-D hull work."""
    cdef size_t b = block_cells(t)
    cdef size_t at = 0
    if k > 0:
        at += b
    if k > 1:
        at += b
    if k > 2:
        at += <size_t>t.n_pairs + 1
    if k > 3:
        at += points_cells(t)
    return t.scratch + at
