"""The math font of the site: STIX Two Math, subset to what the pages' MathML uses.

Chromium sets MathML with the fonts it finds; without an OpenType math font
(one with a ``MATH`` table) fractions, scripts and stretchy brackets come out
small and uneven, and parentheses do not stretch around a matrix. The site
therefore serves its own math font, taken at build time from an installed
package, never committed and never fetched by the reader:

* the source is STIX Two Math (SIL Open Font License 1.1), the font the
  ``ziamath`` package ships (:data:`FONT_PACKAGE`, pinned in requirements.txt);
* :func:`math_characters` lists the characters of every page's MathML,
  including the mathematical italic letters Chromium draws for a single-letter
  ``<mi>`` (:func:`italic`);
* :func:`subset_font` keeps those characters, the glyphs the ``MATH`` table
  needs to stretch and to set scripts (size variants, assembly parts, ``ssty``;
  the root sign only at its base size, :data:`ONE_SIZE`), the copyright and
  licence names, and writes WOFF2 — about 40 KB instead of the 1.5 MB of the
  whole font. The same characters give the same bytes: the
  font's own timestamps are kept, never the time of the build;
* :func:`kept_subset` keeps the subset in the build cache (:mod:`pe_book.build_cache`)
  for the characters it was made from, so an unchanged build does not subset again.

The hook adds the file to the site as :data:`FONT_FILE`; ``book.css`` loads it
with ``@font-face`` by a relative URL, so it works from disk and offline.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import re
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

__all__ = [
    "FONT_FILE",
    "FONT_PACKAGE",
    "FONT_SOURCE",
    "ONE_SIZE",
    "italic",
    "kept_subset",
    "math_characters",
    "source_font",
    "subset_font",
]

#: The installed package that ships the font, and the font's path inside it.
FONT_PACKAGE = "ziamath"
FONT_SOURCE = "ziamath/fonts/STIXTwoMath-Regular.ttf"

#: Where the subset font goes in the site (``book.css`` refers to it relatively).
FONT_FILE = "assets/fonts/math.woff2"

#: Name records kept: family and style (1–6), copyright (0), licence and its URL (13, 14).
NAME_IDS = (0, 1, 2, 3, 4, 5, 6, 13, 14)

#: OpenType features kept besides fontTools' defaults: script-style alternates, dotless
#: forms under accents, flattened accents (the features math layout uses).
MATH_FEATURES = ("ssty", "dtls", "flac")

#: Characters the subset keeps at their one, base size: their larger sizes are dropped
#: from the ``MATH`` table. Chromium sizes a root's box for the widest size of its sign
#: (STIX Two's assembly pieces, 1.212 em) but draws the one it picks (0.794 em for
#: the base size), so every root ended in 0.42 em of empty space. The book's roots hold
#: one line of math (``render_math`` refuses a fraction or a stack under one), which
#: the base size covers.
ONE_SIZE = ("√",)


def source_font() -> Path:
    """The full STIX Two Math file of the installed :data:`FONT_PACKAGE`."""
    try:
        path = Path(distribution(FONT_PACKAGE).locate_file(FONT_SOURCE))
    except PackageNotFoundError:
        path = None
    if path is None or not path.is_file():
        raise FileNotFoundError(
            f"the math font {FONT_SOURCE} is missing: install the pinned requirements "
            "(python3 scripts/book.py setup)"
        )
    return path


def _italic_table() -> dict[str, str]:
    """MathML Core's italic mapping (text-transform: math-auto)."""
    table = {chr(0x41 + k): chr(0x1D434 + k) for k in range(26)}
    table |= {chr(0x61 + k): chr(0x1D44E + k) for k in range(26)}
    table["h"] = "\u210e"  # the italic h of Unicode's letterlike symbols (Planck constant)
    table |= {"\u0131": "\U0001d6a4", "\u0237": "\U0001d6a5"}  # dotless i and j
    table |= {chr(0x391 + k): chr(0x1D6E2 + k) for k in range(25) if k != 0x11}
    table |= {"\u03f4": "\U0001d6f3", "\u2207": "\U0001d6fb", "\u2202": "\U0001d715"}
    table |= {chr(0x3B1 + k): chr(0x1D6FC + k) for k in range(25)}
    variants = "\u03f5\u03d1\u03f0\u03d5\u03f1\u03d6"  # ϵ ϑ ϰ ϕ ϱ ϖ
    table |= {c: chr(0x1D716 + k) for k, c in enumerate(variants)}
    return table


_ITALIC = _italic_table()


def italic(char: str) -> str:
    """The character Chromium draws for ``<mi>char</mi>``: its mathematical italic form
    (``x`` → 𝑥, ``h`` → ℎ, ``θ`` → 𝜃), or ``char`` itself when it has none."""
    return _ITALIC.get(char, char)


_MATH = re.compile(r"<math\b.*?</math>", re.S)
_TOKEN = re.compile(r"<(mi|mn|mo|mtext|ms)\b([^>]*)>([^<]*)</\1>")
_RADICAL = re.compile(r"<m(?:sqrt|root)\b")


def math_characters(page_html: str) -> set[str]:
    """Every character the MathML of a page draws.

    The text of every token element (``mi``, ``mn``, ``mo``, ``mtext``, ``ms``) of every
    ``<math>``; for a single-letter ``<mi>`` not set upright (``mathvariant="normal"``),
    its mathematical italic form as well, which is the glyph the browser shows; and the
    radical sign √ when there is a root (``msqrt``, ``mroot``), which the browser draws
    from the font (its larger sizes come with it from the ``MATH`` table).
    """
    chars: set[str] = set()
    for math in _MATH.findall(page_html):
        if _RADICAL.search(math):  # a root's sign is drawn from the font, not a token
            chars.add("√")
        for tag, attrs, text in _TOKEN.findall(math):
            text = html.unescape(text).strip()
            chars.update(text)
            if tag == "mi" and len(text) == 1 and 'mathvariant="normal"' not in attrs:
                chars.add(italic(text))
    chars.discard("\n")
    return chars


def subset_font(characters, source: Path | None = None, one_size=ONE_SIZE) -> bytes:
    """WOFF2 bytes of the math font reduced to ``characters`` (an iterable of one-char strings).

    Keeps the ``MATH`` table and every glyph it reaches from the kept ones (the larger
    sizes and pieces of stretchy operators, script alternates) except the larger sizes
    of the characters in ``one_size`` (:data:`ONE_SIZE`), drops hinting, and keeps the
    font's own ``head`` timestamps, so equal inputs give equal bytes whatever the clock
    or ``SOURCE_DATE_EPOCH``.
    """
    from fontTools import subset
    from fontTools.ttLib import TTFont

    codepoints = sorted({ord(c) for c in characters})
    options = subset.Options()
    options.flavor = "woff2"
    options.hinting = False
    options.name_IDs = list(NAME_IDS)
    options.layout_features = [*options.layout_features, *MATH_FEATURES]
    out = io.BytesIO()
    with TTFont(source or source_font(), recalcTimestamp=False) as font:
        _drop_vertical_sizes(font, one_size)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=codepoints)
        subsetter.subset(font)
        font.flavor = "woff2"
        font.save(out, reorderTables=True)
    return out.getvalue()


def kept_subset(characters, cache) -> bytes:
    """:func:`subset_font` of ``characters``, kept in the build cache ``cache`` (a
    :class:`pe_book.build_cache.BuildCache`) as the entry ``font:math``, stamped with the
    characters and the fontTools version: read back while neither they nor this module
    and the font file it read changed."""
    import fontTools

    chars = "".join(sorted(set(characters)))
    stamp = hashlib.sha256(f"fontTools {fontTools.version}\0{chars}".encode()).hexdigest()
    kept = cache.text(
        "font:math", lambda: base64.b64encode(subset_font(chars)).decode("ascii"), stamp
    )
    return base64.b64decode(kept)


def _drop_vertical_sizes(font, characters) -> None:
    """Remove the vertical size variants and assembly of ``characters`` from the ``MATH``
    table of ``font``, so that they are drawn, and measured, at their base size only."""
    variants = font["MATH"].table.MathVariants
    cmap = font.getBestCmap()
    glyphs = variants.VertGlyphCoverage.glyphs
    for char in characters:
        name = cmap.get(ord(char))
        if name in glyphs:
            k = glyphs.index(name)
            del glyphs[k]
            del variants.VertGlyphConstruction[k]
    variants.VertGlyphCount = len(glyphs)
