"""FIRE: functional interpolation for relative positions (Li et al., 2023).

FIRE learns the bias of every head as a function of the distance, with a small MLP
``f_θ`` (one input, one output per head), but first squeezes the distance into
``[0, 1]`` by dividing it by the query's own position, both passed through a log::

    b[h, i, j] = f_θ( ψ(i − j) / ψ(max(τ, i)) )_h,      ψ(x) = ln(c · x + 1)

*Progressive interpolation*: for a query past the threshold ``τ`` (``threshold``; the
paper calls it L, the book keeps L for a sequence's length) the input runs from 0 (the
key at the query) to exactly 1 (the first token), however long the sequence, so a
longer context never feeds the MLP an input it has not seen. ``ψ`` spreads the small
distances apart; ``c > 0`` and ``τ > 0`` are learned. With a small ``c`` and a large
``τ`` the input is about ``(i − j) / τ`` and an MLP ``x ↦ −m τ x`` gives ALiBi's bias
``−m (i − j)``: FIRE can express ALiBi (the paper's Theorem 3.1 also covers T5's bias
and KERPLE).

The price is that FIRE is relative only for queries before ``τ``: past it the divisor
grows with the query's position, so one offset gives a smaller input, and a different
bias, the later the query. Moving a whole sequence along changes the inputs of every
query that ends up past ``τ`` (all but the one for the key at the query itself).
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_float, check_int

__all__ = ["fire_bias", "fire_normalized_distance"]


def fire_normalized_distance(query_len, key_len=None, *, c=0.1, threshold=512.0) -> np.ndarray:
    """FIRE's input to its MLP: ``ψ(i − j) / ψ(max(τ, i))`` with ``ψ(x) = ln(c |x| + 1)``.

    Parameters
    ----------
    query_len : int
        Number of queries, >= 1.
    key_len : int, optional
        Number of keys, >= ``query_len`` (default: ``query_len``); the queries are the
        *last* ``query_len`` positions ``i``, counted from 0.
    c : float, optional
        The log transform's scale, > 0 (learned; 0.1 at initialisation in the paper's
        code).
    threshold : float, optional
        ``τ`` (the paper's L), the smallest normaliser, > 0 (learned; 512 at
        initialisation): queries before it are divided by ``ψ(τ)``, not by ``ψ(i)``.

    Returns
    -------
    ndarray of float64, shape (query_len, key_len)
        In ``[0, 1]`` for keys at or before the query; exactly 1 for key 0 and a query
        at ``i >= τ``. Keys after the query get ``ψ(|i − j|) / ψ(max(τ, i))``, as the
        reference code computes them before the causal mask.

    References
    ----------
    Li, You, Guruganesh, Ainslie, Ontañón, Zaheer, Sanghai, Yang, Kumar and
    Bhojanapalli, "Functional Interpolation for Relative Positions Improves Long
    Context Transformers", ICLR 2024 (arXiv:2310.04418), section 3.2 and appendix code
    (which adds 1e-6 to the denominator; left out here, since ``ψ(max(τ, i)) > 0``).

    Examples
    --------
    >>> x = fire_normalized_distance(4, threshold=2.0, c=1.0)
    >>> x[1, :2].round(4).tolist()      # query 1 < τ: divided by ψ(τ) = ln 3
    [0.6309, 0.0]
    >>> x[3].round(4).tolist()          # query 3 >= τ: from 1 at key 0 down to 0
    [1.0, 0.7925, 0.5, 0.0]
    """
    query_len = check_int("query_len", query_len, minimum=1)
    key_len = query_len if key_len is None else check_int("key_len", key_len, minimum=1)
    if key_len < query_len:
        raise ValueError(f"key_len must be >= query_len ({query_len}), got {key_len}")
    c = check_float("c", c, greater_than=0.0)
    threshold = check_float("threshold", threshold, greater_than=0.0)
    queries = np.arange(key_len - query_len, key_len, dtype=np.float64)
    keys = np.arange(key_len, dtype=np.float64)
    distance = np.abs(queries[:, None] - keys[None, :])
    # ψ(x) = ln(c x + 1); the input is ψ(i − j) / ψ(max(τ, i))
    return np.log1p(c * distance) / np.log1p(c * np.maximum(threshold, queries))[:, None]


def fire_bias(
    hidden_weight,
    hidden_bias,
    output_weight,
    output_bias,
    query_len,
    key_len=None,
    *,
    c=0.1,
    threshold=512.0,
    causal=True,
) -> np.ndarray:
    """The FIRE bias of every head: an MLP of :func:`fire_normalized_distance`.

    ``f_θ(x) = W₂ᵀ ReLU(w₁ x + b₁) + b₂``, one hidden layer of ReLUs, as in the
    paper's code (32 hidden units there).

    Parameters
    ----------
    hidden_weight, hidden_bias : array_like, shape (width,)
        ``w₁`` and ``b₁``: the hidden layer (one input).
    output_weight : array_like, shape (width, num_heads)
        ``W₂``.
    output_bias : array_like, shape (num_heads,)
        ``b₂``.
    query_len, key_len, c, threshold
        As for :func:`fire_normalized_distance`.
    causal : bool, optional
        True (default): ``−inf`` for keys after the query, so the bias is also the
        causal mask (as :func:`pe_explained.alibi_bias` gives it).

    Returns
    -------
    bias : ndarray of float64, shape (num_heads, query_len, key_len)

    Examples
    --------
    >>> identity = ([1.0], [0.0], [[1.0]], [0.0])      # f(x) = ReLU(x) = x for x >= 0
    >>> fire_bias(*identity, 3, threshold=1.0, c=1.0)[0].round(4).tolist()
    [[0.0, -inf, -inf], [1.0, 0.0, -inf], [1.0, 0.6309, 0.0]]
    """
    w1 = check_array("hidden_weight", hidden_weight, ndim=1, nonempty=True)
    b1 = check_array("hidden_bias", hidden_bias, ndim=1, nonempty=True)
    w2 = check_array("output_weight", output_weight, ndim=2, nonempty=True)
    b2 = check_array("output_bias", output_bias, ndim=1, nonempty=True)
    if b1.shape != w1.shape or w2.shape[0] != w1.shape[0]:
        raise ValueError(
            "hidden_weight, hidden_bias and output_weight's rows must have one length "
            f"(the width), got {w1.shape[0]}, {b1.shape[0]} and {w2.shape[0]}"
        )
    if b2.shape[0] != w2.shape[1]:
        raise ValueError(
            f"output_bias must have one entry per head ({w2.shape[1]}), got {b2.shape[0]}"
        )
    causal = check_bool("causal", causal)
    x = fire_normalized_distance(query_len, key_len, c=c, threshold=threshold)
    hidden = np.maximum(x[..., None] * w1 + b1, 0.0)  # ReLU(w₁ x + b₁), (q, k, width)
    bias = np.moveaxis(hidden @ w2 + b2, -1, 0)  # W₂ᵀ h + b₂, heads first
    if causal:
        q, k = x.shape
        after = np.arange(k)[None, :] > np.arange(k - q, k)[:, None]
        bias = np.where(after, -np.inf, bias)
    return bias
