"""The simple position encodings one tries first, and why each falls short.

Four schemes, each a table with one row per position:

* ``index_encoding``: the raw index, ``E[pos] = pos`` in every column;
* ``normalized_index_encoding``: the index divided by the sequence length;
* ``one_hot_encoding``: a 1 in column ``pos`` of a ``max_len``-wide row;
* ``binary_encoding``: the bits of ``pos``, least significant first.

and three ways to compare rows of any encoding table (these work on the
sinusoidal table as well): distances from one row, distances between
neighbouring rows, and the nearest other row.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_array,
    check_bool,
    check_index,
    check_int,
    check_integer_positions,
    check_positions,
)

__all__ = [
    "index_encoding",
    "normalized_index_encoding",
    "one_hot_encoding",
    "binary_encoding",
    "distances_from",
    "neighbour_distances",
    "closest_position",
]


def index_encoding(positions, d_model=1) -> np.ndarray:
    """The raw position index, repeated across ``d_model`` columns.

    ``E[pos, j] = pos``. Its norm is ``pos · √d_model``: it grows without bound,
    so at long positions it swamps any token embedding it is added to.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        An int ``n`` means positions ``0 … n−1``; otherwise 1-D, finite and ≥ 0.
    d_model : int, optional
        Number of columns (1 by default: a single extra feature).

    Returns
    -------
    table : ndarray, shape (n, d_model), float64

    Examples
    --------
    >>> index_encoding(3, 2).tolist()
    [[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]
    """
    pos = check_positions("positions", positions)
    d_model = check_int("d_model", d_model, minimum=1)
    # E[pos, j] = pos
    return np.repeat(pos.astype(np.float64)[:, None], d_model, axis=1)


def normalized_index_encoding(positions, seq_len, d_model=1) -> np.ndarray:
    """The position divided by the sequence length, ``E[pos, j] = pos / seq_len``.

    Bounded in [0, 1), but the value a position gets depends on the length of
    the sequence it sits in: position 5 of 10 and position 50 of 100 both get 0.5,
    and one step is worth ``1 / seq_len`` — a different amount in every sequence.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        Positions ``0 … seq_len − 1`` (an int ``n`` means ``0 … n−1``).
    seq_len : int
        Length of the sequence, ≥ 1; every position must be smaller.
    d_model : int, optional
        Number of columns (1 by default).

    Examples
    --------
    >>> normalized_index_encoding([5], 10).tolist(), normalized_index_encoding([50], 100).tolist()
    ([[0.5]], [[0.5]])
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    pos = check_positions("positions", positions)
    d_model = check_int("d_model", d_model, minimum=1)
    if pos.size and pos.max() >= seq_len:
        raise ValueError(f"positions must be < seq_len = {seq_len}, got {pos.max()}")
    # E[pos, j] = pos / seq_len
    return np.repeat((pos / seq_len)[:, None], d_model, axis=1)


def one_hot_encoding(positions, max_len) -> np.ndarray:
    """One column per possible position: ``E[pos, j] = 1`` if ``j == pos`` else 0.

    Every row has norm 1 and every two distinct rows are at distance √2: the
    encoding tells positions apart but says nothing about which are near. Its
    width is ``max_len``, and a position ≥ ``max_len`` has no row at all.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        Whole-number positions smaller than ``max_len``.
    max_len : int
        Number of positions the table can represent (and its width), ≥ 1.

    Examples
    --------
    >>> one_hot_encoding([0, 2], 4).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]
    """
    max_len = check_int("max_len", max_len, minimum=1)
    pos = check_integer_positions("positions", positions, below=max_len, limit_name="max_len")
    table = np.zeros((len(pos), max_len))
    # E[pos, pos] = 1
    table[np.arange(len(pos)), pos] = 1.0
    return table


def binary_encoding(positions, num_bits, *, centered=False) -> np.ndarray:
    """The binary digits of each position, least significant bit first.

    Column ``b`` is bit ``b`` of ``pos``: it flips every ``2**b`` positions, so
    (as in the sinusoidal encoding) low column indices change fastest. The
    squared distance between two rows is the number of bits that differ, so
    neighbours can be far apart: 7 → 8 flips four bits, 8 → 9 flips one.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        Whole-number positions smaller than ``2**num_bits``.
    num_bits : int
        Width of the table, 1 … 62.
    centered : bool, optional
        Map the digits {0, 1} to {−1, +1} (the distances double, nothing else changes).

    Examples
    --------
    >>> binary_encoding([5, 6], 4).tolist()
    [[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0]]
    >>> binary_encoding([5], 3, centered=True).tolist()
    [[1.0, -1.0, 1.0]]
    """
    num_bits = check_int("num_bits", num_bits, minimum=1)
    if num_bits > 62:
        raise ValueError(f"num_bits must be <= 62, got {num_bits}")
    centered = check_bool("centered", centered)
    pos = check_integer_positions(
        "positions", positions, below=2**num_bits, limit_name="2**num_bits"
    )
    # E[pos, b] = floor(pos / 2^b) mod 2
    bits = ((pos[:, None] >> np.arange(num_bits)) & 1).astype(np.float64)
    return 2.0 * bits - 1.0 if centered else bits


#: An encoding table: finite, one position per row, at least one row.
_TABLE = {"ndim": 2, "rule": "a non-empty 2-D table (positions × columns)", "nonempty": True}


def distances_from(table, reference=0) -> np.ndarray:
    """Euclidean distance from row ``reference`` to every row of ``table``.

    Examples
    --------
    >>> distances_from(one_hot_encoding(4, 4), 1).round(4).tolist()
    [1.4142, 0.0, 1.4142, 1.4142]
    """
    table = check_array("table", table, **_TABLE)
    reference = check_index("reference", reference, len(table), "the number of rows")
    # d(pos) = ||E[pos] - E[reference]||
    return np.linalg.norm(table - table[reference], axis=1)


def neighbour_distances(table) -> np.ndarray:
    """``‖E[pos + 1] − E[pos]‖`` for every pair of consecutive rows.

    Examples
    --------
    >>> neighbour_distances(binary_encoding(10, 4)).tolist()[6:]   # 6→7, 7→8, 8→9
    [1.0, 2.0, 1.0]
    """
    table = check_array("table", table, **_TABLE)
    return np.linalg.norm(np.diff(table, axis=0), axis=1)


def closest_position(table, reference=0, *, min_offset=1) -> tuple[int, float]:
    """The row nearest to row ``reference`` among rows at least ``min_offset`` away.

    Returns ``(index, distance)``. With ``min_offset=2`` on an encoding whose
    nearest row is not the neighbour, a far position looks closer than the next one.

    Examples
    --------
    >>> closest_position(binary_encoding(16, 4), 7, min_offset=1)
    (3, 1.0)
    """
    table = check_array("table", table, **_TABLE)
    reference = check_index("reference", reference, len(table), "the number of rows")
    min_offset = check_int("min_offset", min_offset, minimum=1)
    distances = distances_from(table, reference)
    far = np.abs(np.arange(len(table)) - reference) >= min_offset
    if not far.any():
        raise ValueError(
            f"no row of the table is at least min_offset = {min_offset} from row {reference}"
        )
    candidates = np.flatnonzero(far)
    best = candidates[np.argmin(distances[candidates])]
    return int(best), float(distances[best])
