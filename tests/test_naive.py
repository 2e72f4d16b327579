"""The naive encodings and the row comparisons, against values worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import sinusoidal
from pe_explained.naive import (
    binary_encoding,
    closest_position,
    distances_from,
    index_encoding,
    neighbour_distances,
    normalized_index_encoding,
    one_hot_encoding,
)


def test_index_norm_is_pos_times_sqrt_d():
    table = index_encoding(np.array([0, 3, 500]), 16)
    np.testing.assert_allclose(np.linalg.norm(table, axis=1), [0, 12, 2000])


def test_normalized_index_is_the_same_at_5_of_10_and_50_of_100():
    a = normalized_index_encoding([5], 10)
    b = normalized_index_encoding([50], 100)
    assert a.tolist() == b.tolist() == [[0.5]]
    # one step is 1/seq_len: a different amount in every sequence
    np.testing.assert_allclose(neighbour_distances(normalized_index_encoding(10, 10)), 0.1)


def test_one_hot_rows_are_all_sqrt2_apart():
    table = one_hot_encoding(50, 50)
    d = np.linalg.norm(table[:, None] - table[None], axis=-1)
    off = ~np.eye(50, dtype=bool)
    np.testing.assert_allclose(d[off], np.sqrt(2))
    assert table.shape == (50, 50)


def test_binary_digits_and_flips():
    assert binary_encoding([7, 8, 9], 4).tolist() == [[1, 1, 1, 0], [0, 0, 0, 1], [1, 0, 0, 1]]
    # squared distance = number of differing bits (Hamming distance)
    table = binary_encoding(64, 6)
    for a, b in [(7, 8), (8, 9), (31, 32), (0, 63)]:
        assert distances_from(table, a)[b] ** 2 == pytest.approx(bin(a ^ b).count("1"))
    assert binary_encoding([5], 3, centered=True).tolist() == [[1, -1, 1]]


def test_sinusoidal_neighbours_are_equally_far():
    # ||PE(p+1) - PE(p)||^2 = sum_i 2 - 2 cos(omega_i): the same for every p
    from pe_explained import sinusoidal_frequencies

    expected = np.sqrt(np.sum(2 - 2 * np.cos(sinusoidal_frequencies(16))))
    np.testing.assert_allclose(neighbour_distances(sinusoidal(300, 16)), expected, rtol=1e-12)


def test_closest_position():
    assert closest_position(binary_encoding(16, 4), 7) == (3, 1.0)
    # d_model = 2: one hand turning 1 rad per position; 710 rad is 113 turns minus 6e-5
    index, distance = closest_position(sinusoidal(1000, 2), 0, min_offset=2)
    assert index == 710
    assert distance == pytest.approx(abs(710 - 113 * 2 * np.pi), rel=1e-6)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: index_encoding(3, 0), ValueError, "d_model must be >= 1"),
        (lambda: index_encoding([-1], 1), ValueError, "positions must be >= 0"),
        (lambda: normalized_index_encoding([10], 10), ValueError, "positions must be < seq_len"),
        (lambda: normalized_index_encoding(3, 0), ValueError, "seq_len must be >= 1"),
        (lambda: one_hot_encoding([4], 4), ValueError, "must be < max_len"),
        (lambda: one_hot_encoding([1.5], 4), ValueError, "whole numbers"),
        (lambda: binary_encoding([16], 4), ValueError, r"2\*\*num_bits"),
        (lambda: binary_encoding([1], 63), ValueError, "num_bits must be <= 62"),
        (lambda: binary_encoding([1], 4, centered="yes"), TypeError, "centered"),
        (lambda: binary_encoding([1], 4.0), TypeError, "num_bits must be an integer"),
        (lambda: distances_from(np.ones(3)), ValueError, "2-D table"),
        (lambda: distances_from(np.ones((3, 2)), 3), ValueError, "reference must be <"),
        (lambda: distances_from([[np.nan]]), ValueError, "finite"),
        (lambda: neighbour_distances([["a"]]), TypeError, "real numbers"),
        (lambda: closest_position(np.ones((2, 2)), 0, min_offset=2), ValueError, "no row"),
    ],
)
def test_bad_arguments_say_what_is_wrong(call, error, match):
    with pytest.raises(error, match=match):
        call()
