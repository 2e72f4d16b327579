"""FIRE (Li et al., 2023): progressive interpolation and the MLP on top of it.

* the input ``ψ(i − j) / ψ(max(L, i))`` is 0 on the diagonal, in ``[0, 1]`` for keys
  at or before the query, exactly 1 for the first key of a query past ``L``, and
  never above 1 however long the sequence (the paper's reason for it);
* values by hand for ``ψ(x) = ln(c x + 1)``;
* the paper's claim that FIRE can express ALiBi: a small ``c``, a large ``L`` and a
  linear MLP give ``−m (i − j)``;
* the MLP is ``W₂ᵀ ReLU(w₁ x + b₁) + b₂``, checked against a loop;
* FIRE is relative only for queries before ``L`` (chapter 10's ``τ``): there the bias
  of a pair depends on its offset alone, and moving a block of the sequence along
  leaves its bias as it was; past ``L`` one offset gets a different bias at every
  query, and a moved block a different bias (chapter 10 once said every relative
  scheme of the chapter depended on the offset only).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import alibi_bias, alibi_slopes, fire_bias, fire_normalized_distance

IDENTITY = ([1.0], [0.0], [[1.0]], [0.0])  # f(x) = ReLU(x) = x on [0, 1]


def test_input_by_hand():
    c, threshold = 0.5, 3.0
    x = fire_normalized_distance(6, c=c, threshold=threshold)
    for i in range(6):
        for j in range(i + 1):
            expected = math.log(c * (i - j) + 1) / math.log(c * max(threshold, i) + 1)
            assert x[i, j] == pytest.approx(expected, rel=1e-15)


def test_progressive_interpolation_keeps_the_input_in_zero_to_one():
    for length in (64, 4096):
        x = fire_normalized_distance(length, c=0.1, threshold=512.0)
        causal = np.tril(np.ones((length, length), dtype=bool))
        assert x[causal].min() == 0.0 and x[causal].max() <= 1.0
        assert np.all(np.diagonal(x) == 0.0)
    # past the threshold, the first key is exactly 1 whatever the length
    x = fire_normalized_distance(2048, c=0.1, threshold=512.0)
    np.testing.assert_allclose(x[512:, 0], 1.0, rtol=1e-15)
    assert x[511, 0] < 1.0  # before it, queries are divided by ψ(L)


def test_fire_depends_on_the_offset_alone_only_before_the_threshold():
    rng = np.random.default_rng(0)
    mlp = (rng.normal(size=8), rng.normal(size=8), rng.normal(size=(8, 2)), rng.normal(size=2))
    threshold, length = 16.0, 48
    bias = fire_bias(*mlp, length, c=0.3, threshold=threshold)
    for offset in (1, 5):
        along = np.array([bias[:, i, i - offset] for i in range(offset, length)])
        queries = np.arange(offset, length)
        before, past = along[queries <= threshold], along[queries > threshold]
        np.testing.assert_array_equal(before, np.broadcast_to(before[0], before.shape))
        # past the threshold every query gives this offset a bias of its own
        assert len({tuple(row) for row in past.round(12)}) == len(past)
        assert not np.any(np.all(np.isclose(past, before[0]), axis=1))


def test_moving_a_block_along_changes_its_bias_only_past_the_threshold():
    """Shift invariance: the bias among positions s … s + n − 1 against the one among
    0 … n − 1. The same while the block stays at or before the threshold, not after."""
    threshold, n = 16.0, 8
    bias = fire_bias(*IDENTITY, 40, c=0.1, threshold=threshold)[0]
    first = bias[:n, :n]
    for shift in range(0, 30):
        block = bias[shift : shift + n, shift : shift + n]
        if shift + n - 1 <= threshold:
            np.testing.assert_array_equal(block, first)
        else:
            assert not np.allclose(block, first), shift


def test_a_cache_gives_the_last_rows():
    full = fire_normalized_distance(9, c=0.3, threshold=4.0)
    np.testing.assert_array_equal(fire_normalized_distance(3, 9, c=0.3, threshold=4.0), full[-3:])


def test_fire_expresses_alibi():
    """ψ(x) ≈ c x for small c; with L above every position the input is (i − j) / L, and
    the linear MLP x ↦ −m L x (ReLU passes x >= 0) gives ALiBi's −m (i − j)."""
    slopes, length, big = alibi_slopes(4), 50, 1e6
    c = 1e-9
    scale = math.log1p(c * big) / c  # ψ(L) / c ≈ L
    bias = fire_bias(
        [1.0], [0.0], -slopes[None, :] * scale, np.zeros(4), length, c=c, threshold=big
    )
    np.testing.assert_allclose(bias, alibi_bias(4, length, dtype=np.float64), rtol=1e-6)


def test_the_mlp_against_a_loop():
    rng = np.random.default_rng(0)
    w1, b1, b2 = rng.normal(size=5), rng.normal(size=5), rng.normal(size=3)
    w2 = rng.normal(size=(5, 3))
    bias = fire_bias(w1, b1, w2, b2, 6, c=0.2, threshold=2.0, causal=False)
    x = fire_normalized_distance(6, c=0.2, threshold=2.0)
    for i in range(6):
        for j in range(6):
            hidden = np.maximum(w1 * x[i, j] + b1, 0.0)
            np.testing.assert_allclose(bias[:, i, j], hidden @ w2 + b2, rtol=1e-12)


def test_causal_masks_the_keys_after_the_query():
    bias = fire_bias(*IDENTITY, 4, 6, c=1.0, threshold=1.0)[0]
    after = np.arange(6)[None, :] > np.arange(2, 6)[:, None]
    assert np.all(np.isneginf(bias[after])) and np.all(np.isfinite(bias[~after]))


@pytest.mark.parametrize(
    "args, message",
    [
        (([1.0, 2.0], [0.0], [[1.0]], [0.0]), "one length"),
        (([1.0], [0.0], [[1.0, 2.0]], [0.0]), "one entry per head"),
    ],
)
def test_mismatched_mlp_shapes_are_refused(args, message):
    with pytest.raises(ValueError, match=message):
        fire_bias(*args, 3)


def test_bad_scale_and_threshold_are_refused():
    with pytest.raises(ValueError, match="c must be > 0"):
        fire_normalized_distance(3, c=0.0)
    with pytest.raises(ValueError, match="threshold must be > 0"):
        fire_normalized_distance(3, threshold=-1.0)
