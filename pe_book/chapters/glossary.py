"""The glossary's table of symbols, written from :data:`pe_book.notation.SYMBOLS`."""

from __future__ import annotations

from pathlib import Path

from .. import Table, table
from ..notation import SYMBOLS
from ..text import CHAPTER

DOCS = Path(__file__).resolve().parents[2] / "docs"


def chapter_number(page: str) -> str:
    """The number in the title of chapter ``page`` (a path under ``docs/``)."""
    found = CHAPTER.search((DOCS / page).read_text(encoding="utf-8"))
    if found is None:
        raise ValueError(f"{page} has no numbered title '# N. …'")
    return found.group(1)


@table(
    "symbols",
    caption="The book's symbols: how formulas write them, their names in the library and "
    "in Hugging Face configurations, and the chapter that introduces them.",
)
def _():
    rows = []
    for s in SYMBOLS.values():
        # one link per symbol: a link that is one formula keeps the formula's colour, and
        # so does a symbol that is a word (book.css, .pe-symbol)
        if s.math:
            links = ", ".join(f"[${m}$](#{s.anchor})" for m in s.math)
        else:
            links = f"[{s.word or f'`{s.code[0]}`'}](#{s.anchor}){{ .pe-symbol }}"
        code = ", ".join(f"`{c}`" for c in s.code) or "–"
        number = chapter_number(s.page)
        rows.append((links, code, s.meaning, f"[{number}](../{s.page})"))
    return Table(["symbol", "in code", "meaning", "chapter"], rows)
