"""Dual Chunk Attention (DCA): positions that restart in every chunk, and three query sets.

DCA (An et al., 2024, *Training-Free Long-Context Scaling of Large Language Models*,
arXiv:2402.17463, ChunkLlama) cuts the sequence into chunks of ``s`` tokens and gives
every key its position *within* its chunk, ``j mod s``. A query then attends with one
of three positions, chosen by how far back the key's chunk is (section 3, Eq. 2–7)::

    same chunk (intra):           P_q = i mod s                       D = i − j, exact
    previous chunk (successive):  P_q = s + (i mod s) for the first w tokens of a chunk,
                                        a large constant after them
    older chunks (inter):         P_q = that large constant

so no distance exceeds about the chunk size plus the local window ``w``, however long
the text, while the ``w`` nearest keys across a chunk border keep their exact distance.

The paper's constant is ``c − 1``, the largest position of pre-training (``c`` tokens),
and it calls ``s`` the chunk size. The code that models ran — ChunkLlama's
``chunkllama_attn_replace.py`` and vLLM's ``DualChunkRotaryEmbedding`` (read at commit
07b1349), which served Qwen2.5-1M with the ``DUAL_CHUNK_FLASH_ATTN`` attention backend
of vLLM's V0 engine, up to vLLM 0.10 (the backend left with that engine in 0.11.0, and
no backend of vLLM 0.33.0 runs Dual Chunk Attention) — takes ``chunk_size`` and
``local_size`` from ``dual_chunk_attention_config`` and cuts chunks of ``chunk_len =
chunk_size − local_size`` tokens; its constant is ``chunk_size`` itself. With
``chunk_size = c``, as ChunkLlama's vLLM instructions and Qwen2.5-1M's config set it,
the code shows one distance more than the paper, ``c`` instead of ``c − 1``. The
functions here follow the code and take the paper's constant with
``pretraining_length=c``. (The paper sets ``s`` to 3/4 of ``c``, 3,072 for Llama 2,
section 4.1; ChunkLlama's own patch, ``replace_with_chunkllama``, sets ``chunk_size =
3c/4`` and ``local_size = c/8``, so its chunks hold ``5c/8`` tokens.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from ._checks import check_bool, check_config_int, check_int, check_optional, check_size

__all__ = [
    "dual_chunk_position_ids",
    "dual_chunk_distances",
    "dual_chunk_largest_distance",
    "dual_chunk_config",
    "dual_chunk_attention_factor",
]

#: The most entries :func:`dual_chunk_distances` builds (2**24 int64: 128 MiB, 4,096
#: tokens) and the most tokens :func:`dual_chunk_position_ids` lists.
MAX_ENTRIES = 2**24
#: Keys of ``dual_chunk_attention_config`` vLLM reads, and its defaults.
CONFIG_DEFAULTS = {
    "chunk_size": 8192,
    "local_size": 1024,
    "original_max_position_embeddings": 0,
    "sparse_attention_config": None,
    "sparse_attention_enabled": None,  # default: a sparse_attention_config is given
    "sparse_attention_threshold": 32768,
    "sparse_attention_last_q": 64,
}


def _chunk_args(chunk_size, local_size, pretraining_length):
    chunk_size = check_int("chunk_size", chunk_size, minimum=1)
    local_size = check_int("local_size", local_size, minimum=0)
    if local_size >= chunk_size:
        raise ValueError(
            f"local_size must be < chunk_size ({chunk_size}): chunks hold "
            f"chunk_size − local_size tokens, got local_size {local_size}"
        )
    pretraining_length = check_optional(check_int, "pretraining_length", pretraining_length)
    if pretraining_length is not None and pretraining_length < chunk_size:
        raise ValueError(
            f"pretraining_length must be >= chunk_size ({chunk_size}) so that c − 1 is "
            f"past every chunk position, got {pretraining_length}"
        )
    return chunk_size, local_size, pretraining_length


def _query_positions(offset, chunk_size, local_size, pretraining_length):
    """The successive and inter query positions for offsets ``i mod chunk_len``."""
    chunk_len = chunk_size - local_size
    if pretraining_length is None:  # the code: vLLM, ChunkLlama
        # qc_t = min(t + chunk_len, chunk_size); inter = qc_t at t = chunk_len − 1
        successive = np.minimum(offset + chunk_len, chunk_size)
        inter = min(2 * chunk_len - 1, chunk_size)
    else:  # the paper: [s, s + 1, …, s + w − 1, c − 1, …] (Eq. 7), c − 1 (Eq. 5)
        successive = np.where(offset < local_size, chunk_len + offset, pretraining_length - 1)
        inter = pretraining_length - 1
    return successive, inter


def dual_chunk_position_ids(
    seq_len, chunk_size, local_size, *, pretraining_length=None
) -> dict[str, np.ndarray]:
    """The position ids DCA gives every token as a key and, three ways, as a query.

    Parameters
    ----------
    seq_len : int
        Tokens, >= 0; at most 2**24.
    chunk_size : int
        ``chunk_size`` of ``dual_chunk_attention_config``; chunks hold
        ``chunk_len = chunk_size − local_size`` tokens (the paper's ``s``).
    local_size : int
        ``w`` >= 0, the tokens at the start of a chunk that see the previous chunk at
        their exact distance; < ``chunk_size``.
    pretraining_length : int, optional
        ``c`` >= ``chunk_size``: use the paper's constant ``c − 1`` for distant queries.
        By default the code's: ``chunk_size`` (or ``2 · chunk_len − 1`` if smaller).

    Returns
    -------
    dict of ndarray of int64, shape (seq_len,)
        ``"key"``: ``j mod chunk_len``; ``"intra"``, ``"successive"``, ``"inter"``:
        the query positions for keys in the same chunk, the previous one, and older
        ones (vLLM's ``query``, ``query_succ`` and ``query_inter``).

    References
    ----------
    An et al. (2024), arXiv:2402.17463, section 3, Eq. 2, 5 and 7;
    vLLM ``vllm/model_executor/layers/rotary_embedding/dual_chunk_rope.py``,
    ``DualChunkRotaryEmbedding._compute_cos_sin_cache`` and ``forward_native``;
    HKUNLP/ChunkLlama ``chunkllama_attn_replace.py``, ``ChunkLlamaRotaryEmbedding``.

    Examples
    --------
    The paper's Figure 2: chunks of ``s = 6``, ``w = 4``, ``c = 10``.

    >>> ids = dual_chunk_position_ids(12, 10, 4, pretraining_length=10)
    >>> ids["key"].tolist()
    [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
    >>> ids["successive"][6:].tolist(), int(ids["inter"][0])
    ([6, 7, 8, 9, 9, 9], 9)
    >>> dual_chunk_position_ids(12, 10, 4)["successive"][6:].tolist()   # the code's
    [6, 7, 8, 9, 10, 10]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    args = _chunk_args(chunk_size, local_size, pretraining_length)
    check_size("seq_len", seq_len, limit=MAX_ENTRIES, what="position ids")
    return _position_ids(seq_len, *args)


def _position_ids(seq_len, chunk_size, local_size, pretraining_length) -> dict[str, np.ndarray]:
    offset = np.arange(seq_len, dtype=np.int64) % (chunk_size - local_size)  # i mod s
    successive, inter = _query_positions(offset, chunk_size, local_size, pretraining_length)
    return {
        "key": offset,
        "intra": offset.copy(),
        "successive": successive.astype(np.int64),
        "inter": np.full(seq_len, inter, dtype=np.int64),
    }


def dual_chunk_distances(seq_len, chunk_size, local_size, *, pretraining_length=None):
    """The distance DCA shows from every query to every earlier key.

    With ``n = ⌊i/s⌋ − ⌊j/s⌋`` chunks between them (the paper's ``M[i][j]``)::

        D[i, j] = P_intra[i] − P_k[j]        n = 0
                  P_succ[i]  − P_k[j]        n = 1
                  P_inter[i] − P_k[j]        n >= 2

    Every distance up to ``min(local_size, chunk_len)`` is exact.

    Parameters
    ----------
    seq_len : int
        Tokens, >= 0; ``seq_len²`` entries at most 2**24.
    chunk_size, local_size, pretraining_length
        As for :func:`dual_chunk_position_ids`.

    Returns
    -------
    ndarray of int64, shape (seq_len, seq_len)
        0 above the diagonal, where causal attention masks the key.

    Examples
    --------
    >>> dual_chunk_distances(12, 10, 4, pretraining_length=10)[-1].tolist()
    [9, 8, 7, 6, 5, 4, 5, 4, 3, 2, 1, 0]
    >>> dual_chunk_distances(13, 10, 4, pretraining_length=10)[-1].tolist()
    [9, 8, 7, 6, 5, 4, 6, 5, 4, 3, 2, 1, 0]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    args = _chunk_args(chunk_size, local_size, pretraining_length)
    check_size("seq_len", seq_len**2, limit=MAX_ENTRIES, what="a distance matrix")
    ids = _position_ids(seq_len, *args)
    chunk = np.arange(seq_len) // (args[0] - args[1])  # ⌊i / s⌋
    apart = chunk[:, None] - chunk[None, :]  # ⌊i/s⌋ − ⌊j/s⌋
    query = np.where(
        apart == 0,
        ids["intra"][:, None],
        np.where(apart == 1, ids["successive"][:, None], ids["inter"][:, None]),
    )
    causal = np.arange(seq_len)[None, :] <= np.arange(seq_len)[:, None]  # j <= i
    return np.where(causal, query - ids["key"][None, :], 0)  # P_q[i] − P_k[j]


def dual_chunk_largest_distance(seq_len, chunk_size, local_size, *, pretraining_length=None) -> int:
    """The largest distance DCA shows over ``seq_len`` tokens (any size; nothing allocated).

    The farthest key of a chunk is its first, at position 0, so the largest distance
    is the largest query position in use: ``min(seq_len − 1, 2 · chunk_len − 1,
    chunk_size)`` in the code, ``c − 1`` in the paper once a query reaches past the
    local window of the second chunk.

    Parameters
    ----------
    seq_len : int
        >= 1.
    chunk_size, local_size, pretraining_length
        As for :func:`dual_chunk_position_ids`.

    Returns
    -------
    int

    Examples
    --------
    Qwen2.5-1M's config (``chunk_size`` 262,144, ``local_size`` 8,192): a million
    tokens never show a distance past 262,144.

    >>> dual_chunk_largest_distance(1_010_000, 262144, 8192)
    262144
    >>> dual_chunk_largest_distance(12, 10, 4, pretraining_length=10)
    9
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    chunk_size, local_size, pretraining_length = _chunk_args(
        chunk_size, local_size, pretraining_length
    )
    chunk_len = chunk_size - local_size
    largest = min(seq_len, chunk_len) - 1  # intra: the first chunk
    if seq_len > chunk_len:  # successive: the second chunk's last query to key 0
        last = np.array([min(seq_len - 1 - chunk_len, chunk_len - 1)])
        successive, inter = _query_positions(last, chunk_size, local_size, pretraining_length)
        largest = max(largest, int(successive[0]))
        if seq_len > 2 * chunk_len:  # inter: any query of the third chunk on, to key 0
            largest = max(largest, int(inter))
    return largest


def dual_chunk_config(config) -> dict:
    """Read and check a ``dual_chunk_attention_config`` as vLLM's DCA backend did (V0
    engine, up to vLLM 0.10), defaults filled in.

    Parameters
    ----------
    config : dict
        The model config's ``dual_chunk_attention_config``. Keys: ``chunk_size``
        (default 8192) > ``local_size`` (default 1024) >= 0;
        ``original_max_position_embeddings`` >= 0 (default 0: no attention factor,
        :func:`dual_chunk_attention_factor`); and the sparse-attention keys
        ``sparse_attention_config`` (a list, one entry per layer),
        ``sparse_attention_enabled`` (default: whether that list is given),
        ``sparse_attention_threshold`` >= 0 (default 32768),
        ``sparse_attention_last_q`` >= 1 (default 64). Any other key is an error.

    Returns
    -------
    dict
        ``chunk_size``, ``local_size``, ``chunk_len`` (``chunk_size − local_size``,
        the tokens of a chunk), ``original_max_position_embeddings``,
        ``sparse_attention_enabled``, ``sparse_attention_threshold``,
        ``sparse_attention_last_q`` (the per-head sparse patterns, which move no
        position, are left out).

    References
    ----------
    vLLM ``vllm/attention/backends/dual_chunk_flash_attn.py``,
    ``DualChunkFlashAttentionImpl.__init__`` and
    ``DualChunkFlashAttentionMetadataBuilder.build`` (the keys and defaults).

    Examples
    --------
    Qwen2.5-14B-Instruct-1M's ``config.json``:

    >>> dca = dual_chunk_config(
    ...     {"chunk_size": 262144, "local_size": 8192, "original_max_position_embeddings": 262144}
    ... )
    >>> dca["chunk_len"], dca["sparse_attention_enabled"]
    (253952, False)
    """
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a dict (a dual_chunk_attention_config), got {type(config).__name__}"
        )
    unknown = sorted(str(key) for key in config if key not in CONFIG_DEFAULTS)
    if unknown:
        raise ValueError(
            f"config has unknown key(s) {unknown}; dual_chunk_attention_config takes "
            f"{sorted(CONFIG_DEFAULTS)}"
        )
    values = {**CONFIG_DEFAULTS, **config}

    def key_int(key, minimum):
        return check_config_int(f"config[{key!r}]", values[key], "length", minimum=minimum)

    chunk_size = key_int("chunk_size", 1)
    local_size = key_int("local_size", 0)
    if local_size >= chunk_size:
        raise ValueError(
            f"config['local_size'] must be < config['chunk_size'] ({chunk_size}), got {local_size}"
        )
    sparse_patterns = values["sparse_attention_config"]
    if sparse_patterns is not None and not isinstance(sparse_patterns, (list, tuple)):
        raise TypeError(
            "config['sparse_attention_config'] must be a list (one entry per layer), "
            f"got {type(sparse_patterns).__name__}"
        )
    enabled = values["sparse_attention_enabled"]
    enabled = sparse_patterns is not None if enabled is None else enabled
    return {
        "chunk_size": chunk_size,
        "local_size": local_size,
        "chunk_len": chunk_size - local_size,
        "original_max_position_embeddings": key_int("original_max_position_embeddings", 0),
        "sparse_attention_enabled": check_bool("config['sparse_attention_enabled']", enabled),
        "sparse_attention_threshold": key_int("sparse_attention_threshold", 0),
        "sparse_attention_last_q": key_int("sparse_attention_last_q", 1),
    }


def dual_chunk_attention_factor(seq_len, original_max_position_embeddings) -> float:
    """The factor vLLM's DCA backend (V0 engine, up to 0.10) multiplied queries and keys
    by for a long sequence.

    ::

        f = max(1, 0.1 · ln(seq_len / original_max_position_embeddings) + 1)

    and 1 when ``original_max_position_embeddings`` is 0 (left out of the config). The
    keys are scaled before they are cached and the queries (the softmax scale, in
    prefill) by the same ``f``, so the logits grow by ``f²``: YaRN's attention
    factor, computed from the sequence's own length.

    Parameters
    ----------
    seq_len : int
        The sequence's length (vLLM: the longer of prompt and sequence), >= 1.
    original_max_position_embeddings : int
        From ``dual_chunk_attention_config``, >= 0.

    Returns
    -------
    float

    References
    ----------
    vLLM ``vllm/attention/backends/dual_chunk_flash_attn.py``,
    ``DualChunkFlashAttentionMetadata.prefill_metadata`` and ``decode_metadata``
    (``scaling_factor``).

    Examples
    --------
    >>> round(dual_chunk_attention_factor(1_000_000, 262144), 4)
    1.1339
    >>> dual_chunk_attention_factor(100_000, 262144)
    1.0
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    original = check_int(
        "original_max_position_embeddings", original_max_position_embeddings, minimum=0
    )
    if original == 0:
        return 1.0
    return max(1.0, 0.1 * math.log(seq_len / original) + 1.0)  # max(1, 0.1 ln(L / L_orig) + 1)
