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
rope_nope     rope in three layers of four, no rotation in every fourth (Llama 4,
              SmolLM3): the layers of ``pe_explained.layer_positions`` for a SmolLM3
              config with ``no_rope_layer_interval = 4``
swa_nope      rope with a sliding window of ``window`` keys in three layers of four,
              full attention without rotation in every fourth (Command R7B, EXAONE 4):
              ``layer_positions`` of a Cohere 2 config, ``sliding_window_pattern = 4``
partial       rope on the first quarter of each head's dims, the rest not rotated
              (Qwen3-Next's ``partial_rotary_factor = 0.25``), its own ladder over them
p_rope        p-RoPE (Gemma 4): the ladder over the whole head, only its fastest
              quarter of pairs rotated (``rope_type: "proportional"``)
rope_1e6      rope with base 10⁶ instead of 10⁴
============  ===========================================================================

A RoPE model may also be given :attr:`TinyDecoder.remap` after training: attention
then scores each (query, key) pair with the positions of one of several *passes*
(Self-Extend, ReRoPE, Dual Chunk Attention; see ``experiments.remap``).

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
ENCODINGS = (
    "nope",
    "learned",
    "sinusoidal",
    "rope",
    "xpos",
    "alibi",
    "t5",
    "rope_nope",
    "swa_nope",
    "partial",
    "p_rope",
    "rope_1e6",
)
#: Encodings that rotate queries and keys (in some layers at least).
ROTARY = ("rope", "xpos", "rope_nope", "swa_nope", "partial", "p_rope", "rope_1e6")
#: Share of the head that ``partial`` and ``p_rope`` rotate.
ROTATED_SHARE = 0.25


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
    #: swa_nope: the sliding window of its rotary layers, as a share of ``train_len``.
    window_share: float = 0.25

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

    @property
    def window(self) -> int:
        """swa_nope's sliding window in keys: ``window_share · train_len``."""
        return max(1, int(self.window_share * self.train_len))

    def layer_config(self) -> dict:
        """The Hugging Face config whose layer pattern the model copies (rope_nope,
        swa_nope), or one with every layer alike."""
        config = {
            "num_hidden_layers": self.layers,
            "head_dim": self.head_dim,
            "rope_theta": self.rope_base,
        }
        if self.encoding == "rope_nope":
            return {"model_type": "smollm3", "no_rope_layer_interval": 4, **config}
        if self.encoding == "swa_nope":
            return {
                "model_type": "cohere2",
                "sliding_window_pattern": 4,
                "sliding_window": self.window,
                **config,
            }
        return {"model_type": "llama", **config}

    def layers_rotated(self) -> tuple[tuple[bool, int | None], ...]:
        """Per layer: whether it rotates, and its sliding window (None: full attention).

        From ``pe_explained.layer_positions(self.layer_config())`` for the
        interleaved encodings; every layer rotates for the other rotary encodings and
        none for the rest.
        """
        if self.encoding in ("rope_nope", "swa_nope"):
            return tuple(
                (p.source == "rotary", p.window) for p in pe.layer_positions(self.layer_config())
            )
        return ((self.encoding in ROTARY, None),) * self.layers

    def rope(self) -> Rope:
        """The RoPE settings the model trains with."""
        if self.encoding == "partial":
            return Rope(base=self.rope_base, partial_rotary_factor=ROTATED_SHARE)
        if self.encoding == "p_rope":
            scaling = {"rope_type": "proportional", "partial_rotary_factor": ROTATED_SHARE}
            return Rope(base=self.rope_base, scaling=scaling)
        if self.encoding == "rope_1e6":
            return Rope(base=1e6)
        return Rope(base=self.rope_base)


@dataclass
class Rope:
    """The RoPE frequencies a model uses: ``base`` and a Hugging Face ``scaling`` dict.

    ``scaling`` is passed as is to ``pe_explained.rope_frequencies``; for
    ``"dynamic"`` the current sequence length is passed as ``seq_len``.
    """

    base: float = 10000.0
    scaling: dict | None = field(default=None)
    #: Share of the head rotated (``partial_rotary_factor``); None: all of it.
    partial_rotary_factor: float | None = None

    def key(self, length: int) -> str:
        """A cache key for the tables of ``length`` positions with these settings."""
        return json.dumps(
            [self.base, self.scaling, self.partial_rotary_factor, length], sort_keys=True
        )

    def frequencies(self, head_dim: int, length: int) -> tuple[np.ndarray, float]:
        """``(inv_freq, attention_factor)`` from ``pe_explained.rope_frequencies``;
        ``inv_freq`` has one entry per rotated pair (the first ``2 · len(inv_freq)``
        dims of the head are rotated)."""
        dynamic = bool(self.scaling) and self.scaling.get("rope_type") == "dynamic"
        return pe.rope_frequencies(
            head_dim,
            base=self.base,
            scaling=self.scaling,
            seq_len=length if dynamic else None,
            partial_rotary_factor=self.partial_rotary_factor,
        )


def rope_cos_sin(
    inv_freq: np.ndarray, attention_factor: float, positions
) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin tables of RoPE in the "halves" layout, times the attention factor.

    ``positions`` is a length ``n`` (positions ``0 … n − 1``) or an array of positions.
    ``angle[p, i] = position_p · inv_freq[i]`` (float64), then
    ``cos = a · [cos(angle), cos(angle)]``, ``sin = a · [sin(angle), sin(angle)]``
    (pair ``i`` is columns ``i`` and ``i + len(inv_freq)``), shape
    (n, 2 · len(inv_freq)), float32.
    """
    if np.ndim(positions) == 0:
        positions = np.arange(positions, dtype=np.float64)
    angle = np.outer(np.asarray(positions, np.float64), np.asarray(inv_freq, np.float64))
    angle = np.concatenate([angle, angle], axis=-1)
    cos = torch.from_numpy(attention_factor * np.cos(angle)).float()
    sin = torch.from_numpy(attention_factor * np.sin(angle)).float()
    return cos, sin


def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate every pair ``(x_i, x_{i+r/2})`` of the first ``r = cos.shape[-1]`` dims of
    the last axis ("halves" layout); the dims after them pass unchanged.

    ``R x = x · cos + [−x_2, x_1] · sin`` with ``x = [x_1, x_2]`` split in halves.
    """
    rotated = cos.shape[-1]
    if rotated < x.shape[-1]:
        return torch.cat([rotate(x[..., :rotated], cos, sin), x[..., rotated:]], dim=-1)
    half = rotated // 2
    turned = torch.cat([-x[..., half:], x[..., :half]], dim=-1)
    return x * cos + turned * sin


@dataclass
class Attention:
    """What one layer's attention needs at one sequence length.

    ``rotation``: cos, sin, and xPos's query and key scales (else None), or None for a
    layer that does not rotate. ``bias``: added to the logits, causal mask included
    (None: plain causal attention). ``passes``: for a remapped RoPE model, a list of
    ``(cos_q, sin_q, cos_k, sin_k, region)``; the logit of query ``i`` and key ``j`` is
    taken from the pass whose ``region[i, j]`` is true, and keys in no region are masked.
    """

    rotation: tuple | None = None
    bias: torch.Tensor | None = None
    passes: list | None = None


def remapped_attention(q, k, v, passes) -> torch.Tensor:
    """Attention whose logits come from several rotations of the queries and keys.

    For pass ``(cos_q, sin_q, cos_k, sin_k, region)`` the logits are
    ``rotate(q, cos_q, sin_q) · rotate(k, cos_k, sin_k) / √d`` where ``region`` holds;
    the regions do not overlap, and their union is the causal triangle.
    """
    scale = 1.0 / math.sqrt(q.shape[-1])
    logits = None
    for cos_q, sin_q, cos_k, sin_k, region in passes:
        scores = rotate(q, cos_q, sin_q) @ rotate(k, cos_k, sin_k).transpose(-1, -2) * scale
        logits = torch.where(region, scores, -math.inf if logits is None else logits)
    return torch.softmax(logits, dim=-1) @ v


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

    def forward(self, x: torch.Tensor, attention: Attention) -> torch.Tensor:
        """``x + attn(norm(x))``, then ``+ mlp(norm(.))``."""
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (t.view(b, n, self.heads, -1).transpose(1, 2) for t in (q, k, v))
        if attention.passes is not None:
            out = remapped_attention(q, k, v, attention.passes)
        else:
            if attention.rotation is not None:
                cos, sin, q_scale, k_scale = attention.rotation
                q, k = rotate(q, cos, sin), rotate(k, cos, sin)
                if q_scale is not None:  # xPos: q · ζ^(n/s), k · ζ^(−m/s)
                    q, k = q * q_scale, k * k_scale
            if attention.bias is None:
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention.bias)
        x = x + self.proj(out.transpose(1, 2).reshape(b, n, d))
        return x + self.mlp(self.norm2(x))


class TinyDecoder(nn.Module):
    """The decoder-only transformer of the experiments (see the module docstring).

    ``model.rope`` (a :class:`Rope`) may be replaced after training to try a
    context-extension method, and ``model.remap`` set to an object with a
    ``passes(length)`` method (``experiments.remap``) to remap positions; the tables are
    rebuilt from the library on the next call.
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
        self.rope = config.rope()
        self.remap = None
        self.layer_plan = config.layers_rotated()
        self._cache: dict[tuple, object] = {}

    # Positional tables, computed by the library and cached per length --------------------

    @property
    def device(self) -> torch.device:
        """Where the model's weights are (the tables are built there)."""
        return self.embed.weight.device

    def _cached(self, key: tuple, make):
        """``make()`` once per ``key``, its tensors moved to the model's device."""
        if key not in self._cache:
            self._cache[key] = _to(make(), self.device)
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

    def causal_mask(self, length: int, window: int | None = None) -> torch.Tensor:
        """0 where key ``j`` is visible to query ``i`` (``i − window < j <= i``; any
        ``j <= i`` without a window), ``−inf`` elsewhere; shape (length, length)."""

        def make() -> torch.Tensor:
            i = np.arange(length)
            d = i[:, None] - i[None, :]
            visible = (d >= 0) & (d < (window if window is not None else length + 1))
            return torch.from_numpy(np.where(visible, 0.0, -np.inf)).float()

        return self._cached(("mask", length, window), make)

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

    def remapped(self, length: int) -> list:
        """The passes of :attr:`remap` at ``length``: rotations of the queries and of the
        keys at each pass's positions, and the pass's region (causal by construction)."""

        def make() -> list:
            inv_freq, factor = self.rope.frequencies(self.config.head_dim, length)
            out = []
            for query, key, region in self.remap.passes(length):
                cos_q, sin_q = rope_cos_sin(inv_freq, factor, query)
                cos_k, sin_k = rope_cos_sin(inv_freq, factor, key)
                out.append((cos_q, sin_q, cos_k, sin_k, torch.from_numpy(region)))
            return out

        return self._cached(("remap", repr(self.remap), self.rope.key(length)), make)

    def attention(self, layer: int, length: int, t5_bias: torch.Tensor | None = None) -> Attention:
        """What layer ``layer`` attends with at ``length`` tokens (``t5_bias``: T5's
        bias of this call, shared by the layers)."""
        rotates, window = self.layer_plan[layer]
        c = self.config
        if rotates and self.remap is not None:
            return Attention(passes=self.remapped(length))
        rotation = self.rotation(length) if rotates else None
        if c.encoding == "alibi":
            return Attention(bias=self.alibi_bias(length))
        if c.encoding == "t5":
            return Attention(bias=t5_bias)
        if window is not None and window < length:
            return Attention(rotation=rotation, bias=self.causal_mask(length, window))
        return Attention(rotation=rotation)

    # Forward ----------------------------------------------------------------------------

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits of the next token at every position; ``tokens`` has shape (batch, n)."""
        c = self.config
        tokens = tokens.to(self.device)
        n = tokens.shape[1]
        x = self.embed(tokens)
        if c.encoding == "learned":
            positions = torch.arange(n, device=self.device).clamp(max=c.train_len - 1)
            x = x + self.position(positions)
        elif c.encoding == "sinusoidal":
            x = x + self.sinusoidal_table(n)
        t5_bias = None
        if c.encoding == "t5":
            # (n, n, heads) -> (heads, n, n), plus the causal mask.
            t5_bias = self.t5_bias(self.t5_buckets(n)).permute(2, 0, 1) + self.causal_mask(n)
        for layer, block in enumerate(self.blocks):
            x = block(x, self.attention(layer, n, t5_bias))
        return self.head(self.norm(x))


def _to(value, device: torch.device):
    """``value`` with every tensor in it (tuples and lists included) moved to ``device``."""
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple | list):
        return type(value)(_to(v, device) for v in value)
    return value


def parameter_count(model: nn.Module) -> int:
    """Number of trainable parameters."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
