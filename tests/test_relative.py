"""Relative positions: the distance matrix, Shaw et al. (2018), Transformer-XL's four terms."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained.attention import self_attention
from pe_explained.relative import (
    TERM_NAMES,
    four_term_scores,
    relative_distances,
    relative_sinusoid,
    shaw_attention,
    shaw_relative_index,
    transformer_xl_terms,
)


def test_relative_distances_are_j_minus_i():
    d = relative_distances(3, 5)
    assert d.shape == (3, 5)
    assert all(d[i, j] == j - i for i in range(3) for j in range(5))


@pytest.mark.parametrize("q, k, m", [(1, 1, 0), (4, 6, 2), (6, 4, 1), (7, 7, 10)])
def test_shaw_index_is_clipped_offset_plus_k(q, k, m):
    index = shaw_relative_index(q, k, m)
    assert index.shape == (q, k) and index.dtype == np.int64
    for i in range(q):
        for j in range(k):
            assert index[i, j] == max(-m, min(m, j - i)) + m
    assert index.min() >= 0 and index.max() <= 2 * m


def test_shaw_index_bad_arguments():
    with pytest.raises(ValueError, match="max_distance must be >= 0"):
        shaw_relative_index(3, 3, -1)
    with pytest.raises(TypeError, match="query_len must be an integer"):
        shaw_relative_index(3.0, 3, 1)


def _naive_shaw(x, w_q, w_k, w_v, rel_k, rel_v, causal=False):
    """Shaw et al. (2018), eqs. (3)-(5), one pair (i, j) at a time."""
    n, m = len(x), rel_k.shape[0] // 2
    d_z = w_q.shape[1]
    out = np.zeros((n, w_v.shape[1]))
    for i in range(n):
        e = np.full(n, -np.inf)
        for j in range(n if not causal else i + 1):
            a_k = rel_k[max(-m, min(m, j - i)) + m]
            e[j] = (x[i] @ w_q) @ (x[j] @ w_k + a_k) / np.sqrt(d_z)
        alpha = np.exp(e - e.max())
        alpha /= alpha.sum()
        for j in range(n):
            out[i] += alpha[j] * (x[j] @ w_v + rel_v[max(-m, min(m, j - i)) + m])
    return out


@pytest.mark.parametrize("causal", [False, True])
def test_shaw_attention_matches_the_double_loop(causal):
    rng = np.random.default_rng(0)
    n, d_model, d_z, m = 7, 6, 4, 2
    x = rng.normal(size=(n, d_model))
    w_q, w_k, w_v = rng.normal(size=(3, d_model, d_z))
    rel_k, rel_v = rng.normal(size=(2, 2 * m + 1, d_z))
    z, alpha = shaw_attention(x, w_q, w_k, w_v, rel_k, rel_v, causal=causal, return_weights=True)
    np.testing.assert_allclose(z, _naive_shaw(x, w_q, w_k, w_v, rel_k, rel_v, causal), atol=1e-12)
    np.testing.assert_allclose(alpha.sum(-1), 1.0)
    # batches give the same result per element
    batch = np.stack([x, x[::-1]])
    zb = shaw_attention(batch, w_q, w_k, w_v, rel_k, rel_v, causal=causal)
    np.testing.assert_allclose(zb[0], z, atol=1e-12)


def test_shaw_attention_is_not_permutation_equivariant_but_is_with_zero_tables():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4))
    w = rng.normal(size=(3, 4, 4))
    rel = rng.normal(size=(2, 3, 4))
    order = [4, 2, 0, 1, 3]
    z = shaw_attention(x, *w, *rel)
    assert not np.allclose(shaw_attention(x[order], *w, *rel), z[order])
    zeros = np.zeros((3, 4))
    np.testing.assert_allclose(shaw_attention(x, *w, zeros, zeros), self_attention(x, *w))


def test_shaw_attention_bad_tables():
    rng = np.random.default_rng(0)
    x, w = rng.normal(size=(3, 4)), rng.normal(size=(3, 4, 2))
    with pytest.raises(ValueError, match=r"rel_k must have shape \(2k \+ 1, d_z=2\)"):
        shaw_attention(x, *w, np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="rel_v must have shape"):
        shaw_attention(x, *w, np.zeros((3, 2)), np.zeros((5, 2)))


def test_relative_sinusoid_matches_the_transformer_xl_formula():
    d_model = 16
    pos_seq = np.arange(9, -1, -1.0)  # klen - 1 … 0, as in the reference code
    inv_freq = 1.0 / (10000 ** (np.arange(0.0, d_model, 2.0) / d_model))
    angles = np.outer(pos_seq, inv_freq)
    expected = np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)
    np.testing.assert_allclose(
        relative_sinusoid(pos_seq.astype(int), d_model), expected, atol=1e-12
    )
    negative = relative_sinusoid(-np.arange(5), d_model, layout="interleaved")
    positive = relative_sinusoid(np.arange(5), d_model, layout="interleaved")
    np.testing.assert_allclose(negative[:, 0::2], -positive[:, 0::2])
    np.testing.assert_allclose(negative[:, 1::2], positive[:, 1::2])


def _setup(seed=0, n=5, d_model=8, head_dim=4):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    w_q, w_ke, w_kr = rng.normal(size=(3, d_model, head_dim))
    u, v = rng.normal(size=(2, head_dim))
    return x, w_q, w_ke, w_kr, u, v


def test_transformer_xl_terms_match_the_paper_one_pair_at_a_time():
    x, w_q, w_ke, w_kr, u, v = _setup()
    terms = transformer_xl_terms(x, w_q, w_ke, w_kr, u, v)
    assert tuple(terms) == TERM_NAMES
    d_model = x.shape[1]
    for i in range(len(x)):
        for j in range(len(x)):
            r = relative_sinusoid(np.array(i - j), d_model)
            expected = [
                x[i] @ w_q @ (x[j] @ w_ke),
                x[i] @ w_q @ (r @ w_kr),
                u @ (x[j] @ w_ke),
                v @ (r @ w_kr),
            ]
            got = [terms[name][i, j] for name in TERM_NAMES]
            np.testing.assert_allclose(got, expected, atol=1e-12)


def test_transformer_xl_terms_depend_on_offsets_only():
    """Same tokens at a shifted place give the same logits: no absolute position enters."""
    x, w_q, w_ke, w_kr, u, v = _setup(n=4)
    rng = np.random.default_rng(5)
    longer = np.concatenate([rng.normal(size=(3, 8)), x])
    short = sum(transformer_xl_terms(x, w_q, w_ke, w_kr, u, v).values())
    long = sum(transformer_xl_terms(longer, w_q, w_ke, w_kr, u, v).values())
    np.testing.assert_allclose(long[3:, 3:], short, atol=1e-12)


def test_four_terms_sum_to_the_absolute_product_with_query_position_terms():
    """Absolute case: q = (E_i + U_i) W_q, k = (E_j + U_j) W_k expands into (a)+(b)+(c)+(d)."""
    rng = np.random.default_rng(2)
    n, d_model, head_dim = 6, 8, 4
    from pe_explained import sinusoidal

    e = rng.normal(size=(n, d_model))
    pos = sinusoidal(n, d_model)  # U_i
    w_q, w_k = rng.normal(size=(2, d_model, head_dim))
    r = np.broadcast_to(pos[None, :, :], (n, n, d_model))  # key j's position U_j, for every i
    u = v = pos @ w_q  # the query-position terms U_i W_q, one per query
    terms = four_term_scores(e, e, r, w_q, w_k, w_k, u, v)
    full = ((e + pos) @ w_q) @ ((e + pos) @ w_k).T
    np.testing.assert_allclose(sum(terms.values()), full, atol=1e-12)
    np.testing.assert_allclose(terms["content-content"], (e @ w_q) @ (e @ w_k).T, atol=1e-12)
    np.testing.assert_allclose(terms["position bias"], (pos @ w_q) @ (pos @ w_k).T, atol=1e-12)


def test_four_term_scores_bad_shapes():
    x, w_q, w_ke, w_kr, u, v = _setup()
    r = np.zeros((5, 5, 8))
    with pytest.raises(ValueError, match=r"r must have shape \(5, 5, 8\)"):
        four_term_scores(x, x, r[:4], w_q, w_ke, w_kr, u, v)
    with pytest.raises(ValueError, match=r"u must have shape \(4,\) or \(5, 4\)"):
        four_term_scores(x, x, r, w_q, w_ke, w_kr, u[:3], v)
    with pytest.raises(ValueError, match="must share one shape"):
        four_term_scores(x, x, r, w_q, w_ke[:, :3], w_kr, u, v)
