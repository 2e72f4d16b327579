"""Relative positions inside attention: Shaw et al. (2018) and Transformer-XL (Dai et al. 2019).

An absolute encoding labels each token with its position; a relative scheme
lets attention see only the offset ``j − i`` between a query at ``i`` and a key
at ``j``.

Shaw et al. learn one vector per clipped offset, ``clip(j − i, −k, k)``, and add
it to the keys (for the logits) and to the values (for the output)::

    e_ij = (x_i W_Q) · (x_j W_K + a^K_ij) / √d_z
    z_i  = Σ_j α_ij (x_j W_V + a^V_ij),      α = softmax_j(e)

Transformer-XL writes the logit of an absolute transformer as four terms and
replaces the absolute key position by a sinusoid of ``i − j`` and the query's
position by two learned vectors ``u`` and ``v``::

    A_ij = (E_i W_q)·(E_j W_kE)  +  (E_i W_q)·(R_{i−j} W_kR)  +  u·(E_j W_kE)  +  v·(R_{i−j} W_kR)
            (a) content–content      (b) content–position       (c) content bias  (d) position bias
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_array,
    check_base,
    check_bool,
    check_choice,
    check_int,
    check_positive_even_int,
)
from .attention import causal_mask, softmax
from .sinusoidal import LAYOUTS, sinusoidal

__all__ = [
    "relative_distances",
    "shaw_relative_index",
    "shaw_attention",
    "relative_sinusoid",
    "four_term_scores",
    "transformer_xl_terms",
    "TERM_NAMES",
]

#: The four terms of a Transformer-XL logit, in the paper's order (a)–(d).
TERM_NAMES = ("content-content", "content-position", "content bias", "position bias")


def relative_distances(query_len, key_len) -> np.ndarray:
    """The (query_len, key_len) int matrix ``j − i``: how far key j is from query i.

    Negative entries are keys *before* the query, positive ones keys after it.

    >>> relative_distances(3, 4).tolist()
    [[0, 1, 2, 3], [-1, 0, 1, 2], [-2, -1, 0, 1]]
    """
    query_len = check_int("query_len", query_len, minimum=0)
    key_len = check_int("key_len", key_len, minimum=0)
    # d_ij = j - i
    return np.arange(key_len)[None, :] - np.arange(query_len)[:, None]


def shaw_relative_index(query_len, key_len, max_distance) -> np.ndarray:
    """Row of the relative-embedding table each (query, key) pair uses: ``clip(j − i, −k, k) + k``.

    Parameters
    ----------
    query_len, key_len : int
        Numbers of queries and keys (positions 0 … query_len − 1 and 0 … key_len − 1).
    max_distance : int
        The clipping distance ``k`` ≥ 0: offsets beyond ±k share the outermost vector,
        so the table has ``2k + 1`` rows.

    Returns
    -------
    index : ndarray of int64, shape (query_len, key_len), values in 0 … 2k

    References
    ----------
    Shaw, Uszkoreit, Vaswani, "Self-Attention with Relative Position
    Representations", NAACL 2018, section 3.2.

    Examples
    --------
    >>> shaw_relative_index(4, 4, 2).tolist()
    [[2, 3, 4, 4], [1, 2, 3, 4], [0, 1, 2, 3], [0, 0, 1, 2]]
    """
    max_distance = check_int("max_distance", max_distance, minimum=0)
    distances = relative_distances(query_len, key_len)
    # index_ij = clip(j - i, -k, k) + k
    return (np.clip(distances, -max_distance, max_distance) + max_distance).astype(np.int64)


def shaw_attention(x, w_q, w_k, w_v, rel_k, rel_v, *, causal=False, return_weights=False):
    """One head of self-attention with Shaw et al.'s relative position representations.

    Parameters
    ----------
    x : array_like, shape (..., seq_len, d_model)
    w_q, w_k, w_v : array_like, shape (d_model, d_z)
    rel_k, rel_v : array_like, shape (2k + 1, d_z)
        The learned vectors ``w^K`` and ``w^V`` for offsets −k … k (row ``r`` is
        offset ``r − k``); ``k`` is read from their length.
    causal : bool, optional
        Mask keys after the query.
    return_weights : bool, optional
        Also return the attention weights α, shape (..., seq_len, seq_len).

    Returns
    -------
    z : ndarray, shape (..., seq_len, d_z)

    Examples
    --------
    With zero relative vectors this is ordinary attention:

    >>> from pe_explained.attention import self_attention
    >>> rng = np.random.default_rng(0)
    >>> x, (w_q, w_k, w_v) = rng.normal(size=(5, 4)), rng.normal(size=(3, 4, 4))
    >>> zeros = np.zeros((2 * 2 + 1, 4))
    >>> bool(np.allclose(shaw_attention(x, w_q, w_k, w_v, zeros, zeros),
    ...                  self_attention(x, w_q, w_k, w_v)))
    True
    """
    x = check_array("x", x, ndim=(2, 3, 4), nonempty=True)
    causal = check_bool("causal", causal)
    return_weights = check_bool("return_weights", return_weights)
    w_q, w_k, w_v = (
        check_array(n, w, ndim=2, nonempty=True)
        for n, w in (("w_q", w_q), ("w_k", w_k), ("w_v", w_v))
    )
    rel_k, rel_v = (
        check_array("rel_k", rel_k, ndim=2, nonempty=True),
        check_array("rel_v", rel_v, ndim=2, nonempty=True),
    )
    d_model, d_z = w_q.shape
    if x.shape[-1] != d_model or w_k.shape != w_q.shape or w_v.shape[0] != d_model:
        raise ValueError(
            f"w_q, w_k, w_v must have d_model={x.shape[-1]} rows and w_q, w_k the "
            f"same shape; got {w_q.shape}, {w_k.shape}, {w_v.shape}"
        )
    if rel_k.shape[0] % 2 == 0 or rel_k.shape != (rel_k.shape[0], d_z):
        raise ValueError(f"rel_k must have shape (2k + 1, d_z={d_z}), got {rel_k.shape}")
    if rel_v.shape != (rel_k.shape[0], w_v.shape[1]):
        raise ValueError(
            f"rel_v must have shape ({rel_k.shape[0]}, {w_v.shape[1]}), got {rel_v.shape}"
        )
    seq_len = x.shape[-2]
    index = shaw_relative_index(seq_len, seq_len, rel_k.shape[0] // 2)
    one_hot = np.eye(rel_k.shape[0])[index]  # (seq, seq, 2k+1): pair (i, j) uses row index_ij
    q, k, v = x @ w_q, x @ w_k, x @ w_v
    # e_ij = (q_i . k_j + q_i . a^K_ij) / sqrt(d_z)
    content = q @ np.swapaxes(k, -1, -2)
    position = np.einsum("...ir,ijr->...ij", q @ rel_k.T, one_hot)
    scores = (content + position) / np.sqrt(d_z)
    if causal:
        scores = np.where(causal_mask(seq_len), scores, -np.inf)
    alpha = softmax(scores)
    # z_i = sum_j alpha_ij v_j + sum_j alpha_ij a^V_ij
    z = alpha @ v + np.einsum("...ij,ijr->...ir", alpha, one_hot) @ rel_v
    return (z, alpha) if return_weights else z


def relative_sinusoid(distances, d_model, *, base=10000.0, layout="halves") -> np.ndarray:
    """Sinusoidal vectors R_d for integer offsets d of any sign, shape (*distances.shape, d_model).

    Same frequencies as :func:`pe_explained.sinusoidal`; since sin is odd and cos
    even, ``R_{−d}`` is ``R_d`` with its sine entries negated. The default layout
    is Transformer-XL's (all sines, then all cosines).

    >>> relative_sinusoid([[-1, 0, 1]], 4).round(4).tolist()
    [[[-0.8415, -0.01, 0.5403, 1.0], [0.0, 0.0, 1.0, 1.0], [0.8415, 0.01, 0.5403, 1.0]]]
    """
    d = check_array("distances", distances, kind="integer")
    d_model = check_positive_even_int("d_model", d_model)
    base = check_base("base", base)
    layout = check_choice("layout", layout, LAYOUTS)
    flat = d.reshape(-1)
    table = sinusoidal(np.abs(flat), d_model, base=base, layout=layout)
    sine_columns = np.arange(d_model // 2) if layout == "halves" else np.arange(0, d_model, 2)
    # sin(-x) = -sin(x), cos(-x) = cos(x)
    table[np.ix_(flat < 0, sine_columns)] *= -1.0
    return table.reshape(*d.shape, d_model)


def four_term_scores(e_q, e_k, r, w_q, w_k_content, w_k_position, u, v) -> dict[str, np.ndarray]:
    """The four terms (a)–(d) of a Transformer-XL style logit, each (query_len, key_len).

    Parameters
    ----------
    e_q : (query_len, d_model) query contents; e_k : (key_len, d_model) key contents.
    r : (query_len, key_len, d_model)
        The position vector query i sees for key j (``R_{i−j}`` in Transformer-XL).
    w_q, w_k_content, w_k_position : (d_model, head_dim)
    u, v : (head_dim,) or (query_len, head_dim)
        Global content and position biases (Transformer-XL), or one per query.

    Returns
    -------
    dict mapping each of :data:`TERM_NAMES` to its (query_len, key_len) array;
    their sum is the logit before the 1/√head_dim scaling and the softmax.
    """
    e_q, e_k, r = (
        check_array("e_q", e_q, ndim=2, nonempty=True),
        check_array("e_k", e_k, ndim=2, nonempty=True),
        check_array("r", r, ndim=3, nonempty=True),
    )
    w_q = check_array("w_q", w_q, ndim=2, nonempty=True)
    w_k_content, w_k_position = (
        check_array("w_k_content", w_k_content, ndim=2, nonempty=True),
        check_array("w_k_position", w_k_position, ndim=2, nonempty=True),
    )
    u, v = (
        check_array("u", u, ndim=(1, 2), nonempty=True),
        check_array("v", v, ndim=(1, 2), nonempty=True),
    )
    d_model, head_dim = w_q.shape
    if w_k_content.shape != w_q.shape or w_k_position.shape != w_q.shape:
        raise ValueError(
            f"w_q, w_k_content, w_k_position must share one shape, got {w_q.shape}, "
            f"{w_k_content.shape}, {w_k_position.shape}"
        )
    if e_q.shape[1] != d_model or e_k.shape[1] != d_model:
        raise ValueError(
            f"e_q and e_k must have d_model={d_model} columns, got {e_q.shape} and {e_k.shape}"
        )
    if r.shape != (e_q.shape[0], e_k.shape[0], d_model):
        raise ValueError(
            f"r must have shape {(e_q.shape[0], e_k.shape[0], d_model)}, got {r.shape}"
        )
    for name, bias in (("u", u), ("v", v)):
        if bias.shape[-1] != head_dim or (bias.ndim == 2 and bias.shape[0] != e_q.shape[0]):
            raise ValueError(
                f"{name} must have shape ({head_dim},) or "
                f"({e_q.shape[0]}, {head_dim}), got {bias.shape}"
            )
    q = e_q @ w_q  # (query, head)
    k_content = e_k @ w_k_content  # (key, head)
    k_position = r @ w_k_position  # (query, key, head)
    u, v = np.atleast_2d(u), np.atleast_2d(v)  # (1 or query, head)
    terms = {
        # (a) E_i W_q . E_j W_kE
        TERM_NAMES[0]: q @ k_content.T,
        # (b) E_i W_q . R_ij W_kR
        TERM_NAMES[1]: np.einsum("ih,ijh->ij", q, k_position),
        # (c) u . E_j W_kE
        TERM_NAMES[2]: np.broadcast_to(u @ k_content.T, (len(q), len(k_content))).copy(),
        # (d) v . R_ij W_kR
        TERM_NAMES[3]: np.einsum("ih,ijh->ij", np.broadcast_to(v, q.shape), k_position),
    }
    return terms


def transformer_xl_terms(x, w_q, w_k_content, w_k_position, u, v, *, base=10000.0):
    """Transformer-XL's four logit terms for one segment x of shape (seq_len, d_model).

    The position vector of pair (i, j) is ``R_{i−j}``, a sinusoid of the offset
    with no parameters (:func:`relative_sinusoid`, split-half layout as in the
    reference code). ``u`` and ``v`` of shape (head_dim,) replace the query's
    position in terms (c) and (d), so no term depends on absolute positions.

    References
    ----------
    Dai et al., "Transformer-XL: Attentive Language Models Beyond a Fixed-Length
    Context", ACL 2019, section 3.3.

    Examples
    --------
    Four (seq_len, seq_len) arrays, one per term:

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(4, 8))
    >>> w_q, w_ke, w_kr = rng.normal(size=(3, 8, 4))
    >>> u, v = rng.normal(size=(2, 4))
    >>> terms = transformer_xl_terms(x, w_q, w_ke, w_kr, u, v)
    >>> sorted(terms), terms["position bias"].shape
    (['content bias', 'content-content', 'content-position', 'position bias'], (4, 4))
    """
    x = check_array("x", x, ndim=2, nonempty=True)
    d_model = check_positive_even_int("d_model (columns of x)", x.shape[1])
    seq_len = x.shape[0]
    # R_{i-j}: the offset of query i from key j
    r = relative_sinusoid(-relative_distances(seq_len, seq_len), d_model, base=base)
    return four_term_scores(x, x, r, w_q, w_k_content, w_k_position, u, v)
