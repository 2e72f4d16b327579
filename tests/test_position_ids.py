"""Position ids from the attention mask: left padding, a cache, OPT's rows.

Values worked out by hand, a loop over the tokens each row keeps, and the identity the
chapter relies on: with ids from the mask, a left-padded prompt reads the same rows of
an absolute table as the same prompt alone.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import opt_position_rows, position_ids_from_mask, sinusoidal


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
