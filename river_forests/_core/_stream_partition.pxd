# The online random tree with stream partitioning of denil2013 (section 3, appendix A, the
# bounded fringe of section 3.6): the package's first tree whose splits look at labels.
# Each point goes to the structure stream (it chooses splits) or to the estimation stream
# (it fills the leaves' class histograms); a bounded fringe of active leaves collects the
# candidate splits' histograms in the shared per-leaf pool (`_pool.pxd`).
#
# The class holds the streams and the protocol; its concerns live in modules of functions
# taking the tree: `_sp_fringe` (the bounded fringe: which leaves collect candidates),
# `_sp_points` (the paper's candidate points, their histograms and algorithms 3-7) and
# `_sp_gaussian` (the Gaussian splitter and the naive Bayes leaves that read it). A regressor's
# linear leaves (`_leaf_linear`) learn from the estimation stream, as the leaves' means.

from libc.stdint cimport int32_t

from ._leaf_linear cimport LinearTree
from ._pool cimport Pool


cdef enum:
    SPLITTER_POINTS = 0     # candidate thresholds from a leaf's first structure points (paper)
    SPLITTER_GAUSSIAN = 1   # per-class Gaussian summaries and a Hoeffding bound (MOA's trees)

cdef enum:
    LEAF_MAJORITY = 0       # the leaf's class histogram (paper)
    LEAF_NAIVE_BAYES = 1    # naive Bayes on the fringe's Gaussian summaries
    LEAF_ADAPTIVE = 2       # naive Bayes where it has predicted the leaf's points better


cdef enum:
    # the candidates block of a fringe slot (`cands`): n_dims, n_points, then the columns
    HEAD = 2
    # histograms per candidate point (`hists`): structure left/right, estimation left/right
    PARTS = 4
    STRUCTURE = 0
    ESTIMATION = 2
    # cells of a Gaussian candidates block after its columns: structure weight seen, at the
    # last split check, and the weight the majority class and naive Bayes predicted right
    TAIL = 4
    SEEN = 0
    CHECKED = 1
    MAJORITY_RIGHT = 2
    BAYES_RIGHT = 3

cdef enum:
    # regression: cells of a histogram (sum w y, sum w y^2, w), and the weight's
    REG_CELLS = 3
    REG_WEIGHT = 2

cdef enum:
    # `max_active` of a fringe sized by the byte budget ("auto", `_sp_fringe`): no count cap
    FRINGE_AUTO = 2147483647


cdef class StreamPartitionTree(LinearTree):
    # --- per node (`capacity` rows) ---
    cdef int32_t* slot          # fringe slot of an active leaf (its block id in both pools), -1
    cdef double* born           # estimation weight the tree had seen when the node's statistics
                                # began: p(A) of a leaf is estimated over what came since

    # --- the fringe: per active leaf, one block in each pool, id = its fringe slot ---
    cdef Pool cands             # stride 1: [n_dims, n_points, columns[n_dims], then
                                #  points: thresholds[candidate_points][n_dims], born[candidate_points]
                                #  Gaussian: seen, last check, majority right, naive Bayes right]
    cdef Pool hists             # stride `value_stride`; points: 4 class histograms per candidate
                                # split (point j, dimension k): structure left, structure right,
                                # estimation left, estimation right; Gaussian: one per-class
                                # summary (`_gaussian.pxd`, G_ROWS rows) per dimension

    # --- parameters (denil2013's names in the comments) ---
    cdef double structure_fraction  # P(I_t = structure), the rest goes to estimation
    cdef double candidate_features  # lambda: a leaf tries min(1 + Poisson(lambda), D) dimensions
    cdef double min_gain            # tau: ShouldSplit needs a gain above it
    cdef double alpha               # alpha(d) = alpha * alpha_growth^d estimation points a side
    cdef double alpha_growth        # its growth per level of depth
    cdef double beta                # beta(d) = beta * alpha(d): MustSplit
    cdef int32_t max_active         # the fringe's cap: leaves collecting split statistics
    cdef int32_t candidate_points   # m: the first m structure points give the thresholds
                                    # (beside `max_active`: two ints fill 8 bytes, no padding)
    # --- the levers of the defaults (the paper's choice first) ---
    cdef int splitter               # SPLITTER_POINTS (the paper's) or SPLITTER_GAUSSIAN
    cdef bint honest                # each point to one stream (the paper's), or to both
    cdef double grace_period        # Gaussian splitter: structure weight between split checks
    cdef double split_confidence    # delta of the Hoeffding bound
    cdef double tie_threshold       # split when the bound falls below it
    cdef int leaf_prediction        # LEAF_MAJORITY (the paper's), LEAF_NAIVE_BAYES, LEAF_ADAPTIVE
    cdef int32_t n_input_cols       # linear leaves: cells a slot of the input's arrays (1, or 0;
                                    # saved as `input_cols`; in padding before a double)

    # --- counters ---
    cdef double n_estimation        # estimation weight seen by the tree
    cdef int32_t n_active           # leaves in the fringe
    cdef int32_t n_splits

    # --- linear leaves (a regressor's; `LinearTree`): the input's own range, no box here ---
    cdef double* low                # per slot: the lowest x - origin seen (`n_input_cols` cells:
                                    # none without linear leaves, as the input's other arrays)
    cdef double* high               # per slot: the highest x - origin seen
