"""The interactive figures: on their pages, drawn in Chromium, and right.

The widgets of ``docs/assets/javascripts/interactive.js`` compute what they draw
with JavaScript mirrors of the library's formulas (``window.peInteractive.math``).
The browser tests here evaluate those functions in Chromium over a grid of
parameters and compare every number with ``pe_explained`` within 1e-9 relative
(with an absolute floor near zero, named per quantity); a second set perturbs
the script's formulas one at a time and checks that the comparison fails.
The tests without a browser check the pages, the registry and the containers.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import defaultdict
from html import unescape

import ml_dtypes
import numpy as np
import pytest
from browser_support import DOCS, browser_missing, mkdocs_config

import pe_explained as pe
from pe_book import TABLES, load_all
from pe_book.interactive import CORE_SCRIPT, INTERACTIVES, interactive_html
from pe_book.pages import BookError, expand_shortcodes
from pe_book.style import THEMES
from pe_explained.properties import offset_matrix

load_all()

SCRIPT = DOCS / "assets" / "javascripts" / "interactive.js"
#: Each widget, the page it teaches on and the static figure it stands beside (None for a
#: tool that stands beside no figure: the config inspector).
PAGES = {
    "sinusoidal": ("foundations/sinusoidal.md", "sinusoidal_heatmap"),
    "rope": ("modern/rope.md", "rope_score_toeplitz"),
    "context": ("modern/context-extension.md", "context_wavelengths"),
    "alibi": ("modern/alibi.md", "alibi_bias_per_head"),
    "offset_rotation": ("foundations/properties.md", "properties_offset_matrix"),
    "rope_precision": ("practice/precision.md", "precision_angle_error"),
    "inspector": ("appendix/inspector.md", None),
}
#: The widgets that stand beside a figure, which the generic checks of a figure's widget
#: apply to (two plots, sliders, the whole widget on a phone's screen); the inspector's
#: checks are its own (tests/test_inspector.py).
FIGURES = {name: where for name, where in PAGES.items() if where[1] is not None}
REL = 1e-9

needs_browser = pytest.mark.skipif(
    browser_missing() is not None, reason=f"browser tests: {browser_missing()}"
)


# --- pages and containers (no browser) ---------------------------------------------------


def test_every_widget_is_registered_and_on_its_page_after_its_figure():
    assert set(INTERACTIVES) == set(PAGES)
    for name, (page, figure) in PAGES.items():
        text = (DOCS / page).read_text(encoding="utf-8")
        shortcode = re.search(r"\{\{\s*interactive:\s*" + name + r"\s*\}\}", text)
        assert shortcode, f"{page} does not show the interactive figure {name!r}"
        if figure is not None:
            assert text.index(f"{{{{ figure: {figure} }}}}") < shortcode.start()


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_page_expands_to_its_hidden_widget_container(name):
    page, _ = PAGES[name]
    markdown = (DOCS / page).read_text(encoding="utf-8")
    html = expand_shortcodes(markdown, page, defaultdict(lambda: (100, 100)))
    found = re.findall(r'<div class="pe-interactive"[^>]*data-interactive="(\w+)"[^>]*>', html)
    assert found == [name]
    tag = re.search(r'<div class="pe-interactive"[^>]*>', html).group(0)
    assert tag.endswith(" hidden>"), "shown only when the script has drawn it"
    defaults = json.loads(unescape(re.search(r'data-defaults="([^"]*)"', tag).group(1)))
    assert defaults == INTERACTIVES[name].defaults()


def test_only_a_widget_that_opens_on_its_figure_takes_its_place_on_screen():
    """book.css hides a figure's drawing on screen under a drawn widget that replaces it."""
    assert "data-replaces-figure" in interactive_html("sinusoidal")
    assert "data-replaces-figure" not in interactive_html("alibi")  # it opens elsewhere
    css = (DOCS / "assets" / "stylesheets" / "book.css").read_text(encoding="utf-8")
    rule = "figure:has(+ .pe-interactive[data-replaces-figure]:not([hidden])) > picture"
    assert "@media screen {\n  .md-typeset " + rule in css, "on screen only, never in print"


def test_widgets_start_from_the_chapters_constants():
    from pe_book.chapters import alibi, context_extension, rope, sinusoidal

    d = INTERACTIVES["sinusoidal"].defaults()
    assert (d["d_model"], d["positions"]) == (
        sinusoidal.HEATMAP_D_MODEL,
        sinusoidal.HEATMAP_POSITIONS,
    )
    d = INTERACTIVES["context"].defaults()
    assert (d["head_dim"], d["base"], d["context"], d["factor"]) == (
        context_extension.HEAD_DIM,
        context_extension.BASE,
        context_extension.CONTEXT,
        context_extension.FACTOR,
    )
    d = INTERACTIVES["alibi"].defaults()
    # not the figure's 8 heads: a count that is not a power of two, on its first filled head
    assert (d["num_heads"], d["length"]) == (alibi.WIDGET_HEADS, alibi.FIGURE_LEN)
    assert d["num_heads"] in alibi.HEAD_COUNTS and d["num_heads"] & (d["num_heads"] - 1)
    slopes = pe.alibi_slopes(d["num_heads"])
    assert slopes[d["head"] - 1] > slopes[0], "the first head filled from the next ladder"
    assert d["head"] == 1 + int(np.argmax(slopes))
    d = INTERACTIVES["rope"].defaults()
    assert (d["m"], d["n"], len(d["q"])) == (rope.SCORE_M, rope.SCORE_N, rope.SCORE_HEAD_DIM)


def test_the_widgets_of_chapters_4_and_20_start_from_their_constants():
    from pe_book.chapters import precision, properties

    d = INTERACTIVES["offset_rotation"].defaults()
    assert (d["d_model"], d["k"]) == (properties.M_D_MODEL, properties.M_OFFSET)
    assert d["k"] in d["offsets"] and 0 <= d["pos"] <= d["max_pos"]
    d = INTERACTIVES["rope_precision"].defaults()
    assert (d["head_dim"], d["base"], d["window"]) == (
        precision.HEAD_DIM,
        precision.BASE,
        precision.WINDOW,
    )
    assert d["lengths"] == list(precision.LENGTHS) and set(d["lengths"]) <= set(d["ends"])
    assert [f["name"] for f in d["formats"]] == list(precision.DTYPES)
    routes = {f["name"]: f["route"] for f in d["formats"]}
    rows = [row[0] for row in TABLES["precision.angle_errors"].build().rows]
    assert routes["float32"] in rows and routes["bfloat16"] == precision.BF16_BUFFER in rows


def test_the_rope_widget_starts_from_the_pages_example():
    """The page's doctest scores q and k from default_rng(0) at m = 5, n = 2 (halves)."""
    d = INTERACTIVES["rope"].defaults()
    page = (DOCS / PAGES["rope"][0]).read_text(encoding="utf-8")
    assert "rng = np.random.default_rng(0)" in page
    assert "q, k = rng.standard_normal((2, 1, 8))" in page
    q, k = np.random.default_rng(0).standard_normal((2, 1, 8))
    assert d["q"] == q[0].tolist() and d["k"] == k[0].tolist()


def test_heatmap_colours_are_the_figures_but_zero_is_dark_on_the_dark_palette():
    """A widget's heatmap takes the figures' map in each palette (pe_book.style), except a
    diverging map on the dark palette: there zero is near-black, not white, with negative
    still blue and positive still red."""
    from matplotlib.colors import to_rgb

    from pe_book.interactive import colormap_stops, heatmap_colours

    for kind in ("sequential", "diverging"):
        colours = heatmap_colours(kind)
        assert colours["light"] == colormap_stops(getattr(THEMES["light"], kind))
        if kind == "sequential":
            assert colours["dark"] == colormap_stops(THEMES["dark"].sequential)
    dark = [to_rgb(c) for c in heatmap_colours("diverging")["dark"]]
    light = [to_rgb(c) for c in heatmap_colours("diverging")["light"]]
    middle = len(dark) // 2
    assert max(dark[middle]) < 0.15 < min(light[middle]), "zero: dark on dark, white on light"
    for stops in (dark, light):
        assert stops[0][2] > stops[0][0] and stops[-1][0] > stops[-1][2], "−1 blue, +1 red"
    assert INTERACTIVES["sinusoidal"].defaults()["colormap"] == heatmap_colours("diverging")
    assert INTERACTIVES["alibi"].defaults()["colormap"] == heatmap_colours("sequential")
    with pytest.raises(ValueError, match="kind"):
        heatmap_colours("cyclic")


def test_an_unknown_interactive_figure_fails_with_page_and_name():
    with pytest.raises(BookError, match=r"chapter\.md.*nope"):
        expand_shortcodes("{{ interactive: nope }}\n", "part/chapter.md", {})


def test_container_is_hidden_and_escapes_its_data():
    html = interactive_html("rope")
    assert "'" not in re.search(r'data-defaults="([^"]*)"', html).group(1).replace("&#x27;", "")
    assert html.startswith('<div class="pe-interactive" id="interactive-rope"')


def _widget_scripts() -> list[str]:
    return mkdocs_config()["extra"]["widget_scripts"]


def _script_parts() -> dict[str, list[str]]:
    """A widget script's parts (extra.widget_script_parts): files loaded before it, in order."""
    return mkdocs_config()["extra"].get("widget_script_parts") or {}


@pytest.mark.parametrize(
    "stem", [CORE_SCRIPT, *_widget_scripts(), *(p for ps in _script_parts().values() for p in ps)]
)
def test_every_widget_script_is_classic_small_and_self_contained(stem):
    text = (SCRIPT.parent / f"{stem}.js").read_text(encoding="utf-8")
    assert not re.search(r"^\s*(import|export)\b", text, re.M), "no ES modules (file://)"
    for remote in ("fetch(", "XMLHttpRequest", "import(", "http://", "https://"):
        assert remote not in text.replace("http://www.w3.org/2000/svg", ""), remote
    assert len(text.encode()) < 40_000
    if stem in _widget_scripts():  # drawn with the core's kit, added through its register()
        assert "window.peInteractive" in text and ".register(" in text
    elif stem != CORE_SCRIPT:  # a part computes; the script it belongs to draws
        assert ".register(" not in text


def test_a_scripts_parts_belong_to_a_listed_script_and_load_before_it():
    """A widget script too long for one file is split by concept into parts
    (extra.widget_script_parts, each under the same budget); the page loads them in the
    order given, before the script (docs/overrides/main.html)."""
    for stem, parts in _script_parts().items():
        assert stem in _widget_scripts(), stem
        for part in parts:
            assert (SCRIPT.parent / f"{part}.js").is_file(), part
            assert part not in _widget_scripts(), f"{part} is loaded as a part only"
    template = (DOCS / "overrides" / "main.html").read_text(encoding="utf-8")
    loop = template.index("widget_script_parts or {}).get(script")
    assert loop < template.index("('assets/javascripts/' ~ script ~ '.js')"), "parts first"


def test_every_widget_script_is_listed_for_the_pages_that_load_it():
    """docs/overrides/main.html loads a widget's own script where its container is, from
    the list extra.widget_scripts of mkdocs.yml: every script a widget names is there."""
    named = {spec.script for spec in INTERACTIVES.values()} - {CORE_SCRIPT}
    assert named <= set(_widget_scripts())
    for stem in named:
        assert (SCRIPT.parent / f"{stem}.js").is_file(), stem
        container = interactive_html(
            next(n for n, spec in INTERACTIVES.items() if spec.script == stem)
        )
        assert f'data-script="{stem}"' in container


def test_a_widget_names_its_script_as_a_file_stem():
    from pe_book.interactive import interactive

    with pytest.raises(ValueError, match="script must be a file stem"):
        interactive("bad_script_widget", title="A widget with a path", script="../x")
    assert "data-script" not in interactive_html("sinusoidal")  # the core's widgets name none


# --- the mathematics in Chromium, against the library ------------------------------------


# browser and server: the session's shared fixtures (tests/conftest.py).


class Math:
    """Calls ``window.peInteractive.math`` in a page, many argument lists at once."""

    def __init__(self, page):
        self.page = page

    def __call__(self, name: str, calls: list) -> list:
        return self.page.evaluate(
            "([name, calls]) => calls.map(a => window.peInteractive.math[name](...a))",
            [name, [list(c) for c in calls]],
        )


@pytest.fixture(scope="module")
def shipped(browser, server):
    """The math of the script as the built site ships it, on a page of the book."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(server + "foundations/sinusoidal.html", wait_until="load")
    page.wait_for_function("() => window.peInteractive !== undefined")
    yield Math(page)
    context.close()


@pytest.fixture(scope="module")
def shipped_scripts(browser, server):
    """``open(stem)``: the math of a widget's own script as the built site ships it, on the
    page of its widget (which loads the core first)."""
    context = browser.new_context()
    opened = {}

    def open_(stem: str) -> Math:
        if stem not in opened:
            name = next(n for n, spec in INTERACTIVES.items() if spec.script == stem)
            page = context.new_page()
            page.goto(server + PAGES[name][0].replace(".md", ".html"), wait_until="load")
            page.wait_for_function("() => window.peInteractive !== undefined")
            opened[stem] = Math(page)
        return opened[stem]

    yield open_
    context.close()


def assert_close(js, expected, *, floor: float, what: str) -> None:
    """``|js − expected| <= REL · max(|expected|, floor)`` entry by entry; infinities equal."""
    js, expected = np.asarray(js, dtype=float), np.asarray(expected, dtype=float)
    assert js.shape == expected.shape, f"{what}: shape {js.shape} != {expected.shape}"
    same_inf = np.isinf(expected) & (js == expected)
    with np.errstate(invalid="ignore"):
        error = np.abs(js - expected)
    bad = ~same_inf & ~(error <= REL * np.maximum(np.abs(expected), floor))
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} entries differ; first at {at}: "
            f"JavaScript {float(js[at])!r}, library {float(expected[at])!r}"
        )


SIN_GRID = list(itertools.product((2, 8, 64, 256, 512), (10.0, 10000.0, 500000.0), (1, 37, 400)))


def check_sinusoidal(math):
    tables = math("sinusoidal", [(n, d, b) for d, b, n in SIN_GRID])
    omegas = math("sinusoidalFrequencies", [(d, b) for d, b, _ in SIN_GRID])
    for (d, b, n), table, omega in zip(SIN_GRID, tables, omegas, strict=True):
        what = f"sinusoidal(d_model={d}, base={b}, positions={n})"
        assert_close(omega, pe.sinusoidal_frequencies(d, base=b), floor=0.0, what=what)
        assert_close(table, pe.sinusoidal(n, d, base=b), floor=1e-3, what=what)


def check_dot_by_offset(math):
    offsets = range(0, 300, 7)
    for d, b in itertools.product((2, 8, 64, 512), (10.0, 10000.0, 1e6)):
        js = math("dotByOffset", [(d, b, k) for k in offsets])
        table = pe.sinusoidal(300 + 300, d, base=b)
        for p in (0, 13, 299):  # the same for every p
            expected = [table[p] @ table[p + k] for k in offsets]
            what = f"PE({p})·PE({p}+k), d_model={d}, base={b}"
            assert_close(js, expected, floor=1e-3 * d / 2, what=what)


def check_apply_rope(math):
    rng = np.random.default_rng(3)
    calls, expected = [], []
    for d, b, layout in itertools.product((2, 8, 64, 128), (10000.0, 500000.0), pe.LAYOUTS):
        inv_freq, _ = pe.rope_frequencies(d, base=b)
        x = rng.standard_normal(d)
        for pos, factor in itertools.product((0, 1, 5, 40, 4097, 123456), (1.0, 1.25)):
            calls.append((x.tolist(), pos, inv_freq.tolist(), layout, factor))
            rotated = pe.apply_rope(
                x[None], [pos], inv_freq, layout=layout, attention_factor=factor
            )
            expected.append(rotated[0])
    for call, js, lib in zip(calls, math("applyRope", calls), expected, strict=True):
        assert_close(js, lib, floor=1e-3, what=f"applyRope(position={call[1]}, {call[3]})")
    freqs = math("ropeFrequencies", [(d, b) for d in (2, 8, 128, 256) for b in (10.0, 1e4, 1e6)])
    library = [
        pe.rope_frequencies(d, base=b)[0] for d in (2, 8, 128, 256) for b in (10.0, 1e4, 1e6)
    ]
    for js, lib in zip(freqs, library, strict=True):
        assert_close(js, lib, floor=0.0, what="ropeFrequencies")


def check_rope_score(math):
    q, k = np.random.default_rng(0).standard_normal((2, 8))
    inv_freq, _ = pe.rope_frequencies(8)
    pairs = [(m, n) for m in (0, 2, 5, 17, 40) for n in (0, 2, 5, 39)]
    for layout in pe.LAYOUTS:
        js = math(
            "ropeScore",
            [(q.tolist(), k.tolist(), m, n, inv_freq.tolist(), layout) for m, n in pairs],
        )
        expected = [
            pe.apply_rope(q[None], [m], inv_freq, layout=layout)[0]
            @ pe.apply_rope(k[None], [n], inv_freq, layout=layout)[0]
            for m, n in pairs
        ]
        assert_close(js, expected, floor=1e-3, what=f"ropeScore ({layout})")


#: head_dim, base, trained length L; plus one case where YaRN's range collapses (low == high).
SCALING_SHAPES = list(
    itertools.product((8, 64, 128, 256), (10000.0, 500000.0, 1e6, 1e7), (1024, 4096, 131072))
) + [(8, 100.0, 1048576)]
FACTORS = (1.0, 1.5, 2.0, 4.0, 8.0, 64.0)
LENGTH_RATIOS = (1.0, 1.5, 4.0, 32.0)
LLAMA3 = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}


def _scaled_params(cases) -> list[dict]:
    """The widget's parameters of ``scaledFrequencies`` for (method, d, base, factor,
    context, seq_len) cases, with Llama 3's and YaRN's defaults."""
    return [
        {
            "headDim": d,
            "base": b,
            "factor": factor,
            "context": context,
            "seqLen": seq_len,
            "lowFreqFactor": LLAMA3["low_freq_factor"],
            "highFreqFactor": LLAMA3["high_freq_factor"],
            "betaFast": 32.0,
            "betaSlow": 1.0,
        }
        for _, d, b, factor, context, seq_len in cases
    ]


def _expected_frequencies(method, d, b, factor, context, seq_len):
    ctx = {"factor": factor, "original_max_position_embeddings": context}
    if method == "ntk":
        return pe.rope_frequencies(d, base=pe.ntk_aware_base(b, factor, d))
    scaling = {
        "linear": {"rope_type": "linear", "factor": factor},
        "dynamic": {"rope_type": "dynamic", **ctx},
        "yarn": {"rope_type": "yarn", **ctx},
        "llama3": {"rope_type": "llama3", **ctx, **LLAMA3},
    }[method]
    return pe.rope_frequencies(d, base=b, scaling=scaling, seq_len=seq_len)


def check_scaled_frequencies(math):
    cases = []
    for (d, b, context), factor in itertools.product(SCALING_SHAPES, FACTORS):
        for method in ("linear", "ntk", "yarn", "llama3"):
            cases.append((method, d, b, factor, context, context))
        for ratio in LENGTH_RATIOS:
            cases.append(("dynamic", d, b, factor, context, round(ratio * context)))
    params = _scaled_params(cases)
    results = math("scaledFrequencies", [(c[0], p) for c, p in zip(cases, params, strict=True)])
    for case, js in zip(cases, results, strict=True):
        inv_freq, attention_factor = _expected_frequencies(*case)
        what = f"scaledFrequencies{case}"
        assert_close(js["invFreq"], inv_freq, floor=0.0, what=what)
        assert_close(js["attentionFactor"], attention_factor, floor=0.0, what=what + " attention")


def check_scaling_parts(math):
    shapes = SCALING_SHAPES
    ranges = math("yarnCorrectionRange", [(d, b, ctx, 32.0, 1.0) for d, b, ctx in shapes])
    for (d, b, ctx), js in zip(shapes, ranges, strict=True):
        expected = pe.yarn_correction_range(d, base=b, original_max_position_embeddings=ctx)
        assert tuple(js) == expected, f"yarnCorrectionRange({d}, {b}, {ctx})"
    bases = [(b, f, d) for d, b, _ in shapes for f in FACTORS]
    assert_close(
        math("ntkAwareBase", bases),
        [pe.ntk_aware_base(b, f, d) for b, f, d in bases],
        floor=0.0,
        what="ntkAwareBase",
    )
    yarn = {"rope_type": "yarn", "original_max_position_embeddings": 4096}
    assert_close(
        math("yarnAttentionFactor", [(f,) for f in FACTORS + (1.01, 3.0, 100.0)]),
        [
            pe.rope_frequencies(8, scaling={**yarn, "factor": f})[1]
            for f in FACTORS + (1.01, 3.0, 100.0)
        ],
        floor=0.0,
        what="yarnAttentionFactor",
    )


def check_pair_groups(math):
    """The pairs a rule keeps, blends and divides, as rope_pair_groups counts them."""
    cases = []
    for (d, b, context), factor in itertools.product(SCALING_SHAPES, FACTORS):
        for method in ("linear", "yarn", "llama3", "dynamic"):
            seq_len = 4 * context if method == "dynamic" else context
            cases.append((method, d, b, factor, context, seq_len))
    params = _scaled_params(cases)
    scaled = math("scaledFrequencies", [(c[0], p) for c, p in zip(cases, params, strict=True)])
    plain = math("ropeFrequencies", [(c[1], c[2]) for c in cases])
    calls = [(s["invFreq"], w, c[3]) for s, w, c in zip(scaled, plain, cases, strict=True)]
    for case, js in zip(cases, math("pairGroups", calls), strict=True):
        method, d, b, factor, context, seq_len = case
        scaling = {"rope_type": method, "factor": factor}
        if method != "linear":
            scaling["original_max_position_embeddings"] = context
        if method == "llama3":
            scaling.update(LLAMA3)
        expected = pe.rope_pair_groups(d, base=b, scaling=scaling, seq_len=seq_len)
        assert tuple(js) == expected, f"pairGroups{case}: {js} != {expected}"


def check_alibi(math):
    counts = list(range(1, 131))
    for n, js in zip(counts, math("alibiSlopes", [(n,) for n in counts]), strict=True):
        assert_close(js, pe.alibi_slopes(n), floor=0.0, what=f"alibiSlopes({n})")
    shapes = [(n, length) for n in (1, 3, 5, 8, 12, 16, 33) for length in (1, 2, 12, 32)]
    for (n, length), js in zip(shapes, math("alibiBias", shapes), strict=True):
        expected = pe.alibi_bias(n, length, dtype=np.float64)
        assert_close(js, expected, floor=1e-12, what=f"alibiBias({n}, {length})")


# --- the mathematics of the widgets with a script of their own ----------------------------


def check_offset_rotation(math):
    """Chapter 4: one row of the table, M_k, M_k PE(pos) = PE(pos + k), and the angle a pair
    turns from PE(pos) to PE(pos + k), k ω_i modulo 2π whatever pos is."""
    shapes = list(itertools.product((2, 8, 16, 64), (10.0, 10000.0, 500000.0), pe.LAYOUTS))
    offsets = (-7, 0, 1, 3, 2.5, 100, 1000)
    matrices = math("offsetMatrix", [(k, d, b, lay) for d, b, lay in shapes for k in offsets])
    expected = [offset_matrix(k, d, base=b, layout=lay) for d, b, lay in shapes for k in offsets]
    for js, lib in zip(matrices, expected, strict=True):
        assert_close(js, lib, floor=1e-3, what="offsetMatrix")
    positions = (0, 1, 5, 37.5, 200, 1000)
    calls = [(p, d, b, lay) for d, b, lay in shapes for p in positions]
    rows = math("sinusoidalRow", calls)
    for (p, d, b, lay), js in zip(calls, rows, strict=True):
        lib = pe.sinusoidal(np.array([p], dtype=float), d, base=b, layout=lay)[0]
        assert_close(js, lib, floor=1e-3, what=f"sinusoidalRow({p}, {d}, {b}, {lay})")
    # M_k times the widget's PE(pos) is the library's PE(pos + k)
    steps = (1, 3, 100)
    small = [(c, row) for c, row in zip(calls, rows, strict=True) if c[1] <= 16]
    blocks = math("offsetMatrix", [(k, *c[1:]) for c, _ in small for k in steps])
    moved = zip(itertools.product(small, steps), blocks, strict=True)
    for (((p, d, b, lay), row), k), block in moved:
        lib = pe.sinusoidal(np.array([p + k], dtype=float), d, base=b, layout=lay)[0]
        what = f"M_k PE(pos) = PE({p + k}), {d}, {b}, {lay}"
        assert_close(np.asarray(block) @ np.asarray(row), lib, floor=1e-3, what=what)
    # the turn of every pair between two rows of the library's table: k ω_i mod 2π
    table = pe.sinusoidal(1300, 16)
    omega = pe.sinusoidal_frequencies(16)
    cases = [
        (p, k, i)
        for p, k, i in itertools.product((0, 7, 250, 1000), (1, 3, 4, 7, 50, 250), range(8))
        if 1e-6 < (k * omega[i]) % (2 * np.pi) < 2 * np.pi - 1e-6  # not on the cut at 0
    ]
    turns = math(
        "turnAngle",
        [(*table[p, 2 * i : 2 * i + 2], *table[p + k, 2 * i : 2 * i + 2]) for p, k, i in cases],
    )
    expected = [(k * omega[i]) % (2 * np.pi) for _, k, i in cases]
    assert_close(turns, expected, floor=1.0, what="turnAngle (radians, floor 1e-9 rad)")


#: The formats the precision widget rounds to: numpy's and ml_dtypes' types, significant
#: bits (the leading one included), smallest and largest exponent.
FORMATS = {
    "float16": (np.float16, 11, -14, 15),
    "bfloat16": (ml_dtypes.bfloat16, 8, -126, 127),
    "float32": (np.float32, 24, -126, 127),
}


def _rounding_grid() -> np.ndarray:
    """Non-negative numbers where rounding is easy to get wrong, for every format: integers
    (positions), each format's ties between neighbours (even and odd below), one unit
    either side of them, subnormals and their ties, the largest number, the tie above it
    (infinity) and beyond, double-rounding traps for bfloat16 (ml_dtypes rounds a float64
    to float32 first) and a spread of random magnitudes."""
    values = [float(v) for v in range(0, 300)]
    values += [float(2**k + d) for k in range(1, 40) for d in (-1, 0, 1, 3)]
    for _, bits, emin, emax in FORMATS.values():
        for e in (emin - bits + 2, emin - 3, emin, -1, 0, 5, bits - 1, bits, bits + 3, emax):
            quantum = 2.0 ** (max(e, emin) + 1 - bits)
            for m in (0, 1, 2, 3, 2 ** (bits - 1) + 1, 2**bits - 2, 2**bits - 1):
                tie = (m + 0.5) * quantum * (1 if e < emin else 2.0 ** (e - max(e, emin)))
                values += [tie, np.nextafter(tie, 0.0), np.nextafter(tie, np.inf)]
        largest = (2 - 2.0 ** (1 - bits)) * 2.0**emax
        half = 2.0 ** (emax - bits)
        values += [largest, largest + half, np.nextafter(largest + half, 0.0), 2 * largest]
    values += [1 + 2**-8 + 2**-30, 1 + 3 * 2**-9 + 2**-40, 1 + 2**-11 + 2**-40, 1e300, 5e-324]
    values += np.exp(np.random.default_rng(5).uniform(-105, 90, 400)).tolist()
    values += [0.1, 1000.1, 65504.0, 65519.99, 65520.0, 16_777_217.0, 3.3895e38, 3.4028236e38]
    return np.array(values, dtype=np.float64)


def _assert_same_numbers(js, expected, what: str) -> None:
    """Equal entry by entry (infinities included, ±0 alike)."""
    js, expected = np.asarray(js, dtype=float), np.asarray(expected, dtype=float)
    bad = ~((js == expected) | (np.isnan(js) & np.isnan(expected)))
    if bad.any():
        at = int(np.argmax(bad))
        raise AssertionError(
            f"{what}: {int(bad.sum())} of {bad.size} differ; first: JavaScript "
            f"{float(js.flat[at])!r}, library {float(expected.flat[at])!r}"
        )


def check_float_rounding(math):
    """Every rounding of the precision widget, exactly: positions as stored_positions
    stores them, negative numbers and float32 numbers (cos and sin) as astype rounds them."""
    grid = _rounding_grid()
    for name, (dtype, *_) in FORMATS.items():
        js = math("storedPositions", [(grid.tolist(), name)])[0]
        _assert_same_numbers(js, pe.stored_positions(grid, dtype), f"storedPositions {name}")
        with np.errstate(over="ignore"):
            signed = -grid[::3]
            rounded = math("roundTo", [(x, name) for x in signed.tolist()])
            _assert_same_numbers(rounded, signed.astype(dtype).astype(float), f"roundTo {name}")
            singles = grid[np.isfinite(grid.astype(np.float32))].astype(np.float32)
            rounded = math("roundTo", [(x, name) for x in singles.astype(float).tolist()])
            expected = singles.astype(dtype).astype(float)
            _assert_same_numbers(rounded, expected, f"roundTo {name} of float32 numbers")


#: The positions of the angle checks: the windows of the chapter's table, small ones,
#: fractions (rounded to float32 first) and one past float32's last distinct integer.
ANGLE_POSITIONS = np.concatenate(
    [
        np.arange(0, 40),
        *(np.arange(n - 16, n) for n in (1_000, 10_000, 100_000, 1_000_000)),
        [0.1, 2.75, 1000.1, 65504.5, 16_777_217],
    ]
).astype(np.float64)
ANGLE_SHAPES = list(itertools.product((2, 8, 128), (10000.0, 500000.0)))


def _float32_angles(positions, head_dim, base, inv_freq_dtype):
    """θ = float32(p) · ω_i with ω_i held in inv_freq_dtype, as float32_rope_cos_sin
    computes it (the checks prove it: its cos is the library's, bit for bit)."""
    omega = base ** (-np.arange(0, head_dim, 2) / head_dim)
    inv_freq = omega.astype(inv_freq_dtype).astype(np.float32)
    return np.multiply.outer(positions.astype(np.float32), inv_freq), omega


def check_rope_angles(math):
    """The float32 recipe's angles, bit for bit; its cos and sin correctly rounded, which
    numpy's float32 cos and sin are not always (they may be one unit in the last place
    away: up to 2^-24)."""
    pos = ANGLE_POSITIONS
    for (d, b), name in itertools.product(ANGLE_SHAPES, FORMATS):
        dtype = FORMATS[name][0]
        what = f"head_dim={d}, base={b}, inv_freq in {name}"
        lib_cos, lib_sin = pe.float32_rope_cos_sin(pos, d, base=b, inv_freq_dtype=dtype)
        theta = np.asarray(math("float32RopeAngles", [(pos.tolist(), d, b, name)])[0])
        theta32 = theta.astype(np.float32)
        assert np.array_equal(theta32.astype(float), theta), f"{what}: angles not float32"
        assert np.array_equal(np.cos(theta32), lib_cos), f"{what}: angles not the library's"
        assert np.array_equal(np.sin(theta32), lib_sin), f"{what}: angles not the library's"
        ours, _ = _float32_angles(pos, d, b, dtype)
        assert np.array_equal(ours, theta32), f"{what}: the test's angles differ"
        js_cos, js_sin = (
            np.asarray(t) for t in math("float32RopeCosSin", [(pos.tolist(), d, b, name)])[0]
        )
        for js, lib, f in ((js_cos, lib_cos, np.cos), (js_sin, lib_sin, np.sin)):
            _assert_same_numbers(js, f(theta).astype(np.float32), f"{f.__name__} of {what}")
            assert np.abs(js - lib).max() <= 2.0**-24, f"{f.__name__} of {what}: numpy's"


#: The routes of the error checks: (cos and sin stored in, inverse frequencies held in):
#: a model in each format, and the chapter's float32 recipe stored as bfloat16.
ERROR_ROUTES = [(name, name) for name in FORMATS] + [("bfloat16", "float32")]
#: One unit in the last place below 1 of each format: what a cos or sin rounded to it
#: moves by when numpy's float32 value is one unit from the correctly rounded one.
ULP_BELOW_ONE = {"float16": 2.0**-11, "bfloat16": 2.0**-8, "float32": 2.0**-24}


def check_rope_angle_error(math):
    """The widget's error of every pair against the library's formula: equal within 1e-9
    relative plus the float64 angle's own rounding (2^-50 p: ω_i may differ by one unit in
    the last place between JavaScript's pow and numpy's), given correctly rounded float32
    cos and sin; and its largest over the pairs against rope_angle_error, which takes
    numpy's, within one unit of the storing format."""
    pos = ANGLE_POSITIONS
    atol = 2.0**-52 + 2.0**-50 * pos[:, None]
    for (d, b), (out, held) in itertools.product(ANGLE_SHAPES, ERROR_ROUTES):
        what = f"head_dim={d}, base={b}, stored in {out}, inv_freq in {held}"
        out_t, held_t = FORMATS[out][0], FORMATS[held][0]
        theta32, omega = _float32_angles(pos, d, b, held_t)
        exact = np.multiply.outer(pos, omega)

        def errors(cos32, sin32, exact=exact, out_t=out_t):
            stored = [t.astype(out_t).astype(np.float64) for t in (cos32, sin32)]
            return np.maximum(np.abs(stored[0] - np.cos(exact)), np.abs(stored[1] - np.sin(exact)))

        lib = pe.rope_angle_error(pos, d, base=b, output_dtype=out_t, inv_freq_dtype=held_t)
        numpy_cos = pe.float32_rope_cos_sin(pos, d, base=b, inv_freq_dtype=held_t)
        assert np.array_equal(errors(*numpy_cos).max(axis=1), lib), f"{what}: test formula"
        wanted = errors(*(f(theta32.astype(float)).astype(np.float32) for f in (np.cos, np.sin)))
        js = np.asarray(math("ropePairErrors", [(pos.tolist(), d, b, out, held)])[0])
        assert js.shape == wanted.shape, what
        bad = np.abs(js - wanted) > REL * np.abs(wanted) + atol
        assert not bad.any(), f"{what}: {int(bad.sum())} errors differ, {np.argwhere(bad)[0]}"
        largest = np.asarray(math("ropeAngleError", [(pos.tolist(), d, b, out, held)])[0])
        assert np.array_equal(largest, js.max(axis=1)), f"{what}: largest over the pairs"
        gap = np.abs(largest - lib) - atol[:, 0]
        assert gap.max() <= ULP_BELOW_ONE[out], f"{what}: {gap.max()} from rope_angle_error"


CHECKS = {
    "sinusoidal": check_sinusoidal,
    "dot_by_offset": check_dot_by_offset,
    "apply_rope": check_apply_rope,
    "rope_score": check_rope_score,
    "scaled_frequencies": check_scaled_frequencies,
    "scaling_parts": check_scaling_parts,
    "pair_groups": check_pair_groups,
    "alibi": check_alibi,
    "offset_rotation": check_offset_rotation,
    "float_rounding": check_float_rounding,
    "rope_angles": check_rope_angles,
    "rope_angle_error": check_rope_angle_error,
}
#: The checks of a widget script other than the core: the script whose math they call.
CHECK_SCRIPTS = {
    "offset_rotation": "interactive-properties",
    "float_rounding": "interactive-precision",
    "rope_angles": "interactive-precision",
    "rope_angle_error": "interactive-precision",
}


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize("check", sorted(CHECKS))
def test_javascript_math_matches_the_library(shipped, shipped_scripts, check):
    stem = CHECK_SCRIPTS.get(check)
    CHECKS[check](shipped_scripts(stem) if stem else shipped)


#: One small wrong formula per check: (check, text in the script, its wrong replacement).
PERTURBATIONS = [
    (
        "sinusoidal",
        "Math.pow(base, (-2 * i) / dModel)",
        "Math.pow(base, (-2 * i) / dModel) * (1 + 3e-9)",
    ),
    ("dot_by_offset", "s + Math.cos(k * w)", "s + Math.cos(k * w * (1 + 1e-6))"),
    ("apply_rope", ": [i, i + half]", ": [i + half, i]"),
    ("rope_score", "return dot(applyRope(q, m,", "return dot(applyRope(q, m + 1e-7,"),
    (
        "scaled_frequencies",
        "[Math.floor(low), Math.ceil(high)]",
        "[Math.round(low), Math.round(high)]",
    ),
    ("scaled_frequencies", "+ smooth * w;", "+ smooth * w * (1 + 1e-8);"),
    ("scaling_parts", "0.1 * Math.log(factor) + 1", "0.1 * Math.log(factor) + 1.000000005"),
    ("pair_groups", "close(w, plain[i] / factor)", "close(w, plain[i] * factor)"),
    ("alibi", "filter((_, i) => i % 2 === 0)", "filter((_, i) => i % 2 === 1)"),
    ("offset_rotation", "m[c][s] = -sin;", "m[c][s] = sin;"),
    ("offset_rotation", ": [2 * i, 2 * i + 1]", ": [2 * i + 1, 2 * i]"),
    ("offset_rotation", "turn < 0 ? turn + 2 * Math.PI : turn", "turn < 0 ? -turn : turn"),
    ("float_rounding", "(rest === 0.5 && whole % 2 === 1)", "rest === 0.5"),
    ("float_rounding", "roundBits(Math.fround(x), 8,", "roundBits(x, 8,"),
    ("float_rounding", "Math.max(e, emin) + 1 - bits", "e + 1 - bits"),
    ("float_rounding", "y > largest ? Infinity : y", "y > largest * 2 ? Infinity : y"),
    ("rope_angles", "Math.fround(roundTo(w, invFreqDtype))", "Math.fround(w)"),
    ("rope_angles", "Math.fround(Math.fround(p) * w)", "Math.fround(p * w)"),
    ("rope_angle_error", "roundTo(cos[r][i], outputDtype)", "cos[r][i]"),
    ("rope_angle_error", "const exact = p * w;", "const exact = Math.fround(p) * w;"),
]


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize(("check", "right", "wrong"), PERTURBATIONS)
def test_the_cross_check_fails_on_a_wrong_formula(browser, check, right, wrong):
    stem = CHECK_SCRIPTS.get(check, CORE_SCRIPT)
    source = (SCRIPT.parent / f"{stem}.js").read_text(encoding="utf-8")
    assert source.count(right) == 1, f"the script no longer holds {right!r}"
    context = browser.new_context()

    def load(page, text):
        page.goto("about:blank")
        if stem != CORE_SCRIPT:  # a widget's own script adds to the core's math
            page.add_script_tag(content=SCRIPT.read_text(encoding="utf-8"))
        page.add_script_tag(content=text)

    try:
        page = context.new_page()
        load(page, source)
        CHECKS[check](Math(page))  # the script as it is passes here too
        load(page, source.replace(right, wrong))
        with pytest.raises(AssertionError):
            CHECKS[check](Math(page))
    finally:
        context.close()


# --- the widgets on their pages ----------------------------------------------------------


@pytest.mark.browser
@needs_browser
def test_built_site_ships_the_script_and_every_widget(site):
    assert (site / "assets/javascripts/interactive.js").read_bytes() == SCRIPT.read_bytes()
    for name, (page, _) in PAGES.items():
        html = (site / page.replace(".md", ".html")).read_text(encoding="utf-8")
        assert f'data-interactive="{name}"' in html
        assert "assets/javascripts/interactive.js" in html
    # pages without a widget do not load the script, nor does the one-page book (for print)
    assert "interactive.js" not in (site / "index.html").read_text(encoding="utf-8")
    assert "interactive.js" not in (site / "print_page.html").read_text(encoding="utf-8")


_STATE = """(name) => {
  const root = document.querySelector(`.pe-interactive[data-interactive="${name}"]`);
  const plot = root.querySelector(".pe-i-plot svg");
  const line = root.querySelector(".pe-i-line, .pe-i-dot");
  return {
    hidden: root.hidden,
    shown: getComputedStyle(root).display !== "none",
    svgs: root.querySelectorAll(".pe-i-plot svg[role=img][aria-label]").length,
    unlabelled: [...root.querySelectorAll("input, select")].filter(
      c => !c.labels || !c.labels.length || !c.labels[0].textContent.trim()).length,
    controls: root.querySelectorAll(".pe-i-control").length,
    readout: root.querySelector(".pe-i-readout").textContent,
    label: plot.getAttribute("aria-label"),
    stroke: getComputedStyle(line).stroke,
  };
}"""


def _widget_pages(browser, base: str, scheme: str = "light"):
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    return context, page, errors


def _open(page, base: str, name: str) -> None:
    """Open the page of widget ``name`` and scroll to what stands before it (its figure,
    or the paragraph that leads to it): the widget is built when that comes near the
    screen (none is built while the page loads)."""
    page.goto(base + PAGES[name][0].replace(".md", ".html"), wait_until="load")
    widget = f".pe-interactive[data-interactive='{name}']"
    page.locator(widget).evaluate("w => w.previousElementSibling.scrollIntoView()")
    page.wait_for_function(f'() => document.querySelector("{widget}").dataset.ready')


@pytest.mark.browser
@needs_browser
def test_a_widget_far_below_the_fold_is_built_only_when_its_figure_nears(browser, server):
    """Loading a page runs no drawing for a widget screens away (no blocking time)."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.goto(server + "modern/rope.html", wait_until="load")  # its widget: far down
        page.wait_for_timeout(300)
        widget = ".pe-interactive[data-interactive='rope']"
        assert page.evaluate(f'() => document.querySelector("{widget}").hidden')
        page.locator("#fig-rope-score-toeplitz").scroll_into_view_if_needed()
        page.wait_for_function(f'() => document.querySelector("{widget}").dataset.ready')
    finally:
        context.close()


_AXE = """async (name) => {
  const root = document.querySelector(`.pe-interactive[data-interactive="${name}"]`);
  const result = await axe.run(root, {
    runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa",
                                    "best-practice"]},
    resultTypes: ["violations"],
  });
  return result.violations.map(v => `${v.id}: ${v.help} (${v.nodes.length} nodes)`);
}"""


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize(
    ("where", "scheme"), [("server", "light"), ("server", "dark"), ("disk", "light")]
)
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_widget_draws_answers_the_keyboard_and_passes_axe(
    browser, server, site, name, where, scheme
):
    from browser_support import axe_script

    base = server if where == "server" else site.as_uri() + "/"
    context, page, errors = _widget_pages(browser, base, scheme)
    try:
        _open(page, base, name)
        before = page.evaluate(_STATE, name)
        assert not before["hidden"] and before["shown"]
        assert before["svgs"] == 2 and before["controls"] >= 3 and before["unlabelled"] == 0
        violations = []
        if where == "server":  # from disk, axe's own reading of the stylesheets is refused
            page.add_script_tag(path=str(axe_script()))
            violations = page.evaluate(_AXE, name)
        slider = page.locator(f".pe-interactive[data-interactive='{name}'] input[type=range]").first
        slider.focus()
        page.keyboard.press("ArrowRight")
        after = page.evaluate(_STATE, name)
        assert after["readout"] != before["readout"] or after["label"] != before["label"]
    finally:
        context.close()
    assert not violations, violations
    assert not errors, errors


@pytest.mark.browser
@needs_browser
def test_rope_widget_shows_the_pages_score_and_keeps_it_when_both_positions_shift(browser, server):
    q, k = np.random.default_rng(0).standard_normal((2, 1, 8))
    inv_freq, _ = pe.rope_frequencies(8)
    score = float((pe.apply_rope(q, [5], inv_freq) @ pe.apply_rope(k, [2], inv_freq).T)[0, 0])
    text = f"{score:.6f}".replace("-", "−")
    context, page, errors = _widget_pages(browser, server)
    try:
        _open(page, server, "rope")
        widget = page.locator(".pe-interactive[data-interactive='rope']")
        readout = widget.locator(".pe-i-readout")
        assert text in readout.text_content()
        plane = widget.locator(".pe-i-plot").first
        arc = f"arc (m − n)ω0 is {3 * inv_freq[0]:g} rad"  # pair 0, m − n = 3
        assert arc in readout.text_content(), readout.text_content()
        assert "(m − n)ω0" in plane.locator("svg > text").all_text_contents()

        def drawn():  # the coloured arrows (q at m, k at n) and the arc, as SVG paths
            paths = plane.locator("path.pe-i-vector.pe-i-c1, path.pe-i-vector.pe-i-c2")
            return paths.evaluate_all("ps => ps.map(p => p.getAttribute('d'))"), plane.locator(
                "path.pe-i-ring"
            ).get_attribute("d")

        arrows, ring = drawn()
        page.get_by_role("button", name="both + 1").click()
        assert text in readout.text_content() and "m = 6, n = 3" in readout.text_content()
        assert arc in readout.text_content()
        turned, turned_ring = drawn()
        assert all(a != b for a, b in zip(arrows, turned, strict=True)), "both arrows turn"
        assert ring != turned_ring, "the arc moves with them"

        def length(d):  # the arc's length on screen: it holds when both positions move
            xy = np.array([float(v) for v in re.findall(r"-?\d+\.?\d*", d)]).reshape(-1, 2)
            return float(np.hypot(*np.diff(xy, axis=0).T).sum())

        assert length(ring) == pytest.approx(length(turned_ring), rel=0.02)
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.browser
@needs_browser
def test_widgets_follow_the_palette_and_print_as_the_static_figure(browser, server):
    strokes = {}
    for scheme in ("light", "dark"):
        context, page, _ = _widget_pages(browser, server, scheme)
        try:
            _open(page, server, "sinusoidal")
            state = page.evaluate(_STATE, "sinusoidal")
            strokes[scheme] = state["stroke"]
            page.emulate_media(media="print")
            printed = page.evaluate(_STATE, "sinusoidal")
            static = page.evaluate(
                "() => getComputedStyle(document.querySelector("
                "'#fig-sinusoidal-heatmap img[src$=\"#only-light\"]')).display"
            )
        finally:
            context.close()
        assert not printed["shown"], "the widget is not printed"
        assert static != "none", "the static figure is printed"
    colours = {t: THEMES[t].cycle[0].lower() for t in THEMES}
    as_rgb = {
        t: "rgb({}, {}, {})".format(*(int(c[i : i + 2], 16) for i in (1, 3, 5)))
        for t, c in colours.items()
    }
    assert strokes == as_rgb


@pytest.mark.browser
@needs_browser
def test_readouts_set_powers_and_indices_as_the_prose_does(browser, server):
    """A readout raises powers and lowers indices (2⁻¹, ω₀, d_k) with sup/sub elements and
    italicises variables; no markup or plain-text power like ``2^(−1)`` is left over."""
    context, page, errors = _widget_pages(browser, server)
    head = INTERACTIVES["alibi"].defaults()["head"]  # the widget opens on this head
    slope = pe.alibi_slopes(INTERACTIVES["alibi"].defaults()["num_heads"])[head - 1]
    power = f"{np.log2(slope):g}".replace("-", "−")
    expected = {
        "sinusoidal": ("sub", "Σi cos(k ωi)"),
        "rope": ("sub", "q⊤mkn"),
        "context": ("sub", "dk = 128"),
        "alibi": ("sup", f"m{head} = 2{power} = {slope:g}"),
    }
    try:
        for name, (tag, text) in expected.items():
            _open(page, server, name)
            readout = page.locator(f".pe-interactive[data-interactive='{name}'] .pe-i-readout")
            shown = readout.text_content()
            assert text in shown, (name, shown)
            assert not re.search(r"\^|_\{|\*|\w_\w", shown), (name, shown)
            assert readout.locator(tag).count() > 0 and readout.locator("var").count() > 0
            # so do the controls' labels and the plots' axis labels and legends
            widget = page.locator(f".pe-interactive[data-interactive='{name}']")
            labels = " ".join(
                widget.locator("label, button, .pe-i-control > span").all_text_contents()
            )
            assert not re.search(r"\^|_\{|\*|\w_\w", labels), (name, labels)
            assert widget.locator(".pe-i-control var").count() > 0, name
            plots = " ".join(widget.locator("svg text").all_text_contents())
            assert not re.search(r"\^\{|_\{|\*", plots), (name, plots)
            assert widget.locator("svg tspan[font-style='italic']").count() > 0, name
    finally:
        context.close()
    assert not errors, errors
