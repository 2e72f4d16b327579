"""The wrong variants reproduce the mistakes exactly, and the measured claims fail as stated."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import sinusoidal, sinusoidal_frequencies
from pe_explained.pitfalls import (
    doubled_exponent_frequencies,
    sinusoidal_doubled_exponent,
    sum_rule_errors,
    wrong_layout_lookup,
)
from pe_explained.properties import pairwise_distances


def buggy_loop(seq_len, d_model):
    """The loop as tutorials write it: i already steps by 2, and 2*i is used again."""
    out = np.zeros((seq_len, d_model))
    for pos in range(seq_len):
        for i in range(0, d_model, 2):
            out[pos, i] = np.sin(pos / (10000 ** (2 * i / d_model)))
            out[pos, i + 1] = np.cos(pos / (10000 ** (2 * i / d_model)))
    return out


def test_doubled_exponent_table_is_the_buggy_loop():
    np.testing.assert_allclose(
        sinusoidal_doubled_exponent(50, 16), buggy_loop(50, 16), rtol=0, atol=1e-12
    )


def test_doubled_exponent_frequencies_are_the_correct_ones_squared():
    """base^(-4i/d) = (base^(-2i/d))²: the ladder falls twice as fast."""
    np.testing.assert_allclose(
        doubled_exponent_frequencies(64), sinusoidal_frequencies(64) ** 2, rtol=1e-13
    )
    # …which is also the correct ladder of a base² encoding
    np.testing.assert_allclose(
        doubled_exponent_frequencies(64), sinusoidal_frequencies(64, base=1e8), rtol=1e-13
    )


def test_doubled_exponent_agrees_with_correct_table_only_in_pair_0():
    good, bad = sinusoidal(40, 8), sinusoidal_doubled_exponent(40, 8)
    np.testing.assert_allclose(bad[:, :2], good[:, :2], atol=1e-12)
    assert np.abs(bad[:, 2:] - good[:, 2:]).max() > 0.5


def test_sum_rule_errors():
    errors = sum_rule_errors(60, 60, 16)
    assert errors["M_k · PE(pos)"] < 1e-13
    assert errors["best fixed linear map of PE(pos), PE(k)"] > 0.3
    assert errors["PE(pos) + PE(k)"] > 1.0
    # PE(pos) + PE(k) is off already at pos = k = 1
    pe = sinusoidal(3, 16)
    assert np.abs(pe[1] + pe[1] - pe[2]).max() > 0.5


def test_sum_rule_naive_error_analytic_d2():
    """d_model = 2, pos = k = 0 only: PE(0) + PE(0) = 2·PE(0) is off by ‖PE(0)‖: error 1."""
    assert sum_rule_errors(1, 1, 2)["PE(pos) + PE(k)"] == pytest.approx(1.0)


def test_wrong_layout_lookup():
    nearest, distance, own = wrong_layout_lookup(200, 32)
    halves, interleaved = sinusoidal(200, 32, layout="halves"), sinusoidal(200, 32)
    np.testing.assert_allclose(own, np.linalg.norm(halves - interleaved, axis=1), atol=1e-12)
    np.testing.assert_allclose(
        distance, pairwise_distances(halves, interleaved).min(axis=1), atol=1e-12
    )
    assert np.all(distance <= own + 1e-12)
    adjacent = np.linalg.norm(interleaved[1] - interleaved[0])
    assert np.all(distance > 2 * adjacent)  # far from every position the model has seen
    assert np.mean(nearest == np.arange(200)) < 0.05
    # symmetric in which layout was trained
    _, _, own_h = wrong_layout_lookup(200, 32, trained="halves")
    np.testing.assert_allclose(own_h, own, atol=1e-12)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: doubled_exponent_frequencies(7), ValueError),
        (lambda: doubled_exponent_frequencies(8, base=1), ValueError),
        (lambda: sinusoidal_doubled_exponent(-1, 8), ValueError),
        (lambda: sinusoidal_doubled_exponent("3", 8), TypeError),
        (lambda: sum_rule_errors(0, 5, 8), ValueError),
        (lambda: sum_rule_errors(5, 5.0, 8), TypeError),
        (lambda: wrong_layout_lookup(5, 8, trained="rope"), ValueError),
        (lambda: pairwise_distances(np.zeros((2, 3)), np.zeros((2, 4))), ValueError),
    ],
)
def test_bad_arguments_are_rejected_with_a_message(call, error):
    with pytest.raises(error, match=r"\w+ (must|as a count must)"):
        call()
