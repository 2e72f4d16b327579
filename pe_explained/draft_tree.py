"""Positions of drafted tokens in speculative decoding: a chain, or a tree of candidates.

A draft model (or a model's own extra heads, as in Medusa) proposes tokens that the
model then checks in one batch, after the ``start`` tokens already cached. A chain of
drafts takes positions ``start, start + 1, …``. A tree of candidates, checked in one
batch with tree attention, gives every candidate the position of its depth: the
candidates for the same next token share a position, and each attends to the cache,
its ancestors and itself only (Medusa's ``medusa_position_ids`` and tree mask, Cai et
al. 2024, arXiv:2401.10774; ``medusa/model/utils.py``, read). The keys of the path the
model accepts are then already rotated where they stay.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_int, check_size

#: The most drafts a tree may hold (its mask has this many squared entries).
MAX_DRAFTS = 4096


def draft_tree_positions(parents, start: int) -> tuple[np.ndarray, np.ndarray]:
    """The position of every drafted token, and which drafts each one attends to.

    Parameters
    ----------
    parents : array_like of int, shape (n,)
        ``parents[i]`` is the draft that token ``i`` follows: ``-1`` for a candidate for
        the token right after the cache, or the index of an earlier draft (``< i``).
        A chain is ``[-1, 0, 1, …]``.
    start : int
        The number of tokens already cached (the position of the next token), >= 0.

    Returns
    -------
    positions : ndarray of int64, shape (n,)
        ``start + depth``, where a candidate with parent ``-1`` has depth 0.
    mask : ndarray of bool, shape (n, n)
        ``mask[i, j]``: draft ``i`` attends to draft ``j``, its ancestor or itself
        (every draft also attends to the whole cache).

    Examples
    --------
    >>> positions, mask = draft_tree_positions([-1, -1, 0, 0, 1], start=10)
    >>> positions.tolist()
    [10, 10, 11, 11, 11]
    >>> mask[4].astype(int).tolist()  # itself and its parent, draft 1
    [0, 1, 0, 0, 1]
    """
    parent = check_array("parents", parents, kind="integer", ndim=1, rule="1-D")
    start = check_int("start", start, minimum=0)
    n = len(parent)
    check_size("parents", n, limit=MAX_DRAFTS, what="drafts")
    depth = np.zeros(n, dtype=np.int64)
    mask = np.eye(n, dtype=bool)
    for i, p in enumerate(parent.tolist()):
        if p != -1 and not 0 <= p < i:
            earlier = f"0 … {i - 1}" if i else "there is none"
            raise ValueError(
                f"parents[{i}] must be -1 or the index of an earlier draft ({earlier}), got {p}"
            )
        if p >= 0:
            depth[i] = depth[p] + 1  # one deeper than its parent
            mask[i] |= mask[p]  # the parent's ancestors, and the parent itself
    return start + depth, mask
