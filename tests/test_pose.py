"""PoSE's position ids (Zhu et al., 2024): the invariants of every draw, and the reference code.

Read for these tests: the paper (arXiv:2309.10400, ICLR 2024), section 3.2, Eq. 3–4
(``PoSE(c_i) = {u_i + st_i, …, u_i + st_i + l_i − 1}``, ``u_i ~ U{u_{i−1}, …, L_t −
L_c}``, ``u_0 = 0``, ``N = 2``); dwzhu-pku/PoSE at
a3d4ba8bd38e6615ba778d9a1061e380c8e69647, ``src/train_pose.py``,
``train_preprocess_function_pose`` (lines 166–183: ``rt1 = randint(1, (len_chunk + 1)
// 2)``, ``lt = 0``, ``rt = randint(lt, scaled_max_position_embeddings − len)``,
``pos_ids[:rt1] += lt``, ``pos_ids[rt1:] += rt``; ``randint`` includes both ends).
"""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import pose_position_ids

SHAPES = [(1, 1, 1), (2, 10, 2), (8, 32, 2), (16, 16, 2), (50, 400, 2), (30, 90, 3), (20, 200, 7)]


def _reference_ids(train_length, rt1, rt):
    """The reference code's ids, for a first chunk of ``rt1`` tokens and a bias ``rt``."""
    pos_ids = np.arange(train_length)
    pos_ids[:rt1] += 0  # lt = 0
    pos_ids[rt1:] += rt
    return pos_ids


@pytest.mark.parametrize(("train_length", "target_length", "num_chunks"), SHAPES)
def test_invariants_of_every_draw(train_length, target_length, num_chunks):
    rng = np.random.default_rng(1234)
    for _ in range(200):
        ids, starts = pose_position_ids(
            train_length, target_length, rng, num_chunks=num_chunks, return_chunk_starts=True
        )
        assert ids.shape == (train_length,) and ids.dtype == np.int64
        assert np.all(np.diff(ids) >= 1)  # increasing
        assert ids[0] == 0 and ids[-1] <= target_length - 1  # within [0, L_t)
        assert len(starts) == num_chunks and starts[0] == 0  # the number of chunks
        assert np.all(np.diff(starts) >= 1) and starts[-1] < train_length  # none empty
        for chunk in np.split(ids, starts[1:]):  # each chunk contiguous
            np.testing.assert_array_equal(chunk, chunk[0] + np.arange(len(chunk)))
        skips = ids - np.arange(train_length)  # u of each token's chunk
        assert np.all(np.diff(skips) >= 0) and skips[-1] <= target_length - train_length


def test_two_chunks_follow_the_reference_code():
    train_length, target_length = 9, 40
    rng = np.random.default_rng(7)
    firsts, biases = set(), set()
    for _ in range(3000):
        ids, starts = pose_position_ids(train_length, target_length, rng, return_chunk_starts=True)
        rt1, rt = int(starts[1]), int(ids[-1] - (train_length - 1))
        np.testing.assert_array_equal(ids, _reference_ids(train_length, rt1, rt))
        firsts.add(rt1)
        biases.add(rt)
    assert firsts == set(range(1, (train_length + 1) // 2 + 1))  # randint(1, 5)
    assert biases == set(range(0, target_length - train_length + 1))  # randint(0, 31)


def test_the_reference_harness_notices_a_wrong_answer():
    ids = pose_position_ids(9, 40, np.random.default_rng(3))
    assert not np.array_equal(ids, np.arange(9))  # a draw that skipped
    rt1 = int(np.flatnonzero(np.diff(ids) > 1)[0]) + 1
    rt = int(ids[-1] - 8)
    assert not np.array_equal(ids, _reference_ids(9, rt1 + 1, rt))
    assert not np.array_equal(ids, _reference_ids(9, rt1, rt + 1))


def test_every_relative_distance_is_covered():
    """The paper's first desideratum: relative distances cover 1 … L_t − 1."""
    train_length, target_length = 4, 12
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(2000):
        ids = pose_position_ids(train_length, target_length, rng)
        seen.update((ids[:, None] - ids[None, :])[np.tril_indices(train_length, -1)].tolist())
    assert seen == set(range(1, target_length))


def test_without_room_or_chunks_the_ids_are_plain():
    rng = np.random.default_rng(5)
    np.testing.assert_array_equal(pose_position_ids(10, 10, rng, num_chunks=4), np.arange(10))
    np.testing.assert_array_equal(pose_position_ids(10, 99, rng, num_chunks=1), np.arange(10))


def test_seeded_and_reproducible():
    first = pose_position_ids(64, 1024, np.random.default_rng(42), num_chunks=3)
    again = pose_position_ids(64, 1024, np.random.default_rng(42), num_chunks=3)
    other = pose_position_ids(64, 1024, np.random.default_rng(43), num_chunks=3)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, other)


def test_arguments_are_checked():
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        pose_position_ids(8, 16, 0)
    with pytest.raises(TypeError, match="rng"):
        pose_position_ids(8, 16, np.random.RandomState(0))
    with pytest.raises(ValueError, match="target_length must be >= train_length"):
        pose_position_ids(8, 7, rng)
    with pytest.raises(ValueError, match="num_chunks must be <= train_length"):
        pose_position_ids(3, 16, rng, num_chunks=4)
