"""ReRoPE and leaky ReRoPE: distances clipped, or slowed, past a window.

ReRoPE (Su, 2023, "Rectified Rotary Position Embeddings", blog posts kexue.fm/archives/9706
and 9708, reference code bojone/rerope) keeps RoPE's exact distance inside a window
``w`` and shows every farther key at distance ``w``, so no distance ever passes ``w``
however long the text. Leaky ReRoPE lets the distance go on growing past the window,
``k`` times slower::

    ReRoPE:        D = min(d, w)                              d = i − j >= 0
    leaky ReRoPE:  D = d                   for d < w
                   D = w + (d − w) / k     for d >= w          (k → ∞: ReRoPE)

The reference code computes two attention scores and picks one per pair: the usual
RoPE score where ``|i − j| < w``, and otherwise the score of a query rotated to
position ``w`` against an unrotated key (ReRoPE) or of a query at ``(i + w(k − 1)) / k``
against a key at ``j / k`` (leaky, with linear position scaling by ``k``). It also
multiplies each query by ``max(1, log(i + 1) / log(L_train))``, a length-dependent
temperature that moves no position.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_float, check_int, check_optional, check_size

__all__ = ["rerope_distances", "rerope_largest_distance"]

#: The most entries :func:`rerope_distances` builds (2**24 float64: 128 MiB, 4,096 tokens).
MAX_ENTRIES = 2**24


def _rerope_args(window, scaling_factor):
    window = check_int("window", window, minimum=1)
    scaling_factor = check_optional(check_float, "scaling_factor", scaling_factor, at_least=1.0)
    return window, scaling_factor


def rerope_distances(seq_len, window, *, scaling_factor=None) -> np.ndarray:
    """The distance every query sees to every earlier key under (leaky) ReRoPE.

    Parameters
    ----------
    seq_len : int
        Tokens, >= 0; ``seq_len²`` entries at most 2**24.
    window : int
        ``w`` >= 1: distances below it are exact (512 in the reference code, 1,024 in
        its results table).
    scaling_factor : float, optional
        ``k`` >= 1 for leaky ReRoPE (16 in the reference code); None (default) for
        ReRoPE. ``k = 1`` leaves every distance as it is.

    Returns
    -------
    ndarray of float64, shape (seq_len, seq_len)
        0 above the diagonal, where causal attention masks the key.

    References
    ----------
    Su (2023), "Rectified Rotary Position Embeddings", https://github.com/bojone/rerope:
    ``rerope_patch.py`` and ``leaky_rerope_patch.py``, ``forward_with_rerope`` and
    ``forward_with_leaky_rerope`` (``rectified_mask``); the matrix of ``idea.png``.

    Examples
    --------
    >>> rerope_distances(6, 3)[-1].tolist()
    [3.0, 3.0, 3.0, 2.0, 1.0, 0.0]
    >>> rerope_distances(6, 3, scaling_factor=2)[-1].tolist()
    [4.0, 3.5, 3.0, 2.0, 1.0, 0.0]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    window, scaling_factor = _rerope_args(window, scaling_factor)
    check_size("seq_len", seq_len**2, limit=MAX_ENTRIES, what="a distance matrix")
    index = np.arange(seq_len, dtype=np.float64)
    d = index[:, None] - index[None, :]  # i − j
    if scaling_factor is None:
        far = np.full_like(d, float(window))  # min(d, w)
    else:
        far = window + (d - window) / scaling_factor  # w + (d − w) / k
    return np.where(d < window, np.maximum(d, 0.0), far)


def rerope_largest_distance(seq_len, window, *, scaling_factor=None) -> float:
    """The largest distance (leaky) ReRoPE shows over ``seq_len`` tokens (any size).

    ``seq_len − 1`` while the text fits the window; then ``w`` (ReRoPE) or
    ``w + (seq_len − 1 − w) / k`` (leaky).

    Parameters
    ----------
    seq_len : int
        >= 1.
    window, scaling_factor
        As for :func:`rerope_distances`.

    Returns
    -------
    float

    Examples
    --------
    The reference code's settings, ``w = 512`` and ``k = 16``, over 16,384 tokens:

    >>> rerope_largest_distance(16384, 512), rerope_largest_distance(16384, 512, scaling_factor=16)
    (512.0, 1503.9375)
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    window, scaling_factor = _rerope_args(window, scaling_factor)
    d = seq_len - 1  # the last query to key 0
    if d < window:
        return float(d)
    if scaling_factor is None:
        return float(window)
    return window + (d - window) / scaling_factor  # w + (d − w) / k
