#!/usr/bin/env python3
"""Screenshot pages of the built site in headless Chromium, light and dark.

    .venv/bin/python scripts/screenshots.py                 # every page of site/
    .venv/bin/python scripts/screenshots.py --site DIR foundations/sinusoidal/ modern/rope/

Serves the built site on 127.0.0.1 (a free port), opens each page with the
system Chromium (/usr/bin/chromium), scrolls through it (the interactive figures are
built only when they near the screen), and writes full-page PNGs named
``<page>-light.png`` / ``<page>-dark.png`` into ``screenshots/`` (or --out).
The dark variant is what a reader whose system prefers a dark scheme sees.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import io
import socketserver
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def pages_of(site: Path) -> list[str]:
    """URL paths of every page of a built site ("index.html" is the home page).

    Works for both URL styles: ``page.html`` (``use_directory_urls: false``,
    this book) and ``page/index.html``.
    """
    pages = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site).as_posix()
        if rel.startswith(("assets/", "search/", "css/", "js/")) or rel.startswith("404"):
            continue
        pages.append(rel)
    return pages


def page_file(site: Path, path: str) -> str:
    """The built file for a page path given either way: ``modern/rope/``,
    ``modern/rope``, ``modern/rope.html`` or ``''`` (home)."""
    stem = path.strip("/")
    candidates = (stem, f"{stem}.html", f"{stem}/index.html") if stem else ("index.html",)
    for candidate in candidates:
        if (site / candidate).is_file():
            return candidate
    raise SystemExit(f"no page {path!r} in {site}")


def shot_name(path: str) -> str:
    """``modern/rope.html`` -> ``modern_rope``; the home page is ``index``."""
    stem = path.removesuffix(".html").removesuffix("/index").strip("/")
    return stem.replace("/", "_") or "index"


#: File types a static host compresses (text); images and fonts are sent as they are.
COMPRESSED = (".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt", ".map", ".ipynb")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    """A static host: quiet, and text gzip-compressed for clients that accept it."""

    def log_message(self, *args):
        pass

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in COMPRESSED):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


def serve(site: Path):
    """Serve ``site`` on a free loopback port in a thread; returns (server, base URL)."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


#: Scroll down a screen at a time, as a reader does, then back to the top: the widgets
#: (interactive.js) are built only when their figure comes near the screen.
_SCROLL_THROUGH = """async () => {
  const pause = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 30)));
  for (let y = 0; y < document.documentElement.scrollHeight; y += innerHeight / 2) {
    scrollTo(0, y);
    await pause();
  }
  scrollTo(0, 0);
  await pause();
  return [...document.querySelectorAll(".pe-interactive[data-interactive]")]
    .filter((w) => !w.dataset.ready).map((w) => w.dataset.interactive);
}"""


def scroll_through(page) -> None:
    """Scroll ``page`` from top to bottom and back, so that every widget on it is built
    before a full-page screenshot; raises if one is still unbuilt."""
    unbuilt = page.evaluate(_SCROLL_THROUGH)
    if unbuilt:
        raise RuntimeError(f"{page.url}: widgets not built after scrolling: {unbuilt}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pages", nargs="*", help="page paths such as foundations/sinusoidal/")
    parser.add_argument("--site", type=Path, default=ROOT / "site")
    parser.add_argument("--out", type=Path, default=ROOT / "screenshots")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args(argv)
    if not (args.site / "index.html").exists():
        print(f"no built site in {args.site}: run python3 scripts/book.py build", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    pages = [page_file(args.site, p) for p in args.pages] or pages_of(args.site)
    args.out.mkdir(parents=True, exist_ok=True)
    server, base = serve(args.site)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for scheme in ("light", "dark"):
                context = browser.new_context(
                    color_scheme=scheme, viewport={"width": args.width, "height": 900}
                )
                page = context.new_page()
                for path in pages:
                    page.goto(base + path, wait_until="networkidle")
                    page.evaluate(
                        "document.querySelectorAll('img[loading=lazy]')"
                        ".forEach(i => i.loading = 'eager')"
                    )
                    scroll_through(page)
                    page.wait_for_load_state("networkidle")
                    name = f"{shot_name(path)}-{scheme}.png"
                    page.screenshot(path=str(args.out / name), full_page=True)
                    print(args.out / name)
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
