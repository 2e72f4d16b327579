"""Properties of the sinusoidal encoding: distances, dot products and the offset map.

Everything here follows from one identity. Pair ``i`` of ``PE(pos)`` is the point
``(sin θ, cos θ)`` with ``θ = pos · ω_i``, so moving from ``pos`` to ``pos + k``
turns every pair by the angle ``k · ω_i``::

    sin(θ + kω) =  cos(kω) · sin θ + sin(kω) · cos θ
    cos(θ + kω) = −sin(kω) · sin θ + cos(kω) · cos θ

Hence ``PE(pos + k) = M_k · PE(pos)`` with ``M_k`` block-diagonal (one 2×2
rotation per pair) and independent of ``pos`` (:func:`offset_matrix`), and every
quantity comparing two positions depends on their offset ``k`` only:

* ``PE(p) · PE(p + k) = Σ_i cos(k ω_i)``                   (:func:`dot_product_by_offset`)
* ``‖PE(p + k) − PE(p)‖² = Σ_i 4 sin²(k ω_i / 2)``           (:func:`distance_by_offset`)
* the angle between ``PE(p+k) − PE(p)`` and ``PE(p+s+k) − PE(p+s)``
  (:func:`difference_cosine`).
"""

from __future__ import annotations

import numbers

import numpy as np

from ._checks import (
    check_array,
    check_base,
    check_choice,
    check_float,
    check_int,
    check_offsets,
    check_positive_even_int,
)
from .sinusoidal import LAYOUTS, sinusoidal_frequencies

__all__ = [
    "pairwise_distances",
    "distance_by_offset",
    "dot_product_by_offset",
    "first_distance_decrease",
    "offset_matrix",
    "difference_cosine",
    "cycles_within",
    "slow_pair_count",
    "ramp_pair_count",
    "nearest_return",
]


def _shaped_like(result: np.ndarray, offsets) -> np.ndarray | float:
    """A float for a scalar ``offsets``, the array otherwise."""
    return float(result[0]) if isinstance(offsets, numbers.Real) else result


#: An encoding table: finite reals, one position per row.
_TABLE = {"ndim": 2, "rule": "2-D (positions × dimensions)"}


def pairwise_distances(table, other=None) -> np.ndarray:
    """Euclidean distance between every two rows of an encoding table (or of two tables).

    Parameters
    ----------
    table : array_like, shape (n, d)
        One encoding per row, e.g. ``sinusoidal(n, d_model)``.
    other : array_like, shape (m, d), optional
        A second table; by default ``table`` itself.

    Returns
    -------
    dist : ndarray, shape (n, m), float64
        ``dist[p, q] = ‖table[p] − other[q]‖``; without ``other``, symmetric with
        a zero diagonal.

    Examples
    --------
    >>> from pe_explained import sinusoidal
    >>> pairwise_distances(sinusoidal(3, 2)).round(4).tolist()
    [[0.0, 0.9589, 1.6829], [0.9589, 0.0, 0.9589], [1.6829, 0.9589, 0.0]]
    """
    a = check_array("table", table, **_TABLE)
    b = a if other is None else check_array("other", other, **_TABLE)
    if b.shape[1] != a.shape[1]:
        raise ValueError(f"other must have {a.shape[1]} columns like table, got {b.shape[1]}")
    diff = a[:, None, :] - b[None, :, :]
    # dist[p, q] = sqrt(Σ_j (table[p, j] − other[q, j])²), without the cancellation of the
    # ‖a‖² + ‖b‖² − 2a·b shortcut
    return np.sqrt(np.einsum("pqj,pqj->pq", diff, diff))


def dot_product_by_offset(offsets, d_model, *, base=10000.0):
    """``PE(p) · PE(p + k)`` for every offset k, in closed form.

    ``sin(pω)sin((p+k)ω) + cos(pω)cos((p+k)ω) = cos(kω)``, so the dot product is
    ``Σ_i cos(k ω_i)``: the same for every ``p`` and even in ``k``.

    Parameters
    ----------
    offsets : float or array_like, shape (m,)
        Offsets k (any sign, integer or not).
    d_model : int
        Width of the encoding; positive and even.
    base : float, optional
        Base of the frequency ladder.

    Returns
    -------
    float or ndarray, shape (m,)
        ``d_model / 2`` at ``k = 0``.

    Examples
    --------
    >>> dot_product_by_offset([0, 1, -1], 2).round(4).tolist()
    [1.0, 0.5403, 0.5403]
    """
    k = check_offsets("offsets", offsets)
    omega = sinusoidal_frequencies(d_model, base=base)
    # PE(p)·PE(p+k) = Σ_i cos(k ω_i)
    return _shaped_like(np.cos(np.multiply.outer(k, omega)).sum(axis=1), offsets)


def distance_by_offset(offsets, d_model, *, base=10000.0):
    """``‖PE(p + k) − PE(p)‖`` for every offset k, in closed form.

    Each pair contributes a chord of the unit circle spanning the angle ``k ω_i``:
    ``‖PE(p+k) − PE(p)‖² = Σ_i 4 sin²(k ω_i / 2) = d_model − 2 Σ_i cos(k ω_i)``.
    The first form has no cancellation at small k.

    Examples
    --------
    >>> round(distance_by_offset(np.pi, 2), 12)         # half a turn of the only pair
    2.0
    >>> distance_by_offset([0, 3, 4], 16).round(4).tolist()
    [0.0, 2.2167, 2.2092]
    """
    k = check_offsets("offsets", offsets)
    omega = sinusoidal_frequencies(d_model, base=base)
    # ‖PE(p+k) − PE(p)‖² = Σ_i 4 sin²(k ω_i / 2)
    chord = 2.0 * np.sin(np.multiply.outer(k, omega) / 2.0)
    return _shaped_like(np.sqrt((chord**2).sum(axis=1)), offsets)


def first_distance_decrease(d_model, *, base=10000.0, max_offset=4096):
    """The first integer offset after which the distance to a position shrinks.

    Returns the smallest ``k ≥ 0`` with ``distance(k + 1) < distance(k)``
    (:func:`distance_by_offset`): up to ``k`` the distance grows with the offset,
    and ``k + 1`` is closer than ``k``. ``None`` if the distance grows all the way
    to ``max_offset``.

    Examples
    --------
    >>> first_distance_decrease(2)     # 2|sin(k/2)| peaks near k = π
    3
    >>> first_distance_decrease(16)
    3
    """
    d_model = check_positive_even_int("d_model", d_model)
    max_offset = check_int("max_offset", max_offset, minimum=1)
    dist = distance_by_offset(np.arange(max_offset + 1), d_model, base=base)
    shrinks = np.flatnonzero(np.diff(dist) < 0)
    return int(shrinks[0]) if shrinks.size else None


def offset_matrix(k, d_model, *, base=10000.0, layout="interleaved") -> np.ndarray:
    """The matrix ``M_k`` with ``PE(pos + k) = M_k @ PE(pos)`` for every ``pos``.

    Block-diagonal: pair ``i`` gets the 2×2 rotation by the angle ``k ω_i``
    acting on ``(sin, cos)``::

        [ cos(kω_i)   sin(kω_i) ]
        [ −sin(kω_i)  cos(kω_i) ]

    It depends on ``k`` only, is orthogonal, ``M_j M_k = M_{j+k}`` and
    ``M_{−k} = M_kᵀ``. For a table with one position per row,
    ``table[p + k] = table[p] @ M_k.T``.

    Parameters
    ----------
    k : float
        The offset (any sign, integer or not).
    d_model : int
        Width of the encoding; positive and even.
    base : float, optional
        Base of the frequency ladder.
    layout : {"interleaved", "halves"}, optional
        Column order of the encoding it acts on (as in :func:`~pe_explained.sinusoidal`).
        With ``"halves"`` pair ``i`` occupies columns ``i`` and ``i + d_model/2``.

    Returns
    -------
    ndarray, shape (d_model, d_model), float64

    Examples
    --------
    >>> from pe_explained import sinusoidal
    >>> m = offset_matrix(3, 4)
    >>> bool(np.allclose(m @ sinusoidal([5], 4)[0], sinusoidal([8], 4)[0]))
    True
    """
    k = check_float("k", k)
    d_model = check_positive_even_int("d_model", d_model)
    layout = check_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(d_model, base=base)
    theta = k * omega  # the angle every pair turns by
    cos, sin = np.cos(theta), np.sin(theta)
    half = d_model // 2
    if layout == "interleaved":
        s_col, c_col = np.arange(0, d_model, 2), np.arange(1, d_model, 2)
    else:
        s_col, c_col = np.arange(half), np.arange(half, d_model)
    m = np.zeros((d_model, d_model))
    # sin(θ + kω) = cos(kω) sin θ + sin(kω) cos θ
    m[s_col, s_col], m[s_col, c_col] = cos, sin
    # cos(θ + kω) = −sin(kω) sin θ + cos(kω) cos θ
    m[c_col, s_col], m[c_col, c_col] = -sin, cos
    return m


def difference_cosine(k, separations, d_model, *, base=10000.0):
    """Cosine between the difference vectors ``D_k(p)`` and ``D_k(p + s)``.

    ``D_k(p) = PE(p + k) − PE(p) = (M_k − I) PE(p)`` and ``D_k(p + s) = M_s D_k(p)``:
    the difference vector has the same length at every ``p`` but turns as ``p``
    moves. Pair ``i`` of ``D_k(p)`` has length ``2|sin(k ω_i / 2)|`` and turns by
    ``s ω_i``, so::

        cos(D_k(p), D_k(p + s)) = Σ_i sin²(k ω_i/2) cos(s ω_i) / Σ_i sin²(k ω_i/2)

    — independent of ``p``. With ``s = 1`` this is the "similarity of consecutive
    difference vectors" some tutorials print; it is a weighted mean of
    ``cos(ω_i)``, not evidence that the difference keeps its direction.

    Parameters
    ----------
    k : float
        The offset defining the difference vectors; not 0 (``D_0`` is the zero vector).
    separations : float or array_like, shape (m,)
        How far apart the two starting positions are (``s``).
    d_model : int
    base : float, optional

    Examples
    --------
    >>> round(difference_cosine(1, 1, 2), 4)   # one pair: it turns by ω_0 = 1 rad
    0.5403
    """
    k = check_float("k", k)
    s = check_offsets("separations", separations)
    omega = sinusoidal_frequencies(d_model, base=base)
    # weight of pair i: sin²(k ω_i / 2), a quarter of its squared share of ‖D_k‖²
    weight = np.sin(k * omega / 2.0) ** 2
    if not weight.sum() > 0:
        raise ValueError(f"k must make a non-zero difference vector, got k={k:g}")
    cosine = np.cos(np.multiply.outer(s, omega)) @ weight / weight.sum()
    return _shaped_like(cosine, separations)


def cycles_within(length, d_model, *, base=10000.0) -> np.ndarray:
    """How many full turns each pair makes over ``length`` positions: ``length · ω_i / 2π``.

    A pair with fewer than one cycle has shown only part of its circle by the end
    of a sequence of that length; positions beyond it give that pair angles — and so
    (sin, cos) values — that never occurred within the length.

    Examples
    --------
    >>> cycles_within(2 * np.pi, 4).round(4).tolist()
    [1.0, 0.01]
    """
    length = check_float("length", length, greater_than=0.0)
    check_base("base", base)
    # cycles_i = length · ω_i / 2π
    return length * sinusoidal_frequencies(d_model, base=base) / (2.0 * np.pi)


def slow_pair_count(length, d_model, *, base=10000.0) -> int:
    """How many pairs are slower than a context of ``length`` positions.

    A pair is slower than the context when its wavelength is longer than it,
    i.e. it completes less than one full cycle within it (:func:`cycles_within`
    below 1). Within the context such a pair shows only part of its circle;
    positions beyond it give angles it never took. RoPE turns its pairs with the
    same ladder ``ω_i = base^(−2i/head_dim)``, so ``d_model = head_dim`` counts the
    slow pairs of a RoPE head.

    Parameters
    ----------
    length : float
        The context, in positions; > 0.
    d_model : int
        Width of the encoding (or RoPE's ``head_dim``); positive and even.
    base : float, optional
        Base of the frequency ladder; > 1. 10000 in Vaswani et al. (2017).

    Returns
    -------
    int
        The number of pairs ``i`` with ``2π / ω_i > length``, between 0 and ``d_model / 2``.

    Notes
    -----
    The slow pairs are the last ones: ``2π · base^(2i/d_model) > length`` holds
    from ``i > (d_model / 2) · ln(length / 2π) / ln(base)`` on. Vaswani et al.
    (2017), section 3.5; for RoPE, Su et al. (2021).

    Examples
    --------
    >>> slow_pair_count(512, 512)        # the original transformer's width and a 512 context
    133
    >>> slow_pair_count(4096, 128)       # a RoPE head of Llama 2
    18
    """
    d_model = check_positive_even_int("d_model", d_model)
    # slow: cycles_i = length · ω_i / 2π < 1  ⇔  2π / ω_i > length
    return int((cycles_within(length, d_model, base=base) < 1.0).sum())


def ramp_pair_count(length, d_model, *, base=10000.0) -> int:
    """How many pairs turn at most a quarter turn over ``length`` positions.

    Over positions ``0 … length`` such a pair's sine only rises and its cosine only
    falls: the pair is a ramp that says "early" or "late", not a vibration. Every
    ramp is a slow pair (:func:`slow_pair_count`); slow pairs that turn more than a
    quarter turn rise and then fall back within the context.

    Parameters
    ----------
    length : float
        The context, in positions; > 0.
    d_model : int
        Width of the encoding (or RoPE's ``head_dim``); positive and even.
    base : float, optional
        Base of the frequency ladder; > 1. 10000 in Vaswani et al. (2017).

    Returns
    -------
    int
        The number of pairs ``i`` with ``length · ω_i ≤ π/2``, i.e. a wavelength of at
        least four times the context.

    Notes
    -----
    Vaswani et al. (2017), section 3.5: ``ω_i = base^(−2i/d_model)``.

    Examples
    --------
    >>> ramp_pair_count(512, 512), slow_pair_count(512, 512)
    (95, 133)
    """
    d_model = check_positive_even_int("d_model", d_model)
    # ramp: length · ω_i ≤ π/2  ⇔  cycles_i ≤ 1/4
    return int((cycles_within(length, d_model, base=base) <= 0.25).sum())


def nearest_return(max_offset, d_model, *, base=10000.0, min_offset=2, chunk=65536):
    """The offset whose encoding comes closest to the start: ``argmin ‖PE(k) − PE(0)‖``.

    Searches the integer offsets ``min_offset ≤ k ≤ max_offset`` with the closed form
    of :func:`distance_by_offset`, ``chunk`` offsets at a time, so the search costs
    memory for ``chunk`` rows whatever ``max_offset`` is. By the rotation property the
    answer holds around every position: ``PE(p + k)`` is as close to ``PE(p)``. A
    near-return closer than the neighbour, ``‖PE(1) − PE(0)‖``, makes a far position
    look nearer than the next one.

    Parameters
    ----------
    max_offset : int
        The largest offset searched; >= ``min_offset``.
    d_model : int
        Width of the encoding (or RoPE's ``head_dim``); positive and even.
    base : float, optional
        Base of the frequency ladder; > 1.
    min_offset : int, optional
        The smallest offset searched; >= 1. The default 2 skips the neighbour.
    chunk : int, optional
        Offsets evaluated at once; >= 1.

    Returns
    -------
    tuple of (int, float)
        The offset and its distance ``‖PE(k) − PE(0)‖``; the first one on a tie.

    Examples
    --------
    >>> k, distance = nearest_return(1000, 2)      # 710 radians ≈ 113 full turns
    >>> k, round(distance, 5)
    (710, 6e-05)
    """
    max_offset = check_int("max_offset", max_offset, minimum=1)
    min_offset = check_int("min_offset", min_offset, minimum=1)
    if max_offset < min_offset:
        raise ValueError(f"max_offset must be >= min_offset = {min_offset}, got {max_offset}")
    d_model = check_positive_even_int("d_model", d_model)
    check_base("base", base)
    chunk = check_int("chunk", chunk, minimum=1)
    # the slowest pairs' chords bound the distance from below: an offset whose bound
    # already exceeds the best distance found is not computed in full (the same answer,
    # to the bit: the survivors' distances are distance_by_offset's)
    omega = sinusoidal_frequencies(d_model, base=base)[::-1]  # slowest first
    stages = [n for n in _BOUND_PAIRS if n < omega.size]
    best_k, best = min_offset, np.inf
    for start in range(min_offset, max_offset + 1, chunk):
        k = np.arange(start, min(start + chunk, max_offset + 1))
        if np.isfinite(best):
            bound, done = np.zeros(k.size), 0
            for n in stages:
                chord = 2.0 * np.sin(np.multiply.outer(k, omega[done:n]) / 2.0)
                bound += (chord**2).sum(axis=1)
                keep = bound <= best * best * (1 + 1e-9)  # a margin for rounding
                k, bound, done = k[keep], bound[keep], n
            if not k.size:
                continue
        # ‖PE(k) − PE(0)‖ = sqrt(Σ_i 4 sin²(k ω_i / 2))
        distance = distance_by_offset(k, d_model, base=base)
        i = int(np.argmin(distance))
        if distance[i] < best:
            best_k, best = int(k[i]), float(distance[i])
    return best_k, best


#: How many of the slowest pairs bound :func:`nearest_return`'s distances from below, in
#: turn: most offsets are ruled out by the first few.
_BOUND_PAIRS = (4, 16)
