"""The tables stage: a registered table as Markdown, and its grid on phones.

* :func:`table_markdown` writes table ``name`` of the registry (:data:`pe_book.TABLES`)
  as a Markdown table, every cell formatted by :func:`pe_book.text.format_cell`; the
  ``{{ table: … }}`` shortcode (:mod:`pe_book.pages.shortcodes`) puts it on its page.
* :func:`grid_tables`, a stage of the page's HTML, marks every generated table to keep
  its grid on a phone, its first column held in view.
* :func:`wrapped_tables`, the stage after it, writes every table in the scrolling box
  the theme's script would otherwise build around it when the page loads.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .. import TABLES, Table, load_all
from ..notation import TEX_SPAN, math_notation
from ..text import format_cell, power_of_ten_markup
from .base import BookError

__all__ = ["TABLE_CLASS", "grid_tables", "table_markdown", "wrapped_tables"]


def _whole_column(values) -> bool:
    """True when every number in a column is a finite float with no fractional part."""
    floats = [v for v in values if isinstance(v, (float, np.floating))]
    return (
        bool(floats)
        and all(math.isfinite(v) and float(v).is_integer() and abs(v) < 2**53 for v in floats)
        and all(not isinstance(v, str) for v in values)
    )


def table_cell(text: str) -> str:
    """``text`` made safe inside a Markdown table row: a ``|`` outside math is escaped;
    inside ``$…$`` a norm ``\\|`` becomes ``\\Vert`` and a bar ``|`` becomes ``\\vert``
    (an escaped pipe there would reach the math as ``\\\\``, a line break, and the
    row would split at the pipe).

    >>> table_cell(r"a | b, $\\|x\\| + |y|$")
    'a \\\\| b, $\\\\Vert x\\\\Vert + \\\\vert y\\\\vert$'
    """
    pieces = TEX_SPAN.split(text)
    for k, piece in enumerate(pieces):
        if k % 2:  # math
            piece = re.sub(r"\\\|(?=[A-Za-z])", r"\\Vert ", piece).replace("\\|", "\\Vert")
            pieces[k] = re.sub(r"\|(?=[A-Za-z])", r"\\vert ", piece).replace("|", "\\vert")
        else:
            pieces[k] = piece.replace("|", "\\|")
    return "".join(pieces)


#: A cell of a measured number and its range: "2.20 <span class="pe-range">(…)</span>".
_MEASURED = re.compile(r'[−-]?\d[\d,.]* <span class="pe-range">')


def table_markdown(name: str) -> str:
    """The markdown of table ``name``; numbers right-aligned, text left-aligned."""
    load_all()
    if name not in TABLES:
        known = ", ".join(sorted(TABLES))
        raise KeyError(f"unknown table {name!r}; registered tables: {known}")
    spec = TABLES[name]
    tab: Table = spec.build()
    if not isinstance(tab, Table):
        raise TypeError(f"table {name!r} must return a Table, got {type(tab).__name__}")
    columns = list(tab.columns)
    for i, row in enumerate(tab.rows):
        if len(row) != len(columns):
            raise ValueError(f"table {name!r} row {i} has {len(row)} cells, not {len(columns)}")
    specs = [tab.formats.get(c, tab.default_format) for c in columns]
    for j, spec in enumerate(specs):
        whole = tab.whole_numbers and _whole_column([row[j] for row in tab.rows])
        if whole and not spec.endswith("%"):
            specs[j] = ",.0f" if "," in spec else ".0f"  # whole numbers: no decimals
    cells = [[format_cell(v, s) for s, v in zip(specs, row, strict=True)] for row in tab.rows]
    numeric = [
        all(not isinstance(row[j], str) or _MEASURED.match(row[j]) for row in tab.rows)
        if tab.rows
        else False
        for j in range(len(columns))
    ]

    lines = ["| " + " | ".join(table_cell(math_notation(c)) for c in columns) + " |"]
    lines.append("|" + "|".join("---:" if n else ":---" for n in numeric) + "|")
    lines += [
        "| " + " | ".join(table_cell(power_of_ten_markup(c)) for c in row) + " |" for row in cells
    ]
    return "\n".join(lines)


#: A generated table: its caption paragraph, then the table Markdown made of it.
_GENERATED_TABLE = re.compile(
    r'(<p class="table-caption"[^>]*>.*?</p>\s*)<table>(.*?)</table>', re.S
)


def grid_tables(page_html: str) -> str:
    """Mark every generated table ``<table data-grid>``: on a phone it keeps its grid in
    smaller type, the first column (what names the rows) held in view while the others
    scroll under the edge shadow, the range of a measured cell set under its mean. One
    policy for every table: a comparison is read down a column, which cards (one per row)
    would scatter.

    >>> grid_tables('<p class="table-caption" id="table-x">Table 1.</p><table><tr></tr></table>')
    '<p class="table-caption" id="table-x">Table 1.</p><table data-grid><tr></tr></table>'
    >>> grid_tables("<table><tr><td>1</td></tr></table>")  # not a generated table
    '<table><tr><td>1</td></tr></table>'
    """
    return _GENERATED_TABLE.sub(
        lambda m: f"{m.group(1)}<table data-grid>{m.group(2)}</table>", page_html
    )


#: The class of every table of the book's pages. The theme styles a table with no class
#: (``table:not([class])``), and its script takes each such table out of the page and puts
#: it back inside a scrolling box once the page has loaded, which makes the browser style
#: the whole page again. The book's tables carry this class, sit in that box from the
#: start and get the theme's rules for a table with no class from ``book.css``
#: (``tests/test_book.py`` holds the two sets of rules equal).
TABLE_CLASS = "pe-table"
#: The theme's scrolling box around a table (``md-typeset__scrollwrap``).
_WRAP = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
_TABLE_TAG = re.compile(r"<table(\s[^>]*)?>|</table>")


def wrapped_tables(page_html: str) -> str:
    """Every table with no class of ``page_html`` given :data:`TABLE_CLASS` and written
    inside the theme's scrolling box; a table with a class of its own is left as it is.

    >>> wrapped_tables("<p>A</p><table data-grid><tr><td>1</td></tr></table>")
    '<p>A</p><div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table \
class="pe-table" data-grid><tr><td>1</td></tr></table></div></div>'
    >>> wrapped_tables('<table class="dataframe"></table>')
    '<table class="dataframe"></table>'
    """
    out, start, open_tables = [], 0, []
    for tag in _TABLE_TAG.finditer(page_html):
        out.append(page_html[start : tag.start()])
        start = tag.end()
        if tag.group(0) == "</table>":
            if not open_tables:
                raise BookError("a </table> closes no table: the page's tables are not nested")
            out.append("</table></div></div>" if open_tables.pop() else "</table>")
            continue
        attributes = tag.group(1) or ""
        plain = re.search(r"\sclass\s*=", attributes) is None
        open_tables.append(plain)
        out.append(f'{_WRAP}<table class="{TABLE_CLASS}"{attributes}>' if plain else tag.group(0))
    if open_tables:
        raise BookError(f"{len(open_tables)} table(s) of the page are never closed")
    out.append(page_html[start:])
    return "".join(out)
