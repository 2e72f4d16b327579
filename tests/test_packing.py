"""Packed documents: restarting ids, the block-diagonal causal mask, and what a varlen
kernel infers from the ids; small cases by hand, a loop over the documents, and the cost
of not restarting. ``tests/test_transformers_packing.py`` compares with transformers."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import (
    cu_seqlens_from_position_ids,
    packed_causal_mask,
    packed_position_ids,
    packed_sequence_ids,
    sinusoidal,
)
from pe_explained.attention import causal_mask


def loop_mask(lengths):
    """The mask built one document at a time: a causal block per document on the diagonal."""
    total = sum(lengths)
    mask = np.zeros((total, total), dtype=bool)
    start = 0
    for n in lengths:
        for i in range(n):
            for j in range(i + 1):
                mask[start + i, start + j] = True
        start += n
    return mask


def test_hand_values():
    assert packed_position_ids([3, 2, 4]).tolist() == [0, 1, 2, 0, 1, 0, 1, 2, 3]
    assert packed_position_ids([1, 1, 1]).tolist() == [0, 0, 0]
    assert packed_position_ids([]).tolist() == []
    assert cu_seqlens_from_position_ids([0, 1, 2, 0, 1, 0, 1, 2, 3]).tolist() == [0, 3, 5, 9]
    assert packed_sequence_ids([[0, 1, 2, 0, 1]]).tolist() == [[0, 0, 0, 1, 1]]


@pytest.mark.parametrize("lengths", [[1], [4], [3, 2, 4], [1, 1, 5, 2], [7, 1]])
def test_mask_equals_the_loop(lengths):
    np.testing.assert_array_equal(packed_causal_mask(lengths), loop_mask(lengths))


def test_the_loop_harness_fails_on_a_plain_causal_mask():
    assert not np.array_equal(causal_mask(5), loop_mask([3, 2]))


@pytest.mark.parametrize("seed", range(5))
def test_ids_cu_seqlens_and_documents_agree(seed):
    lengths = np.random.default_rng(seed).integers(1, 9, size=6)
    ids = packed_position_ids(lengths)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    np.testing.assert_array_equal(cu_seqlens_from_position_ids(ids), starts)
    docs = packed_sequence_ids(ids)
    np.testing.assert_array_equal(docs, np.repeat(np.arange(6), lengths))
    # the mask is the causal mask and "same document"
    np.testing.assert_array_equal(
        packed_causal_mask(lengths), causal_mask(ids.size) & (docs[:, None] == docs[None, :])
    )


def test_a_document_reads_the_same_table_rows_packed_as_alone():
    table = sinusoidal(16, 8)
    ids = packed_position_ids([5, 3])
    np.testing.assert_array_equal(table[ids[5:]], table[np.arange(3)])


def test_not_resetting_moves_a_document_and_hides_its_boundary():
    """The trade-off: without restarts the second document starts at position 5, where a
    model trained on single documents never saw a first token, and neither rule of
    transformers finds the boundary: a varlen kernel would let it attend to the first."""
    ids = packed_position_ids([5, 3], reset=False)
    assert ids[5:].tolist() == [5, 6, 7]  # not [0, 1, 2]
    assert cu_seqlens_from_position_ids(ids).tolist() == [0, 8]  # one document
    assert packed_sequence_ids(ids).tolist() == [0] * 8
    table = sinusoidal(16, 8)
    assert not np.allclose(table[ids[5:]], table[np.arange(3)])
    # the mask a kernel computes from the inferred cu_seqlens lets token 5 see tokens 0–4
    inferred = np.diff(cu_seqlens_from_position_ids(ids))
    assert packed_causal_mask(inferred)[5, :5].all()
    assert not packed_causal_mask([5, 3])[5, :5].any()


def test_the_two_inference_rules_differ_where_ids_do_not_restart_at_the_smallest():
    """flash-attention's rule starts documents at the smallest id only; the masks' rule at
    any step other than +1."""
    ids = [0, 1, 2, 1, 2, 3]  # a fall to 1, not to 0
    assert cu_seqlens_from_position_ids(ids).tolist() == [0, 6]
    assert packed_sequence_ids(ids).tolist() == [0, 0, 0, 1, 1, 1]
    # ids that start above the smallest: the tokens before the first restart are left out
    assert cu_seqlens_from_position_ids([3, 4, 0, 1]).tolist() == [2, 4]
    # a batch is read as one row
    assert cu_seqlens_from_position_ids([[0, 1, 2], [0, 1, 0]]).tolist() == [0, 3, 5, 6]
    # the masks' rule numbers each row on its own
    assert packed_sequence_ids([[0, 1, 2], [0, 1, 0]]).tolist() == [[0, 0, 0], [0, 0, 1]]


def test_cu_seqlens_are_int32_as_flash_attention_takes_them():
    assert cu_seqlens_from_position_ids([0, 1, 0]).dtype == np.int32


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: packed_position_ids([3, 0]), ValueError, "lengths must be >= 1"),
        (lambda: packed_position_ids([2.0, 3.0]), TypeError, "lengths must hold integers"),
        (lambda: packed_position_ids([2**30]), ValueError, "lengths asks for a row"),
        (lambda: packed_position_ids([2**23] * 3), ValueError, "the limit is 16,777,216"),
        (lambda: packed_causal_mask([8193]), ValueError, "lengths asks for a mask"),
        (lambda: packed_causal_mask([[1, 2]]), ValueError, "lengths must be 1-D"),
        (lambda: cu_seqlens_from_position_ids([]), ValueError, "position_ids must not be empty"),
        (lambda: cu_seqlens_from_position_ids([0, -1]), ValueError, "position_ids must be >= 0"),
        (lambda: packed_sequence_ids(np.zeros((1, 2, 3), int)), ValueError, "1-D or 2-D"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_check_size_refuses_before_allocating():
    from pe_explained._checks import check_size

    assert check_size("n", 10, limit=10, what="a table") == 10
    with pytest.raises(ValueError, match="n asks for a table of 11 entries; the limit is 10"):
        check_size("n", 11, limit=10, what="a table")
