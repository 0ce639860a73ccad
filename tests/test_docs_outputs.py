"""The outputs the documentation shows are what its code prints.

The convention, for README.md and every ``docs/**/*.md``:

* **An output block** is a fenced block of language ``text`` right after a ```python block
  (nothing but blank lines between them): it shows what that python block prints. A
  ``text`` block is only ever an output block; other plain text takes another language
  (``console``, ``bash``, or none).
* **It is checked.** A page's python blocks run in order, in one namespace per page (as
  ``tests/test_docs.py`` runs them), each block's standard output captured; it must match
  the block's output block as doctest matches an example's output, with the flags the
  suite's doctests use: ``...`` stands for any text (ELLIPSIS) and runs of whitespace, line
  breaks included, are equal (NORMALIZE_WHITESPACE), so a long line may be wrapped. Use
  ``...`` only for what is too long to show or varies from run to run.
* **Every output is shown, and only there.** A python block that prints has an output block,
  and a block without one prints nothing. No print shows its output in a comment
  (``print(accuracy)  # 0.842``) or in prose, where nothing would check it: a line that calls
  ``print`` carries no comment. Doctest-style ``>>>`` examples belong in docstrings (run by
  ``tests/test_docs.py::test_module_examples``), not in a page's python blocks, which run as
  scripts.

The checks of the convention read the pages only; the pages that show an output are run
here, and only here (``tests/test_docs.py`` runs the others' code), so each page runs once.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import io
import pathlib
import re
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = ["README.md"] + sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)[^`]*$")
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


class Block:
    """A fenced block of a page: its language, its text, the line it starts at (1-based),
    and whether only blank lines lie between it and the block before."""

    def __init__(self, language: str, text: str, line: int, adjacent: bool):
        self.language, self.text, self.line, self.adjacent = language, text, line, adjacent


def blocks(page: str) -> list[Block]:
    found, lines = [], (ROOT / page).read_text(encoding="utf-8").splitlines(keepends=True)
    i, last_end = 0, None
    while i < len(lines):
        m = FENCE.match(lines[i].rstrip("\n"))
        if not m:
            i += 1
            continue
        fence, start = m.group(1), i
        i += 1
        while i < len(lines) and lines[i].rstrip() != fence:
            i += 1
        between = lines[last_end + 1:start] if last_end is not None else ["x"]
        found.append(Block(m.group(2), "".join(lines[start + 1:i]), start + 1,
                           all(not s.strip() for s in between)))
        last_end = i
        i += 1
    return found


def examples(page: str) -> list[tuple[Block, Block | None]]:
    """The page's python blocks in order, each with its output block (None: it has none)."""
    found = blocks(page)
    pairs = []
    for k, b in enumerate(found):
        if b.language == "python":
            after = found[k + 1] if k + 1 < len(found) else None
            shown = after if after is not None and after.language == "text" and after.adjacent else None
            pairs.append((b, shown))
    return pairs


def _prints(code: str) -> bool:
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
               and node.func.id == "print" for node in ast.walk(ast.parse(code)))


SHOWING = [p for p in PAGES if any(shown for _, shown in examples(p))]


def test_the_pages_are_found_and_show_outputs():
    assert "README.md" in PAGES and "docs/forests/mondrian.md" in PAGES
    assert {"docs/index.md", "docs/distributed.md", "docs/drift.md"} <= set(SHOWING)


@pytest.mark.parametrize("page", PAGES)
def test_every_text_block_is_the_output_of_the_python_block_before_it(page):
    found = blocks(page)
    for k, b in enumerate(found):
        if b.language == "text":
            assert k > 0 and found[k - 1].language == "python" and b.adjacent, (
                f"{page}:{b.line}: a text block shows the output of the python block right "
                "before it (only blank lines between); give other text another language")


@pytest.mark.parametrize("page", PAGES)
def test_a_block_that_prints_shows_its_output_and_no_print_a_comment(page):
    for code, shown in examples(page):
        assert ">>>" not in code.text, (
            f"{page}:{code.line}: a python block runs as a script: write its output in an "
            "output block (```text after it), not doctest-style")
        if _prints(code.text):
            assert shown is not None, (
                f"{page}:{code.line}: this block prints: show what in an output block "
                "(```text right after it), where the tests check it")
        printing = set()
        for token in tokenize.generate_tokens(io.StringIO(code.text).readline):
            if token.type == tokenize.NAME and token.string == "print":
                printing.add(token.start[0])
            elif token.type == tokenize.COMMENT and token.start[0] in printing:
                raise AssertionError(
                    f"{page}:{code.line + token.start[0]}: {token.line.strip()!r}: a print's "
                    "output goes in the output block, not in a comment")


@pytest.mark.parametrize("page", SHOWING)
def test_the_outputs_a_page_shows_are_what_its_code_prints(page):
    namespace = {"__name__": f"docs.{page}"}
    checker = doctest.OutputChecker()
    for i, (code, shown) in enumerate(examples(page)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.text, f"{page} (python block {i + 1}, line {code.line})", "exec"),
                 namespace)
        printed = out.getvalue()
        if shown is None:
            assert printed == "", (f"{page}:{code.line}: the block printed {printed!r}; show "
                                   "it in an output block")
            continue
        if not checker.check_output(shown.text, printed, FLAGS):
            example = doctest.Example(code.text, shown.text)
            raise AssertionError(f"{page}:{shown.line}: the output shown is not what the block "
                                 "prints\n" + checker.output_difference(example, printed, FLAGS))
