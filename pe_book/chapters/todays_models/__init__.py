"""Chapter 21, RoPE in today's models, in modules registered as ``todays_models``:

* :mod:`.settings`: the gallery, layer types, NoPE layers, temperature, M-RoPE and MLA;
* :mod:`.hybrids`: where each layer gets its positions from in the hybrid models, and
  the short cases their configs contain;
* :mod:`.llama4`: Llama 4 Scout's rule and context;
* :mod:`.windows`: the sliding windows that cut, and those that never do;
* :mod:`.video`: time in M-RoPE, the ids of a short clip under the three Qwen-VL rules.
"""

from __future__ import annotations

from . import hybrids, llama4, settings, video, windows
from .settings import (
    DSV3_NOPE,
    DSV3_ROPE,
    LLAMA4_ATTN_SCALE,
    LLAMA4_FLOOR_SCALE,
    LLAMA4_INSTRUCT_CONTEXT,
    MERGE,
    MINISTRAL_AT,
    _gallery_config,
)
from .video import FAST_FPS, SLOW_FPS, TOKENS_PER_SECOND

QUOTED = settings.QUOTED + video.QUOTED

__all__ = [
    "DSV3_NOPE",
    "DSV3_ROPE",
    "LLAMA4_ATTN_SCALE",
    "LLAMA4_FLOOR_SCALE",
    "LLAMA4_INSTRUCT_CONTEXT",
    "MERGE",
    "MINISTRAL_AT",
    "QUOTED",
    "_gallery_config",
    "FAST_FPS",
    "SLOW_FPS",
    "TOKENS_PER_SECOND",
    "hybrids",
    "llama4",
    "settings",
    "video",
    "windows",
]
