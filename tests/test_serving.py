"""Serving a memory-mapped model (`river_forests.load(path, mmap=True)`, `_core/_mapping.pyx`):
a server process answers as the model it loaded, and stays alive, whatever another process does
to the file it maps: copies another model over it (`cp`, `shutil.copyfile`), truncates it, or
writes bytes into it. Every estimator, each in a server of its own process, as a deploy would
meet it; a forked worker too. Where no lease can be had, the model is read, with a warning."""

import json
import os
import shutil
import subprocess
import sys
import warnings

import pytest
from river import datasets

import river_forests
from river_forests._core import _mapping

from .conftest import ESTIMATORS, is_classifier, name_of

pytestmark = pytest.mark.skipif(not _mapping.LEASES, reason="file leases are Linux's: elsewhere "
                                "a mapped load reads the file, with a warning (test_save_load)")

# The server: maps every model named on its command line, then answers each line of its input
# with the models' predictions of the rows in ROWS (and the state of each model's mapping).
SERVER = r"""
import json, os, sys, warnings
warnings.simplefilter("error", RuntimeWarning)  # a load that could not map fails the test
import river_forests
from river_forests._core._mapping import Mapping

def mapping_of(model):
    for tree in model.trees:
        for a in (tree.borrowed or {}).values():
            while getattr(a, "base", None) is not None:
                a = a.base
            a = a.obj if isinstance(a, memoryview) else a
            if isinstance(a, Mapping):
                return a

rows = json.load(open(sys.argv[1]))
models = [river_forests.load(p, mmap=True) for p in sys.argv[2:]]
maps = [mapping_of(m) for m in models]

def answer():
    out = []
    for m in models:
        f = m.predict_proba_one if hasattr(m, "predict_proba_one") else m.predict_one
        ps = [f(x) for x in rows]
        out.append([sorted(p.items(), key=str) if isinstance(p, dict) else p for p in ps])
    return {"pid": os.getpid(), "predictions": out,
            "states": [mp.state if mp is not None else None for mp in maps]}

for line in sys.stdin:
    if line.strip() == "fork":
        pid = os.fork()
        if pid:  # the parent stops answering: the child serves from here on
            print(json.dumps({"child": pid}), flush=True)
            os.waitpid(pid, 0)
            break
        continue
    print(json.dumps(answer()), flush=True)
"""


def _rows(cls, n):
    data = datasets.Phishing() if is_classifier(cls) else datasets.TrumpApproval()
    return [(x, y) for (x, y), _ in zip(data, range(n))]


def _trained(cls, seed, start, n):
    model = cls(n_estimators=3, seed=seed)
    for x, y in _rows(cls, start + n)[start:]:
        model.learn_one(x, y)
    return model


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Per estimator: the served model's file, another model's file (the deploy), and the
    rows the server is asked to predict."""
    root = tmp_path_factory.mktemp("serving")
    out = {}
    for cls in ESTIMATORS:
        served, other = _trained(cls, 1, 0, 300), _trained(cls, 2, 100, 200)
        river_forests.save(served, root / f"{name_of(cls)}.rf")
        river_forests.save(other, root / f"{name_of(cls)}.new.rf")
        probe = [x for x, _ in _rows(cls, 340)[300:]]
        out[cls] = root / f"{name_of(cls)}.rf", root / f"{name_of(cls)}.new.rf", probe
    return out


class Server:
    def __init__(self, rows_path, paths):
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(rows_path), *map(str, paths)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)

    def ask(self, line="go"):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            self.proc.wait(timeout=30)
            raise AssertionError(f"the server died (exit {self.proc.returncode}): "
                                 f"{self.proc.stderr.read()[-2000:]}")
        return json.loads(reply)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        assert self.proc.returncode == 0, self.proc.stderr.read()[-2000:]


def _copy_over(path, other):
    shutil.copyfile(other, path)  # opens the served file to write: O_TRUNC, then the new bytes


def _cp_over(path, other):
    subprocess.run(["cp", str(other), str(path)], check=True, timeout=60)


def _truncate(path, other):
    os.truncate(path, 100)


def _write_bytes(path, other):
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        for at in range(size // 7, size, max(1, size // 13)):
            f.seek(at)
            f.write(os.urandom(min(64, size - at)))


MUTATIONS = [_copy_over, _cp_over, _truncate, _write_bytes]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("task", ["classifiers", "regressors"])
def test_a_served_model_survives_its_file_changing(files, mutate, task, tmp_path):
    """One server a task maps every estimator's model; each file is changed under it; the
    server goes on answering, the same to the bit, from copies of its own."""
    out = files
    classes = [c for c in ESTIMATORS if is_classifier(c) == (task == "classifiers")]
    paths = []
    for cls in classes:  # a copy a test: the mutations must not reach the other tests
        path = tmp_path / out[cls][0].name
        shutil.copyfile(out[cls][0], path)
        paths.append(path)
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(out[classes[0]][2]))
    server = Server(rows, paths)
    before = server.ask()
    assert before["states"] == ["mapped"] * len(classes), before["states"]
    for cls, path in zip(classes, paths):
        mutate(path, out[cls][1])
    after = server.ask()
    assert after["states"] == ["copied"] * len(classes), after["states"]
    assert after["predictions"] == before["predictions"]
    assert server.ask()["predictions"] == before["predictions"]
    server.close()


@pytest.fixture
def one(files, tmp_path):
    """The first estimator's served file, copied for this test, the other model's file and
    the probe rows; `serve()` starts a server on the copy."""
    served, new_file, probe = files[ESTIMATORS[0]]
    path = tmp_path / "served.rf"
    shutil.copyfile(served, path)
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps(probe))
    return path, new_file, probe, lambda: Server(rows, [path])


def test_a_forked_worker_holds_a_lease_of_its_own(one):
    """A server that loads then forks its workers (gunicorn's preload): the child, not the
    parent, serves when the file is replaced; it too answers as the model it loaded."""
    path, new_file, probe, serve = one
    server = serve()
    before = server.ask()
    child = server.ask("fork")["child"]
    assert server.ask()["pid"] == child
    _copy_over(path, new_file)
    after = server.ask()
    assert after["pid"] == child and after["states"] == ["copied"]
    assert after["predictions"] == before["predictions"]
    server.close()


def test_a_save_to_the_served_path_leaves_the_served_model_mapped(one):
    """`save` writes a temporary file and renames it over the path: the mapped file is never
    opened to write, so the server keeps sharing its pages, and a new load reads the new
    model."""
    path, new_file, probe, serve = one
    server = serve()
    before = server.ask()
    new = river_forests.load(new_file)
    river_forests.save(new, path)
    after = server.ask()
    assert after["states"] == ["mapped"] and after["predictions"] == before["predictions"]
    server.close()
    reloaded = river_forests.load(path, mmap=True)
    x = probe[0]
    assert reloaded.predict_proba_one(x) == new.predict_proba_one(x)


def test_a_file_open_for_writing_is_read_not_mapped(one):
    """No lease can be had on a file another holds open to write: the load says so and reads
    the file, so that the model it returns never reads pages a writer may change."""
    path, new_file, probe, _ = one
    expected = river_forests.load(path)
    with open(path, "r+b"):
        with pytest.warns(RuntimeWarning, match="read into memory, not mapped"):
            model = river_forests.load(path, mmap=True)
    assert not model._core.borrows
    _write_bytes(path, None)
    assert [model.predict_proba_one(x) for x in probe] == [expected.predict_proba_one(x)
                                                           for x in probe]


def test_a_writer_is_held_only_until_the_copy(one):
    """The writer waits for the copy, not for the kernel's lease-break timeout (45 s)."""
    import time

    path, new_file, probe, serve = one
    server = serve()
    server.ask()
    start = time.monotonic()
    _copy_over(path, new_file)
    assert time.monotonic() - start < 10
    assert server.ask()["states"] == ["copied"]
    server.close()


def _leases(path):
    """The read leases this process holds on `path` (from /proc/locks)."""
    inode, pid = os.stat(path).st_ino, os.getpid()
    with open("/proc/locks") as f:
        return [line for line in f if " LEASE " in line and line.split()[4] == str(pid)
                and line.split()[5].rsplit(":", 1)[-1] == str(inode)]


def test_a_model_released_gives_its_lease_back(one):
    """A mapped model holds one lease while it lives; dropping it releases the lease (and its
    row of the table, which the next load reuses)."""
    import gc

    path, new_file, probe, _ = one
    assert not _leases(path)
    model = river_forests.load(path, mmap=True)
    assert model._core.borrows and len(_leases(path)) == 1
    del model
    gc.collect()
    assert not _leases(path)
    for _ in range(3):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again = river_forests.load(path, mmap=True)
        assert len(_leases(path)) == 1
        del again
        gc.collect()
    assert not _leases(path)


def test_a_writer_during_the_load_is_an_error_not_a_mixed_model(one, monkeypatch):
    """A writer who comes while the loader reads the checksum could give it half of each
    file: the load refuses, saying so, and a load after the writer is done works."""
    import zlib

    from river_forests import ModelFileError, _file

    path, new_file, probe, _ = one
    crc32, came = zlib.crc32, []

    def a_writer_comes(data, value=0):
        if not came:
            came.append(True)
            with open(path, "r+b"):  # held until the loader's handler lets it go
                pass
        return crc32(data, value)

    monkeypatch.setattr(_file.zlib, "crc32", a_writer_comes)
    with pytest.raises(ModelFileError, match="opened for writing while it was loading"):
        river_forests.load(path, mmap=True)
    assert came and not _leases(path)
    monkeypatch.undo()
    assert river_forests.load(path, mmap=True)._core.borrows


def test_the_mapping_keeps_its_bytes_when_a_writer_comes(tmp_path):
    """`Mapping` alone: the bytes before and after a writer, and the states it goes through."""
    import numpy as np

    path = tmp_path / "bytes"
    path.write_bytes(bytes(range(256)) * 64)
    with open(path, "rb") as f:
        mapping = _mapping.Mapping(f.fileno())
    view = np.frombuffer(mapping, dtype=np.uint8)
    assert mapping.state == "mapped" and mapping.size == 256 * 64
    with open(path, "r+b") as f:
        f.write(b"\xff" * 1000)
    os.truncate(path, 10)
    assert mapping.state == "copied"
    assert bytes(view) == bytes(range(256)) * 64


def test_the_warning_names_the_callers_line(one):
    """The fallback's warning points at the code that called `load`, not inside the package."""
    path, _, _, _ = one
    with open(path, "r+b"):
        with pytest.warns(RuntimeWarning) as caught:
            river_forests.load(path, mmap=True)
    assert caught[0].filename == __file__


def test_a_thread_predicting_meanwhile_reads_the_same_model(one):
    """The copy moves new pages over the mapping's addresses in one step (mremap): a thread
    that predicts while a writer comes, in the same process, reads the loaded model before,
    during and after, never a hole or the new file."""
    import threading

    path, new_file, probe, _ = one
    model = river_forests.load(path, mmap=True)
    expected = [model.predict_proba_one(x) for x in probe]
    stop, seen, passes = threading.Event(), [], [0]

    def predict():
        while not stop.is_set():
            seen.append([model.predict_proba_one(x) for x in probe] == expected)
            passes[0] += 1

    reader = threading.Thread(target=predict)
    reader.start()
    while passes[0] < 2:  # the reader is walking the mapped pages
        threading.Event().wait(0.01)
    _copy_over(path, new_file)
    at_copy = passes[0]
    while passes[0] < at_copy + 3:  # and walks the copy after
        threading.Event().wait(0.01)
    stop.set()
    reader.join()
    assert all(seen) and len(seen) >= 5
    assert _mapping_state(model) == "copied"


def _mapping_state(model):
    """The state of the mapping `model`'s first tree reads."""
    for a in model.trees[0].borrowed.values():
        while getattr(a, "base", None) is not None:
            a = a.base
        a = a.obj if isinstance(a, memoryview) else a
        if isinstance(a, _mapping.Mapping):
            return a.state
