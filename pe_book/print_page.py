"""The whole book on one page (``print_page.html``, written by mkdocs-print-site), finished.

The plugin joins every chapter's HTML, each figure in both palettes, and strips the
lazy loading of images (a printout needs them all). Paper is white, so a printed book
needs the light drawings only; the dark ones would double what the page loads.
:func:`light_figures_only` removes the dark variants (their ``<picture>`` with its phone
source, or a lone ``<img>``) after checking that each has its light twin on the page;
``book.css`` shows the light drawings on white in the dark palette too.

The plugin also adds its stylesheets and script to every page of the site, where they
do nothing (their rules are for its page) but delay the first paint:
:func:`move_plugin_assets` takes them off the site's list, and :func:`finish_print_page`
puts them on the one page that uses them.

Folded code sessions and exercises' solutions are printed open: paper cannot unfold them.
:func:`without_line_anchors` takes out the anchor pymdownx.highlight puts before every
line of code (``anchor_linenums``): on paper no one links to a line, print-site points
each one's link at an id it does not rename (so none works there), and they weigh about
22 KB gzipped of the page.

print-site rewrites each chapter's ``src`` and ``href`` for the page's place in the site,
but not ``srcset``: :func:`sources_beside_images` points each ``<picture>``'s phone source
into the folder its ``<img>`` now points to (both variants live in one folder).
"""

from __future__ import annotations

import re
from pathlib import Path

from .pages.folds import FOLD_OPEN

#: A folded session as the one-page book prints it: open.
FOLD_PRINTED = FOLD_OPEN.replace(">", " open>", 1)
#: An exercise's folded solution (``??? success "Solution"``), and as paper shows it: open,
#: since a printed page cannot be unfolded.
SOLUTION_FOLD = '<details class="success">'
SOLUTION_PRINTED = '<details class="success" open>'

__all__ = [
    "finish_print_page",
    "light_figures_only",
    "move_plugin_assets",
    "sources_beside_images",
    "without_line_anchors",
]

_PICTURE = re.compile(r"<picture\b[^>]*>(?:(?!</picture>).)*</picture>[ \t]*\n?", re.S)
_IMG = re.compile(r"<img\b[^>]*>[ \t]*\n?")
_VARIANT = re.compile(r'src="([^"#]*?)-(light|dark)\.svg#only-\2"')


def _variants(html: str, theme: str) -> list[str]:
    return [stem for stem, t in _VARIANT.findall(html) if t == theme]


def light_figures_only(html: str) -> str:
    """``html`` without the dark variant of any figure (see the module).

    Raises ``ValueError`` when a dark variant has no light one on the page (the
    figure would be lost) or when a dark variant is left after the removal.
    """
    dark, light = _variants(html, "dark"), set(_variants(html, "light"))
    missing = sorted(set(dark) - light)
    if missing:
        raise ValueError(f"figures with a dark variant but no light one: {missing}")

    def drop(match: re.Match) -> str:
        return "" if '#only-dark"' in match.group(0) else match.group(0)

    html = _PICTURE.sub(drop, html)
    html = _IMG.sub(drop, html)
    left = _variants(html, "dark")
    if left:
        raise ValueError(f"dark figure variants left on the page: {left[:3]}")
    return html


_LINE_ANCHOR = re.compile(
    r'<a id="__codelineno-[\w-]+" name="__codelineno-[\w-]+" href="#[\w-]*__codelineno-[\w-]+"></a>'
)


def without_line_anchors(html: str) -> str:
    """``html`` without the empty anchor before each line of code (see the module).

    >>> without_line_anchors('<code><a id="__codelineno-0-1" name="__codelineno-0-1" '
    ...                      'href="#index-__codelineno-0-1"></a>x = 1</code>')
    '<code>x = 1</code>'
    """
    return _LINE_ANCHOR.sub("", html)


_SRCSET = re.compile(r'(<source\b[^>]*?\bsrcset=")([^"]+)(")')
_IMG_SRC = re.compile(r'<img\b[^>]*?\bsrc="([^"]+)"')


def sources_beside_images(html: str) -> str:
    """Every ``<picture>``'s ``<source srcset>`` in the folder of the picture's ``<img>``."""

    def fix(picture: re.Match) -> str:
        image = _IMG_SRC.search(picture.group(0))
        if image is None:
            return picture.group(0)
        folder = image.group(1).split("#", 1)[0].rpartition("/")[0]
        prefix = f"{folder}/" if folder else ""

        def move(source: re.Match) -> str:
            name = source.group(2).rpartition("/")[2]
            return f"{source.group(1)}{prefix}{name}{source.group(3)}"

        return _SRCSET.sub(move, picture.group(0))

    return _PICTURE.sub(fix, html)


#: What mkdocs-print-site adds to ``extra_css`` and ``extra_javascript`` (site-relative).
_PLUGIN_ASSET = re.compile(r"(?:css/print-site[\w-]*\.css|js/print-site\.js)")


def move_plugin_assets(config) -> dict[str, list[str]]:
    """Take print-site's stylesheets and script off the site's lists (``config.extra_css``,
    ``config.extra_javascript``), in place; returns them for :func:`finish_print_page`."""
    moved = {"css": [], "js": []}
    for kind, key in (("css", "extra_css"), ("js", "extra_javascript")):
        kept = []
        for item in config[key]:
            (moved[kind] if _PLUGIN_ASSET.fullmatch(str(item)) else kept).append(item)
        config[key][:] = kept
        moved[kind] = [str(item) for item in moved[kind]]
    return moved


def with_assets(html: str, css=(), js=()) -> str:
    """``html`` with stylesheets ``css`` and deferred scripts ``js`` (URLs relative to the
    page) linked at the end of its head, each unless it is linked already."""
    tags = [f'<link rel="stylesheet" href="{href}">' for href in css if f'"{href}"' not in html]
    tags += [f'<script src="{src}" defer></script>' for src in js if f'"{src}"' not in html]
    if not tags:
        return html
    if "</head>" not in html:
        raise ValueError("the page has no </head> to link its stylesheets and scripts in")
    return html.replace("</head>", "".join(tags) + "</head>", 1)


def finish_print_page(
    site_dir: str | Path, name: str = "print_page.html", *, css=(), js=()
) -> bool:
    """The built one-page book with :func:`light_figures_only`, its images' sources beside
    them, and print-site's stylesheets ``css`` and scripts ``js``
    (:func:`move_plugin_assets`); False if there is no such page."""
    path = Path(site_dir) / name
    if not path.is_file():
        return False
    html = path.read_text(encoding="utf-8")
    html = sources_beside_images(light_figures_only(html)).replace(FOLD_OPEN, FOLD_PRINTED)
    html = without_line_anchors(html.replace(SOLUTION_FOLD, SOLUTION_PRINTED))
    path.write_text(with_assets(html, css, js), encoding="utf-8")
    return True
