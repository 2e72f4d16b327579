"""The tables stage: a registered table as Markdown, and wide tables as phone cards.

* :func:`table_markdown` writes table ``name`` of the registry (:data:`pe_book.TABLES`)
  as a Markdown table, every cell formatted by :func:`pe_book.text.format_cell`; the
  ``{{ table: … }}`` shortcode (:mod:`pe_book.pages.shortcodes`) puts it on its page.
* :func:`card_tables`, a stage of the page's HTML, marks wide comparison tables to be
  shown as one card per row on phones.
"""

from __future__ import annotations

import html
import math
import re

import numpy as np

from .. import TABLES, Table, load_all
from ..notation import TEX_SPAN, math_notation
from ..text import format_cell, power_of_ten_markup
from .base import TAG

__all__ = ["card_tables", "table_markdown"]


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
_HEADER = re.compile(r"<th(?:\s[^>]*)?>(.*?)</th>", re.S)  # not <thead>
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td((?:\s[^>]*)?)>(.*?)</td>", re.S)
#: A value longer than this (characters of text) sits under its label on a phone card,
#: left-aligned, instead of beside it in a ragged right-aligned column.
LONG_VALUE = 28
#: Tables of at least this many columns whose rows are named by text, or that have at
#: most :data:`CARD_ROWS` rows, become cards.
CARD_COLUMNS = 4
#: A table this short is a handful of cases, not a matrix, even if its rows are numbered.
CARD_ROWS = 8


def card_tables(page_html: str) -> str:
    """Mark wide comparison tables to be shown as one card per row on phones.

    A generated table with :data:`CARD_COLUMNS` or more columns whose first column
    names its rows in text (left-aligned: a model, an encoding, a convention) gets
    ``data-cards``, and every cell its column's header: as text in ``data-label`` and as
    the page sets it (math included) in a ``pe-card-label`` span hidden from assistive
    technology (the table's header row stays for it), which the phone stylesheet shows
    beside the value. So does a table of numbered rows no longer than
    :data:`CARD_ROWS` (a few pairs, offsets or dimensions), marked
    ``data-cards="numbered"``: its cards are titled "pair i = 0", not "0". Longer ones
    are matrices, which keep their grid and scroll sideways. A table registered with
    ``cards=False`` (its caption marked ``data-grid``) keeps its grid too, as
    ``<table data-grid>``: the stylesheet holds its first column in view while the rest
    scrolls.
    """

    def convert(match: re.Match) -> str:
        caption, inner = match.groups()
        if " data-grid" in caption[: caption.index(">")]:
            return f"{caption}<table data-grid>{inner}</table>"
        head, _, body = inner.partition("</thead>")
        shown = _HEADER.findall(head)  # each header as the page sets it, math and all
        headers = [  # and as plain text, for the attribute: math keeps its characters only
            html.escape(" ".join(html.unescape(TAG.sub(" ", h)).split()), quote=True) for h in shown
        ]
        rows = _ROW.findall(body)
        first_cells = [row.split("<td", 2)[1] if "<td" in row else "" for row in rows]
        named = rows and all("text-align: right" not in cell[:40] for cell in first_cells)
        if len(headers) < CARD_COLUMNS or not (named or len(rows) <= CARD_ROWS):
            return match.group(0)

        def label_row(row: re.Match) -> str:
            labels = iter(zip(headers, shown, strict=True))

            def cell(match: re.Match) -> str:
                plain, label = next(labels, ("", ""))
                attributes, content = match.groups()
                text = " ".join(html.unescape(TAG.sub(" ", content)).split())
                long = " data-long" if len(text) > LONG_VALUE else ""
                return (
                    f'<td data-label="{plain}"{long}{attributes}>'
                    f'<span class="pe-card-label" aria-hidden="true">{label.strip()}</span>'
                    f"{content}</td>"
                )

            return f"<tr>{_CELL.sub(cell, row.group(1))}</tr>"

        # a card of a numbered row is titled with its number and what it numbers
        cards = "<table data-cards>" if named else '<table data-cards="numbered">'
        return f"{caption}{cards}{head}</thead>{_ROW.sub(label_row, body)}</table>"

    return _GENERATED_TABLE.sub(convert, page_html)
