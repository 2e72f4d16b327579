"""tensor2tensor and fairseq sinusoidal tables against their published formulas."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import sinusoidal
from pe_explained.conventions import (
    fairseq_positions,
    fairseq_sinusoidal,
    tensor2tensor_timing_signal,
)


def plain_t2t(length, channels, min_timescale=1.0, max_timescale=1.0e4):
    """get_timing_signal_1d re-derived element by element."""
    n = channels // 2
    step = math.log(max_timescale / min_timescale) / max(n - 1, 1)
    out = np.zeros((length, channels))
    for p in range(length):
        for i in range(n):
            inv = min_timescale * math.exp(-i * step)
            out[p, i], out[p, n + i] = math.sin(p * inv), math.cos(p * inv)
    return out


@pytest.mark.parametrize("channels", [2, 3, 8, 9, 64])
def test_t2t_matches_plain_formula(channels):
    np.testing.assert_allclose(
        tensor2tensor_timing_signal(50, channels), plain_t2t(50, channels), atol=1e-13
    )


def test_t2t_multiplies_the_inverse_timescales_by_min_timescale():
    # As in tensor2tensor: inv_timescale_i = min_timescale · exp(−i · log(max/min) / (n − 1)),
    # so min_timescale = 2 gives inverse timescales 2 and 2/100 (not 1/2 and 1/200).
    sig = tensor2tensor_timing_signal(3, 4, min_timescale=2.0, max_timescale=200.0)
    np.testing.assert_allclose(
        sig[1], [math.sin(2.0), math.sin(0.02), math.cos(2.0), math.cos(0.02)], rtol=1e-14
    )


def test_fairseq_equals_t2t_without_padding_and_shifts_with_it():
    np.testing.assert_allclose(
        fairseq_sinusoidal(40, 16), tensor2tensor_timing_signal(40, 16), atol=1e-13
    )
    table = fairseq_sinusoidal(40, 16, padding_idx=1)
    assert table[1].tolist() == [0.0] * 16
    np.testing.assert_allclose(
        np.delete(table, 1, axis=0),
        np.delete(tensor2tensor_timing_signal(40, 16), 1, axis=0),
        atol=1e-13,
    )


def test_fairseq_odd_width_gets_a_zero_column():
    table = fairseq_sinusoidal(5, 9)
    assert table.shape == (5, 9)
    assert table[:, -1].tolist() == [0.0] * 5
    np.testing.assert_allclose(table[:, :8], fairseq_sinusoidal(5, 8), rtol=0, atol=0)


def test_fairseq_positions_start_after_the_padding_index():
    is_token = np.array([True, True, True, False, False])
    assert fairseq_positions(is_token, padding_idx=1).tolist() == [2, 3, 4, 1, 1]
    assert fairseq_positions(np.ones(3, dtype=bool), padding_idx=0).tolist() == [1, 2, 3]


def test_paper_and_t2t_share_only_the_first_pair():
    paper = sinusoidal(100, 64, layout="halves")
    t2t = tensor2tensor_timing_signal(100, 64)
    np.testing.assert_allclose(paper[:, [0, 32]], t2t[:, [0, 32]], atol=1e-13)
    assert np.abs(paper - t2t).max() > 0.1


BAD = [
    (lambda: tensor2tensor_timing_signal(-1, 8), ValueError, "length must be >= 0"),
    (lambda: tensor2tensor_timing_signal(4, 1), ValueError, "channels must be >= 2"),
    (
        lambda: tensor2tensor_timing_signal(4, 8, min_timescale=0.0),
        ValueError,
        "min_timescale must be > 0",
    ),
    (
        lambda: tensor2tensor_timing_signal(4, 8, max_timescale=0.5),
        ValueError,
        "max_timescale must be >= min_timescale",
    ),
    (lambda: fairseq_sinusoidal(4, 3), ValueError, "embedding_dim must be >= 4"),
    (lambda: fairseq_sinusoidal(4, 8, padding_idx=4), ValueError, "padding_idx must be <"),
    (lambda: fairseq_sinusoidal(4, 8, padding_idx=-1), ValueError, "padding_idx must be >= 0"),
    (
        lambda: fairseq_positions(np.array([1, 0]), padding_idx=1),
        TypeError,
        "is_token must be a boolean",
    ),
]


@pytest.mark.parametrize("call, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()
