"""The online BSP forest of fan2020 (`bsp.py`, `_core/_bsp.pyx`) and its 2-D geometry
(`_core/_hull.pyx`): hulls against a brute-force hull, the random lines against the
Cauchy-Crofton formula, and the invariants of the trees a stream builds (hulls that hold
their points and nest, cuts that never cross a hull, budgets, memory bounds), recomputed here
from the trees' state arrays and the learned rows."""

from __future__ import annotations

import collections
import itertools
import math
import random

import numpy as np
import pytest

from river_forests import BSPForestClassifier, BSPForestRegressor
from river_forests._core import _hull
from river_forests._core._bsp import BSPTree

from .conftest import route, uniform_stream

# ------------------------------------------------------------------------------- helpers

#: the arrays that make a tree's partition (labels aside)
STRUCTURE = ("left", "right", "parent", "feature", "feature_b", "coef_a", "coef_b", "threshold",
             "tau", "count", "stored", "lower", "upper", "hulls", "hulls_offsets", "hulls_rows",
             "points", "points_offsets", "points_rows", "pairs", "origin", "scale")


def _tree(**params) -> BSPTree:
    """A BSP tree that approximates nothing: hulls and kept points are never capped, nor the
    nodes."""
    base = dict(task=0, max_nodes=10**6, seed=1, max_hull_vertices=1024, max_leaf_points=10**5)
    base.update(params)
    return BSPTree(**base)


def _data(n, d, seed=0):
    """`n` rows of `d` uniform features (C-contiguous), labels 0/1 from x0 with noise."""
    rng = np.random.default_rng(seed)
    X = np.ascontiguousarray(rng.random((n, d)))
    y = (X[:, 0] + 0.3 * rng.random(n) > 0.6).astype(np.float64)
    return X, y


def _grow(n, d, seed=0, **params):
    X, y = _data(n, d, seed)
    tree = _tree(seed=seed + 1, **params)
    tree.learn_rows(X, y)
    return tree, X, y


def _one(tree, x, y):
    """Learn one row."""
    tree.learn_rows(np.ascontiguousarray(x, dtype=np.float64).reshape(1, -1),
                    np.array([y], dtype=np.float64))


def _cross(a, b, c):
    """(b - a) x (c - a), broadcast over the leading axes."""
    return ((b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1])
            - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0]))


def _brute_hull(points) -> set:
    """The vertices of the convex hull of `points`, by brute force: (a, b) is an edge when
    every point lies left of a -> b or on the segment [a, b]; the vertices are the edges'
    ends (one or two distinct points are their own hull). Exact on the dyadic points used
    here (every product fits in a double)."""
    P = np.unique(np.asarray(points, dtype=np.float64).reshape(-1, 2), axis=0)
    if len(P) <= 2:
        return {tuple(p) for p in P}
    A, B, C = P[:, None, None, :], P[None, :, None, :], P[None, None, :, :]
    cr = _cross(A, B, C)  # [i, j, k]
    ab = B - A
    t = ((C - A) * ab).sum(-1)
    on_segment = (cr == 0) & (t >= 0) & (t <= (ab * ab).sum(-1))
    edge = ((cr > 0) | on_segment).all(axis=2)
    np.fill_diagonal(edge, False)
    i, j = np.nonzero(edge)
    return {tuple(P[k]) for k in np.concatenate([i, j])}


def _vertex_set(hull) -> set:
    return {tuple(v) for v in np.asarray(hull).reshape(-1, 2)}


def _is_strictly_convex_ccw(hull) -> bool:
    """Every three consecutive vertices turn counter-clockwise (no collinear vertex)."""
    h = np.asarray(hull)
    if len(h) < 3:
        return True
    return bool(np.all(_cross(h, np.roll(h, -1, 0), np.roll(h, -2, 0)) > 0))


def _on_an_edge(hull, q) -> bool:
    """Whether q lies on an edge of the hull (a segment's included) but is not a vertex."""
    h = np.asarray(hull).reshape(-1, 2)
    if len(h) < 2 or any(np.array_equal(q, v) for v in h):
        return False
    for a, b in zip(h, np.roll(h, -1, 0)):
        ab = b - a
        t = np.dot(q - a, ab)
        if _cross(a, b, q) == 0 and 0 <= t <= np.dot(ab, ab):
            return True
    return False


def _dyadic(rng, n, bits=20):
    """`n` random points with coordinates k / 2^bits: cross products of them are exact."""
    return rng.integers(0, 2**bits, size=(n, 2)).astype(np.float64) / 2**bits


def _outside_by(hull, p) -> float:
    """How far the point p lies outside the polygon (m >= 3, counter-clockwise), the segment
    (m = 2) or the point (m = 1): 0 inside, +inf for an empty hull."""
    h = np.asarray(hull, dtype=np.float64).reshape(-1, 2)
    p = np.asarray(p, dtype=np.float64)
    if len(h) == 0:
        return math.inf
    if len(h) == 1:
        return float(np.hypot(*(p - h[0])))
    if len(h) == 2:
        a, b = h
        ab = b - a
        t = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0)
        return float(np.hypot(*(p - (a + t * ab))))
    e = np.roll(h, -1, 0) - h
    signed = (e[:, 0] * (p[1] - h[:, 1]) - e[:, 1] * (p[0] - h[:, 0])) / np.hypot(e[:, 0], e[:, 1])
    return float(max(0.0, -signed.min()))


def _close_vertices(a, b, tol) -> bool:
    """Whether two polygons have the same vertices, each within `tol` of one of the other's."""
    a, b = np.asarray(a).reshape(-1, 2), np.asarray(b).reshape(-1, 2)
    if len(a) != len(b):
        return False
    d = np.abs(a[:, None, :] - b[None, :, :]).max(axis=2)
    return bool(len(a) == 0 or (d.min(axis=1).max() <= tol and d.min(axis=0).max() <= tol))


def _tol(*arrays) -> float:
    """1e-9 relative to the largest coordinate involved."""
    return 1e-9 * (1.0 + max((np.abs(a).max() if np.size(a) else 0.0) for a in arrays))


def _sides(lines, pts):
    """ca x + cb y - off for every line (rows) and point (columns)."""
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    return lines[:, :1] * pts[:, 0] + lines[:, 1:2] * pts[:, 1] - lines[:, 2:3]


def _meets(lines, hull):
    """Whether each line meets the convex hull (vertices on both sides or on it)."""
    s = _sides(lines, hull)
    return (s.min(axis=1) <= 0.0) & (s.max(axis=1) >= 0.0)


def _rows_at_nodes(state, X) -> dict:
    """node -> indices of the rows of X whose path (`conftest.route`) goes through it."""
    at = collections.defaultdict(list)
    for i, x in enumerate(X):
        for j in route(state, x):
            at[j].append(i)
    return at


def _pair_columns(tree) -> list:
    """The registry columns (a, b) of each of the tree's pairs."""
    cols = tree.get_state()["columns"]
    return [(int(cols[a]), int(cols[b])) for a, b in tree.pair_slots()]


def _cut_pair(tree, state, j) -> int:
    """The pair that interior node j cuts in: the one whose columns are (feature, feature_b)."""
    key = (int(state["feature"][j]), int(state["feature_b"][j]))
    found = [p for p, cols in enumerate(_pair_columns(tree)) if cols == key]
    assert len(found) == 1, (j, key)
    return found[0]


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return a == b


# ------------------------------------------------------------------------------- 2-D hulls


def _point_sets():
    """Random dyadic point sets of 1 to 30 points, and degenerate ones: duplicates, collinear
    points (on a line of any slope, including vertical and horizontal), grid points, a single
    point repeated."""
    rng = np.random.default_rng(0)
    for n in range(1, 31):
        for _ in range(8):
            yield _dyadic(rng, n)
    for n in range(1, 31):
        # a small integer grid: many duplicates and collinear points
        yield rng.integers(0, 4, size=(n, 2)).astype(np.float64)
        yield rng.integers(0, 3, size=(n, 1)) * np.array([[1.0, 0.0]]) + np.array([[0.0, 2.0]])
        t = rng.integers(-5, 6, size=(n, 1)).astype(np.float64)
        yield np.hstack([t * 0.25 + 1.0, t * -0.75 + 3.0])  # collinear, one slope
        yield np.hstack([np.full((n, 1), 0.5), t])  # vertical
        pts = _dyadic(rng, max(1, n // 2))
        yield np.vstack([pts, pts[::-1]])  # every point twice
    yield np.array([[0.25, 0.75]] * 7)
    yield np.array([[i, j] for i in range(5) for j in range(5)], dtype=np.float64)  # full grid
    yield np.zeros((0, 2))


def test_convex_hull_matches_a_brute_force_hull():
    """`convex_hull` gives exactly the brute-force hull's vertices (no duplicate, no collinear
    vertex), counter-clockwise, on random and degenerate point sets of 0 to 30 points: the
    empty set, one point, all points on a line (its two ends), grids."""
    checked = collections.Counter()
    for pts in _point_sets():
        hull = _hull.convex_hull(pts)
        expected = _brute_hull(pts)
        assert hull.shape == (len(expected), 2), (pts, hull)
        assert _vertex_set(hull) == expected, (pts, hull)
        assert _is_strictly_convex_ccw(hull), hull
        checked[min(len(hull), 3)] += 1
        for p in np.asarray(pts).reshape(-1, 2):
            assert _hull.contains(hull, p)
    assert checked[0] == 1 and checked[1] > 10 and checked[2] > 50 and checked[3] > 250


def test_contains_is_exact_on_dyadic_points():
    """`contains` says a point is in the hull (boundary included) exactly when the brute-force
    hull of the points with it added is the same hull."""
    rng = np.random.default_rng(1)
    for n in (1, 2, 3, 6, 15):
        for _ in range(20):
            pts = rng.integers(0, 6, size=(n, 2)).astype(np.float64) / 4
            hull = _hull.convex_hull(pts)
            for q in rng.integers(-1, 8, size=(10, 2)).astype(np.float64) / 4:
                inside = _brute_hull(np.vstack([hull, q])) == _vertex_set(hull)
                assert _hull.contains(hull, q) == inside, (hull, q)


@pytest.mark.parametrize("sx, sy", [(1.0, 1.0), (2.5, 0.3), (0.0, 1.0)])
def test_add_point_is_the_hull_of_the_hull_and_the_point(sx, sy):
    """For hulls of 0 to 30 points and a point outside them, strictly inside them, or on one
    of their vertices, `add_point` gives the vertices of `convex_hull(hull + point)`, and its
    scaled perimeter increase is the difference of the scaled `perimeter`s (a zero scale
    included)."""
    rng = np.random.default_rng(2)
    kinds = collections.Counter()
    for pts in _point_sets():
        hull = _hull.convex_hull(pts)
        lo = hull.min(axis=0) if len(hull) else np.zeros(2)
        hi = hull.max(axis=0) if len(hull) else np.ones(2)
        span = np.maximum(hi - lo, 0.5)
        candidates = list(_dyadic(rng, 4) * 3 * span + lo - span)  # mostly outside
        candidates += [hull[k] for k in range(len(hull))]  # its vertices
        if len(hull) >= 3:
            candidates.append(hull.mean(axis=0))  # strictly inside
        for q in candidates:
            if _on_an_edge(hull, q):
                # hull_add's precondition (q outside, or inside, or a vertex) fails: a case the
                # tree never asks for (a point on the boundary is in the hull)
                continue
            new, grew = _hull.add_point(hull, q, sx, sy)
            ref = _hull.convex_hull(np.vstack([hull, q]))
            assert _vertex_set(new) == _vertex_set(ref), (hull, q, new)
            assert _is_strictly_convex_ccw(new)
            expected = _hull.perimeter(ref, sx, sy) - _hull.perimeter(hull, sx, sy)
            assert grew == pytest.approx(expected, rel=1e-9, abs=1e-12), (hull, q)
            kinds["outside" if not _hull.contains(hull, q) else "inside"] += 1
    assert kinds["outside"] > 1000 and kinds["inside"] > 1000


def test_perimeter_of_points_segments_and_polygons():
    """A point has perimeter 0, a segment twice its (scaled) length, a polygon the sum of its
    scaled edges."""
    assert _hull.perimeter(np.zeros((0, 2))) == 0.0
    assert _hull.perimeter([[1.0, 2.0]]) == 0.0
    assert _hull.perimeter([[0.0, 0.0], [3.0, 4.0]]) == pytest.approx(10.0)
    assert _hull.perimeter([[0.0, 0.0], [3.0, 4.0]], 2.0, 0.5) == pytest.approx(
        2 * math.hypot(6, 2))
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    assert _hull.perimeter(square, 3.0, 0.5) == pytest.approx(2 * 3.0 + 2 * 0.5)


@pytest.mark.parametrize("cap", [4, 5, 6, 9])
def test_reduce_is_a_small_superset(cap):
    """`reduce(hull, cap)` returns a convex polygon of at most `cap` vertices holding every
    vertex of the hull (within 1e-9), and leaves a hull of `cap` vertices or fewer as it is."""
    rng = np.random.default_rng(cap)
    reduced = 0
    for n in range(3, 40):
        for shape in ("disc", "circle", "square"):
            if shape == "circle":  # every point a vertex
                t = np.sort(rng.random(n)) * 2 * math.pi
                pts = np.column_stack([np.cos(t), np.sin(t)]) * rng.random() * 10
            elif shape == "disc":
                pts = rng.normal(size=(n, 2))
            else:
                pts = rng.random((n, 2)) * [100.0, 0.01]  # a flat cloud
            hull = _hull.convex_hull(pts)
            small = _hull.reduce(hull, cap)
            assert len(small) <= cap
            if len(hull) <= cap:
                assert np.array_equal(small, hull)
                continue
            reduced += 1
            tol = _tol(hull, small)
            assert np.all(_cross(small, np.roll(small, -1, 0), np.roll(small, -2, 0)) >= -tol)
            for v in hull:
                assert _outside_by(small, v) <= tol, (hull, small, v)
    assert reduced > 30


# ------------------------------------------------------------------------------- random lines


def _polygons():
    """Hulls of 2 to 12 random points (segments included), and a unit square."""
    rng = np.random.default_rng(5)
    for n in range(2, 13):
        for _ in range(5):
            hull = _hull.convex_hull(rng.normal(size=(n, 2)) * [3.0, 0.5])
            if len(hull) >= 2:
                yield hull
    yield np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


@pytest.mark.parametrize("sx, sy", [(1.0, 1.0), (4.0, 0.25)])
def test_random_lines_meet_the_hull(sx, sy):
    """Every line `random_lines(hull, n)` draws meets the hull: the hull has vertices on both
    sides of it (or on it); a single point, without perimeter, gets no line (NaN rows)."""
    for seed, hull in enumerate(_polygons()):
        lines = _hull.random_lines(hull, 200, sx=sx, sy=sy, seed=seed)
        assert np.isfinite(lines).all()
        s = _sides(lines, hull)
        tol = _tol(hull, lines[:, 2])
        assert np.all(s.min(axis=1) <= tol) and np.all(s.max(axis=1) >= -tol), hull
    assert np.isnan(_hull.random_lines([[0.5, 0.5]], 3)).all()


@pytest.mark.parametrize("sx, sy", [(1.0, 1.0), (4.0, 0.25)])
def test_separating_lines_leave_the_hull_and_the_point_apart(sx, sy):
    """Every line `random_lines(hull, n, point=q)` draws for q outside the hull has every
    vertex of the hull on the side ca x + cb y <= off and q strictly on the other side, for
    hulls of 1 point, segments and polygons, and for q in line with a segment or an edge."""
    rng = np.random.default_rng(6)
    checked = 0
    for seed, hull in enumerate(list(_polygons()) + [np.array([[0.1, 0.2]])]):
        for q in rng.normal(size=(6, 2)) * [6.0, 3.0]:
            if _hull.contains(hull, q) or _outside_by(hull, q) < 1e-6:
                continue
            lines = _hull.random_lines(hull, 100, point=q, sx=sx, sy=sy, seed=seed)
            assert np.isfinite(lines).all()
            assert np.all(_sides(lines, hull) <= 0.0), (hull, q)
            assert np.all(_sides(lines, q) > 0.0), (hull, q)
            checked += 1
    assert checked > 200
    # degenerate: q on the line of a segment or of an edge, or close to a vertex (a line
    # between points 1e-12 apart is beyond floating point: the tree re-checks x's side)
    seg = np.array([[0.0, 0.0], [1.0, 1.0]])
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    for hull, q in ((seg, (2.0, 2.0)), (seg, (-0.5, -0.5)), (square, (3.0, 0.0)),
                    (square, (1.0, 1.0 + 1e-6)), (np.array([[0.3, 0.3]]), (0.3, 0.3 + 1e-6))):
        lines = _hull.random_lines(hull, 2000, point=q, sx=sx, sy=sy, seed=1)
        assert np.isfinite(lines).all()
        assert np.all(_sides(lines, hull) <= 0.0) and np.all(_sides(lines, q) > 0.0), (hull, q)


@pytest.mark.parametrize("sx, sy", [(1.0, 1.0), (4.0, 0.25)])
def test_separating_lines_leave_a_sliver_hull_apart(sx, sy):
    """A convex hull may turn by less than atan2 can resolve at a vertex (near-collinear
    data: a pair of features in a linear relation up to rounding). The triangle (0, 0),
    (1, -1e-17), (2, 0) is exactly convex (`convex_hull` keeps all three vertices); every
    line separating it from q = (3, 0) must still leave the three vertices on the side
    ca x + cb y <= off."""
    hull = _hull.convex_hull(np.array([[0.0, 0.0], [1.0, -1e-17], [2.0, 0.0]]))
    assert len(hull) == 3 and _is_strictly_convex_ccw(hull)
    q = (3.0, 0.0)
    lines = _hull.random_lines(hull, 1000, point=q, sx=sx, sy=sy, seed=0)
    assert np.all(_sides(lines, q) > 0.0)
    crossing = (_sides(lines, hull) > 0.0).any(axis=1)
    assert not crossing.any(), f"{crossing.sum()} of 1000 lines cross the hull"


@pytest.mark.parametrize("sx, sy", [(1.0, 1.0), (3.0, 0.5)])
def test_crofton_lines_meeting_an_inner_convex_set(sx, sy):
    """Cauchy-Crofton: of the lines meeting a convex A drawn from the line measure, the share
    that also meet a convex B inside A is perimeter(B) / perimeter(A), perimeters measured
    after scaling x by sx and y by sy. Checked for a triangle, a random polygon, a segment
    (twice its length) and A itself (all of them)."""
    A = np.array([[0.0, 0.0], [2.0, 0.0], [2.5, 1.5], [1.0, 2.5], [-0.5, 1.0]])
    rng = np.random.default_rng(7)
    inner = [
        np.array([[0.5, 0.5], [1.5, 0.4], [1.0, 1.5]]),
        _hull.convex_hull(rng.random((12, 2)) * 0.8 + [0.6, 0.5]),
        np.array([[0.2, 0.3], [1.8, 1.2]]),
        A,
    ]
    n = 20_000
    lines = _hull.random_lines(A, n, sx=sx, sy=sy, seed=11)
    assert _meets(lines, A).all()
    for B in inner:
        assert all(_outside_by(A, v) == 0.0 for v in B)
        share = _meets(lines, B).mean()
        expected = _hull.perimeter(B, sx, sy) / _hull.perimeter(A, sx, sy)
        # binomial sd <= 0.0036: 0.02 is more than five of them
        assert share == pytest.approx(expected, abs=0.02), (B, share, expected)


@pytest.mark.parametrize("sx, sy", [(1.0, 1.0), (10.0, 0.1)])
def test_line_directions_follow_the_width(sx, sy):
    """For a long thin rectangle (10 x 0.1 after scaling), the normal direction theta of the
    lines meeting it has density width(theta) / perimeter, so E[1 / width(theta)] =
    pi / perimeter (about 0.156, while a uniform direction gives about 0.31); and given the
    direction the line's position across the rectangle is uniform."""
    rect = np.array([[0.0, 0.0], [10.0 / sx, 0.0], [10.0 / sx, 0.1 / sy], [0.0, 0.1 / sy]])
    per = _hull.perimeter(rect, sx, sy)
    assert per == pytest.approx(20.2)
    lines = _hull.random_lines(rect, 20_000, sx=sx, sy=sy, seed=3)
    # the normal in scaled units: (ca / sx, cb / sy), a unit vector
    nx, ny = lines[:, 0] / sx, lines[:, 1] / sy
    assert np.allclose(np.hypot(nx, ny), 1.0)
    width = 10.0 * np.abs(nx) + 0.1 * np.abs(ny)
    assert np.mean(1.0 / width) == pytest.approx(math.pi / per, rel=0.05)
    # a line is drawn with its normal pointing away from the rectangle's centre: orient every
    # normal into the upper half-plane to read its position across the rectangle
    up = np.where((ny > 0) | ((ny == 0) & (nx > 0)), 1.0, -1.0)
    s = _sides(lines * up[:, None], rect)
    lo, hi = s.min(axis=1), s.max(axis=1)
    position = -lo / (hi - lo)  # 0 at the lowest vertex along the normal, 1 at the highest
    assert np.all((position >= 0.0) & (position <= 1.0))
    counts = np.histogram(position, bins=4, range=(0.0, 1.0))[0]
    assert np.all(np.abs(counts / len(lines) - 0.25) < 0.02), counts


def test_separating_lines_are_the_line_measure_restricted():
    """GenCutNotCross draws from the line measure restricted to the lines separating q from
    K: (1) among the lines meeting hull(K + q), the share separating them is
    (perimeter(hull(K + q)) - perimeter(K)) / perimeter(hull(K + q)); (2) the separating lines
    drawn directly (`point=q`) have the distribution of those: same mean oriented normal and
    same mean distance from q, within sampling error."""
    K = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    for q in ([2.5, 0.4], [1.6, 1.8], [-0.3, 0.5]):
        q = np.array(q)
        big = _hull.convex_hull(np.vstack([K, q]))
        grown = _hull.perimeter(big) - _hull.perimeter(K)
        hitting = _hull.random_lines(big, 40_000, seed=1)
        s_k, s_q = _sides(hitting, K), _sides(hitting, q)[:, 0]
        separating = ((s_k.max(axis=1) < 0) & (s_q > 0)) | ((s_k.min(axis=1) > 0) & (s_q < 0))
        assert separating.mean() == pytest.approx(grown / _hull.perimeter(big), abs=0.015)
        # oriented so that q is on the positive side
        ref = hitting[separating] * np.sign(s_q[separating])[:, None]
        direct = _hull.random_lines(K, 20_000, point=q, seed=2)
        for sample in (ref, direct):
            assert np.allclose(np.hypot(sample[:, 0], sample[:, 1]), 1.0)
        stats = [np.array([s[:, 0].mean(), s[:, 1].mean(), _sides(s, q)[:, 0].mean()])
                 for s in (ref, direct)]
        assert np.allclose(stats[0], stats[1], atol=0.03), (q, stats)


# ------------------------------------------------------------------------------- trees


@pytest.fixture(scope="module")
def grown_trees():
    """Trees of 1500 uniform points in 2-D and 4-D that approximate nothing (uncapped hulls,
    kept points and nodes), with the rows they learned."""
    out = []
    for d, scale in ((2, 2.0), (4, 1.0)):
        tree, X, y = _grow(1500, d, seed=d, budget_scale=scale)
        out.append((tree, X, y))
    return out


def test_tree_nodes_hold_the_points_routed_through_them(grown_trees):
    """For every node and every pair, the node's hull (in the units of x) holds, within 1e-9,
    the projection of every learned point that `route` sends through the node; a node's count
    is the number of those points (every point kept, so counts are exact); a leaf keeps
    exactly its points, with their labels."""
    for tree, X, y in grown_trees:
        state = tree.get_state()
        assert state["split"] == "oblique"
        at = _rows_at_nodes(state, X)
        pairs = _pair_columns(tree)
        assert len(pairs) == X.shape[1] * (X.shape[1] - 1) // 2
        tol = _tol(X)
        for j in range(tree.node_count):
            rows = at[j]
            assert state["count"][j] == len(rows), j
            for p, (a, b) in enumerate(pairs):
                hull = tree.hull(j, p)
                assert 1 <= len(hull) and np.isfinite(hull).all()
                for i in rows:
                    assert _outside_by(hull, X[i, [a, b]]) <= tol, (j, p, i)
            if state["left"][j] < 0:
                pts, tg = tree.kept_points(j)
                order = np.lexsort(pts.T[::-1])
                expected = X[rows][np.lexsort(X[rows].T[::-1])]
                assert np.array_equal(pts[order], expected), j
                assert np.array_equal(np.sort(tg[:, 0]), np.sort(y[rows]))
                assert np.all(tg[:, 1] == 1.0)


def test_tree_hulls_nest_and_cuts_are_oblique(grown_trees):
    """A child's hull lies inside its parent's in every pair (within 1e-9); every interior
    node has seen at least 4 points; cut times increase along every root-to-leaf path and
    never pass the budget (leaves have tau = inf); the cuts are oblique (two distinct
    features, both coefficients non-zero) and both kinds of cuts happened."""
    for tree, X, _ in grown_trees:
        state = tree.get_state()
        left, right, parent, tau = state["left"], state["right"], state["parent"], state["tau"]
        n_pairs = len(tree.pair_slots())
        tol = _tol(X)
        interior = np.nonzero(left >= 0)[0]
        assert len(interior) > 30
        assert tree.cuts > 10 and tree.inserted > 3
        assert len(interior) == tree.cuts + tree.inserted
        assert state["count"][interior].min() >= 4
        assert np.all(np.isinf(tau[left < 0]))
        assert np.all(tau[interior] <= tree.current_budget)
        for j in interior:
            for c in (left[j], right[j]):
                assert parent[c] == j
                assert tau[j] < tau[c]
                for p in range(n_pairs):
                    outer = tree.hull(j, p)
                    for v in tree.hull(c, p):
                        assert _outside_by(outer, v) <= tol, (j, c, p)
        assert np.all(state["feature"][interior] != state["feature_b"][interior])
        oblique = (state["coef_a"][interior] != 0) & (state["coef_b"][interior] != 0)
        assert oblique.mean() > 0.95


@pytest.mark.parametrize("d, params", [
    (2, {}), (4, {}), (4, dict(max_hull_vertices=5, max_leaf_points=4)),
    (30, dict(max_pairs=7, max_hull_vertices=5, max_leaf_points=6)),
])
def test_cut_rates_are_half_the_hull_perimeters(d, params):
    """The budget's clock cuts a leaf at half the sum of its hulls' perimeters in root units
    (x scaled by the tree's `scale`), 0 for a leaf of 3 points or fewer; an interior node's
    rate is the sum of its children's (so the root's is the tree's total). Checked on exact and
    capped trees."""
    X, y = _data(1500, d, seed=d)
    tree = _tree(seed=3, **params)
    tree.learn_rows(X, y)
    state = tree.get_state()
    scale, rate, left, right = state["scale"], state["rate"], state["left"], state["right"]
    pairs = tree.pair_slots()
    assert tree.node_count > 40
    for j in range(tree.node_count):
        if left[j] < 0:
            expected = 0.0
            if state["count"][j] > 3:
                expected = 0.5 * sum(_hull.perimeter(tree.hull(j, p), scale[a], scale[b])
                                     for p, (a, b) in enumerate(pairs))
            assert rate[j] == pytest.approx(expected, rel=1e-9, abs=1e-12), j
        else:
            assert rate[j] == pytest.approx(rate[left[j]] + rate[right[j]], rel=1e-9, abs=1e-12)
    assert np.all(scale[:d] == pytest.approx(1.0 / np.ptp(X, axis=0), rel=0.1))


def test_kept_points_lie_on_their_side_of_every_cut_above(grown_trees):
    """Every point a leaf keeps lies, for each cut on its root path, on the side of that cut
    its path takes (coef_a x[feature] + coef_b x[feature_b] <= threshold for a left child,
    > for a right one): the tree's own redistribution of kept points, checked against the
    router's rule."""
    for tree, _, _ in grown_trees:
        state = tree.get_state()
        cols = state["columns"]
        checked = 0
        for leaf in np.nonzero(state["left"] < 0)[0]:
            pts, _ = tree.kept_points(leaf)
            x = np.full((len(pts), int(cols.max()) + 1), np.nan)
            x[:, cols] = pts
            c = leaf
            while state["parent"][c] >= 0:
                j = state["parent"][c]
                side = (state["coef_a"][j] * x[:, state["feature"][j]]
                        + state["coef_b"][j] * x[:, state["feature_b"][j]] <= state["threshold"][j])
                assert np.all(side if c == state["left"][j] else ~side), (leaf, j)
                checked += len(pts)
                c = j
        assert checked > 1000


def test_cuts_never_cross_a_childs_hull(grown_trees):
    """In the pair a node cuts in (its columns feature, feature_b mapped back to a pair of
    slots), every vertex of its left child's hull lies on the side coef_a u + coef_b v <=
    threshold and every vertex of its right child's on the other (within 1e-9): no cut
    crosses a hull, those GenCutNotCross inserted above a node included. An inserted cut's
    right child started as a leaf holding only the point that caused it: such cuts are
    present and their left child (the old node) has its whole hull on the left."""
    for tree, X, _ in grown_trees:
        state = tree.get_state()
        tol = _tol(X)
        inserted_like = 0
        for j in np.nonzero(state["left"] >= 0)[0]:
            p = _cut_pair(tree, state, j)
            ca, cb, thr = state["coef_a"][j], state["coef_b"][j], state["threshold"][j]
            lh, rh = tree.hull(state["left"][j], p), tree.hull(state["right"][j], p)
            assert len(lh) and len(rh)
            assert np.all(ca * lh[:, 0] + cb * lh[:, 1] - thr <= tol), j
            assert np.all(ca * rh[:, 0] + cb * rh[:, 1] - thr > -tol), j
            # the old node below an inserted cut keeps its points; the new leaf one point
            if state["count"][state["right"][j]] == 1 and state["left"][state["right"][j]] < 0:
                inserted_like += 1
        assert tree.inserted > 0 and inserted_like > 0


def test_inserted_cuts_separate_the_old_hull_on_a_small_stream():
    """Learning one row x at a time, whenever GenCutNotCross inserts a parent q above a node:
    q's right child is a new leaf holding x alone; q's left child is the old node, whose hull
    just before (in q's pair) lies on the side coef_a u + coef_b v <= threshold while x lies
    strictly on the other; q's hull in every pair is the old node's hull with x added, its
    count the old node's plus one, and its cut time lies between its parent's and the old
    node's."""
    X, y = _data(600, 3, seed=9)
    tree = _tree(seed=4, budget_scale=2.0)
    seen = 0
    for i in range(len(X)):
        before = tree.get_state()
        n_pairs = len(tree.pair_slots())
        hulls = {j: [tree.hull(j, p) for p in range(n_pairs)] for j in range(tree.node_count)}
        n_inserted = tree.inserted
        _one(tree, X[i], y[i])
        if tree.inserted == n_inserted:
            continue
        assert tree.inserted == n_inserted + 1
        state = tree.get_state()
        # the new parent: a new interior node whose right child is a leaf holding x alone
        found = [q for q in range(len(before["left"]), tree.node_count)
                 if state["left"][q] >= 0 and state["left"][state["right"][q]] < 0
                 and np.array_equal(tree.kept_points(state["right"][q])[0], X[i:i + 1])]
        assert len(found) == 1, i
        q = found[0]
        old, s = state["left"][q], state["right"][q]
        assert state["count"][s] == 1 and state["stored"][s] == 1
        if old not in hulls:
            continue  # a leaf born earlier in this same step (a budget cut): no "before"
        assert state["count"][q] == before["count"][old] + 1
        assert state["parent"][old] == q
        up = state["parent"][q]
        assert up == before["parent"][old]
        assert (state["tau"][up] if up >= 0 else 0.0) < state["tau"][q]
        assert state["tau"][q] < before["tau"][old]
        cols = _pair_columns(tree)
        for p in range(n_pairs):
            grown = _hull.convex_hull(np.vstack([hulls[old][p], X[i, list(cols[p])]]))
            assert _close_vertices(tree.hull(q, p), grown, _tol(X)), (i, p)
        p = _cut_pair(tree, state, q)
        a, b = cols[p]
        ca, cb, thr = state["coef_a"][q], state["coef_b"][q], state["threshold"][q]
        h = hulls[old][p]
        assert np.all(ca * h[:, 0] + cb * h[:, 1] <= thr + _tol(X))
        assert ca * X[i, a] + cb * X[i, b] > thr
        seen += 1
    assert seen > 20


@pytest.mark.parametrize("seed", range(4))
def test_cuts_never_cross_a_hull_on_a_near_collinear_pair(seed):
    """Two features in a linear relation up to rounding (x1 = 2 x0 + 1, x0 increasing) make
    hulls that are slivers: still, no cut crosses a child's hull, and the partition stays
    the one the points were learned in (a node's count is the number of learned points
    routed through it, every node's hull holds them)."""
    x = np.linspace(0.0, 1.0, 1500)
    X = np.ascontiguousarray(np.column_stack([x, 2.0 * x + 1.0]))
    tree = _tree(seed=seed, budget_scale=2.0)
    tree.learn_rows(X, np.zeros(len(X)))
    state = tree.get_state()
    tol = _tol(X)
    assert tree.inserted > 10
    for j in np.nonzero(state["left"] >= 0)[0]:
        ca, cb, thr = state["coef_a"][j], state["coef_b"][j], state["threshold"][j]
        lh, rh = tree.hull(state["left"][j], 0), tree.hull(state["right"][j], 0)
        assert np.all(ca * lh[:, 0] + cb * lh[:, 1] - thr <= tol), j
        assert np.all(ca * rh[:, 0] + cb * rh[:, 1] - thr > -tol), j
    at = _rows_at_nodes(state, X)
    for j in range(tree.node_count):
        assert state["count"][j] == len(at[j]), j
        assert all(_outside_by(tree.hull(j, 0), X[i]) <= tol for i in at[j]), j


@pytest.mark.parametrize("d", [2, 3])
def test_partition_ignores_the_labels_of_a_tree(d):
    """Same rows, same seed, other labels (classification with other classes, regression
    with any targets): the partition, its hulls and kept points' places are identical."""
    X, y = _data(1500, d, seed=d)
    rng = np.random.default_rng(3)
    runs = [(0, y), (0, rng.integers(0, 5, len(y)).astype(np.float64)),
            (1, rng.normal(size=len(y))), (1, y * 100.0)]
    states = []
    for task, labels in runs:
        tree = _tree(task=task, seed=7, max_hull_vertices=8, max_leaf_points=10)
        tree.learn_rows(X, labels)
        states.append(tree.get_state())
    assert len(states[0]["left"]) > 50
    for other in states[1:]:
        for key in STRUCTURE:
            assert _same(states[0][key], other[key]), key


def test_forest_partition_ignores_the_labels():
    """A forest learning the same features with the same seed builds the same trees whatever
    the labels: classes 0/1, classes 'a', 'b', 'c' drawn at random, or the regressor with
    random targets (under the same support rule and axis cuts: the regressor's defaults
    differ from the classifier's)."""
    data = uniform_stream(800, 3, seed=2)
    rng = random.Random(1)
    models = [cls(n_estimators=2, seed=5, min_split_points=3, axis_rate=0.25)
              for cls in (BSPForestClassifier, BSPForestClassifier,
                          BSPForestRegressor, BSPForestRegressor)]
    for x, y in data:
        models[0].learn_one(x, y)
        models[1].learn_one(x, rng.choice("abc"))
        models[2].learn_one(x, rng.gauss(0.0, 1.0))
        models[3].learn_one(x, float(y))
    first = [t.get_state() for t in models[0].trees]
    assert all(len(s["left"]) > 50 for s in first)
    for model in models[1:]:
        for a, tree in zip(first, model.trees):
            b = tree.get_state()
            for key in STRUCTURE:
                assert _same(a[key], b[key]), key


def test_rescaling_a_feature_by_a_power_of_two_changes_only_its_coefficients():
    """Lengths are measured in units of each feature's root range: multiplying feature k by
    c_k = 2^e (exact in floating point) gives the same tree, thresholds included, with
    coefficients divided by c_k."""
    X, y = _data(2000, 3, seed=1)
    c = np.array([2.0**10, 2.0**-7, 8.0])
    a, b = (_tree(seed=4, max_hull_vertices=8, max_leaf_points=16) for _ in range(2))
    a.learn_rows(X, y)
    b.learn_rows(np.ascontiguousarray(X * c), y)
    sa, sb = a.get_state(), b.get_state()
    for key in ("left", "right", "feature", "feature_b", "threshold", "tau", "count", "stored"):
        assert _same(sa[key], sb[key]), key
    inner = sa["left"] >= 0
    assert inner.sum() > 50
    assert np.array_equal(sa["coef_a"][inner] / c[sa["feature"][inner]], sb["coef_a"][inner])
    assert np.array_equal(sa["coef_b"][inner] / c[sa["feature_b"][inner]], sb["coef_b"][inner])


# ------------------------------------------------------------------------------- budget


@pytest.mark.parametrize("d, scale", [(2, 1.0), (3, 2.5), (5, 0.5)])
def test_consistent_budget_schedule(d, scale):
    """During the 16 warm-up samples the budget is 0 and the tree is its root; after n > 16
    samples on d features the budget is growth_scale * n^(1 / (d + 2))."""
    X, y = _data(400, d, seed=d)
    tree = _tree(budget_scale=scale)
    for n in range(1, 401):
        _one(tree, X[n - 1], y[n - 1])
        if n <= 16:
            assert tree.current_budget == 0.0 and tree.node_count == 1
        elif n in (17, 18, 50, 400):
            assert tree.current_budget == pytest.approx(scale * n ** (1 / (d + 2)), rel=1e-12)
    assert tree.samples_seen == 400


def test_fixed_budget():
    """growth=float: after the warm-up the budget is that value and stays there."""
    X, y = _data(300, 3, seed=0)
    tree = _tree(consistent=False, fixed_budget=2.5)
    tree.learn_rows(X[:16].copy(), y[:16].copy())
    assert tree.current_budget == 0.0 and tree.node_count == 1
    for n in range(16, 300):
        _one(tree, X[n], y[n])
        assert tree.current_budget == 2.5
    assert tree.node_count > 3


@pytest.mark.parametrize("cls", [BSPForestClassifier, BSPForestRegressor])
def test_forest_budget_reaches_its_trees(cls):
    """The forest's `budget` and `growth_scale` reach every tree: growth_scale * n^(1/(d+2))
    with d the features the tree has, or the fixed value."""
    data = uniform_stream(500, 3, seed=1)
    consistent = cls(n_estimators=2, growth_scale=1.7, seed=0)
    fixed = cls(n_estimators=2, growth=3.25, seed=0)
    for x, y in data:
        for model in (consistent, fixed):
            model.learn_one(x, y if cls is BSPForestClassifier else float(y))
    for tree in consistent.trees:
        assert tree.current_budget == pytest.approx(1.7 * 500 ** (1 / 5), rel=1e-12)
    assert all(tree.current_budget == 3.25 for tree in fixed.trees)


# ------------------------------------------------------------------------------- memory


@pytest.mark.parametrize("cls", [BSPForestClassifier, BSPForestRegressor])
def test_memory_bounds_on_a_wide_stream(cls):
    """On 30 features: each tree cuts in max_pairs distinct pairs of its slots (out of 435),
    every hull has at most max_hull_vertices vertices, every leaf keeps at most
    max_leaf_points points (interior nodes none)."""
    model = cls(n_estimators=3, max_pairs=7, max_hull_vertices=5, max_leaf_points=6,
                max_nodes=10**5, seed=5)
    for x, y in uniform_stream(1500, 30, seed=2):
        model.learn_one(x, y if cls is BSPForestClassifier else float(y))
    for tree in model.trees:
        state = tree.get_state()
        pairs = tree.pair_slots()
        assert state["n_pairs"] == len(pairs) == 7
        assert len({tuple(p) for p in pairs}) == 7
        assert np.all((pairs >= 0) & (pairs < 30)) and np.all(pairs[:, 0] != pairs[:, 1])
        assert tree.node_count > 100
        sizes = [len(tree.hull(j, p)) for j in range(tree.node_count) for p in range(7)]
        assert max(sizes) == 5
        leaves = state["left"] < 0
        assert state["stored"].max() == 6 and np.all(state["stored"][~leaves] == 0)
        for j in range(tree.node_count):
            assert len(tree.kept_points(j)[0]) == state["stored"][j] <= 6


def test_pairs_are_a_uniform_sample_as_features_arrive():
    """With more pairs than `max_pairs`, each tree keeps a uniform sample of the pairs of its
    slots (a reservoir as slots arrive): 10 features first, then 20 more. Of 435 pairs, 45
    join two early features and 190 two late ones: over 200 trees of 5 distinct pairs each
    the shares match (late pairs are not favoured by arriving last, nor early ones by being
    first)."""
    model = BSPForestRegressor(n_estimators=200, max_pairs=5, seed=0)
    rng = random.Random(0)
    for i in range(40):
        model.learn_one({f"x{j}": rng.random() for j in range(10 if i < 20 else 30)}, rng.random())
    names = model._core.features.names
    kept = []
    for tree in model.trees:
        cols = tree.get_state()["columns"]
        pairs = {tuple(sorted(int(names[cols[a]][1:]) for a in pair)) for pair in tree.pair_slots()}
        assert len(pairs) == 5 and all(a != b for a, b in pairs)
        kept.extend(pairs)
    kept = np.array(kept)
    assert (kept < 10).all(axis=1).mean() == pytest.approx(45 / 435, abs=0.035)
    assert (kept >= 10).all(axis=1).mean() == pytest.approx(190 / 435, abs=0.06)


def test_at_max_nodes_points_are_dropped_and_memory_freezes():
    """A tree that reaches max_nodes drops every kept point (stored all 0) and every hull (they
    serve only to cut) on its next sample, and shrinks; from then on its size (`__sizeof__`),
    nodes and cuts stay as they are, even for points far outside the old hulls, while its
    counts go on learning."""
    rng = np.random.default_rng(0)
    X = np.ascontiguousarray(rng.random((3000, 30)))
    y = (X[:, 0] > 0.5).astype(np.float64)
    tree = BSPTree(task=0, max_nodes=63, seed=4, max_pairs=7, max_hull_vertices=5,
                   max_leaf_points=6)
    i = 0
    while tree.node_count + 2 <= 63:
        _one(tree, X[i], y[i])
        i += 1
        assert i < 3000, "the tree should reach its cap"
    assert tree.get_state()["stored"].sum() > 0
    full = tree.__sizeof__()
    _one(tree, X[i], y[i])
    i += 1
    frozen = tree.get_state()
    size = tree.__sizeof__()
    assert frozen["stored"].sum() == 0 and len(frozen["hulls"]) == 0 and size < full
    assert all(len(tree.kept_points(j)[0]) == 0 for j in range(tree.node_count))
    assert all(len(tree.hull(j, p)) == 0 for j in range(tree.node_count) for p in range(7))
    far = np.ascontiguousarray(rng.random((1000, 30)) * 4.0 - 1.5)
    tree.learn_rows(far, y[:1000].copy())
    after = tree.get_state()
    assert tree.__sizeof__() == size and tree.node_count == len(frozen["left"])
    for key in ("left", "right", "feature", "feature_b", "coef_a", "coef_b", "threshold", "tau",
                "hulls", "stored"):
        assert _same(frozen[key], after[key]), key
    assert after["count"][after["root"]] == i + 1000 == tree.samples_seen


# ------------------------------------------------------------------------------- parameters


@pytest.mark.parametrize("cls", [BSPForestClassifier, BSPForestRegressor])
@pytest.mark.parametrize("params, name", [
    (dict(growth="x"), "growth"),
    (dict(growth="Consistent"), "growth"),
    (dict(growth=0), "growth"),
    (dict(growth=-1), "growth"),
    (dict(growth=float("nan")), "growth"),
    (dict(growth=float("inf")), "growth"),
    (dict(growth=True), "growth"),
    (dict(growth=None), "growth"),
    (dict(growth_scale=0), "growth_scale"),
    (dict(growth_scale=-1.0), "growth_scale"),
    (dict(growth_scale="1"), "growth_scale"),
    (dict(max_pairs=0), "max_pairs"),
    (dict(max_pairs=1.0), "max_pairs"),
    (dict(max_pairs=2**21), "max_pairs"),
    (dict(max_hull_vertices=3), "max_hull_vertices"),
    (dict(max_hull_vertices=8.0), "max_hull_vertices"),
    (dict(max_hull_vertices=True), "max_hull_vertices"),
    (dict(max_leaf_points=-1), "max_leaf_points"),
    (dict(max_leaf_points="3"), "max_leaf_points"),
    (dict(max_leaf_points=None), "max_leaf_points"),
    (dict(max_leaf_points=2**16 + 1), "max_leaf_points"),
    (dict(max_hull_vertices=2**10 + 1), "max_hull_vertices"),
])
def test_bad_parameters_name_themselves(cls, params, name):
    """A bad BSP parameter is a ValueError whose message starts with the parameter's name."""
    with pytest.raises(ValueError, match=f"^{name} must be"):
        cls(**params)


@pytest.mark.parametrize("cls", [BSPForestClassifier, BSPForestRegressor])
def test_smallest_accepted_parameters_learn(cls):
    """The edge values are accepted and give working trees: max_pairs=1 (one pair),
    max_hull_vertices=4, max_leaf_points=0 (children start from empty hulls), a small fixed
    budget; numpy ints are ints."""
    model = cls(n_estimators=2, growth=0.5, growth_scale=1e-3, max_pairs=np.int64(1),
                max_hull_vertices=4, max_leaf_points=0, seed=0)
    for x, y in uniform_stream(600, 4, seed=3):
        model.learn_one(x, y if cls is BSPForestClassifier else float(y))
    for tree in model.trees:
        state = tree.get_state()
        assert state["n_pairs"] == 1 and state["stored"].sum() == 0
        assert tree.current_budget == 0.5
        assert max(len(tree.hull(j, 0)) for j in range(tree.node_count)) <= 4
    assert sum(t.node_count for t in model.trees) > 2
    p = model.predict_one({"x0": 0.2, "x1": 0.9, "x2": 0.5, "x3": 0.1})
    assert p in (0, 1) if cls is BSPForestClassifier else math.isfinite(p)


# ------------------------------------------------------------------------------- edge streams


def test_one_feature_regressor_is_a_single_leaf_predicting_the_mean():
    """With one feature there is no pair: every tree stays a single leaf (no cut, no hull)
    and the forest predicts the mean of the targets (with mean leaves: a linear leaf would
    follow x), wherever x is."""
    rng = random.Random(0)
    model = BSPForestRegressor(n_estimators=3, seed=0, leaf_model="mean")
    targets = []
    for x, _ in uniform_stream(300, 1, seed=3):
        t = rng.gauss(2.0, 1.0)
        targets.append(t)
        model.learn_one(x, t)
    for tree in model.trees:
        assert tree.node_count == 1 and tree.cuts == 0 and tree.inserted == 0
        assert tree.get_state()["n_pairs"] == 0 and len(tree.pair_slots()) == 0
    for x in ({"x0": 0.3}, {"x0": -50.0}, {}):
        assert model.predict_one(x) == pytest.approx(np.mean(targets), rel=1e-12)


def test_one_feature_classifier_predicts_the_class_frequencies():
    """With one feature a classifier's trees are single leaves and it predicts the class
    frequencies of the stream."""
    rng = random.Random(0)
    model = BSPForestClassifier(n_estimators=3, seed=0)
    labels = []
    for x, _ in uniform_stream(300, 1, seed=3):
        c = rng.choice("aab")
        labels.append(c)
        model.learn_one(x, c)
    assert all(t.node_count == 1 for t in model.trees)
    proba = model.predict_proba_one({"x0": 0.7})
    assert proba["a"] == pytest.approx(labels.count("a") / 300, rel=1e-12)
    assert proba["b"] == pytest.approx(labels.count("b") / 300, rel=1e-12)
    assert model.predict_one({"x0": 0.7}) == "a"


@pytest.mark.parametrize("cls", [BSPForestClassifier, BSPForestRegressor])
def test_missing_values_stay_out_of_the_hulls(cls):
    """A stream with NaN and None in some features (one or two per sample) learns and
    predicts: the pool of hulls never holds a NaN, at any time (a missing value is left out
    of its pairs), every node's hulls are finite, children's hulls still lie inside their
    parents' (hulls uncapped), and predictions with missing or absent features are defined."""
    rng = random.Random(0)
    model = cls(n_estimators=3, seed=1, max_nodes=10**5, max_hull_vertices=1024,
                max_leaf_points=2**16)  # no hull approximated: they nest exactly
    for i, (x, y) in enumerate(uniform_stream(1500, 4, seed=5)):
        if i % 250 == 0:  # the whole pool of hulls (counts and vertices), as it goes
            assert all(np.isfinite(t.get_state()["hulls"]).all() for t in model.trees)
        x = dict(x)
        r = rng.random()
        if r < 0.15:
            x["x1"] = float("nan")
        elif r < 0.3:
            x["x2"] = None
        elif r < 0.35:
            x["x0"] = float("nan")
            x["x3"] = None
        model.learn_one(x, y if cls is BSPForestClassifier else float(y))
    for tree in model.trees:
        state = tree.get_state()
        assert tree.node_count > 20
        assert np.isfinite(state["hulls"]).all()
        for j in range(tree.node_count):
            for p in range(len(tree.pair_slots())):
                assert np.isfinite(tree.hull(j, p)).all()
        for j in np.nonzero(state["left"] >= 0)[0]:
            for c in (state["left"][j], state["right"][j]):
                for p in range(len(tree.pair_slots())):
                    outer = tree.hull(j, p)
                    for v in tree.hull(c, p):
                        assert _outside_by(outer, v) <= 1e-9
    for x in ({"x0": float("nan"), "x1": 0.3, "x2": None, "x3": 0.5}, {"x1": 0.5}, {}):
        p = model.predict_one(x)
        if cls is BSPForestClassifier:
            assert p in (0, 1)
            assert sum(model.predict_proba_one(x).values()) == pytest.approx(1.0)
        else:
            assert math.isfinite(p)


def test_a_cut_that_cannot_be_drawn_is_not_an_error():
    """A cut line that cannot be drawn (a rounding) leaves the tree as it was. It returned -1,
    which the method's ``except -1`` declaration read as an error with no exception set: a
    segfault, met on telecom-churn with a warning detector (half the budget per tree)."""
    from river import drift

    from benchmarks.streams import STREAMS

    model = BSPForestClassifier(n_estimators=10, seed=42, drift_detector=drift.ADWIN(delta=0.001),
                                warning_detector=drift.ADWIN(delta=0.01))
    for x, y in STREAMS["telecom-churn"].samples(2500):
        model.predict_proba_one(x)
        model.learn_one(x, y)
    assert model.n_nodes > 10


# ------------------------------------------------------------------------------- long streams


def _rbf(n, seed, n_features=6, n_classes=4, n_centroids=30):
    from river import datasets

    return itertools.islice(datasets.synth.RandomRBF(
        seed_model=seed, seed_sample=seed + 1, n_classes=n_classes, n_features=n_features,
        n_centroids=n_centroids), n)


def test_a_tree_grown_out_under_a_byte_budget_stays_as_it_is():
    """Under a byte budget, dropping the hulls and kept points frees bytes, which let the tree
    cut again (before 0.3.x): hulls regrown from the points after the drop (one point, two)
    made GenCutNotCross insert parents whose lines crossed the nodes' data, near the root.
    A tree that dropped them is grown out: no node, cut or hull more, its counts learning."""
    model = BSPForestClassifier(n_estimators=2, seed=5, memory_budget="600KB")
    rows = list(_rbf(6000, 11))
    frozen = None
    for i, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        tree = model._core.trees[0]
        state = tree.get_state()
        if frozen is None and state["grown_out"]:
            frozen, at = state, i
    assert frozen is not None and at < 3000, "the budget should grow the tree out"
    assert len(frozen["hulls"]) == 0 and frozen["stored"].sum() == 0
    for key in ("left", "right", "feature", "feature_b", "coef_a", "coef_b", "threshold", "tau"):
        assert _same(frozen[key], state[key]), key
    assert len(state["hulls"]) == 0 and tree.inserted == frozen["n_inserted"]
    assert state["count"][state["root"]] == frozen["count"][frozen["root"]] + len(rows) - 1 - at


def test_a_tree_short_of_bytes_halves_its_kept_points_and_hulls_before_it_grows_out():
    """Under a byte budget a tree first gives room from its kept points and its hulls, half
    of a cap at a time (the pool holding more bytes first, down to 8 points or vertices), and
    goes on cutting; only when neither can give more does it grow out. Every leaf then keeps
    at most the points, every hull at most the vertices, its caps say; a saved tree keeps its
    caps. A larger budget never gives a tree fewer nodes."""
    rows = list(_rbf(6000, 11))
    model = BSPForestClassifier(n_estimators=2, seed=5, memory_budget="600KB")
    lowered = None
    for i, (x, y) in enumerate(rows):
        model.learn_one(x, y)
        tree = model._core.trees[0]
        state = tree.get_state()
        if lowered is None and (state["point_cap"] or state["vertex_cap"]):
            lowered = (i, tree.node_count)
        if state["grown_out"]:
            break
    assert lowered is not None, "the budget should lower a cap"
    assert not state["grown_out"] or state["point_cap"] == state["vertex_cap"] == 8
    # it went on cutting after the first cap was lowered
    assert tree.node_count > lowered[1]
    if not state["grown_out"]:
        caps = (state["point_cap"] or 32, state["vertex_cap"] or 16)
        assert state["stored"].max() <= caps[0]
        for node in range(tree.node_count):
            for p in range(len(tree.pair_slots())):
                assert len(tree.hull(node, p)) <= caps[1]
    nodes = []
    for budget in ("300KB", "600KB", "2MB"):
        m = BSPForestClassifier(n_estimators=2, seed=5, memory_budget=budget)
        for x, y in rows[:3000]:
            m.learn_one(x, y)
        nodes.append(m.n_nodes)
    assert nodes == sorted(nodes), nodes


def test_accuracy_does_not_fall_on_a_stationary_stream():
    """On a stationary stream a consistent forest does not get worse: the last quarter's
    prequential accuracy is not below the second quarter's by more than two standard errors.
    With a byte budget small enough that every tree grows out early. Before 0.3.x each drop
    let the trees cut again through their data (see above): 0.66 in the second quarter, 0.41
    in the last, on this stream (1.5 MB a tree: a tree at its cap was cut anew through its
    data after each drop)."""
    model = BSPForestClassifier(n_estimators=2, seed=7, memory_budget="3MB")
    hits = []
    for x, y in _rbf(12000, 21, n_features=10, n_classes=5, n_centroids=50):
        hits.append(model.predict_one(x) == y)
        model.learn_one(x, y)
    q = np.array_split(np.array(hits, dtype=float), 4)
    p2, p4 = q[1].mean(), q[3].mean()
    se = math.sqrt(p2 * (1 - p2) / len(q[1]) + p4 * (1 - p4) / len(q[3]))
    assert p4 >= p2 - 2 * se, (p2, p4)


def test_the_support_rule_and_axis_rate_reach_the_trees_and_refuse_bad_values():
    """``min_split_points="auto"`` is the paper's 3 for the classifier and for mean leaves and
    more for linear leaves, whose model three points cannot fit; a number is taken as given.
    ``axis_rate`` is a probability. Bad values are a ValueError."""
    def support(model):
        model.learn_one({"a": 0.0, "b": 1.0}, 1.0 if isinstance(model, BSPForestRegressor) else 1)
        return {t.get_state()["min_points"] for t in model._core.trees}

    assert support(BSPForestClassifier(n_estimators=2)) == {3.0}
    assert support(BSPForestRegressor(n_estimators=2, leaf_model="mean")) == {3.0}
    linear = support(BSPForestRegressor(n_estimators=2))
    assert len(linear) == 1 and linear.pop() > 3.0
    assert support(BSPForestRegressor(n_estimators=2, min_split_points=7)) == {7.0}
    for bad in (-1, 2.5, "many", None, True):
        with pytest.raises(ValueError):
            BSPForestRegressor(min_split_points=bad)
    for bad in (-0.1, 1.5, float("nan"), "half"):
        with pytest.raises(ValueError):
            BSPForestClassifier(axis_rate=bad)


def test_axis_cuts_are_parallel_to_an_axis_and_the_paper_s_lines_are_not():
    """With ``axis_rate=1`` every cut drawn as the budget grows has one zero coefficient (a
    cut inserted above a node for a point outside its hull is the paper's either way); with
    0, none has."""
    data = uniform_stream(1500, 3, seed=4)

    def zero_coefficients(rate):
        model = BSPForestClassifier(n_estimators=2, seed=3, axis_rate=rate)
        for x, y in data:
            model.learn_one(x, y)
        zeros = cuts = 0
        for tree in model.trees:
            state = tree.get_state()
            inner = state["left"] >= 0
            zeros += int(np.sum(((state["coef_a"] == 0) | (state["coef_b"] == 0)) & inner))
            cuts += tree.cuts
        return zeros, cuts

    zeros, cuts = zero_coefficients(1.0)
    assert cuts > 20 and zeros >= cuts
    assert zero_coefficients(0.0)[0] == 0
