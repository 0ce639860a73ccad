"""The results store: one JSON record per (stream, model, version), under ``results/store/``.

``results/store/<mode>/<stream>/<model>/<version>.json``, with ``mode`` "full" or "quick" (or
an experiment's name). The *version* of a record is:

- for our forests, ``ours-<code>``: the git tree of the package's code (``river_forests/``,
  ``setup.py``, ``pyproject.toml``) at the commit it ran on. A tree with uncommitted changes
  to that code is refused (:func:`our_version` raises), so every record of ours names code that
  anyone can check out; the record also holds the commit and the package version. Committing
  results, docs or benchmark scripts does not change the version, so the records of a run stay
  those of the code they describe.
- for river's and MOA's models, the library's version (``river 0.26.1``, ``capymoa 0.15.1;
  openjdk ...``): a peer's record is reused until its library changes.

A record is reused only if its stream's samples (``data``, a digest of the materialised
stream), the model's ``config`` and the harness's ``PROTOCOL`` are the same as now; anything
else is recomputed. The renderer reads the records of one version of ours only, never a mix
(:func:`select`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORE = Path(__file__).resolve().parent / "results" / "store"

#: the code whose version names our records
CODE_PATHS = ("river_forests", "setup.py", "pyproject.toml")

#: the measuring protocol; bump it when the harness measures differently (every record recomputed)
PROTOCOL = 1


class DirtyTree(RuntimeError):
    """The package's code has uncommitted changes: its results would name no commit."""


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


@lru_cache(maxsize=1)
def our_version() -> dict:
    """``{"key": "ours-<code>", "commit": ..., "package": ...}`` for the checked-out code, or
    :class:`DirtyTree` when ``river_forests/``, ``setup.py`` or ``pyproject.toml`` differ from
    the last commit (``RIVER_FORESTS_BENCH_ALLOW_DIRTY=1`` lets a developer try a change: its
    records are keyed ``dirty-...`` and never rendered by default)."""
    import river_forests

    dirty = _git("status", "--porcelain", "--", *CODE_PATHS)
    commit = _git("rev-parse", "HEAD")
    trees = [_git("rev-parse", f"HEAD:{p}") for p in CODE_PATHS]
    code = hashlib.sha256(" ".join(trees).encode()).hexdigest()[:12]
    if dirty:
        if os.environ.get("RIVER_FORESTS_BENCH_ALLOW_DIRTY") != "1":
            raise DirtyTree(
                "uncommitted changes to the package's code; commit them first (the records of ours "
                "name the code they ran), or set RIVER_FORESTS_BENCH_ALLOW_DIRTY=1 to try a change "
                "(its records are keyed dirty-... and never rendered by default):\n" + dirty)
        diff = _git("diff", "HEAD", "--", *CODE_PATHS)
        code = "dirty-" + hashlib.sha256((code + diff).encode()).hexdigest()[:12]
        return {"key": code, "commit": commit, "package": river_forests.__version__, "dirty": True}
    return {"key": f"ours-{code}", "commit": commit, "package": river_forests.__version__}


def peer_version(family: str) -> dict:
    if family == "river":
        import river

        return {"key": f"river-{river.__version__}", "library": f"river {river.__version__}"}
    from benchmarks import moa

    lib = moa.version()
    return {"key": "moa-" + re.sub(r"[^A-Za-z0-9._-]+", "_", lib)[:60], "library": lib}


def version_of(family: str) -> dict:
    return our_version() if family == "ours" else peer_version(family)


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_")


def path(mode: str, stream: str, model: str, version_key: str, task: str = "") -> Path:
    folder = f"{task}-{slug(model)}" if task else slug(model)
    return STORE / mode / stream / folder / f"{version_key}.json"


def load(p: Path) -> dict | None:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def save(record: dict, p: Path) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    tmp.replace(p)


def reusable(record: dict | None, data: str, config: str) -> bool:
    """Whether a stored record measured these samples with this config and protocol."""
    return (record is not None and record.get("data") == data and record.get("config") == config
            and record.get("protocol") == PROTOCOL and record.get("status") == "ok")


def records(mode: str) -> list[dict]:
    """Every record stored for `mode`."""
    folder = STORE / mode
    return [r for p in sorted(folder.glob("*/*/*.json")) if (r := load(p)) is not None]


def select(recs: list[dict], ours: str | None = None) -> tuple[list[dict], str | None]:
    """The records to render: ours of one version only (`ours`; by default the version of the
    checked-out code if it has records, else the most recently recorded ``ours-...`` version;
    ``dirty-...`` records only when named), and for each (stream, model) of the peers the
    newest record. Records of ours of any other version are left out, never mixed in."""
    mine = [r for r in recs if r["family"] == "ours"]
    if ours is None:
        try:
            current = our_version()["key"]
        except DirtyTree:
            current = None
        if any(r["version"]["key"] == current for r in mine):
            ours = current
        else:
            clean = [r for r in mine if r["version"]["key"].startswith("ours-")]
            ours = max(clean, key=lambda r: r["recorded"])["version"]["key"] if clean else None
    chosen = [r for r in mine if r["version"]["key"] == ours]
    newest = {}
    for r in recs:
        if r["family"] == "ours":
            continue
        key = (r["stream"], r["task"], r["model"])
        if key not in newest or r["recorded"] > newest[key]["recorded"]:
            newest[key] = r
    return chosen + list(newest.values()), ours
