"""No figure's words cover its data or each other, in either layout (pe_book.overlaps)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from pe_book import FIGURES, load_all
from pe_book.overlaps import overlaps
from pe_book.render import LAYOUTS, draw_figure
from pe_book.style import THEMES, direct_labels, new_figure

matplotlib.use("Agg")
load_all()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(FIGURES))
def test_no_text_covers_data_or_text(name, layout):
    """Both palettes share one layout, so the light one stands for both."""
    with matplotlib.rc_context(THEMES["light"].rc):
        found = overlaps(draw_figure(name, "light", layout))
    assert found == [], (
        f"{name} ({layout}): "
        + "; ".join(found)
        + "; move the text clear of the data (legend loc= or bbox_to_anchor=, "
        "pe_book.style.direct_labels)"
    )


def _plot():
    fig = new_figure(5.0, 3.0)
    ax = fig.add_subplot()
    ax.plot([0, 10], [0, 10], label="rising")
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    return fig, ax


def test_a_clean_plot_has_no_overlaps():
    fig, ax = _plot()
    ax.text(8, 1, "clear")  # far below the line
    ax.axvspan(2, 4, alpha=0.2)  # a shaded span is not data
    ax.text(2.2, 8, "span")
    assert overlaps(fig) == []


def test_a_legend_over_a_line_is_found():
    fig, ax = _plot()
    ax.legend(loc="center")
    assert overlaps(fig) == ["the legend (rising) over line 'rising'"]


def test_a_label_over_a_reference_line_and_points_is_found():
    fig, ax = _plot()
    ax.axhline(2, linestyle="--")
    ax.scatter([8.5], [2.2])
    ax.text(8, 2, "floor", va="center")
    found = overlaps(fig)
    assert "'floor' over unlabelled line" in found and "'floor' over unlabelled points" in found


def test_bars_are_data_and_images_are_not():
    fig = new_figure(5.0, 3.0)
    bars, image = fig.subplots(1, 2)
    bars.bar([0, 1, 2], [3, 3, 3], label="counts")
    bars.text(1, 1.5, "inside a bar", ha="center")
    image.imshow(np.eye(3))
    image.text(1, 1, "1.0", ha="center")  # a heatmap's cell value is meant to be there
    assert overlaps(fig) == ["'inside a bar' over bars 'counts'"]


def test_text_over_text_and_a_leader_through_a_label_are_found():
    fig, ax = _plot()
    ax.text(1, 8, "first")
    ax.text(1.3, 8.1, "second")
    ax.annotate("note", xy=(9, 2), xytext=(6, 9), arrowprops={"arrowstyle": "-"})
    ax.text(7.2, 5.2, "crossed", ha="center", va="center")
    found = overlaps(fig)
    assert "'first' over 'second'" in found
    assert "leader of 'note' through 'crossed'" in found


def test_end_labels_of_crowded_lines_neither_overlap_nor_cross_leaders():
    """direct_labels spreads labels whose lines end close together; each leader leaves
    its label from the left edge, so none runs through the column of labels."""
    theme = THEMES["light"]
    fig = new_figure(6.0, 3.0)
    ax = fig.add_subplot()
    lines = [ax.plot([0, 10], [0, 5 + 0.05 * k])[0] for k in range(6)]
    direct_labels(ax, lines, [f"line {k}" for k in range(6)], theme)
    assert overlaps(fig) == []
