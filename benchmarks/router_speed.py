"""The axis-aligned forests lose no speed to the BSP change: two builds, same run, interleaved.

    python benchmarks/router_speed.py                          # 15 rounds on elec.csv: ~2 minutes
    python benchmarks/router_speed.py --quick                  # 2 rounds, elec's first 10,000 rows
    python benchmarks/router_speed.py --before /tmp/rf_before --before-label 9dce061

The change that touches the axis-aligned forests is commit 449fc4b: the Mondrian tree's
lifetime clock (``grow_lifetime``) moved into the shared ``BoxTree`` base, where it calls the
kind's ``split_leaf`` and ``leaf_rate`` virtually (before, ``MondrianTree`` had its own copy
calling ``leaf_size``), and ``BoxTree`` gained two fields. This script compares the code before
it (``--before``: a built checkout of 9dce061, e.g. ``git worktree add /tmp/rf_before 9dce061``
then ``python setup.py -q build_ext --inplace`` in it) with the code now (``--now``: this
repository's working tree and its built extensions).

Each build runs in its own persistent worker process (``PYTHONPATH`` = that tree, checked: the
worker reports the ``river_forests`` it imported). A third worker runs the *now* build again:
now against now is the noise floor of the comparison (an A/A test). Every measurement is asked
of the three workers one after the other (their order rotating from round to round), so the
builds are compared under the same load; each worker is idle while another measures. Per
forest (``MondrianForestClassifier``, ``PurelyRandomForestClassifier``,
``StreamPartitionForestClassifier``, ``XForestClassifier``; 10 trees, seed 1, defaults otherwise)
and round:

- **learn_many**: a new model learns elec.csv in chunks of 100 rows (``learn_many``; the frames
  are built before the clock starts; batches of >= 64 rows spread the trees over worker
  threads, the same rule in both builds), then
- **predict_many**: ``predict_proba_many`` on the whole stream, one frame;
- **learn_one**: a new model runs a progressive loop (``predict_proba_one`` then ``learn_one``,
  each row) on the first 5,000 rows.

Each request times its measurement 3 times (new models each time) and keeps the best; each
timing then keeps its best round; the ratio now/before is the samples/s of now over before
(> 1: now is faster), also given as the median and range of the per-round paired ratios.
The workers also return a hash of every prediction and the forests' node counts: identical
models give identical hashes (required for the Mondrian forest, whose code moved).

Writes benchmarks/results/router_speed.md (``router_speed_quick.md`` with --quick).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[1]
FORESTS = ["MondrianForestClassifier", "PurelyRandomForestClassifier",
           "StreamPartitionForestClassifier", "XForestClassifier"]
PHASES = ["learn_many", "predict_many", "learn_one"]
TREES = 10
SEED = 1
CHUNK = 100
ONE_ROWS = 5_000
ROUNDS = 15
REPS = 3  # each request times its measurement this many times (new models) and keeps the best
QUICK_ROWS = 10_000


# ------------------------------------------------------------------------------- the worker

def read_csv(path: str, n: int | None) -> list:
    import itertools

    with open(path) as f:
        reader = csv.reader(f)
        names = next(reader)[:-1]
        return [({k: float(v) for k, v in zip(names, row)}, int(row[-1]))
                for row in itertools.islice(reader, n)]


def digest(values) -> str:
    return hashlib.sha256(json.dumps(values).encode()).hexdigest()[:16]


def worker(data_path: str, rows: int | None) -> None:
    """Serve measurements: one JSON request per line on stdin, one JSON answer per line."""
    import numpy as np
    import pandas as pd

    import river_forests

    data = read_csv(data_path, rows)
    frames = []
    for start in range(0, len(data), CHUNK):
        part = data[start:start + CHUNK]
        index = pd.RangeIndex(start, start + len(part))
        frames.append((pd.DataFrame([x for x, _ in part], index=index),
                       pd.Series([y for _, y in part], index=index)))
    X_all = pd.DataFrame([x for x, _ in data])
    one = data[:ONE_ROWS]
    print(json.dumps({"ready": river_forests.__file__, "n": len(data)}), flush=True)
    clock = time.perf_counter
    for line in sys.stdin:
        req = json.loads(line)
        cls = getattr(river_forests, req["forest"])
        best: dict = {}
        for _ in range(req.get("reps", 1)):
            if req["phase"] == "batch":
                model = cls(n_estimators=TREES, seed=SEED)
                t0 = clock()
                for X, y in frames:
                    model.learn_many(X, y)
                learn = clock() - t0
                t0 = clock()
                proba = model.predict_proba_many(X_all)
                predict = clock() - t0
                values = proba.reindex(sorted(proba.columns), axis=1).to_numpy(dtype=float)
                out = {"learn_many": learn, "predict_many": predict,
                       "hash": hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16],
                       "nodes": model.n_nodes}
            else:
                model = cls(n_estimators=TREES, seed=SEED)
                spent, preds = 0.0, []
                for x, y in one:
                    t0 = clock()
                    p = model.predict_proba_one(x)
                    model.learn_one(x, y)
                    spent += clock() - t0
                    preds.append(sorted(p.items()))
                out = {"learn_one": spent, "hash": digest(preds), "nodes": model.n_nodes}
            if best and (out["hash"], out["nodes"]) != (best["hash"], best["nodes"]):
                out["hash"] += " (reps differ!)"
            for key, value in out.items():
                best[key] = min(best[key], value) if key in PHASES and key in best else value
        print(json.dumps(best), flush=True)


# ------------------------------------------------------------------------------- the parent

class Worker:
    def __init__(self, label: str, tree: Path, data_path: str, rows: int | None):
        env = dict(os.environ, PYTHONPATH=str(tree))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", "--data", data_path]
        if rows:
            cmd += ["--rows", str(rows)]
        self.label, self.tree = label, tree
        self.proc = subprocess.Popen(cmd, env=env, cwd=str(tree), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        hello = json.loads(self.proc.stdout.readline())
        self.module, self.n = hello["ready"], hello["n"]
        if not Path(self.module).resolve().is_relative_to(tree.resolve()):
            raise RuntimeError(f"worker {label} imported {self.module}, not from {tree}")

    def ask(self, forest: str, phase: str, reps: int) -> dict:
        self.proc.stdin.write(json.dumps({"forest": forest, "phase": phase, "reps": reps}) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def git(tree: Path, *args) -> str:
    try:
        return subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True,
                              check=True).stdout.rstrip("\n")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def so_times(tree: Path) -> str:
    out = []
    for name in ("_boxtree", "_mondrian"):
        found = sorted((tree / "river_forests" / "_core").glob(f"{name}.*.so"))
        if found:
            out.append(f"{name} {time.strftime('%H:%M:%S', time.gmtime(found[0].stat().st_mtime))}")
    return ", ".join(out) + " UTC"


def fmt_ratio(x: float) -> str:
    return f"{x:.3f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"2 rounds, elec's first {QUICK_ROWS:,} rows")
    parser.add_argument("--rounds", type=int, default=None, help=f"rounds (default {ROUNDS})")
    parser.add_argument("--before", type=Path, default=Path("/tmp/rf_before"),
                        help="a built tree of the code before the change (default /tmp/rf_before)")
    parser.add_argument("--before-label", default=None, help="its name in the report (default: its commit)")
    parser.add_argument("--now", type=Path, default=ROOT, help="the code now (default: this repository)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.data, args.rows)
        return

    start = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    from river_forests.evaluation import find_data_dir, markdown_table

    data_dir = find_data_dir()
    if data_dir is None:
        raise SystemExit("elec.csv not found (set RIVER_FORESTS_DATA)")
    data_path = str(data_dir / "elec.csv")
    rows = QUICK_ROWS if args.quick else None
    rounds = args.rounds or (2 if args.quick else ROUNDS)
    before_commit = git(args.before, "rev-parse", "--short", "HEAD")
    now_commit = git(args.now, "rev-parse", "--short", "HEAD")
    now_dirty = [line[3:] for line in git(args.now, "status", "--porcelain", "--untracked-files=all",
                                          "--", "river_forests").split("\n")
                 if line.strip() and not line.endswith((".c", ".so"))]
    before_label = args.before_label or before_commit
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())

    workers = {
        "before": Worker("before", args.before, data_path, rows),
        "now": Worker("now", args.now, data_path, rows),
        "now (A/A)": Worker("now (A/A)", args.now, data_path, rows),
    }
    n = workers["now"].n
    order = list(workers)
    # times[(worker, forest, phase)] = [seconds per round]; hashes/nodes per (worker, forest, kind)
    times: dict[tuple, list] = {}
    hashes: dict[tuple, set] = {}
    nodes: dict[tuple, set] = {}
    try:
        for r in range(rounds):
            rot = order[r % len(order):] + order[:r % len(order)]
            for forest in FORESTS:
                for kind in ("batch", "one"):
                    for w in rot:
                        out = workers[w].ask(forest, kind, REPS)
                        for phase in PHASES:
                            if phase in out:
                                times.setdefault((w, forest, phase), []).append(out[phase])
                        hashes.setdefault((w, forest, kind), set()).add(out["hash"])
                        nodes.setdefault((w, forest, kind), set()).add(out["nodes"])
            print(f"round {r + 1}/{rounds}: " + "; ".join(
                f"{f.replace('ForestClassifier', '')} learn_many now/before "
                f"{times[('before', f, 'learn_many')][-1] / times[('now', f, 'learn_many')][-1]:.3f}"
                for f in FORESTS), flush=True)
    finally:
        for w in workers.values():
            w.close()

    def samples(phase: str) -> int:
        return ONE_ROWS if phase == "learn_one" else n

    rows_out = []
    summary = {}
    for forest in FORESTS:
        for phase in PHASES:
            b = times[("before", forest, phase)]
            a = times[("now", forest, phase)]
            aa = times[("now (A/A)", forest, phase)]
            best = min(b) / min(a)
            paired = [x / y for x, y in zip(b, a)]
            floor = min(a) / min(aa)
            floor_paired = [y / x for x, y in zip(aa, a)]
            summary[(forest, phase)] = (best, floor, statistics.median(paired), statistics.median(floor_paired))
            rows_out.append([
                forest.replace("ForestClassifier", ""), phase,
                f"{samples(phase) / min(b):,.0f}", f"{samples(phase) / min(a):,.0f}",
                f"**{fmt_ratio(best)}**", f"{statistics.median(paired):.3f} ({min(paired):.3f}-{max(paired):.3f})",
                fmt_ratio(floor), f"{statistics.median(floor_paired):.3f} ({min(floor_paired):.3f}-{max(floor_paired):.3f})",
            ])
    ident_rows = []
    all_same = True
    for forest in FORESTS:
        for kind, what in (("batch", "learn_many + predict_proba_many"), ("one", f"learn_one loop ({ONE_ROWS:,} rows)")):
            hb, hn, ha = hashes[("before", forest, kind)], hashes[("now", forest, kind)], hashes[("now (A/A)", forest, kind)]
            nb, nn = nodes[("before", forest, kind)], nodes[("now", forest, kind)]
            same = len(hb) == 1 and hb == hn == ha and nb == nn
            all_same &= same
            ident_rows.append([forest.replace("ForestClassifier", ""), what, ", ".join(sorted(hb)),
                               ", ".join(sorted(hn)), ", ".join(str(x) for x in sorted(nb)),
                               ", ".join(str(x) for x in sorted(nn)), "yes" if same else "**NO**"])
    elapsed = time.perf_counter() - start

    command = "python benchmarks/router_speed.py" + (" --quick" if args.quick else "") + (
        f" --rounds {args.rounds}" if args.rounds else "") + (
        f" --before {args.before}" if args.before != Path("/tmp/rf_before") else "")
    import numpy as np
    import pandas as pd
    import river

    lines = [
        "# Axis-aligned forests before and after the BSP change (commit 449fc4b)" + (" (quick)" if args.quick else ""),
        "",
        f"Command: `{command}`. Environment: {platform.machine()}, {os.cpu_count()} cores (shared), "
        f"Python {platform.python_version()}, river {river.__version__}, numpy {np.__version__}, "
        f"pandas {pd.__version__}; load average at start {load}.",
        "",
        f"- **before**: `{args.before}`, commit {before_label} (`git worktree add {args.before} "
        f"{before_commit}`, built there with `python setup.py -q build_ext --inplace`; extensions "
        f"{so_times(args.before)}), worker imported `{workers['before'].module}`.",
        f"- **now**: `{args.now}`, commit {now_commit}"
        + (f" with uncommitted changes to {', '.join(now_dirty)}" if now_dirty else "")
        + f" (its built extensions: {so_times(args.now)}), worker imported `{workers['now'].module}`; "
        "**now (A/A)** is a second worker on the same build, the noise floor.",
        "- Both builds use the same `setup.py` flags (`-O3`, same Cython directives; gcc records "
        "`-g -O3 -O3 -fwrapv -fPIC` in both `_mondrian` binaries).",
        "",
        f"elec.csv, {n:,} rows; {TREES} trees, seed {SEED}, defaults otherwise. `learn_many`: a new "
        f"model learns the stream in chunks of {CHUNK} (frames built before the clock; batches of "
        f">= 64 rows run the trees on worker threads, as in both builds), then `predict_proba_many` "
        f"on the whole stream as one frame; `learn_one`: a new model, `predict_proba_one` then "
        f"`learn_one`, each of the first {ONE_ROWS:,} rows. {rounds} rounds; in each, every "
        f"measurement is asked of the three workers in turn (order rotating by round), each idle "
        f"while another measures, and times it {REPS} times (new models) keeping the best. "
        "samples/s from each build's best round. **now/before** = "
        "samples/s now / samples/s before (best rounds; > 1: now faster); the paired column is "
        "the median (range) over rounds of the ratio within a round. **A/A** = the same for "
        "now (A/A) / now: the size of the noise.",
        "",
    ]
    lines += markdown_table(["forest", "timing", "before samples/s", "now samples/s", "now/before (best)",
                             "now/before per round: median (range)", "A/A (best)", "A/A per round: median (range)"],
                            rows_out)
    mondrian_same = all(r[-1] == "yes" for r in ident_rows if r[0] == "Mondrian")
    lines += [
        "",
        "## Identical models",
        "",
        "Hash of every prediction (`predict_proba_many` on the whole stream after `learn_many`; "
        "every `predict_proba_one` of the progressive loop) and the forest's node count, per build "
        "(one value: every round gave the same):",
        "",
    ]
    lines += markdown_table(["forest", "run", "hash before", "hash now", "nodes before", "nodes now", "identical"],
                            ident_rows)
    ratios = [summary[(f, p)][0] for f in FORESTS for p in PHASES]
    floors = [summary[(f, p)][1] for f in FORESTS for p in PHASES]
    worst_key = min(summary, key=lambda k: summary[k][0])
    lines += [
        "",
        "## Summary",
        "",
        f"- now/before over the {len(ratios)} timings (best rounds): {min(ratios):.3f} to {max(ratios):.3f} "
        f"(geometric mean {np.exp(np.mean(np.log(ratios))):.3f}); the A/A noise floor: {min(floors):.3f} to "
        f"{max(floors):.3f}. Slowest now/before: {worst_key[0].replace('ForestClassifier', '')} "
        f"{worst_key[1]} ({summary[worst_key][0]:.3f}). The median paired ratios: "
        f"{min(v[2] for v in summary.values()):.3f} to {max(v[2] for v in summary.values()):.3f} "
        f"(A/A {min(v[3] for v in summary.values()):.3f} to {max(v[3] for v in summary.values()):.3f}).",
        "- Mondrian forest: "
        + ", ".join(f"{p} {summary[('MondrianForestClassifier', p)][0]:.3f}" for p in PHASES)
        + f"; its models are {'identical' if mondrian_same else '**NOT identical**'} between builds.",
        f"- Every forest's predictions identical between builds: {'yes' if all_same else '**no**'}.",
        "",
        f"Run time: {elapsed:.0f} s.",
    ]
    out = RESULTS / ("router_speed_quick.md" if args.quick else "router_speed.md")
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
