"""Dual Chunk Attention (An et al., 2024) against the paper and the code models run.

Read for these tests:

* the paper, arXiv:2402.17463 (ICML 2024), section 3: Eq. 2 (``P_k = P_q^Intra =
  [0 … l − 1] mod s``), Eq. 5 (``P_q^Inter = [c − 1, …]``), Eq. 7 (``P_q^Succ = [s, s + 1,
  …, s + w − 1, c − 1, …]``), the piecewise ``M[i][j]`` after Eq. 7, and Figure 2
  (``s = 6``, ``c = 10``, ``w = 4``: "relative positions do not exceed 9"; ``q6`` and
  ``k5`` at distance 4 under inter-chunk attention alone);
* vLLM at 07b13497a9b52274d334090a9a8e04d5ec9ca7e9,
  ``vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py``,
  ``DualChunkRotaryEmbedding._compute_cos_sin_cache`` and ``forward_native`` (the
  position tables), and at 006e0acbee67701b91189a2a254142977f853829
  ``vllm/attention/backends/dual_chunk_flash_attn.py``:
  ``_dual_chunk_flash_attn_prefill_func`` (which keys each query set meets),
  ``DualChunkFlashAttentionImpl.__init__`` and ``…MetadataBuilder.build`` (the config
  keys and defaults), ``…Metadata.prefill_metadata`` (``scaling_factor``);
* HKUNLP/ChunkLlama at 2add4d7c99d24dcc1ab03414cc602abb2e28cf2c,
  ``chunkllama_attn_replace.py``: ``ChunkLlamaRotaryEmbedding._set_cos_sin_cache`` and
  the decoding branch of ``forward`` (lines 200–222);
* Qwen/Qwen2.5-14B-Instruct-1M ``config.json`` (revision d5c878c4): ``chunk_size``
  262144, ``local_size`` 8192, ``original_max_position_embeddings`` 262144.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import (
    dual_chunk_attention_factor,
    dual_chunk_config,
    dual_chunk_distances,
    dual_chunk_largest_distance,
    dual_chunk_position_ids,
)

CASES = [(1, 10, 4), (12, 10, 4), (13, 10, 4), (30, 10, 4), (25, 5, 0), (40, 9, 2), (17, 4, 3)]
QWEN = {"chunk_size": 262144, "local_size": 8192, "original_max_position_embeddings": 262144}


# ---------------------------------------------------------------------------
# Reference harnesses, written from the code (not from the library)
# ---------------------------------------------------------------------------


def _vllm_tables(seq_len, chunk_size, local_size):
    """``_compute_cos_sin_cache``'s position tables, indexed as ``forward_native`` does."""
    chunk_len = chunk_size - local_size
    q_t = np.arange(chunk_len)
    qc_t = np.minimum(np.arange(chunk_len) + chunk_len, chunk_size)  # .clamp(max=chunk_size)
    k_t = np.arange(seq_len) % chunk_len
    positions = np.arange(seq_len)
    return {
        "key": k_t[positions],
        "intra": q_t[positions % chunk_len],
        "successive": qc_t[positions % chunk_len],
        "inter": np.full(seq_len, qc_t[chunk_len - 1]),
    }


def _vllm_prefill_distances(seq_len, chunk_size, local_size, tables):
    """Which keys ``_dual_chunk_flash_attn_prefill_func`` gives each query set, and their
    distances ``P_q − P_k`` (one prompt, no cache: ``begin = 0``)."""
    chunk_len = chunk_size - local_size
    out = np.zeros((seq_len, seq_len), dtype=np.int64)
    begin = 0
    while begin < seq_len:
        prev_chunk_end_pos = (begin // chunk_len) * chunk_len
        end = min(prev_chunk_end_pos + chunk_len, seq_len)
        for i in range(begin, end):
            # intra: keys [prev_chunk_end_pos, end), causal
            for j in range(prev_chunk_end_pos, i + 1):
                out[i, j] = tables["intra"][i] - tables["key"][j]
            if prev_chunk_end_pos - chunk_len >= 0:  # succ: the previous chunk, not causal
                for j in range(prev_chunk_end_pos - chunk_len, prev_chunk_end_pos):
                    out[i, j] = tables["successive"][i] - tables["key"][j]
            if prev_chunk_end_pos - 2 * chunk_len >= 0:  # inter: everything older
                for j in range(0, prev_chunk_end_pos - chunk_len):
                    out[i, j] = tables["inter"][i] - tables["key"][j]
        begin = end
    return out


def _chunkllama_decode_row(seq_len, chunk_size, local_size):
    """The decoding branch of ChunkLlama's ``forward``: the last query against the cache."""
    chunk_len = chunk_size - local_size
    qc_t = np.minimum(np.arange(chunk_len) + chunk_len, chunk_size)
    k = np.arange(seq_len) % chunk_len  # key_states rotated by k_t
    query = (seq_len - 1) % chunk_len  # position_ids % chunk_len
    n = (seq_len - 1) // chunk_len  # chunk_num_curr
    row = np.empty(seq_len, dtype=np.int64)
    row[chunk_len * n :] = query - k[chunk_len * n :]
    if n >= 1:
        row[chunk_len * (n - 1) : chunk_len * n] = (
            qc_t[query] - k[chunk_len * (n - 1) : chunk_len * n]
        )
    if n >= 2:
        row[: chunk_len * (n - 1)] = qc_t[chunk_len - 1] - k[: chunk_len * (n - 1)]
    return row


# ---------------------------------------------------------------------------
# The code: vLLM and ChunkLlama
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("seq_len", "chunk_size", "local_size"), CASES)
def test_position_ids_are_vllms_tables(seq_len, chunk_size, local_size):
    ours = dual_chunk_position_ids(seq_len, chunk_size, local_size)
    theirs = _vllm_tables(seq_len, chunk_size, local_size)
    for name in ("key", "intra", "successive", "inter"):
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)


@pytest.mark.parametrize(("seq_len", "chunk_size", "local_size"), CASES)
def test_distances_are_what_vllms_prefill_computes(seq_len, chunk_size, local_size):
    tables = _vllm_tables(seq_len, chunk_size, local_size)
    theirs = _vllm_prefill_distances(seq_len, chunk_size, local_size, tables)
    np.testing.assert_array_equal(dual_chunk_distances(seq_len, chunk_size, local_size), theirs)


@pytest.mark.parametrize(("seq_len", "chunk_size", "local_size"), CASES)
def test_last_row_is_chunkllamas_decoding_step(seq_len, chunk_size, local_size):
    np.testing.assert_array_equal(
        dual_chunk_distances(seq_len, chunk_size, local_size)[-1],
        _chunkllama_decode_row(seq_len, chunk_size, local_size),
    )


def test_the_prefill_harness_notices_a_wrong_answer():
    tables = _vllm_tables(30, 10, 4)
    theirs = _vllm_prefill_distances(30, 10, 4, tables)
    # the paper's constant (c − 1 = 9 for c = chunk_size = 10) is not what vLLM runs
    assert not np.array_equal(dual_chunk_distances(30, 10, 4, pretraining_length=10), theirs)
    shifted = {**tables, "inter": tables["inter"] - 1}
    assert not np.array_equal(_vllm_prefill_distances(30, 10, 4, shifted), theirs)


# ---------------------------------------------------------------------------
# The paper
# ---------------------------------------------------------------------------

FIGURE_2 = [  # s = 6, c = 10, w = 4 (Eq. 2, 5, 7 and M[i][j])
    [0],
    [1, 0],
    [2, 1, 0],
    [3, 2, 1, 0],
    [4, 3, 2, 1, 0],
    [5, 4, 3, 2, 1, 0],
    [6, 5, 4, 3, 2, 1, 0],
    [7, 6, 5, 4, 3, 2, 1, 0],
    [8, 7, 6, 5, 4, 3, 2, 1, 0],
    [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
    [9, 8, 7, 6, 5, 4, 4, 3, 2, 1, 0],
    [9, 8, 7, 6, 5, 4, 5, 4, 3, 2, 1, 0],
]


def test_paper_figure_2():
    ours = dual_chunk_distances(12, 10, 4, pretraining_length=10)
    expected = np.zeros((12, 12), dtype=np.int64)
    for i, row in enumerate(FIGURE_2):
        expected[i, : len(row)] = row
    np.testing.assert_array_equal(ours, expected)
    assert ours.max() == 9  # "relative positions do not exceed 9"
    ids = dual_chunk_position_ids(12, 10, 4, pretraining_length=10)
    assert ids["successive"][6:].tolist() == [6, 7, 8, 9, 9, 9]  # the paper's P_q^Succ
    assert ids["inter"][6] - ids["key"][5] == 4  # q6 to k5 with inter-chunk attention only


def test_code_and_paper_differ_by_one_at_most():
    """With chunk_size = c the code's constant is c, the paper's c − 1."""
    code = dual_chunk_distances(40, 10, 4)
    paper = dual_chunk_distances(40, 10, 4, pretraining_length=10)
    assert set(np.unique(code - paper).tolist()) == {0, 1}
    assert code.max() == 10 and paper.max() == 9


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("pretraining_length", [None, 12])
@pytest.mark.parametrize(("seq_len", "chunk_size", "local_size"), CASES)
def test_causal_and_exact_up_to_the_local_window(
    seq_len, chunk_size, local_size, pretraining_length
):
    pretraining_length = pretraining_length and max(pretraining_length, chunk_size)
    distances = dual_chunk_distances(
        seq_len, chunk_size, local_size, pretraining_length=pretraining_length
    )
    d = np.arange(seq_len)[:, None] - np.arange(seq_len)[None, :]
    assert np.all(np.triu(distances, 1) == 0)
    near = (d >= 0) & (d <= min(local_size, chunk_size - local_size))
    np.testing.assert_array_equal(distances[near], d[near])
    same_chunk = (np.arange(seq_len)[:, None] // (chunk_size - local_size)) == (
        np.arange(seq_len)[None, :] // (chunk_size - local_size)
    )
    np.testing.assert_array_equal(distances[same_chunk & (d >= 0)], d[same_chunk & (d >= 0)])
    assert np.all(distances[d >= 0] >= 0)


@pytest.mark.parametrize("pretraining_length", [None, 10, 14])
@pytest.mark.parametrize(("seq_len", "chunk_size", "local_size"), CASES)
def test_largest_distance_is_the_matrix_maximum(
    seq_len, chunk_size, local_size, pretraining_length
):
    if pretraining_length is not None and pretraining_length < chunk_size:
        pretraining_length = chunk_size
    kwargs = {"pretraining_length": pretraining_length}
    largest = dual_chunk_largest_distance(seq_len, chunk_size, local_size, **kwargs)
    assert largest == dual_chunk_distances(seq_len, chunk_size, local_size, **kwargs).max()
    if pretraining_length is None:  # min(L − 1, 2 · chunk_len − 1, chunk_size)
        chunk_len = chunk_size - local_size
        assert largest == min(seq_len - 1, 2 * chunk_len - 1, chunk_size)


def test_qwen_1m_never_shows_more_than_its_chunk_size():
    for seq_len in (1000, 253_952, 253_953, 600_000, 1_010_000):
        largest = dual_chunk_largest_distance(seq_len, 262144, 8192)
        assert largest == min(seq_len - 1, 262144)


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="local_size must be < chunk_size"):
        dual_chunk_distances(8, 4, 4)
    with pytest.raises(ValueError, match="pretraining_length must be >= chunk_size"):
        dual_chunk_distances(8, 10, 4, pretraining_length=9)
    with pytest.raises(ValueError, match="seq_len"):
        dual_chunk_distances(4097, 10, 4)


# ---------------------------------------------------------------------------
# The config and the attention factor
# ---------------------------------------------------------------------------


def test_config_of_qwen_1m():
    dca = dual_chunk_config(QWEN)
    assert dca == {
        "chunk_size": 262144,
        "local_size": 8192,
        "chunk_len": 253952,
        "original_max_position_embeddings": 262144,
        "sparse_attention_enabled": False,
        "sparse_attention_threshold": 32768,
        "sparse_attention_last_q": 64,
    }


def test_config_defaults_are_vllms():
    dca = dual_chunk_config({})
    assert (dca["chunk_size"], dca["local_size"], dca["original_max_position_embeddings"]) == (
        8192,
        1024,
        0,
    )
    assert dual_chunk_config({"sparse_attention_config": [{}]})["sparse_attention_enabled"]
    assert not dual_chunk_config(
        {"sparse_attention_config": [{}], "sparse_attention_enabled": False}
    )["sparse_attention_enabled"]


@pytest.mark.parametrize(
    ("config", "error", "names"),
    [
        ("chunk_size=8192", TypeError, "config"),
        ({"chunk_size": True}, TypeError, "config['chunk_size']"),
        ({"chunk_size": "8192"}, TypeError, "config['chunk_size']"),
        ({"chunk_size": 8192.0}, TypeError, "config['chunk_size']"),
        ({"local_size": None}, TypeError, "config['local_size']"),
        ({"chunk_size": 1024, "local_size": 1024}, ValueError, "config['local_size']"),
        ({"local_size": -1}, ValueError, "config['local_size']"),
        ({"chunk_sise": 8192}, ValueError, "chunk_sise"),
        ({"original_max_position_embeddings": -5}, ValueError, "original_max_position"),
        ({"sparse_attention_enabled": "yes"}, TypeError, "config['sparse_attention_enabled']"),
        ({"sparse_attention_config": "heads"}, TypeError, "config['sparse_attention_config']"),
        ({"sparse_attention_last_q": 0}, ValueError, "config['sparse_attention_last_q']"),
    ],
)
def test_config_errors_name_the_key(config, error, names):
    with pytest.raises(error) as info:
        dual_chunk_config(config)
    assert names in str(info.value)


def test_attention_factor():
    # max(1, 0.1 ln(L / L_orig) + 1)
    assert dual_chunk_attention_factor(1_000_000, 262144) == pytest.approx(
        0.1 * math.log(1_000_000 / 262144) + 1
    )
    assert dual_chunk_attention_factor(262144, 262144) == 1.0
    assert dual_chunk_attention_factor(1000, 262144) == 1.0  # never below 1
    assert dual_chunk_attention_factor(10**9, 0) == 1.0  # no original length: no factor
    assert dual_chunk_attention_factor(int(262144 * math.e**10), 262144) == pytest.approx(2.0)
