"""Shifting a cache of rotated keys, and the cases a shift cannot make exact.

Analytic values first (a shift by 0, a key at position 0), then the identity the
shift rests on, ``R(Δ) R(m) k = R(m + Δ) k``, checked against keys recomputed at the
new positions with ``apply_rope``; then the attention factor (in the keys once, never
twice), partial rotation, the drift of repeated shifts in float16, bfloat16 and a
quantised cache, and the cases no shift repairs: frequencies that changed with the
length (dynamic NTK) and M-RoPE's ids, which advance by an image's side, not by its
number of tokens.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import (
    apply_mrope,
    apply_rope,
    cached_angle_error,
    key_error,
    mrope_position_ids,
    repeated_shift_error,
    rope_frequencies,
    shift_rotated_keys,
)

ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is installed with the book")
BF16 = ml_dtypes.bfloat16

HEAD_DIM = 64
INV_FREQ, _ = rope_frequencies(HEAD_DIM)
RNG = np.random.default_rng(7)
KEYS = RNG.normal(size=(2, 12, HEAD_DIM))  # (heads, seq, head_dim), before rotation
POSITIONS = np.arange(100, 112)
YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}


# ---------------------------------------------------------------------------
# Analytic values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_a_shift_by_zero_changes_nothing(layout):
    cached = apply_rope(KEYS, POSITIONS, INV_FREQ, layout=layout)
    np.testing.assert_array_equal(shift_rotated_keys(cached, 0, INV_FREQ, layout=layout), cached)


def test_a_key_at_position_zero_shifted_is_the_key_rotated_to_delta():
    # R(0) = I, so the shift alone rotates: R(Δ) k = apply_rope(k, Δ)
    deltas = np.arange(12) * 7
    shifted = shift_rotated_keys(KEYS, deltas, INV_FREQ)
    np.testing.assert_allclose(shifted, apply_rope(KEYS, deltas, INV_FREQ), atol=1e-12)


def test_one_pair_by_hand():
    # head_dim 2, ω = 1: (1, 0) at angle 0.5, shifted by −2, sits at angle −1.5
    key = np.array([[np.cos(0.5), np.sin(0.5)]])
    np.testing.assert_allclose(
        shift_rotated_keys(key, -2, [1.0]), [[np.cos(-1.5), np.sin(-1.5)]], atol=1e-15
    )


# ---------------------------------------------------------------------------
# The identity: the shifted cache is the cache recomputed at the new positions
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
@pytest.mark.parametrize("delta", [-100, -37, -1, 1, 5, 4096])
def test_shifted_cache_equals_keys_recomputed_at_the_new_positions(layout, delta):
    cached = apply_rope(KEYS, POSITIONS, INV_FREQ, layout=layout)
    fresh = apply_rope(KEYS, POSITIONS + delta, INV_FREQ, layout=layout)
    shifted = shift_rotated_keys(cached, delta, INV_FREQ, layout=layout)
    np.testing.assert_allclose(shifted, fresh, atol=1e-12)
    # float32, as a cache holds them: within float32 rounding of entries of size ~3
    cached32 = apply_rope(KEYS.astype(np.float32), POSITIONS, INV_FREQ, layout=layout)
    shifted32 = shift_rotated_keys(cached32, delta, INV_FREQ, layout=layout)
    assert shifted32.dtype == np.float32
    np.testing.assert_allclose(shifted32, fresh, atol=4e-6)


def test_one_shift_per_row():
    """StreamingLLM's step: the sinks stay (Δ = 0), the window moves back (Δ = −1)."""
    deltas = np.array([0] * 4 + [-1] * 8)
    cached = apply_rope(KEYS, POSITIONS, INV_FREQ)
    np.testing.assert_allclose(
        shift_rotated_keys(cached, deltas, INV_FREQ),
        apply_rope(KEYS, POSITIONS + deltas, INV_FREQ),
        atol=1e-12,
    )


def test_shifting_there_and_back_is_the_identity():
    cached = apply_rope(KEYS, POSITIONS, INV_FREQ)
    back = shift_rotated_keys(shift_rotated_keys(cached, 1234, INV_FREQ), -1234, INV_FREQ)
    np.testing.assert_allclose(back, cached, atol=1e-12)


def test_scores_after_the_shift_are_those_of_the_recomputed_cache():
    q = RNG.normal(size=(1, HEAD_DIM))
    cached = apply_rope(KEYS[0], POSITIONS, INV_FREQ)
    shifted = shift_rotated_keys(cached, -90, INV_FREQ)
    q_rot = apply_rope(q, [30], INV_FREQ)
    np.testing.assert_allclose(
        q_rot @ shifted.T, q_rot @ apply_rope(KEYS[0], POSITIONS - 90, INV_FREQ).T, atol=1e-11
    )


def test_the_comparison_fails_with_other_frequencies():
    """The harness can fail: a shift with frequencies other than the forward pass's."""
    yarn_freq, _ = rope_frequencies(HEAD_DIM, scaling=YARN)
    cached = apply_rope(KEYS, POSITIONS, yarn_freq)
    wrong = shift_rotated_keys(cached, 50, INV_FREQ)  # plain frequencies: wrong
    assert np.abs(wrong - apply_rope(KEYS, POSITIONS + 50, yarn_freq)).max() > 0.1


# ---------------------------------------------------------------------------
# The attention factor is in the keys once
# ---------------------------------------------------------------------------


def test_a_yarn_cache_shifted_keeps_its_attention_factor_once():
    freq, factor = rope_frequencies(HEAD_DIM, scaling=YARN)
    assert factor == pytest.approx(0.1 * np.log(4.0) + 1.0)
    cached = apply_rope(KEYS, POSITIONS, freq, attention_factor=factor)
    fresh = apply_rope(KEYS, POSITIONS + 300, freq, attention_factor=factor)
    np.testing.assert_allclose(shift_rotated_keys(cached, 300, freq), fresh, atol=1e-12)
    # rotating the cache the way the forward pass rotates (cos and sin times the factor)
    # puts the factor in twice: every key is `factor` times too long
    again = apply_rope(cached, np.full(12, 300), freq, attention_factor=factor)
    np.testing.assert_allclose(again, factor * fresh, atol=1e-12)
    ratio = np.linalg.norm(again, axis=-1) / np.linalg.norm(fresh, axis=-1)
    np.testing.assert_allclose(ratio, factor)


# ---------------------------------------------------------------------------
# Partial rotation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_partial_rotation_leaves_the_unrotated_dimensions_untouched(layout):
    rotary_dim = 16  # GPT-NeoX rotates a quarter of the head
    freq, _ = rope_frequencies(HEAD_DIM, partial_rotary_factor=0.25)
    cached = apply_rope(KEYS, POSITIONS, freq, layout=layout, rotary_dim=rotary_dim)
    shifted = shift_rotated_keys(cached, -60, freq, layout=layout, rotary_dim=rotary_dim)
    np.testing.assert_array_equal(shifted[..., rotary_dim:], cached[..., rotary_dim:])
    np.testing.assert_array_equal(shifted[..., rotary_dim:], KEYS[..., rotary_dim:])
    fresh = apply_rope(KEYS, POSITIONS - 60, freq, layout=layout, rotary_dim=rotary_dim)
    np.testing.assert_allclose(shifted, fresh, atol=1e-12)


# ---------------------------------------------------------------------------
# Repeated shifts in low precision
# ---------------------------------------------------------------------------

DRIFT_KEYS = np.random.default_rng(0).normal(size=(64, HEAD_DIM))


def _drift_by_hand(keys, positions, delta, n_shifts, dtype):
    """An independent loop: 2 × 2 rotation matrices in float32, the result stored in dtype."""
    half = HEAD_DIM // 2
    exact = apply_rope(keys, positions, INV_FREQ)
    stored = exact.astype(dtype).astype(np.float32)
    c = np.cos(delta * INV_FREQ).astype(np.float32)
    s = np.sin(delta * INV_FREQ).astype(np.float32)
    for _ in range(n_shifts):
        a, b = stored[:, :half], stored[:, half:]
        turned = np.concatenate([a * c - b * s, a * s + b * c], axis=-1)
        stored = turned.astype(dtype).astype(np.float32)
    truth = apply_rope(keys, positions + n_shifts * delta, INV_FREQ)
    return np.max(np.linalg.norm(stored - truth, axis=-1) / np.linalg.norm(keys, axis=-1))


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_repeated_shift_error_matches_an_independent_loop(dtype):
    err = repeated_shift_error(DRIFT_KEYS, np.arange(500, 564), 3, 50, INV_FREQ, dtype=dtype)
    by_hand = _drift_by_hand(DRIFT_KEYS, np.arange(500, 564), 3, 50, dtype)
    assert err[-1] == pytest.approx(by_hand, rel=0.05)
    # the comparison tells storage formats apart: float32 storage drifts far less
    unrounded = _drift_by_hand(DRIFT_KEYS, np.arange(500, 564), 3, 50, np.float32)
    assert err[-1] != pytest.approx(unrounded, rel=0.5)


def test_in_float64_repeated_shifts_stay_exact():
    err = repeated_shift_error(DRIFT_KEYS, 64, -1, 200, INV_FREQ, dtype=np.float64)
    assert err.max() < 1e-12


def test_the_first_entry_is_the_rounding_of_the_first_store():
    err = repeated_shift_error(DRIFT_KEYS, 64, -1, 0, INV_FREQ, dtype=np.float16)
    assert err.shape == (1,)
    assert 2.0**-12 < err[0] < 2.0**-10  # float16 keeps 11 significant bits


@pytest.mark.parametrize(
    "dtype, unit", [(np.float32, 2.0**-24), (np.float16, 2.0**-11), (BF16, 2.0**-8)]
)
def test_repeated_shift_error_grows_in_proportion_to_the_shifts(dtype, unit):
    err = repeated_shift_error(DRIFT_KEYS, np.arange(2000, 2064), -1, 400, INV_FREQ, dtype=dtype)
    assert np.all(err[[0, 1, 100]] < err[[1, 100, 400]])  # it grows …
    assert 2.5 < err[400] / err[100] < 5.0  # … about in proportion: 4× the shifts, ~4× the error
    assert err[400] > 20 * err[0]  # far past the rounding of one store
    assert err[400] < 400 * unit  # at most one unit of the dtype per shift


def test_bfloat16_drifts_more_than_float16_and_float16_more_than_float32():
    errs = [
        repeated_shift_error(DRIFT_KEYS, 64, -1, 100, INV_FREQ, dtype=d)[-1]
        for d in (np.float32, np.float16, BF16)
    ]
    assert errs[0] < errs[1] / 100 and errs[1] < errs[2] / 4


def test_a_turn_below_half_a_unit_is_rounded_away_in_float16():
    """Why the drift is proportional: the slowest pairs, turned by |Δ| ω < 2^-12 of their
    value, are stored back unchanged, while the exact key turns on."""
    slowest = INV_FREQ[-1]
    assert slowest < 2.0**-12
    stored = apply_rope(DRIFT_KEYS, 64, INV_FREQ).astype(np.float16)
    turned = shift_rotated_keys(stored, -1, INV_FREQ).astype(np.float16)
    half = HEAD_DIM // 2

    def unchanged(pair):  # the share of rows whose pair (pair, pair + half) did not move
        dims = [pair, pair + half]
        return np.all(turned[:, dims] == stored[:, dims], axis=1).mean()

    assert unchanged(half - 1) > 0.4  # the slowest pair stays put in most rows …
    assert unchanged(0) == 0  # … the fastest always turns
    # so the drift gathers in the slow pairs
    exact = apply_rope(DRIFT_KEYS, 64, INV_FREQ)
    x = stored.astype(np.float32)
    for _ in range(100):
        x = shift_rotated_keys(x, -1, INV_FREQ).astype(np.float16).astype(np.float32)
    miss = np.abs(x - shift_rotated_keys(exact, -100, INV_FREQ))
    per_pair = miss[:, :half] + miss[:, half:]
    assert per_pair[:, -8:].mean() > 3 * per_pair[:, :8].mean()
    # with a larger shift every pair turns visibly, and the drift stays far smaller
    small = repeated_shift_error(DRIFT_KEYS, 64, -1, 100, INV_FREQ, dtype=np.float16)[-1]
    large = repeated_shift_error(DRIFT_KEYS, 64, -256, 100, INV_FREQ, dtype=np.float16)[-1]
    assert large < small / 2


# ---------------------------------------------------------------------------
# A quantised cache: rounding after every rotation
# ---------------------------------------------------------------------------


def _q8_0(x):
    """Blocks of 32 values, one float16 scale each (max |x| / 127), int8 codes, dequantised
    back: the round trip of llama.cpp's q8_0 cache type (``block_q8_0``)."""
    blocks = x.reshape(*x.shape[:-1], -1, 32)
    scale = (np.abs(blocks).max(axis=-1, keepdims=True) / 127).astype(np.float16)
    scale32 = scale.astype(np.float32)
    codes = np.round(blocks / np.where(scale32 == 0, 1, scale32)).clip(-127, 127)
    return (codes * scale32).reshape(x.shape).astype(np.float32)


def test_a_quantised_cache_cannot_be_shifted_exactly():
    # llama.cpp's K-shift on a quantised cache: dequantise, rotate in float32, requantise
    at = np.arange(100, 164)
    cached = _q8_0(apply_rope(DRIFT_KEYS, at, INV_FREQ))
    shifted = _q8_0(shift_rotated_keys(cached, -40, INV_FREQ))
    fresh = _q8_0(apply_rope(DRIFT_KEYS, at - 40, INV_FREQ))  # what the model would cache
    assert not np.array_equal(shifted, fresh)
    truth = apply_rope(DRIFT_KEYS, at - 40, INV_FREQ)
    norms = np.linalg.norm(DRIFT_KEYS, axis=-1)
    err_shifted = np.max(np.linalg.norm(shifted - truth, axis=-1) / norms)
    err_fresh = np.max(np.linalg.norm(fresh - truth, axis=-1) / norms)
    assert err_shifted > err_fresh  # rounded twice against once
    # and it drifts on with every shift
    x = cached
    errs = []
    for j in range(1, 101):
        x = _q8_0(shift_rotated_keys(x, -1, INV_FREQ))
        errs.append(np.max(np.linalg.norm(x - apply_rope(DRIFT_KEYS, at - j, INV_FREQ), axis=-1)))
    assert errs[-1] > 5 * errs[0]


def test_an_fp8_cache_drifts_fastest():
    fp8 = ml_dtypes.float8_e4m3fn  # 3 fraction bits
    err = repeated_shift_error(DRIFT_KEYS, 64, -1, 20, INV_FREQ, dtype=fp8)
    bf16 = repeated_shift_error(DRIFT_KEYS, 64, -1, 20, INV_FREQ, dtype=BF16)
    assert err[0] > 2.0**-6 and err[-1] > 2 * err[0]
    assert err[-1] > 4 * bf16[-1]


FP8 = ml_dtypes.float8_e4m3fn


def _store_scaled_by_hand(x, scale_of):
    """x / s stored in FP8 and read back times s, s from ``scale_of(x)`` (per row or one)."""
    s = scale_of(x)
    return (x / s).astype(FP8).astype(np.float32) * s


@pytest.mark.parametrize("scale", ["row", "tensor"])
def test_a_scaled_fp8_store_is_x_over_s_rounded_then_times_s(scale):
    """scale="row": s = max |x| of the row / 448 at every store (vLLM's fp8_per_token_head
    computes one per token and head when it is written); scale="tensor": one s = max |x|
    / 448 over the first store, kept (the calibrated k_scale a checkpoint carries)."""
    exact = apply_rope(DRIFT_KEYS, np.arange(64), INV_FREQ)
    if scale == "row":
        stored = _store_scaled_by_hand(exact, lambda x: np.abs(x).max(-1, keepdims=True) / 448)
    else:
        stored = _store_scaled_by_hand(exact, lambda x: np.abs(x).max() / 448)
    by_hand = np.max(np.linalg.norm(stored - exact, axis=-1) / np.linalg.norm(DRIFT_KEYS, axis=-1))
    err = repeated_shift_error(DRIFT_KEYS, 64, -1, 0, INV_FREQ, dtype=FP8, scale=scale)
    assert err[0] == pytest.approx(by_hand, rel=1e-6)
    unscaled = repeated_shift_error(DRIFT_KEYS, 64, -1, 0, INV_FREQ, dtype=FP8)
    assert err[0] != pytest.approx(unscaled[0], rel=1e-3)  # the option is not ignored


def test_a_per_row_scale_makes_fp8_blind_to_the_keys_size():
    """Rounding in a float format is relative, except below its smallest normal number
    (2**-6 for E4M3) and above its largest (448): keys 2**-10 as long lose most of their
    digits unscaled, and exactly what full-size keys lose with a scale per row."""
    small = DRIFT_KEYS * 2.0**-10
    kw = {"dtype": FP8}
    full = repeated_shift_error(DRIFT_KEYS, 64, -1, 5, INV_FREQ, scale="row", **kw)
    scaled = repeated_shift_error(small, 64, -1, 5, INV_FREQ, scale="row", **kw)
    np.testing.assert_allclose(scaled, full, rtol=1e-12)
    unscaled = repeated_shift_error(small, 64, -1, 5, INV_FREQ, **kw)
    assert unscaled[0] > 10 * full[0]


def test_an_unscaled_fp8_cache_past_its_range_reports_inf():
    """E4M3 has no infinity: 449 and more become NaN. The error says inf, never NaN."""
    err = repeated_shift_error(DRIFT_KEYS * 1000, 64, -1, 2, INV_FREQ, dtype=FP8)
    assert np.all(np.isinf(err))
    err = repeated_shift_error(DRIFT_KEYS * 1000, 64, -1, 2, INV_FREQ, dtype=FP8, scale="row")
    assert np.all(np.isfinite(err))


# ---------------------------------------------------------------------------
# Dynamic NTK: frequencies that depend on the length
# ---------------------------------------------------------------------------

DYNAMIC = {"rope_type": "dynamic", "factor": 4.0, "original_max_position_embeddings": 256}


def test_dynamic_ntk_keys_cached_at_one_length_have_another_rotation():
    short, _ = rope_frequencies(HEAD_DIM, scaling=DYNAMIC, seq_len=200)  # within the context
    long, _ = rope_frequencies(HEAD_DIM, scaling=DYNAMIC, seq_len=1024)  # base enlarged
    np.testing.assert_array_equal(short, INV_FREQ)
    positions = np.arange(0, 200, 10)
    error = cached_angle_error(positions, short, long)
    assert np.all(error[0] == 0)  # position 0 is never rotated
    assert np.abs(error[-1]).max() > 0.5  # radians: a large part of a turn
    # the stale angle is m (ω_i − ω'_i), wrapped: it grows with the position until it wraps
    np.testing.assert_allclose(error[1:4, 5], positions[1:4] * (short - long)[5])
    assert 0 < error[1, 5] < error[2, 5] < error[3, 5] < np.pi
    # the keys show it: cached under `short`, what the model computes now under `long`
    k = KEYS[0, :1]
    cached = apply_rope(k, [190], short)
    now = apply_rope(k, [190], long)
    assert np.abs(cached - now).max() > 0.1


def test_no_shift_repairs_a_dynamic_ntk_cache():
    short, _ = rope_frequencies(HEAD_DIM, scaling=DYNAMIC, seq_len=200)
    long, _ = rope_frequencies(HEAD_DIM, scaling=DYNAMIC, seq_len=1024)
    k = KEYS[0, :1]
    cached = apply_rope(k, [190], short)
    target = apply_rope(k, [190], long)
    # try every whole shift from −190 to 190 with the current frequencies: none is close
    misses = [np.abs(shift_rotated_keys(cached, d, long) - target).max() for d in range(-190, 191)]
    assert min(misses) > 0.05
    # with unchanged frequencies a shift of 0 is exact, so the search itself can succeed
    assert np.abs(shift_rotated_keys(cached, 0, short) - cached).max() == 0


def test_cached_angle_error_by_hand():
    error = cached_angle_error([0, 1, 7], [1.0, 0.5], [0.5, 0.5])
    # position 7: 7 · 0.5 = 3.5 rad, wrapped to 3.5 − 2π
    np.testing.assert_allclose(error, [[0, 0], [0.5, 0], [3.5 - 2 * np.pi, 0]], atol=1e-15)
    whole = cached_angle_error([0, 1, 7], [1.0, 0.5], [0.5, 0.5], wrap=False)
    np.testing.assert_allclose(whole, [[0, 0], [0.5, 0], [3.5, 0]], atol=1e-15)


def test_unwrapped_the_stale_angle_of_dynamic_ntk_passes_half_a_turn_by_far():
    """Wrapped to (−π, π], the error of chapter 15's dynamic NTK example (base 10⁴,
    d = 128, scale 2 over 4,096 positions, read at 8,192) tops out at π, the measure's
    ceiling; unwrapped it reaches 171.8 rad over the keys cached at 0 … 4,095, and the
    key at 4,095 has 45 of its 64 pairs off by more than π."""
    dyn = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    short, _ = rope_frequencies(128, scaling=dyn, seq_len=4096)  # within the context
    long, _ = rope_frequencies(128, scaling=dyn, seq_len=8192)
    wrapped = cached_angle_error(4096, short, long)
    whole = cached_angle_error(4096, short, long, wrap=False)
    assert np.pi - 0.01 < np.abs(wrapped).max() <= np.pi
    assert round(float(np.abs(whole).max()), 1) == 171.8
    assert int(np.count_nonzero(np.abs(whole[-1]) > np.pi)) == 45
    # m (ω_i − ω'_i) itself, and wrapping it gives the default's answer
    np.testing.assert_allclose(whole, np.multiply.outer(np.arange(4096.0), short - long))
    np.testing.assert_allclose(np.exp(1j * whole), np.exp(1j * wrapped), atol=1e-9)


# ---------------------------------------------------------------------------
# M-RoPE: three ids per token
# ---------------------------------------------------------------------------

MROPE_SECTION = [12, 10, 10]  # 32 pairs, laid out contiguously or interleaved


@pytest.mark.parametrize("interleaved", [False, True])
def test_a_whole_key_shift_moves_all_three_ids(interleaved):
    """Every pair reads one of t, h, w, all turning at the plain ladder: a shift by Δ of the
    whole key is each of the three ids moved by Δ, images' h and w included."""
    ids = mrope_position_ids([3, 2], [[4, 6]])  # text, a 2 × 3-token image, text
    keys = RNG.normal(size=(ids.shape[1], HEAD_DIM))
    kwargs = {"mrope_section": MROPE_SECTION, "interleaved": interleaved}
    cached = apply_mrope(keys, ids, INV_FREQ, **kwargs)
    np.testing.assert_allclose(
        shift_rotated_keys(cached, 40, INV_FREQ),
        apply_mrope(keys, ids + 40, INV_FREQ, **kwargs),
        atol=1e-12,
    )
    # moving the text's t ids alone is not a shift of the whole key: every image token's
    # (and every text token's) h and w pairs would stay behind
    moved_t = ids + np.array([[40], [0], [0]])
    assert (
        np.abs(
            shift_rotated_keys(cached, 40, INV_FREQ)
            - apply_mrope(keys, moved_t, INV_FREQ, **kwargs)
        ).max()
        > 0.1
    )


def test_evicting_an_image_calls_for_its_side_not_its_number_of_tokens():
    """Three words, an image of 2 × 3 tokens, two words; evict the first nine tokens. The
    two words kept had ids 6 and 7; alone they would get 0 and 1. A cache that counts
    tokens moves them back by 9, to −3 and −2: the image advanced the ids by its longer
    side (3), not by its 6 tokens."""
    ids = mrope_position_ids([3, 2], [[4, 6]])
    kept = ids[:, 9:]
    alone = mrope_position_ids([2], [])
    np.testing.assert_array_equal(kept, [[6, 7]] * 3)
    np.testing.assert_array_equal(alone, [[0, 1]] * 3)
    needed = int(alone[0, 0] - kept[0, 0])
    assert needed == -6 and needed != -9
    keys = RNG.normal(size=(2, HEAD_DIM))
    cached = apply_mrope(keys, kept, INV_FREQ, mrope_section=MROPE_SECTION)
    fresh = apply_mrope(keys, alone, INV_FREQ, mrope_section=MROPE_SECTION)
    np.testing.assert_allclose(shift_rotated_keys(cached, needed, INV_FREQ), fresh, atol=1e-12)
    assert np.abs(shift_rotated_keys(cached, -9, INV_FREQ) - fresh).max() > 0.1


# ---------------------------------------------------------------------------
# Bad arguments
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: shift_rotated_keys(KEYS, [1, 2], INV_FREQ), ValueError, "one entry per row"),
        (lambda: shift_rotated_keys(KEYS, 1.5, INV_FREQ), TypeError, "delta"),
        (lambda: shift_rotated_keys(KEYS, 2**60, INV_FREQ), ValueError, "2\\*\\*53"),
        (lambda: shift_rotated_keys(KEYS, 1, INV_FREQ[:4]), ValueError, "head_dim/2 = 32"),
        (lambda: shift_rotated_keys(KEYS, 1, INV_FREQ, rotary_dim=6), ValueError, "rotary_dim/2"),
        (lambda: shift_rotated_keys(KEYS.tolist(), 1, INV_FREQ), TypeError, "numpy array"),
        (
            lambda: repeated_shift_error(DRIFT_KEYS, 64, -1, 10**6, INV_FREQ),
            ValueError,
            "n_shifts asks for shifted key entries",
        ),
        (
            lambda: repeated_shift_error(np.zeros((2, 8)), 2, -1, 1, INV_FREQ[:4]),
            ValueError,
            "no zero row",
        ),
        (lambda: repeated_shift_error(DRIFT_KEYS, 3, -1, 1, INV_FREQ), ValueError, "positions"),
        (lambda: cached_angle_error(4, [1.0], [1.0, 0.5]), ValueError, "same shape"),
        (lambda: cached_angle_error(4, [1.0], [0.5], wrap="no"), TypeError, "wrap must be"),
    ],
)
def test_bad_arguments_are_refused_naming_them(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------
# The error of keys against the keys they should be
# ---------------------------------------------------------------------------


def test_key_error_by_hand():
    # row 0 off by (0, 1) of a key of length 2; row 1 exact
    got = np.array([[2.0, 1.0], [0.0, 3.0]])
    want = np.array([[2.0, 0.0], [0.0, 3.0]])
    assert key_error(got, want) == pytest.approx(0.5)
    assert key_error(want, want) == 0.0


def test_key_error_of_an_attention_factor_applied_twice_is_the_factor_minus_one():
    freq, factor = rope_frequencies(HEAD_DIM, scaling=YARN)
    cached = apply_rope(KEYS, POSITIONS, freq, attention_factor=factor)
    fresh = apply_rope(KEYS, POSITIONS + 300, freq, attention_factor=factor)
    again = apply_rope(cached, np.full(12, 300), freq, attention_factor=factor)
    assert key_error(again, fresh) == pytest.approx(factor - 1)
    assert key_error(shift_rotated_keys(cached, 300, freq), fresh) < 1e-12


def test_key_error_is_the_measure_of_repeated_shift_error():
    """After j shifts, repeated_shift_error reports key_error of the stored keys against
    the exact ones: rebuild the stored keys with an independent loop and compare."""
    keys = DRIFT_KEYS[:8]
    stored = apply_rope(keys, np.arange(8), INV_FREQ).astype(np.float16).astype(np.float32)
    for _ in range(5):
        turned = shift_rotated_keys(stored, -3, INV_FREQ)
        stored = turned.astype(np.float16).astype(np.float32)
    truth = apply_rope(keys, np.arange(8) + 5 * 40, INV_FREQ)  # a wrong target …
    exact = shift_rotated_keys(apply_rope(keys, np.arange(8) + 100, INV_FREQ), -115, INV_FREQ)
    err = repeated_shift_error(keys, np.arange(8), -3, 5, INV_FREQ, dtype=np.float16)
    assert key_error(stored, exact) == pytest.approx(err[-1], rel=1e-6)
    assert key_error(stored, truth) > 100 * err[-1]  # … is told apart


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: key_error(np.ones((2, 4)), np.ones((3, 4))), ValueError, "same shape"),
        (lambda: key_error(np.ones((2, 4)), np.zeros((2, 4))), ValueError, "zero row"),
        (lambda: key_error(np.ones((0, 4)), np.ones((0, 4))), ValueError, "got must not be empty"),
        (lambda: key_error(np.ones(4), np.ones(4)), ValueError, "got must be"),
        (lambda: key_error("keys", np.ones((2, 4))), TypeError, "got"),
    ],
)
def test_key_error_refuses_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
