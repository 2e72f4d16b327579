"""What sizes a run: the two presets (the CPU miniature and the larger scale), their
quick forms for CI, and the context-extension methods built from a preset.

``MINI`` is the miniature a reader reruns on a laptop (``python3 scripts/book.py
experiments``); ``LARGE`` is the scale at which the book's claims are checked
(``--preset large``, minutes on one GPU, hours on a CPU). ``quick(preset)`` shrinks
either to seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import pe_explained as pe

from .model import ENCODINGS, ModelConfig, Rope
from .remap import DualChunk, ReRoPE, SelfExtend
from .train import TrainConfig

#: Context-extension methods that change the frequencies (zero-shot, then fine-tuned).
FREQUENCY_METHODS = ("rope", "pi", "ntk", "dynamic", "yarn")
#: Context-extension methods that remap positions (zero-shot only, as they are used).
REMAP_METHODS = ("self_extend", "rerope", "dual_chunk")


@dataclass(frozen=True)
class Settings:
    """Everything that sizes a run; see :data:`PRESETS`."""

    train_len: int
    factors: tuple[int, ...]
    seeds: tuple[int, ...]
    d_model: int
    layers: int
    heads: int
    steps: int
    batch: int
    lr: float
    #: Evaluation documents per seed: rows, each ``2 · max(eval_lens)`` tokens long (plus one).
    eval_rows: int
    #: Bins of the loss-by-position curves.
    bins: int
    #: Sliding window: stride as a fraction of the window.
    stride_share: float
    depths: tuple[float, ...]
    #: Passkey documents per seed, length and depth.
    passkey_samples: int
    #: Context extension: stretch factor, fine-tune steps and batch (rows).
    extension_factor: int
    finetune_steps: int
    finetune_batch: int
    finetune_lr: float
    #: Training objective: share of each batch made of passkey documents, and the
    #: weight of the passkey answers' loss beside the language loss (``train``).
    passkey_share: float = 0.25
    answer_weight: float = 1.0
    encodings: tuple[str, ...] = ENCODINGS
    extension_methods: tuple[str, ...] = FREQUENCY_METHODS + REMAP_METHODS
    #: Tokens per evaluation batch.
    eval_batch_tokens: int = 8192

    @property
    def eval_lens(self) -> list[int]:
        """Evaluation lengths: ``factor · train_len`` for every factor."""
        return [f * self.train_len for f in self.factors]

    @property
    def head_dim(self) -> int:
        """Width of one attention head."""
        return self.d_model // self.heads

    def model_config(self, encoding: str) -> ModelConfig:
        """The model of ``encoding`` at these settings."""
        return ModelConfig(
            encoding=encoding,
            train_len=self.train_len,
            d_model=self.d_model,
            layers=self.layers,
            heads=self.heads,
        )

    def train_config(self) -> TrainConfig:
        """Training at ``train_len``."""
        return TrainConfig(
            steps=self.steps,
            batch=self.batch,
            length=self.train_len,
            lr=self.lr,
            passkey_share=self.passkey_share,
            answer_weight=self.answer_weight,
        )

    def finetune_config(self) -> TrainConfig:
        """The fine-tune of the context-extension experiment, at ``factor · train_len``."""
        return TrainConfig(
            steps=self.finetune_steps,
            batch=self.finetune_batch,
            length=self.extension_factor * self.train_len,
            lr=self.finetune_lr,
            warmup=max(1, self.finetune_steps // 10),
            passkey_share=self.passkey_share,
            answer_weight=self.answer_weight,
        )


#: The miniature: what the book's chapter shows beside the larger scale, and what a
#: reader reruns on a laptop.
MINI = Settings(
    train_len=64,
    factors=(1, 2, 4, 8, 16),
    seeds=(0, 1, 2),
    d_model=128,
    layers=4,
    heads=4,
    steps=200,
    batch=32,
    lr=3e-3,
    eval_rows=8,
    bins=16,
    stride_share=0.25,
    depths=(0.1, 0.3, 0.5, 0.7, 0.9),
    passkey_samples=40,
    extension_factor=4,
    finetune_steps=40,
    finetune_batch=8,
    finetune_lr=1e-3,
)

#: The larger scale: 4× the training length and the width, 6 layers, 6× the steps.
LARGE = replace(
    MINI,
    train_len=256,
    d_model=256,
    layers=6,
    heads=8,
    steps=1200,
    finetune_steps=120,
    eval_batch_tokens=16384,
)

PRESETS = {"mini": MINI, "large": LARGE}


def quick(settings: Settings) -> Settings:
    """A miniature of ``settings`` that runs in seconds on a CPU (for CI), keeping its
    layer count's pattern (the interleaved encodings need four layers)."""
    return replace(
        settings,
        train_len=32,
        factors=(1, 2, 4),
        d_model=32,
        layers=4,
        heads=2,
        steps=12,
        batch=8,
        eval_rows=2,
        bins=4,
        depths=(0.2, 0.8),
        passkey_samples=4,
        extension_factor=2,
        finetune_steps=4,
        finetune_batch=4,
        eval_batch_tokens=4096,
    )


# Context-extension methods -----------------------------------------------------------


def extension_rope(method: str, settings: Settings, base: float) -> Rope:
    """The RoPE settings of a context-extension ``method`` for factor ``f`` and length ``L``.

    ``rope``: unchanged. ``pi``: ``{"rope_type": "linear", "factor": f}`` (every
    frequency divided by ``f``). ``ntk``: a new base ``pe_explained.ntk_aware_base(base,
    f, head_dim) = base · f^(d/(d−2))``. ``dynamic``: ``{"rope_type": "dynamic",
    "factor": f, "original_max_position_embeddings": L}``, recomputed for every length.
    ``yarn``: ``{"rope_type": "yarn", "factor": f, "original_max_position_embeddings":
    L}``, whose attention factor multiplies cos and sin. The remapping methods keep the
    frequencies: see :func:`extension_remap`.
    """
    f = float(settings.extension_factor)
    length = settings.train_len
    if method == "rope" or method in REMAP_METHODS:
        return Rope(base=base)
    if method == "pi":
        return Rope(base=base, scaling={"rope_type": "linear", "factor": f})
    if method == "ntk":
        return Rope(base=pe.ntk_aware_base(base, f, settings.head_dim))
    if method in ("dynamic", "yarn"):
        scaling = {"rope_type": method, "factor": f, "original_max_position_embeddings": length}
        return Rope(base=base, scaling=scaling)
    raise ValueError(
        f"method must be one of {', '.join(FREQUENCY_METHODS + REMAP_METHODS)}; got {method!r}"
    )


def extension_remap(method: str, settings: Settings):
    """The remapping of ``method`` for a model trained at ``L = train_len``, stretched to
    ``f · L``, or None for the frequency methods.

    ``self_extend``: neighbour window ``w = L/4`` and the smallest group size that keeps
    the distances of ``f · L`` tokens within ``L`` (``pe_explained.self_extend_group_size``).
    ``rerope``: window ``L/2``. ``dual_chunk``: ChunkLlama's own setting,
    ``chunk_size = 3L/4`` and ``local_size = L/8``.
    """
    length = settings.train_len
    if method == "self_extend":
        window = length // 4
        group, _ = pe.self_extend_group_size(settings.extension_factor * length, length, window)
        return SelfExtend(group_size=group, window=window)
    if method == "rerope":
        return ReRoPE(window=length // 2)
    if method == "dual_chunk":
        return DualChunk(chunk_size=3 * length // 4, local_size=max(1, length // 8))
    if method in FREQUENCY_METHODS:
        return None
    raise ValueError(
        f"method must be one of {', '.join(FREQUENCY_METHODS + REMAP_METHODS)}; got {method!r}"
    )


def passkey_standard_error(settings: Settings, share: float = 0.5) -> float:
    """The standard error of one passkey cell (a length and a depth, every seed's
    documents together) at accuracy ``share``: ``√(p (1 − p) / (seeds · samples))``."""
    return math.sqrt(share * (1 - share) / (len(settings.seeds) * settings.passkey_samples))
