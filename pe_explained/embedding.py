"""Putting token meaning and position into one vector.

The original transformer (Vaswani et al., 2017) multiplies the token embedding
by √d_model (section 3.4), adds the sinusoidal encoding, and applies dropout to
the sum (section 5.4, P_drop = 0.1)::

    x[pos] = dropout(√d_model · e[token at pos] + PE[pos])

This module holds that recipe, the concatenation alternative, and the
measurements the book makes on them: cosine similarity, the share of a sum's
squared norm that comes from the position, and how many directions a table
really uses.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_float, check_same_shape
from .layer import dropout  # the library's one dropout, the recipe's last step
from .sinusoidal import sinusoidal

__all__ = [
    "embed_with_positions",
    "dropout",
    "concatenate_positions",
    "cosine_similarity",
    "cosine_matrix",
    "position_share",
    "energy_rank",
]


#: Tables of vectors: finite, non-empty, one vector per row.
_TABLE = {"ndim": 2, "rule": "2-D (one vector per row)", "nonempty": True}
#: Vectors, or stacks of them, compared along the last axis.
_VECTORS = {"ndim": range(1, 65), "rule": "at least 1-D", "nonempty": True}


def embed_with_positions(
    token_vectors, *, scale_by_sqrt_d_model=True, base=10000.0, dropout_rate=0.0, seed=0
) -> np.ndarray:
    """The transformer's input: ``dropout(√d_model · e + PE)`` for tokens at positions 0 … n−1.

    Parameters
    ----------
    token_vectors : array_like, shape (n, d_model)
        The embedding of the token at each position, in order.
    scale_by_sqrt_d_model : bool, optional
        Multiply the embeddings by √d_model before adding (the paper, section 3.4).
    base : float, optional
        Base of the sinusoidal encoding.
    dropout_rate : float, optional
        Dropout applied to the sum (0.1 in the paper's training; 0 at inference).
    seed : int, optional
        Seed of the dropout mask.

    Returns
    -------
    x : ndarray, shape (n, d_model)

    References
    ----------
    Vaswani et al., "Attention Is All You Need", NeurIPS 2017, sections 3.4, 3.5 and 5.4.

    Examples
    --------
    >>> e = np.zeros((2, 4))
    >>> embed_with_positions(e).round(4).tolist()            # only the position is left
    [[0.0, 1.0, 0.0, 1.0], [0.8415, 0.5403, 0.01, 1.0]]
    >>> embed_with_positions(np.ones((1, 4))).tolist()       # 2 · 1 + PE(0)
    [[2.0, 3.0, 2.0, 3.0]]
    """
    e = check_array("token_vectors", token_vectors, **_TABLE)
    scale_by_sqrt_d_model = check_bool("scale_by_sqrt_d_model", scale_by_sqrt_d_model)
    dropout_rate = check_float("dropout_rate", dropout_rate, at_least=0.0, less_than=1.0)
    n, d_model = e.shape
    pe = sinusoidal(n, d_model, base=base)
    scale = np.sqrt(d_model) if scale_by_sqrt_d_model else 1.0
    # x = dropout(sqrt(d_model) * e + PE)
    return dropout(scale * e + pe, dropout_rate, seed=seed)


def concatenate_positions(token_vectors, position_vectors) -> np.ndarray:
    """``[e, p]``: the token vector and the position vector side by side.

    The width is the sum of the two widths. A linear map of the result,
    ``[e, p] W``, equals ``e W_top + p W_bottom``: adding two linearly mapped
    parts — which is why the first layer of a model cannot tell the two apart.

    Examples
    --------
    >>> concatenate_positions(np.ones((2, 3)), np.zeros((2, 2))).shape
    (2, 5)
    """
    e = check_array("token_vectors", token_vectors, **_TABLE)
    p = check_array("position_vectors", position_vectors, **_TABLE)
    if len(e) != len(p):
        raise ValueError(
            "token_vectors and position_vectors need the same number of rows, "
            f"got {len(e)} and {len(p)}"
        )
    return np.concatenate([e, p], axis=1)


def cosine_similarity(a, b) -> np.ndarray:
    """Cosine of the angle between ``a`` and ``b`` along the last axis (broadcasting).

    Examples
    --------
    >>> cosine_similarity([1.0, 0.0], [[1.0, 1.0], [0.0, 2.0]]).round(4).tolist()
    [0.7071, 0.0]
    """
    a, b = check_array("a", a, **_VECTORS), check_array("b", b, **_VECTORS)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"a and b must have the same last dimension, got {a.shape} and {b.shape}")
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    if np.any(norms == 0):
        raise ValueError("cosine similarity of a zero vector is undefined")
    # cos(a, b) = a·b / (||a|| ||b||)
    return np.sum(a * b, axis=-1) / norms


def cosine_matrix(a, b) -> np.ndarray:
    """Cosine similarity of every row of ``a`` with every row of ``b``: shape (len(a), len(b)).

    Examples
    --------
    >>> cosine_matrix([[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0]]).round(4).tolist()
    [[0.7071], [0.7071]]
    """
    a, b = check_array("a", a, **_TABLE), check_array("b", b, **_TABLE)
    if a.shape[1] != b.shape[1]:
        raise ValueError(
            f"a and b must have the same number of columns, got {a.shape} and {b.shape}"
        )
    norm_a, norm_b = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    if np.any(norm_a == 0) or np.any(norm_b == 0):
        raise ValueError("cosine similarity of a zero vector is undefined")
    # C[m, n] = a_m · b_n / (||a_m|| ||b_n||)
    return (a / norm_a[:, None]) @ (b / norm_b[:, None]).T


def position_share(token_vectors, position_vectors) -> float:
    """Mean fraction of the squared norm of ``e + p`` that the position part brings.

    ``mean over rows of ‖p‖² / ‖e + p‖²``. When ``e`` is random and independent of
    ``p`` the cross term averages out and this is about ``‖p‖² / (‖e‖² + ‖p‖²)``.

    Examples
    --------
    >>> position_share([[3.0, 0.0]], [[0.0, 4.0]])       # 16 / 25
    0.64
    """
    e = check_array("token_vectors", token_vectors, **_TABLE)
    p = check_array("position_vectors", position_vectors, **_TABLE)
    check_same_shape("token_vectors", e, "position_vectors", p)
    total = np.sum((e + p) ** 2, axis=1)
    if np.any(total == 0):
        raise ValueError("a row of token_vectors + position_vectors is zero")
    # share = ||p||^2 / ||e + p||^2, averaged over rows
    return float(np.mean(np.sum(p**2, axis=1) / total))


def energy_rank(table, fraction=0.99) -> int:
    """How many orthogonal directions hold ``fraction`` of the table's squared entries.

    The smallest ``r`` with ``σ_1² + … + σ_r² ≥ fraction · Σ σ_k²`` for the singular
    values ``σ`` of ``table``: the dimension of the subspace its rows really use.

    Examples
    --------
    >>> energy_rank(np.outer(np.arange(1.0, 6.0), [1.0, 2.0, 3.0]))   # all rows on one line
    1
    """
    table = check_array("table", table, **_TABLE)
    fraction = check_float("fraction", fraction, greater_than=0.0, at_most=1.0)
    energy = np.linalg.svd(table, compute_uv=False) ** 2
    if energy.sum() == 0:
        raise ValueError("table is all zeros")
    cumulative = np.cumsum(energy) / energy.sum()
    return int(np.searchsorted(cumulative, fraction * (1 - 1e-12)) + 1)
