"""The house style of every figure: one light and one dark theme.

Colours are the Okabe–Ito palette (distinguishable with any common form of
colour blindness); text is at least 4.5:1 against the page background of its
palette. Figure backgrounds are transparent so the page shows through.
"""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.figure import Figure

__all__ = ["THEMES", "Theme", "heatmap_panels", "new_figure"]

#: Okabe & Ito (2008), "Color Universal Design": orange, sky blue, bluish green,
#: yellow, blue, vermillion, reddish purple (black/white is the text colour).
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")


@dataclass(frozen=True)
class Theme:
    name: str  # "light" or "dark"
    background: str  # the page background this variant is drawn for
    text: str
    muted: str  # grid and secondary lines
    cycle: tuple[str, ...]
    sequential: str  # colormap for magnitudes
    diverging: str  # colormap for values in [-1, 1]

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


# Light: lines in the darker Okabe–Ito colours first (yellow and sky blue are
# too pale on white for thin lines, so they come last).
LIGHT = Theme(
    name="light",
    background="#ffffff",
    text="#1f1f1f",
    muted="#6b6b6b",
    cycle=("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"),
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
