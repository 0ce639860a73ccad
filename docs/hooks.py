"""mkdocs hooks: publish `benchmarks/results/` and fill the benchmark page from it.

* `on_files` adds every file under `benchmarks/results/` to the site at the same path
  (`benchmarks/results/...`): Markdown files become pages outside the navigation, the rest
  (CSV, PNG) are copied as they are. Nothing is copied by hand, so the site always shows the
  results recorded in the repository.
* `on_page_markdown` replaces the marker line `<!-- benchmark-suite -->` of `benchmarks.md` with,
  for each suite directory (`suite/`, then `suite-quick/`), its `results.md` tables and one
  image per `<stream>.png`, whatever streams exist. A missing directory gives a "not recorded
  yet" note, so the strict build stays clean before the suite has run. The marker
  `<!-- other-results -->` becomes a list of the other `benchmarks/results/*.md` files that
  the page does not already link to (e.g. `learn_many_speed.md` once it is recorded).
"""

from __future__ import annotations

import pathlib
import re

from mkdocs.structure.files import File, InclusionLevel

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = "benchmarks/results"
MARKER = "<!-- benchmark-suite -->"
OTHERS = "<!-- other-results -->"
SUITES = {
    "suite": "Full run",
    "suite-quick": "Quick run (`--quick`)",
}
# a Markdown link or image target that is relative (no scheme, no leading / or #)
_LINK = re.compile(r"(!?\[[^\]]*\]\()(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^)\s]+)")


def _result_files():
    base = ROOT / RESULTS
    if not base.is_dir():
        return []
    return sorted(
        p for p in base.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(base).parts)
        and not p.name.endswith(".tmp")
    )


def on_files(files, config):
    for path in _result_files():
        src_uri = path.relative_to(ROOT).as_posix()
        if files.get_file_from_path(src_uri) is not None:
            continue
        files.append(File(
            src_uri,
            src_dir=str(ROOT),
            dest_dir=config["site_dir"],
            use_directory_urls=config["use_directory_urls"],
            inclusion=InclusionLevel.NOT_IN_NAV,
        ))
    return files


def _demote(markdown: str, levels: int) -> str:
    """Push every ATX heading `levels` deeper, so an included file nests under our heading."""
    out, fenced = [], False
    for line in markdown.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if not fenced and re.match(r"#{1,6} ", line):
            line = "#" * levels + line
        out.append(line)
    return "\n".join(out)


def _rebase_links(markdown: str, prefix: str) -> str:
    """Make the relative links of an included file relative to the including page."""
    return _LINK.sub(lambda m: f"{m.group(1)}{prefix}/{m.group(2)}", markdown)


def suite_section(name: str, title: str) -> str:
    """The Markdown for one suite directory: its tables, then one picture per stream."""
    rel = f"{RESULTS}/{name}"
    folder = ROOT / rel
    lines = [f"## {title}", ""]
    if not folder.is_dir():
        lines.append(f"Not recorded yet: the benchmark suite writes `{rel}/` "
                     "(`results.md`, `results.csv` and one `<stream>.png` per stream).")
        return "\n".join(lines)
    table = folder / "results.md"
    if table.is_file():
        text = table.read_text(encoding="utf-8")
        text = re.sub(r"\A\s*# .*\n", "", text)  # its title: the heading above replaces it
        lines += [_rebase_links(_demote(text, 2), rel), ""]
    else:
        lines += [f"No `results.md` recorded in `{rel}/` yet.", ""]
    if (folder / "results.csv").is_file():
        lines += [f"Raw numbers: [`{rel}/results.csv`]({rel}/results.csv).", ""]
    pictures = sorted(folder.glob("*.png"))
    if pictures:
        lines += ["### Learning curves", ""]
        for png in pictures:
            lines += [f"![{png.stem}]({rel}/{png.name})", ""]
    return "\n".join(lines)


def other_results(markdown: str) -> str:
    """Links to the top-level `results/*.md` files that the page does not link to already."""
    links = [
        f"- [`{p.name}`]({RESULTS}/{p.name})"
        for p in sorted((ROOT / RESULTS).glob("*.md"))
        if f"{RESULTS}/{p.name}" not in markdown
    ]
    return "\n".join(["Also recorded:", "", *links]) if links else ""


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "benchmarks.md":
        return markdown
    sections = "\n\n".join(suite_section(name, title) for name, title in SUITES.items())
    return markdown.replace(MARKER, sections).replace(OTHERS, other_results(markdown))
