"""Chapter 23: an FP8 cache with the scales vLLM offers (none, one per tensor, one per
token and head), stored once, for keys of two sizes."""

from __future__ import annotations

from functools import cache

import ml_dtypes

from pe_explained import repeated_shift_error

from ... import Table, table, value
from .common import STEP, _inv_freq, _keys, _positions

#: The keys are drawn with unit-variance entries; the small ones are this much shorter.
SMALL = 2.0**-8

#: The scales, in the library's words, and where a reader meets each in vLLM 0.33.0 (read).
SCALES = {
    "none": "scale 1: vLLM's k_scale when the checkpoint carries none",
    "tensor": "one per tensor, max |k| / 448: a checkpoint's calibrated k_scale",
    "row": "one per token and head, at the store: --kv-cache-dtype fp8_per_token_head",
}


@cache
def stored_error(scale: str, size: float) -> float:
    """The rounding of the first store of the running example's rotated keys, times
    ``size``, in FP8 E4M3 with ``scale`` (entry 0 of ``repeated_shift_error``)."""
    keys = _keys() * size
    err = repeated_shift_error(
        keys, _positions(), STEP, 0, _inv_freq(), dtype=ml_dtypes.float8_e4m3fn, scale=scale
    )
    return float(err[0])


@table(
    "fp8_scales",
    caption="The rounding of rotated keys stored once in FP8 E4M3 with each scale "
    "(<code>repeated_shift_error</code>'s <code>scale</code>): the running example's "
    "keys, and the same keys much shorter.",
)
def _():
    rows = [
        [what, stored_error(name, 1.0), stored_error(name, SMALL)] for name, what in SCALES.items()
    ]
    shorter = f"keys {1 / SMALL:.0f} times shorter"
    return Table(["scale", "keys as drawn", shorter], rows, default_format=".3f")


@value("fp8_small_unscaled")
def _():
    return f"{stored_error('none', SMALL):.3f}"


@value("fp8_small_scaled")
def _():
    return f"{max(stored_error(s, SMALL) for s in ('tensor', 'row')):.3f}"


@value("fp8_shorter")
def _():
    return f"{1 / SMALL:.0f}"
