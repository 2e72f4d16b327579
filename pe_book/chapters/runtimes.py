"""Chapter 26, positions in the runtimes: how transformers, vLLM and llama.cpp spell the
settings of a model's RoPE, the context a server allows, and ``inspect --for``."""

from __future__ import annotations

from functools import cache

from pe_explained import rope_settings, vllm_max_model_len
from pe_explained.hf_families import DEFAULT_MAX_POSITIONS
from pe_explained.runtimes import (
    RUNTIME_COLUMNS,
    RUNTIME_SPELLINGS,
    RUNTIME_VERSIONS,
    llama_cpp_arguments,
)

from .. import Table, table, value
from ..experiments import runtime_results
from ..models import load_models
from ..text import format_cell

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
def _model(stem: str):
    """The gallery file ``<stem>.json``, read once (its :class:`ModelPositions`)."""
    (entry,) = [m for m in load_models() if m.stem == stem]
    return entry.reading


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


@value("gemma3_class_length")
def _():
    """The max_position_embeddings of transformers' Gemma3TextConfig, which vLLM reads
    where Gemma 3 27B-it's text_config states none."""
    return f"{DEFAULT_MAX_POSITIONS['gemma3_text']:,}"


@value("vllm_fallback")
def _():
    """The length vLLM assumes when a config sets no length key at all."""
    return f"{vllm_max_model_len({'head_dim': 64, 'rope_theta': 10000.0})['limit']:,}"


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
        if any(w.startswith("truncate: false") for w in llama_cpp_arguments(m.reading)["warnings"])
    ]
    if not names:
        raise ValueError("no gallery model needs a YaRN ramp without rounding any more")
    return ", ".join(names)


# --- llama.cpp itself (scripts/llama_cpp_check, docs/data/runtimes/llama_cpp.json) -----


def _diff(number: float) -> str:
    """``3.2×10⁻⁴``, as the tables print it."""
    return format_cell(float(number), ".1e")


def _flags(arguments) -> str:
    """The printed flags as code, ``-c`` and its value left out (the same for every row)."""
    shown = list(arguments)
    at = shown.index("-c")
    del shown[at : at + 2]
    return f"`{' '.join(shown)}`" if shown else "none"


def _agreement(run: dict) -> str:
    if run["agree"]:
        return "yes"
    return "no, as the warning says" if not run["reproducible"] else "**no**"


@table(
    "llama_cpp_runs",
    caption=lambda: (
        "Tiny models in transformers and in llama.cpp "
        f"{runtime_results()['versions']['llama.cpp']}, run with the flags inspect --for "
        f"llama.cpp prints (-c {runtime_results()['context']}): the largest difference of "
        f"any logit at positions 0–{runtime_results()['prompt'] - 1}."
    ),
)
def _():
    rows = []
    for run in runtime_results()["settings"]:
        rows.append(
            [
                run["label"],
                f"`{run['arch']}`",
                _flags(run["arguments"]),
                run["max_abs_diff"],
                run["tolerance"],
                _agreement(run),
            ]
        )
    columns = ["setting", "GGUF architecture", "flags printed", "largest |Δ logit|", "tolerance"]
    return Table([*columns, "agree"], rows, formats=dict.fromkeys(columns[3:], ".1e"))


@table(
    "llama_cpp_perturbed",
    caption="The same comparison with one printed value changed: each wrong value moves "
    "the logits by more than a thousand times the tolerance.",
)
def _():
    settings = {run["setting"]: run["label"] for run in runtime_results()["settings"]}
    rows = [
        [p["what"], settings[p["setting"]], p["max_abs_diff"], p["tolerance"]]
        for p in runtime_results()["perturbations"]
    ]
    columns = ["changed", "setting", "largest |Δ logit|", "tolerance"]
    return Table(columns, rows, formats=dict.fromkeys(columns[2:], ".1e"))


@value("llama_cpp_commit")
def _():
    return runtime_results()["versions"]["llama.cpp"]


@value("llama_cpp_read")
def _():
    return RUNTIME_VERSIONS["llama.cpp"]


@value("llama_cpp_python")
def _():
    return runtime_results()["versions"]["llama-cpp-python"]


def _reproducible() -> list[dict]:
    return [run for run in runtime_results()["settings"] if run["reproducible"]]


@value("llama_cpp_settings")
def _():
    return f"{len(_reproducible())}"


@value("llama_cpp_worst")
def _():
    return _diff(max(run["max_abs_diff"] for run in _reproducible()))


@value("llama_cpp_model")
def _():
    m = runtime_results()["model"]
    return (
        f"{m['num_hidden_layers']} layers, width {m['hidden_size']}, "
        f"{m['num_attention_heads']} heads of {m['head_dim']} dimensions, a vocabulary of "
        f"{m['vocab_size']}"
    )


@value("llama_cpp_noise_multiple")
def _():
    return f"{runtime_results()['noise_multiple']}"


@value("llama_cpp_prompt")
def _():
    return f"{runtime_results()['prompt']}"


@value("llama_cpp_original")
def _():
    return f"{runtime_results()['original_context']}"


@value("llama_cpp_context")
def _():
    return f"{runtime_results()['context']}"


@value("llama_cpp_warned")
def _():
    """The settings the flags warn llama.cpp cannot reproduce, and how far off they are."""
    warned = [run for run in runtime_results()["settings"] if not run["reproducible"]]
    return " and ".join(f"{run['label']} (off by {run['max_abs_diff']:.2f})" for run in warned)


@value("ministral_wrong")
def _():
    (run,) = [p for p in runtime_results()["perturbations"] if p["setting"] == "yarn-ministral3"]
    return f"{run['max_abs_diff']:.2f}"
