"""Packing: several documents in one row, positions that restart, and what a kernel infers.

Training (and batched serving) often concatenates documents into one long row instead
of padding each to a common length. Two things then keep the documents apart:

* **Positions that restart** at every document: ``0 … len − 1`` for each
  (:func:`packed_position_ids`), so a document reads the same positions packed as
  alone.
* **A block-diagonal causal mask**: a token sees the earlier tokens of its own
  document only (:func:`packed_causal_mask`).

A varlen attention kernel (flash-attention's ``flash_attn_varlen_func``) takes neither
a mask nor positions but ``cu_seqlens``, the cumulative lengths ``[0, l₀, l₀ + l₁, …]``
that mark where each document starts. When a batch brings position ids and no
``cu_seqlens``, transformers 5.23 infers the documents from the restarts, in two ways:

* for flash-attention, ``prepare_fa_kwargs_from_position_ids``: a document starts
  wherever the id equals the smallest id of the whole batch (usually 0)
  (:func:`cu_seqlens_from_position_ids`);
* for the masks of the other attention functions (SDPA, eager, flex), when no
  attention mask and no cache are given, ``find_packed_sequence_indices``: a new
  document starts wherever an id is not its left neighbour plus one
  (:func:`packed_sequence_ids`).

The two agree on ids that restart at 0 and otherwise count up by one. Not restarting
the positions (``reset=False``) has a cost twice over: a later document's first token
sits at the position where the previous one ended, never at 0 as in training on a
single document; and since nothing restarts, both rules find one document, so the
kernel lets every document attend to the ones before it.

What a RoPE score then sees is the offset ``m − n`` of the two ids, for every pair
the mask lets attend (:func:`attended_offsets`): offsets as long as the whole row when
neither the ids restart nor the mask is cut, and negative ones (a key whose id is
larger than its query's) when the ids restart but the mask is not cut.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_size
from .attention import causal_mask

__all__ = [
    "packed_position_ids",
    "packed_causal_mask",
    "cu_seqlens_from_position_ids",
    "packed_sequence_ids",
    "attended_offsets",
]

#: The most tokens :func:`packed_position_ids` lays out (2**24: 128 MiB of int64 ids).
MAX_TOKENS = 2**24
#: The most entries of a mask :func:`packed_causal_mask` builds (2**26 bools: 64 MiB,
#: a row of 8,192 tokens).
MAX_MASK_ENTRIES = 2**26
#: The most entries of a mask :func:`attended_offsets` reads (2**22: a row of 2,048
#: tokens, at most 32 MiB of int64 offsets).
MAX_OFFSET_ENTRIES = 2**22


def _lengths(lengths, limit: int, what: str) -> tuple[np.ndarray, int]:
    """Document lengths: 1-D ints >= 1, whose total (or its square) stays under ``limit``."""
    sizes = check_array("lengths", lengths, kind="integer", ndim=1, minimum=1)
    check_size("lengths", int(sizes.max()) if sizes.size else 0, limit=MAX_TOKENS, what="a row")
    total = int(sizes.sum())  # no overflow: each length is at most MAX_TOKENS
    check_size("lengths", total if what == "a row" else total**2, limit=limit, what=what)
    return sizes, total


def packed_position_ids(lengths, *, reset=True) -> np.ndarray:
    """The position ids of documents of ``lengths`` tokens packed into one row.

    Parameters
    ----------
    lengths : array_like of int, shape (n_docs,)
        Tokens in each document, in order; each >= 1, at most 2**24 in all.
    reset : bool, optional
        ``True``: every document counts from 0, ``0 … len − 1`` (what packing collators
        such as transformers' ``DataCollatorWithFlattening`` give). ``False``: one
        count over the whole row, ``0 … total − 1``, as if the row were one document.

    Returns
    -------
    ndarray of int64, shape (sum(lengths),)

    Examples
    --------
    >>> packed_position_ids([3, 2, 4]).tolist()
    [0, 1, 2, 0, 1, 0, 1, 2, 3]
    >>> packed_position_ids([3, 2, 4], reset=False).tolist()  # the third starts at 5
    [0, 1, 2, 3, 4, 5, 6, 7, 8]
    """
    sizes, total = _lengths(lengths, MAX_TOKENS, "a row")
    reset = check_bool("reset", reset)
    ids = np.arange(total, dtype=np.int64)
    if reset and sizes.size:
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        ids -= np.repeat(starts, sizes)  # id = index − start of its document
    return ids


def packed_causal_mask(lengths) -> np.ndarray:
    """The block-diagonal causal mask of packed documents: each token sees its own past.

    ``mask[i, j] = (j <= i) and doc(i) == doc(j)``: the causal mask
    (:func:`~pe_explained.attention.causal_mask`) cut into one block per document.
    This is the mask transformers builds for packed position ids (``create_causal_mask``
    combines ``causal_mask_function`` with ``packed_sequence_mask_function``, in
    ``masking_utils.py``), and what a varlen kernel computes from ``cu_seqlens``.

    Parameters
    ----------
    lengths : array_like of int, shape (n_docs,)
        Tokens in each document; each >= 1. The mask has ``sum(lengths)²`` entries,
        at most 2**26 (a row of 8,192 tokens); longer rows are refused.

    Returns
    -------
    ndarray of bool, shape (sum(lengths), sum(lengths))

    Examples
    --------
    >>> packed_causal_mask([2, 3]).astype(int).tolist()
    [[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 1, 1, 1]]
    """
    sizes, total = _lengths(lengths, MAX_MASK_ENTRIES, "a mask")
    doc = np.repeat(np.arange(sizes.size), sizes)  # which document each token is in
    return causal_mask(total) & (doc[:, None] == doc[None, :])


def cu_seqlens_from_position_ids(position_ids) -> np.ndarray:
    """The ``cu_seqlens`` a varlen kernel is given, inferred from position ids as
    transformers does for flash-attention.

    The ids are read as one row (a batch is flattened, rows one after the other); a
    document starts wherever an id equals the smallest id of them all, and the last
    one ends with the row::

        cu_seqlens = [i for i where ids[i] == min(ids)] + [len(ids)]

    Only restarts to that smallest id count: ids that fall back to a larger number
    (``[0, 1, 2, 1, 2]``) or that start above it leave no mark, and tokens before the
    first restart belong to no document (their rows are left out of ``cu_seqlens``,
    as in the reference code).

    Parameters
    ----------
    position_ids : array_like of int, shape (seq,) or (batch, seq)
        Position ids, >= 0; not empty.

    Returns
    -------
    ndarray of int32, shape (n_docs + 1,)
        Where each document starts, then the total length, in flash-attention's
        dtype; the longest document is ``max(diff(cu_seqlens))``.

    References
    ----------
    transformers 5.23, ``modeling_flash_attention_utils.py``,
    ``prepare_fa_kwargs_from_position_ids`` (tested against it in
    ``tests/test_transformers_packing.py``); flash-attention,
    ``flash_attn/flash_attn_interface.py``, ``flash_attn_varlen_func`` (``cu_seqlens_q``,
    ``cu_seqlens_k``: shape ``(batch_size + 1,)``, int32).

    Examples
    --------
    >>> cu_seqlens_from_position_ids([0, 1, 2, 0, 1, 0, 1, 2, 3]).tolist()
    [0, 3, 5, 9]
    >>> cu_seqlens_from_position_ids([0, 1, 2, 3, 4, 5, 6, 7, 8]).tolist()  # no restart
    [0, 9]
    """
    ids = check_array(
        "position_ids",
        position_ids,
        kind="integer",
        ndim=(1, 2),
        rule="1-D or 2-D",
        nonempty=True,
        minimum=0,
    ).reshape(-1)
    check_size("position_ids", ids.size, limit=2**31 - 1, what="an int32 cu_seqlens")
    starts = np.flatnonzero(ids == ids.min())  # a document starts at every smallest id
    return np.concatenate([starts, [ids.size]]).astype(np.int32)


def packed_sequence_ids(position_ids) -> np.ndarray:
    """Which document every token belongs to, inferred from position ids as transformers'
    masks do: a document starts wherever an id is not its left neighbour plus one.

    ``doc[0] = 0`` and ``doc[i] = doc[i − 1] + (ids[i] != ids[i − 1] + 1)`` along each
    row. Tokens with the same number attend to one another (under the causal mask);
    a row of a single document is all zeros (where transformers returns ``None``).

    Parameters
    ----------
    position_ids : array_like of int, shape (seq,) or (batch, seq)
        Position ids, >= 0.

    Returns
    -------
    ndarray of int64, the shape of ``position_ids``
        Document numbers 0, 1, 2, … along each row.

    References
    ----------
    transformers 5.23, ``masking_utils.py``, ``find_packed_sequence_indices`` (tested
    against it in ``tests/test_transformers_packing.py``).

    Examples
    --------
    >>> packed_sequence_ids([0, 1, 2, 0, 1, 0, 1, 2, 3]).tolist()
    [0, 0, 0, 1, 1, 2, 2, 2, 2]
    >>> packed_sequence_ids([0, 1, 2, 1, 2]).tolist()  # a fall to 1 starts one too
    [0, 0, 0, 1, 1]
    """
    ids = check_array(
        "position_ids",
        position_ids,
        kind="integer",
        ndim=(1, 2),
        rule="1-D or 2-D",
        minimum=0,
    )
    rows = np.atleast_2d(ids)
    if rows.shape[-1] == 0:
        return np.zeros(ids.shape, dtype=np.int64)
    # a step of anything but +1 starts a document; the first token counts as a step of +1
    steps = np.diff(rows, axis=-1, prepend=rows[:, :1] - 1)
    return np.cumsum(steps != 1, axis=-1).reshape(ids.shape).astype(np.int64)


def attended_offsets(position_ids, mask) -> np.ndarray:
    """The offsets ``m − n`` that the scores of one row see: query id minus key id, for
    every pair the mask lets attend.

    A RoPE score depends on its query's and its key's ids through ``m − n`` alone
    (Su et al., 2021), so the offsets a row's allowed pairs carry are the distances the
    model is shown. With ids that restart at every document and the block-diagonal
    mask (:func:`packed_causal_mask`) they run from 0 to the longest document's length
    minus one, as for each document alone; with one count over the row and the plain
    causal mask, up to the row's length minus one; with ids that restart under the
    plain causal mask, a token also sees the earlier documents' keys at negative
    offsets, which causal training on single documents never shows::

        offsets = [ids[i] − ids[j] for i, j in row-major order if mask[i, j]]

    Parameters
    ----------
    position_ids : array_like of int, shape (seq,)
        The row's position ids, >= 0.
    mask : array_like of bool, shape (seq, seq)
        ``mask[i, j]``: query ``i`` may attend key ``j``. At most 2**22 entries (a
        row of 2,048 tokens).

    Returns
    -------
    ndarray of int64, shape (n_allowed,)
        One offset per allowed pair, queries in order and each query's keys in order
        (the order of ``numpy.argwhere(mask)``).

    References
    ----------
    Su et al. (2021), RoFormer, eq. 16 (the score of ``R(m) q`` and ``R(n) k`` is a
    function of ``m − n``).

    Examples
    --------
    Two documents of 2 and 3 tokens, ids restarting, under the block-diagonal mask and
    under the plain causal mask:

    >>> from pe_explained.attention import causal_mask
    >>> ids = packed_position_ids([2, 3])
    >>> attended_offsets(ids, packed_causal_mask([2, 3])).tolist()
    [0, 1, 0, 0, 1, 0, 2, 1, 0]
    >>> attended_offsets(ids, causal_mask(5)).tolist()
    [0, 1, 0, 0, -1, 0, 1, 0, 1, 0, 2, 1, 2, 1, 0]
    """
    ids = check_array("position_ids", position_ids, kind="integer", ndim=1, minimum=0)
    allowed = check_array("mask", mask, kind="bool", ndim=2)
    if allowed.shape != (ids.size, ids.size):
        raise ValueError(
            f"mask must have shape (seq, seq) with seq = len(position_ids) = {ids.size}, "
            f"got {allowed.shape}"
        )
    check_size("mask", allowed.size, limit=MAX_OFFSET_ENTRIES, what="a mask")
    queries = np.broadcast_to(ids[:, None], allowed.shape)
    keys = np.broadcast_to(ids[None, :], allowed.shape)
    return queries[allowed] - keys[allowed]  # m − n of every allowed (query, key) pair
