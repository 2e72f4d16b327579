"""A letter of the glossary that a chapter reuses for something else is listed there.

The glossary gives $h$, $L$, $k$, $i$, $e$, $p$ and $s$ one meaning each. A chapter
after the one that introduces such a letter may write it in that meaning, or in another
one, which the glossary's entry must then name (a reader is warned). Whether a formula
means the glossary's $L$ or a threshold that its paper also calls $L$ is beyond a
program; what a program can see is *which chapters write the letter at all*, so every
one of them is listed in :data:`LATER_USES` with what the letter stands for there, and a
chapter that starts writing one of these letters fails until someone has decided.
(Chapters before the introducing one are held by ``tests/test_symbol_introductions.py``.)

A letter reused as the index of a sum or a product (CoPE's ``\\sum_{k=j}^{i}``, once, in
chapter 10) is a reuse wherever it happens: only the glossary's index, $i$, may be one.

Chapter 10 once wrote KERPLE's head as $h$, CoPE's sum over $k$ and its table of
position vectors as $e[\\cdot]$, three letters of the glossary with other meanings, none
listed; each check here fails on that text (:func:`test_the_checks_see_chapter_10s_old_letters`).
Its FIRE threshold $L$ is what a check by chapter cannot see: chapter 10 writes $L$ for
the sequence length too.
"""

from __future__ import annotations

import re

import pytest
from test_symbol_introductions import (
    _MATH,
    DOCS,
    GLOSSARY,
    _prose,
    _tex_pattern,
    chapters,
    glossary_entries,
)

from pe_book.notation import SYMBOLS

#: The symbols written as one letter, by anchor: the letter.
LETTERS = {s.anchor: m for s in SYMBOLS.values() for m in s.math if len(m) == 1}

#: Chapters after the introducing one whose formulas write a symbol's letter, by chapter
#: number: ``"same"`` where it keeps the glossary's meaning, ``"other"`` where it stands
#: for something else (the glossary's entry must link that chapter), or the anchor of the
#: symbol it belongs to there (the ``k`` of a key vector: ``q-k``; the entry must link it).
LATER_USES: dict[str, dict[int, str]] = {
    "num_heads": {11: "other", 12: "other", 13: "other"},  # h_i; a head's index
    "seq_len": {
        **dict.fromkeys((2, 7, 8, 9, 10, 12, 13), "same"),
        **dict.fromkeys((15, 21, 25, 26), "other"),  # the context trained on
    },
    "k": {
        **dict.fromkeys((4, 6, 18), "same"),
        10: "other",  # Shaw's clipping distance (and CoPE's key k_j)
        11: "other",  # a key vector, before its rotation
        **dict.fromkeys((8, 12, 13, 17, 20, 23, 24, 27), "q-k"),
    },
    "i": {
        **dict.fromkeys((4, 6, 11, 15, 16, 18, 19, 20, 27), "same"),
        **dict.fromkeys((8, 10, 12, 13, 14), "other"),  # the query's position
    },
    "embedding": {7: "same"},
    "pe": {5: "same", 10: "other", 25: "other"},  # CoPE's p_ij; a cache cell's position
    "scale": {
        **dict.fromkeys((23, 26), "same"),
        **dict.fromkeys((18, 21, 24, 25), "other"),  # offsets, seconds, leaky ReRoPE
    },
}

#: The one letter of the glossary that is an index, and so may index a sum.
INDEX_LETTERS = {"i"}

_BOUND = re.compile(r"\\(?:sum|prod)_\{?\s*([A-Za-z])(?![A-Za-z])")


def _longer_forms() -> re.Pattern:
    """The symbols' forms of more than one character, longest first: removed from a
    formula before its letters are read, so that the ``L`` of ``L_{\\max}`` or the ``k``
    of ``k_n`` counts for its own symbol, not for ``L`` or ``k``."""
    forms = sorted({m for s in SYMBOLS.values() for m in s.math if len(m) > 1}, key=len)
    return re.compile("|".join(re.escape(f) for f in reversed(forms)))


def formulas(text: str) -> list[str]:
    """The formulas of a page's prose, without the symbols' longer forms."""
    longer = _longer_forms()
    return [longer.sub(" ", m.group(1) or m.group(2)) for m in _MATH.finditer(_prose(text))]


def writes(text: str, letter: str) -> bool:
    """Whether a page's formulas write ``letter`` as a symbol of its own.

    >>> writes("keys $k_j$ and $d_k$", "k"), writes("$L_{\\\\max}$ rows", "L")
    (True, False)
    """
    pattern = _tex_pattern(letter)
    return any(pattern.search(f) for f in formulas(text))


def bound_letters(text: str) -> set[str]:
    """The letters a page's formulas sum or multiply over.

    >>> sorted(bound_letters("$p_{ij} = \\\\sum_{k=j}^{i} g_{ik}$ and $\\\\sum_{pos} x$"))
    ['k']
    """
    return {m.group(1) for f in formulas(text) for m in _BOUND.finditer(f)}


def letter_problems(texts: dict[int, str], later_uses: dict[str, dict[int, str]]) -> list[str]:
    """What is wrong with the chapters ``texts`` (by number) against ``later_uses``."""
    number_of = {page: n for n, page in chapters().items()}
    problems = []
    for anchor, letter in LETTERS.items():
        intro = number_of[SYMBOLS[anchor].page]
        listed = later_uses.get(anchor, {})
        for n, text in sorted(texts.items()):
            if n <= intro:
                continue
            if writes(text, letter) and n not in listed:
                problems.append(
                    f"chapter {n} writes ${letter}$ ({anchor}): list it in LATER_USES, and in "
                    "the glossary's entry if it means something else there"
                )
            if n in listed and not writes(text, letter):
                problems.append(f"LATER_USES: chapter {n} no longer writes ${letter}$ ({anchor})")
    reusable = set(LETTERS.values()) - INDEX_LETTERS
    for n, text in sorted(texts.items()):
        for letter in sorted(bound_letters(text) & reusable):
            problems.append(f"chapter {n} sums over ${letter}$, a letter of the glossary")
    return problems


def _texts() -> dict[int, str]:
    return {n: (DOCS / page).read_text(encoding="utf-8") for n, page in chapters().items()}


def test_every_chapter_that_writes_a_glossary_letter_is_listed():
    problems = letter_problems(_texts(), LATER_USES)
    assert problems == [], (
        f'{problems}: list the chapter\'s use of the letter in LATER_USES ("same", "other" or '
        "the anchor of the symbol it means there), or choose another letter"
    )


@pytest.mark.parametrize(
    ("anchor", "number", "meaning"),
    [(a, n, m) for a, uses in LATER_USES.items() for n, m in uses.items() if m != "same"],
)
def test_the_glossary_names_each_chapter_where_a_letter_means_something_else(
    anchor, number, meaning
):
    entry = glossary_entries(GLOSSARY.read_text(encoding="utf-8"))[anchor]
    if meaning == "other":
        page = chapters()[number]
        assert "The letter changes" in entry, anchor
        assert f"](../{page})" in entry, f"{anchor}: the glossary does not name chapter {number}"
    else:
        assert meaning in SYMBOLS and f"](#{meaning})" in entry, (anchor, meaning)


#: Chapter 10's section on KERPLE, FIRE and CoPE as it was: a head $h$, FIRE's threshold
#: $L$, CoPE's sum over $k$ and its position vectors $e[\cdot]$.
OLD_CHAPTER_10 = r"""
**KERPLE** adds to the score of head $h$ a kernel of the distance.

$$
b(i, j) = f_\theta\!\left(\frac{\psi(i - j)}{\psi(\max(L, i))}\right),
$$

$$
g_{ij} = \sigma(q_i^\top k_j), \qquad p_{ij} = \sum_{k=j}^{i} g_{ik} .
$$

A table of learned vectors $e[0], e[1], \dots$, and $q_i^\top e[p_{ij}]$ is added.
"""


def test_the_checks_see_chapter_10s_old_letters():
    texts = _texts()
    texts[10] += OLD_CHAPTER_10
    problems = letter_problems(texts, LATER_USES)
    assert any(p.startswith("chapter 10 writes $h$") for p in problems)
    assert any(p.startswith("chapter 10 writes $e$") for p in problems)
    assert "chapter 10 sums over $k$, a letter of the glossary" in problems
    stale = {**LATER_USES, "embedding": {7: "same", 9: "same"}}
    assert "LATER_USES: chapter 9 no longer writes $e$ (embedding)" in letter_problems(
        _texts(), stale
    )
