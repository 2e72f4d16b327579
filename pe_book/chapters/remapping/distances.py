"""The distance matrices side by side (the toy model), and the largest distance of every
method on a model the size of Llama 2."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps

from pe_explained import (
    dual_chunk_distances,
    dual_chunk_largest_distance,
    group_attention_distances,
    group_attention_largest_distance,
    rerope_distances,
    rerope_largest_distance,
    self_extend_distances,
    self_extend_largest_distance,
    self_extend_max_length,
)

from ... import Table, figure, table, value
from ...style import new_figure, phone_layout_active
from .common import (
    BATCH,
    CHUNK,
    CL_CHUNK,
    CL_LOCAL,
    GROUP,
    LEAKY,
    LENGTHS,
    LLAMA2,
    LOCAL,
    REROPE_WINDOW,
    RR_FACTOR,
    RR_WINDOW,
    SE_GROUP,
    SE_WINDOW,
    SEQ_LEN,
    TRAIN,
    WINDOW,
    distance_text,
    tex_int,
)

# ---------------------------------------------------------------------------
# The distance matrices, side by side
# ---------------------------------------------------------------------------


def panels() -> list[tuple[str, np.ndarray]]:
    """(title, distance matrix) of every method on the toy model, in the figure's order."""
    return [
        # a window as long as the text keeps every distance: RoPE as it is
        ("RoPE", rerope_distances(SEQ_LEN, SEQ_LEN)),
        ("Self-Extend", self_extend_distances(SEQ_LEN, GROUP, WINDOW)),
        ("llama.cpp (cells)", group_attention_distances(SEQ_LEN, GROUP, WINDOW)),
        ("DCA (vLLM)", dual_chunk_distances(SEQ_LEN, CHUNK, LOCAL)),
        ("ReRoPE", rerope_distances(SEQ_LEN, REROPE_WINDOW)),
        ("leaky ReRoPE", rerope_distances(SEQ_LEN, REROPE_WINDOW, scaling_factor=LEAKY)),
    ]


def _toy_largest() -> dict[str, float]:
    return {
        "Self-Extend": self_extend_largest_distance(SEQ_LEN, GROUP, WINDOW),
        "llama.cpp": group_attention_largest_distance(SEQ_LEN, GROUP, WINDOW),
        "DCA (vLLM)": dual_chunk_largest_distance(SEQ_LEN, CHUNK, LOCAL),
        "DCA (paper)": dual_chunk_largest_distance(SEQ_LEN, CHUNK, LOCAL, pretraining_length=TRAIN),
        "ReRoPE": rerope_largest_distance(SEQ_LEN, REROPE_WINDOW),
        "leaky ReRoPE": rerope_largest_distance(SEQ_LEN, REROPE_WINDOW, scaling_factor=LEAKY),
    }


def _distances_alt() -> str:
    big = {name: distance_text(v) for name, v in _toy_largest().items()}
    return (
        f"Six triangular heatmaps of the distance a query at position m sees to a key at "
        f"position n, for a text of {SEQ_LEN} tokens and a model trained on {TRAIN} positions; "
        f"cells beyond distance {TRAIN - 1} are pink. RoPE unchanged grows along every row to "
        f"{SEQ_LEN - 1}, so most of its lower left is pink. Self-Extend keeps the {WINDOW} "
        f"nearest keys exact and grows {GROUP} times slower past them, up to "
        f"{big['Self-Extend']}. llama.cpp's group attention shows a staircase: exact only "
        f"since the last grouped block, up to {big['llama.cpp']}. Dual Chunk Attention "
        f"restarts in every chunk of {CHUNK - LOCAL} tokens and holds far keys near a "
        f"constant, up to {big['DCA (vLLM)']}, one past {TRAIN - 1}, so thin pink lines show. "
        f"ReRoPE is flat at {REROPE_WINDOW} past its window; leaky ReRoPE grows slowly to "
        f"{big['leaky ReRoPE']}."
    )


@figure(
    "remapping_distances",
    alt=_distances_alt,
    caption=lambda: (
        f"The distance each method shows query $m$ from key $n$: {SEQ_LEN} tokens, a model "
        f"trained on $L = {TRAIN}$ positions. Pink: beyond $L - 1$. Parameters in the text."
    ),
)
def _(theme):
    phone = phone_layout_active()
    rows, columns = (3, 2) if phone else (2, 3)
    fig = new_figure(4.4, 7.4) if phone else new_figure(7.0, 5.0)
    grid = fig.add_gridspec(rows, columns)
    cmap = colormaps[theme.sequential].with_extremes(over=theme.cycle[3], bad=(0, 0, 0, 0))
    axes = []
    for k, (title, distances) in enumerate(panels()):
        row, column = divmod(k, columns)
        ax = fig.add_subplot(grid[row, column])
        upper = np.triu(np.ones(distances.shape, dtype=bool), 1)  # masked by causal attention
        image = ax.imshow(
            np.ma.masked_where(upper, distances),
            cmap=cmap,
            vmin=0,
            vmax=TRAIN - 1,
            interpolation="nearest",
        )
        ax.set_title(title)
        ax.set_xticks([0, SEQ_LEN // 2, SEQ_LEN - 1])
        ax.set_yticks([0, SEQ_LEN // 2, SEQ_LEN - 1])
        if row == rows - 1:
            ax.set_xlabel("key $n$")
        else:
            ax.set_xticklabels([])
        if column == 0:
            ax.set_ylabel("query $m$")
        else:
            ax.set_yticklabels([])
        axes.append(ax)
    # on a phone the colour bar goes under the panels, leaving them the column's width
    bar = fig.colorbar(
        image, ax=axes, shrink=0.8, extend="max", location="bottom" if phone else "right"
    )
    bar.set_label("distance shown")
    bar.set_ticks([0, 8, 16, 24, TRAIN - 1])
    return fig


@value("toy_rope")
def _():
    return distance_text(rerope_largest_distance(SEQ_LEN, SEQ_LEN))


@value("train_last")
def _():
    return f"{TRAIN - 1}"


@value("toy_self_extend")
def _():
    return distance_text(_toy_largest()["Self-Extend"])


@value("toy_llama_cpp")
def _():
    return distance_text(_toy_largest()["llama.cpp"])


@value("toy_dca_code")
def _():
    return distance_text(_toy_largest()["DCA (vLLM)"])


@value("toy_dca_paper")
def _():
    return distance_text(_toy_largest()["DCA (paper)"])


@value("toy_leaky")
def _():
    return distance_text(_toy_largest()["leaky ReRoPE"])


# ---------------------------------------------------------------------------
# The largest distance, Llama 2 sized
# ---------------------------------------------------------------------------


def se_max_length() -> int:
    """The longest text Self-Extend serves within LLAMA2 positions (G, w of the tables)."""
    return self_extend_max_length(LLAMA2, SE_GROUP, SE_WINDOW)


def largest_rows() -> list[list]:
    """Per text length: the largest distance of every method on a 4,096-position model."""
    lengths = sorted({*LENGTHS, se_max_length()})
    return [
        [
            length,
            self_extend_largest_distance(length, SE_GROUP, SE_WINDOW),
            group_attention_largest_distance(length, SE_GROUP, SE_WINDOW),
            group_attention_largest_distance(length, SE_GROUP, SE_WINDOW, batch_size=BATCH),
            dual_chunk_largest_distance(length, CL_CHUNK, CL_LOCAL),
            rerope_largest_distance(length, RR_WINDOW),
            rerope_largest_distance(length, RR_WINDOW, scaling_factor=RR_FACTOR),
        ]
        for length in lengths
    ]


LARGEST_COLUMNS = [
    "text length (tokens)",
    "Self-Extend",
    "llama.cpp cells, one token at a time",
    f"llama.cpp cells, batches of {BATCH:,}",
    "DCA, ChunkLlama",
    "ReRoPE",
    "leaky ReRoPE",
]


@table(
    "largest",
    caption=lambda: (
        f"Largest distance shown to a model trained on {LLAMA2:,} positions: "
        f"$G = {SE_GROUP}$, $w = W = {tex_int(SE_WINDOW)}$; DCA <code>chunk_size</code> "
        f"{CL_CHUNK:,}, <code>local_size</code> {CL_LOCAL}; ReRoPE $w = {RR_WINDOW}$, leaky "
        f"$s = {RR_FACTOR}$."
    ),
)
def _():
    return Table(
        LARGEST_COLUMNS,
        largest_rows(),
        formats={"text length (tokens)": ",d"},
        default_format=",.1f",
    )


@value("llama2_last")
def _():
    return f"{LLAMA2 - 1:,}"


def leaky_passes() -> tuple[int, int]:
    """The two lengths of the table between which leaky ReRoPE passes LLAMA2 − 1."""
    rows = largest_rows()
    for before, after in zip(rows, rows[1:], strict=False):
        if before[-1] <= LLAMA2 - 1 < after[-1]:
            return before[0], after[0]
    raise ValueError("leaky ReRoPE does not pass L − 1 between two lengths of the table")


@value("leaky_passes")
def _():
    before, after = leaky_passes()
    return f"{before:,} and {after:,}"


@value("se_max_length")
def _():
    return f"{se_max_length():,}"


@value("se_at_train")
def _():
    return distance_text(self_extend_largest_distance(LLAMA2, SE_GROUP, SE_WINDOW))
