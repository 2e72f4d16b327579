"""KERPLE: kernelized relative positional embeddings (Chi et al., 2022).

KERPLE adds to every head's attention scores a bias that is a *conditionally positive
definite* kernel of the distance, shifted by a constant that softmax ignores. The
paper derives two learnable families, with per-head parameters ``r1 > 0``, ``r2 > 0``::

    power:        b[h, i, j] = −r1_h · |i − j| ** r2_h         (0 < r2 ≤ 2)
    logarithmic:  b[h, i, j] = −r1_h · ln(1 + r2_h · |i − j|)

The power variant with ``r2 = 1`` is ALiBi with slopes ``r1`` (Press et al., 2022);
the logarithmic one keeps falling with the distance, ever more slowly, and did best
on the paper's length extrapolation.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_choice, check_int, check_same_shape

__all__ = ["KERPLE_VARIANTS", "kerple_bias"]

#: The two kernels of the paper.
KERPLE_VARIANTS = ("logarithmic", "power")


def kerple_bias(r1, r2, query_len, key_len=None, *, variant="logarithmic", causal=True):
    """The KERPLE bias added to every head's attention scores.

    Parameters
    ----------
    r1, r2 : array_like, shape (num_heads,)
        The learned parameters of each head, all > 0; for ``"power"`` also
        ``r2 <= 2`` (the paper's bound, where the kernel stays conditionally
        positive definite).
    query_len : int
        Number of queries, >= 1.
    key_len : int, optional
        Number of keys, >= ``query_len`` (default: ``query_len``); the queries are
        the *last* ``query_len`` positions, as when decoding with a cache.
    variant : {"logarithmic", "power"}, optional
        ``−r1 · ln(1 + r2 · |i − j|)`` or ``−r1 · |i − j| ** r2``.
    causal : bool, optional
        True (default): ``−inf`` for keys after the query, so the bias is also the
        causal mask, as :func:`pe_explained.alibi_bias` gives it. False: the kernel
        of ``|i − j|`` everywhere.

    Returns
    -------
    bias : ndarray of float64, shape (num_heads, query_len, key_len)

    References
    ----------
    Chi, Fan, Ramadge and Rudnicky, "KERPLE: Kernelized Relative Positional Embedding
    for Length Extrapolation", NeurIPS 2022 (arXiv:2205.09921), section 4 (the power
    and logarithmic variants); the authors' code (``ParallelKerpleLog``,
    ``ParallelKerplePower`` in their gpt-neox fork).

    Examples
    --------
    >>> kerple_bias([1.0], [1.0], 3, causal=False)[0].round(4).tolist()
    [[0.0, -0.6931, -1.0986], [-0.6931, 0.0, -0.6931], [-1.0986, -0.6931, 0.0]]
    >>> kerple_bias([0.5], [1.0], 3, variant="power")[0].tolist()   # ALiBi, slope 1/2
    [[0.0, -inf, -inf], [-0.5, 0.0, -inf], [-1.0, -0.5, 0.0]]
    """
    r1 = check_array("r1", r1, ndim=1, nonempty=True)
    r2 = check_array("r2", r2, ndim=1, nonempty=True)
    check_same_shape("r1", r1, "r2", r2)
    if np.any(r1 <= 0) or np.any(r2 <= 0):
        name = "r1" if np.any(r1 <= 0) else "r2"
        raise ValueError(f"{name} must be > 0 for every head")
    query_len = check_int("query_len", query_len, minimum=1)
    key_len = query_len if key_len is None else check_int("key_len", key_len, minimum=1)
    if key_len < query_len:
        raise ValueError(f"key_len must be >= query_len ({query_len}), got {key_len}")
    variant = check_choice("variant", variant, KERPLE_VARIANTS)
    causal = check_bool("causal", causal)
    if variant == "power" and np.any(r2 > 2):
        raise ValueError(f"r2 must be <= 2 for the power variant, got {r2.max():g}")
    # query i sits at absolute position key_len − query_len + i; distance to key j
    signed = np.arange(key_len - query_len, key_len)[:, None] - np.arange(key_len)[None, :]
    distance = np.abs(signed).astype(np.float64)
    a, b = r1[:, None, None], r2[:, None, None]
    if variant == "logarithmic":
        bias = 0.0 - a * np.log1p(b * distance)  # −r1 · ln(1 + r2 |i − j|), +0.0 at i = j
    else:
        bias = 0.0 - a * distance**b  # −r1 · |i − j|^r2
    if causal:
        bias = np.where(signed < 0, -np.inf, bias)
    return bias
