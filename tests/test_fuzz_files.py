"""Bad model files: every one raises `river_forests.ModelFileError`, never another exception,
and a file that loads gives a model that works.

Hypothesis draws 1,000 cases (derandomized: the same ones every run) of the mutations that
`benchmarks/fuzz_format.py` defines and runs 100,000 times (``python -m
benchmarks.fuzz_format``): a saved file's bytes truncated, flipped, overwritten, inserted
into or deleted from; crafted headers with a right checksum; and, most of them, a model's
state with one thing changed (a node array's element, a scalar, an array's shape, a key, a
list, a pool's blocks, the links between nodes, a forest-level field) written back as a
valid file. Each case is loaded (a quarter memory-mapped); what loads must predict, learn
rows and a batch, and give its state again. A crash kills pytest: the case it died on is in
``$TMPDIR/river_forests_fuzz_case.txt`` (its file beside it, ``.rf``). Then the crafted
files the requirement names (truncated, bit-flipped, a newer version, shapes that disagree,
children out of range or in a cycle, counts that would allocate terabytes, NaN in a box),
each on every seed model it applies to, and what `load` allocates (at most twice the file's
size + 1 MiB of Python's and numpy's memory).
"""

from __future__ import annotations

import copy
import math
import os
import tempfile
import tracemalloc
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

import river_forests
from river_forests._state import STATE_VERSION
from benchmarks import fuzz_format as fuzz

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: where the case being loaded is described, so that a crash (which ends pytest) names it
LAST_CASE = Path(tempfile.gettempdir()) / "river_forests_fuzz_case.txt"

FUZZ = dict(deadline=None, derandomize=True, database=None, print_blob=False,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                   HealthCheck.large_base_example])


class HypothesisChooser(fuzz.Chooser):
    """The mutations' decisions drawn by hypothesis (which shrinks a failing case to its
    simplest decisions)."""

    def __init__(self, data):
        self.data = data

    def below(self, n: int) -> int:
        return self.data.draw(st.integers(0, n - 1))

    def some_bytes(self, n: int) -> bytes:
        return self.data.draw(st.binary(min_size=n, max_size=n))


class FirstChooser(fuzz.Chooser):
    """Always the first option: a mutation's plainest form (`test_crafted`'s cycle)."""

    def below(self, n: int) -> int:
        return 0


@pytest.fixture(scope="module")
def seeds():
    return fuzz.seeds()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def check(case: fuzz.Case, seeds, workdir) -> fuzz.Outcome:
    """Load `case`'s file and exercise what loads; fail unless it was rejected with
    ModelFileError or loaded and worked."""
    LAST_CASE.write_text(f"{case.seed}, {case.strategy}, mmap={case.mmap}: {case.detail}\n")
    LAST_CASE.with_suffix(".rf").write_bytes(case.data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fuzz.run_case(case, workdir / "case.rf", seeds, measure=False)
    assert out.kind in ("rejected", "loaded"), (
        f"{case.seed}, {case.strategy} ({case.detail}), mmap={case.mmap}: "
        f"{'load raised' if out.kind == 'error' else 'the loaded model failed'}\n{out.message}")
    return out


# ------------------------------------------------------------------------------ the seeds

def test_the_helper_writes_what_save_writes_and_every_seed_loads(seeds, workdir):
    """`fuzz.state_file` (the mutated states' writer) mirrors `save`; every seed model's
    file loads, both ways, and works."""
    assert len(seeds) >= 12
    for seed in seeds.values():
        if "@" not in seed.label:  # the version-0 seed was not written by save
            assert fuzz.state_file(seed.state) == seed.file, seed.label
        for mmap in (False, True):
            out = check(fuzz.Case(seed.label, "seed", "", seed.file, mmap), seeds, workdir)
            assert out.kind == "loaded", f"{seed.label} (mmap={mmap}): {out.message}"


# ------------------------------------------------------------------------------ fuzzing

@settings(max_examples=250, **FUZZ)
@given(data=st.data())
def test_a_file_with_bytes_changed_raises_model_file_error(data, seeds, workdir):
    check(fuzz.make_case(HypothesisChooser(data), seeds, "byte"), seeds, workdir)


@settings(max_examples=150, **FUZZ)
@given(data=st.data())
def test_a_crafted_header_raises_model_file_error(data, seeds, workdir):
    check(fuzz.make_case(HypothesisChooser(data), seeds, "header"), seeds, workdir)


@settings(max_examples=600, **FUZZ)
@given(data=st.data())
def test_a_state_with_one_thing_changed_loads_and_works_or_raises_model_file_error(
        data, seeds, workdir):
    check(fuzz.make_case(HypothesisChooser(data), seeds, "state"), seeds, workdir)


# ------------------------------------------------------------------------------ named cases

def _flip_data(seed):
    data = bytearray(seed.file)
    at = (fuzz.header_end(seed.file) + len(data)) // 2
    data[at] ^= 0x10
    return bytes(data)


def _newer_version(seed):
    entries, blobs = fuzz.layout(seed.arrays)
    meta = dict(fuzz.meta_for(seed.state, blobs), format_version=str(STATE_VERSION + 1))
    return fuzz.assemble(meta, entries, blobs)


def _tree(state):
    return fuzz.get_in(state, fuzz.tree_paths(state)[0])


def _shapes_disagree(state):
    tree = _tree(state)
    tree["right"] = tree["right"][:-1]


def _child_out_of_range(state):
    tree = _tree(state)
    inner = np.flatnonzero(tree["left"] >= 0)
    if not len(inner):
        pytest.skip("a tree of one leaf")
    tree["left"][inner[0]] = len(tree["left"])


def _cycle(state):
    detail = fuzz.mutate_links(FirstChooser(), state)
    if "cycle" not in detail:
        pytest.skip("no tree deep enough for a cycle")


def _terabytes(state):
    """A tree that claims 2**24 statistics a node for its arrays of 2."""
    _tree(state)["n_values"] = 2**24


def _pool_terabytes(state):
    """A pool block that claims 2**31 - 1 rows."""
    tree = _tree(state)
    pools = [k[:-len("_rows")] for k in tree if k.endswith("_rows") and len(tree[k])]
    tree[pools[0] + "_rows"][0] = 2**31 - 1


def _nan_in_box(state):
    tree = _tree(state)
    tree["lower"][tree["root"], 0] = math.nan


def _nan_in_weight(state):
    tree = _tree(state)
    tree["weight"][tree["root"]] = math.nan


def _state(change):
    def make(seed):
        state = copy.deepcopy(seed.state)
        change(state)
        return fuzz.state_file(state)
    return make


CRAFTED = {
    "truncated-in-header": lambda seed: seed.file[:fuzz.header_end(seed.file) // 2],
    "truncated-in-data": lambda seed: seed.file[:-1],
    "bit-flipped": _flip_data,
    "newer-version": _newer_version,
    "shapes-disagree": _state(_shapes_disagree),
    "child-out-of-range": _state(_child_out_of_range),
    "cycle": _state(_cycle),
    "terabytes-of-statistics": _state(_terabytes),
    "terabytes-in-a-pool": _state(_pool_terabytes),
    "nan-in-a-box": _state(_nan_in_box),
    "nan-in-a-weight": _state(_nan_in_weight),
}
SEED_LABELS = sorted(fuzz.seeds())


def _applies(name: str, state) -> bool:
    """Whether the crafted change `name` has something to change in the seed's state: a
    pool for a pool's claim, boxes for a NaN in a box."""
    tree = _tree(state)
    if name == "terabytes-in-a-pool":
        return any(k.endswith("_rows") and len(tree[k]) for k in tree)
    if name == "nan-in-a-box":
        return "lower" in tree
    return True


@pytest.mark.parametrize("label,name", [(label, name) for name in sorted(CRAFTED)
                                        for label in SEED_LABELS
                                        if _applies(name, fuzz.seeds()[label].state)])
def test_crafted(label, name, seeds, workdir):
    """The bad files the requirement names are refused, with ModelFileError."""
    seed = seeds[label]
    case = fuzz.Case(label, f"crafted:{name}", name, CRAFTED[name](seed), False)
    out = check(case, seeds, workdir)
    assert out.kind == "rejected", f"{label}: the {name} file loaded"
    assert out.message


# ------------------------------------------------------------------------------ memory

def _inflating(seed, pad):
    """The seed's file with its state's JSON padded with `pad` spaces: a valid file whose
    state inflates far past its size."""
    arrays = dict(seed.arrays)
    text = zlib.decompress(arrays["state"].tobytes())
    arrays["state"] = np.frombuffer(zlib.compress(text + b" " * pad, 9), dtype=np.uint8)
    entries, blobs = fuzz.layout(arrays)
    return fuzz.assemble(fuzz.meta_for(seed.state, blobs), entries, blobs)


def _nested(seed, depth):
    arrays = dict(seed.arrays)
    arrays["state"] = np.frombuffer(zlib.compress(b"[" * depth + b"]" * depth, 9), dtype=np.uint8)
    entries, blobs = fuzz.layout(arrays)
    return fuzz.assemble(fuzz.meta_for(seed.state, blobs), entries, blobs)


MEMORY = {"as saved": lambda seed: seed.file,
          "state inflating to 8 MiB": lambda seed: _inflating(seed, 8 << 20),
          "state inflating to 64 MiB": lambda seed: _inflating(seed, 64 << 20),
          "state nested 10**6 deep": lambda seed: _nested(seed, 10**6)}


@pytest.mark.parametrize("name", sorted(MEMORY))
@pytest.mark.parametrize("label", ["MondrianForestClassifier", "XForestClassifier",
                                   "BSPForestRegressor"])
def test_load_allocates_at_most_twice_the_file(label, name, seeds, workdir):
    """What `load` allocates through Python and numpy (tracemalloc's peak; the trees' own
    memory is malloc's, unseen) stays within twice the file's size + 1 MiB, whatever the
    file says."""
    seed = seeds[label]
    data = MEMORY[name](seed)
    path = workdir / "memory.rf"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        river_forests.load(path)
    except river_forests.ModelFileError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        os.remove(path)
    assert peak <= 2 * len(data) + (1 << 20), \
        f"{label}, {name}: load's peak {peak:,} bytes for a file of {len(data):,}"
