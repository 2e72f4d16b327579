"""The house style of every figure: one light and one dark theme.

Colours are the Okabe–Ito palette (distinguishable with any common form of
colour blindness); text is at least 4.5:1 against the page background of its
palette. Figure backgrounds are transparent so the page shows through.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

__all__ = ["THEMES", "Theme", "contrast", "heatmap_panels", "new_figure"]

#: Okabe & Ito (2008), "Color Universal Design": orange, sky blue, bluish green,
#: yellow, blue, vermillion, reddish purple (black/white is the text colour).
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")


def _luminance(colour) -> float:
    """WCAG relative luminance of a matplotlib colour."""
    rgb = np.asarray(to_rgb(colour))
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def contrast(colour, background) -> float:
    """WCAG contrast ratio of two colours, from 1 to 21 (graphics need 3, text 4.5)."""
    dark, light = sorted((_luminance(colour), _luminance(background)))
    return (light + 0.05) / (dark + 0.05)


#: Contrast every line colour reaches against its page background (WCAG 1.4.11: 3:1).
LINE_CONTRAST = 3.0


@dataclass(frozen=True)
class Theme:
    name: str  # "light" or "dark"
    background: str  # the page background this variant is drawn for
    text: str
    muted: str  # grid and secondary lines
    cycle: tuple[str, ...]
    sequential: str  # colormap for magnitudes
    diverging: str  # colormap for values in [-1, 1]

    def line_colours(self, n: int) -> list:
        """``n`` ordered colours from the sequential map for lines, darkest first, taken
        from the longest stretch of the map whose colours all reach
        :data:`LINE_CONTRAST` against the background (viridis loses its yellow end on
        white and its purple end on slate)."""
        cmap = colormaps[self.sequential]
        grid = np.linspace(0.0, 1.0, 1001)
        ok = [contrast(cmap(t), self.background) >= LINE_CONTRAST + 0.02 for t in grid]
        best, start = (0, 0), None
        for k, good in enumerate([*ok, False]):
            if good and start is None:
                start = k
            elif not good and start is not None:
                best = max(best, (start, k - 1), key=lambda r: r[1] - r[0])
                start = None
        low, high = grid[best[0]], grid[best[1]]
        colours = [cmap(t) for t in np.linspace(low, high, n)]
        return sorted(colours, key=_luminance)

    @property
    def rc(self) -> dict:
        return {
            "axes.prop_cycle": __import__("cycler").cycler(color=list(self.cycle)),
            "text.color": self.text,
            "axes.labelcolor": self.text,
            "axes.edgecolor": self.muted,
            "axes.titlecolor": self.text,
            "axes.facecolor": "none",
            "figure.facecolor": "none",
            "savefig.facecolor": "none",
            "savefig.transparent": True,
            "xtick.color": self.text,
            "ytick.color": self.text,
            "grid.color": self.muted,
            "grid.alpha": 0.35,
            "legend.frameon": False,
            "legend.labelcolor": self.text,
            "font.family": "DejaVu Sans",
            "font.size": 10,
            "axes.titlesize": 11,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "image.cmap": self.diverging,
            "lines.linewidth": 1.8,
            "svg.hashsalt": "pe_explained",
            "svg.fonttype": "path",
            "path.simplify": True,
        }


# Light: lines in the darker Okabe–Ito colours first; orange and sky blue are darkened
# to reach 3:1 on white (Okabe–Ito's own #E69F00 and #56B4E9 give 2.3:1), yellow is out.
LIGHT = Theme(
    name="light",
    background="#ffffff",
    text="#1f1f1f",
    muted="#6b6b6b",
    cycle=("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B07800", "#2A8CC4", "#000000"),
    sequential="viridis",
    diverging="RdBu_r",
)

# Dark: drawn for Material's "slate" background; bright colours first.
DARK = Theme(
    name="dark",
    background="#1e2129",
    text="#e8e8e8",
    muted="#a0a0a0",
    cycle=("#56B4E9", "#E69F00", "#009E73", "#F0E442", "#CC79A7", "#D55E00", "#ffffff"),
    sequential="viridis",
    diverging="RdBu_r",
)

THEMES = {"light": LIGHT, "dark": DARK}


def new_figure(width: float = 7.0, height: float = 3.6, **kwargs) -> Figure:
    """A figure of the house size (inches) with constrained layout, outside pyplot."""
    return Figure(figsize=(width, height), layout="constrained", **kwargs)


def heatmap_panels(
    theme: Theme,
    panels,
    *,
    vmin: float,
    vmax: float,
    xlabel: str,
    colorbar_label: str,
    width: float = 7.0,
    height: float = 3.3,
) -> Figure:
    """Tables side by side as heatmaps (rows = positions) sharing one diverging colour bar.

    ``panels`` is a sequence of ``(title, 2-D array)``.
    """
    fig = new_figure(width, height)
    axes = fig.subplots(1, len(panels), sharey=True)
    for ax, (title, data) in zip(axes, panels, strict=True):
        image = ax.imshow(
            data, aspect="auto", cmap=theme.diverging, vmin=vmin, vmax=vmax, interpolation="nearest"
        )
        ax.set_title(title)
        ax.set_xlabel(xlabel)
    axes[0].set_ylabel("position pos")
    fig.colorbar(image, ax=axes, shrink=0.9, label=colorbar_label)
    return fig
