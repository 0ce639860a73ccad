"""The drift watch as a part of its own (`river_forests._core._watch.DriftWatch`): it owns its
saved state (the background trees, their count and the detectors' state), checks it before
anything is built from it, and a forest given a damaged watch state raises a clear ValueError
and stays as it was."""

from __future__ import annotations

import copy
import itertools
import pickle

import pytest
from river import drift
from river.datasets import synth

from river_forests import MondrianForestClassifier, MondrianForestRegressor, to_state
from river_forests._core._watch import DriftWatch


def _stream(n=1200):
    """Agrawal with its labels flipped half-way: detectors fire, background trees start."""
    rows = list(itertools.islice(synth.Agrawal(classification_function=0, seed=3), n))
    return [(x, (1 - y) if i >= n // 2 else y) for i, (x, y) in enumerate(rows)]


def _watched(detector=None, n=1200):
    model = MondrianForestClassifier(
        n_estimators=3, seed=5, memory_budget="2MB",
        drift_detector=detector if detector is not None else drift.ADWIN(delta=0.2),
        warning_detector=drift.ADWIN(delta=0.5), background_swap="when_better")
    for x, y in _stream(n):
        model.learn_one(x, y)
    return model


@pytest.fixture(scope="module")
def model():
    m = _watched()
    assert sum(m.drifts_per_tree) > 0
    return m


def _same(a, b):
    return pickle.dumps(to_state(a)) == pickle.dumps(to_state(b))


def test_the_watch_state_is_the_forests_keys(model):
    """The watch's state is its keys of the forest's saved state, as they were: the saved
    dict is unchanged."""
    state = model._core.watch.state()
    assert list(state) == ["background", "n_background", "watch"]
    forest = model._core.snapshot()["forest"]
    assert pickle.dumps({k: forest[k] for k in state}) == pickle.dumps(state)
    DriftWatch.check_state(state, model.n_estimators)


def test_a_watch_restores_its_own_state(model):
    state = model._core.watch.state()
    watch = DriftWatch(model.n_estimators)
    watch.set_state(copy.deepcopy(state))
    assert pickle.dumps(watch.state()) == pickle.dumps(state)
    assert watch.watching and watch.compiled
    assert watch.drift_counts == model.drifts_per_tree


def _damaged():
    """(what is damaged, how) of a watch state: each must raise ValueError."""
    def at(key, value):
        def f(s):
            s["watch"][key] = value
        return f

    def log_tree(s):
        s["watch"]["log"] = ([(10, 7)], 1000)

    def adwin(s):
        d, w = s["watch"]["adwins"][0]
        s["watch"]["adwins"][0] = (d[:5], w)

    return {
        "background too short": lambda s: s.update(background=s["background"][:-1]),
        "n_background negative": lambda s: s.update(n_background=-1),
        "unknown rule": at("rule", 7),
        "templates not a pair": at("templates", (None,)),
        "pending too long": lambda s: s["watch"]["pending"].append(False),
        "duel of two numbers": lambda s: s["watch"]["duel"].__setitem__(0, (0.0, 0.0)),
        "negative count": lambda s: s["watch"]["counts"][0].__setitem__(0, -1),
        "log entry of a tree that is not": log_tree,
        "log longer than its bound": at("log", ([(1, 0)] * 3, 2)),
        "n_watched not an integer": at("n_watched", 1.5),
        "ADWIN state truncated": adwin,
    }


@pytest.mark.parametrize("damage", list(_damaged()))
def test_a_damaged_watch_state_raises_and_leaves_the_forest_as_it_was(model, damage):
    state = copy.deepcopy(model._core.watch.state())
    _damaged()[damage](state)
    twin = copy.deepcopy(model)
    with pytest.raises(ValueError):
        DriftWatch(model.n_estimators).set_state(state)
    with pytest.raises(ValueError):
        if damage in ("background too short", "n_background negative"):
            twin._core.set_forest_state(dict(twin._core.forest_state(), **state))
        else:
            twin._core.set_watch_state(state["watch"])
    assert _same(twin, model)
    # and the forest still learns as the untouched one does
    other = copy.deepcopy(model)
    for x, y in _stream(1300)[1200:]:
        twin.learn_one(x, y)
        other.learn_one(x, y)
    assert _same(twin, other)


def test_a_damaged_saved_watch_is_a_model_file_error(model):
    from river_forests import ModelFileError, from_state

    state = to_state(model)
    state["core"]["forest"]["watch"]["counts"][1][0] = "many"
    with pytest.raises(ModelFileError, match="counts"):
        from_state(state)


def test_python_detectors_state_round_trips():
    """Detectors that run as Python objects (not ADWIN) are saved as objects and restored."""
    model = MondrianForestRegressor(n_estimators=2, seed=1, drift_detector=drift.PageHinkley())
    for x, y in itertools.islice(synth.Friedman(seed=2), 300):
        model.learn_one(x, y)
    state = model._core.watch.state()
    assert not model._core.watch.compiled and state["watch"]["python"] is not None
    watch = DriftWatch(2)
    watch.set_state(copy.deepcopy(state))
    assert pickle.dumps(watch.state()) == pickle.dumps(state)


def test_joined_watches_keep_each_trees_detectors_and_the_latest_log(model):
    w = model._core.watch.state()["watch"]
    joined = DriftWatch.joined([w, w], [3, 3], 1000)
    assert len(joined["pending"]) == 6 and joined["counts"][0] == w["counts"][0] * 2
    assert [i for _, i in joined["log"][0]] == [i for _, i in w["log"][0]] + \
        [i + 3 for _, i in w["log"][0]]
    short = DriftWatch.joined([w, w], [3, 3], 1)
    assert short["log"] == ([joined["log"][0][-1]], 1)
    DriftWatch.check_state({"background": [None] * 6, "n_background": 0, "watch": joined}, 6)

