"""What every part of chapter 23 shares: the running example's constants, the keys, the
frequencies, number formats and the gallery's settings."""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from pe_explained import rope_frequencies

from ...models import load_models
from ...text import format_cell

#: The running example: Llama-2-7B's rotary settings (the tests compare them with its
#: config in the gallery), 64 random keys (standard normal entries, seed 0) cached at
#: positions FIRST … FIRST + 63, moved back by BACK at once.
HEAD_DIM, BASE, N_KEYS, SEED, FIRST, BACK = 128, 10000.0, 64, 0, 4096, 4000
#: Repeated shifts: STEP per shift (a window sliding back by one token), or back by
#: LARGE_BACK at a time for comparison; SHIFTS of them, and the count the prose quotes.
STEP, LARGE_BACK, SHIFTS, QUOTED_SHIFTS = -1, 256, 4000, 1000
#: YaRN's scale for the attention factor, over a trained context of YARN_CONTEXT; the
#: rotated width of a partially rotated head (ROTARY_DIM of HEAD_DIM, GPT-NeoX-20B's share,
#: which the tests compare with its config in the gallery).
YARN_FACTOR, YARN_CONTEXT, ROTARY_DIM = 4.0, 4096, 32
#: The M-RoPE example: text, one image (patches, merged 2 × 2 into tokens), text; the
#: text and the image before the last run are evicted.
TEXT_BEFORE, IMAGE_PATCHES, TEXT_AFTER = 10, (16, 16), 20
#: Dynamic NTK as chapter 15's example: scale 2 over a trained context of 4,096, keys
#: cached within it, read when the text has reached LONG tokens.
DYNAMIC_FACTOR, CONTEXT, LONG = 2.0, 4096, 8192
#: StreamingLLM: four sinks and a window, a cache of 1,024 keys; STREAM tokens read for
#: the left panel, streams up to LONGEST for the right; Llama 2's trained context.
N_SINK, WINDOW, STREAM, LONGEST, LLAMA2_CONTEXT = 4, 1020, 20_000, 4_000_000, 4096
#: The gallery's files the chapter reads settings from.
NEOX, QWEN_VL, LLAMA2 = "gpt-neox-20b", "qwen2.5-vl-7b-instruct", "llama-2-7b"
#: StreamingLLM's reference code: StartRecentKVCache(start_size=4, recent_size=2000).
REFERENCE_START, REFERENCE_RECENT = 4, 2000
QUOTED = (
    "REFERENCE_START",
    "REFERENCE_RECENT",
    "HEAD_DIM",
    "BASE",
    "N_KEYS",
    "FIRST",
    "BACK",
    "SHIFTS",
    "QUOTED_SHIFTS",
    "LARGE_BACK",
    "YARN_FACTOR",
    "ROTARY_DIM",
    "TEXT_BEFORE",
    "TEXT_AFTER",
    "DYNAMIC_FACTOR",
    "CONTEXT",
    "LONG",
    "N_SINK",
    "WINDOW",
    "STREAM",
)
#: The cache formats of the drift figure, as repeated_shift_error stores them.
DTYPES = {
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "FP8 E4M3": np.dtype(ml_dtypes.float8_e4m3fn),
}


def _sci(x: float) -> str:
    """``7.9×10⁻⁸``: two significant digits, as the tables print them."""
    return format_cell(float(x), ".1e")


@cache
def _keys() -> np.ndarray:
    return np.random.default_rng(SEED).normal(size=(N_KEYS, HEAD_DIM))


def _positions() -> np.ndarray:
    return np.arange(FIRST, FIRST + N_KEYS)


@cache
def _inv_freq() -> np.ndarray:
    return rope_frequencies(HEAD_DIM, base=BASE)[0]


def _signed(n: int) -> str:
    """``−4,000`` with a minus sign, as the prose sets numbers."""
    return f"{n:,}".replace("-", "−")


def _gallery(stem: str) -> dict:
    for entry in load_models():
        if entry.stem == stem:
            return entry.config
    raise KeyError(f"no gallery model {stem!r}")
