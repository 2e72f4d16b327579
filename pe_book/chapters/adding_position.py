"""Chapter 5, adding position to meaning: scale, near-orthogonality, what the sum keeps."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from matplotlib.ticker import NullLocator

from pe_explained import sinusoidal
from pe_explained.attention import self_attention, toy_embeddings
from pe_explained.embedding import (
    cosine_matrix,
    cosine_similarity,
    embed_with_positions,
    energy_rank,
    position_share,
)

from .. import Table, figure, table, value
from ..notation import DM
from ..style import new_figure, phone_layout_active
from ..text import format_bound

D_MODEL, NUM_POSITIONS, NUM_WORDS, SEED = 512, 512, 512, 0
NORM_WIDTHS = (64, 128, 256, 512, 1024)
SENTENCE = ("the", "cat", "sat", "on", "the", "mat")
SCRAMBLED = ("mat", "the", "on", "sat", "cat", "the")
TOY_D_MODEL = 16
SAME_WORD_POSITIONS = 200


def _random_vectors(count: int, d_model: int, seed: int = SEED) -> np.ndarray:
    """``count`` token embeddings with entries N(0, 1/d_model)."""
    words = [f"w{n}" for n in range(count)]
    return np.stack(list(toy_embeddings(words, d_model, seed=seed).values()))


@lru_cache(maxsize=1)
def _cosine_samples() -> dict[str, np.ndarray]:
    e = _random_vectors(2 * NUM_WORDS, D_MODEL)
    pe = sinusoidal(NUM_POSITIONS, D_MODEL)
    upper = np.triu_indices(NUM_POSITIONS, k=1)
    return {
        "two random token embeddings": cosine_similarity(e[:NUM_WORDS], e[NUM_WORDS:]),
        "token embedding and PE row": cosine_similarity(e[:NUM_WORDS], pe),
        "two PE rows": cosine_matrix(pe, pe)[upper],
    }


def _random_cosine_bound() -> str:
    """The largest |cosine| of the random pairs (words, and word against position), as an
    upper bound: rounded up."""
    samples = _cosine_samples()
    largest = max(
        float(np.abs(samples[name]).max())
        for name in ("two random token embeddings", "token embedding and PE row")
    )
    return format_bound(largest, ".2f", side="upper")


@figure(
    "adding_position_cosines",
    alt=lambda: (
        f"Histograms of cosine similarity for d_model = {D_MODEL}. Cosines between two "
        "random token embeddings, and between a random embedding and a PE row, form narrow "
        f"peaks centred on 0 (all within ±{_random_cosine_bound()}). Cosines between two rows "
        f"of the sinusoidal table spread from {_cosine_samples()['two PE rows'].min():.2f} to "
        f"{_cosine_samples()['two PE rows'].max():.2f}, far from 0."
    ),
    caption=f"Cosine similarity, d_model = {D_MODEL}: {NUM_WORDS} pairs of random token "
    f"embeddings (entries N(0, 1/d_model)), {NUM_WORDS} embedding–PE pairs, and every pair "
    f"of PE rows for positions 0–{NUM_POSITIONS - 1}.",
)
def _(theme):
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    bins = np.linspace(-0.3, 1.0, 131)
    # the first two are one distribution (that is the point): dashes keep both visible
    styles = ("-", "--", "-")
    for (name, cosines), colour, style in zip(
        _cosine_samples().items(), theme.cycle, styles, strict=False
    ):
        ax.hist(
            cosines,
            bins=bins,
            density=True,
            histtype="step",
            linewidth=1.6,
            linestyle=style,
            color=colour,
            label=name,
        )
    ax.set_yscale("log")
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("cosine similarity (0 = orthogonal, 1 = same direction)")
    ax.set_ylabel("density (log scale)")
    ax.grid(True)
    columns = 1 if phone_layout_active() else 3  # a phone column holds one label a row
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=columns, fontsize=8.5)
    return fig


def _same_word_cosines(scale_by_sqrt_d_model: bool) -> np.ndarray:
    """cos(x(word at 0), x(word at pos)) for pos = 0 … SAME_WORD_POSITIONS − 1, one random word."""
    e = _random_vectors(1, D_MODEL)
    x = embed_with_positions(
        np.repeat(e, SAME_WORD_POSITIONS, axis=0), scale_by_sqrt_d_model=scale_by_sqrt_d_model
    )
    return cosine_similarity(x[0], x)


@figure(
    "adding_position_same_word",
    alt=lambda: (
        f"Cosine similarity between one word at position 0 and the same word at "
        f"positions 0 to {SAME_WORD_POSITIONS - 1}, d_model = {D_MODEL}. Without PE it is 1 "
        "everywhere. With PE and embeddings scaled by the square root of d_model it falls quickly "
        f"and levels off near {_same_word_cosines(True)[-1]:.1f}. With PE and unscaled embeddings "
        f"it falls to about {_same_word_cosines(False)[-1]:.1f}: the position dominates."
    ),
    caption=f"The same word at two positions (d_model = {D_MODEL}, one random embedding "
    "with entries N(0, 1/d_model)), with the embedding scaled by √d_model and without the "
    "scaling.",
)
def _(theme):
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    positions = np.arange(SAME_WORD_POSITIONS)
    ax.plot(positions, np.ones(SAME_WORD_POSITIONS), label="without PE")
    scaled = f"$\\sqrt{{{DM}}}\\,e + PE$ (Vaswani et al., 2017)"
    ax.plot(positions, _same_word_cosines(True), label=scaled)
    ax.plot(positions, _same_word_cosines(False), label="$e + PE$ (no scaling)")
    ax.set_ylim(0, 1.08)
    ax.set_xlabel("position $pos$ of the second occurrence")
    ax.set_ylabel("cosine of $x$ at 0 and at $pos$")
    ax.grid(True)
    ax.legend(loc="lower left")  # under every curve
    return fig


@table(
    "norms",
    caption="Token embeddings with entries N(0, 1/d_model) (1,000 random words) added to the "
    "sinusoidal rows of positions 0–999. The share is the mean of ‖PE‖² / ‖x‖² over the "
    "1,000 sums $x$.",
)
def _():
    rows = []
    count = 1000
    for d_model in NORM_WIDTHS:
        e = _random_vectors(count, d_model)
        pe = sinusoidal(count, d_model)
        e_norm = float(np.linalg.norm(e, axis=1).mean())
        rows.append(
            [
                d_model,
                np.sqrt(d_model / 2),
                e_norm,
                position_share(e, pe),
                np.sqrt(d_model) * e_norm,
                position_share(np.sqrt(d_model) * e, pe),
            ]
        )
    return Table(
        [
            "width d_model",
            "norm ‖PE‖ = √(d_model/2)",
            "norm ‖e‖",
            "PE share of ‖e + PE‖²",
            "norm ‖√d_model · e‖",
            "PE share of ‖√d_model · e + PE‖²",
        ],
        rows,
        formats={
            "width d_model": "d",
            "norm ‖PE‖ = √(d_model/2)": ".2f",
            "norm ‖e‖": ".2f",
            "norm ‖√d_model · e‖": ".2f",
            "PE share of ‖e + PE‖²": ".3f",
            "PE share of ‖√d_model · e + PE‖²": ".3f",
        },
    )


@lru_cache(maxsize=2)
def _sentence_outputs(with_pe: bool):
    """Inputs and self-attention outputs for SENTENCE and SCRAMBLED (d_model = TOY_D_MODEL)."""
    emb = toy_embeddings(sorted(set(SENTENCE)), TOY_D_MODEL, seed=SEED)
    rng = np.random.default_rng(SEED + 1)
    weights = rng.normal(0, 1 / np.sqrt(TOY_D_MODEL), size=(3, TOY_D_MODEL, TOY_D_MODEL))
    result = []
    for words in (SENTENCE, SCRAMBLED):
        e = np.stack([emb[w] for w in words])
        x = embed_with_positions(e) if with_pe else np.sqrt(TOY_D_MODEL) * e
        result.append((x, self_attention(x, *weights)))
    return result


def _match_by_word(out_a, out_b) -> float:
    """Largest distance from an output of SCRAMBLED to the nearest output of the same word
    in SENTENCE."""
    worst = 0.0
    for j, word in enumerate(SCRAMBLED):
        same = [i for i, w in enumerate(SENTENCE) if w == word]
        worst = max(worst, min(float(np.linalg.norm(out_b[j] - out_a[i])) for i in same))
    return worst


@table(
    "scrambled",
    caption=f"“{' '.join(SENTENCE)}” against “{' '.join(SCRAMBLED)}”: one self-attention "
    f"head, d_model = {TOY_D_MODEL}, random weights. Every entry is a largest absolute "
    "difference or a distance.",
)
def _():
    measures = {
        "Σ inputs: original − scrambled": lambda a, b: np.abs(a[0].sum(0) - b[0].sum(0)).max(),
        "Σ attention outputs: original − scrambled": lambda a, b: np.abs(
            a[1].sum(0) - b[1].sum(0)
        ).max(),
        "output of each word: scrambled vs original": lambda a, b: _match_by_word(a[1], b[1]),
        "the two “the”s in the original: their outputs": lambda a, b: np.linalg.norm(
            a[1][0] - a[1][4]
        ),
    }
    rows = []
    for name, measure in measures.items():
        rows.append([name] + [float(measure(*_sentence_outputs(pe))) for pe in (False, True)])
    return Table(["quantity", "without PE", "with sinusoidal PE"], rows, default_format=".2e")


@value("random_cosine_spread_512")
def _():
    return f"{float(_cosine_samples()['two random token embeddings'].std()):.3f}"


@value("one_over_sqrt_512")
def _():
    return f"{1 / np.sqrt(D_MODEL):.3f}"


@value("pe_min_cosine_512")
def _():
    return f"{float(_cosine_samples()['two PE rows'].min()):.2f}"


@value("pe_common_share_512")
def _():
    pe = sinusoidal(NUM_POSITIONS, D_MODEL)
    share = np.sum(pe.mean(axis=0) ** 2) / (D_MODEL / 2)
    return f"{100 * share:.0f}%"


@value("pe_energy_rank_512")
def _():
    return f"{energy_rank(sinusoidal(NUM_POSITIONS, D_MODEL), 0.99)}"


@value("same_word_cosine_scaled_100")
def _():
    return f"{float(_same_word_cosines(True)[100]):.2f}"


@value("same_word_cosine_unscaled_100")
def _():
    return f"{float(_same_word_cosines(False)[100]):.2f}"
