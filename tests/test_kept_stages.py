"""MkDocs' stages kept in the build cache (pe_book.kept_stages) give what they computed.

A page converted from the cache has the HTML, table of contents, title, anchors and
links to anchors of a page converted by Python-Markdown; a page whose conversion warned
is converted every time; search entries and print-site's links come back the same.
"""

from __future__ import annotations

import logging

import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import get_files
from mkdocs.structure.pages import Page

from pe_book import kept_stages
from pe_book.build_cache import BuildCache

PAGES = {
    "index.md": "# Home\n\nSee [the other page](other.md#a-section) and [here](#part).\n\n"
    "## Part\n\nText with a footnote.[^1]\n\n### Deeper { #deep }\n\n[^1]: A note.\n",
    "other.md": "# Other\n\n## A section\n\n```python\nx = 1\n```\n",
    "broken.md": "# Broken\n\n[nowhere](missing.md)\n",
}


@pytest.fixture
def site(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nmarkdown_extensions: [footnotes, attr_list, toc]\n", encoding="utf-8"
    )
    config = load_config(str(tmp_path / "mkdocs.yml"))
    files = get_files(config)
    for owner, name in [
        (Page, "render"),
        (kept_stages._search().SearchIndex, "add_entry_from_context"),
        (kept_stages._print_site(), "fix_internal_links"),
    ]:  # each test starts from the unwrapped stages, and leaves them so
        original = getattr(getattr(owner, name), "_pe_original", getattr(owner, name))
        monkeypatch.setattr(owner, name, original)
    return config, files, tmp_path


def _rendered(config, files, name: str) -> Page:
    page = Page(None, files.get_file_from_path(name), config)
    page.read_source(config)
    page.render(config, files)
    return page


def _state(page: Page) -> tuple:
    return (
        page.content,
        str(page.toc),
        [getattr(item, "active", False) for item in page.toc],
        page._title_from_render,
        page.present_anchor_ids,
        {f.src_uri: links for f, links in (page.links_to_anchors or {}).items()},
    )


def test_a_page_converted_from_the_cache_is_the_page_converted(site, monkeypatch):
    import markdown

    config, files, root = site
    plain = {name: _state(_rendered(config, files, name)) for name in ("index.md", "other.md")}
    kept_stages.keep(BuildCache(root / "cache"))
    first = {name: _state(_rendered(config, files, name)) for name in plain}
    kept_stages.keep(BuildCache(root / "cache"))

    def no_conversion(*args):
        raise AssertionError("converted again")

    monkeypatch.setattr(markdown.Markdown, "convert", no_conversion)
    again = {name: _state(_rendered(config, files, name)) for name in plain}
    assert first == plain and again == plain
    assert "other.md" in plain["index.md"][5] and plain["index.md"][2][0]
    assert len(list((root / "cache" / "markdown").glob("*.json"))) == 2


def test_an_edited_page_is_converted_again(site):
    config, files, root = site
    kept_stages.keep(BuildCache(root / "cache"))
    _rendered(config, files, "other.md")
    (root / "docs" / "other.md").write_text("# Other\n\n## Renamed\n", encoding="utf-8")
    assert "Renamed" in _rendered(config, files, "other.md").content


def test_a_page_that_warned_is_not_kept(site, caplog):
    config, files, root = site
    kept_stages.keep(BuildCache(root / "cache"))
    for _ in range(2):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="mkdocs"):
            _rendered(config, files, "broken.md")
        assert "missing.md" in caplog.text  # warned the second time too
    assert not (root / "cache" / "markdown").exists()


def test_a_wrong_entry_is_seen(site):
    """The harness compares what it reads back: a changed entry shows."""
    config, files, root = site
    plain = _state(_rendered(config, files, "other.md"))
    kept_stages.keep(BuildCache(root / "cache"))
    _rendered(config, files, "other.md")
    (entry,) = (root / "cache" / "markdown").glob("*.json")
    entry.write_text(entry.read_text().replace("A section", "A sektion"))
    assert _state(_rendered(config, files, "other.md")) != plain


def test_search_entries_and_print_links_come_back_the_same(site):
    config, files, root = site
    search, print_site = kept_stages._search(), kept_stages._print_site()
    pages = [_rendered(config, files, name) for name in ("index.md", "other.md")]
    html = pages[0].content

    def entries():
        index = search.SearchIndex(lang=["en"], separator=" ", pipeline=[], fields={})
        for page in pages:
            index.add_entry_from_context(page)
        return index.entries

    def links():
        return print_site.fix_internal_links(html, "index.html", False, 1)

    plain = entries(), links()
    for _ in range(2):
        kept_stages.keep(BuildCache(root / "cache"))
        assert (entries(), links()) == plain
    assert len(list((root / "cache" / "search").glob("*.json"))) == 2
    assert len(list((root / "cache" / "print").glob("*.json"))) == 1
