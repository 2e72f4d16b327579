"""Dual Chunk Attention as Qwen2.5-1M ships it, read from the gallery."""

from __future__ import annotations

from functools import cache

from pe_explained import (
    dual_chunk_attention_factor,
    dual_chunk_config,
    dual_chunk_largest_distance,
)

from ... import value
from ...models import load_models
from .common import QWEN

# ---------------------------------------------------------------------------
# Dual Chunk Attention as Qwen2.5-1M ships it
# ---------------------------------------------------------------------------


@cache
def qwen() -> tuple[dict, int]:
    """Qwen2.5-14B-Instruct-1M's dual_chunk_attention_config as vLLM reads it, and the
    model's max_position_embeddings, from the gallery."""
    (entry,) = [e for e in load_models() if e.stem == QWEN]
    config = entry.config
    return dual_chunk_config(config["dual_chunk_attention_config"]), config[
        "max_position_embeddings"
    ]


def _qwen_largest(paper: bool) -> int:
    dca, longest = qwen()
    extra = {"pretraining_length": dca["original_max_position_embeddings"]} if paper else {}
    return dual_chunk_largest_distance(longest, dca["chunk_size"], dca["local_size"], **extra)


@value("qwen_chunk_size")
def _():
    return f"{qwen()[0]['chunk_size']:,}"


@value("qwen_local_size")
def _():
    return f"{qwen()[0]['local_size']:,}"


@value("qwen_chunk_len")
def _():
    return f"{qwen()[0]['chunk_len']:,}"


@value("qwen_original")
def _():
    return f"{qwen()[0]['original_max_position_embeddings']:,}"


@value("qwen_longest")
def _():
    return f"{qwen()[1]:,}"


@value("qwen_largest_code")
def _():
    return f"{_qwen_largest(paper=False):,}"


@value("qwen_largest_paper")
def _():
    return f"{_qwen_largest(paper=True):,}"


@value("qwen_factor")
def _():
    dca, longest = qwen()
    return f"{dual_chunk_attention_factor(longest, dca['original_max_position_embeddings']):.3f}"
