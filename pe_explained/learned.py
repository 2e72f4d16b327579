"""Learned absolute position embeddings: one trainable vector per position.

Instead of a formula, the model keeps a table ``P`` of shape (max_len, d_model)
and adds row ``pos`` to the token at position ``pos`` (Gehring et al. 2017;
BERT, Devlin et al. 2019; GPT-2, Radford et al. 2019). The table is a parameter
like any other: it starts random and training shapes it. The initial values in
the reference code:

* BERT (``google-research/bert``): a truncated normal with standard deviation
  ``initializer_range = 0.02``, cut at two standard deviations;
* GPT-2 (``openai/gpt-2``): a normal with standard deviation 0.01 for the
  position table (0.02 for the token table); the Hugging Face port initialises
  every embedding with a normal of standard deviation 0.02.

A table has exactly ``max_len`` rows: there is no vector for any later position.
"""

from __future__ import annotations

import numpy as np

from ._checks import check_choice, check_float, check_int
from .layer import PositionTable

__all__ = ["LearnedPositionalEmbedding", "learned_parameter_count", "INITS"]

#: How the table is drawn: a plain normal, or a normal cut at ±2 std (redrawn beyond it).
INITS = ("normal", "truncated_normal")


def _truncated_normal(rng, std: float, shape: tuple[int, int]) -> np.ndarray:
    """N(0, std²) restricted to [−2 std, 2 std] by redrawing the entries outside it."""
    out = rng.normal(0.0, std, size=shape)
    outside = np.abs(out) > 2.0 * std
    while outside.any():
        out[outside] = rng.normal(0.0, std, size=int(outside.sum()))
        outside = np.abs(out) > 2.0 * std
    return out


class LearnedPositionalEmbedding(PositionTable):
    """A learned position table at initialisation, used like the sinusoidal layer.

    Parameters
    ----------
    d_model : int
        Width of the model.
    max_len : int
        Number of rows: positions ``0 … max_len − 1`` (512 for BERT, 1024 for GPT-2).
    std : float, optional
        Standard deviation of the initial values (0.02 in BERT and in the Hugging
        Face GPT-2; 0.01 in the original GPT-2 code).
    init : {"normal", "truncated_normal"}, optional
        ``"truncated_normal"`` redraws values beyond ±2 std, as TensorFlow's BERT does.
    dropout, seed : optional
        Dropout rate in training and the seed of both the table and the masks.

    Examples
    --------
    >>> layer = LearnedPositionalEmbedding(768, max_len=512, seed=0)
    >>> layer.table.shape, layer.num_parameters
    ((512, 768), 393216)
    >>> round(float(layer.table.std()), 3)
    0.02
    >>> layer.encoding(1, offset=512)
    Traceback (most recent call last):
    ...
    ValueError: positions 512…512 exceed max_len=512: this layer has rows for positions 0…511 only
    """

    def __init__(self, d_model, max_len, *, std=0.02, init="normal", dropout=0.0, seed=0):
        super().__init__(d_model, max_len, dropout=dropout, seed=seed)
        self.std = check_float("std", std, greater_than=0.0)
        self.init = check_choice("init", init, INITS)
        rng = np.random.default_rng(self.seed)
        shape = (self.max_len, self.d_model)
        if self.init == "normal":
            self.table = rng.normal(0.0, self.std, size=shape)
        else:
            self.table = _truncated_normal(rng, self.std, shape)
        # the dropout masks come from their own stream, so they never change the table
        self._rng = np.random.default_rng([self.seed, 1])

    @property
    def num_parameters(self) -> int:
        """max_len × d_model trainable numbers (a sinusoidal table has none)."""
        return learned_parameter_count(self.max_len, self.d_model)


def learned_parameter_count(max_len, d_model) -> int:
    """Trainable parameters of a learned position table: ``max_len · d_model``.

    >>> learned_parameter_count(1024, 768)   # GPT-2 small
    786432
    """
    max_len = check_int("max_len", max_len, minimum=1)
    d_model = check_int("d_model", d_model, minimum=1)
    return max_len * d_model
