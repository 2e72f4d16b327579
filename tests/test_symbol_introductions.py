"""The chapter the glossary names for a symbol introduces it: that chapter's page uses the
symbol, no earlier chapter does (unless listed below, with the reason), and the glossary's
entry says so.

A page *uses* a symbol when a formula of its prose holds one of the symbol's TeX forms as
a symbol of its own (not inside a longer name, not as a subscript: the ``i`` of
``\\omega_i`` is not the pair index's own use), or when the page links to the symbol's
glossary entry. A symbol written in words only (``layout``) is used where the page names
it in code.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_book.notation import SYMBOLS, Symbol
from pe_book.pages.shortcodes import outside_fences
from pe_book.text import CHAPTER

DOCS = Path(__file__).resolve().parent.parent / "docs"
GLOSSARY = DOCS / "appendix" / "glossary.md"

#: Chapters that write a symbol's letters before the chapter that introduces it:
#: ``"other"`` where the letters mean something else there (the glossary's entry must then
#: link to that chapter, so a reader is warned), ``"preview"`` where the chapter names the
#: symbol in passing before the introducing chapter defines it.
EARLIER_USES: dict[tuple[str, str], str] = {
    ("i", "foundations/order-problem.md"): "other",  # the rows of the input, x_i
    ("omega", "foundations/simpler-schemes.md"): "preview",  # "a pair of frequency ω_i"
    ("m-n", "model/where-position-enters.md"): "preview",  # QK-norm and RoPE's m − n
    ("m-n", "model/learned.md"): "preview",  # RoPE's scores depend on m − n only
    ("scale", "foundations/properties.md"): "other",  # a second offset, D_k(pos + s)
    ("scale", "modern/alibi.md"): "other",  # a row of scores, softmax(s + c)
}

_MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$]+)\$", re.S)


def chapters(docs: Path = DOCS) -> dict[int, str]:
    """The numbered chapters, by number: their paths under ``docs``."""
    found = {}
    for page in docs.rglob("*.md"):
        title = CHAPTER.search(page.read_text(encoding="utf-8"))
        if title is not None and "overrides" not in page.parts:
            found[int(title.group(1))] = page.relative_to(docs).as_posix()
    return found


def _prose(text: str) -> str:
    lines = text.splitlines()
    return "\n".join(line for line, out in zip(lines, outside_fences(lines), strict=True) if out)


def _tex_pattern(tex: str) -> re.Pattern:
    """``tex`` as a symbol of its own inside a formula: not part of a longer name or
    command, not a subscript or superscript, not the argument of ``\\mathrm{…}`` (the
    upright imaginary unit); a one-letter symbol not followed by a superscript either
    (the ``e`` of ``e^{\\mathrm{i}\\theta}``)."""
    after = r"(?![A-Za-z0-9^])" if len(tex) == 1 else r"(?![A-Za-z])"
    return re.compile(
        r"(?<![A-Za-z\\_^])(?<!_\{)(?<!\^\{)(?<!\\mathrm\{)(?<!\\text\{)(?<!\\operatorname\{)"
        + re.escape(tex)
        + after
    )


def uses(text: str, symbol: Symbol) -> bool:
    """Whether a page's ``text`` uses ``symbol`` (see the module's docstring).

    >>> uses("Pair $i$ turns at $\\\\omega_i$.", SYMBOLS["i"])
    True
    >>> uses("The frequency $\\\\omega_i$ and $\\\\mathrm{i}^2 = -1$.", SYMBOLS["i"])
    False
    >>> uses("$e^{\\\\mathrm{i}\\\\theta}$", SYMBOLS["embedding"])
    False
    """
    prose = _prose(text)
    anchors = "|".join(re.escape(a) for a in (symbol.anchor, *symbol.anchors))
    if re.search(rf"glossary\.md#(?:{anchors})\)", prose):
        return True
    if not symbol.math:  # a symbol in words: named in code, in the prose or an example
        return any(re.search(rf"`{re.escape(c)}\b|\b{re.escape(c)}=", text) for c in symbol.code)
    formulas = [m.group(1) or m.group(2) for m in _MATH.finditer(prose)]
    patterns = [_tex_pattern(tex) for tex in symbol.math]
    return any(p.search(formula) for p in patterns for formula in formulas)


def introduction_problems(
    symbols: dict[str, Symbol], earlier_uses: dict[tuple[str, str], str], docs: Path = DOCS
) -> list[str]:
    """What is wrong with the chapters ``symbols`` name as introducing them."""
    numbered = chapters(docs)
    number_of = {page: n for n, page in numbered.items()}
    texts = {page: (docs / page).read_text(encoding="utf-8") for page in numbered.values()}
    problems = []
    for s in symbols.values():
        intro = number_of.get(s.page)
        if intro is None:
            problems.append(f"{s.anchor}: {s.page} is not a numbered chapter")
            continue
        if not uses(texts[s.page], s):
            problems.append(f"{s.anchor}: chapter {intro} ({s.page}) never uses it")
        for n in sorted(k for k in numbered if k < intro):
            page = numbered[n]
            if uses(texts[page], s) and (s.anchor, page) not in earlier_uses:
                problems.append(
                    f"{s.anchor}: chapter {n} ({page}) uses it before chapter {intro}, which "
                    "the glossary says introduces it"
                )
    for (anchor, page), why in earlier_uses.items():
        s = symbols.get(anchor)
        if s is None or page not in number_of or s.page not in number_of:
            problems.append(f"EARLIER_USES names {anchor!r} in {page!r}: no such symbol or page")
        elif number_of[page] >= number_of[s.page] or not uses(texts[page], s):
            problems.append(f"EARLIER_USES: {page} has no earlier use of {anchor!r} any more")
        elif why not in ("other", "preview"):
            problems.append(f"EARLIER_USES: {anchor!r} in {page}: {why!r} is not a reason")
    return problems


def glossary_entries(markdown: str) -> dict[str, str]:
    """Each entry of the glossary, by anchor: its text up to the next entry or heading."""
    parts = re.split(r"^\{\{ symbol: (\S+) \}\}$", markdown, flags=re.M)
    return {
        anchor: re.split(r"^#", body, flags=re.M)[0]
        for anchor, body in zip(parts[1::2], parts[2::2], strict=True)
    }


def test_every_symbol_is_introduced_where_the_glossary_says():
    problems = introduction_problems(SYMBOLS, EARLIER_USES)
    assert problems == [], (
        f"{problems}: introduce the symbol (say what it is) on the page SYMBOLS names, or "
        'list an earlier use in EARLIER_USES ("other" or "preview")'
    )


def test_the_check_fails_on_a_wrong_introducing_chapter():
    """The glossary once said chapter 1 introduces q_m and k_n, and chapter 3 the vector
    of a position that chapter 1 already adds to its rows."""
    wrong = dict(SYMBOLS)
    wrong["q-k"] = Symbol("q-k", "query and key", "foundations/order-problem.md", ("q_m", "k_n"))
    wrong["pe"] = Symbol("pe", "position vector", "foundations/sinusoidal.md", ("PE(pos)", "p"))
    problems = introduction_problems(wrong, EARLIER_USES)
    assert any(p.startswith("q-k: chapter 1 ") and "never uses it" in p for p in problems)
    assert any(p.startswith("pe: chapter 1 ") and "before chapter 3" in p for p in problems)
    stale = {**EARLIER_USES, ("d_model", "foundations/simpler-schemes.md"): "preview"}
    assert any("no earlier use of 'd_model'" in p for p in introduction_problems(SYMBOLS, stale))


def glossary_disagreements(markdown: str, symbols: dict[str, Symbol]) -> dict[str, str]:
    """The entries of a glossary whose "Introduced in … [chapter N](…)" names another page
    than ``symbols`` do (the page Table A.1 links), or names none."""
    wrong = {}
    for anchor, entry in glossary_entries(markdown).items():
        said = re.search(r"Introduced in[^.;]*?\[chapter \d+\]\(\.\./([^)#]+)\)", entry)
        if said is None or said.group(1) != symbols[anchor].page:
            wrong[anchor] = said.group(1) if said else "no 'Introduced in [chapter N](…)'"
    return wrong


def test_the_glossary_names_the_introducing_chapter_of_every_entry():
    """Each entry says where its symbol is introduced with the link that Table A.1,
    written from SYMBOLS, gives: the two cannot disagree."""
    markdown = GLOSSARY.read_text(encoding="utf-8")
    assert list(glossary_entries(markdown)) == list(SYMBOLS)
    assert glossary_disagreements(markdown, SYMBOLS) == {}


def test_the_glossary_check_sees_an_entry_naming_another_chapter():
    old = (
        "{{ symbol: q-k }}\n:   The query vector. Introduced in\n"
        "    [chapter 1](../foundations/order-problem.md) and [chapter 8](../model/x.md).\n"
    )
    assert glossary_disagreements(old, SYMBOLS) == {"q-k": "foundations/order-problem.md"}


@pytest.mark.parametrize(("anchor", "page"), [k for k, v in EARLIER_USES.items() if v == "other"])
def test_the_glossary_warns_where_a_letter_means_something_else(anchor, page):
    entry = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))[anchor]
    assert "The letter changes" in entry and f"](../{page})" in entry
