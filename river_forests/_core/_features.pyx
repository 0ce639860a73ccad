"""Feature registry: turns a river dict into a float64 row, walking the dict in C.

A feature seen for the first time gets the next column; several new features arriving in the
same call are registered in a canonical order (sorted by ``repr``), so the columns a model uses
never depend on the order of a dict's keys.

The registry holds at most ``max_width`` names, so the names a forest keeps are bounded
whatever the number of distinct features the stream shows (bag of words, one-hot ids). Once it
is full, features it has not seen are ignored, as features unknown at prediction time are, and
a warning says so once; ``river.preprocessing.FeatureHasher`` in front of the forest folds an
unbounded vocabulary into a bounded width instead. (What bounds a tree's per-node rows and
per-sample work is its feature subspace, ``Tree.max_features``; see _tree.pxd. A row costs
its keys here, not the registry's width: `fill` resets only the columns the last dict set.)

A string value is a category: it is stored as its code, a number in [0, 1) fixed by the
string alone (`string_code`: a 64-bit hash of its UTF-8 bytes), so the trees split on
categories as on an ordinal feature in an arbitrary but fixed order, as river's
``OrdinalEncoder`` in front of the forest would, but with no table of values: the memory is
unchanged whatever the number of categories, and two forests (a pickle, a merge, a Dask
partition) give a category the same code whatever the order they saw it in. On the
benchmark's categorical streams this beat a ``OneHotEncoder`` pipeline (docs/index.md,
"Categorical features"; benchmarks/results/experiments/categorical.md).

Missing features, ``None``, NaN and +/-inf are all stored as NaN, which the trees treat as
"missing" (never used to grow a box or pick a side by threshold); so is a finite value beyond +/-``MAX_ABS_VALUE`` (1e38), which the trees' float32
boxes could not hold, including an int too large for a float (``10**400``). A value that is
not a real number raises a ``TypeError`` naming the feature before anything is registered, so
the model is left unchanged.
"""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.math cimport NAN, fabs

import warnings

import numpy as np

#: values beyond +/- this are missing (see MAX_ABS in _features.pxd)
MAX_ABS_VALUE = MAX_ABS


cdef inline double _code(str s):
    """`string_code` in C: FNV-1a over the UTF-8 bytes, mixed by MurmurHash3's finaliser (FNV
    alone leaves strings that differ in their last byte a few 1e-8 apart, which a cut drawn
    uniformly over the feature's range would almost never separate), the top 53 bits as a
    fraction."""
    cdef bytes b = s.encode("utf-8", "surrogatepass")
    cdef const unsigned char* p = b
    cdef Py_ssize_t i, n = len(b)
    cdef unsigned long long h = 14695981039346656037ULL
    for i in range(n):
        h = (h ^ p[i]) * 1099511628211ULL
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return <double>(h >> 11) * (1.0 / 9007199254740992.0)


def string_code(str s):
    """The number in [0, 1) a forest stores for the string feature value `s`: the same in
    every process and on every machine (not Python's salted ``hash``)."""
    return _code(s)


def string_codes(values):
    """`string_code` of each string of `values` (a sequence), as a float64 array."""
    out = np.empty(len(values))
    cdef double[::1] o = out
    cdef Py_ssize_t i = 0
    for v in values:
        o[i] = _code(v)
        i += 1
    return out


cdef inline double _as_double(object key, object value) except? -1.0:
    if value is None:
        return NAN
    if isinstance(value, str):
        return _code(value)
    try:
        return <double>value
    except OverflowError:  # an int beyond a double's range: beyond MAX_ABS too, so missing
        return NAN
    except (TypeError, ValueError):
        raise TypeError(
            f"feature {key!r} has a value of type {type(value).__name__} ({value!r}); "
            "river_forests trees take real numbers and strings (categories): convert it "
            "first, e.g. with str, or drop it with river.compose.SelectType"
        ) from None


def as_double(key, value):
    """A feature's value as the trees read it (None: NaN; a string: its category code)."""
    return _as_double(key, value)


def _canonical(names):
    return sorted(names, key=repr)


cdef class FeatureRegistry:

    def __cinit__(self, Py_ssize_t max_width=2**31 - 1):
        self.index = {}
        self.names = []
        self.max_width = max_width
        self.full_warned = False
        self.buf = NULL
        self.capacity = 0
        self.written = NULL
        self.n_written = 0
        self.written_capacity = 0
        self._reserve(16)

    def __dealloc__(self):
        PyMem_Free(self.buf)
        PyMem_Free(self.written)

    cdef int _reserve(self, Py_ssize_t n) except -1:
        """Room for `n` columns in `buf` (new ones NaN) and for `n` entries in `written`."""
        cdef Py_ssize_t cap = self.capacity, i
        cdef double* mem
        cdef Py_ssize_t* cols
        if n > self.written_capacity:
            cols = <Py_ssize_t*>PyMem_Realloc(self.written, 2 * n * sizeof(Py_ssize_t))
            if cols == NULL:
                raise MemoryError()
            self.written = cols
            self.written_capacity = 2 * n
        if n <= cap:
            return 0
        while cap < n:
            cap = max(16, 2 * cap)
        mem = <double*>PyMem_Realloc(self.buf, cap * sizeof(double))
        if mem == NULL:
            raise MemoryError()
        for i in range(self.capacity, cap):
            mem[i] = NAN
        self.buf = mem
        self.capacity = cap
        return 0

    def __len__(self):
        return len(self.names)

    cdef int _register(self, list keys) except -1:
        """Register `keys` (new names) in canonical order while there is room; warn once when
        some do not fit."""
        cdef Py_ssize_t room = self.max_width - len(self.names)
        ordered = _canonical(keys)
        for key in ordered[:room]:
            self.index[key] = len(self.names)
            self.names.append(key)
        self._reserve(len(self.names))
        if len(ordered) > room and not self.full_warned:
            self.full_warned = True
            warnings.warn(
                f"this forest keeps at most max_width={self.max_width} features, and the stream "
                f"has shown more: new features such as {ordered[max(room, 0)]!r} are ignored from "
                "now on. For wide streams (bag of words, one-hot ids) put "
                "river.preprocessing.FeatureHasher in front of the forest, or raise max_width "
                "(only the registry of names grows with it, not the trees)",
                RuntimeWarning,
                stacklevel=3,
            )
        return 0

    cdef Py_ssize_t fill(self, dict x, bint register) except -1:
        """Write `x` into `buf`; return the number of columns. New features are registered
        only when `register` is true (learning) and the registry has room; prediction ignores
        them."""
        cdef Py_ssize_t n = len(self.names)
        cdef Py_ssize_t i
        cdef double v
        cdef object key, value, col
        cdef list new_keys = None
        cdef dict new_vals = None
        register = register and n < self.max_width
        for i in range(self.n_written):
            self.buf[self.written[i]] = NAN
        self.n_written = 0
        self._reserve(len(x))
        for key, value in x.items():
            v = _as_double(key, value)
            if not fabs(v) <= MAX_ABS:  # NaN, +/-inf, or too large for a box
                v = NAN
            col = self.index.get(key)
            if col is not None:
                self.buf[<Py_ssize_t>col] = v
                self.written[self.n_written] = <Py_ssize_t>col
                self.n_written += 1
            elif register:
                if new_keys is None:
                    new_keys = []
                    new_vals = {}
                new_keys.append(key)
                new_vals[key] = v
        if new_keys is None:
            return n
        # Every value converted: only now is the model changed.
        self._register(new_keys)
        for i in range(n, len(self.names)):
            self.buf[i] = new_vals[self.names[i]]
            self.written[self.n_written] = i
            self.n_written += 1
        return len(self.names)

    def columns(self, names, bint register):
        """Columns of `names` (a DataFrame's columns) as an int array, -1 for unknown ones.
        With `register`, unknown names are registered first, in canonical order, while the
        registry has room."""
        if register:
            new = [k for k in names if k not in self.index]
            if new and len(self.names) < self.max_width:
                self._register(new)
        return np.array([self.index.get(k, -1) for k in names], dtype=np.intp)

    def place(self, values, names, bint register):
        """`values` (a 2-D float64 array whose columns are `names`) as a new C-contiguous array
        in the registry's column order: NaN for the registry's other columns, for missing
        values and for values beyond +/-MAX_ABS_VALUE. With `register`, new names are
        registered first (see `columns`); columns the registry does not hold are dropped."""
        cols = self.columns(names, register)
        width = len(self.names)
        if len(cols) == width and (cols == np.arange(width)).all():
            out = np.array(values, dtype=np.float64, order="C")
            with np.errstate(invalid="ignore"):
                out[~(np.abs(out) <= MAX_ABS_VALUE)] = np.nan  # NaN, +/-inf or too large: missing
            return out
        # the frame's own columns are cleaned, then placed: a registry far wider than the
        # frame (a bag of words) costs one pass over the new array, not four
        known = cols >= 0
        values = np.array(values[:, known], dtype=np.float64)
        with np.errstate(invalid="ignore"):
            values[~(np.abs(values) <= MAX_ABS_VALUE)] = np.nan
        out = np.full((len(values), width), np.nan)
        out[:, cols[known]] = values
        return out

    def __reduce__(self):
        return (_rebuild_registry, (list(self.names), self.max_width, self.full_warned))


def _rebuild_registry(names, max_width=2**31 - 1, full_warned=False):
    """What a pickled registry unpickles through (`__reduce__`; the name its pickles hold)."""
    return registry_of(names, max_width, full_warned)


def registry_of(names, max_width=2**31 - 1, full_warned=False):
    """A registry holding `names` as its columns, in order (a saved or merged forest's)."""
    cdef FeatureRegistry reg = FeatureRegistry(max_width)
    for name in names:
        reg.index[name] = len(reg.names)
        reg.names.append(name)
    reg.full_warned = full_warned
    reg._reserve(len(reg.names))
    return reg
