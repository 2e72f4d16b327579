"""Position ids in a real batch: left padding, a key-value cache, OPT's offset of 2.

The formulas of the earlier chapters take positions ``0, 1, 2, …``. A batch of
prompts of different lengths is padded to one length, and decoder models pad on
the *left*, so that every row's next token is in the last column. Counting
columns then gives a row with three padding tokens positions ``3, 4, …`` for its
first real tokens. Real pipelines count only the tokens the attention mask keeps:

* Hugging Face's ``generate`` (transformers 5.x, ``_prepare_position_ids_for_generation``):
  ``cumsum(mask) − 1``, with the padding slots set to 0. After the prompt, each new
  token's id is the row's last id plus one, and a model with a cache is given
  only the ids of the tokens it has not seen (``[:, past_length:]``).
* OPT's learned position table (``OPTLearnedPositionalEmbedding``):
  ``(cumsum(mask) · mask − 1)[:, past_length:] + 2``: rows 0 and 1 of the table
  are never read by a real token (a convention carried over from fairseq, where
  row 1 is the padding index), so padding reads row 1 and real tokens rows 2, 3, ….

Absolute encodings (learned tables, sinusoids) give a padded row different
vectors unless the ids come from the mask. RoPE's scores depend on differences
only, so one constant shift of a whole row leaves them unchanged, but what
depends on the absolute position does not: dynamic NTK's scaling by length,
Llama 4's position-dependent query temperature, and positions past the trained
length. Nor does finite precision: :func:`score_shift_error` measures how much a
RoPE score moves when both positions move by the same amount — nothing in exact
arithmetic, little in float32 at small positions, far more in bfloat16 and at
large positions.
"""

from __future__ import annotations

import numbers

import numpy as np

from ._checks import (
    check_array,
    check_choice,
    check_int,
    check_mask,
    check_same_shape,
    check_size,
    check_storage_float_dtype,
)
from .precision import ANGLE_PRECISIONS

__all__ = ["position_ids_from_mask", "opt_position_rows", "score_shift_error"]

#: The most rotated entries :func:`score_shift_error` holds at once (shifts × vectors ×
#: head_dim; 2**24 float64 numbers: 128 MiB).
MAX_SCORE_ENTRIES = 2**24


def _past_length(past_length, seq_len: int) -> int:
    past_length = check_int("past_length", past_length, minimum=0)
    if past_length > seq_len:
        raise ValueError(
            f"past_length must be <= the mask's length ({seq_len}): the mask covers the cached "
            f"tokens and the new ones, got {past_length}"
        )
    return past_length


def position_ids_from_mask(attention_mask, *, past_length=0) -> np.ndarray:
    """Position ids counted over the tokens a mask keeps, as Hugging Face's ``generate`` does.

    Parameters
    ----------
    attention_mask : array_like of 0/1 or bool, shape (batch, seq_len) or (seq_len,)
        1 for a real token, 0 for padding; it covers the cached tokens and the new ones.
    past_length : int, optional
        How many tokens (columns) the key-value cache already holds; only the ids of
        the columns after them are returned.

    Returns
    -------
    ndarray of int64, shape (batch, seq_len − past_length)
        ``cumsum(mask) − 1`` along each row, 0 at padding.

    References
    ----------
    transformers 5.23, ``GenerationMixin._prepare_position_ids_for_generation``
    (tested against it in ``tests/test_transformers_positions.py``).

    Examples
    --------
    Two prompts, the second left-padded by two:

    >>> mask = [[1, 1, 1, 1], [0, 0, 1, 1]]
    >>> position_ids_from_mask(mask).tolist()
    [[0, 1, 2, 3], [0, 0, 0, 1]]

    One generated token later, with four tokens in the cache:

    >>> position_ids_from_mask([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]], past_length=4).tolist()
    [[4], [2]]
    """
    mask = check_mask("attention_mask", attention_mask)
    past_length = _past_length(past_length, mask.shape[1])
    # ids = cumsum(mask) − 1 over kept tokens; padding slots read 0
    ids = (np.cumsum(mask, axis=1) - 1) * mask
    return ids[:, past_length:]


def opt_position_rows(attention_mask, *, past_length=0) -> np.ndarray:
    """The rows of OPT's learned position table that each token reads (offset 2).

    Parameters
    ----------
    attention_mask : array_like of 0/1 or bool, shape (batch, seq_len) or (seq_len,)
        1 for a real token, 0 for padding; it covers the cached tokens and the new ones.
    past_length : int, optional
        How many tokens the key-value cache already holds.

    Returns
    -------
    ndarray of int64, shape (batch, seq_len − past_length)
        ``(cumsum(mask) · mask − 1)[:, past_length:] + 2``: row 1 at padding, rows
        2, 3, … for the real tokens; row 0 is never read. The table therefore has
        ``max_position_embeddings + 2`` rows (2050 in OPT's released checkpoints).

    References
    ----------
    Zhang et al. (2022), OPT; transformers 5.23, ``OPTLearnedPositionalEmbedding``
    (tested against it in ``tests/test_transformers_positions.py``).

    Examples
    --------
    >>> opt_position_rows([[1, 1, 1], [0, 1, 1]]).tolist()
    [[2, 3, 4], [1, 2, 3]]
    """
    mask = check_mask("attention_mask", attention_mask)
    past_length = _past_length(past_length, mask.shape[1])
    # rows = (cumsum(mask) · mask − 1) + 2: padding → 1, the first real token → 2
    return (np.cumsum(mask, axis=1) * mask - 1)[:, past_length:] + 2


def score_shift_error(
    q, k, m, n, shift, inv_freq, *, dtype=np.float32, angles="float32"
) -> np.ndarray:
    """How much a RoPE score changes when the query's and the key's positions both move by ``s``.

    In exact arithmetic ``⟨R(m + s) q, R(n + s) k⟩ = ⟨R(m) q, R(n) k⟩``: the score
    depends on ``m − n`` alone (Su et al., 2021, eq. 16), which is why a left-padded
    row whose ids count columns, every position moved by the padding, still gets the
    right RoPE scores. A model computes in finite precision::

        score(m, n) = Σ fl(R_m q) · fl(R_n k)
        error(s)    = max over the vector pairs |score(m + s, n + s) − score(m, n)| / (‖q‖ ‖k‖)

    where the angles ``θ = p ω_i`` are computed as ``angles`` says, their cos and sin
    are rounded to ``dtype`` (transformers casts them to the model's dtype), ``q`` and
    ``k`` are rounded to ``dtype``, each rotated pair ``(a cos θ − b sin θ,
    a sin θ + b cos θ)`` is computed from those numbers and rounded once to ``dtype``,
    and the products are summed in float64. The error is in units of ``‖q‖ ‖k‖``, the
    largest score the pair can reach.

    Parameters
    ----------
    q, k : array_like, shape (head_dim,) or (n_vectors, head_dim)
        Queries and keys before rotation, one pair per row; head_dim even, no zero
        vector. Pairs are dimensions ``(i, i + head_dim/2)``; the score does not depend
        on the layout.
    m, n : int
        The query's and the key's positions, >= 0.
    shift : int or array_like of int, shape (n_shifts,)
        The common shift ``s`` (any sign, ``m + s`` and ``n + s`` >= 0).
    inv_freq : array_like, shape (head_dim // 2,)
        The frequencies (:func:`~pe_explained.rope_frequencies`).
    dtype : float dtype, optional
        The model's dtype: ``numpy.float64``, ``numpy.float32``, ``numpy.float16``,
        ``ml_dtypes.bfloat16``, …
    angles : {"float32", "float64"}, optional
        ``"float32"``: ``float32(p) · float32(ω_i)`` in float32, the usual recipe
        (its error grows with the position); ``"float64"``: in float64.

    Returns
    -------
    ndarray of float64, shape (n_shifts,)
        One error per shift (an int ``shift`` gives one entry).

    Examples
    --------
    >>> import ml_dtypes
    >>> q, k = np.random.default_rng(0).normal(size=(2, 8, 64))
    >>> inv_freq = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    >>> shifts = [100, 100_000, 1_000_000]
    >>> exact = score_shift_error(q, k, 10, 5, shifts, inv_freq, dtype=np.float64, angles="float64")
    >>> bool(exact.max() < 1e-11)
    True
    >>> fp32 = score_shift_error(q, k, 10, 5, shifts, inv_freq)
    >>> [f"{e:.0e}" for e in fp32.tolist()]  # float32 angles: an error of about p · 2^-24
    ['7e-08', '9e-05', '7e-04']
    >>> bf16 = score_shift_error(q, k, 10, 5, shifts, inv_freq, dtype=ml_dtypes.bfloat16)
    >>> [f"{e:.0e}" for e in bf16.tolist()]  # bfloat16's rounding, at every position
    ['5e-04', '6e-04', '1e-03']
    """
    q = check_array("q", q, ndim=(1, 2), rule="1-D or 2-D", nonempty=True)
    k = check_array("k", k, ndim=(1, 2), rule="1-D or 2-D", nonempty=True)
    check_same_shape("q", q, "k", k)
    q, k = np.atleast_2d(q), np.atleast_2d(k)
    head_dim = q.shape[-1]
    if head_dim % 2:
        raise ValueError(f"q's last axis (head_dim) must be even, got {head_dim}")
    norms = np.linalg.norm(q, axis=-1) * np.linalg.norm(k, axis=-1)
    if not np.all(norms > 0):
        raise ValueError("q and k must hold no zero vector (the error is relative to ‖q‖ ‖k‖)")
    m = check_int("m", m, minimum=0)
    n = check_int("n", n, minimum=0)
    if isinstance(shift, numbers.Integral) and not isinstance(shift, (bool, np.bool_)):
        shifts = np.array([check_int("shift", shift)], dtype=np.int64)
    else:
        shifts = check_array("shift", shift, kind="integer", ndim=1, rule="an int or 1-D")
    if shifts.size and shifts.min() < -min(m, n):
        raise ValueError(
            f"shift must keep both positions >= 0 (>= {-min(m, n)} for m = {m}, n = {n}), "
            f"got {shifts.min()}"
        )
    if shifts.size and shifts.max() >= 2**53:
        raise ValueError("shift must be below 2**53 (exact in float64)")
    freq = check_array("inv_freq", inv_freq, ndim=1, minimum=0)
    if freq.shape != (head_dim // 2,):
        raise ValueError(
            f"inv_freq must have head_dim/2 = {head_dim // 2} entries, got shape {freq.shape}"
        )
    dtype = check_storage_float_dtype("dtype", dtype)
    angles = check_choice("angles", angles, ANGLE_PRECISIONS)
    check_size("shift", (shifts.size + 1) * q.size, limit=MAX_SCORE_ENTRIES, what="rotated vectors")
    half = head_dim // 2

    def fl(x):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(x).astype(dtype).astype(np.float64)

    qd, kd = fl(q), fl(k)

    def rotated(x, at):
        """fl(R_p x) for every position p in ``at`` (rows) and vector (columns)."""
        if angles == "float32":  # θ = float32(p) · float32(ω_i), one float32 product
            theta = np.multiply.outer(at.astype(np.float32), freq.astype(np.float32))
        else:
            theta = np.multiply.outer(at.astype(np.float64), freq)
        cos, sin = fl(np.cos(theta))[:, None, :], fl(np.sin(theta))[:, None, :]
        a, b = x[None, :, :half], x[None, :, half:]
        # (a, b) ↦ (a cos θ − b sin θ, a sin θ + b cos θ), rounded once to the dtype
        return fl(np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1))

    at_q = np.concatenate([[m], m + shifts])
    at_k = np.concatenate([[n], n + shifts])
    scores = np.einsum("pvd,pvd->pv", rotated(qd, at_q), rotated(kd, at_k))
    error = np.abs(scores[1:] - scores[:1]) / norms[None, :]  # against the unshifted score
    return error.max(axis=1) if shifts.size else np.zeros(0)
