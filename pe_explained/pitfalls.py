"""Wrong variants of the sinusoidal encoding, and tests of wrong claims about it.

**Nothing in this module is a correct positional encoding.** Each function
reproduces a mistake that circulates in tutorials, or measures how far a wrong
claim is from the truth, so that the book can show the mistake with numbers.
Use :func:`pe_explained.sinusoidal` for the real encoding.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_base,
    check_choice,
    check_int,
    check_positions,
    check_positive_even_int,
)
from .properties import offset_matrix, pairwise_distances
from .sinusoidal import LAYOUTS, sinusoidal

__all__ = [
    "doubled_exponent_frequencies",
    "sinusoidal_doubled_exponent",
    "sum_rule_errors",
    "wrong_layout_lookup",
]


def doubled_exponent_frequencies(d_model, *, base=10000.0) -> np.ndarray:
    """**Wrong.** The frequencies of the doubled-exponent bug, one per sin/cos pair.

    The bug: a loop ``for i in range(0, d_model, 2)`` already steps over the sine
    columns ``0, 2, 4, …``, and the code then writes the paper's ``2 * i`` in the
    exponent again. Pair ``i`` (sine column ``2i``) gets
    ``base ** (-2 · 2i / d_model) = base ** (-4 i / d_model)`` instead of
    ``base ** (-2 i / d_model)``: the ladder falls twice as fast and ends near
    ``base ** -2`` instead of near ``base ** -1``.

    Examples
    --------
    >>> doubled_exponent_frequencies(8).tolist()     # correct: [1, 0.1, 0.01, 0.001]
    [1.0, 0.01, 0.0001, 1e-06]
    """
    d_model = check_positive_even_int("d_model", d_model)
    base = check_base("base", base)
    column = np.arange(0, d_model, 2, dtype=np.float64)  # the loop variable: 0, 2, 4, …
    # WRONG: omega = base^(-2 · column / d_model), with column = 2i already
    return np.power(base, -2.0 * column / d_model)


def sinusoidal_doubled_exponent(positions, d_model, *, base=10000.0) -> np.ndarray:
    """**Wrong.** The interleaved sinusoidal table computed with the doubled-exponent bug.

    Same layout as ``sinusoidal(positions, d_model)`` (sine in column ``2i``,
    cosine in ``2i + 1``), but with :func:`doubled_exponent_frequencies`. It is
    still bounded and still distinct per position; its slow half barely moves, so
    half of the width carries almost no position information within usual
    sequence lengths.

    Examples
    --------
    >>> sinusoidal_doubled_exponent(2, 4)[1].round(4).tolist()
    [0.8415, 0.5403, 0.0001, 1.0]
    """
    pos = check_positions("positions", positions)
    omega = doubled_exponent_frequencies(d_model, base=base)
    theta = np.multiply.outer(pos.astype(np.float64), omega)
    table = np.empty((len(pos), len(omega) * 2))
    table[:, 0::2], table[:, 1::2] = np.sin(theta), np.cos(theta)
    return table


def _relative_error(approx: np.ndarray, exact: np.ndarray) -> float:
    """‖approx − exact‖_F / ‖exact‖_F."""
    return float(np.linalg.norm(approx - exact) / np.linalg.norm(exact))


def sum_rule_errors(num_positions, num_offsets, d_model, *, base=10000.0) -> dict[str, float]:
    """How three rules predict ``PE(pos + k)``, all ``pos < num_positions``, ``k < num_offsets``.

    Returns the relative error ``‖prediction − PE(pos+k)‖ / ‖PE(pos+k)‖`` (over all
    pairs ``(pos, k)`` at once) of

    ``"PE(pos) + PE(k)"``
        the literal reading of "PE(pos+k) is a linear function of PE(pos) and PE(k)"
        — **wrong**;
    ``"best fixed linear map of PE(pos), PE(k)"``
        the least-squares best ``A·PE(pos) + B·PE(k) + c`` with one fixed ``A``,
        ``B``, ``c`` for all pairs — **wrong**: ``PE(pos+k)`` is bilinear in the two
        (``sin(a+b) = sin a cos b + cos a sin b``), which no fixed linear map
        reproduces;
    ``"M_k · PE(pos)"``
        the true statement: a rotation that depends on ``k``, applied to ``PE(pos)``
        (:func:`pe_explained.properties.offset_matrix`) — error at rounding level.

    Examples
    --------
    >>> errors = sum_rule_errors(50, 50, 16)
    >>> errors["M_k · PE(pos)"] < 1e-12 < 0.1 < errors["best fixed linear map of PE(pos), PE(k)"]
    True
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    num_offsets = check_int("num_offsets", num_offsets, minimum=1)
    d_model = check_positive_even_int("d_model", d_model)
    table = sinusoidal(num_positions + num_offsets - 1, d_model, base=base)
    p, k = (
        g.ravel()
        for g in np.meshgrid(np.arange(num_positions), np.arange(num_offsets), indexing="ij")
    )
    target = table[p + k]
    naive = table[p] + table[k]
    features = np.hstack([table[p], table[k], np.ones((len(p), 1))])
    # least squares through the normal equations: (Xᵀ X) W = Xᵀ Y; the system is small
    # (2·d_model + 1 unknowns per column) and the residual it measures is of order 1
    weights, *_ = np.linalg.lstsq(features.T @ features, features.T @ target, rcond=None)
    rotated = np.empty_like(target)
    for offset in range(num_offsets):
        rows = k == offset
        # PE(pos + k) = M_k PE(pos): one matrix per offset, applied to row vectors
        rotated[rows] = table[p[rows]] @ offset_matrix(offset, d_model, base=base).T
    return {
        "PE(pos) + PE(k)": _relative_error(naive, target),
        "best fixed linear map of PE(pos), PE(k)": _relative_error(features @ weights, target),
        "M_k · PE(pos)": _relative_error(rotated, target),
    }


def wrong_layout_lookup(num_positions, d_model, *, base=10000.0, trained="interleaved"):
    """**A mistake, measured:** encode with one layout, read with the other.

    A model trained with ``layout=trained`` has seen the rows of that table. This
    encodes every position ``0 … num_positions−1`` with the *other* layout and
    finds, for each, the nearest row of the trained table.

    Returns
    -------
    nearest : ndarray of int, shape (num_positions,)
        The trained position each wrongly-laid-out encoding is closest to.
    distance : ndarray, shape (num_positions,)
        Its distance to that nearest trained row.
    own_distance : ndarray, shape (num_positions,)
        Its distance to the trained row of its own position.

    Examples
    --------
    >>> nearest, distance, own = wrong_layout_lookup(4, 2)
    >>> nearest.tolist(), float(distance.max())        # d_model = 2: the layouts coincide
    ([0, 1, 2, 3], 0.0)
    """
    num_positions = check_int("num_positions", num_positions, minimum=1)
    trained = check_choice("trained", trained, LAYOUTS)
    other = LAYOUTS[1 - LAYOUTS.index(trained)]
    seen = sinusoidal(num_positions, d_model, base=base, layout=trained)
    fed = sinusoidal(num_positions, d_model, base=base, layout=other)
    dist = pairwise_distances(fed, seen)
    nearest = dist.argmin(axis=1)
    rows = np.arange(num_positions)
    return nearest, dist[rows, nearest], dist[rows, rows]
