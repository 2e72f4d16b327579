#!/usr/bin/env python3
"""Benchmark: the sinusoidal table against a limit measured in the same run.

Prints the time of ``sinusoidal(32768, 1024)`` (float64) as a ratio to filling a
fresh array of the same size, and, for comparison, the usual numpy recipe
(``sin``/``cos`` of a positions × frequencies grid). Target: ratio ≤ 2.
Exit status 1 if the target is missed. Best of several runs for each.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import best_time, time_once, verdict

from pe_explained import sinusoidal, sinusoidal_frequencies

NUM_POSITIONS, D_MODEL, TARGET, REPEATS = 32768, 1024, 2.0, 7


def fill():
    out = np.empty((NUM_POSITIONS, D_MODEL))
    out.fill(1.0)
    return out


def usual():
    angles = np.arange(NUM_POSITIONS)[:, None] * sinusoidal_frequencies(D_MODEL)[None, :]
    out = np.empty((NUM_POSITIONS, D_MODEL))
    out[:, 0::2], out[:, 1::2] = np.sin(angles), np.cos(angles)
    return out


def _best(fn) -> float:
    return best_time(fn, REPEATS)


def main() -> int:
    limit = _best(fill)
    ours = _best(lambda: sinusoidal(NUM_POSITIONS, D_MODEL))
    baseline = time_once(usual)  # slow: run once
    ratio = ours / limit
    print(
        f"fill of a fresh {NUM_POSITIONS}x{D_MODEL} float64 array: {limit * 1e3:8.1f} ms  (limit)"
    )
    print(f"pe_explained.sinusoidal:                 {ours * 1e3:8.1f} ms  ratio {ratio:5.2f}")
    print(
        f"usual sin/cos recipe (one run):          {baseline * 1e3:8.1f} ms  "
        f"ratio {baseline / limit:5.2f}"
    )
    return verdict("sinusoidal", ratio, TARGET)


if __name__ == "__main__":
    sys.exit(main())
