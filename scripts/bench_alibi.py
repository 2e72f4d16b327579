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

The cases are timed in interleaved rounds, and every ratio is the median over
the rounds of the case's time over the limit's time in the same round
(``benchlib``). The scores and both biases are held for the whole run, so the
two warm cases differ only in the bias they read: three 1 GiB arrays are alive
throughout, and up to two more while a case runs (the direct recipe's product
and its masked copy). Target: the library's cold ratio ≤ 1.2. Exit status 1 if
it is missed.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import Case, assert_same, report, time_rounds, verdict

from pe_explained import alibi_bias

#: 10 rounds: the 10 over which ``benchlib.round_order`` balances 5 cases.
NUM_HEADS, SEQ_LEN, TARGET, ROUNDS = 16, 4096, 1.2, 10
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


def run(num_heads: int = NUM_HEADS, seq_len: int = SEQ_LEN, rounds: int = ROUNDS) -> int:
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

    def ours():
        return alibi_bias(num_heads, seq_len)

    def theirs():
        return direct_bias(num_heads, seq_len)

    # the warm cases read these, computed once: the two adds differ in nothing else
    scores = np.full(shape, 0.5, dtype=np.float32)
    biases = {"pe_explained.alibi_bias": ours(), "direct recipe": theirs()}
    cases = [
        Case("limit", f"fill of a fresh {num_heads}x{seq_len}x{seq_len} float32 array", fill),
        Case("cold", LIBRARY_COLD, ours),
        Case("cold", "direct recipe (bias computed)", theirs),
    ]
    for source, bias in biases.items():
        cases.append(
            Case("warm", f"scores + bias (from {source}, reused)", lambda bias=bias: scores + bias)
        )
    times = time_rounds(cases, rounds)
    print(
        f"ALiBi bias {num_heads}x{seq_len}x{seq_len}, float32, causal; "
        f"{rounds} rounds, every case once per round"
    )
    print("time: the median over the rounds; ratio: the median of the per-round ratios")
    print("warm: the same add on both sides (a bias is data once computed; no cache)")
    ratios = report(cases, times)
    return verdict("alibi_bias, cold", ratios["cold", LIBRARY_COLD], TARGET)


if __name__ == "__main__":
    sys.exit(run())
