"""Saving and loading without pickle (`river_forests.save` / `load`, `_state`): round trips
bit for bit, the files of every format version kept in tests/data/format<version>, bad
files, memory mapping, and pickling and merging through the same state."""

import errno
import io
import json
import pathlib
import pickle
import struct
import zlib

import numpy as np
import pytest
from river import datasets, drift

import river_forests
from river_forests import ModelFileError
from river_forests._core._mapping import LEASES, Mapping
from river_forests._file import _encode
from river_forests._state import STATE_VERSION, to_state

DATA = pathlib.Path(__file__).parent / "data"
# load(mmap=True) where no file lease can be had (not Linux) reads the file, and says so
pytestmark = pytest.mark.filterwarnings("ignore:.*read into memory, not mapped:RuntimeWarning")
from tests.conftest import ESTIMATORS as _CLASSES

ESTIMATORS = [cls.__name__ for cls in _CLASSES]
SWITCH = 150


def _rows(name, n=500, shift=20.0):
    """Phishing (classifiers) or TrumpApproval, the concept changed at row SWITCH (labels
    flipped, targets up by `shift`), as the fixtures' stream."""
    clf = "Classifier" in name
    data = list(datasets.Phishing() if clf else datasets.TrumpApproval())[:n]
    return [(x, y if i < SWITCH else (not y if clf else y + shift)) for i, (x, y) in enumerate(data)]


def _predict(model, x):
    if "Classifier" in type(model).__name__:
        return model.predict_proba_one(x)
    return model.predict_one(x)


def _mid_warning(name, **params):
    """A model learned until, past the switch, a background tree is learning (detectors
    mid-warning), and the rows after that point."""
    model = getattr(river_forests, name)(n_estimators=3, seed=3, **params)
    # targets up by 100: the stream-partitioning forest's linear leaves follow a shift of 20
    # within a few rows, and its detectors do not warn of it
    data = _rows(name, shift=100.0)
    for i, (x, y) in enumerate(data[:400]):
        model.learn_one(x, y)
        if i >= SWITCH and any(b is not None for b in model._core.watch.background):
            return model, data[i + 1:]
    return model, data[400:]


DETECTORS = {
    "none": {},
    "adwin": {"drift_detector": drift.ADWIN(delta=0.01), "warning_detector": drift.ADWIN(delta=0.3)},
}


def _same_stream(a, b, rows):
    """Both models predict every row alike (to the bit), then learn it."""
    for x, y in rows:
        assert _predict(a, x) == _predict(b, x)
        a.learn_one(x, y)
        b.learn_one(x, y)


@pytest.mark.parametrize("detectors", sorted(DETECTORS))
@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.parametrize("mmap", [False, True])
def test_a_loaded_model_predicts_and_learns_as_the_saved_one(name, detectors, mmap, tmp_path):
    model, rest = _mid_warning(name, **DETECTORS[detectors])
    if detectors == "adwin":
        assert any(b is not None for b in model._core.watch.background), "not mid-warning"
    path = tmp_path / "model.rf"
    size = river_forests.save(model, path)
    assert size == path.stat().st_size
    loaded = river_forests.load(path, mmap=mmap)
    assert type(loaded) is type(model)
    assert loaded._get_params().keys() == model._get_params().keys()
    if mmap and LEASES:  # the trees read the file's pages until the forest first learns
        assert loaded._core.borrows
        assert all(t.borrowed is not None for t in loaded.trees)
    _same_stream(model, loaded, rest[:60])
    assert not loaded._core.borrows
    assert loaded.drifts_per_tree == model.drifts_per_tree
    assert loaded.n_nodes == model.n_nodes


@pytest.mark.parametrize("name", ["MondrianForestClassifier", "XForestRegressor"])
def test_a_detector_that_runs_in_python_is_saved_with_its_state(name, tmp_path):
    detector = drift.binary.DDM(warm_start=20) if "Classifier" in name else drift.PageHinkley(threshold=5.0)
    model, rest = _mid_warning(name, drift_detector=detector)
    assert not model._core.watch.compiled
    river_forests.save(model, tmp_path / "m.rf")
    loaded = river_forests.load(tmp_path / "m.rf")
    ours = model._core.watch.state()["watch"]["python"][0]
    theirs = loaded._core.watch.state()["watch"]["python"][0]
    assert [vars(d).keys() for d in ours] == [vars(d).keys() for d in theirs]
    assert ours[0] is not theirs[0]
    _same_stream(model, loaded, rest[:60])
    assert loaded.drifts_per_tree == model.drifts_per_tree


def test_a_batch_forest_keeps_its_buffered_rows(tmp_path):
    model = river_forests.XForestClassifier(n_estimators=3, seed=1, batch_size=50)
    data = _rows("XForestClassifier")
    for x, y in data[:120]:  # 20 rows buffered
        model.learn_one(x, y)
    assert model._core.n_pending == 20
    river_forests.save(model, tmp_path / "m.rf")
    loaded = river_forests.load(tmp_path / "m.rf")
    assert loaded._core.n_pending == 20
    _same_stream(model, loaded, data[120:220])


@pytest.mark.parametrize("name", ESTIMATORS)
def test_pickling_goes_through_the_state_and_names_no_compiled_class(name):
    model, rest = _mid_warning(name, **DETECTORS["adwin"])
    blob = pickle.dumps(model)
    assert b"river_forests._core" not in blob
    assert b"from_state" in blob
    _same_stream(model, pickle.loads(blob), rest[:30])


@pytest.mark.parametrize("name", ["MondrianForestClassifier", "BSPForestRegressor",
                                  "StreamPartitionForestClassifier", "XForestClassifier"])
def test_a_file_is_no_bigger_than_the_pickle(name, tmp_path):
    model, _ = _mid_warning(name, **DETECTORS["adwin"])
    assert river_forests.save(model, tmp_path / "m.rf") <= 1.1 * len(pickle.dumps(model))


def test_loading_runs_no_pickle(tmp_path, monkeypatch):
    model, rest = _mid_warning("MondrianForestClassifier", **DETECTORS["adwin"])
    river_forests.save(model, tmp_path / "m.rf")

    def refuse(*args, **kwargs):
        raise AssertionError("the loader unpickled something")

    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    monkeypatch.setattr(np, "load", refuse)
    loaded = river_forests.load(tmp_path / "m.rf")
    _same_stream(model, loaded, rest[:20])


def test_the_file_is_a_safetensors_file_with_its_metadata(tmp_path):
    model, _ = _mid_warning("PurelyRandomForestRegressor")
    path = tmp_path / "m.rf"
    river_forests.save(model, path)
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    assert (8 + n) % 8 == 0
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__")
    assert meta["format"] == "river-forests" and meta["format_version"] == str(STATE_VERSION)
    assert meta["estimator"] == "PurelyRandomForestRegressor"
    assert meta["package_version"] == river_forests.__version__
    assert json.loads(meta["params"])["n_estimators"] == 3
    assert river_forests._file.read_header(path) == meta
    # the arrays tile the data; the state is zlib-compressed JSON naming the parameters
    ends = sorted(tuple(e["data_offsets"]) for e in header.values())
    assert ends[0][0] == 0 and ends[-1][1] == len(raw) - 8 - n
    assert all(a[1] == b[0] for a, b in zip(ends, ends[1:]))
    begin, end = header["state"]["data_offsets"]
    state = json.loads(zlib.decompress(raw[8 + n + begin:8 + n + end]))
    assert state["estimator"] == "PurelyRandomForestRegressor"
    assert state["params"]["n_estimators"] == 3


# ---------------------------------------------------------------- files of earlier releases


#: the files of each format version, kept for every later release (tests/data/make_fixtures.py)
FORMATS = sorted(int(p.name[6:]) for p in DATA.glob("format*") if p.is_dir())
EXPECTED = {v: json.loads((DATA / f"format{v}" / "expected.json").read_text()) for v in FORMATS}
FIXTURES = [(v, p.stem) for v in FORMATS for p in sorted((DATA / f"format{v}").glob("*.rf"))]


@pytest.mark.parametrize("version", FORMATS)
def test_every_estimator_has_a_file_of_each_format(version):
    names = sorted(p.stem for p in (DATA / f"format{version}").glob("*.rf"))
    assert sorted(EXPECTED[version]) == names
    assert set(ESTIMATORS) <= set(names)


def test_the_current_format_has_its_files():
    assert FORMATS[0] == 1 and FORMATS[-1] == STATE_VERSION


@pytest.mark.parametrize("version,name", FIXTURES)
@pytest.mark.parametrize("mmap", [False, True])
def test_a_file_of_an_earlier_format_loads_and_predicts_as_it_did(version, name, mmap):
    """The files each release that wrote a format version saved (tests/data/make_fixtures.py)
    load in every later release, and predict and go on learning exactly as they did; from
    format 2 on, with the feature importances they reported."""
    model = river_forests.load(DATA / f"format{version}" / f"{name}.rf", mmap=mmap)
    want = EXPECTED[version][name]
    if "importances" in want:
        assert model.feature_importances == want["importances"]
    assert sum(b is not None for b in model._core.watch.background) == want["background_trees"] > 0
    data = _rows(name)
    at = want["saved_at"]

    def check(got, expected):
        if isinstance(expected, dict):
            assert {str(k): v for k, v in got.items()} == expected
        else:
            assert got == expected

    check_rows = data[at:at + len(want["predictions"])]
    for (x, _), expected in zip(check_rows, want["predictions"]):
        check(_predict(model, x), expected)
    for x, y in check_rows:
        model.learn_one(x, y)
    after = data[at + len(check_rows):at + len(check_rows) + len(want["after_learning"])]
    for (x, _), expected in zip(after, want["after_learning"]):
        check(_predict(model, x), expected)


# ---------------------------------------------------------------- bad files


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    model, rest = _mid_warning("MondrianForestClassifier", **DETECTORS["adwin"])
    path = tmp_path_factory.mktemp("saved") / "m.rf"
    river_forests.save(model, path)
    return model, path.read_bytes(), rest


def _load_bytes(raw, tmp_path, mmap=False):
    path = tmp_path / "bad.rf"
    path.write_bytes(raw)
    return river_forests.load(path, mmap=mmap)


def _rewrite(state, tmp_path):
    """`state` written as a whole, valid file (a correct checksum): what a crafted file is."""
    from river_forests import _state

    model = river_forests.MondrianForestClassifier(n_estimators=1)
    original = _state.to_state
    _state.to_state = lambda m, strict=True: state
    try:
        path = tmp_path / "crafted.rf"
        river_forests.save(model, path)
    finally:
        _state.to_state = original
    return path


def test_a_truncated_file_is_refused(saved, tmp_path):
    _, raw, _ = saved
    for cut in sorted({0, 1, 7, 8, 9, 100, len(raw) // 3, len(raw) // 2, len(raw) - 1}):
        with pytest.raises(ModelFileError):
            _load_bytes(raw[:cut], tmp_path)


def test_a_flipped_bit_is_refused(saved, tmp_path):
    _, raw, _ = saved
    rng = np.random.default_rng(0)
    for pos in rng.integers(0, len(raw), 40):
        flipped = bytearray(raw)
        flipped[pos] ^= 1 << int(rng.integers(8))
        with pytest.raises(ModelFileError):
            _load_bytes(bytes(flipped), tmp_path)


def test_a_newer_format_says_to_upgrade(saved, tmp_path):
    _, raw, _ = saved
    n = struct.unpack("<Q", raw[:8])[0]
    header = raw[8:8 + n].replace(f'"format_version":"{STATE_VERSION}"'.encode(), b'"format_version":"9"')
    assert len(header) == n
    with pytest.raises(ModelFileError, match="newer than this river_forests reads"):
        _load_bytes(raw[:8] + header + raw[8 + n:], tmp_path)
    state = to_state(saved[0])
    state["version"] = 9
    with pytest.raises(ModelFileError, match="upgrade river_forests"):
        river_forests.from_state(state)


def _safetensors(metadata: dict) -> bytes:
    header = json.dumps({"__metadata__": metadata}).encode()
    return len(header).to_bytes(8, "little") + header


#: files that are no model at all -> what the message says beside "not a river-forests model file"
NOT_A_MODEL = {
    "empty": (b"", "empty"),
    "a pickle": (pickle.dumps(river_forests.MondrianForestClassifier(n_estimators=1)), "pickle"),
    "a text file": (b"label,x\n1,0.5\n" * 20, "begins with"),
    "a short file": (b"abc", "begins with"),
    "JSON after a length": ((10).to_bytes(8, "little") + b"{}" + b" " * 8, "begins with"),
    "a safetensors file of another library": (_safetensors({"format": "pt"}), "names the format 'pt'"),
}


@pytest.mark.parametrize("case", sorted(NOT_A_MODEL))
@pytest.mark.parametrize("read", ["load", "read_header"])
def test_a_file_that_is_no_model_says_so_and_names_the_path(case, read, tmp_path):
    """Not "a header of 1,123,630,253,184 bytes" (a pickle's first 8 bytes read as a length):
    "not a river-forests model file", after the path the user gave."""
    from river_forests import _file

    raw, why = NOT_A_MODEL[case]
    path = tmp_path / "model.pkl"
    path.write_bytes(raw)
    with pytest.raises(ModelFileError) as error:
        getattr(_file, read)(path)
    message = str(error.value)
    assert message.startswith(f"{path}: not a river-forests model file")
    assert why in message and "bytes in a file of" not in message
    assert error.value.path == path


def test_a_damaged_model_file_is_corrupt_or_truncated_and_names_the_path(saved, tmp_path):
    _, raw, _ = saved
    path = tmp_path / "bad.rf"
    for damaged in (raw[:12], raw[:100], raw[:len(raw) // 2], raw[:-3] + b"xyz",
                    raw[:8] + raw[8:20].replace(b"metadata", b"METADATA") + raw[20:]):
        path.write_bytes(damaged)
        with pytest.raises(ModelFileError) as error:
            river_forests.load(path)
        message = str(error.value)
        assert message.startswith(f"{path}: "), message
        assert "corrupt" in message or "truncated" in message, message
        assert "not a river-forests model file" not in message


def test_a_file_that_cannot_be_opened_names_the_path(tmp_path):
    missing = tmp_path / "missing.rf"
    with pytest.raises(ModelFileError, match=f"^{missing}: cannot open the file: No such file"):
        river_forests.load(missing)
    with pytest.raises(ModelFileError, match=f"^{tmp_path}: cannot open the file"):
        river_forests.load(tmp_path)  # a folder


def test_a_file_of_another_format_is_refused(tmp_path):
    for raw in (b"", b"\x80\x04\x95" + b"x" * 64, (10).to_bytes(8, "little") + b"{}" + b" " * 8,
                (2).to_bytes(8, "little") + b"{}"):
        with pytest.raises(ModelFileError):
            _load_bytes(raw, tmp_path)
    with pytest.raises(ModelFileError, match="cannot open"):
        river_forests.load(tmp_path / "missing.rf")


def test_saving_into_a_missing_folder_names_the_path_not_a_temporary_file(saved, tmp_path):
    import traceback

    model = saved[0]
    path = tmp_path / "no such folder" / "model.rf"
    with pytest.raises(FileNotFoundError) as error:
        river_forests.save(model, path)
    told = "".join(traceback.format_exception(error.value))
    assert error.value.filename == str(path) and str(path) in str(error.value)
    assert f"the folder {path.parent} does not exist" in str(error.value)
    assert ".tmp" not in told  # not the temporary file's name, not even in the chain
    assert not path.parent.exists()


@pytest.mark.parametrize("failure", ["a folder in the way", "disk full", "interrupted"])
def test_a_failed_save_leaves_no_temporary_file(saved, tmp_path, monkeypatch, failure):
    """Whatever stops a save, the temporary file goes, and a file already at the path is
    left as it was (the rename is the last step)."""
    from river_forests import _file

    model = saved[0]
    path = tmp_path / "model.rf"
    if failure == "a folder in the way":
        path.mkdir()
        with pytest.raises(IsADirectoryError, match=f"cannot save the model: .*'{path}'"):
            river_forests.save(model, path)
        assert sorted(tmp_path.iterdir()) == [path] and path.is_dir()
        return
    path.write_bytes(b"the model served now")

    def fail(*args):  # at the rename, once the temporary file is written
        if failure == "interrupted":
            raise KeyboardInterrupt
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_file.os, "replace", fail)
    with pytest.raises(KeyboardInterrupt if failure == "interrupted" else OSError) as error:
        river_forests.save(model, path)
    if failure == "disk full":
        assert error.value.filename == str(path) and "No space left" in str(error.value)
    assert sorted(tmp_path.iterdir()) == [path]
    assert path.read_bytes() == b"the model served now"


def _tree(state, k=0):
    return state["core"]["trees"][k]


CRAFTED = {
    "a child out of range": (lambda s: _tree(s)["left"].__setitem__(_inner(s), 10**6),
                             "out of range"),
    "a cycle": (lambda s: _tree(s)["right"].__setitem__(_inner(s), _tree(s)["root"]),
                "child of no node or of several|cycle|out of range"),
    "shapes that disagree": (lambda s: _tree(s).__setitem__("lower", _tree(s)["lower"][:-1]),
                             "must be float32 of shape"),
    "a count that would allocate terabytes": (
        lambda s: _tree(s).__setitem__("n_features", 2**30), "out of range|must lie"),
    "a huge node count": (lambda s: _tree(s).__setitem__("n_values", 2**31 - 1),
                          "out of range|more classes|must lie"),
    "NaN in a box": (lambda s: _tree(s)["lower"].__setitem__((1, 0), np.nan), "holds NaN"),
    "a cut on a column the forest lacks": (
        lambda s: _tree(s)["feature"].__setitem__(_inner(s), 999), "column"),
    "an unknown tree kind": (lambda s: _tree(s).__setitem__("kind", "os.system"),
                             "grows MondrianTrees"),
    "an unknown estimator": (lambda s: s.__setitem__("estimator", "Pickler"), "unknown estimator"),
    "a parameter too many": (lambda s: s["params"].__setitem__("evil", 1), "parameters must be"),
    "a bad parameter": (lambda s: s["params"].__setitem__("n_estimators", -1), "n_estimators"),
    "a detector of another library": (
        lambda s: s["params"].__setitem__("drift_detector", {"$river": "os:system", "params": {}}),
        "not a class of river's"),
    "trees fewer than n_estimators": (
        lambda s: s["core"]["trees"].pop(), "as many tree states|as long as"),
    "a buffered row wider than the registry": (
        lambda s: s["core"]["forest"].update(pending_rows=[np.zeros(10**4)], pending_targets=[1],
                                             batch_size=5), "buffered"),
}


def _inner(state):
    left = _tree(state)["left"]
    return int(np.flatnonzero(left >= 0)[0])


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_crafted_state_is_refused_with_a_clear_message(saved, case, tmp_path):
    model = saved[0]
    state = to_state(model)
    mutate, message = CRAFTED[case]
    mutate(state)
    with pytest.raises(ModelFileError, match=message):
        river_forests.from_state(state)
    with pytest.raises(ModelFileError, match=message):
        river_forests.load(_rewrite(state, tmp_path))


def test_a_refused_load_leaves_nothing_behind(saved, tmp_path):
    """The model given to `save` is unchanged, and a failed load touches no model."""
    model, raw, rest = saved
    before = [_predict(model, x) for x, _ in rest[:10]]
    with pytest.raises(ModelFileError):
        _load_bytes(raw[:-3], tmp_path)
    assert [_predict(model, x) for x, _ in rest[:10]] == before


# ---------------------------------------------------------------- memory mapping


@pytest.mark.skipif(not LEASES, reason="a mapping is served under a file lease, Linux's; "
                    "elsewhere load(mmap=True) reads the file, with a warning")
def test_a_mapped_model_reads_its_arrays_from_the_file(saved, tmp_path):
    model, raw, rest = saved
    loaded = _load_bytes(raw, tmp_path, mmap=True)
    tree = loaded.trees[0]
    state = tree.borrowed
    # the tree's arrays are views of the mapping, not copies
    for name in ("left", "lower", "value"):
        base = state[name]
        while getattr(base, "base", None) is not None:
            base = base.base
        base = base.obj if isinstance(base, memoryview) else base
        assert isinstance(base, Mapping) and base.state == "mapped", name
    # the mapping is private: predicting writes nothing to the file
    for x, _ in rest[:50]:
        loaded.predict_proba_one(x)
    assert (tmp_path / "bad.rf").read_bytes() == raw
    # a tree that borrows refuses to change by itself
    with pytest.raises(RuntimeError, match="memory-mapped"):
        tree.learn_rows(np.zeros((1, 9)), np.zeros(1))
    # the forest gives its trees memory of their own first
    x, y = rest[0]
    loaded.learn_one(x, y)
    assert all(t.borrowed is None for t in loaded.trees)
    assert (tmp_path / "bad.rf").read_bytes() == raw


def test_merge_of_loaded_models(tmp_path):
    """merge goes through the same state: a merge of mapped models is a merge of their
    copies."""
    data = _rows("MondrianForestClassifier")
    parts = []
    for seed in (1, 2):
        m = river_forests.MondrianForestClassifier(n_estimators=2, seed=seed)
        for x, y in data[:100 * seed]:
            m.learn_one(x, y)
        river_forests.save(m, tmp_path / f"{seed}.rf")
        parts.append(m)
    mapped = [river_forests.load(tmp_path / f"{seed}.rf", mmap=True) for seed in (1, 2)]
    a, b = river_forests.merge(parts), river_forests.merge(mapped)
    _same_stream(a, b, data[300:360])
    assert all(m._core.borrows == LEASES for m in mapped)  # merging did not change them


# ---------------------------------------------------------------- parameters by public name


def _tree_states(state):
    core = state["core"]
    return core["trees"] + [b for b in core["forest"]["background"] if b is not None]


@pytest.mark.parametrize("name", ESTIMATORS)
def test_a_saved_tree_holds_no_parameter_and_learning_never_changes_one(name):
    """Format 3: a parameter is saved once, by its public name (``params``); the trees'
    states leave out the compiled parameters it gives them. That is lossless only if no
    tree changes a parameter it was built with as it learns: checked on every tree and
    background tree of a model mid-warning, under a memory budget."""
    from river_forests._state import core_state

    model, _ = _mid_warning(name, memory_budget="2MB", **DETECTORS["adwin"])
    given = model._tree_params()
    assert given  # every kind's trees take parameters
    full = core_state(model)
    trees = full["trees"] + [b for b in full["forest"]["background"] if b is not None]
    assert len(trees) > model.n_estimators  # a background tree is learning
    for t in trees:
        for key, value in given.items():
            assert t[key] == value, (key, t[key], value)
    for t in _tree_states(to_state(model)):
        assert not set(t) & set(given), sorted(set(t) & set(given))


def test_a_tree_that_was_built_otherwise_than_its_parameters_say_loads_as_it_was(tmp_path):
    """A format-2 tree state holds its compiled parameters; one that differs from what the
    model's parameters give (a model migrated from an older release) wins at load, and is
    saved again with the tree."""
    model, rest = _mid_warning("MondrianForestRegressor")
    state = to_state(model)
    assert state["version"] == 3
    old = dict(state, version=2)
    old["core"] = dict(state["core"], trees=[dict(t, **model._tree_params())
                                             for t in state["core"]["trees"]])
    old["core"]["trees"][1]["lifetime_scale"] = 0.25  # as no parameter would give it
    loaded = river_forests._state.from_state(old)
    assert loaded._core.trees[1].get_state()["lifetime_scale"] == 0.25
    assert loaded._core.trees[0].get_state()["lifetime_scale"] == model.growth_scale
    again = to_state(loaded)
    assert again["core"]["trees"][1]["lifetime_scale"] == 0.25
    assert "lifetime_scale" not in again["core"]["trees"][0]
    # the format-2 state without the odd tree is the same model as the format-3 one
    old["core"]["trees"][1]["lifetime_scale"] = model.growth_scale
    twin = river_forests._state.from_state(old)
    _same_stream(model, twin, rest[:30])


@pytest.mark.parametrize("kind,key,value", [
    ("BSPForestClassifier", "max_pairs", 0), ("BSPForestClassifier", "max_hull_vertices", 2),
    ("StreamPartitionForestClassifier", "splitter", 5),
    ("StreamPartitionForestClassifier", "candidate_points", 0),
    ("XForestClassifier", "criterion", 7), ("XForestRegressor", "min_samples_split", 0),
    ("PurelyRandomForestRegressor", "pool_size", -1), ("MondrianForestRegressor", "coef_cols", -1),
    ("MondrianForestClassifier", "subsample_mode", 3), ("MondrianForestClassifier", "n_seen", -1),
])
def test_a_tree_scalar_outside_its_declared_range_is_refused(kind, key, value):
    """Each tree scalar's range is part of its declaration (`declare_scalar`), and a state
    with a value outside it is refused, naming the scalar and the range."""
    model, _ = _mid_warning(kind)
    tree = model._core.trees[0]
    state = tree.get_state()
    tree.check_state(state)
    with pytest.raises(ValueError, match=f"'{key}' must lie in \\["):
        tree.check_state(dict(state, **{key: value}))
