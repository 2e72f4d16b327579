"""Text helpers below every stage of the page pipeline: how the book writes a value,
a caption, an apostrophe and inline math outside the Markdown stage.

Figures (:mod:`pe_book.render`), interactive figures (:mod:`pe_book.interactive`),
chapters, notebooks and the page stages (:mod:`pe_book.pages`) all use these, and
this module imports none of them: only :mod:`pe_book.notation`.
"""

from __future__ import annotations

import html
import math
import re
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

import numpy as np

from .notation import math_notation

__all__ = [
    "CHAPTER",
    "caption_html",
    "curly_apostrophes",
    "format_bound",
    "format_cell",
    "inline_math_html",
    "power_of_ten_markup",
]

#: The first heading of a numbered chapter: "# 12. ALiBi".
CHAPTER = re.compile(r"^#\s+(\d+)\.\s", re.MULTILINE)


#: Inline math outside the Markdown stage (captions, notebooks): ``$…$``, as in the prose.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$")


def inline_math_html(text: str, *, plain: bool = False) -> str:
    """``text`` with its ``$…$`` as arithmatex spans, which the MathML stage
    (:func:`pe_book.pages.mathml.render_math`) turns into MathML like the math of the
    prose. ``plain``: ``text`` is plain text (a notebook's markdown), escaped for HTML;
    otherwise it is HTML already (a caption)."""
    pieces, last = [], 0
    for match in _INLINE_MATH.finditer(text):
        between = text[last : match.start()]
        pieces.append(html.escape(between, quote=False) if plain else between)
        tex = html.escape(match.group(1), quote=False)
        pieces.append(f'<span class="arithmatex">\\({tex}\\)</span>')
        last = match.end()
    pieces.append(html.escape(text[last:], quote=False) if plain else text[last:])
    return "".join(pieces)


#: An apostrophe as captions type it: inside a word ("table's") or after a plural
#: before the next word ("models' rotary"), never a quote mark around a value ('halves').
_APOSTROPHE = re.compile(r"(?<=[A-Za-z0-9.])'(?=[a-z])|(?<=s)'(?= [a-z])")
#: What a caption keeps as typed: its math and its code.
_CAPTION_VERBATIM = re.compile(r"(\$[^$]*\$|<code>.*?</code>)")


def curly_apostrophes(text: str) -> str:
    """``text`` with its apostrophes set as the prose's (’), outside math and code.

    >>> curly_apostrophes("the models' table's <code>l'x</code> and $f'$, 'halves'")
    "the models’ table’s <code>l'x</code> and $f'$, 'halves'"
    """
    parts = _CAPTION_VERBATIM.split(text)
    return "".join(p if k % 2 else _APOSTROPHE.sub("’", p) for k, p in enumerate(parts))


def caption_html(number: str, text: str) -> str:
    """A caption's HTML: its number ("Figure 3.2"), then its text with the book's
    notation set as math (:func:`~pe_book.notation.math_notation`) and curly
    apostrophes, as the prose has them."""
    number_html = f'<span class="caption-number">{number}</span>'
    shown = inline_math_html(curly_apostrophes(math_notation(text)))
    return number_html + (f" {shown}" if text else "")


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


#: The specs a stated bound may use: fixed (``".2f"``, ``",.0f"``) or scientific (``".1e"``).
_BOUND_SPEC = re.compile(r",?\.(\d+)([fe])")


def format_bound(value, spec: str, *, side: str) -> str:
    """A bound the prose states, rounded outward and written as :func:`format_cell` writes.

    ``side="upper"`` rounds up, so that "no cosine above 0.31" stays true of 0.3042 (the
    nearest rounding, 0.30, would make the bound false); ``side="lower"`` rounds down.
    The rounding is done on the exact binary value, in the last place ``spec`` shows.

    >>> format_bound(0.3042, ".2f", side="upper"), format_bound(0.3042, ".2f", side="lower")
    ('0.31', '0.30')
    >>> format_bound(6.0289e-05, ".1e", side="upper")
    '6.1×10⁻⁵'
    >>> format_bound(-0.251, ".2f", side="upper"), format_bound(0.25, ".2f", side="upper")
    ('−0.25', '0.25')
    """
    if side not in ("upper", "lower"):
        raise ValueError(f"side must be 'upper' or 'lower', got {side!r}")
    match = _BOUND_SPEC.fullmatch(spec) if isinstance(spec, str) else None
    if match is None:
        raise ValueError(f"spec must be a fixed or scientific format such as '.2f', got {spec!r}")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"value must be a real number, got {type(value).__name__}")
    if not math.isfinite(float(value)):
        raise ValueError(f"value must be finite, got {value}")
    exact, digits = Decimal(float(value)), int(match.group(1))
    if exact == 0:
        return format_cell(0.0, spec)
    # the last place shown: 10^-digits in fixed notation, 10^(exponent - digits) otherwise
    last = -digits if match.group(2) == "f" else exact.adjusted() - digits
    rounding = ROUND_CEILING if side == "upper" else ROUND_FLOOR
    rounded = exact.quantize(Decimal(1).scaleb(last), rounding=rounding)
    # a float holding a decimal of at most 15 digits formats back to that decimal
    return format_cell(float(rounded), spec)


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
