"""Learned absolute position embeddings: initialisation, parameter count, hard max_len."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained.learned import LearnedPositionalEmbedding, learned_parameter_count


def test_normal_init_has_the_requested_std_and_is_seeded():
    layer = LearnedPositionalEmbedding(768, max_len=512, seed=1)
    assert layer.table.shape == (512, 768)
    assert abs(layer.table.std() - 0.02) < 2e-4 and abs(layer.table.mean()) < 2e-4
    np.testing.assert_array_equal(layer.table, LearnedPositionalEmbedding(768, 512, seed=1).table)
    assert not np.array_equal(layer.table, LearnedPositionalEmbedding(768, 512, seed=2).table)


def test_truncated_normal_stays_within_two_std():
    table = LearnedPositionalEmbedding(64, 256, init="truncated_normal", std=0.02).table
    assert np.abs(table).max() <= 0.04
    # the std of N(0, 1) cut at ±2 is 0.8796…
    assert abs(table.std() / 0.02 - 0.8796) < 0.01


def test_parameter_count_and_max_len():
    assert learned_parameter_count(512, 768) == 393_216
    layer = LearnedPositionalEmbedding(16, 8)
    assert layer.num_parameters == 128
    out = layer(np.zeros((2, 8, 16)))
    np.testing.assert_array_equal(out[1], layer.table)
    with pytest.raises(ValueError, match="exceed max_len=8"):
        layer(np.zeros((2, 9, 16)))


def test_dropout_does_not_change_the_table():
    a = LearnedPositionalEmbedding(8, 4, dropout=0.5, seed=0)
    b = LearnedPositionalEmbedding(8, 4, seed=0)
    np.testing.assert_array_equal(a.table, b.table)
    out = a(np.zeros((1, 4, 8)), training=True)
    assert np.all((out == 0) | np.isclose(out, 2 * a.table))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"std": 0.0}, ValueError, "std must be > 0"),
        ({"init": "xavier"}, ValueError, "init must"),
        ({"max_len": -1}, ValueError, "max_len must be >= 1"),
        ({"seed": -1}, ValueError, "seed"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    args = {"d_model": 8, "max_len": 4} | kwargs
    with pytest.raises(error, match=match):
        LearnedPositionalEmbedding(**args)
