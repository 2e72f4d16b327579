"""What a finished page makes the browser fetch and run before its first paint
(``on_post_page``).

The theme ends every page with its script and the file:// Worker stand-in
(``extra.polyfills``), and the book's pages add their own deferred scripts (``book.js``,
the widgets'). Deferred scripts run once the page is parsed, before
``DOMContentLoaded`` and, often, before the first full paint: the theme's then forces
the first style and layout of the whole page, and the text a reader came for is
painted after that work. :func:`scripts_after_parsing` inserts the same scripts, in the
same order, from a small inline script at the end of the body: the browser fetches and
runs them without holding up parsing or painting, and the page's ``load`` event still
waits for them. The theme's script starts on ``DOMContentLoaded``; where that has fired
before it ran, the loader sends it again.

As it starts, the theme's script also marks the page as one that runs scripts (the
``js`` class and the focus-visible polyfill's marks on ``<html>``) and sets
``data-md-color-switching`` on the body while it applies the palette. Each change
restyles every element of the page, work charged to the reader's first seconds.
:func:`theme_marks_while_parsing` sets the same marks as the body starts, so the first
style of the page already has them and the theme's own changes find nothing to change.

:func:`notebook_stylesheet` links the companion notebooks' styles on a notebook's page
only, instead of on every page (``extra_css``).
"""

from __future__ import annotations

import json
import re

__all__ = [
    "NOTEBOOK_CSS",
    "finish_output",
    "notebook_stylesheet",
    "scripts_after_parsing",
    "theme_marks_while_parsing",
]

#: The scripts of the site's own folder at the end of a page: the theme's (its name
#: carries a content hash), the file:// stand-in, the book's (deferred).
_SITE_SCRIPT = re.compile(
    r'<script src="([^"]*assets/javascripts/[\w.-]+\.js)"(?: defer)?></script>'
)
#: The theme's script, which starts on DOMContentLoaded.
_THEME = r"bundle\.[0-9a-f]+\.min\.js$"
#: Inserts the scripts in order (dynamic scripts with ``async = false`` run in order);
#: ``DOMContentLoaded`` again after the theme's if the real one came before it (in the
#: same task: sent from a timer instead, it scored lower under Lighthouse on most pages).
_LOADER = """<script>(() => {
  let parsed = false;
  document.addEventListener("DOMContentLoaded", () => { parsed = true; }, {once: true});
  for (const src of %s) {
    const script = Object.assign(document.createElement("script"), {src, async: false});
    if (/%s/.test(src)) {
      script.onload = () => parsed && document.dispatchEvent(new Event("DOMContentLoaded"));
    }
    document.body.append(script);
  }
})();</script>"""
#: The marks the theme's script sets as it starts (``bundle.*.min.js``: the ``no-js`` to
#: ``js`` switch, the focus-visible polyfill's class and attribute, and the palette's
#: ``data-md-color-switching``, which it removes a frame after applying the palette).
_THEME_MARKS = (
    "<script>"
    'document.documentElement.classList.replace("no-js", "js");'
    'document.documentElement.classList.add("js-focus-visible");'
    'document.documentElement.setAttribute("data-js-focus-visible", "");'
    'document.body.setAttribute("data-md-color-switching", "")'
    "</script>"
)
_BODY = re.compile(r"<body\b[^>]*>")
#: The notebook pages' stylesheet, relative to the site's root.
NOTEBOOK_CSS = "assets/stylesheets/notebooks.css"


def scripts_after_parsing(output: str) -> str:
    """``output`` with its site scripts inserted, in order, by an inline loader.

    >>> page = ('<body><p>Text</p><script src="../assets/javascripts/bundle.a5f9d56c.min.js">'
    ...         '</script><script src="../assets/javascripts/book.js" defer></script></body>')
    >>> out = scripts_after_parsing(page)
    >>> out.startswith("<body><p>Text</p><script>(() => {")
    True
    >>> out.index("bundle.a5f9d56c.min.js") < out.index("book.js")
    True
    >>> "<script src=" in out
    False
    """
    sources = _SITE_SCRIPT.findall(output)
    if not sources:
        return output
    if output.count("</body>") != 1:
        raise ValueError("a page must have one </body> to load its scripts from its end")
    loader = _LOADER % (json.dumps(sources), _THEME)
    return _SITE_SCRIPT.sub("", output).replace("</body>", f"{loader}</body>")


def theme_marks_while_parsing(output: str) -> str:
    """``output`` with the marks the theme's script sets as it starts set by an inline
    script at the start of its body.

    >>> theme_marks_while_parsing('<html class="no-js"><body dir="ltr"><p>Text</p></body>')[:56]
    '<html class="no-js"><body dir="ltr"><script>document.doc'
    """
    if len(_BODY.findall(output)) != 1:
        raise ValueError("a page must have one <body> to set the theme's marks at its start")
    return _BODY.sub(lambda m: m.group(0) + _THEME_MARKS, output, count=1)


def notebook_stylesheet(output: str, root: str) -> str:
    """``output`` with the notebooks' stylesheet linked at the end of its head; ``root``
    is the page's relative path to the site's root (``".."`` from ``notebooks/``)."""
    link = f'<link rel="stylesheet" href="{root}/{NOTEBOOK_CSS}">'
    if output.count("</head>") != 1:
        raise ValueError("a page must have one </head> to link the notebooks' stylesheet")
    return output.replace("</head>", f"{link}\n</head>")


def finish_output(output: str, *, notebook: bool, root: str) -> str:
    """A rendered page as the site serves it: the theme's marks set as its body starts,
    its scripts inserted by a loader at the end of the body, and on a notebook's page the
    notebooks' stylesheet."""
    output = scripts_after_parsing(theme_marks_while_parsing(output))
    return notebook_stylesheet(output, root) if notebook else output
