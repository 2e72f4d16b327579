"""Every page's figures, tables, display formulas and width, per palette and window
width, measured in a Chromium of its own: the data of ``tests/test_phone_view.py``.

    python tests/phone_views.py BASE_URL OUT.json PATH [PATH ...]

It runs as a process of its own, which the test kills, with every Chromium it started,
if it has not finished in time: a measure that never comes back (one did, after a long
series of browser tests) fails the test instead of holding the whole run.
"""

from __future__ import annotations

import json
import sys

from browser_support import CHROMIUM, CHROMIUM_ARGS

# every figure the reader can see: its source, whether it loaded, its width and the column's
_FIGURES = """async () => {
  for (let y = 0; y < document.body.scrollHeight; y += 600) {
    window.scrollTo(0, y);
    await new Promise(r => setTimeout(r, 15));
  }
  // the book's figures (a notebook's plots: test_a_notebook_plot_on_a_phone_…)
  const shown = [...document.querySelectorAll("figure:not(.nb-figure) picture img")]
    .filter(i => i.offsetParent !== null);
  // decode() may never settle for an image the page has not painted: bounded
  const settle = i => Promise.race([i.decode().catch(() => null),
                                    new Promise(r => setTimeout(r, 5000))]);
  await Promise.all(shown.map(settle));
  const column = document.querySelector(".md-content__inner").clientWidth;
  return shown.map(i => ({
    src: i.currentSrc.split("/").pop(), loaded: i.complete && i.naturalWidth > 0,
    width: i.getBoundingClientRect().width, column,
    full: !!i.closest("figure").querySelector("figcaption a.figure-full"),
  }));
}"""


# every display formula wider than its box: its width, the box's and its start
_DISPLAYS = """() => [...document.querySelectorAll(".md-typeset div.arithmatex")]
  .map(d => ({math: d.querySelector("math"), box: Math.min(d.clientWidth,
               document.querySelector(".md-content__inner").clientWidth)}))
  .filter(d => d.math && d.math.getBoundingClientRect().width > d.box + 0.5)
  .map(d => ({width: d.math.getBoundingClientRect().width, box: d.box,
              text: d.math.textContent.replace(/\\s+/g, " ").slice(0, 50)}))"""

# every table: whether it is a generated grid, its width and its column's, and where its
# first column's cell is once its wrapper is scrolled (then scrolled back)
_TABLES = """() => [...document.querySelectorAll(".md-typeset table:not(.highlighttable)")]
  .filter(t => t.closest(".md-typeset") && !t.closest(".highlight"))
  .map(t => {
    const wrap = t.closest(".md-typeset__scrollwrap");
    const scrolls = !!wrap && wrap.scrollWidth > wrap.clientWidth + 1;
    const cell = t.querySelector("tbody td");
    let held = null;
    if (scrolls && cell) {
      wrap.scrollLeft = Math.min(150, wrap.scrollWidth - wrap.clientWidth);
      held = cell.getBoundingClientRect().left - wrap.getBoundingClientRect().left;
      wrap.scrollLeft = 0;
    }
    return {
      grid: t.hasAttribute("data-grid"), cards: t.hasAttribute("data-cards"),
      width: t.getBoundingClientRect().width, held,
      column: document.querySelector(".md-content__inner").clientWidth,
      scrolls, shadow: !!wrap && getComputedStyle(wrap).backgroundImage.includes("gradient"),
      caption: (t.closest(".md-typeset__scrollwrap") || t).previousElementSibling?.textContent
        .slice(0, 30) || "",
    };
  })"""


# how wide the page is against the window (a page wider than its window scrolls sideways),
# and the first elements that stick out, to name the culprit
_PAGE_WIDTH = """() => ({
  page: document.documentElement.scrollWidth, window: window.innerWidth,
  out: [...document.querySelectorAll(".md-content__inner p, .md-content__inner li")]
    .filter(e => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right >
      window.innerWidth + 1).slice(0, 3).map(e => e.textContent.trim().slice(0, 60)),
})"""

#: The longest a page may take to load or answer a measure.
WAIT_MS = 60_000
#: What is measured on each page, by name (each returns an object or list: truthy, as
#: ``wait_for_function`` needs).
MEASURES = {"figures": _FIGURES, "tables": _TABLES, "displays": _DISPLAYS, "page": _PAGE_WIDTH}
SCHEMES = ("light", "dark")
WIDTHS = (390, 1280)


def measure(base: str, pages: list[str]) -> list[list]:
    """``[scheme, width, path, {measure: what it saw}]`` for every page, palette and
    width."""
    from playwright.sync_api import sync_playwright

    seen = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        for scheme in SCHEMES:
            for width in WIDTHS:
                context = browser.new_context(
                    color_scheme=scheme, viewport={"width": width, "height": 844}
                )
                context.set_default_timeout(WAIT_MS)
                page = context.new_page()
                for path in pages:
                    page.goto(base + path, wait_until="load")
                    seen.append(
                        [
                            scheme,
                            width,
                            path,
                            {
                                name: page.wait_for_function(script).json_value()
                                for name, script in MEASURES.items()
                            },
                        ]
                    )
                context.close()
        browser.close()
    return seen


if __name__ == "__main__":
    base, out, *paths = sys.argv[1:]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(measure(base, paths), f)
