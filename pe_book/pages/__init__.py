"""The page pipeline: what the MkDocs hook (``scripts/hooks.py``) does to every page,
as named stages, one module each, in the order they run::

    page source (Markdown with {{ kind: argument }})
      │  shortcodes   values, tables, figures, citations from the registries
      ▼
    Markdown ── MkDocs ──▶ HTML
      │  mathml       formulas as MathML
      │  typography   inline math bound to its punctuation
      │  tables       generated tables as grids with a held first column; every
      │               table in its scrolling box from the start
      │  folds        long Python sessions folded under their length
      │  typography   short code unbroken, numbers joined to their words
      ▼
    the page as the site shows it

:func:`expand_shortcodes` is the Markdown stage, :func:`finish_html` runs the HTML
stages. A notebook's page (executed by :mod:`pe_book.notebooks`) is finished by
:func:`finish_notebook_page` (:mod:`.notebook`), with the same MathML and typography
stages. :func:`finish_output` (:mod:`.loading`) then sets what the rendered page loads
before its first paint. Below every stage sit :mod:`pe_book.text` (inline math, captions,
cell formats) and the registries; no chapter imports this package.
"""

from __future__ import annotations

from .base import FIGURE_DIR, BookError
from .folds import fold_long_sessions
from .loading import finish_output
from .mathml import render_math
from .notebook import finish_page as finish_notebook_page
from .shortcodes import expand_shortcodes
from .tables import grid_tables, wrapped_tables
from .typography import bound_punctuation, joined_numbers, unbroken_options

__all__ = [
    "FIGURE_DIR",
    "BookError",
    "expand_shortcodes",
    "finish_html",
    "finish_notebook_page",
    "finish_output",
]


def finish_html(page_html: str, page: str) -> str:
    """A chapter's HTML (``page`` its path under ``docs/``) as the site shows it: the
    HTML stages, in order."""
    html = render_math(page_html, page)  # mathml: formulas as MathML
    html = bound_punctuation(html)  # typography: an inline formula with its punctuation
    html = grid_tables(html)  # tables: grids whose first column stays in view on phones
    html = wrapped_tables(html)  # tables: each in its scrolling box from the start
    html = fold_long_sessions(html)  # folds: a long session folded under its length
    html = unbroken_options(html)  # typography: short inline code never breaks
    return joined_numbers(html)  # typography: "chapter 9", "8 × 256" never break
