"""Saving and loading (`river_forests.save` / `load`): the file's size against the pickle's,
the time of each, and the memory a loaded model holds, memory-mapped or not.

    python -m benchmarks experiment save_load --jobs 1           # a few minutes
    python -m benchmarks experiment save_load --quick --jobs 1

Every estimator, 10 trees, seed 42, its defaults, after learning elec's first 20,000 rows
(2,000 with ``--quick``; classifiers on the label, regressors on the third feature from the
other five). Sizes: the
file against ``pickle.dumps`` (protocol 5; pickling goes through the same state). Times:
the best of 5 of ``save``, ``load``, ``load(mmap=True)``, ``pickle.dumps`` and
``pickle.loads``. Memory: in a fresh process (numpy, river and the package imported), the
growth of the resident set (``VmRSS``) over the load, then over 1,000 predictions, divided
by the file's size; the process's peak growth (``VmHWM``) during the load too. The child
first loads (the same way) and drops a small model of the same estimator, so that the
growth is the model's, not the first load's imports and caches. Run with
``--jobs 1``: the resident set is read per process, and timings are noisy beside another job.

Writes ``benchmarks/results/experiments/save_load.md``.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
import time

from benchmarks.compare_builds import ROOT
from benchmarks.experiments import _common

NAME = "save_load"
SEED = 42
TREES = 10
ROWS, QUICK_ROWS = 20_000, 2_000
REPEAT = 5
PREDICT = 1_000

_CHILD = r"""
import json, sys
def status():
    out = {}
    for line in open("/proc/self/status"):
        key, value = line.split(":", 1)
        if key in ("VmRSS", "VmHWM"):
            out[key] = int(value.split()[0]) * 1024
    return out
root, path, mmap, rows, warm = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4], sys.argv[5]
sys.path.insert(0, root)
import gc, numpy, river, river_forests
xs = json.load(open(rows))
small = river_forests.load(warm, mmap=mmap)
for x in xs[:10]:
    small.predict_one(x)
del small
gc.collect()
before = status()
model = river_forests.load(path, mmap=mmap)
loaded = status()
for x in xs:
    model.predict_one(x)
predicted = status()
print(json.dumps({"before": before, "loaded": loaded, "predicted": predicted,
                  "borrows": bool(model._core.borrows)}))
"""


def jobs(quick: bool) -> list[tuple[str, dict]]:
    from river import base

    import river_forests

    names = [n for n in river_forests.__all__ if isinstance(getattr(river_forests, n), type)
             and issubclass(getattr(river_forests, n), base.Estimator)]
    return [(n, {"estimator": n, "rows": QUICK_ROWS if quick else ROWS, "warm_up": True, "dontneed": True})
            for n in names]


def _data(estimator: str, rows: int) -> list:
    data = _common.samples("elec", rows + PREDICT)
    if "Classifier" in estimator:
        return data
    return [({k: v for k, v in x.items() if k != "feat_3"}, x["feat_3"]) for x, _ in data]


def _best(f, repeat=REPEAT) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return min(times)


def _child(path, mmap, rows_path, warm) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), path,
                          "1" if mmap else "0", rows_path, warm],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def measure(params: dict) -> dict:
    import river_forests

    name, rows = params["estimator"], params["rows"]
    data = _data(name, rows)
    model = getattr(river_forests, name)(n_estimators=TREES, seed=SEED)
    for x, y in data[:rows]:
        model.learn_one(x, y)
    xs = [x for x, _ in data[rows:]]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.rf")
        rows_path = os.path.join(tmp, "rows.json")
        with open(rows_path, "w") as f:
            json.dump(xs, f)
        size = river_forests.save(model, path)
        warm = os.path.join(tmp, "warm.rf")
        small = getattr(river_forests, name)(n_estimators=2, seed=SEED)
        for x, y in data[:100]:
            small.learn_one(x, y)
        river_forests.save(small, warm)
        blob = pickle.dumps(model, protocol=5)
        times = {
            "save": _best(lambda: river_forests.save(model, path)),
            "load": _best(lambda: river_forests.load(path)),
            "load_mmap": _best(lambda: river_forests.load(path, mmap=True)),
            "dumps": _best(lambda: pickle.dumps(model, protocol=5)),
            "loads": _best(lambda: pickle.loads(blob)),
        }
        loaded = river_forests.load(path, mmap=True)
        same = all(loaded.predict_one(x) == model.predict_one(x) for x in xs)
        memory = {"mmap": _child(path, True, rows_path, warm),
                  "copy": _child(path, False, rows_path, warm)}
    return {"size": size, "pickle": len(blob), "nodes": model.n_nodes, "times": times,
            "memory": memory, "same": same}


def report(results: dict, quick: bool) -> None:
    md, _ = _common.outputs(NAME, quick)
    rows = QUICK_ROWS if quick else ROWS
    lines = _common.heading(
        NAME, quick, "Saving and loading: size, time and memory",
        f"{TREES} trees, seed {SEED}, defaults, after elec's first {rows:,} rows; times the "
        f"best of {REPEAT}; memory in a fresh process per load, over {PREDICT:,} predictions")
    lines += ["| estimator | nodes | file | file ÷ pickle | save | load | load, mmap | "
              "pickle.dumps | pickle.loads | same predictions |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, r in results.items():
        t = r["times"]
        lines.append(f"| {name} | {r['nodes']:,} | {r['size'] / 1e6:.2f} MB | "
                     f"{r['size'] / r['pickle']:.3f} | {1e3 * t['save']:.1f} ms | "
                     f"{1e3 * t['load']:.1f} ms | {1e3 * t['load_mmap']:.1f} ms | "
                     f"{1e3 * t['dumps']:.1f} ms | {1e3 * t['loads']:.1f} ms | "
                     f"{'yes' if r['same'] else 'NO'} |")
    lines += ["", "Resident memory a load adds, as a multiple of the file's size (the growth "
              "of VmRSS; peak: of VmHWM during the load):", "",
              "| estimator | mmap: after load | mmap: after predictions | mmap: peak | "
              "copy: after load | copy: after predictions | copy: peak |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    worst, served = 0.0, 0.0
    for name, r in results.items():
        cells = []
        for mode in ("mmap", "copy"):
            m = r["memory"][mode]
            base = m["before"]["VmRSS"]
            cells += [(m["loaded"]["VmRSS"] - base) / r["size"],
                      (m["predicted"]["VmRSS"] - base) / r["size"],
                      (m["loaded"]["VmHWM"] - m["before"]["VmHWM"]) / r["size"]]
        worst, served = max(worst, cells[0]), max(served, cells[1])
        lines.append(f"| {name} | " + " | ".join(f"{c:.2f}" for c in cells) + " |")
    lines += ["", f"Largest resident growth after a memory-mapped load: {worst:.2f} times the "
              f"file's size (target: at most 1.2); after {PREDICT:,} predictions: {served:.2f} "
              "(the pages the walks read, the pools a kind copies, and a small file's fixed "
              "costs)."]
    md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
