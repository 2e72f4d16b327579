"""What a reader's browser sees: build the site once, serve it, and check pages in Chromium.

:func:`built_site` builds the book (``mkdocs build --strict``) once per test run
into a temporary directory. :class:`PageChecker` opens pages of a served (or
``file://``) site in one Chromium context and reports, per page, everything a
reader would notice: console errors, failed requests, requests to another
origin (stopped by routing before they are sent), images that did not load,
math that did not render, the wrong figure variant for the palette and axe-core
accessibility violations.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("PE_CHROMIUM", "/usr/bin/chromium"))  # PE_CHROMIUM: another one
DOCS = ROOT / "docs"
PRINT_PAGE = "print_page.html"  # the whole book on one page (print-site plugin)


def _load_screenshots():
    spec = importlib.util.spec_from_file_location(
        "screenshots", ROOT / "scripts" / "screenshots.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


screenshots = _load_screenshots()
CHROMIUM_ARGS = screenshots.CHROMIUM_ARGS
pages_of, serve = screenshots.pages_of, screenshots.serve


def mkdocs_config() -> dict:
    """mkdocs.yml as data, its ``!!python/name`` tags read as None."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not CHROMIUM.exists():
        return f"Chromium not found at {CHROMIUM} (install it: apt-get install chromium)"
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -r requirements.txt)"
    return None


def axe_script() -> Path:
    """axe-core as shipped inside the axe-playwright-python package."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.origin:
        raise RuntimeError("axe-playwright-python is not installed")
    path = Path(spec.origin).parent / "axe.min.js"
    if not path.exists():
        raise RuntimeError(f"axe.min.js not found in {path.parent}")
    return path


def build_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("NO_MKDOCS_2_WARNING", "1")
    env.setdefault("SOURCE_DATE_EPOCH", "0")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def build(dest: Path, *, config: Path | None = None, env: dict | None = None) -> Path:
    """``mkdocs build --strict`` from the venv into ``dest``; raises with mkdocs' output."""
    mkdocs = Path(sys.executable).with_name("mkdocs")
    command = [str(mkdocs), "build", "--strict", "--quiet", "-d", str(dest)]
    if config is not None:
        command += ["-f", str(config)]
    result = subprocess.run(
        command, cwd=ROOT, env=env or build_env(), capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"mkdocs build failed:\n{result.stdout}\n{result.stderr}")
    return dest


_BUILT: list[Path] = []


def built_site() -> Path:
    """The book built once per test run (a temporary directory, removed at exit).

    With ``PE_SITE=DIR`` in the environment, the site already built in DIR is used.
    """
    if not _BUILT and os.environ.get("PE_SITE"):
        _BUILT.append(Path(os.environ["PE_SITE"]).resolve())
    if not _BUILT:
        tmp = Path(tempfile.mkdtemp(prefix="pe-site-"))
        atexit.register(shutil.rmtree, tmp, True)
        _BUILT.append(build(tmp / "site"))
    return _BUILT[0]


# --- what the source of a page says --------------------------------------------------

_FENCED = re.compile(r"^([ \t]*)(`{3,}|~{3,}).*?^\1\2[ \t]*$", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_SOURCE_MATH = re.compile(r"\$\$.+?\$\$|(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$", re.S)


def source_of(page: str) -> Path | None:
    """The markdown file a built page comes from (None for generated pages)."""
    stem = page.removesuffix(".html").removesuffix("/index")
    for candidate in (DOCS / f"{stem}.md", DOCS / stem / "index.md"):
        if candidate.is_file():
            return candidate
    return None


def source_has_math(page: str) -> bool:
    source = source_of(page)
    if source is None:
        return False
    text = _INLINE_CODE.sub("", _FENCED.sub("", source.read_text(encoding="utf-8")))
    return bool(_SOURCE_MATH.search(text))


# --- checks run inside the page ------------------------------------------------------

# Load every image now (lazy ones too, hidden variants too) and wait for them.
_LOAD_IMAGES = """async () => {
  const images = [...document.images];
  images.forEach(i => { i.loading = "eager"; });
  await Promise.all(images.map(i => i.complete ? null : new Promise(done => {
    i.addEventListener("load", done, {once: true});
    i.addEventListener("error", done, {once: true});
  })));
  return images.filter(i => !(i.complete && i.naturalWidth > 0))
               .map(i => i.getAttribute("src"));
}"""

# Text a reader can read (code, scripts and MathML itself excluded), the math
# elements, the figure variants' visibility and the page background.
_INSPECT = """() => {
  const skip = "pre, code, script, style, noscript, textarea, math, kbd, samp";
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.parentElement.closest(skip)) texts.push(n.nodeValue);
  }
  const variants = [...document.querySelectorAll('img[src*="#only-"]')].map(i => ({
    src: i.getAttribute("src"),
    shown: getComputedStyle(i).display !== "none",
    background: getComputedStyle(i).backgroundColor,
  }));
  return {
    text: texts.join(" "),
    arithmatex: document.querySelectorAll(".arithmatex").length,
    arithmatexWithoutMath: [...document.querySelectorAll(".arithmatex")]
      .filter(e => !e.querySelector("math")).map(e => e.textContent.slice(0, 60)),
    math: document.querySelectorAll("math").length,
    emptyMath: [...document.querySelectorAll("math")]
      .filter(m => m.getBoundingClientRect().width === 0 && m.checkVisibility())
      .map(m => m.textContent.slice(0, 60)),
    scheme: document.body.getAttribute("data-md-color-scheme"),
    background: getComputedStyle(document.body).backgroundColor,
    variants,
  };
}"""

_RAW_TEX = re.compile(r"\\[A-Za-z]+|\\[()\[\]]|\$\$|(?<![\w$])\$(?=\S)[^$\n]{1,80}?(?<=\S)\$(?!\w)")

#: Markdown that did not render: **bold** markers, a list item run into a paragraph
#: (" - **"), a table's delimiter row.
_RAW_MARKDOWN = re.compile(r"\*\*\S[^*\n]{0,80}?\*\*|\s-\s\*\*|\|\s*:?-{3,}:?\s*\|")

_AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
_AXE_RUN = """async ([tags, skip]) => {
  const rules = Object.fromEntries(skip.map(id => [id, {enabled: false}]));
  const result = await axe.run(document, {
    runOnly: {type: "tag", values: tags}, rules, resultTypes: ["violations"],
  });
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + " :: " + n.failureSummary
                                        .replace(/\\s+/g, " ").slice(0, 160)),
    count: v.nodes.length,
  }));
}"""


@dataclass
class PageReport:
    """Everything wrong with one page in one palette, by kind (empty lists when fine)."""

    page: str
    console: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    math: list[str] = field(default_factory=list)
    palette: list[str] = field(default_factory=list)
    axe: list[str] = field(default_factory=list)
    background: str = ""

    def problems(self, kind: str) -> list[str]:
        return [f"{self.page}: {p}" for p in getattr(self, kind)]


class PageChecker:
    """One Chromium context (one palette) that checks pages of one site.

    ``base`` is the site's root URL (``http://127.0.0.1:PORT/`` or ``file:///…/``).
    Every request outside ``base`` is recorded and aborted before it is sent.
    """

    def __init__(self, browser, base: str, scheme: str, *, axe: bool = True):
        self.base, self.scheme, self.axe = base, scheme, axe
        self.context = browser.new_context(
            color_scheme=scheme, viewport={"width": 1280, "height": 900}
        )
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self._report: PageReport | None = None
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self._add("console", f"uncaught: {exc}"))
        self.page.on("requestfailed", self._request_failed)
        self.page.on("response", self._response)

    def _add(self, kind: str, message: str) -> None:
        if self._report is not None:
            getattr(self._report, kind).append(message)

    def _inside(self, url: str) -> bool:
        return url.startswith(self.base) or url.startswith(("data:", "blob:", "about:"))

    def _route(self, route) -> None:
        url = route.request.url
        if self._inside(url):
            route.continue_()
        else:
            self._add("external", url)
            route.abort("blockedbyclient")

    def _console(self, message) -> None:
        if message.type in ("error", "warning") or "error" in message.text.lower():
            self._add("console", f"{message.type}: {message.text}")

    def _request_failed(self, request) -> None:
        if request.failure == "net::ERR_ABORTED" and request.url.endswith("/favicon.png"):
            return  # Chromium's own favicon fetch, cancelled on file:// pages; not content
        if request.failure == "net::ERR_ABORTED" and self._retrievable(request.url):
            return  # cancelled by the browser (a worker or a navigation), not a broken file
        if self._inside(request.url):
            self._add("failed", f"{request.url} ({request.failure})")

    def _retrievable(self, url: str) -> bool:
        """Whether a same-site URL the browser aborted can be fetched: then nothing is broken.

        Chromium cancels requests it no longer needs (a search worker's script when the
        page is torn down, say) and reports them as ``net::ERR_ABORTED``; a missing file
        is reported by its HTTP status instead, or is not on disk.
        """
        if not url.startswith(self.base) or url.startswith(("data:", "blob:")):
            return False
        plain = url.split("#", 1)[0].split("?", 1)[0]
        if plain.startswith("file://"):
            return Path(urllib.parse.unquote(plain[len("file://") :])).is_file()
        try:
            with urllib.request.urlopen(plain, timeout=10) as response:
                return response.status == 200
        except (OSError, ValueError):
            return False

    def _response(self, response) -> None:
        if response.status >= 400:
            self._add("failed", f"{response.url} (HTTP {response.status})")

    def check(self, path: str, *, math_expected: bool | None = None) -> PageReport:
        """Open ``path`` (relative to ``base``) and check everything on it."""
        report = self._report = PageReport(path)
        page = self.page
        page.goto(self.base + path, wait_until="load")
        report.images += [f"did not load: {src}" for src in page.evaluate(_LOAD_IMAGES)]
        seen = page.evaluate(_INSPECT)
        report.background = seen["background"]
        if math_expected is None:
            math_expected = source_has_math(path)
        if math_expected and seen["math"] == 0:
            report.math.append("the source has math but the page shows no <math> element")
        report.math += [f"not MathML: {t!r}" for t in seen["arithmatexWithoutMath"]]
        report.math += [f"MathML with no width: {t!r}" for t in seen["emptyMath"]]
        report.math += [f"raw TeX in the text: {m!r}" for m in _RAW_TEX.findall(seen["text"])]
        report.math += [f"raw Markdown: {m!r}" for m in _RAW_MARKDOWN.findall(seen["text"])]
        report.palette += self._palette_problems(seen, page=path)
        if self.axe:
            page.add_script_tag(path=str(axe_script()))
            # The one-page book repeats every page's content, whose contrast is
            # checked on the page itself; the contrast rule is the slow one.
            skip = ["color-contrast"] if path == PRINT_PAGE else []
            for v in page.evaluate(_AXE_RUN, [_AXE_TAGS, skip]):
                report.axe.append(
                    f"{v['id']} ({v['impact']}, {v['count']} nodes): {v['help']}; "
                    + " | ".join(v["nodes"])
                )
        self._report = None
        return report

    def _palette_problems(self, seen: dict, scheme: str | None = None, page: str = "") -> list[str]:
        scheme = scheme or self.scheme
        want = {"light": "default", "dark": "slate"}[scheme]
        problems = []
        if seen["scheme"] != want:
            problems.append(f"palette is {seen['scheme']!r}, expected {want!r}")
        if page == PRINT_PAGE:
            return problems + self._print_page_problems(seen, scheme)
        for image in seen["variants"]:
            should_show = image["src"].endswith(f"#only-{scheme}")
            if image["shown"] != should_show:
                state = "shown" if image["shown"] else "hidden"
                problems.append(f"{image['src']} is {state} in the {scheme} palette")
        return problems

    @staticmethod
    def _print_page_problems(seen: dict, scheme: str) -> list[str]:
        """The one-page book carries each figure once, light (pe_book/print_page.py):
        shown in both palettes, on white in the dark one (the background it is drawn for)."""
        problems = []
        for image in seen["variants"]:
            if not image["src"].endswith("#only-light"):
                problems.append(f"{image['src']}: the one-page book has light figures only")
            elif not image["shown"]:
                problems.append(f"{image['src']} is hidden in the {scheme} palette")
            elif scheme == "dark" and image["background"] != "rgb(255, 255, 255)":
                problems.append(f"{image['src']} is on {image['background']}, not white")
        if not seen["variants"]:
            problems.append("the one-page book shows no figure")
        return problems

    def toggle_palette(self) -> list[str]:
        """Click the palette toggle once; problems if the other variants do not show."""
        page = self.page
        other = "dark" if self.scheme == "light" else "light"
        page.locator("form[data-md-component=palette] label:visible").first.click()
        page.wait_for_function(
            "s => document.body.getAttribute('data-md-color-scheme') === s",
            arg={"light": "default", "dark": "slate"}[other],
        )
        seen = page.evaluate(_INSPECT)
        problems = self._palette_problems(seen, other)
        if not seen["variants"]:
            problems.append("no figure on this page to check the toggle with")
        return problems

    def close(self) -> None:
        self.context.close()
