"""MkDocs hooks: thin glue between MkDocs and :mod:`pe_book`.

* ``on_config`` drops the imported ``pe_explained`` and ``pe_book`` modules when a
  source or data file changed since they were imported, so ``mkdocs serve`` picks up
  edits to the library and the book (and keeps them, and what they hold, when not).
* ``on_files`` renders every registered figure (light and dark SVG, from the build
  cache, :mod:`pe_book.build_cache`, unless what a drawing read changed) and adds them
  to the site, so ``--strict`` checks links to them.
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
* ``on_config``/``on_files`` also point mkdocs-jupyter's cache at a folder keyed
  by the library's sources, start executing the notebooks in the background (their
  pages wait for them in ``on_page_markdown``) and add each ``.ipynb`` download.
"""

from __future__ import annotations

import hashlib
import importlib
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
    try:
        svgs = render.render_all_figures(folder, cache.recomputed)
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
    _math_chars.clear()  # the math font is written in on_env, once every page is rendered
    files.append(File.generated(config, _book("fonts").FONT_FILE, content=b""))
    return files


def on_page_markdown(markdown, page, config, files):
    pages, notebooks = _book("pages"), _book("notebooks")
    if notebooks.is_notebook(page.file.src_uri):
        try:
            notebooks.wait_for(page.file.abs_src_path)
        except Exception as exc:
            raise PluginError(f"{page.file.src_uri}: executing the notebook failed: {exc}") from exc
        return markdown  # a notebook's page is rendered by mkdocs-jupyter
    try:
        return pages.expand_shortcodes(markdown, page.file.src_uri, _sizes, _build["cache"].text)
    except pages.BookError as exc:
        raise PluginError(str(exc)) from exc


@event_priority(50)
def on_page_content(html, page, config, files):
    pages, notebooks = _book("pages"), _book("notebooks")
    try:
        if notebooks.is_notebook(page.file.src_uri):
            html = pages.finish_notebook_page(html, page, config, files)
        else:
            page_uri, made = page.file.src_uri, html
            stamp = hashlib.sha256(made.encode()).hexdigest()
            finish = lambda: pages.finish_html(made, page_uri)  # noqa: E731
            html = _build["cache"].text(f"html:{page_uri}", finish, stamp)
    except pages.BookError as exc:
        raise PluginError(str(exc)) from exc
    _math_chars.update(_book("fonts").math_characters(html))
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
    try:
        font = fonts.subset_font(_math_chars)
    except Exception as exc:
        raise PluginError(f"subsetting the math font failed: {exc}") from exc
    files.get_file_from_path(fonts.FONT_FILE).content_bytes = font
    return env


@event_priority(-100)  # after print-site's on_post_build, which writes the page
def on_post_build(config):
    printing = config.plugins.get("print-site")
    if printing is None:
        return
    name = printing.config.get("print_page_basename", "print_page") + ".html"
    try:
        _book("print_page").finish_print_page(config.site_dir, name, **_print_assets)
    except ValueError as exc:
        raise PluginError(f"{name}: {exc}") from exc
