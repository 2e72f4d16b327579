"""Relative attention in O(L²) memory: Transformer-XL's relative shift, Music Transformer's skew.

A relative logit needs, for every query ``i`` and key ``j``, a score against the
vector of their distance. Gathering one vector per pair, as Shaw et al. (2018) do,
builds a (query_len, key_len, d) tensor. Both papers below compute instead the score
of every query against every *distance* with one matrix product, ``Q Rᵀ`` of shape
(query_len, key_len), whose row ``i`` lists the distances in a fixed order; the
score query ``i`` needs for key ``j`` then sits in column ``j − i + const`` of row
``i``. One zero column, two reshapes and a slice move every row left by one more
than the row above, which puts each score in its key's column::

    pad:      [0 | S]                  (query_len, key_len + 1)
    reshape:  (key_len + 1, query_len), drop the first row
    reshape:  (query_len, key_len)     out[i, j] = S[i, j + query_len − 1 − i]

Entries with a key after the query (``j > i + key_len − query_len``) are leftovers
of the reshapes: a causal decoder masks them.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array

__all__ = ["relative_shift", "skew"]


def _shift(scores: np.ndarray) -> np.ndarray:
    query_len, key_len = scores.shape
    padded = np.concatenate([np.zeros((query_len, 1)), scores], axis=1)
    # (q, k + 1) → (k + 1, q), drop the first row → (k, q) → (q, k):
    # out[i, j] = scores[i, j + q − 1 − i] wherever the key is not after the query
    return padded.reshape(key_len + 1, query_len)[1:].reshape(query_len, key_len)


def relative_shift(scores) -> np.ndarray:
    """Transformer-XL's relative shift: scores by distance → scores by key.

    Parameters
    ----------
    scores : array_like, shape (query_len, key_len), key_len >= query_len
        ``scores[i, c]`` is query ``i``'s score against the relative encoding of the
        distance ``key_len − 1 − c`` (Transformer-XL's order: distances
        ``key_len − 1, …, 1, 0``). The last ``query_len`` keys are the queries'
        own segment; the ``key_len − query_len`` before them are the cached memory.

    Returns
    -------
    ndarray, shape (query_len, key_len)
        ``out[i, j]`` is the score for the distance ``(key_len − query_len + i) − j``
        of query ``i`` from key ``j``, i.e. ``scores[i, j + query_len − 1 − i]``,
        wherever ``j ≤ i + key_len − query_len``; the entries right of that (keys
        after the query) are leftovers for the causal mask.

    References
    ----------
    Dai et al. (2019), "Transformer-XL: Attentive Language Models Beyond a
    Fixed-Length Context", ACL 2019, appendix B ("efficient computation of the
    attention with relative positional embedding"); the reference code's
    ``_rel_shift``.

    Examples
    --------
    Two queries after one memory token; columns hold distances 2, 1, 0:

    >>> scores = np.array([[20.0, 21.0, 22.0], [30.0, 31.0, 32.0]])
    >>> relative_shift(scores)[0, :2].tolist()   # query 0 at 1: keys 0, 1 at 1, 0
    [21.0, 22.0]
    >>> relative_shift(scores)[1].tolist()       # query 1 at 2: keys at 2, 1, 0
    [30.0, 31.0, 32.0]
    """
    scores = check_array("scores", scores, ndim=2, nonempty=True)
    query_len, key_len = scores.shape
    if key_len < query_len:
        raise ValueError(
            f"scores must have at least as many columns (keys) as rows (queries), "
            f"got shape {scores.shape}"
        )
    return _shift(scores)


def skew(scores) -> np.ndarray:
    """Music Transformer's skewing: ``Q E_rᵀ`` → relative logits ``S_rel`` for self-attention.

    Parameters
    ----------
    scores : array_like, shape (L, L)
        ``scores[i, c]`` is query ``i``'s score against the embedding of the relative
        position ``c − (L − 1)``: columns run from ``−(L − 1)`` (the farthest key
        before) to 0 (the query itself), Music Transformer's order of ``E_r``.

    Returns
    -------
    ndarray, shape (L, L)
        ``S_rel[i, j] = scores[i, j − i + L − 1]``, the score for key ``j`` at relative
        position ``j − i``, for ``j ≤ i``; above the diagonal, leftovers the causal
        mask removes. The same reshapes as :func:`relative_shift` with no memory:
        ascending relative positions ``j − i`` are descending distances ``i − j``.

    References
    ----------
    Huang et al. (2018), "Music Transformer: Generating Music with Long-Term
    Structure", ICLR 2019, section 3.4.1 ("pad, reshape, slice"), which replaces
    the (L, L, D) tensor of Shaw et al. (2018) by an (L, L) one.

    Examples
    --------
    >>> s = np.array([[0.0, 0.0, 10.0], [0.0, 11.0, 12.0], [20.0, 21.0, 22.0]])
    >>> skew(s)[2].tolist()                      # query 2: keys at −2, −1, 0
    [20.0, 21.0, 22.0]
    >>> skew(s)[1, :2].tolist()                  # query 1: keys at −1, 0
    [11.0, 12.0]
    """
    scores = check_array("scores", scores, ndim=2, nonempty=True)
    if scores.shape[0] != scores.shape[1]:
        raise ValueError(f"scores must be square (L, L) for self-attention, got {scores.shape}")
    return _shift(scores)
