"""MkDocs hooks: thin glue between MkDocs and :mod:`pe_book`.

* ``on_config`` drops the imported ``pe_explained`` and ``pe_book`` modules when a
  source or data file changed since they were imported, so ``mkdocs serve`` picks up
  edits to the library and the book (and keeps them, and what they hold, when not).
* ``on_files`` renders every registered figure (light and dark SVG, from the build
  cache, :mod:`pe_book.build_cache`, unless what a drawing read changed) and adds them
  to the site, so ``--strict`` checks links to them; in the same worker processes it
  computes every page's values and tables the cache lacks (:mod:`pe_book.workers`).
  It also has Python-Markdown's conversion, the search entries and print-site's links
  of each page kept in the build cache by the hash of their input (:mod:`pe_book.kept_stages`).
* ``on_page_markdown`` runs the shortcode stage of the page pipeline
  (:mod:`pe_book.pages`): ``{{ figure: … }}``, ``{{ table: … }}``, ``{{ value: … }}``,
  ``{{ cite: … }}``, ``{{ references: … }}`` and the rest; computed texts come from the
  build cache too, and ``on_env`` logs each one computed again, with why.
* ``on_page_content`` runs its HTML stages (math to MathML, with no script and no
  network; tables; typography; read back from the build cache while the page's HTML and
  the stages' modules are unchanged) and finishes the pages of the companion notebooks
  (``docs/notebooks/*.py``, executed by mkdocs-jupyter); it runs before other
  plugins' ``on_page_content`` so that they see the finished page.
* ``on_post_page`` sets the theme's start-up marks as the body starts, loads the page's
  scripts from the end of its body and links the notebooks' stylesheet on their pages
  only (:mod:`pe_book.pages.loading`).
* ``on_env``, once every page is rendered, writes the math font: STIX Two Math
  subset to the characters of the pages' MathML (:mod:`pe_book.fonts`).
* ``on_post_build``, after print-site has written the whole book on one page,
  leaves only the light variant of each figure there and links the plugin's
  stylesheets and script, which ``on_config`` takes off every other page
  (:mod:`pe_book.print_page`).
* In ``book.py serve`` (``mkdocs serve --dirty``), where MkDocs rebuilds only the pages
  whose source changed, ``on_startup`` keeps MkDocs' warning about dirty builds out of
  the strict count, ``on_files`` has every page rebuilt too that shows a value, table or
  figure the build cache must compute again (saying why), ``on_env`` draws the math font
  for every page's formulas, and ``on_post_build`` keeps each page's sections once in the
  search index and the first build's one-page book.
* ``on_config``/``on_files`` also point mkdocs-jupyter's cache at a folder keyed
  by the library's sources, start executing the notebooks in the background (their
  pages wait for them in ``on_page_markdown``) and add each ``.ipynb`` download, with
  the library's wheel that a notebook's first cell installs (:mod:`pe_book.wheel`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import logging
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

_sizes: dict[tuple[str, str], tuple[int, int]] = {}
_math_chars: set[str] = set()  # what the pages' MathML draws (pe_book.fonts)
_print_assets: dict[str, list[str]] = {}  # print-site's CSS and JS, for its page only
_build: dict[str, object] = {}  # this build's cache (pe_book.build_cache.BuildCache)
_ROOT = Path(__file__).resolve().parent.parent
#: What the imported modules were made from: when none of it changed, a rebuild keeps them.
_SOURCES = [
    (_ROOT / "pe_explained", "*.py"),
    (_ROOT / "pe_book", "*.*"),
    (_ROOT / "docs" / "data", "*"),
]
log = logging.getLogger("mkdocs.hooks.book")
#: ``book.py serve`` (``mkdocs serve --dirty``): whether this is one, and per page what it
#: showed: the build cache's keys and the math characters. MkDocs keeps this module
#: between the rebuilds of one serve.
_serve: dict = {"dirty": False, "pages": {}, "print_page": None}


class _DirtyNotice(logging.Filter):
    """Drop MkDocs' warning that a dirty build may leave navigation and links inaccurate:
    in strict mode it fails every rebuild of ``book.py serve``, and the hook takes in hand
    what it warns of (a page whose values, tables or figures changed is rebuilt too; the
    math font and the one-page book stay whole; the navigation's titles are the
    configuration's)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith("A 'dirty' build is being performed")


def on_startup(command, dirty):
    _serve["dirty"] = command == "serve" and dirty
    if _serve["dirty"]:
        logging.getLogger("mkdocs.commands.build").addFilter(_DirtyNotice())
        log.info(
            "dirty serve: a rebuild renders the pages whose source or whose values, tables "
            "or figures changed (search lists a rebuilt page's sections; the one-page book "
            "is the first build's)"
        )


def _book(module: str):
    return importlib.import_module(f"pe_book.{module}")


def _sources() -> tuple:
    """(path, modification time, size) of every source and data file of the book."""
    return tuple(
        (str(p), p.stat().st_mtime_ns, p.stat().st_size)
        for folder, pattern in _SOURCES
        for p in sorted(folder.rglob(pattern))
        if p.is_file() and "__pycache__" not in p.parts
    )


def on_config(config):
    sources = _sources()
    if getattr(sys.modules.get("pe_book"), "_built_from", None) != sources:
        for name in [m for m in sys.modules if m.split(".")[0] in ("pe_explained", "pe_book")]:
            del sys.modules[name]
        importlib.import_module("pe_book")._built_from = sources
    _book("build_cache").reads()  # from now on, what each module reads is seen
    _book("notebooks").configure_jupyter(config)
    _print_assets.clear()
    _print_assets.update(_book("print_page").move_plugin_assets(config))
    return config


def on_files(files, config):
    render, pages, notebooks = _book("render"), _book("pages"), _book("notebooks")
    notebooks.start_executing(files, config)  # in the background, while figures render
    folder = Path(config["config_file_path"]).parent / ".cache" / "book"
    _build["cache"] = cache = _book("build_cache").BuildCache(folder)
    _book("kept_stages").keep(cache)  # Markdown, search entries, print-site's links
    # every page's computed texts too, but in a dirty serve's rebuild, which must see
    # what changed to rebuild the pages that show it (_rebuild_stale_pages)
    shown = {} if _serve["dirty"] and _serve["pages"] else _page_sources(files)
    try:
        svgs = _book("workers").prepare(cache, shown)
    except Exception as exc:
        raise PluginError(f"rendering figures failed: {exc}") from exc
    _sizes.clear()
    for (name, theme, layout), svg in svgs.items():
        _sizes[(name, layout)] = render.svg_size(svg)
        stem = render.variant_name(name, theme, layout)
        files.append(File.generated(config, f"{pages.FIGURE_DIR}/{stem}.svg", content=svg))
    for source in [f for f in files if notebooks.is_notebook(f.src_uri)]:
        text = notebooks.notebook_json(source.abs_src_path)
        files.append(File.generated(config, notebooks.download_name(source.src_uri), content=text))
    wheel = _book("wheel")  # the library, as the notebooks' first cell installs it
    root = Path(config["config_file_path"]).parent
    try:
        data = wheel.library_wheel(root, root / ".cache" / "wheel")
    except RuntimeError as exc:
        raise PluginError(str(exc)) from exc
    files.append(File.generated(config, wheel.wheel_path(root), content=data))
    _math_chars.clear()  # the math font is written in on_env, once every page is rendered
    if _serve["dirty"]:
        _rebuild_stale_pages(files, cache)
    files.append(File.generated(config, _book("fonts").FONT_FILE, content=b""))
    return files


def _page_sources(files) -> dict[str, str]:
    """The Markdown of every page of the book (not a notebook's), by its source path."""
    notebooks = _book("notebooks")
    return {
        f.src_uri: Path(f.abs_src_path).read_text(encoding="utf-8")
        for f in files.documentation_pages()
        if not notebooks.is_notebook(f.src_uri)
    }


def on_page_markdown(markdown, page, config, files):
    pages, notebooks = _book("pages"), _book("notebooks")
    if notebooks.is_notebook(page.file.src_uri):
        try:
            notebooks.wait_for(page.file.abs_src_path)
        except Exception as exc:
            raise PluginError(f"{page.file.src_uri}: executing the notebook failed: {exc}") from exc
        return markdown  # a notebook's page is rendered by mkdocs-jupyter
    shown: set[str] = set()

    def cached(key, compute, stamp=""):
        shown.add(key)
        return _build["cache"].text(key, compute, stamp)

    _serve["pages"].setdefault(page.file.src_uri, {"chars": set()})["keys"] = shown
    try:
        return pages.expand_shortcodes(markdown, page.file.src_uri, _sizes, cached)
    except pages.BookError as exc:
        raise PluginError(str(exc)) from exc


@event_priority(50)
def on_page_content(html, page, config, files):
    pages, notebooks = _book("pages"), _book("notebooks")
    try:
        if notebooks.is_notebook(page.file.src_uri):
            html = pages.finish_notebook_page(html, page, config, files)
        else:
            stamp = hashlib.sha256(html.encode()).hexdigest()
            finish = functools.partial(pages.finish_html, html, page.file.src_uri)
            html = _build["cache"].text(f"html:{page.file.src_uri}", finish, stamp)
    except pages.BookError as exc:
        raise PluginError(str(exc)) from exc
    chars = _book("fonts").math_characters(html)
    _math_chars.update(chars)
    _serve["pages"].setdefault(page.file.src_uri, {"keys": set()})["chars"] = chars
    return html


def on_post_page(output, page, config):
    root = "/".join([".."] * page.file.dest_uri.count("/")) or "."
    notebook = _book("notebooks").is_notebook(page.file.src_uri)
    return _book("pages").finish_output(output, notebook=notebook, root=root)


def on_env(env, config, files):
    cache = _build["cache"]
    cache.save_reads()
    for key, why in sorted(cache.recomputed.items()):
        log.info(f"computed again: {key} ({why})")
    fonts = _book("fonts")
    if _serve["dirty"]:  # pages not rebuilt still show their formulas
        _math_chars.update(*(seen["chars"] for seen in _serve["pages"].values()))
    try:
        font = fonts.kept_subset(_math_chars, cache)
    except Exception as exc:
        raise PluginError(f"subsetting the math font failed: {exc}") from exc
    files.get_file_from_path(fonts.FONT_FILE).content_bytes = font
    return env


@event_priority(-100)  # after print-site's on_post_build, which writes the page
def on_post_build(config):
    printing = config.plugins.get("print-site")
    if printing is None:
        return
    if _serve["dirty"]:
        _whole_search_index(config)
    name = printing.config.get("print_page_basename", "print_page") + ".html"
    path = Path(config.site_dir) / name
    if _serve["dirty"] and _serve["print_page"] is not None:  # a rebuild: the book as it was
        path.write_bytes(_serve["print_page"])
        return
    try:
        _book("print_page").finish_print_page(config.site_dir, name, **_print_assets)
    except ValueError as exc:
        raise PluginError(f"{name}: {exc}") from exc
    if _serve["dirty"]:
        _serve["print_page"] = path.read_bytes()


def _rebuild_stale_pages(files, cache) -> None:
    """In a dirty serve, MkDocs rebuilds only the pages whose source changed: remove the
    built HTML of every other page that shows a value, table or text the cache must
    compute again, or a figure drawn again, so that it is rebuilt too; say why."""
    redrawn = {k.split(":")[1].partition("/")[0] for k in cache.recomputed if k[:7] == "figure:"}
    for uri, seen in sorted(_serve["pages"].items()):
        why = None
        for key in sorted(seen.get("keys", ())):
            kind, _, name = key.partition(":")
            if kind in ("alt", "caption") and name in redrawn:
                why = f"{key} (the figure was drawn again)"
            elif kind != "html" and (reason := cache.lookup(key)[1]) is not None:
                why = f"{key} ({reason or 'not kept'})"
            if why:
                break
        built = files.get_file_from_path(uri)
        if why and built is not None and Path(built.abs_dest_path).exists():
            Path(built.abs_dest_path).unlink()
            log.info(f"rebuilding {uri}: {why}")


def _whole_search_index(config) -> None:
    """In a dirty serve the search plugin appends a rebuilt page's sections to the index
    it kept, and drops the old ones of only one page: keep each page's newest sections
    (the last run of them), in the plugin's memory and in ``search/search_index.json``."""
    plugin = config.plugins.get("material/search") or config.plugins.get("search")
    index = getattr(plugin, "search_index", None)
    path = Path(config.site_dir) / "search" / "search_index.json"
    if index is None or not path.exists():
        return
    runs: list[tuple[str, list]] = []  # a page's entries: the page itself, its sections
    for entry in index.entries:
        page, section, _ = entry["location"].partition("#")
        if runs and runs[-1][0] == page and section:
            runs[-1][1].append(entry)
        else:
            runs.append((page, [entry]))
    last = {page: i for i, (page, _) in enumerate(runs)}
    index.entries = [e for i, (page, run) in enumerate(runs) if last[page] == i for e in run]
    data = json.loads(path.read_text(encoding="utf-8"))
    data["docs"] = index.entries
    path.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
