"""xPos's centred positions as torchscale computes them, signed positions, and where the
factors leave a float format's normal range."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained.xpos import xpos_centred_positions, xpos_safe_position, xpos_scale, xpos_zeta


@pytest.mark.parametrize("length, offset", [(4, 0), (5, 0), (1, 0), (6, 3), (2048, 0)])
def test_centred_positions_follow_torchscale(length, offset):
    # torchscale: min_pos = -(length + offset) // 2 (Python floor division), positions
    # arange(min_pos, length + offset + min_pos), of which the last `length` are used
    min_pos = -(length + offset) // 2
    expected = np.arange(min_pos, length + offset + min_pos)[-length:]
    assert xpos_centred_positions(length, offset=offset).tolist() == expected.tolist()


def test_centred_factors_equal_torchscales_formula():
    """torchscale's scale buffer is (arange(0, d, 2) + 0.4 d) / (1.4 d), raised to p / B."""
    head_dim, scale_base, length = 16, 512, 2048
    zeta = (np.arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
    positions = xpos_centred_positions(length)
    expected = zeta[None, :] ** (positions[:, None] / scale_base)
    got = xpos_scale(head_dim, positions, scale_base=scale_base)[:, 0::2]
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_centring_halves_the_exponent_it_does_not_keep_factors_near_one():
    # pair 0: ζ0 = 0.2857; at ±1024 (a centred sequence of 2048) the factors are ζ0^±2
    zeta0 = xpos_zeta(64)[0]
    low, high = xpos_scale(64, [-1024, 1024])[:, 0]
    assert math.isclose(low, zeta0**-2) and math.isclose(high, zeta0**2)
    assert round(high, 3) == 0.082 and round(low, 2) == 12.25
    far = xpos_scale(64, [-4096, 4096])[:, 0]
    assert far[1] < np.finfo(np.float16).tiny < 1 < np.finfo(np.float16).max < far[0] * 3


def test_positions_whose_factors_leave_float64_are_refused():
    with pytest.raises(ValueError, match="positions"):
        xpos_scale(8, [300_000])
    with pytest.raises(ValueError, match="positions"):
        xpos_scale(8, [-300_000])


def test_safe_position_is_where_pair_0_reaches_the_limits():
    tiny, big = float(np.finfo(np.float16).tiny), float(np.finfo(np.float16).max)
    p = xpos_safe_position(64, smallest=tiny, largest=big)
    factors = xpos_scale(64, [p, -p])
    # at p, the binding limit is reached exactly: the smallest factor or the largest
    assert math.isclose(min(factors.min() / tiny, big / factors.max()), 1.0, rel_tol=1e-9)
    inside = xpos_scale(64, [0.999 * p, -0.999 * p])
    assert inside.min() > tiny and inside.max() < big
    # float16 (and a sequence about twice as long, centred) is where it bites
    assert 3900 < p < 4000
