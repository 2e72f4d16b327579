"""Inputs that used to slip through: each is now a clear error naming the argument, or a
correct result. (Large positions: tests/test_large_positions.py.)"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import pe_explained as pe
from pe_explained.layer import TokenEmbedding


def no_warning(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return call()


@pytest.mark.parametrize(
    "kwargs, argument",
    [
        ({"min_timescale": 1e-320}, "min_timescale"),
        ({"max_timescale": 1e308, "min_timescale": 1e-10}, "max_timescale"),
    ],
)
def test_timing_signal_refuses_a_ratio_of_timescales_beyond_float64(kwargs, argument):
    with pytest.raises(ValueError, match=argument):
        no_warning(lambda: pe.tensor2tensor_timing_signal(4, 4, **kwargs))


def test_timing_signal_with_a_huge_but_finite_ratio_is_finite():
    out = no_warning(lambda: pe.tensor2tensor_timing_signal(4, 4, max_timescale=1e308))
    assert np.all(np.isfinite(out))


def test_recover_positions_refuses_positions_beyond_int64():
    with pytest.raises(ValueError, match="signal"):
        no_warning(lambda: pe.recover_positions([1e-320]))
    assert pe.recover_positions([2.0**-40]).tolist() == [2**40 - 1]


@pytest.mark.parametrize(
    "value", [np.array([2**63], dtype=np.uint64), np.array([2**64 - 1], dtype=np.uint64)]
)
def test_t5_refuses_unsigned_values_beyond_int64(value):
    with pytest.raises(ValueError, match="relative_position"):
        pe.t5_relative_bucket(value)


def test_t5_most_negative_int64_is_the_last_bucket():
    far = pe.t5_relative_bucket(np.array([-(2**63), -(2**62), -1000]))
    assert far.tolist() == [15, 15, 15]
    causal = pe.t5_relative_bucket(np.array([-(2**63)]), bidirectional=False)
    assert causal.tolist() == [31]
    assert pe.t5_relative_bucket(np.array([2**63 - 1])).tolist() == [31]


@pytest.mark.parametrize(
    "call, shape",
    [
        (lambda: pe.t5_relative_bucket([]), (0,)),
        (lambda: pe.fairseq_positions([]), (0,)),
        (lambda: pe.relative_sinusoid([], 8), (0, 8)),
        (lambda: TokenEmbedding(10, 8)([]), (0, 8)),
    ],
)
def test_an_empty_list_is_an_empty_input(call, shape):
    assert call().shape == shape


# ---- RoPE frequencies that used to overflow, underflow or divide by zero


def _rope(**kwargs):
    return no_warning(lambda: pe.rope_frequencies(8, **kwargs))


def test_dynamic_at_the_trained_length_is_plain_rope_even_for_a_huge_factor():
    scaling = {"rope_type": "dynamic", "factor": 1e17, "original_max_position_embeddings": 4096}
    inv_freq, _ = _rope(scaling=scaling)
    np.testing.assert_array_equal(inv_freq, pe.rope_frequencies(8)[0])


@pytest.mark.parametrize(
    "kwargs",
    [
        {
            "scaling": {
                "rope_type": "dynamic",
                "factor": 2.0,
                "original_max_position_embeddings": 4096,
            },
            "seq_len": 10**300,
        },
        {"scaling": {"rope_type": "linear", "factor": 1e308}},
        {
            "scaling": {
                "rope_type": "yarn",
                "factor": 1e308,
                "original_max_position_embeddings": 4096,
            }
        },
    ],
)
def test_frequencies_beyond_float64_are_refused(kwargs):
    with pytest.raises(ValueError, match="scaling|seq_len|factor"):
        _rope(**kwargs)


@pytest.mark.parametrize("args", [(1e300, 1e10, 64), (1e4, 1e308, 64)])
def test_ntk_aware_base_beyond_float64_is_refused(args):
    with pytest.raises(ValueError, match="base|factor"):
        no_warning(lambda: pe.ntk_aware_base(*args))
