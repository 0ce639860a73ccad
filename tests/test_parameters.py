"""How parameters are given: ``n_estimators`` alone by position, every other parameter by
keyword (a second positional value used to set the forest's first own parameter silently,
``MondrianForestClassifier(10, 42)`` setting ``growth``, not ``seed``), and river's or
scikit-learn's names for our shared parameters answered with ours. Every test runs on every
estimator of `river_forests.__all__`."""

import inspect

import pytest
from river import base

import river_forests
from river_forests._forest import FOREIGN, BaseForest

from .conftest import ESTIMATORS, name_of


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_every_parameter_after_n_estimators_is_keyword_only(cls):
    params = list(inspect.signature(cls).parameters.values())
    assert params[0].name == "n_estimators"
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:])
    # n_estimators by position or by keyword is the same model
    assert cls(3, seed=1)._get_params() == cls(n_estimators=3, seed=1)._get_params()


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_a_second_positional_value_says_what_it_would_have_set(cls):
    """The error names the parameter each extra value would have set and shows the call with
    keywords, before any value is checked (42 is no valid value for most first parameters)."""
    first, second = [n for n in inspect.signature(cls).parameters][1:3]
    with pytest.raises(TypeError) as error:
        cls(10, 42)
    message = str(error.value)
    assert f"{cls.__name__}() takes n_estimators alone by position" in message
    assert "keyword-only" in message
    assert f"42 would set {first}" in message
    assert f"write {cls.__name__}(10, {first}=42)" in message
    with pytest.raises(TypeError, match=rf"42 would set {first}, 'x' would set {second};"):
        cls(10, 42, "x", seed=1)


def test_the_reported_case():
    with pytest.raises(TypeError, match=r"42 would set growth; write "
                                        r"MondrianForestClassifier\(10, growth=42\)"):
        river_forests.MondrianForestClassifier(10, 42)


def test_more_values_than_the_forest_s_own_parameters():
    """The shared parameters were never positional: a value past the forest's own ones set
    nothing (Python refused it), and the error says so."""
    cls = river_forests.MondrianForestRegressor
    own = 5  # growth, growth_scale, weighted_prunings, step, recycling
    with pytest.raises(TypeError, match=r"6 would set recycling, 2 more value\(s\) no "
                                        r"parameter ever took by position; write "
                                        r"MondrianForestRegressor\(1, growth=2, .*recycling=6\)"):
        cls(*range(1, own + 4))


def test_a_forest_that_takes_more_than_n_estimators_by_position_is_refused():
    """A new forest's ``__init__`` must put ``*`` after ``n_estimators``: its signature is
    generated to say so, and it would lie otherwise."""
    with pytest.raises(TypeError, match=r"must take n_estimators alone positionally"):
        class Positional(river_forests.MondrianForestClassifier):
            def __init__(self, n_estimators=10, growth="consistent", **shared):
                super().__init__(n_estimators, growth=growth, **shared)


def _foreign_cases():
    for cls in ESTIMATORS:
        own = inspect.signature(cls).parameters
        for name in sorted(FOREIGN):
            if name not in own:  # a forest's own parameter of that name is simply taken
                yield pytest.param(cls, name, id=f"{cls.__name__}-{name}")


@pytest.mark.parametrize("cls, name", list(_foreign_cases()))
def test_a_name_of_river_or_scikit_learn_says_ours(cls, name):
    instead, _ = FOREIGN[name]
    with pytest.raises(TypeError) as error:
        cls(**{name: 7})
    message = str(error.value)
    assert message.startswith(f"{cls.__name__}() got an unexpected keyword argument {name!r}: use ")
    assert instead.format(value="7") in message
    # what it says to write is a parameter of the forest
    said = instead.split("=")[0].split(" ")[0]
    assert said in inspect.signature(cls).parameters


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_river_n_models_names_n_estimators(cls):
    with pytest.raises(TypeError, match=r"'n_models': use n_estimators=10 \(river's ARF"):
        cls(n_models=10)
    # and what it says to write works
    assert cls(n_estimators=10).n_estimators == 10


def test_the_table_maps_river_forests_names():
    """Every name of river's forests (0.26's ARF, AMF and OXT) that is not ours either is in
    the table or has no equivalent here: the list of those is explicit, so that a new river
    name is looked at."""
    from river import forest

    ours = set().union(*(inspect.signature(c).parameters for c in ESTIMATORS))
    theirs = set().union(*(inspect.signature(c).parameters for c in (
        forest.ARFClassifier, forest.ARFRegressor, forest.AMFClassifier, forest.AMFRegressor,
        forest.OXTRegressor)))
    # no equivalent among our shared parameters (tree growth of Hoeffding trees, ARF's
    # weighted vote and metric, AMF's Dirichlet prior, OXT's median aggregation, ...)
    without = {"metric", "disable_weighted_vote", "grace_period", "max_depth", "split_criterion",
               "delta", "tau", "leaf_prediction", "nb_threshold", "nominal_attributes",
               "splitter", "binary_split", "min_branch_fraction", "max_share_to_split",
               "memory_estimate_period", "stop_mem_management", "remove_poor_attrs",
               "merit_preprune", "aggregation_method", "leaf_model", "model_selector_decay",
               "min_samples_split", "dirichlet", "split_pure", "use_aggregation",
               "detection_mode", "randomize_tree_depth", "track_metric", "split_buffer_size",
               "max_features"}
    assert theirs - ours - without == {n for n in FOREIGN if n in theirs}


def test_model_file_error_is_exported_and_no_estimator():
    assert "ModelFileError" in river_forests.__all__
    assert river_forests.ModelFileError is river_forests._state.ModelFileError
    assert river_forests.ModelFileError not in ESTIMATORS
    exported = [getattr(river_forests, n) for n in river_forests.__all__]
    assert sorted(ESTIMATORS, key=name_of) == sorted(
        (o for o in exported if isinstance(o, type) and issubclass(o, base.Estimator)), key=name_of)
    assert all(issubclass(cls, BaseForest) for cls in ESTIMATORS)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=name_of)
def test_the_constructor_is_a_real_function_of_the_declared_parameters(cls):
    """The signature river, editors and type checkers read is the ``__init__``'s own (no
    ``**kwargs`` behind a ``__signature__``), every parameter of it is declared once (with a
    check and an entry in the docstring, in signature order)."""
    init = cls.__dict__["__init__"]
    assert not hasattr(init, "__signature__") and not hasattr(init, "__wrapped__")
    code = init.__code__
    names = list(inspect.signature(cls).parameters)
    assert list(code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]) == names
    assert not code.co_flags & inspect.CO_VARKEYWORDS
    assert list(cls._params) == names
    documented = [line.strip() for line in cls.__doc__.split("    ----------")[1]
                  .split("    Examples")[0].split("\n") if line.startswith("    ") and
                  not line.startswith("     ")]
    assert documented == names


def test_a_default_of_no_parameter_is_refused():
    with pytest.raises(TypeError, match=r"_defaults of no parameter: \['growht'\]"):
        class Typo(river_forests.MondrianForestClassifier):
            _defaults = {"growht": 2.0}


def test_a_class_declares_only_what_differs():
    """A kind's classifier and regressor share its declarations: a default the regressor
    changes is the regressor's alone, and a parameter one declares is not the other's."""
    clf, reg = river_forests.MondrianForestClassifier, river_forests.MondrianForestRegressor
    assert clf._params["growth_scale"].default == 2.0
    assert reg._params["growth_scale"].default == 0.5
    assert "leaf_model" not in clf._params and "leaf_model" in reg._params
    assert clf._params["growth"].doc == reg._params["growth"].doc
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'leaf_model'"):
        clf(leaf_model="linear")
