"""Draft trees in speculative decoding: positions by depth, a mask of ancestors."""

import numpy as np
import pytest

from pe_explained import draft_tree_positions


def test_a_chain_of_drafts_takes_the_next_positions():
    """One draft after another (plain speculative decoding): n, n + 1, …, each token
    seeing those before it, as a causal mask over the drafts."""
    positions, mask = draft_tree_positions([-1, 0, 1, 2], start=40)
    assert positions.tolist() == [40, 41, 42, 43]
    np.testing.assert_array_equal(mask, np.tril(np.ones((4, 4), dtype=bool)))


def test_siblings_share_a_position_and_never_see_each_other():
    """Medusa's tree: two candidates for the next token, each with two for the one after.
    The candidates at one depth all sit at start + depth (its medusa_position_ids)."""
    parents = [-1, -1, 0, 0, 1, 1]
    positions, mask = draft_tree_positions(parents, start=100)
    assert positions.tolist() == [100, 100, 101, 101, 101, 101]
    assert not mask[1, 0] and not mask[0, 1]  # siblings
    assert mask[4].tolist() == [False, True, False, False, True, False]  # itself and parent 1
    # every path from a root to a leaf is a chain: its rows, restricted to it, are causal
    for path in ([0, 2], [0, 3], [1, 4], [1, 5]):
        np.testing.assert_array_equal(mask[np.ix_(path, path)], np.tril(np.ones((2, 2), bool)))


def test_a_tree_matches_the_positions_a_wrong_rule_would_give_otherwise():
    """Numbering the drafts in order (n + i), as for a chain, is wrong for a tree."""
    positions, _ = draft_tree_positions([-1, -1, 0, 0, 1, 1], start=0)
    assert positions.tolist() != list(range(6))


@pytest.mark.parametrize(
    "parents, match",
    [
        ([0], "parents\\[0\\] must be -1 or the index of an earlier draft"),
        ([-1, 1], "parents\\[1\\] must be -1 or the index of an earlier draft"),
        ([-1, -2], "parents\\[1\\] must be -1 or the index of an earlier draft"),
    ],
)
def test_a_parent_must_come_before_its_child(parents, match):
    with pytest.raises(ValueError, match=match):
        draft_tree_positions(parents, start=0)


def test_bad_arguments_are_named():
    with pytest.raises(TypeError, match="parents"):
        draft_tree_positions([0.5], start=0)
    with pytest.raises(ValueError, match="start"):
        draft_tree_positions([-1], start=-1)
    with pytest.raises(ValueError, match="parents"):
        draft_tree_positions(np.full(5000, -1), start=0)
