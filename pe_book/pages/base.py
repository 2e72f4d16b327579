"""What the page stages share: the error they raise, where the site keeps its files,
links between pages, and anchors."""

from __future__ import annotations

import posixpath
import re

__all__ = ["BIBLIOGRAPHY_PAGE", "FIGURE_DIR", "TAG", "BookError", "anchor", "relative"]

#: Where the rendered figures live in the site, relative to ``docs/``.
FIGURE_DIR = "assets/figures"
#: The page every citation links to.
BIBLIOGRAPHY_PAGE = "appendix/bibliography.md"
#: An HTML tag, start or end.
TAG = re.compile(r"<[^>]+>")


class BookError(ValueError):
    """A page asks for something that does not exist or cannot be rendered."""


def relative(target: str, page: str) -> str:
    """Link from the markdown file ``page`` to ``target``, both relative to docs/.

    >>> relative("appendix/bibliography.md", "modern/rope.md")
    '../appendix/bibliography.md'
    """
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


def anchor(kind: str, name: str) -> str:
    """The id of a figure or table on its page: ``fig-rope-pairs``, ``table-alibi-slopes``.

    >>> anchor("table", "alibi.slopes")
    'table-alibi-slopes'
    """
    return f"{'fig' if kind == 'figure' else 'table'}-{name.replace('.', '-').replace('_', '-')}"
