"""Draw the 2-D partition pictures of the documentation (run by hand, PNGs committed).

    python docs/partitions.py                    # writes docs/img/*.png
    python docs/partitions.py stream_partition   # one page's pictures (names: `FIGURES`)

`plot_partition(ax, model, ...)` draws the leaf cells of one tree of a trained forest over the
forest's decision surface. It only needs what every compiled tree exposes through
``tree.arrays()`` (``root``, ``left``, ``right``, the cut of each interior node and ``split``,
the kind of cut the tree makes) and the forest's ``predict_proba_many``, so the pages of later
forests can reuse it: add their picture to `FIGURES` below.

One routine draws every kind of tree. A cut is read as a half-plane of the two plotted
features, ``a * u + b * v <= c`` for the left child (`CUTS`, by the tree state's ``split``
kind): an ``"axis"`` cut (Mondrian, purely random, stream partitioning, XForest) on feature
f at threshold t is ``u <= t`` or ``v <= t``; an ``"oblique"`` cut (BSP), ``coef_a *
x[feature] + coef_b * x[feature_b] <= threshold``, is that line itself. Each node's cell is
its parent's cell clipped by the half-plane of the parent's cut (Sutherland-Hodgman, from the
plot window), so a leaf's cell is a convex polygon and a cut is drawn only inside its parent's
cell. A cut on a feature that is not plotted leaves both children the whole parent cell. A
kind with no entry in `CUTS` raises `NotImplementedError` instead of being drawn wrongly.

``boxes=True`` also draws the region of the data each leaf has seen, dashed (`REGIONS`, by
kind): the box (``lower`` and ``upper``) of a Mondrian or uniform purely random tree, the
convex hull on the plotted pair of a BSP tree (``tree.hull(node, pair)``), as in fan2020's
figure 2. If the tree keeps a bounded fringe of leaves collecting split statistics (``slot``,
a leaf's fringe slot or -1, as the stream-partitioning tree does), ``fringe=True`` outlines
the fringe's leaves. A picture whose background varies finely (an oblique tree's) is saved
with a 256-colour palette (`save`), to stay as small as the others.
"""

from __future__ import annotations

import io
import itertools
import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402
from river import datasets  # noqa: E402

from river_forests import (  # noqa: E402
    BSPForestClassifier,
    MondrianForestClassifier,
    PurelyRandomForestClassifier,
    StreamPartitionForestClassifier,
    XForestClassifier,
)

IMG = pathlib.Path(__file__).resolve().parent / "img"


def split_kind(state):
    """The kind of cut a tree state makes (``"axis"`` for states saved before the key)."""
    return state.get("split", "axis")


def _axis_cut(state, node, cols):
    """The left half-plane ``(a, b, c)``, a*u + b*v <= c in the plotted features (u, v), of an
    axis-aligned cut (x[feature] <= threshold: left); None for a feature not plotted."""
    f, t = state["feature"][node], state["threshold"][node]
    if f == cols[0]:
        return 1.0, 0.0, t
    if f == cols[1]:
        return 0.0, 1.0, t
    return None


def _oblique_cut(state, node, cols):
    """The left half-plane of an oblique cut, coef_a * x[feature] + coef_b * x[feature_b] <=
    threshold (`_core/_oblique.pxd`); None for a cut in a pair that is not the plotted one."""
    fa, fb = state["feature"][node], state["feature_b"][node]
    ca, cb, t = state["coef_a"][node], state["coef_b"][node], state["threshold"][node]
    if (fa, fb) == (cols[0], cols[1]):
        return ca, cb, t
    if (fa, fb) == (cols[1], cols[0]):
        return cb, ca, t
    return None


#: the half-plane of a node's cut, by the tree state's ``"split"`` kind (`split_kind`)
CUTS = {"axis": _axis_cut, "oblique": _oblique_cut}


def clip(polygon, a, b, c):
    """Sutherland-Hodgman: the part of the convex `polygon` ((m, 2) array, m may be 0) where
    a*u + b*v <= c."""
    out = []
    m = len(polygon)
    for k in range(m):
        p, q = polygon[k], polygon[(k + 1) % m]
        sp, sq = a * p[0] + b * p[1] - c, a * q[0] + b * q[1] - c
        if sp <= 0:
            out.append(p)
        if (sp < 0 < sq) or (sq < 0 < sp):  # the edge crosses the line
            out.append(p + (q - p) * (sp / (sp - sq)))
    return np.asarray(out, dtype=float).reshape(-1, 2)


def _area(polygon):
    u, v = polygon[:, 0], polygon[:, 1]
    return 0.5 * abs(np.dot(u, np.roll(v, -1)) - np.dot(v, np.roll(u, -1)))


def cells_of_state(state, cols, xlim, ylim):
    """The leaf cells of a tree state, ``(node, polygon)`` with polygon an (m, 2) array of
    vertices: the plot window clipped recursively by the half-plane of each cut on the path,
    whatever the kind of cut (`CUTS`). Cells of zero area (outside the window) are dropped."""
    kind = split_kind(state)
    if kind not in CUTS:
        raise NotImplementedError(
            f"cannot draw the cells of a tree with {kind!r} splits: docs/partitions.py draws "
            f"{', '.join(map(repr, CUTS))} splits only; add the half-plane of its cut to CUTS"
        )
    cut = CUTS[kind]
    left, right = state["left"], state["right"]
    cells = []
    if state["root"] < 0:
        return cells
    window = np.array([[xlim[0], ylim[0]], [xlim[1], ylim[0]], [xlim[1], ylim[1]],
                       [xlim[0], ylim[1]]], dtype=float)
    stack = [(state["root"], window)]
    while stack:
        node, cell = stack.pop()
        if len(cell) < 3 or _area(cell) <= 0.0:
            continue  # the node's cell lies outside the window
        if left[node] < 0:
            cells.append((node, cell))
            continue
        half = cut(state, node, cols)
        if half is None:  # a cut on a feature (pair) that is not drawn: both sides cover it
            stack.append((left[node], cell))
            stack.append((right[node], cell))
            continue
        a, b, c = half
        stack.append((left[node], clip(cell, a, b, c)))
        stack.append((right[node], clip(cell, -a, -b, -c)))
    return cells


def _columns(model, features):
    names = list(model._core.features.names)
    features = list(features or names[:2])
    return features, [names.index(f) for f in features]


def leaf_cells(model, xlim, ylim, features=None, tree=0):
    """The leaves of one tree as convex polygons ``(node, polygon)`` clipped to the window.

    `features` names the two plotted features (default: the first two the model registered).
    Raises `NotImplementedError` for a tree whose ``split`` kind `CUTS` cannot draw.
    """
    _, cols = _columns(model, features)
    state = model.trees[tree].arrays()
    try:
        return cells_of_state(state, cols, xlim, ylim)
    except NotImplementedError as e:
        raise NotImplementedError(f"{type(model.trees[tree]).__name__}: {e}") from None


def _box_slots(state, cols):
    """The box columns (the tree's slots) of registry columns `cols`, or None if the tree
    does not keep one of them (box column d is registry column ``columns[d]``)."""
    columns = list(state.get("columns", range(state["lower"].shape[1])))
    if not all(c in columns for c in cols):
        return None
    return [columns.index(c) for c in cols]


def _axis_region(tree, state, node, cols):
    """The box of the data leaf `node` has seen, as a rectangle polygon (None if the tree
    keeps no boxes, or none on the plotted features, or the leaf has seen nothing)."""
    # a scale-invariant purely random tree cuts at ranks and keeps no boxes (they stay empty)
    if "lower" not in state or state.get("scale_invariant", False):
        return None
    slots = _box_slots(state, cols)
    if slots is None:
        return None
    lo, hi = state["lower"][node, slots], state["upper"][node, slots]
    if not np.all(lo <= hi):
        return None
    return np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])


def _oblique_region(tree, state, node, cols):
    """The convex hull of the data leaf `node` has seen, on the plotted pair of features
    (``tree.hull``: counter-clockwise vertices in the units of x; 1 or 2 of them for a leaf
    of one point or of collinear points); None if the tree does not cut in that pair."""
    columns = list(state["columns"])
    for p, (sa, sb) in enumerate(tree.pair_slots()):
        pair = (columns[sa], columns[sb])
        if pair == (cols[0], cols[1]):
            return tree.hull(node, p)
        if pair == (cols[1], cols[0]):
            return tree.hull(node, p)[:, ::-1]
    return None


#: the region of the data a leaf has seen, by the tree state's ``"split"`` kind
REGIONS = {"axis": _axis_region, "oblique": _oblique_region}


def _outline(ax, polygon, **style):
    """Draw a closed polygon; a 2-vertex one (a hull of collinear points) as its segment."""
    if len(polygon) >= 3:
        ax.add_patch(Polygon(polygon, closed=True, fill=False, **style))
    elif len(polygon) == 2:
        ax.plot(polygon[:, 0], polygon[:, 1], color=style.get("ec"), lw=style.get("lw"),
                ls=style.get("ls", "-"), zorder=style.get("zorder"))


def plot_partition(ax, model, xlim, ylim, features=None, tree=0, points=None, boxes=False,
                   fringe=False, resolution=200, cmap="RdBu_r"):
    """Draw tree `tree`'s leaf cells over the forest's decision surface on `ax`.

    The background is the forest's probability of its second label in sorted order (its
    first for a one-label model), red where high, the colour of that label's points;
    `points` is an optional ``(X, y)`` pair of arrays to scatter. The cells are convex
    polygons whatever the kind of cut (`leaf_cells`). With `boxes`, the region of
    the data each leaf has seen (its box, or its convex hull for a BSP tree: `REGIONS`) is
    drawn dashed in green. With `fringe`, the leaves of a tree with a bounded fringe (a
    ``slot`` array) that are in the fringe are outlined in green. Returns the number of
    leaves drawn.
    """
    features, cols = _columns(model, features)
    cells = leaf_cells(model, xlim, ylim, features, tree)  # first: refuses a kind it cannot draw
    gx, gy = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))
    grid = pd.DataFrame({features[0]: gx.ravel(), features[1]: gy.ravel()})
    proba = model.predict_proba_many(grid)
    # the labels in the order of the points' colours (not of their arrival): blue to red
    columns = sorted(proba.columns, key=repr)
    column = columns[1] if len(columns) > 1 else columns[0]
    ax.imshow(proba[column].to_numpy().reshape(gx.shape), origin="lower", cmap=cmap,
              extent=(*xlim, *ylim), vmin=0.0, vmax=1.0, alpha=0.55, aspect="auto")
    if points is not None:
        X, y = points
        labels = sorted(set(y), key=repr)
        colors = plt.get_cmap(cmap)(np.linspace(0.05, 0.95, max(2, len(labels))))
        for label, color in zip(labels, colors):
            mask = np.asarray([v == label for v in y])
            ax.scatter(X[mask, 0], X[mask, 1], s=3, color=color, edgecolors="none", alpha=0.8)
    for _, polygon in cells:
        _outline(ax, polygon, lw=0.7, ec="black")
    tree_obj = model.trees[tree]
    state = tree_obj.arrays()
    if fringe and "slot" in state:  # drawn over the black edges: the cell's sides in green
        for node, polygon in cells:
            if state["slot"][node] >= 0:
                _outline(ax, polygon, lw=1.4, ec="#1a9641", zorder=3)
    region = REGIONS.get(split_kind(state))
    if boxes and region is not None:
        for node, _ in cells:
            polygon = region(tree_obj, state, node, cols)
            if polygon is not None:
                _outline(ax, polygon, lw=0.7, ec="#2a9d2a", ls="--")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xticks([])
    ax.set_yticks([])
    return len(cells)


def describe(tree, n, leaves):
    """A panel's title: the samples, the leaves and what the tree kind reports of its growth."""
    label = f"n = {n:,}: {leaves} leaves"
    lifetime = getattr(tree, "current_lifetime", None)
    budget = getattr(tree, "current_budget", None)
    if lifetime is not None:
        label += f", lifetime {lifetime:.1f}"
    if budget is not None:  # a BSP tree: its budget, and its cuts by mechanism
        label += f", budget {budget:.2f}, {tree.cuts} + {tree.inserted} cuts"
    elif getattr(tree, "cuts", None) is not None:
        # a purely random tree: its cuts, and the schedule's k_n if ahead
        label += f", {tree.cuts} cuts"
        if tree.cuts_scheduled > tree.cuts:
            label += f" (k_n = {tree.cuts_scheduled})"
    if getattr(tree, "active_leaves", None) is not None:  # a tree with a bounded fringe
        label += f", {tree.active_leaves} in the fringe"
    if getattr(tree, "batches", None) is not None:  # a tree grown by batches (XForest)
        label += f", {tree.batches} batches"
    return label


def save(fig, path, palette=False):
    """Write `fig` as a PNG; with `palette`, as 256 colours (a third of the bytes of a picture
    whose background varies as finely as an oblique tree's)."""
    if not palette:
        fig.savefig(path, dpi=110)
        return
    from PIL import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=110, format="png")
    image = Image.open(buffer).convert("RGB")
    image.quantize(colors=256, dither=Image.Dither.NONE).save(path, optimize=True)


def partition_sequence(model, stream, checkpoints, path, title, xlim, ylim, boxes=False,
                       fringe=False, palette=False):
    """Train `model` on `stream` and draw its partition at each checkpoint, in one row."""
    fig, axes = plt.subplots(1, len(checkpoints), figsize=(4.2 * len(checkpoints), 4.4))
    seen_x, seen_y, n = [], [], 0
    stream = iter(stream)
    for ax, stop in zip(axes, checkpoints):
        for x, y in itertools.islice(stream, stop - n):
            model.learn_one(x, y)
            seen_x.append(list(x.values()))
            seen_y.append(y)
        n = stop
        leaves = plot_partition(ax, model, xlim, ylim, points=(np.asarray(seen_x), seen_y),
                                boxes=boxes, fringe=fringe)
        ax.set_title(describe(model.trees[0], n, leaves), fontsize=10)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    save(fig, path, palette)
    plt.close(fig)
    print(f"wrote {path}")


def mondrian():
    pictures = [
        ([100, 1000, 5300], "mondrian_partition.png", False,
         "Mondrian forest on Bananas: leaf cells of tree 0 (black) over the forest's "
         "P(label True) (colour)"),
        ([30, 100, 300], "mondrian_boxes.png", True,
         "Early in the stream: leaf cells (black) and the box of the data each leaf has seen "
         "(green, dashed)"),
    ]
    for checkpoints, name, boxes, title in pictures:
        partition_sequence(MondrianForestClassifier(n_estimators=10, seed=1), datasets.Bananas(),
                           checkpoints, IMG / name, title, xlim=(-3.2, 3.2), ylim=(-3.2, 3.2),
                           boxes=boxes)


def purely_random():
    pictures = [
        ("uniform", "purely_random_partition.png", True,
         "Purely random forest on Bananas: leaf cells of tree 0 (black), the data box of each "
         "leaf, inside which its cuts fall (green, dashed)"),
        ("scale_invariant", "purely_random_scale_invariant.png", False,
         "Scale-invariant purely random forest on Bananas: leaf cells of tree 0 (black), cut "
         "at random ranks of the leaf's points"),
    ]
    for split, name, boxes, title in pictures:
        partition_sequence(PurelyRandomForestClassifier(n_estimators=10, split=split, seed=1),
                           datasets.Bananas(), [30, 300, 3000], IMG / name, title,
                           xlim=(-3.2, 3.2), ylim=(-3.2, 3.2), boxes=boxes)


def stream_partition():
    pictures = [
        ({}, "stream_partition_partition.png", False,
         "Stream-partitioning forest on Bananas: leaf cells of tree 0 (black) over the "
         "forest's P(label True) (colour)"),
        ({"max_active_leaves": 8}, "stream_partition_fringe.png", True,
         "A fringe of 8 leaves (max_active_leaves=8, green): the places go to the leaves whose "
         "majority class makes the most errors (largest p * e)"),
    ]
    for params, name, fringe, title in pictures:
        partition_sequence(StreamPartitionForestClassifier(n_estimators=10, seed=1, **params),
                           datasets.Bananas(), [300, 1000, 5300], IMG / name, title,
                           xlim=(-3.2, 3.2), ylim=(-3.2, 3.2), fringe=fringe)


def xforest():
    pictures = [
        ({}, "xforest_partition.png",
         "XForest on Bananas (learn_one buffers batches of 100): leaf cells of tree 0 (black) "
         "over the forest's P(label True) (colour)"),
        ({"n_swaps": 0}, "xforest_growth.png",
         "Without replacements (n_swaps=0): tree 0 only grows, its first cuts never move"),
    ]
    for params, name, title in pictures:
        partition_sequence(XForestClassifier(n_estimators=10, seed=1, **params),
                           datasets.Bananas(), [100, 1000, 5300], IMG / name, title,
                           xlim=(-3.2, 3.2), ylim=(-3.2, 3.2))


def bsp():
    """fan2020's figure 2 on a stream: cut lines (solid, each inside its parent's cell), each
    leaf's convex hull of its data (dashed), the points; then a stream whose range widens."""
    partition_sequence(BSPForestClassifier(n_estimators=10, seed=1), datasets.Bananas(),
                       [50, 500, 5300], IMG / "bsp_partition.png",
                       "BSP forest on Bananas: leaf cells of tree 0 (black, oblique cuts), the "
                       "convex hull of each leaf's data (green, dashed), the forest's "
                       "P(label True) (colour)", xlim=(-3.2, 3.2), ylim=(-3.2, 3.2),
                       boxes=True, palette=True)
    # the same samples from the centre outwards: each new point lies outside the hulls of
    # the nodes above it, the case of GenCutNotCross (a cut inserted above a node)
    widening = sorted(datasets.Bananas(), key=lambda xy: np.hypot(*xy[0].values()))
    partition_sequence(BSPForestClassifier(n_estimators=10, seed=1), widening,
                       [500, 2000, 5300], IMG / "bsp_widening.png",
                       "The same samples from the centre outwards: cuts inserted above the "
                       "nodes whose hulls the new points leave (the second count)",
                       xlim=(-3.2, 3.2), ylim=(-3.2, 3.2), boxes=True, palette=True)


#: one function per forest page
FIGURES = {"mondrian": mondrian, "purely_random": purely_random,
           "stream_partition": stream_partition, "xforest": xforest, "bsp": bsp}


if __name__ == "__main__":
    import sys

    IMG.mkdir(exist_ok=True)
    # `python docs/partitions.py stream_partition` redraws one page's pictures
    for name in sys.argv[1:] or FIGURES:
        FIGURES[name]()
