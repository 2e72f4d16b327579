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
    rope_score_error,
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


# ---- a bfloat16 inv_freq buffer (a model cast with .to(torch.bfloat16))


def test_bfloat16_buffer_by_hand_for_one_entry():
    p, i, head_dim, base = 32768, 5, 32, 5e5
    omega16 = np.float32(BF16(base ** (-2 * i / head_dim)))  # the buffer, read as float32
    theta32 = np.float32(np.float32(p) * omega16)
    cos, sin = float32_rope_cos_sin([p], head_dim, base=base, inv_freq_dtype=BF16)
    assert cos[0, i] == np.cos(theta32) and sin[0, i] == np.sin(theta32)


def test_a_float32_buffer_is_the_usual_recipe():
    positions = [0, 999, 123456]
    plain = float32_rope_cos_sin(positions, 64)
    buffer = float32_rope_cos_sin(positions, 64, inv_freq_dtype=np.float32)
    assert all(np.array_equal(a, b) for a, b in zip(plain, buffer, strict=True))
    err = rope_angle_error(positions, 64, inv_freq_dtype=np.float32)
    assert np.array_equal(err, rope_angle_error(positions, 64))


def test_a_bfloat16_buffer_turns_the_angles_visibly_wrong():
    # pair 0 has ω = 1, exact in bfloat16; the others are off by up to 2^-8 of themselves
    # (8 significant bits), so the angle at position p by up to p · ω_i · 2^-8
    omega = 5e5 ** (-np.arange(0, 32, 2) / 32)
    relative = np.abs(omega.astype(BF16).astype(np.float64) - omega) / omega
    assert relative[0] == 0.0 and relative.max() <= 2.0**-8
    err = rope_angle_error([1000, 32768, 131071], 32, base=5e5, inv_freq_dtype=BF16)
    assert np.all(err > 0.2)
    cos, _ = float32_rope_cos_sin([131071], 32, base=5e5, inv_freq_dtype=BF16)
    assert cos[0, 0] == np.cos(np.float32(131071.0))
    # float64 angles from the bfloat16 buffer: the same wrong angles, without the float32 drift
    held = rope_angle_error([32768], 32, base=5e5, angles="float64", inv_freq_dtype=BF16)
    assert abs(held[0] - err[1]) < 1e-2


# ---- the score of rotated queries and keys stored in a low precision

SCORE_Q, SCORE_K = np.random.default_rng(1).normal(size=(2, 8, 64))


def test_score_error_with_float64_storage_is_the_angles_rounding_alone():
    err = rope_score_error(
        SCORE_Q, SCORE_K, [7, 1000, 10**5], 3, query_dtype=np.float64, key_dtype=np.float64
    )
    assert err.max() < 1e-10


def test_score_error_matches_apply_rope_rounded_to_bfloat16():
    """The same error from apply_rope's float64 rotation (halves layout), rounded by hand."""
    from pe_explained import apply_rope, rope_frequencies

    inv_freq, _ = rope_frequencies(64)
    m, distance = 54321, 17
    rq = apply_rope(SCORE_Q[:, None, :], [m], inv_freq).astype(BF16).astype(np.float64)
    rk = apply_rope(SCORE_K[:, None, :], [m - distance], inv_freq).astype(BF16).astype(np.float64)
    exact = (apply_rope(SCORE_Q[:, None, :], [distance], inv_freq) * SCORE_K[:, None, :]).sum(-1)
    expected = np.abs((rq * rk).sum(-1) - exact)[:, 0] / (
        np.linalg.norm(SCORE_Q, axis=-1) * np.linalg.norm(SCORE_K, axis=-1)
    )
    ours = rope_score_error(SCORE_Q, SCORE_K, [m], distance, query_dtype=BF16, key_dtype=BF16)
    np.testing.assert_allclose(ours[0], expected.max(), rtol=1e-6)


def test_bfloat16_score_error_does_not_grow_with_position_or_distance():
    errors = [
        rope_score_error(
            SCORE_Q, SCORE_K, np.arange(n - 64, n), d, query_dtype=BF16, key_dtype=BF16
        )
        for n in (2_000, 2_000_000)
        for d in (0, 1_000)
    ]
    worst = [float(e.max()) for e in errors]
    assert all(1e-4 < w < 2.0**-8 for w in worst)  # below one bfloat16 rounding, everywhere
    assert max(worst) / min(worst) < 2


def test_float32_recipe_score_error_grows_with_position():
    near, far = (
        rope_score_error(SCORE_Q, SCORE_K, [n], 5, angles="float32").max() for n in (1_000, 10**6)
    )
    assert far > 100 * near


def test_fp8_keys_are_accepted_and_cost_more_than_bfloat16():
    f8 = ml_dtypes.float8_e4m3fn  # no infinity: 1e300 becomes NaN
    assert first_colliding_position(f8) == 16  # 3 fraction bits: 2^4
    err8 = rope_score_error(SCORE_Q, SCORE_K, [4096], 0, query_dtype=BF16, key_dtype=f8)
    err16 = rope_score_error(SCORE_Q, SCORE_K, [4096], 0, query_dtype=BF16, key_dtype=BF16)
    assert err8[0] > 4 * err16[0]


def test_score_error_refuses_a_key_before_position_zero_and_a_zero_vector():
    with pytest.raises(ValueError, match="positions must be >= distance"):
        rope_score_error(SCORE_Q, SCORE_K, [3], 5)
    with pytest.raises(ValueError, match="zero vector"):
        rope_score_error(np.zeros(8), np.ones(8), [3], 1)


# ---- the last position bfloat16 keeps apart from its successor


def test_bfloat16_keeps_255_apart_from_256_and_stores_256_like_257():
    stored = stored_positions([255, 256, 257], BF16)
    assert stored[0] != stored[1] and stored[1] == stored[2]
    assert first_colliding_position(BF16) == 256
