"""Chapter 7, the positional-encoding layer: scaled embeddings + table → dropout → model input."""

from __future__ import annotations

import numpy as np

from pe_explained.layer import SinusoidalPositionalEncoding, TokenEmbedding

from .. import Table, figure, table, value
from ..style import heatmap_panels

D_MODEL, VOCAB, SEQ_LEN, SEED = 512, 1000, 24, 0
FIG_D_MODEL = 48


def _rows(d_model: int, seq_len: int):
    """Token rows unscaled and scaled, and the position rows, for one random sequence."""
    rng = np.random.default_rng(SEED)
    ids = rng.integers(0, VOCAB, size=seq_len)
    emb = TokenEmbedding(VOCAB, d_model, seed=SEED)
    pe = SinusoidalPositionalEncoding(d_model, max_len=seq_len).encoding(seq_len)
    return emb.weight[ids], emb(ids), pe


def _rms_norm(rows: np.ndarray) -> float:
    """Root-mean-square of the row norms."""
    return float(np.sqrt(np.mean(np.sum(rows**2, axis=-1))))


@table(
    "scales",
    caption=f"Sizes of the two summands for d_model = {D_MODEL} "
    f"(token vectors drawn with std d_model^−½; {SEQ_LEN} tokens).",
)
def _():
    unscaled, scaled, pe = _rows(D_MODEL, SEQ_LEN)
    rows = [
        ["token embedding $e_{pos}$", _rms_norm(unscaled), float(np.sqrt(np.mean(unscaled**2)))],
        [
            r"$\sqrt{d_{\text{model}}}\, e_{pos}$",
            _rms_norm(scaled),
            float(np.sqrt(np.mean(scaled**2))),
        ],
        ["$PE(pos)$", _rms_norm(pe), float(np.sqrt(np.mean(pe**2)))],
    ]
    return Table(["vector", "typical norm ‖·‖", "RMS of one entry"], rows, default_format=".2f")


@value("pe_norm")
def _():
    return f"{_rms_norm(_rows(D_MODEL, SEQ_LEN)[2]):.0f}"


@value("unscaled_norm")
def _():
    return f"{_rms_norm(_rows(D_MODEL, SEQ_LEN)[0]):.1f}"


@value("scaled_norm")
def _():
    return f"{_rms_norm(_rows(D_MODEL, SEQ_LEN)[1]):.0f}"


@figure(
    "layer_input",
    alt=f"Three heatmaps of {SEQ_LEN} positions by {FIG_D_MODEL} dimensions: scaled token "
    "embeddings look like random noise, the sinusoidal table shows stripes that are fast on "
    "the left and slow on the right, and their sum, the model input, shows the noise with the "
    "stripes still visible underneath.",
    caption=f"Building the model input for one sequence (d_model = {FIG_D_MODEL}): token "
    "embeddings times √d_model, plus the sinusoidal table, give the input of the first layer.",
)
def _(theme):
    _, scaled, pe = _rows(FIG_D_MODEL, SEQ_LEN)
    panels = [
        (r"$\sqrt{d_{\text{model}}}\, e_{pos}$", scaled),
        ("+ $PE(pos)$", pe),
        ("= model input", scaled + pe),
    ]
    return heatmap_panels(
        theme,
        panels,
        vmin=-2.5,
        vmax=2.5,
        xlabel="dimension $j$",
        colorbar_label="value",
        width=7.4,
    )
