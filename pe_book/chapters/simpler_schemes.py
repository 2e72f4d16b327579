"""Chapter 2, why not something simpler: index, normalised index, one-hot, binary."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.ticker import MaxNLocator, NullLocator

from pe_explained import sinusoidal
from pe_explained.attention import toy_embeddings
from pe_explained.naive import (
    binary_encoding,
    closest_position,
    distances_from,
    index_encoding,
    neighbour_distances,
    normalized_index_encoding,
    one_hot_encoding,
)

from .. import Table, figure, table, value
from ..notation import DM
from ..style import (
    direct_labels,
    label_line_ends,
    label_on_line,
    new_figure,
    phone_layout_active,
)

MAX_LEN = 1024  # positions 0 … 1023 in the norm figure and the summary table
NUM_BITS = 10  # 2**10 = 1024
SUMMARY_D_MODEL = 64  # width of the sinusoidal encoding in the comparison
EMBED_D_MODEL = 512  # width of the token embeddings the index is compared with
NEAR_LEN, NEAR_BITS, NEAR_D_MODEL, NEAR_REF = 64, 8, 8, 32  # the distance figure


@lru_cache(maxsize=1)
def _tables() -> dict[str, np.ndarray]:
    """Each scheme's table for positions 0 … MAX_LEN − 1, at its natural width."""
    return {
        "raw index": index_encoding(MAX_LEN),
        f"index / $L$ ($L = {MAX_LEN:,}$)".replace(",", "{,}"): normalized_index_encoding(
            MAX_LEN, MAX_LEN
        ),
        "one-hot": one_hot_encoding(MAX_LEN, MAX_LEN),
        f"binary ({NUM_BITS} bits)": binary_encoding(MAX_LEN, NUM_BITS),
        f"sinusoidal (${DM} = {SUMMARY_D_MODEL}$)": sinusoidal(MAX_LEN, SUMMARY_D_MODEL),
    }


@lru_cache(maxsize=1)
def _embedding_norm() -> float:
    """Mean norm of N(0, 1/d_model) token embeddings (1,000 random words)."""
    words = [f"w{n}" for n in range(1000)]
    vectors = np.stack(list(toy_embeddings(words, EMBED_D_MODEL, seed=0).values()))
    return float(np.linalg.norm(vectors, axis=1).mean())


@table(
    "summary",
    caption=f"Positions 0–{MAX_LEN - 1:,} under each scheme. Norms and distances are "
    "Euclidean; a neighbour distance is ‖PE(pos + 1) − PE(pos)‖.",
)
def _():
    rows = []
    for name, tab in _tables().items():
        norms = np.linalg.norm(tab, axis=1)
        steps = neighbour_distances(tab)
        rows.append([name, tab.shape[1], norms.min(), norms.max(), steps.min(), steps.max()])
    return Table(
        [
            "scheme",
            "width",
            "smallest norm",
            "largest norm",
            "smallest neighbour distance",
            "largest neighbour distance",
        ],
        rows,
        formats={
            "width": ",d",
            "largest norm": ",.4g",
            "smallest norm": ".4g",
            "smallest neighbour distance": ".3e",  # 9.766×10⁻⁴ for index / L
            "largest neighbour distance": ".3e",
        },
    )


@figure(
    "simpler_schemes_norms",
    alt="Log-scale plot of the norm of each simple encoding against position 1 to "
    f"{MAX_LEN - 1}: the raw index, whose norm is the position itself, climbs steeply "
    f"at first and then ever more gently on the log scale, to {MAX_LEN - 1:,}; the "
    "normalised index rises to just under 1; one-hot stays at 1; binary jumps between 1 "
    f"and about {np.sqrt(NUM_BITS):.1f}; the sinusoidal encoding stays flat at "
    f"{np.sqrt(SUMMARY_D_MODEL / 2):.2f}. A dashed line marks the typical norm of a token "
    "embedding, about 1.",
    caption="‖PE(pos)‖ for each scheme (log scale). Only the raw index grows without bound; "
    f"the dashed line is the mean norm of random token embeddings with entries "
    f"N(0, 1/d_model), d_model = {EMBED_D_MODEL}.",
)
def _(theme):
    fig = new_figure(7.0, 3.8)
    ax = fig.add_subplot()
    positions = np.arange(1, MAX_LEN)
    for name, tab in _tables().items():
        ax.plot(
            positions,
            np.linalg.norm(tab[1:], axis=1),
            label=name.replace("d_model", f"${DM}$"),
            # one-hot's norm is exactly 1, under the embeddings' dashed line: drawn
            # wider, so that it shows on both sides of the dashes
            linewidth=1.0 if name.startswith("binary") else 3.2 if name == "one-hot" else 1.8,
        )
    embedding = ax.plot(
        positions,
        np.full(positions.shape, _embedding_norm()),
        color=theme.text,
        linestyle="--",
        linewidth=1.0,
        label="token embedding,\n" r"$\mathcal{N}(0, 1/d_{\text{model}})$ entries",
    )[0]
    ax.set_yscale("log")
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("position pos")
    ax.set_ylabel(r"norm $\|PE(pos)\|$ (log scale)")
    ax.grid(True, which="major")
    if phone_layout_active():  # a legend under the figure
        label_line_ends(ax, theme)
        return fig
    # three lines end at a norm of about 1: two of them are labelled in the empty space
    # under the normalised index, so that the end labels stand apart
    lines = {line.get_label(): line for line in ax.get_lines()}
    index = next(name for name in lines if name.startswith("index"))
    inside = (lines.pop(index), lines.pop(embedding.get_label()))
    label_on_line(ax, inside[0], 450, inside[0].get_label(), theme, (0, -16), ha="left")
    label_on_line(ax, inside[1], 850, inside[1].get_label(), theme, (0, -60))
    direct_labels(ax, list(lines.values()), list(lines), theme)
    return fig


@figure(
    "simpler_schemes_nearness",
    alt=f"Four panels, each the distance from position {NEAR_REF} to every position 0 to "
    f"{NEAR_LEN - 1}. One-hot: flat at 1.41 except 0 at the reference. Binary: jagged, "
    f"with position {NEAR_REF - 1} among the farthest and position 0 among the nearest. "
    f"Sinusoidal with d_model = {NEAR_D_MODEL}: a dip at the reference with large wiggles; "
    f"with d_model = {SUMMARY_D_MODEL}: a steep dip that levels off, neighbours nearest.",
    caption=f"Distance ‖PE(pos) − PE({NEAR_REF})‖ under each scheme: one-hot, binary "
    f"({NEAR_BITS} bits), and the sinusoidal encoding of the same width "
    f"(d_model = {NEAR_D_MODEL}) and with d_model = {SUMMARY_D_MODEL}.",
)
def _(theme):
    panels = {
        f"one-hot (width {NEAR_LEN})": one_hot_encoding(NEAR_LEN, NEAR_LEN),
        f"binary ({NEAR_BITS} bits)": binary_encoding(NEAR_LEN, NEAR_BITS),
        f"sinusoidal, ${DM} = {NEAR_D_MODEL}$": sinusoidal(NEAR_LEN, NEAR_D_MODEL),
        f"sinusoidal, ${DM} = {SUMMARY_D_MODEL}$": sinusoidal(NEAR_LEN, SUMMARY_D_MODEL),
    }
    fig = new_figure(7.0, 4.4)
    axes = fig.subplots(2, 2, sharex=True)
    positions = np.arange(NEAR_LEN)
    for ax, (name, tab), colour in zip(axes.flat, panels.items(), theme.cycle, strict=False):
        ax.plot(positions, distances_from(tab, NEAR_REF), linewidth=1.3, color=colour)
        ax.axvline(NEAR_REF, color=theme.muted, linestyle=":", linewidth=1.4)
        ax.set_title(name, fontsize=9.5)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_locator(MaxNLocator(4))
        ax.set_xticks([0, NEAR_REF, NEAR_LEN - 1])
        ax.grid(True)
    for ax in axes[1]:
        ax.set_xlabel("position pos")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"$\\|PE(pos) - PE({NEAR_REF})\\|$")
    return fig


@value("embedding_norm_d512")
def _():
    return f"{_embedding_norm():.2f}"


@value("index_norm_500_d512")
def _():
    return f"{float(np.linalg.norm(index_encoding([500], EMBED_D_MODEL))):,.0f}"


@value("index_to_embedding_ratio_500")
def _():
    ratio = float(np.linalg.norm(index_encoding([500], EMBED_D_MODEL))) / _embedding_norm()
    return f"{ratio:,.0f}"


@value("binary_distance_31_32")
def _():
    return f"{distances_from(binary_encoding(NEAR_LEN, NEAR_BITS), 31)[32]:.2f}"


@value("binary_distance_0_32")
def _():
    return f"{distances_from(binary_encoding(NEAR_LEN, NEAR_BITS), 0)[32]:.0f}"


@value("sinusoidal_nearest_other_64")
def _():
    _, distance = closest_position(sinusoidal(MAX_LEN, SUMMARY_D_MODEL), 0, min_offset=2)
    return f"{distance:.4f}"


@value("sinusoidal_neighbour_distance_64")
def _():
    return f"{neighbour_distances(sinusoidal(MAX_LEN, SUMMARY_D_MODEL)).max():.4f}"
