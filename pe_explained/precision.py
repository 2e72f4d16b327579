"""Positions and rotary angles in low precision: which positions collide, how far cos/sin drift.

Two things go wrong when positions meet floating point:

* **Positions collide.** A float with ``m`` fraction bits stores every integer
  exactly only up to ``2^(m+1)``; past it neighbouring positions round to the same
  number. float16 (10 bits) stops at 2,048, bfloat16 (7 bits) at 256, float32 (23
  bits) at 16,777,216. :func:`stored_positions` and :func:`first_colliding_position`
  compute this for any float dtype, including ``ml_dtypes.bfloat16``, which the
  caller passes in (the library itself needs numpy only).
* **Rotary angles drift.** The usual float32 recipe (Hugging Face's rotary classes,
  Meta's reference code) rounds the inverse frequencies to float32, multiplies
  positions by them in float32 and takes cos and sin in float32. The angle
  ``pos · ω`` then carries an absolute error of order ``pos · 2^-24``, so the error
  of cos and sin grows in proportion to the position. :func:`rope_angle_error`
  measures it against the float64 formula, and measures the other route, angles in
  float64 rounded once at the end, which :func:`pe_explained.apply_rope` takes. A
  model cast with ``.to(torch.bfloat16)`` also holds its inverse frequencies in
  bfloat16 (``inv_freq_dtype``), which turns the angles wrong from the first
  thousand positions on.
* **Scores are rounded too.** The rotated query and key are stored in the model's
  dtype (and the key in a KV cache's): :func:`rope_score_error` measures the error
  that leaves on their dot product, exact phasors or not.

:func:`round_to_bfloat16` rounds to bfloat16 with numpy alone (the rounding
``x.to(torch.bfloat16)`` does to a float32 tensor), for functions of the library
that model a bfloat16 computation without asking for ``ml_dtypes``.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_array,
    check_base,
    check_choice,
    check_int,
    check_positions,
    check_positive_even_int,
    check_same_shape,
    check_storage_float_dtype,
)

__all__ = [
    "ANGLE_PRECISIONS",
    "stored_positions",
    "first_colliding_position",
    "float32_rope_cos_sin",
    "rope_angle_error",
    "rope_score_error",
    "round_to_bfloat16",
]

#: How :func:`rope_angle_error` computes the angles: the usual float32 recipe, or float64.
ANGLE_PRECISIONS = ("float32", "float64")


def stored_positions(positions, dtype) -> np.ndarray:
    """The positions as a tensor of ``dtype`` holds them, read back as float64.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        An int ``n`` means ``0 … n−1``; otherwise finite numbers >= 0.
    dtype : float dtype
        ``numpy.float16``, ``numpy.float32``, ``numpy.float64``, or a float type
        registered by another package (``ml_dtypes.bfloat16``).

    Returns
    -------
    ndarray of float64, shape (n,)
        ``float64(dtype(p))`` for every position (round to nearest, ties to even).

    Examples
    --------
    >>> stored_positions([2047, 2048, 2049, 2050], np.float16).tolist()
    [2047.0, 2048.0, 2048.0, 2050.0]
    """
    pos = check_positions("positions", positions)
    dtype = check_storage_float_dtype("dtype", dtype)
    with np.errstate(over="ignore"):  # past the dtype's largest number: inf, reported as such
        return pos.astype(np.float64).astype(dtype).astype(np.float64)


def first_colliding_position(dtype) -> int:
    """The smallest integer position ``p`` that ``dtype`` stores as the same number as ``p + 1``.

    With ``m`` fraction bits every integer up to ``2^(m+1)`` is exact; ``2^(m+1) + 1``
    lies halfway between two neighbours and rounds (ties to even) down to
    ``2^(m+1)``. So the answer is ``2^(m+1)``: 2,048 for float16, 256 for bfloat16,
    16,777,216 for float32. It is found by storing ``2^k`` and ``2^k + 1`` for
    growing ``k``, not from a table of formats.

    Parameters
    ----------
    dtype : float dtype
        As for :func:`stored_positions`.

    Returns
    -------
    int

    Examples
    --------
    >>> first_colliding_position(np.float16), first_colliding_position(np.float32)
    (2048, 16777216)
    """
    dtype = check_storage_float_dtype("dtype", dtype)
    for k in range(1, 1024):
        p = 2.0**k
        pair = np.array([p, p + 1.0]).astype(dtype).astype(np.float64)
        if pair[0] == pair[1] or not np.isfinite(pair).all():
            return int(p)
    raise ValueError(f"dtype {dtype} stores every integer below 2**1024 exactly")


def float32_rope_cos_sin(
    positions, head_dim, *, base=10000.0, inv_freq_dtype=np.float32
) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of RoPE's angles as the usual float32 recipe computes them.

    The steps, each rounded to float32 (as in transformers' default rotary
    embedding, ``compute_default_rope_parameters`` and the rotary ``forward``)::

        ω_i   = base^(−2i / head_dim)           (rounded to float32)
        θ_p,i = float32(p) · ω_i                (one float32 product)
        cos θ_p,i, sin θ_p,i                    (float32)

    Here ``ω_i`` is the correctly rounded float32 value. transformers computes it
    with a float32 power, which can land one unit in the last place away; the angle
    at position ``p`` then moves by up to ``p · ulp(ω_i)``, another error of the same
    order as the one measured here.

    ``inv_freq_dtype`` rounds ``ω_i`` to another format first, as a model's
    ``inv_freq`` buffer holds it: after ``model.to(torch.bfloat16)`` the buffer is
    bfloat16 (``ml_dtypes.bfloat16`` here), and the rotary class multiplies its
    float32 copy by the positions. A bfloat16 ``ω_i`` (8 significant bits) is off by up
    to ``2^-8`` of itself, so the angle at position ``p`` by up to ``p · ω_i · 2^-8``.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        An int ``n`` means ``0 … n−1``; otherwise finite numbers >= 0.
    head_dim : int
        Dimensions per head; positive and even.
    base : float, optional
        RoPE's base; > 1.
    inv_freq_dtype : float dtype, optional
        The format ``ω_i`` is held in before the float32 product (float32, or
        ``ml_dtypes.bfloat16`` for a model cast with ``.to(torch.bfloat16)``).

    Returns
    -------
    cos, sin : ndarray of float32, shape (n, head_dim // 2)

    Examples
    --------
    >>> cos, sin = float32_rope_cos_sin([0, 1], 4)
    >>> cos.dtype, cos[0].tolist(), round(float(sin[1, 0]), 6)
    (dtype('float32'), [1.0, 1.0], 0.841471)
    """
    pos = check_positions("positions", positions)
    head_dim = check_positive_even_int("head_dim", head_dim)
    base = check_base("base", base)
    inv_freq_dtype = check_storage_float_dtype("inv_freq_dtype", inv_freq_dtype)
    # ω_i = base^(−2i/head_dim), rounded to the buffer's format (correctly: the float32
    # power of a framework may land one unit in the last place away), then to float32
    omega = base ** (-np.arange(0, head_dim, 2) / head_dim)
    inv_freq = omega.astype(inv_freq_dtype).astype(np.float32)
    theta = np.multiply.outer(pos.astype(np.float32), inv_freq)  # θ = p · ω_i, float32 product
    return np.cos(theta), np.sin(theta)


def rope_angle_error(
    positions,
    head_dim,
    *,
    base=10000.0,
    angles="float32",
    output_dtype=np.float32,
    inv_freq_dtype=None,
) -> np.ndarray:
    """The largest error of RoPE's cos and sin at each position, against the float64 formula.

    ``error(p) = max_i max(|cos_p,i − cos(p·ω_i)|, |sin_p,i − sin(p·ω_i)|)`` where
    ``ω_i = base^(−2i/head_dim)`` and the exact values are computed in float64.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        An int ``n`` means ``0 … n−1``; otherwise finite numbers >= 0.
    head_dim : int
        Dimensions per head; positive and even.
    base : float, optional
        RoPE's base; > 1.
    angles : {"float32", "float64"}, optional
        ``"float32"``: the usual recipe (:func:`float32_rope_cos_sin`); its error grows
        with the position. ``"float64"``: angles and cos/sin in float64, rounded once at
        the end, as :func:`pe_explained.apply_rope` computes them.
    output_dtype : float dtype, optional
        What cos and sin are finally stored in (transformers casts them to the model's
        dtype, so ``ml_dtypes.bfloat16`` for a bfloat16 model). Default float32.
    inv_freq_dtype : float dtype, optional
        The format the inverse frequencies are held in before the angles are
        computed (``ml_dtypes.bfloat16`` for a model cast with
        ``.to(torch.bfloat16)``, whose ``inv_freq`` buffer is cast too). Default:
        float32 for the float32 recipe, none (float64) for float64 angles.

    Returns
    -------
    ndarray of float64, shape (n,)

    Examples
    --------
    >>> err = rope_angle_error([1000, 100000], 128)
    >>> [f"{e:.0e}" for e in err.tolist()]
    ['3e-05', '5e-03']
    >>> float(rope_angle_error([100000], 128, angles="float64")[0]) < 6e-8
    True
    >>> import ml_dtypes  # numpy's bfloat16 (the book installs it)
    >>> err = rope_angle_error([1000], 32, base=5e5, inv_freq_dtype=ml_dtypes.bfloat16)
    >>> round(float(err[0]), 2)
    0.88
    """
    pos = check_positions("positions", positions)
    head_dim = check_positive_even_int("head_dim", head_dim)
    base = check_base("base", base)
    angles = check_choice("angles", angles, ANGLE_PRECISIONS)
    output_dtype = check_storage_float_dtype("output_dtype", output_dtype)
    if inv_freq_dtype is not None:
        inv_freq_dtype = check_storage_float_dtype("inv_freq_dtype", inv_freq_dtype)
    omega = base ** (-np.arange(0, head_dim, 2) / head_dim)  # float64 ω_i
    theta = np.multiply.outer(pos.astype(np.float64), omega)  # float64 θ = p · ω_i
    exact_cos, exact_sin = np.cos(theta), np.sin(theta)
    if angles == "float32":
        cos, sin = float32_rope_cos_sin(
            pos, head_dim, base=base, inv_freq_dtype=inv_freq_dtype or np.float32
        )
    elif inv_freq_dtype is not None:  # float64 angles from the stored ω_i
        held = np.multiply.outer(pos.astype(np.float64), omega.astype(inv_freq_dtype))
        cos, sin = np.cos(held), np.sin(held)
    else:
        cos, sin = exact_cos, exact_sin
    cos = cos.astype(output_dtype).astype(np.float64)
    sin = sin.astype(output_dtype).astype(np.float64)
    error = np.maximum(np.abs(cos - exact_cos), np.abs(sin - exact_sin))
    return error.max(axis=1) if error.shape[1] else np.zeros(len(pos))


def rope_score_error(
    q,
    k,
    positions,
    distance,
    *,
    base=10000.0,
    angles="float64",
    query_dtype=np.float32,
    key_dtype=np.float32,
) -> np.ndarray:
    """The error of RoPE's score when the rotated query and key are stored in a low precision.

    A model does not attend with its phasors but with the rotated query ``R_m q``
    and key ``R_n k``, held in the model's dtype (bfloat16), the key often in a
    KV cache (bfloat16 or FP8). With ``n = m − distance``::

        error(m) = max over the vector pairs
                   |fl_q(R_m q) · fl_k(R_n k) − q · R_(n−m) k| / (‖q‖ ‖k‖)

    where ``fl_q`` and ``fl_k`` round to ``query_dtype`` and ``key_dtype``, the
    rotation itself is computed in float64 from the chosen angles, and the exact
    score, a function of the distance only (Su et al. 2021, eq. 16), uses float64
    angles ``distance · ω_i``. The products are summed in float64, so the error is
    that of the storage and the angles alone. It is given in units of
    ``‖q‖ ‖k‖``, the largest score the pair can reach.

    Parameters
    ----------
    q, k : array_like, shape (head_dim,) or (n, head_dim)
        Queries and keys before the rotation, one pair per row; head_dim even;
        no zero vector. Pairs are dimensions ``(i, i + head_dim / 2)``.
    positions : int or array_like, shape (p,)
        The query positions ``m`` (an int ``p`` means ``0 … p−1``); each at least
        ``distance``.
    distance : int
        ``m − n``, how far back the key is; >= 0.
    base : float, optional
        RoPE's base; > 1.
    angles : {"float64", "float32"}, optional
        ``"float64"``: exact phasors, as :func:`pe_explained.apply_rope` computes
        them. ``"float32"``: the usual float32 recipe (:func:`float32_rope_cos_sin`).
    query_dtype, key_dtype : float dtype, optional
        What the rotated query and key are stored in (``ml_dtypes.bfloat16``,
        ``ml_dtypes.float8_e4m3fn``, …); default float32.

    Returns
    -------
    ndarray of float64, shape (p,)

    Examples
    --------
    >>> import ml_dtypes
    >>> q, k = np.random.default_rng(0).normal(size=(2, 4, 64))
    >>> exact = rope_score_error(q, k, [5000], 10, query_dtype=np.float64, key_dtype=np.float64)
    >>> bool(exact[0] < 1e-12)  # float64 all the way: the angles' own rounding
    True
    >>> bf16 = ml_dtypes.bfloat16
    >>> err = rope_score_error(q, k, [5000], 10, query_dtype=bf16, key_dtype=bf16)
    >>> f"{err[0]:.1e}"  # 8 significant bits: each entry off by up to 2^-8 of itself
    '7.2e-05'
    """
    q = check_array("q", q, ndim=(1, 2), rule="1-D or 2-D", nonempty=True)
    k = check_array("k", k, ndim=(1, 2), rule="1-D or 2-D", nonempty=True)
    check_same_shape("q", q, "k", k)
    q, k = np.atleast_2d(q), np.atleast_2d(k)
    head_dim = check_positive_even_int("q's last axis (head_dim)", q.shape[-1])
    norms = np.linalg.norm(q, axis=-1) * np.linalg.norm(k, axis=-1)
    if not np.all(norms > 0):
        raise ValueError("q and k must hold no zero vector (the error is relative to ‖q‖ ‖k‖)")
    pos = check_positions("positions", positions)
    distance = check_int("distance", distance, minimum=0)
    if pos.size and pos.min() < distance:
        raise ValueError(
            f"positions must be >= distance ({distance}): the key sits at m − distance, "
            f"got {pos.min()}"
        )
    base = check_base("base", base)
    angles = check_choice("angles", angles, ANGLE_PRECISIONS)
    query_dtype = check_storage_float_dtype("query_dtype", query_dtype)
    key_dtype = check_storage_float_dtype("key_dtype", key_dtype)
    half = head_dim // 2
    omega = base ** (-np.arange(0, head_dim, 2) / head_dim)  # float64 ω_i

    def rotated(x, at, dtype):
        """R_p x for every position p in ``at`` (rows) and vector (columns), stored in dtype."""
        if angles == "float32":
            cos, sin = (t.astype(np.float64) for t in float32_rope_cos_sin(at, head_dim, base=base))
        else:
            theta = np.multiply.outer(at.astype(np.float64), omega)  # θ = p · ω_i
            cos, sin = np.cos(theta), np.sin(theta)
        cos, sin = cos[:, None, :], sin[:, None, :]
        a, b = x[None, :, :half], x[None, :, half:]
        # (a, b) ↦ (a cos θ − b sin θ, a sin θ + b cos θ), then rounded once to the dtype
        out = np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
        with np.errstate(over="ignore"):
            return out.astype(dtype).astype(np.float64)

    scores = np.einsum(
        "pvd,pvd->pv", rotated(q, pos, query_dtype), rotated(k, pos - distance, key_dtype)
    )
    # the exact score: Σ_i (q_a k_a + q_b k_b) cos(dω_i) + (q_a k_b − q_b k_a) sin(dω_i)
    qa, qb, ka, kb = q[:, :half], q[:, half:], k[:, :half], k[:, half:]
    exact = (qa * ka + qb * kb) @ np.cos(distance * omega) + (qa * kb - qb * ka) @ np.sin(
        distance * omega
    )
    error = np.abs(scores - exact[None, :]) / norms[None, :]
    return error.max(axis=1) if pos.size else np.zeros(0)


def round_to_bfloat16(x) -> np.ndarray:
    """``x`` rounded to bfloat16, the nearest value with 8 significant bits, as float32.

    bfloat16 is the upper half of a float32: the sign, the same 8 exponent bits, and
    7 of the 23 fraction bits (8 significant bits with the implicit one). Rounding a
    float32 to it keeps the upper 16 bits of its bit pattern, rounded to the
    nearest, ties to the even one, as ``torch.Tensor.to(torch.bfloat16)`` and
    ``ml_dtypes.bfloat16`` do::

        bits(x) + 0x7FFF + (bit 16 of bits(x)),  lower 16 bits cleared

    The carry of that addition moves into the exponent where it must (``255.5`` →
    ``256``), and a value past bfloat16's largest finite value (about 3.39e38)
    rounds to ±inf. Numbers are first cast to float32 (from float64 by
    round-to-nearest), as a float32 tensor holds them before the cast.

    Parameters
    ----------
    x : array_like
        Finite real numbers, any shape.

    Returns
    -------
    ndarray of float32, the shape of ``x``
        Every entry a bfloat16 value.

    Examples
    --------
    >>> round_to_bfloat16([1 + 2**-8, 1 + 3 * 2**-8, 255.5, 0.9576033]).tolist()
    [1.0, 1.015625, 256.0, 0.95703125]
    >>> round_to_bfloat16([1960.0, 1961.2, 1963.9, 1964.0]).tolist()  # spacing 8 here
    [1960.0, 1960.0, 1960.0, 1968.0]
    """
    x = check_array("x", x)
    with np.errstate(over="ignore"):
        x32 = np.array(x, dtype=np.float32)  # beyond float32's range: ±inf
    bits = x32.view(np.uint32)
    # round to nearest, ties to even, at bit 16: add 0x7FFF plus the bit that is kept last
    kept_lowest = (bits >> np.uint32(16)) & np.uint32(1)
    rounded = (bits + np.uint32(0x7FFF) + kept_lowest) & np.uint32(0xFFFF0000)
    return rounded.view(np.float32)
