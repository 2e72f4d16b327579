"""The synthetic language the experiments train on, and the passkey task.

Nothing is downloaded: every token comes from a seeded generator defined here.

The vocabulary
    :data:`VOCAB` = 64 tokens: :data:`WORDS` = 40 "words" (ids 0 … 39), two markers
    (``KEY`` 40, ``ASK`` 41), two unused ids (42, 43) and 20 key digits (44 … 63) in
    :data:`KEY_LENGTH` = 4 *slots* of :data:`DIGITS` = 5: slot ``s`` uses ids
    ``44 + 5 s … 48 + 5 s``. Digits appear in passkeys only.

The language
    *Local structure* — a second-order Markov chain over the words: the next word
    depends on the last two, through fixed random tables of logits.
    *Long-range structure* — a topic: every document (one row of a batch, as long as
    the longest window read from it) draws one of :data:`TOPICS` topics, which shifts
    the logits of every word in it::

        P(x_t = w | x_{t-2} = a, x_{t-1} = b, topic z) = softmax_w(A[b, w] + B[a, w] + C[z, w])

    with Gaussian tables of standard deviations :data:`SIGMA_LAST`,
    :data:`SIGMA_BEFORE`, :data:`SIGMA_TOPIC`. Predicting well needs the token one back
    (position or order information) and the topic, which only a long look back
    reveals: the loss of a model that uses its context falls along the window.

The passkey task
    A document with ``KEY k1 … k4`` written in at a chosen depth and ``ASK k1 … k4`` as
    its last five tokens, digit ``k_s`` drawn from slot ``s``'s five ids. A model passes
    when its greedy prediction of every digit after ``ASK`` is right; with teacher
    forcing that is one forward pass (greedy decoding fails at the first wrong digit,
    and teacher forcing sees the same first wrong digit). Each slot has its own ids, so
    the retrieval is by content: the digit of slot ``s`` is the only token of its kind
    before ``ASK``, however far back it is. Chance is ``5^-4``.

Every function takes a :class:`numpy.random.Generator`; the same seed gives the same
tokens.
"""

from __future__ import annotations

import numpy as np

#: Size of the vocabulary (words, markers, key digits).
VOCAB = 64
#: Number of word tokens (ids 0 … WORDS−1), the alphabet of the Markov chain.
WORDS = 40
#: Marker before a passkey.
KEY = 40
#: Marker asking for the passkey.
ASK = 41
#: First key digit; slot ``s`` uses ids ``FIRST_DIGIT + DIGITS·s`` … ``+ DIGITS − 1``.
FIRST_DIGIT = 44
#: Number of values of one key digit.
DIGITS = 5
#: Number of digits (slots) in one passkey.
KEY_LENGTH = 4
#: Number of topics.
TOPICS = 8
#: Standard deviation of the logits that depend on the last word.
SIGMA_LAST = 2.0
#: Standard deviation of the logits that depend on the word before the last.
SIGMA_BEFORE = 1.5
#: Standard deviation of the logits that depend on the topic.
SIGMA_TOPIC = 1.5
#: Seed of the language itself (the logit tables), shared by every run.
LANGUAGE_SEED = 20240611


class Language:
    """The fixed second-order Markov chain with topics (see the module docstring).

    Parameters
    ----------
    seed : int
        Seed of the logit tables; the default, :data:`LANGUAGE_SEED`, is the one
        language every experiment uses. Training and evaluation draw different
        documents from it with their own generators.
    """

    def __init__(self, seed: int = LANGUAGE_SEED) -> None:
        rng = np.random.default_rng(seed)
        last = rng.normal(0.0, SIGMA_LAST, size=(WORDS, WORDS))
        before = rng.normal(0.0, SIGMA_BEFORE, size=(WORDS, WORDS))
        topic = rng.normal(0.0, SIGMA_TOPIC, size=(TOPICS, WORDS))
        # logits[z, a, b, w] = A[b, w] + B[a, w] + C[z, w]; softmax over w (stable).
        logits = last[None, None, :, :] + before[None, :, None, :] + topic[:, None, None, :]
        logits -= logits.max(axis=-1, keepdims=True)
        prob = np.exp(logits)
        prob /= prob.sum(axis=-1, keepdims=True)
        #: P(next | topic, before, last), shape (TOPICS, WORDS, WORDS, WORDS).
        self.prob = prob
        #: Cumulative distribution along the last axis, for inverse-CDF sampling.
        self.cdf = np.cumsum(prob, axis=-1)
        self.cdf[..., -1] = 1.0

    def documents(
        self, rows: int, length: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sample ``rows`` documents of ``length`` words, one topic each.

        Each row starts from two uniform words and runs :data:`BURN_IN` steps before
        the returned tokens, so they start in the chain's stationary regime.

        Returns
        -------
        tokens : ndarray of int64, shape (rows, length)
        topics : ndarray of int64, shape (rows,)
        """
        if rows < 1 or length < 1:
            raise ValueError(f"rows and length must be >= 1, got rows={rows}, length={length}")
        topics = rng.integers(0, TOPICS, size=rows)
        total = BURN_IN + length
        out = np.empty((rows, total), dtype=np.int64)
        out[:, :2] = rng.integers(0, WORDS, size=(rows, 2))
        for t in range(2, total):
            u = rng.random(rows)
            # Inverse CDF: the first w with cdf[w] >= u.
            out[:, t] = (self.cdf[topics, out[:, t - 2], out[:, t - 1]] < u[:, None]).sum(axis=1)
        return out[:, BURN_IN:], topics

    def stream(self, rows: int, length: int, rng: np.random.Generator) -> np.ndarray:
        """Tokens of :meth:`documents` alone, shape (rows, length)."""
        return self.documents(rows, length, rng)[0]

    def token_losses(self, tokens: np.ndarray, topics: np.ndarray) -> np.ndarray:
        """Loss (nats) of the generator itself on every token: shape of ``tokens``.

        Entry ``[r, t]`` is ``−ln P(x_t | x_{t−2}, x_{t−1}, topic_r)``, the loss of a
        model that knows the chain and each document's topic; the first two columns,
        whose two previous words are not in ``tokens``, are NaN.
        """
        t = np.asarray(tokens)
        z = np.asarray(topics)[:, None]
        out = np.full(t.shape, np.nan)
        out[:, 2:] = -np.log(self.prob[z, t[:, :-2], t[:, 1:-1], t[:, 2:]])
        return out

    def loss_floor(self, tokens: np.ndarray, topics: np.ndarray) -> float:
        """Mean loss (nats) of the generator itself on ``tokens[:, 2:]``: the floor.

        No model of the tokens can beat it on average (see :meth:`token_losses`).
        """
        return float(np.nanmean(self.token_losses(tokens, topics)))

    def passkeys(
        self, rows: int, length: int, depth: float, rng: np.random.Generator
    ) -> tuple[np.ndarray, np.ndarray]:
        """Passkey documents: ``KEY k1…k4`` at ``depth`` of the filler, ``ASK k1…k4`` last.

        Parameters
        ----------
        rows, length : int
            Number of documents and tokens per document (``length`` >= 20).
        depth : float
            Where the key goes, as a fraction of the filler before ``ASK``: 0 puts
            ``KEY`` at position 0, 1 right before ``ASK``. ``KEY`` is at position
            ``round(depth · (length − 2·(KEY_LENGTH + 1)))``.

        Returns
        -------
        tokens : ndarray of int64, shape (rows, length)
        keys : ndarray of int64, shape (rows, KEY_LENGTH)
            The digits, as token ids.
        """
        span = KEY_LENGTH + 1
        if length < 4 * span:
            raise ValueError(f"length must be >= {4 * span} for a passkey, got {length}")
        if not 0.0 <= depth <= 1.0:
            raise ValueError(f"depth must be in [0, 1], got {depth}")
        tokens = self.stream(rows, length, rng)
        slots = FIRST_DIGIT + DIGITS * np.arange(KEY_LENGTH)
        keys = slots + rng.integers(0, DIGITS, size=(rows, KEY_LENGTH))
        at = int(round(depth * (length - 2 * span)))
        tokens[:, at] = KEY
        tokens[:, at + 1 : at + span] = keys
        tokens[:, length - span] = ASK
        tokens[:, length - span + 1 :] = keys
        return tokens, keys


#: Steps the chain runs before the tokens a document returns.
BURN_IN = 8


def training_batch(
    language: Language,
    rows: int,
    length: int,
    rng: np.random.Generator,
    passkey_share: float,
) -> tuple[np.ndarray, int]:
    """One training batch: documents, a share of them turned into passkey documents.

    ``round(passkey_share · rows)`` rows (the last ones) are passkey documents, each
    with its own depth drawn uniformly in [0, 1]; the others are plain documents.

    Returns
    -------
    tokens : ndarray of int64, shape (rows, length)
    passkey_rows : int
        How many of the last rows are passkey documents (their last
        :data:`KEY_LENGTH` tokens are the answer).
    """
    if not 0.0 <= passkey_share <= 1.0:
        raise ValueError(f"passkey_share must be in [0, 1], got {passkey_share}")
    n_key = int(round(passkey_share * rows))
    tokens = language.stream(rows, length, rng)
    for row in range(rows - n_key, rows):
        tokens[row] = language.passkeys(1, length, float(rng.random()), rng)[0][0]
    return tokens, n_key


def unigram_entropy(tokens: np.ndarray) -> float:
    """Entropy (nats) of the empirical token frequencies: ``−Σ_v f_v ln f_v``.

    The loss of the best model that ignores context; a model that learned anything
    positional or sequential sits below it.
    """
    counts = np.bincount(np.asarray(tokens).ravel(), minlength=VOCAB).astype(np.float64)
    freq = counts[counts > 0] / counts.sum()
    return float(-np.sum(freq * np.log(freq)))
