"""The build-time registries: every figure, table and value works, and bad names fail."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import matplotlib
import pytest

from pe_book import FIGURES, TABLES, VALUES, Table, load_all, table
from pe_book.notation import math_notation
from pe_book.pages import BookError, expand_shortcodes
from pe_book.pages.mathml import render_math
from pe_book.pages.tables import TABLE_CLASS, grid_tables, table_markdown, wrapped_tables
from pe_book.phone import labels_under_phone_figure, smallest_text, tidy_stacked_panels
from pe_book.references import REFERENCES
from pe_book.render import (
    _SALT,
    _palette_swap,
    _pixel_swap,
    draw_figure,
    render_svg,
    render_variant,
    svg_size,
    swapped_to_dark,
)
from pe_book.style import (
    MAX_LEGEND_ENTRIES,
    PHONE_WIDTH,
    THEMES,
    direct_labels,
    new_figure,
    phone_layout,
)
from pe_book.svg import swap_palette
from pe_book.text import format_cell, inline_math_html

matplotlib.use("Agg")
load_all()


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_renders_in_both_themes(name):
    light, dark = render_svg(name, "light"), render_svg(name, "dark")
    assert light.startswith(b"<?xml") and dark.startswith(b"<?xml")
    assert light != dark, "the dark variant must differ from the light one"
    width, height = svg_size(light)
    assert 200 < width < 1400 and 100 < height < 1400, (
        f"{name}: {width} × {height} px; draw it with new_figure(width, height) in inches, "
        "between 200 and 1,400 px wide and 100 and 1,400 px tall"
    )
    assert b"<dc:date>" not in light
    _swap_draws_the_dark_variant(name, "wide", light, dark)


def _swap_draws_the_dark_variant(name: str, layout: str, light: bytes, dark: bytes) -> None:
    """Where the build makes the dark variant by swapping the light one's palette
    (:func:`pe_book.render.render_variant`), it is the drawn dark variant, byte for byte."""
    if not FIGURES[name].swap:
        return
    swapped = swapped_to_dark(light)
    assert swapped is None or swapped == dark, (
        f"{name} ({layout}): its light variant with the palette swapped is not the drawn "
        "dark one (a palette colour in a role the swap does not know, such as white text "
        "in both palettes); register it with @figure(..., swap=False)"
    )


@pytest.mark.parametrize("name", sorted(n for n in FIGURES if FIGURES[n].swap))
def test_a_swapped_phone_variant_is_the_drawn_one(name):
    light, dark = render_svg(name, "light", "phone"), render_svg(name, "dark", "phone")
    _swap_draws_the_dark_variant(name, "phone", light, dark)
    assert render_variant(name, "dark", "phone", light) == dark


def test_the_swap_check_fails_on_a_colour_the_swap_gets_wrong():
    """evidence_training draws in black, which matplotlib leaves unwritten where it
    fills: a palette map that swapped black would miss those fills, and the dark variant
    would differ from the drawn one. The map leaves black out; forced in, it is caught."""
    name = "evidence_training"
    light, dark = render_svg(name, "light"), render_svg(name, "dark")
    assert swap_palette(light, _palette_swap()) is None
    forced = swap_palette(light, {**_palette_swap(), "#000000": "#ffffff"})
    assert forced is not None and forced != dark


def test_the_swap_check_fails_on_pixels_the_swap_gets_wrong():
    """A heatmap's pixels swapped level for level are the drawn dark heatmap's; with the
    dark levels in the wrong order, the check sees it. An annotated heatmap, whose cell
    labels take the colour that reads on each cell, swaps to another drawing than the
    dark one: it is registered with swap=False."""
    light, dark = (
        render_svg("sinusoidal_heatmap", "light"),
        render_svg("sinusoidal_heatmap", "dark"),
    )
    assert swapped_to_dark(light) == dark
    keys = sorted(_pixel_swap()[0])
    shuffled = dict(zip(keys, [_pixel_swap()[0][k] for k in keys[1:] + keys[:1]], strict=True))
    wrong = swap_palette(light, _palette_swap(), [shuffled, _pixel_swap()[1]], _SALT)
    assert wrong is not None and wrong != dark
    name = "order_problem_attention"
    assert not FIGURES[name].swap
    light, dark = render_svg(name, "light"), render_svg(name, "dark")
    assert swapped_to_dark(light) not in (None, dark)


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_phone_variant_text_reads_at_11_px_in_a_phone_column(name):
    with matplotlib.rc_context(THEMES["light"].rc):
        fig = draw_figure(name, "light", "phone")
        fig.draw_without_rendering()
    assert fig.get_figwidth() <= PHONE_WIDTH
    assert smallest_text(fig) >= 11.0, (
        f"{name}: text at {smallest_text(fig):.1f} px; set text sizes from the theme's rc "
        "(no fontsize= below it), so that phone_layout can raise them to 11 px"
    )


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_phone_variant_wraps_text_only_between_formulas(name):
    """Phone text wraps at spaces; a space inside $…$ would split a formula in two."""
    with matplotlib.rc_context(THEMES["light"].rc):
        fig = draw_figure(name, "light", "phone")
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_wrap():
            math = re.sub(
                r"\\text\{[^{}]*\}", "", "".join(re.findall(r"\$[^$]*\$", text.get_text()))
            )
            assert " " not in math, (
                f"{name}: {text.get_text()!r}: write each formula without spaces inside "
                "$…$ (a wrapped line breaks at them), words outside it"
            )


def test_stacked_panels_keep_one_axis_title_and_move_a_lone_legend_under_the_figure():
    """A 2 × 2 grid stacked for a phone: the wide grid's bottom-row titles sit under
    panels 3 and 4, now one above the other; panel 3 shows no ticks (shared x), so its
    title goes. A legend in one panel of several moves under the figure."""
    with phone_layout():
        fig = new_figure(7.0, 5.0)
        axes = fig.subplots(2, 2, sharex=True)
    for k, ax in enumerate(axes.flat):
        ax.plot([0, 1], [0, k], label=f"line {k}")
    for ax in axes[1]:
        ax.set_xlabel("length")
    axes[0, 1].legend()
    fig.draw_without_rendering()
    tidy_stacked_panels(fig)
    stacked = sorted(axes.flat, key=lambda ax: -ax.get_position().y0)
    assert [ax.get_xlabel() for ax in stacked] == ["", "", "", "length"]
    assert axes[0, 1].get_legend() is None and len(fig.legends) == 1


@pytest.mark.parametrize(("label", "moved"), [("a", False), ("a long label " * 3, True)])
def test_wide_end_labels_move_under_a_phone_figure(label, moved):
    theme = THEMES["light"]
    with phone_layout():
        fig = new_figure(7.0, 3.0)
    ax = fig.add_subplot()
    lines = [ax.plot([0, 1], [0, k])[0] for k in range(6)]
    direct_labels(ax, lines, [f"{label}{k}" for k in range(6)], theme)
    fig.draw_without_rendering()
    labels_under_phone_figure(fig)
    assert bool(fig.legends) == moved
    assert len([t for t in ax.texts if t.get_text()]) == (0 if moved else 6)


def _legend_sizes(fig) -> list[int]:
    legends = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    return [len(legend.get_texts()) for legend in legends if legend is not None]


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_no_legend_has_more_than_five_entries(name):
    """More lines than that are labelled at their ends (pe_book.style.direct_labels)."""
    with matplotlib.rc_context(THEMES["light"].rc):
        sizes = _legend_sizes(draw_figure(name, "light"))
    assert all(n <= MAX_LEGEND_ENTRIES for n in sizes), (
        f"{name}: legend entries {sizes}; label the lines at their ends with "
        "pe_book.style.direct_labels"
    )


def test_the_legend_count_sees_a_long_legend():
    fig = new_figure()
    ax = fig.add_subplot()
    for k in range(6):
        ax.plot([0, 1], [k, k], label=str(k))
    ax.legend()
    assert _legend_sizes(fig) == [6]


def test_the_text_size_check_fails_on_the_wide_variant():
    with matplotlib.rc_context(THEMES["light"].rc):
        fig = draw_figure("sinusoidal_heatmap", "light")
        fig.draw_without_rendering()
    assert smallest_text(fig) < 11.0


# An embedded raster (imshow, colorbar) and pure vector lines: the two kinds of SVG
# content. scripts/check_reproducible.py compares every figure across two whole builds.
@pytest.mark.parametrize("name", ["sinusoidal_heatmap", "sinusoidal_waves"])
def test_same_sources_give_identical_bytes(name):
    assert render_svg(name, "dark") == render_svg(name, "dark")


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_has_alt_text(name):
    assert len(FIGURES[name].alt) >= 40, (
        f"{name}: write alt= of 40 characters or more saying what the figure shows"
    )


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_renders(name):
    text = table_markdown(name)
    lines = text.splitlines()
    assert len(lines) >= 3
    assert len({len(re.findall(r"(?<!\\)\|", line)) for line in lines}) == 1, (
        f"{name}: ragged rows; give every row as many cells as Table.columns"
    )
    # a word "nan", not a name that holds it (the model type nanochat)
    assert not re.search(r"\bnan\b", text.lower()), (
        f"{name}: a NaN cell; compute every cell or write text"
    )
    columns = len(TABLES[name].build().columns)
    html = _markdown_html(text)
    assert html.startswith("<table>") and html.count("<table>") == 1, html[:200]
    assert len(re.findall(r"<th\b", html)) == columns
    for row in re.findall(r"<tr>(.*?)</tr>", html, re.S)[1:]:
        assert len(re.findall(r"<td\b", row)) == columns, row[:200]


def _markdown_html(text: str) -> str:
    """``text`` through Python-Markdown with the site's table and math extensions."""
    import markdown

    return markdown.markdown(
        text,
        extensions=["tables", "pymdownx.arithmatex"],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )


def test_the_table_check_fails_on_a_pipe_escaped_inside_math():
    """A norm written \\| inside a header's math, escaped for the table as \\\\|, splits it."""
    html = _markdown_html("| $\\\\|x\\\\|$ | b |\n|---|---|\n| 1 | 2 |")
    assert len(re.findall(r"<th\b", html)) != 2


@pytest.mark.parametrize("name", sorted(VALUES))
def test_value_is_text(name):
    text = VALUES[name].text()
    assert isinstance(text, str) and text.strip(), f"{name}: return non-empty text"


def test_every_registered_asset_is_used_by_a_page():
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    text = "\n".join(p.read_text(encoding="utf-8") for p in docs.rglob("*.md"))
    used = set(re.findall(r"\{\{\s*(figure|table|value)\s*:\s*([\w.]+)\s*(?::[^}]*)?\}\}", text))
    for kind, registry in (("figure", FIGURES), ("table", TABLES), ("value", VALUES)):
        unused = sorted(set(registry) - {n for k, n in used if k == kind})
        assert not unused, (
            f"registered {kind}s no page shows: {unused}; write {{{{ {kind}: NAME }}}} on "
            "its page or delete the registration"
        )


def test_unknown_names_fail_with_page_and_name():
    for code in (
        "{{ figure: nope }}",
        "{{ table: nope }}",
        "{{ value: nope }}",
        "{{ cite: nope2099 }}",
        "{{ wat: x }}",
    ):
        with pytest.raises(BookError, match=r"chapter\.md.*nope|wat"):
            expand_shortcodes(f"Text {code}\n", "part/chapter.md", {})


def test_shortcodes_inside_code_fences_are_left_alone():
    md = "```python\nx = '{{ figure: nope }}'\n```\n"
    assert expand_shortcodes(md, "a.md", {}) == md


def test_figure_markdown_has_both_variants_sizes_and_alt():
    name = sorted(FIGURES)[0]
    sizes = {(name, "wide"): (640, 320), (name, "phone"): (420, 400)}
    out = expand_shortcodes(f"{{{{ figure: {name} }}}}\n", "part/page.md", sizes)
    assert f"../assets/figures/{name}-light.svg#only-light" in out
    assert f"../assets/figures/{name}-dark.svg#only-dark" in out
    assert 'width="640" height="320"' in out
    assert FIGURES[name].alt[:30] in out
    # the phone variants, chosen by a media query, with their own size
    assert f'srcset="../assets/figures/{name}-light-phone.svg" width="420" height="400"' in out
    assert f'srcset="../assets/figures/{name}-dark-phone.svg"' in out
    assert f'class="figure-full" href="../assets/figures/{name}-light.svg"' in out


# "et al." joined by no-break spaces: a line never ends on "Press et"
_VASWANI = "[Vaswani\u00a0et\u00a0al.,\u00a02017](../appendix/bibliography.md#vaswani2017)"
_SU = "[Su\u00a0et\u00a0al.,\u00a02021](../appendix/bibliography.md#su2021)"


def _cited(markdown: str) -> str:
    return expand_shortcodes(markdown, "foundations/x.md", {}).strip()


def test_cite_links_to_the_bibliography_anchor_in_parentheses():
    """A citation after what it supports: "the original transformer (Vaswani et al., 2017)"."""
    assert _cited("{{ cite: vaswani2017 }}\n") == f"({_VASWANI})"
    assert _cited("RoPE {{ cite: vaswani2017, su2021 }} is") == f"RoPE ({_VASWANI}; {_SU}) is"


def test_a_citation_inside_a_parenthesis_adds_none_of_its_own():
    assert _cited("(as in fairseq; {{ cite: su2021 }})") == f"(as in fairseq; {_SU})"
    two_lines = "models ([chapter 11](../modern/rope.md);\n{{ cite: su2021 }}), and"
    assert _cited(two_lines).endswith(f"\n{_SU}), and")
    # a closed parenthesis, code or math with a bracket, or the paragraph before: outside
    assert _cited("(chapter 11) RoPE {{ cite: su2021 }}") == f"(chapter 11) RoPE ({_SU})"
    assert _cited("`f(` and $(a$ {{ cite: su2021 }}") == f"`f(` and $(a$ ({_SU})"
    assert _cited("(open\n\nRoPE {{ cite: su2021 }}").endswith(f"RoPE ({_SU})")


def test_citet_names_the_authors_as_part_of_the_sentence():
    textual = "[Su\u00a0et\u00a0al.\u00a0(2021)](../appendix/bibliography.md#su2021)"
    assert _cited("as {{ citet: su2021 }} found") == f"as {textual} found"
    both = _cited("{{ citet: vaswani2017, su2021 }}")
    vaswani = "[Vaswani\u00a0et\u00a0al.\u00a0(2017)](../appendix/bibliography.md#vaswani2017)"
    assert both == f"{vaswani} and {textual}"


def test_references_are_complete():
    for key, ref in REFERENCES.items():
        assert re.fullmatch(r"[a-z]+\d{4}\w*", key), key
        assert ref.url.startswith("https://"), key
        assert 1990 < ref.year < 2030 and ref.title and ref.venue and ref.authors


def test_math_becomes_mathml_and_bad_math_fails():
    html = '<p><span class="arithmatex">\\(x^2 &lt; y\\)</span></p>'
    out = render_math(html, "a.md")
    assert "<math" in out and "\\(" not in out and "&lt;" in out or "&#x0003C;" in out
    with pytest.raises(BookError, match="a.md"):
        render_math('<span class="arithmatex">\\(x^\\)</span>', "a.md")
    with pytest.raises(BookError, match="cannot render"):
        render_math('<div class="arithmatex">\\[\\unknowncmd x\\]</div>', "a.md")


@pytest.mark.parametrize(
    "value, spec, text",
    [
        (1.5, ".2f", "1.50"),
        (-0.00001, ".4f", "0.0000"),
        (-2.5, ".1f", "−2.5"),
        (12345, ",.0f", "12,345"),
        (7, ".4f", "7"),
        ("x", ".4f", "x"),
        (60611.4, ",.0f", "60,611"),
        # exact zeros are 0, whatever the spec
        (0.0, ".2e", "0"),
        (-0.0, ".4f", "0"),
        # a scientific spec shows order-one values in fixed notation ...
        (2.0, ".2e", "2.00"),
        (52.891, ".3e", "52.89"),
        (0.00125, ".2e", "0.00125"),
        # ... and the rest as a × 10ⁿ
        (4.263e-14, ".3e", "4.263×10⁻¹⁴"),
        (-1.5e-7, ".1e", "−1.5×10⁻⁷"),
        (123456.0, ".2e", "1.23×10⁵"),
        (3.0e-5, ".1e", "3.0×10⁻⁵"),
        (1.97e-09, ".3g", "1.97×10⁻⁹"),  # a "g" spec's exponent as a power of ten
        (3.4e38, ".3g", "3.4×10³⁸"),
        (0.00666, ".3g", "0.00666"),
    ],
)
def test_cells_are_formatted_consistently(value, spec, text):
    assert format_cell(value, spec) == text


def test_a_column_of_whole_numbers_prints_without_decimals(monkeypatch):
    """Floats that are all whole in a column print as integers; a mixed column keeps
    its spec."""
    from pe_book import Table, TableSpec

    tab = Table(["n", "x"], [[256.0, 0.5], [1024.0, 2.0]], formats={"n": ",.2f"})
    monkeypatch.setitem(TABLES, "t.whole", TableSpec("t.whole", lambda: tab))
    rows = table_markdown("t.whole").splitlines()[2:]
    assert rows == ["| 256 | 0.5000 |", "| 1,024 | 2.0000 |"]


def test_multiline_shortcodes_keep_their_indentation():
    name = sorted(TABLES)[0]
    out = expand_shortcodes(f"!!! note\n    {{{{ table: {name} }}}}\n", "a.md", {})
    body = [line for line in out.splitlines()[1:] if line.strip()]
    assert body[0].startswith('    <p class="table-caption"')
    assert len(body) >= 4 and all(line.startswith("    |") for line in body[1:])


def test_escaped_underscores_in_text_render():
    out = render_math(
        '<span class="arithmatex">\\(\\text{seq\\_len} + \\mathrm{a\\_b}\\)</span>', "a.md"
    )
    assert "<mtext>seq_len</mtext>" in out and "\\" not in out


@pytest.mark.parametrize(
    "html",
    [
        "<li>goes to\n$$\n8 + \\frac{a}{b}\n$$</li>",
        "<p>the angle $x_i$ here</p>",
        "<p>a \\(x\\) b</p>",
    ],
)
def test_math_the_markdown_stage_missed_fails_the_build(html):
    with pytest.raises(BookError, match="unrendered"):
        render_math(html, "a.md")


def test_tex_inside_code_is_not_math():
    html = "<pre><code>$$ \\frac{1}{2} $$</code></pre><p>costs <code>$x$</code></p>"
    assert render_math(html, "a.md") == html


# Runs in a fresh interpreter, where no chapter has been imported yet: every module of
# the library is imported first, then a profiler records each call that enters the
# library's source files while ``code`` runs.
_LIBRARY_CALLS = """
import importlib, pkgutil, sys
from pathlib import Path
import pe_explained
for info in pkgutil.walk_packages(pe_explained.__path__, "pe_explained."):
    importlib.import_module(info.name)
root = str(Path(pe_explained.__file__).resolve().parent)
calls = []
def profile(frame, event, arg):
    if event == "call" and frame.f_code.co_filename.startswith(root):
        calls.append(frame.f_code.co_qualname)
sys.setprofile(profile)
{code}
sys.setprofile(None)
print(sorted(set(calls)))
"""


def _library_calls(code: str) -> list[str]:
    import ast
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _LIBRARY_CALLS.format(code=code)],
        capture_output=True,
        text=True,
        check=True,
    )
    return ast.literal_eval(result.stdout.strip().splitlines()[-1])


def test_the_library_call_detector_sees_a_call():
    assert "sinusoidal" in _library_calls("pe_explained.sinusoidal(2, 4)")


def test_importing_the_chapters_calls_no_library_function():
    calls = _library_calls("import pe_book; pe_book.load_all()")
    assert not calls, f"chapter modules call the library at import time: {calls}"


def _page(path: str) -> str:
    from pathlib import Path

    return (Path(__file__).resolve().parent.parent / "docs" / path).read_text(encoding="utf-8")


def test_chapter_constants_are_shown_with_a_format_spec():
    from pe_book.chapters import context_extension as ce

    out = expand_shortcodes(
        "{{ value: context_extension.CONTEXT }}, {{ value: context_extension.CONTEXT:, }}, "
        "{{ value: context_extension.BASE:g }}\n",
        "a.md",
        {},
    )
    assert out == f"{ce.CONTEXT}, {ce.CONTEXT:,}, {ce.BASE:g}\n" == "4096, 4,096, 10000\n"
    with pytest.raises(BookError, match=r"a\.md.*yarn_low.*format spec"):
        expand_shortcodes("{{ value: context_extension.yarn_low:, }}\n", "a.md", {})
    with pytest.raises(BookError, match=r"a\.md.*CONTEXT.*<chapter>\.<name>"):
        expand_shortcodes("{{ value: CONTEXT }}\n", "a.md", {})


def test_every_quoted_constant_is_defined_and_registered():
    import importlib

    from pe_book.chapters import __name__ as package

    quoted = [n for n, spec in VALUES.items() if spec.constant]
    assert "context_extension.CONTEXT" in quoted
    for name in quoted:
        chapter, constant = name.split(".")
        module = importlib.import_module(f"{package}.{chapter}")
        assert constant in module.QUOTED and VALUES[name].compute() == getattr(module, constant)


def test_context_extension_examples_use_the_running_example():
    """The page's code blocks type numbers; they must be the chapter's constants."""
    import ast

    from pe_book.chapters import context_extension as ce

    page = _page("modern/context-extension.md")
    # a statement wrapped onto continuation lines ("... ") reads as one line
    joined = re.sub(r"\n\.\.\. +", " ", page)
    low, high = (
        VALUES["context_extension.yarn_low"].text(),
        VALUES["context_extension.yarn_high"].text(),
    )
    for snippet in (
        f"ntk_aware_base({ce.BASE!r}, {ce.FACTOR!r}, {ce.HEAD_DIM})",
        f"rope_frequencies({ce.HEAD_DIM})",
        f'"original_max_position_embeddings": {ce.CONTEXT}}}',
        f"seq_len={2 * ce.CONTEXT})",
        f"yarn_correction_range({ce.HEAD_DIM}, original_max_position_embeddings={ce.CONTEXT})\n"
        f"({low}, {high})",
        f'yarn = {{"rope_type": "yarn", "factor": {ce.FACTOR!r}, '
        f'"original_max_position_embeddings": {ce.CONTEXT}}}',
        f"r = {ce.CONTEXT} / rope_wavelengths({ce.HEAD_DIM})",
        f"plain / {ce.FACTOR:g} +",
        f"rope_frequencies({ce.HEAD_DIM}, base={ce.LLAMA31_BASE!r})",
        f"rope_frequencies({ce.HEAD_DIM}, base={ce.LLAMA31_BASE!r}, scaling=llama31)",
    ):
        assert snippet in joined, f"context-extension.md: no {snippet!r}"
    # the Llama 3.1 dict of the example, continuation prompts removed
    start = page.index(">>> llama31 = ")
    lines = page[start:].splitlines()
    source = lines[0][len(">>> llama31 = ") :]
    for line in lines[1:]:
        if not line.startswith("... "):
            break
        source += line[4:]
    assert ast.literal_eval(source) == ce.LLAMA31


def test_figures_and_tables_are_numbered_per_chapter_and_referenced_by_number():
    figs = sorted(FIGURES)[:2]
    tab = sorted(TABLES)[0]
    sizes = {(name, layout): (10, 10) for name in FIGURES for layout in ("wide", "phone")}
    page = (
        f"# 7. A chapter\n\nAs {{{{ figref: {figs[1]} }}}} shows "
        f"(and {{{{ tableref: {tab} }}}}):\n\n"
        f"{{{{ figure: {figs[0]} }}}}\n\n{{{{ table: {tab} }}}}\n\n{{{{ figure: {figs[1]} }}}}\n"
    )
    out = expand_shortcodes(page, "a/b.md", sizes)
    anchor = figs[1].replace("_", "-")
    assert f"[Figure 7.2](#fig-{anchor})" in out  # a reference before its figure
    assert f"[Table 7.1](#table-{tab.replace('.', '-').replace('_', '-')})" in out
    assert out.index(">Figure 7.1<") < out.index(">Table 7.1<") < out.index(">Figure 7.2<")
    # a page without a chapter number counts from 1 without a prefix
    plain = expand_shortcodes(f"# Home\n\n{{{{ figure: {figs[0]} }}}}\n", "index.md", sizes)
    assert ">Figure 1<" in plain
    # in the appendix, "Table A.1"
    appendix = expand_shortcodes(f"# Glossary\n\n{{{{ table: {tab} }}}}\n", "appendix/g.md", sizes)
    assert ">Table A.1<" in appendix


#: Pages whose figure or table speaks for itself: the home page's, the glossary's list.
_UNREFERENCED_PAGES = {"index.md", "appendix/glossary.md"}


def unreferenced(markdown: str) -> list[str]:
    """The figures and tables placed in ``markdown`` that its prose never cites by number."""
    placed = re.findall(r"\{\{ (?:figure|table): ([\w.]+) \}\}", markdown)
    cited = set(re.findall(r"\{\{ (?:figref|tableref): ([\w.]+) \}\}", markdown))
    return [name for name in placed if name not in cited]


def test_every_figure_and_table_is_cited_by_number_on_its_page():
    """The prose says "Figure 3.2 shows", never only "the figure below"."""
    docs = Path(__file__).resolve().parent.parent / "docs"
    found = {
        str(page.relative_to(docs)): missing
        for page in docs.rglob("*.md")
        if str(page.relative_to(docs)) not in _UNREFERENCED_PAGES
        and (missing := unreferenced(page.read_text(encoding="utf-8")))
    }
    assert not found, (
        f"{found}: cite each by number in the prose, {{{{ figref: NAME }}}} or "
        "{{ tableref: CHAPTER.NAME }}, within 1,200 characters before or after it"
    )


def test_the_citation_check_sees_a_figure_named_only_as_the_figure_below():
    page = "As the figure below shows:\n\n{{ figure: a }}\n\n{{ tableref: t }}\n{{ table: t }}"
    assert unreferenced(page) == ["a"]


#: How far (characters of prose, code left out) a figure or table may stand from the
#: nearest sentence that cites it, in the same section: next to the text explaining it.
NEAR_ITS_TEXT = 1_200


def far_from_their_text(markdown: str) -> list[str]:
    """The figures and tables of ``markdown`` whose nearest citation by number is in
    another section (between headings) or more than :data:`NEAR_ITS_TEXT` characters
    of prose away."""
    prose = re.sub(r"^(\s*)(```|~~~).*?^\1\2[^\n]*$", "", markdown, flags=re.M | re.S)
    blocks = re.split(r"\n\s*\n", prose)
    sections = list(itertools.accumulate(bool(re.match(r"#{1,6} ", b.strip())) for b in blocks))
    far = []
    for i, block in enumerate(blocks):
        for kind, name in re.findall(r"\{\{ (figure|table): ([\w.]+) \}\}", block):
            ref = f"{{{{ {'figref' if kind == 'figure' else 'tableref'}: {name} }}}}"
            cites = [j for j, b in enumerate(blocks) if ref in b and sections[j] == sections[i]]
            gaps = [sum(map(len, blocks[min(i, j) + 1 : max(i, j)])) for j in cites]
            if not gaps or min(gaps) > NEAR_ITS_TEXT:
                far.append(name)
    return far


def test_every_figure_and_table_stands_next_to_the_text_that_cites_it():
    """A figure is explained where it stands: its citation by number ("Figure 12.1
    shows …") is in its section and within a few paragraphs of it."""
    docs = Path(__file__).resolve().parent.parent / "docs"
    found = {
        str(page.relative_to(docs)): far
        for page in docs.rglob("*.md")
        if str(page.relative_to(docs)) not in _UNREFERENCED_PAGES
        and (far := far_from_their_text(page.read_text(encoding="utf-8")))
    }
    assert not found, (
        f"{found}: write {{{{ figref: NAME }}}} (a table: {{{{ tableref: CHAPTER.NAME }}}}) "
        f"within {NEAR_ITS_TEXT:,} characters of prose before or after it, in its section"
    )


def test_the_nearness_check_sees_a_figure_cited_in_another_section_or_far_away():
    cited = "As {{ figref: a }} shows:\n\n"
    assert far_from_their_text(cited + "{{ figure: a }}\n") == []
    assert far_from_their_text(cited + "## Later\n\n{{ figure: a }}\n") == ["a"]
    filler = "\n\n".join(["A paragraph of words."] * 80)
    assert far_from_their_text(f"{cited}{filler}\n\n{{{{ figure: a }}}}\n") == ["a"]
    code = "```python\n# not a heading\nx = 1\n```\n\n"
    assert far_from_their_text(cited + code + "{{ figure: a }}\n") == []


def test_a_reference_to_a_figure_not_on_the_page_fails():
    figs = sorted(FIGURES)
    sizes = {(name, layout): (10, 10) for name in FIGURES for layout in ("wide", "phone")}
    with pytest.raises(BookError, match="not on this page"):
        expand_shortcodes(f"# 1. X\n\n{{{{ figref: {figs[0]} }}}}\n", "a.md", sizes)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_every_line_colour_reaches_3_to_1_on_its_background(theme):
    """The colour cycle and the colours sampled from the sequential map for lines
    (``Theme.line_colours``) all reach WCAG's 3:1 for graphics on the page background."""
    from pe_book.style import THEMES, contrast

    t = THEMES[theme]
    for colour in t.cycle:
        assert contrast(colour, t.background) >= 3.0, (theme, colour)
    for colour in t.line_colours(12):
        assert contrast(colour, t.background) >= 3.0, (theme, colour)
    # and the check can fail: Okabe-Ito yellow on white, viridis' darkest on slate
    assert contrast("#F0E442", "#ffffff") < 3.0
    assert contrast("#440154", "#1e2129") < 3.0


def _inline_math(text: str) -> list[str]:
    """Inline ``$…$`` spans of a page's prose (display ``$$…$$`` and code left out)."""
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    prose = re.sub(r"\$\$.*?\$\$", "", prose, flags=re.DOTALL)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    return re.findall(r"(?<![\\$])\$([^$\n]+)\$", prose)


def test_inline_math_never_stacks_a_fraction():
    """A stacked fraction in running text shrinks to unreadable size: write a/b inline."""
    from pathlib import Path

    pages = sorted(Path(__file__).resolve().parent.parent.joinpath("docs").rglob("*.md"))
    stacked = [
        f"{p.name}: ${m}$" for p in pages for m in _inline_math(p.read_text()) if "\\frac" in m
    ]
    assert stacked == [], f"{stacked}: write a/b inline; \\frac only in a $$ display"
    assert _inline_math(r"so $\frac{a}{b}$ and $$\frac{c}{d}$$") == [r"\frac{a}{b}"]


def test_a_minus_sign_after_an_opening_or_an_operator_is_unary():
    """R(−a) and = −b set the minus as a sign (form="prefix", no spacing); (a) − c and
    x − y keep it binary."""
    html = '<p><span class="arithmatex">\\(R(-a) = -b + (a) - c - x\\)</span></p>'
    out = render_math(html, "a.md").replace("\n", "")
    minus = re.findall(r"<mo[^>]*>&#x02212;</mo>", out)
    assert len(minus) == 4
    assert ['form="prefix"' in m for m in minus] == [True, True, False, False]


def test_a_negative_value_in_the_prose_has_a_minus_sign():
    """ "-0.31" from a value reads "−0.31" in the prose; inside a formula TeX sets it."""
    load_all()
    raw = VALUES["xpos_nope.rope_far_min"].text()
    assert raw.startswith("-"), raw  # the library's number, negative
    prose = expand_shortcodes("down to {{ value: xpos_nope.rope_far_min }} and\n", "a.md", {})
    assert prose == f"down to −{raw[1:]} and\n"
    math = expand_shortcodes("$x = {{ value: xpos_nope.rope_far_min }}$\n", "a.md", {})
    assert math == f"$x = {raw}$\n"


def test_a_braced_thousands_separator_makes_one_number():
    """62{,}832 is one number in MathML, not "62, 832" spaced as a list."""
    out = render_math(r'<span class="arithmatex">\(62{,}832 + 1{,}048{,}576.5, x\)</span>', "a.md")
    out = out.replace("\n", "")
    assert "<mn>62,832</mn>" in out and "<mn>1,048,576.5</mn>" in out
    assert out.count("&#x0002C;") == 1  # the list comma before x stays an operator
    plain = render_math(r'<span class="arithmatex">\(L = 4,096\)</span>', "a.md")
    assert "<mn>4,096</mn>" in plain.replace("\n", "")
    billion = render_math(r'<span class="arithmatex">\(10^9 = 1{,}000{,}000{,}000\)</span>', "a")
    assert "<mn>1,000,000,000</mn>" in billion.replace("\n", "")


_TABLE_HTML = (
    '<p class="table-caption" id="table-x">Table 1 A</p>\n<table>\n<thead>\n<tr>\n'
    '<th style="text-align: left;">model</th>\n<th style="text-align: right;">base</th>\n'
    '<th style="text-align: right;">factor</th>\n<th style="text-align: left;">rule</th>\n'
    "</tr>\n</thead>\n<tbody>\n<tr>\n"
    '<td style="text-align: left;">Llama</td>\n<td style="text-align: right;">500000</td>\n'
    '<td style="text-align: right;">8</td>\n<td style="text-align: left;">"llama3"</td>\n'
    "</tr>\n</tbody>\n</table>"
)


def test_every_generated_table_keeps_its_grid_on_phones():
    """One phone policy: a generated table (a caption, then its table) is marked to keep
    its grid, with no per-cell labels; a table of a page's own Markdown is left alone."""
    out = grid_tables(_TABLE_HTML)
    assert "<table data-grid>" in out and "data-cards" not in out and "data-label" not in out
    assert out.replace("<table data-grid>", "<table>") == _TABLE_HTML
    plain = "<table>\n<tr><td>1</td></tr>\n</table>"
    assert grid_tables(plain) == plain  # not a generated table
    with pytest.raises(TypeError):
        table("t", cards=False)  # no second policy to ask for


def test_every_table_is_written_in_its_scrolling_box_with_the_book_s_class():
    """The theme's script moves every table with no class into a scrolling box once the
    page has loaded, restyling the page; the book writes each table in that box with its
    class instead, and leaves a table with a class of its own (a notebook's) alone."""
    out = wrapped_tables(grid_tables(_TABLE_HTML))
    wrap = '<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
    box = f'{wrap}<table class="{TABLE_CLASS}" data-grid>'
    assert box in out and out.endswith("</table></div></div>")
    assert out.replace(box, "<table data-grid>").replace("</div></div>", "") == grid_tables(
        _TABLE_HTML
    )
    framed = '<table class="dataframe"><tr><td>1</td></tr></table>'
    assert wrapped_tables(framed) == framed
    two = wrapped_tables("<table></table><p>x</p><table>\n</table>")
    assert two.count(box.replace(" data-grid", "")) == 2 and two.count("</div></div>") == 2
    for broken in ("<table><tr></tr>", "</table>"):
        with pytest.raises(BookError, match="table"):
            wrapped_tables(broken)


def _css_rules(css: str, media: str = "") -> set[tuple[str, str, frozenset]]:
    """(media query, selectors, declarations) of every rule of ``css``, in a form that
    ignores whitespace and the quotes of attribute values."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules, pos = set(), 0
    while (brace := css.find("{", pos)) != -1:
        head = " ".join(css[pos:brace].split())
        if head.startswith("@"):
            depth, end = 1, brace + 1
            while depth:
                depth += {"{": 1, "}": -1}.get(css[end], 0)
                end += 1
            if head.startswith("@media"):
                rules |= _css_rules(css[brace + 1 : end - 1], head)
            pos = end
            continue
        end = css.index("}", brace)
        selectors = ",".join(
            sorted(
                re.sub(r"\s*([>+~])\s*", r"\1", s.strip()).replace('"', "") for s in head.split(",")
            )
        )
        body = css[brace + 1 : end]
        declarations = frozenset(
            " ".join(d.split()).replace(": ", ":") for d in body.split(";") if d.strip()
        )
        rules.add((media, selectors, declarations))
        pos = end + 1
    return rules


def _theme_table_rules_missing(theme_css: str, book_css: str) -> list:
    """The theme's rules for a table with no class that ``book_css`` does not give the
    book's table class, word for word."""
    book = _css_rules(book_css)
    wanted = {
        (media, selectors.replace("table:not([class])", f"table.{TABLE_CLASS}"), body)
        for media, selectors, body in _css_rules(theme_css)
        if "table:not([class])" in selectors
    }
    return sorted(wanted - book, key=str)


def test_the_book_s_tables_get_the_theme_s_rules_for_a_table_with_no_class():
    """book.css copies the installed theme's rules for ``table:not([class])`` to the
    book's table class; the check fails when the theme changes one of them."""
    material = pytest.importorskip("material")
    found = sorted(
        (Path(material.__file__).parent / "templates/assets/stylesheets").glob("main.*.min.css")
    )
    assert len(found) == 1, found
    theme = found[0].read_text(encoding="utf-8")
    book = _page("assets/stylesheets/book.css")
    assert len([r for r in _css_rules(theme) if "table:not([class])" in r[1]]) >= 10
    assert _theme_table_rules_missing(theme, book) == []
    changed = theme.replace("padding:.9375em 1.25em;font-weight:700", "padding:1em;font-weight:700")
    assert len(_theme_table_rules_missing(changed, book)) == 1
    assert _theme_table_rules_missing(theme, book.replace("word-break: normal", "")) != []


def test_a_table_that_repeats_a_figure_is_folded_under_what_it_repeats():
    """A table registered with ``repeats`` is folded under a line naming it and the figure
    whose numbers it gives; the figure must be on the page; other tables stay open."""
    load_all()
    assert TABLES["evidence.length_loss"].repeats == "evidence_length_loss"
    page = "# 22. E\n\n{{ figure: evidence_length_loss }}\n\n{{ table: evidence.length_loss }}\n"
    sizes = {(n, v): (640, 320) for n in FIGURES for v in ("wide", "phone")}
    out = expand_shortcodes(page, "practice/evidence.md", sizes)
    assert '<details class="pe-fold" markdown="1">' in out
    assert "<summary>Table 22.1 in full: the numbers of Figure 22.1</summary>" in out
    assert out.index("<summary>") < out.index('class="table-caption"') < out.index("</details>")
    with pytest.raises(BookError, match="evidence_length_loss"):
        expand_shortcodes("{{ table: evidence.length_loss }}\n", "practice/evidence.md", sizes)
    plain = expand_shortcodes("{{ table: evidence.setup }}\n", "practice/evidence.md", sizes)
    assert "<details" not in plain
    with pytest.raises(TypeError, match="repeats must name a figure"):
        table("t", repeats=1)


def test_measured_cells_are_aligned_as_numbers():
    """A mean with its range (text, for the range's markup) is right-aligned like a number;
    a column of words is not."""
    lines = table_markdown("evidence.length_loss").splitlines()
    assert lines[1] == "|:---|" + "---:|" * (len(lines[1].split("|")) - 3)
    assert '<span class="pe-range">(' in lines[2]


#: Symbols the prose sets as math, written as plain text (``ω_i``, ``d_model``, ``‖x‖``,
#: ``√d``, ``10000^(−2i/d)``): captions, table headers and figure text must use ``$…$``.
PLAIN_SYMBOL = re.compile(
    r"[ωθλζ]_\w|\bd_model\b|\bhead_dim\b|\bM_k\b|\^\(|\^[−-]|2π|‖|√"
    # and formulas in plain text: PE(p), sums, products, "k = 4", cos(…), "j − i", floors
    r"|\bPE\(|Σ|·|\b[a-zA-Z]\s?[=<>≤]\s?\d|\b(?:cos|sin|ln|clip)²?\(|\b[a-z] [−+] [a-z1]\b|⌊|²"
    # and one-letter variables named in words: "position p", "pair i", "q and k"
    r"|\b(?:positions?|offset|pair|dimension|head|and)\s[b-zB-HJ-Z]\b(?![-'’])"
)


def _plain_symbols(text: str) -> list[str]:
    outside = re.sub(r"\$[^$]*\$", " ", text)
    return [outside[max(0, m.start() - 15) : m.end() + 15] for m in PLAIN_SYMBOL.finditer(outside)]


def test_math_notation_sets_plain_symbols_as_math():
    assert math_notation("PE for d_model = 4,096, wavelength 2π/ω_i.") == (
        r"PE for $d_{\text{model}} = 4{,}096$, wavelength $2\pi/\omega_i$."
    )
    assert math_notation("the mean of ‖PE‖² / ‖x‖², $x$ kept") == (
        r"the mean of $\|PE\|^2 / \|x\|^2$, $x$ kept"
    )
    assert math_notation("correct: ω_i = 10000^(−2i/d)") == r"correct: $\omega_i = 10000^{-2i/d}$"
    assert math_notation("head_dim = 64, d_k in the glossary") == "$d_k = 64$, d_k in the glossary"


def test_the_notation_check_sees_plain_symbols():
    assert _plain_symbols("the wavelength 2π/ω_i for d_model = 8")
    for formula in (
        "PE(p) · PE(p+k)",
        "k = 4",
        "offset j − i",
        "cos(k ω_i)",
        "Σ_i",
        "sin²(x)",
        "key position j",
        "q and k",
    ):
        assert _plain_symbols(f"the {formula} here"), formula
    assert not _plain_symbols(r"the wavelength $2\pi/\omega_i$ for $d_{\text{model}} = 8$")


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_captions_and_drawings_set_symbols_as_math(name):
    found = _plain_symbols(math_notation(FIGURES[name].caption))
    with matplotlib.rc_context(THEMES["light"].rc):
        fig = draw_figure(name, "light")
        fig.draw_without_rendering()
    for text in fig.findobj(matplotlib.text.Text):
        found += _plain_symbols(text.get_text())
    assert not found, (
        f"{name}: {found}; write these as math, $…$ (e.g. $\\omega_i$, $d_{{\\text{{model}}}}$), "
        "or use a symbol of pe_book.notation.SYMBOLS"
    )


@pytest.mark.parametrize("name", sorted(TABLES))
def test_table_captions_and_headers_set_symbols_as_math(name):
    found = _plain_symbols(math_notation(TABLES[name].caption))
    for column in TABLES[name].build().columns:
        found += _plain_symbols(math_notation(column))
    assert not found, f"{name}: {found}; write these as math, $…$, in the caption and headers"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_no_table_header_is_a_bare_symbol(name):
    """A header of math alone reads as empty to assistive tools (axe: empty-table-header);
    each says in words what the symbol is ("width d_model")."""
    for column in TABLES[name].build().columns:
        assert not re.fullmatch(r"\s*\$[^$]*\$\s*", math_notation(column)), (
            f'{name}: {column!r}; say in words what the symbol is: "width $d$"'
        )


def test_a_format_for_a_column_the_table_lacks_fails():
    """A renamed header would otherwise drop its format without a word."""
    with pytest.raises(ValueError, match="lacks"):
        Table(["offset $k$"], [[1]], formats={"offset k": ".2f"})


def test_caption_math_becomes_mathml():
    html = inline_math_html(r"PE for $d_{\text{model}} = 8$, costs $5")
    assert html.count('class="arithmatex"') == 1 and "costs $5" in html
    assert "<math" in render_math(html, "a.md")


def test_every_list_of_references_has_its_heading():
    """A page's references sit under "## References", not in the list before them."""
    docs = Path(__file__).resolve().parent.parent / "docs"
    for page in docs.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        for match in re.finditer(r"^\{\{ references:", text, re.M):
            before = text[: match.start()].rstrip().splitlines()[-1]
            assert before == "## References", (
                f"{page.name}: {before!r}; put the line ## References right above it"
            )


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_table_has_a_caption(name):
    """A table's number is followed by a sentence saying what it shows."""
    assert len(TABLES[name].caption.split()) >= 5, (
        f"{name}: {TABLES[name].caption!r}; write caption= of five words or more"
    )


#: The longest caption, in characters as registered: what the figure or table shows and
#: the parameters to read it; explanations belong to the prose beside it.
CAPTION_CHARACTERS = 200


@pytest.mark.parametrize("name", sorted(TABLES) + sorted(FIGURES))
def test_captions_are_short(name):
    caption = (TABLES.get(name) or FIGURES[name]).caption
    assert len(caption) <= CAPTION_CHARACTERS, (
        f"{name}: {len(caption)} characters: {caption}; cut the caption to "
        f"{CAPTION_CHARACTERS} and move the explanation into the prose beside it"
    )


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_write_powers_of_ten_not_e_notation(name):
    """A number in the prose reads 5.6×10⁻¹⁷ (render.format_cell), never 5.6e-17."""
    assert not re.search(r"\de[-+−]\d", VALUES[name].text()), (
        f"{name} = {VALUES[name].text()}: write it with pe_book.text.format_cell (5.6×10⁻¹⁷)"
    )


@pytest.mark.parametrize("name", sorted(TABLES))
def test_tables_write_powers_of_ten_not_e_notation(name):
    assert not re.search(r"\de[-+−]\d", table_markdown(name)), (
        f"{name}: e-notation in a cell; give numbers as numbers and their column a format"
    )
