"""ARCHITECTURE.md, CONTRIBUTING.md and README.md name only things that exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pe_book
import pe_explained
from pe_explained import _checks

ROOT = Path(__file__).resolve().parent.parent
NOTES = ["ARCHITECTURE.md", "CONTRIBUTING.md", "README.md"]
PATH = re.compile(r"`((?:pe_explained|pe_book|tests|scripts|docs|\.ci|\.github)/[\w./-]*\w)`")


def _text(note: str) -> str:
    return (ROOT / note).read_text(encoding="utf-8")


@pytest.mark.parametrize("note", NOTES)
def test_every_path_a_note_names_exists(note):
    paths = {m.group(1) for m in PATH.finditer(_text(note))}
    assert paths, f"{note} names no files"
    missing = sorted(p for p in paths if "<" not in p and "*" not in p and not (ROOT / p).exists())
    assert not missing, f"{note} names files that do not exist: {missing}"


@pytest.mark.parametrize("note", ["ARCHITECTURE.md", "CONTRIBUTING.md"])
def test_every_check_a_note_names_is_in_checks(note):
    names = set(re.findall(r"`(check_\w+)`", _text(note)))
    assert names and all(hasattr(_checks, n) for n in names), sorted(names)


def test_the_registries_the_notes_describe_exist():
    text = _text("ARCHITECTURE.md") + _text("CONTRIBUTING.md")
    for decorator in re.findall(r"@(figure|table|value)\(", text):
        assert callable(getattr(pe_book, decorator))
    assert "QUOTED" in text and "load_all" in dir(pe_book)


def test_the_shortcode_examples_of_the_notes_resolve():
    """Every ``{{ value: … }}`` and ``{{ table: … }}`` the notes show is registered."""
    pe_book.load_all()
    text = _text("ARCHITECTURE.md") + _text("CONTRIBUTING.md") + _text("README.md")
    for kind, name in re.findall(r"\{\{ (value|table): ([a-z_]+\.\w+)(?::[^ ]*)? \}\}", text):
        registry = pe_book.VALUES if kind == "value" else pe_book.TABLES
        assert name in registry, f"{{{{ {kind}: {name} }}}}"


def test_the_library_functions_the_notes_name_are_public():
    text = _text("ARCHITECTURE.md")
    for name in ("yarn_correction_range", "causal_mask", "dropout"):
        assert name in text
    assert "yarn_correction_range" in pe_explained.__all__
