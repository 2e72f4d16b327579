"""StreamingLLM: attention sinks plus a window of recent tokens, and the positions they get.

A model reading an endless stream cannot keep every key. StreamingLLM (Xiao et al.,
2024, *Efficient Streaming Language Models with Attention Sinks*, arXiv:2309.17453)
keeps the first ``n_sink`` tokens, which collect a large share of attention whatever
they say (the *attention sinks*, section 3.1; four suffice), and the ``window`` most
recent ones, the current token included (section 3.2, Figure 4). Everything between
is evicted.

Which positions do the kept tokens get? Two schemes:

* ``"cache"`` — positions within the cache, ``0 … n_kept − 1``, the paper's choice
  (section 3.2: with tokens ``[0, 1, 2, 3, 6, 7, 8]`` cached and token 9 being
  decoded, the positions are ``[0, …, 7]``, not ``[0, 1, 2, 3, 6, 7, 8, 9]``). No
  distance ever exceeds ``n_sink + window − 1``, so a model never meets a distance
  longer than those it was trained on, however long the stream.
* ``"original"`` — the positions in the stream. The distance from the current token
  to the sinks grows with the stream and soon passes the trained length.

The paper caches keys before rotation and rotates the cache at every step; a cache
of rotated keys reaches the same positions by shifting: at every step past
``n_sink + window`` tokens the window's keys move back by one (``Δ = −1``) and the
sinks stay (``Δ = 0``), :func:`~pe_explained.shift_rotated_keys` with one shift per
row.

A *learned* sink is another thing under a similar name (:func:`learned_sink_weights`):
gpt-oss gives every head one trained logit that joins the softmax's denominator and
takes a share of the attention, with no key, no value and no position behind it.
Nothing of it is cached, evicted or shifted.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_choice, check_float, check_int, check_size

__all__ = ["streaming_positions", "streaming_distances", "learned_sink_weights"]

#: How positions are assigned to the kept tokens (see the module docstring).
MODES = ("cache", "original")
#: The most kept tokens :func:`streaming_positions` lists, and the most entries of the
#: distance matrix :func:`streaming_distances` builds (2**24 int64 entries: 128 MiB).
MAX_ENTRIES = 2**24


def _kept(total, n_sink, window, mode) -> tuple[np.ndarray, np.ndarray]:
    total = check_int("total", total, minimum=0)
    n_sink = check_int("n_sink", n_sink, minimum=0)
    window = check_int("window", window, minimum=1)
    mode = check_choice("mode", mode, MODES)
    n_kept = min(total, n_sink + window)
    check_size("n_sink + window", n_kept, limit=MAX_ENTRIES, what="a cache")
    if total <= n_sink + window:  # nothing evicted yet
        kept = np.arange(total, dtype=np.int64)
    else:  # the sinks 0 … n_sink − 1, then the last `window` tokens
        kept = np.concatenate([np.arange(n_sink), np.arange(total - window, total)])
    # "cache": 0 … n_kept − 1 in cache order; "original": the index in the stream
    positions = np.arange(n_kept, dtype=np.int64) if mode == "cache" else kept.copy()
    return kept.astype(np.int64), positions


def streaming_positions(total, n_sink, window, *, mode="cache") -> tuple[np.ndarray, np.ndarray]:
    """The tokens StreamingLLM keeps after ``total`` tokens, and the position each one gets.

    Parameters
    ----------
    total : int
        Tokens seen so far, the current one included (tokens ``0 … total − 1``); >= 0.
    n_sink : int
        Attention sinks: the first tokens, kept for ever (4 in the paper); >= 0.
    window : int
        Recent tokens kept, the current one included; >= 1. The reference code's
        ``StartRecentKVCache(start_size, recent_size)`` keeps ``recent_size`` tokens
        before the current one joins, so ``window = recent_size + 1``.
    mode : {"cache", "original"}, optional
        ``"cache"``: positions within the cache, ``0 … n_kept − 1`` (the paper's);
        ``"original"``: the tokens' indices in the stream.

    Returns
    -------
    kept : ndarray of int64, shape (n_kept,)
        Indices in the stream of the kept tokens, in cache order;
        ``n_kept = min(total, n_sink + window)``.
    positions : ndarray of int64, shape (n_kept,)
        The position each kept token is given.

    References
    ----------
    Xiao et al. (2024), arXiv:2309.17453, section 3.2 and Figure 4.

    Examples
    --------
    The paper's example: four sinks, token 9 being decoded with three more kept.

    >>> kept, cache = streaming_positions(10, 4, 4)
    >>> kept.tolist(), cache.tolist()
    ([0, 1, 2, 3, 6, 7, 8, 9], [0, 1, 2, 3, 4, 5, 6, 7])
    >>> streaming_positions(10, 4, 4, mode="original")[1].tolist()
    [0, 1, 2, 3, 6, 7, 8, 9]
    """
    return _kept(total, n_sink, window, mode)


def streaming_distances(total, n_sink, window, *, mode="cache") -> np.ndarray:
    """The query–key distances among the kept tokens under one of StreamingLLM's schemes.

    ``distances[i, j] = positions[i] − positions[j]`` for the kept tokens of
    :func:`streaming_positions`, in cache order: the last row is what the current
    token's query sees. Causal attention uses the entries with ``j <= i``; RoPE's and
    ALiBi's scores depend on these numbers alone.

    Parameters
    ----------
    total, n_sink, window, mode
        As for :func:`streaming_positions`; ``(n_sink + window)²`` entries at most
        2**24.

    Returns
    -------
    ndarray of int64, shape (n_kept, n_kept)
        With ``"cache"`` the largest entry is ``n_kept − 1`` whatever ``total``; with
        ``"original"`` it is ``total − 1``, the distance from the current token to
        token 0.

    Examples
    --------
    >>> streaming_distances(10, 4, 4)[-1].tolist()  # the current token's row
    [7, 6, 5, 4, 3, 2, 1, 0]
    >>> streaming_distances(10, 4, 4, mode="original")[-1].tolist()
    [9, 8, 7, 6, 3, 2, 1, 0]
    """
    total = check_int("total", total, minimum=0)
    n_sink = check_int("n_sink", n_sink, minimum=0)
    window = check_int("window", window, minimum=1)
    n_kept = min(total, n_sink + window)
    check_size("n_sink + window", n_kept**2, limit=MAX_ENTRIES, what="a distance matrix")
    _, positions = _kept(total, n_sink, window, mode)
    return positions[:, None] - positions[None, :]  # q_pos − k_pos


def learned_sink_weights(scores, sink_logit) -> tuple[np.ndarray, np.ndarray]:
    """Attention weights of one head with a learned sink logit, and the share the sink takes.

    gpt-oss appends one trained logit ``b`` per head to every row of scores before the
    softmax and drops its column afterwards, so the keys' weights add up to less than
    one::

        w_j = exp(s_j) / (exp(b) + Σ_l exp(s_l)),     sink = exp(b) / (exp(b) + Σ_l exp(s_l))

    The sink is a logit, not a token: it has no key, no value (it adds nothing to the
    head's output) and no position, so a cache holds nothing for it and nothing about
    it changes when tokens are evicted or shifted. A row whose every key is masked
    (``−inf``) gives all of its weight to the sink, and the head outputs zero.

    Parameters
    ----------
    scores : array_like, shape (..., n_keys)
        The head's scores (after the ``1/√d_k`` scale and any mask); ``−inf`` marks a
        masked key, NaN and ``+inf`` are refused.
    sink_logit : float
        The head's sink logit ``b`` (gpt-oss's ``sinks`` parameter, one per head).

    Returns
    -------
    weights : ndarray of float64, same shape as ``scores``
        ``w_j`` for every key.
    sink : ndarray of float64, shape ``scores.shape[:-1]``
        The share of each row the sink took; ``weights.sum(-1) + sink`` is 1.

    References
    ----------
    transformers 5.23, ``models/gpt_oss/modeling_gpt_oss.py``: the ``sinks`` parameter
    of ``GptOssAttention`` and ``eager_attention_forward`` (the sinks concatenated to
    the scores, the row maximum subtracted, softmax, the last column dropped). OpenAI
    (2025), gpt-oss-120b & gpt-oss-20b Model Card, arXiv:2508.10925.

    Examples
    --------
    Four keys of equal score and a sink logit of ln 4: the sink takes half.

    >>> weights, sink = learned_sink_weights(np.zeros(4), np.log(4.0))
    >>> weights.tolist(), float(sink)
    ([0.125, 0.125, 0.125, 0.125], 0.5)
    >>> learned_sink_weights([-np.inf, -np.inf], 0.0)[1].tolist()  # nothing to attend to
    1.0
    """
    scores = check_array("scores", scores, ndim=range(1, 65), rule="at least 1-D", finite=False)
    if np.isnan(scores).any():
        raise ValueError("scores must not contain NaN")
    if np.isposinf(scores).any():
        raise ValueError("scores must not contain +inf (-inf marks a masked key)")
    sink_logit = check_float("sink_logit", sink_logit)
    top = np.maximum(scores.max(axis=-1, initial=-np.inf), sink_logit)  # finite: b is
    keys = np.exp(scores - top[..., None])  # exp(s_j − top); exp(−inf) = 0 for a masked key
    sink = np.exp(sink_logit - top)  # exp(b − top)
    total = keys.sum(axis=-1) + sink  # exp(b) + Σ exp(s_l), both divided by exp(top)
    return keys / total[..., None], sink / total
