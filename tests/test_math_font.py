"""The math font (pe_book/fonts.py): STIX Two Math, subset at build time to the
characters of the site's MathML, served as WOFF2 by a relative URL.

The quick tests subset small samples; the ``site`` tests read the built site (the
font holds every character its pages' math draws, and the pages load it by a
relative URL); the ``browser`` tests check that Chromium uses it, from a server and
from disk, so that brackets stretch and scripts stay readable.
"""

from __future__ import annotations

import hashlib
import io
import re
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from browser_support import built_site, pages_of
from fontTools.ttLib import TTFont

from pe_book import fonts
from pe_book.pages import BookError
from pe_book.pages.mathml import render_math

SAMPLE = set("()[]|‖+−=·/0123456789abcdefghijklmnopqrstuvwxyzθω∑") | {"\u2211"}


def _math(latex: str, display: bool = False) -> str:
    tag = "div" if display else "span"
    open_, close = ("\\[", "\\]") if display else ("\\(", "\\)")
    return render_math(f'<{tag} class="arithmatex">{open_}{latex}{close}</{tag}>', "a.md")


def _font(data: bytes) -> TTFont:
    return TTFont(io.BytesIO(data))


def _source() -> TTFont:
    """The whole source font, read into memory (no file left open)."""
    return _font(fonts.source_font().read_bytes())


def _cmap(font: TTFont) -> set[str]:
    return {chr(code) for code in font.getBestCmap()}


def missing_characters(font: TTFont, page_html: str) -> set[str]:
    """The characters the page's math draws that ``font`` has no glyph for."""
    return fonts.math_characters(page_html) - _cmap(font)


@cache
def _sample_font() -> bytes:
    return fonts.subset_font(SAMPLE)


# --- the source and the characters --------------------------------------------------------


def test_the_source_is_stix_two_math_with_a_math_table_under_the_ofl():
    font = _source()
    names = {rec.nameID: rec.toUnicode() for rec in font["name"].names if rec.platformID == 3}
    assert names[1] == "STIX Two Math"
    assert "Open Font License" in names[13]
    assert "MATH" in font


def test_a_single_letter_identifier_is_drawn_in_mathematical_italic():
    assert fonts.italic("x") == "\U0001d465"
    assert fonts.italic("A") == "\U0001d434"
    assert fonts.italic("h") == "\u210e"  # the hole in Unicode's italic alphabet
    assert fonts.italic("θ") == "\U0001d703"
    assert fonts.italic("ω") == "\U0001d714"
    assert fonts.italic("Ω") == "\U0001d6fa"
    assert fonts.italic("1") == "1" and fonts.italic("+") == "+"


def test_math_characters_are_the_tokens_and_their_italic_forms():
    page = "<p>text x outside math</p>" + _math(
        r"\theta_i = \mathrm{pos} \cdot \omega_i + \text{base} \le 2"
    )
    chars = fonts.math_characters(page)
    assert {"θ", "i", "p", "o", "s", "·", "ω", "b", "a", "e", "≤", "2", "+", "="} <= chars
    assert {fonts.italic("θ"), fonts.italic("i"), fonts.italic("ω")} <= chars
    # upright names and text are drawn as they are: no italic form of their letters
    assert fonts.italic("p") not in chars and fonts.italic("b") not in chars
    assert "x" not in chars and "u" not in chars  # prose is not math


def test_a_radical_draws_the_radical_sign():
    """A square or n-th root has no token for its sign; the browser draws U+221A."""
    for tex in (r"\sqrt{d_k}", r"\sqrt[3]{x}"):
        assert "√" in fonts.math_characters(_math(tex)), tex
    assert "√" not in fonts.math_characters(_math(r"x^2"))


# --- the subset ---------------------------------------------------------------------------


def test_the_subset_is_woff2_with_the_math_table_and_the_characters_asked_for():
    data = _sample_font()
    assert data[:4] == b"wOF2"
    font = _font(data)
    assert "MATH" in font and "GSUB" in font
    assert SAMPLE <= _cmap(font)
    source = _source()
    assert len(font.getGlyphOrder()) < len(source.getGlyphOrder()) / 10
    assert len(data) < fonts.source_font().stat().st_size / 20
    names = {rec.nameID for rec in font["name"].names}
    assert {0, 1, 13, 14} <= names  # copyright, family, licence and its URL travel along


def test_the_subset_keeps_what_stretches_a_parenthesis():
    """A ``(`` grows by the larger variants and the pieces the MATH table lists for it."""
    font = _font(_sample_font())
    constructions = font["MATH"].table.MathVariants.VertGlyphConstruction
    coverage = font["MATH"].table.MathVariants.VertGlyphCoverage.glyphs
    paren = font.getBestCmap()[ord("(")]
    construction = constructions[coverage.index(paren)]
    variants = [v.VariantGlyph for v in construction.MathGlyphVariantRecord]
    assert len(variants) >= 3 and construction.GlyphAssembly is not None
    assert set(variants) <= set(font.getGlyphOrder())


def _vertical_sizes(font: TTFont, char: str) -> int:
    """How many sizes (variants and assembly pieces) the MATH table lists for ``char``."""
    variants = font["MATH"].table.MathVariants
    name = font.getBestCmap()[ord(char)]
    if name not in variants.VertGlyphCoverage.glyphs:
        return 0
    construction = variants.VertGlyphConstruction[variants.VertGlyphCoverage.glyphs.index(name)]
    assembly = construction.GlyphAssembly
    return len(construction.MathGlyphVariantRecord) + (len(assembly.PartRecords) if assembly else 0)


def test_the_root_sign_keeps_only_its_base_size():
    """Chromium sizes a root for its widest sign; with only one size there is no gap."""
    chars = SAMPLE | {"√"}
    font = _font(fonts.subset_font(chars))
    assert "√" in _cmap(font)
    assert _vertical_sizes(font, "√") == 0
    assert _vertical_sizes(font, "(") > 3  # other characters still stretch
    assert _vertical_sizes(_source(), "√") > 3
    assert _vertical_sizes(_font(fonts.subset_font(chars, one_size=())), "√") > 3


def test_a_root_over_a_fraction_or_a_stack_fails_the_build():
    """The one size of the root sign covers one line of math, not a fraction."""
    for tex in (r"\sqrt{\frac{1}{2}}", r"\sqrt{1 + \sum_i x_i}", r"\sqrt[3]{\tfrac{a}{b}}"):
        with pytest.raises(BookError, match="root over"):
            _math(tex)
    assert "<msqrt>" in _math(r"\sqrt{d_{\text{model}} / 2} + \frac{1}{2}")
    assert "<msqrt>" in _math(r"\sqrt{1 + \ln s / \ln L}")


def test_the_subset_is_the_same_bytes_whatever_the_clock(monkeypatch):
    first = fonts.subset_font(SAMPLE)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    again = fonts.subset_font(sorted(SAMPLE, reverse=True))
    assert hashlib.sha256(first).hexdigest() == hashlib.sha256(again).hexdigest()
    assert _font(first)["head"].modified == _source()["head"].modified


def test_the_kept_subset_is_the_subset_and_is_made_again_for_other_characters(
    tmp_path, monkeypatch
):
    """kept_subset gives subset_font's bytes, reads them back from the build cache for
    the same characters, and subsets again for others (the entry is stamped with them)."""
    from pe_book.build_cache import BuildCache

    made = []
    subset = fonts.subset_font
    monkeypatch.setattr(fonts, "subset_font", lambda chars: made.append(chars) or subset(chars))
    first = fonts.kept_subset(SAMPLE, BuildCache(tmp_path))
    assert first == subset(SAMPLE) and len(made) == 1
    assert fonts.kept_subset(sorted(SAMPLE, reverse=True), BuildCache(tmp_path)) == first
    assert len(made) == 1
    other = fonts.kept_subset([*SAMPLE, "∫"], BuildCache(tmp_path))
    assert len(made) == 2 and other != first


def test_a_missing_glyph_is_found():
    """The coverage check the site test applies fails for a font built without θ."""
    page = _math(r"\theta + \omega")
    complete = _font(fonts.subset_font(fonts.math_characters(page)))
    assert missing_characters(complete, page) == set()
    short = _font(fonts.subset_font(fonts.math_characters(page) - {fonts.italic("θ")}))
    assert missing_characters(short, page) == {fonts.italic("θ")}


# --- the built site -----------------------------------------------------------------------

_STYLESHEET = re.compile(r'<link\b[^>]*\brel="stylesheet"[^>]*\bhref="([^"]+)"', re.I)
_FONT_FACE = re.compile(r"@font-face\s*\{([^}]*)\}", re.S)
_FAMILY = re.compile(r"font-family:\s*['\"]([^'\"]+)['\"]")
_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)")
_MATH_RULE = re.compile(r"(?:^|[\s,}])[^{}]*\bmath\b[^{}]*\{[^}]*font-family:\s*['\"]([^'\"]+)")


def math_font_problems(site: Path, page: str) -> list[str]:
    """Why ``page`` would not set its math in the site's math font: no stylesheet with an
    ``@font-face`` whose relative URL leads to :data:`pe_book.fonts.FONT_FILE` and a rule
    giving ``math`` that family."""
    html = site / page
    target = (site / fonts.FONT_FILE).resolve()
    problems, families, math_families = [], set(), set()
    for href in _STYLESHEET.findall(html.read_text(encoding="utf-8")):
        if urlsplit(href).scheme or href.startswith("/"):
            continue
        css_path = (html.parent / urlsplit(href).path).resolve()
        if not css_path.is_file():
            continue
        css = re.sub(r"/\*.*?\*/", "", css_path.read_text(encoding="utf-8"), flags=re.S)
        math_families.update(_MATH_RULE.findall(css))
        for face in _FONT_FACE.findall(css):
            for url in _URL.findall(face):
                parts = urlsplit(url)
                if parts.scheme or parts.netloc or url.startswith("/"):
                    problems.append(f"{page}: {css_path.name} loads {url} by an absolute URL")
                elif (css_path.parent / parts.path).resolve() == target:
                    families.update(_FAMILY.findall(face))
    if not families:
        problems.append(f"{page}: no stylesheet loads {fonts.FONT_FILE} by a relative URL")
    elif not families & math_families:
        problems.append(f"{page}: no rule sets math in {sorted(families)}")
    return problems


@pytest.mark.site
def test_the_site_font_is_a_subset_holding_every_character_of_its_math():
    site = built_site()
    path = site / fonts.FONT_FILE
    assert path.is_file(), f"{fonts.FONT_FILE} is not in the site"
    data = path.read_bytes()
    font = _font(data)
    assert data[:4] == b"wOF2" and "MATH" in font
    assert len(data) <= 80 * 1024, f"the math font weighs {len(data) / 1024:.0f} KB"
    missing, pages = {}, 0
    for page in pages_of(site):
        text = (site / page).read_text(encoding="utf-8")
        if "<math" not in text:
            continue
        pages += 1
        if lost := missing_characters(font, text):
            missing[page] = "".join(sorted(lost))
    assert pages >= 10
    assert not missing, f"characters with no glyph in the math font: {missing}"


@pytest.mark.site
def test_pages_with_math_load_the_font_by_a_relative_url():
    site = built_site()
    pages = [p for p in pages_of(site) if "<math" in (site / p).read_text(encoding="utf-8")]
    problems = [problem for page in pages for problem in math_font_problems(site, page)]
    assert pages and not problems, problems


def test_the_relative_url_check_fails_without_the_font_face(tmp_path):
    (tmp_path / "assets" / "fonts").mkdir(parents=True)
    (tmp_path / fonts.FONT_FILE).write_bytes(b"wOF2")
    (tmp_path / "page.html").write_text('<link rel="stylesheet" href="a.css"><math></math>')

    def problems(css: str) -> list[str]:
        (tmp_path / "a.css").write_text(css)
        return math_font_problems(tmp_path, "page.html")

    face = '@font-face { font-family: "M"; src: url("{}") format("woff2"); }'
    rule = '\n.md-typeset math { font-family: "M", math; }'
    assert problems(face.replace("{}", fonts.FONT_FILE) + rule) == []
    assert problems(face.replace("{}", "/" + fonts.FONT_FILE) + rule)  # absolute
    assert problems(face.replace("{}", "https://example.com/m.woff2") + rule)
    assert problems(face.replace("{}", fonts.FONT_FILE))  # no rule for math
    assert problems(rule)  # no @font-face


# --- in the browser -----------------------------------------------------------------------

_TYPESETTING = """() => {
  const faces = [...document.fonts].filter(f => f.family.replace(/"/g, '') === 'PE Math');
  const math = document.querySelector('article math');
  const table = [...document.querySelectorAll('article math mtable')]
    .find(t => t.parentElement.querySelector(':scope > mo'));
  const paren = table && table.parentElement.querySelector(':scope > mo');
  const nested = [...document.querySelectorAll(
    'article :is(msub, msup) > :not(:first-child) :is(msub, msup) > :not(:first-child)')];
  return {
    status: faces.map(f => f.status),
    family: getComputedStyle(math).fontFamily,
    paren: paren ? paren.getBoundingClientRect().height : 0,
    table: table ? table.getBoundingClientRect().height : 0,
    smallest: Math.min(...nested.map(e => parseFloat(getComputedStyle(e).fontSize))),
  };
}"""


def _after_fonts(page, url: str, script: str):
    """What ``script`` returns on the page at ``url``, once its fonts have loaded."""
    page.goto(url, wait_until="load")
    page.evaluate("document.fonts.ready.then(() => true)")
    return page.evaluate(script)


def typesetting(page, url: str) -> dict:
    return _after_fonts(page, url, _TYPESETTING)


def _measured(browser, measure, url: str):
    """``measure(page, url)`` in a fresh 1280 × 900 browser context."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        return measure(context.new_page(), url)
    finally:
        context.close()


def _page_file(tmp_path, body: str, style: str = "") -> str:
    """The file URL of a page holding ``body`` after a ``<style>`` of ``style``."""
    page = tmp_path / "page.html"
    page.write_text(
        f"<!doctype html><meta charset=utf-8><style>{style}</style><article>{body}</article>",
        encoding="utf-8",
    )
    return page.as_uri()


@pytest.mark.browser
@pytest.mark.parametrize("origin", ["server", "disk"])
def test_math_is_set_in_the_site_font_with_stretched_brackets(browser, site, server, origin):
    """Chapter 11 from a server and from file://: the font loads, the rotation matrix's
    parentheses reach across both its rows, and a script of a script is at least 8pt."""
    base = server if origin == "server" else site.as_uri() + "/"
    seen = _measured(browser, typesetting, base + "modern/rope.html")
    assert seen["status"] == ["loaded"], seen
    assert seen["family"].startswith('"PE Math"'), seen
    assert seen["table"] > 0 and seen["paren"] >= 0.9 * seen["table"], seen
    assert seen["smallest"] >= 8 * 96 / 72 - 0.01, seen


@pytest.mark.browser
def test_the_typesetting_checks_fail_without_the_font_and_its_style(browser, tmp_path):
    """The same measures on math set in a font with no MATH table and without the
    site's style: the parentheses stay one line high, a script of a script is below 8pt."""
    body = _math(r"R = \begin{pmatrix} a & b \\ c & d \end{pmatrix}", display=True) + _math(
        r"\omega_i = 10000^{-2i/d_{\text{model}}}", display=True
    )
    url = _page_file(tmp_path, body, "math { font-family: sans-serif; }")
    seen = _measured(browser, typesetting, url)
    assert seen["status"] == [] and seen["table"] > 0, seen
    assert seen["paren"] < 0.9 * seen["table"], seen
    assert seen["smallest"] < 8 * 96 / 72, seen


_ROOT_GAPS = """() => [...document.querySelectorAll('article :is(msqrt, mroot)')].map(root => {
  const content = root.firstElementChild.getBoundingClientRect();
  const size = parseFloat(getComputedStyle(root).fontSize);
  return (root.getBoundingClientRect().right - content.right) / size;
})"""


def root_gaps(page, url: str) -> list[float]:
    """The empty space after the content of every root on the page, in em."""
    return _after_fonts(page, url, _ROOT_GAPS)


@pytest.mark.browser
def test_a_root_ends_where_its_content_ends(browser, server):
    """Chapter 8's roots (√d_model in prose and displays) leave no space after them."""
    gaps = _measured(browser, root_gaps, server + "model/layer.html")
    assert len(gaps) >= 5 and max(gaps) < 0.05, gaps


@pytest.mark.browser
def test_the_root_check_fails_with_every_size_of_the_sign(browser, tmp_path):
    """With the root sign's larger sizes kept, Chromium leaves about 0.4 em after a root."""
    page_html = _math(r"\sqrt{d_{\text{model}}} + \sqrt{2}")
    chars = fonts.math_characters(page_html)
    (tmp_path / "m.woff2").write_bytes(fonts.subset_font(chars, one_size=()))
    style = '@font-face { font-family: "M"; src: url("m.woff2") format("woff2"); } '
    url = _page_file(tmp_path, page_html, style + 'math { font-family: "M"; }')
    gaps = _measured(browser, root_gaps, url)
    assert len(gaps) == 2 and min(gaps) > 0.3, gaps


_ALIGNMENT = """() => [...document.querySelectorAll('article mtable')].flatMap(table => {
  const edges = [...table.querySelectorAll(':scope > mtr')].map(row => {
    const cell = row.querySelector(':scope > mtd');
    const kids = [...cell.children].filter(k => k.getBoundingClientRect().width > 0);
    if (!kids.length || cell.getAttribute('columnalign') !== 'right') return null;
    return Math.max(...kids.map(k => k.getBoundingClientRect().right));
  }).filter(x => x !== null);
  return edges.length > 1 ? [Math.max(...edges) - Math.min(...edges)] : [];
})"""


def right_column_spread(page, url: str) -> list[float]:
    """For every aligned display of the page, how far apart (px) the right ends of its
    first column's cells are: 0 when the left-hand sides end together, as TeX sets them."""
    return _after_fonts(page, url, _ALIGNMENT)


@pytest.mark.browser
def test_the_left_hand_sides_of_an_aligned_display_end_together(browser, server):
    """Chapter 11's bound: S_j ends under the end of |Σ h_i …|, not at the left."""
    spreads = _measured(browser, right_column_spread, server + "modern/rope.html")
    assert spreads and max(spreads) < 1, spreads


@pytest.mark.browser
def test_the_alignment_check_fails_with_a_plain_text_align(browser, tmp_path):
    """With "text-align: right" alone Chromium sets the short left-hand side at the left."""
    split = _math(r"\begin{split} \sum_i h_i &\le x \\ S_j &= y \end{split}", display=True)
    url = _page_file(tmp_path, split, 'mtd[columnalign="right"] { text-align: right; }')
    spreads = _measured(browser, right_column_spread, url)
    assert spreads and spreads[0] > 5, spreads
