#!/usr/bin/env python3
"""Benchmark: the sinusoidal table, cold and warm, against a limit measured in the same run.

Limit: filling a fresh float64 array of the table's size (32768 × 1024, 256 MiB),
one memory pass over the output.

Cold (the table computed in the call): ``sinusoidal(32768, 1024)`` (angle
addition: one complex multiply per pair) against the usual numpy recipe, which
computes its frequencies ``omega_i = 10000^(−2i/d)`` and the ``sin``/``cos`` of
the whole positions × frequencies grid into the same interleaved float64
table.

Warm (the table computed once and reused, as a model reuses it at every step):
the library has no cache — the table is plain data once computed — so what
remains per use is adding it to the token embeddings, ``x + table``. Both sides
time that same add, each on its own precomputed table; their warm ratios differ
only by noise, and show that reusing the table leaves nothing of its cost.

The cases are timed in interleaved rounds, and every ratio is the median over
the rounds of the case's time over the limit's time in the same round
(``benchlib``). Target: the library's cold ratio ≤ 2. Exit status 1 if it is
missed.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import Case, assert_same, report, time_rounds, verdict

from pe_explained import sinusoidal

#: 10 rounds: the 10 over which ``benchlib.round_order`` balances 5 cases.
NUM_POSITIONS, D_MODEL, TARGET, ROUNDS = 32768, 1024, 2.0, 10
LIBRARY_COLD = "pe_explained.sinusoidal (table computed)"
LIBRARY_WARM = "x + table (from pe_explained.sinusoidal, reused)"


def usual_table(num_positions: int, d_model: int) -> np.ndarray:
    """The usual recipe: ``sin`` and ``cos`` of every angle, interleaved, float64."""
    # omega_i = 10000^(-2i / d_model); PE[pos, 2i] = sin(pos omega_i), PE[pos, 2i+1] = cos(...)
    omega = 10000.0 ** (-np.arange(0, d_model, 2, dtype=np.float64) / d_model)
    angles = np.arange(num_positions, dtype=np.float64)[:, None] * omega[None, :]
    out = np.empty((num_positions, d_model))
    out[:, 0::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
    return out


def run(num_positions: int = NUM_POSITIONS, d_model: int = D_MODEL, rounds: int = ROUNDS) -> int:
    """Check the peer, time every case, print the ratios; return the exit status."""
    shape = (num_positions, d_model)
    ours, peer = sinusoidal(num_positions, d_model), usual_table(num_positions, d_model)
    assert_same("usual sin/cos recipe", ours, peer, rtol=0.0, atol=1e-9)
    x = np.random.default_rng(0).standard_normal(shape)

    def fill():
        out = np.empty(shape)
        out.fill(1.0)
        return out

    cases = [
        Case("limit", f"fill of a fresh {num_positions}x{d_model} float64 array", fill),
        Case("cold", LIBRARY_COLD, lambda: sinusoidal(num_positions, d_model)),
        Case("cold", "usual sin/cos recipe (table computed)", lambda: usual_table(*shape)),
        Case("warm", LIBRARY_WARM, lambda: x + ours),
        Case("warm", "x + table (from the usual recipe, reused)", lambda: x + peer),
    ]
    print(
        f"sinusoidal table {num_positions}x{d_model}, float64; "
        f"{rounds} rounds, every case once per round"
    )
    print("time: the median over the rounds; ratio: the median of the per-round ratios")
    print("warm: the same add on both sides (a table is data once computed; no cache)")
    ratios = report(cases, time_rounds(cases, rounds))
    return verdict("sinusoidal, cold", ratios["cold", LIBRARY_COLD], TARGET)


if __name__ == "__main__":
    sys.exit(run())
