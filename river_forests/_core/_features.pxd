# The feature registry shared by every forest: river dicts -> one float64 buffer.

cdef class FeatureRegistry:
    cdef readonly dict index      # feature name -> column of the buffer (columns never move)
    cdef readonly list names      # column -> feature name, in registration order
    cdef double* buf              # scratch row: the last dict, NaN where a feature is missing
    cdef Py_ssize_t capacity      # allocated length of `buf`

    cdef Py_ssize_t fill(self, dict x, bint register) except -1
    cdef int _reserve(self, Py_ssize_t n) except -1
