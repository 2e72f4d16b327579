"""ReRoPE and leaky ReRoPE (Su, 2023) against the reference code.

Read for these tests: bojone/rerope at acfe78840357a94d0bb504cb8865eeaa752df1a6,

* ``rerope_patch.py``, ``forward_with_rerope``: prefill lines 76–88 (scores at
  positions ``i, j``, and at query ``window`` against an unrotated key, chosen by
  ``|i − j| < window``), decoding line 70 (``(q − k).clip(max=window)``);
* ``leaky_rerope_patch.py``, ``forward_with_leaky_rerope``: ``offset = window ·
  (scaling_factor − 1)`` (line 73), prefill lines 85–97 (second score with query at
  ``(i + offset) / k`` and key at ``j / k``, linear scaling), decoding lines 77–80
  (RoPE's table below ``window``, the scaled table from ``window + offset`` on);
* ``idea.png``: the matrix ``min(i − j, w)``, lower-triangular.
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import rerope_distances, rerope_largest_distance

CASES = [(1, 1), (6, 3), (10, 1), (10, 4), (33, 8), (40, 64)]


def _reference_prefill(seq_len, window, scaling_factor=None):
    """The distance behind each score of the reference prefill, before the causal mask."""
    position = np.arange(seq_len, dtype=np.float64)
    rectified_mask = np.abs(position[:, None] - position[None, :]) < window
    scores1 = position[:, None] - position[None, :]  # q at i, k at j
    if scaling_factor is None:
        scores2 = np.full_like(scores1, window) - 0.0  # q at window, k unrotated (0)
    else:
        offset = window * (scaling_factor - 1)
        scores2 = (position[:, None] + offset) / scaling_factor - position[None, :] / scaling_factor
    return np.where(rectified_mask, scores1, scores2)


def _reference_decode_row(seq_len, window, scaling_factor=None):
    """The decoding step (``q_len == 1``) of the query at ``seq_len − 1``."""
    relative = (seq_len - 1) - np.arange(seq_len)  # position_ids[:, -1:] − position_ids
    if scaling_factor is None:
        return np.minimum(relative, window).astype(np.float64)  # .clip(max=window)
    offset = window * (scaling_factor - 1)
    # cos[:window] from RoPE, then cos2[window + offset:] of positions scaled by 1/k
    return np.where(relative < window, relative, (relative + offset) / scaling_factor)


@pytest.mark.parametrize("scaling_factor", [None, 2, 16])
@pytest.mark.parametrize(("seq_len", "window"), CASES)
def test_matches_the_reference_code(seq_len, window, scaling_factor):
    ours = rerope_distances(seq_len, window, scaling_factor=scaling_factor)
    np.testing.assert_allclose(
        ours, np.tril(_reference_prefill(seq_len, window, scaling_factor)), rtol=1e-15
    )
    np.testing.assert_allclose(
        ours[-1], _reference_decode_row(seq_len, window, scaling_factor), rtol=1e-15
    )


def test_the_harness_notices_a_wrong_answer():
    reference = np.tril(_reference_prefill(10, 4))
    assert not np.array_equal(np.tril(np.minimum(_reference_prefill(10, 5), 5)), reference)
    assert not np.array_equal(rerope_distances(10, 4, scaling_factor=1e12), reference)
    assert not np.array_equal(rerope_distances(10, 3), reference)


def test_idea_png_by_hand():
    expected = [
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [2, 1, 0, 0, 0, 0],
        [3, 2, 1, 0, 0, 0],
        [3, 3, 2, 1, 0, 0],
        [3, 3, 3, 2, 1, 0],
    ]
    np.testing.assert_array_equal(rerope_distances(6, 3), expected)
    # leaky, k = 4: 3 + (d − 3) / 4
    assert rerope_distances(8, 3, scaling_factor=4)[7].tolist() == [
        4.0,
        3.75,
        3.5,
        3.25,
        3.0,
        2.0,
        1.0,
        0.0,
    ]


@pytest.mark.parametrize("scaling_factor", [None, 1.5, 8])
@pytest.mark.parametrize(("seq_len", "window"), CASES)
def test_causal_exact_in_the_window_and_largest(seq_len, window, scaling_factor):
    distances = rerope_distances(seq_len, window, scaling_factor=scaling_factor)
    d = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]
    assert np.all(np.triu(distances, 1) == 0)
    inside = (d >= 0) & (d < window)
    np.testing.assert_array_equal(distances[inside], d[inside])
    largest = rerope_largest_distance(seq_len, window, scaling_factor=scaling_factor)
    assert largest == pytest.approx(distances.max(), rel=1e-15)
    if scaling_factor is None:
        assert largest == min(seq_len - 1, window)


def test_limits_of_the_leak():
    d = np.arange(12)[:, None] - np.arange(12)[None, :]
    np.testing.assert_array_equal(rerope_distances(12, 3, scaling_factor=1), np.maximum(d, 0))
    np.testing.assert_allclose(
        rerope_distances(12, 3, scaling_factor=1e12), rerope_distances(12, 3), atol=1e-10
    )


def test_largest_distance_at_scale():
    assert rerope_largest_distance(10**9, 1024) == 1024.0
    assert rerope_largest_distance(16384, 512, scaling_factor=16) == 512 + (16383 - 512) / 16
    assert rerope_largest_distance(100, 512, scaling_factor=16) == 99.0


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="scaling_factor"):
        rerope_distances(8, 3, scaling_factor=0.5)
    with pytest.raises(ValueError, match="window"):
        rerope_distances(8, 0)
    with pytest.raises(ValueError, match="seq_len"):
        rerope_distances(5000, 4)
