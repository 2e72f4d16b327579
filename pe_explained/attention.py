"""Scaled dot-product self-attention in numpy, small enough to read.

The book uses it to show what attention does with and without position: on
its own it is permutation-equivariant (shuffle the tokens and the outputs are
shuffled the same way, nothing else changes).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_float, check_int

__all__ = ["softmax", "self_attention", "attention_weights", "causal_mask", "toy_embeddings"]

#: Attention inputs: finite, non-empty, (seq, d) or a batch of them (numpy allows 64 axes).
_BATCHED = {"ndim": range(2, 65), "rule": "(..., seq, d), at least 2-D", "nonempty": True}


def causal_mask(seq_len) -> np.ndarray:
    """The (seq_len, seq_len) boolean mask of causal attention: query i sees keys j <= i.

    Scores where the mask is False are set to −inf before the softmax, so a token
    never attends to a later one.

    Examples
    --------
    >>> causal_mask(3).astype(int).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    # mask_ij = (j <= i)
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))


def softmax(scores, axis: int = -1) -> np.ndarray:
    """Softmax along ``axis``; ``-inf`` entries get weight 0.

    Subtracting the row maximum first changes nothing mathematically
    (softmax is invariant to adding a constant to a row) and avoids overflow.

    >>> softmax(np.array([0.0, np.log(3.0)])).tolist()
    [0.25, 0.75]
    """
    scores = check_array("scores", scores, finite=False)
    axis = check_int("axis", axis)
    if np.isnan(scores).any():
        raise ValueError("scores must not contain NaN")
    top = np.max(scores, axis=axis, keepdims=True)
    if not np.all(np.isfinite(top)):
        raise ValueError("every row of scores needs at least one finite entry")
    weights = np.exp(scores - top)
    return weights / weights.sum(axis=axis, keepdims=True)


def attention_weights(x, w_q, w_k, *, causal: bool = False) -> np.ndarray:
    """The (seq, seq) matrix softmax(Q Kᵀ / √d_k) for one head, Q = x W_q, K = x W_k."""
    x = check_array("x", x, **_BATCHED)
    w_q, w_k = (
        check_array("w_q", w_q, ndim=2, nonempty=True),
        check_array("w_k", w_k, ndim=2, nonempty=True),
    )
    causal = check_bool("causal", causal)
    if w_q.shape != w_k.shape or w_q.shape[0] != x.shape[-1]:
        raise ValueError(
            f"w_q and w_k must both have shape (d_model={x.shape[-1]}, d_k), "
            f"got {w_q.shape} and {w_k.shape}"
        )
    q, k = x @ w_q, x @ w_k
    # scores = Q K^T / sqrt(d_k)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(w_k.shape[1])
    if causal:
        scores = np.where(causal_mask(scores.shape[-1]), scores, -np.inf)
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
    x = check_array("x", x, **_BATCHED)
    w_v = check_array("w_v", w_v, ndim=2, nonempty=True)
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
    scale = check_float("scale", scale, greater_than=0.0)
    if isinstance(vocabulary, (str, bytes)):
        raise TypeError("vocabulary must be a non-empty sequence of strings, got one string")
    words = list(vocabulary)
    if not words or not all(isinstance(w, str) for w in words):
        raise TypeError("vocabulary must be a non-empty sequence of strings")
    if len(set(words)) != len(words):
        raise ValueError("vocabulary must not repeat a word")
    rng = np.random.default_rng(seed)
    vectors = rng.normal(0.0, scale / np.sqrt(d_model), size=(len(words), d_model))
    return dict(zip(words, vectors, strict=True))
