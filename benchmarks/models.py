"""The registry of models: ours, river's and MOA's, each built fresh for one stream.

- **ours**: every estimator of ``river_forests.__all__`` at its defaults (10 trees, seed 42),
  one row per value of a parameter that chooses the paper's variant (an estimator's
  ``_variants``, e.g. the purely random forest's ``split``); on the drifting streams also each
  with the drift detector the ``drift`` experiment chose (ADWIN(0.001), no warning detector,
  the forests' default ``background_swap``), labelled ``+ ADWIN``. A forest added to
  ``__all__`` joins the benchmark the day it is exported (``tests/test_bench_registry.py``).
- **river**: HoeffdingTree, HoeffdingAdaptiveTree, ExtremelyFastDecisionTree, ARF, SRP and AMF
  classifiers (10 models); HoeffdingTree, HoeffdingAdaptiveTree, ARF, SRP and AMF regressors.
  Where river's own docs feed a model through ``preprocessing.StandardScaler`` (the HT, HAT and
  ARF regressors) it runs both ways, named ``(scaled)`` and unnamed (raw features).
- **MOA** (``pip install ".[moa]"``, Java 8+): HoeffdingTree, AdaptiveRandomForest and
  StreamingRandomPatches classifiers (10 learners); FIMTDD (MOA's Hoeffding regression tree),
  AdaptiveRandomForestRegressor and SOKNL regressors, through CapyMOA (``benchmarks/moa.py``).

To add a model: one ``_add(...)`` line with a factory ``make(stream) -> model`` and a string
``config`` that says how it is built (a record is reused only for the same config).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

SEED = 42
TREES = 10
#: the peers that run on the long streams too
LONG_PEERS = ("river ARF", "river AMF", "MOA ARF", "MOA SRP")


@dataclass(frozen=True)
class Model:
    name: str
    family: str  # "ours", "river" or "moa"
    task: str  # "clf" or "reg"
    make: Callable  # make(stream) -> model
    config: str  # how it is built; part of a record's key
    #: runs on drifting streams only (our forests with detectors)
    drifting_only: bool = False
    #: runs on the long streams (category "long"): every model of ours, and of the peers only
    #: river's ARF and AMF and MOA's ARF and SRP (river's HT, HAT, EFDT and SRP would take
    #: hours there; the forests are the peers a long stream is about)
    long: bool = True


MODELS: dict[str, Model] = {}


def _add(name, family, task, make, config, **kw):
    key = f"{task}:{name}"
    assert key not in MODELS, key
    MODELS[key] = Model(name, family, task, make, config, **kw)


def models(task: str, family: str | None = None, stream=None) -> list[Model]:
    """The models of `task` (and `family`) that run on `stream` (all when None)."""
    return [m for m in MODELS.values() if m.task == task and (family is None or m.family == family)
            and (stream is None or ((not m.drifting_only or stream.drifting)
                                    and (m.long or stream.category != "long")))]


def get(task: str, name: str) -> Model:
    return MODELS[f"{task}:{name}"]


def short_name(cls_name: str) -> str:
    return cls_name.replace("Classifier", "").replace("Regressor", "")


# ----------------------------------------------------------------------------- ours

def _ours():
    from river import base

    import river_forests

    for cls_name in river_forests.__all__:
        cls = getattr(river_forests, cls_name)
        if not (isinstance(cls, type) and issubclass(cls, base.Estimator)):
            continue
        task = "clf" if issubclass(cls, base.Classifier) else "reg"
        variants = [({}, "")] if not getattr(cls, "_variants", {}) else [
            ({p: v}, f" ({v})") for p, values in cls._variants.items() for v in values]
        for params, tag in variants:
            name = short_name(cls_name) + tag
            config = f"{cls_name}(n_estimators={TREES}, seed={SEED}, **{params!r})"
            _add(name, "ours", task, _our_factory(cls, params), config)
            # a forest whose defaults watch for drift already has no "+ ADWIN" row
            if cls._defaults.get("drift_detector") is None:
                _add(name + " + ADWIN", "ours", task, _our_factory(cls, params, detectors=True),
                     config + " + ADWIN(0.001)", drifting_only=True)


def _our_factory(cls, params, detectors=False):
    def make(stream):
        kw = dict(params)
        if detectors:
            from river import drift

            # the drift detector the drift experiment chose on the tuning half (no warning
            # detector: a background tree starts at a drift and takes the place when better)
            kw.update(drift_detector=drift.ADWIN(delta=0.001))
        return cls(n_estimators=TREES, seed=SEED, **kw)

    return make


_ours()

# ----------------------------------------------------------------------------- river


def _river(factory, scaled=False):
    def make(stream):
        model = factory()
        if scaled:
            from river import preprocessing

            return preprocessing.StandardScaler() | model
        return model

    return make


def _river_models():
    from river import ensemble, forest, tree

    clf = {
        "river HT": (tree.HoeffdingTreeClassifier, {}),
        "river HAT": (tree.HoeffdingAdaptiveTreeClassifier, {"seed": SEED}),
        "river EFDT": (tree.ExtremelyFastDecisionTreeClassifier, {}),
        "river ARF": (forest.ARFClassifier, {"n_models": TREES, "seed": SEED}),
        "river SRP": (ensemble.SRPClassifier, {"n_models": TREES, "seed": SEED}),
        "river AMF": (forest.AMFClassifier, {"n_estimators": TREES, "seed": SEED}),
    }
    reg = {
        "river HT": (tree.HoeffdingTreeRegressor, {}),
        "river HAT": (tree.HoeffdingAdaptiveTreeRegressor, {"seed": SEED}),
        "river ARF": (forest.ARFRegressor, {"n_models": TREES, "seed": SEED}),
        "river SRP": (ensemble.SRPRegressor, {"n_models": TREES, "seed": SEED}),
        "river AMF": (forest.AMFRegressor, {"n_estimators": TREES, "seed": SEED}),
    }
    scaled_in_docs = {"river HT", "river HAT", "river ARF"}  # regressors only
    for task, table in (("clf", clf), ("reg", reg)):
        for name, (cls, kw) in table.items():
            factory = _bind(cls, kw)
            config = f"{cls.__module__}.{cls.__name__}(**{kw!r})"
            _add(name, "river", task, _river(factory), config, long=name in LONG_PEERS)
            if task == "reg" and name in scaled_in_docs:
                _add(name + " (scaled)", "river", task, _river(factory, scaled=True),
                     "StandardScaler | " + config)


def _bind(cls, kw):
    return lambda: cls(**kw)


_river_models()

# ----------------------------------------------------------------------------- MOA


def _moa(name, task):
    def make(stream):
        from benchmarks.moa import MOAModel

        return MOAModel(name, task, seed=SEED, trees=TREES)

    return make


for _task, _names in (("clf", ("HoeffdingTree", "AdaptiveRandomForestClassifier", "StreamingRandomPatches")),
                      ("reg", ("FIMTDD", "AdaptiveRandomForestRegressor", "SOKNL"))):
    for _name in _names:
        _label = {"HoeffdingTree": "MOA HT", "AdaptiveRandomForestClassifier": "MOA ARF",
                  "StreamingRandomPatches": "MOA SRP", "FIMTDD": "MOA FIMTDD",
                  "AdaptiveRandomForestRegressor": "MOA ARF", "SOKNL": "MOA SOKNL"}[_name]
        _config = f"capymoa {_name}" + ("" if _name in ("HoeffdingTree", "FIMTDD") else
                                        f"(ensemble_size={TREES}, random_seed={SEED})")
        _add(_label, "moa", _task, _moa(_name, _task), _config, long=_label in LONG_PEERS)
