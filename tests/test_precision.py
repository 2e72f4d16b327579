"""Positions and rotary angles in low precision: collisions and the drift of float32 angles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import apply_rope, rope_frequencies
from pe_explained.precision import (
    first_colliding_position,
    float32_rope_cos_sin,
    rope_angle_error,
    stored_positions,
)

ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is installed with the book")
BF16 = ml_dtypes.bfloat16


# ---- collisions: 2^(m+1) for m fraction bits (IEEE 754; bfloat16 keeps float32's exponent)


@pytest.mark.parametrize(
    "dtype, fraction_bits",
    [(np.float16, 10), (BF16, 7), (np.float32, 23), (np.float64, 52)],
)
def test_first_collision_is_two_to_the_fraction_bits_plus_one(dtype, fraction_bits):
    p = first_colliding_position(dtype)
    assert p == 2 ** (fraction_bits + 1)
    below = stored_positions(np.arange(p + 1), dtype) if p < 10**7 else None
    if below is not None:  # every position up to p is exact, p + 1 is not
        assert np.array_equal(below, np.arange(p + 1))
        assert stored_positions([p + 1], dtype)[0] == p


def test_stored_positions_round_to_nearest_even():
    assert stored_positions([257, 258, 259, 260], BF16).tolist() == [256.0, 258.0, 260.0, 260.0]
    assert stored_positions([4097], np.float16).tolist() == [4096.0]  # spacing 4 above 4096


def test_bfloat16_spacing_at_long_context():
    # bfloat16 between 2^15 and 2^16 holds 128 numbers: spacing 2^15 / 2^7 = 256
    stored = stored_positions(np.arange(32768, 33024), BF16)
    assert np.unique(stored).tolist() == [32768.0, 33024.0]


def test_positions_beyond_the_range_become_inf():
    assert stored_positions([70000], np.float16).tolist() == [math.inf]


# ---- the float32 recipe against the float64 formula


def test_float32_recipe_by_hand_for_one_entry():
    p, i, head_dim, base = 12345, 3, 64, 10000.0
    omega32 = np.float32(base ** (-2 * i / head_dim))
    theta32 = np.float32(np.float32(p) * omega32)
    cos, sin = float32_rope_cos_sin([p], head_dim, base=base)
    assert cos[0, i] == np.cos(theta32) and sin[0, i] == np.sin(theta32)


def test_error_is_zero_at_position_zero_and_grows_with_position():
    err = rope_angle_error([0, 1000, 10000, 100000, 1000000], 128)
    assert err[0] == 0.0
    assert np.all(np.diff(err) > 0)
    # roughly linear: an absolute angle error of order p · 2^-24
    assert 1e-5 < err[1] < 1e-4 and 1e-2 < err[4] < 1e-1


def test_error_matches_an_independent_computation():
    """The same error computed entry by entry with math (float64) and numpy float32 scalars."""
    positions, head_dim, base = [777, 54321], 16, 10000.0
    expected = []
    for p in positions:
        worst = 0.0
        for i in range(head_dim // 2):
            omega = base ** (-2 * i / head_dim)
            theta32 = np.float32(np.float32(p) * np.float32(omega))
            exact = p * omega
            worst = max(
                worst,
                abs(float(np.cos(theta32)) - math.cos(exact)),
                abs(float(np.sin(theta32)) - math.sin(exact)),
            )
        expected.append(worst)
    np.testing.assert_allclose(
        rope_angle_error(positions, head_dim, base=base), expected, rtol=1e-12, atol=1e-15
    )


def test_float64_angles_rounded_once_stay_within_half_an_ulp():
    err = rope_angle_error(np.arange(0, 2_000_000, 9973), 128, angles="float64")
    assert err.max() <= 2.0**-24  # half a float32 ulp at 1


def test_apply_rope_takes_the_float64_route():
    """A unit pair rotated by apply_rope in float32 holds cos and sin with float64 angles."""
    head_dim, positions = 8, np.array([5, 123456, 2_000_000])
    inv_freq, _ = rope_frequencies(head_dim)
    x = np.zeros((len(positions), head_dim), dtype=np.float32)
    x[:, 0] = 1.0  # pair 0 = (dimension 0, dimension 4) in the halves layout
    out = apply_rope(x, positions, inv_freq).astype(np.float64)
    exact = positions * inv_freq[0]
    assert np.abs(out[:, 0] - np.cos(exact)).max() <= 2.0**-24
    assert np.abs(out[:, 4] - np.sin(exact)).max() <= 2.0**-24


def test_bfloat16_output_error_is_bfloat16_rounding_until_the_angles_drift_more():
    err = rope_angle_error([1000, 1_000_000], 128, output_dtype=BF16)
    assert err[0] <= 2.0**-9  # half a bfloat16 ulp at 1
    assert err[1] > 2.0**-9  # at a million positions the float32 angles drift further


@pytest.mark.parametrize(
    "call",
    [
        lambda: stored_positions([1], np.int32),
        lambda: stored_positions([1], "V2"),
        lambda: first_colliding_position(None),
        lambda: rope_angle_error([1], 8, angles="f16"),
        lambda: rope_angle_error([1], 8, output_dtype=bool),
    ],
)
def test_bad_dtypes_and_choices_are_refused(call):
    with pytest.raises((TypeError, ValueError)):
        call()


def test_the_float32_recipe_is_transformers_recipe():
    """With the same float32 ω, torch's float32 product and cos/sin agree within one ulp;
    torch's own float32 ω lies within a few ulps of the correctly rounded one."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional for the book)")
    positions = np.arange(0, 300_000, 997)
    for base, head_dim in [(10000.0, 128), (500000.0, 128), (1e6, 64), (10000.0, 96)]:
        ours = (base ** (-np.arange(0, head_dim, 2) / head_dim)).astype(np.float32)
        theirs = 1.0 / (base ** (torch.arange(0, head_dim, 2, dtype=torch.float) / head_dim))
        assert np.abs(theirs.numpy().view(np.int32) - ours.view(np.int32)).max() <= 6
        theta = torch.tensor(positions)[:, None].float() * torch.from_numpy(ours)
        cos, sin = float32_rope_cos_sin(positions, head_dim, base=base)
        assert np.abs(theta.cos().numpy() - cos).max() <= 2.0**-23
        assert np.abs(theta.sin().numpy() - sin).max() <= 2.0**-23
