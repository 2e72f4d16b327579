"""Chapter 22's values for the comparisons its prose draws beyond single losses: the
absolute levels, how far training got, where RoPE's loss leaves its trained range,
what the fine-tune did to retrieval, what the ranges over seeds cover and how the
training objective and the passkey are built. Each is read from the results files
(tests/test_evidence.py checks the claims drawn from them)."""

from __future__ import annotations

import numpy as np

from pe_explained import rope_frequencies

from ... import value
from ...experiments import passkey_by_length, results, span
from ...text import format_bound
from .common import (
    LAST_BLOCKS,
    SLOPE_STEPS,
    bin_width,
    binomial_se,
    block_steps,
    degradation,
    eval_lengths,
    excess,
    excess_from,
    extension,
    length_at,
    loss,
    passkey,
    passkey_documents,
    train_gap,
    train_slope,
    window_excess,
)


def _range(low: float, high: float) -> str:
    """``low–high`` at two decimals, or one number where both read the same."""
    a, b = f"{low:.2f}", f"{high:.2f}"
    return a if a == b else f"{a}–{b}"


# Retrieval: every encoding ------------------------------------------------------------


@value("passkey_sinusoidal_last_range")
def _():
    """The sinusoidal models' passkey accuracy at the longest length: range over seeds."""
    data = results("length_generalisation")["methods"]["sinusoidal"]
    _, low, high = span(passkey_by_length(data, length_at("last")))
    return _range(low, high)


def passkey_best(encoding: str) -> float:
    """An encoding's best passkey accuracy at any length (mean over the seeds)."""
    return max(passkey(encoding, n) for n in eval_lengths())


@value("passkey_learned_best")
def _():
    return format_bound(passkey_best("learned"), ".2f", side="upper")  # "at most"


# Absolute levels: flat is not low -----------------------------------------------------


def loss_range(encoding: str) -> tuple[float, float]:
    """Smallest and largest mean loss of ``encoding`` over the evaluation lengths."""
    losses = [loss(encoding, n) for n in eval_lengths()]
    return min(losses), max(losses)


for _enc in ("nope", "t5"):
    value(f"loss_range_{_enc}")(lambda e=_enc: _range(*loss_range(e)))
    for _where in ("first", "last"):
        value(f"gap_{_enc}_rope_{_where}")(
            lambda e=_enc, w=_where: f"{loss(e, length_at(w)) - loss('rope', length_at(w)):.2f}"
        )

for _enc in ("nope", "t5", "rope", "xpos"):
    value(f"excess_{_enc}")(lambda e=_enc: f"{window_excess(e):.2f}")


@value("excess_from")
def _():
    return str(excess_from())


# How far training got -----------------------------------------------------------------


def train_slopes() -> dict[str, float]:
    """Every encoding's :func:`train_slope` (negative: falling)."""
    return {e: train_slope(e) for e in results("length_generalisation")["methods"]}


@value("train_fall_least")
def _():
    """The slowest fall over the last blocks, per ``SLOPE_STEPS`` steps, as a positive number."""
    return f"{-max(train_slopes().values()):.2f}"


@value("train_fall_most")
def _():
    return f"{-min(train_slopes().values()):.2f}"


@value("train_fall_steps")
def _():
    """The steps the slope is fitted over: the last ``LAST_BLOCKS`` points of the curve."""
    return str(LAST_BLOCKS * block_steps())


@value("slope_steps")
def _():
    return str(SLOPE_STEPS)


@value("train_gap_nope_rope_before")
def _():
    return f"{train_gap('nope', 'rope', LAST_BLOCKS - 1):.2f}"


@value("train_gap_nope_rope_end")
def _():
    return f"{train_gap('nope', 'rope'):.2f}"


# Where RoPE's loss leaves its trained range ---------------------------------------------


def rope_degradation() -> tuple[int, tuple[float, float], tuple[float, float]]:
    """:func:`degradation` of the RoPE models in windows of the middle length."""
    return degradation("rope", length_at("mid"))


@value("rope_break_position")
def _():
    return str(rope_degradation()[0])


def rope_inside() -> tuple[float, float]:
    """RoPE's excess loss inside the training window (windows of the middle length), from
    the second bin to the training length: (smallest, largest)."""
    n = length_at("mid")
    curve = excess("rope", n)[1 : results("length_generalisation")["train_len"] // bin_width(n)]
    return float(curve.min()), float(curve.max())


@value("rope_excess_inside")
def _():
    return _range(*rope_inside())


@value("train_end")
def _():
    """The last position of a training window."""
    return str(results("length_generalisation")["train_len"] - 1)


@value("rope_break_ratio")
def _():
    """Where RoPE's excess loss leaves its range, in multiples of the training length."""
    return f"{rope_degradation()[0] / results('length_generalisation')['train_len']:g}"


@value("rope_excess_after")
def _():
    return _range(*rope_degradation()[2])


@value("rope_bin_start")
def _():
    """The first position of the second bin, where the range inside is measured from."""
    return str(bin_width(length_at("mid")))


# The fine-tune and retrieval past the target length ----------------------------------


def same_cells(method: str, n: int) -> tuple[int, int]:
    """(seed × depth cells where ``method``'s passkey accuracy at length ``n`` is the same
    zero-shot and fine-tuned, all such cells)."""
    entry = extension()["methods"][method]
    zero = entry["zero_shot"]["passkey"][str(n)]
    tuned = entry["fine_tuned"]["passkey"][str(n)]
    pairs = [(a, b) for d in zero for a, b in zip(zero[d], tuned[d], strict=True)]
    return sum(a == b for a, b in pairs), len(pairs)


def documents_changed(method: str, n: int) -> tuple[int, int]:
    """(passkey documents at length ``n`` whose outcome the fine-tune changed, summed over
    the seeds; all documents read at that length over the seeds)."""
    changed = extension()["methods"][method]["passkey_changed"][str(n)]
    return int(sum(changed)), passkey_documents() * len(changed)


def answer_loss(method: str, stage: str, n: int) -> float:
    """Mean loss of the passkey answers of ``method``'s models at length ``n``."""
    return span(extension()["methods"][method][stage]["passkey_answer_loss"][str(n)])[0]


def fine_tune_angle_ratios(method: str) -> np.ndarray:
    """Per pair: the largest angle the fine-tune at the target length turns it through
    with ``method``'s frequencies, over the largest training turned it through."""
    data = extension()
    s = data["settings"]
    head_dim = s["d_model"] // s["heads"]
    stored = data["methods"][method]["rope"]
    stretched, _ = rope_frequencies(head_dim, base=stored["base"], scaling=stored["scaling"])
    plain, _ = rope_frequencies(head_dim, base=data["methods"]["rope"]["rope"]["base"])
    return (data["target_len"] * stretched) / (data["train_len"] * plain)


@value("pi_same_cells")
def _():
    return str(same_cells("pi", length_at("last"))[0])


@value("pi_cells")
def _():
    return str(same_cells("pi", length_at("last"))[1])


@value("pi_changed")
def _():
    return str(documents_changed("pi", length_at("last"))[0])


@value("pi_documents")
def _():
    return str(documents_changed("pi", length_at("last"))[1])


for _method in ("pi", "rope"):
    for _stage in ("zero_shot", "fine_tuned"):
        value(f"answer_{_method}_{'zero' if _stage == 'zero_shot' else 'tuned'}_last")(
            lambda m=_method, k=_stage: f"{answer_loss(m, k, length_at('last')):.2f}"
        )


@value("pi_fine_tune_angles")
def _():
    """How the angles PI's fine-tune shows compare with training's, as the prose says it."""
    ratios = fine_tune_angle_ratios("pi")
    if np.allclose(ratios, 1.0, rtol=1e-12, atol=0):
        return "exactly the angles"
    return f"{ratios.min():.2f} to {ratios.max():.2f} times the angles"


def pairs_as_in_training(method: str) -> int:
    """Pairs whose angles in ``method``'s fine-tune are exactly those of training."""
    return int(np.isclose(fine_tune_angle_ratios(method), 1.0, rtol=1e-9, atol=0).sum())


@value("yarn_pairs_as_in_training")
def _():
    return str(pairs_as_in_training("yarn"))


@value("pairs")
def _():
    return str(len(fine_tune_angle_ratios("rope")))


@value("rope_fine_tune_angles")
def _():
    """The same ratio for the unchanged RoPE model: one number, the same for every pair."""
    return f"{fine_tune_angle_ratios('rope').max():g}"


# What the ranges cover ----------------------------------------------------------------


@value("passkey_samples")
def _():
    return str(results("length_generalisation")["settings"]["passkey_samples"])


@value("passkey_documents")
def _():
    return str(passkey_documents())


def passkey_cell_documents() -> int:
    """Documents behind one passkey cell of the tables: every seed's, at every depth."""
    return passkey_documents() * len(results("length_generalisation")["seeds"])


@value("passkey_cell_documents")
def _():
    return f"{passkey_cell_documents():,}"


def passkey_cell_se() -> float:
    """The largest binomial standard error of a cell, at an accuracy of one half."""
    return float(np.sqrt(0.25 / passkey_cell_documents()))


@value("passkey_cell_se")
def _():
    return format_bound(passkey_cell_se(), ".3f", side="upper")  # "at most"


@value("binomial_se_rope_last")
def _():
    return f"{binomial_se(passkey('rope', length_at('last'))):.2f}"


# The objective and the passkey, as the results record them ------------------------------


def task() -> dict:
    """The language and passkey settings the results record (``task``)."""
    return results("length_generalisation")["task"]


@value("passkey_share")
def _():
    return f"{results('length_generalisation')['settings']['passkey_share']:.0%}"


@value("answer_weighting")
def _():
    """The weights of the objective's two terms, as the prose names them."""
    weight = results("length_generalisation")["settings"]["answer_weight"]
    return "of equal weight" if weight == 1 else f"weighted 1 and {weight:g}"


@value("key_length")
def _():
    return str(task()["key_length"])


@value("digit_values")
def _():
    return str(task()["digit_values"])
