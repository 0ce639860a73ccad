"""What a user downloads and installs: the size of a wheel, what is in it, the size it installs
to, and how long pip takes to install it (or to build and install a source tree or sdist).

    python -m benchmarks.package_size before=dist-0/river_forests-...whl after=wheelhouse/...whl \\
        "source before=/tmp/checkout-at-main" "source after=." --out package_size.md

Each argument is ``label=path``: a wheel, an sdist (``.tar.gz``) or a source tree. Nothing is
built beforehand: each is installed with ``pip install --no-deps --no-index
--no-build-isolation --target <temporary folder>`` by the Python running this script (an sdist
or a source tree is compiled by that command, so that Python needs the build requirements:
setuptools, Cython, numpy; no network is used), the wall time of that command is the install
time (the best of ``--repeat`` runs for a wheel, one run for a source build), and the
installed size is ``du -s`` of the ``river_forests`` folder it made (bytes on disk). The
installed package is then imported from a folder outside the repository and one small forest
learns and predicts, to check that what was measured works. Sizes in MB (10^6 bytes).
Writes ``results/package/<--out>`` (default ``package_size.md``) and prints it.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

from benchmarks.experiments._common import load_average, markdown_table

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "package"

#: run from a folder outside the repository, on the installed package only
_SMOKE = r"""
import sys
target = sys.argv[1]
import river_forests, river_forests._core._forest as core
assert core.__file__.startswith(target), core.__file__
from river import datasets
model = river_forests.MondrianForestClassifier(n_estimators=3, seed=42)
for x, y in list(datasets.Phishing())[:200]:
    model.predict_proba_one(x)
    model.learn_one(x, y)
print(river_forests.__version__)
"""


def elf_sections(data: bytes) -> set[str] | None:
    """The section names of a 64-bit little-endian ELF file (None if `data` is not one)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab_offset = headers[shstrndx][4]
    names = set()
    for header in headers:
        start = strtab_offset + header[0]
        names.add(data[start:data.index(b"\0", start)].decode())
    return names


def wheel_contents(path: Path) -> dict:
    """Counts and uncompressed sizes by kind of the files in a wheel (or an sdist)."""
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as z:
            files = [(i.filename, i.file_size, lambda i=i, z=z: z.read(i)) for i in z.infolist()
                     if not i.is_dir()]
            return _classify(files)
    with tarfile.open(path) as t:
        files = [(m.name, m.size, lambda m=m, t=t: t.extractfile(m).read()) for m in t.getmembers()
                 if m.isfile()]
        return _classify(files)


def _classify(files: list) -> dict:
    out = {"files": len(files), "c": [0, 0], "pyx": [0, 0], "ext": [0, 0], "license": False,
           "stripped": "n/a"}
    unstripped = stripped = 0
    for name, size, read in files:
        base = name.rsplit("/", 1)[-1]
        if base.endswith(".c"):
            out["c"][0] += 1
            out["c"][1] += size
        elif base.endswith(".pyx"):
            out["pyx"][0] += 1
            out["pyx"][1] += size
        elif base.endswith((".so", ".pyd", ".dylib")):
            out["ext"][0] += 1
            out["ext"][1] += size
            sections = elf_sections(read())
            if sections is not None:
                if {".symtab", ".debug_info"} & sections:
                    unstripped += 1
                else:
                    stripped += 1
        elif base.startswith(("LICENSE", "COPYING")):
            out["license"] = True
    if unstripped or stripped:
        out["stripped"] = f"{stripped} of {stripped + unstripped}"
    return out


def du(folder: Path) -> int:
    """Bytes on disk under `folder`, as ``du -s`` counts them (512-byte blocks)."""
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) + \
        folder.stat().st_blocks * 512


def install(path: Path, repeat: int) -> tuple[float, int, str]:
    """(best wall time of the install, installed bytes on disk, the smoke run's output)."""
    best = float("inf")
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="rf-size-") as tmp:
            target = Path(tmp) / "site"
            command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                       "--no-build-isolation", "--target", str(target), str(path)]
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=tmp)
            best = min(best, time.perf_counter() - start)
            size = du(target / "river_forests")
            env = {**os.environ, "PYTHONPATH": str(target)}
            smoke = subprocess.run([sys.executable, "-c", _SMOKE, str(target)], check=True,
                                   capture_output=True, text=True, cwd=tmp, env=env)
    return best, size, smoke.stdout.strip()


def mb(n: float) -> str:
    return f"{n / 1e6:.1f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", nargs="+", help="label=path of a wheel, an sdist or a tree")
    parser.add_argument("--repeat", type=int, default=3, help="installs of a wheel (best kept)")
    parser.add_argument("--out", default="package_size.md")
    parser.add_argument("--note", default="", help="a paragraph on where the artifacts came from")
    args = parser.parse_args(argv)

    rows = []
    for item in args.items:
        label, _, name = item.partition("=")
        path = Path(name).resolve()
        is_wheel = path.suffix == ".whl"
        seconds, installed, smoke = install(path, args.repeat if is_wheel else 1)
        if path.is_file():
            c = wheel_contents(path)
            rows.append([label, f"`{path.name}`", mb(path.stat().st_size), c["files"],
                         f"{c['c'][0]} ({mb(c['c'][1])} MB)", c["pyx"][0],
                         f"{c['ext'][0]} ({mb(c['ext'][1])} MB)", c["stripped"],
                         "yes" if c["license"] else "no", mb(installed),
                         f"{seconds:.1f}", smoke])
        else:
            rows.append([label, "source tree", "", "", "", "", "", "", "", mb(installed),
                         f"{seconds:.1f}", smoke])
        print(f"{label}: done", file=sys.stderr, flush=True)

    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True,
                         text=True).stdout.split(" from ")[0]
    lines = ["# Package size and install time", "",
             f"`python -m benchmarks.package_size {shlex.join(argv or sys.argv[1:])}`; "
             f"{platform.machine()}, {os.cpu_count()} cores, Python "
             f"{platform.python_version()}, {pip}; load average {load_average()} at the end. "
             "Sizes in MB (10^6 bytes); in an archive, its files' uncompressed sizes. The "
             "install is `pip install --no-deps --no-index --no-build-isolation --target` "
             "(dependencies not counted; a source tree or sdist compiled by it), its wall time "
             f"in seconds (the best of {args.repeat} for a wheel, one run for a source build); "
             "installed is `du -s` of the `river_forests` folder; `works` is the version the "
             "installed package printed after a small forest learned and predicted, imported "
             "from outside the repository.", ""]
    if args.note:
        lines += [args.note, ""]
    lines += markdown_table(["", "artifact", "MB", "files", "generated C", ".pyx",
                             "extensions", "stripped", "LICENSE", "installed MB",
                             "install s", "works"], rows)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
