"""The results store: one JSON record per (stream, model, version), under ``results/store/``.

A record's address is ``results/store/<mode>/<stream>/<model>/<version>.json``, with ``mode``
"full" or "quick" (or an experiment's name); it is kept in the pack of its mode and stream,
``results/store/<mode>/<stream>.jsonl.gz`` (see "How records are kept" below). The *version*
of a record is:

- for our forests, ``ours-<code>``: a digest of what in the package's code can change a result
  (:func:`code_key`), taken from the commit it ran on: the compiled sources and every other
  file of ``river_forests/`` byte for byte, ``setup.py`` and ``pyproject.toml`` byte for byte,
  and the package's Python modules as syntax trees without their docstrings, comments and
  documentation-only values (:func:`code_digests`). A docstring or a comment changes no key;
  any other change to that code does. A working tree whose code differs from the last commit
  beyond docstrings and comments is refused (:func:`our_version` raises), so every record of
  ours names code that anyone can check out; the record also holds the commit and the
  package version. Committing results, docs or benchmark scripts does not change the version,
  so the records of a run stay those of the code they describe.
- for river's and MOA's models, the library's version (``river 0.26.1``, ``capymoa 0.15.1;
  openjdk ...``): a peer's record is reused until its library changes.

A record is reused only if its stream's samples (``data``, a digest of the materialised
stream), the model's ``config`` and the harness's ``PROTOCOL`` are the same as now; anything
else is recomputed. The renderer reads the records of one version of ours only, never a mix
(:func:`select`). :func:`prune` deletes the records no committed page quotes.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import os
import re
import subprocess
from collections import Counter
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORE = Path(__file__).resolve().parent / "results" / "store"

#: the code whose version names our records
CODE_PATHS = ("river_forests", "setup.py", "pyproject.toml")

#: the package's folder, whose ``.py`` files are keyed by their syntax trees (every other file
#: of CODE_PATHS, ``setup.py`` included, by its bytes)
PACKAGE = "river_forests/"

#: how the key is made; part of the digest, so a change to :func:`code_digests` (a new scheme)
#: gives every version a new key instead of letting two schemes' keys meet
KEY_SCHEME = b"river-forests code key 1"

#: the measuring protocol; bump it when the harness measures differently (every record recomputed)
PROTOCOL = 1


class DirtyTree(RuntimeError):
    """The package's code has uncommitted changes: its results would name no commit."""


def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


# ------------------------------------------------------------------------- the code's key
# A module's docstrings, comments and documentation-only values change no result; everything
# else in the package may. The package builds some docstrings (``__doc__ = forest_doc(...)``
# from module-level texts such as ``_ALGO_DOC``), so a docstring is more than the string
# statement at the top of a body: see `_strip_docs`.


def committed_files(rev: str = "HEAD") -> dict[str, bytes]:
    """``{path: bytes}`` of every file of CODE_PATHS at commit `rev`."""
    listing = subprocess.run(["git", "ls-tree", "-r", "-z", rev, "--", *CODE_PATHS], cwd=ROOT,
                             capture_output=True, check=True).stdout
    blobs = []
    for entry in filter(None, listing.split(b"\0")):
        meta, name = entry.split(b"\t", 1)
        _, kind, sha = meta.split()
        if kind == b"blob":
            blobs.append((name.decode(), sha))
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=ROOT, check=True, capture_output=True,
                         input=b"".join(sha + b"\n" for _, sha in blobs)).stdout
    files, at = {}, 0
    for name, sha in blobs:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        files[name] = out[header_end + 1:header_end + 1 + size]
        at = header_end + 1 + size + 1
    return files


def working_files() -> dict[str, bytes]:
    """``{path: bytes}`` of the files of CODE_PATHS in the working tree: tracked or untracked,
    not ignored (a built extension or a generated ``.c`` file is not code of a commit)."""
    listing = subprocess.run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard", "--",
                              *CODE_PATHS], cwd=ROOT, capture_output=True, check=True).stdout
    files = {}
    for name in sorted(set(filter(None, listing.decode().split("\0")))):
        p = ROOT / name
        if p.is_file():  # a deleted tracked file is listed, and missing
            files[name] = p.read_bytes()
    return files


def _is_prose(node) -> bool:
    """A statement that is a string alone: a docstring, or a string left as a comment."""
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _is_doc_assignment(node) -> bool:
    """``__doc__ = ...`` (or ``+=``): a docstring built by code; ``_docs = ...``: the entries
    of its parameters a forest rewords (`river_forests._params`)."""
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    return (isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and len(targets) == 1
            and isinstance(targets[0], ast.Name) and targets[0].id in ("__doc__", "_docs"))


def _drop_param_docs(tree) -> None:
    """Remove, in place, the ``doc=`` of every parameter declaration (``Param(..., doc=...)``,
    `river_forests._params`): the parameter's entry in its forest's docstring."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Param":
            node.keywords = [k for k in node.keywords if k.arg != "doc"]


def _bodies(tree):
    """Every list of statements of a module (module, class and function bodies, branches)."""
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                yield node, field, stmts


def _bound_name(stmt) -> str | None:
    """The one name a top-level statement of a module or class binds (``NAME = ...``,
    ``NAME: T = ...``, ``NAME += ...``, ``def NAME``, ``class NAME``), else None."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and isinstance(stmt.target, ast.Name):
        return stmt.target.id
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name
    return None


def _top_levels(tree):
    """The module's body and the bodies of its classes, at any depth of classes."""
    yield tree
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            yield node


def _imported(module: str, node: ast.ImportFrom, modules) -> str | None:
    """The module of the package that ``from ... import`` names, if any."""
    if node.level:
        parts = module.split("/")[:-node.level]
    elif (node.module or "").split(".")[0] == PACKAGE.rstrip("/"):
        parts = []
    else:
        return None
    parts += (node.module or "").split(".") if node.module else []
    base = "/".join(parts)
    return next((m for m in (base + ".py", base + "/__init__.py") if m in modules), None)


def _reads(trees: dict[str, ast.Module]) -> Counter:
    """How many times each module-level or class-level name of the package is read:
    ``{(module, name): count}`` for ``NAME`` in its module (in any scope) or in a module that
    imports it, and ``{(None, name): count}`` for ``x.NAME`` anywhere (whatever ``x`` is)."""
    reads = Counter()
    for module, tree in trees.items():
        origin, star = {}, []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (src := _imported(module, node, trees)):
                for a in node.names:
                    if a.name == "*":
                        star.append(src)
                    else:
                        origin[a.asname or a.name] = (src, a.name)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                reads[origin.get(node.id, (module, node.id))] += 1
                for src in star:
                    reads[(src, node.id)] += 1
            elif isinstance(node, ast.Attribute):
                reads[(None, node.attr)] += 1
    return reads


def _strip_docs(trees: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """Remove, in place, what in the package's modules is documentation only: the string
    statements (docstrings), the assignments to ``__doc__`` and ``_docs``, the ``doc=`` of
    the parameter declarations (``Param``), and then, over and over, the
    top-level bindings (``NAME = ...``, ``NAME += ...``, ``def NAME``, in a module or a class)
    and the imports of the names that were read before and are read nowhere any more
    (``_ALGO_DOC``, ``forest_doc``, ...: every reader was documentation). A name read by any
    code stays, and so does a name read by nothing from the start (a public function, a
    constant); a name also bound elsewhere in its module than by such statements (in a
    function, a loop, ...) is never taken for documentation. Names are resolved by module
    (``NAME`` in its module or where imported from it) except ``x.NAME``, which reads every
    ``NAME`` of the package. Returns the ``(module, name)`` pairs removed."""
    before = _reads(trees)
    candidates = set()
    for module, tree in trees.items():
        top = Counter(n for node in _top_levels(tree) for stmt in node.body
                      if (n := _bound_name(stmt)) is not None)
        binds = Counter()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                binds[node.id] += 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                binds[node.name] += 1
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                binds.update(node.names)
        candidates |= {(module, n) for n, k in top.items() if binds[n] == k}

    def read(reads, key):
        return reads[key] + reads[(None, key[1])]

    for tree in trees.values():
        _drop_param_docs(tree)
        for node, field, stmts in list(_bodies(tree)):
            setattr(node, field, [s for s in stmts if not (_is_prose(s) or _is_doc_assignment(s))])
    gone: set[tuple[str, str]] = set()
    while True:
        now = _reads(trees)
        dead = {key for key in candidates - gone if read(before, key) and not read(now, key)}
        if not dead:
            break
        gone |= dead
        for module, tree in trees.items():
            for node in _top_levels(tree):
                node.body = [s for s in node.body if (module, _bound_name(s)) not in dead]
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and (src := _imported(module, node, trees)):
                    node.names = [a for a in node.names if (src, a.name) not in dead]
    for tree in trees.values():  # an import left with no name imports nothing
        for node, field, stmts in list(_bodies(tree)):
            setattr(node, field, [s for s in stmts if not (isinstance(s, ast.ImportFrom) and not s.names)])
    return gone


def _canonical(node) -> str:
    """A syntax tree as text: each node's class and its fields, leaving out the fields that are
    None or empty (so the text does not depend on fields a newer Python adds with an empty
    default, as 3.12's ``type_params``), constants by ``repr`` (exact for floats), positions never."""
    if isinstance(node, ast.AST):
        fields = [f"{name}={_canonical(value)}" for name, value in ast.iter_fields(node)
                  if value is not None and value != []]
        return f"{type(node).__name__}({','.join(fields)})"
    if isinstance(node, list):
        return "[" + ",".join(_canonical(x) for x in node) + "]"
    return repr(node)


def code_digests(files: dict[str, bytes]) -> dict[str, str]:
    """``{path: digest}`` of what in each file can change a result: a ``.py`` file of the
    package by its syntax tree without documentation (`_strip_docs`, across the package's
    modules at once since one module's texts may document another's classes), every other
    file (the ``.pyx``, ``.pxd`` and ``.pxi`` sources, ``setup.py``, ``pyproject.toml``) by
    its bytes."""
    trees = {p: ast.parse(data, filename=p) for p, data in files.items()
             if p.startswith(PACKAGE) and p.endswith(".py")}
    _strip_docs(trees)
    out = {}
    for p, data in files.items():
        text = _canonical(trees[p]).encode() if p in trees else data
        out[p] = ("ast:" if p in trees else "bytes:") + hashlib.sha256(text).hexdigest()
    return out


def code_key(digests: dict[str, str]) -> str:
    """The 12 hex digits naming a version of the code: a digest of the paths and of
    :func:`code_digests`' digests, in the order of the paths."""
    h = hashlib.sha256(KEY_SCHEME)
    for p in sorted(digests):
        h.update(b"\0" + p.encode() + b"\0" + digests[p].encode())
    return h.hexdigest()[:12]


def key_at(rev: str = "HEAD") -> str:
    """``ours-<code>``: the version of the code committed at `rev`."""
    return "ours-" + code_key(code_digests(committed_files(rev)))


@lru_cache(maxsize=1)
def our_version() -> dict:
    """``{"key": "ours-<code>", "commit": ..., "package": ...}`` for the last commit's code, or
    :class:`DirtyTree` when the working tree's ``river_forests/``, ``setup.py`` or
    ``pyproject.toml`` differ from the last commit in more than docstrings and comments (a
    docstring or comment edit not yet committed is allowed: the commit's code behaves the same;
    ``RIVER_FORESTS_BENCH_ALLOW_DIRTY=1`` lets a developer try a change: its records are keyed
    ``dirty-<the working tree's code>`` and never rendered by default)."""
    import river_forests

    commit = _git("rev-parse", "HEAD")
    committed = code_digests(committed_files(commit))
    working = code_digests(working_files())
    changed = sorted(p for p in committed.keys() | working.keys() if committed.get(p) != working.get(p))
    if changed:
        if os.environ.get("RIVER_FORESTS_BENCH_ALLOW_DIRTY") != "1":
            raise DirtyTree(
                "uncommitted changes to the package's code (beyond docstrings and comments); "
                "commit them first (the records of ours name the code they ran), or set "
                "RIVER_FORESTS_BENCH_ALLOW_DIRTY=1 to try a change (its records are keyed dirty-... "
                "and never rendered by default):\n" + "\n".join(changed))
        return {"key": "dirty-" + code_key(working), "commit": commit,
                "package": river_forests.__version__, "dirty": True}
    return {"key": "ours-" + code_key(committed), "commit": commit, "package": river_forests.__version__}


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
    """The address of a record: ``STORE/<mode>/<stream>/<task>-<model>/<version>.json``, the
    file a loose record has (see "How records are kept" below; a packed one is found by it)."""
    folder = f"{task}-{slug(model)}" if task else slug(model)
    return STORE / mode / stream / folder / f"{version_key}.json"


# ------------------------------------------------------------------ how records are kept
# A record is kept in the *pack* of its (mode, stream), ``STORE/<mode>/<stream>.jsonl.gz``:
# gzip (level 9, no time stamp, so the same records give the same bytes) of JSON lines, a
# header line ``{"pack": 1}`` then one line per record, ``{"at": "<folder>/<version>",
# "record": {...}}``, sorted by ``at``, each record's JSON compact with sorted keys. Floats are
# kept as they were measured (``repr``, exact): nothing is rounded. Until issue 46 each record
# was a file of its own, indented JSON at its address (a *loose* record): 6,907 files, 27 MB.
# Loose records are still read, and win over a packed record at the same address (a loose
# record is one an older checkout wrote after the pack); `save` writes into the pack and
# removes a loose record at the address; ``python -m benchmarks.compact --apply`` packs the
# loose records that are left (and shrinks the pictures).

#: the first line of a pack; a reader refuses another
PACK_HEADER = {"pack": 1}


def pack_of(p: Path) -> tuple[Path, str]:
    """``(pack, at)``: the pack holding the record at address `p`, and its name there."""
    return p.parent.parent.with_name(p.parent.parent.name + ".jsonl.gz"), f"{p.parent.name}/{p.stem}"


def address(pack: Path, at: str) -> Path:
    """The address of record `at` of `pack` (the inverse of :func:`pack_of`)."""
    return pack.with_name(pack.name[:-len(".jsonl.gz")]) / f"{at}.json"


def encode(record: dict) -> str:
    """A record as a pack writes it: compact JSON, keys sorted."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


_PACKS: dict[Path, tuple[tuple, dict]] = {}  # pack -> (its stat when read, {at: its line})


def pack_line(at: str, record: dict) -> str:
    """The line of a pack holding `record` as `at`."""
    return encode({"at": at, "record": record})


def pack_lines(pack: Path) -> dict[str, str]:
    """``{at: line}`` of a pack (empty if there is none), cached while the file is unchanged
    (the lines, not the records: every reader gets records of its own to change)."""
    try:
        st = pack.stat()
    except OSError:
        return {}
    sign = (st.st_mtime_ns, st.st_size, st.st_ino)
    cached = _PACKS.get(pack)
    if cached is not None and cached[0] == sign:
        return cached[1]
    lines = gzip.decompress(pack.read_bytes()).decode().splitlines()
    if not lines or json.loads(lines[0]) != PACK_HEADER:
        raise ValueError(f"{pack}: not a pack of records of this version ({lines[:1]})")
    out = {json.loads(line)["at"]: line for line in lines[1:]}
    _PACKS[pack] = (sign, out)
    return out


def read_pack(pack: Path) -> dict[str, dict]:
    """``{at: record}`` of a pack (empty if there is none)."""
    return {at: json.loads(line)["record"] for at, line in pack_lines(pack).items()}


def pack_bytes(lines: dict[str, str]) -> bytes:
    """The bytes of a pack of `lines` (``{at: pack_line(at, record)}``)."""
    text = "\n".join([encode(PACK_HEADER)] + [lines[at] for at in sorted(lines)]) + "\n"
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def write_pack(pack: Path, lines: dict[str, str]) -> None:
    """Write `lines` (``{at: line}``) as `pack`, atomically; no lines: no pack."""
    _PACKS.pop(pack, None)
    if not lines:
        pack.unlink(missing_ok=True)
        return
    pack.parent.mkdir(parents=True, exist_ok=True)
    tmp = pack.with_name(f"{pack.name}.{os.getpid()}.tmp")
    tmp.write_bytes(pack_bytes(lines))
    tmp.replace(pack)


@contextmanager
def locked(folder: Path):
    """Hold an exclusive lock on `folder` (a mode's folder of the store) while a pack of it is
    read, changed and written: two processes of a run (or two runs) may write records of the
    same stream. A lock on the folder itself (``flock``), so no lock file is left behind;
    where ``fcntl`` is missing (Windows), no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover
        folder.mkdir(parents=True, exist_ok=True)
        yield
        return
    while True:  # the folder may go (emptied by another process) while we wait: lock the new one
        folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(folder, os.O_RDONLY)
        except FileNotFoundError:
            continue
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(folder).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    try:
        yield
    finally:
        os.close(fd)  # releases the lock


def _load_loose(p: Path) -> dict | None:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return None


def load(p: Path) -> dict | None:
    """The record at address `p` (loose or packed), or None."""
    loose = _load_loose(p)
    if loose is not None:
        return loose
    pack, at = pack_of(p)
    line = pack_lines(pack).get(at)
    return None if line is None else json.loads(line)["record"]


def exists(p: Path) -> bool:
    return load(p) is not None


def _remove_loose(p: Path) -> None:
    """Delete the loose record at `p` if any, and the folders it leaves empty."""
    if not p.is_file():
        return
    p.unlink()
    for folder in (p.parent, p.parent.parent, p.parent.parent.parent):
        if folder != STORE and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def update(changes: dict[Path, dict | None]) -> None:
    """Store each record of `changes` (``{address: record}``) into its pack, replacing one at
    its address, or remove it (``{address: None}``), one write per pack; a loose record at a
    changed address is removed."""
    by_pack: dict[Path, dict[str, dict | None]] = {}
    for p, record in changes.items():
        pack, at = pack_of(p)
        by_pack.setdefault(pack, {})[at] = record
    for pack, items in sorted(by_pack.items()):
        with locked(pack.parent):
            lines = dict(pack_lines(pack))
            for at, record in items.items():
                if record is None:
                    lines.pop(at, None)
                else:
                    lines[at] = pack_line(at, record)
            write_pack(pack, lines)
            for at in items:
                _remove_loose(address(pack, at))
        try:  # a mode left without records goes (unless another process writes one now)
            if pack.parent != STORE and not any(pack.parent.iterdir()):
                pack.parent.rmdir()
        except OSError:
            pass


def save(record: dict, p: Path) -> None:
    """Store `record` at address `p` (into its pack)."""
    update({p: record})


def delete_records(*paths: Path) -> None:
    """Remove the records at these addresses, packed and loose."""
    update(dict.fromkeys(paths))


#: where the loose records are, from the store's folder
LOOSE = "*/*/*/*.json"


def entries(mode: str = "*", stream: str = "*") -> list[tuple[Path, dict]]:
    """``[(address, record)]`` of every record of the store (or of one mode, one stream),
    packed and loose (a loose record wins over a packed one at its address), sorted by address."""
    out = {}
    for pack in sorted(STORE.glob(f"{mode}/{stream}.jsonl.gz")):
        for at, record in read_pack(pack).items():
            out[address(pack, at)] = record
    for p in sorted(STORE.glob(f"{mode}/{stream}/*/*.json")):
        if (record := _load_loose(p)) is not None:
            out[p] = record
    return sorted(out.items(), key=lambda item: str(item[0]))


def size_on_disk(folder: Path) -> int:
    """The bytes `folder` takes on disk: the blocks of its files and folders, as ``du`` counts."""
    return sum(p.lstat().st_blocks * 512 for p in [folder, *folder.rglob("*")])


def reusable(record: dict | None, data: str, config: str) -> bool:
    """Whether a stored record measured these samples with this config and protocol."""
    return (record is not None and record.get("data") == data and record.get("config") == config
            and record.get("protocol") == PROTOCOL and record.get("status") == "ok")


def records(mode: str, stream: str = "*") -> list[dict]:
    """Every record stored for `mode` (of one stream if given)."""
    return [r for _, r in entries(mode, stream)]


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



# ------------------------------------------------------------------------------ pruning

#: the committed pages whose quoted versions of ours :func:`prune` keeps (globs from the root)
PAGES = ("benchmarks/results/report/*.md", "benchmarks/results/experiments/*.md", "docs/**/*.md")

#: a version of ours as a page quotes it
QUOTED = re.compile(r"\b(?:ours|dirty)-[0-9a-f]{12}\b")


def quoted_versions(pages=PAGES) -> dict[str, set[str]]:
    """``{version: {page, ...}}``: the versions of ours the pages name, in the last commit or
    in the working tree (a page rendered but not committed yet counts too)."""
    out: dict[str, set[str]] = {}
    texts = {}
    for pattern in pages:
        for p in sorted(ROOT.glob(pattern)):
            texts[p.relative_to(ROOT).as_posix()] = p.read_text(errors="replace")
    committed = subprocess.run(["git", "grep", "-I", "-o", "-E", "(ours|dirty)-[0-9a-f]{12}", "HEAD",
                                "--", *(f":(glob){g}" for g in pages)],
                               cwd=ROOT, capture_output=True, text=True).stdout
    for line in committed.splitlines():  # HEAD:path:match
        _, page, match = line.split(":", 2)
        out.setdefault(match, set()).add(page)
    for page, text in texts.items():
        for match in QUOTED.findall(text):
            out.setdefault(match, set()).add(page)
    return out


def _family_of(key: str) -> str:
    return "ours" if key.startswith(("ours-", "dirty-")) else key.split("-", 1)[0]


def prune_plan(quoted: dict[str, set[str]] | None = None, current: str | None = None):
    """``(keep, delete)``: lists of ``(path, record, why)`` over every record of the store.
    A record of ours is kept when a page quotes its version (or the version it was stored under
    before the key changed, ``version.old_key``) or it is the version of the last commit's
    code (`current`; its records may not be rendered yet); a peer's record (river's, MOA's:
    keyed by their library's version) when it is the newest record of its place (mode,
    stream, model), the one the renderer reads. Everything else is deleted: no page quotes it
    and the repository's history keeps it."""
    quoted = quoted_versions() if quoted is None else quoted
    current = key_at("HEAD") if current is None else current
    recs = entries()
    newest = {}
    for p, r in recs:
        if _family_of(r["version"]["key"]) != "ours":
            place = p.parent
            if place not in newest or r.get("recorded", "") > newest[place][1].get("recorded", ""):
                newest[place] = (p, r)
    keep, delete = [], []
    for p, r in recs:
        v = r["version"]
        names = [k for k in (v["key"], v.get("old_key")) if k]
        if _family_of(v["key"]) == "ours":
            pages = sorted(set().union(*(quoted.get(k, set()) for k in names)))
            if pages:
                more = f" and {len(pages) - 2} more pages" if len(pages) > 3 else ""
                keep.append((p, r, "quoted by " + ", ".join(pages[:2] if more else pages) + more))
            elif v["key"] == current:
                keep.append((p, r, "the last commit's code"))
            else:
                delete.append((p, r, "quoted by no page"))
        elif newest[p.parent][0] == p:
            keep.append((p, r, "the newest record of its place"))
        else:
            delete.append((p, r, "a newer record of its place"))
    return keep, delete


def prune(apply: bool = False, out=None) -> tuple[int, int]:
    """Print what :func:`prune_plan` keeps and deletes, per version (the bytes of the records'
    JSON, before compression); with `apply`, delete it (and the folders and packs left empty).
    Returns (records deleted, their bytes)."""
    import sys

    out = out or sys.stdout
    keep, delete = prune_plan()
    rows: dict[tuple[str, str], list] = {}
    for verdict, items in (("keep", keep), ("delete", delete)):
        for p, r, why in items:
            v = r["version"]
            label = v["key"] + (f" (was {v['old_key']})" if v.get("old_key") else "")
            row = rows.setdefault((verdict, label), [0, 0, why])
            row[0] += 1
            row[1] += len(encode(r))
    for (verdict, label), (n, size, why) in sorted(rows.items()):
        print(f"{verdict:<6} {label:<58} {n:>5} records {size / 1e6:>6.1f} MB  {why}", file=out)
    size = sum(len(encode(r)) for _, r, _ in delete)
    total = sum(len(encode(r)) for _, r, _ in keep) + size
    print(f"{len(delete)} of {len(keep) + len(delete)} records {'deleted' if apply else 'to delete'} "
          f"({size / 1e6:.1f} of {total / 1e6:.1f} MB)" + ("" if apply else "; a dry run: --apply "
                                                         "deletes them"), file=out)
    if apply:
        delete_records(*(p for p, _, _ in delete))
    return len(delete), size
