"""Check one page of the book: every rule the tests hold a page to, for that page alone.

    python3 scripts/book.py check docs/modern/alibi.md   # the page, in about a minute
    python3 scripts/book.py check --map                  # page ↔ chapter module ↔ namespace

What it runs, all from the test suite (selected, never copied):

* the page's Python examples (Sybil, ``docs/<page>.md``);
* every page rule (``RULE_TESTS``): tests parametrized by page, figure, table, value or
  chapter source run for this page's own only; tests that read every page at once are
  text checks of a second or two, and run whole (a failure there names its page);
* the weight its figures add to the whole book on one page (``print_page.html``), each
  figure's share against the budget a chapter adds, and, when a built site is at hand
  (``site/`` or ``PE_SITE``), the whole print page with this page's figures as drawn now.

What needs the whole site built and a browser, and is only named here: display formulas
and pages at a 390 px phone column (``tests/test_phone_view.py``), the browser checks
(``tests/test_browser.py``) and every page's weight (``tests/test_site_quality.py``).
"""

from __future__ import annotations

import gzip
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CHAPTERS = ROOT / "pe_book" / "chapters"
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

#: The tests that hold pages, figures, tables and values to the house rules.
RULE_TESTS = (
    "test_book.py",
    "test_pages.py",
    "test_code_width.py",
    "test_stated_bounds.py",
    "test_citations.py",
    "test_pointers.py",
    "test_symbol_introductions.py",
    "test_notation.py",
    "test_reused_letters.py",
    "test_overlaps.py",
    "test_math_typography.py",
    "test_verbal_claims.py",
    "test_site_quality.py",
)
_USES = re.compile(r"\{\{\s*(figure|table|value)\s*:\s*([\w.]+)")


def uses(page: Path) -> dict[str, set[str]]:
    """The figures, tables and values ``page`` shows, by kind."""
    found: dict[str, set[str]] = {"figure": set(), "table": set(), "value": set()}
    for kind, name in _USES.findall(page.read_text(encoding="utf-8")):
        found[kind].add(name)
    return found


def chapter_sources(namespace: str) -> list[Path]:
    """The module, or the modules of the package, that registers ``namespace``."""
    package = CHAPTERS / namespace
    if package.is_dir():
        return sorted(package.glob("*.py"))
    return [p for p in [CHAPTERS / f"{namespace}.py"] if p.exists()]


def namespaces(page: Path) -> list[str]:
    """The chapter namespaces whose registrations ``page`` shows (its own first)."""
    from pe_book import FIGURES, load_all

    load_all()
    used = uses(page)
    found = {name.split(".")[0] for name in used["table"] | used["value"]}
    prefix = "pe_book.chapters."
    for name in used["figure"]:
        if name in FIGURES:
            found.add(FIGURES[name].draw.__module__.removeprefix(prefix).split(".")[0])
    own = page.stem.replace("-", "_")
    return sorted(found, key=lambda n: (n != own, n))


def book_pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "overrides" not in p.parts)


def _module_path(namespace: str) -> str:
    """``pe_book/chapters/alibi.py``, or the package ``pe_book/chapters/evidence/``."""
    package = CHAPTERS / namespace
    if package.is_dir():
        return f"{package.relative_to(ROOT)}/"
    return str(package.with_suffix(".py").relative_to(ROOT))


def print_map() -> int:
    """Every page, the chapter module(s) registering what it shows, and its namespaces."""
    for page in book_pages():
        spaces = namespaces(page)
        modules = ", ".join(f"{_module_path(n)} ({n}.)" for n in spaces)
        print(f"{page.relative_to(ROOT)}  ↔  {modules or '-'}")
    print("(a chapter written as a package registers all its modules under its own name)")
    return 0


class PageOnly:
    """A pytest plugin keeping the tests that concern one page: a parametrized test runs
    for the page's own page, figures, tables, values and chapter sources only."""

    def __init__(self, page: Path, names: set[str], sources: set[Path], every: set):
        self.page, self.names, self.sources, self.every = page, names, sources, every

    def _ours(self, value) -> bool | None:
        """True for one of this page's, False for another page's, None for neither."""
        if isinstance(value, Path):
            path = value.resolve()
            if path == self.page or path in self.sources:
                return True
            return False if path in self.every else None
        if isinstance(value, str):
            if value in self.names or value in (self.page.name, _docs_path(self.page)):
                return True
            return False if value in self.every else None
        return None

    def pytest_collection_modifyitems(self, config, items):
        kept, dropped = [], []
        for item in items:
            callspec = getattr(item, "callspec", None)
            verdicts = [self._ours(v) for v in (callspec.params.values() if callspec else ())]
            (dropped if False in verdicts and True not in verdicts else kept).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _docs_path(page: Path) -> str:
    return page.relative_to(DOCS).as_posix()


def _kb(size: float) -> str:
    return f"{size / 1024:.1f} KB"


def print_weight(page: Path, figures: list[str]) -> bool:
    """Report what the page's figures add to the one-page book; False when the whole
    print page (measured on a built site) is over its budget."""
    from test_site_quality import (
        PRINT_BUDGET_PER_CHAPTER,
        PRINT_PAGE,
        gzipped_size,
        numbered_chapters,
        page_assets,
        phone_assets,
    )

    from pe_book.render import _render_cached, variant_name

    cache = ROOT / ".cache" / "book"  # the build's own cache (scripts/hooks.py)
    share = PRINT_BUDGET_PER_CHAPTER
    now: dict[str, int] = {}
    print(f"\n[check] the one-page book ({PRINT_PAGE}): this page's figures, light, gzipped")
    for name in sorted(figures):
        wide = len(gzip.compress(_render_cached((name, "light", "wide", str(cache))), 6, mtime=0))
        phone = len(gzip.compress(_render_cached((name, "light", "phone", str(cache))), 6, mtime=0))
        now[name], now[name + "/phone"] = wide, phone
        print(f"  {name:<40} wide {_kb(wide):>9} ({wide / share:4.0%})  phone {_kb(phone):>9}")
    total = sum(v for k, v in now.items() if "/" not in k)
    verdict = "within" if total <= share else "OVER"
    print(
        f"  figures together: {_kb(total)} wide, {verdict} the {_kb(share)} a numbered chapter "
        "adds to the print page's budget (its text takes some of it too)"
    )
    site = Path(os.environ.get("PE_SITE", ROOT / "site"))
    if not (site / PRINT_PAGE).exists():
        print(
            "  the whole print page needs the whole site: `python3 scripts/book.py build`, "
            "then run this check again (or set PE_SITE=DIR)"
        )
        return True
    site = site.resolve()
    built = {p.name: p for p in page_assets(site, PRINT_PAGE) | phone_assets(site, PRINT_PAGE)}
    budget = PRINT_BUDGET_PER_CHAPTER * numbered_chapters()
    ok = True
    for seen, assets, suffix in (
        ("wide", page_assets(site, PRINT_PAGE), ""),
        ("phone", phone_assets(site, PRINT_PAGE), "/phone"),
    ):
        weight = sum(gzipped_size(p) for p in assets)
        for name in figures:
            layout = "wide" if not suffix else "phone"
            old = built.get(variant_name(name, "light", layout) + ".svg")
            weight += now[name + suffix] - (gzipped_size(old) if old else 0)
        ok &= weight <= budget
        when = time.localtime((site / PRINT_PAGE).stat().st_mtime)
        print(
            f"  whole print page as a {seen} screen, from {site} (built "
            f"{time.strftime('%Y-%m-%d %H:%M', when)}) with this page's figures as drawn "
            f"now: {_kb(weight)} of {_kb(budget)}"
            + ("" if weight <= budget else " -- OVER: make a figure lighter (pe_book/svg.py)")
        )
    return ok


def check(page_arg: str) -> int:
    import pytest

    page = Path(page_arg).resolve()
    if not page.is_file() or DOCS not in page.parents or page.suffix != ".md":
        print(f"[check] {page_arg}: not a page of docs/ (docs/<part>/<page>.md)")
        return 2
    from pe_book import FIGURES, TABLES, VALUES, load_all

    load_all()
    started = time.monotonic()
    used = uses(page)
    spaces = namespaces(page)
    sources = {s.resolve() for n in spaces for s in chapter_sources(n)}
    print(f"[check] {page.relative_to(ROOT)}")
    print(f"  chapter module(s): {', '.join(spaces) or '-'} (pe_book/chapters/)")
    for kind in ("figure", "table", "value"):
        print(f"  {kind}s: {len(used[kind])}")
    every = (
        set(FIGURES)
        | set(TABLES)
        | set(VALUES)
        | {p.resolve() for p in book_pages()}
        | {_docs_path(p) for p in book_pages()}
        | {p.resolve() for p in CHAPTERS.rglob("*.py")}
    )
    names = used["figure"] | used["table"] | used["value"]
    plugin = PageOnly(page, names, sources, every)
    tests = [str(ROOT / "tests" / name) for name in RULE_TESTS]
    args = [*tests, str(page), "-q", "-p", "no:cacheprovider", "-m", "not browser and not site"]
    code = pytest.main(args, plugins=[plugin])
    weight_ok = print_weight(page, sorted(used["figure"] & set(FIGURES)))
    print(
        "\n[check] not run here, they need the whole site: display formulas and the page at "
        "a 390 px phone column\n  (`python3 scripts/book.py test tests/test_phone_view.py`), "
        "the browser checks (tests/test_browser.py), every page's weight "
        "(tests/test_site_quality.py -m site)"
    )
    print(f"[check] {time.monotonic() - started:.0f} s")
    return int(code) or (0 if weight_ok else 1)


def main(argv: list[str]) -> int:
    if argv == ["--map"]:
        return print_map()
    if len(argv) != 1:
        print(__doc__)
        return 2
    return check(argv[0])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
