"""Fuzzing the model file format: bad files raise `ModelFileError`, never anything else.

    python -m benchmarks.fuzz_format                          # 100,000 cases
    python -m benchmarks.fuzz_format --cases 5000 --jobs 2
    python -m benchmarks.fuzz_format --replay 1234 --seed 0   # one case again, in this process

The requirement: a truncated, bit-flipped, wrong-version or crafted file (shapes that
disagree, children out of range or in cycles, counts that would allocate terabytes, NaN in
boxes) raises `river_forests.ModelFileError` with a clear message, and never crashes, hangs
or allocates more than twice the file's size; a file that loads gives a model that works.

Seed models (`seeds`): every estimator class of ``river_forests.__all__``, 2 trees, seed 7,
after the first 230 rows of Phishing (classifiers) or TrumpApproval (regressors) (an XForest
keeps the last 30 buffered); a Mondrian classifier with river's ADWIN as drift and warning
detector, which learns 200 rows and then rows of flipped labels until a background tree
grows; a Mondrian regressor with PageHinkley (a detector that runs in Python, saved with its
attributes); and, when ``tests/data/0.1`` is there and a file of format version 0 loads, a
Mondrian classifier pickled by 0.1 as such a file (the migration's input). Each case takes
one seed and one mutation (`make_case`):

- ``byte:*``: the saved file's bytes truncated, bit-flipped, overwritten, inserted into,
  deleted from, or its header length changed;
- ``header:*``: a crafted header, the checksum right unless it is the target: metadata
  (format, version, checksum), a tensor's entry (dtype, shape, byte range, removed, renamed,
  added), the compressed state replaced (inflating far, nesting deep, not zlib, not JSON);
- ``state:*``: structure-aware: the model's state (`river_forests._state.to_state`) with
  one thing changed, written back as a valid file (`state_file`): an element of a tree's
  array, a scalar, an array's shape or dtype, a key removed or added, a list or tuple
  changed, an array or tree grafted from another tree, the nodes relinked (cycles, shared
  children, swapped subtrees, a leaf given children), a pool's blocks, the version, the
  estimator, or a forest-level field (names, labels, buffered rows, budget, detectors,
  intervals, generator).

Each case is written to a file and loaded (a quarter with ``mmap=True``); a model that
loads predicts, learns five rows one by one and a batch of three, is flushed and its state
taken again. Outcomes: ``rejected`` (ModelFileError), ``loaded`` (loaded and worked),
``error`` (load raised another exception), ``broken`` (loaded, then failed), ``crash``
(the process died), ``hang`` (no answer within ``--timeout`` s). Memory: ``tracemalloc``'s
peak during `load` (Python's and numpy's allocations, not the trees' own ``malloc``) over
2x the file's size + 1 MiB flags a case; so does a rise of the process's peak RSS
(``ru_maxrss``, which only sees a new high-water mark) of that much during `load`. The
cases run in child processes of ``--chunk`` cases each, under an address-space limit 4 GiB
above their start, with faulthandler on (a crash's or hang's Python stack is kept); a child
that dies or hangs is charged to the case it was running (or, dying between cases, to the
one it finished last) and a new child goes on after it. Every crash and hang is then replayed
alone in a fresh process (``--replay i --seed s``; ``--no-confirm`` skips it), which tells a
case's own crash from one an earlier case's corrupted memory caused (the replay runs
under the same address-space limit). Not seen: a load that silently reads memory outside the
file (a loaded model is only checked to work, not to hold what the file holds). Writes
``results/experiments/fuzz_format.md`` (the code version at the start and, if another hand
changed it meanwhile, at the end). ``tests/test_fuzz_files.py`` draws the same
mutations with hypothesis.
"""

from __future__ import annotations

import argparse
import collections
import copy
import dataclasses
import functools
import gzip
import itertools
import json
import math
import os
import pickle
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "experiments" / "fuzz_format.md"

#: rows each seed model learns, and the rows after them a loaded model predicts and learns
ROWS, EXERCISE = 230, 8
SEED = 7
MIB = 1 << 20


# ---------------------------------------------------------------------------- the seed models

@dataclasses.dataclass
class Seed:
    label: str
    estimator: str
    classifier: bool
    state: dict          # `to_state` of the model
    arrays: dict         # the file's tensors by name (`pack`)
    file: bytes          # what `river_forests.save` wrote
    rows: list           # rows after the ones learned: (x, y)
    intervals: bool      # a regressor with prediction intervals


def _stream(classifier: bool, n: int) -> list:
    from river import datasets

    data = datasets.Phishing() if classifier else datasets.TrumpApproval()
    return list(itertools.islice(data, n))


def _legacy_state():
    """The version-0 state of a Mondrian classifier pickled by 0.1 (`_from_pickle_era`'s
    input), with its deques as lists, or None without ``tests/data/0.1``."""
    from river_forests import _state

    path = ROOT / "tests" / "data" / "0.1" / "MondrianForestClassifier.pkl.gz"
    if not path.exists():
        return None
    captured = []
    original = _state.from_state

    def capture(state, _borrow=False):
        captured.append(state)
        return original(state, _borrow)

    _state.from_state = capture
    try:
        with gzip.open(path, "rb") as f:
            pickle.load(f)
    finally:
        _state.from_state = original
    return _plain(captured[0])


def _plain(v):
    """A pickled state's values as a file holds them (deques as lists, river objects as their
    specs)."""
    from river import base

    from river_forests import _state

    if isinstance(v, base.Base):
        return _state._object_spec(v, True, True)
    if isinstance(v, collections.deque):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_plain(x) for x in v)
    return v


def _loads(data: bytes) -> bool:
    import river_forests

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "seed.rf")
        Path(path).write_bytes(data)
        try:
            river_forests.load(path)
        except river_forests.ModelFileError:
            return False
    return True


_SEEDS: dict | None = None


def seeds() -> dict:
    """The seed models by label (built once a process)."""
    global _SEEDS
    if _SEEDS is not None:
        return _SEEDS
    import river_forests
    from river import base, drift

    from river_forests._state import to_state

    out = {}

    def add(label, model, rows, state=None):
        state = state if state is not None else to_state(model)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "seed.rf")
            if model is not None:
                river_forests.save(model, path)
                data = Path(path).read_bytes()
            else:
                data = state_file(state)
        classifier = state["estimator"].endswith("Classifier")
        out[label] = Seed(label, state["estimator"], classifier, state, pack(state), data, rows,
                          not classifier and state["params"].get("confidence_level") is not None)

    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if not (isinstance(cls, type) and issubclass(cls, base.Estimator)):
            continue
        classifier = issubclass(cls, base.Classifier)
        data = _stream(classifier, ROWS + EXERCISE)
        model = cls(n_estimators=2, seed=SEED)
        for x, y in data[:ROWS]:
            model.learn_one(x, y)
        add(name, model, data[ROWS:])
    # drift and warning detectors (compiled ADWIN), with background trees learning
    data = _stream(True, 600)
    model = river_forests.MondrianForestClassifier(
        n_estimators=2, seed=SEED, drift_detector=drift.ADWIN(delta=0.1),
        warning_detector=drift.ADWIN(delta=0.3))
    for x, y in data[:200]:
        model.learn_one(x, y)
    at = 200
    while at < 400 and all(b is None for b in model._core.watch.background):
        model.learn_one(data[at][0], not data[at][1])
        at += 1
    add("MondrianForestClassifier+ADWIN", model, data[at:at + EXERCISE])
    # a detector that runs in Python (its attributes are saved)
    data = _stream(False, ROWS + EXERCISE)
    model = river_forests.MondrianForestRegressor(
        n_estimators=2, seed=SEED, drift_detector=drift.PageHinkley(threshold=5.0))
    for x, y in data[:ROWS]:
        model.learn_one(x, y)
    add("MondrianForestRegressor+PageHinkley", model, data[ROWS:])
    legacy = _legacy_state()
    if legacy is not None and _loads(state_file(legacy)):  # while files of version 0 load
        add("MondrianForestClassifier@0.1", None, _stream(True, EXERCISE), legacy)
    _SEEDS = out
    return out


# ---------------------------------------------------------------------------- writing a state

def pack(state: dict) -> dict:
    """The file's tensors for `state`, by name, as `river_forests.save` makes them: one flat
    tensor a dtype and ``state``, the compressed JSON that refers to them."""
    from river_forests import _file

    packed: dict = {}
    encoded = _file._encode(state, packed, "state")
    arrays = {code: np.concatenate(parts) for code, (_, parts) in packed.items()}
    arrays["state"] = _compress(json.dumps(encoded, separators=(",", ":"), allow_nan=False).encode())
    return arrays


def _compress(raw: bytes) -> np.ndarray:
    return np.frombuffer(zlib.compress(raw, 6), dtype=np.uint8)


def layout(arrays: dict) -> tuple[dict, list]:
    """The header's entries and the data's blobs, in `save`'s order (largest items first)."""
    from river_forests import _file

    names, entries, _ = _file.layout(arrays)
    return entries, [np.ascontiguousarray(arrays[name]).tobytes() for name in names]


@functools.lru_cache(maxsize=1)
def _save_meta() -> dict:
    """The ``__metadata__`` `river_forests.save` writes (a new forest's), for its keys' order
    and for any key this module does not know how to derive from a state."""
    import river_forests

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "probe.rf")
        river_forests.save(river_forests.MondrianForestClassifier(n_estimators=1, seed=0), path)
        data = Path(path).read_bytes()
    return json.loads(data[8:header_end(data)])["__metadata__"]


def meta_for(state, blobs: list) -> dict:
    """`save`'s metadata for `state`, the checksum that of `blobs`; the format version is the
    state's own when it is an integer >= 0 (so that a state of version 0 is migrated). Keys
    are those `save` writes, in its order (`_save_meta`)."""
    from river_forests import _file, _state

    crc = 0
    for b in blobs:
        crc = zlib.crc32(b, crc)
    state = state if isinstance(state, dict) else {}
    version = state.get("version")
    if not (isinstance(version, int) and not isinstance(version, bool) and version >= 0):
        version = _state.STATE_VERSION
    estimator, package = state.get("estimator"), state.get("package")
    known = {"format": _file.FORMAT, "format_version": str(version),
             "estimator": estimator if isinstance(estimator, str) else "?",
             "package_version": package if isinstance(package, str) else "?",
             "crc32": f"{crc:08x}"}
    if isinstance(state.get("params"), dict):
        try:
            known["params"] = json.dumps(_file._encode(state["params"], {}, "params"),
                                         allow_nan=False)
        except (TypeError, ValueError):
            pass
    template = _save_meta()
    return {k: known.get(k, v) for k, v in template.items()}


def assemble(meta, entries: dict, blobs: list, header_json: bytes | None = None) -> bytes:
    """A file: the 8-byte header length, the header (``__metadata__`` first, padded so the data
    starts 8-byte aligned) and the blobs."""
    from river_forests import _file

    if header_json is None:
        header = _file.header_bytes(meta, entries)
    else:
        header = header_json + b" " * (-(8 + len(header_json)) % 8)
    return len(header).to_bytes(8, "little") + header + b"".join(blobs)


def state_file(state: dict) -> bytes:
    """A valid file (right layout and checksum) that holds `state`: `save` after `to_state`."""
    entries, blobs = layout(pack(state))
    return assemble(meta_for(state, blobs), entries, blobs)


def header_end(data: bytes) -> int:
    return 8 + int.from_bytes(data[:8], "little")


# ---------------------------------------------------------------------------- choosers

class Chooser:
    """The decisions a mutation makes; `RandomChooser` draws them from numpy's generator,
    the tests' from hypothesis (which then shrinks them)."""

    def below(self, n: int) -> int:
        raise NotImplementedError

    def some_bytes(self, n: int) -> bytes:
        return bytes(self.below(256) for _ in range(n))

    def between(self, lo: int, hi: int) -> int:
        """An integer in [lo, hi]."""
        return lo + self.below(hi - lo + 1)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.below(len(seq))]

    def chance(self, p: float) -> bool:
        return self.below(1000) < p * 1000


class RandomChooser(Chooser):
    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def below(self, n: int) -> int:
        return int(self.rng.integers(n)) if n < 2**63 else int(self.rng.integers(2**62))

    def some_bytes(self, n: int) -> bytes:
        return self.rng.bytes(n)


def case_rng(seed: int, index: int) -> RandomChooser:
    return RandomChooser(np.random.default_rng([seed, index]))


# ---------------------------------------------------------------------------- values

I32, I64 = 2**31, 2**63
INT_SPECIALS = [-1, -2, 0, 1, 2, -(I32), I32 - 1, I32, 2**32, 2**24, 2**24 + 1, 2**30, 10**6,
                I64 - 1, -I64, I64, 2**64 - 1, 2**64, 10**30, -(10**30)]
FLOAT_SPECIALS = [math.nan, math.inf, -math.inf, 1e308, -1e308, -0.0, 0.0, 5e-324, 1e-300,
                  -1.0, 1e20, -1e20, 0.5]
#: values a scalar of any type may become
ODD_VALUES = [None, True, False, "", "1", [], {}, [1, 2], {"a": 1}, 1.5, math.nan]


def int_value(ch: Chooser, n: int, dtype=None) -> int:
    """An integer near `n` (-5..n+5) or a special one, within `dtype`'s range if given."""
    if ch.chance(0.5):
        v = ch.between(-5, n + 5)
    else:
        v = ch.pick(INT_SPECIALS + [n, n - 1, n + 1, 2 * n, n * 1000])
    if dtype is not None:
        info = np.iinfo(dtype)
        if not info.min <= v <= info.max:
            v = ch.pick([info.min, info.max, v % (int(info.max) + 1)])
    return v


def float_value(ch: Chooser, old=0.0) -> float:
    if ch.chance(0.15):
        return float(old) * ch.pick([-1.0, 2.0, 1e10, 1e-10]) if old == old else 1.0
    return ch.pick(FLOAT_SPECIALS)


def scalar_value(ch: Chooser, old, n: int = 8):
    """A replacement for the scalar `old`: mostly of its own type, sometimes another."""
    if ch.chance(0.15):
        return ch.pick(ODD_VALUES + [10**400, -(10**30), ch.between(-5, n + 5)])
    if isinstance(old, bool):
        return ch.pick([not old, 2, -1, None, 0.5])
    if isinstance(old, (int, np.integer)):
        return int_value(ch, max(n, abs(int(old)) if abs(int(old)) < 2**20 else n))
    if isinstance(old, (float, np.floating)):
        return float_value(ch, old)
    if isinstance(old, str):
        return ch.pick(["", "x", old + "x", old[:-1], "MondrianTree", "BSPTree", "XTree",
                        "PurelyRandomTree", "StreamPartitionTree", "axis", "oblique", 1, None])
    if old is None:
        return ch.pick([0, -1, 1, "x", [], {}, 1.0, True])
    return ch.pick(ODD_VALUES)


# ---------------------------------------------------------------------------- paths in a state

def walk(obj, path=()):
    """Every (path, value) of a state, containers included (a path: keys and indices)."""
    yield path, obj
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk(v, path + (k,))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from walk(v, path + (i,))


def get_in(obj, path):
    for k in path:
        obj = obj[k]
    return obj


def set_in(obj, path, value):
    """`obj` with the value at `path` replaced (tuples rebuilt); returns the new `obj`."""
    if not path:
        return value
    k = path[0]
    if isinstance(obj, tuple):
        items = list(obj)
        items[k] = set_in(obj[k], path[1:], value)
        return tuple(items)
    obj[k] = set_in(obj[k], path[1:], value)
    return obj


def show(path) -> str:
    out = "state"
    for k in path:
        out += f"[{k}]" if isinstance(k, int) else f".{k}"
    return out


def category(path) -> str:
    """'tree' (inside a tree's state), 'forest' (the rest of the forest's state) or 'top'."""
    if len(path) >= 3 and path[:2] == ("core", "trees"):
        return "tree"
    if len(path) >= 4 and path[:3] == ("core", "forest", "background"):
        return "tree"
    if path[:1] == ("core",) and len(path) > 1:
        return "forest"
    if path[:2] == ("attrs", "_core") and len(path) > 2:  # a state of version 0
        return "tree" if "trees" in path[2:4] else "forest"
    return "top"


def kind_of(v) -> str:
    if isinstance(v, np.ndarray):
        return "array"
    if isinstance(v, bytes):
        return "bytes"
    if isinstance(v, dict):
        return "dict"
    if isinstance(v, (list, tuple)):
        return "list"
    return "scalar"


def sites(state, kind=None, cat=None) -> list:
    out = []
    for path, v in walk(state):
        if not path:
            continue
        if kind is not None and kind_of(v) != kind:
            continue
        if cat is not None and category(path) != cat:
            continue
        out.append(path)
    return out


def tree_paths(state) -> list:
    """The paths of the tree states (main and background)."""
    return [p for p, v in walk(state) if isinstance(v, dict) and "left" in v and "kind" in v
            and isinstance(v.get("left"), np.ndarray)]


def pick_site(ch: Chooser, state, kind, cats=("tree", "tree", "forest", "top")):
    """A site of `kind`, its category drawn first among those that have one."""
    options = [c for c in cats if sites(state, kind, c)]
    if not options:
        found = sites(state, kind)
        return ch.pick(found) if found else None
    return ch.pick(sites(state, kind, ch.pick(options)))


# ---------------------------------------------------------------------------- state mutations

def _rows_of(state, path) -> int:
    """The node count of the tree `path` lies in (else the array's first dimension)."""
    for cut in range(len(path), 0, -1):
        v = get_in(state, path[:cut])
        if isinstance(v, dict) and isinstance(v.get("left"), np.ndarray):
            return len(v["left"])
    v = get_in(state, path)
    return v.shape[0] if isinstance(v, np.ndarray) and v.ndim else 4


def mutate_element(ch, state, path=None) -> str:
    path = path if path is not None else pick_site(ch, state, "array", ("tree", "tree", "tree", "forest"))
    if path is None:
        return mutate_scalar(ch, state)
    a = get_in(state, path).copy()
    if a.size == 0:
        return mutate_shape(ch, state, path)
    flat = ch.below(a.size)
    idx = np.unravel_index(flat, a.shape)
    old = a[idx]
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iu":
            v = int_value(ch, _rows_of(state, path), a.dtype)
        elif a.dtype.kind == "f":
            v = float_value(ch, old)
        else:
            v = not old
        a[idx] = v
    set_in(state, path, a)
    return f"{show(path)}[{', '.join(map(str, idx))}] = {a[idx]!r} (was {old!r})"


def mutate_shape(ch, state, path=None) -> str:
    path = path if path is not None else pick_site(ch, state, "array", ("tree", "tree", "tree", "forest"))
    if path is None:
        return mutate_scalar(ch, state)
    a = get_in(state, path)
    ops = ["drop-last", "drop-first", "add-row", "add-zero-row", "empty", "dtype", "add-axis"]
    if a.ndim == 2:
        ops += ["drop-column", "add-column", "transpose", "flatten"]
    if a.ndim == 1:
        ops += ["column", "double"]
    op = ch.pick(ops)
    if op == "drop-last":
        b = a[:-1]
    elif op == "drop-first":
        b = a[1:]
    elif op == "add-row":
        b = np.concatenate([a, a[-1:]]) if len(a) else np.zeros((1,) + a.shape[1:], a.dtype)
    elif op == "add-zero-row":
        b = np.concatenate([a, np.zeros((1,) + a.shape[1:], a.dtype)])
    elif op == "empty":
        b = a[:0]
    elif op == "dtype":
        b = a.astype(ch.pick([t for t in ("<f8", "<f4", "<i8", "<i4", "|u1", "|b1")
                              if np.dtype(t) != a.dtype]))
    elif op == "add-axis":
        b = a[None]
    elif op == "drop-column":
        b = a[:, :-1]
    elif op == "add-column":
        b = np.concatenate([a, a[:, -1:] if a.shape[1] else np.zeros((len(a), 1), a.dtype)], axis=1)
    elif op == "transpose":
        b = a.T
    elif op == "flatten":
        b = a.reshape(-1)
    elif op == "column":
        b = a.reshape(-1, 1)
    else:  # double
        b = np.concatenate([a, a])
    set_in(state, path, np.ascontiguousarray(b))
    return f"{show(path)}: {op}, {a.dtype}{a.shape} -> {b.dtype}{b.shape}"


def mutate_scalar(ch, state, path=None, cats=("tree", "tree", "forest", "top")) -> str:
    path = path if path is not None else pick_site(ch, state, "scalar", cats)
    old = get_in(state, path)
    n = _rows_of(state, path) if category(path) == "tree" else 8
    new = scalar_value(ch, old, n)
    set_in(state, path, new)
    return f"{show(path)} = {_short(new)} (was {_short(old)})"


#: the counts a tree state declares (what it would allocate with), tried with large values
COUNT_VALUES = [2**24, 2**24 + 1, 2**24 - 1, 2**30, I32 - 1, I32, 10**6, 10**9, I64 - 1, -1, 0]


def mutate_count(ch, state) -> str:
    """A tree's integer scalar (a count or a width) made large, negative or 0."""
    t = ch.pick(tree_paths(state))
    tree = get_in(state, t)
    keys = [k for k, v in tree.items() if isinstance(v, int) and not isinstance(v, bool)
            and k not in ("version",)]
    key = ch.pick(keys)
    old = tree[key]
    n = len(tree["left"])
    new = ch.pick(COUNT_VALUES + [n, n + 1, 2 * n, old + 1, old * 2 + 1, old * 1000])
    tree[key] = new
    return f"{show(t + (key,))} = {new} (was {old})"


def mutate_remove(ch, state) -> str:
    path = pick_site(ch, state, "dict", ("tree", "tree", "forest", "forest", "top"))
    d = get_in(state, path) if path is not None else state
    if path is None:
        path = ()
    if not d:
        return mutate_scalar(ch, state)
    key = ch.pick(list(d))
    del d[key]
    return f"del {show(path + (key,))}"


def mutate_add(ch, state) -> str:
    paths = [p for p in sites(state, "dict")] + [()]
    path = ch.pick(paths)
    d = get_in(state, path)
    key = ch.pick(["zzz", "$array", "$float", "$river", "version", "kind", "left_offsets",
                   "hulls", "attrs"])
    value = ch.pick(ODD_VALUES + [np.zeros(3, np.int32), np.full(2, np.nan)])
    d[key] = value
    return f"{show(path + (key,))} = {_short(value)} (added)"


def mutate_container(ch, state) -> str:
    path = pick_site(ch, state, "list", ("tree", "forest", "forest", "forest", "top"))
    if path is None:
        return mutate_scalar(ch, state)
    seq = get_in(state, path)
    items = list(seq)
    op = ch.pick(["drop", "duplicate", "append-none", "reverse", "retype", "replace", "empty",
                  "nest"])
    if op == "drop" and items:
        del items[ch.below(len(items))]
    elif op == "duplicate" and items:
        items.append(copy.deepcopy(items[ch.below(len(items))]))
    elif op == "append-none":
        items.append(ch.pick([None, 0, "x", math.nan, [], {}]))
    elif op == "reverse":
        items.reverse()
    elif op == "empty":
        items = []
    elif op == "nest":
        items = [items]
    elif op == "replace":
        new = ch.pick([None, "x", 0, {}, math.nan])
        set_in(state, path, new)
        return f"{show(path)} = {_short(new)} (was a {type(seq).__name__} of {len(seq)})"
    if op == "retype":
        new = list(items) if isinstance(seq, tuple) else tuple(items)
    else:
        new = tuple(items) if isinstance(seq, tuple) else items
    set_in(state, path, new)
    return f"{show(path)}: {op} ({len(seq)} -> {len(new)} items)"


def mutate_bytes(ch, state) -> str:
    path = pick_site(ch, state, "bytes", ("forest",))
    if path is None:
        return mutate_element(ch, state)
    b = bytearray(get_in(state, path))
    op = ch.pick(["byte", "drop", "append", "empty", "double", "nan", "inf", "huge-int"])
    if op == "byte" and b:
        b[ch.below(len(b))] = ch.below(256)
    elif op == "drop" and b:
        del b[-ch.between(1, min(8, len(b))):]
    elif op == "append":
        b += ch.some_bytes(ch.pick([1, 4, 8, 64]))
    elif op == "empty":
        b = bytearray()
    elif op == "double":
        b = b + b
    elif op in ("nan", "inf") and len(b) >= 8:
        at = 8 * ch.below(len(b) // 8)
        b[at:at + 8] = np.array(math.nan if op == "nan" else -math.inf).tobytes()
    elif op == "huge-int" and len(b) >= 4:
        at = 4 * ch.below(len(b) // 4)
        b[at:at + 4] = np.array(ch.pick([-1, 2**31 - 1, -(2**31), 10**6]), np.int32).tobytes()
    set_in(state, path, bytes(b))
    return f"{show(path)}: {op} ({len(b)} bytes)"


def mutate_graft(ch, state, others: list) -> str:
    """An array of one tree replaced by the same-named array of another tree (of this model
    or another seed), or a whole tree by another's."""
    trees = tree_paths(state)
    t = ch.pick(trees)
    tree = get_in(state, t)
    donors = []
    for other in others:
        donors += [get_in(other, p) for p in tree_paths(other)]
    donor = ch.pick(donors)
    if ch.chance(0.25):
        set_in(state, t, copy.deepcopy(donor))
        return f"{show(t)} = a {donor['kind']} of {len(donor['left'])} nodes (was a " \
               f"{tree['kind']} of {len(tree['left'])})"
    keys = [k for k, v in tree.items() if isinstance(v, np.ndarray)]
    key = ch.pick(keys)
    shared = [d for d in donors if isinstance(d.get(key), np.ndarray)]
    src = ch.pick(shared)[key]
    old = tree[key]
    tree[key] = src.copy()
    return f"{show(t + (key,))} grafted: {old.dtype}{old.shape} -> {src.dtype}{src.shape}"


def _tree_links(tree):
    left, right = tree["left"].copy(), tree["right"].copy()
    parent = tree["parent"].copy()
    return left, right, parent


def _subtree(left, right, node) -> list:
    out, stack = [], [node]
    while stack and len(out) <= len(left):
        k = stack.pop()
        out.append(k)
        if 0 <= k < len(left) and left[k] >= 0:
            stack += [int(left[k]), int(right[k])]
    return out


def mutate_links(ch, state) -> str:
    """The nodes relinked: a cycle that keeps every node the child of one node, a node its own
    child, a child shared, subtrees or children swapped (still a tree), a child or parent or
    the root pointing anywhere, an interior node made a leaf or a leaf given children."""
    trees = [p for p in tree_paths(state) if len(get_in(state, p)["left"]) >= 3]
    if not trees:
        return mutate_element(ch, state)
    t = ch.pick(trees)
    tree = get_in(state, t)
    left, right, parent = _tree_links(tree)
    n = len(left)
    root = tree.get("root", 0)
    inner = [int(i) for i in np.flatnonzero(left >= 0)]
    leaves = [int(i) for i in np.flatnonzero(left < 0)]
    op = ch.pick(["cycle", "self-loop", "share", "swap-subtrees", "swap-children", "rewire",
                  "rewire-parent", "leafify", "grow-leaf", "root", "parent"])
    side = ch.pick(["left", "right"])
    arr = left if side == "left" else right
    desc = op
    if op == "cycle":
        # a (not the root) and an interior descendant d of a: a's parent adopts d's child e, d
        # adopts a; every node stays the child of one node, but a..d is a cycle off the tree
        found = None
        for a in inner:
            if a == root or not 0 <= parent[a] < n:
                continue
            ds = [d for d in _subtree(left, right, a) if d != a and 0 <= d < n and left[d] >= 0]
            if ds:
                found = (a, ch.pick(ds))
                break
        if found is None:
            op = "self-loop"
        else:
            a, d = found
            pa = int(parent[a])
            e = int(arr[d])
            if left[pa] == a:
                left[pa] = e
            else:
                right[pa] = e
            arr[d] = a
            parent[e], parent[a] = pa, d
            desc = f"cycle: node {a}'s parent {pa} adopts {e}, {a} becomes {d}'s {side} child"
    if op == "self-loop":
        i = ch.pick(inner) if inner else 0
        arr[i] = i
        desc = f"self-loop: {side}[{i}] = {i}"
    elif op == "share" and len(inner) >= 2:
        i, j = ch.pick(inner), ch.pick(inner)
        arr[i] = left[j]
        desc = f"share: {side}[{i}] = left[{j}] = {left[j]}"
    elif op == "swap-subtrees":
        candidates = [k for k in range(n) if k != root and 0 <= parent[k] < n]
        u = ch.pick(candidates) if candidates else root
        under = set(_subtree(left, right, u))
        vs = [k for k in candidates if k not in under and u not in _subtree(left, right, k)]
        if vs:
            v = ch.pick(vs)
            pu, pv = int(parent[u]), int(parent[v])
            for p, old, new in ((pu, u, v), (pv, v, u)):
                if left[p] == old:
                    left[p] = new
                else:
                    right[p] = new
            parent[u], parent[v] = pv, pu
            desc = f"swap-subtrees {u} (under {pu}) and {v} (under {pv})"
        else:
            desc = "swap-subtrees: none found (unchanged)"
    elif op == "swap-children" and inner:
        i = ch.pick(inner)
        left[i], right[i] = right[i], left[i]
        desc = f"swap-children of {i}"
    elif op in ("rewire", "rewire-parent") and inner:
        i = ch.pick(inner)
        v = int_value(ch, n, np.int32)
        old = int(arr[i])
        arr[i] = v
        if op == "rewire-parent" and 0 <= v < n:
            parent[v] = i
        desc = f"{op}: {side}[{i}] = {v} (was {old})"
    elif op == "leafify" and inner:
        i = ch.pick(inner)
        left[i] = right[i] = -1
        desc = f"leafify {i}"
    elif op == "grow-leaf" and leaves:
        i = ch.pick(leaves)
        left[i], right[i] = ch.between(-1, n), ch.between(-1, n)
        desc = f"grow-leaf {i}: children {left[i]}, {right[i]}"
    elif op == "root":
        new = ch.pick([-1, n, n + 1, int(left[root]) if 0 <= root < n else 0, ch.between(0, n - 1),
                       I32 - 1])
        tree["root"] = new
        desc = f"root = {new} (was {root})"
    elif op == "parent":
        i = ch.between(0, n - 1)
        parent[i] = int_value(ch, n, np.int32)
        desc = f"parent[{i}] = {parent[i]}"
    tree["left"], tree["right"], tree["parent"] = left, right, parent
    return f"{show(t)}: {desc}"


def mutate_pool(ch, state) -> str:
    """A pool's blocks (``<name>``, ``<name>_offsets``, ``<name>_rows``) made to overlap, run
    past the data, claim many rows, or their arrays to disagree."""
    found = []
    for t in tree_paths(state):
        tree = get_in(state, t)
        found += [(t, k[:-len("_offsets")]) for k in tree if k.endswith("_offsets")
                  and k[:-len("_offsets")] in tree]
    if not found:
        return mutate_element(ch, state)
    t, name = ch.pick(found)
    tree = get_in(state, t)
    data, offsets, rows = tree[name].copy(), tree[name + "_offsets"].copy(), tree[name + "_rows"].copy()
    op = ch.pick(["offset", "rows", "overlap", "truncate-data", "empty-data", "nan", "drop-block",
                  "free", "offsets-int32"])
    k = ch.below(len(offsets)) if len(offsets) else 0
    desc = op
    if op == "offset" and len(offsets):
        offsets[k] = ch.pick([len(data), len(data) - 1, -1, -2, 2**62, I64 - 1, 0,
                              int(offsets[k]) + 1])
        desc = f"offsets[{k}] = {offsets[k]}"
    elif op == "rows" and len(rows):
        rows[k] = ch.pick([-1, -2, 0, I32 - 1, 2**24, int(rows[k]) + 1, int(rows[k]) * 1000 % I32])
        desc = f"rows[{k}] = {rows[k]}"
    elif op == "overlap" and len(offsets) >= 2:
        j = ch.below(len(offsets))
        offsets[k] = offsets[j]
        desc = f"offsets[{k}] = offsets[{j}] = {offsets[j]}"
    elif op == "truncate-data" and len(data):
        data = data[:ch.below(len(data))]
        desc = f"data cut to {len(data)}"
    elif op == "empty-data":
        data = data[:0]
    elif op == "nan" and len(data):
        i = ch.below(len(data))
        data[i] = ch.pick([math.nan, math.inf, -math.inf, 1e308])
        desc = f"data[{i}] = {data[i]}"
    elif op == "drop-block" and len(offsets):
        rows = rows[:-1]
        desc = "rows one shorter than offsets"
    elif op == "free" and len(rows):
        rows[k] = -1
        desc = f"block {k} freed"
    elif op == "offsets-int32":
        offsets = offsets.astype(np.int32)
    tree[name], tree[name + "_offsets"], tree[name + "_rows"] = data, offsets, rows
    return f"{show(t)} pool {name!r}: {desc}"


def mutate_version(ch, state) -> str:
    where = ch.pick(["top", "tree"])
    if where == "top" or not tree_paths(state):
        old = state.get("version")
        state["version"] = ch.pick([0, 2, 3, -1, 99, True, "1", None, 1.0, 2**63])
        return f"state.version = {state['version']!r} (was {old!r})"
    t = ch.pick(tree_paths(state))
    tree = get_in(state, t)
    old = tree.get("version")
    tree["version"] = ch.pick([1, 3, 0, -1, None, "2", 2.0, True])
    return f"{show(t)}.version = {tree['version']!r} (was {old!r})"


def mutate_estimator(ch, state, names: list) -> str:
    old = state.get("estimator")
    state["estimator"] = ch.pick(names + ["", "ModelFileError", "save", "BaseForest", None, 1])
    return f"state.estimator = {state['estimator']!r} (was {old!r})"


def mutate_forest(ch, state, others: list) -> str:
    """A forest-level field: one of the curated changes below, or any field of the forest's
    state (names, labels, buffered rows, budget, detectors, intervals, generator) changed as
    its type allows."""
    core = state.get("core")
    if not isinstance(core, dict):
        return mutate_scalar(ch, state)
    forest = core.get("forest") if isinstance(core.get("forest"), dict) else {}
    op = ch.pick(["generic", "generic", "generic", "names", "labels", "pending", "budget",
                  "background", "watch", "intervals", "rng"])
    if op == "names" and isinstance(core.get("names"), list):
        names = core["names"]
        sub = ch.pick(["duplicate", "drop", "add", "odd", "max_width"])
        if sub == "duplicate" and names:
            names.append(names[0])
        elif sub == "drop" and names:
            names.pop()
        elif sub == "add":
            names.append(ch.pick(["new", "", "x" * 1000]))
        elif sub == "odd" and names:
            names[ch.below(len(names))] = ch.pick([None, 1, 1.5, [1], {"a": 1}, True, math.nan])
        else:
            core["max_width"] = ch.pick([0, 1, max(len(names) - 1, 0), I32, -1, None, 2**63])
        return f"state.core.names: {sub} ({len(names)} names, max_width {core.get('max_width')!r})"
    if op == "labels" and isinstance(core.get("labels"), list):
        labels = core["labels"]
        sub = ch.pick(["duplicate", "drop", "add", "odd"])
        if sub == "duplicate" and labels:
            labels.append(labels[0])
        elif sub == "drop" and labels:
            labels.pop()
        elif sub == "add":
            labels.append(ch.pick(["new", 3, 2.5, None]))
        elif labels:
            labels[ch.below(len(labels))] = ch.pick([[1], {"a": 1}, math.nan, None, "x"])
        return f"state.core.labels: {sub} ({len(labels)} labels)"
    if op == "pending" and isinstance(forest.get("pending_rows"), list):
        rows, targets = forest["pending_rows"], forest["pending_targets"]
        width = len(core.get("names", [])) or 1
        sub = ch.pick(["add-row", "drop-row", "drop-target", "target", "row-value", "batch-size"])
        if sub == "add-row":
            rows.append(ch.pick([np.zeros(width), np.full(width, math.nan), np.zeros(width + 1),
                                 np.zeros(max(width - 1, 0)), np.zeros(width, np.float32),
                                 np.zeros((1, width)), np.zeros(width, np.int64)]))
            targets.append(ch.pick([0.0, True, None, math.nan, "x"]))
        elif sub == "drop-row" and rows:
            rows.pop()
        elif sub == "drop-target" and targets:
            targets.pop()
        elif sub == "target" and targets:
            targets[ch.below(len(targets))] = ch.pick([None, math.nan, math.inf, "x", [1], 10**30,
                                                      "new-label", 2])
        elif sub == "row-value" and rows:
            r = rows[ch.below(len(rows))]
            if r.size:
                r[ch.below(r.size)] = float_value(ch)
        else:
            forest["batch_size"] = ch.pick([0, max(len(rows) - 1, 0), -1, I32, I64 - 1, 10**9])
        return f"state.core.forest.pending: {sub} ({len(rows)} rows, {len(targets)} targets, " \
               f"batch_size {forest.get('batch_size')!r})"
    if op == "budget" and "budget" in forest:
        budget = list(forest["budget"])
        sub = ch.pick(["value", "short", "long"])
        if sub == "value" and budget:
            i = ch.below(len(budget))
            budget[i] = ch.pick([-1, 0, 1, I64 - 1, -I64, I64, 2**31 + 1, 0.5, math.nan, math.inf,
                                 None, True])
        elif sub == "short":
            budget = budget[:ch.below(len(budget))]
        else:
            budget.append(1)
        forest["budget"] = tuple(budget)
        return f"state.core.forest.budget = {forest['budget']!r}"
    if op == "background" and isinstance(forest.get("background"), list):
        bg = forest["background"]
        trees = core.get("trees") or []
        sub = ch.pick(["copy-tree", "other-tree", "odd", "length"])
        i = ch.below(len(bg)) if bg else 0
        if sub == "copy-tree" and trees and bg:
            bg[i] = copy.deepcopy(trees[ch.below(len(trees))])
        elif sub == "other-tree" and bg:
            donors = [get_in(o, p) for o in others for p in tree_paths(o)]
            bg[i] = copy.deepcopy(ch.pick(donors))
        elif sub == "odd" and bg:
            bg[i] = ch.pick([{}, 1, "x", [], {"kind": "MondrianTree"}])
        else:
            bg.append(None)
        forest["n_background"] = sum(b is not None for b in bg)
        return f"state.core.forest.background: {sub} [{i}]"
    if op == "watch" and isinstance(forest.get("watch"), dict):
        watch = forest["watch"]
        sub = ch.pick(["adwin", "adwin", "adwin", "template", "rule", "log", "counts", "duel",
                       "n_watched"])
        if sub == "adwin" and isinstance(watch.get("adwins"), list) and watch["adwins"]:
            t, k = ch.below(len(watch["adwins"])), ch.below(2)
            st = list(watch["adwins"][t][k])
            f = ch.below(len(st))
            old = st[f]
            if isinstance(old, bytes):
                b = bytearray(old)
                if b and ch.chance(0.5):
                    at = 8 * ch.below(max(len(b) // 8, 1))
                    b[at:at + 8] = np.array(ch.pick([math.nan, math.inf, -1.0, 1e308])).tobytes()
                else:
                    b = b[:ch.below(len(b) + 1)] if ch.chance(0.5) else b + ch.some_bytes(8)
                st[f] = bytes(b)
            else:
                st[f] = ch.pick([math.nan, math.inf, -math.inf, -1, 0, 1, 2, 64, 65, I32, I32 - 1,
                                 -I32, I64 - 1, 1e308, -1.0, 0.5, True, None, "x"])
            pair = list(watch["adwins"][t])
            pair[k] = tuple(st)
            watch["adwins"][t] = tuple(pair)
            return f"state.core.forest.watch.adwins[{t}][{k}][{f}] = {_short(st[f])} (was {_short(old)})"
        if sub == "template" and isinstance(watch.get("templates"), tuple):
            k = ch.below(2)
            new = ch.pick([{"$river": "os:system", "params": {}},
                           {"$river": "river.drift.adwin:ADWIN", "params": {"delta": -1.0}},
                           {"$river": "river.drift.adwin:ADWIN", "params": {"max_buckets": 0}},
                           {"$river": "river.drift.adwin:ADWIN", "params": {"clock": 0}},
                           {"$river": "river.drift:PageHinkley", "params": {}},
                           {"$river": "river.drift.binary:DDM", "params": {}},
                           {"$river": "river.linear_model:LinearRegression", "params": {}},
                           {"$river": "river.drift:ADWIN", "params": [], "attrs": {}},
                           {"$river": "river.drift:ADWIN", "params": {}, "attrs": {"x": 1}},
                           None, "x", {}])
            temps = list(watch["templates"])
            temps[k] = new
            watch["templates"] = tuple(temps)
            return f"state.core.forest.watch.templates[{k}] = {_short(new)}"
        if sub == "rule":
            watch["rule"] = ch.pick([-1, 2, 3, 99, None, 1.5, I32])
            return f"state.core.forest.watch.rule = {watch['rule']!r}"
        if sub == "log" and isinstance(watch.get("log"), tuple):
            entries, size = watch["log"]
            entries = list(entries) + [ch.pick([(0, 99), (0, -1), (-1, 0), (1, 0), (I64, 0),
                                                 ("x", 0), (0,), None])]
            size = ch.pick([size, 0, 1, I32, -1])
            watch["log"] = (entries, size)
            return f"state.core.forest.watch.log = ({_short(entries)}, {size})"
        if sub == "counts" and isinstance(watch.get("counts"), tuple):
            counts = [list(c) for c in watch["counts"]]
            i = ch.below(3)
            if counts[i]:
                counts[i][ch.below(len(counts[i]))] = ch.pick([-1, I64, None, 1.5, "x"])
            watch["counts"] = tuple(counts)
            return f"state.core.forest.watch.counts[{i}] = {counts[i]!r}"
        if sub == "duel" and isinstance(watch.get("duel"), list) and watch["duel"]:
            i = ch.below(len(watch["duel"]))
            watch["duel"][i] = ch.pick([(math.nan, 0.0, 0.0), (math.inf, -math.inf, 1e308),
                                        (1, 0, 0), (0.0, 0.0), (0.0, 0.0, 0.0, 0.0), None])
            return f"state.core.forest.watch.duel[{i}] = {watch['duel'][i]!r}"
        watch["n_watched"] = ch.pick([-1, I64, I64 - 1, None, 1.5, 2**64])
        return f"state.core.forest.watch.n_watched = {watch['n_watched']!r}"
    if op == "intervals" and isinstance(forest.get("intervals"), dict):
        path = ch.pick(sites(state["core"]["forest"]["intervals"]))
        full = ("core", "forest", "intervals") + path
        v = get_in(state, full)
        if isinstance(v, np.ndarray):
            return (mutate_element if ch.chance(0.5) else mutate_shape)(ch, state, full)
        return mutate_scalar(ch, state, full)
    if op == "rng":
        which = ch.pick(["forest"] + ["tree"] * bool(tree_paths(state)))
        value = ch.pick([(0, 0, 0, 0), (-1, 1, 1, 1), (2**64, 1, 1, 1), (1, 2, 3), (1.5, 1, 1, 1),
                         None, (1, 2, 3, 4, 5)])
        if which == "forest":
            forest["rng"] = value
            return f"state.core.forest.rng = {value!r}"
        t = ch.pick(tree_paths(state))
        get_in(state, t)["rng"] = value
        return f"{show(t)}.rng = {value!r}"
    # generic: any field under the core but the trees
    path = ch.pick(sites(state, None, "forest"))
    v = get_in(state, path)
    k = kind_of(v)
    if k == "array":
        return (mutate_element if ch.chance(0.6) else mutate_shape)(ch, state, path)
    if k == "scalar":
        return mutate_scalar(ch, state, path)
    if k == "bytes":
        return mutate_bytes(ch, state)
    new = ch.pick([None, 0, "x", [], {}, math.nan] + ([list(v)[:-1]] if k == "list" else []))
    set_in(state, path, new)
    return f"{show(path)} = {_short(new)} (was a {type(v).__name__})"


def _short(v, n=60) -> str:
    r = repr(v)
    return r if len(r) <= n else r[:n] + "..."


STATE_OPS = (["element"] * 6 + ["scalar"] * 4 + ["count"] * 2 + ["shape"] * 3 + ["remove"] * 2
             + ["add"] + ["container"] * 2 + ["bytes"] + ["graft"] * 2 + ["links"] * 4
             + ["pool"] * 2 + ["version"] + ["estimator"] + ["forest"] * 5)


def state_case(ch, seed: Seed, all_seeds: dict, op=None):
    """One structure-aware case: `op` (or one drawn) applied to a copy of `seed`'s state."""
    state = copy.deepcopy(seed.state)
    op = op or ch.pick(STATE_OPS)
    if not tree_paths(state) and op in ("count", "graft", "links", "pool"):
        op = "element"
    others = [s.state for s in all_seeds.values()]
    if op == "graft":
        detail = mutate_graft(ch, state, others)
    elif op == "estimator":
        detail = mutate_estimator(ch, state, sorted({s.estimator for s in all_seeds.values()}))
    elif op in _MUTATIONS:
        detail = _MUTATIONS[op](ch, state)
    else:
        detail = mutate_forest(ch, state, others)
    return f"state:{op}", detail, state_file(state)


#: the state mutations that need nothing but the state, by name
_MUTATIONS = {"element": mutate_element, "scalar": mutate_scalar, "count": mutate_count,
              "shape": mutate_shape, "remove": mutate_remove, "add": mutate_add,
              "container": mutate_container, "bytes": mutate_bytes, "links": mutate_links,
              "pool": mutate_pool, "version": mutate_version}


# ---------------------------------------------------------------------------- file mutations

BYTE_OPS = ["truncate"] * 3 + ["flip"] * 3 + ["overwrite"] * 2 + ["insert", "delete", "length"]


def byte_case(ch, seed: Seed, op=None):
    data = bytearray(seed.file)
    size, head = len(data), header_end(seed.file)
    op = op or ch.pick(BYTE_OPS)

    def where():
        region = ch.pick(["header", "any", "tail"])
        if region == "header":
            return ch.between(0, head - 1)
        if region == "tail":
            return ch.between(max(0, size - 64), size - 1)
        return ch.between(0, size - 1)

    def payload(n):
        k = ch.pick(["random", "zero", "ff", "digit", "quote", "brace", "minus"])
        if k == "random":
            return ch.some_bytes(n)
        return {"zero": b"\0", "ff": b"\xff", "digit": b"9", "quote": b'"', "brace": b"{",
                "minus": b"-"}[k] * n

    if op == "truncate":
        at = where()
        del data[at:]
        detail = f"cut to {at} of {size} bytes (header ends at {head})"
    elif op == "flip":
        flips = [(where(), ch.below(8)) for _ in range(ch.between(1, 4))]
        for at, bit in flips:
            data[at] ^= 1 << bit
        detail = f"bits flipped (byte, bit): {flips}"
    elif op == "overwrite":
        at, blob = where(), payload(ch.between(1, 16))
        data[at:at + len(blob)] = blob
        del data[size:]
        detail = f"{blob!r} written at {at}"
    elif op == "insert":
        at, blob = where(), payload(ch.between(1, 16))
        data[at:at] = blob
        detail = f"{blob!r} inserted at {at}"
    elif op == "delete":
        at, n = where(), ch.between(1, 16)
        del data[at:at + n]
        detail = f"{n} bytes deleted at {at}"
    else:
        n = head - 8
        value = ch.pick([0, 1, 7, n - 1, n + 1, n + 8, n - 8, size - 8, size, 2**63, 2**64 - 1,
                         64 * MIB + 1, ch.below(2**64)])
        data[:8] = value.to_bytes(8, "little")
        detail = f"header length = {value} (was {n})"
    return f"byte:{op}", detail, bytes(data)


HEADER_OPS = ["meta"] * 3 + ["entry"] * 4 + ["state-blob"] * 3 + ["extra", "json"]

_VERSIONS = ["0", "3", "10", "-1", "1.0", "", " 1", "01", "\u0661", "\u00b9", "9" * 30, 1, None,
             [1]]


def header_case(ch, seed: Seed, op=None):
    from river_forests import _file

    arrays = dict(seed.arrays)
    entries, blobs = layout(arrays)
    meta = meta_for(seed.state, blobs)
    op = op or ch.pick(HEADER_OPS)
    header_json = None
    if op == "meta":
        key = ch.pick(["format", "format_version", "format_version", "crc32", "crc32", "estimator",
                       "package_version", "params", "delete", "not-a-dict"])
        if key == "format":
            meta[key] = ch.pick(["", "safetensors", "river-forest", None, 1])
        elif key == "format_version":
            meta[key] = ch.pick(_VERSIONS)
        elif key == "crc32":
            crc = int(meta["crc32"], 16)
            meta[key] = ch.pick([f"{crc ^ 1:08x}", f"{crc:08X}", f"{crc:x}", "", None, crc,
                                 "zzzzzzzz", f"0x{crc:08x}"])
        elif key in ("estimator", "package_version"):
            meta[key] = ch.pick(["", None, "XForestRegressor", "9.9.9", 1])
        elif key == "params":
            meta[key] = ch.pick(["", "{}", "[", "null", '{"n_estimators":3}', None, 1,
                                 "[" * 100000 + "]" * 100000])
        elif key == "delete":
            key = ch.pick(list(meta))
            del meta[key]
        else:
            meta = ch.pick([[], "x", None, 1])
        shown = meta.get(key, "(removed)") if isinstance(meta, dict) else meta
        detail = f"__metadata__ {key}: {_short(shown)}"
    elif op == "entry":
        name = ch.pick(list(entries))
        e = entries[name]
        field = ch.pick(["dtype", "shape", "shape", "data_offsets", "data_offsets", "delete",
                         "rename", "extra-field", "not-a-dict"])
        b, end = e["data_offsets"]
        n = e["shape"][0] if e["shape"] else 1
        if field == "dtype":
            e["dtype"] = ch.pick([c for c in _file._DTYPES if c != e["dtype"]] + ["F16", "X", None, 1])
            detail = f"{name}.dtype = {e['dtype']!r}"
        elif field == "shape":
            e["shape"] = ch.pick([[n + 1], [n - 1] if n else [1], [0], [n, 1], [1, n], [], [2**40],
                                  [-1], [n, 2**40], [2**62, 2**62], ["1"], [True], [1.5], None,
                                  [1] * 9])
            detail = f"{name}.shape = {e['shape']!r}"
        elif field == "data_offsets":
            e["data_offsets"] = ch.pick([[b, end + 1], [b + 1, end + 1], [max(b - 1, 0), end - 1],
                                         [end, b], [0, end], [b, 2**63], [-1, end], [b], [b, end, 0],
                                         [str(b), end], [b, float(end)], [b, end - 1]])
            detail = f"{name}.data_offsets = {e['data_offsets']!r} (was {[b, end]})"
        elif field == "delete":
            del entries[name]
            detail = f"{name} removed"
        elif field == "rename":
            new = ch.pick([c for c in list(_file._DTYPES) + ["state", "State", "__metadata__"]
                           if c != name])
            entries = {(new if k == name else k): v for k, v in entries.items()}
            detail = f"{name} renamed {new}"
        elif field == "extra-field":
            e["zzz"] = 1
            detail = f"{name} has an extra field"
        else:
            entries[name] = ch.pick([[], "x", None])
            detail = f"{name}'s entry = {entries[name]!r}"
    elif op == "state-blob":
        encoded = json.loads(zlib.decompress(seed.arrays["state"].tobytes()))
        text = json.dumps(encoded, separators=(",", ":")).encode()
        kind = ch.pick(["inflate", "inflate", "nest", "garbage", "cut", "not-utf8", "json-list",
                        "trailing", "two-streams", "huge-number", "nan-literal"])
        if kind == "inflate":
            pad = ch.pick([MIB, 8 * MIB, 40 * MIB, 64 * MIB - len(text), 64 * MIB + 1])
            raw = text + b" " * max(pad, 0)
            detail = f"state inflates to {len(raw):,} bytes (JSON padded with spaces)"
        elif kind == "nest":
            depth = ch.pick([1000, 10**5, 10**6])
            raw = b"[" * depth + b"]" * depth
            detail = f"state JSON nested {depth} deep"
        elif kind == "garbage":
            raw = None
            blob = ch.some_bytes(ch.between(0, 64))
            detail = f"state = {len(blob)} random bytes"
        elif kind == "cut":
            raw = None
            full = seed.arrays["state"].tobytes()
            blob = full[:ch.below(len(full))]
            detail = f"state's zlib stream cut to {len(blob)} of {len(full)} bytes"
        elif kind == "not-utf8":
            raw = b"\xff\xfe" + text
            detail = "state JSON preceded by bytes that are not UTF-8"
        elif kind == "json-list":
            raw = ch.pick([b"[]", b"null", b"1", b'"x"', b"{}", b'{"version":1}'])
            detail = f"state JSON = {raw!r}"
        elif kind == "trailing":
            raw = None
            blob = seed.arrays["state"].tobytes() + ch.some_bytes(ch.between(1, 32))
            detail = "state's zlib stream followed by bytes"
        elif kind == "two-streams":
            raw = None
            blob = seed.arrays["state"].tobytes() * 2
            detail = "state's zlib stream twice"
        elif kind == "huge-number":
            raw = text.replace(b'"version":1', b'"version":' + b"9" * 5000, 1)
            detail = "state's version a 5000-digit number"
        else:
            raw = text.replace(b'"n_seen":', b'"n_seen":NaN,"x":', 1)
            detail = "a NaN literal in the state's JSON"
        if raw is not None:
            blob = zlib.compress(raw, 6)
        arrays["state"] = np.frombuffer(blob, dtype=np.uint8)
        entries, blobs = layout(arrays)
        meta = meta_for(seed.state, blobs)
    elif op == "extra":
        k = ch.pick([0, 1, 8, 64])
        name = ch.pick(["extra", "I8", "F32", "BOOL", "U64"])
        if name in entries:
            name = "extra"
        end = sum(len(b) for b in blobs)
        entries[name] = {"dtype": "U8", "shape": [k], "data_offsets": [end, end + k]}
        if name in _file._DTYPES:
            entries[name]["dtype"] = name
            itemsize = np.dtype(_file._DTYPES[name]).itemsize
            entries[name]["data_offsets"] = [end, end + k * itemsize]
            k *= itemsize
        blobs = blobs + [ch.some_bytes(k)]
        meta = meta_for(seed.state, blobs)
        detail = f"an extra tensor {name!r} of {k} bytes"
    else:  # json: the header's JSON itself
        kind = ch.pick(["list", "no-metadata", "nest", "bom", "nul-pad", "not-utf8", "duplicate",
                        "escape"])
        base = json.dumps({"__metadata__": meta, **entries}, separators=(",", ":")).encode()
        if kind == "list":
            header_json = b"[" + base + b"]"
        elif kind == "no-metadata":
            header_json = json.dumps(entries).encode()
        elif kind == "nest":
            header_json = base[:-1] + b',"deep":' + b"[" * 100000 + b"]" * 100000 + b"}"
        elif kind == "bom":
            header_json = b"\xef\xbb\xbf" + base
        elif kind == "nul-pad":
            header_json = base + b"\0" * 8
        elif kind == "not-utf8":
            header_json = base[:-1] + b',"\xff":1}'
        elif kind == "duplicate":
            header_json = base[:-1] + b',"__metadata__":{"format":"river-forests"}}'
        else:
            header_json = base.replace(b'"state"', b'"\\u0073tate"', 1)
        detail = f"header JSON: {kind}"
    return f"header:{op}", detail, assemble(meta, entries, blobs, header_json)


FAMILIES = ["byte"] * 5 + ["header"] * 3 + ["state"] * 12


@dataclasses.dataclass
class Case:
    seed: str
    strategy: str
    detail: str
    data: bytes
    mmap: bool


def make_case(ch: Chooser, all_seeds: dict | None = None, family: str | None = None,
              op: str | None = None) -> Case:
    """One mutated file: a seed, a family (byte, header or state) and a mutation, all drawn
    from `ch`."""
    all_seeds = all_seeds or seeds()
    seed = all_seeds[ch.pick(sorted(all_seeds))]
    family = family or ch.pick(FAMILIES)
    mmap = ch.chance(0.25)
    if family == "byte":
        strategy, detail, data = byte_case(ch, seed, op)
    elif family == "header":
        strategy, detail, data = header_case(ch, seed, op)
    else:
        strategy, detail, data = state_case(ch, seed, all_seeds, op)
    return Case(seed.label, strategy, detail, data, mmap)


# ---------------------------------------------------------------------------- the oracle

@dataclasses.dataclass
class Outcome:
    kind: str            # rejected, loaded, error, broken
    message: str = ""
    size: int = 0
    peak: int = 0        # tracemalloc's peak during load, bytes
    rss: int = 0         # rise of the process's peak RSS during load, bytes
    seconds: float = 0.0

    @property
    def memory_flag(self) -> bool:
        return self.peak > 2 * self.size + MIB

    @property
    def rss_flag(self) -> bool:
        return self.rss > 2 * self.size + MIB

    @property
    def failed(self) -> bool:
        return self.kind in ("error", "broken") or self.memory_flag


def _maxrss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def exercise(model, seed: Seed) -> None:
    """What a loaded model must do without raising: predict, learn rows one by one and a
    batch, flush a buffer, predict again and give its state."""
    import pandas as pd
    from river import base

    from river_forests._state import to_state

    rows = seed.rows
    classifier = isinstance(model, base.Classifier)  # a state may name another estimator
    for x, y in rows[:5]:
        if classifier:
            model.predict_proba_one(x)
            model.predict_one(x)
        else:
            model.predict_one(x)
            model.predict_one(x, with_dist=True)
            if model.confidence_level is not None:
                model.predict_one(x, with_interval=True)
        model.learn_one(x, y)
    X = pd.DataFrame([x for x, _ in rows[5:8]])
    y = pd.Series([y for _, y in rows[5:8]])
    model.learn_many(X, y)
    if hasattr(model, "flush"):
        model.flush()
    if classifier:
        model.predict_proba_many(X)
    else:
        model.predict_many(X)
    to_state(model)


def run_case(case: Case, path, all_seeds: dict | None = None, measure: bool = True) -> Outcome:
    """Write `case`'s file to `path`, load it and exercise what loads."""
    import tracemalloc

    import river_forests

    all_seeds = all_seeds or seeds()
    Path(path).write_bytes(case.data)
    out = Outcome("loaded", size=len(case.data))
    rss = _maxrss()
    if measure:
        tracemalloc.start()
    start = time.perf_counter()
    model = None
    try:
        model = river_forests.load(path, mmap=case.mmap)
    except river_forests.ModelFileError as e:
        # without the path every message begins with: the kinds are counted across workers
        out.kind, out.message = "rejected", str(e).removeprefix(f"{os.fsdecode(path)}: ")
    except Exception as e:  # noqa: BLE001 - any other exception is the finding
        out.kind = "error"
        out.message = f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-4)}"
    finally:
        out.seconds = time.perf_counter() - start
        if measure:
            out.peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        out.rss = _maxrss() - rss
    if model is not None:
        try:
            exercise(model, all_seeds[case.seed])
        except Exception as e:  # noqa: BLE001
            out.kind = "broken"
            out.message = f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-4)}"
    return out


# ---------------------------------------------------------------------------- the child

def _limit_address_space(extra: int = 4 << 30) -> None:
    """An address-space limit `extra` bytes above the process's size now, so that a case
    that would allocate terabytes fails with MemoryError rather than exhausting the machine."""
    try:
        with open("/proc/self/status") as f:
            vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    except (OSError, StopIteration):
        return
    resource.setrlimit(resource.RLIMIT_AS, (vm + extra, vm + extra))


def child(seed: int, start: int, stop: int, timeout: int) -> int:
    """Run cases [start, stop) of run `seed`, one JSON line before (``begin``) and after each;
    a crash's or a hang's Python stack goes to stderr (faulthandler)."""
    import faulthandler
    import warnings

    faulthandler.enable()
    warnings.simplefilter("ignore")
    all_seeds = seeds()
    workdir = tempfile.mkdtemp(prefix="fuzz_format_")
    path = os.path.join(workdir, "case.rf")
    # warm up: every seed loaded both ways, so that the peak RSS is at its plateau
    for s in all_seeds.values():
        for mmap in (False, True):
            run_case(Case(s.label, "seed", "", s.file, mmap), path, all_seeds, measure=False)
    _limit_address_space()

    def emit(obj):
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    emit({"ready": True, "maxrss": _maxrss()})
    for i in range(start, stop):
        case = make_case(case_rng(seed, i), all_seeds)
        emit({"begin": i, "seed": case.seed, "strategy": case.strategy, "detail": case.detail,
              "mmap": case.mmap, "size": len(case.data)})
        faulthandler.dump_traceback_later(max(timeout - 3, 1))
        out = run_case(case, path, all_seeds)
        faulthandler.cancel_dump_traceback_later()
        emit({"i": i, "outcome": out.kind, "message": out.message[:2000], "size": out.size,
              "peak": out.peak, "rss": out.rss, "seconds": round(out.seconds, 6)})
    emit({"done": True, "maxrss": _maxrss()})
    try:
        os.remove(path)
        os.rmdir(workdir)
    except OSError:
        pass
    return 0


# ---------------------------------------------------------------------------- the parent

@dataclasses.dataclass
class Chunk:
    start: int
    stop: int
    records: list = dataclasses.field(default_factory=list)   # one per case
    rss: list = dataclasses.field(default_factory=list)       # (start maxrss, end maxrss) a child
    children: int = 0


def run_chunk(seed: int, start: int, stop: int, timeout: float, startup: float = 300.0) -> Chunk:
    """Cases [start, stop) in child processes: a child that dies or stays silent for `timeout`
    s is recorded against the case it began (crash, hang) and a new child goes on after it."""
    chunk = Chunk(start, stop)
    at = start
    while at < stop:
        proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.fuzz_format", "--child", str(seed), str(at),
             str(stop), str(int(timeout))], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)
        chunk.children += 1
        begun, ready, done, buf, last = None, None, False, b"", None
        deadline = time.monotonic() + startup
        killed = False
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                os.killpg(proc.pid, signal.SIGKILL)
                killed = True
                break
            r, _, _ = select.select([proc.stdout], [], [], left)
            if not r:
                continue
            data = os.read(proc.stdout.fileno(), 1 << 16)
            if not data:
                break
            buf += data
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                deadline = time.monotonic() + timeout
                if "ready" in msg:
                    ready = msg["maxrss"]
                elif "begin" in msg:
                    begun = msg
                elif "i" in msg:
                    rec = dict(begun, **msg)
                    chunk.records.append(rec)
                    last = rec
                    at = msg["i"] + 1
                    begun = None
                elif "done" in msg:
                    done = True
                    chunk.rss.append((ready, msg["maxrss"]))
        stderr = "\n".join(line for line in proc.stderr.read().decode(errors="replace").splitlines()
                           if not line.startswith("Extension modules:"))
        proc.wait()
        if done:
            break
        # the child died or hung: the case it began is the finding; a child that dies between
        # cases (glibc finding its heap corrupted, a model freed late) is charged to the case
        # it finished last
        next_at = None
        if begun is None:
            if ready is None:
                raise RuntimeError(f"a child failed before its first case (return code "
                                   f"{proc.returncode}):\n{stderr[-3000:]}")
            if last is not None:
                chunk.records.remove(last)
                begun = dict(last, begin=last["i"],
                             detail=last["detail"] + " [the child died after this case returned]")
                next_at = at
            else:
                begun = {"begin": at, "seed": "?", "strategy": "(between cases)",
                         "detail": "the child died before its first case", "mmap": False,
                         "size": 0}
        kind = "hang" if killed else "crash"
        message = (f"no answer within {timeout:g} s" if killed else
                   f"return code {proc.returncode}"
                   + (f" ({signal.Signals(-proc.returncode).name})" if proc.returncode < 0 else ""))
        chunk.records.append(dict(begun, i=begun["begin"], outcome=kind,
                                  message=message + "\n" + stderr[-4000:], peak=0, rss=0,
                                  seconds=timeout if killed else 0.0))
        at = begun["begin"] + 1 if next_at is None else next_at
    return chunk


_FRAME = re.compile(r'File "([^"]+)", line (\d+),? in (\S+)')


def where(message: str) -> str:
    """The innermost frame of river_forests in a crash's or a hang's stack (faulthandler's
    dump of the current thread) or in an exception's traceback, as ``file:line function``."""
    if "Current thread" in message:  # faulthandler: innermost first
        frames = _FRAME.findall(message.split("Current thread", 1)[1])
    else:  # a traceback: innermost last
        frames = _FRAME.findall(message)[::-1]
    for path, line, func in frames:
        if "/river_forests/" in path:
            return f"{path.split('/river_forests/', 1)[1]}:{line} {func}"
    return f"{Path(frames[0][0]).name}:{frames[0][1]} {frames[0][2]}" if frames else ""


def replay(seed: int, index: int, timeout: float) -> str:
    """Case `index` run alone in a fresh process: ``crash (SIGSEGV)``, ``hang``, or the outcome
    it had there (a crash that does not happen alone came from an earlier case's damage)."""
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.fuzz_format", "--seed", str(seed),
                               "--replay", str(index)], cwd=ROOT, capture_output=True, text=True,
                              timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return "hang"
    if proc.returncode < 0:
        return f"crash ({signal.Signals(-proc.returncode).name})"
    lines = proc.stdout.splitlines()
    return lines[1].split(" ", 1)[0] if len(lines) > 1 else f"exit {proc.returncode}"


def confirm(records: list, seed: int, timeout: float, jobs: int) -> None:
    """Replay every crash and hang alone (`replay`); the result goes to its record's
    ``alone``."""
    todo = [r for r in records if r["outcome"] in ("crash", "hang") and r["seed"] != "?"]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for r, alone in zip(todo, pool.map(lambda r: replay(seed, r["i"], timeout), todo)):
            r["alone"] = alone


def normalise(message: str) -> str:
    """A ModelFileError's message with its numbers and quoted values elided, to count kinds."""
    m = message.split("\n")[0]
    m = re.sub(r"\[[^\]]*\]", "[...]", m)
    m = re.sub(r"\{[^}]*\}", "{...}", m)
    m = re.sub(r"'[^']*'", "'...'", m)
    m = re.sub(r"\d[\d,._e+-]*", "N", m)
    return m[:160]


def field_of(detail: str) -> str:
    """The field a mutation changed, its indices elided (failures are grouped by it)."""
    head = re.split(r" = |: | \(|, ", detail, maxsplit=1)[0]
    return re.sub(r"\d[\d,]*", "N", re.sub(r"\[\d+\]", "[i]", head))


def code_version() -> str:
    """The commit, the benchmark store's code version, and a digest of the package's working
    files (its uncommitted changes included)."""
    import hashlib

    from benchmarks import store

    store.our_version.cache_clear()
    try:
        v = store.our_version()
        dirty = ""
    except store.DirtyTree:
        os.environ["RIVER_FORESTS_BENCH_ALLOW_DIRTY"] = "1"
        store.our_version.cache_clear()
        v = store.our_version()
        dirty = " (uncommitted changes)"
    h = hashlib.sha256()
    for p in sorted((ROOT / "river_forests").rglob("*")):
        if p.suffix in (".py", ".pyx", ".pxd") and p.is_file():
            h.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes())
    return (f"code version `{v['key']}`{dirty}, commit {v['commit'][:10]}, working files of "
            f"`river_forests/` sha256 {h.hexdigest()[:12]}")


def report(records: list, chunks: list, args, wall: float, version: str) -> str:
    from benchmarks.experiments import _common

    outcomes = ["rejected", "loaded", "error", "broken", "crash", "hang"]
    by = collections.defaultdict(collections.Counter)
    seeds_count = collections.Counter()
    for r in records:
        by[r["strategy"]][r["outcome"]] += 1
        seeds_count[r["seed"]] += 1
    total = collections.Counter(r["outcome"] for r in records)
    mem = [r for r in records if r.get("peak", 0) > 2 * r.get("size", 0) + MIB]
    rss = [r for r in records if r.get("rss", 0) > 2 * r.get("size", 0) + MIB]
    failures = [r for r in records if r["outcome"] in ("error", "broken", "crash", "hang")]
    command = (f"python -m benchmarks.fuzz_format --cases {args.cases} --chunk {args.chunk} "
               f"--seed {args.seed} --jobs {args.jobs} --timeout {args.timeout:g}")
    lines = [f"# Fuzzing the model file format: {len(records):,} cases", "",
             f"`{command}`; {version}; {_common.machine()}; load average "
             f"{_common.load_average()}. {len(seeds())} seed models (2 trees, seed {SEED}, "
             f"{ROWS} rows; see `benchmarks/fuzz_format.py`), one mutation a case, "
             f"{sum(c.children for c in chunks)} child processes; wall time "
             f"{wall / 60:.1f} min ({wall / max(len(records), 1) * 1000:.1f} ms a case).", ""]
    bad = len(failures) + len([r for r in mem if r not in failures])
    far = sum(r["peak"] > 2 * r["size"] + MIB + 64 * 1024 for r in mem)
    again = collections.Counter(r.get("alone", "").split(" ")[0] for r in failures)
    lines += [f"**{bad} failure{'s' * (bad != 1)}**: {total['error']} other exceptions from "
              f"`load`, {total['broken']} loaded models that then failed, {total['crash']} "
              f"crashes ({again['crash']} crash again alone), {total['hang']} hangs "
              f"({again['hang']} hang again alone), {len(mem)} cases whose `load` traced more than "
              f"2x the file's size + 1 MiB ({far} of them by more than 64 KiB). Peak-RSS rises "
              f"above that bound during `load`: {len(rss)}.", ""]
    lines += ["## Outcomes by strategy", ""]
    rows = []
    for s in sorted(by):
        c = by[s]
        rows.append([f"`{s}`", f"{sum(c.values()):,}"] + [f"{c[o]:,}" for o in outcomes])
    rows.append(["**all**", f"**{len(records):,}**"] + [f"**{total[o]:,}**" for o in outcomes])
    lines += _common.markdown_table(["strategy", "cases", "ModelFileError", "loaded and worked",
                                     "other exception", "loaded, then failed", "crash", "hang"],
                                    rows)
    lines += ["", "Cases by seed model: " + ", ".join(f"{k} {v:,}" for k, v in sorted(seeds_count.items()))
              + ".", ""]
    sizes = [r["size"] for r in records if r.get("size")]
    peaks = [r["peak"] / max(r["size"], 1) for r in records if r.get("size")]
    seconds = sorted(r.get("seconds", 0.0) for r in records)
    rss_pairs = [p for c in chunks for p in c.rss]
    lines += ["## Memory and time", ""]
    if sizes:
        lines += [f"- Files of {min(sizes):,} to {max(sizes):,} bytes (median "
                  f"{int(np.median(sizes)):,}). `tracemalloc`'s peak during `load` over the "
                  f"file's size: median {np.median(peaks):.2f}, 99th percentile "
                  f"{np.percentile(peaks, 99):.2f}, largest {max(peaks):.2f}; {len(mem)} cases "
                  f"over 2x + 1 MiB.",
                  f"- `load`'s time: median {np.median(seconds) * 1000:.2f} ms, 99.9th "
                  f"percentile {np.percentile(seconds, 99.9) * 1000:.1f} ms, longest "
                  f"{seconds[-1] * 1000:.0f} ms (timeout {args.timeout:g} s a case).",
                  f"- Peak RSS of the children: {min(a for a, _ in rss_pairs) / MIB:.0f} to "
                  f"{max(b for _, b in rss_pairs) / MIB:.0f} MiB; its rise over a chunk "
                  "(`ru_maxrss` at the end less at the first case): "
                  + ", ".join(f"{(b - a) / MIB:.1f}" for c in chunks for a, b in c.rss[:1])
                  + " MiB." if rss_pairs else "- No child finished its chunk."]
    lines += [""]
    if failures:
        lines += ["## Crashes, hangs and other exceptions", "",
                  "Grouped by kind, strategy, the mutated field (indices elided), the message's "
                  "first line and where it happened (the innermost frame of `river_forests` in "
                  "the traceback, or in faulthandler's stack of a crash or hang). *Alone*: each "
                  "crash and hang replayed in a fresh process (a crash that does not recur alone "
                  "was caused by an earlier case of the same child, e.g. memory it corrupted). "
                  f"A case reproduces with `python -m benchmarks.fuzz_format --seed {args.seed} "
                  "--replay <case>`.", ""]
        groups: dict = {}
        for r in failures:
            key = (r["outcome"], r["strategy"], field_of(r["detail"]),
                   normalise(r["message"].strip().split("\n")[0]), where(r["message"]))
            groups.setdefault(key, []).append(r)
        rows = []
        for (what, strategy, _, _, at), rs in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
            r = rs[0]
            msg = r["message"].strip().split("\n")[0][:120].replace("|", "\\|")
            alone = collections.Counter(x.get("alone", "") for x in rs if x.get("alone"))
            rows.append([f"{len(rs):,}", what, f"`{strategy}`",
                         r["detail"][:100].replace("|", "\\|"), r["seed"],
                         f"{r['i']}" + (" (mmap)" if r.get("mmap") else ""), msg,
                         f"`{at}`" if at else "",
                         ", ".join(f"{k} {v}" for k, v in alone.most_common())])
        lines += _common.markdown_table(["cases", "failure", "strategy", "example mutation",
                                         "seed model", "example case", "message", "where",
                                         "alone"], rows)
        lines += [""]
    if mem or rss:
        lines += ["## Memory", "",
                  "Cases whose `load` traced more than twice the file's size + 1 MiB "
                  "(`tracemalloc`'s peak), or raised the process's peak RSS by that much, "
                  "grouped by strategy and mutated field (numbers elided).", ""]
        groups = {}
        for r in mem + [r for r in rss if r not in mem]:
            what = "traced" if r in mem else "peak RSS"
            if what == "traced" and r["peak"] <= 2 * r["size"] + MIB + 64 * 1024:
                what = "traced, < 64 KiB over"
            groups.setdefault((what, r["strategy"], field_of(r["detail"])), []).append(r)
        rows = []
        for (what, strategy, _), rs in sorted(groups.items(), key=lambda g: (-len(g[1]), g[0])):
            r = max(rs, key=lambda x: x.get("peak", 0) / max(x["size"], 1))
            rows.append([f"{len(rs):,}", what, f"`{strategy}`", r["detail"][:100].replace("|", "\\|"),
                         r["seed"], r["i"], f"{r['size']:,}", f"{r.get('peak', 0):,}",
                         f"{r.get('rss', 0):,}", r["outcome"]])
        lines += _common.markdown_table(["cases", "over", "strategy", "example mutation (the "
                                         "largest peak over size)", "seed model", "case", "bytes",
                                         "traced peak", "RSS rise", "outcome"], rows)
        lines += [""]
    messages = collections.Counter(normalise(r["message"]) for r in records
                                   if r["outcome"] == "rejected")
    raw = len({r["message"] for r in records if r["outcome"] == "rejected"})
    lines += ["## ModelFileError's messages", "",
              f"{raw:,} distinct messages, {len(messages):,} once numbers and quoted values are "
              "elided; the 20 most frequent:", ""]
    lines += _common.markdown_table(["cases", "message"],
                                    [[f"{n:,}", f"`{m}`"] for m, n in messages.most_common(20)])
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--chunk", type=int, default=2000, help="cases a child process")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="child processes at once")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a case")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--no-confirm", dest="confirm", action="store_false",
                        help="do not replay each crash and hang alone in a fresh process")
    parser.add_argument("--failures", default=None,
                        help="also write every failing case's record to this JSON-lines file")
    parser.add_argument("--replay", type=int, default=None, metavar="CASE",
                        help="run one case in this process and print it")
    parser.add_argument("--child", nargs=4, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    if args.replay is not None:
        import faulthandler

        faulthandler.enable()
        case = make_case(case_rng(args.seed, args.replay))
        _limit_address_space()  # as the children run
        print(f"case {args.replay} of seed {args.seed}: {case.seed}, {case.strategy}, "
              f"{case.detail}, mmap={case.mmap}, {len(case.data):,} bytes", flush=True)
        with tempfile.TemporaryDirectory() as d:
            out = run_case(case, os.path.join(d, "case.rf"))
        print(f"{out.kind} (traced peak {out.peak:,} bytes, RSS rise {out.rss:,}): {out.message}")
        return 1 if out.failed else 0
    version = code_version()
    t0 = time.time()
    bounds = [(s, min(s + args.chunk, args.cases)) for s in range(0, args.cases, args.chunk)]
    chunks = []
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_chunk, args.seed, a, b, args.timeout) for a, b in bounds]
        for k, f in enumerate(futures):
            chunk = f.result()
            chunks.append(chunk)
            bad = sum(r["outcome"] in ("error", "broken", "crash", "hang") for r in chunk.records)
            print(f"[{time.time() - t0:7.0f} s] cases {chunk.start:,}-{chunk.stop:,}: "
                  f"{collections.Counter(r['outcome'] for r in chunk.records)}, {bad} failures",
                  file=sys.stderr, flush=True)
    records = sorted((r for c in chunks for r in c.records), key=lambda r: r["i"])
    if args.confirm:
        confirm(records, args.seed, args.timeout, args.jobs)
    wall = time.time() - t0
    after = code_version()
    same = re.sub(r"commit \w+, ", "", after) == re.sub(r"commit \w+, ", "", version)
    if not same:  # another hand changed the package while the cases ran
        version = f"at the start {version}; **at the end {after}**"
    text = report(records, chunks, args, wall, version)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    if args.failures:
        with open(args.failures, "w") as f:
            for r in records:
                if r["outcome"] in ("error", "broken", "crash", "hang") or \
                        r.get("peak", 0) > 2 * r.get("size", 0) + MIB or \
                        r.get("rss", 0) > 2 * r.get("size", 0) + MIB:
                    f.write(json.dumps(r) + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
