"""The results of the book's own experiments, as stored, and statistics across seeds.

The experiments (``scripts/experiments/``, run by ``python3 scripts/book.py
experiments``) write ``docs/data/experiments/<name>.json``; building the book reads
them here and needs no torch. Every metric holds one value per seed: the tables show
the mean and the range over the seeds (:func:`seed_cell`), the figures every seed.
Any chapter that reports an experiment reads it through this module.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import numpy as np

__all__ = [
    "DATA",
    "RUNTIME_DATA",
    "depth_grid",
    "passkey_by_length",
    "results",
    "runtime_results",
    "seed_cell",
    "span",
]

DATA = Path(__file__).resolve().parents[1] / "docs" / "data" / "experiments"
#: Runs of the runtimes themselves (``scripts/llama_cpp_check``): ``<name>.json``.
RUNTIME_DATA = DATA.parent / "runtimes"


@cache
def results(name: str) -> dict:
    """The results file ``docs/data/experiments/<name>.json``."""
    path = DATA / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python3 scripts/book.py experiments`")
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def runtime_results(name: str = "llama_cpp") -> dict:
    """The stored run of a runtime, ``docs/data/runtimes/<name>.json``."""
    path = RUNTIME_DATA / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `python3 scripts/book.py llama-cpp`")
    return json.loads(path.read_text(encoding="utf-8"))


def span(values) -> tuple[float, float, float]:
    """Mean, smallest and largest of the per-seed values."""
    array = np.asarray(values, dtype=float)
    return float(array.mean()), float(array.min()), float(array.max())


def seed_cell(values, spec: str = ".2f") -> str:
    """``mean (min–max)`` over the seeds; the range never breaks at its dash (word
    joiners around it), and is marked ``pe-range`` so that a phone sets it under the mean."""
    mean, low, high = span(values)
    bracket = f"({low:{spec}}\u2060–\u2060{high:{spec}})"
    return f'{mean:{spec}} <span class="pe-range">{bracket}</span>'


def passkey_by_length(metrics: dict, n: int) -> list[float]:
    """Passkey accuracy at length ``n``, averaged over the depths, one value per seed."""
    by_depth = metrics["passkey"][str(n)]
    return list(np.mean([by_depth[d] for d in by_depth], axis=0))


def depth_grid(metrics: dict, lengths: list[int]) -> np.ndarray:
    """Passkey accuracy, mean over the seeds, shape (depths, lengths)."""
    depths = list(metrics["passkey"][str(lengths[0])])
    return np.array(
        [[np.mean(metrics["passkey"][str(n)][d]) for n in lengths] for d in depths], dtype=float
    )
