"""Draw the 2-D partition pictures of the documentation (run by hand, PNGs committed).

    python docs/partitions.py                    # writes docs/img/*.png
    python docs/partitions.py stream_partition   # one page's pictures (names: `FIGURES`)

`plot_partition(ax, model, ...)` draws the leaf cells of one tree of a trained forest over the
forest's decision surface. It only needs what every compiled tree exposes through
``tree.arrays()`` (``root``, ``left``, ``right``, ``feature``, ``threshold`` and ``split``, the
kind of cut the tree makes) and the forest's ``predict_proba_many``, so the pages of later
forests can reuse it: add their picture to `FIGURES` below. The cells are drawn according to
the tree's ``split`` kind (`CELLS`): ``"axis"`` trees (Mondrian, purely random, stream
partitioning) cut one feature at a threshold, so their cells are rectangles; a kind with no
entry there (BSP's ``"oblique"`` cuts, say) raises `NotImplementedError` instead of being
drawn as if its cuts were axis-aligned. If the tree also keeps the box of the data each node
has seen (``lower`` and ``upper``, as the Mondrian and uniform purely random trees do),
``boxes=True`` draws those boxes too; if it keeps a bounded fringe of leaves collecting split
statistics (``slot``, a leaf's fringe slot or -1, as the stream-partitioning tree does),
``fringe=True`` outlines the fringe's leaves.
"""

from __future__ import annotations

import itertools
import pathlib

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from river import datasets  # noqa: E402

from river_forests import (  # noqa: E402
    MondrianForestClassifier,
    PurelyRandomForestClassifier,
    StreamPartitionForestClassifier,
    XForestClassifier,
)

IMG = pathlib.Path(__file__).resolve().parent / "img"


def split_kind(state):
    """The kind of cut a tree state makes (``"axis"`` for states saved before the key)."""
    return state.get("split", "axis")


def _axis_cells(state, cols, xlim, ylim):
    """Leaf rectangles of a tree whose nodes cut one feature at a threshold (x <= t: left)."""
    left, right = state["left"], state["right"]
    feature, threshold = state["feature"], state["threshold"]
    cells = []
    if state["root"] < 0:
        return cells
    stack = [(state["root"], xlim[0], xlim[1], ylim[0], ylim[1])]
    while stack:
        node, x0, x1, y0, y1 = stack.pop()
        if left[node] < 0:
            cells.append((node, x0, x1, y0, y1))
            continue
        f, t = feature[node], threshold[node]
        if f == cols[0]:
            stack.append((left[node], x0, min(x1, t), y0, y1))
            stack.append((right[node], max(x0, t), x1, y0, y1))
        elif f == cols[1]:
            stack.append((left[node], x0, x1, y0, min(y1, t)))
            stack.append((right[node], x0, x1, max(y0, t), y1))
        else:  # a split on a feature that is not drawn: both sides cover the window
            stack.append((left[node], x0, x1, y0, y1))
            stack.append((right[node], x0, x1, y0, y1))
    return [c for c in cells if c[1] < c[2] and c[3] < c[4]]


#: how to cut the window into leaf cells, by the tree state's ``"split"`` kind; a new kind of
#: cut (BSP's ``"oblique"``) needs its own entry, and polygons rather than rectangles
CELLS = {"axis": _axis_cells}


def leaf_cells(model, xlim, ylim, features=None, tree=0):
    """The leaves of one tree as rectangles ``(node, x0, x1, y0, y1)`` clipped to the window.

    `features` names the two plotted features (default: the first two the model registered).
    Raises `NotImplementedError` for a tree whose ``split`` kind `CELLS` cannot draw.
    """
    names = list(model._core.features.names)
    features = list(features or names[:2])
    cols = [names.index(f) for f in features]
    state = model.trees[tree].arrays()
    kind = split_kind(state)
    if kind not in CELLS:
        raise NotImplementedError(
            f"cannot draw the cells of a tree with {kind!r} splits "
            f"({type(model.trees[tree]).__name__}): docs/partitions.py draws "
            f"{', '.join(map(repr, CELLS))} splits only; add a drawer to CELLS"
        )
    return CELLS[kind](state, cols, xlim, ylim)


def _box_slots(state, cols):
    """The box columns (the tree's slots) of registry columns `cols`, or None if the tree
    does not keep one of them (box column d is registry column ``columns[d]``)."""
    columns = list(state.get("columns", range(state["lower"].shape[1])))
    if not all(c in columns for c in cols):
        return None
    return [columns.index(c) for c in cols]


def plot_partition(ax, model, xlim, ylim, features=None, tree=0, points=None, boxes=False,
                   fringe=False, resolution=200, cmap="RdBu_r"):
    """Draw tree `tree`'s leaf cells over the forest's decision surface on `ax`.

    The background is the forest's probability of its second label (its first for a
    one-label model); `points` is an optional ``(X, y)`` pair of arrays to scatter. With
    `fringe`, the leaves of a tree with a bounded fringe (a ``slot`` array) that are in the
    fringe are outlined in green. Returns the number of leaves drawn.
    """
    names = list(model._core.features.names)
    features = list(features or names[:2])
    cells = leaf_cells(model, xlim, ylim, features, tree)  # first: refuses a kind it cannot draw
    gx, gy = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))
    grid = pd.DataFrame({features[0]: gx.ravel(), features[1]: gy.ravel()})
    proba = model.predict_proba_many(grid)
    column = proba.columns[1] if proba.shape[1] > 1 else proba.columns[0]
    ax.imshow(proba[column].to_numpy().reshape(gx.shape), origin="lower", cmap=cmap,
              extent=(*xlim, *ylim), vmin=0.0, vmax=1.0, alpha=0.55, aspect="auto")
    if points is not None:
        X, y = points
        labels = sorted(set(y), key=repr)
        colors = plt.get_cmap(cmap)(np.linspace(0.05, 0.95, max(2, len(labels))))
        for label, color in zip(labels, colors):
            mask = np.asarray([v == label for v in y])
            ax.scatter(X[mask, 0], X[mask, 1], s=3, color=color, edgecolors="none", alpha=0.8)
    for _, x0, x1, y0, y1 in cells:
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, lw=0.7, ec="black"))
    state = model.trees[tree].arrays()
    if fringe and "slot" in state:  # drawn over the black edges: a cell's four sides in green
        for node, x0, x1, y0, y1 in cells:
            if state["slot"][node] >= 0:
                ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, lw=1.4,
                                       ec="#1a9641", zorder=3))
    # a scale-invariant purely random tree cuts at ranks and keeps no boxes (they stay empty)
    if boxes and "lower" in state and not state.get("scale_invariant", False):
        slots = _box_slots(state, [names.index(f) for f in features])
        for node, *_ in cells if slots is not None else ():
            lo, hi = state["lower"][node, slots], state["upper"][node, slots]
            if np.all(lo <= hi):
                ax.add_patch(Rectangle(lo, *(hi - lo), fill=False, lw=0.7, ec="#2a9d2a", ls="--"))
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_xticks([])
    ax.set_yticks([])
    return len(cells)


def partition_sequence(model, stream, checkpoints, path, title, xlim, ylim, boxes=False,
                       fringe=False):
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
        tree = model.trees[0]
        leaves = plot_partition(ax, model, xlim, ylim, points=(np.asarray(seen_x), seen_y),
                                boxes=boxes, fringe=fringe)
        lifetime = getattr(tree, "current_lifetime", None)
        cuts = getattr(tree, "cuts", None)
        label = f"n = {n:,}: {leaves} leaves"
        if lifetime is not None:
            label += f", lifetime {lifetime:.1f}"
        if cuts is not None:  # a purely random tree: its cuts, and the schedule's k_n if ahead
            label += f", {cuts} cuts"
            if tree.cuts_scheduled > cuts:
                label += f" (k_n = {tree.cuts_scheduled})"
        if getattr(tree, "active_leaves", None) is not None:  # a tree with a bounded fringe
            label += f", {tree.active_leaves} in the fringe"
        if getattr(tree, "batches", None) is not None:  # a tree grown by batches (XForest)
            label += f", {tree.batches} batches"
        ax.set_title(label, fontsize=10)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
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


#: one function per forest page
FIGURES = {"mondrian": mondrian, "purely_random": purely_random,
           "stream_partition": stream_partition, "xforest": xforest}


if __name__ == "__main__":
    import sys

    IMG.mkdir(exist_ok=True)
    # `python docs/partitions.py stream_partition` redraws one page's pictures
    for name in sys.argv[1:] or FIGURES:
        FIGURES[name]()
