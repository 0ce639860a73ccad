"""mkdocs hooks: publish `benchmarks/results/` and fill the benchmark pages from it.

* `on_files` adds every file under `benchmarks/results/` but the raw store (`store/`, one JSON
  record per run, read by the renderer, not by people) to the site at the same path
  (`benchmarks/results/...`): Markdown files become pages outside the navigation, the rest
  (CSV, PNG) are copied as they are. Nothing is copied by hand, so the site always shows the
  results recorded in the repository.
* `on_page_markdown` replaces the marker line `<!-- benchmark-report -->` of `benchmarks.md`
  with the benchmark's rendered report (`benchmarks/results/report/full.md`, written by
  `python -m benchmarks render` from the store), and `<!-- experiments -->` with a list of the
  experiments' reports (`benchmarks/results/experiments/*.md`); and the marker line
  `<!-- which-forest -->` of `which.md` with the "which forest when" page the same command
  renders (`benchmarks/results/report/which.md`). A missing report gives a "not recorded yet"
  note, so the strict build stays clean before the benchmark has run.
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
WHICH_MARKER = "<!-- which-forest -->"
WHICH = "report/which.md"
DEFAULTS_MARKER = "<!-- defaults-section -->"
#: each forest page and the estimators whose rows of the defaults experiments it shows
FOREST_PAGES = {
    "forests/mondrian.md": ("MondrianForestClassifier", "MondrianForestRegressor"),
    "forests/purely_random.md": ("PurelyRandomForestClassifier", "PurelyRandomForestRegressor"),
    "forests/bsp.md": ("BSPForestClassifier", "BSPForestRegressor"),
    "forests/stream_partition.md": ("StreamPartitionForestClassifier",),
    "forests/xforest.md": ("XForestClassifier",),
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


def report_section(report: str = REPORT, levels: int = 1) -> str:
    """A rendered report of the full run (`report`, under `benchmarks/results/`), its headings
    `levels` under the page's, links rebased."""
    path = ROOT / RESULTS / report
    if not path.is_file():
        return (f"Not recorded yet: `python -m benchmarks run` then `python -m benchmarks render` "
                f"write `{RESULTS}/{report}`.")
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\A\s*# .*\n", "", text)  # its title: the page's heading replaces it
    return _rebase_links(_demote(text, levels), f"{RESULTS}/{pathlib.PurePosixPath(report).parent}")


def experiment_list() -> str:
    """One line per experiment report recorded in `results/experiments/`."""
    links = []
    for p in sorted((ROOT / RESULTS / "experiments").glob("*.md")):
        title = p.read_text(encoding="utf-8").splitlines()[0].lstrip("# ").strip()
        links.append(f"- [{title}]({RESULTS}/experiments/{p.name}) "
                     f"(`python -m benchmarks experiment {p.stem.removesuffix('_quick')}"
                     f"{' --quick' if p.stem.endswith('_quick') else ''}`)")
    return "\n".join(links) if links else "No experiment recorded yet."


def _subsection(text: str, name: str) -> str:
    """The `### name` section of a report (up to the next heading of level 1 to 3)."""
    m = re.search(rf"^### {re.escape(name)}\n(.*?)(?=^#{{1,3}} |\Z)", text, re.S | re.M)
    return m.group(1).strip() if m else ""


def defaults_section(page: str) -> str:
    """A forest page's "Defaults" section, from the recorded runs of the defaults experiments
    (`benchmarks/results/experiments/`): the candidates ranked on the tuning half, the chosen
    defaults against the former ones and the paper's on the report half, and accuracy
    against the memory budget."""
    folder = ROOT / RESULTS / "experiments"
    prefix = f"../{RESULTS}/experiments"
    names = FOREST_PAGES[page]
    out = ["## Defaults", "",
           "Every default of this forest was chosen by average rank on the benchmark's tuning "
           "half, among the candidates below (the paper's configuration and the defaults before "
           "0.2.0 ride along); the report half, never used to choose, reports. The tables are "
           "the recorded runs, with the code version they ran on."]
    for stem, title in (("defaults", "Chosen on the tuning half"),
                        ("defaults_report", "On the report half")):
        path = folder / f"{stem}.md"
        if not path.is_file():
            out += ["", f"`python -m benchmarks experiment {stem}` has not been recorded yet."]
            continue
        text = path.read_text(encoding="utf-8")
        header = next((line for line in text.splitlines() if line.startswith("`python -m")), "")
        out += ["", f"### {title}", "", header]
        for name in names:
            body = _subsection(text, name)
            if body:
                out += ["", f"#### {name}", "", body]
        below = [line for line in text.splitlines()
                 if line.startswith("- ") and line[2:].split(" against ")[0] in names]
        if below:
            out += ["", "Streams where the defaults fall more than a point below (accuracy; "
                    "1% of the MAE for a regressor):", ""] + below
    png = folder / "budget_frontier.png"
    if png.is_file() and any("Classifier" in n for n in names):
        frontier = (folder / "budget_frontier.md").read_text(encoding="utf-8")
        short = [n.replace("ForestClassifier", "") for n in names if "Classifier" in n]
        rows = [line for line in frontier.splitlines()
                if line.startswith("| ") and line[2:].split(" |")[0] in short]
        out += ["", "### Accuracy against the memory budget", "",
                "Every classifier at its defaults but `memory_budget`, on a stream of two classes "
                "(elec) and one of ten (rbf-10), both of the tuning half "
                f"([the report]({prefix}/budget_frontier.md)); this forest's rows (accuracy, and "
                "its size at the end as a share of the budget), elec then rbf-10:", ""]
        head = next(line for line in frontier.splitlines() if line.startswith("| forest"))
        out += [head, "|" + "---|" * head.count(" | ") + "---|"] + rows
        out += ["", f"![Accuracy against the memory budget]({prefix}/budget_frontier.png)"]
    return "\n".join(out) + "\n"


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri in FOREST_PAGES:
        return markdown.replace(DEFAULTS_MARKER, defaults_section(page.file.src_uri))
    if page.file.src_uri == "which.md":
        return markdown.replace(WHICH_MARKER, report_section(WHICH, levels=0))
    if page.file.src_uri != "benchmarks.md":
        return markdown
    return markdown.replace(MARKER, report_section()).replace(EXPERIMENTS, experiment_list())
