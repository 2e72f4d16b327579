"""Smaller SVG, same drawing (pe_book/svg.py): every coordinate moves by less than what a
screen can show, every element and attribute stays, and heatmaps keep their cells."""

from __future__ import annotations

import base64
import gzip
import io
import re
import struct
import xml.etree.ElementTree as ET

import matplotlib
import numpy as np
import pytest
from PIL import Image

from pe_book.render import render_svg
from pe_book.style import THEMES, new_figure
from pe_book.svg import (
    COORDINATE_DECIMALS,
    GLYPH_STEP,
    HEATMAP_LEVELS,
    _image_id,
    compact_svg,
    embed_images_unresampled,
    pixel_key,
    quantise_heatmap_colours,
    swap_palette,
)

matplotlib.use("Agg")

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}href"
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def _plain_svg(fig) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    return buffer.getvalue()


def _drawing(with_text: bool = True) -> bytes:
    """A line plot with ticks, labels and mathtext, saved as matplotlib writes it."""
    with matplotlib.rc_context(THEMES["light"].rc):
        fig = new_figure(5.0, 3.0)
        ax = fig.subplots()
        x = np.linspace(0.0, 7.0, 300)
        ax.plot(x, np.sin(x) / 3.0, label=r"$\sin(\omega_i\,p)$")
        ax.plot(x, np.cos(1.7 * x), linestyle="--")
        if with_text:
            ax.set_xlabel("position p")
            ax.set_title(r"Waves, $\theta_i = p\,\omega_i$")
            ax.legend()
        return _plain_svg(fig)


def _elements(svg: bytes) -> list[ET.Element]:
    return list(ET.fromstring(svg).iter())


def _absolute(path_data: str) -> list[float]:
    """The numbers of ``path_data`` as absolute coordinates, as SVG reads them: every
    point of a relative command (``m``, ``l``, ``q``, ``c``) is a step from the point the
    command starts at; ``z`` returns to the subpath's start."""
    tokens = re.findall(r"[A-Za-z]|-?\d+(?:\.\d+)?", path_data)
    here, start, found, k = (0.0, 0.0), (0.0, 0.0), [], 0
    while k < len(tokens):
        command, k = tokens[k], k + 1
        if command in "zZ":
            here = start
            continue
        count = 2 * {"m": 1, "l": 1, "q": 2, "c": 3}[command.lower()]
        numbers = [float(t) for t in tokens[k : k + count]]
        k += count
        if command.islower():
            numbers = [v + here[j % 2] for j, v in enumerate(numbers)]
        found += numbers
        here = (numbers[-2], numbers[-1])
        if command in "mM":
            start = here
    return found


def _glyph_scale(element: ET.Element) -> float:
    match = re.fullmatch(r"scale\(([\d.]+)\)", element.get("transform", ""))
    return float(match.group(1)) if match else 1.0


def test_compact_svg_moves_no_point_by_more_than_its_rounding():
    before = _drawing()
    after = compact_svg(before)
    old, new = _elements(before), _elements(after)
    drawn = [e.tag for e in old if e.tag.startswith(SVG) and e.tag != f"{SVG}metadata"]
    assert drawn == [e.tag for e in new]
    old = [e for e in old if e.tag == f"{SVG}path" or e.get("x") is not None]
    new = [e for e in new if e.tag == f"{SVG}path" or e.get("x") is not None]
    assert len(old) == len(new) > 20
    glyphs = 0
    for a, b in zip(old, new, strict=True):
        assert set(a.attrib) == set(b.attrib), a.attrib
        if a.tag == f"{SVG}path" and a.get("d"):
            xs = np.array(_absolute(a.get("d")), float) * _glyph_scale(a)
            ys = np.array(_absolute(b.get("d")), float) * _glyph_scale(b)
            assert xs.shape == ys.shape
            if _glyph_scale(a) != 1.0:  # a glyph outline: units of 1/64 pt at 100 pt
                glyphs += 1
                tolerance = GLYPH_STEP / 64 / 2 + 1e-9
            else:
                tolerance = 0.5 * 10.0**-COORDINATE_DECIMALS + 1e-9
            assert np.max(np.abs(xs - ys), initial=0.0) <= tolerance
        for key in ("x", "y", "width", "height"):
            if a.get(key) is not None:
                assert float(a.get(key)) == pytest.approx(float(b.get(key)), abs=0.005)
    assert glyphs >= 10, "the drawing's text is drawn from glyph outlines"


def test_path_data_becomes_relative_and_lands_on_the_rounded_points():
    from pe_book.svg import _relative

    absolute = "M 10.5 20 L 12.25 19.5 Q 13 14 15.5 15 C 1 2 3 4 5 6 z M 7 8 L 9.01 8 z"
    relative = _relative(absolute)
    assert relative.startswith("m10.5 20 l1.75 -0.5 q0.75 -5.5 3.25 -4.5 c-14.5 -13")
    assert _absolute(relative) == _absolute(absolute)
    wrong = relative.replace("l1.75", "l1.76")  # the check sees a point moved by 0.01
    assert _absolute(wrong) != _absolute(absolute)
    for kept in ("m1 2 l3 4", "M 1 2 L 3 4 5 6", "M 1e-05 2 L 3 4", "M 1.234 2 L 3 4"):
        assert _relative(kept) == kept  # relative already, implicit, exponent, 3 decimals


def test_compact_svg_keeps_size_and_transforms_but_is_much_smaller():
    before = _drawing()
    after = compact_svg(before)
    root_a, root_b = ET.fromstring(before), ET.fromstring(after)
    for key in ("width", "height", "viewBox"):
        assert root_a.get(key) == root_b.get(key)
    scales = re.compile(rb"(?:scale|rotate|matrix)\([^)]*\)")
    # glyph outlines get a new scale; every other scale, rotation and matrix is kept
    glyph_scales = (b"scale(0.015625)", b"scale(0.25)")
    assert [s for s in scales.findall(before) if s not in glyph_scales] == [
        s for s in scales.findall(after) if s not in glyph_scales
    ]
    assert len(gzip.compress(after)) < 0.85 * len(gzip.compress(before))
    assert b"<metadata>" not in after and b"\n" + b"L " not in after


def test_compact_svg_is_deterministic_and_idempotent():
    before = _drawing(with_text=False)
    once = compact_svg(before)
    assert compact_svg(_drawing(with_text=False)) == once
    assert compact_svg(once) == once  # glyph outlines are rescaled once only


def test_clip_ids_follow_the_drawn_clip_not_the_last_bits_of_the_layout():
    """matplotlib names a clip by a hash of its rectangle in full precision, whose last bits
    can differ with what the process drew before (numpy's SIMD sums depend on memory
    alignment); the drawing is the same, so after compact_svg the names are too."""

    def drawn(width: str, other: str) -> bytes:
        clip = (
            '<clipPath id="{}">\n   <rect x="30.91" y="29.6" width="{}" height="9"/>\n  </clipPath>'
        )
        return (
            (
                '<svg><g clip-path="url(#{a})"><path d="M 1 2 L 3 4"/></g>'
                '<g clip-path="url(#{b})"/><defs>\n  {ca}\n  {cb}\n </defs></svg>'
            )
            .format(
                a=other,
                b="p0000000002",
                ca=clip.format(other, width),
                cb=clip.format("p0000000002", 5),
            )
            .encode()
        )

    one = compact_svg(drawn("163.6775719623324", "pdd4f76fff5"))
    two = compact_svg(drawn("163.67757196233237", "p4b45b32fe6"))
    assert one == two
    ids = re.findall(rb'<clipPath id="(\w+)"', one)
    assert len(set(ids)) == 2  # two rectangles, two names
    for name in ids:  # and each name is used where its rectangle was
        assert b"url(#" + name + b")" in one
    assert compact_svg(one) == one


def _embedded_pngs(svg: bytes) -> list[tuple[int, int, str]]:
    found = []
    for image in ET.fromstring(svg).iter(f"{SVG}image"):
        data = base64.b64decode(image.get(XLINK).split(",", 1)[1])
        width, height = struct.unpack(">II", data[16:24])
        found.append((width, height, image.get("style", "")))
    return found


def _heatmap(data, interpolation: str):
    with matplotlib.rc_context(THEMES["light"].rc):
        fig = new_figure(5.0, 4.0)
        ax = fig.subplots()
        ax.imshow(data, cmap="viridis", interpolation=interpolation)
        return fig


def test_a_blocky_heatmap_is_embedded_at_its_data_resolution():
    data = np.arange(24 * 40, dtype=float).reshape(24, 40)
    fig = _heatmap(data, "nearest")
    assert embed_images_unresampled(fig) == 1
    ((width, height, style),) = _embedded_pngs(_plain_svg(fig))
    assert (width, height) == (40, 24)
    assert "pixelated" in style


@pytest.mark.parametrize(
    ("shape", "interpolation"),
    [((600, 800), "nearest"), ((40, 40), "bilinear"), ((150, 180), "antialiased")],
)
def test_finer_or_smoothed_images_are_left_as_drawn(shape, interpolation):
    # more data than pixels; a smoothing interpolation; "antialiased" at under 3x
    fig = _heatmap(np.random.default_rng(0).random(shape), interpolation)
    assert embed_images_unresampled(fig) == 0
    assert all("pixelated" not in style for *_, style in _embedded_pngs(_plain_svg(fig)))


def test_book_heatmaps_are_smaller_and_keep_their_cells():
    svg = render_svg("sinusoidal_heatmap", "light")
    pngs = _embedded_pngs(svg)
    cells = [(w, h) for w, h, style in pngs if "pixelated" in style]
    assert cells, pngs
    assert all(w * h <= 100 * 100 for w, h in cells)
    assert b"<metadata>" not in svg


def test_a_heatmap_colour_map_is_cut_to_its_levels_and_rgb_images_are_left():
    data = np.linspace(-1, 1, 24 * 40).reshape(24, 40)
    fig = _heatmap(data, "nearest")
    fig.axes[0].imshow(np.zeros((4, 4, 3)))  # an RGB image: colours, no map
    assert quantise_heatmap_colours(fig) == 1
    (heat, rgb) = fig.axes[0].get_images()
    assert heat.get_cmap().N == HEATMAP_LEVELS
    # every value is drawn in the full map's colour of a value at most one level away
    full = __import__("matplotlib").colormaps["viridis"]
    norm = (data + 1) / 2
    level = np.clip(np.floor(norm * HEATMAP_LEVELS), 0, HEATMAP_LEVELS - 1)
    shown = level / (HEATMAP_LEVELS - 1)
    np.testing.assert_allclose(heat.to_rgba(data), full(shown), atol=1e-6)
    assert np.abs(shown - norm).max() <= 1.0 / (HEATMAP_LEVELS - 1)
    assert quantise_heatmap_colours(fig) == 0  # already cut


_MARKERS = """<defs>
 <path id="m0123456789" d="m0 0 l0 3.5" style="stroke: #1f1f1f; stroke-width: 0.8"/>
</defs>
<use xlink:href="#m0123456789" x="1" y="2" style="fill: #1f1f1f; stroke: #1f1f1f"/>
<use xlink:href="#m0123456789" x="3" y="2" style="fill: #1f1f1f; stroke: #1f1f1f"/>
"""


def test_markers_are_named_by_their_shape_and_style_as_written():
    """matplotlib names a marker by a hash of what it was drawn from; here it is named by
    what is written, so the same marker in a swapped palette is named as a drawing in
    that palette names it."""
    a = compact_svg(_MARKERS.encode()).decode()
    b = compact_svg(_MARKERS.replace("m0123456789", "mfedcba9876").encode()).decode()
    assert a == b and "m0123456789" not in a
    (name,) = set(re.findall(r'id="(m[0-9a-f]{10})"', a))
    assert a.count(f"#{name}") == 2
    restyled = compact_svg(_MARKERS.replace("#1f1f1f", "#e8e8e8").encode()).decode()
    assert name not in restyled


def test_a_swapped_palette_is_the_other_palettes_drawing():
    colours = {"#1f1f1f": "#e8e8e8"}
    swapped = swap_palette(compact_svg(_MARKERS.encode()), colours)
    drawn = compact_svg(_MARKERS.replace("#1f1f1f", "#e8e8e8").encode())
    assert swapped == drawn


def test_no_swap_for_a_colour_without_counterpart_or_an_embedded_image():
    colours = {"#1f1f1f": "#e8e8e8"}
    assert swap_palette(_MARKERS.replace("#1f1f1f", "#123456").encode(), colours) is None
    image = '<image xlink:href="data:image/png;base64,AAAA" style="fill: #1f1f1f"/>'
    assert swap_palette(image.encode(), colours) is None


def _png(rgba) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.asarray(rgba, dtype=np.uint8)).save(buffer, format="png")
    return buffer.getvalue()


def _image_element(png: bytes, name: str) -> bytes:
    data = base64.b64encode(png).decode("ascii")
    return f'<image xlink:href="data:image/png;base64,\n{data}" id="{name}"/>'.encode()


def test_an_images_pixels_are_swapped_and_it_is_named_as_matplotlib_names_it():
    """Each pixel of an embedded PNG swapped by the map, the PNG written as matplotlib
    writes one and named by matplotlib's salted hash of it; a pixel the map lacks, or no
    map at all, leaves the image to be drawn again."""
    light = [[[10, 20, 30, 255], [40, 50, 60, 255]]]
    dark = [[[1, 2, 3, 255], [4, 5, 6, 255]]]
    keys = [int(k) for k in pixel_key(light[0])]
    pixels = {keys[0]: int(pixel_key(dark[0][0])), keys[1]: int(pixel_key(dark[0][1]))}
    png = _png(light)
    svg = _image_element(png, _image_id(png, "salt"))
    swapped = swap_palette(svg, {}, [pixels], "salt")
    assert swapped == _image_element(_png(dark), _image_id(_png(dark), "salt"))
    assert swap_palette(svg, {}, [{keys[0]: pixels[keys[0]]}], "salt") is None
    assert swap_palette(svg, {}) is None
    named = _image_element(png, "heatmap")  # a gid: kept
    assert swap_palette(named, {}, [pixels], "salt") == _image_element(_png(dark), "heatmap")


def test_an_image_is_named_as_matplotlib_names_it():
    from matplotlib.figure import Figure

    fig = Figure(figsize=(1, 1))
    fig.figimage(np.zeros((2, 2, 4), dtype=np.uint8) + 200)
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "salt"}):
        fig.savefig(buffer, format="svg")
    text = buffer.getvalue().decode()
    data = re.search(r'base64,\n([^"]*)" id="([^"]*)"', text)
    assert data.group(2) == _image_id(base64.b64decode(data.group(1)), "salt")
