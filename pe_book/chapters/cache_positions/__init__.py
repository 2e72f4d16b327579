"""Chapter 23, positions in the KV cache, in modules registered as ``cache_positions``:

* :mod:`.common`: the running example (keys, frequencies, constants the page quotes);
* :mod:`.moves`: a cache of rotated keys moved once, and again and again, in each format;
* :mod:`.cases`: what a shift gets wrong (the attention factor, partial rotation,
  M-RoPE's ids, frequencies that follow the length);
* :mod:`.quantised`: an FP8 cache with the scales engines offer;
* :mod:`.measured`: llama.cpp's context shift, measured on llama.cpp itself;
* :mod:`.streaming`: StreamingLLM's sinks and window.
"""

from __future__ import annotations

from . import cases, common, measured, moves, quantised, streaming
from .common import (
    BACK,
    BASE,
    CONTEXT,
    DYNAMIC_FACTOR,
    FIRST,
    HEAD_DIM,
    LARGE_BACK,
    LONG,
    N_KEYS,
    N_SINK,
    QUOTED,
    QUOTED_SHIFTS,
    REFERENCE_RECENT,
    REFERENCE_START,
    ROTARY_DIM,
    SHIFTS,
    STREAM,
    TEXT_AFTER,
    TEXT_BEFORE,
    WINDOW,
    YARN_FACTOR,
)

__all__ = [
    "BASE",
    "CONTEXT",
    "DYNAMIC_FACTOR",
    "FIRST",
    "HEAD_DIM",
    "LARGE_BACK",
    "LONG",
    "BACK",
    "N_KEYS",
    "N_SINK",
    "QUOTED",
    "QUOTED_SHIFTS",
    "REFERENCE_RECENT",
    "REFERENCE_START",
    "ROTARY_DIM",
    "SHIFTS",
    "STREAM",
    "TEXT_AFTER",
    "TEXT_BEFORE",
    "WINDOW",
    "YARN_FACTOR",
    "cases",
    "common",
    "measured",
    "moves",
    "quantised",
    "streaming",
]
