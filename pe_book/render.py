"""Turn registered figures into SVG bytes, one per palette and layout.

SVG output is byte-identical for identical sources: matplotlib's hash salt is
fixed and the date metadata removed. Rendered figures are kept in the build cache
(:mod:`pe_book.build_cache`) with the files each drawing read, so a rebuild draws again
only the figures whose code or data changed.
"""

from __future__ import annotations

import functools
import hashlib
import io
import math
import re
import warnings
from functools import lru_cache
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.text import Text

import pe_explained

from . import FIGURES, load_all
from .build_cache import BuildCache
from .notation import TEX_SPAN, math_notation
from .phone import (
    labels_under_phone_figure,
    legends_off_phone_data,
    raise_small_text,
    tidy_stacked_panels,
)
from .style import THEMES, phone_layout
from .svg import (
    HEATMAP_LEVELS,
    compact_svg,
    embed_images_unresampled,
    quantise_heatmap_colours,
    swap_palette,
)
from .swap import palette_swap, pixel_swap
from .text import curly_apostrophes

__all__ = [
    "LAYOUTS",
    "draw_figure",
    "render_svg",
    "render_variant",
    "svg_size",
    "swapped_to_dark",
    "variant_name",
]

#: The packages whose sources decide what a figure looks like: the library and the book.
SOURCE_DIRS = (Path(pe_explained.__file__).resolve().parent, Path(__file__).resolve().parent)


@lru_cache(maxsize=1)
def source_fingerprint() -> str:
    """A hash of every source file (Python and TOML data) of the library and the book, and
    the versions that draw."""
    digest = hashlib.sha256()
    digest.update(f"numpy {np.__version__} matplotlib {matplotlib.__version__}".encode())
    for root in SOURCE_DIRS:
        for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _keep_more_parsed_formulas(size: int = 4096) -> None:
    """Let matplotlib keep ``size`` parsed mathtext formulas, shared by every renderer.

    matplotlib keeps 50, per parser, and each Agg renderer (one per figure drawn) has a
    parser of its own: a figure's labels were parsed again at every draw of every
    variant. Here one cache of ``size`` serves every parser of one output type (a parse
    depends on the type, the formula, the dpi and the font, not on which renderer
    asked). The cache holds the same results; only how many it keeps, and for whom,
    changes.
    """
    from matplotlib.mathtext import MathTextParser

    if getattr(MathTextParser._parse_cached, "shared", False):
        return
    parse = MathTextParser._parse_cached.__wrapped__
    parsers: dict[str, MathTextParser] = {}

    @functools.lru_cache(size)
    def shared(output_type, s, dpi, prop, antialiased, load_glyph_flags):
        return parse(parsers[output_type], s, dpi, prop, antialiased, load_glyph_flags)

    def parse_cached(self, s, dpi, prop, antialiased, load_glyph_flags):
        parsers.setdefault(self._output_type, self)
        return shared(self._output_type, s, dpi, prop, antialiased, load_glyph_flags)

    parse_cached.shared = True
    parse_cached.cache_info = shared.cache_info
    MathTextParser._parse_cached = parse_cached


_keep_more_parsed_formulas()


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
    for text in fig.findobj(Text):
        label = text.get_text()
        if label:
            text.set_text(upright_names(math_notation(curly_apostrophes(label))))
    return fig


#: Names inside a formula that the pages set upright (pe_book.pages.mathml.NAMES): ``PE(pos)``.
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
        quantise_heatmap_colours(fig)
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


@functools.cache
def _cache_in(folder: str) -> BuildCache:
    """One :class:`BuildCache` of ``folder`` per process: a worker draws many figures."""
    return BuildCache(Path(folder))


def render_variant(name: str, theme: str, layout: str = "wide", light=None) -> bytes:
    """Figure ``name`` in ``theme`` and ``layout`` as SVG bytes: the dark variant of a
    figure whose light one is made of the light palette's colours alone is that drawing
    with each colour swapped for its dark counterpart (:func:`pe_book.svg.swap_palette`),
    the same shapes a dark drawing has, without drawing again; any other variant is drawn
    (:func:`render_svg`). ``light`` gives the light variant where it is at hand: its bytes,
    or a function that returns them (called only for a swap); else it is drawn. A figure
    registered with ``swap=False`` is always drawn."""
    if theme == "dark" and FIGURES[name].swap:
        if light is None:
            light = render_svg(name, "light", layout)
        swapped = swapped_to_dark(light() if callable(light) else light)
        if swapped is not None:
            return swapped
    return render_svg(name, theme, layout)


def swapped_to_dark(light: bytes) -> bytes | None:
    """The light drawing ``light`` with its colours and its images' pixels swapped for the
    dark palette's (:func:`pe_book.svg.swap_palette`), or None where some have no
    counterpart."""
    return swap_palette(light, _palette_swap(), _pixel_swap(), _SALT)


@functools.cache
def _palette_swap() -> dict[str, str]:
    return palette_swap(THEMES["light"], THEMES["dark"])


@functools.cache
def _pixel_swap() -> list[dict[int, int]]:
    return pixel_swap(THEMES["light"], THEMES["dark"], HEATMAP_LEVELS)


#: What matplotlib salts the hashes that name an SVG's images with, in a dark drawing.
_SALT = THEMES["dark"].rc["svg.hashsalt"]


def _render_cached(job: tuple[str, str, str, str]) -> bytes:
    """Figure ``job = (name, theme, layout, cache folder)`` as SVG bytes, from the build
    cache (:class:`pe_book.build_cache.BuildCache`) while nothing it read has changed; a
    dark variant starts from the light one, from the cache too (:func:`render_variant`)."""
    name, theme, layout, folder = job
    light = functools.partial(_render_cached, (name, "light", layout, folder))
    draw = lambda: render_variant(name, theme, layout, light).decode()  # noqa: E731
    return _cache_in(folder).text(f"figure:{name}/{theme}/{layout}", draw).encode()
