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
  float64 rounded once at the end, which :func:`pe_explained.apply_rope` takes.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_base,
    check_choice,
    check_positions,
    check_positive_even_int,
    check_storage_float_dtype,
)

__all__ = [
    "ANGLE_PRECISIONS",
    "stored_positions",
    "first_colliding_position",
    "float32_rope_cos_sin",
    "rope_angle_error",
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


def float32_rope_cos_sin(positions, head_dim, *, base=10000.0) -> tuple[np.ndarray, np.ndarray]:
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

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        An int ``n`` means ``0 … n−1``; otherwise finite numbers >= 0.
    head_dim : int
        Dimensions per head; positive and even.
    base : float, optional
        RoPE's base; > 1.

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
    # ω_i = base^(−2i/head_dim), rounded to float32 (correctly: the float32 power of a
    # framework may land one unit in the last place away)
    inv_freq = (base ** (-np.arange(0, head_dim, 2) / head_dim)).astype(np.float32)
    theta = np.multiply.outer(pos.astype(np.float32), inv_freq)  # θ = p · ω_i, float32 product
    return np.cos(theta), np.sin(theta)


def rope_angle_error(
    positions, head_dim, *, base=10000.0, angles="float32", output_dtype=np.float32
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
    """
    pos = check_positions("positions", positions)
    head_dim = check_positive_even_int("head_dim", head_dim)
    base = check_base("base", base)
    angles = check_choice("angles", angles, ANGLE_PRECISIONS)
    output_dtype = check_storage_float_dtype("output_dtype", output_dtype)
    omega = base ** (-np.arange(0, head_dim, 2) / head_dim)  # float64 ω_i
    theta = np.multiply.outer(pos.astype(np.float64), omega)  # float64 θ = p · ω_i
    exact_cos, exact_sin = np.cos(theta), np.sin(theta)
    if angles == "float32":
        cos, sin = float32_rope_cos_sin(pos, head_dim, base=base)
    else:
        cos, sin = exact_cos, exact_sin
    cos = cos.astype(output_dtype).astype(np.float64)
    sin = sin.astype(output_dtype).astype(np.float64)
    error = np.maximum(np.abs(cos - exact_cos), np.abs(sin - exact_sin))
    return error.max(axis=1) if error.shape[1] else np.zeros(len(pos))
