"""ALiBi: attention with linear biases (Press et al., 2022).

ALiBi adds no vector to the tokens. Each head ``h`` adds a fixed penalty to its
attention scores, proportional to how far back the key is::

    score[h, i, j] = q_i · k_j / sqrt(head_dim) − m_h · (i − j)        (j <= i)

The slopes ``m_h`` form a geometric sequence fixed before training: for
``num_heads = n`` a power of two, ``m_h = 2 ** (−8 h / n)`` for ``h = 1 … n``.
Other head counts take the slopes of the closest power of two below ``n`` and
fill the remaining heads with every other slope of twice that power, as the
paper's code does.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_bool, check_float_dtype, check_int

__all__ = ["alibi_slopes", "alibi_bias"]


def _power_of_two_slopes(n: int) -> np.ndarray:
    k = np.arange(1, n + 1, dtype=np.float64)
    # m_k = 2^(-8k/n), k = 1 … n  (the paper's start = ratio = 2^(-8/n))
    return np.exp2(-8.0 * k / n)


def alibi_slopes(num_heads) -> np.ndarray:
    """The per-head slopes ``m_h`` of ALiBi.

    Parameters
    ----------
    num_heads : int
        Number of attention heads, >= 1. Need not be a power of two.

    Returns
    -------
    slopes : ndarray, shape (num_heads,), float64
        For a power of two ``n``: ``2**(-8/n), 2**(-16/n), …, 2**-8``. Otherwise
        the ``c`` slopes of the closest power of two ``c < n``, then the slopes
        of ``2c`` heads at even indices (0, 2, 4, …) for the other ``n − c`` heads
        — the recipe of the paper's ``get_slopes`` and of BLOOM's
        ``build_alibi_tensor``.

    References
    ----------
    Press, Smith and Lewis, "Train Short, Test Long", ICLR 2022, section 3.

    Examples
    --------
    >>> alibi_slopes(8).tolist()
    [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625]
    >>> [round(m, 4) for m in alibi_slopes(6).tolist()]
    [0.25, 0.0625, 0.0156, 0.0039, 0.5, 0.125]
    """
    num_heads = check_int("num_heads", num_heads, minimum=1)
    closest = 2 ** int(math.floor(math.log2(num_heads)))
    slopes = _power_of_two_slopes(closest)
    if closest == num_heads:
        return slopes
    extra = _power_of_two_slopes(2 * closest)[0::2][: num_heads - closest]
    return np.concatenate([slopes, extra])


def alibi_bias(num_heads, query_len, key_len=None, *, causal=True, dtype=np.float32) -> np.ndarray:
    """The ALiBi bias added to every head's attention scores.

    Parameters
    ----------
    num_heads : int
        Number of heads, >= 1.
    query_len : int
        Number of queries, >= 1.
    key_len : int, optional
        Number of keys, >= ``query_len`` (default: ``query_len``). With more keys
        than queries the queries are the *last* ``query_len`` positions, as when
        decoding with a key/value cache.
    causal : bool, optional
        True (default): ``−m_h · (i − j)`` for keys at or before the query and
        ``−inf`` after it, so the bias is also the causal mask. False:
        ``−m_h · |i − j|`` everywhere (a symmetric variant for encoders).
    dtype : float dtype, optional
        Output dtype (float32 by default). float32 and float64 are computed in
        their own precision as ``float(m_h) × distance``; float16 in float32 and
        rounded once.

    Returns
    -------
    bias : ndarray, shape (num_heads, query_len, key_len)

    Notes
    -----
    Every element is written once: each head's row pattern (the slope times the
    distances, shared by all rows as a sliding window) is copied into the
    output row by row, so the cost is close to that of filling the array.

    Examples
    --------
    >>> alibi_bias(1, 3)[0].tolist()
    [[0.0, -inf, -inf], [-0.00390625, 0.0, -inf], [-0.0078125, -0.00390625, 0.0]]
    """
    num_heads = check_int("num_heads", num_heads, minimum=1)
    query_len = check_int("query_len", query_len, minimum=1)
    key_len = query_len if key_len is None else check_int("key_len", key_len, minimum=1)
    if key_len < query_len:
        raise ValueError(f"key_len must be >= query_len ({query_len}), got {key_len}")
    causal = check_bool("causal", causal)
    dtype = check_float_dtype("dtype", dtype)
    work = np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)

    # One pattern t = 0 … 2·key_len − 2 holds the signed distance d = key_len − 1 − t;
    # query i (absolute position p_i = key_len − query_len + i) reads the window
    # starting at t = key_len − 1 − p_i, so that entry j is d = p_i − j.
    distance = np.arange(key_len - 1, -key_len, -1, dtype=work)
    if causal:
        pattern = np.where(distance >= 0, 0.0 - distance, -np.inf).astype(
            work
        )  # +0.0 on the diagonal
    else:
        pattern = 0.0 - np.abs(distance)
    slopes = alibi_slopes(num_heads).astype(work)
    # each head's pattern m_h · pattern (a few kB), then every row a copy of its window:
    # bias[h, i, j] = m_h · pattern[t_i + j] = −m_h (p_i − j)
    patterns = slopes[:, None] * pattern[None, :]
    windows = np.lib.stride_tricks.sliding_window_view(patterns, key_len, axis=1)
    rows = windows[:, query_len - 1 :: -1] if query_len > 1 else windows[:, :1]
    out = np.empty((num_heads, query_len, key_len), dtype=dtype)
    np.copyto(out, rows, casting="same_kind")
    return out
