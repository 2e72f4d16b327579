"""Unit phasors ``e^{i pos ω}`` for many integer positions, by angle addition.

The sinusoidal table and RoPE both need ``cos(pos·ω)`` and ``sin(pos·ω)`` for
every position and every frequency. For integer positions the rotation property
gives them with one complex multiply each instead of a ``cos`` and a ``sin``:
write ``pos = a·B + b`` with ``0 ≤ b < B`` and ``B ≈ √(max pos)``, then::

    e^{i pos ω} = e^{i a B ω} · e^{i b ω}

from two small tables of about ``√(max pos)`` rows each. Every entry is exact to
float64 rounding of the two factors (a few units in the last place).
"""

from __future__ import annotations

import math

import numpy as np


def rotations(k: np.ndarray, omega: np.ndarray, *, conjugate: bool) -> np.ndarray:
    """``e^{i k ω}`` (or its conjugate) for every k and ω, as complex128 (len(k), len(omega))."""
    theta = np.multiply.outer(k.astype(np.float64), omega)  # theta = k * omega
    out = np.empty(theta.shape, dtype=np.complex128)
    out.real = np.cos(theta)
    out.imag = -np.sin(theta) if conjugate else np.sin(theta)
    return out


def use_angle_addition(positions: np.ndarray, *, min_rows: int = 0) -> bool:
    """Whether to compute the phasors of ``positions`` by angle addition.

    Its two tables hold about ``B + max/B ≈ 2√max`` rows. They are built only when
    that is at most the number of positions plus a small constant (64), so that a few
    rows at a huge position (10**12, 2**62) cost their rows, never the largest
    position; those are computed directly, a cos and a sin per entry. Non-integer
    positions, and fewer than ``min_rows`` positions, are always computed directly.
    """
    n = len(positions)
    if positions.dtype.kind not in "iu" or n == 0 or n < min_rows:
        return False
    top = int(positions.max())
    block = max(1, math.isqrt(top + 1))
    return block + top // block + 1 <= n + 64


def angle_addition(
    positions: np.ndarray, omega: np.ndarray, *, conjugate: bool, factor, dtype
) -> np.ndarray:
    """``factor · e^{±i pos ω}`` for integer ``positions`` (1-D, ≥ 0, not empty), as ``dtype``.

    Parameters
    ----------
    positions : ndarray of int, shape (n,)
    omega : ndarray, shape (m,)
        Angular frequencies.
    conjugate : bool
        ``e^{−i pos ω}`` instead of ``e^{i pos ω}``.
    factor : complex or float
        Multiplies the table of block starts ``e^{±i a B ω}`` (so every entry) once:
        ``1j`` turns ``e^{−iθ}`` into ``sin θ + i cos θ``, a float scales the phasors.
    dtype : complex dtype
        Both tables are rounded to it before the product.

    Returns
    -------
    ndarray, shape (n, m), ``dtype``
    """
    n, m = len(positions), len(omega)
    top = int(positions.max())
    block = max(1, math.isqrt(top + 1))  # pos = a * block + b, 0 <= b < block
    low = rotations(np.arange(block), omega, conjugate=conjugate).astype(dtype, copy=False)
    # e^{±i a block ω} for a = 0 … top // block
    starts = np.arange(top // block + 1) * block
    high = (factor * rotations(starts, omega, conjugate=conjugate)).astype(dtype, copy=False)
    out = np.empty((n, m), dtype=dtype)
    if positions[0] == 0 and np.array_equal(positions, np.arange(n)):  # 0 … n−1: block by block
        full, rest = divmod(n, block)
        body = out[: full * block].reshape(full, block, m)
        np.multiply(high[:full, None, :], low[None, :, :], out=body)
        if rest:
            np.multiply(high[full], low[:rest], out=out[full * block :])
    else:
        a, b = np.divmod(positions, block)
        np.multiply(high[a], low[b], out=out)
    return out
