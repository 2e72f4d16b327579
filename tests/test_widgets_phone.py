"""The interactive figures as a reader sees them, on a phone and on a wide screen.

Each check drives the built site in Chromium the way a reader does (scroll to the
figure, then keys and taps) and looks at what shows: a widget fits the visible
height of a phone (390 × 844, under the header) with its plots above its controls,
every control changes the pixels of the plots, no slider track is a white bar on the
dark palette, keyboard focus draws a ring, ALiBi's heads share one colour scale, a
red–blue heatmap keeps zero dark on the dark palette, each context-extension method
keeps its colour of Figure 15.1 and only a method with an attention factor draws one,
and a readout's numbers are the library's, written as the prose writes them.

These checks are written for a widget beside a figure (``FIGURES``); the config
inspector, a tool whose input comes first and whose report runs longer than a screen, is
checked for what applies to it in ``tests/test_inspector.py``.

``test_each_check_fails_on_a_broken_widget`` serves the site with one small fault in
the script or the stylesheet (through Playwright's routing) and expects the check
written for it to fail.
"""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from browser_support import DOCS, browser_missing
from test_interactive import FIGURES, _open

import pe_explained as pe
from pe_book import TABLES, VALUES, load_all
from pe_book.chapters.precision import BF16_BUFFER, LENGTHS
from pe_book.interactive import INTERACTIVES
from pe_book.style import THEMES
from pe_book.text import format_cell

load_all()

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing() is not None, reason=f"{browser_missing()}"),
]

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1280, "height": 900}
WIDGET = ".pe-interactive[data-interactive='{}']"
ASSETS = {
    "script": ("**/assets/javascripts/interactive.js", DOCS / "assets/javascripts/interactive.js"),
    "css": ("**/assets/stylesheets/book.css", DOCS / "assets/stylesheets/book.css"),
    **{
        stem.removeprefix("interactive-"): (
            f"**/assets/javascripts/{stem}.js",
            DOCS / f"assets/javascripts/{stem}.js",
        )
        for stem in ("interactive-properties", "interactive-precision", "interactive-rope")
    },
}


class Opener:
    """``open(name, viewport, scheme)`` -> (page, widget locator), each in a context of its
    own; ``faults`` maps "script" or "css" to (text, replacement), served instead of the
    site's file. ``close()`` closes them all and returns the pages' script errors."""

    def __init__(self, browser, server, faults=None):
        self.browser, self.server, self.faults = browser, server, faults or {}
        self.contexts, self.errors = [], []

    def open(self, name, viewport=PHONE, scheme="light"):
        context = self.browser.new_context(viewport=viewport, color_scheme=scheme, has_touch=True)
        self.contexts.append(context)
        for asset, (right, wrong) in self.faults.items():
            pattern, source = ASSETS[asset]
            text = source.read_text(encoding="utf-8")
            if text.count(right) != 1:
                raise LookupError(f"{source.name} no longer holds {right!r} once")
            body = text.replace(right, wrong)
            context.route(pattern, self._serve(body))
        page = context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        _open(page, self.server, name)
        return page, page.locator(WIDGET.format(name))

    @staticmethod
    def _serve(body: str):
        """A route handler that answers with ``body``."""
        return lambda route: route.fulfill(body=body)

    def close(self) -> list[str]:
        for context in self.contexts:
            context.close()
        return self.errors


@pytest.fixture
def opener(browser, server):
    """An :class:`Opener` of the site as built; the test fails on any script error."""
    opened = Opener(browser, server)
    yield opened
    assert not opened.close()


def pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)


def readout(root) -> str:
    """The readout's text, without the word joiners that keep a range on one line."""
    return root.locator(".pe-i-readout").text_content().replace("\u2060", "")


# --- a phone's screen ---------------------------------------------------------------------

_FIT = """(root) => {
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  const plots = root.querySelector(".pe-i-plots");
  const controls = root.querySelector(".pe-i-controls");
  return {
    height: root.getBoundingClientRect().height, visible: innerHeight - header,
    plotsFirst: !!(plots.compareDocumentPosition(controls) & Node.DOCUMENT_POSITION_FOLLOWING),
  };
}"""


def check_fits_a_phone(opener, name, scheme="light"):
    """At 390 × 844 the whole widget (title, plots, controls, readout) fits under the
    header, plots above the controls: a control and what it moves are seen together."""
    page, root = opener.open(name, PHONE, scheme)
    fit = root.evaluate(_FIT)
    assert fit["plotsFirst"], f"{name}: the controls come before the plots"
    assert fit["height"] <= fit["visible"], (
        f"{name}: {fit['height']:.0f} px tall, {fit['visible']:.0f} px visible under the header"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_a_widget_fits_the_visible_height_of_a_phone_plots_first(opener, name, scheme):
    check_fits_a_phone(opener, name, scheme)


# --- every control moves the picture -------------------------------------------------------

#: The label of every shown control (its box's first child).
_CONTROLS = """(root) => [...root.querySelectorAll(".pe-i-control")]
  .filter((box) => !box.hidden).map((box) => box.firstElementChild.textContent.trim())"""


def _operate(page, root, label: str) -> None:
    """Move the control labelled ``label`` one step, as a reader would: a key on a slider,
    a radio group or a list, a tap on a button."""
    box = root.locator(".pe-i-control").filter(
        has=page.locator(f"xpath=./*[1][normalize-space()={label!r}]")
    )
    kind = box.evaluate(
        "(b) => b.querySelector('input[type=range]') ? 'range' : b.querySelector('select') ? "
        "'select' : b.querySelector('.pe-i-segments') ? 'radio' : 'buttons'"
    )
    if kind == "range":
        slider = box.locator("input[type=range]")
        at_end = slider.evaluate("(i) => +i.value === +i.max")
        slider.focus()
        page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
    elif kind == "radio":
        box.locator("input:checked").focus()
        page.keyboard.press("ArrowRight")
    elif kind == "select":
        select = box.locator("select")
        select.focus()
        at_end = select.evaluate("(s) => s.selectedIndex === s.options.length - 1")
        page.keyboard.press("ArrowUp" if at_end else "ArrowDown")
    else:
        box.locator("button:enabled").last.tap()


def check_every_control_changes_the_picture(opener, name, viewport=PHONE, scheme="light"):
    """Each control, moved one step, changes the pixels of the plots; context extension's
    length control, shown for dynamic NTK only, is tried there."""
    page, root = opener.open(name, viewport, scheme)
    plots = root.locator(".pe-i-plots")
    tried = []
    for rounds in range(2):
        for label in [label for label in root.evaluate(_CONTROLS) if label not in tried]:
            before = plots.screenshot()
            _operate(page, root, label)
            assert plots.screenshot() != before, f"{name}: {label!r} changed nothing"
            tried.append(label)
        if name == "context" and rounds == 0:
            root.locator(".pe-i-segments label", has_text="dynamic NTK").tap()
    assert len(tried) >= 3, tried


@pytest.mark.parametrize(("viewport", "scheme"), [(PHONE, "light"), (WIDE, "dark")])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_control_changes_the_picture(opener, name, viewport, scheme):
    check_every_control_changes_the_picture(opener, name, viewport, scheme)


# --- controls on the dark palette, and under the keyboard ------------------------------------


def check_no_white_slider_track(opener, name, viewport=PHONE):
    """The sliders are drawn by the book's stylesheet (``appearance: none``), on a track
    in the palette's line colour: no near-white pixel in any slider."""
    page, root = opener.open(name, viewport, "dark")
    sliders = root.locator("input[type=range]:visible")
    assert sliders.count() > 0
    for i in range(sliders.count()):
        slider = sliders.nth(i)
        white = int((pixels(slider.screenshot()).min(axis=2) > 200).sum())
        assert white == 0, f"{name}: slider {i} has {white} near-white pixels"
        assert slider.evaluate("(s) => getComputedStyle(s).appearance") == "none"


@pytest.mark.parametrize("viewport", [PHONE, WIDE])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_no_slider_track_is_a_white_bar_on_the_dark_palette(opener, name, viewport):
    check_no_white_slider_track(opener, name, viewport)


_RING = """() => {
  const el = document.activeElement;
  if (!el.closest(".pe-interactive")) return { inside: false };
  const holder = el.type === "radio" ? el.labels[0] : el;
  const style = getComputedStyle(holder);
  return {
    inside: true, visible: el.matches(":focus-visible"),
    what: (el.type || el.tagName) + " " + (el.labels?.[0]?.textContent || el.textContent),
    outline: style.outlineStyle !== "none" ? parseFloat(style.outlineWidth) : 0,
    box: [...el.closest(".pe-interactive").querySelectorAll(".pe-i-control")]
      .indexOf(el.closest(".pe-i-control")),
  };
}"""


def check_focus_ring(opener, name, scheme="light"):
    """Tab through the widget: every control it reaches matches :focus-visible, draws an
    outline of at least 2 px (on a segment's label, its radio being unseen) and changes
    the pixels of its box."""
    page, root = opener.open(name, WIDE, scheme)
    boxes = root.locator(".pe-i-control")
    unfocused = {
        i: boxes.nth(i).screenshot() for i in range(boxes.count()) if boxes.nth(i).is_visible()
    }
    page.keyboard.press("Shift")  # the reader's last input is the keyboard
    root.locator("input, select, button").first.focus()
    seen = 0
    while (ring := page.evaluate(_RING))["inside"]:
        assert ring["visible"], f"{name}: {ring['what']} focused without :focus-visible"
        assert ring["outline"] >= 2, f"{name}: no focus ring on {ring['what']}: {ring}"
        assert boxes.nth(ring["box"]).screenshot() != unfocused[ring["box"]], ring["what"]
        seen += 1
        page.keyboard.press("Tab")
    assert seen >= 3, f"{name}: only {seen} controls reached by Tab"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_keyboard_focus_draws_a_visible_ring(opener, name, scheme):
    check_focus_ring(opener, name, scheme)


# --- heatmaps: one scale across ALiBi's heads; zero dark on the dark palette ----------------


def check_alibi_scale(opener):
    """Stepping from the widget's first head to the next keeps the colour bar and changes
    the matrix's colours (a gentler slope shows paler): the comparison across heads is
    the lesson."""
    page, root = opener.open("alibi", WIDE)
    start = INTERACTIVES["alibi"].defaults().get("head", 1)
    plot = root.locator(".pe-i-plot").first
    image, bar = plot.locator("image.pe-i-light").first, plot.locator("g.pe-i-axes").last
    first, first_bar = image.get_attribute("href"), bar.text_content()
    assert f"Head {start}:" in readout(root)
    root.get_by_role("button", name="next head h").click()
    assert f"Head {start + 1}:" in readout(root)
    assert bar.text_content() == first_bar, "the colour bar changed with the head"
    assert image.get_attribute("href") != first, "the next head's matrix looks like the first's"


def test_alibi_heads_share_one_colour_scale(opener):
    check_alibi_scale(opener)


def check_zero_dark_on_dark(opener):
    """The sinusoidal table is half zeros on its slow side: on the dark palette the widget's
    heatmap shows them near-black, not as white blocks; on the light one, white, as the
    figure does."""
    for scheme in ("dark", "light"):
        page, root = opener.open("sinusoidal", WIDE, scheme)
        heatmap = root.locator(".pe-i-plot").first.locator("image:visible").first
        white = float((pixels(heatmap.screenshot()).min(axis=2) > 230).mean())
        if scheme == "dark":
            assert white < 0.01, f"{white:.1%} of the dark palette's heatmap is near-white"
        else:
            assert white > 0.05, "the light palette's map (the figure's) has white at zero"


def test_a_red_blue_heatmap_keeps_zero_dark_on_the_dark_palette(opener):
    check_zero_dark_on_dark(opener)


# --- context extension: Figure 15.1's colours; an attention factor only where there is one ---

#: The widget's methods: their names on the buttons, and their lines in Figure 15.1.
METHODS = {
    "linear": ("position interpolation", 1),
    "ntk": ("NTK-aware", 2),
    "dynamic": ("dynamic NTK", 3),
    "yarn": ("YaRN", 4),
    "llama3": ("Llama 3 rule", 5),
}

_STROKES = """(root) => [...root.querySelectorAll(".pe-i-plot")].map((plot) =>
  [...plot.querySelectorAll(".pe-i-line, .pe-i-dot")].map((el) => {
    const style = getComputedStyle(el);
    return [style.stroke, style.strokeDasharray !== "none" && style.strokeDasharray !== ""];
  }))"""


def _figure_lines(scheme: str) -> list[tuple[str, bool]]:
    """(colour as rgb(), dashed) of the lines of Figure 15.1's stretch panel, drawn as the
    build draws it: original RoPE first, then the methods."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    from pe_book.render import draw_figure

    with matplotlib.rc_context(THEMES[scheme].rc):
        fig = draw_figure("context_wavelengths", scheme)
    lines = fig.axes[1].lines[: len(METHODS) + 1]
    plt.close(fig)
    rgb = [
        "rgb({}, {}, {})".format(*(round(c * 255) for c in to_rgb(x.get_color()))) for x in lines
    ]
    return [(c, line.get_linestyle() != "-") for c, line in zip(rgb, lines, strict=True)]


def _method(root, key: str) -> str:
    root.locator(".pe-i-segments label", has_text=METHODS[key][0]).click()
    return readout(root)


def check_method_colours(opener, scheme="light"):
    """Each method's line has its colour (and dashes) of Figure 15.1, beside original RoPE's;
    YaRN's attention factor is drawn in YaRN's colour, and no other method draws one."""
    figure = _figure_lines(scheme)
    page, root = opener.open("context", WIDE, scheme)
    for key, (_, line) in METHODS.items():
        text = _method(root, key)
        stretch, factor = ([tuple(x) for x in plot] for plot in root.evaluate(_STROKES))
        assert figure[0] in stretch, f"{key}: original RoPE not drawn as in the figure"
        assert figure[line] in stretch, f"{key}: {stretch} lacks the figure's {figure[line]}"
        if key == "yarn":
            assert factor and all(s == figure[line][0] for s, _ in factor), factor
        else:
            assert factor == [], f"{key} has no attention factor, yet one is drawn: {factor}"
            assert "No attention factor" in text, text


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_method_keeps_its_colour_of_figure_15_1(opener, scheme):
    check_method_colours(opener, scheme)


# --- readouts: the library's numbers, written as the prose writes them -----------------------


def _value(name: str) -> str:
    return VALUES[name].text()


def check_sinusoidal_readout(opener):
    """The wavelengths as the page writes them (6.28, and 47,117 for d_model = 64); one
    pair is "1 pair"."""
    page, root = opener.open("sinusoidal", WIDE)
    text = readout(root)
    assert text.startswith("32 pairs:"), text
    assert f"2π ≈ {_value('sinusoidal.shortest_wavelength')} positions" in text, text
    assert f"once every {_value('sinusoidal.longest_wavelength_64')}." in text, text
    root.locator("input[type=range]").first.focus()
    page.keyboard.press("Home")  # d_model = 2: one pair
    assert readout(root).startswith("1 pair,"), readout(root)


def test_sinusoidal_readout_says_the_pages_wavelengths_and_counts_pairs(opener):
    check_sinusoidal_readout(opener)


def test_rope_readout_is_the_pages_score_without_raw_vectors(opener):
    q, k = np.random.default_rng(0).standard_normal((2, 1, 8))
    inv_freq, _ = pe.rope_frequencies(8)
    score = float((pe.apply_rope(q, [5], inv_freq) @ pe.apply_rope(k, [2], inv_freq).T)[0, 0])
    page, root = opener.open("rope", WIDE)
    text = readout(root)
    # the page's example prints round(score, 6)
    assert f"= {round(score, 6)} at".replace("-", "−") in text, text
    assert "[" not in text, f"raw vector components in the readout: {text}"


def check_alibi_readout(opener, heads, head):
    """Head ``head`` of ``heads``: its slope and power of two as Table 12.1 writes them,
    ``f"{slope:.6g} ($2^{{{log2(slope):g}}}$)"``."""
    slope = float(pe.alibi_slopes(heads)[head - 1])
    page, root = opener.open("alibi", WIDE)
    root.locator("input[type=range]").first.focus()
    page.keyboard.press("Home")
    for _ in range(heads - 1):
        page.keyboard.press("ArrowRight")
    for _ in range(head - 1):
        root.get_by_role("button", name="next head h").click()
    expected = f"m{head} = 2{math.log2(slope):g} = {slope:.6g};".replace("-", "−")
    assert expected in readout(root), (expected, readout(root))


@pytest.mark.parametrize(("heads", "head"), [(8, 1), (8, 8), (12, 9), (33, 5)])
def test_alibi_readout_writes_slopes_as_table_12_1(opener, heads, head):
    check_alibi_readout(opener, heads, head)


def check_context_readouts(opener):
    """The running example's pairs kept, blended and divided by YaRN and Llama 3's rule,
    NTK-aware's base and stretches, dynamic NTK's at four times the context, and YaRN's
    attention factor and its square as Table 15.x prints them."""
    page, root = opener.open("context", WIDE)
    v = lambda name: _value(f"context_extension.{name}")  # noqa: E731
    factors = TABLES["context_extension.attention_factors"].build()
    at = factors.columns.index("factor $s = 4$")
    yarn_factor, yarn_square = (
        format_cell(factors.rows[row][at], factors.default_format) for row in (1, 2)
    )
    expected = {
        "yarn": (
            f"keeps the first {v('yarn_band_kept')} pairs",
            f"blends pairs {v('yarn_band_first')} to {v('yarn_band_last')} by "
            f"{v('yarn_band_stretch')}×",
            f"and divides the last {v('yarn_band_divided')}.",
            f"Attention factor {yarn_factor}: the logits are multiplied by its square, "
            f"{yarn_square}.",
        ),
        "llama3": (
            f"keeps the first {v('llama3_band_kept')} pairs",
            f"blends pairs {v('llama3_band_first')} to {v('llama3_band_last')} by "
            f"{v('llama3_band_stretch')}×",
            f"and divides the last {v('llama3_band_divided')}.",
            "No attention factor",
        ),
        "ntk": (
            f"the base becomes {v('ntk_running_base')}",
            f"the fastest pair is stretched {v('ntk_fastest_stretch')}×",
            f"the slowest {v('ntk_slowest_stretch')}×",
        ),
        # asked for four times the context (the widget's start), as in the prose
        "dynamic": (f"the slowest {v('dynamic_slowest_stretch')}×",),
    }
    for key, said in expected.items():
        text = _method(root, key)
        for part in said:
            assert part in text, (key, part, text)


def test_context_readouts_say_the_chapters_numbers(opener):
    check_context_readouts(opener)


def check_rotation_readout(opener):
    """Chapter 4's widget at the table's offset k: each pair's frequency, angle, cosine and
    sine as the table of M_k writes them; a step in pos changes the positions, not the
    angle nor the block (M_k holds no pos)."""
    offsets = TABLES["properties.offset_blocks"].build()
    page, root = opener.open("offset_rotation", WIDE)
    for row in offsets.rows:
        i, omega, angle, cosine, sine = (
            format_cell(v, offsets.formats.get(c, offsets.default_format))
            for c, v in zip(offsets.columns, row, strict=True)
        )
        root.locator(".pe-i-segments label").nth(int(i)).click()
        said = (f"ω{i} = {omega}:", f"k ω{i} = {angle} rad", f"cosine {cosine}, sine {sine}.")
        text = readout(root)
        assert all(part in text for part in said), (said, text)
        position = root.locator("input[type=range]").last
        position.focus()
        page.keyboard.press("ArrowRight")
        moved = readout(root)
        assert moved != text and all(part in moved for part in said), (said, moved)
        page.keyboard.press("ArrowLeft")


def test_rotation_readout_says_the_table_of_m_k(opener):
    check_rotation_readout(opener)


def check_precision_readout(opener):
    """Chapter 20's widget in a float32 and a bfloat16 model: at each length of the table
    of angle errors, the route and its cell as the table writes them."""
    errors = TABLES["precision.angle_errors"].build()
    rows = {row[0]: row[1:] for row in errors.rows}
    page, root = opener.open("rope_precision", WIDE)
    earlier = root.get_by_role("button", name="previous positions below")
    for name, route in (("float32", "float32 recipe"), ("bfloat16", BF16_BUFFER)):
        root.locator(".pe-i-segments").get_by_text(name, exact=True).click()
        for at in reversed(range(len(LENGTHS))):
            text = readout(root)
            cell = format_cell(rows[route][at], errors.default_format)
            said = f"{route}: the largest error of a cosine or a sine over every pair and the "
            said += f"{_value('precision.WINDOW')} positions below {LENGTHS[at]:,} is {cell};"
            assert said.replace("-", "−") in text.replace("-", "−"), (said, text)
            if at:
                earlier.click()
        for _ in range(len(LENGTHS) - 1):  # back to the longest, for the next format
            root.get_by_role("button", name="next positions below").click()


def test_precision_readout_says_the_table_of_angle_errors(opener):
    check_precision_readout(opener)


def _format_colours(scheme: str) -> dict[str, str]:
    """The colour (as rgb()) of each format's line in chapter 20's figure of the spacing of
    stored positions, drawn as the build draws it."""
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb

    from pe_book.render import draw_figure

    with matplotlib.rc_context(THEMES[scheme].rc):
        fig = draw_figure("precision_position_spacing", scheme)
    lines = {line.get_label(): line.get_color() for line in fig.axes[0].lines}
    plt.close(fig)
    return {
        name: "rgb({}, {}, {})".format(*(round(c * 255) for c in to_rgb(colour)))
        for name, colour in lines.items()
    }


def check_format_colours(opener, scheme="light"):
    """Each format's lines and dots have that format's colour in the chapter's figure."""
    figure = _format_colours(scheme)
    page, root = opener.open("rope_precision", WIDE, scheme)
    for name in ("float16", "bfloat16", "float32"):
        root.locator(".pe-i-segments").get_by_text(name, exact=True).click()
        strokes = {stroke for plot in root.evaluate(_STROKES) for stroke, _ in plot}
        assert strokes == {figure[name]}, (name, strokes, figure[name])


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_each_format_keeps_its_colour_of_the_chapters_figures(opener, scheme):
    check_format_colours(opener, scheme)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_titles_and_readouts_have_curly_apostrophes(opener, name):
    page, root = opener.open(name, WIDE)
    text = root.evaluate("(r) => r.textContent")
    assert "'" not in text, f"{name}: a straight apostrophe in {text!r}"


# --- each check fails on a widget broken as the check forbids -------------------------------

#: (check and its arguments, the file to break, its text, the fault).
FAULTS = [
    (
        (check_fits_a_phone, "sinusoidal"),
        "script",
        "Math.min(hi, Math.max(lo, Math.round(width * ratio)))",
        "Math.max(hi, Math.round(width * ratio))",
    ),
    (
        (check_fits_a_phone, "alibi"),
        "script",
        'root.append(h("div", { class: "pe-i-plots" }, ...plots), form, readout);',
        'root.append(form, h("div", { class: "pe-i-plots" }, ...plots), readout);',
    ),
    (
        (check_every_control_changes_the_picture, "rope"),
        "rope",
        "mControl.set(st.m += by);\n        nControl.set(st.n += by);\n        draw();",
        "mControl.set(st.m);\n        nControl.set(st.n);",
    ),
    (
        (check_every_control_changes_the_picture, "sinusoidal"),
        "script",
        "const set = setter(st, draw);\n    slider(",
        "const set = setter(st, () => {});\n    slider(",
    ),
    (
        (check_no_white_slider_track, "context"),
        "css",
        '.pe-i-controls input[type="range"] {\n  appearance: none;',
        '.pe-i-controls input[type="range"] {\n  appearance: auto;',
    ),
    (
        (check_focus_ring, "rope"),
        "css",
        "  outline: 2px solid var(--md-default-fg-color);\n  outline-offset: 2px;",
        "  outline: none;",
    ),
    (
        (check_alibi_scale,),
        "script",
        "heatmap(a, bias, -slopes[0] * (length - 1), 0,",
        "heatmap(a, bias, -m * (length - 1), 0,",
    ),
    (
        (check_zero_dark_on_dark,),
        "script",
        "href: heatmapImage(data, vmin, vmax, colours)",
        "href: heatmapImage(data, vmin, vmax, stops.light)",
    ),
    (
        (check_method_colours,),
        "script",
        '["yarn", "YaRN", 5, ""]',
        '["yarn", "YaRN", 1, ""]',
    ),
    (
        (check_method_colours,),
        "script",
        'if (st.method === "yarn") {',
        "if (true) {",
    ),
    ((check_sinusoidal_readout,), "script", "every ${fixed(slowest, 0)}", "every ${fmt(slowest)}"),
    (
        (check_rotation_readout,),
        "properties",
        "cosine ${f4(block[cs][cs])}",
        "cosine ${fixed(block[cs][cs], 3)}",
    ),
    (
        (check_rotation_readout,),
        "properties",
        "const angle = k * omega[i];",
        "const angle = (k + pos) * omega[i];",
    ),
    ((check_precision_readout,), "precision", "minus(v.toPrecision(2))", "minus(v.toPrecision(3))"),
    (
        (check_precision_readout,),
        "precision",
        "d.base, dtype, dtype);",
        'd.base, dtype, "float32");',
    ),
    (
        (check_format_colours,),
        "precision",
        "`pe-i-c${format.colour}`",
        "`pe-i-c${format.colour + 1}`",
    ),
    ((check_sinusoidal_readout,), "script", 'top === 1 ? "1 pair,', 'top === 0 ? "1 pair,'),
    ((check_alibi_readout, 12, 9), "script", "`${sig(m, 6)}; the", "`${fmt(m)}; the"),
    (
        (check_context_readouts,),
        "script",
        "Attention factor ${fixed(attentionFactor, 4)}",
        "Attention factor ${fmt(attentionFactor)}",
    ),
]


@pytest.mark.parametrize(
    ("check", "asset", "right", "wrong"),
    FAULTS,
    ids=[f"{c[0].__name__}-{i}" for i, (c, *_) in enumerate(FAULTS)],
)
def test_each_check_fails_on_a_broken_widget(browser, server, check, asset, right, wrong):
    assert ASSETS[asset][1].read_text(encoding="utf-8").count(right) == 1, right
    broken = Opener(browser, server, {asset: (right, wrong)})
    try:
        with pytest.raises(AssertionError) as failure:
            check[0](broken, *check[1:])
        print(f"{check[0].__name__}: {str(failure.value).splitlines()[0]}")
    finally:
        broken.close()
