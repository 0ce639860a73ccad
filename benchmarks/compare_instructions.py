"""Base against head in instructions executed: what `compare_builds` measures in time, counted
by callgrind, which does not vary from run to run on a shared machine.

    python -m benchmarks.compare_instructions b0d5a9a2 --head-defaults drift_detector

Each forest (10 trees, seed 42, at its defaults, every classifier of the package) runs
test-then-train (``predict_proba_one`` then ``learn_one``) over elec's first N rows (3,000 by
default) under ``valgrind --tool=callgrind``, once in each build, in a fresh process;
instrumentation is switched on (``callgrind_control -i on``) after the import, the data and
the model are ready, so the count is the loop's alone. Needs valgrind. Writes
``results/experiments/compare_instructions.md``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys

from benchmarks.compare_builds import ROOT, _git, built, head_defaults, head_defaults_said

FORESTS = ["MondrianForestClassifier", "PurelyRandomForestClassifier",
           "StreamPartitionForestClassifier", "BSPForestClassifier", "XForestClassifier"]

_CHILD = r"""
import importlib, json, os, subprocess, sys
root, head, rows, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
given = json.loads(sys.argv[5])
sys.path[:0] = [root, head]
import river_forests
assert river_forests.__file__.startswith(root), river_forests.__file__
from benchmarks.experiments import _common

def value(v):
    if isinstance(v, dict) and "$class" in v:
        module, _, cls = v["$class"].rpartition(".")
        return getattr(importlib.import_module(module), cls)(**v["params"])
    return v

data = _common.samples("elec", rows)
model = getattr(river_forests, name)(n_estimators=10, seed=42,
                                     **{k: value(v) for k, v in given.get(name, {}).items()})
subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())], capture_output=True)
for x, y in data:
    model.predict_proba_one(x)
    model.learn_one(x, y)
subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())], capture_output=True)
"""


def count(root, rows: int, name: str, given: dict) -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                           "--callgrind-out-file=/dev/null", sys.executable, "-c", _CHILD,
                           str(root), str(ROOT), str(rows), name, json.dumps(given)],
                          check=True, capture_output=True, text=True)
    return int(re.search(r"Collected : (\d+)", done.stderr).group(1))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the commit to compare this checkout with")
    parser.add_argument("--rows", type=int, default=3_000)
    parser.add_argument("--head-defaults", nargs="+", default=[], metavar="PARAM",
                        help="give both builds the head's defaults of these parameters")
    args = parser.parse_args(argv)
    from benchmarks import store
    from benchmarks.experiments import _common

    base = _git("rev-parse", "--short=10", args.base)
    head = store.our_version()
    given = head_defaults(args.head_defaults, FORESTS)
    rows = []
    with built(base) as tree:
        for name in FORESTS:
            b, h = count(tree, args.rows, name, given), count(ROOT, args.rows, name, given)
            rows.append([name.replace("ForestClassifier", ""), f"{b:,}", f"{h:,}",
                         f"{h / b - 1:+.2%}"])
            print(rows[-1], file=sys.stderr, flush=True)
    flags, given_note = head_defaults_said(args.head_defaults)
    lines = [f"# Base {base} against head {head['commit'][:10]}: instructions", "",
             f"`python -m benchmarks.compare_instructions {args.base} --rows {args.rows}{flags}`; "
             f"head code version `{head['key']}`; {_common.machine()}. elec's first "
             f"{args.rows:,} rows, test-then-train, 10 trees, seed 42, every classifier at its "
             f"defaults{given_note}; instructions of the loop alone (callgrind).", ""]
    lines += _common.markdown_table(["forest", f"base {base}", "head", "head / base"], rows)
    out = ROOT / "benchmarks" / "results" / "experiments" / "compare_instructions.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
