"""xPos: RoPE with an exponential decay (Sun et al., 2023).

xPos rotates queries and keys exactly as RoPE does and, in addition, scales
pair ``i`` of the query at position ``n`` by ``ζ_i ** (n / scale_base)`` and
pair ``i`` of the key at position ``m`` by ``ζ_i ** (−m / scale_base)``, with::

    ζ_i = (2 i / head_dim + γ) / (1 + γ),      i = 0 … head_dim/2 − 1,  γ = 0.4

so their dot product carries ``ζ_i ** ((n − m) / scale_base)``: for a key before
the query (``m < n``) a factor below 1 that shrinks with the distance, fastest for
the high-frequency pairs (small ``i``, small ``ζ_i``). Those are the pairs whose
cosines make RoPE's expected score oscillate at long distances; damping them
smooths the curve. For a key after the query the factor exceeds 1 and grows: the
decay assumes causal attention.

The reference code (torchscale) applies the scale in RoPE's *interleaved*
layout — pair ``i`` occupies dimensions ``2i`` and ``2i + 1`` — and centres the
positions of the scale on the middle of the sequence
(:func:`xpos_centred_positions`); the rotation keeps positions ``0 … n−1``.
Centring multiplies every query by one constant and every key by its inverse, so
the scores are unchanged; it halves the largest exponent, which is not the same as
keeping the factors near 1: for pair 0 of a centred sequence of 2,048 they run from
``ζ_0^2 ≈ 0.082`` to ``ζ_0^−2 ≈ 12.25``, and :func:`xpos_safe_position` says where
they leave a float format's normal range.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import (
    check_choice,
    check_float,
    check_int,
    check_optional,
    check_positions,
    check_positive_even_int,
)
from .rope import rope_frequencies
from .sinusoidal import LAYOUTS

__all__ = [
    "xpos_zeta",
    "xpos_scale",
    "xpos_centred_positions",
    "xpos_safe_position",
    "expected_rotary_score",
]


def xpos_zeta(head_dim, *, gamma=0.4) -> np.ndarray:
    """The per-pair decay base ``ζ_i = (2i/head_dim + γ)/(1 + γ)``, shape (head_dim/2,).

    Runs from ``γ/(1+γ)`` for pair 0 up to just below 1 for the last pair.

    Examples
    --------
    >>> [round(z, 4) for z in xpos_zeta(8).tolist()]
    [0.2857, 0.4643, 0.6429, 0.8214]
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    gamma = check_float("gamma", gamma, greater_than=0.0)
    i = np.arange(head_dim // 2, dtype=np.float64)
    # zeta_i = (2i / head_dim + gamma) / (1 + gamma)
    return (2.0 * i / head_dim + gamma) / (1.0 + gamma)


def xpos_scale(head_dim, positions, *, scale_base=512, gamma=0.4, layout="interleaved"):
    """The factors xPos multiplies queries by (keys are divided by them).

    Parameters
    ----------
    head_dim : int
        Width of one head's queries and keys; positive and even.
    positions : int or array_like, shape (n,)
        Positions ``0 … n−1`` for an int, or a 1-D array of finite positions of any
        sign (torchscale's are centred: :func:`xpos_centred_positions`). Positions
        whose factors, or their inverses, would leave float64's range are refused.
    scale_base : float, optional
        The distance over which the factor of pair ``i`` falls by ``ζ_i`` (512).
    gamma : float, optional
        γ in ``ζ_i``, > 0 (0.4 in the paper).
    layout : {"interleaved", "halves"}, optional
        Which columns pair ``i`` occupies: ``2i, 2i+1`` (torchscale's, the
        default) or ``i, i + head_dim/2`` (to pair with split-half RoPE).

    Returns
    -------
    scale : ndarray, shape (n, head_dim), float64
        ``scale[p, column of pair i] = ζ_i ** (positions[p] / scale_base)``.

    References
    ----------
    Sun et al., "A Length-Extrapolatable Transformer", ACL 2023, section 3.

    Examples
    --------
    >>> xpos_scale(4, [0, 512]).round(4).tolist()
    [[1.0, 1.0, 1.0, 1.0], [0.2857, 0.2857, 0.6429, 0.6429]]
    """
    zeta = xpos_zeta(head_dim, gamma=gamma)
    pos = check_positions("positions", positions, signed=True)
    scale_base = check_float("scale_base", scale_base, greater_than=0.0)
    layout = check_choice("layout", layout, LAYOUTS)
    limit = xpos_safe_position(
        head_dim,
        smallest=float(np.finfo(np.float64).tiny),
        largest=float(np.finfo(np.float64).max),
        scale_base=scale_base,
        gamma=gamma,
    )
    if pos.size and np.abs(pos).max() > limit:
        raise ValueError(
            f"positions must lie within ±{limit:,.0f} for head_dim {head_dim}, scale_base "
            f"{scale_base:g}: beyond it pair 0's factor or its inverse leaves float64's normal "
            f"range (got {np.abs(pos).max():g}; centre them with xpos_centred_positions)"
        )
    # scale[p, i] = zeta_i ^ (pos_p / scale_base)
    per_pair = np.power(zeta[None, :], pos.astype(np.float64)[:, None] / scale_base)
    if layout == "interleaved":
        return np.repeat(per_pair, 2, axis=1)
    return np.concatenate([per_pair, per_pair], axis=1)


def xpos_centred_positions(length, *, offset=0) -> np.ndarray:
    """The positions torchscale raises ``ζ_i`` to: the sequence centred on its middle.

    For ``length`` new tokens after ``offset`` earlier ones, torchscale's ``XPOS``
    takes positions ``min_pos … min_pos + length + offset − 1`` with
    ``min_pos = −⌈(length + offset) / 2⌉`` and keeps the last ``length`` of them.
    (Its rotation angles still use ``0 … length + offset − 1``.)

    Parameters
    ----------
    length : int
        Tokens in this call, >= 0.
    offset : int, optional
        Tokens before them (decoding with a cache), >= 0.

    Returns
    -------
    ndarray of int64, shape (length,)

    References
    ----------
    torchscale, ``torchscale/component/xpos_relative_position.py``, ``XPOS.forward``.

    Examples
    --------
    >>> xpos_centred_positions(5).tolist()
    [-3, -2, -1, 0, 1]
    """
    length = check_int("length", length, minimum=0)
    offset = check_int("offset", offset, minimum=0)
    total = length + offset
    min_pos = -((total + 1) // 2)  # −⌈total / 2⌉, Python's -(total) // 2
    return np.arange(min_pos, min_pos + total, dtype=np.int64)[total - length :]


def xpos_safe_position(head_dim, *, smallest, largest, scale_base=512, gamma=0.4) -> float:
    """The largest ``|position|`` at which every xPos factor and its inverse stay in a range.

    Pair 0 has the smallest ``ζ_0 = γ / (1 + γ)``, so its factors ``ζ_0^(±p/B)`` are the
    extremes; they stay within ``[smallest, largest]`` while::

        |p| <= B · min(ln(1 / smallest), ln(largest)) / ln(1 / ζ_0)

    Pass a float format's smallest normal number and its largest number (``numpy.finfo``,
    or ``ml_dtypes.finfo`` for bfloat16) to learn where the factors under- or overflow.

    Parameters
    ----------
    head_dim : int
        Width of one head; positive and even.
    smallest, largest : float
        The range, ``0 < smallest < 1 < largest``.
    scale_base : float, optional
        ``B``, 512 by default.
    gamma : float, optional
        γ, 0.4 by default.

    Returns
    -------
    float

    Examples
    --------
    >>> round(xpos_safe_position(64, smallest=2.0**-14, largest=65504.0))   # float16
    3966
    """
    zeta = xpos_zeta(head_dim, gamma=gamma)
    smallest = check_float("smallest", smallest, greater_than=0.0, less_than=1.0)
    largest = check_float("largest", largest, greater_than=1.0)
    scale_base = check_float("scale_base", scale_base, greater_than=0.0)
    # ζ0^(p/B) >= smallest and ζ0^(−p/B) <= largest  ⇔  |p| <= B · ln(limit) / ln(1/ζ0)
    headroom = min(math.log(1.0 / smallest), math.log(largest))
    return scale_base * headroom / math.log(1.0 / float(zeta[0]))


def expected_rotary_score(head_dim, distances, *, base=10000.0, scale_base=None, gamma=0.4):
    """Expected score of a query and a key with the same content, ``distances`` apart.

    For content vectors drawn with ``E[q qᵀ] = σ² I`` and RoPE angles
    ``ω_i = base ** (−2i/head_dim)``, the rotated query at ``n`` and key at
    ``m = n − Δ`` satisfy, relative to the score at distance 0::

        E[q_n · k_m] / E[q · q] = (2/head_dim) · Σ_i ζ_i^(Δ/scale_base) · cos(Δ ω_i)

    with ``ζ_i^(…) = 1`` for plain RoPE (``scale_base=None``).

    Parameters
    ----------
    head_dim : int
        Positive and even.
    distances : int or array_like of numbers >= 0
        Query position minus key position.
    base : float, optional
        RoPE's base (10000).
    scale_base : float or None, optional
        None for RoPE alone; xPos's ``scale_base`` (512) to include its decay.
    gamma : float, optional
        xPos's γ (0.4).

    Returns
    -------
    score : ndarray, shape (len(distances),), float64; 1.0 at distance 0.

    Examples
    --------
    >>> expected_rotary_score(64, [0, 1000]).round(3).tolist()
    [1.0, 0.279]
    >>> expected_rotary_score(64, [0, 1000], scale_base=512).round(3).tolist()
    [1.0, 0.189]
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    delta = check_positions("distances", distances).astype(np.float64)
    scale_base = check_optional(check_float, "scale_base", scale_base, greater_than=0.0)
    zeta = xpos_zeta(head_dim, gamma=gamma)  # checks gamma even when scale_base is None
    omega, _ = rope_frequencies(head_dim, base=base)  # RoPE's ladder: base^(-2i/head_dim)
    theta = np.multiply.outer(delta, omega)  # theta = delta * omega_i
    weight = np.ones_like(theta)
    if scale_base is not None:
        weight = np.power(zeta[None, :], delta[:, None] / scale_base)
    return (weight * np.cos(theta)).mean(axis=1)
