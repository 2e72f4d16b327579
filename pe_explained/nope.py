"""NoPE: no positional encoding at all, and how a causal mask still reveals position.

A decoder-only transformer without any positional encoding is not blind to
order: the causal mask lets position ``i`` attend to ``i + 1`` tokens only. With
all-equal scores (uniform attention), the output at ``i`` is the mean of the
first ``i + 1`` values. If the first token is marked (a start-of-sequence
token whose value is 1 while every other value is 0), that mean is exactly
``1 / (i + 1)``: a strictly decreasing function of the position, from which the
position can be read back. Without the mask every position averages all ``n``
values and sees the same number. (Haviv et al., 2022; Kazemnejad et al., 2023.)
"""

from __future__ import annotations

import numpy as np

from ._checks import check_array, check_bool, check_int
from .attention import self_attention

__all__ = ["uniform_attention", "nope_position_signal", "recover_positions"]


def uniform_attention(values, *, causal=True) -> np.ndarray:
    """One head of attention whose scores are all equal, applied to ``values``.

    Runs :func:`pe_explained.attention.self_attention` with zero query and key
    weights (every score 0) and identity value weights.

    Parameters
    ----------
    values : array_like, shape (seq_len, d)
    causal : bool, optional
        True: position ``i`` attends to positions ``0 … i``. False: to all.

    Returns
    -------
    out : ndarray, shape (seq_len, d)
        Causal: ``out[i] = mean(values[0 … i])``. Otherwise every row is the mean
        of all the values.

    Examples
    --------
    >>> uniform_attention(np.array([[3.0], [1.0], [2.0]])).ravel().tolist()
    [3.0, 2.0, 2.0]
    """
    causal = check_bool("causal", causal)
    values = check_array("values", values, ndim=2, rule="2-D (seq_len, d)", nonempty=True)
    d = values.shape[1]
    zeros = np.zeros((d, d))
    return self_attention(values, zeros, zeros, np.eye(d), causal=causal)


def nope_position_signal(seq_len, *, causal=True) -> np.ndarray:
    """What uniform attention reads from a marked start token, at each position.

    The value of the start token (position 0) is 1 and every other value is 0.

    Returns
    -------
    signal : ndarray, shape (seq_len,)
        ``1 / (i + 1)`` with the causal mask; ``1 / seq_len`` everywhere without it.

    Examples
    --------
    >>> nope_position_signal(4).tolist()
    [1.0, 0.5, 0.3333333333333333, 0.25]
    >>> nope_position_signal(4, causal=False).tolist()
    [0.25, 0.25, 0.25, 0.25]
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    is_start = np.zeros((seq_len, 1))
    is_start[0, 0] = 1.0
    return uniform_attention(is_start, causal=causal)[:, 0]


def recover_positions(signal) -> np.ndarray:
    """Invert ``signal = 1 / (i + 1)``: the positions ``i = 1/signal − 1``, rounded.

    Examples
    --------
    >>> recover_positions(nope_position_signal(5)).tolist()
    [0, 1, 2, 3, 4]
    """
    signal = check_array("signal", signal, ndim=1)
    if not np.all((signal > 0) & (signal <= 1)):
        raise ValueError("signal must be in (0, 1] (the output of nope_position_signal)")
    if signal.size and signal.min() < 2.0**-62:
        raise ValueError(
            f"signal must be >= 2**-62 (positions up to 2**62 fit in int64), got {signal.min():g}"
        )
    # i = 1 / signal - 1
    return np.rint(1.0 / signal - 1.0).astype(np.int64)
