"""apply_rope: rotation identities, the two layouts, dtypes and bad input."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import apply_rope, interleaved_to_halves_permutation, rope_frequencies

RNG = np.random.default_rng(2021)


def rotate_half_reference(x, positions, inv_freq):
    """The Hugging Face recipe, written out: x·cos + rotate_half(x)·sin."""
    theta = np.outer(np.asarray(positions, dtype=np.float64), inv_freq)
    cos = np.concatenate([np.cos(theta)] * 2, axis=-1)
    sin = np.concatenate([np.sin(theta)] * 2, axis=-1)
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def test_hand_computed_example():
    # head_dim 2, one pair at frequency 1: (1, 0) at position π/2 turns to (0, 1)
    out = apply_rope(np.array([[1.0, 0.0]]), np.array([np.pi / 2]), [1.0])
    np.testing.assert_allclose(out, [[0.0, 1.0]], atol=1e-15)
    # head_dim 4, halves: pairs (0, 2) at ω = 1 and (1, 3) at ω = 0.01, position 3
    x = np.array([[1.0, 2.0, 3.0, 4.0]])
    c0, s0, c1, s1 = np.cos(3), np.sin(3), np.cos(0.03), np.sin(0.03)
    expected = [[1 * c0 - 3 * s0, 2 * c1 - 4 * s1, 1 * s0 + 3 * c0, 2 * s1 + 4 * c1]]
    np.testing.assert_allclose(apply_rope(x, [3], [1.0, 0.01]), expected, rtol=1e-14)
    # interleaved: pairs (0, 1) and (2, 3)
    expected = [[1 * c0 - 2 * s0, 1 * s0 + 2 * c0, 3 * c1 - 4 * s1, 3 * s1 + 4 * c1]]
    np.testing.assert_allclose(
        apply_rope(x, [3], [1.0, 0.01], layout="interleaved"), expected, rtol=1e-14
    )


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_position_zero_is_the_identity(layout):
    x = RNG.standard_normal((3, 5, 16))
    inv_freq, _ = rope_frequencies(16)
    out = apply_rope(x, np.zeros(5, dtype=int), inv_freq, layout=layout)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_norm_is_preserved_and_scaled_by_the_attention_factor(layout):
    x = RNG.standard_normal((2, 300, 64))
    inv_freq, _ = rope_frequencies(64)
    norms = np.linalg.norm(x, axis=-1)
    np.testing.assert_allclose(
        np.linalg.norm(apply_rope(x, 300, inv_freq, layout=layout), axis=-1), norms, rtol=1e-13
    )
    scaled = apply_rope(x, 300, inv_freq, layout=layout, attention_factor=1.25)
    np.testing.assert_allclose(np.linalg.norm(scaled, axis=-1), 1.25 * norms, rtol=1e-13)


def test_halves_matches_the_rotate_half_recipe():
    x = RNG.standard_normal((2, 3, 257, 32))
    inv_freq, _ = rope_frequencies(32, base=500000.0)
    positions = RNG.integers(0, 100000, size=257)
    np.testing.assert_allclose(
        apply_rope(x, positions, inv_freq),
        rotate_half_reference(x, positions, inv_freq),
        atol=1e-10,
    )


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_score_depends_only_on_the_offset(layout):
    head_dim = 32
    q, k = RNG.standard_normal(head_dim), RNG.standard_normal(head_dim)
    inv_freq, _ = rope_frequencies(head_dim)

    def score(m, n):
        rq = apply_rope(q[None, :], [m], inv_freq, layout=layout)[0]
        rk = apply_rope(k[None, :], [n], inv_freq, layout=layout)[0]
        return float(rq @ rk)

    for offset in (0, 1, 7, 250):
        scores = [score(n + offset, n) for n in (0, 3, 1000, 54321)]
        np.testing.assert_allclose(scores, scores[0], rtol=1e-9, atol=1e-9)
    assert abs(score(10, 0) - score(0, 10)) > 1e-3  # direction matters: m − n, not |m − n|


def test_complex_multiply_equivalence():
    x = RNG.standard_normal((40, 16))
    inv_freq, _ = rope_frequencies(16)
    positions = np.arange(40) * 37
    z = x[:, 0::2] + 1j * x[:, 1::2]
    rotated = z * np.exp(1j * np.outer(positions, inv_freq))
    out = apply_rope(x, positions, inv_freq, layout="interleaved")
    np.testing.assert_allclose(out[:, 0::2] + 1j * out[:, 1::2], rotated, atol=1e-12)


def test_layouts_differ_by_a_fixed_permutation_of_dimensions():
    head_dim, seq = 16, 50
    perm = interleaved_to_halves_permutation(head_dim)
    assert perm.tolist()[:4] == [0, 2, 4, 6] and perm.tolist()[8:12] == [1, 3, 5, 7]
    x = RNG.standard_normal((4, seq, head_dim))
    inv_freq, _ = rope_frequencies(head_dim)
    interleaved = apply_rope(x, seq, inv_freq, layout="interleaved")
    np.testing.assert_allclose(
        apply_rope(x[..., perm], seq, inv_freq)[..., np.argsort(perm)], interleaved, atol=1e-13
    )


def test_permuting_wq_wk_rows_keeps_every_attention_score():
    # a model trained with interleaved RoPE, converted for split-half code
    d_model, head_dim, seq = 24, 8, 12
    w_q, w_k = RNG.standard_normal((head_dim, d_model)), RNG.standard_normal((head_dim, d_model))
    tokens = RNG.standard_normal((seq, d_model))
    inv_freq, _ = rope_frequencies(head_dim)
    perm = interleaved_to_halves_permutation(head_dim)

    def scores(wq, wk, layout):
        q = apply_rope(tokens @ wq.T, seq, inv_freq, layout=layout)
        k = apply_rope(tokens @ wk.T, seq, inv_freq, layout=layout)
        return q @ k.T

    original = scores(w_q, w_k, "interleaved")
    np.testing.assert_allclose(scores(w_q[perm], w_k[perm], "halves"), original, atol=1e-12)
    assert np.abs(scores(w_q, w_k, "halves") - original).max() > 0.1  # unconverted: wrong


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_dtype_is_preserved_and_float32_is_accurate(dtype, layout):
    x = RNG.standard_normal((2, 500, 64)).astype(dtype)
    inv_freq, _ = rope_frequencies(64)
    positions = np.arange(500) * 200  # up to ~10^5: rounding the angle in float32 would show
    out = apply_rope(x, positions, inv_freq, layout=layout)
    assert out.dtype == dtype and out.shape == x.shape
    exact = apply_rope(x.astype(np.float64), positions, inv_freq, layout=layout)
    tolerance = {np.float16: 5e-3, np.float32: 2e-6, np.float64: 1e-12}[dtype]
    assert np.abs(out.astype(np.float64) - exact).max() < tolerance * np.abs(exact).max()


def test_fractional_positions_and_non_contiguous_input():
    x = RNG.standard_normal((6, 8))[:, ::1]
    xt = np.asfortranarray(x)
    inv_freq, _ = rope_frequencies(8)
    positions = np.array([0.0, 0.5, 1.25, 2.0, 10.5, 3.0])
    out = apply_rope(xt, positions, inv_freq)
    np.testing.assert_allclose(out, rotate_half_reference(x, positions, inv_freq), atol=1e-13)
    ints = apply_rope(x, np.arange(6), inv_freq)
    np.testing.assert_allclose(ints, apply_rope(x, np.arange(6.0), inv_freq), atol=1e-15)


def test_does_not_modify_its_input():
    x = RNG.standard_normal((5, 8))
    before = x.copy()
    apply_rope(x, 5, rope_frequencies(8)[0], layout="interleaved")
    apply_rope(x, 5, rope_frequencies(8)[0])
    np.testing.assert_array_equal(x, before)


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_float16_is_rotated_in_float32_and_rounded_once(layout):
    x = RNG.standard_normal((3, 90, 16)).astype(np.float16)
    inv_freq, _ = rope_frequencies(16)
    in_float32 = apply_rope(x.astype(np.float32), 90, inv_freq, layout=layout, attention_factor=1.2)
    out = apply_rope(x, 90, inv_freq, layout=layout, attention_factor=1.2)
    np.testing.assert_array_equal(out, in_float32.astype(np.float16))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_halves_rotates_in_chunks_of_rows_with_the_same_result(dtype, monkeypatch):
    """Two rows at a time here (32 elements: 2 rows × 2 × 8), the last chunk one row."""
    import pe_explained.rope as rope

    x = RNG.standard_normal((2, 7, 8)).astype(dtype)
    positions, (inv_freq, _) = RNG.integers(0, 5000, size=7), rope_frequencies(8)
    whole = apply_rope(x, positions, inv_freq)
    np.testing.assert_allclose(
        whole, rotate_half_reference(x, positions, inv_freq), rtol=1e-6, atol=1e-6
    )
    monkeypatch.setattr(rope, "_HALVES_CHUNK", 32)
    rope._TABLE_CACHE.clear()
    np.testing.assert_array_equal(apply_rope(x, positions, inv_freq), whole)
    np.testing.assert_array_equal(apply_rope(x[:, :0], [], inv_freq), x[:, :0])  # no rows


def test_the_table_cache_holds_one_table_and_its_key_holds_what_changes_it():
    import pe_explained.rope as rope

    x = RNG.standard_normal((2, 6, 8))
    inv_freq, _ = rope_frequencies(8)
    first = ((x, 6, inv_freq), {})
    one_row = RNG.standard_normal((1, 8))
    same_bytes = np.array([0.5]).view(np.int64)  # a valid position with 0.5's bytes
    calls = {  # (the call before, the call): they differ in one thing the table depends on
        "layout": (first, ((x, 6, inv_freq), {"layout": "interleaved"})),
        "attention_factor": (first, ((x, 6, inv_freq), {"attention_factor": 1.5})),
        "positions": (first, ((x, np.arange(6) + 1, inv_freq), {})),
        "inv_freq": (first, ((x, 6, inv_freq / 2), {})),
        "dtype": (first, ((x.astype(np.float32), 6, inv_freq), {})),
        "positions' dtype": (
            ((one_row, [0.5], inv_freq), {}),
            ((one_row, same_bytes, inv_freq), {}),
        ),
    }
    for name, ((args_before, kwargs_before), (args, kwargs)) in calls.items():
        rope._TABLE_CACHE.clear()
        cold = apply_rope(*args, **kwargs)
        rope._TABLE_CACHE.clear()
        apply_rope(*args_before, **kwargs_before)
        warm = apply_rope(*args, **kwargs)  # must not reuse the table of the call before
        assert len(rope._TABLE_CACHE) == 1, name  # bounded: the last table only
        np.testing.assert_array_equal(warm, cold, err_msg=name)
    # the same call again reuses the table, which nobody can write to
    pos = np.arange(6)
    table = rope._cached_table(pos, inv_freq, 1.0, np.complex128, "halves")
    assert rope._cached_table(pos, inv_freq, 1.0, np.complex128, "halves") is table
    assert not any(part.flags.writeable for part in table)


@pytest.mark.parametrize(
    "x,positions,inv_freq,kwargs,error,match",
    [
        (np.zeros((3, 7)), 3, np.ones(3), {}, ValueError, "head_dim"),
        (np.zeros((3, 8)), 3, np.ones(3), {}, ValueError, "inv_freq must have head_dim/2 = 4"),
        (np.zeros((3, 8)), 4, np.ones(4), {}, ValueError, "one entry per row"),
        (np.zeros((3, 8)), [0, 1, np.nan], np.ones(4), {}, ValueError, "finite"),
        (np.zeros((3, 8)), [0, 1, -2], np.ones(4), {}, ValueError, ">= 0"),
        (np.zeros((3, 8)), 3, [1, 1, np.nan, 1], {}, ValueError, "inv_freq must be finite"),
        (np.zeros((3, 8)), 3, np.ones(4), {"layout": "neox"}, ValueError, "layout"),
        (
            np.zeros((3, 8)),
            3,
            np.ones(4),
            {"attention_factor": 0.0},
            ValueError,
            "attention_factor",
        ),
        (
            np.zeros((3, 8)),
            3,
            np.ones(4),
            {"attention_factor": np.nan},
            ValueError,
            "attention_factor",
        ),
        (np.zeros((3, 8), dtype=int), 3, np.ones(4), {}, TypeError, "float dtype"),
        (np.zeros(8), 1, np.ones(4), {}, ValueError, "shape"),
        ([[0.0, 1.0]], 1, np.ones(1), {}, TypeError, "numpy array"),
    ],
)
def test_bad_input_is_rejected(x, positions, inv_freq, kwargs, error, match):
    with pytest.raises(error, match=match):
        apply_rope(x, positions, inv_freq, **kwargs)


def test_decay_bound_starts_at_its_maximum_and_falls():
    from pe_explained import rope_decay_bound

    bound = rope_decay_bound(np.arange(0, 2000, 10), 128)
    assert bound[0] == pytest.approx((64 + 1) / 2)
    assert bound[1:].max() < bound[0]
    assert bound[-20:].mean() < 0.25 * bound[0]
    # a direct loop over the definition at one distance
    theta = [10000 ** (-2 * i / 128) for i in range(64)]
    partial, total = 0j, 0.0
    for t in theta:
        partial += np.exp(1j * 37 * t)
        total += abs(partial)
    assert rope_decay_bound([37.0], 128)[0] == pytest.approx(total / 64, rel=1e-12)


def test_decay_bound_rises_in_places_for_head_dim_128():
    from pe_explained import rope_decay_bound

    # a bound, not a monotone law: from distance 1000 to 2000 it rises
    low, high = rope_decay_bound([1000.0, 2000.0], 128)
    assert high > low
    assert (low, high) == (pytest.approx(4.4708, abs=1e-4), pytest.approx(5.0468, abs=1e-4))


def test_decay_bound_mean_is_the_mean_over_whole_distances():
    from pe_explained import rope_decay_bound, rope_decay_bound_mean

    direct = rope_decay_bound(np.arange(100, 1000, dtype=np.float64), 64, base=500000.0)
    assert rope_decay_bound_mean(64, 100, 1000, base=500000.0) == pytest.approx(
        float(direct.mean()), rel=1e-12
    )
    # one distance, 0: the maximum (head_dim/2 + 1)/2
    assert rope_decay_bound_mean(8, 0, 1) == pytest.approx(2.5, rel=1e-15)
    # long bands are computed in chunks: the same number as one call
    long = rope_decay_bound(np.arange(0, 70000, dtype=np.float64), 16)
    assert rope_decay_bound_mean(16, 0, 70000) == pytest.approx(float(long.mean()), rel=1e-12)


def test_decay_bound_falls_on_average_and_a_larger_base_slows_it():
    from pe_explained import rope_decay_bound_mean

    bands = [(1, 100), (100, 1000), (1000, 10000)]
    for base in (10000.0, 500000.0):
        means = [rope_decay_bound_mean(128, lo, hi, base=base) for lo, hi in bands]
        assert means == sorted(means, reverse=True)
    for lo, hi in bands + [(10000, 32768)]:
        assert rope_decay_bound_mean(128, lo, hi, base=500000.0) > rope_decay_bound_mean(
            128, lo, hi, base=10000.0
        )


@pytest.mark.parametrize(
    "low, high, error",
    [(5, 5, ValueError), (-1, 5, ValueError), (5, 2, ValueError), (1.5, 5, TypeError)],
)
def test_decay_bound_mean_needs_a_non_empty_band(low, high, error):
    from pe_explained import rope_decay_bound_mean

    with pytest.raises(error, match="low|high"):
        rope_decay_bound_mean(8, low, high)


def test_pair_groups_by_hand():
    from pe_explained import rope_pair_groups

    # head_dim 8, base 10000: wavelengths 6.3, 62.8, 628.3, 6283.2 positions
    llama3 = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 1000,
    }
    # kept: wavelength < 1000/4; divided: wavelength > 1000/1; blended: in between
    assert rope_pair_groups(8, scaling=llama3) == (2, 1, 1)
    assert rope_pair_groups(8, scaling={"rope_type": "linear", "factor": 4.0}) == (0, 0, 4)
    assert rope_pair_groups(8, scaling={"rope_type": "linear", "factor": 1.0}) == (4, 0, 0)


def test_pair_groups_of_yarn_follow_its_correction_range():
    from pe_explained import rope_pair_groups, yarn_correction_range

    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    low, high = yarn_correction_range(128, original_max_position_embeddings=4096)
    # ramp 0 (kept) for pairs 0 … low, ramp 1 (divided) from pair high on
    assert rope_pair_groups(128, scaling=yarn) == (low + 1, high - low - 1, 64 - high)


def test_pair_groups_of_llama3_follow_its_wavelength_thresholds():
    from pe_explained import rope_pair_groups, rope_wavelengths

    llama31 = {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }
    wavelength = rope_wavelengths(128, base=500000.0)
    kept = int((wavelength < 8192 / 4).sum())
    divided = int((wavelength > 8192 / 1).sum())
    assert rope_pair_groups(128, base=500000.0, scaling=llama31) == (
        kept,
        64 - kept - divided,
        divided,
    )


@pytest.mark.parametrize(
    "scaling, error",
    [
        (None, TypeError),
        ({"rope_type": "default"}, ValueError),
        ({"rope_type": "linear"}, ValueError),
        ({"rope_type": "linear", "factor": 0.5}, ValueError),
    ],
)
def test_pair_groups_reject_bad_scaling(scaling, error):
    from pe_explained import rope_pair_groups

    with pytest.raises(error, match="scaling"):
        rope_pair_groups(8, scaling=scaling)


# --- partial rotation (rotary_dim) ---------------------------------------------------


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_partial_rotation_rotates_the_first_dims_and_passes_the_rest(layout):
    x = RNG.standard_normal((2, 9, 20))
    inv_freq, _ = rope_frequencies(20, partial_rotary_factor=0.4)  # 8 rotated dims, 4 pairs
    out = apply_rope(x, 9, inv_freq, layout=layout, rotary_dim=8, attention_factor=1.5)
    # the rotated part is apply_rope of the first 8 dims on its own; the rest is untouched
    part = apply_rope(x[..., :8], 9, inv_freq, layout=layout, attention_factor=1.5)
    np.testing.assert_array_equal(out[..., :8], part)
    np.testing.assert_array_equal(out[..., 8:], x[..., 8:])


def test_partial_rotation_pairs_within_the_rotated_part_by_hand():
    # head_dim 6, rotary_dim 4, halves: pairs (0, 2) at ω = 1 and (1, 3) at ω = 0.01
    x = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
    c0, s0, c1, s1 = np.cos(3), np.sin(3), np.cos(0.03), np.sin(0.03)
    expected = [[1 * c0 - 3 * s0, 2 * c1 - 4 * s1, 1 * s0 + 3 * c0, 2 * s1 + 4 * c1, 5.0, 6.0]]
    np.testing.assert_allclose(apply_rope(x, [3], [1.0, 0.01], rotary_dim=4), expected, rtol=1e-14)


def test_rotary_dim_none_or_head_dim_is_the_whole_head():
    x = RNG.standard_normal((4, 16)).astype(np.float32)
    inv_freq, _ = rope_frequencies(16)
    whole = apply_rope(x, 4, inv_freq)
    np.testing.assert_array_equal(apply_rope(x, 4, inv_freq, rotary_dim=16), whole)
    assert whole.dtype == np.float32


@pytest.mark.parametrize(
    "rotary_dim,inv_freq,error,match",
    [
        (5, [1.0, 0.1], ValueError, "rotary_dim must be even"),
        (0, [1.0], ValueError, "rotary_dim must be even, >= 2"),
        (10, [1.0] * 5, ValueError, "<= head_dim"),
        (4.0, [1.0, 0.1], TypeError, "rotary_dim"),
        (4, [1.0, 0.1, 0.01], ValueError, "rotary_dim/2 = 2 entries"),
    ],
)
def test_bad_rotary_dim(rotary_dim, inv_freq, error, match):
    with pytest.raises(error, match=match):
        apply_rope(np.ones((3, 8)), 3, inv_freq, rotary_dim=rotary_dim)
