"""Self-Extend (Jin et al., 2024) and llama.cpp's group attention, against their code.

Reference code read for these tests:

* datamllab/LongLM at cdbbb061dc76438c46d7e1ddc500f8e4bf255574,
  ``self_extend_patch/Llama.py``: ``self_extend_forward`` (lines 124–180: grouped query
  ``q // G + w − w / G``, grouped key ``k // G``, the neighbour mask ``tril`` minus a
  shifted ``tril``, the decoding mask "last ``w`` keys") and ``flash_self_extend_forward``
  (lines 268–271, decoding: ``q // G − k // G + (w − w // G)``); ``README.md`` line 96
  (``(4096 − w) · G + w``) and line 99 (15,800 tokens, ``w = 1024``, ``G = 5``;
  "positions 1,025 to 3,979", and "1,025 to 2,871" for ``G = 8``).
* The paper's Algorithm 1, ``shift = w_size − w_size // g_size``, as quoted in
  vllm-project/vllm issue #2349.
* ggml-org/llama.cpp at 771e036505f851e8fe2268d0763dcaf64c7893cd,
  ``tools/main/main.cpp``, ``main()``: the ``GGML_ASSERT(ga_w % ga_n == 0)`` and the
  block "context extension via Self-Extend" run before each batch of at most
  ``n_batch`` tokens; and at 14554a8210b5e98c1f8551cda3790f34b7ab2b88
  ``src/llama-kv-cells.h``: ``pos_in`` (``[p0, p1)``), ``pos_add``, ``pos_div``
  (``pos /= d``). :func:`_llama_cpp_replay` runs those steps on a list of positions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import (
    group_attention_distances,
    group_attention_largest_distance,
    group_attention_rotated_distances,
    self_extend_distances,
    self_extend_group_size,
    self_extend_largest_distance,
    self_extend_max_length,
)

CASES = [(1, 1, 1), (5, 2, 2), (9, 2, 4), (12, 3, 4), (17, 4, 3), (20, 2, 5), (33, 8, 8)]


# ---------------------------------------------------------------------------
# Reference harnesses, written from the code (not from the library)
# ---------------------------------------------------------------------------


def _longlm_prefill(seq_len, group_size, neighbor_window):
    """``self_extend_forward`` with ``q_len == kv_seq_len``: the distance each score uses."""
    position = np.arange(seq_len)
    re_group = 0 if position.max() < neighbor_window else neighbor_window
    group_query = position // group_size + re_group - re_group / group_size
    group_key = position // group_size
    mask = np.tril(np.ones((seq_len, seq_len)))
    if seq_len - neighbor_window > 0:
        size = seq_len - neighbor_window
        mask[neighbor_window:, :-neighbor_window] -= np.tril(np.ones((size, size)))
    neighbor = position[:, None] - position[None, :]
    grouped = group_query[:, None] - group_key[None, :]
    return np.where(mask.astype(bool), neighbor, grouped)


def _longlm_decode_row(seq_len, group_size, neighbor_window, *, flash):
    """One decoding step (``q_len == 1``) of the query at ``seq_len − 1``."""
    key = np.arange(seq_len)
    query = seq_len - 1
    re_group = 0 if query < neighbor_window else neighbor_window
    if flash:  # flash_self_extend_forward: whole shift
        grouped = query // group_size - key // group_size + (re_group - re_group // group_size)
    else:  # self_extend_forward: true division
        grouped = query // group_size + re_group - re_group / group_size - key // group_size
    neighbor = np.zeros(seq_len, dtype=bool)
    neighbor[-neighbor_window:] = True  # neighbor_attention_mask[:, -group_size_2:] = 1
    return np.where(neighbor, query - key, grouped)


def _llama_cpp_replay(seq_len, ga_n, ga_w, n_batch, *, rotations=False):
    """Run completion.cpp's group-attention steps on the cache; return each query's
    distances to the cells, or (``rotations``) to the positions the K-shift turned the
    keys to: each cell accumulates ``shift``, ``+= d`` in ``pos_add`` and
    ``+= p_old − p_new`` in ``pos_div`` (``src/llama-kv-cells.h``), and the K-shift
    before the next batch turns the key by it."""
    cache: list[int] = []  # cell positions, in token order
    turned: list[int] = []  # the position each key's rotation encodes
    n_past, ga_i = 0, 0
    distances = np.zeros((seq_len, seq_len), dtype=np.int64)

    def seq_add(p0, p1, delta):
        for k, p in enumerate(cache):
            if p0 <= p < p1:
                cache[k], turned[k] = p + delta, turned[k] + delta

    def seq_div(p0, p1, d):
        for k, p in enumerate(cache):
            if p0 <= p < p1:
                cache[k], turned[k] = p // d, turned[k] + (p - p // d)

    for start in range(0, seq_len, n_batch):
        while n_past >= ga_i + ga_w:
            ib = (ga_n * ga_i) // ga_w
            bd = (ga_w // ga_n) * (ga_n - 1)
            dd = (ga_w // ga_n) - ib * bd - ga_w
            seq_add(ga_i, n_past, ib * bd)
            seq_div(ga_i + ib * bd, ga_i + ib * bd + ga_w, ga_n)
            seq_add(ga_i + ib * bd + ga_w, n_past + ib * bd, dd)
            n_past -= bd
            ga_i += ga_w // ga_n
        stop = min(start + n_batch, seq_len)
        cache.extend(range(n_past, n_past + stop - start))  # llama_batch_get_one at n_past
        turned.extend(range(n_past, n_past + stop - start))
        n_past += stop - start
        keys = turned if rotations else cache
        for i in range(start, stop):  # every query of the batch sees the same cache
            distances[i, : i + 1] = cache[i] - np.array(keys[: i + 1])
    return distances


# ---------------------------------------------------------------------------
# Self-Extend as the authors' code computes it
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("seq_len", "group_size", "neighbor_window"), CASES)
def test_matches_the_authors_prefill(seq_len, group_size, neighbor_window):
    ours = self_extend_distances(seq_len, group_size, neighbor_window)
    theirs = np.tril(_longlm_prefill(seq_len, group_size, neighbor_window))
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize(("seq_len", "group_size", "neighbor_window"), CASES)
def test_matches_the_authors_decoding_steps(seq_len, group_size, neighbor_window):
    ours = self_extend_distances(seq_len, group_size, neighbor_window)[-1]
    np.testing.assert_array_equal(
        ours, _longlm_decode_row(seq_len, group_size, neighbor_window, flash=False)
    )
    paper = self_extend_distances(seq_len, group_size, neighbor_window, convention="paper")[-1]
    np.testing.assert_array_equal(
        paper, _longlm_decode_row(seq_len, group_size, neighbor_window, flash=True)
    )


def test_the_harness_notices_a_wrong_shift():
    """The prefill harness tells the two conventions apart where G does not divide w."""
    theirs = np.tril(_longlm_prefill(20, 2, 5))
    assert not np.array_equal(self_extend_distances(20, 2, 5, convention="paper"), theirs)
    assert not np.array_equal(self_extend_distances(20, 2, 4), theirs)


def test_worked_by_hand():
    # G = 2, w = 2: shift 1; key j at d >= 2 is seen at i // 2 + 1 − j // 2
    expected = [
        [0, 0, 0, 0, 0, 0],
        [1, 0, 0, 0, 0, 0],
        [2, 1, 0, 0, 0, 0],
        [2, 2, 1, 0, 0, 0],
        [3, 3, 2, 1, 0, 0],
        [3, 3, 2, 2, 1, 0],
    ]
    np.testing.assert_array_equal(self_extend_distances(6, 2, 2), expected)
    # G = 2, w = 3: shift 1.5 in the authors' code, 2 in the paper
    # (key 1: 4 // 2 + 1.5 − 1 // 2 = 3.5; key 0 shares its group)
    assert self_extend_distances(5, 2, 3)[4].tolist() == [3.5, 3.5, 2.0, 1.0, 0.0]
    assert self_extend_distances(5, 2, 3, convention="paper")[4].tolist() == [4, 4, 2, 1, 0]


@pytest.mark.parametrize("convention", ["longlm", "paper"])
@pytest.mark.parametrize(("seq_len", "group_size", "neighbor_window"), CASES)
def test_causal_exact_in_the_window_and_nondecreasing(
    seq_len, group_size, neighbor_window, convention
):
    distances = self_extend_distances(seq_len, group_size, neighbor_window, convention=convention)
    d = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]
    assert np.all(np.triu(distances, 1) == 0)
    inside = (d >= 0) & (d < neighbor_window)
    np.testing.assert_array_equal(distances[inside], d[inside])
    for i in range(seq_len):  # farther keys are never seen closer
        assert np.all(np.diff(distances[i, : i + 1][::-1]) >= 0)


def test_group_size_one_changes_nothing():
    d = np.arange(9)[:, None] - np.arange(9)[None, :]
    for convention in ("longlm", "paper"):
        np.testing.assert_array_equal(
            self_extend_distances(9, 1, 3, convention=convention), np.maximum(d, 0)
        )


@pytest.mark.parametrize("convention", ["longlm", "paper"])
@pytest.mark.parametrize(("seq_len", "group_size", "neighbor_window"), CASES)
def test_largest_distance_is_the_matrix_maximum(seq_len, group_size, neighbor_window, convention):
    matrix = self_extend_distances(seq_len, group_size, neighbor_window, convention=convention)
    largest = self_extend_largest_distance(
        seq_len, group_size, neighbor_window, convention=convention
    )
    assert largest == matrix.max()


def test_largest_distance_formula_at_scale():
    # (L − 1) // G + w − w / G, with no matrix built
    assert self_extend_largest_distance(100_000, 16, 1024) == 99_999 // 16 + 1024 - 64
    assert self_extend_largest_distance(100_000, 3, 1000, convention="paper") == 33_333 + 667
    assert self_extend_largest_distance(100_000, 3, 1000) == pytest.approx(33_333 + 2000 / 3)


# ---------------------------------------------------------------------------
# Choosing G and w
# ---------------------------------------------------------------------------


def test_readme_example():
    """README line 99: 15,800 tokens, w = 1,024, Llama 2 (4,096): G = 5 suffices, 4 does not."""
    assert self_extend_max_length(4096, 5, 1024) == 16384
    assert self_extend_max_length(4096, 4, 1024) == 13312 < 15800
    group_size, largest = self_extend_group_size(15800, 4096, 1024)
    assert group_size == 5 and largest == pytest.approx(3978.2)
    # the README's "up to 3,979" and "2,871" count L / G + w − w / G
    assert int(15800 / 5 + 1024 - 1024 / 5) == 3979
    assert int(15800 / 8 + 1024 - 1024 / 8) == 2871
    assert self_extend_largest_distance(15800, 8, 1024) == 2870.0


@pytest.mark.parametrize("usable_fraction", [1.0, 2 / 3, 0.5])
@pytest.mark.parametrize("target_length", [100, 4096, 5000, 15800, 100_000])
def test_group_size_is_the_smallest_satisfying_the_rule(target_length, usable_fraction):
    pretraining_length, neighbor_window = 4096, 512
    usable = usable_fraction * pretraining_length
    group_size, largest = self_extend_group_size(
        target_length, pretraining_length, neighbor_window, usable_fraction=usable_fraction
    )

    def rule(g):  # (L − w) / G + w <= f · L_pretrain
        return (target_length - neighbor_window) / g + neighbor_window <= usable + 1e-9

    assert rule(group_size) and (group_size == 1 or not rule(group_size - 1))
    assert largest == self_extend_largest_distance(target_length, group_size, neighbor_window)
    assert largest <= usable


def test_guidance_refuses_a_window_too_wide():
    with pytest.raises(ValueError, match="neighbor_window"):
        self_extend_group_size(10_000, 4096, 4096)
    with pytest.raises(ValueError, match="neighbor_window"):
        self_extend_group_size(10_000, 4096, 2048, usable_fraction=0.5)
    with pytest.raises(ValueError, match="neighbor_window"):
        self_extend_max_length(4096, 4, 4096)


def test_matrix_size_is_capped():
    with pytest.raises(ValueError, match="seq_len"):
        self_extend_distances(4097, 2, 4)
    with pytest.raises(ValueError, match="seq_len"):
        group_attention_distances(4097, 2, 4)
    with pytest.raises(ValueError, match="seq_len"):
        group_attention_rotated_distances(4097, 2, 4)


# ---------------------------------------------------------------------------
# llama.cpp's group attention
# ---------------------------------------------------------------------------

LLAMA_CASES = [
    (1, 2, 4, 1),
    (9, 2, 4, 1),
    (20, 2, 4, 1),
    (30, 3, 6, 1),
    (40, 4, 8, 5),
    (40, 2, 4, 16),
    (25, 1, 3, 2),
    (50, 5, 5, 7),
]


@pytest.mark.parametrize(("seq_len", "group_size", "group_width", "batch_size"), LLAMA_CASES)
def test_group_attention_matches_the_replayed_cache(seq_len, group_size, group_width, batch_size):
    ours = group_attention_distances(seq_len, group_size, group_width, batch_size=batch_size)
    theirs = _llama_cpp_replay(seq_len, group_size, group_width, batch_size)
    np.testing.assert_array_equal(ours, theirs)


def test_the_replay_notices_a_wrong_answer():
    theirs = _llama_cpp_replay(20, 2, 4, 1)
    assert not np.array_equal(self_extend_distances(20, 2, 4), theirs)  # a sliding window
    assert not np.array_equal(group_attention_distances(20, 2, 4, batch_size=3), theirs)
    off_by_one = group_attention_distances(20, 2, 4).copy()
    off_by_one[9, 0] += 1
    assert not np.array_equal(off_by_one, theirs)


@pytest.mark.parametrize(("seq_len", "group_size", "group_width", "batch_size"), LLAMA_CASES)
def test_rotated_distances_match_the_replayed_k_shift(seq_len, group_size, group_width, batch_size):
    ours = group_attention_rotated_distances(
        seq_len, group_size, group_width, batch_size=batch_size
    )
    theirs = _llama_cpp_replay(seq_len, group_size, group_width, batch_size, rotations=True)
    np.testing.assert_array_equal(ours, theirs)


def test_rotations_equal_the_cells_until_a_block_is_divided():
    for seq_len, g, w, b in [(8, 2, 8, 1), (20, 1, 4, 1), (9, 2, 4, 9)]:
        np.testing.assert_array_equal(
            group_attention_rotated_distances(seq_len, g, w, batch_size=b),
            group_attention_distances(seq_len, g, w, batch_size=b),
        )
    assert not np.array_equal(
        group_attention_rotated_distances(9, 2, 4), group_attention_distances(9, 2, 4)
    )


def test_rotations_by_hand():
    # G = 2, W = 4: block 0…3 divided before token 4 (cells 0, 0, 1, 1; keys turned to
    # 2p − p // 2 = 0, 2, 3, 5), then tokens 4…7 moved by +2, divided and moved back
    # (cells 2, 2, 3, 3; keys turned to 6, 8, 9, 11); token 8 at cell 4
    assert group_attention_rotated_distances(9, 2, 4)[8].tolist() == [
        4,
        2,
        1,
        -1,
        -2,
        -4,
        -5,
        -7,
        0,
    ]


def _tril(matrix):
    return matrix[np.tril(np.ones(matrix.shape, dtype=bool))]


def test_chapter_25_toy_and_a_long_prompt():
    """The 96-token toy (G = 4, W = 8, one token at a time): the cells reach 29, the
    rotations −131 … 29, and 73 % of the attended pairs see a negative distance; a
    3,072-token prompt with -gan 8 -gaw 1024 -b 512: cells 0 … 1,279, rotations
    −3,583 … 1,279."""
    cells, turned = group_attention_distances(96, 4, 8), group_attention_rotated_distances(96, 4, 8)
    assert _tril(cells).max() == 29 and _tril(cells).min() == 0
    assert (_tril(turned).min(), _tril(turned).max()) == (-131, 29)
    assert np.mean(_tril(turned) < 0) == pytest.approx(0.729, abs=1e-3)
    long = group_attention_rotated_distances(3072, 8, 1024, batch_size=512)
    assert (_tril(long).min(), _tril(long).max()) == (-3583, 1279)
    assert _tril(group_attention_distances(3072, 8, 1024, batch_size=512)).max() == 1279


def test_group_attention_by_hand():
    # G = 2, W = 4, one token at a time: before token 4 the block 0…3 is grouped
    expected_row_7 = [5, 5, 4, 4, 3, 2, 1, 0]  # keys 0…3 at 0, 0, 1, 1; 4…7 at 2…5
    assert group_attention_distances(8, 2, 4)[7].tolist() == expected_row_7
    assert group_attention_distances(9, 2, 4)[8].tolist() == [4, 4, 3, 3, 2, 2, 1, 1, 0]
    # a prompt decoded in one batch of 9 tokens is never grouped: exact distances
    d = np.arange(9)[:, None] - np.arange(9)[None, :]
    np.testing.assert_array_equal(group_attention_distances(9, 2, 4, batch_size=9), np.tril(d))


@pytest.mark.parametrize(("seq_len", "group_size", "group_width", "batch_size"), LLAMA_CASES)
def test_group_attention_is_causal_and_exact_since_the_last_block(
    seq_len, group_size, group_width, batch_size
):
    distances = group_attention_distances(seq_len, group_size, group_width, batch_size=batch_size)
    assert np.all(np.triu(distances, 1) == 0)
    for i in range(seq_len):
        grouped = (i // batch_size * batch_size // group_width) * group_width  # g = m · W
        np.testing.assert_array_equal(distances[i, grouped : i + 1], np.arange(i - grouped, -1, -1))
        assert i - grouped <= group_width + batch_size - 2  # the tokens since the last block


@pytest.mark.parametrize(("seq_len", "group_size", "group_width", "batch_size"), LLAMA_CASES)
def test_group_attention_largest_distance(seq_len, group_size, group_width, batch_size):
    largest = group_attention_largest_distance(
        seq_len, group_size, group_width, batch_size=batch_size
    )
    matrix = group_attention_distances(seq_len, group_size, group_width, batch_size=batch_size)
    assert largest == matrix.max()


def test_group_attention_largest_distance_at_scale():
    # one token at a time: the end of a block, (m + 1) W − 1 − m W (G − 1) / G, is largest
    seq_len, group_size, group_width = 1_000_003, 8, 1024
    last_full = seq_len // group_width - 1
    expected = max(
        group_width - 1 + last_full * group_width // group_size,
        (seq_len - 1) - ((seq_len - 1) // group_width) * group_width * 7 // 8,
    )
    assert group_attention_largest_distance(seq_len, group_size, group_width) == expected
    assert math.isclose(expected, seq_len / group_size + group_width * 7 / 8, rel_tol=1e-3)


def test_group_attention_needs_a_width_divisible_by_the_group():
    with pytest.raises(ValueError, match="group_width must be a multiple of group_size"):
        group_attention_distances(10, 3, 4)
