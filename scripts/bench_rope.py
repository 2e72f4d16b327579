#!/usr/bin/env python3
"""Benchmark: apply_rope, cold and warm, against a limit measured in the same run.

Queries of shape (1, 8, 4096, 64), float32, positions 0 … 4095, both layouts.
Limit: one ``numpy.multiply`` pass over the queries into a fresh array.

Cold (the angle tables computed in the call): ``apply_rope`` with its phasor
cache (``pe_explained.rope._PHASOR_CACHE``) cleared, untimed, before every run,
against the usual numpy recipe of the same layout computing its ``cos``/``sin``
tables in the call — ``rotate_half`` (concatenations; GPT-NeoX, Hugging Face)
for ``"halves"``, ``rotate_every_two`` (GPT-J, RoFormer) for ``"interleaved"``.

Warm (the tables computed once and reused, as by the queries and keys of every
layer of one forward pass): ``apply_rope`` with its cache holding this table,
against the same recipe given ``cos``/``sin`` tables it computed once.

Like for like: both sides compute the angles ``pos · omega_i`` in float64 and
round ``cos``/``sin`` (or the phasors) to float32 once, so both give the same
float32 output, checked before timing. (The common shortcut of float32 angles
is cheaper and off by up to ``pos · 2^−24`` radians.)

Target: the default layout's warm ratio ≤ 1.5 — the case the target was always
measured on, since repeated calls hit the cache; the cold ratios have no
target. Exit status 1 if it is missed. Every case is the best of the same
number of runs.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import Case, assert_same, best_times, report, verdict

import pe_explained.rope
from pe_explained import apply_rope, rope_frequencies

SHAPE, TARGET, REPEATS = (1, 8, 4096, 64), 1.5, 25


def cos_sin(positions: np.ndarray, inv_freq: np.ndarray, layout: str):
    """The recipe's float32 tables, shape (seq, head_dim), laid out for ``layout``."""
    theta = np.multiply.outer(positions.astype(np.float64), inv_freq)  # theta = pos * omega_i
    cos, sin = np.cos(theta).astype(np.float32), np.sin(theta).astype(np.float32)
    if layout == "halves":  # [c_0 … c_{h-1}, c_0 … c_{h-1}]
        return np.concatenate([cos, cos], axis=-1), np.concatenate([sin, sin], axis=-1)
    return np.repeat(cos, 2, axis=-1), np.repeat(sin, 2, axis=-1)  # [c_0, c_0, c_1, c_1, …]


def rotate(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, layout: str) -> np.ndarray:
    """``x · cos + rotate(x) · sin``: ``rotate_half`` or ``rotate_every_two``."""
    if layout == "halves":  # (x_a, x_b) -> (-x_b, x_a) with x_b half a head away
        half = x.shape[-1] // 2
        turned = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    else:  # with x_b right after x_a
        turned = np.stack([-x[..., 1::2], x[..., 0::2]], axis=-1).reshape(x.shape)
    return x * cos + turned * sin


def recipe(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray, layout: str):
    """The usual recipe, cold: its tables computed, then the rotation."""
    return rotate(x, *cos_sin(positions, inv_freq, layout), layout)


def clear_phasor_cache():
    """Empty the library's phasor cache, so the next ``apply_rope`` computes its table."""
    pe_explained.rope._PHASOR_CACHE.clear()


def cases(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray) -> list[Case]:
    """Every case but the limit: cold then warm; per layout, library then recipe."""
    cold, warm = [], []
    for layout in ("halves", "interleaved"):
        tables = cos_sin(positions, inv_freq, layout)

        def ours(layout=layout):
            return apply_rope(x, positions, inv_freq, layout=layout)

        def theirs_cold(layout=layout):
            return recipe(x, positions, inv_freq, layout)

        def theirs_warm(layout=layout, tables=tables):
            return rotate(x, *tables, layout)

        cold += [
            Case("cold", f"apply_rope, {layout} (phasors computed)", ours, clear_phasor_cache),
            Case("cold", f"recipe, {layout} (cos/sin computed)", theirs_cold),
        ]
        warm += [  # the untimed reset fills the cache with this table, as the layer before would
            Case("warm", f"apply_rope, {layout} (phasors reused)", ours, ours),
            Case("warm", f"recipe, {layout} (cos/sin reused)", theirs_warm),
        ]
    return cold + warm


def run(shape: tuple[int, ...] = SHAPE, repeats: int = REPEATS) -> int:
    """Check the recipes, time every case, print the ratios; return the exit status."""
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    positions = np.arange(shape[-2])
    inv_freq, _ = rope_frequencies(shape[-1])
    for layout in ("halves", "interleaved"):
        ours = apply_rope(x, positions, inv_freq, layout=layout)
        theirs = recipe(x, positions, inv_freq, layout)
        assert_same(f"recipe, {layout}", ours, theirs, rtol=1e-5, atol=1e-5)

    def one_pass():
        out = np.empty_like(x)
        np.multiply(x, 1.0001, out=out)
        return out

    timed = [Case("limit", "one numpy.multiply pass into a fresh array", one_pass)]
    timed += cases(x, positions, inv_freq)
    print(f"apply_rope on float32 {shape}; best of {repeats} runs each")
    ratios = report(timed, best_times(timed, repeats))
    warm = ratios["warm", "apply_rope, halves (phasors reused)"]
    return verdict("apply_rope, warm, default layout (halves)", warm, TARGET)


if __name__ == "__main__":
    sys.exit(run())
