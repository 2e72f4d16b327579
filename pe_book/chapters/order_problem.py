"""Chapter 1, the order problem: attention without position cannot tell word order."""

from __future__ import annotations

import numpy as np

from pe_explained import sinusoidal
from pe_explained.attention import attention_weights, self_attention, toy_embeddings

from .. import Table, figure, table, value
from ..style import new_figure
from ..text import format_cell

D_MODEL, SEED = 16, 0
SENTENCE_A = ("dog", "bites", "man")
SENTENCE_B = ("man", "bites", "dog")


def _setup(with_pe: bool):
    emb = toy_embeddings(sorted(set(SENTENCE_A)), D_MODEL, seed=SEED)
    rng = np.random.default_rng(SEED + 1)
    w_q, w_k, w_v = rng.normal(0, 1 / np.sqrt(D_MODEL), size=(3, D_MODEL, D_MODEL))
    pe = sinusoidal(len(SENTENCE_A), D_MODEL) if with_pe else 0.0
    x_a = np.stack([emb[w] for w in SENTENCE_A]) + pe
    x_b = np.stack([emb[w] for w in SENTENCE_B]) + pe
    return x_a, x_b, (w_q, w_k, w_v)


def _per_word_difference(with_pe: bool) -> dict[str, float]:
    """max |out_A(word) − out_B(word)| for every word of the two sentences."""
    x_a, x_b, weights = _setup(with_pe)
    out_a, out_b = self_attention(x_a, *weights), self_attention(x_b, *weights)
    return {
        word: float(np.abs(out_a[SENTENCE_A.index(word)] - out_b[SENTENCE_B.index(word)]).max())
        for word in SENTENCE_A
    }


@table(
    "outputs",
    caption="How much each word's attention output changes when the sentence is "
    "reordered: the largest difference over its entries, without and with positions.",
)
def _():
    without, with_pe = _per_word_difference(False), _per_word_difference(True)
    rows = [[w, without[w], with_pe[w]] for w in SENTENCE_A]
    return Table(
        ["word", "max |difference| without PE", "max |difference| with sinusoidal PE"],
        rows,
        default_format=".2e",
    )


@table(
    "bag_of_words",
    caption="The largest entry of the difference between the sums of the input vectors over "
    "the sentence for the two word orders, "
    r"$\max |\sum x(\text{dog bites man}) - \sum x(\text{man bites dog})|$.",
)
def _():
    rows = []
    for with_pe in (False, True):
        x_a, x_b, _ = _setup(with_pe)
        rows.append(
            [
                "with sinusoidal PE" if with_pe else "without PE",
                float(np.abs(x_a.sum(0) - x_b.sum(0)).max()),
            ]
        )
    return Table(
        [
            "input",
            "largest difference",
        ],
        rows,
        default_format=".2e",
    )


@figure(
    "order_problem_attention",
    swap=False,  # each cell's label takes the colour that reads on that cell
    alt="Four attention-weight matrices. Without positional encoding, the matrix for "
    "'man bites dog' is the matrix for 'dog bites man' with rows and columns swapped in "
    "the same way; with positional encoding added, the two matrices differ.",
    caption="Attention weights for the two sentences (one head, d_model = "
    f"{D_MODEL}). Top: without position the second matrix is the first one permuted. "
    "Bottom: with sinusoidal PE added to the inputs, the weights change.",
)
def _(theme):
    fig = new_figure(7.0, 6.0)
    axes = fig.subplots(2, 2)
    for row, with_pe in enumerate((False, True)):
        x_a, x_b, (w_q, w_k, _) = _setup(with_pe)
        for col, (x, words) in enumerate(((x_a, SENTENCE_A), (x_b, SENTENCE_B))):
            ax = axes[row, col]
            weights = attention_weights(x, w_q, w_k)
            image = ax.imshow(weights, cmap=theme.sequential, vmin=0, vmax=1)
            for i in range(3):
                for j in range(3):
                    shade = "black" if weights[i, j] > 0.5 else "white"
                    ax.text(
                        j,
                        i,
                        f"{weights[i, j]:.2f}",
                        ha="center",
                        va="center",
                        color=shade,
                        fontsize=9,
                    )
            ax.set_xticks(range(3), words)
            ax.set_yticks(range(3), words)
            ax.set_xlabel("key", labelpad=8)  # clear of the middle word above it
            ax.set_ylabel("query")
            label = "with PE" if with_pe else "without PE"
            ax.set_title(f"“{' '.join(words)}”, {label}")
    fig.colorbar(image, ax=axes, shrink=0.8, label="attention weight")
    return fig


@value("max_difference_without_pe")
def _():
    return format_cell(float(max(_per_word_difference(False).values())), ".1e")


@value("min_difference_with_pe")
def _():
    return f"{min(_per_word_difference(True).values()):.2f}"
