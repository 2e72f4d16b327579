"""A citation renders its authors' names ("[Chen et al., 2023]"), so a page must not type
the same names right before it: "Chen et al. {{ cite: chen2023 }}" prints them twice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_book.references import REFERENCES

ROOT = Path(__file__).resolve().parent.parent
CITE = re.compile(r"\{\{\s*citet?:\s*([^}]*?)\s*\}\}")


def _sources() -> list[Path]:
    """Every text a citation can appear in: pages, notebook sources, chapter modules."""
    pages = [p for p in (ROOT / "docs").rglob("*.md") if "overrides" not in p.parts]
    notebooks = sorted((ROOT / "docs" / "notebooks").glob("*.py"))
    chapters = sorted((ROOT / "pe_book").rglob("*.py"))
    return sorted(pages) + notebooks + chapters


def doubled_names(text: str) -> list[str]:
    """The citations in ``text`` whose rendered names were also typed just before them.

    The text before a citation counts with its line breaks and markup collapsed, and
    with a possessive ("Press et al.'s {{ cite: press2022 }}") or an opening bracket.
    """
    found = []
    for match in CITE.finditer(text):
        before = re.sub(r"\s+", " ", text[max(0, match.start() - 120) : match.start()])
        before = re.sub(r"[\s(\[*_]+$", "", before)
        before = re.sub(r"['’]s$", "", before)
        for key in (k.strip() for k in match.group(1).split(",")):
            if key not in REFERENCES:
                continue
            short = REFERENCES[key].short
            if before.endswith(short) or before.endswith(short.rstrip(".")):
                line = text.count("\n", 0, match.start()) + 1
                found.append(f"line {line}: {short!r} before {{{{ cite: {key} }}}}")
    return found


@pytest.mark.parametrize(
    "text",
    [
        "Chen et al. {{ cite: chen2023 }} divide every position",
        "as shown by Press et al.\n{{ cite: press2022 }}",
        "Press et al.'s {{ cite: press2022 }} code",
        "Wang and Chen ({{ cite: wang2020 }})",
        "two papers, Ke et al. {{ cite: vaswani2017, ke2021 }}",
    ],
)
def test_a_name_typed_before_its_citation_is_found(text):
    assert doubled_names(text)


@pytest.mark.parametrize(
    "text",
    [
        "{{ cite: chen2023 }} divide every position",
        "Position interpolation {{ cite: chen2023 }} divides",
        "Kazemnejad et al. also show {{ cite: haviv2022 }}",
        "as Press et al. found; see {{ cite: press2022 }}",
    ],
)
def test_a_citation_without_its_names_before_it_passes(text):
    assert not doubled_names(text)


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_types_the_names_its_citation_prints(path):
    found = doubled_names(path.read_text(encoding="utf-8"))
    assert found == [], (
        f"{found}: delete the names typed before {{{{ cite: KEY }}}} (it prints them), or "
        "write {{ citet: KEY }} to make them part of the sentence"
    )


def test_the_bibliography_is_sorted_by_surname_and_prints_names_as_written():
    from pe_book.pages.citations import bibliography

    keys = re.findall(r'<span id="([^"]+)">', bibliography())
    surnames = [REFERENCES[k].short.split()[0].lower() for k in keys]
    assert surnames == sorted(surnames)
    assert keys.index("press2022") < keys.index("su2021") < keys.index("vaswani2017")
    assert r"*J\*Fly*" in bibliography()  # an asterisk in a name is not emphasis


REFERENCES_LIST = re.compile(r"\{\{\s*references:\s*([^}]*?)\s*\}\}")
TABLE = re.compile(r"\{\{\s*table:\s*([\w.]+)\s*\}\}")


def uncited_references(markdown: str) -> list[str]:
    """The keys of a page's reference list that nothing on the page cites: no
    ``{{ cite }}`` or ``{{ citet }}`` of its prose, no citation in its generated tables."""
    from pe_book import load_all
    from pe_book.pages.tables import table_markdown

    listed = [k.strip() for m in REFERENCES_LIST.findall(markdown) for k in m.split(",")]
    cited = {k.strip() for m in CITE.findall(markdown) for k in m.split(",")}
    load_all()
    for name in TABLE.findall(markdown):
        cited |= {k.strip() for m in CITE.findall(table_markdown(name)) for k in m.split(",")}
    return [k for k in listed if k and k not in cited]


def test_an_uncited_reference_is_found():
    page = "RoPE {{ cite: su2021 }}.\n\n{{ references: su2021, vaswani2017 }}\n"
    assert uncited_references(page) == ["vaswani2017"]
    assert uncited_references(page.replace("su2021 }}.", "su2021, vaswani2017 }}.")) == []


@pytest.mark.parametrize(
    "path",
    [p for p in _sources() if p.suffix == ".md"],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_listed_reference_is_cited_on_its_page(path):
    """A reference list names the works the page relies on, each cited where it does."""
    found = uncited_references(path.read_text(encoding="utf-8"))
    assert found == [], (
        f"{found}: cite each with {{{{ cite: KEY }}}} where the page relies on it, or drop "
        "it from {{ references: … }}"
    )
