"""Chapter 25, remapping positions: Self-Extend, llama.cpp's group attention, Dual Chunk
Attention, ReRoPE and PoSE, as the distances each one shows the model. One package, its
registrations named ``remapping.<name>``:

* :mod:`.common`: the chapter's parameters (the toy model of the distance figure, a
  model the size of Llama 2, PoSE's windows) and number formats;
* :mod:`.distances`: the distance matrices side by side and the largest-distance table;
* :mod:`.choosing`: Self-Extend's group size by the README's rule;
* :mod:`.dca`: Dual Chunk Attention as Qwen2.5-1M ships it;
* :mod:`.pose`: PoSE's training-time ids;
* :mod:`.measured`: llama.cpp's group attention as its keys are rotated, and as run.
"""

from __future__ import annotations

from . import choosing, dca, distances, measured, pose
from .common import (
    BATCH,
    CHUNK,
    CL_CHUNK,
    CL_LOCAL,
    GROUP,
    LEAKY,
    LLAMA2,
    LOCAL,
    LONG_BATCH,
    LONG_GROUP,
    LONG_PROMPT,
    LONG_WIDTH,
    POSE_DRAWS,
    POSE_TARGET,
    POSE_TRAIN,
    QUOTED,
    README_LENGTH,
    README_W_HIGH,
    README_W_LOW,
    REROPE_WINDOW,
    RR_FACTOR,
    RR_WINDOW,
    SE_GROUP,
    SE_WINDOW,
    SEQ_LEN,
    TRAIN,
    WINDOW,
)

__all__ = [
    "BATCH",
    "CHUNK",
    "CL_CHUNK",
    "CL_LOCAL",
    "GROUP",
    "LEAKY",
    "LLAMA2",
    "LOCAL",
    "LONG_BATCH",
    "LONG_GROUP",
    "LONG_PROMPT",
    "LONG_WIDTH",
    "POSE_DRAWS",
    "POSE_TARGET",
    "POSE_TRAIN",
    "QUOTED",
    "README_LENGTH",
    "README_W_HIGH",
    "README_W_LOW",
    "REROPE_WINDOW",
    "RR_FACTOR",
    "RR_WINDOW",
    "SEQ_LEN",
    "SE_GROUP",
    "SE_WINDOW",
    "TRAIN",
    "WINDOW",
    "choosing",
    "dca",
    "distances",
    "measured",
    "pose",
]
