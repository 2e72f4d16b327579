"""Position ids from the attention mask: left padding, a cache, OPT's rows.

Values worked out by hand, a loop over the tokens each row keeps, and the identity the
chapter relies on: with ids from the mask, a left-padded prompt reads the same rows of
an absolute table as the same prompt alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import (
    opt_position_rows,
    position_ids_from_mask,
    rope_frequencies,
    rope_score_error,
    score_shift_error,
    sinusoidal,
)


def loop_ids(mask):
    """Count the kept tokens before each slot, one row at a time; padding reads 0."""
    out = []
    for row in mask:
        seen, ids = 0, []
        for keep in row:
            ids.append(seen if keep else 0)
            seen += bool(keep)
        out.append(ids)
    return np.array(out)


def test_hand_values():
    assert position_ids_from_mask([[0, 0, 1, 1, 1]]).tolist() == [[0, 0, 0, 1, 2]]
    assert opt_position_rows([[0, 0, 1, 1, 1]]).tolist() == [[1, 1, 2, 3, 4]]
    assert position_ids_from_mask([1, 1, 1]).tolist() == [[0, 1, 2]]  # 1-D: one row


@pytest.mark.parametrize("seed", range(5))
def test_ids_equal_the_loop(seed):
    mask = np.random.default_rng(seed).integers(0, 2, size=(4, 9))
    np.testing.assert_array_equal(position_ids_from_mask(mask), loop_ids(mask))
    np.testing.assert_array_equal(
        opt_position_rows(mask), np.where(mask == 1, loop_ids(mask) + 2, 1)
    )


def test_the_loop_harness_fails_on_column_counting():
    mask = np.array([[0, 0, 1, 1]])
    assert not np.array_equal(np.arange(4)[None, :], loop_ids(mask))


def test_bools_and_integers_give_the_same_ids():
    mask = [[0, 1, 1], [1, 1, 1]]
    np.testing.assert_array_equal(
        position_ids_from_mask(np.array(mask, dtype=bool)), position_ids_from_mask(mask)
    )


def test_a_cache_returns_the_new_columns_only():
    mask = [[0, 0, 1, 1, 1, 1]]
    full = position_ids_from_mask(mask)
    for past in range(7):
        np.testing.assert_array_equal(
            position_ids_from_mask(mask, past_length=past), full[:, past:]
        )
        np.testing.assert_array_equal(
            opt_position_rows(mask, past_length=past), opt_position_rows(mask)[:, past:]
        )


def test_left_padding_reads_the_same_table_rows_as_the_prompt_alone():
    table = sinusoidal(8, 16)
    alone = table[position_ids_from_mask([1, 1, 1])[0]]
    padded_ids = position_ids_from_mask([0, 0, 1, 1, 1])[0, 2:]
    np.testing.assert_array_equal(table[padded_ids], alone)
    # counting columns instead shifts every real token by the padding
    assert not np.allclose(table[np.arange(2, 5)], alone)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: position_ids_from_mask([[1, 2]]), ValueError, "only 0 and 1"),
        (lambda: position_ids_from_mask([[1.0, 0.0]]), TypeError, "attention_mask"),
        (lambda: position_ids_from_mask(np.ones((2, 2, 2), int)), ValueError, "1-D or 2-D"),
        (lambda: position_ids_from_mask("1101"), TypeError, "attention_mask"),
        (lambda: position_ids_from_mask([[1, 1]], past_length=3), ValueError, "past_length"),
        (lambda: opt_position_rows([[1, 1]], past_length=-1), ValueError, "past_length"),
        (lambda: opt_position_rows([[1, 1]], past_length=True), TypeError, "past_length"),
        (lambda: opt_position_rows([[1], [1, 0]]), ValueError, "rectangular"),
    ],
)
def test_bad_input_is_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------
# Shift invariance: a RoPE score when both positions move by s
# ---------------------------------------------------------------------------

HEAD_DIM = 64
INV_FREQ, _ = rope_frequencies(HEAD_DIM)
Q, K = np.random.default_rng(3).normal(size=(2, 16, HEAD_DIM))
SHIFTS = [1, 100, 10_000, 1_000_000]


def test_a_rope_score_does_not_move_with_a_common_shift_in_exact_arithmetic():
    err = score_shift_error(Q, K, 10, 3, SHIFTS, INV_FREQ, dtype=np.float64, angles="float64")
    assert err.shape == (4,)
    assert err[:2].max() < 1e-14  # float64's own rounding of the angles
    assert err.max() < 1e-11  # p · 2^-53 at a million


def test_float32_is_small_at_small_positions_and_grows_with_the_position():
    err = score_shift_error(Q, K, 10, 3, SHIFTS, INV_FREQ, dtype=np.float32)
    assert err[0] < 1e-6
    assert np.all(np.diff(err) > 0)  # the float32 angle's error, about p · 2^-24
    assert err[-1] > 1000 * err[0]
    # with float64 angles the only error left is float32's rounding of the vectors
    exact_angles = score_shift_error(Q, K, 10, 3, SHIFTS, INV_FREQ, angles="float64")
    assert exact_angles.max() < 1e-6


def test_bfloat16_moves_a_score_far_more():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is installed with the book")
    bf16 = score_shift_error(Q, K, 10, 3, SHIFTS, INV_FREQ, dtype=ml_dtypes.bfloat16)
    fp16 = score_shift_error(Q, K, 10, 3, SHIFTS, INV_FREQ, dtype=np.float16)
    fp32 = score_shift_error(Q, K, 10, 3, SHIFTS, INV_FREQ, dtype=np.float32)
    assert bf16.min() > 1e-4  # 8 significant bits: a part in a thousand of ‖q‖ ‖k‖
    assert np.all(bf16 > fp16) and np.all(fp16[:3] > fp32[:3])
    assert bf16[-1] > bf16[0]  # and more again at a million, the angles' error added


def test_bounded_by_the_error_at_each_position():
    """|s(m+s, n+s) − s(m, n)| <= |s(m+s, n+s) − exact| + |s(m, n) − exact|, each measured by
    rope_score_error with the same float32 recipe (float32 vectors, float32 angles)."""
    m, n = 40, 25
    for shift in (100, 100_000):
        moved = score_shift_error(Q, K, m, n, shift, INV_FREQ, dtype=np.float32)[0]
        at_both = rope_score_error(Q, K, [m, m + shift], m - n, angles="float32")
        assert moved <= at_both.sum() * 1.01 + 1e-7


def test_an_absolute_encoding_moves_with_the_shift():
    """The contrast: with sinusoids added to q and k, the same shift changes the score by a
    large part of its size, in exact arithmetic."""
    table = sinusoidal(1010 + 1, HEAD_DIM)
    size = np.sqrt(HEAD_DIM / 2)  # ‖PE(p)‖: token vectors of the same size
    q = Q / np.linalg.norm(Q, axis=1, keepdims=True) * size
    k = K / np.linalg.norm(K, axis=1, keepdims=True) * size

    def scores(m, n):
        return np.einsum("vd,vd->v", q + table[m], k + table[n])

    moved = np.abs(scores(1010, 1003) - scores(10, 3)) / (
        4 * size**2
    )  # ‖q + PE‖‖k + PE‖ <= 4 size²
    rope = score_shift_error(q, k, 10, 3, 1000, INV_FREQ, dtype=np.float64, angles="float64")
    assert moved.max() > 0.05 and np.median(moved) > 0.01 and rope[0] < 1e-14
    # PE(m) · PE(n) alone depends on m − n only: what moves are the cross terms q · PE(n)
    assert table[1010] @ table[1003] == pytest.approx(table[10] @ table[3])


def test_left_padding_counted_as_columns_is_a_common_shift():
    mask = [0, 0, 1, 1, 1]
    from_mask = position_ids_from_mask(mask)[0, 2:]
    columns = np.arange(5)[2:]
    shift = int(columns[0] - from_mask[0])
    assert shift == 2 and np.all(columns - from_mask == shift)
    err = score_shift_error(Q, K, 2, 0, shift, INV_FREQ, dtype=np.float64, angles="float64")
    assert err[0] < 1e-15


def test_a_negative_shift_down_to_position_zero():
    err = score_shift_error(Q, K, 10, 3, [-3, 0], INV_FREQ, dtype=np.float64, angles="float64")
    assert err[1] == 0 and err[0] < 1e-14
    with pytest.raises(ValueError, match="shift must keep both positions >= 0"):
        score_shift_error(Q, K, 10, 3, -4, INV_FREQ)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: score_shift_error(Q, K, 1, 0, 1.5, INV_FREQ), TypeError, "shift"),
        (lambda: score_shift_error(Q, K, 1, 0, [[1]], INV_FREQ), ValueError, "shift"),
        (lambda: score_shift_error(Q, K[:3], 1, 0, 1, INV_FREQ), ValueError, "same shape"),
        (lambda: score_shift_error(Q * 0, K, 1, 0, 1, INV_FREQ), ValueError, "zero vector"),
        (lambda: score_shift_error(Q, K, 1, 0, 1, INV_FREQ[:3]), ValueError, "inv_freq"),
        (lambda: score_shift_error(Q, K, -1, 0, 1, INV_FREQ), ValueError, "m must be >= 0"),
        (lambda: score_shift_error(Q, K, 1, 0, 1, INV_FREQ, dtype=int), TypeError, "dtype"),
        (
            lambda: score_shift_error(Q, K, 1, 0, np.arange(10**5), INV_FREQ),
            ValueError,
            "shift asks for rotated vectors",
        ),
    ],
)
def test_score_shift_error_refuses_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
