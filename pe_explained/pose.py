"""PoSE: training on a short window whose position ids skip ahead, to reach a longer one.

Positional Skip-wisE training (Zhu et al., 2024, *PoSE: Efficient Context Window
Extension of LLMs via Positional Skip-wise Training*, ICLR 2024, arXiv:2309.10400)
fine-tunes on windows of ``L_c`` tokens but gives them position ids spread over a
target length ``L_t``. The window is cut into ``N`` chunks of lengths ``l_0 … l_{N−1}``;
chunk ``i`` keeps consecutive ids, moved forward by a *skipping bias* ``u_i``
(section 3.2, Eq. 3–4)::

    PoSE(c_i) = {u_i + st_i, …, u_i + st_i + l_i − 1},     st_i = l_0 + … + l_{i−1}
    u_0 = 0,   u_i ~ U{u_{i−1}, …, L_t − L_c}

so the ids increase, stay below ``L_t``, and a fresh draw for every example exposes
the model to every relative distance up to ``L_t − 1``. The paper uses ``N = 2``.

The reference code (``src/train_pose.py``, ``train_preprocess_function_pose``) draws
the first chunk's length uniformly from ``1 … ⌈L_c / 2⌉`` and ``u_1`` from
``0 … L_t − L_c``; :func:`pose_position_ids` does the same for two chunks. For more
chunks, which the paper leaves as "randomly divide", it draws the ``N − 1`` cut points
uniformly without replacement from ``1 … L_c − 1``, so every chunk holds a token.
The text of each chunk is chosen separately (the paper's ``v_i``); only the ids are
drawn here.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_bool, check_generator, check_int, check_size

__all__ = ["pose_position_ids"]

#: The longest training window :func:`pose_position_ids` draws ids for (2**24 tokens).
MAX_TOKENS = 2**24


def pose_position_ids(train_length, target_length, rng, *, num_chunks=2, return_chunk_starts=False):
    """Draw one training example's PoSE position ids.

    Parameters
    ----------
    train_length : int
        ``L_c`` >= 1, the tokens of the training window (at most 2**24).
    target_length : int
        ``L_t`` >= ``train_length``, the context the ids should span.
    rng : numpy.random.Generator
        The source of randomness (``numpy.random.default_rng(seed)``), advanced by the
        draw.
    num_chunks : int, optional
        ``N``, from 1 to ``train_length``; 2 (default) follows the reference code.
    return_chunk_starts : bool, optional
        Also return where each chunk starts in the window.

    Returns
    -------
    position_ids : ndarray of int64, shape (train_length,)
        Increasing, in ``0 … target_length − 1``, consecutive within a chunk.
    chunk_starts : ndarray of int64, shape (num_chunks,)
        Only with ``return_chunk_starts``: ``st_i``, the first index of each chunk
        (``st_0 = 0``).

    References
    ----------
    Zhu et al. (2024), arXiv:2309.10400, section 3.2; dwzhu-pku/PoSE
    ``src/train_pose.py``, ``train_preprocess_function_pose``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> ids, starts = pose_position_ids(8, 32, rng, return_chunk_starts=True)
    >>> ids.tolist(), starts.tolist()
    ([0, 1, 2, 3, 19, 20, 21, 22], [0, 4])
    """
    train_length = check_int("train_length", train_length, minimum=1)
    target_length = check_int("target_length", target_length, minimum=1)
    if target_length < train_length:
        raise ValueError(
            f"target_length must be >= train_length ({train_length}), got {target_length}"
        )
    rng = check_generator("rng", rng)
    num_chunks = check_int("num_chunks", num_chunks, minimum=1)
    if num_chunks > train_length:
        raise ValueError(
            f"num_chunks must be <= train_length ({train_length}): every chunk holds a "
            f"token, got {num_chunks}"
        )
    return_chunk_starts = check_bool("return_chunk_starts", return_chunk_starts)
    check_size("train_length", train_length, limit=MAX_TOKENS, what="position ids")
    if num_chunks == 2:  # the reference code: l_0 ~ U{1, …, ⌈L_c / 2⌉}
        cuts = np.array([rng.integers(1, (train_length + 1) // 2, endpoint=True)])
    else:  # N − 1 distinct cut points in 1 … L_c − 1
        cuts = np.sort(rng.choice(np.arange(1, train_length), num_chunks - 1, replace=False))
    starts = np.concatenate([[0], cuts]).astype(np.int64)  # st_i
    room = target_length - train_length  # L_t − L_c
    biases = np.zeros(num_chunks, dtype=np.int64)  # u_0 = 0
    for chunk in range(1, num_chunks):
        biases[chunk] = rng.integers(biases[chunk - 1], room, endpoint=True)  # U{u_{i−1}, …}
    lengths = np.diff(np.append(starts, train_length))  # l_i
    # PoSE(c_i) = {u_i + st_i, …, u_i + st_i + l_i − 1}: index + u of its chunk
    ids = np.arange(train_length, dtype=np.int64) + np.repeat(biases, lengths)
    return (ids, starts) if return_chunk_starts else ids
