"""Adding position to meaning: the paper's recipe and the measurements made on it."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import sinusoidal
from pe_explained.embedding import (
    concatenate_positions,
    cosine_matrix,
    cosine_similarity,
    dropout,
    embed_with_positions,
    energy_rank,
    position_share,
)


def test_embedding_is_scaled_by_sqrt_d_model_then_pe_added():
    rng = np.random.default_rng(0)
    e = rng.normal(size=(5, 16))
    np.testing.assert_allclose(embed_with_positions(e), 4.0 * e + sinusoidal(5, 16))
    np.testing.assert_allclose(
        embed_with_positions(e, scale_by_sqrt_d_model=False), e + sinusoidal(5, 16)
    )


def test_dropout_zeroes_about_rate_and_keeps_the_mean():
    x = np.full((400, 250), 2.0)
    out = dropout(x, 0.1, seed=3)
    assert abs(float((out == 0).mean()) - 0.1) < 0.01
    assert np.unique(out).tolist() == [0.0, pytest.approx(2.0 / 0.9)]
    assert float(out.mean()) == pytest.approx(2.0, rel=0.01)
    np.testing.assert_array_equal(dropout(x, 0.0), x)
    np.testing.assert_array_equal(dropout(x, 0.1, seed=3), out)  # deterministic


def test_bag_of_words_sum_ignores_additive_pe():
    # sum_pos (e[w(pos)] + PE[pos]) = sum_w e[w] + sum_pos PE[pos]: order-free either way
    rng = np.random.default_rng(1)
    e = rng.normal(size=(6, 8))
    order = [3, 0, 5, 1, 4, 2]
    np.testing.assert_allclose(
        embed_with_positions(e).sum(0), embed_with_positions(e[order]).sum(0)
    )


def test_concatenation_then_linear_map_is_a_sum_of_linear_maps():
    rng = np.random.default_rng(2)
    e, p = rng.normal(size=(4, 6)), rng.normal(size=(4, 3))
    w = rng.normal(size=(9, 5))
    np.testing.assert_allclose(concatenate_positions(e, p) @ w, e @ w[:6] + p @ w[6:])


def test_cosine_similarity_values():
    assert cosine_similarity([1.0, 0.0], [0.0, 3.0]).tolist() == 0.0
    assert cosine_similarity([[2.0, 2.0]], [[1.0, 1.0]]).tolist() == [pytest.approx(1.0)]
    # PE(p)·PE(q) = sum_i cos((p - q) omega_i), so cos = that / (d/2)
    pe = sinusoidal(40, 8)
    from pe_explained import sinusoidal_frequencies

    expected = np.cos(25 * sinusoidal_frequencies(8)).sum() / 4
    assert float(cosine_similarity(pe[30], pe[5])) == pytest.approx(expected, abs=1e-12)


def test_cosine_matrix_matches_pairwise_cosines():
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=(5, 7)), rng.normal(size=(3, 7))
    expected = [[float(cosine_similarity(x, y)) for y in b] for x in a]
    np.testing.assert_allclose(cosine_matrix(a, b), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="same number of columns"):
        cosine_matrix(a, np.ones((2, 3)))


def test_random_vectors_are_nearly_orthogonal_with_spread_one_over_sqrt_d():
    rng = np.random.default_rng(4)
    for d in (64, 1024):
        a, b = rng.normal(size=(2, 1500, d))
        spread = float(cosine_similarity(a, b).std())
        assert spread == pytest.approx(1 / np.sqrt(d), rel=0.08)


def test_position_share():
    assert position_share([[3.0, 0.0]], [[0.0, 4.0]]) == pytest.approx(0.64)
    # N(0, 1/d) embeddings scaled by sqrt(d): ||e||^2 ~ d, ||PE||^2 = d/2 -> share ~ 1/3
    d = 512
    e = np.random.default_rng(5).normal(0, 1 / np.sqrt(d), size=(2000, d))
    pe = sinusoidal(2000, d)
    assert position_share(np.sqrt(d) * e, pe) == pytest.approx(1 / 3, abs=0.01)
    assert position_share(e, pe) == pytest.approx((d / 2) / (1 + d / 2), abs=0.002)


def test_energy_rank():
    assert energy_rank(np.eye(5)) == 5
    assert energy_rank(np.eye(5), 0.6) == 3
    assert energy_rank(np.diag([3.0, 1.0, 0.0]), 0.9) == 1


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: dropout(np.ones(3), 1.0), ValueError, "rate must be < 1"),
        (lambda: dropout(np.ones(3), -0.1), ValueError, "rate must be >= 0"),
        (lambda: dropout(np.ones(3), 0.1, seed=-1), ValueError, "seed must be >= 0"),
        (lambda: embed_with_positions(np.ones(4)), ValueError, "must be 2-D"),
        (lambda: embed_with_positions(np.ones((2, 3))), ValueError, "d_model must be even"),
        (
            lambda: embed_with_positions(np.ones((2, 4)), scale_by_sqrt_d_model=1),
            TypeError,
            "scale_by_sqrt_d_model",
        ),
        (lambda: embed_with_positions([[np.inf, 0.0]]), ValueError, "finite"),
        (
            lambda: concatenate_positions(np.ones((2, 3)), np.ones((3, 3))),
            ValueError,
            "same number",
        ),
        (lambda: cosine_similarity([0.0, 0.0], [1.0, 0.0]), ValueError, "zero vector"),
        (lambda: cosine_similarity([1.0, 0.0], [1.0, 0.0, 0.0]), ValueError, "last dimension"),
        (lambda: position_share(np.ones((2, 2)), np.ones((2, 3))), ValueError, "same shape"),
        (lambda: energy_rank(np.zeros((2, 2))), ValueError, "all zeros"),
        (lambda: energy_rank(np.eye(2), 1.5), ValueError, "fraction must be <= 1"),
        (lambda: cosine_similarity(["a"], ["b"]), TypeError, "real numbers"),
    ],
)
def test_bad_arguments_say_what_is_wrong(call, error, match):
    with pytest.raises(error, match=match):
        call()
