"""Position ids in a real batch: left padding, a key-value cache, OPT's offset of 2.

The formulas of the earlier chapters take positions ``0, 1, 2, …``. A batch of
prompts of different lengths is padded to one length, and decoder models pad on
the *left*, so that every row's next token is in the last column. Counting
columns then gives a row with three padding tokens positions ``3, 4, …`` for its
first real tokens. Real pipelines count only the tokens the attention mask keeps:

* Hugging Face's ``generate`` (transformers 5.x, ``_prepare_position_ids_for_generation``):
  ``cumsum(mask) − 1``, with the padding slots set to 0. After the prompt, each new
  token's id is the row's last id plus one, and a model with a cache is given
  only the ids of the tokens it has not seen (``[:, past_length:]``).
* OPT's learned position table (``OPTLearnedPositionalEmbedding``):
  ``(cumsum(mask) · mask − 1)[:, past_length:] + 2``: rows 0 and 1 of the table
  are never read by a real token (a convention carried over from fairseq, where
  row 1 is the padding index), so padding reads row 1 and real tokens rows 2, 3, ….

Absolute encodings (learned tables, sinusoids) give a padded row different
vectors unless the ids come from the mask. RoPE's scores depend on differences
only, so one constant shift of a whole row leaves them unchanged, but what
depends on the absolute position does not: dynamic NTK's scaling by length,
Llama 4's position-dependent query temperature, and positions past the trained
length.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_int, check_mask

__all__ = ["position_ids_from_mask", "opt_position_rows"]


def _past_length(past_length, seq_len: int) -> int:
    past_length = check_int("past_length", past_length, minimum=0)
    if past_length > seq_len:
        raise ValueError(
            f"past_length must be <= the mask's length ({seq_len}): the mask covers the cached "
            f"tokens and the new ones, got {past_length}"
        )
    return past_length


def position_ids_from_mask(attention_mask, *, past_length=0) -> np.ndarray:
    """Position ids counted over the tokens a mask keeps, as Hugging Face's ``generate`` does.

    Parameters
    ----------
    attention_mask : array_like of 0/1 or bool, shape (batch, seq_len) or (seq_len,)
        1 for a real token, 0 for padding; it covers the cached tokens and the new ones.
    past_length : int, optional
        How many tokens (columns) the key-value cache already holds; only the ids of
        the columns after them are returned.

    Returns
    -------
    ndarray of int64, shape (batch, seq_len − past_length)
        ``cumsum(mask) − 1`` along each row, 0 at padding.

    References
    ----------
    transformers 5.23, ``GenerationMixin._prepare_position_ids_for_generation``
    (tested against it in ``tests/test_transformers_positions.py``).

    Examples
    --------
    Two prompts, the second left-padded by two:

    >>> mask = [[1, 1, 1, 1], [0, 0, 1, 1]]
    >>> position_ids_from_mask(mask).tolist()
    [[0, 1, 2, 3], [0, 0, 0, 1]]

    One generated token later, with four tokens in the cache:

    >>> position_ids_from_mask([[1, 1, 1, 1, 1], [0, 0, 1, 1, 1]], past_length=4).tolist()
    [[4], [2]]
    """
    mask = check_mask("attention_mask", attention_mask)
    past_length = _past_length(past_length, mask.shape[1])
    # ids = cumsum(mask) − 1 over kept tokens; padding slots read 0
    ids = (np.cumsum(mask, axis=1) - 1) * mask
    return ids[:, past_length:]


def opt_position_rows(attention_mask, *, past_length=0) -> np.ndarray:
    """The rows of OPT's learned position table that each token reads (offset 2).

    Parameters
    ----------
    attention_mask : array_like of 0/1 or bool, shape (batch, seq_len) or (seq_len,)
        1 for a real token, 0 for padding; it covers the cached tokens and the new ones.
    past_length : int, optional
        How many tokens the key-value cache already holds.

    Returns
    -------
    ndarray of int64, shape (batch, seq_len − past_length)
        ``(cumsum(mask) · mask − 1)[:, past_length:] + 2``: row 1 at padding, rows
        2, 3, … for the real tokens; row 0 is never read. The table therefore has
        ``max_position_embeddings + 2`` rows (2050 in OPT's released checkpoints).

    References
    ----------
    Zhang et al. (2022), OPT; transformers 5.23, ``OPTLearnedPositionalEmbedding``
    (tested against it in ``tests/test_transformers_positions.py``).

    Examples
    --------
    >>> opt_position_rows([[1, 1, 1], [0, 1, 1]]).tolist()
    [[2, 3, 4], [1, 2, 3]]
    """
    mask = check_mask("attention_mask", attention_mask)
    past_length = _past_length(past_length, mask.shape[1])
    # rows = (cumsum(mask) · mask − 1) + 2: padding → 1, the first real token → 2
    return (np.cumsum(mask, axis=1) * mask - 1)[:, past_length:] + 2
