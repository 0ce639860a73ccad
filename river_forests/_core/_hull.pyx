"""2-D convex hulls and random lines (see `_hull.pxd`)."""

from libc.math cimport INFINITY, M_PI, asin, atan2, cos, sin, sqrt
from libc.stdint cimport int32_t

import numpy as np

from ._random cimport RNG, rng_seed, rng_uniform


cdef inline bint _before(double ax, double ay, double bx, double by) noexcept nogil:
    return ax < bx or (ax == bx and ay < by)


cdef int32_t hull_build(double* pts, int32_t n, double* out) noexcept nogil:
    """The convex hull of the `n` points `pts` (x, y interleaved; sorted in place, duplicates
    dropped) into `out`, counter-clockwise from the lowest-leftmost vertex, collinear points
    dropped (Andrew's monotone chain). Returns m; `out` needs room for 4 n + 4 cells."""
    cdef int32_t i, j, k, t, low
    cdef double kx, ky
    # insertion sort: n is a leaf's kept points or a hull plus one, tens at most
    for i in range(1, n):
        kx = pts[2 * i]
        ky = pts[2 * i + 1]
        j = i - 1
        while j >= 0 and _before(kx, ky, pts[2 * j], pts[2 * j + 1]):
            pts[2 * j + 2] = pts[2 * j]
            pts[2 * j + 3] = pts[2 * j + 1]
            j -= 1
        pts[2 * j + 2] = kx
        pts[2 * j + 3] = ky
    k = 0
    for i in range(n):
        if k == 0 or pts[2 * i] != pts[2 * k - 2] or pts[2 * i + 1] != pts[2 * k - 1]:
            pts[2 * k] = pts[2 * i]
            pts[2 * k + 1] = pts[2 * i + 1]
            k += 1
    n = k
    if n <= 2:
        for i in range(2 * n):
            out[i] = pts[i]
        return n
    t = 0
    for i in range(n):
        while t >= 2 and cross3(out[2 * t - 4], out[2 * t - 3], out[2 * t - 2], out[2 * t - 1],
                                pts[2 * i], pts[2 * i + 1]) <= 0.0:
            t -= 1
        out[2 * t] = pts[2 * i]
        out[2 * t + 1] = pts[2 * i + 1]
        t += 1
    low = t + 1
    for i in range(n - 2, -1, -1):
        while t >= low and cross3(out[2 * t - 4], out[2 * t - 3], out[2 * t - 2], out[2 * t - 1],
                                  pts[2 * i], pts[2 * i + 1]) <= 0.0:
            t -= 1
        out[2 * t] = pts[2 * i]
        out[2 * t + 1] = pts[2 * i + 1]
        t += 1
    return t - 1  # the last vertex is the first again


cdef int32_t hull_add(const double* v, int32_t m, double qx, double qy, double sx, double sy,
                      double* out, double* grew) noexcept nogil:
    """The hull of v and the point q outside it, into `out` (room for 2 m + 8 cells), in O(m):
    the edges q sees (a contiguous run; an edge q is collinear with counts, so no collinear
    vertex stays) are replaced by the two tangents through q. grew[0] is the perimeter's
    increase after scaling by (sx, sy). Returns the new m."""
    cdef int32_t k, s = -1, e, i, n
    cdef double before, dx, dy, cut = 0.0
    cdef double pts[6]
    if m <= 2:
        for k in range(2 * m):
            pts[k] = v[k]
        pts[2 * m] = qx
        pts[2 * m + 1] = qy
        before = hull_perimeter(v, m, sx, sy)
        n = hull_build(pts, m + 1, out)
        grew[0] = hull_perimeter(out, n, sx, sy) - before
        return n
    # the first visible edge after an invisible one
    for k in range(m):
        i = (k + m - 1) % m
        if cross3(v[2 * k], v[2 * k + 1], v[2 * ((k + 1) % m)], v[2 * ((k + 1) % m) + 1], qx, qy) <= 0.0 \
                and cross3(v[2 * i], v[2 * i + 1], v[2 * k], v[2 * k + 1], qx, qy) > 0.0:
            s = k
            break
    if s < 0:  # q inside (rounding): the hull as it is
        for k in range(2 * m):
            out[k] = v[k]
        grew[0] = 0.0
        return m
    # the run of visible edges s, s + 1, ..., e
    e = s
    while True:
        k = (e + 1) % m
        if k == s or cross3(v[2 * k], v[2 * k + 1], v[2 * ((k + 1) % m)], v[2 * ((k + 1) % m) + 1],
                            qx, qy) > 0.0:
            break
        e = k
    # out: v[e+1], ..., v[s] (the kept vertices, in order), then q
    n = 0
    k = (e + 1) % m
    while True:
        out[2 * n] = v[2 * k]
        out[2 * n + 1] = v[2 * k + 1]
        n += 1
        if k == s:
            break
        k = (k + 1) % m
    out[2 * n] = qx
    out[2 * n + 1] = qy
    n += 1
    # the increase: two tangents in, the visible edges out
    k = s
    while True:
        i = (k + 1) % m
        dx = sx * (v[2 * i] - v[2 * k])
        dy = sy * (v[2 * i + 1] - v[2 * k + 1])
        cut += sqrt(dx * dx + dy * dy)
        if k == e:
            break
        k = i
    dx = sx * (qx - v[2 * s])
    dy = sy * (qy - v[2 * s + 1])
    grew[0] = sqrt(dx * dx + dy * dy) - cut
    i = (e + 1) % m
    dx = sx * (qx - v[2 * i])
    dy = sy * (qy - v[2 * i + 1])
    grew[0] += sqrt(dx * dx + dy * dy)
    return n


cdef bint hull_contains(const double* v, int32_t m, double px, double py) noexcept nogil:
    """Whether (px, py) lies in the hull (its boundary included). Exact for the hull's own
    vertices; a point the hull was built from may test outside by a rounding, which only
    rebuilds the same hull."""
    cdef int32_t k, n, i
    if m <= 0:
        return False
    if m == 1:
        return px == v[0] and py == v[1]
    if m == 2:
        return (cross3(v[0], v[1], v[2], v[3], px, py) == 0.0
                and min(v[0], v[2]) <= px <= max(v[0], v[2])
                and min(v[1], v[3]) <= py <= max(v[1], v[3]))
    # the first and last edges, then the fan of triangles from vertex 0 by bisection: the
    # wedge that holds the point's direction decides by its outer edge, O(log m)
    if cross3(v[0], v[1], v[2], v[3], px, py) < 0.0 or \
            cross3(v[2 * m - 2], v[2 * m - 1], v[0], v[1], px, py) < 0.0:
        return False
    k = 1
    n = m - 1
    while n - k > 1:
        i = (k + n) >> 1
        if cross3(v[0], v[1], v[2 * i], v[2 * i + 1], px, py) >= 0.0:
            k = i
        else:
            n = i
    return cross3(v[2 * k], v[2 * k + 1], v[2 * n], v[2 * n + 1], px, py) >= 0.0


cdef double hull_perimeter(const double* v, int32_t m, double sx, double sy) noexcept nogil:
    """Perimeter after scaling x by sx and y by sy (a segment's is twice its length)."""
    cdef int32_t k, n
    cdef double total = 0.0, dx, dy
    if m <= 1:
        return 0.0
    for k in range(m if m > 2 else 1):
        n = k + 1 if k + 1 < m else 0
        dx = sx * (v[2 * n] - v[2 * k])
        dy = sy * (v[2 * n + 1] - v[2 * k + 1])
        total += sqrt(dx * dx + dy * dy)
    return total if m > 2 else 2.0 * total


cdef int32_t hull_reduce(double* v, int32_t m, int32_t cap) noexcept nogil:
    """Bring a hull of m > cap >= 4 vertices down to `cap` by a superset: repeatedly drop the
    edge whose two neighbours, extended until they meet, add the least area (a convex polygon
    of five or more vertices always has such an edge). Falls back on the bounding box if
    rounding leaves none. Returns the new m."""
    cdef int32_t k, best, a, b, c, d, i
    cdef double d1x, d1y, d2x, d2y, den, t, area, best_area, bx, by, px, py
    cdef double lox, loy, hix, hiy
    while m > cap:
        best = -1
        best_area = INFINITY
        bx = 0.0
        by = 0.0
        for k in range(m):
            a = (k + m - 1) % m
            b = k
            c = (k + 1) % m
            d = (k + 2) % m
            d1x = v[2 * b] - v[2 * a]
            d1y = v[2 * b + 1] - v[2 * a + 1]
            d2x = v[2 * d] - v[2 * c]
            d2y = v[2 * d + 1] - v[2 * c + 1]
            den = d1x * d2y - d1y * d2x
            if den <= 0.0:
                continue  # the neighbours do not meet beyond the edge
            t = ((v[2 * c] - v[2 * b]) * d2y - (v[2 * c + 1] - v[2 * b + 1]) * d2x) / den
            if t < 0.0:
                continue
            px = v[2 * b] + t * d1x
            py = v[2 * b + 1] + t * d1y
            area = 0.5 * abs(cross3(v[2 * b], v[2 * b + 1], v[2 * c], v[2 * c + 1], px, py))
            if area < best_area:
                best_area = area
                best = k
                bx = px
                by = py
        if best < 0:
            lox = hix = v[0]
            loy = hiy = v[1]
            for i in range(m):
                lox = min(lox, v[2 * i])
                hix = max(hix, v[2 * i])
                loy = min(loy, v[2 * i + 1])
                hiy = max(hiy, v[2 * i + 1])
            v[0] = lox
            v[1] = loy
            v[2] = hix
            v[3] = loy
            v[4] = hix
            v[5] = hiy
            v[6] = lox
            v[7] = hiy
            return 4
        # vertex `best` becomes the meeting point, vertex best + 1 goes (the vertices after
        # it move down one; if it was vertex 0, all of them do)
        c = (best + 1) % m
        v[2 * best] = bx
        v[2 * best + 1] = by
        for i in range(c, m - 1):
            v[2 * i] = v[2 * i + 2]
            v[2 * i + 1] = v[2 * i + 3]
        m -= 1
    return m


# ---------------------------------------------------------------- random lines

cdef inline double _wrap(double a) noexcept nogil:
    """a in (-pi, pi]."""
    while a > M_PI:
        a -= 2.0 * M_PI
    while a <= -M_PI:
        a += 2.0 * M_PI
    return a


cdef inline double _clamp(double a, double lo, double hi) noexcept nogil:
    return lo if a < lo else (hi if a > hi else a)


cdef int32_t _scaled_hull(const double* v, int32_t m, double sx, double sy,
                          double* scratch) noexcept nogil:
    """The hull scaled by (sx, sy), cleaned (a zero scale can make vertices repeat or line up),
    into scratch[0:]; its sort buffer is scratch past 4 m + 4 cells."""
    cdef double* pts = scratch + 4 * m + 4
    cdef int32_t k
    for k in range(m):
        pts[2 * k] = sx * v[2 * k]
        pts[2 * k + 1] = sy * v[2 * k + 1]
    return hull_build(pts, m, scratch)


cdef int _draw(const double* z, int32_t m, bint separating, double qx, double qy, double sx,
               double sy, RNG* rng, double* ca, double* cb, double* off) noexcept nogil:
    """Draw a line from the pieces of the (scaled, clean) hull z. Over the directions theta of
    the normal cone of vertex k, the measure of the lines is r cos(theta - phi) dtheta: for
    lines meeting the hull, (r, phi) is the polar form of z_k - o with o a point inside, and
    the offset runs from n.o to n.z_k; for lines separating q, of q - z_k where positive, and
    the offset runs from n.z_k to n.q. The piece is drawn in proportion to its integral, theta
    by inverting its sine, the offset uniformly."""
    cdef int32_t k, p, nx_, pr, step
    cdef double ox = 0.0, oy = 0.0, alpha, beta, ext, rx, ry, r, phi, da, lo, hi
    cdef double total = 0.0, target = 0.0, acc, wgt, s, th, nx, ny, h, base
    cdef double los[2]
    cdef double his[2]
    cdef int32_t n_iv, i
    cdef int32_t last = -1
    if m <= 0:
        return -1
    for k in range(m):
        ox += z[2 * k]
        oy += z[2 * k + 1]
    ox /= m
    oy /= m
    for step in range(2):
        acc = 0.0
        if step == 1:
            if total <= 0.0:
                return -1
            target = rng_uniform(rng) * total
        for k in range(m):
            p = (k + m - 1) % m
            nx_ = (k + 1) % m
            # outward normal of edge (a -> b) of a counter-clockwise polygon: (dy, -dx)
            alpha = atan2(-(z[2 * k] - z[2 * p]), z[2 * k + 1] - z[2 * p + 1])
            beta = atan2(-(z[2 * nx_] - z[2 * k]), z[2 * nx_ + 1] - z[2 * k + 1])
            if m == 1:
                alpha = 0.0
                ext = 2.0 * M_PI
            elif m == 2:
                ext = M_PI  # a segment: each end's cone is a half-turn
            else:
                # a convex vertex turns by less than a half-turn; a turn too small for atan2
                # to see comes out as 0 or a hair below, never as a full turn
                ext = _wrap(beta - alpha)
                if ext < 0.0:
                    ext = 0.0
            if separating:
                rx = qx - z[2 * k]
                ry = qy - z[2 * k + 1]
            else:
                rx = z[2 * k] - ox
                ry = z[2 * k + 1] - oy
            r = sqrt(rx * rx + ry * ry)
            if r <= 0.0:
                continue
            phi = atan2(ry, rx)
            da = _wrap(alpha - phi)
            # the cone [da, da + ext] (angles relative to phi), where cos > 0
            n_iv = 0
            for i in range(2):
                lo = max(da - 2.0 * M_PI * i, -0.5 * M_PI)
                hi = min(da + ext - 2.0 * M_PI * i, 0.5 * M_PI)
                if hi > lo:
                    los[n_iv] = lo
                    his[n_iv] = hi
                    n_iv += 1
            for i in range(n_iv):
                wgt = r * (sin(his[i]) - sin(los[i]))
                if wgt <= 0.0:
                    continue
                if step == 0:
                    total += wgt
                    last = k * 2 + i
                    continue
                if acc + wgt < target and k * 2 + i != last:
                    acc += wgt
                    continue
                s = sin(los[i]) + rng_uniform(rng) * (sin(his[i]) - sin(los[i]))
                th = phi + asin(_clamp(s, -1.0, 1.0))
                nx = cos(th)
                ny = sin(th)
                h = nx * z[2 * k] + ny * z[2 * k + 1]
                if separating:
                    base = h
                    off[0] = h + rng_uniform(rng) * (nx * qx + ny * qy - h)
                else:
                    base = nx * ox + ny * oy
                    off[0] = base + rng_uniform(rng) * (h - base)
                ca[0] = nx * sx
                cb[0] = ny * sy
                return 0
    return -1


cdef int line_hitting(const double* v, int32_t m, double sx, double sy, double* scratch,
                      RNG* rng, double* ca, double* cb, double* off) noexcept nogil:
    """A random line meeting the hull, from the isotropic measure in scaled units, returned in
    the hull's own units as {(x, y): ca x + cb y = off}. -1 if the hull has no perimeter.
    `scratch` needs 6 m + 4 cells."""
    cdef int32_t mz = _scaled_hull(v, m, sx, sy, scratch)
    if mz < 2:
        return -1
    return _draw(scratch, mz, False, 0.0, 0.0, sx, sy, rng, ca, cb, off)


cdef int line_separating(const double* v, int32_t m, double qx, double qy, double sx, double sy,
                         double* scratch, RNG* rng, double* ca, double* cb,
                         double* off) noexcept nogil:
    """A random line between the hull and the point q outside it, from the isotropic measure
    in scaled units (fan2020's GenCutNotCross): q lies on the side ca x + cb y > off, the hull
    on the other. -1 if none has positive measure. `scratch` needs 6 m + 4 cells."""
    cdef int32_t mz = _scaled_hull(v, m, sx, sy, scratch)
    return _draw(scratch, mz, True, sx * qx, sy * qy, sx, sy, rng, ca, cb, off)


# ---------------------------------------------------------------- Python access (tests, docs)

def convex_hull(points):
    """The convex hull of an (n, 2) array, counter-clockwise, as an (m, 2) array."""
    cdef double[:, ::1] p = np.array(points, dtype=np.float64, order="C").reshape(-1, 2)
    cdef int32_t n = <int32_t>p.shape[0]
    cdef double[::1] out = np.empty(4 * n + 4)
    cdef int32_t m = hull_build(&p[0, 0] if n > 0 else NULL, n, &out[0])
    return np.asarray(out[:2 * m]).reshape(m, 2).copy()


def contains(hull, point):
    cdef double[::1] v = np.ascontiguousarray(hull, dtype=np.float64).reshape(-1)
    return bool(hull_contains(&v[0] if v.shape[0] else NULL, <int32_t>(v.shape[0] // 2),
                              float(point[0]), float(point[1])))


def add_point(hull, point, double sx=1.0, double sy=1.0):
    """(the hull with `point` added, the scaled perimeter increase), by `hull_add`: for a
    point outside the hull (what the trees call it with); a point on an edge would stay as
    a collinear vertex."""
    cdef double[::1] v = np.ascontiguousarray(hull, dtype=np.float64).reshape(-1)
    cdef int32_t m = <int32_t>(v.shape[0] // 2)
    cdef double[::1] out = np.empty(2 * m + 8)
    cdef double grew = 0.0
    cdef int32_t n = hull_add(&v[0] if m > 0 else NULL, m, float(point[0]), float(point[1]), sx, sy,
                              &out[0], &grew)
    return np.asarray(out[:2 * n]).reshape(n, 2).copy(), grew


def perimeter(hull, double sx=1.0, double sy=1.0):
    cdef double[::1] v = np.ascontiguousarray(hull, dtype=np.float64).reshape(-1)
    return hull_perimeter(&v[0] if v.shape[0] else NULL, <int32_t>(v.shape[0] // 2), sx, sy)


def reduce(hull, int cap):
    """A superset of the hull with at most `cap` (>= 4) vertices."""
    cdef double[::1] v = np.array(hull, dtype=np.float64).reshape(-1)
    cdef int32_t m = hull_reduce(&v[0], <int32_t>(v.shape[0] // 2), cap)
    return np.asarray(v[:2 * m]).reshape(m, 2).copy()


def random_lines(hull, int n, point=None, double sx=1.0, double sy=1.0, seed=0):
    """n random lines (rows ca, cb, off) meeting the hull, or separating it from `point`."""
    cdef double[::1] v = np.ascontiguousarray(hull, dtype=np.float64).reshape(-1)
    cdef int32_t m = <int32_t>(v.shape[0] // 2)
    cdef double[::1] scratch = np.empty(8 * m + 16)
    cdef RNG rng
    cdef double ca, cb, off
    cdef int i, ok
    rng_seed(&rng, <unsigned long long>seed)
    out = np.full((n, 3), np.nan)
    for i in range(n):
        if point is None:
            ok = line_hitting(&v[0], m, sx, sy, &scratch[0], &rng, &ca, &cb, &off)
        else:
            ok = line_separating(&v[0], m, float(point[0]), float(point[1]), sx, sy,
                                 &scratch[0], &rng, &ca, &cb, &off)
        if ok == 0:
            out[i] = (ca, cb, off)
    return out
