"""Where a forest's time goes: Linux ``perf`` on the prequential loop, recorded.

    python -m benchmarks.profile MondrianForestClassifier                   # all of elec
    python -m benchmarks.profile MondrianForestClassifier --rows 10000
    python -m benchmarks.profile PurelyRandomForestClassifier --stream bag-of-words --rows 2000 \\
        --params "{'split': 'uniform'}"
    python -m benchmarks.profile MondrianForestClassifier --base 3c1d1d7   # at another commit

A child process loads the stream's first rows (elec and covtype as ``experiments._common``
reads them, any other stream from the registry), then runs ``predict_proba_one`` and
``learn_one`` on every row with a fresh forest (10 trees, seed 42, the defaults and
``--params``) over and over; once the data is loaded, ``perf record`` samples it for
``--seconds``. The report sums the samples by function (``perf report --no-children``) and
names the compiled ones by their Cython class and method. The commit profiled (the
checkout's, or REV with ``--base REV``) is compiled in a temporary worktree (as
``compare_builds``) with its symbol tables: a release build is stripped. Needs ``perf`` (Linux). Writes
``results/experiments/profile_<forest>_<stream>_<rows>[_<rev>].md``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.compare_builds import ROOT, built

_CHILD = r"""
import ast, gc, sys, time
root, head, forest, stream, rows, params, seconds = sys.argv[1:8]
sys.path[:0] = [root, head]
import river_forests
assert river_forests.__file__.startswith(root), river_forests.__file__
from benchmarks.experiments import _common
n = int(rows) if rows != "all" else None
if stream in ("elec", "covtype"):
    data = _common.samples(stream, n or 10**9)
else:
    from benchmarks.streams import STREAMS
    data = STREAMS[stream].samples()[:n]
gc.collect()
gc.freeze()
cls = getattr(river_forests, forest)
kw = ast.literal_eval(params)
print("ready", flush=True)
stop = time.monotonic() + float(seconds) + 2.0
while time.monotonic() < stop:
    model = cls(n_estimators=10, seed=42, **kw)
    for x, y in data:
        model.predict_proba_one(x)
        model.learn_one(x, y)
"""

#: perf report's line: "  27.50%  [.] symbol"
_LINE = re.compile(r"^\s+([0-9.]+)%\s+\[[.k]\]\s+(\S+)")


def readable(symbol: str) -> str:
    """A Cython function's C name as `module.Class.method` (``__pyx_f_13river_forests_5_core_
    9_mondrian_12MondrianTree_insert`` -> ``_mondrian.MondrianTree.insert``); others as they
    are."""
    m = re.match(r"__pyx_(?:f|pw|pf)_(.*)", symbol)
    if not m:
        return symbol
    rest, parts = m.group(1), []
    # length-prefixed names (package, module, class), each after one "_"; then the function
    while (n := re.match(r"_?(\d+)", rest)) and len(parts) < 4:
        start, size = n.end(), int(n.group(1))
        parts.append(rest[start:start + size])
        rest = rest[start + size:]
    name = ".".join(p for p in parts if p not in ("river_forests", "_core"))
    function = re.sub(r"^_\d*", "", rest)
    return f"{name}.{function}" if function else name


def profile(root: Path, forest: str, stream: str, rows: str, params: str,
            seconds: float) -> list[tuple[float, str]]:
    """(share in %, function) of the samples, largest first."""
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(root), str(ROOT), forest,
                              stream, rows, params, str(seconds)],
                             stdout=subprocess.PIPE, text=True)
    with tempfile.TemporaryDirectory() as tmp:
        data = str(Path(tmp) / "perf.data")
        try:
            line = child.stdout.readline()
            if not line.startswith("ready"):
                raise RuntimeError(f"the profiled process stopped before its loop: {line!r}")
            subprocess.run(["perf", "record", "-q", "-o", data, "-p", str(child.pid), "--",
                            "sleep", str(seconds)], check=True, capture_output=True)
        finally:
            child.wait()
        out = subprocess.run(["perf", "report", "-i", data, "--no-children", "--stdio",
                              "--sort", "symbol", "--percent-limit", "0.5"],
                             check=True, capture_output=True, text=True).stdout
    return [(float(m.group(1)), readable(m.group(2)))
            for m in map(_LINE.match, out.splitlines()) if m]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("forest", help="a class of river_forests, e.g. MondrianForestClassifier")
    parser.add_argument("--stream", default="elec")
    parser.add_argument("--rows", default="all", help="first rows of the stream (default: all)")
    parser.add_argument("--params", default="{}", help="the forest's parameters, a Python dict")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--base", default=None, help="profile this commit instead of the checkout")
    args = parser.parse_args(argv)
    if shutil.which("perf") is None:
        raise SystemExit("perf not found: this tool needs Linux perf")
    from benchmarks import store
    from benchmarks.experiments import _common

    if args.base:
        version = f"commit {args.base}"
    else:
        v = store.our_version()  # refuses uncommitted changes to the code
        version = f"code version `{v['key']}`, commit {v['commit'][:10]}"
    # the commit compiled apart with its symbol tables: the checkout's release build is stripped
    with built(args.base or "HEAD", symbols=True) as tree:
        shares = profile(tree, args.forest, args.stream, args.rows, args.params, args.seconds)
    label = "_".join([args.forest.replace("ForestClassifier", "").replace("ForestRegressor", ""),
                      args.stream, args.rows] + ([args.base] if args.base else []))
    label += "_" + re.sub(r"\W+", "", args.params) if args.params != "{}" else ""
    command = " ".join(["python -m benchmarks.profile", args.forest, "--stream", args.stream,
                        "--rows", args.rows] + (["--params", repr(args.params)]
                                                if args.params != "{}" else [])
                       + (["--base", args.base] if args.base else []))
    lines = [f"# Profile: {args.forest} on {args.stream} ({args.rows} rows)", "",
             f"`{command}`; {version}; {_common.machine()}; load average "
             f"{_common.load_average()}. Prequential (`predict_proba_one`, then `learn_one`), 10 "
             f"trees, seed 42; `perf record` over {args.seconds:g} s of the loop; share of the "
             "samples by function, at least 0.5%.", ""]
    lines += _common.markdown_table(["share", "function"],
                                    [[f"{p:.1f}%", f"`{s}`"] for p, s in shares])
    out = ROOT / "benchmarks" / "results" / "experiments" / f"profile_{label}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
