#!/usr/bin/env python3
"""Benchmark: the ALiBi bias, cold and warm, against a limit measured in the same run.

Limit: filling a fresh float32 array of the bias's size (16 heads × 4096 × 4096,
1 GiB). The bias is memory-bound, so writing each element once is the best it
can do.

Cold (the bias computed in the call): ``alibi_bias(16, 4096)`` (float32,
causal) against the usual numpy recipe, which computes its own slopes
``m_h = 2^(−8h/n)`` and distance matrix, then a broadcast product and a
``where`` for the causal mask — the same float32 values, ``−inf`` above the
diagonal.

Warm (the bias computed once and reused, as by every layer of one forward
pass): the library has no cache — the bias is plain data once computed — so what
remains per layer is adding it to the attention scores, ``scores + bias``. Both
sides time that same add, each on its own precomputed bias; their warm ratios
differ only by noise.

Target: the library's cold ratio ≤ 1.2. Exit status 1 if it is missed. Every
case is the best of the same number of runs. The cases that hold a whole bias
run one after another, so at most three 1 GiB arrays are alive at a time.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import Case, assert_same, best_times, report, verdict

from pe_explained import alibi_bias

NUM_HEADS, SEQ_LEN, TARGET, REPEATS = 16, 4096, 1.2, 3
LIBRARY_COLD = "pe_explained.alibi_bias (bias computed)"


def direct_bias(num_heads: int, seq_len: int) -> np.ndarray:
    """The usual recipe: slopes × distance matrix, then the causal mask, float32."""
    if num_heads < 1 or num_heads & (num_heads - 1):
        raise ValueError(f"num_heads must be a power of two, got {num_heads}")
    # m_h = 2^(-8h / n), h = 1 … n (Press et al., 2022, for n a power of two)
    slopes = np.exp2(-8.0 * np.arange(1, num_heads + 1) / num_heads).astype(np.float32)
    positions = np.arange(seq_len, dtype=np.float32)
    distance = positions[:, None] - positions[None, :]  # i − j
    bias = -slopes[:, None, None] * distance[None]
    return np.where(distance[None] >= 0, bias, -np.inf)


def run(num_heads: int = NUM_HEADS, seq_len: int = SEQ_LEN, repeats: int = REPEATS) -> int:
    """Check the peer, time every case, print the ratios; return the exit status."""
    shape = (num_heads, seq_len, seq_len)
    assert_same(
        "direct recipe",
        alibi_bias(num_heads, seq_len),
        direct_bias(num_heads, seq_len),
        rtol=1e-6,
        atol=0.0,
    )

    def fill():
        out = np.empty(shape, dtype=np.float32)
        out.fill(1.0)
        return out

    cases = [
        Case("limit", f"fill of a fresh {num_heads}x{seq_len}x{seq_len} float32 array", fill),
        Case("cold", LIBRARY_COLD, lambda: alibi_bias(num_heads, seq_len)),
        Case("cold", "direct recipe (bias computed)", lambda: direct_bias(num_heads, seq_len)),
    ]
    times = best_times(cases, repeats)
    # one whole bias at a time: the warm cases read it from `held`, filled just before them
    scores, held = np.full(shape, 0.5, dtype=np.float32), {}
    for make, source in [(alibi_bias, "pe_explained.alibi_bias"), (direct_bias, "direct recipe")]:
        cases.append(
            Case("warm", f"scores + bias (from {source}, reused)", lambda: scores + held["bias"])
        )
        held["bias"] = make(num_heads, seq_len)
        times += best_times(cases[-1:], repeats)
        held.clear()
    print(
        f"ALiBi bias {num_heads}x{seq_len}x{seq_len}, float32, causal; best of {repeats} runs each"
    )
    print("warm: the same add on both sides (a bias is data once computed; no cache)")
    ratios = report(cases, times)
    return verdict("alibi_bias, cold", ratios["cold", LIBRARY_COLD], TARGET)


if __name__ == "__main__":
    sys.exit(run())
