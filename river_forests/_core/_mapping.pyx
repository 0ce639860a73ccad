"""Model files mapped under a read lease: serving a mapped model survives a writer (see
`_mapping.pxd` for the why). `river_forests.load(path, mmap=True)` is the one user."""

import os

from cpython.buffer cimport PyBuffer_FillInfo
from libc.string cimport strerror

cdef extern from *:
    """
    #include <errno.h>
    #include <string.h>
    /* RF_NO_LEASES builds the other systems' path on Linux too (to test it) */
    #if defined(__linux__) && !defined(RF_NO_LEASES)
    #include <fcntl.h>
    #include <sched.h>
    #include <signal.h>
    #include <stdio.h>
    #include <sys/mman.h>
    #include <unistd.h>
    #define RF_HAVE_LEASES 1
    #else
    #define RF_HAVE_LEASES 0
    #endif

    /* A row of the lease table moves between these states; RF_BUSY means one party (a call
       from Python, which holds the GIL, or the signal handler) works on it, and no other may. */
    enum { RF_FREE = 0, RF_LEASED, RF_MAPPED, RF_BUSY, RF_COPIED, RF_BROKEN, RF_EXPOSED };
    #define RF_ROWS 4096

    #if RF_HAVE_LEASES
    typedef struct {
        int state;    /* RF_*: what the row's pages are, and who may touch the row */
        int fd;       /* the file, open read-only: the lease is on its open file description */
        int pending;  /* a lease break came while the row was busy: its holder breaks on leaving */
        char* addr;   /* the mapping (NULL before it is made) */
        size_t len;
    } rf_row;

    static rf_row rf_rows[RF_ROWS];
    static int rf_signal = 0;           /* the signal a lease break sends, once its handler is in */
    static struct sigaction rf_previous; /* that signal's handler before ours, which we chain to */

    static int rf_load(int* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
    static void rf_store(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
    static int rf_cas(int* p, int expected, int desired) {
        return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST);
    }

    /* The pages at addr, as this process reads them, into anonymous memory moved over the same
       addresses in one step (mremap replaces the old mapping atomically: a thread reading them
       meanwhile reads the same bytes before and after). Only system calls and memcpy: safe in
       a signal handler. */
    static int rf_privatise(char* addr, size_t len) {
        void* fresh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (fresh == MAP_FAILED) return -1;
        memcpy(fresh, addr, len);
        if (mremap(fresh, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, addr) == MAP_FAILED) {
            munmap(fresh, len);
            return -1;
        }
        return 0;
    }

    /* A writer is waiting: keep what the row reads, then let the writer go. A busy row is left
       to its holder (rf_leave). */
    static void rf_break(rf_row* r) {
        if (rf_cas(&r->state, RF_MAPPED, RF_BUSY)) {
            int copied = rf_privatise(r->addr, r->len) == 0;
            fcntl(r->fd, F_SETLEASE, F_UNLCK);
            rf_store(&r->state, copied ? RF_COPIED : RF_EXPOSED);
        } else if (rf_cas(&r->state, RF_LEASED, RF_BUSY)) {
            fcntl(r->fd, F_SETLEASE, F_UNLCK);
            rf_store(&r->state, RF_BROKEN);
        }
    }

    static void rf_leave(rf_row* r, int state) {
        rf_store(&r->state, state);
        if (__atomic_exchange_n(&r->pending, 0, __ATOMIC_SEQ_CST)) rf_break(r);
    }

    static void rf_on_signal(int sig, siginfo_t* info, void* context) {
        int saved = errno, ours = 0, i;
        for (i = 0; i < RF_ROWS; i++) {
            rf_row* r = &rf_rows[i];
            int state = rf_load(&r->state);
            if (state == RF_FREE || rf_load(&r->fd) != info->si_fd) continue;
            ours = 1;
            if (state == RF_BUSY) rf_store(&r->pending, 1);
            rf_break(r);
        }
        if (!ours) {
            if (rf_previous.sa_flags & SA_SIGINFO) {
                if (rf_previous.sa_sigaction != NULL) rf_previous.sa_sigaction(sig, info, context);
            } else if (rf_previous.sa_handler != SIG_DFL && rf_previous.sa_handler != SIG_IGN) {
                rf_previous.sa_handler(sig);
            }
        }
        errno = saved;
    }

    static int rf_install(void) {
        struct sigaction action;
        int sig = SIGRTMIN + 6;
        if (rf_signal) return 0;
        memset(&action, 0, sizeof(action));
        action.sa_sigaction = rf_on_signal;
        action.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(sig, &action, &rf_previous) < 0) return -errno;
        rf_signal = sig;
        return 0;
    }

    static int rf_take_lease(int fd) {
        if (fcntl(fd, F_SETSIG, rf_signal) < 0 || fcntl(fd, F_SETOWN, getpid()) < 0
                || fcntl(fd, F_SETLEASE, F_RDLCK) < 0) return -errno;
        return 0;
    }

    /* A row holding a lease on a description of its own of the file open as `fd`: the row's
       index, or -errno. */
    static int rf_lease(int fd) {
        int i, own, err = rf_install();
        if (err) return err;
        for (i = 0; i < RF_ROWS; i++)
            if (rf_cas(&rf_rows[i].state, RF_FREE, RF_BUSY)) break;
        if (i == RF_ROWS) return -EMFILE;
        own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (own < 0) { err = -errno; rf_store(&rf_rows[i].state, RF_FREE); return err; }
        rf_rows[i].addr = NULL;
        rf_rows[i].len = 0;
        rf_rows[i].pending = 0;
        rf_store(&rf_rows[i].fd, own);
        err = rf_take_lease(own);
        if (err) {
            close(own);
            rf_store(&rf_rows[i].fd, -1);
            rf_store(&rf_rows[i].state, RF_FREE);
            return err;
        }
        rf_leave(&rf_rows[i], RF_LEASED);
        return i;
    }

    /* Map the leased file's first len bytes: 0, -EAGAIN if the lease was broken before (a
       writer came during the load), or -errno. */
    static int rf_map(int i, size_t len) {
        rf_row* r = &rf_rows[i];
        void* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, r->fd, 0);
        if (p == MAP_FAILED) return -errno;
        if (!rf_cas(&r->state, RF_LEASED, RF_BUSY)) { munmap(p, len); return -EAGAIN; }
        r->addr = (char*)p;
        r->len = len;
        rf_leave(r, RF_MAPPED);
        return 0;
    }

    static char* rf_addr(int i) { return rf_rows[i].addr; }
    static int rf_state(int i) { return rf_load(&rf_rows[i].state); }

    /* Let the kernel drop the pages this process read, while they are still the file's: they
       stay in the page cache (shared), and a read brings them back. */
    static int rf_drop(int i) {
        rf_row* r = &rf_rows[i];
        if (!rf_cas(&r->state, RF_MAPPED, RF_BUSY)) return 0;
        madvise(r->addr, r->len, MADV_DONTNEED);
        rf_leave(r, RF_MAPPED);
        return 1;
    }

    static void rf_close(int i) {
        rf_row* r = &rf_rows[i];
        int state;
        for (;;) {  /* a handler in another thread holds the row for one copy at most */
            state = rf_load(&r->state);
            if (state != RF_BUSY && rf_cas(&r->state, state, RF_BUSY)) break;
            sched_yield();
        }
        if (state == RF_LEASED || state == RF_MAPPED) fcntl(r->fd, F_SETLEASE, F_UNLCK);
        if (r->addr != NULL) munmap(r->addr, r->len);
        if (r->fd >= 0) close(r->fd);
        r->addr = NULL;
        r->len = 0;
        rf_store(&r->fd, -1);
        rf_store(&r->pending, 0);
        rf_store(&r->state, RF_FREE);
    }

    /* In a fork's child: the parent's leases name the parent, so a writer would wait for the
       parent alone. Each row takes a lease of the child's own, on a description of its own;
       where it cannot, the child copies the pages now. A row that was busy at the fork was a
       handler's in another of the parent's threads (calls from Python hold the GIL, as the
       fork does): that thread is not in the child, so the child copies what it maps. */
    static void rf_after_fork(void) {
        int i;
        for (i = 0; i < RF_ROWS; i++) {
            rf_row* r = &rf_rows[i];
            int state = rf_load(&r->state), fd = -1;
            char path[64];
            rf_store(&r->pending, 0);
            if (state == RF_BUSY) {
                if (r->addr != NULL)
                    rf_store(&r->state, rf_privatise(r->addr, r->len) == 0 ? RF_COPIED : RF_EXPOSED);
                else
                    rf_store(&r->state, RF_BROKEN);
                continue;
            }
            if (state != RF_LEASED && state != RF_MAPPED) continue;
            rf_store(&r->state, RF_BUSY);
            snprintf(path, sizeof(path), "/proc/self/fd/%d", r->fd);
            fd = open(path, O_RDONLY | O_CLOEXEC);
            close(r->fd);
            rf_store(&r->fd, fd);
            if (fd >= 0 && rf_take_lease(fd) == 0) {
                rf_leave(r, state);
            } else if (state == RF_MAPPED) {
                rf_store(&r->state, rf_privatise(r->addr, r->len) == 0 ? RF_COPIED : RF_EXPOSED);
            } else {
                rf_store(&r->state, RF_BROKEN);
            }
        }
    }
    #else  /* no leases: every mapping is refused, and the loader reads the file instead */
    static int rf_lease(int fd) { return -ENOSYS; }
    static int rf_map(int i, size_t len) { return -ENOSYS; }
    static char* rf_addr(int i) { return NULL; }
    static int rf_state(int i) { return RF_FREE; }
    static int rf_drop(int i) { return 0; }
    static void rf_close(int i) { }
    static void rf_after_fork(void) { }
    #endif
    """
    int RF_HAVE_LEASES, RF_FREE, RF_LEASED, RF_MAPPED, RF_BUSY, RF_COPIED, RF_BROKEN, RF_EXPOSED
    int rf_lease(int fd) noexcept nogil
    int rf_map(int i, size_t length) noexcept nogil
    char* rf_addr(int i) noexcept nogil
    int rf_state(int i) noexcept nogil
    int rf_drop(int i) noexcept nogil
    void rf_close(int i) noexcept nogil
    void rf_after_fork() noexcept nogil


#: whether this system can hold a mapped model under a lease (Linux)
LEASES = bool(RF_HAVE_LEASES)


class LeaseBroken(Exception):
    """A writer opened the file while it was being mapped: what was read may be half of it."""


cdef _error(int err, str what):
    return OSError(err, f"{what}: {strerror(err).decode()}")


cdef class Mapping:
    """The bytes of the file open as `fd` (read-only), mapped copy-on-write under a read lease
    while the file is unchanged, and in anonymous memory of this process's once a writer came.
    A buffer: ``numpy.frombuffer(mapping, numpy.uint8)``. Raises OSError where no lease can be
    had (its message says why), and `LeaseBroken` if a writer came while it was mapped."""

    def __cinit__(self):
        self.addr = NULL
        self.slot = -1
        self.size = 0

    def __init__(self, int fd):
        cdef int err
        if not RF_HAVE_LEASES:
            raise OSError(38, "this system has no file leases (Linux's F_SETLEASE)")
        err = rf_lease(fd)
        if err < 0:
            raise _error(-err, "cannot take a read lease on the file")
        self.slot = err
        size = os.fstat(fd).st_size  # the lease holds the size still from here on
        if size == 0:
            raise OSError(22, "an empty file cannot be mapped")
        err = rf_map(self.slot, <size_t>size)
        if err == -11:  # EAGAIN
            raise LeaseBroken("the file was opened for writing while it was loading")
        if err < 0:
            raise _error(-err, "cannot map the file")
        self.addr = rf_addr(self.slot)
        self.size = size

    @property
    def state(self) -> str:
        """"mapped" (the file's pages, under lease), "copied" (a writer came: this process's own
        copy of what was loaded), "broken" (a writer came before the mapping was made), or
        "exposed" (a writer came and the copy failed for want of memory)."""
        if self.slot < 0:
            return "released"
        return {RF_LEASED: "leased", RF_MAPPED: "mapped", RF_BUSY: "busy", RF_COPIED: "copied",
                RF_BROKEN: "broken", RF_EXPOSED: "exposed"}.get(rf_state(self.slot), "released")

    def settle(self) -> bool:
        """After a load's checks: whether the file was unchanged throughout (the lease still
        held). If so, the kernel may drop the pages the checks read from this process."""
        return self.slot >= 0 and rf_drop(self.slot) == 1

    def __getbuffer__(self, Py_buffer* buffer, int flags):
        if self.addr == NULL:
            raise ValueError("this mapping holds no bytes")
        PyBuffer_FillInfo(buffer, self, self.addr, self.size, 0, flags)

    def __dealloc__(self):
        if self.slot >= 0:
            rf_close(self.slot)
            self.slot = -1
            self.addr = NULL


def _after_fork_in_child():
    rf_after_fork()


if RF_HAVE_LEASES and hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
