"""Checks shared by the parts' saved states (see `_checks.pxd`)."""

import math

import numpy as np

I64 = 2**63


cdef bint is_int(object v, object low=0, object high=None):
    """Whether `v` is an integer (not a bool) in [low, high) (high None: 2**63)."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) \
        and low <= v < (I64 if high is None else high)


cdef bint is_real(object v):
    """Whether `v` is a finite int or float (not a bool)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
