"""The model gallery's data: ``docs/data/models/*.json``, one open model's config each.

Each file holds the positional-encoding fields of one model's ``config.json``, copied
verbatim, with the address they were read from (``docs/data/models/README.md``). The
book computes the gallery's columns from them with the library: each entry's config is
read once (:attr:`ModelConfig.reading`, :func:`pe_explained.read_model`), and every table
and value takes that description (:func:`pe_explained.inspect_config`, …).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path

from pe_explained import ModelPositions, read_model

__all__ = ["MODELS_DIR", "ModelConfig", "load_models"]

MODELS_DIR = Path(__file__).resolve().parent.parent / "docs" / "data" / "models"


@dataclass(frozen=True)
class ModelConfig:
    """One gallery entry: the model's name, Hub repository, source address and config."""

    stem: str
    model: str
    hf_repo: str
    source_url: str
    own_file: bool
    config: dict
    released: str | None = None  # YYYY-MM, where a model card or paper states it

    @cached_property
    def reading(self) -> ModelPositions:
        """The config read once (:func:`pe_explained.read_model`), for every consumer."""
        return read_model(self.config)


@cache
def load_models() -> tuple[ModelConfig, ...]:
    """Every gallery entry, in file-name order."""
    entries = []
    for path in sorted(MODELS_DIR.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        source = data["source"]
        entries.append(
            ModelConfig(
                stem=path.stem,
                model=data["model"],
                hf_repo=data["hf_repo"],
                source_url=source["url"],
                own_file=source.get("note") is None,
                config=data["config"],
                released=data.get("released"),
            )
        )
    return tuple(entries)
