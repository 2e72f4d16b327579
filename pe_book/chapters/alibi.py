"""Chapter 12, ALiBi: slopes for any head count, the bias per head, and the row term."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import MaxNLocator

from pe_explained.alibi import ALIBI_FORMS, alibi_bias, alibi_slopes, alibi_weight_error
from pe_explained.attention import softmax

from .. import Table, figure, table, value
from ..interactive import heatmap_colours, interactive
from ..style import direct_labels, new_figure, phone_layout_active
from ..text import format_cell

HEAD_COUNTS = (8, 12, 16)
FIGURE_HEADS, FIGURE_LEN = 8, 12


@table(
    "slopes_by_heads",
    caption="ALiBi slopes $m_h$ for 8, 12 and 16 heads (exact values, rounded to 6 digits).",
)
def _():
    slopes = {n: alibi_slopes(n) for n in HEAD_COUNTS}
    rows = []
    for h in range(max(HEAD_COUNTS)):
        cells = [f"{slopes[n][h]:.6g}" if h < n else "" for n in HEAD_COUNTS]
        exponents = [f"$2^{{{np.log2(slopes[n][h]):g}}}$" if h < n else "" for n in HEAD_COUNTS]
        rows.append(
            [h + 1, *[f"{c} ({e})" if c else "" for c, e in zip(cells, exponents, strict=True)]]
        )
    return Table(["head $h$", *[f"{n} heads" for n in HEAD_COUNTS]], rows)


#: BLOOM-176B's head count (BigScience Workshop, 2022): a real model that is not a power of two.
BLOOM_HEADS = 112
#: The two forms of the bias in low precision: BLOOM-176B's head BLOOM_HEAD (its steepest,
#: slope 2^(-1/16)), one query at position ERROR_KEYS − 1 over ERROR_KEYS keys, content
#: scores drawn from N(0, SCORE_STD²), ERROR_DRAWS draws; the largest error of any.
BLOOM_HEAD, ERROR_KEYS, SCORE_STD, ERROR_DRAWS = 65, 2048, 3.0, 20
QUOTED = (
    "BLOOM_HEADS",
    "BLOOM_HEAD",
    "ERROR_KEYS",
    "SCORE_STD",
    "ERROR_DRAWS",
    "FIGURE_HEADS",
    "WEIGHT_LEN",
)


def _bloom_groups() -> tuple[np.ndarray, np.ndarray]:
    """BLOOM-176B's slopes split into the power-of-two ladder and the heads filled after it."""
    slopes = alibi_slopes(BLOOM_HEADS)
    ladder = 2 ** int(np.floor(np.log2(BLOOM_HEADS)))  # the largest power of two below
    return slopes[:ladder], slopes[ladder:]


def _power(slope: float, spec: str = ".4f") -> str:
    """A slope as a power of two with a fractional exponent and its value, as one formula
    that never breaks: ``$2^{-1/16} = 0.9576$``."""
    sixteenths = -np.log2(slope) * 16
    whole = round(float(sixteenths))
    fraction = f"{whole // 16}" if whole % 16 == 0 else f"{whole}/16"
    if whole % 16 and whole % 2 == 0:
        fraction = f"{whole // 2}/8"
    return f"$2^{{-{fraction}}} = {slope:{spec}}$"


@value("bloom_ladder_heads")
def _():
    return str(len(_bloom_groups()[0]))


@value("bloom_filled_heads")
def _():
    return str(len(_bloom_groups()[1]))


@value("bloom_first_filled_head")
def _():
    return str(len(_bloom_groups()[0]) + 1)


@value("bloom_ladder_range")
def _():
    ladder, _ = _bloom_groups()
    return f"{_power(ladder[0])} to {_power(ladder[-1], '.4g')}"


@value("bloom_filled_range")
def _():
    _, filled = _bloom_groups()
    first, second, last = filled[0], filled[1], filled[-1]
    return f"{_power(first)}, {_power(second)}, …, {_power(last)}"


ROW_TERM_HEADS = 12  # not a power of two: slopes such as 2^-0.5 are not exact in binary


def _row_term_difference() -> float:
    """max |softmax(−m(i−j)) − softmax(+m j)| over every head and row (masked alike)."""
    bias = alibi_bias(ROW_TERM_HEADS, 64, dtype=np.float64)
    slopes = alibi_slopes(ROW_TERM_HEADS)
    keys_only = np.where(np.isfinite(bias), slopes[:, None, None] * np.arange(64), -np.inf)
    return float(np.abs(softmax(bias) - softmax(keys_only)).max())


@value("row_term_difference")
def _():
    return format_cell(_row_term_difference(), ".1e")


def _weight_error(form: str, dtype: str) -> float:
    """alibi_weight_error for BLOOM's head BLOOM_HEAD, the largest over ERROR_DRAWS draws."""
    slope = float(alibi_slopes(BLOOM_HEADS)[BLOOM_HEAD - 1])
    draws = (
        np.random.default_rng(seed).normal(0.0, SCORE_STD, size=ERROR_KEYS)
        for seed in range(ERROR_DRAWS)
    )
    return max(alibi_weight_error(s, slope, form=form, dtype=dtype) for s in draws)


def _register_weight_error(form: str, dtype: str) -> None:
    @value(f"weight_error_{form}_{dtype}")
    def _():
        return format_cell(_weight_error(form, dtype), ".1e")


for _form in ALIBI_FORMS:
    for _dtype in ("float32", "bfloat16"):
        _register_weight_error(_form, _dtype)


@value("bloom_head_slope")
def _():
    return _power(float(alibi_slopes(BLOOM_HEADS)[BLOOM_HEAD - 1]))


#: The context of the weights: one query at the last of WEIGHT_LEN positions, equal scores.
WEIGHT_LEN = 64


def _last_query_weights() -> np.ndarray:
    """Softmax weights of the last of WEIGHT_LEN queries over its keys, per head, with all
    content scores equal (zero): the bias alone; shape (FIGURE_HEADS, WEIGHT_LEN)."""
    return softmax(alibi_bias(FIGURE_HEADS, WEIGHT_LEN, dtype=np.float64)[:, -1])


@value("weight_far_last_query")
def _():
    # attention weight of the first key for the last query, steepest head, zero scores
    return format_cell(float(_last_query_weights()[0, 0]), ".1e")


@value("weight_far_last_query_flat")
def _():
    return f"{_last_query_weights()[-1, 0]:.4f}"


@figure(
    "alibi_weight_by_distance",
    alt=lambda: (
        f"Log-scale plot of the softmax weight of each key against its distance from a query "
        f"at the last of {WEIGHT_LEN} positions, all content scores equal, one line per head "
        f"of {FIGURE_HEADS}: each line falls straight on the log scale, steeply for head 1 "
        f"(down to about {format_cell(float(_last_query_weights()[0, 0]), '.0e')} at the "
        "first key) and hardly at "
        f"all for head {FIGURE_HEADS}, which stays near the uniform weight 1/{WEIGHT_LEN}."
    ),
    caption=lambda: (
        f"The weight softmax gives each key against its distance, for a query at "
        f"the last of {WEIGHT_LEN} positions and equal content scores: one line per head of "
        f"{FIGURE_HEADS} (log scale)."
    ),
)
def _(theme):
    weights = _last_query_weights()[:, ::-1]  # nearest key first: lines end far away
    slopes = alibi_slopes(FIGURE_HEADS)
    distance = np.arange(WEIGHT_LEN)  # how far back each key is
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    colours = theme.line_colours(FIGURE_HEADS)
    lines = [ax.plot(distance, weights[h], color=colours[h])[0] for h in range(FIGURE_HEADS)]
    uniform = ax.axhline(1 / WEIGHT_LEN, color=theme.muted, linestyle=":", linewidth=1.2)
    ax.set_yscale("log")
    ax.set_xlabel("distance $i - j$ of the key (positions)")
    ax.set_ylabel("softmax weight of the key")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="major")
    # above the dotted line where every head's weight has fallen below it
    ax.annotate(
        f"uniform weight, 1/{WEIGHT_LEN}",
        xy=(0.6, 1 / WEIGHT_LEN),
        xycoords=uniform.get_transform(),
        xytext=(0, 5),
        textcoords="offset points",
        ha="center",
        va="bottom",
        color=theme.text,
    )
    labels = [f"$m_{{{h + 1}}} = 2^{{{np.log2(slopes[h]):g}}}$" for h in range(4)]
    # the flat heads' lines run together near the uniform weight: one label for them
    bundle = (
        f"$m_5$ to $m_{{{FIGURE_HEADS}}}$, "
        f"$2^{{{np.log2(slopes[4]):g}}}$ to $2^{{{np.log2(slopes[-1]):g}}}$"
    )
    direct_labels(ax, [*lines[:4], lines[FIGURE_HEADS // 2 + 1]], [*labels, bundle], theme)
    return fig


#: The widget opens where the figure cannot go: a head count that is not a power of two
#: (the table's middle column), on its first head filled from the next ladder.
WIDGET_HEADS = HEAD_COUNTS[1]


@interactive(
    "alibi",
    title="Try it: the bias matrix of any head, and the slopes of any number of heads, "
    "powers of two or not.",
)
def _():
    ladder = 2 ** int(np.floor(np.log2(WIDGET_HEADS)))  # the largest power of two below
    return {
        "num_heads": WIDGET_HEADS,
        "head": ladder + 1,
        "length": FIGURE_LEN,
        "colormap": heatmap_colours("sequential"),
    }


@figure(
    "alibi_bias_per_head",
    alt=lambda: (
        f"Left: the causal ALiBi bias of the first of {FIGURE_HEADS} heads for {FIGURE_LEN} "
        "positions, a lower-triangular matrix that is 0 on the diagonal and grows more negative "
        "towards the bottom-left, blank above the diagonal. Right: the bias against the distance "
        f"i − j for each of the {FIGURE_HEADS} heads, {FIGURE_HEADS} straight lines through the "
        f"origin with slopes from −{alibi_slopes(FIGURE_HEADS)[0]:g} to "
        f"−{alibi_slopes(FIGURE_HEADS)[-1]:g}."
    ),
    caption=f"ALiBi with {FIGURE_HEADS} heads. Left (above on a phone): head 1's bias matrix "
    "(keys after the query are masked, blank). Right (below): every head's bias against the "
    "distance.",
)
def _(theme):
    bias = alibi_bias(FIGURE_HEADS, FIGURE_LEN, dtype=np.float64)
    slopes = alibi_slopes(FIGURE_HEADS)
    fig = new_figure(7.0, 3.4)
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.1])
    shown = np.where(np.isfinite(bias[0]), bias[0], np.nan)
    image = left.imshow(shown, cmap=theme.sequential, interpolation="nearest")
    left.set_xlabel("key position $j$")
    left.set_ylabel("query position $i$")
    left.set_title(f"head 1, $m_1 = {slopes[0]:g}$")
    # the bar's label on its left, clear of the other panel's rotated y label; on a phone,
    # whose panel is wider than the square image, the bar sits beside the image itself
    if phone_layout_active():
        bar = fig.colorbar(image, cax=left.inset_axes((1.06, 0.0, 0.06, 1.0)))
    else:
        bar = fig.colorbar(image, ax=left, shrink=0.85)
        fig.get_layout_engine().set(wspace=0.08)  # the bar's ticks clear of the next label
    bar.set_label("bias $-m_1\\,(i - j)$")
    bar.ax.yaxis.set_label_position("left")
    distance = np.arange(FIGURE_LEN)
    # ordered colours, steepest darkest, each at least 3:1 on the page background
    colours = theme.line_colours(FIGURE_HEADS)
    lines = [
        right.plot(distance, -slopes[h] * distance, color=colours[h])[0]
        for h in range(FIGURE_HEADS)
    ]
    # the slope of head h is m_h (the glossary's name): its subscript names the head
    labels = [f"$m_{{{h + 1}}} = 2^{{{np.log2(slopes[h]):g}}}$" for h in range(FIGURE_HEADS)]
    left.set_xticks(range(0, FIGURE_LEN, 3))
    left.set_yticks(range(0, FIGURE_LEN, 3))
    right.set_xlabel("distance $i - j$ (positions)")
    right.xaxis.set_major_locator(MaxNLocator(integer=True))  # distances are whole numbers
    right.set_ylabel("bias added to the score")
    right.grid(True)
    # the flat heads' lines meet near 0: one label for them, the steep ones one each
    bundle = (
        f"$m_5$ to $m_{{{FIGURE_HEADS}}}$, "
        f"$2^{{{np.log2(slopes[4]):g}}}$ to $2^{{{np.log2(slopes[-1]):g}}}$"
    )
    direct_labels(right, [*lines[:4], lines[FIGURE_HEADS // 2 + 1]], [*labels[:4], bundle], theme)
    return fig
