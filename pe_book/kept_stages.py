"""Three stages of MkDocs and its plugins, kept in the build cache by the hash of their input.

A build with nothing changed spends most of its time in stages the book does not own
and that give the same output for the same input:

* Python-Markdown's conversion of a page (``mkdocs.structure.pages.Page.render``): its
  HTML, table of contents, title, anchors and links to anchors are a function of the
  page's Markdown (after the book's shortcodes), its place in the site, every file's
  URL, the Markdown extensions and their settings, and the packages' versions;
* the search plugin's entries for a page (Material's ``SearchIndex``), a function of
  the page's HTML, table of contents, URL, title and metadata;
* print-site's rewrite of each page's links and anchors for the one-page book
  (``fix_internal_links``), a function of its arguments.

:func:`keep` wraps each (again for every build: ``mkdocs serve`` builds many times in
one process) so that it reads its result from a :class:`pe_book.build_cache.BuildCache`
entry stamped with the hash of that input, and computes and keeps it otherwise. A page
whose conversion logged a warning is never kept, so a strict build fails on it every
time; a page that includes other files (``--8<--``) is always converted. ``.ci/run``
builds the site twice, the second time from the cache, and compares the bytes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from functools import cache as memo
from importlib.metadata import version

__all__ = ["keep"]

#: The packages whose code turns a page's Markdown into HTML and index entries.
PACKAGES = ("mkdocs", "markdown", "pymdown-extensions", "pygments", "mkdocs-material")
PACKAGES += ("mkdocs-print-site-plugin",)


@memo
def _versions() -> bytes:
    return " ".join(f"{p} {version(p)}" for p in PACKAGES).encode()


def _stamp(*parts) -> str:
    digest = hashlib.sha256(_versions())
    for part in parts:
        digest.update(b"\0" + json.dumps(part, sort_keys=True, default=repr).encode())
    return digest.hexdigest()


def _patch(owner, name: str, make) -> None:
    """Set ``owner.name`` to ``make(original)``, the original being the unwrapped one."""
    original = getattr(owner, name)
    original = getattr(original, "_pe_original", original)
    wrapped = make(original)
    wrapped._pe_original = original
    setattr(owner, name, wrapped)


def _search():
    """Material's search plugin module (its ``SearchIndex``)."""
    import material.plugins.search.plugin

    return material.plugins.search.plugin


def _print_site():
    """print-site's module that calls ``fix_internal_links`` for each page."""
    import mkdocs_print_site_plugin.renderer

    return mkdocs_print_site_plugin.renderer


def keep(cache) -> None:
    """Wrap the three stages so that they are kept in ``cache`` for this build."""
    from mkdocs.structure.pages import Page

    search, print_site = _search(), _print_site()
    _patch(Page, "render", lambda original: _kept_render(original, cache))
    segments = search.jieba is not None  # Chinese text is segmented when jieba is there
    _patch(
        search.SearchIndex,
        "add_entry_from_context",
        lambda original: _kept_entries(original, cache, segments),
    )
    _patch(print_site, "fix_internal_links", lambda original: _kept_links(original, cache))


# Markdown --------------------------------------------------------------------------------


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _toc(items) -> list:
    return [[i.title, i.id, i.level, _toc(i.children)] for i in items]


def _anchor_links(items):
    from mkdocs.structure.toc import AnchorLink

    links = []
    for title, anchor, level, children in items:
        link = AnchorLink(title, anchor, level)
        link.children = _anchor_links(children)
        links.append(link)
    return links


def _page_state(page) -> dict:
    return {
        "content": page.content,
        "toc": _toc(page.toc.items),
        "title": page._title_from_render,
        "anchors": sorted(page.present_anchor_ids),
        "links": None
        if page.links_to_anchors is None
        else {f.src_uri: links for f, links in page.links_to_anchors.items()},
    }


def _restore(page, state: dict, files) -> None:
    from mkdocs.structure.toc import TableOfContents

    page.content = state["content"]
    items = _anchor_links(state["toc"])
    if items:
        items[0].active = True  # as MkDocs' get_toc marks it
    page.toc = TableOfContents(items)
    page._title_from_render = state["title"]
    page.present_anchor_ids = set(state["anchors"])
    if state["links"] is not None:
        page.links_to_anchors = {
            files.get_file_from_path(uri): links for uri, links in state["links"].items()
        }


def _site(config, files) -> list:
    """What a page's conversion reads besides its Markdown: every file's URL, and the
    Markdown and link settings."""
    return [
        sorted((f.src_uri, f.url) for f in files),
        config["markdown_extensions"],
        config["mdx_configs"],
        config["use_directory_urls"],
        str(config["validation"]),
        logging.getLogger("mkdocs").getEffectiveLevel() > logging.DEBUG,
    ]


def _kept_render(original, cache):
    def render(page, config, files) -> None:
        if "--8<--" in page.markdown:  # includes files the stamp does not see
            return original(page, config, files)
        stamp = _stamp(page.markdown, page.file.src_uri, page.file.url, _site(config, files))
        key = f"markdown:{page.file.src_uri}"
        text, _ = cache.lookup(key, stamp)
        if text is not None:
            return _restore(page, json.loads(text), files)
        warnings, logger = _Warnings(), logging.getLogger("mkdocs")
        logger.addHandler(warnings)
        try:
            original(page, config, files)
        finally:
            logger.removeHandler(warnings)
        if not warnings.count:
            cache.store(key, json.dumps(_page_state(page)), stamp)

    return render


# Search and the one-page book ----------------------------------------------------------


def _kept_entries(original, cache, segments: bool):
    def add_entry_from_context(index, page) -> None:
        stamp = _stamp(
            page.content, _toc(page.toc.items), page.url, str(page.title), page.meta,
            index.config, segments,
        )  # fmt: skip
        key = f"search:{page.file.src_uri}"
        text, _ = cache.lookup(key, stamp)
        if text is not None:
            index.entries.extend(json.loads(text))
            return
        before = len(index.entries)
        original(index, page)
        cache.store(key, json.dumps(index.entries[before:]), stamp)

    return add_entry_from_context


def _kept_links(original, cache):
    def fix_internal_links(page_html, page_url, directory_urls, heading_number) -> str:
        stamp = _stamp(page_html, page_url, directory_urls, heading_number)
        key = f"print:{page_url}"
        text, _ = cache.lookup(key, stamp)
        if text is None:
            text = original(page_html, page_url, directory_urls, heading_number)
            cache.store(key, text, stamp)
        return text

    return fix_internal_links
