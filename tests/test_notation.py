"""One notation: the glossary, the pages, the notebooks and the figures write each symbol
as :data:`pe_book.notation.SYMBOLS` does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_book.chapters.glossary import chapter_number
from pe_book.notation import DM, SYMBOLS, glossary_term, tex
from pe_book.pages.shortcodes import expand_shortcodes, outside_fences

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
GLOSSARY = DOCS / "appendix" / "glossary.md"

#: Where formulas are written: the pages, the notebooks, and the chapter modules (captions,
#: figure labels). pe_book/notation.py names the spellings to avoid, so it is left out.
SOURCES = sorted(
    [*DOCS.rglob("*.md"), *(DOCS / "notebooks").glob("*.py"), *(ROOT / "pe_book").rglob("*.py")]
)
SOURCES = [p for p in SOURCES if p.name != "notation.py"]


def avoided_spellings(text: str) -> list[tuple[str, str]]:
    """(symbol, spelling) for every spelling ``text`` uses that its symbol's entry avoids."""
    return [(s.anchor, bad) for s in SYMBOLS.values() for bad in s.avoid if bad in text]


def test_every_source_writes_symbols_as_the_glossary_does():
    found = {
        str(p.relative_to(ROOT)): hits
        for p in SOURCES
        if (hits := avoided_spellings(p.read_text(encoding="utf-8")))
    }
    assert not found, (
        f"spellings the glossary's symbols avoid: {found}; write the spelling "
        "pe_book.notation.SYMBOLS gives (or {{ symbol: NAME }})"
    )


@pytest.mark.parametrize(
    "text",
    [
        r"$\omega_i = \text{base}^{-2i/\text{head_dim}}$",
        r"$PE[0 : \text{seq_len}]$",
        r"$\sqrt{d_{\mathrm{model}}}$",
    ],
)
def test_the_check_finds_a_spelling_to_avoid(text):
    assert avoided_spellings(text)


def test_the_glossary_has_one_entry_per_symbol_in_order():
    markdown = GLOSSARY.read_text(encoding="utf-8")
    assert re.findall(r"^\{\{ symbol: (\S+) \}\}$", markdown, re.M) == list(SYMBOLS)
    assert "{{ table: glossary.symbols }}" in markdown
    assert not re.search(r"^<span id=", markdown, re.M), "a hand-written glossary term"


def test_glossary_terms_carry_every_anchor_math_and_name():
    for s in SYMBOLS.values():
        term = glossary_term(s.anchor)
        for anchor in (s.anchor, *s.anchors):
            assert f'<span id="{anchor}"></span>' in term
        assert all(f"${m}$" in term for m in s.math)
        assert all(f"`{c}`" in term for c in s.code)
    with pytest.raises(KeyError, match="unknown symbol"):
        glossary_term("nope")


def test_the_shortcode_writes_the_term():
    out = expand_shortcodes("{{ symbol: omega }}\n", "appendix/glossary.md", {})
    assert out == glossary_term("omega") + "\n"


def test_every_link_into_the_glossary_names_an_entry():
    anchors = {a for s in SYMBOLS.values() for a in (s.anchor, *s.anchors)}
    links = {
        (str(p.relative_to(ROOT)), a)
        for p in SOURCES
        for a in re.findall(r"glossary\.md#([\w-]+)", p.read_text(encoding="utf-8"))
    }
    assert links, "no links into the glossary found"
    broken = {link for link in links if link[1] not in anchors}
    assert not broken, f"{broken}: link to an anchor of pe_book.notation.SYMBOLS"


def test_every_symbol_names_the_chapter_that_introduces_it():
    for s in SYMBOLS.values():
        assert (DOCS / s.page).is_file(), s.page
        assert chapter_number(s.page).isdigit()
        assert s.math or s.code, s.anchor


def test_captions_and_figures_set_the_model_width_as_the_glossary():
    assert DM == SYMBOLS["d_model"].math[0]
    assert tex("d_model") == DM
    assert tex("√d_model") == rf"\sqrt{{{DM}}}"


def prose_lines():
    """``(page, line)`` for every line of every page outside its code fences."""
    for page in sorted(DOCS.rglob("*.md")):
        lines = page.read_text(encoding="utf-8").splitlines()
        for line, outside in zip(lines, outside_fences(lines), strict=True):
            if outside:
                yield page.relative_to(DOCS), line


def test_headings_name_no_symbol_in_plain_text():
    """Headings are plain text (they feed the contents and the anchors): they say in words
    what the prose sets as math, never ``√d_model`` or ``ω_i`` typed out."""
    plain = re.compile(r"√|\bd_model\b|\bhead_dim\b|[ωθλζ]_\w|\^\(")
    found = [
        f"{page}: {line}"
        for page, line in prose_lines()
        if line.startswith("#") and plain.search(line)
    ]
    assert not found, f"{found}: say the symbol in words in a heading"


#: Names of symbols as code spells them; in prose they are code (backticks) or math.
_CODE_NAME = re.compile(r"\b(?:seq_len|d_model|num_heads|head_dim|max_len)\b")


def bare_code_names(line: str) -> list[str]:
    """The symbol names of ``line`` written neither as code, nor as math, nor inside a
    shortcode, a link target or an anchor.

    >>> bare_code_names("a (seq_len, d_model) table, `max_len` rows, $d_k$ wide")
    ['seq_len', 'd_model']
    """
    for pattern in (r"`[^`]*`", r"\$[^$]*\$", r"\{\{[^}]*\}\}", r"\]\([^)]*\)", r"#[\w-]+"):
        line = re.sub(pattern, " ", line)
    return _CODE_NAME.findall(line)


def test_prose_writes_no_symbol_as_a_bare_code_name():
    """Chapter 7 once gave a shape as "(seq_len, d_model)" in plain text: a reader sees
    neither the code nor the book's symbols. Shapes are math, $(L, d_{\\text{model}})$."""
    found = [
        f"{page}: {line.strip()}"
        for page, line in prose_lines()
        if not line.lstrip().startswith(">>>") and bare_code_names(line)
    ]
    assert not found, f"{found}: write the name as `code` or as math, $(L, d_{{\\text{{model}}}})$"


def test_the_bare_name_check_sees_chapter_7s_old_shape():
    assert bare_code_names("The table has shape (seq_len, d_model) and") == ["seq_len", "d_model"]
