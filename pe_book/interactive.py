"""Interactive figures: widgets the reader drives, drawn in the browser.

A chapter registers the starting parameters of a widget, taken from the same
constants its static figure uses::

    @interactive("sinusoidal", title="Try it: …")
    def _():
        return {"d_model": HEATMAP_D_MODEL, "positions": HEATMAP_POSITIONS, …}

and its page writes ``{{ interactive: sinusoidal }}`` after the figure. The
shortcode becomes a hidden container holding the title and the parameters as
JSON; ``docs/assets/javascripts/interactive.js`` (loaded by the pages that hold
such a container, ``docs/overrides/main.html``) draws the widget and shows it.
Without JavaScript, and in print, the static figure stands alone.

The widget's formulas are JavaScript mirrors of the library's
(``window.peInteractive.math``); ``tests/test_interactive.py`` evaluates them in
Chromium over a grid of parameters and compares them with ``pe_explained``.

Like figures, interactive names are global: each names a drawing function of the
script and the anchor ``#interactive-<name>`` of the site. Parameter functions
run when the page is rendered, never at import.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from .text import curly_apostrophes, inline_math_html

__all__ = [
    "CORE_SCRIPT",
    "INTERACTIVES",
    "InteractiveSpec",
    "colormap_stops",
    "heatmap_colours",
    "interactive",
    "interactive_html",
]


#: The script every widget page loads: the lazy loader, the drawing kit, the first widgets.
CORE_SCRIPT = "interactive"


@dataclass(frozen=True)
class InteractiveSpec:
    name: str
    title: str
    defaults: Callable[[], dict]  # the widget's starting parameters (JSON-serialisable)
    script: str = CORE_SCRIPT  # the script (docs/assets/javascripts/<script>.js) that draws it
    replaces_figure: bool = False  # on screen, the drawn widget stands for the figure above


INTERACTIVES: dict[str, InteractiveSpec] = {}


def interactive(name: str, *, title: str, script: str = CORE_SCRIPT, replaces_figure=False):
    """Register the parameters of the widget ``name``; ``title`` heads it on the page.

    ``script`` names the file under ``docs/assets/javascripts/`` that draws it: the core
    (``interactive.js``: the lazy loader, the drawing kit and the first widgets) or a
    script of its own, which the pages holding its container load after the core and
    which adds its widgets with ``window.peInteractive.register``. ``replaces_figure``: the
    widget starts from its figure's parameters, so once drawn it takes the place of the
    figure's drawing on screen (the caption stays); print keeps the figure (book.css)."""
    if not isinstance(name, str) or not name.replace("_", "").isalnum():
        raise ValueError(f"interactive name must be letters, digits and underscores: {name!r}")
    if not isinstance(title, str) or len(title.strip()) < 10:
        raise ValueError(f"interactive {name!r} needs a title that says what it shows")
    if not isinstance(script, str) or not re.fullmatch(r"[a-z][a-z0-9-]*", script):
        raise ValueError(f"interactive {name!r}: script must be a file stem such as 'interactive'")

    def register(defaults):
        if name in INTERACTIVES:
            raise ValueError(f"interactive {name!r} is registered twice")
        spec = InteractiveSpec(name, title.strip(), defaults, script, bool(replaces_figure))
        INTERACTIVES[name] = spec
        return defaults

    return register


def colormap_stops(name: str, count: int = 11) -> list[str]:
    """``count`` evenly spaced colours of a matplotlib colormap, as ``#rrggbb``: the
    widget interpolates between them, so its heatmaps match the static figures'."""
    from matplotlib import colormaps
    from matplotlib.colors import to_hex

    cmap = colormaps[name]
    return [to_hex(cmap(i / (count - 1))) for i in range(count)]


def heatmap_colours(kind: str) -> dict[str, list[str]]:
    """The colour stops of a widget's heatmap in each palette, ``{"light": …, "dark": …}``:
    ``kind`` is ``"sequential"`` or ``"diverging"``, the figures' maps of each palette
    (pe_book.style; the dark diverging one near-black at zero). The widget draws both and
    book.css shows the page's, so the palette toggle needs no redraw."""
    from .style import THEMES

    if kind not in ("sequential", "diverging"):
        raise ValueError(f"kind must be 'sequential' or 'diverging', got {kind!r}")
    light = getattr(THEMES["light"], kind)
    dark = getattr(THEMES["dark"], kind)
    return {"light": colormap_stops(light), "dark": colormap_stops(dark)}


#: How many of the palette's line colours a widget may use (Figure 15.1 has six lines).
LINE_COLOURS = 6


def _palette_style() -> str:
    """The line colours of both palettes as CSS variables; book.css picks one set by the
    page's colour scheme, so the palette toggle recolours the widget with no redraw."""
    from .style import THEMES

    return ";".join(
        f"--pe-{theme}-c{i + 1}:{colour}"
        for theme in ("light", "dark")
        for i, colour in enumerate(THEMES[theme].cycle[:LINE_COLOURS])
    )


def interactive_html(name: str) -> str:
    """The hidden container the script turns into the widget ``name``."""
    spec = INTERACTIVES[name]
    params = spec.defaults()
    if not isinstance(params, dict):
        raise TypeError(f"interactive {name!r} must return a dict of parameters")
    data = html.escape(json.dumps(params, separators=(",", ":"), sort_keys=True), quote=True)
    anchor = f"interactive-{name.replace('_', '-')}"
    # the page loads this script after the core (docs/overrides/main.html)
    script = "" if spec.script == CORE_SCRIPT else f' data-script="{spec.script}"'
    if spec.replaces_figure:  # book.css hides the figure's drawing on screen once it is drawn
        script += " data-replaces-figure"
    # $…$ set as the prose sets it, apostrophes curly as the prose's
    title = inline_math_html(curly_apostrophes(spec.title), plain=True)
    return (
        f'<div class="pe-interactive" id="{anchor}" data-interactive="{name}" '
        f'data-defaults="{data}"{script} style="{_palette_style()}" hidden>'
        f'<p class="pe-interactive__title" id="{anchor}-title">{title}</p>'
        "</div>"
    )
