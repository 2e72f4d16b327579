"""Chapter 23: a cache of rotated keys moved once in float32, and again and again in
float32, float16, bfloat16 and FP8 (the drift figure)."""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from pe_explained import apply_rope, key_error, repeated_shift_error, shift_rotated_keys

from ... import figure, value
from ...style import new_figure
from ...text import format_cell
from .common import (
    BACK,
    DTYPES,
    HEAD_DIM,
    LARGE_BACK,
    N_KEYS,
    QUOTED_SHIFTS,
    SHIFTS,
    STEP,
    _inv_freq,
    _keys,
    _positions,
    _sci,
)

# ---------------------------------------------------------------------------
# One shift in float32
# ---------------------------------------------------------------------------


@cache
def _one_shift() -> dict[str, float]:
    """A float32 cache moved back by BACK, and float32 keys computed afresh there, both against
    the float64 keys at the new positions."""
    k32, pos, freq = _keys().astype(np.float32), _positions(), _inv_freq()
    exact = apply_rope(_keys(), pos - BACK, freq)
    moved = shift_rotated_keys(apply_rope(k32, pos, freq), -BACK, freq)
    return {
        "shifted": key_error(moved, exact),
        "fresh": key_error(apply_rope(k32, pos - BACK, freq), exact),
    }


@value("f32_shift_error")
def _():
    return _sci(_one_shift()["shifted"])


@value("f32_fresh_error")
def _():
    return _sci(_one_shift()["fresh"])


# ---------------------------------------------------------------------------
# Repeated shifts
# ---------------------------------------------------------------------------


@cache
def _drift(dtype_name: str, step: int) -> np.ndarray:
    return repeated_shift_error(
        _keys(), _positions(), step, SHIFTS, _inv_freq(), dtype=DTYPES[dtype_name]
    )


def _drift_value(dtype_name: str, step: int = STEP, shifts: int = QUOTED_SHIFTS) -> str:
    return _sci(_drift(dtype_name, step)[shifts])


@value("drift_f32")
def _():
    return _drift_value("float32", shifts=SHIFTS)


@value("drift_f16")
def _():
    return _drift_value("float16")


@value("drift_bf16")
def _():
    return format_cell(float(_drift("bfloat16", STEP)[QUOTED_SHIFTS]), ".2f")


@value("drift_f16_large")
def _():
    return _drift_value("float16", -LARGE_BACK)


@value("drift_bf16_large")
def _():
    return format_cell(float(_drift("bfloat16", -LARGE_BACK)[QUOTED_SHIFTS]), ".2f")


@value("store_bf16")
def _():
    return _sci(_drift("bfloat16", STEP)[0])


@value("store_fp8")
def _():
    return _sci(_drift("FP8 E4M3", STEP)[0])


def first_lost(dtype_name: str) -> int:
    """Moves by STEP after which a cache's keys are first off by as much as they are long
    (0 when they never are within SHIFTS)."""
    err = _drift(dtype_name, STEP)
    return int(np.argmax(err >= 1.0))


@value("drift_fp8_first")
def _():
    return f"{first_lost('FP8 E4M3'):,}"


@cache
def _pre_rotation_bf16() -> float:
    """A cache of unrotated keys stored in bfloat16, read at the positions SHIFTS steps on:
    one rounding of the stored key, whatever the number of moves."""
    stored = _keys().astype(ml_dtypes.bfloat16).astype(np.float32)
    later = _positions() + SHIFTS * STEP
    return key_error(
        apply_rope(stored, later, _inv_freq()), apply_rope(_keys(), later, _inv_freq())
    )


@value("pre_rotation_bf16")
def _():
    return _sci(_pre_rotation_bf16())


_DRIFT_STYLES = {"float32": "-", "float16": "--", "bfloat16": "-.", "FP8 E4M3": ":"}


@figure(
    "cache_shift_drift",
    alt=lambda: (
        "Log-log plot of the error of cached keys against the number of times the cache "
        f"was moved back by one position, from 1 to {SHIFTS:,} moves, for caches stored in "
        "float32, float16, bfloat16 and FP8 E4M3. Every line rises about in proportion to "
        f"the number of moves: float32 from {_drift_value('float32', shifts=1)} to "
        f"{_drift_value('float32', shifts=SHIFTS)}, float16 from "
        f"{_drift_value('float16', shifts=1)} to {_drift_value('float16', shifts=SHIFTS)}, "
        f"bfloat16 from {_drift_value('bfloat16', shifts=1)} past 1, an error as large as "
        f"the key, after {first_lost('bfloat16'):,} moves; FP8 starts at "
        f"{_drift_value('FP8 E4M3', shifts=1)} and passes 1 after "
        f"{first_lost('FP8 E4M3'):,} moves, then stays near it."
    ),
    caption=lambda: (
        f"{N_KEYS} rotated keys (head_dim = {HEAD_DIM}) moved back by one position again "
        "and again, against the keys computed at their new positions "
        "(<code>repeated_shift_error</code>)."
    ),
)
def _(theme):
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    shifts = np.arange(1, SHIFTS + 1)
    for (name, style), colour in zip(_DRIFT_STYLES.items(), theme.cycle, strict=False):
        ax.plot(shifts, _drift(name, STEP)[1:], linestyle=style, color=colour, label=name)
    ax.axhline(1.0, color=theme.muted, linewidth=1.0)
    ax.text(1.2, 1.25, "error as large as the key", color=theme.text)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("moves back by one position (log scale)")
    ax.set_ylabel("relative error of the keys\n(log scale)")
    ax.legend(loc="lower right", frameon=False)
    return fig
