"""Scaled dot-product self-attention in numpy, small enough to read.

The book uses it to show what attention does with and without position: on
its own it is permutation-equivariant (shuffle the tokens and the outputs are
shuffled the same way, nothing else changes).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int

__all__ = ["softmax", "self_attention", "attention_weights", "toy_embeddings"]


def _as_matrix(name: str, value, *, ndim_min: int = 2) -> np.ndarray:
    arr = np.asarray(value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim < ndim_min:
        raise ValueError(f"{name} must have at least {ndim_min} dimensions, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr.astype(np.float64, copy=False)


def softmax(scores, axis: int = -1) -> np.ndarray:
    """Softmax along ``axis``; ``-inf`` entries get weight 0.

    Subtracting the row maximum first changes nothing mathematically
    (softmax is invariant to adding a constant to a row) and avoids overflow.

    >>> softmax(np.array([0.0, np.log(3.0)])).tolist()
    [0.25, 0.75]
    """
    scores = np.asarray(scores, dtype=np.float64)
    if np.isnan(scores).any():
        raise ValueError("scores must not contain NaN")
    top = np.max(scores, axis=axis, keepdims=True)
    if not np.all(np.isfinite(top)):
        raise ValueError("every row of scores needs at least one finite entry")
    weights = np.exp(scores - top)
    return weights / weights.sum(axis=axis, keepdims=True)


def attention_weights(x, w_q, w_k, *, causal: bool = False) -> np.ndarray:
    """The (seq, seq) matrix softmax(Q Kᵀ / √d_k) for one head, Q = x W_q, K = x W_k."""
    x = _as_matrix("x", x)
    w_q, w_k = _as_matrix("w_q", w_q), _as_matrix("w_k", w_k)
    if w_q.shape != w_k.shape or w_q.shape[0] != x.shape[-1]:
        raise ValueError(
            f"w_q and w_k must both have shape (d_model={x.shape[-1]}, d_k), "
            f"got {w_q.shape} and {w_k.shape}"
        )
    q, k = x @ w_q, x @ w_k
    # scores = Q K^T / sqrt(d_k)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(w_k.shape[1])
    if causal:
        n = scores.shape[-1]
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
    return softmax(scores)


def self_attention(x, w_q, w_k, w_v, *, causal: bool = False) -> np.ndarray:
    """One head of self-attention: softmax(Q Kᵀ / √d_k) V for x of shape (..., seq, d_model).

    Examples
    --------
    Permuting the tokens permutes the outputs and changes nothing else:

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(3, 4))
    >>> w_q, w_k, w_v = rng.normal(size=(3, 4, 4))
    >>> order = [2, 0, 1]
    >>> out = self_attention(x, w_q, w_k, w_v)
    >>> bool(np.allclose(self_attention(x[order], w_q, w_k, w_v), out[order]))
    True
    """
    x = _as_matrix("x", x)
    w_v = _as_matrix("w_v", w_v)
    if w_v.shape[0] != x.shape[-1]:
        raise ValueError(f"w_v must have {x.shape[-1]} rows (d_model), got shape {w_v.shape}")
    return attention_weights(x, w_q, w_k, causal=causal) @ (x @ w_v)


def toy_embeddings(vocabulary, d_model, *, seed: int = 0, scale: float = 1.0) -> dict:
    """Random word vectors, N(0, scale²/d_model) per entry, one per word.

    Each vector then has expected squared norm ``scale²``. Deterministic for a seed.

    >>> emb = toy_embeddings(["dog", "bites", "man"], 4)
    >>> sorted(emb), emb["dog"].shape
    (['bites', 'dog', 'man'], (4,))
    """
    d_model = check_int("d_model", d_model, minimum=1)
    check_int("seed", seed, minimum=0)
    words = list(vocabulary)
    if not words or not all(isinstance(w, str) for w in words):
        raise TypeError("vocabulary must be a non-empty sequence of strings")
    if len(set(words)) != len(words):
        raise ValueError("vocabulary must not repeat a word")
    rng = np.random.default_rng(seed)
    vectors = rng.normal(0.0, scale / np.sqrt(d_model), size=(len(words), d_model))
    return dict(zip(words, vectors, strict=True))
