#!/usr/bin/env python3
"""Benchmark: the ALiBi bias against a limit measured in the same run.

Prints the time of ``alibi_bias(16, 4096)`` (float32, causal) as a ratio to
filling a fresh float32 array of the same size (16 × 4096 × 4096, 1 GiB): the
bias is memory-bound, so writing each element once is the best it can do.
For comparison, the direct recipe (a distance matrix, then a broadcast product
and a mask) runs once. Target: ratio ≤ 1.2. Exit status 1 if the target is
missed. Best of several runs for each.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import best_time, time_once, verdict

from pe_explained import alibi_bias, alibi_slopes

NUM_HEADS, SEQ_LEN, TARGET, REPEATS = 16, 4096, 1.2, 5


def fill():
    out = np.empty((NUM_HEADS, SEQ_LEN, SEQ_LEN), dtype=np.float32)
    out.fill(1.0)
    return out


def direct():
    positions = np.arange(SEQ_LEN, dtype=np.float32)
    distance = positions[:, None] - positions[None, :]
    slopes = alibi_slopes(NUM_HEADS).astype(np.float32)
    bias = -slopes[:, None, None] * distance[None]
    return np.where(distance[None] >= 0, bias, -np.inf)


def _best(fn) -> float:
    return best_time(fn, REPEATS)


def main() -> int:
    limit = _best(fill)
    ours = _best(lambda: alibi_bias(NUM_HEADS, SEQ_LEN))
    baseline = time_once(direct)  # slow: run once
    ratio = ours / limit
    shape = f"{NUM_HEADS}x{SEQ_LEN}x{SEQ_LEN}"
    print(f"fill of a fresh {shape} float32 array: {limit * 1e3:8.1f} ms  (limit)")
    print(f"pe_explained.alibi_bias:                  {ours * 1e3:8.1f} ms  ratio {ratio:5.2f}")
    print(
        f"direct recipe (one run):                  {baseline * 1e3:8.1f} ms  "
        f"ratio {baseline / limit:5.2f}"
    )
    return verdict("alibi_bias", ratio, TARGET)


if __name__ == "__main__":
    sys.exit(main())
