"""Chapter 26, positions in the runtimes: how transformers, vLLM and llama.cpp spell the
settings of a model's RoPE, the context a server allows, and ``inspect --for``."""

from __future__ import annotations

from functools import cache

from pe_explained import rope_settings, vllm_max_model_len
from pe_explained.runtimes import RUNTIME_COLUMNS, RUNTIME_SPELLINGS, llama_cpp_arguments

from .. import Table, table, value
from ..models import load_models

#: The gallery models the prose quotes.
LONGROPE_MODEL, LINEAR_MODEL = "phi-3.5-mini-instruct", "gemma-3-12b-it"


def _files(files) -> str:
    """``path (function)`` and ``path @ commit`` as ``path``, function: the files read."""
    out = []
    for entry in files:
        path, _, rest = entry.partition(" ")
        out.append(f"`{path}`" + (f" {rest.strip('()')}" if rest else ""))
    return "; ".join(out)


def _spellings(runtimes: tuple[str, ...]) -> Table:
    """One row per setting: how each of ``runtimes`` spells it, and the files read."""
    columns = ["setting", *(RUNTIME_COLUMNS[c] for c in runtimes)]
    rows = []
    for setting, cells in RUNTIME_SPELLINGS:
        row = [setting]
        for column in runtimes:
            text, files = cells[column]
            row.append(f"{text} — {_files(files)}")
        rows.append(row)
    return Table(columns, rows)


@table(
    "spellings",
    caption="Each setting the library models, as transformers spells it in its two "
    "versions, and the files it was read from (under src/transformers/).",
)
def _():
    return _spellings(("transformers 4", "transformers 5"))


@table(
    "serving",
    caption="The same settings in vLLM and llama.cpp, and the files they were read from "
    "(under vllm/ and llama.cpp's root).",
)
def _():
    return _spellings(("vLLM", "llama.cpp"))


@cache
def _model(stem: str) -> dict:
    (entry,) = [m for m in load_models() if m.stem == stem]
    return entry.config


@value("phi_limit")
def _():
    return f"{vllm_max_model_len(_model(LONGROPE_MODEL))['limit']:,}"


@value("phi_default")
def _():
    return f"{vllm_max_model_len(_model(LONGROPE_MODEL))['default']:,}"


@value("gemma_limit")
def _():
    return f"{vllm_max_model_len(_model(LINEAR_MODEL))['limit']:,}"


@value("gemma_factor")
def _():
    return f"{rope_settings(_model(LINEAR_MODEL))['full_attention'].scaling['factor']:g}"


@value("gallery_size")
def _():
    return f"{len(load_models())}"


@value("llama_cpp_inexact")
def _():
    """The gallery models whose llama.cpp flags cannot reproduce the config (a ramp that
    llama.cpp would round), as the arguments' warnings say."""
    names = [
        m.model
        for m in load_models()
        if any(w.startswith("truncate: false") for w in llama_cpp_arguments(m.config)["warnings"])
    ]
    if not names:
        raise ValueError("no gallery model needs a YaRN ramp without rounding any more")
    return ", ".join(names)
