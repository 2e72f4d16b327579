"""Chapter 24's library side: the offsets m − n a packed row's scores see
(``attended_offsets``), values by hand and from a loop over the pairs, and the claims the
chapter draws from them and from the functions it calls."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from pe_explained import (
    attended_offsets,
    cached_angle_error,
    cu_seqlens_from_position_ids,
    mrope_position_ids,
    packed_causal_mask,
    packed_position_ids,
    position_ids_from_mask,
    rope_frequencies,
    score_shift_error,
)
from pe_explained.attention import causal_mask
from pe_explained.precision import stored_positions


def loop_offsets(ids, mask):
    """ids[i] − ids[j] for every allowed pair, query by query, key by key."""
    out = []
    for i in range(len(ids)):
        for j in range(len(ids)):
            if mask[i][j]:
                out.append(int(ids[i]) - int(ids[j]))
    return np.array(out, dtype=np.int64)


# ---------------------------------------------------------------------------
# attended_offsets
# ---------------------------------------------------------------------------


def test_hand_values():
    # two documents of 2 and 3 tokens, ids restarting, block-diagonal mask:
    # (0,0) | (1,0) (1,1) | (0,0) | (1,0) (1,1) | (2,0) (2,1) (2,2)
    ids, mask = packed_position_ids([2, 3]), packed_causal_mask([2, 3])
    assert attended_offsets(ids, mask).tolist() == [0, 1, 0, 0, 1, 0, 2, 1, 0]
    # the same ids under the plain causal mask: the second document's first token (id 0)
    # sees the first document's ids 0 and 1, offsets 0 and −1
    assert attended_offsets(ids, causal_mask(5))[3:6].tolist() == [0, -1, 0]
    # one count over the row, plain causal mask: every offset 0 … 4
    run_on = packed_position_ids([2, 3], reset=False)
    assert sorted(set(attended_offsets(run_on, causal_mask(5)).tolist())) == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("seed", range(4))
def test_equals_the_loop(seed):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, 20, size=9)
    mask = rng.integers(0, 2, size=(9, 9)).astype(bool)
    np.testing.assert_array_equal(attended_offsets(ids, mask), loop_offsets(ids, mask))


def test_the_loop_harness_fails_on_the_other_sign():
    """The harness can fail: n − m instead of m − n differs on any off-diagonal pair."""
    ids, mask = packed_position_ids([3]), causal_mask(3)
    assert not np.array_equal(-loop_offsets(ids, mask), attended_offsets(ids, mask))


def test_a_mask_that_allows_nothing_gives_no_offsets():
    assert attended_offsets([0, 1], np.zeros((2, 2), bool)).shape == (0,)
    assert attended_offsets([], np.zeros((0, 0), bool)).shape == (0,)


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: attended_offsets([0, 1], np.ones((2, 3), bool)), ValueError, "shape"),
        (lambda: attended_offsets([0, 1, 2], np.ones((2, 2), bool)), ValueError, "shape"),
        (lambda: attended_offsets([0, 1], np.ones((2, 2), int)), TypeError, "mask"),
        (lambda: attended_offsets([0.0, 1.0], np.ones((2, 2), bool)), TypeError, "position_ids"),
        (lambda: attended_offsets([[0, 1]], np.ones((2, 2), bool)), ValueError, "1-D"),
        (lambda: attended_offsets([0, -1], np.ones((2, 2), bool)), ValueError, ">= 0"),
        (
            lambda: attended_offsets(np.zeros(2049, int), np.zeros((2049, 2049), bool)),
            ValueError,
            "mask asks for",
        ),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------------------
# What the chapter says, held to the library
# ---------------------------------------------------------------------------


def test_left_padding_as_columns_moves_each_row_by_its_padding():
    mask = np.array([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 0, 1, 1]])
    from_mask = position_ids_from_mask(mask)
    columns = np.broadcast_to(np.arange(5), mask.shape)
    pads = (mask == 0).sum(axis=1)
    for row, pad in enumerate(pads):
        np.testing.assert_array_equal(columns[row, pad:] - from_mask[row, pad:], pad)
    # right padding: the real tokens get 0, 1, … either way
    right = mask[:, ::-1]
    np.testing.assert_array_equal(position_ids_from_mask(right)[right == 1], columns[right == 1])


def test_a_common_shift_moves_a_score_by_rounding_only():
    q, k = np.random.default_rng(0).normal(size=(2, 16, 64))
    inv_freq, _ = rope_frequencies(64)
    shifts = [8, 1_000_000]
    exact = score_shift_error(q, k, 10, 4, shifts, inv_freq, dtype=np.float64, angles="float64")
    fp32 = score_shift_error(q, k, 10, 4, shifts, inv_freq, dtype=np.float32)
    bf16 = score_shift_error(q, k, 10, 4, shifts, inv_freq, dtype=ml_dtypes.bfloat16)
    assert exact.max() < 1e-11  # float64's rounding of the angles
    assert fp32[0] < 1e-6 < 1e-4 < fp32[1]  # float32 angles: an error that grows with p
    assert bf16.min() > 1e-4  # bfloat16's rounding of the vectors, at every shift


def test_dynamic_ntk_at_the_batch_length_turns_a_short_row_by_almost_half_a_turn():
    dyn = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    alone, _ = rope_frequencies(128, scaling=dyn, seq_len=1000)
    batched, _ = rope_frequencies(128, scaling=dyn, seq_len=8192)
    np.testing.assert_array_equal(alone, rope_frequencies(128)[0])  # below L: plain RoPE
    assert np.abs(cached_angle_error([100], alone, batched)).max() > 3.0


def test_text_after_an_image_sits_below_its_token_count():
    ids = mrope_position_ids([3, 2], [[28, 28]])  # 14 × 14 tokens after merging
    assert ids.shape == (3, 3 + 196 + 2)
    assert ids[0, 3 + 196] == 3 + 14  # not 3 + 196
    assert int(ids.max()) + 1 - ids.shape[1] == 14 - 196


def test_bfloat16_positions_lose_an_offset_after_a_shift():
    bf16 = ml_dtypes.bfloat16
    near = stored_positions([10, 7], bf16)
    far = stored_positions([1010, 1007], bf16)
    assert near[0] - near[1] == 3 and far[0] - far[1] == 0


def test_run_on_ids_under_the_causal_mask_see_the_whole_row():
    lengths = [5, 3, 4]
    run_on = packed_position_ids(lengths, reset=False)
    restart = packed_position_ids(lengths)
    full = causal_mask(sum(lengths))
    block = packed_causal_mask(lengths)
    assert attended_offsets(restart, block).max() == max(lengths) - 1
    assert attended_offsets(run_on, full).max() == sum(lengths) - 1
    assert attended_offsets(restart, full).min() == -(max(lengths[:-1]) - 1)
    assert cu_seqlens_from_position_ids(run_on).tolist() == [0, 12]  # one document
