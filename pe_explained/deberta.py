"""DeBERTa's disentangled attention: content and relative position kept in separate vectors.

Each token carries its content ``H_i`` and, instead of an absolute position added
to it, every pair of tokens reads a shared table ``P`` of ``2k`` relative-position
vectors. With content projections ``Q_c = H W_q``, ``K_c = H W_k`` and position
projections ``Q_r = P W_{q,r}``, ``K_r = P W_{k,r}``, the logit of query ``i`` and
key ``j`` has three terms (He et al. 2021, eq. 4):

    content→content    Q_c[i] · K_c[j]
    content→position   Q_c[i] · K_r[δ(i, j)]
    position→content   K_c[j] · Q_r[δ(j, i)]      (the paper)
                       K_c[j] · Q_r[δ(i, j)]      (the released code)

divided by √(3·head_dim) (three terms instead of one). The relative distance is
clipped into the table (eq. 3): ``δ(i, j) = clip(i − j + k, 0, 2k − 1)``.
The position-to-position term is left out: with relative positions only, it
carries no information about the pair's contents.

The paper's position→content term reads the table at ``δ(j, i)``; the released
code (microsoft/DeBERTa, and transformers' ``DisentangledSelfAttention``, which
follows it) reads it at ``δ(i, j)``, the same row as the content→position term.
Both are offered (``p2c_index``); ``tests/test_transformers_deberta.py`` shows that
transformers computes ``"code"``.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_choice, check_int

__all__ = ["deberta_relative_index", "disentangled_terms", "disentangled_scores"]

#: The names of the three terms, in the paper's order.
DISENTANGLED_TERMS = ("content-content", "content-position", "position-content")


def deberta_relative_index(query_len, key_len, max_relative_positions) -> np.ndarray:
    """DeBERTa's clipped relative distance ``δ(i, j) = clip(i − j + k, 0, 2k − 1)``.

    Parameters
    ----------
    query_len, key_len : int
        Positions ``i = 0 … query_len − 1`` and ``j = 0 … key_len − 1``.
    max_relative_positions : int
        ``k``: the table holds ``2k`` rows, for distances ``−k … k − 1``.

    Returns
    -------
    ndarray of int64, shape (query_len, key_len)
        The row of the relative-position table read by the pair ``(i, j)``.

    References
    ----------
    He et al. (2021), "DeBERTa: Decoding-enhanced BERT with Disentangled
    Attention", ICLR 2021, eq. (3).

    Examples
    --------
    >>> deberta_relative_index(4, 4, 2).tolist()
    [[2, 1, 0, 0], [3, 2, 1, 0], [3, 3, 2, 1], [3, 3, 3, 2]]
    """
    query_len = check_int("query_len", query_len, minimum=0)
    key_len = check_int("key_len", key_len, minimum=0)
    k = check_int("max_relative_positions", max_relative_positions, minimum=1)
    # δ(i, j) = clip(i − j + k, 0, 2k − 1)
    distance = np.arange(query_len)[:, None] - np.arange(key_len)[None, :]
    return np.clip(distance + k, 0, 2 * k - 1).astype(np.int64)


def _checked(q_content, k_content, q_position, k_position):
    q_content = check_array("q_content", q_content, ndim=2, nonempty=True)
    k_content = check_array("k_content", k_content, ndim=2, nonempty=True)
    q_position = check_array("q_position", q_position, ndim=2, nonempty=True)
    k_position = check_array("k_position", k_position, ndim=2, nonempty=True)
    if k_content.shape != q_content.shape:
        raise ValueError(
            f"q_content and k_content must have one shape (seq_len, head_dim) for "
            f"self-attention, got {q_content.shape} and {k_content.shape}"
        )
    if q_position.shape != k_position.shape:
        raise ValueError(
            f"q_position and k_position must have one shape (2k, head_dim), got "
            f"{q_position.shape} and {k_position.shape}"
        )
    rows, head_dim = q_position.shape
    if rows % 2:
        raise ValueError(
            f"q_position and k_position must have an even number of rows (2k, for "
            f"distances -k … k-1), got {rows}"
        )
    if head_dim != q_content.shape[1]:
        raise ValueError(
            f"q_position must have head_dim={q_content.shape[1]} columns like q_content, "
            f"got {q_position.shape}"
        )
    return q_content, k_content, q_position, k_position


def disentangled_terms(
    q_content, k_content, q_position, k_position, *, p2c_index="code"
) -> dict[str, np.ndarray]:
    """The three terms of DeBERTa's attention logit, before the 1/√(3·head_dim) scaling.

    Parameters
    ----------
    q_content, k_content : array_like, shape (seq_len, head_dim)
        ``H W_q`` (with its bias) and ``H W_k``: one head's content query and key.
    q_position, k_position : array_like, shape (2k, head_dim)
        ``P W_{q,r}`` and ``P W_{k,r}``: the relative-position table projected for
        queries and for keys; row ``r`` belongs to the distance ``r − k``.
    p2c_index : {"code", "paper"}
        Which row the position→content term reads: ``"code"``, ``δ(i, j)`` as the
        released code and transformers do; ``"paper"``, ``δ(j, i)`` as eq. (4).

    Returns
    -------
    dict mapping each of ``"content-content"``, ``"content-position"`` and
    ``"position-content"`` to a (seq_len, seq_len) array.

    References
    ----------
    He et al. (2021), DeBERTa, eq. (4) and Algorithm 1; transformers 5.23,
    ``models/deberta/modeling_deberta.py`` (``DisentangledSelfAttention``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> q, k = rng.normal(size=(2, 5, 4))
    >>> q_r, k_r = rng.normal(size=(2, 6, 4))     # k = 3: distances −3 … 2
    >>> terms = disentangled_terms(q, k, q_r, k_r)
    >>> [terms[name].shape for name in terms]
    [(5, 5), (5, 5), (5, 5)]
    """
    q_content, k_content, q_position, k_position = _checked(
        q_content, k_content, q_position, k_position
    )
    p2c_index = check_choice("p2c_index", p2c_index, ("code", "paper"))
    seq_len = q_content.shape[0]
    delta = deberta_relative_index(seq_len, seq_len, q_position.shape[0] // 2)  # δ(i, j)
    rows = np.arange(seq_len)[:, None]
    cols = np.arange(seq_len)[None, :]
    # content→position: Q_c[i] · K_r[δ(i, j)], one product for every distance, then a gather
    c2p = (q_content @ k_position.T)[rows, delta]
    # position→content: K_c[j] · Q_r[δ(i, j)] (code) or Q_r[δ(j, i)] (paper)
    p2c_rows = delta if p2c_index == "code" else delta.T
    p2c = (k_content @ q_position.T)[cols, p2c_rows]
    return {
        DISENTANGLED_TERMS[0]: q_content @ k_content.T,
        DISENTANGLED_TERMS[1]: c2p,
        DISENTANGLED_TERMS[2]: p2c,
    }


def disentangled_scores(q_content, k_content, q_position, k_position, *, p2c_index="code"):
    """DeBERTa's attention logits: the three terms summed and divided by √(3·head_dim).

    Parameters and references as :func:`disentangled_terms`; returns one
    (seq_len, seq_len) array, the input of the softmax (before any mask).

    Examples
    --------
    The scores are the three terms' sum over √(3·head_dim):

    >>> rng = np.random.default_rng(0)
    >>> q, k = rng.normal(size=(2, 5, 4))
    >>> q_r, k_r = rng.normal(size=(2, 6, 4))
    >>> scores = disentangled_scores(q, k, q_r, k_r)
    >>> terms = disentangled_terms(q, k, q_r, k_r)
    >>> bool(np.allclose(scores, sum(terms.values()) / np.sqrt(3 * 4)))
    True
    """
    terms = disentangled_terms(q_content, k_content, q_position, k_position, p2c_index=p2c_index)
    head_dim = np.shape(q_content)[1]
    # Ã / √(3d): three terms of the size of one
    return sum(terms.values()) / np.sqrt(3 * head_dim)
