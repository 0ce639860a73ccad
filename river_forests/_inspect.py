"""Feature importances and a look inside the trees, for every forest.

Every tree credits each of its splits, as it learns, with what the split does for the
predictions (`_core._tree.Tree.credit`): for each sample that goes through an interior node,
the loss of the node's estimate less the loss of the estimate of the child the sample goes
to, each sample measured against the statistics before it is learned, and older samples
counting less (``importance_halflife``). A feature's importance is the credit of the splits
on it, summed over the trees, its negative part dropped, normalised to sum to 1.

The same measure serves the trees that cut with the labels (stream-partitioning, XForest)
and those that cut without (Mondrian, purely random, BSP): for a classifier the loss is
1 - p(y), whose sum over a node's samples is the node's weight times its Gini impurity, so a
split's credit is its weighted Gini decrease (a regressor's: its variance decrease), the
impurity decrease of a batch forest, but measured out of sample.
"""

from __future__ import annotations

import numpy as np

from ._core._features import as_double

__all__ = ["feature_importances", "debug_one", "draw", "to_text"]


def _need_tracking(model) -> None:
    if model.importance_halflife is None:
        raise ValueError("this model does not track feature importances "
                         "(importance_halflife=None)")


def feature_importances(model) -> dict:
    """Feature name -> importance, summing to 1 (see the module's doc); {} before the model
    knows a feature; equal shares while no split has a positive credit."""
    _need_tracking(model)
    core = model._core
    raw = core.importances()
    names = list(core.features.names)[:len(raw)]
    if not names:
        return {}
    kept = np.clip(raw, 0.0, None)
    total = kept.sum()
    if not total > 0.0:
        return {n: 1.0 / len(names) for n in names}
    return {n: float(v / total) for n, v in zip(names, kept)}


# ------------------------------------------------------------------------------ a look inside

def _fmt(v) -> str:
    return f"{v:.6g}"


def _names(core) -> list:
    return list(core.features.names)


def _split_text(info: dict, extra: dict, names: list) -> str:
    """An interior node's cut in the features' names."""
    cols = [names[c] if 0 <= c < len(names) else f"column {c}" for c in info["columns"]]
    if "coefs" in extra:
        (a, b), t = extra["coefs"], info["threshold"]
        return f"{_fmt(a)} * {cols[0]} + {_fmt(b)} * {cols[1]} <= {_fmt(t)}"
    return f"{cols[0]} <= {_fmt(info['threshold'])}"


def _extra_text(extra: dict, names: list) -> str:
    """What a kind keeps at a node (a box, a leaf's split candidates), in words."""
    parts = []
    if extra.get("box"):
        sides = ", ".join(f"{names[c] if 0 <= c < len(names) else c} in [{_fmt(lo)}, {_fmt(hi)}]"
                          for c, lo, hi in extra["box"])
        parts.append(f"box: {sides}")
    if "candidates" in extra:
        text = f"{extra['candidates']} split candidates"
        if "best" in extra:
            c, t = extra["best"]
            text += f", best now: {names[c] if 0 <= c < len(names) else c} <= {_fmt(t)}"
        parts.append(text)
    return "; ".join(parts)


def _prediction_text(core, values) -> str:
    if core.classifier:
        labels = list(core.labels)
        return "{" + ", ".join(f"{labels[k]!r}: {values[k]:.4f}" for k in range(len(labels))) + "}"
    return _fmt(values[0])


def _row(model, x: dict) -> np.ndarray:
    """`x` as a row in the registry's order (NaN for the features it lacks; unknown ones
    dropped), as the trees read it."""
    core = model._core
    names = list(x)
    values = np.array([[as_double(k, x[k]) for k in names]], dtype=np.float64).reshape(1, -1)
    return core.features.place(values, names, False)[0]


def debug_one(model, x: dict, trees=None) -> str:
    """Each tree's walk for `x`: every node's cut and the way `x` went, the weight the node
    has seen and its split's credit; the leaf, with its box or split candidates; the tree's
    prediction. `trees`: the indices of the trees to show (all by default)."""
    core = model._core
    row = _row(model, x)
    names = _names(core)
    n_out = max(len(core.labels), 1) if core.classifier else 2

    def walk(all_trees):
        chosen = range(len(all_trees)) if trees is None else trees
        lines = []
        for i in chosen:
            tree = all_trees[i]
            lines.append(f"Tree {i} ({type(tree).__name__}, {tree.node_count:,} nodes)")
            path = tree.walk(row)
            if not path:
                lines.append("  (empty: it has learned nothing)")
                continue
            for depth, j in enumerate(path):
                info = tree.node(j)
                extra = tree.describe(j)
                pad = "  " * (depth + 1)
                if info["left"] >= 0:
                    went = "yes" if path[depth + 1] == info["left"] else "no"
                    missing = any(np.isnan(row[c]) for c in info["columns"] if c < len(row))
                    how = " (missing: to the side that has seen more)" if missing else ""
                    lines.append(f"{pad}{_split_text(info, extra, names)}? {went}{how}  "
                                 f"[node {j}, weight {_fmt(info['weight'])}, "
                                 f"credit {_fmt(info['gain'])}]")
                else:
                    text = _extra_text(extra, names)
                    lines.append(f"{pad}leaf {j}, weight {_fmt(info['weight'])}"
                                 + (f"; {text}" if text else ""))
            pred = tree.predict_rows(np.ascontiguousarray(row[None, :]), n_out)[0]
            lines.append(f"  prediction: {_prediction_text(core, pred)}")
        return "\n".join(lines)

    return core.inspect(walk)


def _nodes(model, tree: int, max_depth):
    """(depth, node, side, info, kind's extra, estimate) of tree `tree`, depth first from the root
    (left before right), at most `max_depth` deep (None: the whole tree)."""
    core = model._core
    if not 0 <= tree < len(core.trees):
        raise ValueError(f"tree must be in [0, {len(core.trees) - 1}], got {tree!r}")
    if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int)
                                  or max_depth < 0):
        raise ValueError(f"max_depth must be None or an int >= 0, got {max_depth!r}")
    n_out = max(len(core.labels), 1) if core.classifier else 2

    def collect(all_trees):
        t = all_trees[tree]
        out = []
        stack = [(0, t.root_node, None)] if t.root_node >= 0 else []
        while stack:
            depth, j, side = stack.pop()
            info = t.node(j)
            out.append((depth, j, side, info, t.describe(j), t.estimate(j, n_out)))
            if info["left"] >= 0 and (max_depth is None or depth < max_depth):
                stack.append((depth + 1, info["right"], "no"))
                stack.append((depth + 1, info["left"], "yes"))
        return out

    return core.inspect(collect)


def to_text(model, tree: int = 0, max_depth=None) -> str:
    """Tree `tree` as indented text: each interior node's cut, each leaf's estimate, every
    node's weight and credit."""
    core = model._core
    names = _names(core)
    lines = []
    for depth, j, side, info, extra, est in _nodes(model, tree, max_depth):
        pad = "    " * depth
        head = f"{pad}[{j}] weight {_fmt(info['weight'])}"
        if info["left"] >= 0:
            lines.append(f"{head}, credit {_fmt(info['gain'])}: {_split_text(info, extra, names)}")
        else:
            text = _extra_text(extra, names)
            lines.append(f"{head}: leaf -> {_prediction_text(core, est)}"
                         + (f"; {text}" if text else ""))
    return "\n".join(lines)


def draw(model, tree: int = 0, max_depth=None):
    """Tree `tree` as a ``graphviz.Digraph`` (the ``draw`` extra): interior nodes with their
    cut, leaves with their estimate, edges "yes" (the cut holds) and "no"."""
    try:
        import graphviz
    except ImportError:  # pragma: no cover - the extra is in the test extra
        raise ImportError("draw needs graphviz's Python package: pip install "
                          "'river-forests[draw]' (or use to_text)") from None
    core = model._core
    names = _names(core)
    dot = graphviz.Digraph(graph_attr={"rankdir": "TB"}, node_attr={"shape": "box",
                                                                   "fontname": "Helvetica"})
    for depth, j, side, info, extra, est in _nodes(model, tree, max_depth):
        if info["left"] >= 0:
            label = f"{_split_text(info, extra, names)}\nweight {_fmt(info['weight'])}"
            if max_depth is not None and depth == max_depth:
                label += "\n..."
        else:
            label = f"{_prediction_text(core, est)}\nweight {_fmt(info['weight'])}"
        dot.node(str(j), label, style="rounded" if info["left"] < 0 else "")
        if side is not None:
            dot.edge(str(info["parent"]), str(j), label=side)
    return dot
