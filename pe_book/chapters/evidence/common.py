"""What chapter 22's figures, tables and values share: the names of the encodings and
methods, their line styles, and the numbers read from the results (means over seeds)."""

from __future__ import annotations

import numpy as np

from ...experiments import passkey_by_length, results, span

#: How the page names each encoding and each context-extension method.
ENCODING_LABELS = {
    "nope": "NoPE",
    "learned": "learned",
    "sinusoidal": "sinusoidal",
    "rope": "RoPE",
    "xpos": "xPos",
    "alibi": "ALiBi",
    "t5": "T5 bias",
}
METHOD_LABELS = {
    "rope": "RoPE, unchanged",
    "pi": "PI",
    "ntk": "NTK-aware",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
}
STYLES = ("-", "--", ":", "-.", "-", "--", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")


def eval_lengths() -> list[int]:
    """The evaluation lengths of the length-generalisation experiment."""
    return results("length_generalisation")["eval_lens"]


def extension() -> dict:
    """The context-extension experiment's results."""
    return results("context_extension")


def wall_minutes() -> str:
    """Both experiments' wall time, in whole minutes."""
    total = sum(
        results(n)["run"]["wall_time_s"] for n in ("length_generalisation", "context_extension")
    )
    return f"{total / 60:.0f}"


def first_block() -> float:
    """The highest first-block training loss over the encodings (seed mean)."""
    methods = results("length_generalisation")["methods"]
    return max(float(np.mean([c[0] for c in m["train_curve"]])) for m in methods.values())


def loss(encoding: str, n: int, mode: str = "non_overlapping") -> float:
    """Mean loss of ``encoding``'s models at length ``n`` (``mode``: or ``"sliding"``)."""
    metric = results("length_generalisation")["methods"][encoding][mode][str(n)]["mean"]
    return span(metric)[0]


def passkey(encoding: str, n: int) -> float:
    """Mean passkey accuracy of ``encoding``'s models at length ``n`` (over the depths)."""
    return span(passkey_by_length(results("length_generalisation")["methods"][encoding], n))[0]


def extension_loss(method: str, stage: str, n: int) -> float:
    """Mean loss of the RoPE models stretched by ``method`` (``stage``: zero_shot or
    fine_tuned) at length ``n``."""
    metrics = extension()["methods"][method][stage]
    return span(metrics["non_overlapping"][str(n)]["mean"])[0]


def extension_passkey(method: str, stage: str, n: int) -> float:
    """Mean passkey accuracy of the RoPE models stretched by ``method`` at length ``n``."""
    return span(passkey_by_length(extension()["methods"][method][stage], n))[0]


def length_at(where: str) -> int:
    """The shortest (``first``), middle (``mid``) or longest (``last``) evaluation length,
    or the context-extension length (``target``)."""
    lengths = eval_lengths()
    positions = {"first": lengths[0], "mid": lengths[len(lengths) // 2], "last": lengths[-1]}
    return positions[where] if where in positions else extension()["target_len"]
