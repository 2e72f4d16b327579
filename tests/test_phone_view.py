"""Figures, tables and formulas on a phone and on a desktop, every page, both palettes.

At a 390 px viewport every figure shows its ``-phone.svg`` variant (narrower, text at
least 11 px in the column: ``tests/test_book.py`` checks the drawings), at 1280 px the
wide one; each figure's caption links to its full-size drawing. Every generated table
fits its column at 1280 px; at 390 px every generated table keeps its grid, and one
wider than the column sits in a scrolling wrapper, which shows its edge shadow, with its
first column held in view when it is scrolled. No display formula is wider than its
column at either width.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from browser_support import PRINT_PAGE, browser_missing, pages_of

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(browser_missing() is not None, reason=f"browser tests: {browser_missing()}"),
]

#: The longest the measures of every page may take (about 150 s on two cores), and how
#: many times they are started: a run that stalls is killed and started once more.
_MEASURE_S = 600
_TRIES = 2
_SCRIPT = Path(__file__).with_name("phone_views.py")


def _measure(server: str, pages: list[str], out: Path) -> str | None:
    """Run ``tests/phone_views.py`` into ``out``; None, or why it failed."""
    process = subprocess.Popen(
        [sys.executable, str(_SCRIPT), server, str(out), *pages],
        cwd=Path(__file__).parent,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # its Chromium in its process group, killed with it
    )
    try:
        output, _ = process.communicate(timeout=_MEASURE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return f"no answer in {_MEASURE_S} s (killed)"
    return None if process.returncode == 0 else output[-3000:]


@pytest.fixture(scope="module")
def views(server, site, tmp_path_factory):
    """Every page's figures, tables, displays and width, per palette and window width:
    ``seen[(scheme, width, path)][measure]`` (``tests/phone_views.py``)."""
    pages = [p for p in pages_of(site) if p != PRINT_PAGE]
    out = tmp_path_factory.mktemp("phone") / "views.json"
    failures = []
    for _ in range(_TRIES):
        failure = _measure(server, pages, out)
        if failure is None:
            rows = json.loads(out.read_text(encoding="utf-8"))
            return pages, {(s, w, path): v for s, w, path, v in rows}
        failures.append(failure)
    pytest.fail("the page measures failed twice:\n" + "\n---\n".join(failures))


def test_a_stalled_measure_is_killed_with_what_it_started(tmp_path, monkeypatch):
    """A measure that never answers is killed, with the process it started (as its
    Chromium), once its time is up: the test fails; the run goes on."""
    marker = tmp_path / "child.pid"
    stall = tmp_path / "stall.py"
    stall.write_text(
        "import pathlib, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"pathlib.Path({str(marker)!r}).write_text(str(child.pid))\n"
        "time.sleep(600)\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "_SCRIPT", stall)
    monkeypatch.setattr(sys.modules[__name__], "_MEASURE_S", 3)
    failure = _measure("http://127.0.0.1:9/", [], tmp_path / "out.json")
    assert failure == "no answer in 3 s (killed)"
    stat = Path(f"/proc/{int(marker.read_text())}/stat")  # gone, or dead and not reaped
    assert not stat.exists() or stat.read_text().split(") ")[1][0] in "ZX"


def _at(seen: dict, scheme: str, width: int, measure: str):
    """(path, what ``measure`` saw there) for every page in one palette at one width."""
    return [(path, v[measure]) for (s, w, path), v in seen.items() if (s, w) == (scheme, width)]


def test_pages_with_figures_and_scrolling_grids_are_found(views):
    pages, seen = views
    with_figures = {path for (_, _, path), v in seen.items() if v["figures"]}
    assert "foundations/sinusoidal.html" in with_figures and len(with_figures) >= 15
    grids = {
        path
        for (_, width, path), v in seen.items()
        if width == 390 and any(t["grid"] and t["scrolls"] for t in v["tables"])
    }
    assert {"practice/todays-models.html", "practice/evidence.html"} <= grids


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_each_width_shows_its_variant_loaded_and_within_the_column(views, scheme, width):
    _, seen = views
    problems = []
    for path, figures in _at(seen, scheme, width, "figures"):
        for f in figures:
            phone = f["src"].endswith("-phone.svg")
            if phone != (width == 390) or f"-{scheme}" not in f["src"]:
                problems.append(f"{path}: {f['src']} shown at {width} px in {scheme}")
            if not f["loaded"]:
                problems.append(f"{path}: {f['src']} did not load")
            if f["width"] > f["column"] + 0.5:
                problems.append(f"{path}: {f['src']} is {f['width']:.0f} px in {f['column']} px")
            if not f["full"]:
                problems.append(f"{path}: {f['src']} has no full-size link")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_tables_fit_or_show_that_they_scroll(views, scheme, width):
    _, seen = views
    problems = []
    for path, tables in _at(seen, scheme, width, "tables"):
        for t in tables:
            where = f"{path}: table {t['caption']!r}"
            if width == 1280 and t["scrolls"]:
                problems.append(f"{where} is wider than its column at 1280 px")
            if t["cards"]:
                problems.append(f"{where} is cards: every table keeps its grid")
            if width == 390 and t["grid"] and t["scrolls"] and not -1 <= t["held"] <= 24:
                problems.append(f"{where}: its first column scrolls away ({t['held']:.0f} px)")
            if t["scrolls"] and not t["shadow"]:
                problems.append(f"{where} scrolls without its edge shadow")
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_no_display_formula_is_wider_than_its_column(views, scheme, width):
    _, seen = views
    problems = [
        f"{path}: {d['width']:.0f} px in {d['box']} px: {d['text']}"
        for path, displays in _at(seen, scheme, width, "displays")
        for d in displays
    ]
    assert not problems, "\n".join(problems) + (
        "\nbreak each display over lines (\\begin{split} a &= b \\\\ &= c \\end{split}) "
        "or shorten it"
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_no_page_scrolls_sideways(views, scheme, width):
    """Wide content scrolls inside its own box (tables, code, displays), never the page."""
    _, seen = views
    pages = _at(seen, scheme, width, "page")
    problems = [
        f"{path}: {p['page']} px in a {p['window']} px window; {p['out']}"
        for path, p in pages
        if p["page"] > p["window"]
    ]
    assert pages and not problems, "\n".join(problems)


# every notebook plot at the viewport's width: the image it shows, its width in the page
# against its own pixels, and whether its box scrolls
_PLOTS = """async () => {
  const out = [];
  for (const img of document.querySelectorAll(".jp-RenderedImage img")) {
    img.scrollIntoView(); await img.decode().catch(() => {});
    const box = img.closest(".jp-RenderedImage");
    out.push({id: img.closest("figure") ? img.closest("figure").id : "?",
              shown: img.currentSrc.split("/").pop(), width: img.clientWidth,
              natural: img.naturalWidth, scrolls: box.scrollWidth > box.clientWidth + 1});
  }
  return out;
}"""
#: The phone drawings are 200 px an inch (pe_book.notebooks.PHONE_PLOT_DPI): shown at
#: least this many CSS px an inch, a label of 10 points is at least 12.5 CSS px tall.
LEAST_SCALE = 90 / 200


def plot_problems(page, url: str) -> tuple[int, list[str]]:
    """How many notebook plots a 390 px page shows, and those not shown as their phone
    drawing, scrolling sideways, or shrunk below :data:`LEAST_SCALE` of its pixels."""
    page.set_viewport_size({"width": 390, "height": 800})
    page.goto(url, wait_until="load")
    seen = page.evaluate(_PLOTS)
    problems = [
        f"{p['id']}: shows {p['shown']} at {p['width']} px of {p['natural']}"
        + (", scrolls sideways" if p["scrolls"] else "")
        for p in seen
        if not p["shown"].endswith("-phone.png")
        or p["scrolls"]
        or p["width"] < LEAST_SCALE * p["natural"]
    ]
    return len(seen), problems


@pytest.mark.parametrize(
    "notebook", ["part1-foundations", "part2-model", "part3-modern", "part4-practice"]
)
def test_a_notebook_plot_on_a_phone_is_drawn_for_it_and_fits_the_column(browser, server, notebook):
    context = browser.new_context()
    try:
        plots, problems = plot_problems(context.new_page(), f"{server}notebooks/{notebook}.html")
    finally:
        context.close()
    assert plots >= 2 and not problems, problems


def test_the_plot_check_fails_on_a_wide_plot_shrunk_or_scrolled(browser, tmp_path):
    """A page whose plot is the wide drawing (shrunk into the column, or kept at its size
    in a scrolling box) is reported, each way."""
    (tmp_path / "wide.png").write_bytes(_png(711, 334))
    (tmp_path / "page.html").write_text(
        "<!doctype html><meta charset=utf-8><meta name=viewport content='width=device-width'>"
        "<div class=jp-RenderedImage><img src=wide.png style='max-width:100%'></div>"
        "<div class=jp-RenderedImage style='overflow-x:auto'><img src=wide.png></div>",
        encoding="utf-8",
    )
    context = browser.new_context()
    try:
        plots, problems = plot_problems(context.new_page(), (tmp_path / "page.html").as_uri())
    finally:
        context.close()
    assert plots == 2 and len(problems) == 2, problems


def _png(width: int, height: int) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "#888888").save(buffer, format="PNG")
    return buffer.getvalue()
