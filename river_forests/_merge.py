"""Merging forests: one forest holding every tree of several (`merge`).

The forests may have learned different streams: a feature or a class known to one of them
only is mapped into the merged registries. Each tree's saved state is renumbered for them
(`Tree.remap_state`: its registry columns, and its rows indexed by class), rebuilt, and then
offered the merged registry's columns it never considered (`Tree.adopt_columns`), so it goes
on learning them as if they had come after its own. A tree's prediction does not change:
its cuts and statistics are the same, under new numbers. Hence the merged forest predicts
the tree-weighted mean of the forests' predictions, and it keeps learning (and pickles) as
any forest does.
"""

from __future__ import annotations

import copy

import numpy as np

from ._core._features import registry_of
from ._core._forest import ForestCore
from ._core._random import tree_seed
from ._core._tree import TREE_KINDS, tree_from_state
from ._core._watch import DriftWatch
from ._forest import BaseForest
from ._state import _from_spec, core_state

__all__ = ["merge"]

#: parameters the forests of a merge may differ in: the merged forest has every tree, and
#: the first forest's seed (its own master seed derives from all of theirs)
FREE_PARAMS = ("n_estimators", "seed", "memory_budget")


def _shared_params(forest) -> dict:
    return {k: v for k, v in forest._get_params().items() if k not in FREE_PARAMS}


def merge(forests):
    """One forest of the same class holding every tree of `forests`, in order.

    The forests must be of one class with the same parameters, except ``n_estimators`` (the
    merged forest's is the total), ``seed`` (it takes the first forest's) and
    ``memory_budget`` (each tree keeps the share of the first forest's trees: the merged
    forest's budget is that share per tree). They may have
    learned different streams: the merged forest knows every feature and every class any of
    them knows (in order of first appearance, the first forest's first), and each tree's
    numbers are mapped to it. Its prediction is the tree-weighted mean of the forests'
    predictions: a forest of 10 trees counts twice as much as one of 5. It keeps learning
    online as any forest does (a tree goes on learning the features it had not seen, as if
    they had just come), and it pickles.

    The forests themselves are not changed: each is copied under its lock (one may be
    learning in another thread). A batch-native forest's buffered rows (XForest's
    ``learn_one``) are learned by that forest's copy first. With drift adaptation, each
    tree keeps its detectors and its background tree; `drift_log` positions are those of
    the tree's own forest.

    This is how `river_forests.distributed.learn` puts together the trees trained on a
    Dask cluster; it also serves to grow a forest in parts, on different machines or
    different days, and to put them together.

    Parameters
    ----------
    forests
        An iterable of forests of one class (at least one).

    Examples
    --------

    >>> from river import datasets, metrics
    >>> from river_forests import MondrianForestClassifier, merge

    >>> stream = list(datasets.Phishing())
    >>> left = MondrianForestClassifier(n_estimators=5, seed=1)
    >>> right = MondrianForestClassifier(n_estimators=5, seed=2)
    >>> for x, y in stream[:600]:
    ...     left.learn_one(x, y)
    >>> for x, y in stream[600:1000]:
    ...     right.learn_one(x, y)

    >>> forest = merge([left, right])
    >>> forest.n_estimators
    10

    >>> metric = metrics.Accuracy()
    >>> for x, y in stream[1000:]:
    ...     metric.update(y, forest.predict_one(x))
    ...     forest.learn_one(x, y)
    >>> metric
    Accuracy: 92.40%

    """
    forests = list(forests)
    if not forests:
        raise ValueError("merge needs at least one forest")
    first = forests[0]
    if not isinstance(first, BaseForest):
        raise TypeError(f"merge takes river_forests forests, got {type(first).__name__}")
    params = _shared_params(first)
    for f in forests[1:]:
        if type(f) is not type(first):
            raise TypeError(f"merge takes forests of one class, got {type(first).__name__} "
                            f"and {type(f).__name__}")
        other = _shared_params(f)
        differ = sorted(k for k in params if other[k] != params[k])
        if differ:
            raise ValueError(f"the forests' parameters differ ({', '.join(differ)}): only "
                             f"{' and '.join(FREE_PARAMS)} may")

    # private copies: each snapshot is taken under its forest's lock
    parts = [copy.deepcopy(f) for f in forests]
    for part in parts:
        if part._core.n_pending:
            part._core.flush(after=part._after_batch, make_tree=part._make)

    # every part's compiled state (`river_forests._state.core_state`, what a save or a
    # pickle holds, each tree's state with its parameters): the merge is made of those
    cores = [core_state(part, strict=False) for part in parts]
    names, feature_index = _union(c["names"] for c in cores)
    if len(names) > first.max_width:
        raise ValueError(f"the forests know {len(names)} features together, more than "
                         f"max_width={first.max_width}: merge forests with a larger max_width")
    labels, label_index = _union(c["labels"] for c in cores)

    trees, background = [], []
    for c in cores:
        columns = np.array([feature_index[n] for n in c["names"]], dtype=np.int32)
        classes = np.array([label_index[k] for k in c["labels"]], dtype=np.intp)
        trees += [_renumbered(t, columns, classes, len(names)) for t in c["trees"]]
        background += [None if b is None else _renumbered(b, columns, classes, len(names))
                       for b in c["forest"]["background"]]

    forests_ = [c["forest"] for c in cores]
    master_seed = len(parts)
    for f in forests_:
        master_seed = tree_seed(master_seed ^ f["master_seed"], -3)
    watch = None
    if first.drift_detector is not None:
        # each tree keeps its detectors, counts and duel; the drift logs are joined
        watch = DriftWatch.joined([_decoded(f["watch"]) for f in forests_],
                                  [p.n_estimators for p in parts], first.DRIFT_LOG)
    state = dict(forests_[0], master_seed=master_seed, rng=None,
                 pending_rows=[], pending_targets=[],
                 n_replaced=sum(f["n_replaced"] for f in forests_),
                 n_batches=sum(f["n_batches"] for f in forests_),
                 background=[None if b is None else b.get_state() for b in background],
                 n_background=sum(f["n_background"] for f in forests_), watch=watch)
    return forest_of(first, trees, names, labels, state,
                     any(c["full_warned"] for c in cores), resize=True)


def _decoded(watch: dict) -> dict:
    """A drift watch's saved state (`to_state`'s: detectors as specs) with its detectors."""
    python = watch["python"]
    return dict(watch, templates=tuple(_from_spec(d) for d in watch["templates"]),
                python=None if python is None else
                tuple(None if ds is None else [_from_spec(d) for d in ds] for ds in python))


def forest_of(template, trees, names, labels, state, full_warned=False, resize=False):
    """A forest with `template`'s parameters (``n_estimators`` the number of `trees`) holding
    `trees`, the feature registry `names`, the class `labels` and the forest's own state
    `state` (`ForestCore.forest_state`'s dict; ``rng=None`` seeds the forest's generator
    from the master seed). The detectors of the state's ``"watch"`` (None: fresh ones, if the
    template has any). Each tree keeps the
    state's share of the memory budget: a group of a forest's trees (`resize` False) keeps
    the forest's budget and shares, so its trees grow as they would in the whole forest; a
    merge (`resize`) grows the budget by a share for each tree slot more than the state's."""
    core = ForestCore(list(trees), template._core.classifier, template._core.vote,
                      registry_of(names, template.max_width, full_warned), labels,
                      master_seed=state["master_seed"], batch_size=state["batch_size"])
    if state["rng"] is None:
        state = dict(state, rng=core.forest_state()["rng"])
    new = {"n_estimators": len(trees)}
    budget, fixed, slots, share = state.get("budget", (0, 0, 1, 0))[:3] + (
        state.get("budget", (0, 0, 1, 0)) + (0,))[3:4]
    if budget > 0 and resize:
        # each tree keeps its share: the budget grows (or shrinks) by a share per tree slot
        # gained (or lost), so a forest split into groups of trees and put back together
        # grows the trees it would have grown whole, and a merge holds its parts' memory
        new_slots = len(trees)
        budget = int(budget + (new_slots - slots) * share)
        state = dict(state, budget=(budget, fixed, new_slots, share))
        new["memory_budget"] = int(budget)
    # the budget is shared out before the detectors are set, as for a forest built anew
    core.set_forest_state(dict(state, watch=None))
    forest = template.clone(new)
    forest._core = core
    forest._reset_detectors()
    if state.get("watch") is not None:
        core.set_watch_state(state["watch"])
    return forest


def _union(lists):
    """The items of several lists, each once, in order of first appearance, and their index."""
    out, index = [], {}
    for items in lists:
        for item in items:
            if item not in index:
                index[item] = len(out)
                out.append(item)
    return out, index


def _renumbered(state, columns, classes, n_columns):
    """The tree of the saved `state` for the merged registries: its registry column c is
    `columns[c]`, its class k is `classes[k]`; the columns of the `n_columns` it never
    considered are offered to it last."""
    state = dict(state)
    considered = set(columns[:state["n_columns"]].tolist())
    TREE_KINDS[state["kind"]].remap_state(state, columns, classes)
    new = tree_from_state(state, columns=n_columns)
    unseen = np.array([c for c in range(n_columns) if c not in considered], dtype=np.int32)
    new.adopt_columns(unseen, n_columns)
    return new
