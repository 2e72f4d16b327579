"""Chapter 4, properties of the sinusoidal encoding: distances, dot products, the offset map."""

from __future__ import annotations

import numpy as np

from pe_explained import sinusoidal, sinusoidal_frequencies
from pe_explained.properties import (
    distance_by_offset,
    dot_product_by_offset,
    first_distance_decrease,
    offset_matrix,
    pairwise_distances,
)

from .. import Table, figure, table, value
from ..interactive import interactive
from ..notation import DM
from ..style import new_figure

MATRIX_POSITIONS, MATRIX_D_MODELS = 64, (16, 128)
CURVE_D_MODELS, CURVE_MAX_OFFSET = (16, 64, 512), 60
DOT_D_MODEL, DOT_MAX_OFFSET, DOT_STARTS = 64, 200, (200, 1000)  # pos − k stays ≥ 0
M_D_MODEL, M_OFFSET = 8, 3
#: The widget beside M_k: the position it starts from, the largest it offers, and its offsets.
TURN_POS, TURN_MAX_POS = 10, 200
TURN_OFFSETS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 15, 20, 30, 50, 100, 200, 300, 500, 1000)


@figure(
    "properties_distance_matrix",
    alt=f"Two heatmaps of the distance between the encodings of positions 0 to "
    f"{MATRIX_POSITIONS - 1}, for d_model = {MATRIX_D_MODELS[0]} and {MATRIX_D_MODELS[1]}. "
    "Both are zero on the diagonal and constant along every line parallel to it. For the "
    f"small width the colour rises and falls again away from the diagonal; for d_model = "
    f"{MATRIX_D_MODELS[1]} it rises with a small ripple near the diagonal.",
    caption="‖PE(m) − PE(n)‖/√d_model for every pair of positions. Each diagonal stripe has "
    "one colour: the distance depends only on the offset $|m - n|$. It is not a smooth ramp "
    "away from the diagonal.",
)
def _(theme):
    scaled = [
        pairwise_distances(sinusoidal(MATRIX_POSITIONS, d)) / np.sqrt(d) for d in MATRIX_D_MODELS
    ]
    top = max(s.max() for s in scaled)
    fig = new_figure(7.0, 3.4)
    axes = fig.subplots(1, 2)
    for ax, d_model, dist in zip(axes, MATRIX_D_MODELS, scaled, strict=True):
        image = ax.imshow(dist, cmap=theme.sequential, vmin=0, vmax=top, interpolation="nearest")
        ax.set_title(f"${DM} = {d_model}$")
        ax.set_xlabel("position $n$")
        ax.set_ylabel("position $m$")
    fig.colorbar(
        image, ax=axes, shrink=0.85, label=r"$\|PE(m) - PE(n)\| / \sqrt{d_{\text{model}}}$"
    )
    return fig


@figure(
    "properties_distance_by_offset",
    alt=lambda: (
        "Line plot of the distance between the encodings of two positions against their "
        f"offset k from 0 to {CURVE_MAX_OFFSET}, scaled by the square root of d_model, for "
        f"d_model = {', '.join(map(str, CURVE_D_MODELS))}. Every curve rises from zero and then "
        "wiggles; a marker on each curve shows the first offset after which the distance "
        f"shrinks: k = {', '.join(str(first_distance_decrease(d)) for d in CURVE_D_MODELS)}."
    ),
    caption="Distance against offset, from the closed form "
    r"$\Vert PE(pos+k) - PE(pos)\Vert^2 = \sum_i 4 \sin^2(k\,\omega_i / 2)$; markers: the first "
    "$k$ with the distance at $k + 1$ below that at $k$.",
)
def _(theme):
    k = np.arange(CURVE_MAX_OFFSET + 1)
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    for d_model in CURVE_D_MODELS:
        dist = distance_by_offset(k, d_model) / np.sqrt(d_model)
        turn = first_distance_decrease(d_model)
        (line,) = ax.plot(k, dist, label=f"${DM} = {d_model}$ (first drop after $k = {turn}$)")
        ax.plot(
            [turn],
            [dist[turn]],
            marker="o",
            markersize=7,
            color=line.get_color(),
            markeredgecolor=theme.text,
            linestyle="none",
        )
    ax.set_xlabel("offset $k$ (positions)")
    ax.set_ylabel(r"$\|PE(pos+k) - PE(pos)\| / \sqrt{d_{\text{model}}}$")
    ax.grid(True)
    ax.legend(loc="lower right")
    return fig


@figure(
    "properties_dot_by_offset",
    alt=f"Line plot of the dot product PE(pos) · PE(pos+k) for d_model = {DOT_D_MODEL} against "
    f"the offset k from -{DOT_MAX_OFFSET} to {DOT_MAX_OFFSET}: a curve symmetric about k = 0 "
    f"with its peak of {DOT_D_MODEL // 2} at k = 0, falling with ripples on both sides. "
    f"Markers measured from the table at pos = {DOT_STARTS[0]} and pos = {DOT_STARTS[1]} lie "
    "on the curve.",
    caption=r"$PE(pos) \cdot PE(pos+k) = \sum_i \cos(k\,\omega_i)$: the line is the closed "
    "form, the markers are dot products of rows of the table starting at two different "
    "positions $pos$.",
)
def _(theme):
    k = np.arange(-DOT_MAX_OFFSET, DOT_MAX_OFFSET + 1)
    pe = sinusoidal(max(DOT_STARTS) + DOT_MAX_OFFSET + 1, DOT_D_MODEL)
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    ax.plot(
        k, dot_product_by_offset(k, DOT_D_MODEL), label=r"$\Sigma_i\, \cos(k\,\omega_i)$", zorder=1
    )
    for p, marker in zip(DOT_STARTS, ("o", "x"), strict=True):
        sample = k[::10]
        measured = pe[p + sample] @ pe[p]
        ax.plot(
            sample,
            measured,
            marker=marker,
            linestyle="none",
            markersize=5,
            label=f"measured at $pos = {p}$",
            zorder=2,
        )
    ax.set_xlabel("offset $k$ (positions)")
    ax.set_ylabel(r"$PE(pos) \cdot PE(pos+k)$")
    ax.grid(True)
    ax.legend(loc="upper right", fontsize=8.5)
    return fig


@figure(
    "properties_offset_matrix",
    alt=f"Two {M_D_MODEL} by {M_D_MODEL} heatmaps of the matrix M_k for k = {M_OFFSET}. In "
    "the interleaved layout the non-zero entries form 2 by 2 blocks along the diagonal; in "
    "the split-half layout the same entries sit on the main diagonal and on two diagonals "
    f"{M_D_MODEL // 2} columns away. Every other entry is zero.",
    caption=f"$M_k$ for $k = {M_OFFSET}$, ${DM} = {M_D_MODEL}$, with "
    r"$PE(pos+k) = M_k\,PE(pos)$ for every $pos$: one rotation by the angle $k\,\omega_i$ per "
    "pair, in both layouts.",
)
def _(theme):
    fig = new_figure(7.0, 3.5)
    axes = fig.subplots(1, 2)
    for ax, layout in zip(axes, ("interleaved", "halves"), strict=True):
        m = offset_matrix(M_OFFSET, M_D_MODEL, layout=layout)
        image = ax.imshow(m, cmap=theme.diverging, vmin=-1, vmax=1, interpolation="nearest")
        ax.set_title(f"layout = {layout!r}")
        ax.set_xticks(range(M_D_MODEL))
        ax.set_yticks(range(M_D_MODEL))
        ax.set_xlabel("input dimension (of $PE(pos)$)")
        ax.set_ylabel("output dimension (of $PE(pos+k)$)")
    fig.colorbar(image, ax=axes, shrink=0.85, label="entry of $M_k$")
    return fig


@interactive(
    "offset_rotation",
    title=r"Try it: a shift by $k$ turns pair $i$ by the angle $k\,\omega_i$, from any "
    "position $pos$.",
    script="interactive-properties",
)
def _():
    return {
        "d_model": M_D_MODEL,
        "k": M_OFFSET,
        "offsets": list(TURN_OFFSETS),
        "pos": TURN_POS,
        "max_pos": TURN_MAX_POS,
        "base": 10000.0,  # the library's default, which the chapter's figures use
    }


@table(
    "offset_blocks",
    caption=f"The entries of $M_k$ drawn above ($k = {M_OFFSET}$, ${DM} = {M_D_MODEL}$): "
    r"pair $i$'s $2 \times 2$ block has the cosine of $k\,\omega_i$ on its diagonal, the "
    "sine above it and minus the sine below.",
)
def _():
    m = offset_matrix(M_OFFSET, M_D_MODEL)
    omega = sinusoidal_frequencies(M_D_MODEL)
    rows = [
        [i, omega[i], M_OFFSET * omega[i], m[2 * i, 2 * i], m[2 * i, 2 * i + 1]]
        for i in range(M_D_MODEL // 2)
    ]
    return Table(
        ["pair $i$", r"frequency $\omega_i$", r"angle $k\,\omega_i$", "cosine", "sine"],
        rows,
        formats={r"frequency $\omega_i$": "g", r"angle $k\,\omega_i$": "g"},
    )


@value("turn_d16")
def _():
    return str(first_distance_decrease(16))


@value("turn_d512")
def _():
    return str(first_distance_decrease(512))


@value("turn_distances_d512")
def _():
    k = first_distance_decrease(512)
    before, after = distance_by_offset([k, k + 1], 512)
    return f"{before:.4f} at $k = {k}$ and {after:.4f} at $k = {k + 1}$"
