"""Transformer-XL's relative shift and Music Transformer's skewing against a brute-force gather."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained.relative import relative_sinusoid, transformer_xl_terms
from pe_explained.relative_shift import relative_shift, skew


def gather_by_distance(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """O(n²) loop: out[i, j] = scores[i, column of distance (mem + i) − j], where the
    columns hold distances key_len − 1 … 0 (Transformer-XL's order). Returns the
    gathered matrix and the mask of entries with a key not after the query."""
    query_len, key_len = scores.shape
    memory = key_len - query_len
    out = np.zeros_like(scores)
    valid = np.zeros(scores.shape, dtype=bool)
    for i in range(query_len):
        for j in range(key_len):
            distance = memory + i - j
            if distance >= 0:
                out[i, j] = scores[i, key_len - 1 - distance]
                valid[i, j] = True
    return out, valid


def agrees_with_gather(shifted: np.ndarray, scores: np.ndarray) -> bool:
    expected, valid = gather_by_distance(scores)
    return shifted.shape == scores.shape and bool(np.array_equal(shifted[valid], expected[valid]))


@pytest.mark.parametrize("query_len, key_len", [(1, 1), (4, 4), (3, 7), (5, 6), (1, 9), (8, 8)])
def test_relative_shift_equals_the_gather(query_len, key_len):
    scores = np.random.default_rng(query_len * 31 + key_len).normal(size=(query_len, key_len))
    assert agrees_with_gather(relative_shift(scores), scores)


def test_the_gather_harness_rejects_a_shift_without_the_padding():
    scores = np.random.default_rng(1).normal(size=(4, 6))
    # the same reshapes without the zero column: a plausible but wrong shift
    wrong = scores.reshape(6, 4)[:].reshape(4, 6)
    assert not agrees_with_gather(wrong, scores)
    assert not agrees_with_gather(scores, scores)  # no shift at all


def test_skew_equals_the_gather_in_music_transformer_order():
    # Music Transformer: column c holds relative position c − (L − 1), from −(L − 1) to 0
    length = 6
    scores = np.random.default_rng(2).normal(size=(length, length))
    out = skew(scores)
    for i in range(length):
        for j in range(i + 1):
            assert out[i, j] == scores[i, j - i + length - 1]


def test_music_transformer_relative_logits_without_the_l_by_l_by_d_tensor():
    # Shaw et al. gather one embedding per pair (L × L × d); skewing needs Q E_rᵀ only (L × L)
    rng = np.random.default_rng(3)
    length, d = 7, 4
    q = rng.normal(size=(length, d))
    e_r = rng.normal(size=(length, d))  # rows: relative positions −(L − 1) … 0
    # brute force: row L − 1 − (i − j) of E_r holds relative position j − i
    brute = np.array(
        [
            [q[i] @ e_r[length - 1 - (i - j)] if j <= i else 0.0 for j in range(length)]
            for i in range(length)
        ]
    )
    out = skew(q @ e_r.T)
    lower = np.tril(np.ones((length, length), dtype=bool))
    np.testing.assert_allclose(out[lower], brute[lower], rtol=1e-13)


def test_transformer_xl_term_b_by_the_shift_equals_the_quadratic_version():
    # term (b), q_i · R_{i−j} W_kR, once computed for every distance and shifted into place
    rng = np.random.default_rng(4)
    seq_len, d_model, head_dim = 6, 8, 4
    x = rng.normal(size=(seq_len, d_model))
    w_q, w_ke, w_kr = rng.normal(size=(3, d_model, head_dim))
    u, v = rng.normal(size=(2, head_dim))
    quadratic = transformer_xl_terms(x, w_q, w_ke, w_kr, u, v)["content-position"]
    r = relative_sinusoid(np.arange(seq_len - 1, -1, -1), d_model)  # distances L − 1 … 0
    linear = relative_shift((x @ w_q) @ (r @ w_kr).T)
    keys_not_after = np.tril(np.ones((seq_len, seq_len), dtype=bool))
    np.testing.assert_allclose(linear[keys_not_after], quadratic[keys_not_after], rtol=1e-12)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: relative_shift(np.ones((4, 3))), ValueError, "scores must have at least as many"),
        (lambda: relative_shift(np.ones(4)), ValueError, "scores must be 2-D"),
        (lambda: relative_shift([["a"]]), TypeError, "scores"),
        (lambda: relative_shift(np.full((2, 2), np.nan)), ValueError, "scores"),
        (lambda: skew(np.ones((3, 4))), ValueError, "scores must be square"),
    ],
)
def test_bad_scores_are_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()
