"""The dark palette's counterpart of each colour and pixel a light drawing takes from
its theme, for a dark variant made by swapping, not drawing
(:func:`pe_book.svg.swap_palette`, :func:`pe_book.render.render_variant`).
``tests/test_book.py`` holds every swapped figure to the drawn one, byte for byte."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import to_hex, to_rgb

from .style import MAX_LINE_COLOURS, Theme
from .svg import pixel_key

__all__ = ["palette_swap", "pixel_swap"]


def palette_swap(light: Theme, dark: Theme) -> dict[str, str]:
    """Each colour a light drawing takes from its theme, as ``#rrggbb``, with the colour
    the dark drawing takes in its place: the page background, the text, the muted
    colour, the cycle, and the line colours of every count up to
    :data:`MAX_LINE_COLOURS`. Left out (a drawing that uses one is drawn again, not
    swapped: :func:`pe_book.svg.swap_palette`): a light colour with two counterparts,
    and black, which matplotlib's SVG leaves unwritten where it fills (SVG's default
    fill), so that a swap would find only its strokes.
    """
    pairs = [
        (light.background, dark.background),
        (light.text, dark.text),
        (light.muted, dark.muted),
        *zip(light.cycle, dark.cycle, strict=True),
    ]
    for n in range(1, MAX_LINE_COLOURS + 1):
        pairs += zip(light.line_colours(n), dark.line_colours(n), strict=True)
    seen: dict[str, set[str]] = {}
    for a, b in pairs:
        seen.setdefault(to_hex(a), set()).add(to_hex(b))
    return {a: b.pop() for a, b in seen.items() if len(b) == 1 and a != "#000000"}


def pixel_swap(light: Theme, dark: Theme, levels: int) -> list[dict[int, int]]:
    """Maps of each pixel colour of a light drawing's images, as RGBA bytes packed in one
    integer (:func:`pe_book.svg.pixel_key`), to the dark drawing's pixel in its place.

    A heatmap's pixels are the levels of the theme's colour maps cut to ``levels``
    (:func:`pe_book.svg.quantise_heatmap_colours`), diverging for diverging and
    sequential for sequential, each with the map's colour for missing data: in the
    first map as an image's pixels take them (each channel times 255, rounded down), in
    the second as Agg paints a rasterised colour bar (rounded to the nearest). A
    categorical image's cells are the palette's colours (:func:`palette_swap`) at any
    opacity: in both maps, where no level has the same bytes. An image takes its pixels
    from one map. Left out: a light pixel with two counterparts in one map. An image in
    other colours is drawn again."""
    alpha = np.arange(256)[:, None]
    shades = []
    for a, b in palette_swap(light, dark).items():
        ours, theirs = (
            np.hstack([np.tile(np.round(np.multiply(to_rgb(c), 255)), (256, 1)), alpha])
            for c in (a, b)
        )
        shades += zip(pixel_key(ours), pixel_key(theirs), strict=True)
    maps = []
    for to_bytes in (np.floor, np.round):
        pairs = []
        for a, b in ((light.diverging, dark.diverging), (light.sequential, dark.sequential)):
            cut_a, cut_b = colormaps[a].resampled(levels), colormaps[b].resampled(levels)
            for values in (np.arange(levels), [np.nan]):  # the levels, then missing data
                ours, theirs = (to_bytes(cut(values) * 255) for cut in (cut_a, cut_b))
                pairs += zip(pixel_key(ours), pixel_key(theirs), strict=True)
        maps.append({**_one_to_one(shades), **_one_to_one(pairs)})
    return maps


def _one_to_one(pairs) -> dict[int, int]:
    """``{a: b}`` of the pairs, leaving out an ``a`` paired with two ``b``."""
    seen: dict[int, set[int]] = {}
    for a, b in pairs:
        seen.setdefault(int(a), set()).add(int(b))
    return {a: b.pop() for a, b in seen.items() if len(b) == 1}
