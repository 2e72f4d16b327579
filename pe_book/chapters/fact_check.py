"""Chapter 18, what tutorials get wrong: each wrong claim next to the numbers that refute it."""

from __future__ import annotations

import numpy as np

from pe_explained import sinusoidal, sinusoidal_wavelengths
from pe_explained.learned import learned_parameter_count
from pe_explained.pitfalls import (
    doubled_exponent_frequencies,
    sinusoidal_doubled_exponent,
    sum_rule_errors,
    wrong_layout_lookup,
)
from pe_explained.properties import (
    cycles_within,
    difference_cosine,
    distance_by_offset,
    first_distance_decrease,
    slow_pair_count,
)

from .. import Table, figure, table, value
from ..notation import DM
from ..style import heatmap_panels, new_figure

BUG_POSITIONS, BUG_D_MODEL = 50, 128  # the size the buggy tutorial plots
STILL = 0.01  # a column "barely moves" if its range over the positions is below this
LOW_DIM_D_MODEL = 64
TRAIN_LENGTH, TRAIN_D_MODEL = 512, 512
#: The constants the page quotes, as {{ value: fact_check.NAME }}.
QUOTED = ("TRAIN_LENGTH", "TRAIN_D_MODEL")
SUM_POSITIONS, SUM_D_MODEL = 60, 16
LAYOUT_POSITIONS, LAYOUT_D_MODEL, LAYOUT_ROWS = 512, 64, (1, 2, 3, 10, 100, 500)
DIST_D_MODEL, DIST_OFFSETS = 16, 8
DIFF_D_MODEL, DIFF_OFFSETS, DIFF_SPAN = 16, (1, 2, 3), 100


def _still_columns(table: np.ndarray) -> int:
    """Number of columns whose values span less than STILL over the table's positions."""
    return int((np.ptp(table, axis=0) < STILL).sum())


@figure(
    "fact_check_doubled_exponent",
    alt=f"Two heatmaps of {BUG_POSITIONS} positions by {BUG_D_MODEL} dimensions. Left, the "
    "correct encoding: stripes that widen gradually from left to right across most of the "
    "width. Right, the encoding with the doubled exponent: the stripes widen twice as fast "
    "and far more columns are flat (sine near 0, cosine near 1) over all positions.",
    caption=lambda: (
        "The correct table and the table of the doubled-exponent bug, "
        f"{BUG_POSITIONS} positions × {BUG_D_MODEL} dimensions. With the bug, "
        f"{_still_columns(sinusoidal_doubled_exponent(BUG_POSITIONS, BUG_D_MODEL))} of "
        f"{BUG_D_MODEL} columns change by less than {STILL} over all {BUG_POSITIONS} positions; "
        f"in the correct table, {_still_columns(sinusoidal(BUG_POSITIONS, BUG_D_MODEL))}."
    ),
)
def _(theme):
    tables = (
        (
            r"correct: exponent $2i/d_{\text{model}}$",
            sinusoidal(BUG_POSITIONS, BUG_D_MODEL),
        ),
        (
            r"bug: exponent $4i/d_{\text{model}}$",
            sinusoidal_doubled_exponent(BUG_POSITIONS, BUG_D_MODEL),
        ),
    )
    return heatmap_panels(
        theme,
        tables,
        vmin=-1,
        vmax=1,
        xlabel="dimension $j$ (fast → slow)",
        colorbar_label="$PE(pos, j)$",
    )


@table(
    "doubled_wavelengths",
    caption=f"Wavelength 2π/ω_i of a few pairs, d_model = {BUG_D_MODEL}.",
)
def _():
    correct = sinusoidal_wavelengths(BUG_D_MODEL)
    buggy = 2 * np.pi / doubled_exponent_frequencies(BUG_D_MODEL)
    pairs = [0, 8, 16, 32, 48, BUG_D_MODEL // 2 - 1]
    rows = [[i, 2 * i, correct[i], buggy[i]] for i in pairs]
    return Table(
        ["pair $i$", "sine column $2i$", "correct wavelength", "wavelength with the bug"],
        rows,
        default_format=",.1f",
    )


@value("bug_longest_wavelength")
def _():
    return f"{2 * np.pi / doubled_exponent_frequencies(BUG_D_MODEL)[-1]:,.0f}"


@value("correct_longest_wavelength")
def _():
    return f"{sinusoidal_wavelengths(BUG_D_MODEL)[-1]:,.0f}"


@table("low_dimensions", caption=f"Which dimensions are fast: d_model = {LOW_DIM_D_MODEL}.")
def _():
    pe = sinusoidal(2, LOW_DIM_D_MODEL)
    wavelengths = sinusoidal_wavelengths(LOW_DIM_D_MODEL)
    dims = [0, 1, 2, 3, LOW_DIM_D_MODEL // 2, LOW_DIM_D_MODEL - 2, LOW_DIM_D_MODEL - 1]
    rows = [
        [j, "sin" if j % 2 == 0 else "cos", j // 2, wavelengths[j // 2], abs(pe[1, j] - pe[0, j])]
        for j in dims
    ]
    return Table(
        [
            "dimension $j$",
            "function",
            "pair $i$",
            "wavelength (positions)",
            "change $|PE(1, j) - PE(0, j)|$",
        ],
        rows,
        formats={"wavelength (positions)": ",.1f", "change $|PE(1, j) - PE(0, j)|$": ".2e"},
    )


@figure(
    "fact_check_training_cycles",
    alt=lambda: (
        f"Log-scale plot of how many full cycles each of the {TRAIN_D_MODEL // 2} sin/cos "
        f"pairs of a {TRAIN_D_MODEL}-wide encoding completes within {TRAIN_LENGTH} positions: "
        f"a falling straight line from {cycles_within(TRAIN_LENGTH, TRAIN_D_MODEL)[0]:.0f} cycles "
        "for pair 0 to far below one cycle for "
        f"the last pair; {slow_pair_count(TRAIN_LENGTH, TRAIN_D_MODEL)} pairs lie "
        "below the one-cycle line."
    ),
    caption=f"Cycles each pair completes within a training length of {TRAIN_LENGTH} positions "
    f"(d_model = {TRAIN_D_MODEL}). Pairs below the line never come back to their start "
    "during training.",
)
def _(theme):
    cycles = cycles_within(TRAIN_LENGTH, TRAIN_D_MODEL)
    below = cycles < 1
    i = np.arange(len(cycles))
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    ax.plot(
        i[~below],
        cycles[~below],
        marker="o",
        markersize=2.5,
        linestyle="none",
        label="completes at least one cycle",
    )
    ax.plot(
        i[below],
        cycles[below],
        marker="o",
        markersize=2.5,
        linestyle="none",
        label=f"less than one cycle ({int(below.sum())} pairs)",
    )
    ax.axhline(1.0, color=theme.muted, linestyle="--", linewidth=1)
    ax.set_yscale("log")
    ax.set_xlabel("pair $i$ (0 = fastest → slowest)")
    ax.set_ylabel(f"cycles within {TRAIN_LENGTH} positions")
    ax.grid(True, which="major")
    ax.legend(loc="upper right", markerscale=2.5)
    return fig


@value("pairs_under_one_cycle")
def _():
    return f"{slow_pair_count(TRAIN_LENGTH, TRAIN_D_MODEL)} of {TRAIN_D_MODEL // 2}"


#: The rules of :func:`~pe_explained.pitfalls.sum_rule_errors`, as the chapter's formulas
#: write them.
_RULES = {
    "PE(pos) + PE(k)": "$PE(pos) + PE(k)$",
    "best fixed linear map of PE(pos), PE(k)": "best fixed linear map of $PE(pos)$ and $PE(k)$",
    "M_k · PE(pos)": r"$M_k\,PE(pos)$",
}


@table(
    "sum_rule",
    caption=f"Predicting $PE(pos+k)$ for all $pos, k < {SUM_POSITIONS}$, ${DM} = {SUM_D_MODEL}$: "
    r"the relative error $\|\text{prediction} - PE(pos+k)\| / \|PE(pos+k)\|$ of each rule.",
)
def _():
    errors = sum_rule_errors(SUM_POSITIONS, SUM_POSITIONS, SUM_D_MODEL)
    return Table(
        ["rule", "relative error"],
        [[_RULES[rule], err] for rule, err in errors.items()],
        default_format=".2e",
    )


@table(
    "distance_d16",
    caption=f"Distance to a position $k$ places away, ${DM} = {DIST_D_MODEL}$ (any $pos$).",
)
def _():
    k = np.arange(DIST_OFFSETS + 1)
    dist = distance_by_offset(k, DIST_D_MODEL)
    change = ["—"] + [
        "farther" if b > a else "closer" for a, b in zip(dist[:-1], dist[1:], strict=True)
    ]
    return Table(
        ["offset $k$", r"distance $\Vert PE(pos+k) - PE(pos)\Vert$", "than at $k - 1$"],
        [[int(a), b, c] for a, b, c in zip(k, dist, change, strict=True)],
    )


@value("turn_d16")
def _():
    return str(first_distance_decrease(DIST_D_MODEL))


@table(
    "layouts",
    caption=f"Positions encoded with all sines first, read against the interleaved table "
    f"(d_model = {LAYOUT_D_MODEL}, positions 0–{LAYOUT_POSITIONS - 1}).",
)
def _():
    nearest, distance, own = wrong_layout_lookup(LAYOUT_POSITIONS, LAYOUT_D_MODEL)
    rows = [[p, own[p], int(nearest[p]), distance[p]] for p in LAYOUT_ROWS]
    return Table(
        [
            "position $pos$",
            "distance to its own interleaved row",
            "nearest interleaved row",
            "distance to it",
        ],
        rows,
        default_format=".2f",
    )


@value("adjacent_distance_d64")
def _():
    return f"{distance_by_offset(1, LAYOUT_D_MODEL):.2f}"


@value("layout_min_distance")
def _():
    _, distance, _ = wrong_layout_lookup(LAYOUT_POSITIONS, LAYOUT_D_MODEL)
    return f"{distance.min():.2f}"


@table("parameters", caption="Trainable numbers in the position table.")
def _():
    rows = []
    for name, max_len, d_model in (
        ("learned, GPT-2 small", 1024, 768),
        ("learned, BERT-base", 512, 768),
    ):
        rows.append([name, f"{max_len} × {d_model}", learned_parameter_count(max_len, d_model)])
    rows.append(["sinusoidal, any length and width", "computed on demand", 0])
    return Table(
        ["position table", "shape", "trainable numbers"], rows, formats={"trainable numbers": ","}
    )


@table(
    "difference_vectors",
    caption=f"Difference vectors $D_k(pos) = PE(pos+k) - PE(pos)$ for ${DM} = {DIFF_D_MODEL}$: "
    r"length $\Vert D_k(pos)\Vert$; cosine between $D_k(pos)$ and $D_k(pos+s)$ at $s = 1$ "
    "and at its lowest, with that $s$.",
)
def _():
    separations = np.arange(1, DIFF_SPAN + 1)
    rows = []
    for k in DIFF_OFFSETS:
        turning = difference_cosine(k, separations, DIFF_D_MODEL)
        rows.append(
            [
                k,
                distance_by_offset(k, DIFF_D_MODEL),
                turning[0],
                turning.min(),
                int(separations[turning.argmin()]),
            ]
        )
    return Table(
        [
            "offset $k$",
            "length",
            "cosine, $s = 1$",
            f"lowest cosine, $s \\le {DIFF_SPAN}$",
            "at $s$",
        ],
        rows,
    )


@value("consecutive_cosine_d16")
def _():
    return f"{difference_cosine(1, 1, DIFF_D_MODEL):.4f}"


@value("consecutive_cosine_d512")
def _():
    return f"{difference_cosine(1, 1, 512):.4f}"
