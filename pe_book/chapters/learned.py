"""Chapter 9, learned absolute embeddings: parameters, initial geometry, the max_len wall."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from pe_explained import sinusoidal
from pe_explained.learned import LearnedPositionalEmbedding, learned_parameter_count

from .. import Table, figure, table, value
from ..style import new_figure

#: (max_len, d_model) of the position tables in the published configurations:
#: BERT's max_position_embeddings and hidden_size, GPT-2's n_positions and n_embd.
MODELS = {
    "BERT-base": (512, 768),
    "BERT-large": (512, 1024),
    "GPT-2 small": (1024, 768),
    "GPT-2 medium": (1024, 1024),
    "GPT-2 large": (1024, 1280),
    "GPT-2 XL": (1024, 1600),
}
#: The script CI runs, which pins the transformers version the differential tests compare with.
CI_SCRIPT = Path(__file__).resolve().parents[2] / ".ci" / "run"

#: Vocabulary sizes: BERT's uncased WordPiece vocabulary and GPT-2's byte-level BPE.
VOCAB = {"BERT": 30522, "GPT-2": 50257}


def _vocab(model: str) -> int:
    return VOCAB["BERT" if model.startswith("BERT") else "GPT-2"]


#: Vaswani et al. (2017), Table 3, development set (newstest2013): the base model
#: (sinusoidal) and row (E), learned positional embeddings instead of sinusoids.
VASWANI_TABLE3 = [("sinusoidal (base model)", 4.92, 25.8), ("learned, row (E)", 4.92, 25.7)]

SIM_POSITIONS, SIM_D_MODEL = 64, 128


@table(
    "parameter_counts",
    caption="Trainable numbers in the position table of published models, "
    "$L_{\\max} \\times d_{\\text{model}}$, against the token table's vocab × d_model; a "
    "sinusoidal table of the same size has none.",
)
def _():
    rows = [
        [
            name,
            max_len,
            d_model,
            learned_parameter_count(max_len, d_model),
            0,
            _vocab(name) * d_model,
        ]
        for name, (max_len, d_model) in MODELS.items()
    ]
    return Table(
        [
            "model",
            "positions $L_{\\max}$",
            "width d_model",
            "learned table",
            "sinusoidal",
            "token table",
        ],
        rows,
        formats={
            "positions $L_{\\max}$": ",",
            "width d_model": ",",
            "learned table": ",.0f",
            "token table": ",.0f",
        },
    )


@table(
    "vaswani_table3",
    caption="Reported by Vaswani et al. (2017), Table 3 (English–German development set).",
)
def _():
    return Table(
        ["positions", "perplexity (dev)", "BLEU (dev)"],
        [list(row) for row in VASWANI_TABLE3],
        formats={"perplexity (dev)": ".2f", "BLEU (dev)": ".1f"},
    )


@value("params_bert_base")
def _():
    return f"{learned_parameter_count(*MODELS['BERT-base']):,}"


@value("params_gpt2_small")
def _():
    return f"{learned_parameter_count(*MODELS['GPT-2 small']):,}"


@value("share_gpt2_small")
def _():
    max_len, d_model = MODELS["GPT-2 small"]
    share = learned_parameter_count(max_len, d_model) / (_vocab("GPT-2") * d_model)
    return f"{share:.1%}"


@value("params_gpt2_xl")
def _():
    return f"{learned_parameter_count(*MODELS['GPT-2 XL']):,}"


def _cosine(table: np.ndarray) -> np.ndarray:
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    return unit @ unit.T


def _similarities():
    learned = LearnedPositionalEmbedding(SIM_D_MODEL, SIM_POSITIONS, seed=0).table
    return _cosine(sinusoidal(SIM_POSITIONS, SIM_D_MODEL)), _cosine(learned)


def init_max_cosine() -> float:
    """The largest |cosine| between two distinct rows of the freshly initialised table."""
    off_diagonal = ~np.eye(SIM_POSITIONS, dtype=bool)
    return float(np.abs(_similarities()[1][off_diagonal]).max())


@value("init_max_cosine", bound=("upper", ".2f"))  # "no … cosine above": rounded up
def _():
    return init_max_cosine()


@value("sinusoidal_neighbour_cosine")
def _():
    return f"{_similarities()[0][0, 1]:.2f}"


@figure(
    "learned_vs_sinusoidal_similarity",
    alt=f"Two {SIM_POSITIONS} by {SIM_POSITIONS} heatmaps of cosine similarity between "
    "position vectors. For the sinusoidal table the similarity is high along a broad band "
    "around the diagonal and falls off with distance; for a freshly initialised learned "
    "table only the diagonal is bright and all other entries are near zero.",
    caption=f"Cosine similarity between the vectors of positions $m$ and $n$ (d_model = "
    f"{SIM_D_MODEL}): the sinusoidal table and a freshly initialised learned table.",
)
def _(theme):
    sinus, learned = _similarities()
    fig = new_figure(7.0, 3.5)
    axes = fig.subplots(1, 2, sharey=True)
    for ax, data, title in (
        (axes[0], sinus, "sinusoidal"),
        (axes[1], learned, "learned, at initialisation"),
    ):
        image = ax.imshow(data, cmap=theme.diverging, vmin=-1, vmax=1, interpolation="nearest")
        ax.set_title(title)
        ax.set_xlabel("position $n$")
    axes[0].set_ylabel("position $m$")
    fig.colorbar(image, ax=axes, shrink=0.85, label="cosine similarity")
    return fig


@value("transformers_pin")
def _():
    """The transformers version the tests compare ``position_ids_from_mask`` with."""
    pinned = re.search(r"transformers==(\d+\.\d+)\.\d+", CI_SCRIPT.read_text(encoding="utf-8"))
    if pinned is None:
        raise ValueError(f"{CI_SCRIPT} pins no transformers version (transformers==X.Y.Z)")
    return pinned.group(1)
