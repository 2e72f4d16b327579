"""Every Python example on every page of the book runs, and its outputs match.

The examples are collected by Sybil (``conftest.py``, ``tests/pages.py``) as
``docs/<page>.md::line:N,column:M``; this module checks that the collection is
wired and complete. ``tests/test_page_harness.py`` proves the harness itself.
"""

from __future__ import annotations

from pages import DOCS, book_pages, book_sybil

#: Python blocks on the pages when Sybil replaced the hand-written harness
#: (which found the same 84). Fewer means the lexer lost a fence kind.
MIN_EXAMPLES = 84


def test_docs_are_collected(request):
    assert "docs" in request.config.getini("testpaths")


def test_every_page_is_read():
    expected = {p for p in DOCS.rglob("*.md") if p.relative_to(DOCS).parts[0] != "overrides"}
    assert set(book_pages()) == expected and len(expected) >= 20


def test_pages_have_examples():
    sybil = book_sybil()
    found = sum(len(list(sybil.parse(page).examples())) for page in book_pages())
    assert found >= MIN_EXAMPLES, f"the page harness found only {found} examples"
