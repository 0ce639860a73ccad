# The label registry, compiled: a classifier's labels (class index -> label, in order of first
# sight) and the checks every target passes before the model changes (a label or a regression
# target, missing or out of range). A part of the forest core (`_forest.pxd`), which calls it
# under the model's lock.

cdef class LabelRegistry:
    cdef readonly bint classifier    # targets are labels (classes); else real numbers
    cdef readonly list labels        # class index -> label, in order of first sight
    cdef readonly dict index         # label -> class index

    cdef double target(self, object y) except? -1.0
    cdef object encode(self, list ys)
    cdef int register(self, list ys) except -1
    cdef int add(self, object y) except -1
