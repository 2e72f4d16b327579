"""StreamingLLM's kept tokens and positions: small cases by hand, the paper's example, the
bound on distances within the cache, and the step a cache of rotated keys takes."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import (
    apply_rope,
    rope_frequencies,
    shift_rotated_keys,
    streaming_distances,
    streaming_positions,
)


def test_the_papers_example():
    """Section 3.2: tokens [0, 1, 2, 3, 6, 7, 8] cached, token 9 being decoded."""
    kept, cache = streaming_positions(10, 4, 4)
    assert kept.tolist() == [0, 1, 2, 3, 6, 7, 8, 9]
    assert cache.tolist() == [0, 1, 2, 3, 4, 5, 6, 7]
    assert streaming_positions(10, 4, 4, mode="original")[1].tolist() == kept.tolist()


@pytest.mark.parametrize(
    "total, n_sink, window, kept",
    [
        (0, 2, 3, []),
        (4, 2, 3, [0, 1, 2, 3]),  # nothing evicted yet
        (5, 2, 3, [0, 1, 2, 3, 4]),  # exactly full
        (6, 2, 3, [0, 1, 3, 4, 5]),  # token 2 evicted
        (7, 0, 3, [4, 5, 6]),  # no sinks: plain window attention
        (7, 2, 1, [0, 1, 6]),  # the current token alone beside the sinks
    ],
)
def test_small_cases_by_hand(total, n_sink, window, kept):
    got, cache = streaming_positions(total, n_sink, window)
    assert got.tolist() == kept
    assert cache.tolist() == list(range(len(kept)))
    assert streaming_positions(total, n_sink, window, mode="original")[1].tolist() == kept


def test_the_distances_by_hand():
    assert streaming_distances(6, 2, 3).tolist() == [
        [0, -1, -2, -3, -4],
        [1, 0, -1, -2, -3],
        [2, 1, 0, -1, -2],
        [3, 2, 1, 0, -1],
        [4, 3, 2, 1, 0],
    ]
    assert streaming_distances(6, 2, 3, mode="original")[-1].tolist() == [5, 4, 2, 1, 0]


@pytest.mark.parametrize("total", [8, 100, 10**6, 10**12])
def test_within_the_cache_no_distance_exceeds_the_cache(total):
    """However long the stream, positions within the cache keep every distance below
    n_sink + window; the stream's own positions put the sinks `total − 1` away."""
    cache = streaming_distances(total, 4, 4)
    original = streaming_distances(total, 4, 4, mode="original")
    assert cache.max() == min(total, 8) - 1
    assert original.max() == total - 1
    # the window's distances among themselves agree in both schemes
    np.testing.assert_array_equal(cache[4:, 4:], original[4:, 4:])


def test_a_cache_of_rotated_keys_reaches_the_cache_positions_by_shifting():
    """One decoding step past a full cache: drop the oldest window token, move the rest of
    the window back by one (Δ = −1), keep the sinks (Δ = 0); the keys are those rotated
    at the new step's positions within the cache."""
    head_dim, n_sink, window = 16, 2, 4
    inv_freq, _ = rope_frequencies(head_dim)
    keys = np.random.default_rng(0).normal(size=(12, head_dim))  # one per stream token
    kept, pos = streaming_positions(9, n_sink, window)  # tokens 0, 1, 5, 6, 7, 8
    cache = apply_rope(keys[kept], pos, inv_freq)
    new_kept, new_pos = streaming_positions(10, n_sink, window)  # tokens 0, 1, 6, 7, 8, 9
    survivors = np.isin(kept, new_kept)  # token 5 leaves
    moved = shift_rotated_keys(cache[survivors], [0, 0, -1, -1, -1], inv_freq)
    np.testing.assert_allclose(moved, apply_rope(keys[new_kept[:-1]], new_pos[:-1], inv_freq))
    # with the stream's own positions nothing moves: the keys stay where they were rotated
    orig_kept, orig_pos = streaming_positions(10, n_sink, window, mode="original")
    np.testing.assert_allclose(
        apply_rope(keys[kept], kept, inv_freq)[survivors],
        apply_rope(keys[orig_kept[:-1]], orig_pos[:-1], inv_freq),
    )


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: streaming_positions(10, 4, 0), ValueError, "window must be >= 1"),
        (lambda: streaming_positions(-1, 4, 4), ValueError, "total must be >= 0"),
        (lambda: streaming_positions(10, 4, 4, mode="stream"), ValueError, "mode"),
        (lambda: streaming_positions(2**40, 4, 2**30), ValueError, "n_sink \\+ window asks"),
        (lambda: streaming_distances(10**6, 4, 10**4), ValueError, "distance matrix"),
    ],
)
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
