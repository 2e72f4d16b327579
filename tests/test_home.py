"""The home page opens the book: a figure, a way in, reading paths whose times come from
the pages they link, and a link to every chapter."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")


def nav_pages(mkdocs_yml: str) -> list[str]:
    """Every page the ``nav:`` section lists (``docs/``-relative .md or notebook .py)."""
    nav = re.search(r"^nav:\n((?:[ \t].*\n|\n)*)", mkdocs_yml, re.MULTILINE).group(1)
    return re.findall(r"(\S+\.(?:md|py))\s*$", nav, re.MULTILINE)


def missing_links(home: str, pages: list[str]) -> list[str]:
    """Pages of the navigation (other than the home page) the home page does not link."""
    linked = set(re.findall(r"\]\(([^)#\s]+)", home))
    return [p for p in pages if p != "index.md" and p not in linked]


def test_the_home_page_links_every_chapter_and_appendix():
    pages = nav_pages((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert len([p for p in pages if re.match(r"(foundations|model|modern|practice)/", p)]) >= 22
    chapters = [p for p in pages if not p.startswith("notebooks/") or p == "notebooks/index.md"]
    assert missing_links(HOME, chapters) == []


def test_the_check_catches_a_missing_chapter():
    pages = ["index.md", "modern/rope.md", "modern/alibi.md"]
    assert missing_links("[RoPE](modern/rope.md)", pages) == ["modern/alibi.md"]


def test_the_home_page_opens_with_where_position_enters_and_a_way_in():
    head = HOME[: HOME.index("## Reading paths")]
    assert "{{ figure: home_where_position_enters }}" in head
    assert head.index("{{ figure:") < head.index("[Start reading")
    assert re.search(r"\[Start reading[^\]]*\]\(foundations/order-problem\.md\)", head)


def path_items(home: str) -> dict[str, list[str]]:
    """Each reading path of the home page (a list item showing ``home.<name>_time``): the
    links of its item, in order, anchors kept."""
    section = home[home.index("## Reading paths") : home.index("## Contents")]
    items = re.split(r"^- ", section, flags=re.M)[1:]
    found = {}
    for item in items:
        name = re.search(r"\{\{ value: home\.(\w+)_time \}\}", item)
        if name is not None:
            found[name.group(1)] = re.findall(r"\]\(([^)\s]+)\)", item)
    return found


def path_problems(items: dict[str, list[str]], paths: dict[str, tuple[str, ...]]) -> list[str]:
    """Where the links of the home page's paths differ from the stops whose reading time
    the page shows: every stop linked, in the order read."""
    problems = [f"the page has no item for path {name!r}" for name in paths if name not in items]
    for name, stops in paths.items():
        links = iter(items.get(name, []))
        missing = [stop for stop in stops if not any(link == stop for link in links)]
        if name in items and missing:  # after the first, every stop is "missing"
            problems.append(f"path {name!r}: {missing[0]!r} not linked in the order read")
    return problems


def test_every_reading_path_links_the_stops_its_time_is_computed_from():
    from pe_book.chapters import home

    paths = {**home.PATHS, "whole": home.whole_idea()}
    items = path_items(HOME)
    # the whole idea is a run of chapters: its item links the first and the last
    paths["whole"] = (paths["whole"][0], paths["whole"][-1])
    assert path_problems(items, paths) == []
    assert set(items) == {*paths}


def test_the_path_check_sees_a_stop_the_page_does_not_link():
    items = {"rope": ["a.md", "b.md#x", "c.md"]}
    assert path_problems(items, {"rope": ("a.md", "b.md#x", "c.md")}) == []
    assert path_problems(items, {"rope": ("a.md", "b.md", "c.md")}) == [
        "path 'rope': 'b.md' not linked in the order read"
    ]
    assert path_problems(items, {"rope": ("c.md", "a.md")}) == [
        "path 'rope': 'a.md' not linked in the order read"
    ]


def test_reading_times_count_prose_examples_and_figures():
    from pe_book.chapters import home

    lines = ["word " * home.WORDS_PER_MINUTE, "```pycon", ">>> 1 + 1", "2", "```", "$$", "x", "$$"]
    expected = 1 + home.MINUTES_PER_EXAMPLE + home.MINUTES_PER_FIGURE
    assert home.reading_minutes(lines) == expected
    assert home.reading_minutes(["{{ figure: a }}", "[ten](a/b/c/d/e/f/g/h/i/j.md)"]) == (
        home.MINUTES_PER_FIGURE + 1 / home.WORDS_PER_MINUTE
    )
