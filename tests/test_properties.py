"""Properties of the sinusoidal encoding against analytic identities and direct computation."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import properties as props
from pe_explained import sinusoidal, sinusoidal_frequencies
from pe_explained.properties import (
    cycles_within,
    difference_cosine,
    distance_by_offset,
    dot_product_by_offset,
    first_distance_decrease,
    offset_matrix,
    pairwise_distances,
)

OFFSETS = np.array([-37, -5, -1, 0, 1, 2, 3, 7, 50, 411])


def test_pairwise_distances_match_direct_norms():
    pe = sinusoidal(30, 12)
    dist = pairwise_distances(pe)
    assert dist.shape == (30, 30)
    np.testing.assert_allclose(dist, dist.T, rtol=0, atol=0)
    assert np.all(np.diag(dist) == 0)
    assert dist[4, 17] == pytest.approx(np.linalg.norm(pe[4] - pe[17]), rel=1e-14)


@pytest.mark.parametrize("d_model", [2, 16, 64])
def test_squared_distance_is_d_model_minus_twice_cosine_sum(d_model):
    """‖PE(p) − PE(q)‖² = d_model − 2 Σ_i cos((p − q) ω_i), for every p, q."""
    pe = sinusoidal(80, d_model)
    dist = pairwise_distances(pe)
    omega = sinusoidal_frequencies(d_model)
    gap = np.subtract.outer(np.arange(80), np.arange(80))
    expected = d_model - 2 * np.cos(gap[..., None] * omega).sum(-1)
    np.testing.assert_allclose(dist**2, expected, atol=1e-11)
    # the closed form by offset agrees, and so the matrix depends only on |p − q|
    by_offset = distance_by_offset(np.arange(80), d_model)
    np.testing.assert_allclose(dist, by_offset[np.abs(gap)], atol=1e-12)


def test_distance_closed_form_is_exact_at_small_offsets():
    """No cancellation: for tiny k the distance is ≈ |k| · sqrt(Σ ω_i²)."""
    omega = sinusoidal_frequencies(64)
    assert distance_by_offset(1e-9, 64) == pytest.approx(1e-9 * np.sqrt((omega**2).sum()), rel=1e-9)


def test_dot_product_depends_on_offset_only_and_is_even():
    d_model = 32
    pe = sinusoidal(1000, d_model)
    closed = dot_product_by_offset(OFFSETS, d_model)
    for p in (40, 100, 450):  # p + k stays inside the table
        measured = [pe[p] @ pe[p + k] for k in OFFSETS]
        np.testing.assert_allclose(measured, closed, atol=1e-11)
    np.testing.assert_allclose(dot_product_by_offset(-OFFSETS, d_model), closed, rtol=0, atol=0)
    assert dot_product_by_offset(0, d_model) == pytest.approx(d_model / 2)
    assert isinstance(dot_product_by_offset(3, d_model), float)


def test_first_distance_decrease_analytic_single_pair():
    """For d_model = 2 the distance is 2|sin(k/2)|, which peaks at k = π: first drop after 3."""
    assert first_distance_decrease(2) == 3
    d = distance_by_offset(np.arange(6), 2)
    np.testing.assert_allclose(d, 2 * np.abs(np.sin(np.arange(6) / 2)), atol=1e-15)


@pytest.mark.parametrize("d_model", [16, 64, 512])
def test_first_distance_decrease_is_where_the_distance_turns(d_model):
    k = first_distance_decrease(d_model)
    d = distance_by_offset(np.arange(k + 2), d_model)
    assert np.all(np.diff(d[: k + 1]) > 0) and d[k + 1] < d[k]
    pe = sinusoidal(k + 2, d_model)
    assert np.linalg.norm(pe[k + 1] - pe[0]) < np.linalg.norm(pe[k] - pe[0])


def test_first_distance_decrease_none_when_window_too_short():
    assert first_distance_decrease(512, max_offset=10) is None


@pytest.mark.parametrize("layout", ["interleaved", "halves"])
@pytest.mark.parametrize("d_model", [2, 8, 64])
def test_offset_matrix_maps_every_position(layout, d_model):
    pe = sinusoidal(700, d_model, layout=layout)
    for k in (0, 1, 3, 17, 250):
        m = offset_matrix(k, d_model, layout=layout)
        np.testing.assert_allclose(pe[: 700 - k] @ m.T, pe[k:], atol=1e-11)


def test_offset_matrix_for_real_offsets():
    positions = np.array([0.5, 2.25, 10.0])
    m = offset_matrix(1.75, 8)
    np.testing.assert_allclose(
        sinusoidal(positions, 8) @ m.T, sinusoidal(positions + 1.75, 8), atol=1e-14
    )


@pytest.mark.parametrize("layout", ["interleaved", "halves"])
def test_offset_matrix_group_laws(layout):
    d = 16
    m3, m5 = offset_matrix(3, d, layout=layout), offset_matrix(5, d, layout=layout)
    np.testing.assert_allclose(m3 @ m3.T, np.eye(d), atol=1e-14)  # orthogonal
    np.testing.assert_allclose(m3 @ m5, offset_matrix(8, d, layout=layout), atol=1e-14)
    np.testing.assert_allclose(offset_matrix(-3, d, layout=layout), m3.T, atol=0)
    np.testing.assert_allclose(offset_matrix(0, d, layout=layout), np.eye(d), atol=0)
    assert np.linalg.det(m3) == pytest.approx(1.0)


def test_offset_matrix_is_block_diagonal_rotation():
    m = offset_matrix(2, 4)
    omega = sinusoidal_frequencies(4)
    c, s = np.cos(2 * omega), np.sin(2 * omega)
    expected = np.array(
        [[c[0], s[0], 0, 0], [-s[0], c[0], 0, 0], [0, 0, c[1], s[1]], [0, 0, -s[1], c[1]]]
    )
    np.testing.assert_array_equal(m, expected)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_difference_cosine_matches_measured_and_is_constant(k):
    d_model = 16
    pe = sinusoidal(200, d_model)
    diff = pe[k:] - pe[:-k]
    norms = np.linalg.norm(diff, axis=1)
    np.testing.assert_allclose(norms, distance_by_offset(k, d_model), atol=1e-12)
    for s in (1, 2, 9):
        measured = np.einsum("pj,pj->p", diff[:-s], diff[s:]) / (norms[:-s] * norms[s:])
        np.testing.assert_allclose(measured, difference_cosine(k, s, d_model), atol=1e-12)
    assert difference_cosine(k, 0, d_model) == pytest.approx(1.0)


def test_difference_cosine_single_pair_is_cos_omega():
    assert difference_cosine(2.0, [1, 2], 2).tolist() == pytest.approx([np.cos(1), np.cos(2)])


def test_cycles_within():
    np.testing.assert_allclose(cycles_within(512, 8), 512 * sinusoidal_frequencies(8) / (2 * np.pi))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: pairwise_distances(np.zeros(3)), ValueError),
        (lambda: pairwise_distances([["a"]]), TypeError),
        (lambda: pairwise_distances([[np.nan, 0.0]]), ValueError),
        (lambda: dot_product_by_offset([1, np.inf], 8), ValueError),
        (lambda: dot_product_by_offset([[1]], 8), ValueError),
        (lambda: dot_product_by_offset("3", 8), TypeError),
        (lambda: dot_product_by_offset(True, 8), TypeError),
        (lambda: distance_by_offset(1, 7), ValueError),
        (lambda: distance_by_offset(1, 8, base=1.0), ValueError),
        (lambda: first_distance_decrease(8, max_offset=0), ValueError),
        (lambda: offset_matrix(1, 8, layout="split"), ValueError),
        (lambda: offset_matrix(float("nan"), 8), ValueError),
        (lambda: offset_matrix("1", 8), TypeError),
        (lambda: difference_cosine(0, 1, 8), ValueError),
        (lambda: cycles_within(0, 8), ValueError),
        (lambda: cycles_within(10, 8, base=0.5), ValueError),
    ],
)
def test_bad_arguments_are_rejected_with_a_message(call, error):
    with pytest.raises(error, match=r"\w+ must"):
        call()


def test_slow_pair_count_by_hand():
    from pe_explained.properties import slow_pair_count

    # d_model = 4, base 10000: wavelengths 2π ≈ 6.28 and 200π ≈ 628.3 positions
    assert slow_pair_count(6, 4) == 2
    assert slow_pair_count(7, 4) == 1
    assert slow_pair_count(628, 4) == 1
    assert slow_pair_count(629, 4) == 0


@pytest.mark.parametrize(
    "length, d_model, base",
    [(512, 512, 10000.0), (4096, 128, 10000.0), (8192, 128, 500000.0), (100, 16, 10.0)],
)
def test_slow_pair_count_matches_a_loop_over_the_wavelengths(length, d_model, base):
    from pe_explained.properties import slow_pair_count

    # pair i turns once every 2π · base^(2i/d_model) positions
    loop = sum(2 * np.pi * base ** (2 * i / d_model) > length for i in range(d_model // 2))
    assert slow_pair_count(length, d_model, base=base) == loop
    assert slow_pair_count(length, d_model, base=base) == int(
        (cycles_within(length, d_model, base=base) < 1).sum()
    )


def test_slow_pairs_start_where_yarn_counts_one_rotation():
    from pe_explained import yarn_correction_range
    from pe_explained.properties import slow_pair_count

    # beta_slow = 1 puts YaRN's upper bound at the (fractional) pair that turns once
    _, one_turn = yarn_correction_range(
        128, original_max_position_embeddings=4096, beta_slow=1.0, truncate=False
    )
    assert slow_pair_count(4096, 128) == 64 - (int(np.floor(one_turn)) + 1)


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda length: length(0, 8), ValueError),
        (lambda length: length(10, 7), ValueError),
        (lambda length: length(10, 8, base=1.0), ValueError),
        (lambda length: length("10", 8), TypeError),
    ],
)
def test_slow_pair_count_rejects_bad_arguments(call, error):
    from pe_explained.properties import slow_pair_count

    with pytest.raises(error, match=r"\w+ must"):
        call(slow_pair_count)


def test_ramp_pair_count_by_hand():
    from pe_explained.properties import ramp_pair_count

    # d_model = 2: one pair, ω = 1; a ramp while length · ω ≤ π/2 (a quarter turn)
    assert ramp_pair_count(1.5, 2) == 1
    assert ramp_pair_count(1.6, 2) == 0
    # d_model = 4, base 10000: ω = 1 and 0.01; the slow pair's quarter turn is 50π ≈ 157.08
    assert ramp_pair_count(157, 4) == 1
    assert ramp_pair_count(158, 4) == 0


@pytest.mark.parametrize("length, d_model", [(512, 512), (100, 64), (4096, 128), (37, 16)])
def test_ramp_pairs_are_the_monotonic_sines(length, d_model):
    from pe_explained.properties import ramp_pair_count, slow_pair_count

    # brute force: the sine column of a ramp pair rises at every step of 0 … length,
    # and its cosine column falls; a slow pair that is not a ramp turns back
    pe = sinusoidal(np.arange(length + 1), d_model)
    steps = np.diff(pe, axis=0)
    rising = np.all(steps[:, 0::2] > 0, axis=0) & np.all(steps[:, 1::2] < 0, axis=0)
    assert ramp_pair_count(length, d_model) == int(rising.sum())
    assert ramp_pair_count(length, d_model) <= slow_pair_count(length, d_model)


def test_the_original_transformer_has_95_ramps_among_133_slow_pairs():
    from pe_explained.properties import ramp_pair_count, slow_pair_count

    assert (ramp_pair_count(512, 512), slow_pair_count(512, 512)) == (95, 133)


@pytest.mark.parametrize("d_model, count", [(2, 1000), (4, 3000), (8, 40_000), (16, 5000)])
def test_nearest_return_matches_the_table(d_model, count):
    from pe_explained.naive import closest_position
    from pe_explained.properties import nearest_return

    # brute force over the rows of the table, positions 0 … count − 1
    position, distance = closest_position(sinusoidal(count, d_model), 0, min_offset=2)
    found = nearest_return(count - 1, d_model, chunk=777)
    assert found[0] == position
    assert found[1] == pytest.approx(distance, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    "d_model, count, base",
    [(20, 300_000, 100.0), (24, 200_000, 50.0), (64, 200_000, 1e4), (128, 100_000, 1e4)],
)
def test_nearest_return_s_bound_changes_no_answer(d_model, count, base):
    """The slowest pairs' lower bound rules offsets out before their full distance: the
    offset and its distance are those of the whole search, to the bit."""
    from pe_explained.properties import distance_by_offset, nearest_return

    every = distance_by_offset(np.arange(2, count + 1), d_model, base=base)
    i = int(np.argmin(every))
    assert nearest_return(count, d_model, base=base, chunk=9973) == (i + 2, float(every[i]))


def test_nearest_return_of_one_pair_is_the_best_rational_turn():
    from pe_explained.properties import nearest_return

    # one pair turns one radian a step: 710 radians ≈ 113 turns (355/113 ≈ π)
    assert nearest_return(1000, 2)[0] == 710
    assert nearest_return(1000, 2, min_offset=711)[0] > 710


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: props.ramp_pair_count(0, 8), ValueError),
        (lambda: props.ramp_pair_count(8, 7), ValueError),
        (lambda: props.nearest_return(1, 8), ValueError),
        (lambda: props.nearest_return(9, 8, min_offset=0), ValueError),
        (lambda: props.nearest_return(9.0, 8), TypeError),
        (lambda: props.nearest_return(9, 8, chunk=0), ValueError),
    ],
)
def test_ramp_and_return_reject_bad_arguments(call, error):
    with pytest.raises(error, match=r"\w+ must"):
        call()


def test_rotary_head_widths_have_no_near_return_within_two_million():
    from pe_explained.properties import nearest_return

    # chapter 6: only a head as narrow as 8 comes back nearer than its neighbour
    for head_dim in (32, 64, 128):
        assert nearest_return(2_000_000, head_dim)[0] == 2
    k, distance = nearest_return(2_000_000, 8)
    assert k > 2 and distance < distance_by_offset(1, 8)


def test_offset_block_is_the_transpose_of_roformers_rotation_and_turns_clockwise():
    """Chapter 4's R(φ) acts on a pair in the order (sin, cos): it is the transpose of the
    rotation RoFormer applies to (x_1, x_2), which apply_rope's interleaved layout follows,
    and with the sine across and the cosine up it turns the pair clockwise."""
    from pe_explained.rope import apply_rope

    phi = 0.7
    block = props.offset_matrix(phi, 2)  # d_model = 2: one pair, ω_0 = 1
    roformer = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    np.testing.assert_allclose(block, roformer.T, atol=1e-15)
    pair = np.array([0.6, 0.8])
    rotated = apply_rope(pair[None, :], [phi], [1.0], layout="interleaved")[0]
    np.testing.assert_allclose(rotated, roformer @ pair, atol=1e-15)
    # clockwise: 12 o'clock (sin 0, cos 0) = (0, 1) moves to the right, towards 3 o'clock
    x, y = block @ np.array([0.0, 1.0])
    assert x > 0 and np.isclose(np.arctan2(y, x), np.pi / 2 - phi)
