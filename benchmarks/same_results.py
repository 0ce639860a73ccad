"""Two versions of ours in the benchmark's store, result by result: the same metric or not, and
the later one's speed over the earlier one's.

    python -m benchmarks.same_results ours-6ed22f27b973 ours-f94a6d95fbc7   # before, after

For every (mode, stream, task, model, config) the store holds at both versions, it compares
the recorded metric (exactly) and the samples/s; it prints, and writes to
``results/experiments/same_results_<before>_<after>.md``, how many pairs there are, which
metrics differ, and each model's speed ratio (after over before): the geometric mean over its
streams and the lowest and highest. A change meant to keep every result (a speed-up pinned
bit for bit) shows no differing metric; the speeds are of separate full runs, so their ratios
say how much two runs of the same code can differ on this machine as much as anything else.
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

from benchmarks import store


def pairs(before: str, after: str, mode: str = "full") -> dict:
    """``{(stream, task, model, config): (record before, record after)}`` of the store."""
    seen: dict = defaultdict(dict)
    for pack in sorted((store.STORE / mode).glob("*.jsonl.gz")):
        for record in store.read_pack(pack).values():
            key = record["version"]["key"]
            if key in (before, after):
                seen[(record["stream"], record["task"], record["model"], record["config"])][key] = record
    return {k: (v[before], v[after]) for k, v in seen.items() if len(v) == 2}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--mode", default="full")
    args = parser.parse_args(argv)
    from benchmarks.experiments import _common

    both = pairs(args.before, args.after, args.mode)
    differ = sorted(k for k, (b, a) in both.items() if b.get("metric") != a.get("metric"))
    ratios: dict = defaultdict(list)
    for (stream, task, _, config), (b, a) in both.items():
        if b.get("samples_per_s") and a.get("samples_per_s"):
            ratios[(task, a["model"], config)].append((a["samples_per_s"] / b["samples_per_s"], stream))
    lines = [f"# {args.after} against {args.before}, result by result", "",
             f"`python -m benchmarks.same_results {args.before} {args.after}`: the benchmark's "
             f"{args.mode} records of both versions. {len(both)} results at both; "
             f"{len(differ)} with a different metric.", ""]
    lines += [f"- differs: {' / '.join(k[:3])}" for k in differ] + ([""] if differ else [])
    rows = []
    for (task, model, config), rs in sorted(ratios.items()):
        mean = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
        low, high = min(rs), max(rs)
        rows.append([task, model, str(len(rs)), f"{mean:.2f}",
                     f"{low[0]:.2f} ({low[1]})", f"{high[0]:.2f} ({high[1]})"])
    lines += ["Samples/s after over before (separate full runs):", ""]
    lines += _common.markdown_table(["task", "model", "streams", "geometric mean", "lowest",
                                     "highest"], rows)
    out = store.STORE.parent / "experiments" / f"same_results_{args.before}_{args.after}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
