"""ALiBi slopes and biases against the paper's published values and its reference recipe."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained.alibi import alibi_bias, alibi_slopes
from pe_explained.attention import softmax


def reference_slopes(n):
    """The recipe of the paper's code, re-derived in plain Python (start · ratio^k)."""

    def power_of_two(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start**k for k in range(n)]

    if math.log2(n).is_integer():
        return power_of_two(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_two(closest) + reference_slopes(2 * closest)[0::2][: n - closest]


def test_published_values_for_8_and_16_heads():
    assert alibi_slopes(8).tolist() == [2.0**-k for k in range(1, 9)]
    np.testing.assert_allclose(
        alibi_slopes(16), [2.0 ** (-k / 2) for k in range(1, 17)], rtol=1e-15
    )


@pytest.mark.parametrize("num_heads", [1, 2, 3, 5, 6, 7, 8, 12, 20, 24, 40, 64, 96, 112])
def test_slopes_follow_the_reference_recipe_for_any_head_count(num_heads):
    np.testing.assert_allclose(alibi_slopes(num_heads), reference_slopes(num_heads), rtol=1e-14)


def test_twelve_heads_take_every_other_slope_of_the_16_head_ladder():
    # 8 heads' slopes, then every other slope of the 16-head ladder: 2^-0.5, 2^-1.5, ...
    expected = [2.0**-k for k in range(1, 9)] + [2.0 ** -(k + 0.5) for k in range(4)]
    np.testing.assert_allclose(alibi_slopes(12), expected, rtol=1e-15)


def test_bloom_176b_112_heads_are_the_64_ladder_then_odd_rungs_of_the_128_ladder():
    # BLOOM-176B has 112 heads: 2^(-h/8) for h = 1 … 64, then 2^(-(2k-1)/16) for k = 1 … 48
    expected = [2.0 ** (-h / 8) for h in range(1, 65)] + [
        2.0 ** (-(2 * k - 1) / 16) for k in range(1, 49)
    ]
    np.testing.assert_allclose(alibi_slopes(112), expected, rtol=1e-14)


def mpt_gen_slopes(n):
    """MPT's recipe, re-derived: the ladder of the next power of two P, 2^(-8k/P), then its
    even rungs (the P/2 ladder) followed by its odd rungs, cut to n."""
    big = 2 ** math.ceil(math.log2(n))
    ladder = [2.0 ** (-8 * k / big) for k in range(1, big + 1)]
    return (ladder if big == n else ladder[1::2] + ladder[0::2])[:n]


@pytest.mark.parametrize("num_heads", [3, 8, 12, 20, 112])
def test_mpt_recipe_gives_the_same_slopes_in_the_same_order(num_heads):
    np.testing.assert_allclose(alibi_slopes(num_heads), mpt_gen_slopes(num_heads), rtol=1e-14)


def test_bias_values_causal_and_bidirectional():
    bias = alibi_bias(8, 4)  # slopes 1/2, 1/4, …
    assert bias.shape == (8, 4, 4) and bias.dtype == np.float32
    assert bias[0].tolist() == [
        [0.0, -np.inf, -np.inf, -np.inf],
        [-0.5, 0.0, -np.inf, -np.inf],
        [-1.0, -0.5, 0.0, -np.inf],
        [-1.5, -1.0, -0.5, 0.0],
    ]
    full = alibi_bias(8, 4, causal=False, dtype=np.float64)
    assert full[1].tolist() == [
        [0.0, -0.25, -0.5, -0.75],
        [-0.25, 0.0, -0.25, -0.5],
        [-0.5, -0.25, 0.0, -0.25],
        [-0.75, -0.5, -0.25, 0.0],
    ]


@pytest.mark.parametrize("causal", [True, False])
def test_bias_matches_a_direct_formula(causal):
    num_heads, q_len, k_len = 12, 37, 53
    bias = alibi_bias(num_heads, q_len, k_len, causal=causal, dtype=np.float64)
    slopes = np.asarray(reference_slopes(num_heads))
    query_pos = np.arange(k_len - q_len, k_len)[:, None]
    distance = query_pos - np.arange(k_len)[None, :]
    expected = -slopes[:, None, None] * (distance if causal else np.abs(distance))
    if causal:
        expected = np.where(distance[None] >= 0, expected, -np.inf)
    np.testing.assert_allclose(bias, expected, rtol=1e-15)


def test_cached_decoding_rows_are_the_last_rows_of_the_full_bias():
    full = alibi_bias(4, 10)
    np.testing.assert_array_equal(alibi_bias(4, 1, 10), full[:, -1:, :])
    np.testing.assert_array_equal(alibi_bias(4, 3, 10), full[:, -3:, :])


def test_float32_is_float32_product_of_slope_and_distance():
    bias = alibi_bias(16, 300)
    slopes = alibi_slopes(16).astype(np.float32)
    distance = (np.arange(300)[:, None] - np.arange(300)[None, :]).astype(np.float32)
    expected = np.where(distance >= 0, -slopes[:, None, None] * distance, -np.inf)
    np.testing.assert_array_equal(bias, expected)


def test_row_constant_cancels_in_softmax():
    # -m (i - j) = -m i + m j: softmax only sees +m j once the row term cancels.
    slope, n = float(alibi_slopes(8)[0]), 6
    bias = alibi_bias(8, n, dtype=np.float64)[0]
    keys_only = np.where(np.isfinite(bias), slope * np.arange(n)[None, :], -np.inf)
    np.testing.assert_allclose(softmax(bias), softmax(keys_only), rtol=1e-14)


def test_float16_output():
    bias = alibi_bias(4, 8, dtype=np.float16)
    assert bias.dtype == np.float16
    np.testing.assert_array_equal(bias, alibi_bias(4, 8).astype(np.float16))


BAD = [
    (lambda: alibi_slopes(0), ValueError, "num_heads must be >= 1"),
    (lambda: alibi_slopes(8.0), TypeError, "num_heads must be an integer"),
    (lambda: alibi_bias(8, 0), ValueError, "query_len must be >= 1"),
    (lambda: alibi_bias(8, 5, 4), ValueError, "key_len must be >= query_len"),
    (lambda: alibi_bias(8, 4, dtype=np.int32), TypeError, "dtype must be a float dtype"),
    (lambda: alibi_bias(8, 4, causal="yes"), TypeError, "causal must be True or False"),
]


@pytest.mark.parametrize("call, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()
