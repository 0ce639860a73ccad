"""The Mondrian forests' accuracy features: aggregation over prunings (AMF), recycling of nodes
at the node cap, and the regressor's linear leaves.

Most checks read a tree's state (`tree.get_state()`) and recompute what the compiled tree should
have done from first principles: a brute-force mixture over every pruning of a small tree, the
loss of each node's path-rule estimate computed by hand, the twigs recycling must free, one
normalized LMS step. Trees are kept small (at most 15 nodes for the brute force) so the file
stays fast.
"""

import copy
import itertools
import math
import pickle
import random

import numpy as np
import pandas as pd
import pytest

import river_forests
from river_forests import MondrianForestRegressor


def MondrianForestClassifier(**params):
    """The classifier with recycling on, the regressor's default, unless told: these tests
    check recycling, the classifier's default before issue 45 (`test_defaults` checks the
    classifier's own default)."""
    return river_forests.MondrianForestClassifier(**{"recycling": True, **params})

from .conftest import route, same_state

LOG2 = math.log(2.0)


# ------------------------------------------------------------------ streams and helpers


def _stream(n, seed, task, d=2):
    """`n` samples of `d` uniform features x0..x{d-1}: a noisy threshold label (classification)
    or a smooth nonlinear target with noise (regression)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, d))
    out = []
    for row in X:
        x = {f"x{j}": float(v) for j, v in enumerate(row)}
        if task == "clf":
            y = int(row[0] + 0.3 * rng.uniform() > 0.65)
        else:
            y = float(3.0 * row[0] + math.sin(6.0 * row[1]) + 0.2 * rng.normal())
        out.append((x, y))
    return out


def _learn(model, data):
    for x, y in data:
        model.learn_one(x, y)
    return model


def _row(model, x):
    """`x` as a sequence in the forest's registry column order (what `route` reads)."""
    return [x.get(name, float("nan")) for name in model._core.features.names]


def _logsumexp(values):
    m = max(values)
    return m + math.log(sum(math.exp(v - m) for v in values))


def _prunings(state, j):
    """Every pruning of the subtree of node `j`, as (log weight, leaves): the context-tree
    weighting prior (1/2 for each node that is not a leaf of the full tree, stopping or going
    on) times e^(sum of the pruning's leaves' logw)."""
    left, right, logw = state["left"], state["right"], state["logw"]
    if left[j] < 0:
        yield logw[j], (j,)
        return
    yield logw[j] - LOG2, (j,)
    for (a, la), (b, lb) in itertools.product(list(_prunings(state, left[j])),
                                              list(_prunings(state, right[j]))):
        yield a + b - LOG2, la + lb


def _root_prior(state):
    """The prior of the root's path-rule estimate: uniform over the classes the tree knows, or
    the root's own statistics divided by its weight (mean and mean of y^2)."""
    root = state["root"]
    if state["task"] == 0:
        k = state["n_values"]
        return np.full(k, 1.0 / k)
    return state["value"][root] / state["weight"][root]


def _path_estimates(state, path, prior):
    """The path rule, root to leaf: est = (stats + smoothing * est_parent) / (n + smoothing)."""
    a = state["smoothing"]
    est = np.asarray(prior, dtype=float)
    out = []
    for j in path:
        n = state["weight"][j]
        if n + a > 0.0:
            est = (state["value"][j] + a * est) / (n + a)
        out.append(est)
    return out


def _brute_force_mixture(state, all_prunings, path):
    """The aggregated prediction of the tree at the sample whose path is `path`: the mixture,
    over every pruning (weights from `_prunings`, normalized), of the path-rule estimate of the
    pruning's leaf that lies on the path."""
    estimates = dict(zip(path, _path_estimates(state, path, _root_prior(state))))
    on_path = set(path)
    logws, preds = [], []
    for lw, leaves in all_prunings:
        hit = [leaf for leaf in leaves if leaf in on_path]
        assert len(hit) == 1, "a pruning's leaves partition the space: one is on any path"
        logws.append(lw)
        preds.append(estimates[hit[0]])
    w = np.exp(np.array(logws) - max(logws))
    return (w[:, None] * np.array(preds)).sum(axis=0) / w.sum()


def _check_logwt(state):
    """logwt is logw at a leaf and log((e^logw + e^(logwt_l + logwt_r)) / 2) above."""
    left, right, logw, logwt = state["left"], state["right"], state["logw"], state["logwt"]
    for j in range(len(left)):
        if left[j] < 0:
            assert logwt[j] == logw[j]
        else:
            expected = _logsumexp([logw[j], logwt[left[j]] + logwt[right[j]]]) - LOG2
            assert logwt[j] == pytest.approx(expected, rel=1e-12, abs=1e-9)


def _twigs(state):
    left, right = state["left"], state["right"]
    return [j for j in range(len(left)) if left[j] >= 0 and left[left[j]] < 0 and left[right[j]] < 0]


def _check_valid(state, classifier):
    """A tree a recycling stream left behind is a valid Mondrian tree: one connected binary tree
    with consistent links, the statistics rule, nested boxes, split times increasing downwards,
    subtree rates that add up, and resting leaves that do not split."""
    left, right, parent = state["left"], state["right"], state["parent"]
    weight, value, rate, tau = state["weight"], state["value"], state["rate"], state["tau"]
    lower, upper, resting = state["lower"], state["upper"], state["resting"]
    scale = state["scale"]
    n = len(left)
    root = state["root"]
    assert n <= state["max_nodes"]
    assert 0 <= root < n and parent[root] == -1
    # every node reachable from the root exactly once through left/right
    seen = np.zeros(n, dtype=int)
    stack = [root]
    while stack:
        j = stack.pop()
        seen[j] += 1
        if left[j] >= 0:
            stack += [left[j], right[j]]
    assert np.all(seen == 1), "every row is one node of the tree, reached once"
    n_leaves = 0
    for j in range(n):
        if left[j] < 0:
            n_leaves += 1
            assert right[j] == -1 and left[j] == -1
            assert math.isinf(tau[j])
            side = upper[j].astype(np.float64) - lower[j].astype(np.float64)
            size = float(np.sum(scale * np.where(side > 0.0, side, 0.0)))
            if resting[j]:
                assert rate[j] == 0.0, "a resting leaf does not split"
            else:
                # a leaf's rate is its linear dimension (a one-point box, 0 exactly, may be
                # stored one float32 step wide per side: hence the absolute tolerance)
                assert rate[j] == pytest.approx(size, rel=1e-6, abs=1e-6)
            continue
        assert resting[j] == 0, "only a leaf rests"
        lc, rc = left[j], right[j]
        assert right[j] >= 0 and lc != rc
        assert parent[lc] == j and parent[rc] == j
        assert math.isfinite(tau[j]) and tau[j] < tau[lc] and tau[j] < tau[rc]
        tol = 1e-9 * max(1.0, weight[j])
        assert weight[j] >= weight[lc] + weight[rc] - tol
        if classifier:  # class by class
            assert np.all(value[j] >= value[lc] + value[rc] - tol)
        else:  # the sum of w * y^2 is a sum of non-negative terms
            assert value[j, 1] >= value[lc, 1] + value[rc, 1] - 1e-9 * max(1.0, value[j, 1])
        assert rate[j] == pytest.approx(rate[lc] + rate[rc], rel=1e-6, abs=1e-9)
        for c in (lc, rc):
            has = lower[c] <= upper[c]
            assert np.all(lower[j][has] <= lower[c][has])
            assert np.all(upper[c][has] <= upper[j][has])
    assert 2 * n_leaves - 1 == n


# ------------------------------------------------------------------ parameters


def test_defaults():
    """The new parameters' defaults: no aggregation (step 1), recycling off for the classifier
    (issue 45's defaults) and on for the regressor, linear leaves with the full normalized
    step; and the compiled trees are built with them."""
    clf = river_forests.MondrianForestClassifier(n_estimators=1)
    reg = MondrianForestRegressor(n_estimators=1)
    for model in (clf, reg):
        assert model.weighted_prunings is False
        assert model.step == 1.0
    assert clf.recycling is False and reg.recycling is True
    assert reg.leaf_model == "linear"
    assert reg.linear_rate == 1.0
    s = clf.trees[0].get_state()
    assert (s["use_aggregation"], s["step"], s["recycling"], s["linear"]) == (False, 1.0, False, False)
    s = reg.trees[0].get_state()
    assert (s["use_aggregation"], s["step"], s["recycling"], s["linear"], s["linear_rate"]) == \
        (False, 1.0, True, True, 1.0)
    s = MondrianForestRegressor(n_estimators=1, leaf_model="mean").trees[0].get_state()
    assert s["linear"] is False


BAD_SHARED = [
    dict(weighted_prunings=1),
    dict(weighted_prunings="yes"),
    dict(weighted_prunings=None),
    dict(weighted_prunings=np.float64(1.0)),
    dict(recycling=0),
    dict(recycling="no"),
    dict(recycling=None),
    dict(step=0.0),
    dict(step=-1.0),
    dict(step=float("nan")),
    dict(step=float("inf")),
    dict(step=True),
    dict(step="1"),
]
BAD_REGRESSOR = [
    dict(leaf_model="constant"),
    dict(leaf_model="Linear"),
    dict(leaf_model=None),
    dict(linear_rate=0.0),
    dict(linear_rate=-0.5),
    dict(linear_rate=1.0 + 1e-9),
    dict(linear_rate=2.0),
    dict(linear_rate=float("nan")),
    dict(linear_rate=True),
]


@pytest.mark.parametrize("params", BAD_SHARED, ids=repr)
@pytest.mark.parametrize("cls", [MondrianForestClassifier, MondrianForestRegressor],
                         ids=lambda c: c.__name__)
def test_bad_shared_parameters_raise_value_error(cls, params):
    """A non-bool weighted_prunings / recycling and a step that is not a positive finite number
    are refused at construction with a ValueError (not silently coerced by the compiled tree)."""
    with pytest.raises(ValueError):
        cls(**params)


@pytest.mark.parametrize("params", BAD_REGRESSOR, ids=repr)
def test_bad_regressor_parameters_raise_value_error(params):
    """leaf_model must be "mean" or "linear"; linear_rate must lie in (0, 1]."""
    with pytest.raises(ValueError):
        MondrianForestRegressor(**params)


def test_good_boundary_values_are_accepted():
    """The edges of the valid ranges are valid: linear_rate=1 exactly, a tiny positive step."""
    MondrianForestRegressor(linear_rate=1.0, step=1e-9, leaf_model="mean")
    MondrianForestRegressor(linear_rate=1e-6)
    MondrianForestClassifier(step=1e-9, weighted_prunings=True, recycling=False)


@pytest.mark.parametrize("cls, params", [
    (MondrianForestClassifier, dict(weighted_prunings=True, step=0.25, recycling=False)),
    (MondrianForestRegressor, dict(weighted_prunings=True, step=3.0, recycling=False,
                                   leaf_model="mean", linear_rate=0.3)),
], ids=["classifier", "regressor"])
def test_clone_keeps_the_new_parameters(cls, params):
    """clone() rebuilds the model from its parameters: the new ones must survive it, and the
    clone's trees must be built with them (a parameter dropped on the way would fall back to
    the default, e.g. recycling on)."""
    model = cls(n_estimators=2, seed=7, **params)
    twin = model.clone()
    got = twin._get_params()
    for name, v in params.items():
        assert got[name] == v
        assert getattr(twin, name) == v
    assert twin._get_params() == model._get_params()
    s = twin.trees[0].get_state()
    assert s["use_aggregation"] is True and s["recycling"] is False and s["step"] == params["step"]
    if cls is MondrianForestRegressor:
        assert s["linear"] is False and s["linear_rate"] == 0.3


# ------------------------------------------------------------------ aggregation over prunings


def _small_aggregated(cls, seed, task, n=400, **params):
    model = cls(n_estimators=1, max_nodes=15, growth_scale=3.0, weighted_prunings=True,
                seed=seed, **params)
    return _learn(model, _stream(n, seed + 100, task))


@pytest.mark.parametrize("step", [1.0, 0.3])
@pytest.mark.parametrize("cls, task", [(MondrianForestClassifier, "clf"),
                                       (MondrianForestRegressor, "reg")], ids=["clf", "reg"])
def test_logwt_is_the_sum_over_prunings(cls, task, step):
    """At every node, logwt equals the log of the summed weight of every pruning of its subtree
    (brute force over prunings, prior 2^-(non-leaf nodes)): the recursion the tree keeps in
    `update_weights_up`, also after splits, split-aboves and recycling (max_nodes=15 recycles
    all the time)."""
    extra = {} if cls is MondrianForestClassifier else {"leaf_model": "mean"}
    for seed in range(3):
        model = _small_aggregated(cls, seed, task, step=step, **extra)
        state = model.trees[0].get_state()
        assert state["n_recycled"] > 0
        assert len(state["left"]) >= 7, "the tree should have something to prune"
        for j in range(len(state["left"])):
            brute = _logsumexp([lw for lw, _ in _prunings(state, j)])
            assert state["logwt"][j] == pytest.approx(brute, rel=1e-10, abs=1e-9)
        _check_logwt(state)
        # the weights are not trivial: the root has lost something
        assert state["logw"][state["root"]] < -1.0


def test_aggregated_classifier_is_the_mixture_over_prunings():
    """predict_proba_one with weighted_prunings is the normalized mixture, over every pruning of
    the tree, of the path-rule estimate of the pruning's leaf on x's path (root prior uniform
    over the classes the tree knows), weighted by e^(pruning's log weight)."""
    for seed in range(3):
        model = _small_aggregated(MondrianForestClassifier, seed, "clf")
        state = model.trees[0].get_state()
        all_prunings = list(_prunings(state, state["root"]))
        assert len(all_prunings) > 5
        labels = model._core.labels
        assert state["n_values"] == len(labels)
        for x, _ in _stream(30, seed + 500, "clf"):
            path = route(state, _row(model, x))
            expected = _brute_force_mixture(state, all_prunings, path)
            proba = model.predict_proba_one(x)
            got = [proba[label] for label in labels]
            assert got == pytest.approx(list(expected), rel=1e-9, abs=1e-12)


def test_aggregation_differs_from_the_path_rule():
    """Sanity of the brute-force test above: the aggregated prediction is not the plain path
    rule's (which the same tree gives without aggregation), so the mixture is really tested."""
    model = _small_aggregated(MondrianForestClassifier, 0, "clf")
    plain = pickle.loads(pickle.dumps(model))
    plain.trees[0]._set_scalar("use_aggregation", False, False)
    diffs = [abs(model.predict_proba_one(x)[1] - plain.predict_proba_one(x)[1])
             for x, _ in _stream(30, 9, "clf")]
    assert max(diffs) > 1e-3


def test_aggregated_regressor_is_the_mixture_over_prunings():
    """predict_one with weighted_prunings (mean leaves) is the mixture over prunings of the
    path-rule means, the root's prior being its own mean; and with one tree, sigma^2 + mu^2
    from predict_one(x, with_dist=True) is the mixture of the path-rule estimates of E[y^2]
    (root prior: the root's own mean of y^2)."""
    for seed in range(3):
        model = _small_aggregated(MondrianForestRegressor, seed, "reg", leaf_model="mean")
        state = model.trees[0].get_state()
        all_prunings = list(_prunings(state, state["root"]))
        for x, _ in _stream(30, seed + 500, "reg"):
            path = route(state, _row(model, x))
            expected = _brute_force_mixture(state, all_prunings, path)
            assert model.predict_one(x) == pytest.approx(expected[0], rel=1e-10, abs=1e-12)
            dist = model.predict_one(x, with_dist=True)
            assert dist.mu == model.predict_one(x)
            assert math.isfinite(dist.sigma) and dist.sigma >= 0.0
            assert dist.sigma ** 2 + dist.mu ** 2 == pytest.approx(expected[1], rel=1e-11)


@pytest.mark.parametrize("leaf_model", ["mean", "linear"])
def test_aggregated_sigma_is_finite_on_an_empty_leaf(leaf_model):
    """A fresh leaf of a lifetime split has seen no data and predicts as its parent: the
    predictive spread there is finite, of the order of the targets' spread (about 1)."""
    model = MondrianForestRegressor(n_estimators=1, weighted_prunings=True, leaf_model=leaf_model,
                                    seed=0)
    rng = random.Random(0)
    found = None
    for i, (x, y) in enumerate(_stream(3000, 3, "reg")):
        model.learn_one(x, y)
        if i < 50:
            continue
        state = model.trees[0].get_state()
        for _ in range(100):
            q = {"x0": rng.random(), "x1": rng.random()}
            if state["weight"][route(state, _row(model, q))[-1]] == 0:
                found = q
                break
        if found is not None:
            break
    assert found is not None, "the stream should leave a fresh, empty leaf"
    dist = model.predict_one(found, with_dist=True)
    assert math.isfinite(dist.sigma) and dist.sigma < 10.0


def _at_cap_frozen(cls, task, seed, **params):
    """A tree at its node cap that does not recycle: its structure is frozen from then on."""
    model = cls(n_estimators=1, max_nodes=15, recycling=False, weighted_prunings=True, seed=seed,
                **params)
    _learn(model, _stream(1500, seed, task))
    assert model.trees[0].node_count == 15
    return model


@pytest.mark.parametrize("task, params", [
    ("clf", dict(step=0.7)),
    ("clf", dict(step=1.0, smoothing=0.0)),
    ("reg", dict(step=0.7, leaf_model="mean", growth_scale=4.0)),
    ("reg", dict(step=2.0, leaf_model="linear", linear_rate=0.5, growth_scale=4.0)),
], ids=["clf-step0.7", "clf-smoothing0", "reg-mean", "reg-linear"])
def test_one_sample_changes_path_logw_by_step_times_loss(task, params):
    """On a frozen tree (at the cap, recycling=False), learning one sample subtracts from each
    path node's logw exactly step * loss of that node's path-rule prediction before the update:
    -log(max(p_y, 1e-12)) for classes (root prior uniform), (y - mean)^2 / (2 var) for values
    (var: the root's target variance before the sample, root prior: the root's mean; with linear
    leaves the node's prediction is its model's, c.(1, z)). Nodes off the path keep their logw;
    logwt follows the recursion; the structure does not change. With linear leaves, each path
    node's model also takes one step: the slopes by normalized LMS, rate / (1 + |z|^2) * r * z,
    the intercept by 1 / (weight + 2) * r, with r = y - c.(1, z) and z = (x - origin) * scale;
    the other nodes' models stay."""
    cls = MondrianForestClassifier if task == "clf" else MondrianForestRegressor
    model = _at_cap_frozen(cls, task, 11, **params)
    tree = model.trees[0]
    step = params["step"]
    rng = np.random.default_rng(5)
    for i in range(25):
        x = {"x0": float(rng.uniform(0.1, 0.9)), "x1": float(rng.uniform(0.1, 0.9))}
        if task == "clf":
            y = int(rng.uniform() < 0.5)
        else:
            y = float(3.0 * x["x0"] + rng.normal())
        before = tree.get_state()
        path = route(before, _row(model, x))
        estimates = _path_estimates(before, path, _root_prior(before))
        if task == "clf":
            c = model._core.labels.index(y)
            losses = [-math.log(max(e[c], 1e-12)) for e in estimates]
        else:
            root = before["root"]
            n = before["weight"][root]
            m = before["value"][root, 0] / n
            var = before["value"][root, 1] / n - m * m
            var = var if var > 1e-12 * (m * m + 1e-300) else 1.0
            if params.get("leaf_model") == "linear":
                z = (np.array(_row(model, x))[before["columns"]] - before["origin"]) * before["scale"]
                u = np.concatenate([[1.0], z])
                losses = [(y - before["coef"][j] @ u) ** 2 / (2.0 * var) for j in path]
            else:
                losses = [(y - e[0]) ** 2 / (2.0 * var) for e in estimates]
        model.learn_one(x, y)
        after = tree.get_state()
        for key in ("left", "right", "parent", "feature", "threshold", "tau", "scale"):
            assert np.array_equal(before[key], after[key], equal_nan=True), key
        expected = before["logw"].copy()
        for j, loss in zip(path, losses):
            expected[j] -= step * loss
        assert after["logw"] == pytest.approx(expected, rel=1e-12, abs=1e-12)
        off = np.setdiff1d(np.arange(15), path)
        assert np.array_equal(after["logw"][off], before["logw"][off])
        _check_logwt(after)
        if params.get("leaf_model") == "linear":
            z = (np.array(_row(model, x))[before["columns"]] - before["origin"]) * before["scale"]
            u = np.concatenate([[1.0], z])
            g = params["linear_rate"] / (1.0 + z @ z)
            coef = before["coef"].copy()
            for j in path:
                r = y - coef[j] @ u
                coef[j] += np.concatenate([[r / (before["weight"][j] + 2.0)], g * r * z])
            assert after["coef"] == pytest.approx(coef, rel=1e-12, abs=1e-12)
            assert np.array_equal(after["coef"][off], before["coef"][off])
    # the losses were real: the root's weight moved
    assert after["logw"][after["root"]] < -10.0


def test_step_scales_the_cumulated_loss():
    """Two identical streams and seeds differing only in step: the structure is the same (the
    weights never drive the partition) and each logw is proportional to step."""
    data = _stream(600, 3, "clf")
    a = _learn(MondrianForestClassifier(n_estimators=1, max_nodes=31, weighted_prunings=True,
                                        recycling=False, step=1.0, seed=3), data)
    b = _learn(MondrianForestClassifier(n_estimators=1, max_nodes=31, weighted_prunings=True,
                                        recycling=False, step=0.25, seed=3), data)
    sa, sb = a.trees[0].get_state(), b.trees[0].get_state()
    assert np.array_equal(sa["left"], sb["left"]) and np.array_equal(sa["threshold"], sb["threshold"], equal_nan=True)
    assert sb["logw"] == pytest.approx(0.25 * sa["logw"], rel=1e-9, abs=1e-12)
    assert np.min(sa["logw"]) < -5.0


# ------------------------------------------------------------------ recycling at the cap


@pytest.mark.parametrize("cap", [7, 15, 63])
@pytest.mark.parametrize("cls, task", [(MondrianForestClassifier, "clf"),
                                       (MondrianForestRegressor, "reg")], ids=["clf", "reg"])
def test_node_count_never_exceeds_the_cap(cls, task, cap):
    """With recycling (the default), a tree never holds more than max_nodes nodes, checked
    after every sample of a long stream, while it keeps freeing nodes (n_recycled grows in
    steps of two, a twig's leaves, and keeps growing late in the stream), and the tree left
    behind is valid."""
    model = cls(n_estimators=2, max_nodes=cap, growth_scale=4.0, seed=cap)
    recycled = []
    for i, (x, y) in enumerate(_stream(3000, cap, task, d=3), 1):
        model.learn_one(x, y)
        for tree in model.trees:
            assert tree.node_count <= cap
        if i % 1000 == 0:
            recycled.append(sum(t.get_state()["n_recycled"] for t in model.trees))
    assert 0 < recycled[0] < recycled[1] < recycled[2]
    for tree in model.trees:
        state = tree.get_state()
        assert state["n_recycled"] % 2 == 0
        _check_valid(state, cls is MondrianForestClassifier)


#: recycling frees max_nodes // RECYCLE_DIVISOR twigs (at least one) each time the tree is full
RECYCLE_DIVISOR = 8


def _recycling_events(cls, task, cap, n=2500):
    """(state before, state after, x) for each sample of a stream at which the tree recycled."""
    model = cls(n_estimators=1, max_nodes=cap, growth_scale=4.0, weighted_prunings=True,
                seed=cap + 1)
    tree = model.trees[0]
    for x, y in _stream(n, cap + 2, task, d=3):
        before = tree.get_state()
        model.learn_one(x, y)
        after = tree.get_state()
        if after["n_recycled"] != before["n_recycled"]:
            yield before, after, route(after, _row(model, x))


@pytest.mark.parametrize("cap", [7, 63, 255])
@pytest.mark.parametrize("cls, task", [(MondrianForestClassifier, "clf"),
                                       (MondrianForestRegressor, "reg")], ids=["clf", "reg"])
def test_recycling_frees_the_lightest_twigs(cls, task, cap):
    """Each recycling frees twigs of smallest weight, ties broken by the smaller index, counted
    as 2 nodes each in n_recycled. Interior split times are never rewritten, so the twigs freed
    are those whose finite tau disappeared. A freed twig is a leaf again in the same place under
    its parent, keeps its statistics, rests (rate 0) until a sample reaches it; and the tree is
    valid right after (links, statistics rule, boxes, rates, aggregation weights)."""
    events = 0
    for before, after, path in _recycling_events(cls, task, cap):
        events += 1
        freed = after["n_recycled"] - before["n_recycled"]
        assert freed > 0 and freed % 2 == 0
        twigs = _twigs(before)
        expected = sorted(twigs, key=lambda j: (before["weight"][j], j))[:freed // 2]
        assert len(expected) == freed // 2, "only twigs are freed, two nodes each"
        by_tau = {before["tau"][j]: j for j in range(len(before["tau"])) if np.isfinite(before["tau"][j])}
        after_taus = set(after["tau"][np.isfinite(after["tau"])].tolist())
        gone = sorted(by_tau[t] for t in set(by_tau) - after_taus)
        assert gone == sorted(expected)
        after_by_tau = {after["tau"][j]: j for j in range(len(after["tau"])) if np.isfinite(after["tau"][j])}
        for j in expected:
            p = before["parent"][j]
            if p < 0 or before["tau"][p] not in after_by_tau:
                continue
            q = after_by_tau[before["tau"][p]]
            side = "left" if before["left"][p] == j else "right"
            c = after[side][q]
            if c in path:  # the sample went there: it may have woken or even split it
                continue
            assert after["left"][c] == -1 and after["resting"][c] == 1 and after["rate"][c] == 0.0
            assert after["weight"][c] == before["weight"][j]
            assert np.array_equal(after["value"][c], before["value"][j])
        _check_valid(after, cls is MondrianForestClassifier)
        _check_logwt(after)
    assert events >= 10


@pytest.mark.parametrize("cap", [7, 15, 63, 255])
@pytest.mark.parametrize("cls, task", [(MondrianForestClassifier, "clf"),
                                       (MondrianForestRegressor, "reg")], ids=["clf", "reg"])
def test_recycling_frees_a_fixed_share_of_the_cap(cls, task, cap):
    """How much one recycling frees: max_nodes // 16 twigs (at least one, at most the twigs
    there are), 2 nodes each, and only when the tree is full (n_nodes + 2 > max_nodes)."""
    want = max(cap // RECYCLE_DIVISOR, 1)
    events = 0
    for before, after, _ in _recycling_events(cls, task, cap, n=1500):
        events += 1
        assert len(before["left"]) + 2 > cap, "only a full tree recycles"
        freed = after["n_recycled"] - before["n_recycled"]
        assert freed == 2 * min(want, len(_twigs(before)))
    assert events >= 5


def test_a_resting_leaf_wakes_up_when_a_sample_reaches_it():
    """A leaf that recycling made of a twig rests (rate 0) only until a sample reaches it:
    then resting is 0 again and its rate is its box's linear dimension."""
    model = MondrianForestClassifier(n_estimators=1, max_nodes=31, growth_scale=4.0, seed=2)
    tree = model.trees[0]
    woken = 0
    for x, y in _stream(2000, 4, "clf"):
        before = tree.get_state()
        path = route(before, _row(model, x))
        model.learn_one(x, y)
        if not path:
            continue
        leaf = path[-1]
        after = tree.get_state()
        # without a recycling in between rows keep their indices; the sample reached the
        # leaf when its weight grew (a split above it would have sent it to a new leaf)
        if before["resting"][leaf] and after["n_recycled"] == before["n_recycled"] \
                and after["weight"][leaf] > before["weight"][leaf]:
            assert after["resting"][leaf] == 0
            if after["left"][leaf] < 0:
                assert after["rate"][leaf] > 0.0
            woken += 1
    assert woken > 5


@pytest.mark.parametrize("cls, task", [(MondrianForestClassifier, "clf"),
                                       (MondrianForestRegressor, "reg")], ids=["clf", "reg"])
def test_without_recycling_a_full_tree_stays_at_the_cap(cls, task):
    """recycling=False: the tree reaches the cap and stays there, never freeing a node
    (n_recycled 0, nobody resting); statistics still learn (the root counts every sample)."""
    model = cls(n_estimators=2, max_nodes=31, recycling=False, growth_scale=4.0, seed=1)
    data = _stream(2000, 8, task)
    for i, (x, y) in enumerate(data, 1):
        model.learn_one(x, y)
        if i >= 1000:
            assert all(t.node_count == 31 for t in model.trees)
    for tree in model.trees:
        state = tree.get_state()
        assert state["n_recycled"] == 0 and not state["resting"].any()
        assert state["weight"][state["root"]] == len(data)
        _check_valid(state, cls is MondrianForestClassifier)


def test_recycling_keeps_learning_where_a_frozen_tree_cannot():
    """The point of recycling: on a stream whose informative region moves, a tree that frees
    its lightest twigs keeps splitting where the data now is, so its progressive accuracy on
    the second regime beats the frozen tree's."""
    rng = np.random.default_rng(0)
    data = []
    for i in range(6000):
        x0, x1 = rng.uniform(size=2)
        if i < 3000:  # first regime: only the left half is informative
            x0 *= 0.5
        else:
            x0 = 0.5 + 0.5 * x0
        y = int(math.sin(12.0 * x0) + math.sin(12.0 * x1) > 0)
        data.append(({"x0": x0, "x1": x1}, y))
    scores = {}
    for recycling in (True, False):
        model = MondrianForestClassifier(n_estimators=5, max_nodes=63, recycling=recycling, seed=0,
                                         drift_detector=None)
        hits = 0
        for i, (x, y) in enumerate(data):
            if i >= 3000:
                hits += model.predict_one(x) == y
            model.learn_one(x, y)
        scores[recycling] = hits / 3000
    assert scores[True] > scores[False] + 0.05


# ------------------------------------------------------------------ linear leaves


def _linear_target(n, seed):
    rng = np.random.default_rng(seed)
    return [({"x0": float(a), "x1": float(b)}, float(3.0 * a - 2.0 * b + 5.0))
            for a, b in rng.uniform(size=(n, 2))]


def test_linear_leaves_fit_a_linear_target_much_better_than_means():
    """On a noiseless linear target, y = 3 x0 - 2 x1 + 5 with x uniform, the linear leaves'
    progressive MAE is a fraction of the mean leaves' (which approximate a plane by steps)."""
    data = _linear_target(2000, 0)
    maes = {}
    for leaf_model in ("linear", "mean"):
        model = MondrianForestRegressor(n_estimators=5, leaf_model=leaf_model, seed=0)
        errors = []
        for x, y in data:
            errors.append(abs(model.predict_one(x) - y))
            model.learn_one(x, y)
        maes[leaf_model] = (np.mean(errors), np.mean(errors[1000:]))
    assert maes["linear"][0] < 0.5 * maes["mean"][0]
    assert maes["linear"][1] < 0.25 * maes["mean"][1]


def test_a_tree_predicts_with_its_leafs_linear_model():
    """With one tree, the prediction is the linear model of x's leaf, c.(1, z) with
    z = (x - origin) * scale in registry/slot order, whatever the path's means say."""
    model = _learn(MondrianForestRegressor(n_estimators=1, seed=4), _linear_target(800, 1))
    state = model.trees[0].get_state()
    assert len(state["left"]) > 3
    assert state["coef"].shape == (len(state["left"]), state["n_features"] + 1)
    for x, _ in _linear_target(20, 2):
        row = np.array(_row(model, x))
        leaf = route(state, row)[-1]
        z = (row[state["columns"]] - state["origin"]) * state["scale"]
        expected = state["coef"][leaf] @ np.concatenate([[1.0], z])
        assert model.predict_one(x) == pytest.approx(expected, rel=1e-12)


def test_new_nodes_start_from_their_parents_model():
    """A node a split creates starts from its parent's linear model: the two children of a
    lifetime split that the sample did not reach hold the model the leaf had before it split;
    a split-above's new leaf holds its new parent's model (the old node's plus one step)."""
    model = MondrianForestRegressor(n_estimators=1, recycling=False, max_nodes=10**5,
                                    growth_scale=2.0, seed=6)
    tree = model.trees[0]
    lifetime_children = above_leaves = 0
    for x, y in _linear_target(1500, 3):
        y += 0.5 * math.sin(9.0 * x["x0"])
        before = tree.get_state()
        model.learn_one(x, y)
        after = tree.get_state()
        n0 = len(before["left"])
        path = set(route(after, _row(model, x)))
        for c in range(n0, len(after["left"])):
            p = after["parent"][c]
            if after["left"][c] >= 0:
                continue  # a split-above's new interior node
            if p < n0:  # lifetime split of old leaf p
                if c not in path:
                    assert np.array_equal(after["coef"][c], before["coef"][p])
                    lifetime_children += 1
            else:  # split-above: new leaf c under new interior p
                assert np.array_equal(after["coef"][c], after["coef"][p])
                above_leaves += 1
    assert lifetime_children > 10 and above_leaves > 10


def test_linear_models_follow_a_rescale():
    """When a root range grows past the rescale factor, `scale` (1 / range) changes and every
    node's coefficients are multiplied by old scale / new scale, so each model predicts what it
    did (the intercept stays). Checked on the nodes the sample did not update (off its path),
    on a stream whose range keeps growing. (Rescaling a feature of the whole stream cannot see
    this: both streams rescale at the same samples by the same ratios.)"""
    rng = np.random.default_rng(7)
    model = MondrianForestRegressor(n_estimators=1, recycling=False, max_nodes=10**5, seed=2)
    tree = model.trees[0]
    rescales = 0
    for i in range(1, 1500):
        a, b = rng.uniform(size=2) * (1.0 + i / 100.0)
        x = {"x0": float(a), "x1": float(b)}
        before = tree.get_state()
        model.learn_one(x, float(3.0 * a - 2.0 * b + 5.0))
        after = tree.get_state()
        if i <= 20 or np.array_equal(before["scale"], after["scale"]):
            continue
        ratio = before["scale"] / after["scale"]
        assert np.any(ratio != 1.0)
        path = set(route(after, _row(model, x)))
        for j in range(len(before["left"])):
            if j in path:
                continue
            assert after["coef"][j, 0] == before["coef"][j, 0]
            assert after["coef"][j, 1:] == pytest.approx(before["coef"][j, 1:] * ratio, rel=1e-12)
        rescales += 1
    assert rescales >= 10


@pytest.mark.parametrize("factor", [1000.0, 1e-3])
@pytest.mark.parametrize("params", [dict(), dict(weighted_prunings=True), dict(max_nodes=31)],
                         ids=["default", "aggregation", "recycling"])
def test_linear_predictions_are_invariant_to_rescaling_a_feature(factor, params):
    """Multiplying a feature by 1000 (or 1/1000) changes neither the partition (side lengths are
    in units of the root range) nor the linear models' predictions (they work on x in those
    units, and their coefficients follow every rescale of the root range)."""
    data = _linear_target(1500, 4)
    a = MondrianForestRegressor(n_estimators=3, seed=3, **params)
    b = MondrianForestRegressor(n_estimators=3, seed=3, **params)
    for x, y in data:
        xb = {"x0": x["x0"] * factor, "x1": x["x1"]}
        assert b.predict_one(xb) == pytest.approx(a.predict_one(x), rel=1e-6, abs=1e-9)
        a.learn_one(x, y)
        b.learn_one(xb, y)
    assert a.n_nodes == b.n_nodes > 10
    if params.get("max_nodes"):
        assert all(t.get_state()["n_recycled"] > 0 for t in a.trees)
    for ta, tb in zip(a.trees, b.trees):
        sa, sb = ta.get_state(), tb.get_state()
        assert sa["coef"] == pytest.approx(sb["coef"], rel=1e-5, abs=1e-9)


@pytest.mark.parametrize("params", [dict(), dict(leaf_model="mean"), dict(weighted_prunings=True)],
                         ids=["linear", "mean", "aggregation"])
def test_a_stream_without_features_predicts_the_mean(params):
    """With no feature at all there is nothing to split nor to regress on: every tree is a
    root and predicts the targets' mean, with their spread as sigma (a linear leaf without
    features must not predict its intercept, which only tracks the recent targets)."""
    rng = np.random.default_rng(1)
    ys = [float(v) for v in rng.normal(5.0, 2.0, size=300)]
    model = MondrianForestRegressor(n_estimators=3, seed=1, **params)
    for y in ys:
        model.learn_one({}, y)
    assert model.n_nodes == 3
    assert model.predict_one({}) == pytest.approx(float(np.mean(ys)), rel=1e-12)
    assert model.predict_one({}, with_dist=True).sigma == pytest.approx(float(np.std(ys)), rel=1e-9)
    # an unknown feature at prediction time changes nothing
    assert model.predict_one({"new": 1.0}) == model.predict_one({})


def test_a_stream_whose_only_feature_is_constant_predicts_the_mean():
    """A feature that never varies carries nothing to split on nor to regress on (its scale is
    0, so the models see z = 0): the forest should predict as with no feature at all, the
    targets' mean, not the last target its intercepts were stepped to."""
    rng = np.random.default_rng(1)
    ys = [float(v) for v in rng.normal(5.0, 2.0, size=300)]
    model = MondrianForestRegressor(n_estimators=3, seed=1)
    for y in ys:
        model.learn_one({"bias": 1.0}, y)
    # the intercepts average the residuals (their first step counts half against the start):
    # within a few hundredths of the mean, where the last target is 0.4 off
    assert model.predict_one({"bias": 1.0}) == pytest.approx(float(np.mean(ys)), abs=0.02)
    assert abs(ys[-1] - float(np.mean(ys))) > 0.3  # so the check can tell them apart


def test_refit_many_refits_linear_leaves():
    """refit_many relearns what the trees predict from on new targets, keeping the partition:
    after a refit on y' = 100 - y, a linear-leaf forest must predict about 100 - y, as a
    mean-leaf forest does."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(size=(1000, 2)), columns=["x0", "x1"])
    y = 3.0 * X["x0"]
    x = {"x0": 0.5, "x1": 0.5}
    for leaf_model in ("mean", "linear"):
        model = MondrianForestRegressor(n_estimators=3, leaf_model=leaf_model, seed=0)
        model.learn_many(X, y)
        assert model.predict_one(x) == pytest.approx(1.5, abs=0.3)
        model.refit_many(X, 100.0 - y)
        assert model.predict_one(x) == pytest.approx(98.5, abs=1.0), leaf_model


# ------------------------------------------------------------------ pickling, batches


MODELS = [
    (MondrianForestClassifier, "phishing", dict()),
    (MondrianForestClassifier, "phishing", dict(weighted_prunings=True, step=0.5, max_nodes=31)),
    (MondrianForestRegressor, "trump", dict()),
    (MondrianForestRegressor, "trump", dict(weighted_prunings=True, max_nodes=15)),
    (MondrianForestRegressor, "trump", dict(weighted_prunings=True, leaf_model="mean",
                                            recycling=False, max_nodes=63)),
]
MODEL_IDS = ["clf-default", "clf-aggregation", "reg-default", "reg-aggregation", "reg-mean-frozen"]


def _predictions(model, xs):
    if isinstance(model, river_forests.MondrianForestClassifier):
        return [model.predict_proba_one(x) for x in xs]
    return [(d.mu, d.sigma) for d in (model.predict_one(x, with_dist=True) for x in xs)]


@pytest.mark.parametrize("cls, data_name, params", MODELS, ids=MODEL_IDS)
def test_pickling_mid_stream_resumes_bit_for_bit(request, cls, data_name, params):
    """A model pickled mid-stream and unpickled goes on exactly as the original: same
    predictions (to the bit) before and after learning the rest of the stream, same tree
    states (aggregation weights, resting flags, recycled counts, linear models, generator)."""
    data = request.getfixturevalue(data_name)
    data = data[:600]
    model = cls(n_estimators=3, seed=5, **params)
    _learn(model, data[:300])
    twin = pickle.loads(pickle.dumps(model))
    for ta, tb in zip(model.trees, twin.trees):
        assert same_state(ta.get_state(), tb.get_state())
    probe = [x for x, _ in data[300:330]]
    assert _predictions(model, probe) == _predictions(twin, probe)
    for x, y in data[300:]:
        assert _predictions(model, [x]) == _predictions(twin, [x])
        model.learn_one(x, y)
        twin.learn_one(x, y)
    for ta, tb in zip(model.trees, twin.trees):
        assert same_state(ta.get_state(), tb.get_state())
    if params.get("max_nodes") and params.get("recycling", True):
        assert any(t.get_state()["n_recycled"] > 0 for t in model.trees), \
            "the stream should make the trees recycle"


@pytest.mark.parametrize("cls, data_name, params", MODELS, ids=MODEL_IDS)
def test_learn_many_equals_a_learn_one_loop(request, cls, data_name, params):
    """learn_many over chunks (small ones, and ones large enough to run the trees on threads)
    gives the same trees and predictions as a learn_one loop over the same rows."""
    data = request.getfixturevalue(data_name)[:700]
    one = _learn(cls(n_estimators=3, seed=2, **params), data)
    many = cls(n_estimators=3, seed=2, **params)
    start = 0
    for size in itertools.cycle([1, 7, 100, 33]):
        chunk = data[start:start + size]
        if not chunk:
            break
        X = pd.DataFrame([x for x, _ in chunk])
        y = pd.Series([y for _, y in chunk])
        many.learn_many(X, y)
        start += size
    for ta, tb in zip(one.trees, many.trees):
        assert same_state(ta.get_state(), tb.get_state())
    probe = [x for x, _ in data[:50]]
    assert _predictions(one, probe) == _predictions(many, probe)
    # and the batch prediction is the one-at-a-time prediction
    frame = pd.DataFrame(probe)
    if cls is MondrianForestClassifier:
        batch = many.predict_proba_many(frame)
        for i, x in enumerate(probe):
            proba = many.predict_proba_one(x)
            assert [batch.iloc[i][label] for label in proba] == list(proba.values())
    else:
        assert many.predict_many(frame).tolist() == [many.predict_one(x) for x in probe]


def test_deepcopy_keeps_the_new_state():
    """copy.deepcopy (river's clone of a learned model in some wrappers) carries the new
    arrays and scalars too."""
    model = _learn(MondrianForestRegressor(n_estimators=2, max_nodes=15, weighted_prunings=True,
                                           seed=1), _stream(500, 1, "reg"))
    twin = copy.deepcopy(model)
    for ta, tb in zip(model.trees, twin.trees):
        sa = ta.get_state()
        assert sa["n_recycled"] > 0 and sa["linear"] and sa["use_aggregation"]
        assert same_state(sa, tb.get_state())
