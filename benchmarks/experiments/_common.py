"""What the experiments share: the data files read as the former scripts read them, the
package's classifiers and their variants, the environment and version lines, Markdown tables,
and where and how the reports are written (``benchmarks/results/experiments/``)."""

from __future__ import annotations

import os
import platform
import time

from benchmarks import figures

#: the shared data folder's files, by stream
FILES = {"elec": "elec.csv", "covtype": "covtype.csv.gz"}


# ---------------------------------------------------------------------------- the data

def samples(name: str, n: int) -> list:
    """The first n rows of elec.csv or covtype.csv.gz (the shared data folder), each value read
    with Python's ``float`` as the former scripts did. Not the registry's streams: its loader
    parses with pandas' fast parser, whose last bit differs for about 50,000 of elec's values
    (by at most 1.1e-16), enough to move river's ARF by 2 points on elec's first 1,000 rows;
    and its covtype stops at 50,000 rows."""
    import csv
    import gzip
    import itertools

    from river_forests.__main__ import find_data_dir

    folder = find_data_dir()
    if folder is None:
        raise FileNotFoundError(f"{FILES[name]} not found: put shared/data beside the repository "
                                "or set RIVER_FORESTS_DATA")
    path = folder / FILES[name]
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        reader = csv.reader(f)
        header = next(reader)
        names = header[:-1]
        return [({k: float(v) for k, v in zip(names, row)}, int(row[-1]))
                for row in itertools.islice(reader, n)]


# ---------------------------------------------------------------------------- the models

def our_variants(task: str = "clf") -> dict:
    """Every classifier (`task` "clf") or regressor ("reg") of ``river_forests.__all__`` as
    ``{label: (class, params)}``, with one entry per value of a parameter that chooses the
    paper's variant (an estimator's ``_variants``, e.g. the purely random forest's
    ``split``)."""
    import river_forests
    from river import base

    kind = base.Classifier if task == "clf" else base.Regressor
    out = {}
    for name in river_forests.__all__:
        cls = getattr(river_forests, name)
        if not (isinstance(cls, type) and issubclass(cls, kind)):
            continue
        short = name.replace("ForestClassifier", "").replace("ForestRegressor", "")
        variants = getattr(cls, "_variants", {})
        if not variants:
            out[short] = (cls, {})
        for param, values in variants.items():
            for value in values:
                out[f"{short} ({value})"] = (cls, {param: value})
    return out


def learn_to_checkpoints(model, X, y, checkpoints: list[int], batch: int):
    """Learn the rows of `X` (a DataFrame) and `y` (a Series) in order with ``learn_many``, in
    chunks of at most `batch` rows that stop at every checkpoint; yields each checkpoint n once
    the model has learned the first n rows."""
    seen = 0
    for n in checkpoints:
        for start in range(seen, n, batch):
            stop = min(start + batch, n)
            model.learn_many(X.iloc[start:stop], y.iloc[start:stop])
        seen = n
        yield n


# ---------------------------------------------------------------------------- the environment

def machine(cores: str = "") -> str:
    """``<machine>, <n> cores<cores>, Python ..., river ..., numpy ...``."""
    import numpy as np
    import river

    return (f"{platform.machine()}, {os.cpu_count()} cores{cores}, Python "
            f"{platform.python_version()}, river {river.__version__}, numpy {np.__version__}")


def load_average() -> str:
    return ", ".join(f"{v:.2f}" for v in os.getloadavg())


def extension_built(digest: bool = False) -> str:
    """``built <UTC time> UTC`` of the ``_mondrian`` extension (and its sha256's first 12
    hexadecimal digits with `digest`)."""
    import river_forests._core._mondrian as ext

    built = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(os.path.getmtime(ext.__file__)))
    if not digest:
        return f"built {built} UTC"
    import hashlib
    from pathlib import Path

    return f"built {built} UTC (sha256 {hashlib.sha256(Path(ext.__file__).read_bytes()).hexdigest()[:12]})"


def version_line() -> str:
    """``code version <key>, commit <10 digits>``: the package's code the records ran on."""
    from benchmarks import store

    v = store.our_version()
    return f"code version {v['key']}, commit {v['commit'][:10]}"


# ---------------------------------------------------------------------------- the report

def markdown_table(header: list, rows: list) -> list[str]:
    """The lines of a Markdown table (cells formatted with ``str``)."""
    lines = ["| " + " | ".join(map(str, header)) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(map(str, row)) + " |" for row in rows]


def missing(wanted: list, results: dict) -> list[str]:
    """The keys of `wanted` (``jobs``' pairs) without a result."""
    return [key for key, _ in wanted if key not in results]


def missing_line(keys: list, what: str = "measurements") -> str:
    return f"**Missing {what}** (failed or not run): {', '.join(keys)}."


def compute_seconds(results: dict, field: str = "seconds") -> float:
    """The measurements' time, summed."""
    return sum(r.get(field, 0.0) for r in results.values())


def outputs(name: str, quick: bool) -> tuple:
    """The report's Markdown and PNG paths (``_quick`` names with `quick`), the folder made."""
    from benchmarks import experiments

    experiments.OUT.mkdir(parents=True, exist_ok=True)
    stem = name + ("_quick" if quick else "")
    return experiments.OUT / f"{stem}.md", experiments.OUT / f"{stem}.png"


def heading(name: str, quick: bool, title: str, setup: str) -> list[str]:
    """A report's first lines: its title, then the command that wrote it, `setup` (what was
    measured how) and the code version and machine it ran on."""
    return [f"# {title}", "",
            f"`python -m benchmarks experiment {name}{' --quick' if quick else ''}`; {setup}; "
            f"{version_line()}; {machine()}.", ""]


def opening(name: str, quick: bool, title: str, setup: str, wanted: list,
            results: dict) -> list[str]:
    """`heading`'s lines, then a line naming the measurements of `wanted` (``jobs``' pairs)
    without a result, if any."""
    lines = heading(name, quick, title, setup)
    miss = missing(wanted, results)
    return lines + ([missing_line(miss), ""] if miss else [])


def pyplot():
    """matplotlib's pyplot on the Agg backend (no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def label_axes(ax, xlabel: str, ylabel: str, title: str | None = None, *,
               title_size: float | None = None, grid: dict | None = None,
               legend: dict | None = None) -> None:
    """An axes' x and y labels, and if given its title (in `title_size` points), its grid
    (``ax.grid(**grid)``) and its legend (``ax.legend(**legend)``)."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, **({} if title_size is None else {"fontsize": title_size}))
    if grid is not None:
        ax.grid(**grid)
    if legend is not None:
        ax.legend(**legend)


def save_figure(fig, path, title: str | None = None, *, title_size: float | None = None,
                dpi: float | None = None, rect=None) -> None:
    """Give the figure its title if any, lay it out (within `rect` if given), write it to
    `path` and close it."""
    import matplotlib.pyplot as plt

    if title is not None:
        fig.suptitle(title, **({} if title_size is None else {"fontsize": title_size}))
    if rect is None:
        fig.tight_layout()
    else:
        fig.tight_layout(rect=rect)
    figures.save(fig, path, dpi=dpi)
    plt.close(fig)


# ---------------------------------------------------------------------------- a regressor's grid

def grid_streams(quick: bool) -> list[str]:
    """The tuning half's regression streams (two for a quick run): where a regressor's
    defaults are chosen."""
    from benchmarks.streams import streams

    out = [s.name for s in streams("reg", "tuning")]
    return out[:2] if quick else out


def grid_jobs(grid: list, key, quick: bool, quick_n: int) -> list[tuple[str, dict]]:
    """One job per tuning stream and configuration of `grid` (its first three when quick),
    named ``<stream>-<key(config)>``."""
    grid = grid[:3] if quick else grid
    return [(f"{s}-{key(c)}", {"stream": s, "config": c, "n": quick_n if quick else None})
            for s in grid_streams(quick) for c in grid]


def grid_report(name: str, title: str, grid: list, key, header: list, cells, results: dict,
                quick: bool, quick_n: int) -> None:
    """The report of a regressor's grid on the tuning half: each configuration's MAE per
    stream and its score, the geometric mean over the streams of its MAE over the best
    configuration's (the smallest is chosen); `header` and `cells(config)` name the
    configurations' columns."""
    import math

    md, _ = outputs(name, quick)
    streams = grid_streams(quick)
    grid = grid[:3] if quick else grid
    lines = [f"# {title} (tuning half)", "",
             f"`python -m benchmarks experiment {name}{' --quick' if quick else ''}`; 10 trees, "
             f"seed 42; prequential MAE; {version_line()}; {machine()}.", ""]
    miss = missing(grid_jobs(grid, key, quick, quick_n), results)
    if miss:
        lines += [missing_line(miss), ""]
    best = {s: min((results[f"{s}-{key(c)}"]["mae"] for c in grid if f"{s}-{key(c)}" in results),
                   default=float("nan")) for s in streams}
    rows = []
    for c in grid:
        maes = [results.get(f"{s}-{key(c)}", {}).get("mae") for s in streams]
        if any(m is None for m in maes):
            continue
        score = math.exp(sum(math.log(m / best[s]) for m, s in zip(maes, streams)) / len(streams))
        rows.append((score, c, maes))
    rows.sort(key=lambda r: r[0])
    lines += markdown_table(
        header + ["score"] + streams,
        [cells(c) + [f"{score:.3f}" + (" **(chosen)**" if i == 0 else "")]
         + [f"{m:.4g}" for m in maes] for i, (score, c, maes) in enumerate(rows)])
    lines += ["", "Score: the geometric mean over the streams of the MAE over the best "
              "configuration's on that stream (1: best everywhere)."]
    md.write_text("\n".join(lines) + "\n")
