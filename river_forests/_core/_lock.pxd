# One lock per model, shared by every forest: a model may learn in one thread while others
# predict, pickle or learn too; each public call of the compiled forest holds the model's lock
# for its whole duration. A thread waiting for the lock releases the GIL, so the holder can
# still take the GIL back (its Python parts, its thread pool) and no call deadlocks. The
# tree work itself runs without the GIL, so different models still learn in parallel.

from cpython.pythread cimport (NOWAIT_LOCK, WAIT_LOCK, PyThread_acquire_lock,
                               PyThread_allocate_lock, PyThread_free_lock,
                               PyThread_release_lock, PyThread_type_lock)


cdef inline PyThread_type_lock new_lock() except NULL:
    cdef PyThread_type_lock lock = PyThread_allocate_lock()
    if lock == NULL:
        raise MemoryError()
    return lock


cdef inline void free_lock(PyThread_type_lock lock) noexcept:
    if lock != NULL:
        PyThread_free_lock(lock)


cdef inline void acquire(PyThread_type_lock lock) noexcept:
    """Take the lock; called with the GIL held, it waits (if it must) without the GIL."""
    if not PyThread_acquire_lock(lock, NOWAIT_LOCK):
        with nogil:
            PyThread_acquire_lock(lock, WAIT_LOCK)


cdef inline void release(PyThread_type_lock lock) noexcept:
    PyThread_release_lock(lock)
