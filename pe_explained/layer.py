"""The positional-encoding layer: the model input of an absolute-position transformer.

The original transformer (Vaswani et al. 2017, §3.4–3.5 and §5.4) builds the
input of its first layer as::

    x = dropout(E[token_ids] · √d_model + PE[0 : seq_len])

with token embeddings ``E`` and the sinusoidal table ``PE``. The table does not
depend on the input, so a layer computes it once, up to a maximum length
``max_len``, and only slices it per call — what ``register_buffer`` does in a
PyTorch module. Every array here has shape ``(batch, seq_len, d_model)``.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_array,
    check_base,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_positive_even_int,
)
from .sinusoidal import LAYOUTS, sinusoidal

__all__ = [
    "dropout",
    "PositionTable",
    "SinusoidalPositionalEncoding",
    "TokenEmbedding",
    "transformer_shapes",
]


def dropout(x, rate, seed=0) -> np.ndarray:
    """Inverted dropout: zero each entry with probability ``rate``, scale the rest by 1/(1 − rate).

    The expected value of every entry is unchanged, so nothing needs rescaling
    at inference time, when dropout is simply not applied.

    Parameters
    ----------
    x : array_like
        Finite real numbers, any shape.
    rate : float
        Probability of dropping an entry, in [0, 1) (P_drop = 0.1 in the paper).
    seed : int or numpy.random.Generator, optional
        An int >= 0 seeds a fresh generator: the same mask on every call. A
        ``Generator`` is drawn from and advances: a new mask on every call, as in
        a training loop (the layers pass their own).

    Returns
    -------
    ndarray, float64, shape of ``x``
        ``x · keep / (1 − rate)`` with ``keep`` true with probability ``1 − rate``.

    References
    ----------
    Srivastava et al., "Dropout: A Simple Way to Prevent Neural Networks from
    Overfitting", JMLR 2014.

    Examples
    --------
    >>> out = dropout(np.ones((200, 50)), 0.1, seed=0)
    >>> round(float((out == 0).mean()), 2), round(float(out.max()), 4)
    (0.1, 1.1111)
    >>> rng = np.random.default_rng(0)
    >>> out = dropout(np.ones(100_000), 0.1, rng)
    >>> sorted(set(out.round(6).tolist())), round(float(out.mean()), 2)
    ([0.0, 1.111111], 1.0)
    """
    x = check_array("x", x)
    rate = check_float("rate", rate, at_least=0.0, less_than=1.0)
    if not isinstance(seed, np.random.Generator):
        seed = check_int("seed", seed, minimum=0)
    if rate == 0.0:
        return x.copy()
    keep = np.random.default_rng(seed).random(x.shape) >= rate
    # x_kept / (1 - rate): E[out] = (1 - rate) · x / (1 - rate) = x
    return np.where(keep, x / (1.0 - rate), 0.0)


class PositionTable:
    """An absolute-position layer: a (max_len, d_model) table, sliced per call, then dropout.

    Subclasses only fill ``self.table``; :class:`SinusoidalPositionalEncoding`
    computes it, :class:`~pe_explained.learned.LearnedPositionalEmbedding`
    draws it at random (and training would update it).
    """

    def __init__(self, d_model, max_len, *, dropout=0.0, seed=0):
        self.d_model = check_int("d_model", d_model, minimum=1)
        self.max_len = check_int("max_len", max_len, minimum=1)
        self.dropout = check_float("dropout", dropout, at_least=0.0, less_than=1.0)
        self.seed = check_int("seed", seed, minimum=0)
        self._rng = np.random.default_rng(self.seed)
        self.table = np.zeros((self.max_len, self.d_model))

    def encoding(self, seq_len, *, offset=0) -> np.ndarray:
        """Rows ``offset … offset + seq_len − 1`` of the table, shape (seq_len, d_model).

        ``offset`` is the number of tokens already processed (decoding one token at
        a time with a cache). Beyond ``max_len`` there is no row: a ValueError.
        """
        seq_len = check_int("seq_len", seq_len, minimum=0)
        offset = check_int("offset", offset, minimum=0)
        if offset + seq_len > self.max_len:
            raise ValueError(
                f"positions {offset}…{offset + seq_len - 1} exceed max_len={self.max_len}: "
                f"this layer has rows for positions 0…{self.max_len - 1} only"
            )
        return self.table[offset : offset + seq_len]

    def __call__(self, x, *, training=False, offset=0) -> np.ndarray:
        """``dropout(x + table[offset : offset + seq_len])``, x of shape (batch, seq_len, d_model).

        Dropout is applied only when ``training`` is true, as in every framework.
        """
        shape = f"(batch, seq_len, d_model={self.d_model}) or (seq_len, d_model={self.d_model})"
        x = check_array("x", x, ndim=(2, 3), rule=f"of shape {shape}")
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x must be of shape {shape}, got shape {x.shape}")
        training = check_bool("training", training)
        out = x + self.encoding(x.shape[-2], offset=offset)  # broadcasts over the batch
        if training and self.dropout > 0.0:
            out = dropout(out, self.dropout, self._rng)
        return out

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(d_model={self.d_model}, max_len={self.max_len}, "
            f"dropout={self.dropout:g})"
        )


class SinusoidalPositionalEncoding(PositionTable):
    """The fixed sinusoidal encoding as a layer: the table is computed once, in ``__init__``.

    Parameters
    ----------
    d_model : int
        Width of the model; positive and even.
    max_len : int
        Number of precomputed rows; a longer input is an error, not a silent wrap.
    base : float, optional
        Base of the frequency ladder (10000 in the paper).
    dropout : float, optional
        Dropout rate applied to the sum in training (0.1 in the paper's base model).
    seed : int, optional
        Seed of the dropout masks.
    layout : {"interleaved", "halves"}, optional
        Column order of the table, as in :func:`pe_explained.sinusoidal`.

    Examples
    --------
    >>> layer = SinusoidalPositionalEncoding(8, max_len=16)
    >>> layer.table.shape, layer.table.flags.writeable
    ((16, 8), False)
    >>> layer(np.zeros((2, 5, 8))).shape
    (2, 5, 8)
    >>> layer(np.zeros((1, 17, 8)))
    Traceback (most recent call last):
    ...
    ValueError: positions 0…16 exceed max_len=16: this layer has rows for positions 0…15 only
    """

    def __init__(
        self, d_model, max_len, *, base=10000.0, dropout=0.0, seed=0, layout="interleaved"
    ):
        d_model = check_positive_even_int("d_model", d_model)
        super().__init__(d_model, max_len, dropout=dropout, seed=seed)
        self.base = check_base("base", base)
        self.layout = check_choice("layout", layout, LAYOUTS)
        self.table = sinusoidal(self.max_len, d_model, base=self.base, layout=self.layout)
        self.table.flags.writeable = False  # a constant, not a parameter


class TokenEmbedding:
    """A token-embedding table ``E`` of shape (vocab_size, d_model) and its lookup.

    Entries are drawn from N(0, std²). With ``std = d_model ** -0.5`` (the default,
    as in fairseq) a row has expected squared norm 1, and the paper's scaling by
    √d_model (``scale=True``) brings every entry back to unit variance — the same
    size as the entries of the sinusoidal table, whose mean square is 1/2.

    >>> emb = TokenEmbedding(100, 8, seed=0)
    >>> emb([[1, 2, 3], [4, 5, 6]]).shape
    (2, 3, 8)
    """

    def __init__(self, vocab_size, d_model, *, std=None, scale=True, seed=0):
        self.vocab_size = check_int("vocab_size", vocab_size, minimum=1)
        self.d_model = check_int("d_model", d_model, minimum=1)
        std = self.d_model**-0.5 if std is None else check_float("std", std, greater_than=0.0)
        self.std = std
        self.scale = check_bool("scale", scale)
        rng = np.random.default_rng(check_int("seed", seed, minimum=0))
        self.weight = rng.normal(0.0, std, size=(self.vocab_size, self.d_model))

    def __call__(self, token_ids) -> np.ndarray:
        """``E[token_ids] · √d_model`` (or without the factor when ``scale`` is false)."""
        ids = check_array(
            "token_ids",
            token_ids,
            kind="integer",
            ndim=(1, 2),
            rule="(batch, seq_len) or (seq_len,)",
        )
        if ids.size and (ids.min() < 0 or ids.max() >= self.vocab_size):
            raise ValueError(
                f"token_ids must be in 0…{self.vocab_size - 1} (vocab_size={self.vocab_size}), "
                f"got values {ids.min()}…{ids.max()}"
            )
        vectors = self.weight[ids]
        # x = E[token] * sqrt(d_model)   (Vaswani et al. 2017, section 3.4)
        return vectors * np.sqrt(self.d_model) if self.scale else vectors


def transformer_shapes(batch, seq_len, d_model, num_heads, d_ff=None) -> dict[str, tuple[int, ...]]:
    """Array shapes along one encoder block of the original transformer, in order, then the
    shape of the bias a relative scheme adds to the attention scores.

    ``head_dim = d_model / num_heads``; ``d_ff`` defaults to 4 · d_model (2048 for
    d_model = 512, as in the paper's base model). Every entry up to ``"block output"``
    is an array of the original block. The last, ``"relative bias"``, is not: the
    original transformer has none. It is the shape of the bias that ALiBi or T5 add to
    every layer's scores instead of adding a position table to the input, one
    ``(seq_len, seq_len)`` matrix per head. Position tables and biases have no batch
    axis: one serves every sequence of the batch.

    >>> shapes = transformer_shapes(2, 10, 512, 8)
    >>> shapes["attention scores"], shapes["feed-forward hidden"]
    ((2, 8, 10, 10), (2, 10, 2048))
    >>> list(shapes)[-2:], shapes["relative bias"]
    (['block output', 'relative bias'], (8, 10, 10))
    """
    batch = check_int("batch", batch, minimum=1)
    seq_len = check_int("seq_len", seq_len, minimum=1)
    d_model = check_int("d_model", d_model, minimum=1)
    num_heads = check_int("num_heads", num_heads, minimum=1)
    if d_model % num_heads:
        raise ValueError(f"d_model must be divisible by num_heads, got {d_model} and {num_heads}")
    d_ff = 4 * d_model if d_ff is None else check_int("d_ff", d_ff, minimum=1)
    head_dim = d_model // num_heads
    return {
        "token ids": (batch, seq_len),
        "token embeddings": (batch, seq_len, d_model),
        "position table": (seq_len, d_model),
        "model input": (batch, seq_len, d_model),
        "queries, keys, values": (batch, num_heads, seq_len, head_dim),
        "attention scores": (batch, num_heads, seq_len, seq_len),
        "attention output": (batch, seq_len, d_model),
        "feed-forward hidden": (batch, seq_len, d_ff),
        "block output": (batch, seq_len, d_model),
        "relative bias": (num_heads, seq_len, seq_len),
    }
