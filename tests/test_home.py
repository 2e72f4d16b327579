"""The home page opens the book: a figure, a way in, and a link to every chapter."""

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


def test_the_home_page_opens_with_a_figure_and_a_way_in():
    head = HOME[: HOME.index("## Contents")]
    assert "{{ figure: home_overview }}" in head
    assert re.search(r"\[Start reading[^\]]*\]\(foundations/order-problem\.md\)", head)
