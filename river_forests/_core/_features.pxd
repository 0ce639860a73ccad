# The feature registry shared by every forest: river dicts -> one float64 buffer.

cdef extern from *:
    """
    #define RF_MAX_ABS 1e38
    """
    # values beyond +/- this are out of range: missing as features (a float32 box side,
    # relative to the feature's first value, see _box.pxd, holds differences up to 3.4e38),
    # an error as regression targets
    const double MAX_ABS "RF_MAX_ABS"

cdef class FeatureRegistry:
    cdef readonly dict index      # feature name -> column of the buffer (columns never move)
    cdef readonly list names      # column -> feature name, in registration order
    cdef readonly Py_ssize_t max_width  # the most names (columns) the registry ever holds
    cdef readonly bint full_warned      # a warning was given that the registry is full
    cdef double* buf              # scratch row: the last dict, NaN where a feature is missing
    cdef Py_ssize_t capacity      # allocated length of `buf`
    cdef Py_ssize_t* written      # the columns of `buf` the last dict set: the next `fill`
                                  # resets only these, so a row costs its keys, not the width
    cdef Py_ssize_t n_written     # entries of `written` in use
    cdef Py_ssize_t written_capacity  # allocated length of `written`

    cdef Py_ssize_t fill(self, dict x, bint register) except -1
    cdef int _reserve(self, Py_ssize_t n) except -1
    cdef int _register(self, list keys) except -1
