"""The book's pages as tests: Sybil finds and runs every Python example.

Every fenced block whose language is ``python``, ``py``, ``python3`` or
``pycon`` is an example, whatever follows the language in the fence
(```` ```python title="x" ````, ```` ```{ .python .annotate } ````) and however
deeply it is indented (admonitions, content tabs). Sybil's markdown fence lexer
does the reading; :data:`PYTHON_FENCE_INFO` is the only thing added to it,
because Sybil's stock Python parser accepts the bare word ``python`` alone.

A page is a reader's session (:class:`Page`): its examples run in order in one
namespace. A ``pycon`` block, or one starting with ``>>>``, is a doctest whose
outputs are compared (flags ``ELLIPSIS | NORMALIZE_WHITESPACE``); any other block
is executed and must not raise. Once an example fails, the later examples of the
page are skipped with the failing line as the reason, not run into NameErrors.
An example that imports torch is skipped when PyTorch is not installed.

The repository's ``conftest.py`` hands :func:`book_sybil` to pytest, which
then collects ``docs/**/*.md``: the test ids read ``docs/model/layer.md::line:79,column:1``.

>>> sybil = book_sybil()
>>> sybil.should_parse(DOCS / "foundations" / "sinusoidal.md")
True
>>> sybil.should_parse(DOCS / "overrides" / "partial.md")
False
"""

from __future__ import annotations

import doctest
import os
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import pytest
from sybil import Document, Example, Region, Sybil
from sybil.evaluators.doctest import DocTest
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown.lexers import RawFencedCodeBlockLexer

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: The info string of a Python fence, matched right after its backticks:
#: ``python``, ``py``, ``python3`` or ``pycon`` as the first word, or as the
#: first class of an attribute list ``{ .python ... }``; anything may follow.
PYTHON_FENCE_INFO = re.compile(
    r"[ \t]*(?:\{[ \t]*\.)?(?P<language>(?i:python3|python|pycon|py))(?=[ \t}\n])[^\n]*\n"
)
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
TORCH_IMPORT = re.compile(r"^\s*(?:>>>\s*)?(?:import torch|from torch)\b", re.MULTILINE)
TORCH_REASON = "PyTorch is not installed (optional for the book)"
EARLIER_FAILURE = "an earlier example on this page failed: line {line} ({page})"


def needs_torch(source: str) -> bool:
    """Whether an example imports torch, with or without a ``>>>`` prompt.

    >>> needs_torch(">>> import torch\\n"), needs_torch("from torch import nn\\n")
    (True, True)
    >>> needs_torch(">>> import torchvision\\n"), needs_torch("x = 1  # import torch\\n")
    (False, False)
    """
    return TORCH_IMPORT.search(source) is not None


def _skip_without_torch(example: Example) -> None:
    if needs_torch(example.parsed):
        pytest.importorskip("torch", reason=TORCH_REASON)


_run_python = PythonEvaluator()


def run_code(example: Example) -> None:
    """Execute a plain block in the page's namespace; an exception fails it."""
    __tracebackhide__ = True
    _skip_without_torch(example)
    _run_python(example)


def run_doctest(example: Example) -> str | None:
    """Run every ``>>>`` prompt of a block as one doctest; return the report of a failure.

    The namespace is the page's own (Sybil's :class:`DocTest` does not copy
    it), so names defined here are seen by later blocks. The run stops at the
    first wrong output (``FAIL_FAST``), whose report names its line on the page.
    """
    __tracebackhide__ = True
    _skip_without_torch(example)
    source = example.parsed
    name = f"{os.path.relpath(example.path)}:{example.line}"
    examples = doctest.DocTestParser().get_examples(source, name)
    # lineno is the fence's line: doctest reports lineno + example.lineno + 1.
    test = DocTest(examples, example.namespace, name, example.path, example.line, source)
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS | doctest.FAIL_FAST, verbose=False)
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=False)
    return "".join(report) if runner.failures else None


class PythonBlockParser:
    """Sybil parser: a region for every Python fence, evaluated as a doctest or as code."""

    def __init__(self) -> None:
        self.lexer = RawFencedCodeBlockLexer(info_pattern=PYTHON_FENCE_INFO)

    def __call__(self, document: Document) -> Iterator[Region]:
        for region in self.lexer(document):
            source = region.lexemes["source"]
            pycon = region.lexemes["language"].lower() == "pycon"
            is_doctest = pycon or source.lstrip().startswith(">>>")
            region.parsed = source
            region.evaluator = run_doctest if is_doctest else run_code
            yield region


class Page(Document):
    """A page read as one session: examples run in order, and stop at the first failure.

    Selecting one example (``-k``, ``--lf``, a node id) first runs the earlier
    examples of its page, quietly, so its names exist. After a failure, every
    later example of the page is skipped, naming the failing line.
    """

    def __init__(self, text: str, path: str) -> None:
        super().__init__(text, path)
        self.done: set[int] = set()  # region starts already evaluated
        self.failed_line: int | None = None

    def _evaluate_once(self, example: Example, evaluator: Callable) -> None:
        __tracebackhide__ = True
        self.done.add(example.start)
        try:
            super().evaluate(example, evaluator)
        except Exception:
            self.failed_line = example.line
            raise

    def evaluate(self, example: Example, evaluator: Callable) -> None:
        __tracebackhide__ = True
        for earlier in self.examples():
            if earlier.start >= example.start or self.failed_line is not None:
                break
            if earlier.start not in self.done:
                try:
                    self._evaluate_once(earlier, earlier.region.evaluator)
                except (Exception, pytest.skip.Exception):
                    pass  # a failure is recorded in failed_line; a skip is harmless
        if self.failed_line is not None:
            self._skip_after_failure()
        self._evaluate_once(example, evaluator)

    def _skip_after_failure(self) -> None:
        page = os.path.relpath(self.path)
        pytest.skip(EARLIER_FAILURE.format(line=self.failed_line, page=page))


def start_session(namespace: dict) -> None:
    """Before a page's first example: a fresh namespace, and figures drawn off-screen."""
    matplotlib.use("Agg")
    namespace["__name__"] = "__page__"


def end_session(namespace: dict) -> None:
    """After a page's last example: close the figures it opened."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


def book_sybil(root: Path | str = DOCS) -> Sybil:
    """The Sybil that reads every ``*.md`` page under ``root`` (not MkDocs's ``overrides/``).

    Parameters
    ----------
    root : Path or str
        The folder of the pages; the book's ``docs/`` by default.
    """
    return Sybil(
        parsers=[PythonBlockParser()],
        path=str(Path(root).resolve()),
        patterns=["*.md"],
        excludes=["overrides/*"],
        document_types={".md": Page},
        setup=start_session,
        teardown=end_session,
    )


def book_pages(root: Path | str = DOCS) -> list[Path]:
    """Every page ``book_sybil(root)`` reads, sorted."""
    sybil = book_sybil(root)
    return [page for page in sorted(Path(root).rglob("*.md")) if sybil.should_parse(page)]


@dataclass(frozen=True)
class Block:
    """One Python example of a page, for tests that read a page's code themselves."""

    path: Path
    line: int  # 1-based line of the opening fence
    source: str  # dedented code, without the fences
    is_doctest: bool


def find_blocks(text: str, path: Path | str = "<string>") -> list[Block]:
    """Every Python example of a markdown text, in order, read by the same Sybil parser.

    >>> page = "```py\\nx = 1\\n```\\n```pycon\\n>>> x\\n1\\n```\\n"
    >>> [(block.line, block.is_doctest) for block in find_blocks(page)]
    [(1, False), (4, True)]
    """
    page = Page(text, str(path))
    for region in PythonBlockParser()(page):
        page.add(region)
    return [
        Block(Path(path), e.line, str(e.parsed), e.region.evaluator is run_doctest)
        for e in page.examples()
    ]
