"""The house style of every figure: one light and one dark theme.

Colours are the Okabe–Ito palette (distinguishable with any common form of
colour blindness); text is at least 4.5:1 against the page background of its
palette. Figure backgrounds are transparent so the page shows through.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.text import Text

__all__ = [
    "THEMES",
    "Theme",
    "contrast",
    "direct_labels",
    "label_line_ends",
    "heatmap_panels",
    "new_figure",
    "phone_layout",
    "phone_layout_active",
]

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
            # a legend on the page's colour, with no border: no gridline runs through it
            "legend.frameon": True,
            "legend.facecolor": self.background,
            "legend.edgecolor": "none",
            "legend.framealpha": 0.85,
            "legend.labelcolor": self.text,
            "font.family": "DejaVu Sans",
            "font.size": 10,
            "axes.titlesize": 11,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "image.cmap": self.diverging,
            "lines.linewidth": 1.8,
            # denser dots than matplotlib's (1, 1.65): a dotted line reads as a line
            "lines.dotted_pattern": [1.2, 1.3],
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
    # the sixth a purple, not a second blue beside the first
    cycle=("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#B07800", "#7B52AE", "#000000"),
    sequential="viridis",
    diverging="RdBu_r",
)

# Dark: drawn for Material's "slate" background; bright colours first.
DARK = Theme(
    name="dark",
    background="#1e2129",
    text="#e8e8e8",
    muted="#a0a0a0",
    # colour k has the hue of the light palette's colour k, so that a curve keeps its
    # colour when the reader switches palettes: blue, orange, green, pink, yellow for
    # ochre, lavender for purple, white for black. Okabe–Ito's green (#009E73, 4.7:1)
    # is lightened to read as a thin or dotted line on slate.
    cycle=("#56B4E9", "#E69F00", "#1DB486", "#CC79A7", "#F0E442", "#B39DDB", "#ffffff"),
    sequential="viridis",
    # near-black at zero: the light palette's red–blue map has white there, which on a
    # dark page turns every value near zero into a white block; negative stays blue and
    # positive red
    diverging="berlin",
)

THEMES = {"light": LIGHT, "dark": DARK}


#: Line colours a figure may take from :meth:`Theme.line_colours` (up to this many).
MAX_LINE_COLOURS = 16


#: The text column of a 390 px phone (CSS px), where the phone variants are shown.
PHONE_COLUMN = 358
#: Width (inches) of every figure's phone variant: at 96 CSS px per inch it is shown at
#: PHONE_COLUMN / (96 · 4.4) = 0.85 of its size, so 10 pt text (13.3 px) reads at 11.3 px.
PHONE_WIDTH = 4.4
#: The smallest text (points) in a phone variant; smaller text is raised to it.
PHONE_MIN_POINTS = 10.0
_LAYOUT = {"phone": False}


@contextmanager
def phone_layout() -> Iterator[None]:
    """Draw figures for a phone column: :func:`new_figure` gives narrower, taller figures."""
    _LAYOUT["phone"] = True
    try:
        yield
    finally:
        _LAYOUT["phone"] = False


def new_figure(width: float = 7.0, height: float = 3.6, **kwargs) -> Figure:
    """A figure of the house size (inches) with constrained layout, outside pyplot.

    Inside :func:`phone_layout` the width is at most :data:`PHONE_WIDTH` and the height
    grows by the square root of the narrowing, so side-by-side panels keep some room.
    """
    if _LAYOUT["phone"]:
        if width > PHONE_WIDTH:
            height *= (width / PHONE_WIDTH) ** 0.5
            width = PHONE_WIDTH
        return _PhoneFigure(figsize=(width, height), layout="constrained", **kwargs)
    return Figure(figsize=(width, height), layout="constrained", **kwargs)


class _PhoneFigure(Figure):
    """A figure for a phone column, whose panels are stacked instead of side by side.

    A row of panels becomes a column (up to three panels; two columns for more), and
    a grid two panels wide becomes one column, row after row. The axes come back in
    the shape and order the drawing code asked for, and the figure grows taller to
    hold the extra rows, so one drawing function serves both layouts.
    """

    def subplots(self, nrows=1, ncols=1, **kwargs):
        panels = nrows * ncols
        if nrows == 1 and ncols >= 2:
            rows, columns = (panels, 1) if panels <= 3 else (-(-panels // 2), 2)
        elif nrows >= 2 and ncols == 2:
            rows, columns = panels, 1
        else:
            return super().subplots(nrows, ncols, **kwargs)
        for key in ("sharex", "sharey"):  # "row" and "col" lose their meaning
            if kwargs.get(key) in ("row", "col"):
                kwargs[key] = False
        kwargs.pop("height_ratios", None)
        widths = kwargs.pop("width_ratios", None)
        if nrows == 1 and columns == 1 and widths is not None:
            kwargs["height_ratios"] = widths
        kwargs.pop("squeeze", None)
        self.set_figheight(self.get_figheight() * (0.55 * rows / nrows + 0.45))
        axes = super().subplots(rows, columns, squeeze=False, **kwargs).ravel()
        # a stacked panel's title keeps clear of the axis title of the panel above it
        self.get_layout_engine().set(hspace=0.06)
        for extra in axes[panels:]:
            extra.remove()
        axes = axes[:panels]
        return axes if nrows == 1 else axes.reshape(nrows, ncols)


def phone_layout_active() -> bool:
    """True while figures are drawn for a phone column (:func:`phone_layout`)."""
    return _LAYOUT["phone"]


#: A legend with more entries than this is replaced by labels at the lines' ends.
MAX_LEGEND_ENTRIES = 5


def direct_labels(ax, lines, labels, theme: Theme) -> None:
    """Label each line at its right end, instead of a legend.

    Labels sit right of the axes, in the theme's text colour, at the height of their
    line's last point; where ends crowd, labels are pushed apart (:func:`space_labels`)
    and a thin leader in the line's colour joins each label to its line.
    """
    if len(lines) != len(labels):
        raise ValueError(f"{len(lines)} lines but {len(labels)} labels")
    ax.pe_direct_labels = list(zip(lines, labels, strict=True))  # for labels_under_phone
    for line, label in zip(lines, labels, strict=True):
        x, y = (np.asarray(v, dtype=float) for v in line.get_data())
        ax.annotate(
            label,
            xy=(x[-1], y[-1]),  # the last point, in the line's own coordinates
            xycoords=line.get_transform(),
            xytext=(14, 0),
            textcoords="offset points",
            va="center",
            multialignment="left",  # a label of two lines reads from one edge
            color=theme.text,
            annotation_clip=False,
            gid=DIRECT_LABEL,
            # from the label's left edge: a leader then never runs through the column
            arrowprops={
                "arrowstyle": "-",
                "color": line.get_color(),
                "linewidth": 0.8,
                "relpos": (0.0, 0.5),
            },
        )
    space_labels(ax.get_figure())


#: The gid of a label drawn by :func:`direct_labels`.
DIRECT_LABEL = "direct-label"


def space_labels(fig: Figure, gap_points: float = 3.0) -> None:
    """Move the end labels of every axes of ``fig`` apart so that none overlap.

    Heights are the labels' own, as drawn (wrapped or raised text included): from the
    lowest up, each label sits at its line's end or just clear of the one below, and
    the group then moves down by its mean push, so that it stays centred on its lines,
    as far as the bottom of the axes allows (the tick labels are below it).
    """
    groups = [(ax, [t for t in ax.texts if t.get_gid() == DIRECT_LABEL]) for ax in fig.axes]
    groups = [(ax, labels) for ax, labels in groups if labels]
    if not groups:
        return
    with warnings.catch_warnings():  # an intermediate layout need not fit
        warnings.simplefilter("ignore", UserWarning)
        fig.draw_without_rendering()  # once: the labels' heights and their lines' ends
    points = 72 / fig.dpi
    for ax, labels in groups:
        ends = [label.xycoords.transform(label.xy)[1] * points for label in labels]
        # the text's own box: an annotation's extent takes in its leader too
        heights = [Text.get_window_extent(label).height * points for label in labels]
        order = sorted(range(len(labels)), key=ends.__getitem__)
        placed = {order[0]: ends[order[0]]}
        for below, k in zip(order, order[1:], strict=False):
            clearance = (heights[below] + heights[k]) / 2 + gap_points
            placed[k] = max(ends[k], placed[below] + clearance)
        shift = float(np.mean([placed[k] - ends[k] for k in order]))
        # but never below the axes, into its tick labels
        bottom = min(placed[k] - shift - heights[k] / 2 for k in order)
        shift -= max(0.0, ax.get_window_extent().y0 * points - bottom)
        # all in one column just right of the axes: leaders run level, not through text
        right = ax.get_window_extent().x1 * points + 8
        xs = [label.xycoords.transform(label.xy)[0] * points for label in labels]
        for k, label in enumerate(labels):
            label.xyann = (max(14.0, right - xs[k]), placed[k] - shift - ends[k])


def label_on_line(ax, line, x: float, text: str, theme: Theme, offset=(0, 10), **kwargs):
    """Label ``line`` where it runs clear of the others: at ``x`` (one of the line's own
    x values, in data units), ``offset`` points away, in the theme's text colour on a
    patch of background, joined to the line by a short leader in the line's colour."""
    xs, ys = (np.asarray(v, dtype=float) for v in line.get_data())
    hits = np.flatnonzero(xs == x)
    if hits.size == 0:
        raise ValueError(f"x={x} is not one of the line's points")
    kwargs.setdefault("ha", "center")
    return ax.annotate(
        text,
        xy=(x, ys[hits[0]]),
        xytext=offset,
        textcoords="offset points",
        va="center",
        color=theme.text,
        bbox={"boxstyle": "square,pad=0.1", "fc": theme.background, "ec": "none", "alpha": 0.85},
        arrowprops={
            "arrowstyle": "-",
            "color": line.get_color(),
            "linewidth": 0.8,
            "shrinkA": 0,
            "shrinkB": 1,
        },
        **kwargs,
    )


def label_line_ends(ax, theme: Theme) -> None:
    """:func:`direct_labels` for every labelled line of ``ax`` (what its legend would list)."""
    handles, labels = ax.get_legend_handles_labels()
    direct_labels(ax, handles, labels, theme)


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


def flow_column(ax, theme, steps, x: float, *, bold: bool = False, arrow=(0.32, 0.68)) -> None:
    """Boxes from top to bottom at ``x`` (row k at y = k, in an axes whose y grows down),
    each joined to the one above by an arrow from ``arrow[1]`` to ``arrow[0]`` above it;
    ``steps`` = (label, is_position): a position's box is edged in the accent colour
    (bold text when ``bold``), as chapter 8 and chapter 11 draw a layer."""
    accent = theme.cycle[1]
    for row, (label, is_position) in enumerate(steps):
        ax.text(
            x,
            row,
            label,
            ha="center",
            va="center",
            fontsize=9,
            color=theme.text,
            fontweight="bold" if bold and is_position else "normal",
            bbox={
                "boxstyle": "round,pad=0.35",
                "facecolor": "none",
                "edgecolor": accent if is_position else theme.muted,
                "linewidth": 2.0 if is_position else 1.0,
            },
        )
        if row:
            ax.annotate(
                "",
                xy=(x, row - arrow[0]),
                xytext=(x, row - arrow[1]),
                arrowprops={"arrowstyle": "-|>", "color": theme.muted, "lw": 1.0},
            )
