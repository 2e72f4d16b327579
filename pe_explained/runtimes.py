"""A model's positions in two runtimes: the llama.cpp flags and the vLLM arguments.

A ``config.json`` states its rotary embedding for ``transformers``; a runtime that
serves the model reads the same settings under other names, and not all of them.
:func:`llama_cpp_arguments` and :func:`vllm_arguments` turn a config, as
:func:`~pe_explained.rope_settings` reads it, into the command-line arguments that
give the model the same inverse frequencies and attention factor there, each with
warnings where the runtime cannot express a setting and notes on what it takes from
elsewhere (a GGUF file's metadata or tensors). :func:`vllm_max_model_len` gives the
context vLLM allows for the config, and :data:`RUNTIME_SPELLINGS` how every setting
is spelled in each project.

The code read, and cited below by file:

* **llama.cpp** at commit 0c1e57098, the tree ``llama-cpp-python`` 0.3.36 vendors, read
  (the flags printed were also run on it, ``scripts/llama_cpp_check``):
  ``src/llama-model.cpp`` (``load_hparams``: GGUF keys, ``get_rope_freq_base``,
  ``get_rope_factors``), ``src/models/*.cpp`` (each architecture's
  ``load_arch_hparams``), ``src/llama-context.cpp`` (the ``llama_context`` constructor:
  flags over GGUF values, YaRN's attention factor), ``src/llama-arch.cpp`` (key names),
  ``common/common.h`` and ``common/fit.cpp`` (defaults), ``common/arg.cpp`` (the flags),
  ``ggml/src/ggml.c`` (``ggml_rope_yarn_corr_dims``), ``ggml/src/ggml-cpu/ops.cpp``
  (``rope_yarn``), ``convert_hf_to_gguf.py`` and ``conversion/*.py`` (what conversion
  writes).
* **vLLM** 0.33.0: ``model_executor/layers/rotary_embedding/`` (``get_rope`` and one
  class per type), ``config/model.py`` (``hf_overrides``, ``_get_and_verify_max_len``),
  ``transformers_utils/model_arch_config_convertor.py`` (the length keys).
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Mapping

import numpy as np

from ._checks import check_choice, check_config_int, check_optional
from .hf_config import ALL_LAYERS
from .hf_families import DEFAULT_MAX_POSITIONS
from .model_reading import read_model
from .rope import rope_frequencies

__all__ = [
    "RUNTIMES",
    "RUNTIME_VERSIONS",
    "format_runtime_arguments",
    "llama_cpp_arguments",
    "runtime_arguments",
    "vllm_arguments",
    "vllm_max_model_len",
]

#: The runtimes :func:`runtime_arguments` knows, as ``inspect --for`` names them.
RUNTIMES = ("llama.cpp", "vllm")
#: The version of each runtime whose code the arguments follow (llama.cpp: the commit
#: read and run, the one ``llama-cpp-python`` 0.3.36 vendors).
RUNTIME_VERSIONS = {"llama.cpp": "0c1e57098", "vllm": "0.33.0"}

#: The GGUF key prefix, written as a placeholder: a GGUF's ``general.architecture``.
ARCH = "ARCH"
#: vLLM's length keys, smallest wins (``derive_max_model_len_and_key``).
_VLLM_LENGTH_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
#: Types whose ``factor`` vLLM does not multiply into the maximum length.
_VLLM_UNSCALED = ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling")


def _number(x) -> str:
    """A float as the shortest text that reads back as the same float64 (``repr``)."""
    return repr(float(x))


def _primary(settings: Mapping) -> str:
    """The layer type the runtime's global settings stand for: full attention first."""
    for name in ("full_attention", ALL_LAYERS):
        if settings.get(name) is not None:
            return name
    for name, entry in settings.items():
        if entry is not None:
            return name
    raise ValueError("config has no layer type with RoPE (every rope_parameters entry is null)")


def _yarn_betas(scaling: Mapping) -> tuple[float, float]:
    # transformers and the library read `beta_fast or 32`, `beta_slow or 1`
    return float(scaling.get("beta_fast") or 32.0), float(scaling.get("beta_slow") or 1.0)


def _context(settings, seq_len):
    """The context the arguments ask for: ``seq_len``, else ``max_position_embeddings``."""
    if seq_len is not None:
        return seq_len
    return None if settings is None else settings.max_position_embeddings


def _start(runtime: str, config, seq_len):
    """Checked arguments, the config's description (:func:`~pe_explained.read_model`),
    its RoPE settings and the result skeleton shared by both runtimes."""
    seq_len = check_optional(check_config_int, "seq_len", seq_len, kind="length")
    model = read_model(config)
    result = {
        "runtime": runtime,
        "version": RUNTIME_VERSIONS[runtime],
        "layer_type": None,
        "arguments": [],
        "warnings": [],
        "notes": [],
    }
    scheme = model.nonrotary
    if scheme is not None:
        result["notes"].append(
            f"no rotary embedding ({scheme.kind} positions): nothing to set but the context"
        )
        rows = scheme.positions
        if scheme.kind == "learned" and seq_len is not None and rows and seq_len > rows:
            raise ValueError(
                f"seq_len {seq_len} is past the {rows} positions of the model's learned "
                f"table ({scheme.read_from[0]}): positions {rows} and later have "
                "no embedding, so no runtime flag can serve them"
            )
        return model, seq_len, None, None, result, rows
    if not model.rotates:  # attention without rotation, or none (Kimi Linear, Nemotron-H)
        result["notes"].append("no layer rotates: nothing to set but the context")
        length = model.text.get("max_position_embeddings")
        name = f"{model.read_from}['max_position_embeddings']"
        context = None if length is None else check_config_int(name, length, "length")
        return model, seq_len, None, None, result, context
    settings = model.answer("rope")
    primary = _primary(settings)
    result["layer_type"] = primary
    return model, seq_len, settings, primary, result, None


def llama_cpp_arguments(config, *, seq_len=None) -> dict:
    """The llama.cpp flags that give a model the positions its ``config.json`` states.

    llama.cpp reads a model's RoPE from its GGUF file (``{arch}.rope.freq_base``,
    ``.rope.scaling.type``, ``.rope.scaling.factor``,
    ``.rope.scaling.original_context_length``, ``.rope.dimension_count``; ``llama-model.cpp``);
    flags override them for the layers that are not sliding-window ones
    (``llama-context.cpp``, ``get_rope_freq_base``). The flags printed restate every
    value, so that the positions do not depend on what a conversion wrote:

    * ``--rope-freq-base`` with the base; ``--rope-scaling none`` (plain RoPE, Llama 3's rule,
      dynamic NTK), ``linear`` or ``yarn`` with ``--rope-freq-scale 1/factor``
      (``--rope-scale factor`` is the same), and for YaRN ``--yarn-orig-ctx``,
      ``--yarn-ext-factor 1``, ``--yarn-beta-fast``, ``--yarn-beta-slow``;
    * ``-c N``: ``seq_len``, else ``max_position_embeddings``;
    * YaRN's attention factor: with YaRN on, llama.cpp multiplies cos and sin by
      ``(0.1 ln s + 1) · {arch}.rope.scaling.attn_factor`` and ignores
      ``--yarn-attn-factor`` (``llama-context.cpp`` overwrites it, ``ops.cpp``'s
      ``rope_yarn`` applies ``0.1 ln s + 1``); an attention factor ``A`` that differs
      is set with ``--override-kv ARCH.rope.scaling.attn_factor=float:A/(0.1 ln s + 1)``;
      DeepSeek's ``mscale``/``mscale_all_dim`` ratio with
      ``--override-kv ARCH.rope.scaling.yarn_log_multiplier=float:0.1·mscale_all_dim``
      (the ``deepseek2`` and ``deepseek32`` loaders divide the key by 0.1); Mistral 3's
      loader reads the key as the converter wrote it, so nothing is printed for it
      (:data:`YARN_LOG_MULTIPLIER_LOADERS`). ``ARCH`` stands for the GGUF's
      ``general.architecture``;
    * sliding-window layers take their base from ``ARCH.rope.freq_base_swa``.

    Warnings say what the flags cannot express: Llama 3's rule and LongRoPE's factors
    (tensors ``rope_freqs``, ``rope_factors_long``/``_short`` of the GGUF, written by
    ``convert_hf_to_gguf.py``), dynamic NTK (one base, the one ``transformers`` uses at
    ``N`` tokens), YaRN with ``truncate: false`` (llama.cpp always rounds the ramp's
    ends to whole pairs), Dual Chunk Attention, other layer types.

    A model none of whose layers rotates gets only ``-c``. A ``seq_len`` past a learned
    position table (GPT-2's ``n_positions``) is refused: those positions have no
    embedding.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded (read by :func:`~pe_explained.rope_settings`).
    seq_len : int, optional
        The context to run at (``-c``); by default ``max_position_embeddings``. Dynamic
        NTK's base and LongRoPE's choice of factors depend on it.

    Returns
    -------
    dict
        ``runtime``, ``version``, ``layer_type`` (the one the flags stand for),
        ``arguments`` (a list of strings, ready for ``subprocess``), ``warnings``,
        ``notes``.

    Examples
    --------
    >>> yarn = {"head_dim": 128, "max_position_embeddings": 32768, "rope_theta": 1e6,
    ...         "rope_scaling": {"rope_type": "yarn", "factor": 4.0,
    ...                          "original_max_position_embeddings": 8192}}
    >>> " ".join(llama_cpp_arguments(yarn)["arguments"])  # doctest: +NORMALIZE_WHITESPACE
    '--rope-freq-base 1000000.0 --rope-scaling yarn --rope-freq-scale 0.25
     --yarn-orig-ctx 8192 --yarn-ext-factor 1 --yarn-beta-fast 32.0 --yarn-beta-slow 1.0
     -c 32768'
    """
    model, seq_len, settings, primary, result, positions = _start("llama.cpp", config, seq_len)
    args, warn, note = result["arguments"], result["warnings"], result["notes"]
    if settings is None:
        if (context := seq_len or positions) is not None:
            args += ["-c", str(context)]
        return result
    s = settings[primary]
    n = _context(s, seq_len)
    scaling = dict(s.scaling or {})
    base = s.rope_theta
    if s.rope_type == "dynamic":
        base = _dynamic_base(s, n)
        warn.append(
            "dynamic NTK: llama.cpp has no such type and keeps one base; this is the base "
            f"transformers uses at {n} tokens (it rescales it with the current length)"
        )
    args += ["--rope-freq-base", _number(base)]
    if s.rope_type == "linear":
        args += ["--rope-scaling", "linear", "--rope-freq-scale", _number(1 / scaling["factor"])]
    elif s.rope_type == "yarn":
        _llama_cpp_yarn(
            s, scaling, args, warn, note, sliding=len(settings) > 1, family=model.model_types
        )
    elif s.rope_type != "longrope":
        args += ["--rope-scaling", "none"]
    if s.rope_type == "llama3":
        warn.append(
            "Llama 3's rule: no flag; convert_hf_to_gguf.py writes its per-pair divisors "
            "as the GGUF tensor rope_freqs, which llama.cpp divides each angle by; a GGUF "
            "without it rotates as plain RoPE"
        )
    if s.rope_type == "longrope":
        # llama_context rounds -c up to a multiple of 256 (n_ctx_seq) before
        # get_rope_factors compares it with L
        long = n is not None and -(-n // 256) * 256 > s.original_max_position_embeddings
        warn.append(
            "LongRoPE: the factors are GGUF tensors (rope_factors_long, rope_factors_short) "
            "written by convert_hf_to_gguf.py, with the attention factor as "
            f"{ARCH}.rope.scaling.attn_factor; llama.cpp uses the "
            f"{'long' if long else 'short'} factors for every token, chosen by -c (rounded "
            f"up to a multiple of 256) against {s.original_max_position_embeddings} "
            "(transformers switches with the current length)"
        )
    if s.rope_type == "proportional":
        warn.append("proportional RoPE (p-RoPE): its zeroed pairs are not set by flags")
    if s.rotary_dim != s.head_dim and s.rope_type != "proportional":
        note.append(
            f"rotated dimensions: {s.rotary_dim} of {s.head_dim}, the GGUF's "
            f"{ARCH}.rope.dimension_count (written at conversion; no flag)"
        )
    if "mrope_section" in s.extra:
        note.append(f"M-RoPE sections: the GGUF's {ARCH}.rope.dimension_sections (no flag)")
    _other_layer_types(settings, primary, args, warn, note)
    _layer_pattern(model, args, warn)
    if model.text.get("dual_chunk_attention_config"):
        warn.append(
            "dual_chunk_attention_config: llama.cpp 0c1e57098 has no Dual Chunk Attention; "
            "positions run on as plain RoPE"
        )
    if n is not None:
        args += ["-c", str(n)]
        if s.rope_type == "yarn":
            reach = int(float(scaling["factor"]) * s.original_max_position_embeddings)
            if reach > n:
                note.append(
                    f"YaRN ×{float(scaling['factor']):g} of {s.original_max_position_embeddings} "
                    f"reaches {reach} tokens; -c {n} is the config's max_position_embeddings "
                    "(a larger --seq-len asks for more)"
                )
    if any(a.startswith(ARCH + ".") for a in args):
        note.append(f"{ARCH}: the GGUF's general.architecture (llama, qwen2, …)")
    return result


def _dynamic_base(settings, n) -> float:
    """The base transformers' dynamic NTK uses at ``n`` tokens (its own at load without n),
    read back from the frequencies :func:`~pe_explained.rope_frequencies` gives there."""
    if n is None or n <= settings.max_position_embeddings:
        return float(settings.rope_theta)  # transformers rescales only past this length
    inv_freq, _ = settings.frequencies(n)
    # ω_1 = base'^(−2/d)  ⇔  base' = ω_1^(−d/2)
    return float(inv_freq[1] ** (-settings.rotary_dim / 2))


#: The families whose llama.cpp loader reads ``{arch}.rope.scaling.yarn_log_multiplier``
#: (llama.cpp 0c1e57098, ``src/models/*.cpp``, ``load_hparams``): model_type → the GGUF
#: architecture the converter gives them, and whether the loader divides the key by 0.1
#: (``deepseek2.cpp``, ``deepseek32.cpp``: [TAG_DEEPSEEK2_YARN_LOG_MUL_FIX]) or reads it
#: as it is (``mistral3.cpp``). Every other architecture ignores the key.
YARN_LOG_MULTIPLIER_LOADERS = {
    "deepseek_v2": ("deepseek2", True),
    "deepseek_v3": ("deepseek2", True),
    "kimi_k2": ("deepseek2", True),
    "deepseek_v32": ("deepseek32", True),
    "mistral3": ("mistral3", False),
    "ministral3": ("mistral3", False),
}


def _yarn_log_loader(family):
    """(architecture, divides by 0.1) for a family whose loader reads the key, else None."""
    for model_type in family:
        if model_type in YARN_LOG_MULTIPLIER_LOADERS:
            return YARN_LOG_MULTIPLIER_LOADERS[model_type]
    return None


def _mscale(scale: float, mscale: float) -> float:
    """``get_mscale`` of llama-context.cpp: 1 for s <= 1, else 0.1 · mscale · ln s + 1."""
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _llama_cpp_yarn(s, scaling, args, warn, note, *, sliding, family=()) -> None:
    factor = float(scaling["factor"])
    fast, slow = _yarn_betas(scaling)
    args += ["--rope-scaling", "yarn", "--rope-freq-scale", _number(1 / factor)]
    args += ["--yarn-orig-ctx", str(s.original_max_position_embeddings)]
    args += ["--yarn-ext-factor", "1", "--yarn-beta-fast", _number(fast)]
    args += ["--yarn-beta-slow", _number(slow)]
    _, attention = s.frequencies()
    builtin = 1.0 + 0.1 * math.log(factor)  # llama-context.cpp × rope_yarn: 0.1 ln s + 1
    mscale, mscale_all_dim = scaling.get("mscale"), scaling.get("mscale_all_dim")
    loader = _yarn_log_loader(family)
    if scaling.get("attention_factor") is None and mscale and mscale_all_dim and loader:
        arch, divides = loader
        if divides:  # the loader divides the key by 0.1 (src/models/deepseek2.cpp)
            args += ["--override-kv", f"{ARCH}.rope.scaling.yarn_log_multiplier=float:"]
            args[-1] += _number(0.1 * mscale_all_dim)
            note.append(
                f"mscale / mscale_all_dim: llama.cpp's {arch} loader reads mscale_all_dim "
                f"from {ARCH}.rope.scaling.yarn_log_multiplier divided by 0.1, and takes "
                "mscale = mscale_all_dim"
            )
        else:  # src/models/mistral3.cpp reads the key as it is; the converter wrote it so
            note.append(
                f"mscale_all_dim: llama.cpp's {arch} loader reads it as it is from "
                f"{ARCH}.rope.scaling.yarn_log_multiplier, where convert_hf_to_gguf.py "
                "writes it: no override (an override of 0.1 would make the attention "
                f"factor {_mscale(factor, 1.0) / _mscale(factor, 0.1):.4f})"
            )
        taken = mscale_all_dim if divides else 1.0  # llama_context: mscale 1 but deepseek2
        if not math.isclose(mscale, taken, rel_tol=1e-12) and not (
            divides and math.isclose(mscale, 1.0)
        ):
            warn.append(f"mscale {mscale:g}: llama.cpp's {arch} loader takes it as {taken:g}")
    elif not math.isclose(attention, builtin, rel_tol=1e-12):
        args += ["--override-kv", f"{ARCH}.rope.scaling.attn_factor=float:"]
        args[-1] += _number(attention / builtin)
        if sliding:
            warn.append(
                "llama.cpp applies rope.scaling.attn_factor to the sliding-window layers too"
            )
    if scaling.get("truncate") is False:
        exact, _ = s.frequencies()
        rounded, _ = rope_frequencies(
            s.head_dim,
            base=s.rope_theta,
            scaling={**scaling, "truncate": True},
            partial_rotary_factor=s.partial_rotary_factor,
        )
        gap = float(np.max(np.abs(rounded / exact - 1.0)))
        warn.append(
            "truncate: false cannot be expressed: llama.cpp always rounds YaRN's ramp to "
            f"whole pairs (ggml_rope_yarn_corr_dims); frequencies differ by up to {gap:.1%}"
        )


#: Families whose llama.cpp loader takes the sliding-window layers from a period, not from
#: the config's ``layer_types`` (the converter writes no pattern): model_type → the period
#: ``load_swa_pattern`` assumes (llama.cpp 0c1e57098, ``src/models/gemma3.cpp``): layer
#: ``i`` slides unless ``i % P == P − 1``. ``{arch}.attention.sliding_window_pattern``
#: given as an integer sets another period.
SLIDING_PERIODS = {"gemma3": 6, "gemma3_text": 6}


def _layer_pattern(model, args, warn) -> None:
    """The override that gives llama.cpp a Gemma 3's sliding layers, or a warning."""
    period = next((SLIDING_PERIODS[f] for f in model.model_types if f in SLIDING_PERIODS), None)
    layer_types = model.text.get("layer_types")
    if period is None or not layer_types:
        return
    full = [i for i, kind in enumerate(layer_types) if kind != "sliding_attention"]
    if not full:
        return
    p = full[0] + 1  # a period P has its first full layer at P − 1
    if all((kind != "sliding_attention") == (i % p == p - 1) for i, kind in enumerate(layer_types)):
        if p != period:
            args += ["--override-kv", f"{ARCH}.attention.sliding_window_pattern=int:{p}"]
        return
    warn.append(
        f"layer_types: llama.cpp's gemma3 loader takes every {period}th layer as global, or "
        "a period given as attention.sliding_window_pattern; this config's layers follow no "
        "period and cannot be expressed"
    )


def _other_layer_types(settings, primary, args, warn, note) -> None:
    for name, entry in settings.items():
        if name == primary or entry is None:
            continue
        if name == "sliding_attention" and entry.rope_type == "default":
            args += ["--override-kv", f"{ARCH}.rope.freq_base_swa=float:"]
            args[-1] += _number(entry.rope_theta)
            note.append(
                "sliding-window layers: --rope-freq-base does not reach them; their base is "
                f"the GGUF's {ARCH}.rope.freq_base_swa"
            )
        else:
            warn.append(
                f"layer type {name!r} ({entry.rope_type}, base {entry.rope_theta:g}): "
                "not set by these flags"
            )


def _vllm_parameters(s, seq_len) -> dict:
    """One layer type's ``rope_parameters`` as vLLM's ``get_rope`` reads them (v5 spelling)."""
    params = {"rope_type": s.rope_type, "rope_theta": s.rope_theta}
    if s.partial_rotary_factor != 1.0:
        params["partial_rotary_factor"] = s.partial_rotary_factor
    for key, value in (s.scaling or {}).items():
        if key != "rope_type":
            params[key] = list(value) if isinstance(value, (list, tuple)) else value
    for key, value in s.extra.items():
        params[key] = list(value) if isinstance(value, (list, tuple)) else value
    if s.rope_type == "yarn":  # vLLM passes the keys on as given: null would reach its formula
        params["beta_fast"], params["beta_slow"] = _yarn_betas(params)
    if s.rope_type == "dynamic":
        n = _context(s, seq_len)
        params = {
            "rope_type": "default",
            "rope_theta": _dynamic_base(s, n),
            **{k: v for k, v in params.items() if k == "partial_rotary_factor"},
        }
    return params


def vllm_arguments(config, *, seq_len=None) -> dict:
    """The vLLM arguments that give a model the positions its ``config.json`` states.

    ``--hf-overrides`` with the whole ``rope_parameters`` (``text_config``'s for a
    multimodal config; one dict per layer type where the config has several), in the
    spelling ``transformers`` 5 writes and vLLM's ``get_rope`` reads: vLLM 0.33.0 sets
    a dict given there as the config's attribute, replacing the one read from the file
    (``config/model.py``, ``_apply_dict_overrides``), and ``get_rope`` takes the base
    from it, 10000 where it holds none (``rotary_embedding/__init__.py``). Then
    ``--max-model-len N``: ``seq_len``, else ``max_position_embeddings``.

    vLLM refuses an ``N`` above the length it derives from the config it reads, the
    overrides applied (:func:`vllm_max_model_len`; ``_get_and_verify_max_len``),
    unless ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` is set. For such an ``N`` the override
    also sets ``max_position_embeddings`` (and any smaller length key of the config)
    to ``N``, so that the arguments printed are accepted, with a warning; LongRoPE's
    attention factor, which vLLM computes from ``max_position_embeddings``, is then
    stated as ``short_mscale`` and ``long_mscale``. vLLM 0.33.0 does not multiply a
    YaRN config's length by its ``factor``: turning YaRN on takes both the RoPE
    settings and the longer ``max_position_embeddings``. (Before vLLM pull request
    #56446, merged in September 2026, ``_get_and_verify_max_len`` took a YaRN
    config's length as ``original_max_position_embeddings × factor``; read at commit
    0052a5b of ``config/model.py``.)

    Warnings: dynamic NTK (vLLM keeps one base; the one printed is the base
    ``transformers`` uses at ``N`` tokens), LongRoPE (vLLM uses the long factors at
    every position once ``N`` exceeds the original context,
    ``phi3_long_rope_scaled_rope.py``), an ``N`` above the length vLLM derives, and a
    ``dual_chunk_attention_config``: vLLM 0.33.0 passes it to its attention layers
    but no backend of its engine runs Dual Chunk Attention. Its one backend
    (``DUAL_CHUNK_FLASH_ATTN``) belonged to the V0 engine and left with it in 0.11.0
    (vLLM pull request #25351; issue #49296); it ran on vLLM up to 0.10, with
    ``VLLM_USE_V1=0`` and ``VLLM_ATTENTION_BACKEND=DUAL_CHUNK_FLASH_ATTN``.

    A model none of whose layers rotates gets only the context, with the lengthening
    override where it is above vLLM's; a ``seq_len`` past a learned position table is
    refused, as by :func:`llama_cpp_arguments`.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded.
    seq_len : int, optional
        The context to serve (``--max-model-len``); by default ``max_position_embeddings``.

    Returns
    -------
    dict
        As :func:`llama_cpp_arguments`.

    Examples
    --------
    >>> llama31 = {"head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 5e5,
    ...            "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
    ...                             "low_freq_factor": 1.0, "high_freq_factor": 4.0,
    ...                             "original_max_position_embeddings": 8192}}
    >>> args = vllm_arguments(llama31)["arguments"]
    >>> args[0], json.loads(args[1])["rope_parameters"]["rope_theta"], args[2:]
    ('--hf-overrides', 500000.0, ['--max-model-len', '131072'])
    """
    model, seq_len, settings, primary, result, positions = _start("vllm", config, seq_len)
    args, warn, note = result["arguments"], result["warnings"], result["notes"]
    if settings is None:
        n = seq_len or positions
        limit = _vllm_limits(model, [])
        overrides = _vllm_longer(model, n, limit, warn)
        _vllm_overrides(model, overrides, args)
        if n is not None:
            args += ["--max-model-len", str(n)]
        return result
    s = settings[primary]
    n = _context(s, seq_len)
    types = [name for name, entry in settings.items() if entry is not None]
    overrides: dict = {}
    if set(types) <= {ALL_LAYERS, "full_attention", "sliding_attention"}:
        printed = {k: _vllm_parameters(e, seq_len) for k, e in settings.items() if e is not None}
        if len(settings) == 1:
            overrides["rope_parameters"] = printed[primary]
        else:
            overrides["rope_parameters"] = {name: printed.get(name) for name in settings}
        rope = list(printed.values())  # the RoPE dicts vLLM reads, overrides applied
    else:
        warn.append(
            f"layer types {', '.join(map(repr, types))}: vLLM's model code for this family "
            "reads them; no rope_parameters in --hf-overrides"
        )
        printed, rope = {}, [_rope_dict(e) for e in settings.values() if e is not None]
    limit = _vllm_limits(model, rope)
    if longer := _vllm_longer(model, n, limit, warn):
        overrides.update(longer)
        for name, params in printed.items():  # vLLM: LongRoPE's factor from the length
            if params["rope_type"] == "longrope":
                attention = float(settings[name].frequencies(n)[1])
                params.setdefault("short_mscale", attention)
                params.setdefault("long_mscale", attention)
    _vllm_overrides(model, overrides, args)
    if s.rope_type == "proportional" and (s.scaling or {}).get("factor") not in (None, 1.0):
        warn.append("proportional RoPE: vLLM's Gemma4RotaryEmbedding does not read factor")
    if s.rope_type == "dynamic":
        warn.append(
            "dynamic NTK: vLLM keeps one base (dynamic_ntk_scaling_rope.py); the override "
            f"is the base transformers uses at {n} tokens (it rescales it with the length)"
        )
    if s.rope_type == "longrope" and n is not None:
        long = n > s.original_max_position_embeddings
        warn.append(
            f"LongRoPE: with --max-model-len {n} vLLM uses the {'long' if long else 'short'} "
            "factors at every position (phi3_long_rope_scaled_rope.py); transformers switches "
            f"past {s.original_max_position_embeddings} tokens of the current sequence"
        )
    if model.text.get("dual_chunk_attention_config"):
        warn.append(
            "dual_chunk_attention_config: vLLM 0.33.0 passes it to its attention layers, but "
            "no backend of its engine runs Dual Chunk Attention; its one backend, "
            "DUAL_CHUNK_FLASH_ATTN, belonged to the V0 engine and left with it in 0.11.0 "
            "(vLLM pull request #25351). It ran on vLLM up to 0.10, with VLLM_USE_V1=0 and "
            "VLLM_ATTENTION_BACKEND=DUAL_CHUNK_FLASH_ATTN"
        )
    if n is not None:
        args += ["--max-model-len", str(n)]
    note.append(
        f"without --max-model-len vLLM serves {limit['default']} tokens (from {limit['key']}"
        ", or a smaller model_max_length in tokenizer_config.json)"
    )
    return result


def vllm_max_model_len(config) -> dict:
    """The context vLLM 0.33.0 allows a model, from its ``config.json``.

    ``_get_and_verify_max_len`` (``config/model.py``) takes the smallest of the length
    keys the text config sets (``max_position_embeddings``, ``n_positions``,
    ``max_seq_len``, …; ``model_max_length`` wins where set) and multiplies it by the
    RoPE ``factor`` unless the type is ``"llama3"``, ``"yarn"`` or ``"longrope"`` (whose
    configs already state the extended length) or the model type is a Gemma 3. Without
    ``--max-model-len`` vLLM serves that length, except for LongRoPE, where it serves
    ``original_max_position_embeddings``; a larger ``--max-model-len`` is refused.
    (A tokenizer's ``model_max_length`` can lower both; it is not in the config.)

    vLLM reads the keys from ``transformers``' configuration object, not from the file:
    where the text config states no ``max_position_embeddings``, its class's default
    stands (:data:`~pe_explained.hf_families.DEFAULT_MAX_POSITIONS`: 131,072 for Gemma
    3, whose 27B-it file states none), and vLLM's own 2,048 only where no length key
    is set at all.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded.

    Returns
    -------
    dict
        ``limit`` (the largest ``--max-model-len`` accepted), ``default`` (what vLLM
        serves without one) and ``key`` (the config key the length came from).

    Examples
    --------
    >>> linear = {"head_dim": 64, "max_position_embeddings": 4096, "rope_theta": 1e4,
    ...           "rope_scaling": {"rope_type": "linear", "factor": 4.0}}
    >>> vllm_max_model_len(linear)
    {'limit': 16384, 'default': 16384, 'key': 'max_position_embeddings'}
    """
    model = read_model(config)
    settings = () if model.nonrotary is not None else model.answer("rope").values()
    return _vllm_limits(model, [_rope_dict(s) for s in settings if s is not None])


def _rope_dict(settings) -> dict:
    """One layer type's RoPE as the dict vLLM's length rule reads (type, ``factor``)."""
    return {**(settings.scaling or {}), "rope_type": settings.rope_type}


def _vllm_length(model) -> tuple[int, str]:
    """The length ``_get_and_verify_max_len`` starts from, and the key it comes from."""
    cfg, path = model.text, model.read_from
    values = {}
    for name in _VLLM_LENGTH_KEYS:
        if cfg.get(name) is not None:
            values[name] = check_config_int(f"{path}[{name!r}]", cfg[name], "length")
    family = model.model_type
    if "max_position_embeddings" not in values and family in DEFAULT_MAX_POSITIONS:
        # vLLM reads the configuration object: its class's default where the file has none
        values["max_position_embeddings"] = DEFAULT_MAX_POSITIONS[family]
        named = {"max_position_embeddings": f"max_position_embeddings of {family}'s class"}
    else:
        named = {}
    if values.get("model_max_length"):
        return values["model_max_length"], "model_max_length"
    if not values:
        return 2048, "vLLM's default (no length key in the config)"
    key = min(values, key=values.get)  # the smallest; the first of equals
    return values[key], named.get(key, key)


def _vllm_limits(model, rope: list[dict]) -> dict:
    """:func:`vllm_max_model_len` for the RoPE dicts vLLM reads (the file's or an
    override's)."""
    length, key = _vllm_length(model)
    model_type = model.model_types[0] if model.model_types else ""
    if rope and "gemma3" not in model_type:
        factor = 1.0
        for params in rope:
            if params["rope_type"] not in _VLLM_UNSCALED and "factor" in params:
                factor = float(params["factor"] or 1.0)
        length = length * factor
    limit = int(length)
    default = limit
    if any(params["rope_type"] == "longrope" for params in rope):
        value = model.file.get("original_max_position_embeddings")
        name = "config['original_max_position_embeddings']"
        default = limit if value is None else check_config_int(name, value, "length")
    return {"limit": limit, "default": default, "key": key}


def _vllm_longer(model, n: int | None, limit: dict, warn: list) -> dict:
    """The length keys that let vLLM accept ``--max-model-len n`` above the ``limit`` it
    derives (``max_position_embeddings`` and every smaller length key the text config
    sets, all ``n``), with a warning; nothing where ``n`` is within it."""
    if n is None or n <= limit["limit"]:
        return {}
    cfg = model.text
    longer = {"max_position_embeddings": n}
    for name in _VLLM_LENGTH_KEYS:
        if cfg.get(name) is not None and cfg[name] < n:
            longer[name] = n
    warn.append(
        f"--max-model-len {n} is above the {limit['limit']} vLLM derives from "
        f"{limit['key']}, which it refuses unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: the "
        f"override sets max_position_embeddings to {n}, past the length the config gives"
    )
    return longer


def _vllm_overrides(model, overrides: dict, args: list) -> None:
    """``--hf-overrides`` with ``overrides``, where there are any: a multimodal config's
    (its RoPE and lengths live in its ``text_config``, :func:`~pe_explained.hf_config.text_part`)
    under that key."""
    if overrides:
        if model.read_from != "config":
            overrides = {"text_config": overrides}
        args += ["--hf-overrides", json.dumps(overrides, allow_nan=False)]


def runtime_arguments(config, runtime, *, seq_len=None) -> dict:
    """:func:`llama_cpp_arguments` or :func:`vllm_arguments`, by ``runtime`` (see RUNTIMES).

    Examples
    --------
    >>> runtime_arguments({"head_dim": 64, "rope_theta": 1e4}, "llama.cpp")["arguments"]
    ['--rope-freq-base', '10000.0', '--rope-scaling', 'none']
    """
    runtime = check_choice("runtime", runtime, RUNTIMES)
    build = llama_cpp_arguments if runtime == "llama.cpp" else vllm_arguments
    return build(config, seq_len=seq_len)


def format_runtime_arguments(result: Mapping, name: str | None = None) -> str:
    """The text ``inspect --for`` prints: the arguments, quoted for a shell, then the
    warnings and notes, one per line.

    Examples
    --------
    >>> print(format_runtime_arguments(runtime_arguments(
    ...     {"head_dim": 64, "rope_theta": 1e4, "max_position_embeddings": 2048}, "vllm")))
    ... # doctest: +NORMALIZE_WHITESPACE
    vllm 0.33.0
      --hf-overrides '{"rope_parameters": {"rope_type": "default", "rope_theta": 10000.0}}'
      --max-model-len 2048
    note: without --max-model-len vLLM serves 2048 tokens (from max_position_embeddings,
    or a smaller model_max_length in tokenizer_config.json)
    """
    head = f"{result['runtime']} {result['version']}"
    if name:
        head += f" arguments for {name}"
    if result.get("layer_type") not in (None, ALL_LAYERS):
        head += f" (layer type {result['layer_type']})"
    lines = [head]
    args = list(result["arguments"])
    i = 0
    while i < len(args):  # a flag and its value on one line
        if i + 1 < len(args) and not args[i + 1].startswith("-"):
            lines.append(f"  {args[i]} {shlex.quote(args[i + 1])}")
            i += 2
        else:
            lines.append(f"  {args[i]}")
            i += 1
    lines += [f"warning: {w}" for w in result["warnings"]]
    lines += [f"note: {n}" for n in result["notes"]]
    return "\n".join(lines)


#: The version each column of :data:`RUNTIME_SPELLINGS` was read at (llama.cpp: every
#: file of its column at the one commit, the one that is also built and run).
RUNTIME_COLUMNS = {
    "transformers 4": "transformers 4.57.1",
    "transformers 5": "transformers 5.23.0",
    "vLLM": "vLLM 0.33.0",
    "llama.cpp": f"llama.cpp {RUNTIME_VERSIONS['llama.cpp']}",
}
_RU = "modeling_rope_utils.py"
_V5 = "modeling_rope_utils.py (standardize_rope_params)"
_GET_ROPE = "model_executor/layers/rotary_embedding/__init__.py (get_rope)"
_MAXLEN = "config/model.py (_get_and_verify_max_len)"
# llama.cpp's files, all at RUNTIME_VERSIONS["llama.cpp"] (the tree llama-cpp-python
# 0.3.36 vendors; scripts/llama_cpp_check builds and runs it).
_ARG = "common/arg.cpp"
_LOAD = "src/llama-model.cpp (load_hparams)"
_ARCH_LOAD = "src/models/*.cpp (load_arch_hparams)"
_CONTEXT = "src/llama-context.cpp (llama_context)"
_SAME = "the same keys in `rope_parameters`"

#: How each setting the library models is spelled in each project: per setting, per
#: column of :data:`RUNTIME_COLUMNS`, a Markdown text and the files it was read from.
RUNTIME_SPELLINGS = (
    (
        "base",
        {
            "transformers 4": ("`rope_theta`, top level (GPT-NeoX: `rotary_emb_base`)", (_RU,)),
            "transformers 5": ("`rope_parameters.rope_theta`; default 10000", (_V5,)),
            "vLLM": ("`rope_parameters.rope_theta`; 10000 where the dict has none", (_GET_ROPE,)),
            "llama.cpp": (
                "GGUF `{arch}.rope.freq_base` (default 10000); `--rope-freq-base`, not "
                "for sliding-window layers (`{arch}.rope.freq_base_swa`)",
                (_LOAD, _ARCH_LOAD, "src/llama-model.cpp (get_rope_freq_base)", _ARG),
            ),
        },
    ),
    (
        "rotated share",
        {
            "transformers 4": ("`partial_rotary_factor`, top level", (_RU,)),
            "transformers 5": ("`rope_parameters.partial_rotary_factor`", (_V5,)),
            "vLLM": (
                "`rope_parameters.partial_rotary_factor`; rotates `int(head_size · p)` dims",
                (_GET_ROPE,),
            ),
            "llama.cpp": (
                "GGUF `{arch}.rope.dimension_count` (rotated dims); no flag",
                (_LOAD,),
            ),
        },
    ),
    (
        "linear (PI)",
        {
            "transformers 4": ('`rope_scaling`: `"rope_type": "linear"`, `factor`', (_RU,)),
            "transformers 5": (_SAME, (_V5,)),
            "vLLM": (
                f"{_SAME}; the length limit is multiplied by `factor`",
                ("rotary_embedding/linear_scaling_rope.py", _MAXLEN),
            ),
            "llama.cpp": (
                "GGUF `{arch}.rope.scaling.type` `linear`, `.rope.scaling.factor`; "
                "`--rope-scaling linear --rope-freq-scale 1/s` (or `--rope-scale s`)",
                (_LOAD, _ARG),
            ),
        },
    ),
    (
        "NTK-aware (static)",
        {
            "transformers 4": ("no type: the enlarged base is the `rope_theta`", (_RU,)),
            "transformers 5": ("no type: the enlarged base is the `rope_theta`", (_V5,)),
            "vLLM": (
                "the enlarged base as `rope_theta`; its type `ntk` is another rule, which "
                "changes pair 0 too",
                ("rotary_embedding/ntk_scaling_rope.py",),
            ),
            "llama.cpp": ("`--rope-freq-base` with the enlarged base", (_ARG,)),
        },
    ),
    (
        "dynamic NTK",
        {
            "transformers 4": (
                '`rope_scaling`: `"rope_type": "dynamic"`, `factor`; the base grows once '
                "the sequence passes `max_position_embeddings`",
                (_RU,),
            ),
            "transformers 5": (_SAME, (_V5,)),
            "vLLM": (
                "`dynamic`, `factor`: one base for every length, at `max_position_embeddings` "
                "against `max_trained_positions` (by default the same: base unchanged); the "
                "length limit is multiplied by `factor`",
                ("rotary_embedding/dynamic_ntk_scaling_rope.py", _GET_ROPE, _MAXLEN),
            ),
            "llama.cpp": (
                "no such type (none, linear, yarn, longrope): a fixed `--rope-freq-base`",
                ("src/llama-model.cpp (LLAMA_ROPE_SCALING_TYPES)",),
            ),
        },
    ),
    (
        "YaRN",
        {
            "transformers 4": (
                '`rope_scaling`: `"rope_type": "yarn"`, `factor`, '
                "`original_max_position_embeddings`, `beta_fast`, `beta_slow`, `truncate`",
                (_RU,),
            ),
            "transformers 5": (_SAME, (_V5,)),
            "vLLM": (
                f"{_SAME}, `truncate` included",
                (
                    "rotary_embedding/yarn_scaling_rope.py",
                    "rotary_embedding/common.py",
                    _GET_ROPE,
                ),
            ),
            "llama.cpp": (
                "GGUF `.rope.scaling.type` `yarn`, `.factor`, `.original_context_length`; "
                "`--rope-scaling yarn --rope-freq-scale 1/s --yarn-orig-ctx L "
                "--yarn-beta-fast --yarn-beta-slow`; the GGUF's `.rope.scaling.yarn_beta_fast` "
                "and `_slow` are read by the `grok` and `mistral3` loaders only (the others "
                "take 32 and 1), hence the flags; the ramp's ends are always rounded to "
                "whole pairs (no `truncate`)",
                (
                    _LOAD,
                    _ARG,
                    "src/llama-hparams.h (yarn_beta_fast, yarn_beta_slow)",
                    "src/models/grok.cpp (load_arch_hparams)",
                    "src/models/mistral3.cpp (load_arch_hparams)",
                    "ggml/src/ggml.c (ggml_rope_yarn_corr_dims)",
                ),
            ),
        },
    ),
    (
        "attention factor",
        {
            "transformers 4": (
                "`attention_factor`; else YaRN's `mscale`/`mscale_all_dim` ratio or "
                "0.1 ln s + 1, LongRoPE's √(1 + ln s / ln L)",
                (_RU,),
            ),
            "transformers 5": (_SAME, (_V5,)),
            "vLLM": (
                "YaRN: the same keys; LongRoPE: `short_mscale`, `long_mscale`, else "
                "√(1 + ln s / ln L) from the two lengths",
                (
                    "rotary_embedding/yarn_scaling_rope.py",
                    "rotary_embedding/phi3_long_rope_scaled_rope.py",
                ),
            ),
            "llama.cpp": (
                "YaRN: (0.1 ln s + 1) × GGUF `.rope.scaling.attn_factor`, "
                "`--yarn-attn-factor` overwritten; DeepSeek's and Mistral 3's ratio from "
                "`.rope.scaling.yarn_log_multiplier` (divided by 0.1 by the `deepseek2` and "
                "`deepseek32` loaders, read as it is by `mistral3`); LongRoPE: "
                "`.rope.scaling.attn_factor` × `--yarn-attn-factor`",
                (
                    _CONTEXT,
                    _LOAD,
                    "src/models/deepseek2.cpp (load_arch_hparams)",
                    "src/models/deepseek32.cpp (load_arch_hparams)",
                    "src/models/mistral3.cpp (load_arch_hparams)",
                    "ggml/src/ggml-cpu/ops.cpp (rope_yarn)",
                ),
            ),
        },
    ),
    (
        "Llama 3.1's rule",
        {
            "transformers 4": (
                '`rope_scaling`: `"rope_type": "llama3"`, `factor`, `low_freq_factor`, '
                "`high_freq_factor`, `original_max_position_embeddings`",
                (_RU,),
            ),
            "transformers 5": (_SAME, (_V5,)),
            "vLLM": (_SAME, ("rotary_embedding/llama3_rope.py", _GET_ROPE)),
            "llama.cpp": (
                "no type or flag: conversion writes the per-pair divisors as the tensor "
                "`rope_freqs`, and each angle is divided by them",
                (
                    "conversion/llama.py (LlamaModel.generate_extra_tensors)",
                    "src/llama-model.cpp (get_rope_factors)",
                    "ggml/src/ggml-cpu/ops.cpp (ggml_rope_cache_init)",
                ),
            ),
        },
    ),
    (
        "LongRoPE",
        {
            "transformers 4": (
                '`rope_scaling`: `"rope_type": "longrope"`, `short_factor`, `long_factor` '
                "(Phi-3: `original_max_position_embeddings` at the top level); the long "
                "factors once the sequence passes L",
                (_RU,),
            ),
            "transformers 5": (_SAME, (_V5,)),
            "vLLM": (
                f"{_SAME}; the long factors at every position when `--max-model-len` > L, "
                "which is its default",
                ("rotary_embedding/phi3_long_rope_scaled_rope.py", _MAXLEN),
            ),
            "llama.cpp": (
                "GGUF tensors `rope_factors_long`, `rope_factors_short`, loaded by the `phi3` "
                "loader whatever the type (Phi-3's converter writes no `.rope.scaling.type`) "
                "and by others (`llama`, `minicpm`, …) when `.rope.scaling.type` is "
                "`longrope`: the long ones at every position when `-c`, rounded up to a "
                "multiple of 256, > L",
                (
                    _LOAD,
                    "src/models/phi3.cpp (load_arch_tensors)",
                    "src/models/llama.cpp (load_arch_tensors)",
                    "src/llama-model.cpp (get_rope_factors)",
                    _CONTEXT,
                    "conversion/phi.py (Phi3MiniModel)",
                    "conversion/base.py (TextModel.set_gguf_parameters)",
                ),
            ),
        },
    ),
    (
        "context length",
        {
            "transformers 4": ("`max_position_embeddings`", (_RU,)),
            "transformers 5": ("`max_position_embeddings`", (_V5,)),
            "vLLM": (
                "`--max-model-len`; by default the config's length (× `factor` for linear and "
                "dynamic; LongRoPE: L), read from the configuration object (a length the "
                "file leaves out: its class's default); a larger one is refused unless "
                "`VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` or `--hf-overrides` gives a longer "
                "`max_position_embeddings`",
                (_MAXLEN,),
            ),
            "llama.cpp": (
                "GGUF `{arch}.context_length`; `-c N`, 0 (the default) for the GGUF's, "
                "which `--fit` (on by default) may lower, to no less than 4096, when model "
                "and cache do not fit the free memory; `-c` rounded up to a multiple of 256; "
                "above the GGUF's only a warning",
                (_CONTEXT, "common/common.h (n_ctx, fit_params)", _ARG, "common/fit.cpp"),
            ),
        },
    ),
    (
        "multimodal config",
        {
            "transformers 4": ("`text_config.rope_scaling`, `text_config.rope_theta`", (_RU,)),
            "transformers 5": ("`text_config.rope_parameters`", (_V5,)),
            "vLLM": (
                """`--hf-overrides '{"text_config": {"rope_parameters": …}}'`""",
                ("config/model.py (_apply_dict_overrides)",),
            ),
            "llama.cpp": (
                "conversion moves `text_config` to the top level",
                ("conversion/base.py (TextModel)",),
            ),
        },
    ),
)
