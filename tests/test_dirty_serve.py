"""``book.py serve`` rebuilds dirty (``scripts/hooks.py``): what the hook does so that a
rebuild of only some pages still serves the whole book: the pages whose values, tables
or figures changed rebuilt too, the search index with each page once, MkDocs' warning
about dirty builds kept out of the strict count."""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def hooks():
    spec = importlib.util.spec_from_file_location("book_hooks", ROOT / "scripts" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _entry(location: str, text: str = "") -> dict:
    return {"location": location, "title": location, "text": text}


def test_the_search_index_keeps_each_pages_newest_sections_only(hooks, tmp_path):
    """As the search plugin leaves it after two pages were rebuilt: their old sections
    first (one page's dropped by the plugin, the other's not), the new ones appended."""
    entries = [
        _entry("a.html"),
        _entry("a.html#one", "old"),
        _entry("b.html"),
        _entry("c.html", "old"),
        _entry("c.html#x", "old"),
        _entry("c.html", "new"),
        _entry("c.html#x", "new"),
        _entry("a.html#one", "new"),
    ]
    index = SimpleNamespace(entries=entries)
    plugins = {"material/search": SimpleNamespace(search_index=index)}
    (tmp_path / "search").mkdir()
    path = tmp_path / "search" / "search_index.json"
    path.write_text(json.dumps({"config": {"lang": ["en"]}, "docs": entries}))
    hooks._whole_search_index(SimpleNamespace(plugins=plugins, site_dir=str(tmp_path)))
    kept = [(e["location"], e["text"]) for e in index.entries]
    assert kept == [("b.html", ""), ("c.html", "new"), ("c.html#x", "new"), ("a.html#one", "new")]
    # c's old and new sections, side by side, are told apart by c's own entry
    written = json.loads(path.read_text())
    assert written["docs"] == index.entries and written["config"] == {"lang": ["en"]}


def test_only_mkdocs_warning_about_a_dirty_build_is_kept_out(hooks):
    notice = hooks._DirtyNotice()

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("mkdocs.commands.build", logging.WARNING, "", 0, message, (), None)

    assert not notice.filter(record("A 'dirty' build is being performed, this will …"))
    assert notice.filter(record("Doc file 'a.md' contains a link to 'b.md', not found"))


class _Cache:
    """A build cache whose entries ``stale`` must be computed again."""

    def __init__(self, stale: dict[str, str], recomputed: dict[str, str]):
        self.stale, self.recomputed = stale, recomputed

    def lookup(self, key: str):
        return (None, self.stale[key]) if key in self.stale else ("text", None)


def test_a_page_showing_a_changed_value_or_a_redrawn_figure_is_rebuilt_and_says_why(
    hooks, tmp_path, monkeypatch, caplog
):
    built = {name: tmp_path / f"{name}.html" for name in ("a", "b", "c", "d")}
    for path in built.values():
        path.write_text("<p>built</p>")
    shown = {
        "a.md": {"value:ch.x", "html:a.md"},
        "b.md": {"value:ch.y"},
        "c.md": {"alt:drift", "caption:drift"},
        "d.md": {"html:d.md"},  # a page's own HTML: MkDocs sees its source change itself
    }
    pages = {uri: {"keys": keys, "chars": set()} for uri, keys in shown.items()}
    monkeypatch.setitem(hooks._serve, "pages", pages)
    cache = _Cache(
        stale={"value:ch.x": "pe_explained/rope.py changed", "html:d.md": "its input changed"},
        recomputed={"figure:drift/light/wide": "pe_explained/kv_cache.py changed"},
    )
    files = SimpleNamespace(
        get_file_from_path=lambda uri: SimpleNamespace(abs_dest_path=str(built[uri[0]]))
    )
    with caplog.at_level(logging.INFO, logger="mkdocs.hooks.book"):
        hooks._rebuild_stale_pages(files, cache)
    assert [name for name, path in built.items() if path.exists()] == ["b", "d"]
    assert "rebuilding a.md: value:ch.x (pe_explained/rope.py changed)" in caplog.text
    assert "rebuilding c.md: alt:drift (the figure was drawn again)" in caplog.text
