"""Pytest collects the book's pages: every Python example of ``docs/**/*.md`` is a test.

The parsers and the page session are in ``tests/pages.py``; ``docs`` is one of
the ``testpaths`` in ``pyproject.toml``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests"))

from pages import book_sybil  # noqa: E402  (tests/ is on the path only from here)

collect_ignore = ["docs/overrides"]  # MkDocs theme overrides, not pages
collect_ignore_glob = ["docs/*.py"]  # notebook sources: tests/test_notebooks.py runs them
pytest_collect_file = book_sybil().pytest()
