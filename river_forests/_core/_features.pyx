"""Feature registry: turns a river dict into a float64 row, walking the dict in C.

A feature seen for the first time gets the next column; several new features arriving in the
same call are registered in a canonical order (sorted by ``repr``), so the columns a model uses
never depend on the order of a dict's keys. Missing features, ``None``, NaN and +/-inf are all
stored as NaN, which the trees treat as "missing" (never used to grow a box or pick a side by
threshold); so is a finite value beyond +/-``MAX_ABS_VALUE`` (1e38), which the trees' float32
boxes could not hold. A value that is not a real number raises a ``TypeError`` naming the feature before
anything is registered, so the model is left unchanged.
"""

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.math cimport NAN, fabs

import numpy as np

cdef double MAX_ABS = 1e38
#: values beyond +/- this are missing: a float32 box side (relative to the feature's first
#: value, see _box.pxd) holds differences up to 3.4e38
MAX_ABS_VALUE = MAX_ABS


cdef inline double _as_double(object key, object value) except? -1.0:
    if value is None:
        return NAN
    try:
        return <double>value
    except (TypeError, ValueError):
        raise TypeError(
            f"feature {key!r} has a value of type {type(value).__name__} ({value!r}); "
            "river_forests trees need real numbers: encode it first, e.g. with "
            "river.preprocessing.OneHotEncoder or river.compose.SelectType"
        ) from None


def _canonical(names):
    return sorted(names, key=repr)


cdef class FeatureRegistry:

    def __cinit__(self):
        self.index = {}
        self.names = []
        self.buf = NULL
        self.capacity = 0
        self._reserve(16)

    def __dealloc__(self):
        PyMem_Free(self.buf)

    cdef int _reserve(self, Py_ssize_t n) except -1:
        cdef Py_ssize_t cap = self.capacity
        cdef double* mem
        if n <= cap:
            return 0
        while cap < n:
            cap = max(16, 2 * cap)
        mem = <double*>PyMem_Realloc(self.buf, cap * sizeof(double))
        if mem == NULL:
            raise MemoryError()
        self.buf = mem
        self.capacity = cap
        return 0

    def __len__(self):
        return len(self.names)

    cdef Py_ssize_t fill(self, dict x, bint register) except -1:
        """Write `x` into `buf`; return the number of columns. New features are registered
        only when `register` is true (learning); prediction ignores them."""
        cdef Py_ssize_t n = len(self.names)
        cdef Py_ssize_t i
        cdef double v
        cdef object key, value, col
        cdef list new_keys = None
        cdef list new_vals = None
        for i in range(n):
            self.buf[i] = NAN
        for key, value in x.items():
            v = _as_double(key, value)
            if not fabs(v) <= MAX_ABS:  # NaN, +/-inf, or too large for a box
                v = NAN
            col = self.index.get(key)
            if col is not None:
                self.buf[<Py_ssize_t>col] = v
            elif register:
                if new_keys is None:
                    new_keys = []
                    new_vals = []
                new_keys.append(key)
                new_vals.append(v)
        if new_keys is None:
            return n
        # Every value converted: only now is the model changed.
        values = dict(zip(new_keys, new_vals))
        self._reserve(n + len(new_keys))
        for key in _canonical(new_keys):
            self.index[key] = n
            self.names.append(key)
            self.buf[n] = values[key]
            n += 1
        return n

    def columns(self, names, bint register):
        """Columns of `names` (a DataFrame's columns) as an int array, -1 for unknown ones.
        With `register`, unknown names are registered first, in canonical order."""
        if register:
            new = [k for k in names if k not in self.index]
            for key in _canonical(new):
                self.index[key] = len(self.names)
                self.names.append(key)
            self._reserve(len(self.names))
        return np.array([self.index.get(k, -1) for k in names], dtype=np.intp)

    def __reduce__(self):
        return (_rebuild_registry, (list(self.names),))


def _rebuild_registry(names):
    cdef FeatureRegistry reg = FeatureRegistry()
    for name in names:
        reg.index[name] = len(reg.names)
        reg.names.append(name)
    reg._reserve(len(reg.names))
    return reg
