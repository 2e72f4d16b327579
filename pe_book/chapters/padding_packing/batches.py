"""Chapter 24's first two sections: position ids of a padded batch, and what a common
shift of a row's positions does and does not change."""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np
from matplotlib.colors import to_rgba

from pe_explained import (
    cached_angle_error,
    mrope_position_ids,
    position_ids_from_mask,
    rope_frequencies,
    score_shift_error,
)
from pe_explained.precision import first_colliding_position, stored_positions
from pe_explained.properties import distance_by_offset

from ... import Table, figure, table, value
from ...style import new_figure
from ...text import format_cell

#: The worked batch: three prompts of these lengths, padded to the longest.
PROMPTS = (5, 3, 2)
#: The width of the sinusoidal table whose rows a padded prompt reads (the base
#: Transformer's d_model).
D_MODEL = 512
#: The score-shift table: head width, base, random query/key pairs (seed), the unshifted
#: positions of query and key, and the common shifts.
HEAD_DIM, BASE, SCORE_PAIRS, SCORE_SEED = 128, 10000.0, 16, 0
QUERY_AT, KEY_AT = 10, 4
SHIFTS = (8, 1_000, 100_000, 1_000_000)
#: Dynamic NTK: the trained context, the factor, a short row alone and the batch's longest.
CONTEXT, FACTOR, SHORT, LONGEST = 4096, 2.0, 1_000, 8_192
ANGLE_OFFSETS = (10, 100)
#: M-RoPE: words before and after one image of IMAGE_PATCHES (Qwen2-VL's merge of 2).
TEXT_RUNS, IMAGE_PATCHES, MERGE = (3, 2), (28, 28), 2
#: bfloat16 positions: a query and a key three apart, then moved by a common shift.
BF16_PAIR, BF16_SHIFT = (10, 7), 1_000
QUOTED = (
    "D_MODEL",
    "HEAD_DIM",
    "BASE",
    "SCORE_PAIRS",
    "QUERY_AT",
    "KEY_AT",
    "CONTEXT",
    "FACTOR",
    "SHORT",
    "LONGEST",
    "MERGE",
    "BF16_SHIFT",
)


def signed(n: int) -> str:
    """An integer with thousands separators and a minus sign: ``−1,000``."""
    return f"{int(n):,}".replace("-", "−")


def batch_mask(side: str = "left") -> np.ndarray:
    """The attention mask of the worked batch, padded on the left or on the right."""
    width = max(PROMPTS)
    rows = [[0] * (width - n) + [1] * n for n in PROMPTS]
    return np.array(rows if side == "left" else [row[::-1] for row in rows])


def _columns(mask: np.ndarray) -> np.ndarray:
    """What a model that counts columns uses as ids: 0, 1, 2, … in every row."""
    return np.broadcast_to(np.arange(mask.shape[1]), mask.shape)


@value("most_padding")
def _():
    return str(max(PROMPTS) - min(PROMPTS))


@value("padded_first_ids")
def _():
    """The ids the most-padded prompt's tokens get from the columns."""
    mask = batch_mask()
    row = mask[-1]
    return ", ".join(str(i) for i in _columns(mask)[-1][row == 1])


@value("padded_mask_ids")
def _():
    """The ids the same tokens get from the mask."""
    mask = batch_mask()
    return ", ".join(str(i) for i in position_ids_from_mask(mask)[-1][mask[-1] == 1])


@value("sinusoid_moved")
def _():
    """How far the most-padded prompt's added vectors move, as a share of their length
    ‖PE(p)‖ = √(d_model / 2)."""
    moved = distance_by_offset(max(PROMPTS) - min(PROMPTS), D_MODEL) / np.sqrt(D_MODEL / 2)
    return f"{100 * float(moved):.0f}%"


def _grid(ax, ids: np.ndarray, mask: np.ndarray, theme, title: str) -> None:
    """A batch as a grid of cells: real tokens tinted, padding plain, each cell's id in it."""
    real, pad = to_rgba(theme.cycle[0], 0.3), to_rgba(theme.muted, 0.12)
    ax.imshow(np.where(mask[..., None] == 1, real, pad), interpolation="nearest")
    for (i, j), v in np.ndenumerate(ids):
        colour = theme.text if mask[i, j] else theme.muted
        ax.text(j, i, str(v), ha="center", va="center", color=colour)
    ax.set_xticks(range(mask.shape[1]))
    ax.set_yticks(range(mask.shape[0]), [f"prompt {k + 1}" for k in range(mask.shape[0])])
    ax.set_xlabel("column")
    ax.set_title(title)


@figure(
    "padding_position_ids",
    alt=lambda: (
        f"Three grids of {len(PROMPTS)} rows and {max(PROMPTS)} columns, one row per prompt "
        f"of {', '.join(map(str, PROMPTS))} tokens, real tokens tinted and padding plain, "
        "each cell holding its position id. Left padding with ids from the attention mask: "
        "every prompt's real tokens read 0, 1, 2, … and padding reads 0. Left padding with "
        "column numbers: every row reads 0 to the last column, so the real tokens of a "
        "shorter prompt start at its number of padding tokens; the last prompt's ids "
        f"{position_ids_from_mask(batch_mask())[-1].tolist()} become "
        f"{_columns(batch_mask())[-1].tolist()}. Right padding with ids from the mask: the "
        "real tokens read 0, 1, 2, … as in the first grid."
    ),
    caption=lambda: (
        f"Position ids of a batch of prompts of {', '.join(map(str, PROMPTS))} tokens "
        "(<code>position_ids_from_mask</code>; padding plain)."
    ),
)
def _(theme):
    left, right = batch_mask("left"), batch_mask("right")
    fig = new_figure(7.0, 2.6)
    axes = fig.subplots(1, 3, sharey=True)
    _grid(axes[0], position_ids_from_mask(left), left, theme, "left padding,\nids from the mask")
    _grid(axes[1], _columns(left), left, theme, "left padding,\ncolumn numbers")
    _grid(axes[2], position_ids_from_mask(right), right, theme, "right padding,\nids from the mask")
    return fig


# ---------------------------------------------------------------------------
# A common shift
# ---------------------------------------------------------------------------

#: The score-shift table's routes: the dtype the vectors, cos and sin are rounded to, and
#: how the angles are computed.
SHIFT_ROUTES = {
    "float64 throughout": (np.float64, "float64"),
    "float32 model, float32 angles": (np.float32, "float32"),
    "float32 model, float64 angles": (np.float32, "float64"),
    "bfloat16 model, float32 angles": (ml_dtypes.bfloat16, "float32"),
}


@cache
def shift_errors() -> dict[str, list[float]]:
    """Largest change of the score over the random pairs, per route and shift (‖q‖ ‖k‖)."""
    q, k = np.random.default_rng(SCORE_SEED).normal(size=(2, SCORE_PAIRS, HEAD_DIM))
    inv_freq, _ = rope_frequencies(HEAD_DIM, base=BASE)
    return {
        route: score_shift_error(
            q, k, QUERY_AT, KEY_AT, list(SHIFTS), inv_freq, dtype=dtype, angles=angles
        ).tolist()
        for route, (dtype, angles) in SHIFT_ROUTES.items()
    }


@table(
    "shift_errors",
    caption="Largest change of a RoPE score, in units of ‖q‖ ‖k‖, when query and key both "
    "move by $s$ (<code>score_shift_error</code>).",
)
def _():
    return Table(
        ["rounding", *(f"shift $s = {s:,}$".replace(",", "{,}") for s in SHIFTS)],
        [[route, *errors] for route, errors in shift_errors().items()],
        default_format=".1e",
    )


def _shift_error(route: str, shift: int) -> str:
    return format_cell(shift_errors()[route][SHIFTS.index(shift)], ".1e")


@value("shift_small")
def _():
    return f"{SHIFTS[0]:,}"


@value("shift_large")
def _():
    return f"{SHIFTS[-1]:,}"


@value("shift_before_last")
def _():
    return f"{SHIFTS[-2]:,}"


@value("f64_shift_large")
def _():
    return _shift_error("float64 throughout", SHIFTS[-1])


@value("f32_shift_small")
def _():
    return _shift_error("float32 model, float32 angles", SHIFTS[0])


@value("f32_shift_large")
def _():
    return _shift_error("float32 model, float32 angles", SHIFTS[-1])


@value("bf16_shift_small")
def _():
    return _shift_error("bfloat16 model, float32 angles", SHIFTS[0])


def _dynamic(seq_len: int) -> np.ndarray:
    scaling = {
        "rope_type": "dynamic",
        "factor": FACTOR,
        "original_max_position_embeddings": CONTEXT,
    }
    return rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling, seq_len=seq_len)[0]


def _angle_changes(offset: int) -> np.ndarray:
    """Each pair's change of angle at ``offset``, the short row alone or in the batch,
    unwrapped (radians)."""
    return cached_angle_error([offset], _dynamic(SHORT), _dynamic(LONGEST), wrap=False)[0]


def _angle_change(offset: int) -> float:
    """Largest change of a pair's angle at ``offset``."""
    return float(np.abs(_angle_changes(offset)).max())


@value("dyn_short_is_plain")
def _():
    plain, _ = rope_frequencies(HEAD_DIM, base=BASE)
    if not np.array_equal(_dynamic(SHORT), plain):
        raise ValueError("dynamic NTK below the trained context should be plain RoPE")
    return "plain RoPE"


@value("dyn_angle_small")
def _():
    return format_cell(_angle_change(ANGLE_OFFSETS[0]), ".2f")


@value("dyn_angle_large")
def _():
    return format_cell(_angle_change(ANGLE_OFFSETS[1]), ".2f")


@value("dyn_pairs_off")
def _():
    """The pairs whose angle changes by more than half a turn at the larger offset."""
    return str(int(np.count_nonzero(np.abs(_angle_changes(ANGLE_OFFSETS[1])) > np.pi)))


@value("dyn_pairs")
def _():
    return str(len(_dynamic(SHORT)))


@value("dyn_offsets")
def _():
    return " and ".join(str(d) for d in ANGLE_OFFSETS)


@cache
def _mrope() -> np.ndarray:
    return mrope_position_ids(list(TEXT_RUNS), [list(IMAGE_PATCHES)], spatial_merge_size=MERGE)


@value("words_before")
def _():
    return str(TEXT_RUNS[0])


@value("words_after")
def _():
    return str(TEXT_RUNS[1])


@value("image_patches")
def _():
    return " × ".join(str(p) for p in IMAGE_PATCHES)


@value("image_tokens")
def _():
    return str(_mrope().shape[1] - sum(TEXT_RUNS))


@value("after_image_id")
def _():
    return str(int(_mrope()[0, TEXT_RUNS[0] + _mrope().shape[1] - sum(TEXT_RUNS)]))


@value("after_image_index")
def _():
    return str(_mrope().shape[1] - TEXT_RUNS[1])


@value("after_image_shift")
def _():
    """How far ids counted from the mask would move the text after the image."""
    ids = _mrope()
    return str(ids.shape[1] - (int(ids.max()) + 1))


@value("rope_delta")
def _():
    ids = _mrope()
    return signed(int(ids.max()) + 1 - ids.shape[1])


@value("bf16_first_collision")
def _():
    return f"{first_colliding_position(ml_dtypes.bfloat16):,}"


def _bf16_pair(shift: int) -> list[int]:
    return [int(p) for p in stored_positions(np.array(BF16_PAIR) + shift, ml_dtypes.bfloat16)]


@value("bf16_pair")
def _():
    return " and ".join(str(p) for p in BF16_PAIR)


@value("bf16_gap")
def _():
    return str(BF16_PAIR[0] - BF16_PAIR[1])


@value("bf16_shifted")
def _():
    return " and ".join(f"{p:,}" for p in np.array(BF16_PAIR) + BF16_SHIFT)


@value("bf16_stored")
def _():
    return " and ".join(f"{p:,}" for p in _bf16_pair(BF16_SHIFT))


@value("bf16_offset_seen")
def _():
    first, second = _bf16_pair(BF16_SHIFT)
    return str(first - second)
