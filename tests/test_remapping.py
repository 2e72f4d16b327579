"""Chapter 25, remapping positions: its verbal claims held to the numbers they rest on.

Each test names the sentence of ``docs/inference/remapping.md`` it checks. The numbers
come from the chapter's own registrations and helpers, so a change of parameters that
turns a claim false fails here, not silently on the page.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import pe_book
from pe_book import TABLES, VALUES
from pe_book.chapters import remapping as ch
from pe_book.chapters.remapping import choosing, dca, distances, pose
from pe_explained import (
    dual_chunk_distances,
    group_attention_distances,
    pose_position_ids,
    rerope_distances,
    self_extend_distances,
)

pe_book.load_all()

PAGE = Path(__file__).resolve().parent.parent / "docs" / "inference" / "remapping.md"


def mixed_differences(matrix: np.ndarray) -> np.ndarray:
    """``D(m, n) − D(m, n−1) − D(m−1, n) + D(m−1, n−1)`` for every 2×2 square of the
    causal triangle (``n ≤ m − 1``); all zero exactly when ``D = P_q(m) − P_k(n)`` there.

    (The triangle is a staircase of such squares, so zero on each one lets ``P_q`` and
    ``P_k`` be read off the first column and the diagonal.)
    """
    d = np.asarray(matrix, dtype=np.float64)
    squares = d[1:, 1:] - d[1:, :-1] - d[:-1, 1:] + d[:-1, :-1]
    m = np.arange(1, d.shape[0])[:, None]
    n = np.arange(1, d.shape[1])[None, :]
    return squares[n <= m - 1]


def one_pass(matrix: np.ndarray) -> bool:
    return bool(np.all(mixed_differences(matrix) == 0))


# ---- the test's own check, shown to fail on a wrong answer


def test_the_one_pass_check_accepts_any_pair_of_position_lists():
    rng = np.random.default_rng(0)
    p_q, p_k = rng.integers(-50, 50, size=(2, 12))
    assert one_pass(np.tril(p_q[:, None] - p_k[None, :]))


def test_the_one_pass_check_catches_one_changed_entry():
    d = np.tril(np.arange(10)[:, None] - np.arange(10)[None, :]).astype(float)
    assert one_pass(d)
    d[7, 2] += 1  # one distance off by one
    assert not one_pass(d)


# ---- "Distances, not frequencies"


def test_rope_is_one_pass_and_the_remappings_with_exact_near_keys_are_not():
    """'A matrix that keeps near distances exact and caps the far ones breaks that';
    'two for Self-Extend and ReRoPE ..., three sets of query positions for Dual Chunk
    Attention'."""
    matrices = dict(distances.panels())
    assert one_pass(matrices["RoPE"])
    for name in ("Self-Extend", "DCA (vLLM)", "ReRoPE", "leaky ReRoPE"):
        assert not one_pass(matrices[name]), name


def test_the_page_example_of_the_mixed_difference():
    exact, capped = rerope_distances(6, 6), rerope_distances(6, 3)
    assert exact[5, 1] - exact[5, 2] - exact[4, 1] + exact[4, 2] == 0
    assert capped[5, 1] - capped[5, 2] - capped[4, 1] + capped[4, 2] == -1


def test_every_method_but_dca_stays_within_the_trained_distances_in_the_figure():
    """'Unchanged, RoPE shows distances up to 95; every method but one stays within
    L − 1'; the one is Dual Chunk Attention, one beyond."""
    largest = {name: float(matrix.max()) for name, matrix in distances.panels()}
    assert largest["RoPE"] == ch.SEQ_LEN - 1
    beyond = [name for name, value in largest.items() if value > ch.TRAIN - 1]
    assert beyond == ["RoPE", "DCA (vLLM)"]
    assert largest["DCA (vLLM)"] == ch.TRAIN
    assert VALUES["remapping.toy_dca_paper"].text() == str(ch.TRAIN - 1)


def test_near_keys_stay_exact_except_in_llama_cpp():
    """'exact for near keys'; llama.cpp: 'There is no sliding neighbour window'."""
    matrices = dict(distances.panels())
    m = np.arange(ch.SEQ_LEN)[:, None]
    n = np.arange(ch.SEQ_LEN)[None, :]
    near = (m - n >= 0) & (m - n < ch.WINDOW)
    assert ch.WINDOW == ch.LOCAL == ch.REROPE_WINDOW
    for name in ("Self-Extend", "DCA (vLLM)", "ReRoPE", "leaky ReRoPE"):
        np.testing.assert_array_equal(matrices[name][near], (m - n)[near], err_msg=name)
    assert not np.array_equal(matrices["llama.cpp (cells)"][near], (m - n)[near])
    # 'every distance up to local_size stays exact' (local_size itself included)
    up_to = (m - n >= 0) & (m - n <= ch.LOCAL)
    np.testing.assert_array_equal(matrices["DCA (vLLM)"][up_to], (m - n)[up_to])


# ---- Self-Extend and llama.cpp


def _largest_columns() -> dict[str, dict[int, float]]:
    table = TABLES["remapping.largest"].build()
    return {
        column: {row[0]: row[k] for row in table.rows}
        for k, column in enumerate(table.columns)
        if k
    }


def test_self_extend_changes_distances_at_the_training_length_and_ends_at_l_minus_1():
    """'a text of 4,096 tokens ... is shown distances of at most 1,407, and the longest
    text that stays within the trained distances has 25,600 tokens'."""
    se = _largest_columns()["Self-Extend"]
    assert se[ch.LLAMA2] < ch.LLAMA2 - 1
    longest = distances.se_max_length()
    assert se[longest] == ch.LLAMA2 - 1
    assert all(v > ch.LLAMA2 - 1 for length, v in se.items() if length > longest)


def test_llama_cpp_one_token_at_a_time_equals_self_extend_and_batches_show_more():
    """'One token at a time, the largest distance equals Self-Extend's at every length
    ...; in batches of 2,048 it is larger, and it passes 4,095 at 25,600 tokens, where
    Self-Extend just reaches it.'"""
    columns = _largest_columns()
    se = columns["Self-Extend"]
    single = columns["llama.cpp cells, one token at a time"]
    batched = columns[f"llama.cpp cells, batches of {ch.BATCH:,}"]
    assert single == se
    assert all(batched[k] > single[k] for k in single)
    longest = distances.se_max_length()
    assert batched[longest] > ch.LLAMA2 - 1 == se[longest]


def test_the_page_rows_of_llama_cpp_and_self_extend():
    assert group_attention_distances(9, 2, 4)[8].tolist() == [4, 4, 3, 3, 2, 2, 1, 1, 0]
    row = self_extend_distances(9, 2, 4)[8]
    assert row.tolist() == [6, 6, 5, 5, 4, 3, 2, 1, 0]


def test_the_readme_rule_can_pass_l_minus_1_by_a_fraction_and_two_thirds_cannot():
    """'at 65,536 tokens the rule's G = 21 shows 4,095.2, a fraction beyond 4,095. The
    two-thirds rule leaves a wide margin.' (more than a thousand distances)"""
    target, group_size, largest = choosing.overshoot()
    assert ch.LLAMA2 - 1 < largest < ch.LLAMA2
    assert (group_size, target) == (21, 65536)
    for row in choosing.group_rows():
        assert row[2] <= ch.LLAMA2  # the rule's own bound
        assert row[4] <= ch.LLAMA2 * choosing.FRACTION  # two thirds of L
        assert row[4] < ch.LLAMA2 - 1 - 1000  # a wide margin below L − 1


def test_the_readme_example():
    assert VALUES["remapping.readme_group"].text() == "5"
    assert VALUES["remapping.readme_largest"].text() == "3,978.2"
    assert VALUES["remapping.readme_group_part"].text() == "9"


# ---- Dual Chunk Attention


def test_vllm_shows_one_distance_more_than_the_paper_for_qwen():
    """'vLLM shows distances up to 262,144, one more than 262,143, the largest distance
    of its training sequences and the paper's constant'."""
    config, longest = dca.qwen()
    assert config["chunk_size"] == config["original_max_position_embeddings"] == 262144
    assert longest == 1_010_000
    assert VALUES["remapping.qwen_largest_code"].text() == "262,144"
    assert VALUES["remapping.qwen_largest_paper"].text() == "262,143"


def test_the_page_dates_vllms_dual_chunk_attention():
    """vLLM ran Dual Chunk Attention with a backend of its V0 engine, up to 0.10; the
    backend left with that engine in 0.11.0 and 0.33.0 runs none: the section says so,
    and tells what vLLM's code did in the past tense."""
    page = PAGE.read_text(encoding="utf-8")
    section = page[page.index("## Dual Chunk Attention") : page.index("## ReRoPE")]
    for words in ("V0 engine", "`VLLM_USE_V1=0`", "0.11.0", "vLLM 0.33.0", "07b1349"):
        assert words in section, words
    for present in ("serves a million", "vLLM shows", "vLLM rotates", "as vLLM runs it"):
        assert present not in page, present


def test_code_and_paper_differ_by_one_wherever_the_constant_applies():
    """'A port that follows the paper differs from vLLM by one at every pair the
    constant applies to'."""
    code = dual_chunk_distances(ch.SEQ_LEN, ch.CHUNK, ch.LOCAL)
    paper = dual_chunk_distances(ch.SEQ_LEN, ch.CHUNK, ch.LOCAL, pretraining_length=ch.TRAIN)
    differ = code != paper
    assert np.all((code - paper)[differ] == 1)
    assert differ.any()


def test_chunkllama_keeps_its_constant_inside_the_trained_distances():
    assert set(_largest_columns()["DCA, ChunkLlama"].values()) == {ch.CL_CHUNK}
    assert ch.CL_CHUNK < ch.LLAMA2 - 1


# ---- ReRoPE


def test_rerope_is_capped_and_leaky_rerope_passes_the_trained_distances():
    """'ReRoPE never shows more than w ...; leaky ReRoPE does grow: ... it passes 4,095
    between 25,600 and 65,536 tokens'."""
    columns = _largest_columns()
    assert set(columns["ReRoPE"].values()) == {ch.RR_WINDOW}
    before, after = distances.leaky_passes()
    assert columns["leaky ReRoPE"][before] <= ch.LLAMA2 - 1 < columns["leaky ReRoPE"][after]


# ---- PoSE


def test_pose_draws_start_at_0_and_stay_below_the_target():
    for ids, starts in pose.pose_draws():
        assert ids[0] == 0 and ids[-1] <= ch.POSE_TARGET - 1 and len(starts) == 2


def test_pose_distances_take_every_value_below_the_target():
    """'the distance between a query and a key can take every value from 0 to
    L_t − 1'."""
    rng = np.random.default_rng(1)
    train, target = 8, 40
    seen = set()
    for _ in range(3000):
        ids = pose_position_ids(train, target, rng)
        seen |= set((ids[:, None] - ids[None, :]).ravel().tolist())
    assert {d for d in seen if d >= 0} == set(range(target))


# ---- the page's examples use the chapter's parameters


def test_the_page_examples_use_the_chapters_numbers():
    page = re.sub(r"\n\.\.\. +", " ", PAGE.read_text(encoding="utf-8"))
    for snippet in (
        f"self_extend_group_size({ch.README_LENGTH}, {ch.LLAMA2}, {ch.SE_WINDOW})",
        f'"chunk_size": {dca.qwen()[0]["chunk_size"]}',
        f'"local_size": {dca.qwen()[0]["local_size"]}',
        f"dual_chunk_largest_distance({dca.qwen()[1]:_}, {dca.qwen()[0]['chunk_size']}, "
        f"{dca.qwen()[0]['local_size']})",
    ):
        assert snippet in page, snippet


@pytest.mark.parametrize("name", ["remapping_distances", "remapping_pose_ids"])
def test_the_figures_are_on_the_page(name):
    assert f"{{{{ figure: {name} }}}}" in PAGE.read_text(encoding="utf-8")
