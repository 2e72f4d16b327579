"""The one-page book printed to PDF in Chromium: whole, within the page, in the light palette.

The one-page book exists to be printed (it is exempt from the phone performance target).
Chromium lays it out for A4 with the print stylesheet, from a browser that prefers the
dark palette, and the test checks what the paper gets:

- every numbered chapter's heading, every figure and every table of the page is printed
  (not hidden by a screen-only rule), each figure's image loaded;
- every figure prints its light variant, and none prints its dark one;
- every long Python session, folded on the site, prints open;
- nothing is wider than the printable width: no text, image or table runs past the
  right margin (a table cut at the edge of the paper loses its last columns);
- the PDF itself is made, with at least one page per chapter.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_site_quality import numbered_chapters

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _shortcodes(kind: str) -> int:
    """How many ``{{ figure: … }}`` or ``{{ table: … }}`` the book's pages hold."""
    pattern = re.compile(r"\{\{ " + kind + r":")
    return sum(len(pattern.findall(p.read_text(encoding="utf-8"))) for p in DOCS.rglob("*.md"))


pytestmark = pytest.mark.browser

#: A4 at 96 px per inch, less the 12 mm margins the test prints with: the printable width.
A4_WIDTH_PX = 794
MARGIN_MM = 12
PRINTABLE_PX = A4_WIDTH_PX - 2 * round(MARGIN_MM / 25.4 * 96)

#: What the paper gets, read from the page laid out for print.
_PRINTED = """() => {
  const shown = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.display === "none" || style.visibility === "hidden") return false;
    }
    return true;
  };
  const content = document.querySelector(".md-content") || document.body;
  const chapters = [...content.querySelectorAll("h1")]
    .filter((h) => /^\\s*\\d+\\.\\s/.test(h.textContent) && shown(h)).length;
  const figures = [...content.querySelectorAll("figure")].filter((f) => f.querySelector("img"));
  const figureProblems = [];
  for (const f of figures) {
    const printed = [...f.querySelectorAll("img")].filter(shown);
    const id = f.id || (f.querySelector("figcaption") || f).textContent.slice(0, 50);
    if (printed.length !== 1) figureProblems.push(`${id}: ${printed.length} images printed`);
    for (const img of printed) {
      const src = img.currentSrc || img.src;
      if (/-dark(-phone)?\\.svg/.test(src)) figureProblems.push(`${id}: prints ${src}`);
      if (!img.complete || img.naturalWidth === 0) figureProblems.push(`${id}: not loaded`);
    }
  }
  // each generated table: the first table after its caption
  const tables = [...content.querySelectorAll("p.table-caption")].map((caption) => {
    for (let e = caption.nextElementSibling; e; e = e.nextElementSibling) {
      const table = e.matches("table") ? e : e.querySelector("table");
      if (table) return table;
    }
    return null;
  }).filter(Boolean);
  const hiddenTables = tables.filter((t) => !shown(t)).length;
  const limit = document.documentElement.clientWidth + 1;
  const wide = [];
  const kinds = "p, li, pre, table, img, svg, math, figure, h1, h2, h3";
  for (const el of content.querySelectorAll(kinds)) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > limit) {
      wide.push(`${el.tagName.toLowerCase()} ${Math.round(r.right)} px: ` +
                (el.textContent || el.getAttribute("src") || "").trim().slice(0, 60));
    }
  }
  const folds = [...content.querySelectorAll("details.pe-fold")];
  return {chapters, figures: figures.length, figureProblems, tables: tables.length,
          hiddenTables, wide: wide.slice(0, 15), wideCount: wide.length,
          folds: folds.length, closedFolds: folds.filter((d) => !d.open).length};
}"""


@pytest.fixture(scope="module")
def printed(browser, server):
    """The one-page book laid out for print at the printable width of A4, every image
    loaded first (lazy images are asked for eagerly, as a print would need them)."""
    context = browser.new_context(
        viewport={"width": PRINTABLE_PX, "height": 1100}, color_scheme="dark"
    )
    page = context.new_page()
    page.goto(f"{server}/print_page.html", wait_until="load", timeout=120_000)
    page.evaluate(
        """async () => {
      const images = [...document.images];
      images.forEach((img) => { img.loading = "eager"; });
      await Promise.all(images.map((img) => img.complete ? null :
        new Promise((done) => { img.onload = img.onerror = done; })));
    }"""
    )
    page.emulate_media(media="print", color_scheme="dark")
    facts = page.evaluate(_PRINTED)
    pdf = page.pdf(
        format="A4",
        margin={side: f"{MARGIN_MM}mm" for side in ("top", "bottom", "left", "right")},
    )
    context.close()
    return facts, pdf


def test_every_chapter_figure_and_table_is_printed(printed):
    facts, _ = printed
    assert facts["chapters"] == numbered_chapters(), facts["chapters"]
    assert facts["figures"] == _shortcodes("figure"), facts["figures"]
    assert facts["tables"] == _shortcodes("table"), facts["tables"]
    assert facts["hiddenTables"] == 0


def test_every_folded_session_prints_open(printed):
    facts, _ = printed
    assert facts["folds"] >= 5 and facts["closedFolds"] == 0, facts


def test_every_figure_prints_its_light_variant_loaded(printed):
    facts, _ = printed
    assert facts["figureProblems"] == []


def test_nothing_runs_past_the_printable_width(printed):
    facts, _ = printed
    assert facts["wideCount"] == 0, facts["wide"]


def test_the_pdf_has_a_page_per_chapter_at_least(printed):
    _, pdf = printed
    assert pdf.startswith(b"%PDF-")
    pages = len(re.findall(rb"/Type\s*/Page(?![a-zA-Z])", pdf))  # a page, not the /Pages tree
    assert pages >= numbered_chapters(), pages
