"""Chapter 14, xPos and NoPE: RoPE's far oscillation damped, and position from a causal mask."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from pe_explained.nope import nope_position_signal, recover_positions
from pe_explained.xpos import (
    expected_rotary_score,
    xpos_centred_positions,
    xpos_safe_position,
    xpos_scale,
    xpos_zeta,
)

from .. import Table, figure, table, value
from ..style import new_figure
from ..text import format_cell

HEAD_DIM, SCALE_BASE = 64, 512
FAR = np.arange(2048, 8193)  # "far" distances for the oscillation numbers
NOPE_LEN = 16


def _far(scale_base):
    return expected_rotary_score(HEAD_DIM, FAR, scale_base=scale_base)


#: Where the xPos curve is lower than RoPE's on average, and one distance inside it.
LOWER_BAND, LOWER_AT = (500, 2000), 1000
#: A key this far *after* the query (xPos's factor on pair 0 there).
AFTER = 2048
QUOTED = ("HEAD_DIM", "SCALE_BASE", "LOWER_AT", "AFTER")


def _band_mean(scale_base):
    band = np.arange(*LOWER_BAND)
    return float(expected_rotary_score(HEAD_DIM, band, scale_base=scale_base).mean())


@value("lower_band")
def _():
    return f"{LOWER_BAND[0]:,}–{LOWER_BAND[1]:,}"


@value("rope_band_mean")
def _():
    return f"{_band_mean(None):.3f}"


@value("xpos_band_mean")
def _():
    return f"{_band_mean(SCALE_BASE):.3f}"


@value("rope_at_lower")
def _():
    return f"{expected_rotary_score(HEAD_DIM, [LOWER_AT])[0]:.3f}"


@value("xpos_at_lower")
def _():
    return f"{expected_rotary_score(HEAD_DIM, [LOWER_AT], scale_base=SCALE_BASE)[0]:.3f}"


@value("after_factor_pair0")
def _():
    # the score's factor on pair 0 for a key AFTER positions after the query: ζ_0^(−AFTER/B)
    return f"{xpos_scale(HEAD_DIM, [-AFTER], scale_base=SCALE_BASE)[0, 0]:.0f}"


@value("rope_far_min")
def _():
    return f"{_far(None).min():.2f}"


@value("xpos_far_min")
def _():
    return f"{_far(SCALE_BASE).min():.3f}"


@value("xpos_variation_ratio")
def _():
    variation = [np.abs(np.diff(_far(s))).sum() for s in (None, SCALE_BASE)]
    return f"{variation[0] / variation[1]:,.0f}"


@table(
    "xpos_zeta_head64",
    caption=r"xPos's per-pair decay for head_dim = 64, $\gamma = 0.4$, $B = 512$: the factor a "
    "pair's score contribution carries at a distance.",
)
def _():
    zeta = xpos_zeta(HEAD_DIM)
    rows = []
    for i in (0, 8, 16, 24, 31):
        rows.append([i, zeta[i], *(zeta[i] ** (d / SCALE_BASE) for d in (512, 2048, 8192))])
    return Table(
        ["pair $i$", "decay ζ_i", "factor at distance 512", "at 2,048", "at 8,192"],
        rows,
        default_format=".3g",
    )


#: Every integer distance up to the far end: the fast pairs turn once every few
#: positions, so a sparser sample would miss RoPE's lowest points.
FIGURE_DISTANCES = np.arange(1, FAR[-1] + 1)
#: Columns of the log axis the figure keeps each curve's extremes in (its resolution).
FIGURE_COLUMNS = 700


def figure_distances() -> np.ndarray:
    """The distances the figure draws: in each of FIGURE_COLUMNS log-spaced columns, the
    integer distances where RoPE's or xPos's curve is lowest and highest, so the drawing
    keeps every extreme of the curves at every integer distance (the prose's minima too)."""
    columns = np.digitize(np.log(FIGURE_DISTANCES), np.linspace(0, np.log(FAR[-1]), FIGURE_COLUMNS))
    keep = set()
    for scale_base in (None, SCALE_BASE):
        score = expected_rotary_score(HEAD_DIM, FIGURE_DISTANCES, scale_base=scale_base)
        for column in np.unique(columns):
            (inside,) = np.nonzero(columns == column)
            keep.update((inside[np.argmin(score[inside])], inside[np.argmax(score[inside])]))
    return FIGURE_DISTANCES[sorted(keep)]


def _first_negative(scale_base) -> int:
    """The distance from which the xPos curve stays below zero (or RoPE's first dip)."""
    score = expected_rotary_score(HEAD_DIM, FIGURE_DISTANCES, scale_base=scale_base)
    if scale_base is None:
        return int(FIGURE_DISTANCES[score < 0][0])
    positive = np.nonzero(score >= 0)[0]
    return int(FIGURE_DISTANCES[positive[-1] + 1])


def _minus(x: float, spec: str) -> str:
    """A number as prose writes it, with a minus sign."""
    return f"{x:{spec}}".replace("-", "−")


@value("xpos_negative_from")
def _():
    return f"{_first_negative(SCALE_BASE):,}"


@figure(
    "xpos_vs_rope_score",
    alt=lambda: (
        "Two curves of the expected query-key score, relative to distance 0, against the "
        f"distance from 1 to {FAR[-1]:,} positions (drawn through the highest and lowest "
        "values over every integer distance), head_dim "
        f"{HEAD_DIM}, logarithmic distance axis. Both start near 1 "
        f"({expected_rotary_score(HEAD_DIM, [1])[0]:.2f} at distance 1) and fall over the "
        "first few hundred positions; in between, the xPos curve runs lower on average. The "
        f"RoPE curve first dips below zero at distance {_first_negative(None):,}; beyond "
        "about a thousand positions it oscillates rapidly above and below zero, down to "
        f"{_minus(_far(None).min(), '.2f')}. The xPos curve is smooth and settles near zero, "
        f"ending at {_minus(_far(SCALE_BASE)[-1], '.3f')}: below zero from distance "
        f"{_first_negative(SCALE_BASE):,} on."
    ),
    caption=f"Expected score of a query and a key with the same content, relative to "
    f"distance 0, for RoPE and xPos, over the distances 1 to {FAR[-1]:,} "
    f"(head_dim = {HEAD_DIM}, base 10,000; xPos: $B = {SCALE_BASE}$, $\\gamma = 0.4$).",
)
def _(theme):
    distance = figure_distances()
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    ax.plot(distance, expected_rotary_score(HEAD_DIM, distance), label="RoPE", linewidth=1.2)
    ax.plot(
        distance,
        expected_rotary_score(HEAD_DIM, distance, scale_base=SCALE_BASE),
        label=f"xPos ($B = {SCALE_BASE}$)",
        linestyle="--",
    )
    ax.axhline(0, color=theme.muted, linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("distance between query and key (positions, log scale)")
    ax.set_ylabel("expected score / score at distance 0")
    ax.grid(True)
    ax.legend(loc="upper right")
    return fig


@figure(
    "nope_position_signal",
    alt=f"Points for positions 0 to {NOPE_LEN - 1}. With a causal mask, attention spread evenly "
    "over the visible keys, reading a marker that only the start token carries, gives 1, 1/2, "
    "1/3 and so on: a strictly falling curve, a different value at every position. Without "
    f"the mask every position gets the same value, 1/{NOPE_LEN}, a flat line.",
    caption="What one head with all-equal scores reads from a marked start token at each "
    "position $i$: $1/(i + 1)$ with the causal mask, the same number everywhere without it.",
)
def _(theme):
    positions = np.arange(NOPE_LEN)
    fig = new_figure(7.0, 3.2)
    ax = fig.add_subplot()
    ax.plot(positions, nope_position_signal(NOPE_LEN), marker="o", label="causal: $1/(i + 1)$")
    ax.plot(
        positions,
        nope_position_signal(NOPE_LEN, causal=False),
        marker="s",
        linestyle="--",
        label=f"bidirectional: $1/{NOPE_LEN}$ everywhere",
    )
    ax.set_xlabel("position $i$")
    ax.set_ylabel("attention output (start-token feature)")
    ax.grid(True)
    ax.legend(loc="upper right")
    return fig


RECOVER_LEN = 2048


@value("nope_recovered_count")
def _():
    recovered = recover_positions(nope_position_signal(RECOVER_LEN))
    return f"{int(np.sum(recovered == np.arange(RECOVER_LEN))):,}"


#: Centred sequence lengths the page quotes pair 0's factors at.
CENTRED_LENGTHS = (2048, 8192)


def _pair0_extremes(length: int) -> tuple[float, float]:
    """Pair 0's smallest and largest factor over a centred sequence of ``length`` tokens."""
    factors = xpos_scale(HEAD_DIM, xpos_centred_positions(length), scale_base=SCALE_BASE)[:, 0]
    return float(factors.min()), float(factors.max())


for _length in CENTRED_LENGTHS:
    value(f"centred_{_length}_min")(lambda n=_length: format_cell(_pair0_extremes(n)[0], ".2g"))
    value(f"centred_{_length}_max")(
        lambda n=_length: (
            f"{_pair0_extremes(n)[1]:,.0f}"
            if _pair0_extremes(n)[1] >= 100
            else f"{_pair0_extremes(n)[1]:.2f}"
        )
    )


@value("zeta0")
def _():
    return f"{xpos_zeta(HEAD_DIM)[0]:.4f}"


@table(
    "xpos_float_limits",
    caption="How far from the centre xPos's factors stay normal numbers in each float format.",
)
def _():
    formats = {
        "float16": np.finfo(np.float16),
        "bfloat16": ml_dtypes.finfo(ml_dtypes.bfloat16),
        "float32": np.finfo(np.float32),
    }
    rows = []
    for name, info in formats.items():
        smallest, largest = float(info.smallest_normal), float(info.max)
        p = xpos_safe_position(HEAD_DIM, smallest=smallest, largest=largest, scale_base=SCALE_BASE)
        big = f"{largest:,.0f}" if largest < 1e6 else format_cell(largest, ".2e")
        rows.append([name, format_cell(smallest, ".2e"), big, int(p), 2 * int(p)])
    return Table(
        ["format", "smallest normal", "largest", "largest |position|", "centred sequence"],
        rows,
        formats={"largest |position|": ",d", "centred sequence": ",d"},
    )
