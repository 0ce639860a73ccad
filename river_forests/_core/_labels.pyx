"""The label registry (see `_labels.pxd`): labels by index and the checks of every target."""

from libc.math cimport fabs

import numpy as np
import pandas as pd

from ._features cimport MAX_ABS

cdef object _NA = pd.NA
cdef object _NaT = pd.NaT
cdef tuple _FLOATS = (float, np.floating)


cdef inline bint _missing(object y):
    """None, pd.NA, pd.NaT or a float NaN: a missing label or target."""
    if y is None or y is _NA or y is _NaT:
        return True
    return isinstance(y, _FLOATS) and y != y


cdef class LabelRegistry:

    def __cinit__(self, bint classifier, list labels=None):
        self.classifier = classifier
        self.labels = list(labels) if labels is not None else []
        self.index = {label: i for i, label in enumerate(self.labels)}

    cdef double target(self, object y) except? -1.0:
        """A checked target: a class index (len(labels) for a label not registered yet; the
        caller registers it once nothing else can fail, `add`) or a regression value."""
        cdef double v
        if _missing(y):
            raise ValueError(
                f"the {'label' if self.classifier else 'target'} y is missing ({y!r}); "
                "drop the samples without one before learning"
            )
        if self.classifier:
            idx = self.index.get(y)  # TypeError for an unhashable label
            return <double><Py_ssize_t>(len(self.labels) if idx is None else idx)
        try:
            v = <double>y
        except OverflowError:
            v = MAX_ABS * 2.0
        except (TypeError, ValueError):
            raise TypeError(f"the target y must be a real number, got {type(y).__name__} ({y!r})") from None
        if not fabs(v) <= MAX_ABS:
            raise ValueError(
                f"the target y must be finite and within +/-1e38 (its square is summed in "
                f"float64), got {y!r}: rescale it, e.g. with river.preprocessing.TargetStandardScaler"
            )
        return v

    cdef object encode(self, list ys):
        """Targets of a batch as float64, every one checked (class indices, labels new to the
        forest numbered in order of first sight after the registered ones). Registers nothing."""
        cdef Py_ssize_t i, n = len(ys), known = len(self.labels)
        cdef dict new = {}
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] view = out
        for i in range(n):
            view[i] = self.target(ys[i])
            if self.classifier and view[i] >= known:
                idx = new.get(ys[i])
                if idx is None:
                    idx = new[ys[i]] = known + len(new)
                view[i] = <double><Py_ssize_t>idx
        return out

    cdef int register(self, list ys) except -1:
        """Register the labels of `ys` not seen yet, in order of first sight (a classifier's)."""
        if self.classifier:
            for y in ys:
                if y not in self.index:
                    self.add(y)
        return 0

    cdef int add(self, object y) except -1:
        """Register label `y`, which `target` found new: its class index is len(labels)."""
        self.index[y] = len(self.labels)
        self.labels.append(y)
        return 0
