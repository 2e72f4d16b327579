"""Chapter 21, RoPE in today's models, in two modules registered as ``todays_models``:

* :mod:`.settings`: the gallery, layer types, NoPE layers, temperature, M-RoPE and MLA;
* :mod:`.hybrids`: where each layer gets its positions from in the hybrid models, and
  the short cases their configs contain.
"""

from __future__ import annotations

from . import hybrids, settings
from .settings import (
    DSV3_NOPE,
    DSV3_ROPE,
    LLAMA4_ATTN_SCALE,
    LLAMA4_FLOOR_SCALE,
    MERGE,
    MINISTRAL_AT,
    QUOTED,
    _gallery_config,
)

__all__ = [
    "DSV3_NOPE",
    "DSV3_ROPE",
    "LLAMA4_ATTN_SCALE",
    "LLAMA4_FLOOR_SCALE",
    "MERGE",
    "MINISTRAL_AT",
    "QUOTED",
    "_gallery_config",
    "hybrids",
    "settings",
]
