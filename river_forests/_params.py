"""The forests' parameters, declared once: one table per estimator family.

A forest declares each of its parameters as a class attribute, ``name: type = Param(...)``:
its default, its check (the type and range it takes), the compiled tree's parameter it
becomes (``tree``: the compiled name, or a function of the value giving the compiled
parameters) and its documentation. `Parametrized` turns the declarations into what a user
and river see:

- a real ``__init__`` (generated as `dataclasses` generates one), whose signature
  ``inspect.signature`` shows (river's ``_get_params``, ``clone`` and ``check_estimator`` read
  it) and which type checkers and editors see through ``typing.dataclass_transform``
  (PEP 681): ``n_estimators`` alone positionally, every other parameter keyword-only;
- one validation routine (`Parametrized._check_params`), in signature order;
- the compiled tree's parameters (`Parametrized._tree_params`);
- the docstring's "Parameters" section, in signature order.

The parameters every forest shares are declared in `river_forests._forest`, a kind's in
its mixin (``_MondrianParams``, ...), shared by its classifier and regressor; a class
declares only what differs: its own parameters, other defaults (``_defaults``), other
wording (``_docs``).
"""

from __future__ import annotations

import dataclasses
import numbers
import sys
from typing import Any, Callable, ClassVar

import numpy as np

if sys.version_info >= (3, 11):
    from typing import dataclass_transform
else:  # pragma: no cover - Python 3.10
    try:
        from typing_extensions import dataclass_transform
    except ImportError:
        def dataclass_transform(**kwargs):
            return lambda cls: cls

__all__ = ["Param", "Parametrized", "check_int", "check_float", "ints", "floats", "one_of",
           "optional", "boolean", "schedule"]


# ---------------------------------------------------------------------------- the checks

def check_int(name, value, low, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} must be {bound}, got {value!r}")


def check_float(name, value, low, low_inclusive=True, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if value < low or (value == low and not low_inclusive) or (high is not None and value > high):
        op = ">=" if low_inclusive else ">"
        bound = f"{op} {low}" + (f" and <= {high}" if high is not None else "")
        raise ValueError(f"{name} must be {bound}, got {value!r}")


#: a check: ``check(name, value, forest)`` raises a ValueError for a value the parameter does
#: not take (`forest`: the forest being built, its parameters set, for the checks that depend
#: on another parameter)
Check = Callable[[str, Any, Any], None]


def ints(low: int, high: int | None = None) -> Check:
    """An int in [low, high] (no bool)."""
    return lambda name, value, forest: check_int(name, value, low, high)


def floats(low: float, low_inclusive: bool = True, high: float | None = None,
           below: tuple[float, str] | None = None) -> Check:
    """A finite real number from `low` (included or not) to `high`; `below`: (bound, why) for
    an excluded upper bound, said with its reason."""
    def check(name, value, forest):
        check_float(name, value, low, low_inclusive, high)
        if below is not None and value >= below[0]:
            raise ValueError(f"{name} must be < {below[0]:g} ({below[1]}), got {value!r}")
    return check


def said(values) -> str:
    """``'a', 'b' or 'c'``."""
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]


def one_of(*values) -> Check:
    """One of `values` (None among them stands for None)."""
    def check(name, value, forest):
        if value not in values:
            raise ValueError(f"{name} must be {said(values)}, got {value!r}")
    return check


def optional(check: Check) -> Check:
    """None, or what `check` takes."""
    return lambda name, value, forest: None if value is None else check(name, value, forest)


def boolean(numpy: bool = False) -> Check:
    """A bool (``numpy``: or a numpy bool, said "True or False")."""
    kinds, words = ((bool, np.bool_), "True or False") if numpy else (bool, "a bool")

    def check(name, value, forest):
        if not isinstance(value, kinds):
            raise ValueError(f"{name} must be {words}, got {value!r}")
    return check


def schedule(word: str, number: Check, says: str = "a positive number") -> Check:
    """A schedule named by `word` (``"consistent"``, ``"auto"``), or a number `number` takes
    (`says`: what the error calls it)."""
    def check(name, value, forest):
        if isinstance(value, str):
            if value != word:
                raise ValueError(f"{name} must be {word!r} or {says}, got {value!r}")
        else:
            number(name, value, forest)
    return check


def no_check(name, value, forest):
    pass


# ---------------------------------------------------------------------------- a parameter

@dataclasses.dataclass(frozen=True)
class _Param:
    """A parameter's declaration (made by `Param`; `name` and `shared` are set by the class
    that declares it)."""

    default: Any
    check: Check = no_check
    tree: str | Callable | None = None
    cast: type | None = None
    doc: str = ""
    kw_only: bool = True
    after: str | None = None
    name: str = ""
    shared: bool = False

    def compiled(self, value, forest) -> dict:
        """The compiled tree's parameters this parameter's `value` gives."""
        if self.tree is None:
            return {}
        if callable(self.tree):
            return self.tree(value, forest)
        return {self.tree: self.cast(value) if self.cast is not None else value}


def Param(*, default: Any, check: Check = no_check, tree: str | Callable | None = None,
          cast: type | None = None, doc: str = "", kw_only: bool = True,
          after: str | None = None) -> Any:
    """A forest's parameter (a field specifier of `Parametrized`).

    `default`: its default (a class changes it in its ``_defaults``); `check`: what values it
    takes (`ints`, `floats`, `one_of`, ...); `tree`: the compiled tree's parameter it becomes,
    by name (the value cast with `cast`) or as a function ``tree(value, forest) -> dict``
    (None: the forest's own, no tree's); `doc`: its entry in the docstring (a class rewords it
    in its ``_docs``); `after`: the parameter it follows in the signature, where it is not
    declared in the class that declares its neighbours; `kw_only`: False for
    ``n_estimators`` alone."""
    return _Param(default, check, tree, cast, doc, kw_only, after)


# ---------------------------------------------------------------------------- the family

_PARAMETERS_MARK = "\n    <parameters>"


@dataclass_transform(kw_only_default=True, field_specifiers=(Param,))
class Parametrized:
    """A class whose parameters are declared with `Param` (see the module's docstring).

    A class that declares parameters every forest shares says so (``_shared_params = True``
    in its body): those come after the kind's own in every signature."""

    #: the parameters, in signature order, with this class's defaults (set for each class)
    _params: ClassVar[dict] = {}
    #: defaults that differ from the declared ones, merged along the class's bases
    _defaults: ClassVar[dict] = {}
    #: documentation entries that differ from the declared ones, merged likewise
    _docs: ClassVar[dict] = {}
    #: compiled tree parameters a class fixes (no parameter of its own sets them)
    _tree_constants: ClassVar[dict] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        declared = {n: dataclasses.replace(p, name=n, shared="_shared_params" in cls.__dict__)
                    for n, p in list(cls.__dict__.items()) if isinstance(p, _Param)}
        for n in declared:
            delattr(cls, n)
        for attr in ("_defaults", "_docs", "_tree_constants"):
            merged = {}
            for klass in reversed(cls.__mro__[1:]):
                merged.update(getattr(klass, attr, {}))
            merged.update(cls.__dict__.get(attr, {}))
            setattr(cls, attr, merged)
        params = _ordered([*_inherited(cls).values(), *declared.values()]).values()
        cls._params = {p.name: dataclasses.replace(p, default=cls._defaults[p.name])
                       if p.name in cls._defaults else p for p in params}
        if hasattr(cls, "_setup") and not set(cls._defaults) <= set(cls._params):
            raise TypeError(f"{cls.__name__}: _defaults of no parameter: "
                            f"{sorted(set(cls._defaults) - set(cls._params))}")
        if "__init__" in cls.__dict__:
            _check_handwritten(cls, cls.__dict__["__init__"])
        elif hasattr(cls, "_setup"):
            cls.__init__ = _make_init(cls)
        doc = cls.__dict__.get("__doc__")
        if isinstance(doc, str) and _PARAMETERS_MARK in doc:
            cls.__doc__ = doc.replace(_PARAMETERS_MARK, cls._parameters_doc())

    def __new__(cls, *args, **kwargs):
        """The errors of a call its ``__init__`` would refuse with Python's own words: a
        value past ``n_estimators`` given by position, or an unknown name."""
        if getattr(cls.__init__, "_generated", False):
            if len(args) > 1:
                raise cls._positional_error(args)
            for name, value in kwargs.items():
                if name not in cls._params:
                    raise TypeError(f"{cls.__name__}() got an unexpected keyword argument "
                                    f"{name!r}" + cls._unknown_hint(name, value))
        return super().__new__(cls)

    @classmethod
    def _own_params(cls) -> list:
        """The kind's own parameters, in signature order (not ``n_estimators``, nor the
        shared ones)."""
        return [n for n, p in cls._params.items() if p.kw_only and not p.shared]

    @classmethod
    def _positional_error(cls, args: tuple) -> TypeError:
        """The error for a constructor given more than ``n_estimators`` positionally: what
        each extra value would have set when the forest's own parameters could be given by
        position (up to 0.2), and the call written with keywords."""
        own, extra = cls._own_params(), args[1:]
        shown = [f"{name}={value!r}" for name, value in zip(own, extra)]
        set_ = ", ".join(f"{value!r} would set {name}" for name, value in zip(own, extra))
        if len(extra) > len(own):
            set_ = ", ".join(filter(None, [set_, f"{len(extra) - len(own)} more value(s) no "
                                                  "parameter ever took by position"]))
        return TypeError(
            f"{cls.__name__}() takes n_estimators alone by position, but {len(args)} values "
            "were given: every other parameter is keyword-only since 0.3.0 (a value given by "
            "position silently set the next parameter of the signature, whichever was meant). "
            f"By position, {set_}; write {cls.__name__}({args[0]!r}, {', '.join(shown)}), or "
            "name the parameters you meant.")

    @classmethod
    def _unknown_hint(cls, name: str, value) -> str:
        """What the TypeError for an unknown keyword `name` adds ('' here)."""
        return ""

    def _check_params(self) -> None:
        """Every parameter's check, in signature order."""
        for name, p in self._params.items():
            p.check(name, getattr(self, name), self)

    def _tree_params(self) -> dict:
        """The compiled tree's parameters, by name: each parameter's (``tree``), then the
        class's constants."""
        out = {}
        for name, p in self._params.items():
            out.update(p.compiled(getattr(self, name), self))
        out.update(self._tree_constants)
        return out

    @classmethod
    def _parameters_doc(cls) -> str:
        """The docstring's parameter entries, in signature order, river's layout."""
        out = []
        for name, p in cls._params.items():
            doc = cls._docs.get(name, p.doc)
            if not doc:
                raise TypeError(f"{cls.__name__}: parameter {name!r} has no documentation")
            out.append(f"\n    {name}\n        {doc.strip()}")
        return "".join(out)


def _inherited(cls) -> dict:
    """The parameters `cls`'s bases declare, by name (the nearest base's declaration)."""
    out = {}
    for base in reversed(cls.__mro__[1:]):
        for name, p in base.__dict__.get("_params", {}).items():
            out.pop(name, None)
            out[name] = p
    return out


def _ordered(params: list) -> dict:
    """Signature order: ``n_estimators`` (the positional one), the kind's own parameters, the
    shared ones; each group in declaration order, bases first, a parameter with ``after``
    right after the one it names."""
    seen = {}
    for p in params:
        seen.pop(p.name, None)
        seen[p.name] = p
    groups = ([p for p in seen.values() if not p.kw_only],
              [p for p in seen.values() if p.kw_only and not p.shared],
              [p for p in seen.values() if p.kw_only and p.shared])
    out = []
    for group in groups:
        names = [p.name for p in group if p.after is None or p.after not in seen]
        for p in group:
            if p.after is not None and p.after in seen:
                names.insert(names.index(p.after) + 1 if p.after in names else len(names), p.name)
        out += [seen[n] for n in names]
    return {p.name: p for p in out}


def _make_init(cls):
    """A real ``__init__`` with the parameters of `cls` (as `dataclasses` writes one): it sets
    each parameter and calls ``self._setup()``."""
    names = list(cls._params)
    positional = [n for n in names if not cls._params[n].kw_only]
    keyword = [n for n in names if cls._params[n].kw_only]
    annotations = {}
    for klass in reversed(cls.__mro__):
        annotations.update({n: t for n, t in klass.__dict__.get("__annotations__", {}).items()
                            if n in cls._params})
    args = [f"{n}=__defaults__[{n!r}]" for n in positional]
    if keyword:
        args += ["*"] + [f"{n}=__defaults__[{n!r}]" for n in keyword]
    body = "".join(f"    self.{n} = {n}\n" for n in names) + "    self._setup()\n"
    source = f"def __init__(self, {', '.join(args)}):\n{body}"
    namespace = {"__defaults__": {n: p.default for n, p in cls._params.items()}}
    exec(source, namespace)
    init = namespace["__init__"]
    init.__annotations__ = annotations
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init._generated = True
    return init


def _check_handwritten(cls, init) -> None:
    """A subclass's own ``__init__`` must take ``n_estimators`` alone by position."""
    import inspect

    positional = [p.name for p in inspect.signature(init).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if positional != ["self", "n_estimators"]:
        raise TypeError(f"{cls.__name__}.__init__ must take n_estimators alone positionally "
                        f"(`self, n_estimators=10, *, ...`), not {positional[1:]}")
