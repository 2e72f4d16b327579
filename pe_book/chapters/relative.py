"""Chapter 10, relative positions: the offset matrix, Shaw's clipped index,
Transformer-XL's terms, and FIRE's input at one offset for queries before and past its
threshold."""

from __future__ import annotations

import numpy as np

from pe_explained import fire_normalized_distance
from pe_explained.relative import (
    TERM_NAMES,
    relative_distances,
    shaw_relative_index,
    transformer_xl_terms,
)

from .. import figure, value
from ..style import new_figure

SEQ_LEN, MAX_DISTANCE = 8, 2
XL_SEQ_LEN, XL_D_MODEL, XL_HEAD_DIM, XL_SEED = 16, 32, 16, 0
#: FIRE's input at one offset for queries at FIRE_QUERIES, with the paper's initial c and
#: threshold (τ in the chapter, the paper's L): the same below τ, smaller past it.
FIRE_C, FIRE_THRESHOLD, FIRE_OFFSET, FIRE_QUERIES = 0.1, 512.0, 10, (1_000, 2_000)
QUOTED = ("FIRE_C", "FIRE_THRESHOLD", "FIRE_OFFSET")


def fire_input(query: int, offset: int = FIRE_OFFSET) -> float:
    """FIRE's input ψ(offset)/ψ(max(τ, query)) for a key ``offset`` positions before a query
    at position ``query``, with the chapter's c and τ."""
    x = fire_normalized_distance(1, query + 1, c=FIRE_C, threshold=FIRE_THRESHOLD)
    return float(x[0, query - offset])


@value("fire_input_before")
def _():
    """The input at FIRE_OFFSET for any query up to the threshold (the same for all)."""
    return f"{fire_input(int(FIRE_THRESHOLD)):.4f}"


@value("fire_inputs_past")
def _():
    first, second = (f"{fire_input(q):.4f} at query {q:,}" for q in FIRE_QUERIES)
    return f"{first} and {second}"


def _annotated(ax, data, cmap, vmin, vmax, dark_cell):
    """An integer matrix as coloured cells with its values written in them."""
    ax.imshow(data, cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest")
    for (i, j), v in np.ndenumerate(data):
        ax.text(
            j,
            i,
            str(v).replace("-", "−"),
            ha="center",
            va="center",
            fontsize=8.5,
            color="white" if dark_cell(v) else "black",
        )
    n = data.shape[0]
    ax.set_xticks(range(n))
    ax.set_yticks(range(n))
    ax.set_xlabel("key position $j$")
    ax.set_ylabel("query position $i$")


@figure(
    "relative_distance_matrices",
    swap=False,  # each cell's label takes the colour that reads on that cell
    alt=f"Two annotated {SEQ_LEN} by {SEQ_LEN} matrices. Left: the offset j minus i, zero on "
    f"the diagonal, growing to {SEQ_LEN - 1} in the top-right corner and falling to "
    f"-{SEQ_LEN - 1} in the bottom-left. Right: Shaw et al.'s index with k = {MAX_DISTANCE}, "
    f"the same offsets clipped to between -{MAX_DISTANCE} and {MAX_DISTANCE} and shifted to "
    f"0 to {2 * MAX_DISTANCE}, so every diagonal beyond distance {MAX_DISTANCE} repeats the "
    "outermost value.",
    caption=f"Left (above on a phone): the offset $j - i$ between key $j$ and query $i$. Right "
    f"(below): the row of Shaw et al.'s table each pair uses, with $k = {MAX_DISTANCE}$: "
    f"{2 * MAX_DISTANCE + 1} vectors serve every distance.",
)
def _(theme):
    fig = new_figure(7.0, 3.9)
    left, right = fig.subplots(1, 2)
    limit = SEQ_LEN - 1
    _annotated(
        left,
        relative_distances(SEQ_LEN, SEQ_LEN),
        theme.diverging,
        -limit,
        limit,
        lambda v: abs(v) > 0.6 * limit,
    )  # RdBu is dark at both ends
    left.set_title("offset $j - i$ (positions)")
    _annotated(
        right,
        shaw_relative_index(SEQ_LEN, SEQ_LEN, MAX_DISTANCE),
        theme.sequential,
        0,
        2 * MAX_DISTANCE,
        lambda v: v < MAX_DISTANCE,
    )  # viridis is dark at the low end
    right.set_title(f"Shaw table row, $k = {MAX_DISTANCE}$")
    return fig


def xl_terms() -> dict[str, np.ndarray]:
    """The four terms for a random segment: the figure and the page use the same numbers."""
    rng = np.random.default_rng(XL_SEED)
    x = rng.normal(size=(XL_SEQ_LEN, XL_D_MODEL))
    w_q, w_ke, w_kr = rng.normal(0, XL_D_MODEL**-0.5, size=(3, XL_D_MODEL, XL_HEAD_DIM))
    u, v = rng.normal(size=(2, XL_HEAD_DIM))
    return transformer_xl_terms(x, w_q, w_ke, w_kr, u, v)


@figure(
    "transformer_xl_terms",
    alt=f"Four {XL_SEQ_LEN} by {XL_SEQ_LEN} heatmaps, one per term of a Transformer-XL "
    "attention logit for a random segment: content-content varies irregularly from cell to "
    "cell; content-position varies along rows; the content bias is constant down each "
    "column; the position bias is constant along each diagonal, since it depends only on "
    "the offset i minus j.",
    caption="The four terms of a Transformer-XL logit for a random segment (d_model = "
    f"{XL_D_MODEL}, head_dim = {XL_HEAD_DIM}; each panel on its own colour scale, in units "
    "of the logit).",
)
def _(theme):
    terms = xl_terms()
    fig = new_figure(7.0, 6.4)
    axes = fig.subplots(2, 2, sharex=True, sharey=True)
    for ax, letter, name in zip(axes.flat, "abcd", TERM_NAMES, strict=True):
        limit = float(np.abs(terms[name]).max())  # each term on its own symmetric scale
        image = ax.imshow(
            terms[name], cmap=theme.diverging, vmin=-limit, vmax=limit, interpolation="nearest"
        )
        ax.set_title(f"({letter}) {name}")
        fig.colorbar(image, ax=ax, shrink=0.85)
    for ax in axes[1]:
        ax.set_xlabel("key position $j$")
    for ax in axes[:, 0]:
        ax.set_ylabel("query position $i$")
    return fig
