#!/usr/bin/env python3
"""Benchmark: apply_rope against a limit measured in the same run.

Prints the time of ``apply_rope`` on float32 queries of shape (1, 8, 4096, 64)
(both layouts, angles computed in every call) as a ratio to one
``numpy.multiply`` pass over the same array into a fresh one, and, for
comparison, the usual ``rotate_half`` recipe (concatenations). Target: the
default layout's ratio ≤ 1.5. Exit status 1 if the target is missed. Best of
several runs for each.
"""

from __future__ import annotations

import sys

import numpy as np
from benchlib import best_time, verdict

from pe_explained import apply_rope, rope_frequencies

SHAPE, TARGET, REPEATS = (1, 8, 4096, 64), 1.5, 15


def _best(fn) -> float:
    return best_time(fn, REPEATS)


def main() -> int:
    x = np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)
    seq, head_dim = SHAPE[-2], SHAPE[-1]
    inv_freq, _ = rope_frequencies(head_dim)
    positions = np.arange(seq)

    def one_pass():
        out = np.empty_like(x)
        np.multiply(x, 1.0001, out=out)
        return out

    def rotate_half_recipe():
        theta = np.outer(positions, inv_freq).astype(np.float32)
        cos = np.concatenate([np.cos(theta)] * 2, axis=-1)
        sin = np.concatenate([np.sin(theta)] * 2, axis=-1)
        half = head_dim // 2
        return x * cos + np.concatenate([-x[..., half:], x[..., :half]], axis=-1) * sin

    limit = _best(one_pass)
    ratios = {}
    print(f"one numpy.multiply pass over {SHAPE} float32:  {limit * 1e3:7.2f} ms  (limit)")
    for layout in ("halves", "interleaved"):
        t = _best(lambda layout=layout: apply_rope(x, positions, inv_freq, layout=layout))
        ratios[layout] = t / limit
        print(
            f"apply_rope, layout={layout + ':':<13}         {t * 1e3:7.2f} ms  "
            f"ratio {t / limit:5.2f}"
        )
    t = _best(rotate_half_recipe)
    print(f"rotate_half recipe (concatenations):       {t * 1e3:7.2f} ms  ratio {t / limit:5.2f}")
    ratio = ratios["halves"]
    return verdict("apply_rope (default layout)", ratio, TARGET)


if __name__ == "__main__":
    sys.exit(main())
