"""The home page: one figure of what the book covers, drawn by the library."""

from __future__ import annotations

import numpy as np

from pe_explained import alibi_slopes, rope_frequencies, sinusoidal

from .. import figure
from ..style import label_on_line, new_figure

#: Sinusoidal panel: positions × d_model. ALiBi panel: positions and heads.
TABLE_POSITIONS, TABLE_D_MODEL = 64, 64
BIAS_POSITIONS, BIAS_HEADS = 16, 8
#: Context-extension panel: Llama-style RoPE stretched 4 times from 4,096 positions.
HEAD_DIM, BASE, FACTOR, CONTEXT = 128, 10000.0, 4.0, 4096
METHODS = {
    "position interpolation": {"rope_type": "linear", "factor": FACTOR},
    "YaRN": {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": CONTEXT},
    "Llama 3.1's rule": {
        "rope_type": "llama3",
        "factor": FACTOR,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": CONTEXT,
    },
}


@figure(
    "home_overview",
    alt=(
        f"Three panels. Left: the sinusoidal table for {TABLE_POSITIONS} positions and "
        f"{TABLE_D_MODEL} dimensions, fast stripes on the left, slow on the right. Middle: "
        f"ALiBi's bias for the first of {BIAS_HEADS} heads over {BIAS_POSITIONS} positions, "
        "zero on the diagonal and more negative the farther the key lies before the query, "
        "nothing after it. Right: how much three context-extension methods stretch each "
        f"RoPE pair's wavelength (factor {FACTOR:g}, head_dim {HEAD_DIM}): position "
        "interpolation stretches all pairs 4 times, YaRN and Llama 3.1's rule keep the fast "
        "pairs and stretch the slow ones."
    ),
    caption=(
        "Three encodings the book builds, each drawn by pe_explained: an absolute table "
        "(chapter 3), a relative bias (chapter 12), and RoPE stretched to a longer context "
        "(chapter 15)."
    ),
)
def _(theme):
    fig = new_figure(7.6, 2.9)
    table_ax, bias_ax, stretch_ax = fig.subplots(1, 3, width_ratios=[1, 1, 1.4])
    table_ax.imshow(
        sinusoidal(TABLE_POSITIONS, TABLE_D_MODEL),
        cmap=theme.diverging,
        vmin=-1,
        vmax=1,
        aspect="auto",
        interpolation="nearest",
    )
    table_ax.set_title("sinusoidal table", fontsize=10)
    table_ax.set_xlabel("dimension")
    table_ax.set_ylabel("position")

    i = np.arange(BIAS_POSITIONS)
    distance = (i[:, None] - i[None, :]).astype(float)
    bias = np.where(distance >= 0, -alibi_slopes(BIAS_HEADS)[0] * distance, np.nan)
    image = bias_ax.imshow(bias, cmap=theme.sequential, interpolation="nearest")
    fig.colorbar(image, ax=bias_ax, shrink=0.8, label="bias")
    bias_ax.set_title("ALiBi bias, head 1", fontsize=10)
    bias_ax.set_xlabel("key position")
    bias_ax.set_ylabel("query position")

    plain, _ = rope_frequencies(HEAD_DIM, base=BASE)
    pairs = np.arange(HEAD_DIM // 2)
    # each line labelled where it runs clear of the others: (pair, offset in points, align)
    places = ((20, (0, -10), "center"), (30, (-18, 14), "center"), (40, (8, -8), "left"))
    for (label, scaling), colour, style, (pair, offset, align) in zip(
        METHODS.items(), theme.cycle, ("-", "--", ":"), places, strict=False
    ):
        inv_freq, _ = rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling)
        (line,) = stretch_ax.plot(pairs, plain / inv_freq, style, color=colour)
        label_on_line(stretch_ax, line, pair, label, theme, offset, ha=align, fontsize=8)
    stretch_ax.set_title("stretching RoPE 4×", fontsize=10)
    stretch_ax.set_xlabel("pair $i$ (fast → slow)")
    stretch_ax.set_ylabel("wavelength stretch")
    stretch_ax.grid(True, axis="y")
    return fig
