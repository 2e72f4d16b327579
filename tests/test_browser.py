"""The built book in a real browser (Chromium), every page, both palettes.

The site is built once (``mkdocs build --strict``), served on 127.0.0.1 and
opened in headless Chromium, once with a light and once with a dark system
preference. Each page is checked for console errors, failed requests, requests
to any other origin (aborted by routing: nothing leaves the machine), images
that did not load, math that is not MathML, figure variants of the wrong
palette and axe-core accessibility violations. The book also has to work read
from disk (``file://``). Skipped, with the reason in the summary, when
``/usr/bin/chromium`` is missing.
"""

from __future__ import annotations

import re
import shutil

import pytest
from browser_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    DOCS,
    PRINT_PAGE,
    PageChecker,
    browser_missing,
    pages_of,
    serve,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing() is not None, reason=f"browser tests: {browser_missing()}"),
]

SCHEMES = ("light", "dark")
KINDS = ("console", "failed", "external", "images", "math", "palette", "axe")


# The fixtures site, browser (one Chromium per test run) and server are in conftest.py,
# shared with tests/test_interactive.py.


def _crawl_one(site, base: str, scheme: str):
    """Check every page in one palette (own Chromium), then click the palette toggle."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        checker = PageChecker(chromium, base, scheme)
        try:
            reports = [checker.check(path) for path in pages_of(site)]
            with_figure = [
                r.page
                for r in reports
                if r.page != PRINT_PAGE
                and "figures/" in (site / r.page).read_text(encoding="utf-8")
            ]
            if with_figure:
                checker.page.goto(base + with_figure[0], wait_until="load")
                toggle = checker.toggle_palette()
            else:
                toggle = ["no page of the site has a figure"]
        finally:
            checker.close()
            chromium.close()
    return reports, toggle


@pytest.fixture(scope="session")
def crawl(server, site):
    """Every page of the built site checked in each palette: ({scheme: [PageReport]},
    {scheme: toggle problems}). The two palettes run side by side, one Chromium each."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(SCHEMES)) as pool:
        futures = {s: pool.submit(_crawl_one, site, server, s) for s in SCHEMES}
        done = {s: f.result() for s, f in futures.items()}
    return {s: done[s][0] for s in SCHEMES}, {s: done[s][1] for s in SCHEMES}


def _problems(crawl, scheme: str, kind: str) -> list[str]:
    return [p for report in crawl[0][scheme] for p in report.problems(kind)]


def test_every_page_of_the_site_is_checked(crawl):
    pages = {r.page for r in crawl[0]["light"]}
    # docs/data/ holds the book's data files (and their README), which mkdocs.yml's
    # exclude_docs keeps out of the site: they are not pages
    assert "/data/" in (DOCS.parent / "mkdocs.yml").read_text(encoding="utf-8")
    from_docs = {
        md.relative_to(DOCS).with_suffix(".html").as_posix()
        for md in DOCS.rglob("*.md")
        if md.relative_to(DOCS).parts[0] != "data"
    }
    assert "index.html" in pages and PRINT_PAGE in pages
    assert from_docs <= pages, f"pages never checked: {sorted(from_docs - pages)}"


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("kind", KINDS)
def test_page_checks(crawl, scheme, kind):
    problems = _problems(crawl, scheme, kind)
    assert not problems, f"{kind} problems in the {scheme} palette:\n" + "\n".join(problems)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_palette_toggle_switches_figure_variants(crawl, scheme):
    assert not crawl[1][scheme], "\n".join(crawl[1][scheme])


def test_dark_background_is_what_dark_figures_are_drawn_for(crawl):
    from pe_book.style import THEMES

    for scheme in SCHEMES:
        want = THEMES[scheme].background.lstrip("#")
        rgb = "rgb({}, {}, {})".format(*(int(want[i : i + 2], 16) for i in (0, 2, 4)))
        backgrounds = {r.background for r in crawl[0][scheme]}
        assert backgrounds == {rgb}, (
            f"{scheme}: page background {backgrounds}, figures assume {rgb}"
        )


def test_whole_book_prints_to_pdf_with_light_figures_only(browser, server, site):
    """The one-page book printed from a dark-palette browser: white paper, each figure
    once (its light variant, the only one the page loads), a PDF of many pages."""
    context = browser.new_context(color_scheme="dark")
    try:
        page = context.new_page()
        figures_loaded = []
        page.on(
            "request",
            lambda r: figures_loaded.append(r.url) if "/figures/" in r.url else None,
        )
        page.goto(server + PRINT_PAGE, wait_until="load")
        page.emulate_media(media="print")
        seen = page.evaluate("""() => ({
          background: getComputedStyle(document.body).backgroundColor,
          shown: [...document.querySelectorAll('img[src*="#only-"]')]
            .filter(i => getComputedStyle(i).display !== "none").map(i => i.getAttribute("src")),
          figures: document.querySelectorAll("figure img[src*='#only-light']").length,
          dark: document.querySelectorAll('img[src*="-dark"], source[srcset*="-dark"]').length,
        })""")
        pdf = page.pdf(format="A4", print_background=True)
    finally:
        context.close()
    assert seen["background"] == "rgb(255, 255, 255)"
    assert seen["shown"] and all(src.endswith("#only-light") for src in seen["shown"])
    assert len(seen["shown"]) == seen["figures"], "every figure exactly once"
    assert seen["dark"] == 0, "the one-page book carries the light figures only"
    assert figures_loaded and not [u for u in figures_loaded if "-dark" in u.rsplit("/", 1)[-1]]
    chapters = len([p for p in pages_of(site) if p != PRINT_PAGE])
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    assert pdf.startswith(b"%PDF") and pages >= chapters, f"{pages} PDF pages, {chapters} chapters"


# --- the checker itself catches what it should ------------------------------------------

BROKEN = (
    '<img src="https://example.com/x.png" alt="an image on another origin">'
    '<img src="assets/figures/no-such-figure.svg" alt="a missing image">'
    "<p>raw $x^2$ and \\frac{a}{b}</p>"
    '<script>console.error("broken on purpose")</script>'
)


def test_checker_reports_a_broken_page(browser, site, tmp_path):
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    page = copy / "index.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            '<article class="md-content__inner md-typeset">',
            '<article class="md-content__inner md-typeset">' + BROKEN,
            1,
        ),
        encoding="utf-8",
    )
    httpd, base = serve(copy)
    checker = PageChecker(browser, base, "light", axe=False)
    try:
        report = checker.check("index.html", math_expected=True)
    finally:
        checker.close()
        httpd.shutdown()
        httpd.server_close()
    # aborted by the route before it was sent, and reported
    assert report.external == ["https://example.com/x.png"]
    assert any("no-such-figure.svg" in p for p in report.failed)
    assert any("no-such-figure.svg" in p for p in report.images)
    assert any("example.com" in p for p in report.images)
    assert any("$x^2$" in p for p in report.math) and any("frac" in p for p in report.math)
    assert any("broken on purpose" in p for p in report.console)


# --- read from disk ----------------------------------------------------------------------


def test_site_reads_from_disk_home_chapter_and_next_page(browser, site):
    """Home page, the first chapter and the one after it, from file:// URLs, by the links."""
    base = site.as_uri() + "/"
    checker = PageChecker(browser, base, "light", axe=False)
    visited, reports = [], []
    try:
        page = checker.page
        path = "index.html"
        for _ in range(3):  # home -> first chapter -> next chapter, following "Next"
            reports.append(checker.check(path))
            assert page.url == base + path, page.url
            assert page.locator("article h1").count() == 1, f"{path}: no heading"
            visited.append(path)
            next_link = page.locator("a.md-footer__link--next")
            assert next_link.count() == 1, f"{path}: no link to the next page"
            next_link.click()
            page.wait_for_load_state("load")
            assert page.url.startswith(base) and page.url.endswith(".html"), page.url
            path = page.url.removeprefix(base)
        # search works from disk too (the index comes from search/search_index.js)
        page.keyboard.press("s")
        page.keyboard.type("sinusoidal")
        page.wait_for_selector(".md-search-result__item", timeout=10_000)
    finally:
        checker.close()
    assert len(set(visited)) == 3, visited
    problems = [p for r in reports for kind in KINDS for p in r.problems(kind)]
    assert not problems, "\n".join(problems)
