"""NoPE: a causal mask alone lets uniform attention read off the position."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained.nope import nope_position_signal, recover_positions, uniform_attention


def test_uniform_causal_attention_is_the_prefix_mean():
    values = np.arange(12.0).reshape(6, 2) ** 2
    out = uniform_attention(values)
    expected = np.cumsum(values, axis=0) / np.arange(1, 7)[:, None]
    np.testing.assert_allclose(out, expected, rtol=1e-14)


def test_bidirectional_uniform_attention_is_the_same_everywhere():
    values = np.random.default_rng(0).normal(size=(5, 3))
    out = uniform_attention(values, causal=False)
    np.testing.assert_allclose(out, np.broadcast_to(values.mean(axis=0), (5, 3)), rtol=1e-14)


def test_start_signal_is_one_over_i_plus_one_and_gives_back_the_position():
    signal = nope_position_signal(10)
    np.testing.assert_allclose(signal, 1.0 / np.arange(1, 11), rtol=1e-14)
    assert np.all(np.diff(signal) < 0)  # strictly monotonic: each position has its own value
    assert recover_positions(signal).tolist() == list(range(10))


def test_without_the_mask_every_position_sees_the_same_number():
    signal = nope_position_signal(10, causal=False)
    np.testing.assert_allclose(signal, np.full(10, 0.1), rtol=1e-14)


BAD = [
    (lambda: nope_position_signal(0), ValueError, "seq_len must be >= 1"),
    (lambda: nope_position_signal(3, causal=None), TypeError, "causal must be True or False"),
    (lambda: uniform_attention(np.ones(3)), ValueError, "values must be 2-D"),
    (lambda: recover_positions([0.5, 0.0]), ValueError, "signal must be in"),
]


@pytest.mark.parametrize("call, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()
