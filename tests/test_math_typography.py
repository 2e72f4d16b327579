"""How formulas are set (pe_book.pages.mathml.render_math): names upright, matrices fenced.

A name written as letters (``pos``, ``PE``, ``d_{model}``) becomes one upright
identifier instead of a product of italic letters (θ_i = pos·ω_i must not read as
p·o·s); the parentheses of a matrix stretch to its rows. The scans read the MathML
of every page, from the sources (quick) and from the built site (``site``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from browser_support import built_site, pages_of

from pe_book.pages import BookError, mathml
from pe_book.pages.mathml import NAMES, render_math

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: Elements whose children are positional (base, script, numerator …), never a run.
POSITIONAL = {"msub", "msup", "msubsup", "munder", "mover", "munderover", "mfrac", "mroot"}
_MATH = re.compile(r"<math\b.*?</math>", re.S)


def _tag(element) -> str:
    return element.tag.rpartition("}")[2]


def italic_runs(page_html: str) -> list[str]:
    """The letters of every run of two or more sibling single-character ``<mi>`` set in
    italic (no ``mathvariant="normal"``): what a reader sees as a product."""
    runs: list[str] = []

    def walk(element) -> None:
        if _tag(element) not in POSITIONAL:
            run: list[str] = []
            for child in [*element, None]:
                text = (child.text or "").strip() if child is not None else ""
                if (
                    child is not None
                    and _tag(child) == "mi"
                    and len(text) == 1
                    and child.get("mathvariant") != "normal"
                ):
                    run.append(text)
                    continue
                if len(run) >= 2:
                    runs.append("".join(run))
                run = []
        for child in element:
            walk(child)

    for math in _MATH.findall(page_html):
        walk(ET.fromstring(math))
    return runs


def named_runs(page_html: str) -> list[str]:
    """Runs of italic letters that spell one of the book's names (:data:`NAMES`)."""
    return [run for run in italic_runs(page_html) if any(name in run for name in NAMES)]


def _math(latex: str, display: bool = False) -> str:
    tag, (open_, close) = ("div", ("\\[", "\\]")) if display else ("span", ("\\(", "\\)"))
    return render_math(f'<{tag} class="arithmatex">{open_}{latex}{close}</{tag}>', "a.md")


# --- the rule -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("latex", "names"),
    [
        (r"\theta_i = pos \cdot \omega_i", ["pos"]),
        (r"\|PE(pos)\|^2", ["PE", "pos"]),
        (r"\omega_i = 1/10000^{2i/d_{model}}", ["model"]),
        (r"\mathrm{LN}(x) + \mathrm{pos}", ["LN", "pos"]),
    ],
)
def test_a_name_is_one_upright_identifier(latex, names):
    out = _math(latex)
    for name in names:
        assert f"<mi>{name}</mi>" in out, out
    assert named_runs(out) == [] and italic_runs(out) == []


@pytest.mark.parametrize(
    "latex", [r"e^{\mathrm{i}\theta}", r"z = x + \mathrm{i}\,y", r"\mathrm{d}x"]
)
def test_one_upright_letter_stays_upright(latex):
    # latex2mathml writes \mathrm{i} as <mi>&#x00069;</mi>, which a browser sets in italic
    out = _math(latex)
    letter = latex.split(r"\mathrm{")[1][0]
    assert f'<mi mathvariant="normal">{letter}</mi>' in out, out
    assert "<mi>&#x000" not in out.replace("<mi>&#x003", ""), out


@pytest.mark.parametrize(
    ("latex", "runs"),
    [
        (r"a_{ij} + m\omega", ["ij", "mω"]),  # indices and products stay italic
        (r"P_E + p^{os}", ["os"]),  # a base and its script are no run; a script's letters are
        (r"[e; PE]", ["e;"]),  # punctuation ends a name's run
        (r"xpos", ["xpos"]),  # not a name as a whole: left alone, and the scan reports it
    ],
)
def test_products_indices_and_scripts_are_left_alone(latex, runs):
    assert sorted(italic_runs(_math(latex))) == sorted(runs)
    assert named_runs(_math(latex)) == [run for run in runs if run == "xpos"]


def test_the_scan_reports_a_name_set_as_a_product(monkeypatch):
    monkeypatch.setattr(mathml, "_upright_names", lambda mathml: mathml)
    assert named_runs(_math(r"\theta_i = pos \cdot \omega_i + \|PE\|")) == ["pos", "PE"]
    assert named_runs(_math(r"d_{model}")) == ["model"]


def test_matrix_parentheses_are_grouped_with_the_matrix_and_stretch():
    out = _math(r"R = \begin{pmatrix} a & b \\ c & d \end{pmatrix} + x", display=True)
    flat = out.replace("\n", "")
    fenced = re.search(r"<mrow><mo ([^>]*)>&#x00028;</mo><mtable>.*?</mtable><mo ([^>]*)>", flat)
    assert fenced, flat
    assert 'stretchy="true"' in fenced.group(1) and 'stretchy="true"' in fenced.group(2)
    bracket = _math(r"\begin{bmatrix} 1 \\ 2 \end{bmatrix}").replace("\n", "")
    assert re.search(r'<mo stretchy="true"[^>]*>\[</mo><mtable>', bracket), bracket


# --- every page ---------------------------------------------------------------------------

_FENCED = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$")
_SHORTCODE = re.compile(r"\{\{.*?\}\}")


def source_math(text: str) -> list[tuple[str, bool]]:
    """The formulas of a page's Markdown (or of a notebook's markdown cells): (LaTeX,
    display) pairs, code left out and shortcodes replaced by a number."""
    text = _INLINE_CODE.sub("", _FENCED.sub("", text))
    found = [(m.group(1), True) for m in _DISPLAY.finditer(text)]
    found += [(m.group(1), False) for m in _INLINE.finditer(_DISPLAY.sub("", text))]
    return [(_SHORTCODE.sub("1", latex).strip(), display) for latex, display in found]


def test_no_page_source_sets_a_name_as_a_product_of_letters():
    sources = sorted(DOCS.rglob("*.md")) + sorted((DOCS / "notebooks").glob("*.py"))
    found, formulas = {}, 0
    for path in sources:
        for latex, display in source_math(path.read_text(encoding="utf-8")):
            formulas += 1
            if runs := named_runs(_math(latex, display)):
                found.setdefault(path.relative_to(DOCS).as_posix(), []).append((latex, runs))
    assert formulas > 200
    assert not found, f"{found}: write a name as \\mathrm{{name}} or \\text{{name}}"


@pytest.mark.site
def test_no_built_page_sets_a_name_as_a_product_of_letters():
    site = built_site()
    found = {}
    for page in pages_of(site):
        if runs := named_runs((site / page).read_text(encoding="utf-8")):
            found[page] = sorted(set(runs))
    assert not found, f"names set as products of italic letters: {found}"


# --- function names -------------------------------------------------------------------

THIN = '<mspace width="0.1667em"></mspace>'


@pytest.mark.parametrize(
    ("latex", "expected"),
    [  # TeX's spacing: thin around a function, none before an opening parenthesis
        (r"0.1\ln s", f"<mn>0.1</mn>{THIN}<mi>ln</mi><mo>&#x02061;</mo>{THIN}<mi>s</mi>"),
        (r"\sin\omega_i", f"<mi>sin</mi><mo>&#x02061;</mo>{THIN}<msub>"),
        (r"= \max(1", '<mi>max</mi><mo>&#x02061;</mo><mo stretchy="false">&#x00028;</mo>'),
    ],
)
def test_a_function_name_is_spaced_as_tex_spaces_it(latex, expected):
    assert expected in _math(latex).replace("\n", "")


@pytest.mark.parametrize(
    ("latex", "expected"),
    [  # a name with no argument after it: no application, no space before the comma
        (r"(\sin, \cos)", "<mi>sin</mi><mo>&#x0002C;</mo><mi>cos</mi><mo"),
        (r"\sin^2 + \cos^2 = 1", "</msup><mo>&#x0002B;</mo><msup>"),
    ],
)
def test_a_function_name_without_an_argument_stands_alone(latex, expected):
    assert expected in _math(latex).replace("\n", "")


def test_a_function_name_as_a_script_keeps_its_place():
    """A script element takes exactly its base and scripts: nothing may be added."""
    out = _math(r"\lambda_{\max} = 2").replace("\n", "")
    assert "mspace" not in out and "&#x02061;" not in out, out


@pytest.mark.parametrize("latex", [r"4\sin^2 x", r"x\log_2 y"])
def test_a_function_with_a_script_is_spaced_as_a_whole(latex):
    out = _math(latex).replace("\n", "")
    assert f"{THIN}<msu" in out and "</msub><mo>&#x02061;</mo>" in out.replace("msup", "msub")


def test_norm_bars_never_stretch():
    """latex2mathml lets an opening bar stretch, so it outgrew its partner in a script."""
    out = _math(r"\lVert PE \rVert^2 + \Vert x \Vert").replace("\n", "")
    assert out.count('<mo stretchy="false">&#x02016;</mo>') == 4, out


def test_without_the_spacing_a_log_reads_as_a_product(monkeypatch):
    monkeypatch.setattr(mathml, "_function_spacing", lambda mathml: mathml)
    assert "<mi>ln</mi>\n<mi>s</mi>" in _math(r"0.1\ln s")


def test_absolute_value_bars_are_fences_and_a_lone_bar_is_not():
    out = _math(r"-m_h \cdot |m - n| + |x|").replace("\n", "")
    assert out.count('<mo form="prefix" stretchy="false">&#x0007C;</mo>') == 2, out
    assert out.count('<mo form="postfix" stretchy="false">&#x0007C;</mo>') == 2, out
    assert 'form="prefix" stretchy="false">&#x0007C;</mo><mi>m</mi>' in out
    assert "form=" not in _math(r"p(a | b)").replace('form="prefix"', "")


def test_an_overline_uses_the_character_the_font_stretches():
    """U+2015 has no horizontal sizes in STIX Two Math: the bar covered one letter."""
    out = _math(r"\overline{z_k e^{in\omega}}").replace("\n", "")
    assert '<mo accent="true">&#x0203E;</mo></mover>' in out and "&#x02015;" not in out


def test_an_ellipsis_is_an_ordinary_symbol_between_its_commas():
    out = _math(r"h = 1, \dots, n").replace("\n", "")
    assert "<mo>&#x0002C;</mo><mi>&#x02026;</mi><mo>&#x0002C;</mo>" in out, out
    assert '<mo form="prefix">&#x02212;</mo><mi>&#x0221E;</mi>' in _math(r"-\infty").replace(
        "\n", ""
    )


def test_an_empty_group_makes_a_leading_sign_binary():
    """TeX's ``& {} + c`` continues a sum on a new line with a binary plus."""
    rows = r"\begin{split} a &= b \\ & {} + c \\ & + d \end{split}"
    out = _math(rows, display=True).replace("\n", "")
    assert "<mrow /><mo>&#x0002B;</mo><mi>c</mi>" in out, out
    assert '<mo form="prefix">&#x0002B;</mo><mi>d</mi>' in out, out


def test_an_operator_name_latex2mathml_breaks_fails_the_build():
    with pytest.raises(BookError, match="empty operator"):
        _math(r"\operatorname{atan2}(y, x)")
    # a name without a digit renders, and is applied to its argument as TeX sets it
    clip = _math(r"\operatorname{clip}(x)").replace("\n", "")
    assert "<mi>clip</mi><mo>&#x02061;</mo><mo" in clip, clip


def test_the_book_s_operator_names_are_spaced_as_functions():
    """softmax, diag, bucket: no wide operator spacing ("= softmax (s)") before or after."""
    out = _math(r"\operatorname{softmax}(s) = \operatorname{diag}(R)").replace("\n", "")
    assert "<mo>softmax</mo>" not in out and "<mo>diag</mo>" not in out, out
    assert out.count("&#x02061;") == 2, out


def test_a_horizontal_brace_fails_the_build():
    """Chromium stretches U+23DF over less than its terms and draws its joints as gaps."""
    for tex in (r"\underbrace{a + b}_{x}", r"\overbrace{a + b}^{x}"):
        with pytest.raises(BookError, match="horizontal brace"):
            _math(tex, display=True)


def test_an_alignment_mark_outside_split_fails_the_build():
    """latex2mathml reads \\begin{aligned} as text and prints its & marks."""
    with pytest.raises(BookError, match="outside split"):
        _math(r"\begin{aligned} a &= b \\ &= c \end{aligned}", display=True)
    assert "<mtable" in _math(r"\begin{split} a &= b \\ &= c \end{split}", display=True)


@pytest.mark.parametrize(
    ("latex", "expected"),
    [  # ordinary symbols in TeX, no operator space around them; a prime at full size
        (r"K^{c\top}", "<mi>c</mi><mi>&#x022A4;</mi>"),
        (r"d_k/2", '<mo lspace="0" rspace="0">&#x0002F;</mo>'),
        (r"x = \big(a\big).", '<mo lspace="0" rspace="0">&#x0002E;</mo>'),
        (r"\text{base}' = 2", '<mtext>base</mtext><mo lspace="0" rspace="0">&#x02032;</mo>'),
    ],
)
def test_transpose_slash_and_prime_are_set_as_tex_sets_them(latex, expected):
    assert expected in _math(latex).replace("\n", "")
