"""ALiBi: attention with linear biases (Press et al., 2022).

ALiBi adds no vector to the tokens. Each head ``h`` adds a fixed penalty to its
attention scores, proportional to how far back the key is::

    score[h, i, j] = q_i · k_j / sqrt(head_dim) − m_h · (i − j)        (j <= i)

The slopes ``m_h`` form a geometric sequence fixed before training: for
``num_heads = n`` a power of two, ``m_h = 2 ** (−8 h / n)`` for ``h = 1 … n``.
Other head counts take the slopes of the closest power of two below ``n`` and
fill the remaining heads with every other slope of twice that power, as the
paper's code does.

Softmax ignores the part ``−m_h · i`` that is the same for a whole row, so a bias
``+m_h · j`` that depends on the key alone gives the same weights — in exact
arithmetic. :func:`alibi_weight_error` measures what is left of that once the
bias is held in float32 or bfloat16.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_float_dtype,
    check_int,
)
from .attention import softmax
from .precision import round_to_bfloat16

__all__ = ["ALIBI_FORMS", "BIAS_DTYPES", "alibi_slopes", "alibi_bias", "alibi_weight_error"]

#: The two ways to write ALiBi's bias for query ``i`` and key ``j``: the paper's
#: formula ``−m (i − j)``, and ``+m j``, which depends on the key alone.
ALIBI_FORMS = ("relative", "keys")
#: The precisions :func:`alibi_weight_error` holds the bias in (bfloat16 emulated).
BIAS_DTYPES = ("float64", "float32", "bfloat16")


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
        ``−m_h · |i − j|`` everywhere: one symmetric choice for encoders, which the
        paper does not define (it treats causal language models only).
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


def alibi_weight_error(scores, slope, *, form="relative", dtype="float32") -> float:
    """How far one query's ALiBi attention weights move when the bias is held in ``dtype``.

    The query is the last of ``n = len(scores)`` positions, ``i = n − 1``, and sees
    every key ``j = 0 … i``. Its bias is written in one of two forms, equal after
    softmax in exact arithmetic because softmax ignores a constant added to a row::

        "relative":  −m (i − j)     the paper's formula; 0 at the newest key
        "keys":      +m j           the paper's code and Hugging Face's BLOOM

    The bias is computed as BLOOM's ``build_alibi_tensor`` computes it, a float32
    slope times float32 distances (or positions), then rounded to ``dtype``
    (bfloat16 by :func:`pe_explained.precision.round_to_bfloat16`); ``"float64"``
    computes it in float64. It is added to the content scores in float64, so the
    error is the bias's alone (a bfloat16 model also rounds the scores, which costs
    both forms alike). The result is::

        max over j  |softmax(s + fl(b))_j − softmax(s − m (i − j))_j|

    with the reference in float64. In ``"keys"`` form the bias of the keys that
    matter, near ``j = i``, is near ``m i``; for a long row that is a large number,
    held with a spacing of its own size times ``2^-8`` in bfloat16 (8 at 1,024 to
    2,048), which moves the weights by order one. In ``"relative"`` form those keys
    have the smallest biases, held finely.

    Parameters
    ----------
    scores : array_like, shape (n,)
        The query's content scores ``q · k_j / sqrt(head_dim)``, key 0 first;
        finite, at least one key.
    slope : float
        The head's slope ``m``, > 0 (:func:`alibi_slopes`).
    form : {"relative", "keys"}, optional
    dtype : {"float32", "float64", "bfloat16"}, optional

    Returns
    -------
    float
        The largest absolute difference between the weights and the exact ones.

    References
    ----------
    Press, Smith and Lewis 2022, section 3 (the bias) and their ``fairseq`` code
    (one row of ``m j`` added to the causal mask); transformers'
    ``models/bloom/modeling_bloom.py`` (``build_alibi_tensor``: float32 slopes
    times positions, ``.to(dtype)``).

    Examples
    --------
    >>> s = np.random.default_rng(0).normal(0.0, 3.0, size=2048)
    >>> m = float(alibi_slopes(112)[64])          # BLOOM-176B's head 65: 2^(-1/16)
    >>> [f"{alibi_weight_error(s, m, form=f, dtype='bfloat16'):.1e}" for f in ALIBI_FORMS]
    ['2.3e-04', '3.5e-01']
    >>> alibi_weight_error([0.0, 0.0], 0.5, form="keys", dtype="bfloat16")  # m j exact
    0.0
    """
    scores = check_array(
        "scores", scores, ndim=1, rule="1-D (one query's scores, key 0 first)", nonempty=True
    )
    slope = check_float("slope", slope, greater_than=0.0)
    form = check_choice("form", form, ALIBI_FORMS)
    dtype = check_choice("dtype", dtype, BIAS_DTYPES)
    last = len(scores) - 1
    keys = np.arange(len(scores))
    # the bias's sign and what it multiplies: −m (i − j), or +m j
    sign, steps = (-1.0, last - keys) if form == "relative" else (1.0, keys)
    if dtype == "float64":
        bias = sign * (slope * steps.astype(np.float64))
    else:
        bias32 = np.float32(sign) * (np.float32(slope) * steps.astype(np.float32))
        bias = (round_to_bfloat16(bias32) if dtype == "bfloat16" else bias32).astype(np.float64)
    exact = softmax(scores - slope * (last - keys).astype(np.float64))
    return float(np.abs(softmax(scores + bias) - exact).max())
