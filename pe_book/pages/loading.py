"""What a finished page makes the browser fetch before its first paint (``on_post_page``).

The theme ends every page with its script and the file:// Worker stand-in
(``extra.polyfills``) as plain ``<script src>`` tags, which a browser must run before
it may paint (Lighthouse counts them as render-blocking). :func:`defer_theme_scripts`
marks both ``defer``: they still run in document order (the stand-in first, then the
theme, then the book's own deferred scripts) once the page is parsed, before
``DOMContentLoaded``. :func:`notebook_stylesheet` links the companion notebooks' styles
on a notebook's page only, instead of on every page (``extra_css``).
"""

from __future__ import annotations

import re

__all__ = ["NOTEBOOK_CSS", "defer_theme_scripts", "finish_output", "notebook_stylesheet"]

#: The theme's script (its name carries a content hash) and the file:// stand-in.
_THEME_SCRIPT = re.compile(
    r'<script src="([^"]*assets/javascripts/(?:bundle\.[0-9a-f]+\.min|iframe-worker)\.js)">'
    r"</script>"
)
#: The notebook pages' stylesheet, relative to the site's root.
NOTEBOOK_CSS = "assets/stylesheets/notebooks.css"


def defer_theme_scripts(output: str) -> str:
    """``output`` with the theme's script and the Worker stand-in deferred.

    >>> defer_theme_scripts('<script src="../assets/javascripts/bundle.a5f9d56c.min.js"></script>')
    '<script src="../assets/javascripts/bundle.a5f9d56c.min.js" defer></script>'
    """
    return _THEME_SCRIPT.sub(r'<script src="\1" defer></script>', output)


def notebook_stylesheet(output: str, root: str) -> str:
    """``output`` with the notebooks' stylesheet linked at the end of its head; ``root``
    is the page's relative path to the site's root (``".."`` from ``notebooks/``)."""
    link = f'<link rel="stylesheet" href="{root}/{NOTEBOOK_CSS}">'
    if output.count("</head>") != 1:
        raise ValueError("a page must have one </head> to link the notebooks' stylesheet")
    return output.replace("</head>", f"{link}\n</head>")


def finish_output(output: str, *, notebook: bool, root: str) -> str:
    """A rendered page as the site serves it: theme scripts deferred, and on a
    notebook's page the notebooks' stylesheet."""
    output = defer_theme_scripts(output)
    return notebook_stylesheet(output, root) if notebook else output
