"""The benchmark's command line: ``python -m benchmarks <command>`` from the repository root.

    python -m benchmarks run                 # the full run: every stream, every model
    python -m benchmarks run --quick         # every stream cut to 2,000 samples
    python -m benchmarks run --family ours   # our forests only (peers' records are reused)
    python -m benchmarks render              # tables, ranks, Friedman test, plots, docs page
    python -m benchmarks list                # the streams (task, length, category, half)
    python -m benchmarks experiment NAME     # a paper's reproduction (see --help)
    python -m benchmarks prune [--apply]     # delete the records no committed page quotes

See ``benchmarks/README.md``.
"""

from __future__ import annotations

import argparse
import sys

from benchmarks import models as model_registry
from benchmarks import runner, store
from benchmarks import streams as stream_registry


def _run(args) -> int:
    families = args.family or ["ours", "river", "moa"]
    if "moa" in families:
        from benchmarks import moa

        reason = moa.available()
        if reason:
            print(f"MOA's rows skipped: {reason}", file=sys.stderr)
            families = [f for f in families if f != "moa"]
    if "ours" in families:
        try:
            store.our_version()
        except store.DirtyTree as e:
            print(f"benchmarks: {e}", file=sys.stderr)
            return 2
    jobs = runner.plan(quick=args.quick, streams=args.streams, families=families, names=args.models,
                       half=args.half)
    todo = runner.pending(jobs, force=args.force)
    print(f"{len(jobs)} (stream, model) pairs selected, {len(jobs) - len(todo)} already stored",
          file=sys.stderr)
    failed = runner.execute(todo, n_jobs=args.jobs, max_seconds=args.max_seconds)
    return 1 if failed else 0


def _render(args) -> int:
    from benchmarks import render

    return render.main(quick=args.quick, ours=args.version)


def _list(args) -> int:
    for s in stream_registry.STREAMS.values():
        print(f"{s.name:<22} {s.task} {s.n:>7,} {s.category:<11} {s.half:<7} {s.source}")
    return 0


def _experiment(args) -> int:
    from benchmarks import experiments

    if args.name == "list" or args.name not in experiments.names():
        print("experiments: " + ", ".join(experiments.names()), file=sys.stderr)
        return 0 if args.name == "list" else 2
    try:
        store.our_version()
    except store.DirtyTree as e:
        print(f"benchmarks: {e}", file=sys.stderr)
        return 2
    return 1 if runner.run_experiment(args.name, quick=args.quick, n_jobs=args.jobs,
                                      force=args.force) else 0


def _prune(args) -> int:
    store.prune(apply=args.apply)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run what the store lacks")
    run.add_argument("--quick", action="store_true", help=f"every stream cut to {runner.QUICK_N:,} samples")
    run.add_argument("--family", nargs="+", choices=["ours", "river", "moa"])
    run.add_argument("--streams", nargs="+", choices=sorted(stream_registry.STREAMS), metavar="STREAM")
    run.add_argument("--models", nargs="+", metavar="MODEL",
                     choices=sorted({m.name for m in model_registry.MODELS.values()}))
    run.add_argument("--half", choices=["tuning", "report"])
    run.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    run.add_argument("--force", action="store_true", help="recompute stored records")
    run.add_argument("--max-seconds", type=float, default=None,
                     help="stop a run past this many seconds (recorded as stopped, ranked last)")
    run.set_defaults(func=_run)
    render = sub.add_parser("render", help="tables, ranks and plots from the store")
    render.add_argument("--quick", action="store_true")
    render.add_argument("--version", default=None, help="the version of ours to render (default newest)")
    render.set_defaults(func=_render)
    sub.add_parser("list", help="the streams").set_defaults(func=_list)
    exp = sub.add_parser("experiment", help="a paper's reproduction on the same runner and store")
    exp.add_argument("name")
    exp.add_argument("--quick", action="store_true")
    exp.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    exp.add_argument("--force", action="store_true", help="recompute stored measurements")
    exp.set_defaults(func=_experiment)
    prune = sub.add_parser("prune", help="delete the records no committed page quotes (a dry run "
                           "unless --apply)")
    prune.add_argument("--apply", action="store_true", help="delete them (default: list them)")
    prune.set_defaults(func=_prune)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
