"""CoPE: contextual position encoding (Golovneva et al., 2024).

A relative position counts tokens. CoPE lets the model choose *which* tokens to count:
every key gets a gate from the query, and a key's position is the sum of the gates
from it up to the query::

    g_ij = σ(q_i · k_j)                      (0 < g < 1)
    p_ij = Σ_{t = j … i} g_it                (j <= i; a fractional position)

With every gate 1 this is ``i − j + 1``, an ordinary relative position (counted
from 1); with gates open only on, say, the last token of each sentence it counts
sentences. A fractional position reads a table of learned vectors ``e[0 … P−1]``
(the paper's letter; the book writes φ, keeping e for a token's embedding) by linear
interpolation, and the term added to the score is ``q_i · e[p_ij]``, computed as the
paper's code does, by interpolating the products ``z_i[p] = q_i · e[p]`` (the same
number, since the dot product is linear)::

    q_i · e[p] = (p − ⌊p⌋) · z_i[⌈p⌉] + (1 − p + ⌊p⌋) · z_i[⌊p⌋],    p clipped to P − 1

The position depends on the content between key and query, not on the offset alone:
keys at different offsets can share a position, and one offset can give different
positions.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array

__all__ = ["cope_bias", "cope_positions"]


def cope_positions(gate_logits) -> np.ndarray:
    """CoPE's contextual positions ``p_ij = Σ_{t=j…i} σ(z_it)`` under a causal mask.

    Parameters
    ----------
    gate_logits : array_like, shape (..., seq, seq)
        ``z_ij``, the query–key products the gates are computed from (the paper's
        code uses the attention logits, already divided by ``sqrt(head_dim)``).

    Returns
    -------
    ndarray of float64, shape (..., seq, seq)
        ``p_ij`` for keys at or before the query; 0 for keys after it, whose gates
        the causal mask closes.

    References
    ----------
    Golovneva, Wang, Weston and Sukhbaatar, "Contextual Position Encoding: Learning
    to Count What's Important", arXiv:2405.18719 (2024), section 3 and its code
    (``gates.flip(-1).cumsum(-1).flip(-1)`` after the mask).

    Examples
    --------
    >>> cope_positions(np.full((3, 3), 50.0)).round(6).tolist()   # every gate 1
    [[1.0, 0.0, 0.0], [2.0, 1.0, 0.0], [3.0, 2.0, 1.0]]
    >>> cope_positions(np.zeros((3, 3)))[2].tolist()               # every gate 1/2
    [1.5, 1.0, 0.5]
    """
    z = check_array("gate_logits", gate_logits, ndim=tuple(range(2, 33)), rule="at least 2-D")
    seq = z.shape[-1]
    if z.shape[-2] != seq:
        raise ValueError(f"gate_logits must be square in its last two axes, got {z.shape}")
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    gates = np.where(causal, 0.5 + 0.5 * np.tanh(0.5 * z), 0.0)  # g_ij = σ(z_ij), 0 after i
    # p_ij = Σ_{t ≥ j} g_it: a cumulative sum from the right
    return np.flip(np.cumsum(np.flip(gates, -1), axis=-1), -1)


def cope_bias(queries, positions, position_embeddings) -> np.ndarray:
    """The term CoPE adds to every score: ``q_i · e[p_ij]``, ``e`` interpolated.

    Parameters
    ----------
    queries : array_like, shape (..., seq, head_dim)
        ``q_i``.
    positions : array_like, shape (..., seq, seq)
        ``p_ij`` >= 0 (from :func:`cope_positions`); clipped to ``P − 1``.
    position_embeddings : array_like, shape (P, head_dim)
        ``e[0] … e[P − 1]``, one learned vector per whole position.

    Returns
    -------
    ndarray of float64, shape (..., seq, seq)

    Examples
    --------
    >>> e = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])    # P = 3, head_dim 2
    >>> q = np.array([[2.0, 4.0]])                            # q · e = 0, 2, 6
    >>> cope_bias(q, [[0.5]], e).tolist(), cope_bias(q, [[1.25]], e).tolist()
    ([[1.0]], [[3.0]])
    >>> cope_bias(q, [[7.0]], e).tolist()                      # clipped to P − 1 = 2
    [[6.0]]
    """
    q = check_array("queries", queries, ndim=tuple(range(2, 33)), rule="at least 2-D")
    p = check_array("positions", positions, ndim=tuple(range(2, 33)), rule="at least 2-D")
    e = check_array("position_embeddings", position_embeddings, ndim=2, nonempty=True)
    if np.any(p < 0):
        raise ValueError("positions must be >= 0 (CoPE positions are sums of gates)")
    if e.shape[1] != q.shape[-1]:
        raise ValueError(
            f"position_embeddings must have head_dim = {q.shape[-1]} columns (queries' last "
            f"axis), got {e.shape[1]}"
        )
    if p.shape[:-1] != q.shape[:-1] or p.shape[-1] != p.shape[-2]:
        raise ValueError(
            f"positions must have shape (..., seq, seq) matching queries {q.shape}, got {p.shape}"
        )
    z = q @ e.T  # z_i[p] = q_i · e[p], (..., seq, P)
    p = np.minimum(p, e.shape[0] - 1)
    low, high = np.floor(p).astype(np.int64), np.ceil(p).astype(np.int64)
    w = p - low
    z_low, z_high = np.take_along_axis(z, low, -1), np.take_along_axis(z, high, -1)
    # (p − ⌊p⌋) z[⌈p⌉] + (1 − p + ⌊p⌋) z[⌊p⌋]
    return w * z_high + (1.0 - w) * z_low
