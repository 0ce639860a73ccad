"""The extremely simple streaming tree of Xu et al. (XTree, algorithm 1, with the bootstrap
of algorithm 2).

One batch of labelled rows at a time (`learn_rows`):

* **Resample.** Each row is first offered to the shared online subsampling (`draw_weight`,
  weight 1 by default); with `bootstrap`, the batch is then resampled with replacement, n
  draws for n rows, and a row's weight is multiplied by the times it was drawn.
* **False roots.** Each kept row walks from the root to its leaf and counts (its weight, its
  class or target) in every node of its path: the statistics rule of the protocol
  (`_tree.pxd`), so a leaf's statistics accumulate every sample that ever reached it. The
  leaves reached are the false roots, each with the batch rows that reached it.
* **Growing.** The false roots are grown breadth first (a FIFO queue, false roots in node
  order, then their children): a node with at least `min_samples_split` distinct rows whose
  targets are not all equal (rows of more than one class), above `max_depth` and with room
  for two nodes under `max_nodes` splits at the best split of its rows among `n_try()`
  random non-constant features (`_splitter.best_split`: the largest impurity decrease, gini
  or entropy, for a classifier; the largest decrease of the squared error, CART's
  regression criterion, for a regressor); its rows go to the two new leaves (a missing
  value to the heavier side), which count them and join the queue. Old splits never
  change.
* **The cap.** A tree at `max_nodes` stops splitting; its leaves keep counting. Breadth
  first spends the last nodes evenly over the false roots instead of deep in the first one.

A tree learning one sample (`learn`) counts it along its path: a batch of one row cannot
split (min_samples_split >= 2).

A regressor's linear leaves (`leaf_model="linear"`, `_leaf_linear`) learn where the means
count: each kept row, in batch order, stretches the input's range and steps the model of the
leaf it reaches (the leaf's, not its ancestors': an interior node's model is never read again,
only a leaf splits); a split's two leaves start from their parent's model, and each of their
rows steps its leaf's model as it counts there. A refit (XForest-Zero) fits every node's again.
"""

from libc.math cimport NAN, log2, sqrt
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc, qsort, realloc
from libc.string cimport memcpy

from ._impurity cimport CRITERION_ENTROPY, CRITERION_GINI, CRITERION_MSE
from ._leaf_linear cimport (LinearTree, declare_input, declare_input_range, declare_input_z,
                            declare_models, input_clear_slot, input_load, model_copy, model_gain,
                            model_learn, models_clear_input, models_observe, models_on)
from ._pool cimport (pool_alloc, pool_block, pool_fill_columns, pool_free, pool_grow_cells, pool_has,
                     pool_release)
from ._random cimport rng_randint
from ._splitter cimport SplitRecord, Splitter, best_split, splitter_init, splitter_release
from ._tree cimport (NO_BYTE_CAP, SCALAR_BOOL, SCALAR_I32, SCALAR_I64, SCALAR_INT, SCALAR_F64,
                     CREDIT_EVERY, TASK_CLASSIFICATION, TASK_REGRESSION, Tree, add_stats,
                     credit_due, row_of)
from ._tree_credit cimport age_gain, credit
from ._tree_table cimport declare_array, declare_pool, declare_scalar, nbytes, row_bytes
from ._tree import register_kind


ctypedef struct Segment:
    int32_t node            # a leaf to grow
    int32_t start           # its rows: rows[start:stop] of the batch's row list
    int32_t stop
    int32_t depth           # its depth (root: 0)


ctypedef struct LeafRow:
    int32_t leaf            # the leaf a batch row reached
    int32_t row             # the row


cdef int _by_leaf(const void* a, const void* b) noexcept nogil:
    cdef const LeafRow* p = <const LeafRow*>a
    cdef const LeafRow* q = <const LeafRow*>b
    if p.leaf != q.leaf:
        return -1 if p.leaf < q.leaf else 1
    return (p.row > q.row) - (p.row < q.row)


cdef void* _alloc(size_t n_bytes) except NULL nogil:
    cdef void* p = malloc(n_bytes if n_bytes > 0 else 1)
    if p == NULL:
        with gil:
            raise MemoryError()
    return p


cdef class XTree(LinearTree):
    """An XTree. Parameters by name: the base's (see `_tree.Tree`), `min_samples_split`,
    `max_depth`, `split_features_mode`, `split_features`, `criterion` (by default the gini
    for `task=TASK_CLASSIFICATION`, the squared error for `task=TASK_REGRESSION`),
    `bootstrap` and, for a regressor, `linear` and `linear_rate`."""

    def __cinit__(self, *args, **kwargs):
        self.min_samples_split = 2
        self.max_depth = 0
        self.split_features_mode = TRY_SQRT
        self.split_features = 0.0
        self.criterion = CRITERION_MSE if kwargs.get("task") == TASK_REGRESSION else CRITERION_GINI
        self.bootstrap = True
        self.kept_rows = 0
        self.n_kept_slots = 0
        declare_pool(self, &self.points, b"points", &self.feature_capacity, &self.n_features)
        declare_pool(self, &self.targets, b"targets", NULL, NULL)
        declare_scalar(self, &self.min_samples_split, b"min_samples_split", SCALAR_I32, True, 1)
        declare_scalar(self, &self.max_depth, b"max_depth", SCALAR_I32, True, 0)
        declare_scalar(self, &self.split_features_mode, b"split_features_mode", SCALAR_INT, True,
                       TRY_COUNT, TRY_ALL)
        declare_scalar(self, &self.split_features, b"split_features", SCALAR_F64, True)
        declare_scalar(self, &self.criterion, b"criterion", SCALAR_INT, True, CRITERION_ENTROPY,
                       CRITERION_MSE)
        declare_scalar(self, &self.bootstrap, b"bootstrap", SCALAR_BOOL, True)
        declare_scalar(self, &self.kept_rows, b"keep_per_leaf", SCALAR_I32, True, 0)
        declare_scalar(self, &self.n_kept_slots, b"n_kept_slots", SCALAR_I32, False, 0)
        declare_scalar(self, &self.n_batches, b"n_batches", SCALAR_I64, False, 0)
        declare_scalar(self, &self.n_splits, b"n_splits", SCALAR_I32, False, 0)
        # the input's arrays: `input_cols` cells a slot (a declared count, which a saved
        # state gives: 1 with linear leaves, else 0)
        declare_input(self, &self.inp, &self.n_input_cols, NULL)
        declare_input_range(self, &self.low, &self.high, &self.n_input_cols, &self.n_input_cols)
        declare_models(self, &self.models, &self.coef_cols, &self.linear, &self.linear_rate)
        declare_input_z(self, &self.inp, &self.n_input_cols)

    cdef int _start(self) except -1:
        if self.task == TASK_CLASSIFICATION:
            if self.criterion != CRITERION_GINI and self.criterion != CRITERION_ENTROPY:
                raise ValueError("an XTree classifier splits by the gini or the entropy")
        elif self.task == TASK_REGRESSION:
            if self.criterion != CRITERION_MSE:
                raise ValueError("an XTree regressor splits by the squared error (CRITERION_MSE)")
        else:
            raise ValueError(f"unknown task {self.task}")
        if self.min_samples_split < 2:
            raise ValueError("min_samples_split must be >= 2")
        if self.kept_rows < 0:
            raise ValueError("keep_per_leaf (kept_rows) must be >= 0")
        return 0

    cdef int32_t n_try(self) noexcept nogil:
        """Features a split tries, from the tree's d features (at least 1, at most d)."""
        cdef int32_t d = self.n_features, k
        if self.split_features_mode == TRY_SQRT:
            k = <int32_t>sqrt(<double>d)
        elif self.split_features_mode == TRY_LOG2:
            k = <int32_t>log2(<double>d) if d > 0 else 0
        elif self.split_features_mode == TRY_FRACTION:
            k = <int32_t>(self.split_features * d)
        elif self.split_features_mode == TRY_COUNT:
            k = <int32_t>self.split_features
        else:
            k = d
        if k < 1:
            k = 1
        return k if k < d else d

    cdef int learn(self, const double* x, int32_t n_features, double y, double w) except -1 nogil:
        """One sample: counted along its path (one row cannot split a node), and it steps
        its leaf's linear model."""
        cdef double g = models_observe(&self.models, &self.inp, self.low, self.high, self, x, w,
                                       self.linear_rate)
        cdef int32_t depth = self.route(x), k
        model_learn(&self.models, self, self.path[depth - 1], self.inp.z, y, w, g)
        for k in range(depth - 1):
            add_stats(self, self.path[k], y, w)
        return 0

    cdef int32_t* input_cols(self) noexcept nogil:
        return &self.n_input_cols

    def learn_rows(self, const double[:, ::1] X, const double[::1] y):
        """Learn the batch (X, y) (algorithm 1 on the tree's resample of it)."""
        with nogil:
            self.grow(X, y)

    cdef int grow(self, const double[:, ::1] X, const double[::1] y) except -1 nogil:
        cdef int32_t n = <int32_t>X.shape[0], d = <int32_t>X.shape[1]
        cdef long long offered
        cdef int32_t i, k, kept = 0, depth, top = 0, n_classes, total, n_old = 0, s, m, j
        cdef int32_t head = 0, tail = 0, queue_cap, start, stop, nl, node, l, a, b
        cdef int32_t n_keep = 0
        cdef Py_ssize_t row_stride = X.strides[0] // sizeof(double)
        cdef double* w = NULL
        cdef LeafRow* reached = NULL
        cdef int32_t* rows = NULL
        cdef int32_t* spare = NULL
        cdef Segment* queue = NULL
        cdef Segment* keep = NULL
        cdef double* xs = NULL      # the rows grown from: the kept rows, then the batch's
        cdef double* ys = NULL
        cdef double* ws = NULL
        cdef int32_t* slot_of = NULL  # slot s -> s: the splitter's columns of `xs`
        cdef const double* Xp
        cdef const double* yp
        cdef const double* block
        cdef double* dst
        cdef Splitter splitter
        cdef SplitRecord best
        cdef double wl, wr, v, cls, g
        cdef bint missing_left, mixed, full = False
        cdef bint fit
        cdef size_t fc, cells
        if n == 0:
            return 0
        splitter.items = NULL
        splitter.left = NULL
        splitter.right = NULL
        splitter.order = NULL
        try:
            # resample: the shared subsampling's weight, times the bootstrap count
            w = <double*>_alloc(<size_t>n * sizeof(double))
            offered = self.n_offered
            for i in range(n):
                w[i] = self.draw_weight()
                if self.gain_growth > 0.0:
                    age_gain(self)
            if self.bootstrap:
                rows = <int32_t*>_alloc(<size_t>n * sizeof(int32_t))
                for i in range(n):
                    rows[i] = 0
                for i in range(n):
                    rows[rng_randint(&self.rng, n)] += 1
                for i in range(n):
                    w[i] *= rows[i]
                free(rows)
                rows = NULL
            self.n_batches += 1
            self.ensure_features(d)
            for i in range(n):
                if w[i] > 0.0:
                    kept += 1
                    if self.task == TASK_CLASSIFICATION and <int32_t>y[i] + 1 > top:
                        top = <int32_t>y[i] + 1
            if kept == 0:
                return 0
            self.ensure_values(top)
            self.n_seen += kept
            if self.root < 0:
                self.root = self.add_node(-1)
            fit = models_on(&self.models, self)
            g = 0.0

            # false roots: every kept row counts along its path and joins its leaf's rows
            reached = <LeafRow*>_alloc(<size_t>kept * sizeof(LeafRow))
            k = 0
            for i in range(n):
                if w[i] > 0.0:
                    depth = self.descend(row_of(X, i))
                    # the splits of earlier batches, credited as `Tree.learn_sample` does
                    if self.gain_growth > 0.0 and depth > 1 and credit_due(offered + i + 1):
                        credit(self, depth, y[i], w[i] * CREDIT_EVERY)
                    if fit:  # linear leaves: the row's input (its range first) and step
                        g = models_observe(&self.models, &self.inp, self.low, self.high, self,
                                           row_of(X, i), w[i], self.linear_rate)
                    model_learn(&self.models, self, self.path[depth - 1], self.inp.z, y[i], w[i], g)
                    for a in range(depth - 1):
                        add_stats(self, self.path[a], y[i], w[i])
                    reached[k].leaf = self.path[depth - 1]
                    reached[k].row = i
                    k += 1
            qsort(reached, kept, sizeof(LeafRow), _by_leaf)
            if self.kept_rows > 0:
                # the rows the false roots kept (`kept_rows`) join the batch's, first
                self.sync_kept()
                for k in range(kept):
                    j = reached[k].leaf
                    if (k == 0 or j != reached[k - 1].leaf) and pool_has(&self.points, j):
                        n_old += self.points.rows[j]
            # The rows grown from, in the tree's slots (row stride `fc`, slot s the registry
            # column columns[s], NaN past n_features): the kept rows as they were kept, then
            # every row of the batch (rows of bootstrap weight 0 as well: they keep their
            # index), so n_old + n rows, not the n_old + kept that are grown from. A batch as
            # wide as the registry (a bag of words: tens of thousands of columns) costs each
            # tree its slots' cells only, and the splitter reads rows of `fc` cells.
            fc = self.feature_capacity
            total = n_old + kept
            xs = <double*>_alloc(<size_t>(n_old + n) * fc * sizeof(double) + sizeof(double))
            ys = <double*>_alloc(<size_t>(n_old + n) * sizeof(double))
            ws = <double*>_alloc(<size_t>(n_old + n) * sizeof(double))
            slot_of = <int32_t*>_alloc((<size_t>fc + 1) * sizeof(int32_t))
            for s in range(<int32_t>fc):
                slot_of[s] = s
            reached = <LeafRow*>_grow(reached, <size_t>total * sizeof(LeafRow))
            i = 0  # the old rows loaded so far
            for k in range(kept):
                j = reached[k].leaf
                reached[k].row += n_old
                if n_old == 0 or (k > 0 and j == reached[k - 1].leaf) \
                        or not pool_has(&self.points, j):
                    continue
                for m in range(self.points.rows[j]):
                    block = pool_block(&self.points, j) + <size_t>m * fc
                    dst = xs + <size_t>i * fc
                    for s in range(<int32_t>fc):
                        dst[s] = block[s] if s < self.n_features and self.columns[s] < d \
                            else NAN
                    ys[i] = pool_block(&self.targets, j)[2 * m]
                    ws[i] = pool_block(&self.targets, j)[2 * m + 1]
                    reached[kept + i].leaf = j
                    reached[kept + i].row = i
                    i += 1
                pool_free(&self.points, j)
                pool_free(&self.targets, j)
            for i in range(n):
                block = row_of(X, i)
                dst = xs + <size_t>(n_old + i) * fc
                for s in range(<int32_t>fc):
                    dst[s] = block[self.columns[s]] \
                        if s < self.n_features and self.columns[s] < d else NAN
                ys[n_old + i] = y[i]
                ws[n_old + i] = w[i]
            if n_old > 0:
                qsort(reached, total, sizeof(LeafRow), _by_leaf)
            Xp = xs
            yp = ys
            row_stride = fc
            free(w)
            w = ws
            ws = NULL
            rows = <int32_t*>_alloc(<size_t>total * sizeof(int32_t))
            spare = <int32_t*>_alloc(<size_t>total * sizeof(int32_t))
            queue_cap = 16
            queue = <Segment*>_alloc(<size_t>queue_cap * sizeof(Segment))
            for k in range(total):
                rows[k] = reached[k].row
                if k == 0 or reached[k].leaf != reached[k - 1].leaf:
                    if tail == queue_cap:
                        queue_cap *= 2
                        queue = <Segment*>_grow(queue, <size_t>queue_cap * sizeof(Segment))
                    queue[tail].node = reached[k].leaf
                    queue[tail].start = k
                    queue[tail].depth = _depth(self, reached[k].leaf)
                    tail += 1
                queue[tail - 1].stop = k + 1
            free(reached)
            reached = NULL
            if self.kept_rows > 0:  # the leaves that keep rows: at most one per segment
                keep = <Segment*>_alloc(<size_t>(total + 1) * sizeof(Segment))

            n_classes = self.n_values  # regression: 2, a side's weight and sum of targets
            splitter_init(&splitter, total, n_classes, self.n_features)
            # grow the false roots, breadth first
            while head < tail:
                node = queue[head].node
                start = queue[head].start
                stop = queue[head].stop
                depth = queue[head].depth
                head += 1
                if self.max_depth > 0 and depth >= self.max_depth:
                    continue
                if stop - start < self.min_samples_split:
                    if keep != NULL:
                        keep[n_keep] = queue[head - 1]
                        n_keep += 1
                    continue
                if not self.can_add(2):
                    full = True
                    break
                # rows of one class only, or of one target value: nothing to separate
                mixed = False
                cls = yp[rows[start]]
                for k in range(start + 1, stop):
                    if yp[rows[k]] != cls:
                        mixed = True
                        break
                if mixed:
                    best_split(&splitter, Xp, row_stride, rows + start, stop - start, yp,
                               w, n_classes, slot_of, self.n_features, self.n_try(),
                               self.criterion, &self.rng, &best)
                if not mixed or best.column < 0:
                    if keep != NULL:
                        keep[n_keep] = queue[head - 1]
                        n_keep += 1
                    continue
                l = self.add_children(node, self.columns[best.column], best.threshold)
                self.n_splits += 1
                # the rows' sides; a missing value goes to the heavier side (as `_axis.child`)
                wl = 0.0
                wr = 0.0
                for k in range(start, stop):
                    v = Xp[rows[k] * row_stride + best.column]
                    if v == v:
                        if v <= best.threshold:
                            wl += w[rows[k]]
                        else:
                            wr += w[rows[k]]
                missing_left = wl >= wr
                # stable partition: left rows first, in their order
                a = 0
                b = 0
                for k in range(start, stop):
                    v = Xp[rows[k] * row_stride + best.column]
                    if (v <= best.threshold) if v == v else missing_left:
                        rows[start + a] = rows[k]
                        a += 1
                    else:
                        spare[b] = rows[k]
                        b += 1
                memcpy(rows + start + a, spare, <size_t>b * sizeof(int32_t))
                nl = a
                if fit:  # the new leaves start from their parent's model
                    model_copy(&self.models, l, node)
                    model_copy(&self.models, l + 1, node)
                for k in range(start, stop):
                    if fit:
                        g = model_gain(self.linear_rate, w[rows[k]], input_load(
                            &self.inp, Xp + <size_t>rows[k] * row_stride, slot_of,
                            self.n_features))
                    model_learn(&self.models, self, l if k < start + nl else l + 1, self.inp.z,
                                yp[rows[k]], w[rows[k]], g)
                if tail + 2 > queue_cap:
                    queue_cap *= 2
                    queue = <Segment*>_grow(queue, <size_t>queue_cap * sizeof(Segment))
                queue[tail].node = l
                queue[tail].start = start
                queue[tail].stop = start + nl
                queue[tail].depth = depth + 1
                queue[tail + 1].node = l + 1
                queue[tail + 1].start = start + nl
                queue[tail + 1].stop = stop
                queue[tail + 1].depth = depth + 1
                tail += 2

            # each leaf that did not split keeps its last `kept_rows` rows (not a full tree's,
            # whether this batch tried a split or not: it grows no more), while they fit in the
            # byte budget
            if not full and not self.can_add(2):
                full = True
            if full and self.kept_rows > 0:
                self.drop_kept()
            if keep != NULL and not full:
                fc = self.feature_capacity
                for i in range(n_keep):
                    m = keep[i].stop - keep[i].start
                    if m > self.kept_rows:
                        m = self.kept_rows
                    node = keep[i].node
                    cells = <size_t>m * fc
                    if self.max_bytes < NO_BYTE_CAP and <long long>(
                            nbytes(self) + row_bytes(self) * 2 + sizeof(double)
                            * (pool_grow_cells(&self.points, cells)
                               + pool_grow_cells(&self.targets, 2 * <size_t>m))) > self.max_bytes:
                        break
                    dst = pool_alloc(&self.points, node, m)
                    for k in range(m):
                        a = rows[keep[i].stop - m + k]
                        memcpy(dst + <size_t>k * fc, Xp + <size_t>a * row_stride,
                               fc * sizeof(double))
                    dst = pool_alloc(&self.targets, node, 2 * m)
                    for k in range(m):
                        a = rows[keep[i].stop - m + k]
                        dst[2 * k] = yp[a]
                        dst[2 * k + 1] = w[a]
        finally:
            splitter_release(&splitter)
            free(w)
            free(reached)
            free(rows)
            free(spare)
            free(queue)
            free(keep)
            free(xs)
            free(ys)
            free(ws)
            free(slot_of)
        return 0

    # ---------------------------------------------------------------- kept rows

    cdef int32_t n_kept(self) noexcept nogil:
        """Rows the leaves keep now."""
        cdef int32_t j, total = 0
        for j in range(self.points.n_ids):
            if pool_has(&self.points, j):
                total += self.points.rows[j]
        return total

    cdef int sync_kept(self) except -1 nogil:
        """Kept rows have a value for every slot in use: a slot new since they were kept is
        missing for them (NaN)."""
        if self.n_kept_slots >= self.n_features:
            return 0
        pool_fill_columns(&self.points, NULL, self.points.n_ids, self.n_kept_slots, self.n_features, NAN)
        self.n_kept_slots = self.n_features
        return 0

    cdef int drop_kept(self) except -1 nogil:
        """Forget every kept row."""
        pool_release(&self.points)
        pool_release(&self.targets)
        return 0

    cdef int _clear_slot(self, int32_t slot) except -1 nogil:
        """The slot's feature leaves the subspace: the kept rows no longer know it (NaN), no
        model has a slope for it, nor the input a range."""
        pool_fill_columns(&self.points, NULL, self.points.n_ids, slot, slot + 1, NAN)
        if self.models.stride > 0:
            models_clear_input(&self.models, self.n_nodes, slot)
            input_clear_slot(&self.inp, self.low, self.high, slot)
        return 0

    cdef int drop_growth(self) except -1 nogil:
        """Over the byte budget: the kept rows go (they serve only to grow)."""
        return self.drop_kept()

    def check_kind_state(self, dict state, Py_ssize_t n, Py_ssize_t width):
        """The split criterion of the tree's task (the scalars' own ranges come from their
        declarations)."""
        task = state.get("task", self.task)
        criterion = state.get("criterion", self.criterion)
        # (each scalar's own range comes from its declaration: what ties them is checked here)
        if (task == TASK_REGRESSION) != (criterion == CRITERION_MSE):
            raise ValueError("the split criterion is not one of the tree's task")
        LinearTree.check_kind_state(self, state, n, width)

    # ---------------------------------------------------------------- introspection

    @property
    def batches(self):
        return self.n_batches

    @property
    def splits(self):
        return self.n_splits

    @property
    def rows_kept(self):
        """Rows the leaves keep now to grow from (`kept_rows`)."""
        return self.n_kept()


cdef void* _grow(void* p, size_t n_bytes) except NULL nogil:
    """realloc that raises MemoryError (and leaves `p` to its owner) instead of returning NULL."""
    cdef void* q = realloc(p, n_bytes)
    if q == NULL:
        with gil:
            raise MemoryError()
    return q


cdef int32_t _depth(Tree tree, int32_t node) noexcept nogil:
    cdef int32_t depth = 0
    while tree.parent[node] >= 0:
        node = tree.parent[node]
        depth += 1
    return depth


register_kind(XTree)
