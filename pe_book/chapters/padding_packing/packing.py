"""Chapter 24's packing section: per-document ids, the block-diagonal mask, and the
offsets a packed row's scores see under each choice of ids and mask."""

from __future__ import annotations

from functools import cache

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import Rectangle

from pe_explained import (
    attended_offsets,
    cu_seqlens_from_position_ids,
    packed_causal_mask,
    packed_position_ids,
)
from pe_explained.attention import causal_mask

from ... import Table, figure, table, value
from ...style import new_figure
from .batches import signed

#: The figure's row of three documents and the table's longer one.
DOCS, ROW_DOCS = (5, 3, 4), (1_000, 300, 700)


def _document_cells(lengths, mask: np.ndarray) -> np.ndarray:
    """Which document a cell's query and key share (0, 1, …), −1 across documents, −2
    where the mask forbids the pair."""
    block = packed_causal_mask(lengths)
    doc = np.repeat(np.arange(len(lengths)), lengths)
    return np.where(block, doc[:, None], np.where(mask, -1, -2))


def _offsets_panel(ax, ids: np.ndarray, mask: np.ndarray, theme, title: str) -> None:
    """A packed row's allowed pairs, shaded by document (across documents: vermillion),
    each with the offset m − n its score sees; ids on the axes."""
    cells = _document_cells(DOCS, mask)
    colours = {-2: (0, 0, 0, 0), -1: to_rgba(theme.cycle[1], 0.45)}
    for d in range(len(DOCS)):
        colours[d] = to_rgba((theme.cycle[0], theme.cycle[2], theme.cycle[3])[d], 0.3)
    ax.imshow(np.array([[colours[c] for c in row] for row in cells]), interpolation="nearest")
    for (i, j), offset in zip(np.argwhere(mask), attended_offsets(ids, mask), strict=True):
        ax.text(j, i, str(offset).replace("-", "−"), ha="center", va="center", fontsize=8)
    n = len(ids)
    ax.add_patch(Rectangle((-0.5, -0.5), n, n, fill=False, edgecolor=theme.muted, lw=0.8))
    ax.set_xticks(range(n), [str(i) for i in ids])
    ax.set_yticks(range(n), [str(i) for i in ids])
    ax.tick_params(length=0)
    ax.set_xlabel("key's position id $n$")
    ax.set_ylabel("query's position id $m$")
    ax.set_title(title)


@figure(
    "packed_row",
    alt=lambda: (
        f"Two {sum(DOCS)} by {sum(DOCS)} grids for documents of "
        f"{', '.join(map(str, DOCS))} tokens packed into one row, the position ids along "
        "both axes, each cell a query may attend holding the offset m minus n. Left: ids "
        f"restart at each document ({packed_position_ids(DOCS).tolist()}) and the mask is "
        "block-diagonal: three small triangles, offsets from 0 to "
        f"{max(DOCS) - 1}. Right: one count over the row and the plain causal mask: one "
        f"large triangle, the cells across documents shaded, offsets up to {sum(DOCS) - 1}."
    ),
    caption=lambda: (
        f"Documents of {', '.join(map(str, DOCS))} tokens in one row: the pairs each mask "
        "allows and the offset $m - n$ of each (<code>attended_offsets</code>)."
    ),
)
def _(theme):
    fig = new_figure(7.0, 3.9)
    left, right = fig.subplots(1, 2)
    n = sum(DOCS)
    _offsets_panel(
        left,
        packed_position_ids(DOCS),
        packed_causal_mask(DOCS),
        theme,
        "ids restart, block-diagonal mask",
    )
    _offsets_panel(
        right,
        packed_position_ids(DOCS, reset=False),
        causal_mask(n),
        theme,
        "one count, causal mask",
    )
    return fig


#: The packing table's configurations: do the ids restart, is the mask block-diagonal.
CONFIGURATIONS = (
    ("restart at each document", True, "block-diagonal"),
    ("restart at each document", True, "causal over the row"),
    ("one count over the row", False, "block-diagonal"),
    ("one count over the row", False, "causal over the row"),
)


@cache
def packing_rows() -> list[list]:
    lengths = np.array(ROW_DOCS)
    block, full = packed_causal_mask(lengths), causal_mask(int(lengths.sum()))
    rows = []
    for ids_text, reset, mask_text in CONFIGURATIONS:
        ids = packed_position_ids(lengths, reset=reset)
        mask = block if mask_text == "block-diagonal" else full
        offsets = attended_offsets(ids, mask)
        across = attended_offsets(ids, mask & ~block).size / offsets.size
        rows.append(
            [
                ids_text,
                mask_text,
                f"{signed(offsets.min())} to {signed(offsets.max())}",
                f"{100 * across:.0f}%",
                len(cu_seqlens_from_position_ids(ids)) - 1,
            ]
        )
    return rows


@table(
    "packing_offsets",
    caption=lambda: (
        f"Documents of {', '.join(f'{n:,}' for n in ROW_DOCS)} tokens in one row: the offsets "
        "$m - n$ the scores see under each choice of ids and mask."
    ),
)
def _():
    return Table(
        [
            "position ids",
            "mask",
            "offsets $m - n$ seen",
            "attended pairs across documents",
            "documents inferred from the ids",
        ],
        packing_rows(),
    )


@value("row_docs")
def _():
    *rest, last = (f"{n:,}" for n in ROW_DOCS)
    return f"{', '.join(rest)} and {last}"


@value("longest_doc_offset")
def _():
    return f"{max(ROW_DOCS) - 1:,}"


@value("causal_across")
def _():
    """The share of attended pairs across documents under the causal mask (one count)."""
    return packing_rows()[3][3]


@value("run_on_first_ids")
def _():
    ids = packed_position_ids(ROW_DOCS, reset=False)
    starts = np.cumsum(ROW_DOCS)[:-1]
    return " and ".join(f"{int(i):,}" for i in ids[starts])
