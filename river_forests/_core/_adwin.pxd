# ADWIN (Bifet & Gavaldà, 2007), compiled: the drift detector river's ARF gives each tree,
# without a Python call per sample. The same algorithm and the same arithmetic order as
# river's `drift.ADWIN` (an exponential histogram of buckets, level i holding up to
# `max_buckets` + 1 summaries of 2^i values each; every `clock` updates, every cut of the
# window is tested with the Hoeffding-style bound of the ADWIN2 paper), so the two detect at
# the same updates (`tests/test_adwin.py`). Memory is fixed by `max_buckets`: MAX_LEVELS
# levels of `max_buckets` + 1 cells, enough for a window of 2^MAX_LEVELS values.

from libc.stdint cimport int32_t, int64_t

cdef enum:
    ADWIN_MAX_LEVELS = 64


ctypedef struct Adwin:
    double delta            # confidence of a cut
    int32_t clock           # check every `clock` updates
    int32_t max_buckets     # summaries per level before two merge into the next level
    double min_window_length  # a sub-window shorter than this is not tested
    double grace_period     # no test before the window holds more values than this
    double total            # sum of the window's values
    double variance         # sum of squared deviations of the window's values
    double width            # values in the window
    int64_t tick            # updates since the last reset
    int64_t n_detections    # detections since the detector was made
    bint detected           # the last update detected a change (the next one resets)
    int32_t n_levels        # levels in use (the last one is the oldest, never empty)
    int32_t* count          # per level: summaries held
    double* totals          # per level, per summary: the sum of its 2^level values
    double* variances       # per level, per summary: their squared deviations


cdef int adwin_init(Adwin* a, double delta, int32_t clock, int32_t max_buckets,
                    int32_t min_window_length, int32_t grace_period) except -1 nogil
cdef void adwin_release(Adwin* a) noexcept nogil
cdef void adwin_reset(Adwin* a) noexcept nogil
cdef bint adwin_update(Adwin* a, double value) noexcept nogil
cdef double adwin_estimation(const Adwin* a) noexcept nogil
cdef size_t adwin_nbytes(const Adwin* a) noexcept nogil
cdef tuple adwin_get_state(const Adwin* a)
cdef int adwin_set_state(Adwin* a, tuple state) except -1
