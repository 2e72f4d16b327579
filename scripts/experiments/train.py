"""Training and evaluation of the tiny models.

Training: AdamW, linear warm-up then cosine decay, gradient clipping, fresh batches of
the synthetic language each step. The objective is the next-token cross-entropy over
every position plus the mean cross-entropy of the passkey answers (see :func:`train`).
Evaluation: loss by position over a fixed evaluation stream, non-overlapping or with a
sliding window, and passkey accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from . import data
from .model import ModelConfig, TinyDecoder


@dataclass(frozen=True)
class TrainConfig:
    """How long and how fast a model trains."""

    steps: int
    batch: int
    length: int
    lr: float = 3e-3
    warmup: int = 15
    weight_decay: float = 0.05
    clip: float = 1.0
    #: Share of each batch made of passkey windows.
    passkey_share: float = 0.25
    #: Weight of the second term of the objective, the passkey answers' mean loss.
    answer_weight: float = 1.0


def _lr(step: int, config: TrainConfig) -> float:
    """Learning rate at ``step``: ``lr · step/warmup`` while warming up, then
    ``lr · (0.1 + 0.9 · (1 + cos(π t)) / 2)`` with ``t`` the share of the rest done."""
    if step < config.warmup:
        return config.lr * (step + 1) / config.warmup
    t = (step - config.warmup) / max(1, config.steps - config.warmup)
    return config.lr * (0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * t)))


def next_token_loss(model: TinyDecoder, tokens: torch.Tensor) -> torch.Tensor:
    """Cross-entropy (nats) of predicting ``tokens[:, t+1]`` from ``tokens[:, :t+1]``,
    one value per predicted token, shape (batch, n − 1), on the model's device."""
    tokens = tokens.to(model.device)
    logits = model(tokens[:, :-1])
    return F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1), reduction="none"
    ).view(tokens.shape[0], -1)


def train(
    model: TinyDecoder,
    config: TrainConfig,
    seed: int,
    language: data.Language,
    on_step: Callable[[int, float], None] | None = None,
) -> list[float]:
    """Train ``model`` in place on fresh batches; return the language loss of every step.

    Batches are drawn with ``numpy.random.default_rng([seed, config.length])``, so a
    fine-tune at another length draws other batches than the first training. Each
    batch has ``config.length + 1`` tokens per row (inputs and their next tokens).

    The objective is ``mean_all ℓ + w · mean_answers ℓ`` with ``w =
    config.answer_weight``: the per-token loss ``ℓ`` averaged over every prediction,
    plus ``w`` times its average over the passkey answers alone (the last
    :data:`data.KEY_LENGTH` predictions of the passkey rows), which are too few among
    the others to be learned in a short run otherwise. The returned value is the first
    term.
    """
    rng = np.random.default_rng([seed, config.length])
    decay = [p for p in model.parameters() if p.dim() >= 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    optimiser = torch.optim.AdamW(
        [{"params": decay, "weight_decay": config.weight_decay}, {"params": other}],
        lr=config.lr,
        betas=(0.9, 0.95),
        weight_decay=0.0,
    )
    losses = []  # on the model's device: no wait for the device at every step
    model.train()
    for step in range(config.steps):
        for group in optimiser.param_groups:
            group["lr"] = _lr(step, config)
        batch, key_rows = data.training_batch(
            language, config.batch, config.length + 1, rng, config.passkey_share
        )
        per_token = next_token_loss(model, torch.from_numpy(batch))
        language_loss = per_token.mean()
        loss = language_loss
        if key_rows and config.answer_weight:
            answers = per_token[-key_rows:, -data.KEY_LENGTH :].mean()
            loss = loss + config.answer_weight * answers
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
        optimiser.step()
        losses.append(language_loss.detach())
        if on_step is not None:
            on_step(step, float(losses[-1]))
    model.eval()
    return [float(v) for v in torch.stack(losses).cpu()] if losses else []


def new_model(config: ModelConfig, seed: int, device: str = "cpu") -> TinyDecoder:
    """A freshly initialised model: ``torch.manual_seed(seed)`` before building it (on
    the CPU, so its initial weights do not depend on ``device``), then moved there."""
    torch.manual_seed(seed)
    return TinyDecoder(config).to(device)


# Evaluation ---------------------------------------------------------------------------


@torch.no_grad()
def _losses(model: TinyDecoder, windows: np.ndarray, batch_tokens: int) -> np.ndarray:
    """Per-token loss of every window (rows of ``windows``, ``n + 1`` tokens each: the
    model reads the first ``n`` and predicts the last ``n``), in batches of about
    ``batch_tokens`` tokens; shape (rows, n). Column ``p`` is the prediction made at
    position ``p``, with ``p + 1`` tokens of context."""
    rows, n = windows.shape
    per = max(1, batch_tokens // n)
    out = [
        next_token_loss(model, torch.from_numpy(np.ascontiguousarray(windows[i : i + per])))
        for i in range(0, rows, per)
    ]
    return torch.cat(out).cpu().double().numpy()


def _windows(stream: np.ndarray, length: int, starts: np.ndarray) -> np.ndarray:
    """Windows of ``length + 1`` tokens starting at ``starts`` in every row of ``stream``."""
    return np.stack([stream[:, s : s + length + 1] for s in starts], axis=1).reshape(-1, length + 1)


def non_overlapping(
    model: TinyDecoder, stream: np.ndarray, length: int, bins: int, batch_tokens: int = 8192
) -> dict:
    """Loss when each row of the stream is cut into non-overlapping windows of ``length``.

    The model reads positions ``0 … length − 1`` of every window and each position
    predicts the token after it (the last one predicts the first token of the next
    window). ``stream`` has shape (rows, T + 1) with ``T`` a multiple of ``length``.

    Returns
    -------
    dict with ``mean`` (loss over all predictions) and ``by_position``: the mean loss in
    ``bins`` equal bins of the predicting position, bin ``b`` covering positions
    ``length · b / bins`` to ``length · (b + 1) / bins − 1``.
    """
    rows, total = stream.shape
    if (total - 1) % length or length % bins:
        raise ValueError(
            f"need (stream length − 1) a multiple of length and length of bins, "
            f"got {total - 1}, length={length}, bins={bins}"
        )
    loss = _losses(model, _windows(stream, length, np.arange(0, total - 1, length)), batch_tokens)
    by_bin = loss.mean(axis=0).reshape(bins, -1).mean(axis=1)
    return {"mean": float(loss.mean()), "by_position": [float(v) for v in by_bin]}


def floor_by_position(token_losses: np.ndarray, length: int, bins: int) -> list[float]:
    """The generator's own loss binned as :func:`non_overlapping` bins a model's.

    ``token_losses`` (rows, T + 1) holds the generator's loss on every token of the
    stream (``Language.token_losses``); the prediction made at window position ``p``
    is of the token after it, so column ``s + p + 1`` of a window starting at ``s``.
    Entries without a loss (the stream's first two tokens) are left out of the means.
    """
    starts = np.arange(0, token_losses.shape[1] - 1, length)
    targets = _windows(token_losses, length, starts)[:, 1:]  # the token each position predicts
    by_position = np.nanmean(targets, axis=0)
    return [float(v) for v in by_position.reshape(bins, -1).mean(axis=1)]


def sliding(
    model: TinyDecoder, stream: np.ndarray, length: int, stride: int, batch_tokens: int = 8192
) -> dict:
    """Loss with a sliding window: each window of ``length`` tokens scores its last ``stride``.

    Windows start at ``0, stride, 2·stride, …`` while they fit in a row of ``stream``;
    every scored prediction has at least ``length − stride + 1`` tokens of context (the
    ALiBi paper's sliding evaluation has ``stride = 1``).

    Returns
    -------
    dict with ``mean`` (loss over the scored predictions) and ``tokens`` (their number).
    """
    rows, total = stream.shape
    if not 1 <= stride <= length < total:
        raise ValueError(f"need 1 <= stride <= length < {total}, got {stride}, {length}")
    starts = np.arange(0, total - length, stride)
    loss = _losses(model, _windows(stream, length, starts), batch_tokens)[:, -stride:]
    return {"mean": float(loss.mean()), "tokens": int(loss.size)}


@torch.no_grad()
def passkey_documents(
    model: TinyDecoder,
    language: data.Language,
    length: int,
    depth: float,
    samples: int,
    seed: int | tuple[int, ...],
    batch_tokens: int = 8192,
) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``samples`` passkey windows: whether its key is found, and its answer loss.

    The windows are drawn with ``numpy.random.default_rng([*seed, length, round(1000
    depth)])`` (``seed`` an integer or a tuple of them), so every model given the same
    ``seed`` sees the same ones. A window passes when the arg-max
    prediction at each of the ``KEY_LENGTH`` positions after ``ASK`` is the true digit;
    its answer loss is the mean cross-entropy (nats) of the true digits there.

    Returns
    -------
    passed : ndarray of bool, shape (samples,)
    answer_loss : ndarray of float64, shape (samples,)
    """
    rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), length, int(round(1000 * depth))])
    tokens, keys = language.passkeys(samples, length, depth, rng)
    per = max(1, batch_tokens // length)
    right, losses = [], []
    for i in range(0, samples, per):
        chunk = torch.from_numpy(tokens[i : i + per])
        # Predictions for the digits come from positions ASK, k1, …, k_{K−1}.
        logits = model(chunk[:, :-1])[:, -data.KEY_LENGTH :]
        guess = logits.argmax(dim=-1).cpu().numpy()
        right.append(np.all(guess == keys[i : i + per], axis=1))
        truth = torch.from_numpy(keys[i : i + per]).to(model.device)
        ce = F.cross_entropy(logits.transpose(1, 2), truth, reduction="none")  # (rows, K)
        losses.append(ce.double().mean(dim=1).cpu().numpy())
    return np.concatenate(right), np.concatenate(losses)


def passkey_accuracy(
    model: TinyDecoder,
    language: data.Language,
    length: int,
    depth: float,
    samples: int,
    seed: int | tuple[int, ...],
    batch_tokens: int = 8192,
) -> float:
    """Share of the :func:`passkey_documents` windows whose every key digit is predicted
    right."""
    passed, _ = passkey_documents(model, language, length, depth, samples, seed, batch_tokens)
    return float(passed.mean())
