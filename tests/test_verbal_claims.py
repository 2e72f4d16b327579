"""Sentences of chapters 8, 10 and 14, the glossary and notebook 3 that a re-read found
wrong, held to what is true.

* Chapter 10 said that relative schemes depend only on the offset, then added FIRE,
  whose input past its threshold depends on the query's position, and CoPE, whose
  positions depend on the content. Every sentence there (or in the glossary's entry for
  $m - n$) that says a scheme sees the offset only must name both exceptions, and the
  numbers it quotes for FIRE are the library's.
* Chapters 8 and 14 said that the number of keys a causal query sees *is* its position;
  counted from 0, it is one more. And "attends evenly to a marked first token" reads as
  attending to the first token only.
* Notebook 3 tied Llama 3.1's rule to pre-training, which the Llama 3 report does not
  say: the rule is in the released code and config.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_book import VALUES, load_all
from pe_book.chapters import relative
from pe_book.pages.shortcodes import outside_fences
from pe_explained import fire_normalized_distance

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

load_all()


def paragraphs(text: str) -> list[str]:
    """The prose of a page outside its code, one string per paragraph or list item."""
    lines = text.splitlines()
    kept = [line if out else "" for line, out in zip(lines, outside_fences(lines), strict=True)]
    blocks = re.split(r"\n\s*\n|\n(?=- )", "\n".join(kept))
    return [" ".join(b.split()) for b in blocks if b.strip()]


#: What a sentence says when it claims that a scheme sees positions through the offset only.
OFFSET_ONLY = re.compile(
    r"only on the offset|(?<!not )on the offset alone|through (?:this matrix|the offset[^.]*) only"
    r"|\$m - n\$ only|function of this matrix only|does not change it|changes nothing"
)


def unqualified_offset_claims(text: str) -> list[str]:
    """The paragraphs of ``text`` that claim offset-only positions without naming FIRE and
    CoPE, the two schemes of chapter 10 that are not relative in that sense.

    >>> unqualified_offset_claims("- Relative schemes depend only on the offset $j - i$.")
    ['- Relative schemes depend only on the offset $j - i$.']
    """
    return [
        p
        for p in paragraphs(text)
        if OFFSET_ONLY.search(p)
        and not ("FIRE" in p and "CoPE" in p)
        # a sentence about one scheme, which says which one (DeBERTa's term (d), T5's bias)
        and not re.search(r"Position against position|constant along every diagonal", p)
    ]


def _glossary_entry(anchor: str) -> str:
    glossary = (DOCS / "appendix" / "glossary.md").read_text(encoding="utf-8")
    return glossary.split(f"{{{{ symbol: {anchor} }}}}")[1].split("{{ symbol:")[0]


def test_chapter_10_and_the_glossary_name_the_schemes_that_see_more_than_the_offset():
    page = (DOCS / "model" / "relative.md").read_text(encoding="utf-8")
    assert unqualified_offset_claims(page) == []
    assert unqualified_offset_claims(_glossary_entry("m-n")) == []
    # the claims are there, qualified: the check reads them
    assert len([p for p in paragraphs(page) if OFFSET_ONLY.search(p)]) >= 3
    assert OFFSET_ONLY.search(_glossary_entry("m-n"))


def test_the_check_sees_chapter_10s_old_sentences():
    old = (
        "A relative scheme is a function of this matrix only. Moving the whole sequence\n"
        "along by a fixed number of positions does not change it.\n\n"
        "- Relative schemes depend only on the offset $j - i$ between query and key; the\n"
        "  offset matrix is constant along its diagonals.\n"
    )
    assert len(unqualified_offset_claims(old)) == 2
    glossary = "Relative schemes make the score depend on\n    $m - n$ only. Introduced in"
    assert unqualified_offset_claims(glossary)


def test_fires_quoted_inputs_differ_past_the_threshold_and_match_the_example():
    """'offset 10 gives 0.1753 at every query up to τ, but 0.1502 at query 1,000 and
    0.1307 at query 2,000', and the page's example prints the same numbers."""
    threshold, offset = int(relative.FIRE_THRESHOLD), relative.FIRE_OFFSET
    before = {relative.fire_input(q) for q in range(offset, threshold + 1)}
    assert len(before) == 1
    past = [relative.fire_input(q) for q in relative.FIRE_QUERIES]
    assert past[0] < before.pop() and past[1] < past[0]
    x = fire_normalized_distance(1, 2001, c=relative.FIRE_C, threshold=relative.FIRE_THRESHOLD)
    assert float(x[0, 2000 - offset]) == relative.fire_input(2000)
    page = (DOCS / "model" / "relative.md").read_text(encoding="utf-8")
    printed = re.search(r"\[(0\.\d+), (0\.\d+), (0\.\d+), (0\.\d+)\]", page).groups()
    assert VALUES["relative.fire_input_before"].text() == printed[1]
    quoted = VALUES["relative.fire_inputs_past"].text()
    assert f"{printed[2]} at query 1,000 and {printed[3]} at query 2,000" == quoted


#: The off-by-one and the ambiguous phrase, as chapters 8 and 14 once wrote them.
OFF_BY_ONE = re.compile(r"number of keys[^.]*?\bis\*? \*?its position|is its position")
AMBIGUOUS = re.compile(r"(?:attends evenly|uniform attention) to a marked (?:first|start) token")


def _sources() -> list[Path]:
    return [
        *sorted(DOCS.rglob("*.md")),
        *sorted((DOCS / "notebooks").glob("*.py")),
        *sorted((ROOT / "pe_book" / "chapters").rglob("*.py")),
        ROOT / "pe_explained" / "nope.py",
    ]


@pytest.mark.parametrize("pattern", [OFF_BY_ONE, AMBIGUOUS], ids=["off by one", "ambiguous"])
def test_no_page_counts_a_querys_keys_as_its_position(pattern):
    found = [
        str(p.relative_to(ROOT))
        for p in _sources()
        if pattern.search(" ".join(p.read_text(encoding="utf-8").split()))
    ]
    assert found == [], (
        f"{found}: a query at position p (from 0) sees p + 1 keys; say so, and name the token "
        "that attention is spread over"
    )


def test_the_key_count_checks_see_the_old_sentences():
    ch8 = "so the number of keys it averages over is its position, and a head that attends "
    ch8 += "evenly to a marked first token reads out"
    ch14 = "so the number of keys it sees *is* its position."
    alt = "With a causal mask, uniform attention to a marked start token gives 1, 1/2"
    assert OFF_BY_ONE.search(ch8) and OFF_BY_ONE.search(ch14)
    assert AMBIGUOUS.search(ch8) and AMBIGUOUS.search(alt)


def test_notebook_3_does_not_tie_llama_31s_rule_to_pre_training():
    notebook = (DOCS / "notebooks" / "part3-modern.py").read_text(encoding="utf-8")
    cell = notebook.split("## 4. Stretching the context")[1].split("# %%\n")[0]
    assert "original_max_position_embeddings" in cell
    assert "pre-train" not in cell
