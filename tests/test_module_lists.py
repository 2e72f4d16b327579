"""The lists of modules in README.md and ARCHITECTURE.md are the modules there are.

README's row for ``pe_explained/`` and ARCHITECTURE's section "The library" name every
public module of the library (``pe_explained/*.py`` but ``__init__``, ``__main__`` and
the private ``_*.py``), and ARCHITECTURE's row for ``pe_book/`` every module of the
book's package; none of them names a module that does not exist.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_MODULE = re.compile(r"`(?:([\w/]+)/)?(\w+\.py)`")


def modules(package: str, private: bool = False) -> set[str]:
    """The file names of ``package``'s modules (top level): the private ones if asked."""
    return {
        p.name
        for p in (ROOT / package).glob("*.py")
        if p.name not in ("__init__.py", "__main__.py") and (private or not p.name.startswith("_"))
    }


def named(text: str, package: str) -> set[str]:
    """The module file names ``text`` writes as code, bare or under ``package``:
    ``rope.py``, ``pe_book/svg.py`` (a file of another folder, ``tests/test_rope.py``, is
    not one).

    >>> sorted(named("`rope.py`, `pe_book/svg.py`, `tests/test_x.py`, `a.css`", "pe_book"))
    ['rope.py', 'svg.py']
    """
    return {
        name
        for folder, name in _MODULE.findall(text)
        if folder in ("", package) and name != "__init__.py"
    }


def table_row(text: str, first_cell: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"| `{first_cell}` |"))


def section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _problems(listed: set[str], package: str, where: str) -> list[str]:
    missing = sorted(modules(package) - listed)
    unknown = sorted(listed - modules(package, private=True))
    return [f"{where} lacks {package}/{m}: add it with a few words" for m in missing] + [
        f"{where} names {package}/{m}, which does not exist: remove or rename it" for m in unknown
    ]


def test_the_readme_lists_every_library_module_and_no_other():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = named(table_row(readme, "pe_explained/"), "pe_explained")
    assert not (problems := _problems(row, "pe_explained", "README.md's Layout")), problems


def test_the_architecture_lists_every_library_and_book_module_and_no_other():
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    library = named(section(text, "The library"), "pe_explained")
    book = named(table_row(text, "pe_book/"), "pe_book")
    problems = _problems(library, "pe_explained", "ARCHITECTURE.md's The library")
    problems += _problems(book, "pe_book", "ARCHITECTURE.md's pe_book/ row")
    assert not problems, problems


def test_the_check_sees_a_missing_and_an_unknown_module():
    listed = modules("pe_explained") - {"rope.py"} | {"nowhere.py"}
    problems = _problems(listed, "pe_explained", "a list")
    assert problems == [
        "a list lacks pe_explained/rope.py: add it with a few words",
        "a list names pe_explained/nowhere.py, which does not exist: remove or rename it",
    ]
