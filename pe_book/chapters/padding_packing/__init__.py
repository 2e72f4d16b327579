"""Chapter 24, padding, batching and packing, in two modules registered as
``padding_packing``:

* :mod:`.batches`: position ids from the attention mask, and what a common shift of a
  row's positions does and does not change (absolute tables, dynamic NTK, M-RoPE,
  bfloat16 positions);
* :mod:`.packing`: packed documents, the block-diagonal mask, and the offsets their
  scores see.
"""

from __future__ import annotations

from . import batches, packing
from .batches import (
    BASE,
    BF16_SHIFT,
    CONTEXT,
    D_MODEL,
    FACTOR,
    HEAD_DIM,
    KEY_AT,
    LONGEST,
    MERGE,
    QUERY_AT,
    SCORE_PAIRS,
    SHORT,
)

QUOTED = batches.QUOTED

__all__ = [
    "BASE",
    "BF16_SHIFT",
    "CONTEXT",
    "D_MODEL",
    "FACTOR",
    "HEAD_DIM",
    "KEY_AT",
    "LONGEST",
    "MERGE",
    "QUERY_AT",
    "QUOTED",
    "SCORE_PAIRS",
    "SHORT",
    "batches",
    "packing",
]
