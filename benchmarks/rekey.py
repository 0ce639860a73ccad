"""One-off (issue 46): move the records of ours from the old key to the new one.

    python -m benchmarks.rekey            # what would move (a dry run)
    python -m benchmarks.rekey --apply    # move them

Until issue 46 a version of ours was keyed by the git trees of ``river_forests/``, ``setup.py``
and ``pyproject.toml`` (:func:`old_key_at`), so a docstring edit made every record stale; it is
now keyed by what can change a result (:func:`benchmarks.store.key_at`). Every record of ours
names the commit it ran on: for each, the old key is recomputed at that commit and must be the
record's (else the record is left where it is, and listed), and the record moves to the new
key of that commit, keeping the old one as ``version.old_key`` (the pages that quote the old
key still find it, see ``store.prune``). Records of a dirty tree (``dirty-...``) name no
commit's code and stay. A record whose new place is taken is left and listed. Run once; a
second run finds nothing to move.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections import Counter
from functools import lru_cache

from benchmarks import store


@lru_cache(maxsize=None)
def old_key_at(commit: str) -> str:
    """The key before issue 46: the git trees of the code at `commit`."""
    trees = [store._git("rev-parse", f"{commit}:{p}") for p in store.CODE_PATHS]
    return "ours-" + hashlib.sha256(" ".join(trees).encode()).hexdigest()[:12]


@lru_cache(maxsize=None)
def new_key_at(commit: str) -> str:
    return store.key_at(commit)


def plan():
    """``(moves, left)``: ``(old path, new path, record)`` to move, ``(path, why)`` left."""
    moves, left = [], []
    for p, r in store.entries():
        if not r["version"]["key"].startswith("ours-") or r["version"].get("old_key"):
            continue
        key, commit = r["version"]["key"], r["version"].get("commit", "")
        try:
            old, new = old_key_at(commit), new_key_at(commit)
        except Exception as e:  # a commit this repository does not have
            left.append((p, f"commit {commit[:10]} unreadable: {e}"))
            continue
        if old != key:
            left.append((p, f"its key {key} is not the code's at {commit[:10]} ({old})"))
            continue
        target = p.with_name(f"{new}.json")
        if store.exists(target):
            left.append((p, f"{target.name} exists"))
            continue
        r["version"] = dict(r["version"], key=new, old_key=key)
        moves.append((p, target, r))
    return moves, left


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apply", action="store_true", help="move the records (default: a dry run)")
    args = parser.parse_args(argv)
    moves, left = plan()
    pairs = Counter((r["version"]["old_key"], r["version"]["key"]) for _, _, r in moves)
    for (old, new), n in sorted(pairs.items()):
        print(f"{old} -> {new}: {n} records")
    for p, why in left:
        print(f"left {p.relative_to(store.STORE)}: {why}")
    print(f"{len(moves)} records to move, {len(left)} left" + ("" if args.apply else " (a dry run)"))
    if args.apply:
        changes = {}
        for old_path, new_path, record in moves:
            changes[old_path], changes[new_path] = None, record
        store.update(changes)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
