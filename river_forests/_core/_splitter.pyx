"""The best-split search over a node's rows (see `_splitter.pxd`).

scikit-learn's best splitter, on our own buffers: features are drawn without replacement
from the tree's slots until `n_try` of them have shown two distinct values at the node (a
constant feature does not count, so a node whose drawn features are all constant goes on
drawing, as scikit-learn does); each is sorted and scanned once, moving one row at a time
from the right side to the left and scoring every boundary between two distinct values.
The threshold is the midpoint of the two values. Ties keep the first best found, so the
result is a function of the rows, the tree's generator and nothing else.

Classification (gini, entropy) scores the sides' class histograms. Regression
(`CRITERION_MSE`, CART's squared error) scores each side's weight and weighted sum of
targets, the targets taken from their weighted mean at the node (an origin the variance
decrease does not depend on, chosen so that no term is of the order of n mean^2); the
left side accumulates row by row and the right side is the feature's total less the left,
so no rounding builds up over a long scan. The best split is the one that removes the most
weighted squared error (`_impurity.mse_gain`).

Rows whose value is missing (NaN) in the feature tried are left out of its scan; the tree
sends them to the heavier side when it splits (the protocol's rule for missing values).
"""

from libc.math cimport INFINITY
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc, qsort

from ._impurity cimport CRITERION_MSE, split_gain
from ._random cimport RNG, rng_randint

#: values closer than this are not separated, and a feature whose values at a node all lie
#: within it is constant there (scikit-learn's FEATURE_THRESHOLD)
cdef double FEATURE_THRESHOLD = 1e-7


cdef int _by_value(const void* a, const void* b) noexcept nogil:
    """Order of SortItems: by value, then by row (a total order: the sort is deterministic)."""
    cdef const SortItem* p = <const SortItem*>a
    cdef const SortItem* q = <const SortItem*>b
    if p.value < q.value:
        return -1
    if p.value > q.value:
        return 1
    return (p.row > q.row) - (p.row < q.row)


cdef int splitter_init(Splitter* s, int32_t n_rows, int32_t n_classes, int32_t n_slots) except -1 nogil:
    """Buffers for nodes of at most `n_rows` rows, `n_classes` classes (at least 2 for
    CRITERION_MSE: a side's weight and sum of targets) and `n_slots` slots."""
    s.items = <SortItem*>malloc(<size_t>(n_rows if n_rows > 0 else 1) * sizeof(SortItem))
    s.left = <double*>malloc(<size_t>(n_classes if n_classes > 0 else 1) * sizeof(double))
    s.right = <double*>malloc(<size_t>(n_classes if n_classes > 0 else 1) * sizeof(double))
    s.order = <int32_t*>malloc(<size_t>(n_slots if n_slots > 0 else 1) * sizeof(int32_t))
    s.n_rows = n_rows
    s.n_classes = n_classes
    s.n_slots = n_slots
    if s.items == NULL or s.left == NULL or s.right == NULL or s.order == NULL:
        splitter_release(s)
        with gil:
            raise MemoryError()
    return 0


cdef void splitter_release(Splitter* s) noexcept nogil:
    free(s.items)
    free(s.left)
    free(s.right)
    free(s.order)
    s.items = NULL
    s.left = NULL
    s.right = NULL
    s.order = NULL


cdef int best_split(Splitter* s, const double* X, Py_ssize_t row_stride,
                    const int32_t* rows, int32_t n_rows, const double* y, const double* w,
                    int32_t n_classes, const int32_t* columns, int32_t n_slots, int32_t n_try,
                    int criterion, RNG* rng, SplitRecord* out) except -1 nogil:
    """The best split of the batch rows `rows[:n_rows]` (indices into X, whose row i starts at
    X + i * row_stride; targets `y`, class indices or real values for CRITERION_MSE, and
    weights `w`, indexed by row) among at most `n_try` non-constant features drawn from the
    tree's slots (`columns`: slot -> registry column). `out.column` is -1 when no drawn
    feature separates two rows."""
    cdef int32_t remaining = n_slots, k, j, m, p, column, row, c
    cdef double v, g, mid, shift = 0.0, total_w = 0.0, total_s = 0.0
    cdef bint mse = criterion == CRITERION_MSE
    cdef SortItem* items = s.items
    out.column = -1
    out.threshold = 0.0
    out.gain = -INFINITY
    out.n_tried = 0
    if mse:
        # the targets' origin: their weighted mean at the node
        for p in range(n_rows):
            row = rows[p]
            total_w += w[row]
            shift += w[row] * y[row]
        if total_w > 0.0:
            shift /= total_w
    for k in range(n_slots):
        s.order[k] = k
    while remaining > 0 and out.n_tried < n_try:
        # draw the next slot without replacement (Fisher-Yates from the end)
        j = <int32_t>rng_randint(rng, remaining)
        k = s.order[j]
        s.order[j] = s.order[remaining - 1]
        s.order[remaining - 1] = k
        remaining -= 1
        column = columns[k]
        m = 0
        for c in range(n_classes):
            s.left[c] = 0.0
            s.right[c] = 0.0
        for p in range(n_rows):
            row = rows[p]
            v = X[row * row_stride + column]
            if v == v:
                items[m].value = v
                items[m].row = row
                m += 1
                if mse:
                    s.right[0] += w[row]
                    s.right[1] += w[row] * (y[row] - shift)
                else:
                    s.right[<int32_t>y[row]] += w[row]
        if m < 2:
            continue
        qsort(items, m, sizeof(SortItem), _by_value)
        if items[m - 1].value <= items[0].value + FEATURE_THRESHOLD:
            continue  # constant at this node: does not count towards n_try
        out.n_tried += 1
        if mse:
            total_w = s.right[0]
            total_s = s.right[1]
        for p in range(m - 1):
            row = items[p].row
            if mse:
                s.left[0] += w[row]
                s.left[1] += w[row] * (y[row] - shift)
                s.right[0] = total_w - s.left[0]
                s.right[1] = total_s - s.left[1]
            else:
                c = <int32_t>y[row]
                s.left[c] += w[row]
                s.right[c] -= w[row]
            if items[p + 1].value <= items[p].value + FEATURE_THRESHOLD:
                continue
            g = split_gain(s.left, s.right, n_classes, criterion)
            if g > out.gain:
                mid = items[p].value / 2.0 + items[p + 1].value / 2.0
                if mid >= items[p + 1].value or mid != mid or mid == INFINITY or mid == -INFINITY:
                    mid = items[p].value
                out.gain = g
                out.column = column
                out.threshold = mid
    return 0
