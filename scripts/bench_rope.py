#!/usr/bin/env python3
"""Benchmark: apply_rope, cold and warm, against a limit measured in the same run.

Queries of shape (1, 8, 4096, 64), float32, positions 0 … 4095, both layouts.
Limit: one ``numpy.multiply`` pass over the queries into a fresh array.

Cold (the tables computed in the call): ``apply_rope`` with its table cache
(``pe_explained.rope._TABLE_CACHE``) cleared, untimed, before every run,
against the usual numpy recipe of the same layout computing its ``cos``/``sin``
tables in the call — ``rotate_half`` (concatenations; GPT-NeoX, Hugging Face)
for ``"halves"``, ``rotate_every_two`` (GPT-J, RoFormer) for ``"interleaved"``.

Warm (the tables computed once and reused, as by the queries and keys of every
layer of one forward pass): ``apply_rope`` with its cache holding this table,
against the same recipe given ``cos``/``sin`` tables it computed once.

Like for like: both sides compute the angles ``pos · omega_i`` in float64 and
hold ``cos``/``sin`` (or the phasors) in float32, so both give the same float32
output within float32 rounding, checked before timing. (The common shortcut of
float32 angles is cheaper and off by up to ``pos · 2^−24`` radians.)

The cases are timed in interleaved rounds, and every ratio is the median over
the rounds of the case's time over the limit's time in the same round
(``benchlib``). Targets, each a verdict; exit status 1 if any is missed:

- warm, ``"halves"`` (the default layout) ≤ 3.0;
- warm, ``"interleaved"`` ≤ 1.5;
- cold ≤ 2 × warm, for each layout: the median over the rounds of the cold
  time over the warm time of the same round (computing the table must not cost
  more than rotating with it).
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import Case, assert_same, median_ratio, report, time_rounds, verdict

import pe_explained.rope
from pe_explained import apply_rope, rope_frequencies

#: 54 rounds: three times the 18 over which ``benchlib.round_order`` balances 9 cases.
SHAPE, ROUNDS = (1, 8, 4096, 64), 54
#: The largest warm ratio to the limit, per layout.
WARM_TARGETS = {"halves": 3.0, "interleaved": 1.5}
#: The largest cold time over the warm time of the same round, per layout.
COLD_OVER_WARM = 2.0
LAYOUTS = ("halves", "interleaved")


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


def clear_table_cache():
    """Empty the library's table cache, so the next ``apply_rope`` computes its table."""
    pe_explained.rope._TABLE_CACHE.clear()


def library_label(kind: str, layout: str) -> str:
    """The printed label of ``apply_rope``'s case of ``kind`` in ``layout``."""
    return f"apply_rope, {layout} (table {'computed' if kind == 'cold' else 'reused'})"


def cases(x: np.ndarray, positions: np.ndarray, inv_freq: np.ndarray) -> list[Case]:
    """Every case but the limit: cold then warm; per layout, library then recipe."""
    cold, warm = [], []
    for layout in LAYOUTS:
        tables = cos_sin(positions, inv_freq, layout)

        def ours(layout=layout):
            return apply_rope(x, positions, inv_freq, layout=layout)

        def theirs_cold(layout=layout):
            return recipe(x, positions, inv_freq, layout)

        def theirs_warm(layout=layout, tables=tables):
            return rotate(x, *tables, layout)

        cold += [
            Case("cold", library_label("cold", layout), ours, clear_table_cache),
            Case("cold", f"recipe, {layout} (cos/sin computed)", theirs_cold),
        ]
        warm += [  # the untimed reset fills the cache with this table, as the layer before would
            Case("warm", library_label("warm", layout), ours, ours),
            Case("warm", f"recipe, {layout} (cos/sin reused)", theirs_warm),
        ]
    return cold + warm


def run(shape: tuple[int, ...] = SHAPE, rounds: int = ROUNDS) -> int:
    """Check the recipes, time every case, print the ratios and verdicts; return the exit status."""
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    positions = np.arange(shape[-2])
    inv_freq, _ = rope_frequencies(shape[-1])
    for layout in LAYOUTS:
        ours = apply_rope(x, positions, inv_freq, layout=layout)
        theirs = recipe(x, positions, inv_freq, layout)
        assert_same(f"recipe, {layout}", ours, theirs, rtol=1e-5, atol=1e-5)

    def one_pass():
        out = np.empty_like(x)
        np.multiply(x, 1.0001, out=out)
        return out

    timed = [Case("limit", "one numpy.multiply pass into a fresh array", one_pass)]
    timed += cases(x, positions, inv_freq)
    print(f"apply_rope on float32 {shape}; {rounds} rounds, every case once per round")
    print("time: the median over the rounds; ratio: the median of the per-round ratios")
    times = time_rounds(timed, rounds)
    ratios = report(timed, times)
    seconds = {(case.kind, case.label): [t[i] for t in times] for i, case in enumerate(timed)}
    status = 0
    for layout in LAYOUTS:
        warm = "warm", library_label("warm", layout)
        cold = "cold", library_label("cold", layout)
        status |= verdict(f"apply_rope, warm, {layout}", ratios[warm], WARM_TARGETS[layout])
        # per round: the cold time over the warm time of the same round
        cold_over_warm = median_ratio(seconds[cold], seconds[warm])
        status |= verdict(f"apply_rope, cold over warm, {layout}", cold_over_warm, COLD_OVER_WARM)
    return status


if __name__ == "__main__":
    sys.exit(run())
