"""The folds stage: a long Python session folded under a line that says what it holds.

A session of :data:`FOLD_LINES` lines or more pushes the paragraph after it screens
down on a phone; folded, the reader sees where it is and how long it is, and opens it
with one tap (its text is still found by the browser's find-in-page, which opens it).
The one-page book prints every fold open (:mod:`pe_book.print_page`). The tests run
every session from the page's Markdown, folded or not.
"""

from __future__ import annotations

import re

__all__ = ["FOLD_LINES", "fold_long_sessions"]

#: Sessions of at least this many lines are folded.
FOLD_LINES = 15
#: A highlighted code block as Material writes it, one ``__codelineno`` anchor per line.
_BLOCK = re.compile(r'<div class="highlight"><pre>.*?</pre></div>', re.S)
_LINE = re.compile(r'<a id="__codelineno-')
#: The opening tag of a fold, as the print page finds it.
FOLD_OPEN = '<details class="pe-fold">'


def fold_long_sessions(page_html: str, lines: int = FOLD_LINES) -> str:
    """Wrap every code block of ``lines`` lines or more in a closed ``<details>``
    whose summary gives its length.

    >>> line = '<a id="__codelineno-0-1"></a>x'
    >>> block = '<div class="highlight"><pre>' + line * 3 + "</pre></div>"
    >>> fold_long_sessions(block, lines=3).startswith('<details class="pe-fold"><summary>')
    True
    >>> fold_long_sessions(block, lines=4) == block
    True
    """

    def fold(match: re.Match) -> str:
        count = len(_LINE.findall(match.group(0)))
        if count < lines:
            return match.group(0)
        summary = f"The session in full: {count} lines of Python"
        return f"{FOLD_OPEN}<summary>{summary}</summary>{match.group(0)}</details>"

    return _BLOCK.sub(fold, page_html)
