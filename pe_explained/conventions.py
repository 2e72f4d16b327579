"""The sinusoidal tables of real code bases, for readers porting checkpoints.

The paper's encoding (:func:`pe_explained.sinusoidal`) interleaves sines and
cosines and spaces the frequencies as ``base ** (−2i / d_model)``. Two widely
used code bases differ from it, and from each other only in bookkeeping:

* tensor2tensor's ``get_timing_signal_1d``: all sines, then all cosines, and
  ``num_timescales = channels // 2`` timescales spaced geometrically from 1 to
  ``max_timescale`` *inclusive* — the denominator of the exponent is
  ``num_timescales − 1``, so the last pair's wavelength is exactly
  ``2π · max_timescale``. An odd width gets a zero column at the end.
* fairseq's ``SinusoidalPositionalEmbedding.get_embedding``: the same table
  (denominator ``half_dim − 1``), with the row at ``padding_idx`` set to zero
  and, at run time, positions that start at ``padding_idx + 1``.

Both compute in float32; these functions return float64 values of the same
formulas.
"""

from __future__ import annotations

import math

import numpy as np

from ._checks import check_array, check_float, check_int, check_optional

__all__ = ["tensor2tensor_timing_signal", "fairseq_sinusoidal", "fairseq_positions"]


def _sin_cos_halves(num_positions: int, inv_timescales: np.ndarray, width: int) -> np.ndarray:
    """[sin | cos] of position × inverse timescale, padded with zero columns to ``width``."""
    half = len(inv_timescales)
    scaled_time = np.multiply.outer(np.arange(num_positions, dtype=np.float64), inv_timescales)
    out = np.zeros((num_positions, width))
    out[:, :half] = np.sin(scaled_time)
    out[:, half : 2 * half] = np.cos(scaled_time)
    return out


def tensor2tensor_timing_signal(length, channels, *, min_timescale=1.0, max_timescale=1.0e4):
    """tensor2tensor's ``get_timing_signal_1d``, without the leading batch axis.

    Parameters
    ----------
    length : int
        Number of positions (0 … length − 1), >= 0.
    channels : int
        Width, >= 2; ``channels // 2`` timescales, a zero column if odd.
    min_timescale, max_timescale : float, optional
        1 and 10⁴: the timescales run from 1 to 10⁴ (wavelength 2π · timescale).
        As in tensor2tensor, the *inverse* timescales are multiplied by
        ``min_timescale``, so any other ``min_timescale`` scales every frequency
        by it rather than setting the shortest timescale.

    Returns
    -------
    signal : ndarray, shape (length, channels), float64
        ``signal[p, i] = sin(p / τ_i)``, ``signal[p, n + i] = cos(p / τ_i)`` with
        ``n = channels // 2`` and
        ``1/τ_i = min_timescale · (max/min) ** (−i / max(n − 1, 1))``.

    References
    ----------
    Vaswani et al., "Tensor2Tensor for Neural Machine Translation", AMTA 2018
    (``tensor2tensor/layers/common_attention.py``).

    Examples
    --------
    >>> tensor2tensor_timing_signal(2, 4).round(4).tolist()
    [[0.0, 0.0, 1.0, 1.0], [0.8415, 0.0001, 0.5403, 1.0]]
    """
    length = check_int("length", length, minimum=0)
    channels = check_int("channels", channels, minimum=2)
    min_timescale = check_float("min_timescale", min_timescale, greater_than=0.0)
    max_timescale = check_float("max_timescale", max_timescale)
    if max_timescale < min_timescale:
        raise ValueError(
            f"max_timescale must be >= min_timescale ({min_timescale:g}), got {max_timescale:g}"
        )
    num_timescales = channels // 2
    with np.errstate(over="ignore"):
        ratio = max_timescale / min_timescale
    if not math.isfinite(ratio) or not math.isfinite(1.0 / min_timescale):
        raise ValueError(
            f"max_timescale / min_timescale must be a finite float64, got {max_timescale:g} / "
            f"{min_timescale:g} (min_timescale must be >= {1 / np.finfo(np.float64).max:g})"
        )
    # log increment = log(max/min) / (num_timescales - 1); tensor2tensor guards 1 timescale
    increment = math.log(max_timescale / min_timescale) / max(num_timescales - 1, 1)
    inv_timescales = min_timescale * np.exp(-increment * np.arange(num_timescales))
    return _sin_cos_halves(length, inv_timescales, channels)


def fairseq_sinusoidal(num_embeddings, embedding_dim, *, padding_idx=None):
    """fairseq's ``SinusoidalPositionalEmbedding.get_embedding`` table.

    Parameters
    ----------
    num_embeddings : int
        Rows of the table, >= 0; row ``r`` holds angle ``r · ω_i``.
    embedding_dim : int
        Width, >= 4 (fairseq divides by ``half_dim − 1``); a zero column if odd.
    padding_idx : int or None, optional
        Row set to zero (fairseq's text models use 1). Tokens then read rows
        ``padding_idx + 1, padding_idx + 2, …`` (see :func:`fairseq_positions`).

    Returns
    -------
    table : ndarray, shape (num_embeddings, embedding_dim), float64
        ``[sin | cos]`` with ``ω_i = exp(−i · ln(10000) / (half_dim − 1))``.

    References
    ----------
    Ott et al., "fairseq: A Fast, Extensible Toolkit for Sequence Modeling", NAACL 2019
    (``fairseq/modules/sinusoidal_positional_embedding.py``).

    Examples
    --------
    >>> fairseq_sinusoidal(3, 4, padding_idx=1).round(4).tolist()
    [[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0], [0.9093, 0.0002, -0.4161, 1.0]]
    """
    num_embeddings = check_int("num_embeddings", num_embeddings, minimum=0)
    embedding_dim = check_int("embedding_dim", embedding_dim, minimum=4)
    half_dim = embedding_dim // 2
    # omega_i = exp(-i * ln(10000) / (half_dim - 1))
    inv_timescales = np.exp(-math.log(10000.0) / (half_dim - 1) * np.arange(half_dim))
    table = _sin_cos_halves(num_embeddings, inv_timescales, embedding_dim)
    padding_idx = check_optional(check_int, "padding_idx", padding_idx, minimum=0)
    if padding_idx is not None:
        if padding_idx >= num_embeddings:
            raise ValueError(
                f"padding_idx must be < num_embeddings ({num_embeddings}), got {padding_idx}"
            )
        table[padding_idx] = 0.0
    return table


def fairseq_positions(is_token, *, padding_idx=1) -> np.ndarray:
    """The row of :func:`fairseq_sinusoidal` each token reads (fairseq's ``make_positions``).

    Parameters
    ----------
    is_token : array_like of bool, shape (seq_len,)
        False at padding tokens.
    padding_idx : int, optional
        fairseq's padding index (1 for its text dictionaries).

    Returns
    -------
    rows : ndarray of int64
        ``padding_idx + 1, padding_idx + 2, …`` for tokens, ``padding_idx`` for padding.

    Examples
    --------
    >>> fairseq_positions([True, True, False]).tolist()
    [2, 3, 1]
    """
    mask = check_array("is_token", is_token, kind="bool", ndim=1)
    padding_idx = check_int("padding_idx", padding_idx, minimum=0)
    # positions = cumsum(mask) * mask + padding_idx
    return np.cumsum(mask, dtype=np.int64) * mask + padding_idx
