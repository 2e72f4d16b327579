"""A figure's phone variant, finished after it is drawn: stacked panels tidied, legends
and end labels moved off the data, small text raised to a size a phone column reads.

:func:`pe_book.render.draw_figure` calls these on every figure drawn inside
:func:`pe_book.style.phone_layout`, after a layout, since they read where things are.
"""

from __future__ import annotations

import re

from matplotlib.figure import Figure
from matplotlib.text import Text

from .notation import TEX_SPAN
from .overlaps import data_under
from .style import DIRECT_LABEL, PHONE_COLUMN, PHONE_MIN_POINTS, space_labels

__all__ = [
    "PHONE_LABEL_SHARE",
    "labels_under_phone_figure",
    "legends_off_phone_data",
    "raise_small_text",
    "smallest_text",
    "tidy_stacked_panels",
    "unbreakable_math",
]


def _texts(fig: Figure) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


def tidy_stacked_panels(fig: Figure) -> None:
    """Finish a phone figure whose panels were stacked (:class:`pe_book.style._PhoneFigure`).

    * An axis title drawn for the bottom row of the wide grid, on a panel that now sits
      above another with the same title and shows no tick labels of its own, is removed
      (the lowest panel keeps it).
    * A panel that shows its own y tick labels but no y label, in a column of panels
      that all have one and the same (a wide grid labels only its left column), gets
      that label.
    * A figure of several panels with a legend in only one of them gets that legend
      under the whole figure, where it covers no data.

    Call after a layout (``fig.draw_without_rendering()``): it reads where panels are.
    """
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    boxes = {ax: ax.get_position() for ax in axes}
    for ax in axes:
        title = ax.get_xlabel()
        shown = [t for t in ax.get_xticklabels() if t.get_visible() and t.get_text()]
        if not title or shown:
            continue
        box = boxes[ax]
        below = [
            other
            for other in axes
            if other is not ax
            and other.get_xlabel() == title
            and boxes[other].y1 <= box.y0 + 1e-6
            and min(boxes[other].x1, box.x1) > max(boxes[other].x0, box.x0)
        ]
        if below:
            ax.set_xlabel("")
    for ax in axes:
        shown = [t for t in ax.get_yticklabels() if t.get_visible() and t.get_text()]
        if ax.get_ylabel() or not shown:
            continue
        box = boxes[ax]
        labels = {
            other.get_ylabel()
            for other in axes
            if other is not ax and other.get_ylabel() and abs(boxes[other].x0 - box.x0) < 1e-6
        }
        if len(labels) == 1:
            ax.set_ylabel(labels.pop())
    with_legend = [ax for ax in axes if ax.get_legend() is not None]
    if len(axes) > 1 and len(with_legend) == 1 and not fig.legends:
        _legend_under_figure(with_legend[0], columns=2)


def _legend_under_figure(ax, columns: int) -> None:
    """Move the legend of ``ax`` under its figure, entries and keys as they were."""
    legend = ax.get_legend()
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
    legend.remove()
    ax.get_figure().legend(
        handles, labels, loc="outside lower center", ncols=columns, frameon=False
    )


def legends_off_phone_data(fig: Figure) -> bool:
    """On a phone, a legend inside its axes that covers the axes' data
    (:func:`pe_book.overlaps.data_under`) moves under the figure. Call after a layout;
    True if a legend moved."""
    moved = False
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is not None and not fig.legends and data_under(legend.get_window_extent(), ax):
            _legend_under_figure(ax, columns=1)
            moved = True
    return moved


#: On a phone, end labels wider than this share of the figure become a legend under it.
PHONE_LABEL_SHARE = 0.3


def labels_under_phone_figure(fig: Figure) -> None:
    """On a phone, end labels (:func:`pe_book.style.direct_labels`) that would take more than
    :data:`PHONE_LABEL_SHARE` of the width become one legend under the figure, so the
    plot keeps the column's width. Call after a layout."""
    width = fig.bbox.width
    for ax in fig.axes:
        pairs = getattr(ax, "pe_direct_labels", None)
        texts = [t for t in ax.texts if t.get_gid() == DIRECT_LABEL]
        if not pairs or not texts or fig.legends:
            continue
        if max(t.get_window_extent().width for t in texts) <= PHONE_LABEL_SHARE * width:
            continue
        for text in texts:
            text.remove()
        lines, labels = zip(*pairs, strict=True)
        fig.legend(lines, labels, loc="outside lower center", ncols=1, frameon=False)


def raise_small_text(fig: Figure, points: float = PHONE_MIN_POINTS) -> None:
    """Set every visible text of ``fig`` smaller than ``points`` to ``points``, and let
    text wider than the figure wrap at its edge."""
    legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes)]
    in_legends = {id(t) for legend in legends if legend is not None for t in legend.get_texts()}
    for text in _texts(fig):
        if text.get_fontsize() < points:
            text.set_fontsize(points)
        text.set_text(unbreakable_math(text.get_text()))
        text.set_wrap(id(text) not in in_legends)  # a legend's entries keep their lines
    space_labels(fig)  # raised or wrapped end labels take more room


_TEXT_COMMAND = re.compile(r"(\\text\{[^{}]*\})")
_COMMAND_SPACE = re.compile(r"(\\[A-Za-z]+) +(?=[A-Za-z])")


def _squeeze(tex: str) -> str:
    """``tex`` without spaces; a command followed by a letter keeps its end as ``{}``."""
    return _COMMAND_SPACE.sub(r"\1{}", tex).replace(" ", "")


def unbreakable_math(text: str) -> str:
    """``text`` with the spaces of its ``$…$`` math removed (outside ``\\text{…}``), where
    mathtext ignores them anyway, so that wrapping at spaces never splits a formula
    into two halves each with one ``$``.

    >>> unbreakable_math(r"$d_{\\text{model}} = 512$ (256 pairs)")
    '$d_{\\\\text{model}}=512$ (256 pairs)'
    >>> unbreakable_math(r"$m \\cdot k$")
    '$m\\\\cdot{}k$'
    """

    def squeeze(math: re.Match) -> str:
        parts = _TEXT_COMMAND.split(math.group(0))
        return "".join(p if k % 2 else _squeeze(p) for k, p in enumerate(parts))

    return TEX_SPAN.sub(squeeze, text)


def smallest_text(fig: Figure, column: float = PHONE_COLUMN) -> float:
    """The CSS px size of the smallest visible text of ``fig`` shown ``column`` px wide.

    A figure ``w`` inches wide is ``96 w`` CSS px; shown in the column it is scaled
    by ``column / (96 w)``, and a ``p`` point text (``4 p / 3`` px) with it.
    """
    sizes = [t.get_fontsize() for t in _texts(fig)]
    scale = min(1.0, column / (96 * fig.get_figwidth()))
    return min(sizes) * 4 / 3 * scale if sizes else float("inf")
