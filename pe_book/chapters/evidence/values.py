"""Chapter 22's values: the numbers its prose quotes, each a mean over the seeds read
from the results files (tests/test_evidence.py checks the comparisons drawn from them)."""

from __future__ import annotations

import re

import numpy as np

from pe_explained import t5_relative_bucket

from ... import value
from ...experiments import results
from .common import (
    eval_lengths,
    extension,
    extension_loss,
    extension_passkey,
    length_at,
    loss,
    machine,
    passkey,
    train_final,
    wall_minutes,
)


@value("train_len")
def _():
    return str(results("length_generalisation")["train_len"])


@value("longest")
def _():
    return f"{max(eval_lengths()):,}"


@value("mid_len")
def _():
    return f"{length_at('mid'):,}"


@value("seeds")
def _():
    return str(len(results("length_generalisation")["seeds"]))


@value("unigram")
def _():
    return f"{np.mean(results('length_generalisation')['reference']['unigram_entropy']):.2f}"


@value("floor")
def _():
    return f"{np.mean(results('length_generalisation')['reference']['loss_floor']):.2f}"


@value("code_hash")
def _():
    return results("length_generalisation")["code_hash"][:12]


@value("factor")
def _():
    return str(extension()["factor"])


@value("target_len")
def _():
    return str(extension()["target_len"])


@value("finetune_steps")
def _():
    return str(extension()["fine_tune"]["steps"])


# Numbers quoted in the prose ---------------------------------------------------------
#
# Each is a mean over the seeds, read from the results files; ``first``, ``mid`` and
# ``last`` are the shortest, the middle and the longest evaluation length, ``target``
# the context-extension length. tests/test_evidence.py checks that the comparisons the
# page draws from them hold in the stored results.


def _quote(name: str, compute, spec: str) -> None:
    value(name)(lambda: format(compute(), spec))


for _enc, _where in (
    ("learned", "first"),
    ("learned", "last"),
    ("sinusoidal", "first"),
    ("sinusoidal", "last"),
    ("rope", "first"),
    ("rope", "second"),
    ("rope", "mid"),
    ("rope", "last"),
    ("alibi", "first"),
    ("alibi", "last"),
    ("xpos", "first"),
    ("xpos", "last"),
):
    _quote(f"loss_{_enc}_{_where}", lambda e=_enc, w=_where: loss(e, length_at(w)), ".2f")

for _where in ("first", "second", "mid", "last"):
    _quote(
        f"sliding_rope_{_where}",
        lambda w=_where: loss("rope", length_at(w), "sliding"),
        ".2f",
    )

for _enc, _where in (
    ("nope", "last"),
    ("t5", "last"),
    ("sinusoidal", "last"),
    ("alibi", "last"),
    ("rope", "last"),
    ("xpos", "last"),
    ("learned", "first"),
    ("learned", "last"),
):
    _quote(f"passkey_{_enc}_{_where}", lambda e=_enc, w=_where: passkey(e, length_at(w)), ".2f")

for _enc in ("nope", "learned", "sinusoidal", "t5", "alibi"):
    _quote(f"train_final_{_enc}", lambda e=_enc: train_final(e), ".2f")


@value("train_final_rope_xpos")
def _():
    """RoPE's and xPos's final training loss, as the prose quotes them: once if equal."""
    rope, xpos = (f"{train_final(e):.2f}" for e in ("rope", "xpos"))
    return f"both at {rope}" if rope == xpos else f"at {rope} and {xpos}"


for _method, _stage, _where in (
    ("pi", "zero", "first"),
    ("pi", "tuned", "target"),
    ("pi", "zero", "last"),
    ("pi", "tuned", "last"),
    ("ntk", "zero", "last"),
    ("dynamic", "zero", "last"),
    ("yarn", "zero", "last"),
    ("rope", "tuned", "target"),
    ("rope", "tuned", "last"),
):
    _stage_key = "zero_shot" if _stage == "zero" else "fine_tuned"
    _quote(
        f"ext_{_method}_{_stage}_{_where}",
        lambda m=_method, k=_stage_key, w=_where: extension_loss(m, k, length_at(w)),
        ".2f",
    )

for _method, _stage in (
    ("dynamic", "zero"),
    ("yarn", "zero"),
    ("ntk", "zero"),
    ("pi", "zero"),
    ("rope", "tuned"),
    ("dynamic", "tuned"),
    ("pi", "tuned"),
    ("yarn", "tuned"),
):
    _quote(
        f"ext_pk_{_method}_{_stage}_last",
        lambda m=_method, k=_stage: extension_passkey(
            m, "zero_shot" if k == "zero" else "fine_tuned", length_at("last")
        ),
        ".2f",
    )


@value("parameters")
def _():
    counts = [m["parameters"] for m in results("length_generalisation")["methods"].values()]
    return f"{round(float(np.mean(counts)), -4):,.0f}"


@value("wall_minutes")
def _():
    return wall_minutes()


@value("machine")
def _():
    return machine()


def _t5_settings() -> tuple[int, int]:
    """The T5 model's (number of buckets, max_distance), read from the results file's note."""
    note = results("length_generalisation")["notes"]["t5"]
    buckets = int(re.search(r"num_buckets=(\d+)", note).group(1))
    max_distance = int(re.search(r"max_distance=(\d+)", note).group(1))
    return buckets, max_distance


def _t5_bucket(distance):
    buckets, max_distance = _t5_settings()
    return t5_relative_bucket(
        -np.asarray(distance), bidirectional=False, num_buckets=buckets, max_distance=max_distance
    )


def t5_buckets_seen() -> tuple[int, int, int]:
    """T5 model: (longest distance in a training window, its bucket, buckets never seen).

    The bucket settings are read from the results file's note on the T5 model.
    """
    buckets, _ = _t5_settings()
    longest = results("length_generalisation")["train_len"] - 1
    seen = int(_t5_bucket(longest))
    return longest, seen, buckets - 1 - seen


def t5_first_unseen_distance() -> int:
    """The shortest distance whose T5 bucket no training window reached: the buckets are
    wider than one distance there, so it lies past the longest distance in training."""
    longest, seen, _ = t5_buckets_seen()
    _, max_distance = _t5_settings()
    distances = np.arange(longest, 2 * max_distance)
    return int(distances[np.argmax(_t5_bucket(distances) > seen)])


@value("t5_seen_distance")
def _():
    return str(t5_buckets_seen()[0])


@value("t5_seen_bucket")
def _():
    return str(t5_buckets_seen()[1])


@value("t5_unseen_buckets")
def _():
    return str(t5_buckets_seen()[2])


@value("t5_bucket_end")
def _():
    """The longest distance in the last bucket training reached."""
    return str(t5_first_unseen_distance() - 1)


@value("t5_first_unseen")
def _():
    return str(t5_first_unseen_distance())
