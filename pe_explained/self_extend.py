"""Self-Extend: far keys seen through grouped positions, near keys through exact ones.

A RoPE model meets distances it never saw in training once a text outgrows its
pre-training length. Self-Extend (Jin et al., 2024, *LLM Maybe LongLM: Self-Extend LLM
Context Window Without Tuning*, arXiv:2401.01325) changes no weight: keys closer than a
*neighbour window* ``w`` keep their exact distance, and farther keys are seen through
positions floor-divided by a *group size* ``G``, shifted so that the two regions join::

    d < w:   D = d                                      d = i − j, query i, key j
    d >= w:  D = (i // G + w − w / G) − j // G          grouped query, grouped key

The grouped distance grows like ``d / G``, so a text of ``(L_pretrain − w) · G + w``
tokens shows no distance beyond ``L_pretrain`` (the rule of the authors' README).

Three codes compute this differently, and :func:`self_extend_distances` offers the
first two:

* ``"longlm"``, the authors' patches (``self_extend_patch/Llama.py``,
  ``self_extend_forward``): ``w − w / G`` in true division, a fractional shift when
  ``G`` does not divide ``w``;
* ``"paper"``, Algorithm 1 of the paper (``shift = w_size − w_size // g_size``), which
  the authors' flash-attention *decoding* path also uses: a whole shift;
* llama.cpp's ``--grp-attn-n G --grp-attn-w W`` (:func:`group_attention_distances`) does
  no neighbour attention at all: it floor-divides the positions of the cached keys in
  place, one block of ``W`` tokens at a time, so one set of positions serves every
  query and the tokens since the last block keep exact distances.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ._checks import check_choice, check_float, check_int, check_size

__all__ = [
    "self_extend_distances",
    "self_extend_largest_distance",
    "self_extend_max_length",
    "self_extend_group_size",
    "group_attention_distances",
    "group_attention_largest_distance",
    "group_attention_rotated_distances",
]

#: The two ways of shifting the grouped query positions (see the module docstring).
CONVENTIONS = ("longlm", "paper")
#: The most entries a distance matrix may have (2**24 float64 entries: 128 MiB), so a
#: sequence of at most 4,096 tokens; the largest-distance functions take any length.
MAX_ENTRIES = 2**24


def _shift(group_size: int, neighbor_window: int, convention: str) -> float:
    if convention == "longlm":
        return neighbor_window - neighbor_window / group_size  # w − w / G
    return float(neighbor_window - neighbor_window // group_size)  # w − w // G


def _self_extend_args(group_size, neighbor_window, convention):
    group_size = check_int("group_size", group_size, minimum=1)
    neighbor_window = check_int("neighbor_window", neighbor_window, minimum=1)
    convention = check_choice("convention", convention, CONVENTIONS)
    return group_size, neighbor_window, _shift(group_size, neighbor_window, convention)


def self_extend_distances(seq_len, group_size, neighbor_window, *, convention="longlm"):
    """The distance every query sees to every earlier key under Self-Extend.

    Parameters
    ----------
    seq_len : int
        Tokens in the sequence, >= 0; ``seq_len²`` entries at most 2**24.
    group_size : int
        ``G`` >= 1, the floor divisor of far positions (``group_size_1`` in the
        authors' code); 1 leaves every distance as it is.
    neighbor_window : int
        ``w`` >= 1, the distances kept exact (``group_size_2`` in the authors' code).
    convention : {"longlm", "paper"}, optional
        The shift of the grouped queries: ``w − w / G`` (the authors' patches,
        default) or ``w − w // G`` (the paper's Algorithm 1). Equal when ``G``
        divides ``w``.

    Returns
    -------
    ndarray of float64, shape (seq_len, seq_len)
        ``D[i, j]``, the distance RoPE sees from query ``i`` to key ``j <= i``; 0 above
        the diagonal, where causal attention masks the key.

    References
    ----------
    Jin et al. (2024), arXiv:2401.01325, Algorithm 1; datamllab/LongLM,
    ``self_extend_patch/Llama.py``, ``self_extend_forward`` (and
    ``flash_self_extend_forward``, whose decoding step uses ``w − w // G``).

    Examples
    --------
    >>> self_extend_distances(7, 2, 2)[-1].tolist()   # the last query's row
    [4.0, 4.0, 3.0, 3.0, 2.0, 1.0, 0.0]
    >>> self_extend_distances(7, 2, 3)[-1].tolist()   # G does not divide w
    [4.5, 4.5, 3.5, 3.5, 2.0, 1.0, 0.0]
    >>> self_extend_distances(7, 2, 3, convention="paper")[-1].tolist()
    [5.0, 5.0, 4.0, 4.0, 2.0, 1.0, 0.0]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    group_size, neighbor_window, shift = _self_extend_args(group_size, neighbor_window, convention)
    check_size("seq_len", seq_len**2, limit=MAX_ENTRIES, what="a distance matrix")
    i = np.arange(seq_len)[:, None]
    j = np.arange(seq_len)[None, :]
    d = i - j
    grouped = (i // group_size + shift) - j // group_size  # (i // G + w − w/G) − j // G
    distances = np.where(d < neighbor_window, d, grouped)  # exact inside the window
    return np.where(d >= 0, distances, 0).astype(np.float64)


def self_extend_largest_distance(seq_len, group_size, neighbor_window, *, convention="longlm"):
    """The largest distance Self-Extend shows over a sequence of ``seq_len`` tokens.

    The last query's grouped distance to key 0 once ``seq_len > w``::

        D_max = (seq_len − 1) // G + w − w / G        (w − w // G for "paper")

    and ``seq_len − 1`` while every key is a neighbour.

    Parameters
    ----------
    seq_len : int
        >= 1, any size (nothing is allocated).
    group_size, neighbor_window, convention
        As for :func:`self_extend_distances`.

    Returns
    -------
    float

    Examples
    --------
    The authors' README: 15,800 tokens, ``w = 1024``, ``G = 5`` stay within Llama 2's
    4,096 (their "positions 1,025 to 3,979" count ``15800 / 5``, not ``15799 // 5``).

    >>> self_extend_largest_distance(15800, 5, 1024)
    3978.2
    >>> self_extend_largest_distance(1000, 5, 1024)   # all neighbours
    999.0
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    group_size, neighbor_window, shift = _self_extend_args(group_size, neighbor_window, convention)
    if seq_len - 1 < neighbor_window:
        return float(seq_len - 1)
    return (seq_len - 1) // group_size + shift  # (L − 1) // G + w − w/G


def self_extend_max_length(pretraining_length, group_size, neighbor_window) -> int:
    """The longest text Self-Extend serves without a distance beyond the pre-training length.

    ``(L_pretrain − w) · G + w``, the authors' README rule ("the maximum extended
    window size"), the inverse of ``(L − w) / G + w <= L_pretrain``.

    Parameters
    ----------
    pretraining_length : int
        ``L_pretrain``, the context the model was trained on, > ``neighbor_window``.
    group_size : int
        ``G`` >= 1.
    neighbor_window : int
        ``w`` >= 1.

    Returns
    -------
    int

    References
    ----------
    Jin et al. (2024), arXiv:2401.01325; datamllab/LongLM ``README.md``, "How to
    choose the group_size and neighbor_window".

    Examples
    --------
    >>> self_extend_max_length(4096, 5, 1024)   # the README's example for Llama 2
    16384
    """
    pretraining_length = check_int("pretraining_length", pretraining_length, minimum=2)
    group_size = check_int("group_size", group_size, minimum=1)
    neighbor_window = check_int("neighbor_window", neighbor_window, minimum=1)
    if neighbor_window >= pretraining_length:
        raise ValueError(
            f"neighbor_window must be < pretraining_length ({pretraining_length}), "
            f"got {neighbor_window}"
        )
    return (pretraining_length - neighbor_window) * group_size + neighbor_window


def self_extend_group_size(
    target_length, pretraining_length, neighbor_window, *, usable_fraction=1.0
) -> tuple[int, float]:
    """The smallest group size that lets Self-Extend reach ``target_length``, and what it shows.

    The rule asks the grouped distances to stay within the trained ones::

        (L − w) / G + w <= f · L_pretrain      →      G = ⌈(L − w) / (f · L_pretrain − w)⌉

    with ``f = 1`` (the authors' README). It adds an empirical rule, ``f`` between 1/2 and
    2/3: distances near the end of the trained range are trained less, so a larger
    group that keeps to smaller distances often does better. Their advice on ``w``:
    512 to 1,536 for Llama 2 (4,096 tokens); ``w`` must be below ``f · L_pretrain``.

    Parameters
    ----------
    target_length : int
        ``L``, the text length to serve, >= 1.
    pretraining_length : int
        ``L_pretrain`` >= 2.
    neighbor_window : int
        ``w`` >= 1.
    usable_fraction : float, optional
        ``f`` in (0, 1]: the share of the trained distances to use (1, the paper's rule).

    Returns
    -------
    group_size : int
        The smallest ``G`` satisfying the rule (1 when ``L <= w``).
    largest_distance : float
        The largest distance it shows over ``target_length`` tokens,
        :func:`self_extend_largest_distance` (authors' convention).

    Examples
    --------
    The README's question: 15,800 tokens, ``w = 1024``, Llama 2.

    >>> self_extend_group_size(15800, 4096, 1024)
    (5, 3978.2)
    >>> group_size, largest = self_extend_group_size(15800, 4096, 1024, usable_fraction=2 / 3)
    >>> group_size, round(largest, 1)
    (9, 2665.2)
    """
    target_length = check_int("target_length", target_length, minimum=1)
    pretraining_length = check_int("pretraining_length", pretraining_length, minimum=2)
    neighbor_window = check_int("neighbor_window", neighbor_window, minimum=1)
    usable_fraction = check_float("usable_fraction", usable_fraction, greater_than=0.0, at_most=1.0)
    usable = Fraction(usable_fraction) * pretraining_length  # f · L_pretrain, exactly
    if neighbor_window >= usable:
        raise ValueError(
            f"neighbor_window must be < usable_fraction · pretraining_length "
            f"({float(usable):g}), got {neighbor_window}"
        )
    # G = ⌈(L − w) / (f · L_pretrain − w)⌉, at least 1
    group_size = max(1, math.ceil((target_length - neighbor_window) / (usable - neighbor_window)))
    return group_size, self_extend_largest_distance(target_length, group_size, neighbor_window)


# ---------------------------------------------------------------------------
# llama.cpp's group attention
# ---------------------------------------------------------------------------


def _group_attention_args(group_size, group_width, batch_size):
    group_size = check_int("group_size", group_size, minimum=1)
    group_width = check_int("group_width", group_width, minimum=1)
    batch_size = check_int("batch_size", batch_size, minimum=1)
    if group_width % group_size:
        raise ValueError(
            f"group_width must be a multiple of group_size ({group_size}), got {group_width}"
        )
    return group_size, group_width, batch_size


def group_attention_distances(seq_len, group_size, group_width, *, batch_size=1) -> np.ndarray:
    """The distances llama.cpp's group attention (its Self-Extend) shows, query by query.

    Before each batch is decoded, llama.cpp groups every complete block of
    ``W = group_width`` cached tokens not yet grouped: it floor-divides their positions
    by ``G = group_size`` in the cache and moves the later tokens back to follow them.
    With ``m`` blocks grouped (``g = m · W`` tokens), token ``k`` sits at::

        pos(k) = k // G                  for k <  g
        pos(k) = g / G + (k − g)         for k >= g         (W is a multiple of G)

    and ``m = N // W`` when the batch starts at token ``N``. A query is always past
    ``g``, so it keeps its exact distance to the ``< W + batch_size`` tokens since the
    last block, and sees every older key at a grouped position. Unlike
    :func:`self_extend_distances`, there is no sliding neighbour window and the query's
    own position is not grouped.

    Parameters
    ----------
    seq_len : int
        Tokens, >= 0; ``seq_len²`` entries at most 2**24.
    group_size : int
        ``G`` (``--grp-attn-n``) >= 1.
    group_width : int
        ``W`` (``--grp-attn-w``) >= 1, a multiple of ``G`` (llama.cpp asserts it).
    batch_size : int, optional
        Tokens decoded together (1: generation, one token at a time; a prompt goes in
        batches of ``--batch-size``); grouping happens only between batches.

    Returns
    -------
    ndarray of int64, shape (seq_len, seq_len)
        ``pos(i) − pos(j)`` in the cache as query ``i`` found it; 0 above the diagonal.

    References
    ----------
    ggml-org/llama.cpp ``tools/main/main.cpp``, ``main()``, the block "context extension
    via Self-Extend" (``llama_memory_seq_add``/``llama_memory_seq_div``, formerly
    ``llama_kv_cache_seq_add``/``_div``); ``src/llama-kv-cells.h``, ``pos_div`` (C
    integer division of the position).

    Examples
    --------
    >>> group_attention_distances(9, 2, 4)[-1].tolist()   # two blocks grouped
    [4, 4, 3, 3, 2, 2, 1, 1, 0]
    >>> group_attention_distances(9, 2, 4)[7].tolist()    # one block grouped
    [5, 5, 4, 4, 3, 2, 1, 0, 0]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    group_size, group_width, batch_size = _group_attention_args(group_size, group_width, batch_size)
    check_size("seq_len", seq_len**2, limit=MAX_ENTRIES, what="a distance matrix")
    i = np.arange(seq_len, dtype=np.int64)[:, None]
    j = np.arange(seq_len, dtype=np.int64)[None, :]
    grouped = ((i // batch_size) * batch_size // group_width) * group_width  # g = m · W
    base = grouped // group_size  # g / G: where the ungrouped tail starts
    query = base + (i - grouped)  # pos(i) = g / G + (i − g)
    key = np.where(j < grouped, j // group_size, base + (j - grouped))
    return np.where(j <= i, query - key, 0)


def group_attention_largest_distance(seq_len, group_size, group_width, *, batch_size=1) -> int:
    """The largest distance llama.cpp's group attention shows over ``seq_len`` tokens.

    A query's farthest key is token 0, at distance ``pos(i) = i − m · W · (G − 1) / G``;
    it grows within a run of queries that share ``m`` and drops when another block is
    grouped, so the largest is at the end of one of those runs.

    Parameters
    ----------
    seq_len : int
        >= 1; at most 2**24 blocks (``seq_len / group_width``).
    group_size, group_width, batch_size
        As for :func:`group_attention_distances`.

    Returns
    -------
    int

    Examples
    --------
    >>> group_attention_largest_distance(9, 2, 4)   # query 7, before its block is grouped
    5
    >>> group_attention_largest_distance(16384, 4, 512)   # 511 + 31 · 128
    4479
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    group_size, group_width, batch_size = _group_attention_args(group_size, group_width, batch_size)
    last_start = (seq_len - 1) // batch_size * batch_size  # the last batch's first token
    blocks = last_start // group_width + 1  # m = 0 … M
    check_size("seq_len / group_width", blocks, limit=MAX_ENTRIES, what="block counts")
    m = np.arange(blocks, dtype=np.int64)
    # the last query with m blocks grouped: one before the first batch that groups more
    next_start = -(-(m + 1) * group_width // batch_size) * batch_size  # B · ⌈(m + 1) W / B⌉
    last = np.minimum(next_start, seq_len) - 1
    grouped = m * group_width
    # pos(i) − pos(0) = g / G + (i − g)
    return int((grouped // group_size + last - grouped).max())


def _seq_add(cell, turn, p0, p1, delta) -> None:
    """``llama_memory_seq_add``: cells in [p0, p1) move by ``delta``; ``pos_add`` records
    ``shift += d``, so their keys turn by ``delta`` too."""
    moved = (cell >= p0) & (cell < p1)
    cell[moved] += delta
    turn[moved] += delta


def _seq_div(cell, turn, p0, p1, d) -> None:
    """``llama_memory_seq_div``: cells in [p0, p1) go to ``p // d``; ``pos_div`` records
    ``shift += p_old − p_new``, so their keys turn by ``p − p // d``, the other way."""
    moved = (cell >= p0) & (cell < p1)
    old = cell[moved]
    cell[moved] = old // d
    turn[moved] += old - old // d


def group_attention_rotated_distances(
    seq_len, group_size, group_width, *, batch_size=1
) -> np.ndarray:
    """The distances llama.cpp's group attention *rotates* its cached keys to, query by query.

    :func:`group_attention_distances` gives the positions the cache cells hold, which is
    what group attention intends. The keys themselves are turned by the K-shift that runs
    before the next batch, by each cell's accumulated shift; since the refactor into
    ``src/llama-kv-cells.h``, ``pos_add`` records ``shift += d`` (new − old) but
    ``pos_div`` records ``shift += p_old − p_new`` (old − new), so a key at cell
    position ``p`` divided by ``G`` is rotated to ``2p − p // G`` while its cell says
    ``p // G``. This function replays ``llama-completion``'s group-attention loop on
    the cache as that code does it — ``seq_add`` moves a cell and its rotation by
    ``d``, ``seq_div`` moves the cell to ``p // G`` and its rotation by ``p − p // G``
    — and returns, for each query ``i`` (rotated at its own cell position), its cell
    position minus each earlier key's rotation. Measured on llama.cpp 0c1e57098 (the
    keys of a one-layer model after ``llama_memory_seq_div``, against transformers at
    those positions): chapter 26 and ``docs/data/runtimes/llama_cpp.json``.

    Parameters
    ----------
    seq_len, group_size, group_width, batch_size
        As for :func:`group_attention_distances`.

    Returns
    -------
    ndarray of int64, shape (seq_len, seq_len)
        Query ``i``'s position minus the position key ``j``'s rotation encodes; 0 above
        the diagonal. Negative where a key is rotated past its query.

    References
    ----------
    ggml-org/llama.cpp 0c1e57098: ``tools/completion/completion.cpp``, ``main()``, the
    block "context extension via Self-Extend"; ``src/llama-kv-cells.h``, ``pos_add`` and
    ``pos_div``; ``src/llama-kv-cache.cpp``, ``build_graph_shift`` (the K-shift).

    Examples
    --------
    >>> group_attention_distances(9, 2, 4)[8].tolist()            # the cells
    [4, 4, 3, 3, 2, 2, 1, 1, 0]
    >>> group_attention_rotated_distances(9, 2, 4)[8].tolist()    # the rotations
    [4, 2, 1, -1, -2, -4, -5, -7, 0]
    """
    seq_len = check_int("seq_len", seq_len, minimum=0)
    group_size, group_width, batch_size = _group_attention_args(group_size, group_width, batch_size)
    check_size("seq_len", seq_len**2, limit=MAX_ENTRIES, what="a distance matrix")
    cell = np.zeros(seq_len, dtype=np.int64)  # the position each cached cell holds
    turn = np.zeros(seq_len, dtype=np.int64)  # the position its key is rotated to
    out = np.zeros((seq_len, seq_len), dtype=np.int64)
    n_past = ga_i = 0
    g, w = group_size, group_width
    for start in range(0, seq_len, batch_size):
        cached = (cell[:start], turn[:start])  # views: the cells already in the cache
        while n_past >= ga_i + w:  # completion.cpp, before each batch
            ib = (g * ga_i) // w
            bd = (w // g) * (g - 1)
            dd = (w // g) - ib * bd - w
            _seq_add(*cached, ga_i, n_past, ib * bd)
            _seq_div(*cached, ga_i + ib * bd, ga_i + ib * bd + w, g)
            _seq_add(*cached, ga_i + ib * bd + w, n_past + ib * bd, dd)
            n_past -= bd
            ga_i += w // g
        stop = min(start + batch_size, seq_len)
        cell[start:stop] = turn[start:stop] = n_past + np.arange(stop - start)
        n_past += stop - start
        for i in range(start, stop):  # the K-shift has run: keys at their rotations
            out[i, : i + 1] = cell[i] - turn[: i + 1]
    return out
