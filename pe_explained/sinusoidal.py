"""The sinusoidal positional encoding of Vaswani et al. (2017).

For a position ``pos`` and pair index ``i = 0 … d_model/2 − 1``::

    omega_i          = base ** (-2 i / d_model)
    PE[pos, 2 i]     = sin(pos * omega_i)
    PE[pos, 2 i + 1] = cos(pos * omega_i)

That is the paper's *interleaved* layout. Many code bases (tensor2tensor,
fairseq, and the split-half RoPE layout) instead put every sine first and every
cosine after it; ``layout="halves"`` gives that column order with the paper's
frequencies. tensor2tensor's and fairseq's tables also space their frequencies
differently (``tensor2tensor_timing_signal``, ``fairseq_sinusoidal``), so neither
is this table with its columns permuted.

Integer positions are computed by angle addition — the rotation property of the
encoding itself: ``pos = a·B + b`` and ``e^{i pos ω} = e^{i a B ω} · e^{i b ω}``,
so one complex multiply per output pair replaces a ``sin`` and a ``cos``. The
result is float64-exact (within a few units of the rounding of the angle) and
much faster than evaluating the trigonometric functions on every element.
"""

from __future__ import annotations

import numpy as np

from ._angles import angle_addition, use_angle_addition
from ._checks import (
    check_base,
    check_choice,
    check_float_dtype,
    check_positions,
    check_positive_even_int,
)

__all__ = ["sinusoidal", "sinusoidal_frequencies", "sinusoidal_wavelengths", "LAYOUTS"]

#: The two ways to place pair ``i`` of a vector of width d, shared by every module:
#: ``"interleaved"``, dimensions 2i and 2i + 1 (the paper's table; RoFormer, GPT-J RoPE);
#: ``"halves"``, dimensions i and i + d/2 (the column order of tensor2tensor and fairseq,
#: whose frequencies differ too; GPT-NeoX RoPE).
#: Each function keeps its own default.
LAYOUTS = ("interleaved", "halves")


def sinusoidal_frequencies(d_model, *, base=10000.0) -> np.ndarray:
    """Angular frequencies ω_i of the sinusoidal encoding.

    Parameters
    ----------
    d_model : int
        Width of the encoding; positive and even.
    base : float, optional
        The base of the geometric ladder of frequencies (10000 in the paper).

    Returns
    -------
    omega : ndarray, shape (d_model // 2,), float64
        ``omega[i] = base ** (-2 i / d_model)``: ω_0 = 1 rad per position, falling
        geometrically to ``base ** (-(d_model - 2) / d_model)``.

    References
    ----------
    Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.

    Examples
    --------
    >>> sinusoidal_frequencies(8).tolist()
    [1.0, 0.1, 0.01, 0.001]
    """
    d_model = check_positive_even_int("d_model", d_model)
    base = check_base("base", base)
    i = np.arange(d_model // 2, dtype=np.float64)
    # omega_i = base^(-2i / d_model)
    return np.power(base, -2.0 * i / d_model)


def sinusoidal_wavelengths(d_model, *, base=10000.0) -> np.ndarray:
    """Wavelength 2π/ω_i of every pair, in positions.

    The first pair repeats every 2π ≈ 6.28 positions; the last every
    ``2π · base ** ((d_model - 2) / d_model)`` positions — just under 2π·base.

    Examples
    --------
    >>> [round(w, 2) for w in sinusoidal_wavelengths(8).tolist()]
    [6.28, 62.83, 628.32, 6283.19]
    """
    return 2.0 * np.pi / sinusoidal_frequencies(d_model, base=base)


def _sin_plus_i_cos(positions: np.ndarray, omega: np.ndarray) -> np.ndarray:
    """``sin(pos·ω) + i·cos(pos·ω)`` as complex128 (len(positions), len(omega)).

    Stored as float64 this is exactly the interleaved table [sin, cos, sin, cos, …].
    With ``z(θ) = i·e^{−iθ} = sin θ + i cos θ`` the angle-addition identity reads
    ``z(θ_a + θ_b) = z(θ_a) · e^{−iθ_b}``.
    """
    n, half = len(positions), len(omega)
    out = np.empty((n, half), dtype=np.complex128)
    if n == 0:
        return out
    if not use_angle_addition(positions):  # few rows, or real positions: evaluate directly
        theta = np.multiply.outer(positions.astype(np.float64), omega)
        out.real = np.sin(theta)
        out.imag = np.cos(theta)
        return out
    # z(pos ω) = i e^{-i pos ω}, by angle addition: (i e^{-i a B ω}) · e^{-i b ω}
    return angle_addition(positions, omega, conjugate=True, factor=1j, dtype=np.complex128)


def sinusoidal(
    positions, d_model, *, base=10000.0, layout="interleaved", dtype=np.float64
) -> np.ndarray:
    """The sinusoidal positional-encoding table.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        An int ``n`` means positions ``0 … n−1``; otherwise a 1-D array of finite,
        non-negative positions (integers or not).
    d_model : int
        Width of the encoding; positive and even.
    base : float, optional
        Base of the frequency ladder, ``omega_i = base ** (-2 i / d_model)``.
    layout : {"interleaved", "halves"}, optional
        ``"interleaved"`` (the paper): column 2i is sin, column 2i+1 is cos.
        ``"halves"``: columns 0 … d/2−1 are the sines, d/2 … d−1 the cosines.
    dtype : float dtype, optional
        Output dtype. The table is computed in float64 and rounded once: a
        float32 entry is within half a float32 ulp of the float64 value, which is
        itself exact to a few float64 units of the angle (an absolute error below
        ``pos · ω_i · 2^-50``). Its error is therefore at most half a float32 ulp
        plus that term, which dominates only near zero crossings, where a float32
        ulp is tiny. The usual float32 code, which rounds the angle to float32
        first, is off by about ``pos · ω_i · 2^-24`` everywhere.

    Returns
    -------
    pe : ndarray, shape (n, d_model)

    References
    ----------
    Vaswani et al., "Attention Is All You Need", NeurIPS 2017, section 3.5.

    Examples
    --------
    >>> pe = sinusoidal(3, 4)
    >>> pe.round(4).tolist()
    [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0], [0.9093, -0.4161, 0.02, 0.9998]]
    >>> sinusoidal(3, 4, layout="halves")[2].round(4).tolist()
    [0.9093, 0.02, -0.4161, 0.9998]
    """
    pos = check_positions("positions", positions)
    d_model = check_positive_even_int("d_model", d_model)
    base = check_base("base", base)
    layout = check_choice("layout", layout, LAYOUTS)
    dtype = check_float_dtype("dtype", dtype)

    omega = sinusoidal_frequencies(d_model, base=base)
    pairs = _sin_plus_i_cos(pos, omega)
    table = pairs.view(np.float64)  # (n, d_model): [sin, cos, sin, cos, ...]
    if layout == "halves":
        table = np.concatenate([pairs.real, pairs.imag], axis=1)
    if table.dtype != dtype:
        table = table.astype(dtype)
    return table
