# A model file's bytes, memory-mapped so that many processes serving one model share its pages,
# and held under a read lease so that no writer can change them under a process that reads them.
#
# A mapped file is only as safe as the file: replaced in place (`cp new.rf model.rf`), truncated
# or edited, its pages change under the arrays that read them, and a truncated page is a bus
# error. On Linux the mapping takes a read lease on the file (fcntl F_SETLEASE): a process that
# opens it to write, or truncates it, is held by the kernel until the lease is released, and the
# lease holder is sent a signal first. The signal's handler (C, async-signal-safe: no Python, no
# GIL, no lock) copies the mapped pages into anonymous memory moved over the same addresses
# (mremap), so every array still points at the model that was loaded, then releases the lease.
# A fork's child takes a lease of its own on the same mappings. Where no lease can be had
# (another system, a file this user does not own, a file open for writing) the mapping is
# refused with the reason, and the loader reads the file into memory instead.

cdef class Mapping:
    cdef char* addr                 # the first byte of the file, mapped (NULL once released)
    cdef readonly Py_ssize_t size   # the file's size in bytes when it was mapped
    cdef int slot                   # this mapping's row in the lease table, -1 if none
