"""xPos: the scale ζ_i^(n/scale_base) against the paper's formula and an explicit rotation."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained.rope import apply_rope, rope_frequencies
from pe_explained.xpos import expected_rotary_score, xpos_scale, xpos_zeta


def test_zeta_is_the_papers_formula():
    head_dim, gamma = 8, 0.4
    i = np.arange(head_dim // 2)
    np.testing.assert_allclose(
        xpos_zeta(head_dim, gamma=gamma), (2 * i / head_dim + gamma) / (1 + gamma), rtol=1e-15
    )
    # torchscale writes it as (2i + 0.4 d) / (1.4 d)
    np.testing.assert_allclose(
        xpos_zeta(64), (np.arange(0, 64, 2) + 0.4 * 64) / (1.4 * 64), rtol=1e-15
    )


def test_scale_layouts_and_values():
    s = xpos_scale(4, [0, 512, 1024])
    z = xpos_zeta(4)
    assert s.shape == (3, 4)
    np.testing.assert_array_equal(s[0], np.ones(4))
    np.testing.assert_allclose(s[1], np.repeat(z, 2), rtol=1e-15)  # interleaved: z0 z0 z1 z1
    np.testing.assert_allclose(s[2], np.repeat(z, 2) ** 2, rtol=1e-15)
    halves = xpos_scale(4, [512], layout="halves")
    np.testing.assert_allclose(halves[0], np.tile(z, 2), rtol=1e-15)  # z0 z1 z0 z1


def test_query_key_product_depends_on_distance_only():
    # queries × scale(n), keys ÷ scale(m): the product is ζ^((n − m) / scale_base)
    s = xpos_scale(16, np.arange(2000))
    np.testing.assert_allclose(s[1500] / s[1000], s[500] / s[0], rtol=1e-12)
    np.testing.assert_allclose(s[1500] / s[1000], xpos_scale(16, [500])[0], rtol=1e-12)


def _rotate_interleaved(x, position, omega):
    """Explicit 2×2 rotation of each pair (2i, 2i+1) by position·ω_i (test-only)."""
    out = np.empty_like(x)
    c, s = np.cos(position * omega), np.sin(position * omega)
    out[0::2] = c * x[0::2] - s * x[1::2]
    out[1::2] = s * x[0::2] + c * x[1::2]
    return out


@pytest.mark.parametrize("scale_base", [None, 512, 64])
def test_expected_score_matches_explicit_rotation_and_scaling(scale_base):
    head_dim, base = 8, 10000.0
    omega = base ** (-np.arange(0, head_dim, 2) / head_dim)
    distances = np.array([0, 1, 5, 40, 300])
    query_pos = 1000
    got = expected_rotary_score(head_dim, distances, base=base, scale_base=scale_base)
    for dist, value in zip(distances, got, strict=True):
        key_pos = query_pos - dist
        total = 0.0
        for e in np.eye(head_dim):  # E[q qᵀ] ∝ identity: average over the basis
            q, k = e.copy(), e.copy()
            if scale_base is not None:
                q = q * xpos_scale(head_dim, [query_pos], scale_base=scale_base)[0]
                k = k / xpos_scale(head_dim, [key_pos], scale_base=scale_base)[0]
            total += _rotate_interleaved(q, query_pos, omega) @ _rotate_interleaved(
                k, key_pos, omega
            )
        assert value == pytest.approx(total / head_dim, abs=1e-12)


@pytest.mark.parametrize("layout", ["interleaved", "halves"])
def test_expected_score_with_the_librarys_rope_in_both_layouts(layout):
    head_dim, query_pos = 16, 700
    inv_freq, _ = rope_frequencies(head_dim)
    distances = np.array([0, 3, 64, 650])
    got = expected_rotary_score(head_dim, distances, scale_base=512)
    basis = np.eye(head_dim)  # E[q qᵀ] ∝ identity: average over the basis vectors
    q = apply_rope(
        basis * xpos_scale(head_dim, [query_pos], layout=layout),
        np.full(head_dim, query_pos),
        inv_freq,
        layout=layout,
    )
    for dist, value in zip(distances, got, strict=True):
        key_pos = query_pos - int(dist)
        k = apply_rope(
            basis / xpos_scale(head_dim, [key_pos], layout=layout),
            np.full(head_dim, key_pos),
            inv_freq,
            layout=layout,
        )
        assert value == pytest.approx(np.sum(q * k) / head_dim, abs=1e-12)


def test_xpos_smooths_the_far_oscillation_of_rope():
    # Not a lower curve: xPos removes the oscillation of the high-frequency pairs.
    d = np.arange(2048, 8193)
    rope = expected_rotary_score(64, d)
    xpos = expected_rotary_score(64, d, scale_base=512)
    assert expected_rotary_score(64, [0], scale_base=512)[0] == 1.0
    assert np.abs(np.diff(xpos)).sum() < 0.01 * np.abs(np.diff(rope)).sum()
    assert rope.min() < -0.1 < xpos.min()


BAD = [
    (lambda: xpos_scale(7, 3), ValueError, "head_dim must be even"),
    (lambda: xpos_scale(8, 3, scale_base=0), ValueError, "scale_base must be > 0"),
    (lambda: xpos_scale(8, 3, gamma=0.0), ValueError, "gamma must be > 0"),
    (lambda: xpos_scale(8, [np.nan]), ValueError, "positions must be finite"),
    (lambda: xpos_scale(8, [10**6]), ValueError, "positions must lie within"),
    (lambda: xpos_scale(8, 3, layout="split"), ValueError, "layout must be one of"),
    (lambda: expected_rotary_score(8, [-2]), ValueError, "distances must be >= 0"),
    (lambda: expected_rotary_score(8, [2], base=1.0), ValueError, "base must be > 1"),
]


def test_xpos_is_lower_than_rope_on_average_between_500_and_2000():
    band = np.arange(500, 2000)
    rope = expected_rotary_score(64, band)
    xpos = expected_rotary_score(64, band, scale_base=512)
    assert xpos.mean() < rope.mean()
    # and at distance 1000 by a third: 0.279 against 0.189
    at = expected_rotary_score(64, [1000]), expected_rotary_score(64, [1000], scale_base=512)
    assert (round(float(at[0][0]), 3), round(float(at[1][0]), 3)) == (0.279, 0.189)


def test_a_key_after_the_query_is_amplified_not_damped():
    # the score carries zeta_i^((n - m)/B): for m > n the exponent is negative
    zeta = xpos_zeta(64)
    for distance in (-512, -2048):
        factor = xpos_scale(64, [distance])[0, ::2]  # one column per pair (interleaved)
        np.testing.assert_allclose(factor, zeta ** (distance / 512), rtol=1e-13)
        assert np.all(factor > 1)
    far, near = xpos_scale(64, [-2048])[0, 0], xpos_scale(64, [-512])[0, 0]
    assert far > near > 1


@pytest.mark.parametrize("call, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=message):
        call()
