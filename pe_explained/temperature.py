"""Attention temperature that grows with position: the query multiplier of Llama 4 and Ministral 3.

Some 2025 models multiply every query by a factor that grows, in steps, with the
query's position, so that softmax stays sharp when thousands more keys compete
for attention (the idea of scalable softmax, Nakanishi 2025, whose score scale
grows with ``log n``):

* **Llama 4** applies it on its NoPE layers only (``attn_temperature_tuning``,
  with ``attn_scale`` = 0.1 and ``floor_scale`` = 8192 in its configs):
  ``τ(p) = 1 + attn_scale · ln(1 + ⌊(p + 1) / floor_scale⌋)``;
* **Ministral 3** (and Mistral's later models) on every layer, with
  ``llama_4_scaling_beta`` and the pre-training context inside
  ``rope_parameters``: ``τ(p) = 1 + β · ln(1 + ⌊p / original_max_position_embeddings⌋)``.

Both are :func:`attention_temperature` with ``offset`` 1 and 0. The factor is
exactly 1 for every position before the first step (``floor_scale − 1`` for
Llama 4), so a model evaluated on short inputs never sees it.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_float, check_int, check_positions

__all__ = ["attention_temperature"]


def attention_temperature(positions, *, beta, floor_scale, offset=0) -> np.ndarray:
    """The factor each query is multiplied by at its position.

    ``τ(p) = 1 + β · ln(1 + ⌊(p + offset) / floor_scale⌋)``

    Parameters
    ----------
    positions : int or array_like, shape (seq,)
        Positions of the queries (an int ``n`` means ``0 … n−1``); whole numbers ≥ 0.
    beta : float
        Strength (Llama 4: ``attn_scale``; Ministral 3: ``llama_4_scaling_beta``); ≥ 0.
    floor_scale : int
        Length of one step, in positions (Llama 4: ``floor_scale``; Ministral 3:
        ``original_max_position_embeddings``); ≥ 1.
    offset : int, optional
        Added to the position before the division: 1 in Llama 4's code (its step
        comes one position earlier), 0 in Ministral 3's.

    Returns
    -------
    ndarray, shape (seq,), float64
        The multipliers; 1 until ``p + offset`` reaches ``floor_scale``.

    References
    ----------
    Hugging Face ``transformers``: ``Llama4TextAttention.forward`` and
    ``get_llama_4_attn_scale`` (``modeling_ministral3.py``); Nakanishi (2025),
    "Scalable-Softmax Is Superior for Attention", arXiv:2501.19399.

    Examples
    --------
    >>> attention_temperature([0, 8190, 8191, 16383, 10**6], beta=0.1, floor_scale=8192, offset=1)
    array([1.        , 1.        , 1.06931472, 1.10986123, 1.48121844])
    """
    pos = check_positions("positions", positions)
    if pos.dtype.kind == "f" and pos.size:
        raise ValueError(f"positions must be whole numbers, got {pos[pos % 1 != 0][0]}")
    beta = check_float("beta", beta, at_least=0.0)
    floor_scale = check_int("floor_scale", floor_scale, minimum=1)
    offset = check_int("offset", offset, minimum=0)
    # ⌊(p + offset) / F⌋ = ⌊p / F⌋ + ⌊(p mod F + offset) / F⌋: exact, and p + offset never overflows
    pos = pos.astype(np.int64)  # an empty list arrives as float64
    steps = pos // floor_scale + (pos % floor_scale + offset) // floor_scale
    return 1.0 + beta * np.log1p(steps.astype(np.float64))
