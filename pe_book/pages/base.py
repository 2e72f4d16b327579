"""What the page stages share: the error they raise, where the site keeps its files,
links between pages, anchors, and how a computed text is obtained."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

__all__ = [
    "BIBLIOGRAPHY_PAGE",
    "FIGURE_DIR",
    "TAG",
    "BookError",
    "Cached",
    "anchor",
    "computed_now",
    "relative",
]

#: How a computed text is obtained: ``cached(key, compute)`` (a key such as
#: ``"value:rope.theta"``); the build passes :meth:`pe_book.build_cache.BuildCache.text`.
Cached = Callable[[str, Callable[[], str]], str]


def computed_now(key: str, compute: Callable[[], str]) -> str:
    """No cache: compute the text now."""
    return compute()


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
