"""Turn registered figures into SVG bytes and tables into markdown.

SVG output is byte-identical for identical sources: matplotlib's hash salt is
fixed and the date metadata removed. Rendered figures are cached on disk under
a key made from the figure's name, the theme, every source file of the
library and of the book and the versions of numpy and matplotlib, so a rebuild with nothing
changed renders nothing.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import re
import warnings
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.text import Text

import pe_explained

from . import FIGURES, TABLES, Table, load_all
from .notation import TEX_SPAN, math_notation
from .style import (
    THEMES,
    labels_under_phone_figure,
    legends_off_phone_data,
    phone_layout,
    raise_small_text,
    tidy_stacked_panels,
)
from .svg import compact_svg, embed_images_unresampled

__all__ = [
    "LAYOUTS",
    "draw_figure",
    "render_svg",
    "render_all_figures",
    "svg_size",
    "table_markdown",
    "format_cell",
    "variant_name",
]

#: The packages whose sources decide what a figure looks like: the library and the book.
SOURCE_DIRS = (Path(pe_explained.__file__).resolve().parent, Path(__file__).resolve().parent)


@lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """A hash of every source file of the library and the book, and the versions that draw."""
    digest = hashlib.sha256()
    digest.update(f"numpy {np.__version__} matplotlib {matplotlib.__version__}".encode())
    for root in SOURCE_DIRS:
        for path in sorted(root.rglob("*.py")):
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


#: The layouts every figure is drawn in: "wide" for the text column of a desktop or a
#: tablet, "phone" for a phone's (:func:`pe_book.style.phone_layout`).
LAYOUTS = ("wide", "phone")


def variant_name(name: str, theme: str, layout: str = "wide") -> str:
    """The file stem of one drawing: ``rope_pairs-light``, ``rope_pairs-dark-phone``."""
    return f"{name}-{theme}" + ("" if layout == "wide" else f"-{layout}")


def draw_figure(name: str, theme: str, layout: str = "wide"):
    """The matplotlib figure ``name`` in ``theme`` ("light" or "dark") and ``layout``.

    ``layout="phone"`` draws it narrower (:func:`pe_book.style.phone_layout`) with no
    text below the phone minimum, for the phone variant of the page's ``<picture>``.
    Call inside ``matplotlib.rc_context(THEMES[theme].rc)`` to save it as drawn.
    """
    load_all()
    if name not in FIGURES:
        known = ", ".join(sorted(FIGURES))
        raise KeyError(f"unknown figure {name!r}; registered figures: {known}")
    if theme not in THEMES:
        raise ValueError(f"theme must be 'light' or 'dark', got {theme!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {LAYOUTS}, got {layout!r}")
    style = THEMES[theme]
    if layout == "wide":
        return _with_math_notation(FIGURES[name].draw(style))
    with phone_layout():
        fig = _with_math_notation(FIGURES[name].draw(style))
    with warnings.catch_warnings():  # a layout before the text is raised need not fit
        warnings.simplefilter("ignore", UserWarning)
        fig.draw_without_rendering()  # creates the tick labels, so they are raised too
    tidy_stacked_panels(fig)
    labels_under_phone_figure(fig)
    raise_small_text(fig)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fig.draw_without_rendering()  # the raised text's room
    if legends_off_phone_data(fig):
        raise_small_text(fig)  # the moved legend's entries
    return fig


def _with_math_notation(fig):
    """Set the figure's plain-text symbols as mathtext (:func:`pe_book.notation.math_notation`),
    with the names the pages set upright (``PE``, ``pos``) upright here too, and its
    apostrophes curly, as the pages have them."""
    from .site import curly_apostrophes

    for text in fig.findobj(Text):
        label = text.get_text()
        if label:
            text.set_text(upright_names(math_notation(curly_apostrophes(label))))
    return fig


#: Names inside a formula that the pages set upright (pe_book.site.NAMES): ``PE(pos)``.
_UPRIGHT = re.compile(r"(?<![\\A-Za-z])(PE|pos)(?![A-Za-z])")
_ALREADY_UPRIGHT = re.compile(r"\\(?:mathrm|text|operatorname)\{$")


def upright_names(text: str) -> str:
    """``text`` with ``PE`` and ``pos`` inside its ``$…$`` set as ``\\mathrm{…}``, as the
    prose's MathML sets them, not as the italic product P·E of mathtext.

    >>> upright_names(r"$PE(pos + k)$ at pos, $\\mathrm{pos}$")
    '$\\\\mathrm{PE}(\\\\mathrm{pos} + k)$ at pos, $\\\\mathrm{pos}$'
    """

    def math(span: str) -> str:
        def name(match: re.Match) -> str:
            if _ALREADY_UPRIGHT.search(span[: match.start()]):
                return match.group(0)
            return rf"\mathrm{{{match.group(1)}}}"

        return _UPRIGHT.sub(name, span)

    return "".join(
        math(part) if TEX_SPAN.fullmatch(part) else part for part in TEX_SPAN.split(text)
    )


def render_svg(name: str, theme: str, layout: str = "wide") -> bytes:
    """Draw figure ``name`` in ``theme`` and ``layout`` (:func:`draw_figure`); SVG bytes,
    made smaller without changing the drawing (:mod:`pe_book.svg`)."""
    with matplotlib.rc_context(THEMES[theme].rc if theme in THEMES else {}):
        fig = draw_figure(name, theme, layout)
        embed_images_unresampled(fig)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    return compact_svg(buffer.getvalue())


_SIZE = re.compile(rb'<svg[^>]*?width="([\d.]+)pt"[^>]*?height="([\d.]+)pt"', re.S)


def svg_size(svg: bytes) -> tuple[int, int]:
    """CSS pixel width and height of a matplotlib SVG (its size is in points)."""
    match = _SIZE.search(svg[:2000])
    if not match:
        raise ValueError("SVG has no width/height in points")
    return tuple(math.ceil(float(v) * 4 / 3) for v in match.groups())


def _render_cached(job: tuple[str, str, str, str]) -> bytes:
    name, theme, layout, _ = job
    path = _cached_path(job, source_fingerprint())
    if path.exists():
        return path.read_bytes()
    svg = render_svg(name, theme, layout)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(svg)
    tmp.replace(path)
    return svg


def render_all_figures(cache_dir: Path) -> dict[tuple[str, str, str], bytes]:
    """Every registered figure in both themes and both layouts, from the cache where possible.

    Keys are ``(name, theme, layout)``. Figures missing from the cache are drawn in
    parallel on all cores.
    """
    load_all()
    jobs = [
        (n, t, layout, str(cache_dir))
        for n in sorted(FIGURES)
        for t in THEMES
        for layout in LAYOUTS
    ]
    key = source_fingerprint()
    missing = [j for j in jobs if not _cached_path(j, key).exists()]
    workers = min(os.cpu_count() or 1, len(missing))
    if workers > 1 and len(missing) > 4:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
            list(pool.map(_render_cached, missing))
    return {(n, t, layout): _render_cached((n, t, layout, c)) for n, t, layout, c in jobs}


def _cached_path(job: tuple[str, str, str, str], fingerprint: str) -> Path:
    name, theme, layout, cache_dir = job
    key = hashlib.sha256(f"{name}/{theme}/{layout}/{fingerprint}".encode()).hexdigest()[:24]
    return Path(cache_dir) / f"{variant_name(name, theme, layout)}-{key}.svg"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def format_cell(value, spec: str) -> str:
    """One table cell, formatted by magnitude.

    Strings as they are; ints (and bools as yes/no) without decimals; an exact float
    zero as ``0``; other floats with ``spec``, except that a scientific spec
    (``".3e"``) prints order-one values in fixed notation with the same significant
    digits and the others as ``a×10ⁿ``; a minus sign, never ``-0``.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}" if "," in spec else str(int(value))
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "−∞" if value < 0 else "∞"
        if value == 0.0:
            return "0"
        scientific = re.fullmatch(r"\.(\d+)[eE]", spec)
        if scientific:
            digits = int(scientific.group(1)) + 1  # significant digits
            if 1e-3 <= abs(value) < 10.0**digits:
                text = format(value, f"#.{digits}g").rstrip(".")
            else:
                mantissa, exponent = format(value, spec).lower().split("e")
                text = f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
        else:
            text = format(value, spec)
            if re.search(r"e[+-]\d", text):  # a "g" spec that chose an exponent
                mantissa, exponent = text.split("e")
                text = f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
        if re.fullmatch(r"-0?\.?0*%?", text):  # "-0.0000" -> "0.0000"
            text = text[1:]
        return text.replace("-", "−")
    raise TypeError(f"table cell must be str, int or float, got {type(value).__name__}")


_FROM_SUPERSCRIPT = {v: k for k, v in zip("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻", strict=True)}
#: A number as format_cell writes a power of ten: 5.6×10⁻¹⁷.
POWER_OF_TEN = re.compile(r"(−?\d+(?:\.\d+)?)×10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)")


def power_of_ten_markup(text: str, *, in_math: bool = False) -> str:
    """``text`` with every ``a×10ⁿ`` given a real superscript: ``a×10<sup>n</sup>`` in
    the text font, whose small superscript digits read at about 6 px, or the TeX
    ``a \\times 10^{n}`` when ``text`` stands inside a formula.

    >>> power_of_ten_markup("error 5.6×10⁻¹⁷, or −2×10³")
    'error 5.6×10<sup>−17</sup>, or −2×10<sup>3</sup>'
    >>> power_of_ten_markup("5.6×10⁻¹⁷", in_math=True)
    '5.6 \\\\times 10^{-17}'

    Inside a formula a thousands separator is braced, ``62{,}832``, so that TeX does not
    set it as a comma followed by a space.
    """

    def markup(match: re.Match) -> str:
        mantissa, exponent = match.group(1), "".join(_FROM_SUPERSCRIPT[c] for c in match.group(2))
        if in_math:
            return rf"{mantissa.replace('−', '-')} \times 10^{{{exponent}}}"
        return f"{mantissa}×10<sup>{exponent.replace('-', '−')}</sup>"

    marked = POWER_OF_TEN.sub(markup, text)
    return re.sub(r"(?<=\d),(?=\d{3})", "{,}", marked) if in_math else marked


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
