"""mkdocs hooks: publish `benchmarks/results/` and fill the benchmark page from it.

* `on_files` adds every file under `benchmarks/results/` but the raw store (`store/`, one JSON
  record per run, read by the renderer, not by people) to the site at the same path
  (`benchmarks/results/...`): Markdown files become pages outside the navigation, the rest
  (CSV, PNG) are copied as they are. Nothing is copied by hand, so the site always shows the
  results recorded in the repository.
* `on_page_markdown` replaces the marker line `<!-- benchmark-report -->` of `benchmarks.md`
  with the benchmark's rendered report (`benchmarks/results/report/full.md`, written by
  `python -m benchmarks render` from the store), and `<!-- experiments -->` with a list of the
  experiments' reports (`benchmarks/results/experiments/*.md`). A missing report gives a "not
  recorded yet" note, so the strict build stays clean before the benchmark has run.
"""

from __future__ import annotations

import pathlib
import re

from mkdocs.structure.files import File, InclusionLevel

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = "benchmarks/results"
MARKER = "<!-- benchmark-report -->"
EXPERIMENTS = "<!-- experiments -->"
REPORT = "report/full.md"
# a Markdown link or image target that is relative (no scheme, no leading / or #)
_LINK = re.compile(r"(!?\[[^\]]*\]\()(?![a-zA-Z][a-zA-Z0-9+.-]*:|/|#)([^)\s]+)")


def _result_files():
    base = ROOT / RESULTS
    if not base.is_dir():
        return []
    return sorted(
        p for p in base.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(base).parts)
        and p.relative_to(base).parts[0] != "store" and not p.name.endswith(".tmp")
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


def report_section() -> str:
    """The rendered report of the full run, its headings under the page's, links rebased."""
    path = ROOT / RESULTS / REPORT
    if not path.is_file():
        return (f"Not recorded yet: `python -m benchmarks run` then `python -m benchmarks render` "
                f"write `{RESULTS}/{REPORT}`.")
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\A\s*# .*\n", "", text)  # its title: the page's heading replaces it
    return _rebase_links(_demote(text, 1), f"{RESULTS}/report")


def experiment_list() -> str:
    """One line per experiment report recorded in `results/experiments/`."""
    links = []
    for p in sorted((ROOT / RESULTS / "experiments").glob("*.md")):
        title = p.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        links.append(f"- [{title}]({RESULTS}/experiments/{p.name}) "
                     f"(`python -m benchmarks experiment {p.stem.removesuffix('_quick')}"
                     f"{' --quick' if p.stem.endswith('_quick') else ''}`)")
    return "\n".join(links) if links else "No experiment recorded yet."


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "benchmarks.md":
        return markdown
    return markdown.replace(MARKER, report_section()).replace(EXPERIMENTS, experiment_list())
