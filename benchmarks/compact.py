"""Make the recorded results small (issue 46): pack the loose records, shrink the pictures.

    python -m benchmarks.compact            # what it would do, and the sizes (a dry run)
    python -m benchmarks.compact --apply    # do it

Until issue 46 every record of the store was a file of its own, indented JSON (a *loose*
record), and every picture a 32-bit PNG; ``benchmarks/results`` took 62 MB on disk. The code
now writes records into the pack of their mode and stream (``benchmarks.store``, "How records
are kept") and pictures with a palette (``benchmarks.figures``). This moves what an older
checkout wrote into that form: every loose record into its pack (replacing a packed record at
the same address: the loose one is the later), unchanged, then deleted; every picture under
``benchmarks/results`` without a palette rewritten with one. Nothing is rounded and no record
is dropped (pruning is ``python -m benchmarks prune``). Run it again whenever an older checkout
has written results (a background run started before issue 46, a merge): it finds only what is
left to do, and nothing on a second run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks import figures, store

def plan(results: Path | None = None):
    """``(loose, pictures)``: ``{pack: {address: record}}`` of the loose records to pack, and
    ``[(png, smaller bytes)]`` of the pictures to rewrite."""
    results = store.STORE.parent if results is None else results
    loose: dict[Path, dict[Path, dict]] = {}
    for p in sorted(store.STORE.glob(store.LOOSE)):
        record = store.load(p)
        if record is not None:
            loose.setdefault(store.pack_of(p)[0], {})[p] = record
    pictures = []
    for png in sorted(results.rglob("*.png")):
        small = figures.shrink(png.read_bytes())
        if small is not None:
            pictures.append((png, small))
    return loose, pictures


def _packed_size(pack: Path, records: dict[Path, dict]) -> int:
    """The bytes `pack` would take with `records` added."""
    lines = dict(store.pack_lines(pack))
    for p, record in records.items():
        at = store.pack_of(p)[1]
        lines[at] = store.pack_line(at, record)
    return len(store.pack_bytes(lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apply", action="store_true", help="do it (default: a dry run)")
    args = parser.parse_args(argv)
    results = store.STORE.parent
    before = store.size_on_disk(results) if results.is_dir() else 0
    loose, pictures = plan(results)
    n_loose = sum(map(len, loose.values()))
    loose_bytes = sum(p.stat().st_blocks * 512 for records in loose.values() for p in records)
    moved = {p for records in loose.values() for p in records}
    folders = {f for p in moved for f in (p.parent, p.parent.parent)}  # the folders left empty go
    loose_bytes += sum(f.stat().st_blocks * 512 for f in folders
                       if all(q in moved for q in f.rglob("*") if q.is_file()))
    pack_bytes = {pack: pack.stat().st_blocks * 512 if pack.exists() else 0 for pack in loose}
    after_packs = {pack: _packed_size(pack, records) for pack, records in loose.items()}
    png_before = sum(png.stat().st_blocks * 512 for png, _ in pictures)
    for pack, records in sorted(loose.items()):
        print(f"pack {len(records):>4} loose records into {pack.relative_to(store.STORE)} "
              f"({pack_bytes[pack] / 1e3:,.0f} kB now, {after_packs[pack] / 1e3:,.0f} kB then)")
    for png, small in pictures:
        print(f"shrink {png.relative_to(results)}: {png.stat().st_size / 1e3:,.0f} kB to "
              f"{len(small) / 1e3:,.0f} kB")
    blocks = sum(-(-n // 4096) * 4096 for n in [*after_packs.values(), *(len(s) for _, s in pictures)])
    after = before - loose_bytes - sum(pack_bytes.values()) - png_before + blocks
    print(f"{n_loose} loose records into {len(loose)} packs, {len(pictures)} pictures; "
          f"benchmarks/results: {before / 2**20:.1f} MiB on disk, about {after / 2**20:.1f} MiB after"
          + ("" if args.apply else " (a dry run: --apply does it)"))
    if args.apply:
        for records in loose.values():
            store.update(records)
        for png, small in pictures:
            png.write_bytes(small)
        print(f"benchmarks/results: {store.size_on_disk(results) / 2**20:.1f} MiB on disk")
    return 0


if __name__ == "__main__":
    sys.exit(main())
