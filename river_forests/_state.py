"""A model's one versioned state, and the migrations from every earlier one.

Every estimator has one versioned state, :func:`to_state`: plain data (dicts, lists, tuples,
numbers, strings, numpy arrays) that names the estimator, its parameters by their public
names, the package's version and, in ``core``, the forest's compiled state assembled from
its parts' own (`ForestCore.snapshot`), its trees by the *name* of their kind, never a class
or a function. :func:`from_state` builds the model back from it, after each part's checks.
Three things go through that pair and nothing else: :func:`river_forests.save` /
:func:`river_forests.load` (a file, `_file`), pickling (``BaseForest.__reduce__``) and
:func:`river_forests.merge`.

A state of an older format version is brought to this one by :data:`MIGRATIONS`, one step a
version; version 0 is a model pickled by 0.1 to 0.2 (its ``__dict__``, which
``BaseForest.__setstate__`` hands over).
"""
from __future__ import annotations

import collections
import importlib
import random
import sys

import numpy as np

from ._forest import ESTIMATORS, PERSISTENCE
from ._version import __version__

#: the version of `to_state`'s dict and of the file (0: the pickles of 0.1 to 0.2; 1: 0.3's
#: files, before feature importances; 2: trees' states with their compiled parameters)
STATE_VERSION = 3

__all__ = ["ModelFileError", "to_state", "from_state", "core_state", "STATE_VERSION",
           "MIGRATIONS"]


class ModelFileError(ValueError):
    """A file or a state that does not hold a model this release can load: not a model file
    at all (a pickle, a text file, an empty file: "not a river-forests model file"),
    truncated, corrupted (its checksum differs), of a newer format version, or describing a
    model that cannot exist (shapes that disagree, children out of range or in a cycle, sizes
    past what its arrays hold, NaN in a box, an unknown estimator or tree kind). Raised before
    any model is built; a ValueError. Raised for a file, its message begins with the file's
    path, which ``path`` holds (None for a state)."""

    path = None


# ------------------------------------------------------------------------------ estimators

def _estimators() -> dict:
    """The package's estimators by class name (`river_forests._forest.ESTIMATORS`)."""
    return dict(ESTIMATORS)


def _param_names(cls) -> list:
    import inspect

    return list(inspect.signature(cls).parameters)


# ------------------------------------------------------------------------------ river objects
# A parameter that is a river object (a drift detector) is saved as its class's dotted name
# and its parameters; a detector that runs in Python (any but river's ADWIN, which the
# forest runs compiled) also with its attributes. Loading imports only river's modules and
# builds only subclasses of river.base.Base.

def _object_spec(obj, full: bool, strict: bool):
    """`obj` (a river object) as plain data; `full`: with its attributes. Not `strict`: an
    object whose attributes are not plain data stays itself (pickling only)."""
    from river import base

    if not isinstance(obj, base.Base):
        return obj
    cls = type(obj)
    params = {}
    for name, value in obj._get_params().items():
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], type):
            value = getattr(obj, name)  # river's (class, params) of a nested object
        params[name] = _object_spec(value, False, strict)
    spec = {"$river": f"{cls.__module__}:{cls.__qualname__}", "params": params}
    if full:
        attrs = {}
        try:
            for name, value in vars(obj).items():
                if name in params or callable(value):
                    continue
                attrs[name] = _attr(value)
        except TypeError:
            if strict:
                raise
            return obj
        spec["attrs"] = attrs
    return spec


def _attr(value):
    from river import base

    if isinstance(value, base.Base):
        return _object_spec(value, True, True)
    if isinstance(value, collections.deque):
        return {"$deque": [_attr(v) for v in value], "maxlen": value.maxlen}
    if type(value) is random.Random:
        return {"$random": value.getstate()}
    if isinstance(value, (list, tuple)):
        return type(value)(_attr(v) for v in value)
    if isinstance(value, dict):
        return {k: _attr(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str, np.ndarray, np.generic)):
        return value
    raise TypeError(f"an attribute of type {type(value).__name__} is not plain data")


def _river_class(path):
    from river import base

    if not isinstance(path, str) or ":" not in path:
        raise ModelFileError(f"not a river class name: {path!r}")
    module, qualname = path.split(":", 1)
    if module != "river" and not module.startswith("river."):
        raise ModelFileError(f"{path!r} is not a class of river's")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        raise ModelFileError(f"river has no class {path!r}") from None
    if not (isinstance(obj, type) and issubclass(obj, base.Base)):
        raise ModelFileError(f"{path!r} is not a river estimator or statistic")
    return obj


def _from_spec(value):
    """The river object `_object_spec` described (anything else as it is)."""
    if isinstance(value, dict) and "$river" in value:
        cls = _river_class(value["$river"])
        params = value.get("params", {})
        if not isinstance(params, dict):
            raise ModelFileError("a river object's parameters must be a dict")
        import inspect

        signature = inspect.signature(cls).parameters
        built = {}
        for name, v in params.items():
            if name not in signature:
                raise ModelFileError(f"{value['$river']} has no parameter {name!r}")
            v = _from_spec(v)
            default = signature[name].default
            if default is not inspect.Parameter.empty and default is not None \
                    and not _same_kind(default, v):
                raise ModelFileError(f"{value['$river']}'s parameter {name!r} must be like "
                                     f"{default!r}, got {v!r}")
            built[name] = v
        from river import drift

        if cls is drift.ADWIN and not 1 <= built.get("max_buckets", 5) <= 2**16:
            # river's ADWIN allocates its buckets for it in its constructor
            raise ModelFileError("an ADWIN of more than 65,536 buckets a level")
        try:
            obj = cls(**built)
        except (TypeError, ValueError) as e:
            raise ModelFileError(f"cannot build {value['$river']}: {e}") from None
        attrs = value.get("attrs", {})
        if not isinstance(attrs, dict):
            raise ModelFileError("a river object's attributes must be a dict")
        for name, v in attrs.items():
            if not isinstance(name, str) or name not in vars(obj):
                raise ModelFileError(f"{value['$river']} has no attribute {name!r}")
            v = _from_attr(v)
            if not _same_kind(vars(obj)[name], v):
                raise ModelFileError(f"{value['$river']}'s attribute {name!r} must be like "
                                     f"{vars(obj)[name]!r}, got a {type(v).__name__}")
            setattr(obj, name, v)
        return obj
    return value


def _number(v) -> bool:
    """A float, or an integer a float holds (a river statistic does float arithmetic)."""
    if isinstance(v, (bool, np.bool_)):
        return False
    return isinstance(v, (float, np.floating)) or (isinstance(v, (int, np.integer))
                                                  and abs(int(v)) <= 2**53)


def _same_kind(old, new) -> bool:
    """Whether `new` may stand where a river object holds `old`: a number for a number (or
    for None: a statistic not known yet), a bool for a bool, a string for a string, the same
    class of river object, deque, generator, list or dict, element by element."""
    from river import base

    if old is None:
        return new is None or _number(new)
    if isinstance(old, (bool, np.bool_)):
        return isinstance(new, (bool, np.bool_))
    if _number(old):
        return _number(new) or (new is None)
    if isinstance(old, str):
        return isinstance(new, str)
    if isinstance(old, base.Base):
        return type(new) is type(old)
    if isinstance(old, collections.deque):
        return isinstance(new, collections.deque) and all(_number(v) or isinstance(v, (bool, np.bool_))
                                                         for v in new)
    if isinstance(old, (list, tuple, dict, random.Random, np.ndarray)):
        return type(new) is type(old)
    return False


def _from_attr(value):
    if isinstance(value, dict):
        if "$river" in value:
            return _from_spec(value)
        if "$deque" in value:
            return collections.deque((_from_attr(v) for v in value["$deque"]), value["maxlen"])
        if "$random" in value:
            r = random.Random()
            try:
                r.setstate(_tuples(value["$random"]))
            except (TypeError, ValueError) as e:
                raise ModelFileError(f"not a generator's state: {e}") from None
            return r
        return {k: _from_attr(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_attr(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_from_attr(v) for v in value)
    return value


def _tuples(v):
    return tuple(_tuples(x) for x in v) if isinstance(v, (list, tuple)) else v


# ------------------------------------------------------------------------------ the state

def to_state(model, strict: bool = True) -> dict:
    """The model's whole state as plain data (see the module's docstring): ``version``,
    ``package``, ``estimator`` (its class's name), ``params`` (every constructor parameter,
    by its public name; a detector as its river class's name and parameters) and ``core``
    (the forest's compiled state, `core_state`, whose trees' states hold what the trees
    learned but not the parameters they were built with: those are ``params``'). Taken
    under the model's lock: safe while another thread learns.

    `strict` False (pickling only) keeps a detector whose attributes are not plain data as
    the object itself."""
    cls = type(model)
    if _estimators().get(cls.__name__) is not cls:
        raise TypeError(f"{cls.__name__} is not an estimator of river_forests")
    try:
        params = {n: _object_spec(getattr(model, n), False, strict) for n in _param_names(cls)}
    except TypeError as e:
        raise _not_plain(cls, e) from None
    core = _trees_mapped(core_state(model, strict), _without_params(model._tree_params()))
    return {"version": STATE_VERSION, "package": __version__,
            "estimator": cls.__name__, "params": params, "core": core}


def core_state(model, strict: bool = True) -> dict:
    """The forest's compiled state (`ForestCore.snapshot`: its trees' whole states, each
    with the parameters it was built with), with the detectors that run in Python
    described by their attributes; what `to_state` saves and `river_forests.merge` joins."""
    try:
        core = model._core.snapshot()
        watch = core["forest"]["watch"]
        if watch is not None:
            watch = dict(watch)
            watch["templates"] = tuple(_object_spec(d, False, strict) for d in watch["templates"])
            if watch["python"] is not None:
                watch["python"] = tuple(None if ds is None else [_object_spec(d, True, strict) for d in ds]
                                        for ds in watch["python"])
            core["forest"] = dict(core["forest"], watch=watch)
    except TypeError as e:
        raise _not_plain(type(model), e) from None
    return core


def _not_plain(cls, e: TypeError) -> TypeError:
    return TypeError(f"this {cls.__name__}'s state is not plain data ({e}): a model loaded "
                     "from a 0.2 pickle that runs river's ADWIN in Python cannot be saved "
                     "without pickle; rebuild its detectors (a new model) to save it")


def _without_params(tree_params: dict):
    """A tree state without the compiled parameters `tree_params` gives it (a value that
    differs, as a model migrated from an old format may hold, stays in the tree's state)."""
    def strip(t: dict) -> dict:
        return {k: v for k, v in t.items() if k not in tree_params or not _same(v, tree_params[k])}
    return strip


def _with_params(tree_params: dict):
    """A tree state completed with the compiled parameters `tree_params` gives it (a value
    the state holds itself wins: see `_without_params`)."""
    def complete(t):
        return {**tree_params, **t} if isinstance(t, dict) else t
    return complete


def _same(a, b) -> bool:
    return type(a) is type(b) and a == b or (_number(a) and _number(b) and a == b
                                             and isinstance(a, bool) == isinstance(b, bool))


def _trees_mapped(core: dict, f) -> dict:
    """`core` with `f` applied to each tree's state and each background tree's."""
    core = dict(core, trees=[f(t) for t in core["trees"]])
    forest = core.get("forest")
    if isinstance(forest, dict) and isinstance(forest.get("background"), list):
        core["forest"] = dict(forest, background=[None if b is None else f(b)
                                                  for b in forest["background"]])
    return core


def from_state(state: dict, _borrow: bool = False):
    """The model `to_state` described (a state of an older format version is migrated first,
    `MIGRATIONS`). Everything is checked before the model is built: a state that does not
    describe a model raises :class:`ModelFileError`."""
    try:
        return _build(migrate(state), _borrow)
    except ModelFileError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, AttributeError,
            RecursionError) as e:
        raise ModelFileError(f"not a river_forests model state: {type(e).__name__}: {e}") from None


def _build(state: dict, borrow: bool = False):
    from ._core._forest import core_from_snapshot

    if not isinstance(state, dict):
        raise ModelFileError("a model state is a dict")
    cls = _estimators().get(state.get("estimator"))
    if cls is None:
        raise ModelFileError(f"unknown estimator {state.get('estimator')!r}")
    params = state.get("params")
    if isinstance(params, dict):
        # a parameter added within this format version: the value that reproduces the files
        # written before it (each class's, along its bases)
        added = {}
        for klass in reversed(cls.__mro__):
            added.update(vars(klass).get("_added_params", {}))
        params = {**added, **params}
    if not isinstance(params, dict) or sorted(params) != sorted(_param_names(cls)):
        raise ModelFileError(f"a {cls.__name__}'s parameters must be exactly "
                             f"{_param_names(cls)}")
    n_trees = params.get("n_estimators")
    trees = state.get("core", {}).get("trees") if isinstance(state.get("core"), dict) else None
    if not isinstance(trees, list) or n_trees != len(trees):
        raise ModelFileError(f"a {cls.__name__} of n_estimators={n_trees!r} needs as many tree "
                             "states")
    params = {k: _from_spec(v) for k, v in params.items()}
    snap = state.get("core")
    if not isinstance(snap, dict):
        raise ModelFileError("a model state needs its forest's state ('core')")
    forest = snap.get("forest")
    watch = forest.get("watch") if isinstance(forest, dict) else None
    if isinstance(watch, dict):
        watch = dict(watch)
        templates = watch.get("templates")
        if not isinstance(templates, (tuple, list)) or len(templates) != 2:
            raise ModelFileError("the detectors' templates must be a pair")
        watch["templates"] = tuple(_from_spec(d) for d in templates)
        # each detector of the class the parameters name (the templates: those parameters)
        from ._forest import detector_of

        kinds = [type(detector_of(params.get("drift_detector"))),
                 type(detector_of(params.get("warning_detector")))]
        if [type(d) for d in watch["templates"]] != kinds:
            raise ModelFileError("the detectors' templates are not drift_detector and "
                                 "warning_detector")
        python = watch.get("python")
        if python is not None:
            if not isinstance(python, (tuple, list)) or len(python) != 2:
                raise ModelFileError("the detectors that run in Python must be a pair of lists")
            watch["python"] = tuple(None if ds is None else [_from_spec(d) for d in ds] for ds in python)
            for ds, kind in zip(watch["python"], kinds):
                if (ds is None) != (kind is type(None)) or (
                        ds is not None and not (isinstance(ds, list)
                                                and all(type(d) is kind for d in ds))):
                    raise ModelFileError("a detector that runs in Python is not of its "
                                         "parameter's class")
        snap = dict(snap, forest=dict(forest, watch=watch))
    model = cls(**params)  # checks the parameters
    kind = model._tree_class.__name__
    for t in snap.get("trees", []) + list(forest.get("background", [])):
        if isinstance(t, dict) and t.get("kind") != kind:
            raise ModelFileError(f"a {cls.__name__} grows {kind}s, not {t.get('kind')!r}")
    if not isinstance(snap.get("trees"), list) or len(snap["trees"]) != model.n_estimators:
        raise ModelFileError(f"a {cls.__name__} of n_estimators={model.n_estimators} needs as "
                             "many tree states")
    if (watch is None) != (model.drift_detector is None):
        raise ModelFileError("the detectors' state does not match drift_detector")
    if snap.get("classifier") is not (model._task == 0):
        raise ModelFileError(f"a {cls.__name__}'s forest state is not of its task")
    # the trees' construction parameters, which their states leave to `params` (format 3)
    snap = _trees_mapped(snap, _with_params(model._tree_params()))
    core = core_from_snapshot(snap, borrow)
    model._core = core
    if watch is None:  # no detectors: the empty reports a new forest has
        model._reset_detectors()
    if model._task == 1 and model.confidence_level is not None and core.interval_state is None:
        model._set_intervals(core)  # a state of a regressor from before the intervals
    return model


# ------------------------------------------------------------------------------ migrations

def _from_pickle_era(state: dict) -> dict:
    """Version 0 -> 1: a model pickled by 0.1 to 0.2, its ``__dict__`` as pickle restored it
    (``attrs``, its ``_core`` the parts `_rebuild_core` kept): parameters renamed or added
    since get their names and the values that reproduce the model as it was; the trees'
    states their version-2 keys; the forest's own state (absent before 0.2) its defaults."""
    from ._core._forest import forest_rng_state
    from ._forest import RENAMED, SHARED_DEFAULTS

    cls = _estimators()[state["estimator"]]
    attrs = dict(state["attrs"])
    core = attrs.pop("_core")
    legacy_detectors = "drift_detector" not in attrs
    attrs.setdefault("drift_detector", None)
    attrs.setdefault("warning_detector", None)
    attrs.setdefault("background_swap", "at_drift")  # before 0.3.0 a drift swapped at once
    python = {k: attrs.pop(k, None) for k in ("_drift_detectors", "_warning_detectors",
                                               "_drifts", "_warnings", "_drift_log", "_n_watched")}
    # before features_per_tree and max_width: every feature, an unbounded registry
    attrs.setdefault("features_per_tree", 2**31 - 1)
    attrs.setdefault("max_width", 2**31 - 1)
    attrs.setdefault("subsample_decay", 0.0)
    if "candidate_features" in attrs:  # the paper's lambda: a leaf tries 1 + Poisson(lambda)
        attrs["max_features"] = attrs.pop("candidate_features") + 1.0
    for old, new in RENAMED.items():
        if old in attrs:
            attrs.setdefault(new, attrs.pop(old))
    attrs.setdefault("memory_budget", None)  # before 0.2.0: bounded by max_nodes alone
    if cls._task == 1:
        attrs.setdefault("confidence_level", SHARED_DEFAULTS["confidence_level"])
    for k, v in cls._legacy_defaults.items():
        attrs.setdefault(k, v)
    legacy_seed = attrs.pop("_master_seed", None)
    import inspect

    # a parameter added since with no value above: the class's value for models pickled
    # before it (as `_MondrianParams` keeps), else its default (it reaches only new trees)
    params = {}
    for n, p in inspect.signature(cls).parameters.items():
        fallback = inspect.getattr_static(cls, n, p.default)
        if callable(fallback) or isinstance(fallback, (property, classmethod, staticmethod)):
            fallback = p.default
        params[n] = attrs[n] if n in attrs else fallback
    if not isinstance(core, dict):  # 0.1.0 pickled the compiled core itself
        core = {"trees": [(type(t).__name__, t.get_state()) for t in core.trees],
                "classifier": core.classifier, "vote": core.vote,
                "names": list(core.features.names), "max_width": core.features.max_width,
                "full_warned": core.features.full_warned, "labels": list(core.labels),
                "forest": dict(core.forest_state(), background=[None] * len(core.trees))}

    n = len(core["trees"])
    trees = [migrate_tree_state(dict(s, kind=kind)) for kind, s in core["trees"]]
    forest = core["forest"]
    if forest is None:  # 0.1: the forest kept no state of its own
        forest = {"master_seed": None, "n_replaced": 0, "n_batches": 0, "batch_size": 0,
                  "rng": None, "pending_rows": [], "pending_targets": []}
    forest = dict(forest)
    forest["background"] = [None if b is None else migrate_tree_state(dict(b[1], kind=b[0].__name__))
                            for b in forest.get("background", [None] * n)]
    forest.setdefault("n_background", 0)
    forest.setdefault("watch", None)
    forest.setdefault("budget", (0, 0, max(1, n)))
    forest.setdefault("background_share", 1.0)  # a background tree had a whole share
    forest.setdefault("intervals", None)
    if forest["master_seed"] is None:
        seed = legacy_seed if legacy_seed is not None else attrs.get("seed")
        if seed is None:
            seed = random.SystemRandom().getrandbits(64)
        forest["master_seed"] = int(seed)
        forest["rng"] = forest_rng_state(forest["master_seed"])
    if legacy_detectors:
        forest["watch"] = None
    elif python["_drift_detectors"] is not None:  # 0.2: run them as they were
        drift, warning = params["drift_detector"], params["warning_detector"]
        forest["watch"] = {
            "rule": 0, "templates": (drift, warning), "adwins": None,
            "python": (python["_drift_detectors"], python["_warning_detectors"]),
            "duel": [(0.0, 0.0, 0.0)] * n, "pending": [False] * n,
            "counts": (list(python["_drifts"]), list(python["_warnings"]), [0] * n),
            "log": (list(python["_drift_log"]), cls.DRIFT_LOG),
            "n_watched": python["_n_watched"]}
    snap = {k: core[k] for k in ("classifier", "vote", "names", "max_width", "full_warned",
                                 "labels")}
    snap.update(trees=trees, forest=forest)
    return {"version": 1, "package": None, "estimator": state["estimator"], "params": params,
            "core": snap}


def _add_importances(state: dict) -> dict:
    """Version 1 -> 2: feature importances. The model gets ``importance_halflife``'s default
    and each tree that decay; its splits start with no credit (their ``gain`` is zero), so
    the importances are those of what the model learns after the load."""
    from ._core._tree import TREE_KINDS
    from ._forest import SHARED_DEFAULTS, importance_growth

    if not isinstance(state.get("params"), dict) or not isinstance(state.get("core"), dict):
        raise ModelFileError("a model state needs its parameters and its forest's state")
    halflife = SHARED_DEFAULTS["importance_halflife"]
    params = dict(state["params"])
    params.setdefault("importance_halflife", halflife)
    core = dict(state["core"])
    forest = core.get("forest")

    def tree(t):
        if isinstance(t, dict) and t.get("kind") in TREE_KINDS:
            t = dict(t)
            t.setdefault("gain_growth", importance_growth(halflife))
        return t

    if isinstance(core.get("trees"), list):
        core["trees"] = [tree(t) for t in core["trees"]]
    if isinstance(forest, dict) and isinstance(forest.get("background"), list):
        core["forest"] = dict(forest, background=[tree(t) for t in forest["background"]])
    return dict(state, version=2, params=params, core=core)


def _params_by_name(state: dict) -> dict:
    """Version 2 -> 3: the model's parameters, by their public names, are the only place a
    parameter is saved. A version-2 tree state holds the compiled parameters its tree was
    built with (``lifetime_scale``, ``use_aggregation``, ...), and left a scalar its kind
    declared later at the kind's starting value; it keeps them, and gets those starting
    values: at load, a value a tree's state holds itself wins over the one the parameters
    give, so a tree built by an older release loads and learns as it did."""
    from ._core._tree import TREE_KINDS

    if not isinstance(state.get("core"), dict):
        raise ModelFileError("a model state needs its forest's state")
    starts = {}

    def tree(t):
        kind = t.get("kind")
        if kind not in TREE_KINDS:
            return t  # refused at load, with the reason
        if kind not in starts:
            starts[kind] = TREE_KINDS[kind].declared_scalars()
        return {**starts[kind], **t}

    trees = state["core"].get("trees")
    if not isinstance(trees, list) or not all(isinstance(t, dict) for t in trees):
        raise ModelFileError("a forest's state needs a list of tree states")
    forest = state["core"].get("forest")
    background = forest.get("background") if isinstance(forest, dict) else None
    if not isinstance(background, list) or not all(b is None or isinstance(b, dict)
                                                   for b in background):
        raise ModelFileError("a forest's background trees must be a list of tree states")
    return dict(state, version=3, core=_trees_mapped(state["core"], tree))


#: version -> the step that brings a state of that version to the next
MIGRATIONS = {0: _from_pickle_era, 1: _add_importances, 2: _params_by_name}


def migrate(state: dict) -> dict:
    """`state` brought to `STATE_VERSION`, one `MIGRATIONS` step at a time."""
    if not isinstance(state, dict):
        raise ModelFileError("a model state is a dict")
    version = state.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise ModelFileError(f"a model state needs a format version, got {version!r}")
    if version > STATE_VERSION:
        raise ModelFileError(f"this file is of format version {version}, newer than this "
                             f"river_forests reads ({STATE_VERSION}): upgrade river_forests")
    while version < STATE_VERSION:
        state = MIGRATIONS[version](state)
        version = state["version"]
    return state


def migrate_tree_state(state: dict) -> dict:
    """A tree's state of an older version brought to the trees' current one (version 1, of
    0.1.0, had no "version" key, no feature subspace and no offered count)."""
    from ._core._tree import TREE_KINDS, TREE_STATE_VERSION

    state = dict(state)
    if state.get("kind") in TREE_KINDS:  # the router was implied by the kind before BSP
        state.setdefault("split", TREE_KINDS[state["kind"]].split_kind)
    if "features_per_tree" not in state and "max_features" in state:  # before 0.2.0
        state["features_per_tree"] = state["max_features"]
    if state.get("version", 1) == 1:
        state.setdefault("n_columns", state.get("n_features", 0))  # slot d was column d
        state.setdefault("n_offered", state.get("n_seen", 0))
        state.setdefault("columns", np.arange(state.get("n_features", 0), dtype=np.int32))
        state["version"] = 2
    if state["version"] != TREE_STATE_VERSION:
        raise ModelFileError(f"tree state version {state['version']!r} is not known")
    return state


PERSISTENCE["module"] = sys.modules[__name__]  # pickling (BaseForest.__reduce__)
