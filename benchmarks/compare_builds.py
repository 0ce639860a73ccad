"""Base against head: the speed of our forests at another commit and at this checkout, in one
run, rounds interleaved.

    python -m benchmarks.compare_builds 3c1d1d7                 # elec's first 10,000 rows and all of it, the wide streams' first 2,000
    python -m benchmarks.compare_builds 3c1d1d7 --rounds 5 --rows 10000
    python -m benchmarks.compare_builds b0d5a9a2 --head-defaults drift_detector

The base commit is checked out in a temporary git worktree and compiled there (``setup.py
build_ext --inplace``: a few minutes); the head is this checkout as built (``pip install -e
.``). Each round runs the base, then the head, each in a fresh process that imports its own
``river_forests`` (checked) and this checkout's ``benchmarks`` (the same data for both): for
every sequential classifier at its defaults (10 trees, seed 42), the samples/s of
``learn_one`` alone and of ``predict_proba_one`` then ``learn_one`` (test-then-train) over the
first N rows of elec (read as ``experiments._common.samples`` reads them) and of the speed
experiment's two wide streams (bag of words, a 1,000-column one-hot table), the clock around
the whole loop. The best round of each is kept (a shared machine only ever adds time), and
the head's speed is divided by the base's, and each build's predictions are digested (the
same predictions in every round of both: the change kept the forests' behaviour). A default
the head changed since the base (``--head-defaults drift_detector``) is given to both
builds, so that the comparison is of the code. Run it on an otherwise idle machine. Writes
``results/experiments/compare_builds.md``. A tool for a change's before and after, beside
the benchmark's ratios to river's models (``experiments/speed.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORESTS = ["MondrianForestClassifier", "PurelyRandomForestClassifier",
           "StreamPartitionForestClassifier", "BSPForestClassifier", "XForestClassifier"]
#: the wide streams `--wide-rows` adds (`experiments.speed.samples`)
WIDE = ["bag-of-words", "one-hot-1000"]

#: one round in a child process: argv = [root of the river_forests to time, rows, ...]
_CHILD = r"""
import gc, hashlib, importlib, json, sys, time
root, head, rows = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
given = json.loads(sys.argv[5])
sys.path.insert(0, root)
import river_forests
assert river_forests.__file__.startswith(root), river_forests.__file__
sys.path.insert(0, head)  # the head's benchmarks (its streams), whatever the base's holds
from benchmarks.experiments.speed import samples
assert samples.__module__ == "benchmarks.experiments.speed" and __import__(
    "benchmarks").__file__.startswith(head)

def value(v):  # a river object as its class path and parameters
    if isinstance(v, dict) and "$class" in v:
        module, _, name = v["$class"].rpartition(".")
        return getattr(importlib.import_module(module), name)(**v["params"])
    return v

out, digests = {}, {}
for spec in rows:  # "stream:rows"
    stream, n = spec.split(":")
    data = samples(stream, int(n))
    gc.collect()
    gc.freeze()
    for name in sys.argv[4].split(","):
        cls = getattr(river_forests, name)
        for mode in ("learn_one", "predict then learn"):
            model = cls(n_estimators=10, seed=42, **{k: value(v) for k, v in given.get(name, {}).items()})
            digest = hashlib.sha256()
            t = time.perf_counter()
            for x, y in data:
                if mode != "learn_one":
                    digest.update(repr(model.predict_proba_one(x)).encode())
                model.learn_one(x, y)
            out[f"{name}|{spec}|{mode}"] = len(data) / (time.perf_counter() - t)
            if mode != "learn_one":
                digests[f"{name}|{spec}"] = digest.hexdigest()
print(json.dumps({"speed": out, "digests": digests}))
"""


def _git(*args, cwd=ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True).stdout.strip()


@contextlib.contextmanager
def built(rev: str, symbols: bool = False):
    """Commit `rev` checked out in a temporary git worktree and compiled there
    (``setup.py build_ext --inplace``); yields its root. Removed afterwards. `symbols`: the
    release's flags but the extensions' symbol tables kept (a release links with ``-s``, which
    leaves a profiler only addresses), for ``benchmarks.profile``."""
    with tempfile.TemporaryDirectory(prefix="rf-base-") as tmp:
        tree = Path(tmp) / "base"
        _git("worktree", "add", "--detach", "-q", str(tree), rev)
        try:
            if symbols:  # commits before the stripped release link without -s already
                setup = tree / "setup.py"
                setup.write_text(setup.read_text().replace('["-s"]', "[]"))
            print(f"compiling {rev} in {tree} ...", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"],
                           cwd=tree, check=True, capture_output=True)
            yield tree
        finally:
            _git("worktree", "remove", "--force", str(tree))


def _round(root: Path, rows: list[int], given: dict) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(root), str(ROOT),
                           ",".join(map(str, rows)), ",".join(FORESTS), json.dumps(given)],
                          check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def head_defaults_said(names: list[str]) -> tuple[str, str]:
    """`--head-defaults`' flags as the command line gave them, and the page's words for them."""
    if not names:
        return "", ""
    return (f" --head-defaults {' '.join(names)}",
            f" (both builds with the head's {', '.join(names)})")


def head_defaults(names: list[str], forests: list[str] = FORESTS) -> dict:
    """For each forest, the head's defaults of the parameters `names` (a river object as its
    class path and parameters), to give both builds: the base then runs with a default the
    head changed since, and the comparison is of the code, not of the defaults."""
    import river_forests
    from river_forests._forest import detector_of

    given = {}
    for forest in forests:
        model = getattr(river_forests, forest)()
        params = {}
        for name in names:
            v = getattr(model, name)
            if name.endswith("_detector"):  # a detector's name ("ADWIN") as the object
                v = detector_of(v)
            if hasattr(v, "_get_params"):
                v = {"$class": f"{type(v).__module__}.{type(v).__name__}", "params": v._get_params()}
            params[name] = v
        given[forest] = params
    return given


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the commit to compare this checkout with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 45_312])
    parser.add_argument("--wide-rows", type=int, default=2_000,
                        help="also the first N samples of the bag-of-words and 1,000-column "
                             "one-hot streams (0: elec only)")
    parser.add_argument("--head-defaults", nargs="+", default=[], metavar="PARAM",
                        help="give both builds the head's defaults of these parameters (a "
                             "default changed between base and head, e.g. drift_detector)")
    args = parser.parse_args(argv)
    from benchmarks import store
    from benchmarks.experiments import _common

    base = _git("rev-parse", "--short=10", args.base)
    head = store.our_version()  # refuses a checkout with uncommitted changes to the code
    given = head_defaults(args.head_defaults)
    specs = [f"elec:{n}" for n in args.rows] + \
        ([f"{w}:{args.wide_rows}" for w in WIDE] if args.wide_rows > 0 else [])
    best: dict = {}
    digests: dict = {}
    with built(base) as tree:
        for r in range(args.rounds):
            for side, root in (("base", tree), ("head", ROOT)):
                got = _round(root, specs, given)
                for key, speed in got["speed"].items():
                    best.setdefault(key, {}).setdefault(side, []).append(speed)
                for key, digest in got["digests"].items():
                    digests.setdefault(key, {}).setdefault(side, set()).add(digest)
            print(f"round {r + 1} of {args.rounds}", file=sys.stderr, flush=True)
    rows = []
    for key, sides in best.items():
        name, spec, mode = key.split("|")
        stream, n = spec.split(":")
        b, h = max(sides["base"]), max(sides["head"])
        same = digests[f"{name}|{spec}"]
        rows.append([name.replace("ForestClassifier", ""), stream, f"{int(n):,}", mode, f"{b:,.0f}",
                     f"{h:,.0f}", f"{h / b:.2f}x",
                     "yes" if len(same["base"] | same["head"]) == 1 else "no"])
    flags, given_note = head_defaults_said(args.head_defaults)
    lines = [f"# Base {base} against head {head['commit'][:10]}", "",
             f"`python -m benchmarks.compare_builds {args.base} --rounds {args.rounds} --rows "
             f"{' '.join(map(str, args.rows))} --wide-rows {args.wide_rows}{flags}`; head code "
             f"version `{head['key']}`; "
             f"{_common.machine()}; load average {_common.load_average()}. The first rows of "
             f"elec and of the wide streams (`experiments.speed.samples`), 10 "
             f"trees, seed 42, every forest at its defaults{given_note}; samples/s over the "
             f"whole loop, best of {args.rounds} interleaved rounds. 'same predictions': every "
             f"round of both builds predicted every row alike (a digest of the predictions).", ""]
    lines += _common.markdown_table(["forest", "stream", "rows", "calls", f"base {base}", "head",
                                     "head / base", "same predictions"], rows)
    # test-then-train's cost over learning alone, at each end
    lines += ["", "Test-then-train's cost over `learn_one` alone (learn_one samples/s over "
              "predict-then-learn samples/s):", ""]
    cost = []
    for name in FORESTS:
        for spec in specs:
            k = f"{name}|{spec}|"
            sides = [max(best[k + "learn_one"][s]) / max(best[k + "predict then learn"][s])
                     for s in ("base", "head")]
            stream, n = spec.split(":")
            cost.append([name.replace("ForestClassifier", ""), stream, f"{int(n):,}",
                         f"{sides[0]:.2f}", f"{sides[1]:.2f}"])
    lines += _common.markdown_table(["forest", "stream", "rows", f"base {base}", "head"], cost)
    out = ROOT / "benchmarks" / "results" / "experiments" / "compare_builds.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
