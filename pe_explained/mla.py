"""Decoupled RoPE in multi-head latent attention (MLA): DeepSeek-V2 and V3.

MLA stores one compressed latent per token instead of every head's key and value
(and, beside it, the small rotated key below: :func:`mla_cache_size`), and rebuilds
keys from it with a matrix that can be folded into the queries at
inference. A rotation between them would block that folding (``R(m)`` sits between
the two matrices and changes with the position), so DeepSeek-V2 keeps position
out of the latent path and gives it a separate, small part of every head
(DeepSeek-AI 2024, section 2.1.3):

* each query head is ``[q_nope ; q_rope]`` with ``qk_nope_head_dim`` and
  ``qk_rope_head_dim`` dimensions (128 and 64 in DeepSeek-V2 and V3);
* each key head is ``[k_nope ; k_rope]`` where ``k_rope`` is **one** vector per
  token, shared by every head, and only ``q_rope`` and ``k_rope`` are rotated;
* the score is ``scale · (q_nopeᵀ k_nope + (R(m) q_rope)ᵀ (R(n) k_rope))``,
  whose positional part depends on ``m − n`` only, as in RoPE.

The released configs pair the rotated dimensions interleaved (``2j``, ``2j + 1``);
Hugging Face's code (``rope_interleave``, true by default) rotates the even and
odd slices and writes them back as halves, the same for queries and keys, so the
scores are those of the interleaved rotation. With YaRN the configs also set
``mscale_all_dim``, which changes the softmax scale (:func:`mla_softmax_scale`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ._checks import check_array, check_choice, check_float, check_int, check_optional
from .rope import LAYOUTS, _yarn_mscale, apply_rope

__all__ = ["mla_cache_size", "mla_scores", "mla_softmax_scale"]


def mla_cache_size(kv_lora_rank, qk_rope_head_dim, *, num_layers=1) -> int:
    """How many numbers MLA's KV cache holds per token: the latent and the shared rotated key.

    ``(d_c + d_h^R) · l``: each layer caches the compressed latent ``c^KV`` of
    ``d_c`` = ``kv_lora_rank`` entries, from which every head's keys and values are
    rebuilt, *and* the decoupled rotated key ``k^R`` of ``d_h^R`` =
    ``qk_rope_head_dim`` entries, one per token shared by all heads, which no
    up-projection can rebuild because it is rotated by the token's position.

    Parameters
    ----------
    kv_lora_rank : int
        ``d_c``, the latent's width; >= 1.
    qk_rope_head_dim : int
        ``d_h^R``, the rotated key's width; >= 2.
    num_layers : int, optional
        ``l``, the number of layers; >= 1.

    Returns
    -------
    int

    References
    ----------
    DeepSeek-AI (2024), "DeepSeek-V2", section 2.1.3 and Table 1 (MLA:
    ``(d_c + d_h^R) l ≈ 9/2 d_h l`` with ``d_c = 4 d_h`` and ``d_h^R = d_h / 2``).

    Examples
    --------
    >>> mla_cache_size(512, 64)                  # DeepSeek-V2 and V3, one layer
    576
    >>> mla_cache_size(512, 64, num_layers=61)   # DeepSeek-V3's 61 layers
    35136
    """
    kv_lora_rank = check_int("kv_lora_rank", kv_lora_rank, minimum=1)
    qk_rope_head_dim = check_int("qk_rope_head_dim", qk_rope_head_dim, minimum=2)
    num_layers = check_int("num_layers", num_layers, minimum=1)
    # (d_c + d_h^R) · l
    return (kv_lora_rank + qk_rope_head_dim) * num_layers


def mla_softmax_scale(qk_nope_head_dim, qk_rope_head_dim, *, scaling=None) -> float:
    """The factor MLA multiplies its query–key scores by before softmax.

    ``1 / sqrt(qk_nope_head_dim + qk_rope_head_dim)``, times ``mscale(s, m)²``
    when the RoPE dict names a scaling method with a non-zero ``mscale_all_dim``
    ``m`` and a ``factor`` ``s``, where ``mscale(s, m) = 0.1 · m · ln s + 1`` for
    ``s > 1`` and 1 otherwise (YaRN's attention factor, Peng et al. 2023, eq. 22).

    With YaRN the configs set ``mscale`` = ``mscale_all_dim`` (both 1.0 in
    DeepSeek-V3), so the rotary embedding's own attention factor,
    ``mscale(s, mscale) / mscale(s, mscale_all_dim)``, is 1 and the whole
    temperature correction moves into this scale, where it reaches the
    unrotated ``q_nope``·``k_nope`` part too.

    Parameters
    ----------
    qk_nope_head_dim, qk_rope_head_dim : int
        Dimensions of the unrotated and the rotated part of each query–key head; ≥ 0 and ≥ 2.
    scaling : mapping, optional
        The config's ``rope_scaling`` (or ``rope_parameters``) dict; ``None`` or
        ``rope_type`` ``"default"`` for no correction.

    Returns
    -------
    float

    References
    ----------
    DeepSeek-AI (2024), "DeepSeek-V2", section 2.1.3; Hugging Face ``transformers``,
    ``yarn_apply_mscale`` and ``DeepseekV3Attention`` (``modeling_deepseek_v3.py``).

    Examples
    --------
    >>> v3 = {"rope_type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
    ...       "original_max_position_embeddings": 4096}
    >>> round(mla_softmax_scale(128, 64), 6), round(mla_softmax_scale(128, 64, scaling=v3), 6)
    (0.072169, 0.135234)
    """
    nope = check_int("qk_nope_head_dim", qk_nope_head_dim, minimum=0)
    rope = check_int("qk_rope_head_dim", qk_rope_head_dim, minimum=2)
    scale = 1.0 / np.sqrt(nope + rope)
    if scaling is None:
        return float(scale)
    if not isinstance(scaling, Mapping):
        raise TypeError(f"scaling must be a dict or None, got {type(scaling).__name__}")
    rope_type = scaling.get("rope_type", scaling.get("type", "default"))
    if rope_type == "default" or not scaling.get("mscale_all_dim"):
        return float(scale)
    if scaling.get("factor") is None:
        raise ValueError("scaling['factor'] is needed with scaling['mscale_all_dim']")
    factor = check_float("scaling['factor']", scaling["factor"], greater_than=0.0)
    all_dim = check_float("scaling['mscale_all_dim']", scaling["mscale_all_dim"])
    return float(scale * _yarn_mscale(factor, all_dim) ** 2)


def mla_scores(
    q,
    k_nope,
    k_rope,
    positions,
    inv_freq,
    *,
    layout="interleaved",
    attention_factor=1.0,
    softmax_scale=None,
) -> np.ndarray:
    """Query–key scores of MLA with decoupled RoPE, before the mask and softmax.

    ``S[h, m, n] = scale · (q_nope[h, m] · k_nope[h, n] + R(m) q_rope[h, m] · R(n) k_rope[n])``

    Parameters
    ----------
    q : ndarray, shape (heads, seq, qk_nope_head_dim + qk_rope_head_dim)
        Queries, the unrotated part first (the order of DeepSeek's code).
    k_nope : ndarray, shape (heads, seq, qk_nope_head_dim)
        The keys' per-head, unrotated part (rebuilt from the latent).
    k_rope : ndarray, shape (seq, qk_rope_head_dim)
        The rotated key part: one vector per token, shared by every head.
    positions : int or array_like, shape (seq,)
        Positions of the tokens (queries and keys alike).
    inv_freq : array_like, shape (qk_rope_head_dim // 2,)
        Frequencies of the rotated pairs (e.g. from :func:`~pe_explained.rope_frequencies`
        with ``head_dim = qk_rope_head_dim``).
    layout : {"interleaved", "halves"}, optional
        Pairing of the rotated dimensions; DeepSeek's released weights are interleaved.
    attention_factor : float, optional
        The multiplier on cos and sin (YaRN's; 1 for DeepSeek-V3's settings).
    softmax_scale : float, optional
        Default ``1 / sqrt(qk_nope_head_dim + qk_rope_head_dim)``; pass
        :func:`mla_softmax_scale` for a config with ``mscale_all_dim``.

    Returns
    -------
    ndarray, shape (heads, seq, seq), float64

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k_nope = rng.normal(size=(2, 5, 6)), rng.normal(size=(2, 5, 2))
    >>> k_rope = rng.normal(size=(5, 4))            # one rotated key per token, all heads
    >>> inv_freq = np.array([1.0, 0.1])
    >>> s = mla_scores(q, k_nope, k_rope, 5, inv_freq)
    >>> shifted = mla_scores(q, k_nope, k_rope, np.arange(5) + 100, inv_freq)
    >>> s.shape, bool(np.allclose(s, shifted))          # only m − n matters
    ((2, 5, 5), True)
    """
    q = check_array("q", q, kind="float", ndim=3, rule="(heads, seq, head_dim)")
    k_nope = check_array("k_nope", k_nope, kind="float", ndim=3, rule="(heads, seq, d_nope)")
    k_rope = check_array("k_rope", k_rope, kind="float", ndim=2, rule="(seq, d_rope)")
    heads, seq, width = q.shape
    if k_nope.shape[:2] != (heads, seq):
        raise ValueError(
            f"k_nope must have shape (heads, seq, qk_nope_head_dim) with (heads, seq) = "
            f"{(heads, seq)} as in q, got {k_nope.shape}"
        )
    if k_rope.shape[0] != seq:
        raise ValueError(f"k_rope must have seq = {seq} rows as q has, got {k_rope.shape[0]}")
    nope, rope = k_nope.shape[2], k_rope.shape[1]
    if rope == 0 or rope % 2:
        raise ValueError(f"k_rope's last axis (qk_rope_head_dim) must be even and > 0, got {rope}")
    if width != nope + rope:
        raise ValueError(
            f"q's last axis must be qk_nope_head_dim + qk_rope_head_dim = {nope} + {rope}, "
            f"got {width}"
        )
    if heads == 0 or seq == 0:
        raise ValueError(f"q must hold at least one head and one position, got shape {q.shape}")
    layout = check_choice("layout", layout, LAYOUTS)
    softmax_scale = check_optional(check_float, "softmax_scale", softmax_scale, greater_than=0.0)
    if softmax_scale is None:
        softmax_scale = 1.0 / np.sqrt(nope + rope)
    q64, k_rope64 = q.astype(np.float64), k_rope.astype(np.float64)
    # R(m) q_rope for every head, R(n) k_rope once: the key's rotated part is shared
    q_rot = apply_rope(
        q64[..., nope:], positions, inv_freq, layout=layout, attention_factor=attention_factor
    )
    k_rot = apply_rope(
        k_rope64, positions, inv_freq, layout=layout, attention_factor=attention_factor
    )
    content = q64[..., :nope] @ k_nope.astype(np.float64).transpose(0, 2, 1)
    position = q_rot @ k_rot.T  # (heads, seq, d_rope) @ (d_rope, seq)
    return softmax_scale * (content + position)
