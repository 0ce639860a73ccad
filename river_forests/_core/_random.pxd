# A small, fast, reproducible random generator for the compiled trees.
#
# xoshiro256** (Blackman & Vigna, 2018): four 64-bit words of state, one per tree, seeded
# with splitmix64 so that nearby seeds give unrelated streams. Everything here is inline and
# nogil; the state is a plain struct so a tree can pickle it as four integers.

from libc.stdint cimport uint64_t
from libc.math cimport log

ctypedef struct RNG:
    uint64_t s0   # xoshiro256** state word 0
    uint64_t s1   # state word 1
    uint64_t s2   # state word 2
    uint64_t s3   # state word 3


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(RNG* r, uint64_t seed) noexcept nogil:
    cdef uint64_t sm = seed
    r.s0 = splitmix64(&sm)
    r.s1 = splitmix64(&sm)
    r.s2 = splitmix64(&sm)
    r.s3 = splitmix64(&sm)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(RNG* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = _rotl(r.s3, 45)
    return result


cdef inline double rng_uniform(RNG* r) noexcept nogil:
    """Uniform on [0, 1), 53 random bits."""
    return (rng_next(r) >> 11) * (1.0 / 9007199254740992.0)


cdef inline double rng_exponential(RNG* r, double rate) noexcept nogil:
    """Exp(rate): mean 1 / rate. `rate` must be > 0."""
    return -log(1.0 - rng_uniform(r)) / rate


cdef inline int rng_poisson(RNG* r, double lam) noexcept nogil:
    """Poisson(lam) by inversion; meant for small lam (online bagging uses lam = 1)."""
    cdef double u = rng_uniform(r)
    cdef double p = 2.718281828459045 ** (-lam)
    cdef double cdf = p
    cdef int k = 0
    while u > cdf and k < 1000:
        k += 1
        p *= lam / k
        cdf += p
    return k


cdef inline Py_ssize_t rng_randint(RNG* r, Py_ssize_t n) noexcept nogil:
    """Uniform integer in [0, n)."""
    return <Py_ssize_t>(rng_uniform(r) * n)
