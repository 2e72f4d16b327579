"""PoSE's training-time position ids."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained import (
    pose_position_ids,
)

from ... import figure, value
from ...style import new_figure
from .common import (
    POSE_DRAWS,
    POSE_SEED,
    POSE_TARGET,
    POSE_TRAIN,
)

# ---------------------------------------------------------------------------
# PoSE
# ---------------------------------------------------------------------------


@cache
def pose_draws() -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """POSE_DRAWS training examples' ids and chunk starts, from one seeded generator."""
    rng = np.random.default_rng(POSE_SEED)
    return tuple(
        pose_position_ids(POSE_TRAIN, POSE_TARGET, rng, return_chunk_starts=True)
        for _ in range(POSE_DRAWS)
    )


@figure(
    "remapping_pose_ids",
    alt=lambda: (
        f"Horizontal bars on a line of position ids from 0 to {POSE_TARGET - 1}. The top bar, "
        f"a text of {POSE_TARGET} tokens read at inference, covers every id. Below it, "
        f"{POSE_DRAWS} training examples of {POSE_TRAIN} tokens drawn by PoSE: each starts at "
        "id 0 with a first chunk of consecutive ids, then skips ahead and continues with a "
        "second chunk; the skip and the split differ from example to example, so the examples "
        f"together reach ids near {POSE_TARGET - 1}."
    ),
    caption=lambda: (
        f"Position ids PoSE gives {POSE_DRAWS} training windows of {POSE_TRAIN} tokens for a "
        f"target of {POSE_TARGET} (two chunks, seed {POSE_SEED}), under the ids of a "
        f"{POSE_TARGET}-token text."
    ),
)
def _(theme):
    fig = new_figure(7.0, 3.3)
    ax = fig.add_subplot()
    labels = [f"inference, {POSE_TARGET} tokens", f"training, {POSE_TRAIN} tokens"]
    ax.broken_barh([(0, POSE_TARGET)], (0.6, 0.8), color=theme.muted)
    ax.broken_barh([(0, POSE_TRAIN)], (1.6, 0.8), color=theme.muted)
    first_row = len(labels)
    for row, (ids, starts) in enumerate(pose_draws(), start=first_row):
        ends = [*starts[1:], POSE_TRAIN]  # each chunk runs to the next one's start
        for chunk, (start, end) in enumerate(zip(starts, ends, strict=True)):
            first, last = int(ids[start]), int(ids[end - 1])
            ax.broken_barh(
                [(first, last + 1 - first)],
                (row + 0.6, 0.8),
                color=theme.cycle[chunk],
                label=f"PoSE, chunk {chunk + 1}" if row == first_row else None,
            )
        labels.append(f"PoSE, example {row - first_row + 1}")
    ax.set_yticks([k + 1.0 for k in range(len(labels))], labels)
    ax.invert_yaxis()
    ax.set_xlim(0, POSE_TARGET)
    ax.set_xlabel("position id")
    fig.legend(loc="outside upper center", ncols=2)
    return fig


@value("pose_first_ids")
def _():
    ids, starts = pose_draws()[0]
    cut = int(starts[1])
    return f"{int(ids[0])} to {int(ids[cut - 1])}, then {int(ids[cut])} to {int(ids[-1])}"
