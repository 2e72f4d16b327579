"""Chapter 25: llama.cpp's group attention as its keys are rotated, computed by
``group_attention_rotated_distances`` and measured on llama.cpp itself (the stored run of
``scripts/llama_cpp_check``, ``docs/data/runtimes/llama_cpp.json``)."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained import group_attention_distances, group_attention_rotated_distances

from ... import value
from ...experiments import runtime_results
from ...text import format_cell
from .common import GROUP, LONG_BATCH, LONG_GROUP, LONG_PROMPT, LONG_WIDTH, SEQ_LEN, WINDOW


def _attended(matrix: np.ndarray) -> np.ndarray:
    return matrix[np.tril(np.ones(matrix.shape, dtype=bool))]


@cache
def _toy() -> tuple[np.ndarray, np.ndarray]:
    return (
        _attended(group_attention_distances(SEQ_LEN, GROUP, WINDOW)),
        _attended(group_attention_rotated_distances(SEQ_LEN, GROUP, WINDOW)),
    )


@cache
def _long() -> tuple[np.ndarray, np.ndarray]:
    args = (LONG_PROMPT, LONG_GROUP, LONG_WIDTH)
    return (
        _attended(group_attention_distances(*args, batch_size=LONG_BATCH)),
        _attended(group_attention_rotated_distances(*args, batch_size=LONG_BATCH)),
    )


def _signed(number: int) -> str:
    return f"{number:,}".replace("-", "−")


@value("toy_rotated_range")
def _():
    _, turned = _toy()
    return f"{_signed(int(turned.min()))} to {_signed(int(turned.max()))}"


@value("toy_rotated_negative")
def _():
    _, turned = _toy()
    return f"{np.mean(turned < 0):.0%}"


@value("long_cells_range")
def _():
    cells, _ = _long()
    return f"{_signed(int(cells.min()))} to {_signed(int(cells.max()))}"


@value("long_rotated_range")
def _():
    _, turned = _long()
    return f"{_signed(int(turned.min()))} to {_signed(int(turned.max()))}"


@value("long_rotated_negative")
def _():
    _, turned = _long()
    return f"{np.mean(turned < 0):.0%}"


def _measured(n: int) -> dict:
    (run,) = [c for c in runtime_results()["group_attention"] if c["n"] == n]
    return run["diffs"]


@value("toy_measured_rotations")
def _():
    return format_cell(_measured(SEQ_LEN)["rotations"], ".1e")


@value("toy_measured_cells")
def _():
    return f"{_measured(SEQ_LEN)['cells']:.1f}"


@value("long_measured_rotations")
def _():
    return format_cell(_measured(LONG_PROMPT)["rotations"], ".1e")


@value("long_measured_cells")
def _():
    return f"{_measured(LONG_PROMPT)['cells']:.1f}"
