"""Chapter 21: Llama 4 Scout's rule and context, from its gallery config."""

from __future__ import annotations

import numpy as np

from ... import value
from .settings import LLAMA4_INSTRUCT_CONTEXT, _reports


def _llama4_block() -> dict:
    """The rotating layers' block of Llama 4 Scout's report (the chapter's cached reports)."""
    for entry, report in _reports():
        if entry.stem == "llama-4-scout-17b-16e":
            return report["layer_types"]["default"]
    raise LookupError("the gallery has no Llama 4 Scout config")


@value("llama4_original")
def _():
    return f"{_llama4_block()['original_max_position_embeddings']:,}"


@value("llama4_context")
def _():
    return f"{_llama4_block()['max_position_embeddings']:,}"


@value("llama4_ratio")
def _():
    block = _llama4_block()
    return f"{block['max_position_embeddings'] / block['original_max_position_embeddings']:g}"


@value("llama4_instruct_ratio")
def _():
    return f"{LLAMA4_INSTRUCT_CONTEXT / _llama4_block()['original_max_position_embeddings']:,.0f}"


@value("llama4_factor")
def _():
    return f"{_llama4_block()['scaling']['factor']:g}"


def _llama4_stretch() -> np.ndarray:
    """Per-pair stretch of Llama 4 Scout's rotating layers, from its gallery config."""
    return np.array(_llama4_block()["stretch"], dtype=float)


@value("llama4_kept")
def _():
    return str(int(np.count_nonzero(_llama4_stretch() == 1.0)))


@value("llama4_divided")
def _():
    stretch = _llama4_stretch()
    return str(int(np.count_nonzero(stretch == stretch.max())))


@value("llama4_blended")
def _():
    stretch = _llama4_stretch()
    return str(int(np.count_nonzero((stretch > 1.0) & (stretch < stretch.max()))))
