"""A tiny decoder-only transformer whose positional encoding is chosen by name.

Every positional quantity is computed by the numpy library ``pe_explained`` and then
turned into a tensor; this module only applies it:

============  ===========================================================================
name          what the model does with position
============  ===========================================================================
nope          nothing: causal attention alone (the mask is the only source of order)
learned       a trainable table of ``train_len`` rows added to the token embeddings;
              position ``p >= train_len`` reads row ``train_len − 1`` (clamped)
sinusoidal    ``pe_explained.sinusoidal(n, d_model)`` added to the token embeddings
rope          queries and keys rotated, "halves" layout, frequencies from
              ``pe_explained.rope_frequencies`` (base, scaling: see :class:`Rope`)
xpos          rope, then queries times ``pe_explained.xpos_scale`` and keys divided by
              it (torchscale's centred positions, ``pe_explained.xpos_centred_positions``)
alibi         logits plus ``−m_h (i − j)``, slopes ``pe_explained.alibi_slopes``
t5            logits plus a learned bias per head and bucket, buckets from
              ``pe_explained.t5_relative_bucket(j − i, bidirectional=False)``
============  ===========================================================================

The architecture: token embedding, ``layers`` pre-LayerNorm blocks (causal multi-head
attention, then a GELU MLP of width ``4 d_model``), a final LayerNorm and an untied
output projection.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

import pe_explained as pe

#: The encodings a model can use, in the order the results list them.
ENCODINGS = ("nope", "learned", "sinusoidal", "rope", "xpos", "alibi", "t5")


@dataclass(frozen=True)
class ModelConfig:
    """Shape of the model and the settings of its positional encoding."""

    encoding: str
    train_len: int
    vocab: int = 64
    d_model: int = 128
    heads: int = 4
    layers: int = 4
    #: RoPE and xPos: base of the frequency ladder.
    rope_base: float = 10000.0
    #: T5: number of buckets and the distance from which all keys share the last one.
    t5_buckets: int = 32
    t5_max_distance: int = 128
    #: xPos: ``scale_base`` as a multiple of ``train_len`` (the paper: 512 for 1024).
    xpos_scale_ratio: float = 0.5

    def __post_init__(self) -> None:
        if self.encoding not in ENCODINGS:
            raise ValueError(f"encoding must be one of {ENCODINGS}, got {self.encoding!r}")
        if self.d_model % self.heads or (self.d_model // self.heads) % 2:
            raise ValueError(
                f"d_model / heads must be an even integer, got {self.d_model} / {self.heads}"
            )

    @property
    def head_dim(self) -> int:
        """Width of one attention head, ``d_model / heads``."""
        return self.d_model // self.heads

    @property
    def xpos_scale_base(self) -> float:
        """xPos ``scale_base`` in positions: ``xpos_scale_ratio · train_len``."""
        return self.xpos_scale_ratio * self.train_len


@dataclass
class Rope:
    """The RoPE frequencies a model uses: ``base`` and a Hugging Face ``scaling`` dict.

    ``scaling`` is passed as is to ``pe_explained.rope_frequencies``; for
    ``"dynamic"`` the current sequence length is passed as ``seq_len``.
    """

    base: float = 10000.0
    scaling: dict | None = field(default=None)

    def key(self, length: int) -> str:
        """A cache key for the tables of ``length`` positions with these settings."""
        return json.dumps([self.base, self.scaling, length], sort_keys=True)

    def frequencies(self, head_dim: int, length: int) -> tuple[np.ndarray, float]:
        """``(inv_freq, attention_factor)`` from ``pe_explained.rope_frequencies``."""
        dynamic = bool(self.scaling) and self.scaling.get("rope_type") == "dynamic"
        return pe.rope_frequencies(
            head_dim,
            base=self.base,
            scaling=self.scaling,
            seq_len=length if dynamic else None,
        )


def rope_cos_sin(
    inv_freq: np.ndarray, attention_factor: float, length: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin tables of RoPE in the "halves" layout, times the attention factor.

    ``angle[p, i] = p · inv_freq[i]`` (float64), then
    ``cos = a · [cos(angle), cos(angle)]``, ``sin = a · [sin(angle), sin(angle)]``
    (pair ``i`` is columns ``i`` and ``i + head_dim/2``), shape (length, head_dim),
    float32.
    """
    angle = np.outer(np.arange(length, dtype=np.float64), np.asarray(inv_freq, np.float64))
    angle = np.concatenate([angle, angle], axis=-1)
    cos = torch.from_numpy(attention_factor * np.cos(angle)).float()
    sin = torch.from_numpy(attention_factor * np.sin(angle)).float()
    return cos, sin


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate every pair ``(x_i, x_{i+d/2})`` of the last axis: "halves" layout.

    ``R x = x · cos + [−x_2, x_1] · sin`` with ``x = [x_1, x_2]`` split in halves.
    """
    half = x.shape[-1] // 2
    turned = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + turned * sin


class Block(nn.Module):
    """One pre-LayerNorm decoder block: causal attention, then a GELU MLP."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d = config.d_model
        self.heads = config.heads
        self.norm1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.norm2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(
        self,
        x: torch.Tensor,
        bias: torch.Tensor | None,
        rotation: tuple[torch.Tensor, ...] | None,
    ) -> torch.Tensor:
        """``x + attn(norm(x))``, then ``+ mlp(norm(.))``; ``bias`` includes the causal mask."""
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        if rotation is not None:
            cos, sin, q_scale, k_scale = rotation
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
            if q_scale is not None:  # xPos: q · ζ^(n/s), k · ζ^(−m/s)
                q, k = q * q_scale, k * k_scale
        if bias is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.proj(out.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.norm2(x))


class TinyDecoder(nn.Module):
    """The decoder-only transformer of the experiments (see the module docstring).

    ``model.rope`` (a :class:`Rope`) may be replaced after training to try a
    context-extension method; the tables are rebuilt from the library on the next call.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        d = config.d_model
        self.embed = nn.Embedding(config.vocab, d)
        if config.encoding == "learned":
            self.position = nn.Embedding(config.train_len, d)
        if config.encoding == "t5":
            # One bias per bucket and head, shared by the layers (as T5 shares it).
            self.t5_bias = nn.Embedding(config.t5_buckets, config.heads)
            nn.init.zeros_(self.t5_bias.weight)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, config.vocab)
        self.rope = Rope(base=config.rope_base)
        self._cache: dict[tuple, object] = {}

    # Positional tables, computed by the library and cached per length --------------------

    def _cached(self, key: tuple, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    def sinusoidal_table(self, length: int) -> torch.Tensor:
        """``pe_explained.sinusoidal(length, d_model)`` as a float32 tensor."""
        return self._cached(
            ("sin", length),
            lambda: torch.from_numpy(pe.sinusoidal(length, self.config.d_model)).float(),
        )

    def alibi_bias(self, length: int) -> torch.Tensor:
        """ALiBi's bias plus the causal mask: ``−m_h (i − j)`` for ``j <= i``, ``−inf`` after.

        Shape (heads, length, length); slopes ``m_h`` from ``pe_explained.alibi_slopes``.
        """

        def make() -> torch.Tensor:
            slopes = pe.alibi_slopes(self.config.heads)
            i = np.arange(length)
            distance = (i[:, None] - i[None, :]).astype(np.float64)
            bias = -slopes[:, None, None] * distance[None]
            bias = np.where(distance[None] < 0, -np.inf, bias)
            return torch.from_numpy(bias).float()

        return self._cached(("alibi", length), make)

    def t5_buckets(self, length: int) -> torch.Tensor:
        """Bucket of every (query i, key j): ``t5_relative_bucket(j − i, bidirectional=False)``."""

        def make() -> torch.Tensor:
            i = np.arange(length)
            buckets = pe.t5_relative_bucket(
                i[None, :] - i[:, None],
                bidirectional=False,
                num_buckets=self.config.t5_buckets,
                max_distance=self.config.t5_max_distance,
            )
            return torch.from_numpy(buckets)

        return self._cached(("t5", length), make)

    def causal_mask(self, length: int) -> torch.Tensor:
        """0 where ``j <= i``, ``−inf`` where ``j > i``; shape (length, length)."""
        return self._cached(
            ("mask", length),
            lambda: torch.full((length, length), -math.inf).triu(1),
        )

    def rotation(self, length: int) -> tuple[torch.Tensor, ...]:
        """cos, sin (and xPos's query and key scales, else None) for ``length`` positions."""

        def make() -> tuple[torch.Tensor, ...]:
            c = self.config
            inv_freq, factor = self.rope.frequencies(c.head_dim, length)
            cos, sin = rope_cos_sin(inv_freq, factor, length)
            if c.encoding != "xpos":
                return cos, sin, None, None
            positions = pe.xpos_centred_positions(length)
            scale = pe.xpos_scale(
                c.head_dim, positions, scale_base=c.xpos_scale_base, layout="halves"
            )
            return cos, sin, torch.from_numpy(scale).float(), torch.from_numpy(1 / scale).float()

        return self._cached(("rope", self.rope.key(length)), make)

    # Forward ----------------------------------------------------------------------------

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits of the next token at every position; ``tokens`` has shape (batch, n)."""
        c = self.config
        n = tokens.shape[1]
        x = self.embed(tokens)
        if c.encoding == "learned":
            positions = torch.arange(n).clamp(max=c.train_len - 1)
            x = x + self.position(positions)
        elif c.encoding == "sinusoidal":
            x = x + self.sinusoidal_table(n)
        bias = None
        if c.encoding == "alibi":
            bias = self.alibi_bias(n)
        elif c.encoding == "t5":
            # (n, n, heads) -> (heads, n, n), plus the causal mask.
            bias = self.t5_bias(self.t5_buckets(n)).permute(2, 0, 1) + self.causal_mask(n)
        rotation = self.rotation(n) if c.encoding in ("rope", "xpos") else None
        for block in self.blocks:
            x = block(x, bias, rotation)
        return self.head(self.norm(x))


def parameter_count(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
