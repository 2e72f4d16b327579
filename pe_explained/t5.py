"""T5's relative attention bias: one learned scalar per head and per distance bucket.

T5 (Raffel et al., 2020) adds no position vector to the tokens. Each head adds
a learned number ``b[h, bucket(j − i)]`` to the score of query ``i`` and key
``j``. The distances are grouped into buckets: every small distance has its
own bucket, larger ones share logarithmically wider buckets, and every distance
beyond ``max_distance`` falls into the last bucket. This module computes the
bucket index exactly as T5's ``_relative_position_bucket`` does (the Mesh
TensorFlow original and its Hugging Face port), including the float32 rounding
of the logarithm.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_array, check_bool, check_int

__all__ = ["t5_relative_bucket"]


def t5_relative_bucket(
    relative_position, *, bidirectional=True, num_buckets=32, max_distance=128
) -> np.ndarray:
    """The bucket of each relative position, as T5 computes it.

    Parameters
    ----------
    relative_position : int or integer array_like
        ``key_position − query_position``: negative for keys before the query.
    bidirectional : bool, optional
        True (T5's encoder): half of the buckets for keys before the query, half
        for keys after it. False (T5's decoder): all buckets for keys at or before
        the query; every key after it shares bucket 0 (the causal mask hides them).
    num_buckets : int, optional
        Total number of buckets (32 in T5); >= 4 if bidirectional, else >= 2.
    max_distance : int, optional
        Distances from here on share the last bucket of their direction (128 in T5).

    Returns
    -------
    bucket : ndarray of int64, same shape as ``relative_position``

    Notes
    -----
    With ``n`` the distance (``|j − i|`` bidirectional, ``max(i − j, 0)`` causal),
    ``h`` the buckets of one direction and ``e = h // 2``::

        bucket = n                                                    if n < e
        bucket = min(e + ⌊log(n/e) / log(max_distance/e) · (h − e)⌋, h − 1)  otherwise

    plus ``h`` for keys after the query when bidirectional. T5 evaluates the
    logarithm in float32; so does this function.

    References
    ----------
    Raffel et al., "Exploring the Limits of Transfer Learning with a Unified
    Text-to-Text Transformer", JMLR 2020, section 2.1.

    Examples
    --------
    >>> t5_relative_bucket(np.array([-1, -8, -16, -200, 1])).tolist()
    [1, 8, 10, 15, 17]
    >>> t5_relative_bucket(np.array([3, -3, -16]), bidirectional=False).tolist()
    [0, 3, 16]
    """
    rel = check_array("relative_position", relative_position, kind="integer")
    bidirectional = check_bool("bidirectional", bidirectional)
    num_buckets = check_int("num_buckets", num_buckets, minimum=4 if bidirectional else 2)
    max_distance = check_int("max_distance", max_distance, minimum=1)
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    max_exact = per_direction // 2
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be > {max_exact} (the exact buckets), got {max_distance}"
        )

    # every distance from max_distance on shares the last bucket: clipping far beyond it
    # changes no bucket and keeps |−2**63| from overflowing int64
    rel = np.clip(rel, -(2**62), 2**62)
    if bidirectional:
        offset = np.where(rel > 0, per_direction, 0)
        n = np.abs(rel)
    else:
        offset = 0
        n = np.maximum(-rel, 0)  # n = −relative_position, keys after the query → 0
    is_small = n < max_exact
    # log buckets: e + log(n / e) / log(max_distance / e) · (h − e), in float32 as in T5
    ratio = np.maximum(n, max_exact).astype(np.float32) / np.float32(max_exact)
    scaled = (
        np.log(ratio)
        / np.float32(math.log(max_distance / max_exact))
        * np.float32(per_direction - max_exact)
    )
    large = np.minimum(max_exact + scaled.astype(np.int64), per_direction - 1)
    return offset + np.where(is_small, n, large)
