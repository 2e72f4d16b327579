"""What a model family's configuration class does to its ``config.json`` before the model
reads it: defaults, legacy spellings and per-family rules of ``transformers``.

A ``config.json`` on the Hub is not always what the model's code reads: the family's
configuration class (``configuration_<model>.py`` in ``transformers``) fills in
defaults and rewrites legacy keys first. :func:`standardise` applies those rules, so
that :mod:`pe_explained.hf_config` reads every family the same way. Each rule names the
class it follows (``transformers`` 5.23):

* ``rope_theta`` when the file gives none: the class's ``default_theta`` (OLMo 3 and
  ERNIE 4.5: 500,000; SmolLM3: 2×10⁶; MiniMax-M2: 5×10⁶; Apertus: 1.2×10⁷; gpt-oss:
  150,000; Llama 4: 500,000; others 10,000);
* ``partial_rotary_factor`` when the file gives none: 0.25 for Qwen3-Next and Qwen3.5,
  0.5 for GLM-4.5 (``glm4_moe``); the legacy ``rotary_dim`` of MiniMax-M2, GPT-J and
  CodeGen becomes ``rotary_dim / head_dim``;
* legacy names (``attribute_map``): GPT-J's and CodeGen's ``n_embd``, ``n_head``,
  ``n_layer``, ``n_positions``; and base 10,000 for the families that rotate without a
  RoPE key in their file (GPT-J, CodeGen, Falcon without ALiBi);
* a RoPE dict when the file gives none: Apertus installs Llama 3's rule (factor 8,
  θ 1.2×10⁷), gpt-oss YaRN (factor 32, ``truncate: false``);
* OLMo 3 and Gemma 3n: a flat ``rope_scaling`` applies to full-attention layers only
  (Gemma 3n's sliding layers take ``rope_local_base_freq``, as Gemma 3's);
* DeepSeek-V4: ``rope_parameters`` keyed ``main`` (sliding layers: ``rope_theta``,
  no scaling) and ``compress`` (compressed layers: ``compress_rope_theta`` and the
  scaling, attention factor 1);
* Hunyuan (``hunyuan_v1_dense``, ``hunyuan_v1_moe``): a ``"dynamic"`` dict with a
  non-zero ``alpha`` is NTK-α, a fixed base ``θ · α^(d / (d − 2))`` with ``d =
  head_dim`` (``HunYuanDenseV1RotaryEmbedding``), not dynamic scaling;
* Mistral 4: ``head_dim`` is qk_nope_head_dim + qk_rope_head_dim, of which the RoPE
  dict's share must be MLA's qk_rope_head_dim dims (read as all of them; YaRN installed
  without a dict); Granite SWA and Muse Glimmer: ``layer_rope_theta`` (0: NoPE, else
  Granite's base per layer); ModernBERT: ``global_rope_theta`` and ``local_rope_theta``
  and a window of ``local_attention // 2``; NeoMME: per-type bases and shares, every
  second sliding layer's window 1024; EmbeddingGemma 2 and Gemma 4 Unified: full-attention
  heads of 512; UltraBERT's legacy lists refused;
* the base and ``max_position_embeddings`` when the file gives none
  (:data:`CLASS_DEFAULTS`): ``{"model_type": "llama"}`` rotates with base 10,000 and a
  context of 2,048, Gemma 3 27B-it's ``text_config`` (no length) has Gemma 3's 131,072,
  each with a note "(class default …)", as transformers' configuration classes fill them
  in, and as a runtime that reads the configuration object (vLLM) sees them.

:func:`standardise` returns a new dict and the notes a report shows about what it did.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence

from ._checks import check_base, check_config_int, check_config_name, check_float
from .families import FAMILIES, V4_RATIOS

__all__ = [
    "CLASS_DEFAULTS",
    "CLASS_HEAD_DIMS",
    "DEFAULT_MAX_POSITIONS",
    "DEFAULT_THETAS",
    "LEGACY_NAMES",
    "RENAMED_TYPES",
    "legacy_key",
    "rope_dicts",
    "standardise",
]

#: What the configuration classes of transformers 5.23 fill in where a file states
#: nothing: ``(rope_theta, max_position_embeddings)`` per ``model_type`` (a multimodal
#: family's length: its text config's; ``rope_theta`` None where the class sets a base
#: per layer type, read elsewhere). ``tests/test_transformers_rope.py`` holds every entry
#: to the class.
CLASS_DEFAULTS = {
    "afmoe": (10_000.0, 16_384),
    "apertus": (12_000_000.0, 65_536),
    "arcee": (10_000.0, 4_096),
    "aria_text": (10_000.0, 2_048),
    "axk1": (10_000.0, 32_768),
    "axk2": (10_000.0, 131_072),
    "bamba": (10_000.0, 262_144),
    "bitnet": (500_000.0, 2_048),
    "cohere": (500_000.0, 8_192),
    "cohere2": (10_000.0, 8_192),
    "cosmos3_edge_text": (100_000_000.0, 131_072),
    "cwm": (1_000_000.0, 131_072),
    "deepseek_v2": (10_000.0, 2_048),
    "deepseek_v3": (10_000.0, 4_096),
    "diffllama": (10_000.0, 2_048),
    "doge": (10_000.0, 2_048),
    "embedding_gemma2": (None, 262_144),
    "embedding_gemma2_text": (None, 262_144),
    "ernie4_5": (500_000.0, 131_072),
    "ernie4_5_moe": (500_000.0, 131_072),
    "esmc": (10_000.0, 2_048),
    "eurobert": (10_000.0, 8_192),
    "exaone4": (10_000.0, 2_048),
    "exaone_moe": (10_000.0, 2_048),
    "falcon": (10_000.0, 2_048),
    "flex_olmo": (500_000.0, 4_096),
    "flint": (10_000.0, 262_144),
    "fuyu": (10_000.0, 16_384),
    "gemma": (10_000.0, 8_192),
    "gemma2": (10_000.0, 8_192),
    "gemma3": (None, 131_072),
    "gemma3_text": (None, 131_072),
    "gemma3n": (None, 32_768),
    "gemma3n_text": (None, 32_768),
    "gemma4_unified": (None, 262_144),
    "gemma4_unified_text": (None, 262_144),
    "glm": (10_000.0, 131_072),
    "glm4": (10_000.0, 131_072),
    "glm4_moe_lite": (10_000.0, 202_752),
    "glm_moe_dsa": (10_000.0, 202_752),
    "glm_ocr_text": (10_000.0, 131_072),
    "gpt_neox": (10_000.0, 2_048),
    "gpt_neox_japanese": (10_000.0, 2_048),
    "gpt_oss": (150_000.0, 131_072),
    "granite": (10_000.0, 2_048),
    "granite_docling_text": (10_000.0, 32_768),
    "granite_swa": (10_000.0, 8_192),
    "granitemoe_swa": (10_000.0, 2_048),
    "granitemoeshared": (10_000.0, 2_048),
    "gte": (160_000.0, 8_192),
    "helium": (100_000.0, 4_096),
    "higgs_audio_v2": (500_000.0, 2_048),
    "hunyuan_v1_dense": (10_000.0, 2_048),
    "hy_v3": (11_158_840.0, 131_072),
    "hy_v4": (10_000.0, 262_144),
    "hyperclovax": (10_000.0, 2_048),
    "internlm3": (10_000.0, 32_768),
    "iquestcoder": (10_000.0, 131_072),
    "jais2": (10_000.0, 8_192),
    "jetmoe": (10_000.0, 4_096),
    "jina_embeddings_v3": (20_000.0, 8_194),
    "kolibri1": (10_000.0, 262_144),
    "lfm2": (1_000_000.0, 128_000),
    "lfm3": (None, 128_000),
    "llama": (10_000.0, 2_048),
    "llama4": (500_000.0, 131_072),
    "llama4_text": (500_000.0, 131_072),
    "longcat_flash": (10_000_000.0, 131_072),
    "mellum": (None, 131_072),
    "mimo_v2_flash": (None, 131_072),
    "minicpm3": (10_000.0, 32_768),
    "minimax": (1_000_000.0, 131_072),
    "minimax_m2": (5_000_000.0, 196_608),
    "ministral": (10_000.0, 131_072),
    "mistral": (10_000.0, 131_072),
    "mistral4": (10_000.0, 1_048_576),
    "mistral_large4_text": (10_000.0, 1_048_576),
    "mixtral": (1_000_000.0, 131_072),
    "modernbert": (None, 8_192),
    "modernbert-decoder": (None, 8_192),
    "molmo2_text": (10_000.0, 36_864),
    "muse_glimmer_text": (10_000.0, 131_072),
    "nanochat": (10_000.0, 2_048),
    "nemotron": (10_000.0, 4_096),
    "nomic_bert": (1_000.0, 2_048),
    "neomme": (None, 16_384),
    "olmo": (10_000.0, 2_048),
    "olmo2": (10_000.0, 2_048),
    "olmo3": (500_000.0, 2_048),
    "olmoe": (10_000.0, 4_096),
    "olmo_hybrid": (10_000.0, 65_536),
    "openai_privacy_filter": (150_000.0, 131_072),
    "persimmon": (10_000.0, 16_384),
    "phi": (10_000.0, 2_048),
    "phi3": (10_000.0, 4_096),
    "phimoe": (1_000_000.0, 131_072),
    "qwen2": (10_000.0, 32_768),
    "qwen2_moe": (10_000.0, 32_768),
    "qwen3": (10_000.0, 32_768),
    "qwen3_moe": (10_000.0, 32_768),
    "qwen3_next": (10_000.0, 32_768),
    "qwen3_vl_moe_text": (500_000.0, 128_000),
    "smollm3": (2_000_000.0, 32_768),
    "solar_open": (1_000_000.0, 131_072),
    "stablelm": (10_000.0, 4_096),
    "starcoder2": (10_000.0, 4_096),
    "ultrabert": (None, 32_768),
    "vaultgemma": (10_000.0, 8_192),
    "youtu": (10_000.0, 131_072),
    "zamba2": (10_000.0, 4_096),
}
#: ``default_theta`` of the configuration classes that do not use 10,000.
DEFAULT_THETAS = {
    model_type: theta
    for model_type, (theta, _) in CLASS_DEFAULTS.items()
    if theta is not None and theta != 10_000.0
}
#: ``max_position_embeddings`` of the configuration classes whose files may leave it
#: out (a multimodal family's entry is its text config's class).
DEFAULT_MAX_POSITIONS = {model_type: length for model_type, (_, length) in CLASS_DEFAULTS.items()}
#: ``partial_rotary_factor`` of the classes that set one when the file gives none.
_PARTIAL_DEFAULTS = {
    "qwen3_next": 0.25,
    "qwen3_5": 0.25,
    "qwen3_5_text": 0.25,
    "qwen3_5_moe": 0.25,
    "qwen3_5_moe_text": 0.25,
    "glm4_moe": 0.5,
    "persimmon": 0.5,  # PersimmonConfig, and FuyuConfig for a flat file
    "fuyu": 0.5,
    "nemotron": 0.5,  # NemotronConfig's, for backward compatibility
}
_PER_TYPE_1E6 = {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
    "full_attention": {"rope_type": "default", "rope_theta": 1_000_000.0},
}
#: Families whose class gives full-attention layers heads of their own (512 by default).
_GLOBAL_HEAD_TYPES = frozenset(
    {"embedding_gemma2", "embedding_gemma2_text", "gemma4_unified", "gemma4_unified_text"}
)
_GEMMA4_ROPE = {
    "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
    "full_attention": {
        "rope_type": "proportional",
        "partial_rotary_factor": 0.25,
        "rope_theta": 1_000_000.0,
    },
}
#: The RoPE dict a class installs when the file gives none (one per layer type where the
#: class keys it so).
_DEFAULT_ROPE = {
    "cwm": {
        "rope_type": "llama3",
        "rope_theta": 1_000_000.0,
        "factor": 16.0,
        "high_freq_factor": 4.0,
        "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
    },
    "higgs_audio_v2": {
        "rope_type": "llama3",
        "rope_theta": 500_000.0,
        "factor": 32.0,
        "high_freq_factor": 0.5,
        "low_freq_factor": 0.125,
        "original_max_position_embeddings": 1024,
    },
    "apertus": {
        "rope_type": "llama3",
        "rope_theta": 12_000_000.0,
        "factor": 8.0,
        "original_max_position_embeddings": 8192,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
    },
    "gpt_oss": {
        "rope_type": "yarn",
        "factor": 32.0,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "truncate": False,
        "original_max_position_embeddings": 4096,
    },
    "mistral_large4_text": {
        "rope_type": "yarn",
        "rope_theta": 10_000.0,
        "factor": 2048.0,
        "original_max_position_embeddings": 512,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "attention_factor": 1.0,
    },
    "openai_privacy_filter": {
        "rope_type": "yarn",
        "factor": 32.0,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "truncate": False,
        "original_max_position_embeddings": 4096,
    },
    # one RoPE per layer type
    "embedding_gemma2": _PER_TYPE_1E6,
    "embedding_gemma2_text": _PER_TYPE_1E6,
    "gemma4_unified": _GEMMA4_ROPE,
    "gemma4_unified_text": _GEMMA4_ROPE,
    "lfm3": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        "full_attention": {
            "rope_type": "proportional",
            "rope_theta": 1_000_000.0,
            "partial_rotary_factor": 0.5,
        },
    },
    "mellum": {
        "full_attention": {"rope_type": "default", "rope_theta": 500_000.0},
        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
    },
    "ultrabert": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        "full_attention": {"rope_type": "default", "rope_theta": 2_560_000.0},
    },
}
#: Families whose flat ``rope_scaling`` applies to full-attention layers only.
_SCALING_ON_FULL_ONLY = frozenset({"olmo3"})
#: ``hunyuan`` is the name in the remote code released with Hunyuan-A13B
#: (``modeling_hunyuan.py``), whose rotary class computes the same NTK-α base.
_HUNYUAN = frozenset({"hunyuan_v1_dense", "hunyuan_v1_moe", "hunyuan"})
#: Keys of Hunyuan's RoPE dict that its rotary class does not read beside ``alpha``.
_HUNYUAN_KEYS = frozenset({"alpha", "beta_fast", "beta_slow", "mscale", "mscale_all_dim"})
_ROPE_DICT_KEYS = ("rope_scaling", "rope_parameters")
#: Legacy key → standard key, as each family's configuration class renames it
#: (``attribute_map``); Falcon's first releases and Hunyuan's remote code included.
_GPT_NAMES = {
    "n_positions": "max_position_embeddings",
    "n_embd": "hidden_size",
    "n_head": "num_attention_heads",
    "n_layer": "num_hidden_layers",
}
_FALCON_NAMES = {"n_head": "num_attention_heads", "n_layer": "num_hidden_layers"}
_T5_NAMES = {
    "d_model": "hidden_size",
    "num_heads": "num_attention_heads",
    "num_layers": "num_hidden_layers",
    "d_kv": "head_dim",
}
LEGACY_NAMES = {
    "gptj": _GPT_NAMES,
    "codegen": _GPT_NAMES,
    "gpt2": _GPT_NAMES,
    "gpt_bigcode": _GPT_NAMES,
    "falcon": _FALCON_NAMES,
    "RefinedWebModel": _FALCON_NAMES,
    "RefinedWeb": _FALCON_NAMES,
    "bloom": _FALCON_NAMES,
    "mpt": {
        "n_heads": "num_attention_heads",
        "d_model": "hidden_size",
        "n_layers": "num_hidden_layers",
    },
    "gpt_neo": {"num_heads": "num_attention_heads", "num_layers": "num_hidden_layers"},
    "t5": _T5_NAMES,
    "mt5": _T5_NAMES,
    "hunyuan": {"attention_head_dim": "head_dim"},  # the remote code's name for the head
    "jetmoe": {"kv_channels": "head_dim"},  # JetMoeConfig's attribute_map
    "zamba2": {"attention_head_dim": "head_dim"},  # Zamba2Config's attribute_map
}


def legacy_key(model_type, standard: str) -> str:
    """The key a family's ``config.json`` writes for ``standard`` (``"n_layer"`` for
    GPT-2's ``"num_hidden_layers"``), or ``standard`` itself.

    >>> legacy_key("mpt", "num_attention_heads"), legacy_key("llama", "hidden_size")
    ('n_heads', 'hidden_size')
    """
    names = LEGACY_NAMES.get(model_type, {})
    return next((legacy for legacy, name in names.items() if name == standard), standard)


#: ``model_type`` values of remote code that ``transformers`` reads as a family of its own:
#: Falcon's first releases (``RWForCausalLM``, ``configuration_RW.py``).
RENAMED_TYPES = {"RefinedWebModel": "falcon", "RefinedWeb": "falcon"}
#: Families that rotate with base 10,000 although their file names no RoPE key (GPT-J and
#: CodeGen hard-code the base; Falcon without ALiBi gets the class's default RoPE dict).
_IMPLICIT_ROPE = frozenset({"gptj", "codegen", "falcon"})
#: Families whose ``rotary_dim`` is the rotated width of a head.
_ROTARY_DIM_TYPES = {
    "minimax_m2": "MiniMaxM2Config",
    "gptj": "GPTJConfig",
    "codegen": "CodeGenConfig",
}


def _rope_dict(cfg: Mapping) -> tuple[str | None, Mapping | None]:
    """The config's RoPE dict and its key, as transformers reads it (``rope_scaling`` wins)."""
    for key in _ROPE_DICT_KEYS:
        if isinstance(cfg.get(key), Mapping) and cfg[key]:
            return key, cfg[key]
    return None, None


#: NemotronHConfig's pattern letters (``_pattern_to_list``) and its default layers.
_NEMOTRON_H_LETTERS = {"M": "linear_attention", "E": "moe", "*": "full_attention", "-": "mlp"}
_NEMOTRON_H_DEFAULT = ["linear_attention", "moe", "full_attention", "mlp"]


def _nemotron_h(cfg: dict, path: str, notes: list[str]) -> None:
    """Nemotron-H: its layers are ``layers_block_type``, else the letters of
    ``hybrid_override_pattern``, else the class's four; the class counts them and ignores
    ``num_hidden_layers`` (``NemotronHConfig.__post_init__``)."""
    types = cfg.get("layer_types", cfg.get("layers_block_type"))
    if types is None and cfg.get("hybrid_override_pattern") is not None:
        name, pattern = f"{path}['hybrid_override_pattern']", cfg["hybrid_override_pattern"]
        if not isinstance(pattern, str):
            raise TypeError(f"{name} must be a string of M, E, * and -, got {pattern!r}")
        check_config_int(f"len({name})", len(pattern), "layers")
        unknown = sorted(set(pattern) - set(_NEMOTRON_H_LETTERS))
        if unknown:
            raise ValueError(
                f"{name} holds {', '.join(map(repr, unknown))}: NemotronHConfig reads M "
                "(Mamba-2), E (MoE), * (attention) and - (MLP)"
            )
        types = [_NEMOTRON_H_LETTERS[letter] for letter in pattern]
    elif types is None:
        types = list(_NEMOTRON_H_DEFAULT)
        notes.append(
            f"{path} gives no layers_block_type or hybrid_override_pattern: the class's "
            "4 layers (Mamba-2, MoE, attention, MLP)"
        )
    if isinstance(types, list):
        given = cfg.get("num_hidden_layers")
        if given is not None and given != len(types):
            notes.append(
                f"{path}['num_hidden_layers'] = {given!r} is not read: NemotronHConfig counts "
                f"the {len(types)} layers of its layer list"
            )
        cfg["num_hidden_layers"], cfg["layer_types"] = len(types), types


#: MiMoV2FlashConfig's RoPE where the file gives no rope_parameters: one per layer type.
_MIMO_BASES = {"full_attention": 5_000_000.0, "sliding_attention": 10_000.0}
_MIMO_SHARE = 0.334


def _mimo_v2_flash(cfg: dict, path: str, notes: list[str]) -> None:
    """MiMo-V2-Flash: without ``rope_parameters`` the class installs one RoPE per layer type
    (bases 5e6 and 1e4, 0.334 of each head), whatever ``rope_theta`` and
    ``partial_rotary_factor`` the file states; ``sliding_window_size`` keys plus the query
    make the window (``MiMoV2FlashConfig.__post_init__``)."""
    if cfg.get("rope_parameters") is None:
        for key in ("rope_theta", "partial_rotary_factor"):
            if key in cfg:
                notes.append(
                    f"{path}[{key!r}] = {cfg[key]!r} is not read: MiMoV2FlashConfig installs "
                    "one RoPE per layer type (bases 5e6 full, 1e4 sliding; 0.334 of each head)"
                )
        cfg["rope_parameters"] = {
            kind: {"rope_type": "default", "rope_theta": base, "partial_rotary_factor": _MIMO_SHARE}
            for kind, base in _MIMO_BASES.items()
        }
    if cfg.get("sliding_window_size") is not None:
        name = f"{path}['sliding_window_size']"
        size = check_config_int(name, cfg["sliding_window_size"], "length", minimum=0)
        cfg["sliding_window"] = size + 1
        notes.append(f"{name} = {size} keys before the query: a window of {size + 1} tokens")


#: LongcatFlashConfig's decoder layers where a file states neither count.
_LONGCAT_LAYERS = 28


def _longcat_flash(cfg: dict, path: str, notes: list[str]) -> None:
    """LongCat-Flash: each of its ``num_layers`` decoder layers holds two attention
    sublayers (``LongcatFlashDecoderLayer``), so it attends in ``2 × num_layers`` layers.
    A ``num_hidden_layers`` the file states sets ``num_layers`` to half of it, rounded
    down (``LongcatFlashConfig``'s setter), and wins."""
    if cfg.get("num_hidden_layers") is not None:
        name = f"{path}['num_hidden_layers']"
        given = check_config_int(name, cfg["num_hidden_layers"], "layers")
        if given < 2:
            raise ValueError(f"{name} = {given}: LongcatFlashConfig keeps num_layers = 0")
        if given % 2:
            notes.append(
                f"{name} = {given}: LongcatFlashConfig keeps num_layers = {given // 2}, "
                f"so {2 * (given // 2)} attention sublayers"
            )
        cfg["num_hidden_layers"] = 2 * (given // 2)
        return
    name = f"{path}['num_layers']"
    layers = check_config_int(name, cfg.get("num_layers", _LONGCAT_LAYERS), "layers")
    cfg["num_hidden_layers"] = 2 * layers
    given = f"{name} = {layers}" if "num_layers" in cfg else f"{path} states no num_layers"
    notes.append(
        f"{given}: {layers} decoder layers of two attention sublayers each, "
        f"{2 * layers} attention layers (LongcatFlashDecoderLayer)"
    )


#: Zamba2Config's layers where a file lists none: Mamba-2, and a hybrid layer (the shared
#: attention block, then Mamba-2) at 6, 12, …, 42, 47 and 51.
_ZAMBA2_LAYERS = (
    ["linear_attention"]
    + (["linear_attention"] * 5 + ["hybrid"]) * 7
    + ["linear_attention"] * 4
    + ["hybrid"]
    + ["linear_attention"] * 3
    + ["hybrid"]
    + ["linear_attention"] * 2
)
#: Zamba2Config's max_position_embeddings with use_long_context.
_ZAMBA2_LONG = 16_384
#: The head width a family's class derives where a file states none, from
#: ``(hidden_size, num_attention_heads)``: Zamba2's attention reads the hidden state and
#: the input embeddings side by side, twice the hidden size.
CLASS_HEAD_DIMS = {"zamba2": lambda hidden, heads: 2 * hidden // heads}


def _zamba2(cfg: dict, path: str, notes: list[str]) -> None:
    """Zamba2: a layer per entry of ``layers_block_type``, else the class's 54
    (``Zamba2Model.get_layers``), as many as ``num_hidden_layers`` (54 where the file
    gives none; the class refuses another count); its attention reads the hidden
    state and the input embeddings side by side, so its heads are ``attention_head_dim``
    wide, else ``2 × hidden_size // num_attention_heads``; ``use_long_context`` sets
    ``max_position_embeddings`` to 16,384 (``Zamba2Config.__post_init__``)."""
    types = cfg.get("layers_block_type", cfg.get("layer_types"))
    if types is None:
        types = list(_ZAMBA2_LAYERS)
        notes.append(
            f"{path} gives no layers_block_type: the class's {len(types)} layers, the shared "
            "attention in hybrid layers 6, 12, …, 42, 47 and 51, Mamba-2 in the others"
        )
    if isinstance(types, list):
        name = f"{path}['num_hidden_layers']"
        count = cfg.get("num_hidden_layers")
        count = len(_ZAMBA2_LAYERS) if count is None else check_config_int(name, count, "layers")
        if count != len(types):
            raise ValueError(
                f"{name} = {count} (the class's {len(_ZAMBA2_LAYERS)} where the file gives "
                f"none) must equal the number of layers_block_type ({len(types)}): "
                "Zamba2Config refuses this config"
            )
        cfg["num_hidden_layers"], cfg["layers_block_type"] = count, types
    hidden, heads = cfg.get("hidden_size"), cfg.get("num_attention_heads")
    whole = [isinstance(v, int) and not isinstance(v, bool) for v in (hidden, heads)]
    if cfg.get("head_dim") is None and all(whole):
        name = f"{path}['num_attention_heads']"
        cfg["head_dim"] = CLASS_HEAD_DIMS["zamba2"](hidden, check_config_int(name, heads, "heads"))
    if cfg.get("use_long_context"):
        cfg["max_position_embeddings"] = _ZAMBA2_LONG
        notes.append(
            f"{path}['use_long_context'] is set: Zamba2Config makes max_position_embeddings "
            f"{_ZAMBA2_LONG}"
        )


def _olmo3(cfg: dict, path: str, notes: list[str]) -> None:
    """OLMo 3: per-layer-type RoPE, the scaling on full-attention layers only.

    ``Olmo3Config.convert_rope_params_to_dict`` moves a flat ``rope_scaling`` and the
    top-level ``rope_theta`` into ``rope_parameters['full_attention']``; the sliding
    layers get plain RoPE with ``default_theta`` (500,000).
    """
    key, rope = _rope_dict(cfg)
    nested = rope is not None and {"full_attention", "sliding_attention"} & set(rope)
    if nested:
        return
    full = dict(rope or {"rope_type": "default"})
    full.setdefault("rope_theta", cfg.get("rope_theta", DEFAULT_THETAS["olmo3"]))
    cfg["rope_parameters"] = {
        "full_attention": full,
        "sliding_attention": {"rope_type": "default", "rope_theta": DEFAULT_THETAS["olmo3"]},
    }
    cfg.pop("rope_scaling", None)
    cfg.pop("rope_theta", None)
    if rope is not None:
        notes.append(
            f"{path}[{key!r}] applies to the full-attention layers only (Olmo3Config); the "
            f"sliding layers use plain RoPE with theta {DEFAULT_THETAS['olmo3']:g}"
        )


def _deepseek_v4(cfg: dict, path: str, notes: list[str]) -> None:
    """DeepSeek-V4: ``rope_parameters`` keyed ``main`` and ``compress``
    (``DeepseekV4Config``): the sliding layers rotate with ``rope_theta`` and no
    scaling, the compressed layers with ``compress_rope_theta`` and the scaling, its
    attention factor forced to 1."""
    key, rope = _rope_dict(cfg)
    head_dim = cfg.get("head_dim")
    share = cfg.get("partial_rotary_factor")
    if share is None and cfg.get("qk_rope_head_dim") is not None and head_dim:
        name = f"{path}['qk_rope_head_dim']"
        rotated = check_config_int(name, cfg["qk_rope_head_dim"], "head_dim")
        share = rotated / check_config_int(f"{path}['head_dim']", head_dim, "head_dim")
    share = 64 / 512 if share is None else share
    # popped by the class, which derives it again from the share: head_dim is the whole
    # head (a class's to_dict writes it back beside the nested dicts)
    cfg.pop("qk_rope_head_dim", None)
    if rope is not None and {"main", "compress"} <= set(rope):
        cfg["partial_rotary_factor"] = share  # what a nested dict without one inherits
        _v4_indexer_fits(cfg, f"{path}[{key!r}]['compress']", rope["compress"])
        return
    main = {"rope_type": "default", "rope_theta": cfg.get("rope_theta", 10_000.0)}
    compress = dict(rope or {"rope_type": "default"})
    compress["rope_theta"] = cfg.get("compress_rope_theta", 160_000.0)
    if compress.get("rope_type", compress.get("type")) == "yarn":
        compress["attention_factor"] = 1.0
    for entry in (main, compress):
        entry["partial_rotary_factor"] = share
    cfg["rope_parameters"] = {"main": main, "compress": compress}
    cfg.pop("rope_scaling", None)
    _v4_indexer_fits(cfg, f"{path}['rope_parameters']['compress']", compress)
    notes.append(
        "DeepSeek-V4 rotates the last rotary dims of each head, in interleaved pairs, and "
        "rotates the attention output back; sliding layers use 'main', compressed layers "
        "'compress' (DeepseekV4Config)"
    )


def _v4_indexer_fits(cfg: dict, where: str, compress) -> None:
    """DeepSeek-V4's indexer (in its compressed sparse attention layers) rotates as many
    dims of its ``index_head_dim``-wide heads as ``compress`` (named ``where``) rotates of
    each head: more than it has and transformers cannot run the model (a size mismatch in
    the rotation)."""
    types, ratios = cfg.get("layer_types"), cfg.get("compress_ratios")
    indexed = "compressed_sparse_attention"
    if isinstance(types, list) and indexed not in types:
        return
    if types is None and isinstance(ratios, list):
        if not any(r in ratios for r, kind in V4_RATIOS.items() if kind == indexed):
            return
    if not isinstance(compress, Mapping):
        return  # refused where the dict is read
    share = compress.get("partial_rotary_factor", cfg.get("partial_rotary_factor"))
    head, index = cfg.get("head_dim", 512), cfg.get("index_head_dim", 128)
    numbers = (share, head, index)
    if any(isinstance(v, bool) or not isinstance(v, (int, float)) for v in numbers):
        return  # refused where each is read
    if isinstance(head, int) and isinstance(index, int) and int(head * share) > index:
        raise ValueError(
            f"{where} rotates {int(head * share)} dims of each head, more than the {index} "
            "of the indexer's heads (index_head_dim), which rotates as many: transformers "
            "cannot run this config"
        )


def _hunyuan(cfg: dict, path: str, notes: list[str]) -> None:
    """Hunyuan's NTK-α: ``base = θ · α^(d / (d − 2))``, fixed, ``d = head_dim``."""
    key, rope = _rope_dict(cfg)
    if rope is None or rope.get("rope_type", rope.get("type")) != "dynamic":
        return
    alpha = rope.get("alpha")
    if not alpha:  # 0 or absent: ordinary dynamic NTK; the NTK-alpha keys go unread
        unread = sorted(_HUNYUAN_KEYS & rope.keys())
        cfg[key] = {k: v for k, v in rope.items() if k not in _HUNYUAN_KEYS}
        if unread:
            notes.append(
                f"{path}[{key!r}]: {', '.join(unread)} unread without a non-zero alpha "
                "(dynamic NTK as usual)"
            )
        return
    where = f"{path}[{key!r}]['alpha']"
    alpha = check_float(where, alpha, greater_than=0.0)
    # the head width: head_dim, the remote code's attention_head_dim, else hidden / heads
    for width in ("head_dim", "attention_head_dim"):
        if cfg.get(width) is not None:
            d = check_config_int(f"{path}[{width!r}]", cfg[width], "head_dim", minimum=4)
            break
    else:
        if cfg.get("hidden_size") is None or cfg.get("num_attention_heads") is None:
            raise ValueError(f"{path}['head_dim'] is needed: NTK-alpha ({where}) reads it")
        hidden = check_config_int(f"{path}['hidden_size']", cfg["hidden_size"], "width", minimum=4)
        heads = check_config_int(
            f"{path}['num_attention_heads']", cfg["num_attention_heads"], "heads"
        )
        d = check_config_int(f"{path}['head_dim']", hidden // heads, "head_dim", minimum=4)
    theta = check_float(f"{path}['rope_theta']", cfg.get("rope_theta", 10_000.0), greater_than=1.0)
    if math.log(theta) + d / (d - 2) * math.log(alpha) >= math.log(sys.float_info.max):
        raise ValueError(
            f"{where} = {alpha:g} puts the base theta · alpha^(d/(d-2)) beyond float64"
        )
    base = theta * alpha ** (d / (d - 2))  # base = θ · α^(d / (d − 2))
    cfg[key] = {"rope_type": "default", "rope_theta": base}
    cfg.pop("rope_theta", None)
    notes.append(
        f"NTK-alpha (Hunyuan): {where} = {alpha:g} fixes the base at theta · alpha^(d/(d-2)) "
        f"= {theta:g} · {alpha:g}^({d}/{d - 2}) = {base:.6g}; it is not dynamic scaling "
        + (
            "(modeling_hunyuan.py)"
            if cfg.get("model_type") == "hunyuan"
            else "(HunYuanDenseV1RotaryEmbedding)"
        )
    )


#: Mistral4Config's RoPE where the file gives none (its partial share: qk_rope_head_dim of
#: the head, set by :func:`_mistral4`).
_MISTRAL4_ROPE = {
    "rope_type": "yarn",
    "rope_theta": 10_000.0,
    "factor": 128.0,
    "original_max_position_embeddings": 8192,
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "mscale_all_dim": 1.0,
    "mscale": 1.0,
    "llama_4_scaling_beta": 0.1,
}


def _mistral4(cfg: dict, path: str, notes: list[str]) -> None:
    """Mistral 4: the class makes ``head_dim`` qk_nope_head_dim + qk_rope_head_dim and
    rotates the RoPE dict's ``partial_rotary_factor`` of it (default: qk_rope_head_dim's
    share), installing YaRN where the file gives no RoPE dict
    (``Mistral4Config.__post_init__``). MLA rotates the qk_rope_head_dim dims, which this
    library reads as the whole rotated width: the share must give exactly those."""
    rope_dim = check_config_int(
        f"{path}['qk_rope_head_dim']", cfg.get("qk_rope_head_dim", 64), "head_dim", minimum=2
    )
    nope = check_config_int(
        f"{path}['qk_nope_head_dim']", cfg.get("qk_nope_head_dim", 64), "head_dim", minimum=0
    )
    head = rope_dim + nope
    key, rope = _rope_dict(cfg)
    if rope is None:
        key, rope = "rope_parameters", dict(_MISTRAL4_ROPE)
        if cfg.get("max_position_embeddings") is not None:
            rope["max_position_embeddings"] = cfg["max_position_embeddings"]
        notes.append(f"{path} gives no RoPE dict: Mistral4Config installs 'yarn' with its defaults")
    where = f"{path}[{key!r}]['partial_rotary_factor']"
    share = check_float(
        where, rope.get("partial_rotary_factor", rope_dim / head), greater_than=0.0, at_most=1.0
    )
    # Mistral4RotaryEmbedding's own default RoPE reads no share: the whole head
    plain = rope.get("rope_type", rope.get("type", "default")) == "default"
    rotated = head if plain else int(head * share)
    if rotated != rope_dim:
        what = (
            f"{path}[{key!r}]: rope_type 'default' (which reads no share)"
            if plain
            else f"{where} = {share:g}"
        )
        raise ValueError(
            f"{what} rotates {rotated} dims of head_dim {head} "
            f"(qk_nope_head_dim + qk_rope_head_dim), not the qk_rope_head_dim = {rope_dim} dims "
            "MLA rotates: Mistral4Attention cannot run it"
        )
    share = rope_dim / head if plain else share
    cfg[key] = {**rope, "partial_rotary_factor": 1.0}
    cfg.pop("partial_rotary_factor", None)  # the class sets the dict's before reading it
    notes.append(
        f"Mistral4Config makes head_dim qk_nope_head_dim + qk_rope_head_dim = {head} and rotates "
        f"{share:g} of it: the qk_rope_head_dim = {rope_dim} dims of MLA, read here as all of "
        "qk_rope_head_dim"
    )


def _layer_rope_theta(cfg: dict, path: str, notes: list[str]) -> None:
    """``layer_rope_theta``, one entry per layer, 0 for a NoPE layer, read as
    ``no_rope_layers``. Granite SWA (``granite_swa``, ``granitemoe_swa``) builds one rotary
    embedding per distinct non-zero entry, each layer rotating by its own base; Muse
    Glimmer's text model rotates every other layer by ``rope_parameters``' base (the
    entries' values are not read), and without the list makes every 4th layer counted back
    from the last NoPE (``MuseGlimmerTextConfig``)."""
    muse = cfg.get("model_type") == "muse_glimmer_text"
    thetas, name = cfg.get("layer_rope_theta"), f"{path}['layer_rope_theta']"
    if cfg.get("num_hidden_layers") is None:
        return
    count = check_config_int(f"{path}['num_hidden_layers']", cfg["num_hidden_layers"], "layers")
    if thetas is None:
        if muse:
            cfg["no_rope_layers"] = [int((count - 1 - i) % 4 != 0) for i in range(count)]
            notes.append(
                f"{path} gives no layer_rope_theta: MuseGlimmerTextConfig makes every 4th layer "
                "counted back from the last NoPE"
            )
        return
    if isinstance(thetas, (str, bytes)) or not isinstance(thetas, Sequence):
        raise TypeError(f"{name} must be a list of bases (0: NoPE), got {thetas!r}")
    if len(thetas) < count:
        raise ValueError(
            f"{name} has {len(thetas)} entries, fewer than {path}['num_hidden_layers'] = {count}"
        )
    thetas = [
        0.0
        if isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0
        else check_base(name, t)
        for t in thetas[:count]
    ]
    cfg["no_rope_layers"] = [int(t != 0) for t in thetas]
    bases = sorted(set(thetas) - {0.0})
    listed = ", ".join(f"{t:g}" for t in bases)
    key, rope = _rope_dict(cfg)
    if rope is not None and all(isinstance(v, Mapping) for v in rope.values()):
        return  # one dict per layer type already: read as given
    base = (rope or {}).get("rope_theta", cfg.get("rope_theta", 10_000.0))
    if muse:
        number = isinstance(base, (int, float)) and not isinstance(base, bool)
        others = [f"{t:g}" for t in bases if number and t != base]
        if others:
            notes.append(
                f"{name} holds bases ({', '.join(others)}) other than rope_theta {base:g}: "
                "MuseGlimmerTextModel rotates every layer whose entry is not 0 by "
                "rope_parameters' base; those values are not read as bases"
            )
        return
    if not bases:
        return
    given = dict(rope or {"rope_type": "default"})
    if len(bases) == 1:
        cfg["rope_parameters"] = {**given, "rope_theta": bases[0]}
    else:
        types = cfg.get("layer_types")
        by_type: dict = {}
        readable = isinstance(types, list) and all(isinstance(t, str) for t in types)
        for theta, kind in zip(thetas, types if readable else [], strict=False):
            if theta:
                by_type.setdefault(kind, set()).add(theta)
        if not readable or any(len(found) > 1 for found in by_type.values()):
            raise ValueError(
                f"{name} gives layers of one type different bases ({listed}): the model rotates "
                "each layer by its own base, and this library reads one RoPE per layer type"
            )
        cfg["rope_parameters"] = {
            kind: {**given, "rope_theta": min(by_type.get(kind, {base}))}
            for kind in dict.fromkeys(types[:count])
        }
    cfg.pop("rope_scaling", None)
    cfg.pop("rope_theta", None)
    notes.append(
        f"{name} gives each layer its base ({listed}; 0: NoPE): one rotary embedding per base"
    )


def _modernbert(cfg: dict, path: str, notes: list[str], decoder: bool = False) -> None:
    """ModernBERT: one RoPE per layer type, the full layers' base from the legacy
    ``global_rope_theta`` (160,000), the sliding layers' from ``local_rope_theta`` (10,000),
    a flat ``rope_scaling`` applied to both; its window is ``local_attention // 2`` keys on
    each side (``ModernBertConfig``), where the file states no ``sliding_window`` (one it
    states wins: the class sets it after ``local_attention``). The decoder
    (``ModernBertDecoderConfig``) reads the same, its window keys back."""
    rope = cfg.get("rope_parameters")
    nested = isinstance(rope, Mapping) and any(isinstance(v, Mapping) for v in rope.values())
    by_type = dict(rope) if nested else {}
    scaling = cfg.pop("rope_scaling", None)
    if scaling and not isinstance(scaling, Mapping):
        raise TypeError(f"{path}['rope_scaling'] must be a dict, got {type(scaling).__name__}")
    for kind, legacy, theta in (
        ("full_attention", "global_rope_theta", 160_000.0),
        ("sliding_attention", "local_rope_theta", 10_000.0),
    ):
        entry = by_type.get(kind)
        if entry is not None and not isinstance(entry, Mapping):
            continue  # refused where the RoPE is read
        entry = dict(entry or {"rope_type": "default"})
        entry.update(scaling or {})
        if "rope_theta" not in entry:
            entry["rope_theta"] = cfg.get(legacy, theta)
            if legacy in cfg:
                notes.append(f"{path}[{legacy!r}] = {cfg[legacy]!r} is the {kind} layers' base")
        by_type[kind] = entry
    cfg["rope_parameters"] = by_type
    if cfg.get("sliding_window") is None:
        local = check_config_int(
            f"{path}['local_attention']", cfg.get("local_attention", 128), "length"
        )
        cfg["sliding_window"] = local // 2
        what = "keys back" if decoder else "keys on each side"
        notes.append(
            f"{path}['local_attention'] = {local}: "
            f"ModernBert{'Decoder' if decoder else ''}Config's sliding_window is half of "
            f"it, {local // 2} {what}"
        )


def _neomme(cfg: dict, path: str, notes: list[str]) -> None:
    """NeoMME: one RoPE per layer type, each filled in from a top-level ``rope_theta`` (both
    types) or the class's bases (10⁶ full, 10⁴ sliding) and shares (0.25 full, 1 sliding);
    without ``per_layer_config``, every second sliding layer's window is 1024
    (``NeoMMEConfig``)."""
    rope = cfg.get("rope_parameters")
    by_type = dict(rope) if isinstance(rope, Mapping) else {}
    theta = cfg.pop("rope_theta", None)
    if theta is not None:
        notes.append(f"{path}['rope_theta'] = {theta!r} is both layer types' base (NeoMMEConfig)")
    for kind, base, share in (("full_attention", 1e6, 0.25), ("sliding_attention", 1e4, 1.0)):
        entry = by_type.get(kind, {})
        if not isinstance(entry, Mapping):
            continue  # refused where the RoPE is read
        entry = {"rope_type": "default", "rope_theta": base if theta is None else theta, **entry}
        by_type[kind] = {"partial_rotary_factor": share, **entry}
    cfg["rope_parameters"] = by_type
    if "per_layer_config" in cfg or cfg.get("num_hidden_layers") is None:
        return
    count = check_config_int(f"{path}['num_hidden_layers']", cfg["num_hidden_layers"], "layers")
    types = cfg.get("layer_types")
    if not isinstance(types, list):
        types = [
            "full_attention" if (i + 1) % 6 == 0 or i == count - 1 else "sliding_attention"
            for i in range(count)
        ]
    sliding = [i for i, kind in enumerate(types[:count]) if kind == "sliding_attention"]
    cfg["per_layer_config"] = {str(i): {"sliding_window": 1024} for i in sliding[1::2]}
    notes.append(
        f"{path} gives no per_layer_config: NeoMMEConfig gives every second sliding layer a "
        "window of 1024"
    )


def _global_head_dim(cfg: dict, path: str, notes: list[str]) -> None:
    """EmbeddingGemma 2 and Gemma 4 Unified: without ``per_layer_config`` the class gives
    the full-attention layers heads of ``global_head_dim`` (512 when the file gives none)."""
    if "per_layer_config" not in cfg and cfg.get("global_head_dim") is None:
        cfg["global_head_dim"] = 512
        notes.append(
            f"{path} gives no per_layer_config or global_head_dim: the class gives the "
            "full-attention layers heads of 512"
        )


def _ultrabert(cfg: dict, path: str, notes: list[str]) -> None:
    """UltraBERT's legacy files: a ``rope_theta`` list (one base per layer) and
    ``attention_windows``, which its class turns into one RoPE per layer type; refused."""
    for key in ("rope_theta", "attention_windows"):
        if isinstance(cfg.get(key), Sequence) and not isinstance(cfg[key], (str, bytes)):
            raise ValueError(
                f"{path}[{key!r}] is a list, the legacy form UltrabertConfig turns into one RoPE "
                "per layer type: this library does not read it (a config saved by transformers "
                "5 gives rope_parameters and layer_types)"
            )


def _rotary_dim(cfg: dict, path: str, notes: list[str]) -> None:
    """A legacy ``rotary_dim`` (MiniMax-M2, GPT-J, CodeGen) as ``partial_rotary_factor``.

    GPT-J and CodeGen rotate the first ``rotary_dim`` dims of each head
    (``modeling_gptj.py``), as a partial factor does.
    """
    head = cfg.get("head_dim")
    if head is None and cfg.get("hidden_size") and cfg.get("num_attention_heads"):
        hidden = check_config_int(f"{path}['hidden_size']", cfg["hidden_size"], "width")
        heads = check_config_int(
            f"{path}['num_attention_heads']", cfg["num_attention_heads"], "heads"
        )
        head = hidden // heads
    if head is None:
        return
    if cfg.get("partial_rotary_factor") is not None:
        if FAMILIES[cfg["model_type"]].partial == "read":
            return  # MiniMax-M2's class reads the share first
        notes.append(
            f"{path}['partial_rotary_factor'] = {cfg['partial_rotary_factor']} is not read: "
            f"{_ROTARY_DIM_TYPES[cfg['model_type']]} reads rotary_dim"
        )
    rotary = check_config_int(f"{path}['rotary_dim']", cfg["rotary_dim"], "head_dim", minimum=2)
    head = check_config_int(f"{path}['head_dim']", head, "head_dim", minimum=2)
    if rotary > head:
        raise ValueError(f"{path}['rotary_dim'] = {rotary} is larger than the head ({head})")
    cfg["partial_rotary_factor"] = rotary / head
    notes.append(
        f"{path}['rotary_dim'] = {rotary} read as partial_rotary_factor {rotary}/{head} "
        f"({_ROTARY_DIM_TYPES[cfg['model_type']]})"
    )


_SHARE = "partial_rotary_factor"


def rope_dicts(cfg: Mapping) -> tuple[str | None, list[tuple[str | None, Mapping | None]]]:
    """The RoPE dicts of a config as transformers reads them: the key that holds them
    (``rope_scaling`` wins over ``rope_parameters``; None where there is neither), and
    ``(layer type, dict)`` for each layer type of a nested dict, or ``[(None, the
    dict)]`` for a flat one (``[(None, None)]`` where there is none).

    >>> rope_dicts({"rope_parameters": {"full_attention": {"rope_theta": 1e6},
    ...                                 "sliding_attention": None}})
    ('rope_parameters', [('full_attention', {'rope_theta': 1000000.0})])
    >>> rope_dicts({"rope_theta": 1e4})
    (None, [(None, None)])
    """
    key, rope = _rope_dict(cfg)
    if rope is not None and all(isinstance(v, Mapping) or v is None for v in rope.values()):
        return key, [(kind, entry) for kind, entry in rope.items() if isinstance(entry, Mapping)]
    return key, [(None, rope)]


def _shares(cfg: Mapping, path: str) -> list[tuple[str | None, str, float, str]]:
    """Every share below 1 a layer type's RoPE would read: ``(its dict's layer type, or
    None for the flat dict, the name it is read under, the share, the dict's rope_type)``.
    A dict's own share wins over the top level's."""
    key, dicts = rope_dicts(cfg)
    top = cfg.get(_SHARE)
    out = []
    for kind, entry in dicts:
        entry = entry or {}
        where = f"{path}[{key!r}]" + ("" if kind is None else f"[{kind!r}]")
        share, name = entry.get(_SHARE), f"{where}[{_SHARE!r}]"
        if share is None:
            share, name = top, f"{path}[{_SHARE!r}]"
        if share is None:
            continue
        share = check_float(name, share, greater_than=0.0, at_most=1.0)
        if share < 1.0:
            out.append((kind, name, share, entry.get("rope_type", entry.get("type", "default"))))
    return out


def _partial_share(cfg: dict, path: str, notes: list[str]) -> None:
    """A ``partial_rotary_factor`` below 1 as the family's code takes it
    (:data:`~pe_explained.families.PARTIALS`): kept where the code reads it, the whole
    head where its own default RoPE reads none, refused where transformers cannot run
    the model. A family this library has not read keeps the share (assumed)."""
    family = FAMILIES.get(cfg.get("model_type"))
    if family is None or family.pairing is None or family.partial == "read":
        return
    if family.partial == "rotary_dim" and cfg.get("rotary_dim") is not None:
        return  # the share is rotary_dim's (_rotary_dim)
    code = family.modeling.rsplit("/", 1)[-1]
    key, _ = _rope_dict(cfg)
    for kind, name, share, rope_type in _shares(cfg, path):
        if family.partial == "fails":
            raise ValueError(
                f"{name} = {share:g}: {cfg['model_type']!r} builds RoPE frequencies for "
                f"int(head_dim · {share:g}) dims but rotates the whole head ({code}): "
                "transformers cannot run this config"
            )
        if rope_type == "proportional":  # a table the head's width, zeros past the share
            continue
        if rope_type not in ("default", "mrope"):
            raise ValueError(
                f"{name} = {share:g} with rope_type {rope_type!r}: that table "
                f"(modeling_rope_utils.py) is built for int(head_dim · {share:g}) dims, but "
                f"{cfg['model_type']!r} rotates the whole head ({code}): transformers "
                "cannot run this config"
            )
        rope = cfg.get(key) if key is not None else None  # as the earlier shares left it
        if rope is None:
            cfg.pop(_SHARE, None)
        elif kind is None:
            cfg[key] = {**rope, _SHARE: 1.0}
        else:
            cfg[key] = {**rope, kind: {**rope[kind], _SHARE: 1.0}}
        notes.append(
            f"{name} = {share:g} is not read: the default RoPE of {cfg['model_type']!r} builds "
            f"frequencies for the whole head, and its attention rotates all of it ({code})"
        )


#: What a family's configuration class does to its config beyond filling in defaults,
#: by model_type: one rule each, applied by :func:`standardise`.
_CLASS_RULES = {
    **dict.fromkeys(_SCALING_ON_FULL_ONLY, _olmo3),
    "deepseek_v4": _deepseek_v4,
    **dict.fromkeys(_HUNYUAN, _hunyuan),
    "nemotron_h": _nemotron_h,
    "mimo_v2_flash": _mimo_v2_flash,
    "longcat_flash": _longcat_flash,
    "zamba2": _zamba2,
    "mistral4": _mistral4,
    **dict.fromkeys(("granite_swa", "granitemoe_swa", "muse_glimmer_text"), _layer_rope_theta),
    "modernbert": _modernbert,
    "modernbert-decoder": lambda cfg, path, notes: _modernbert(cfg, path, notes, decoder=True),
    "neomme": _neomme,
    "ultrabert": _ultrabert,
    **dict.fromkeys(_GLOBAL_HEAD_TYPES, _global_head_dim),
}


def standardise(cfg: Mapping, path: str) -> tuple[dict, list[str]]:
    """``cfg`` (the language model's part of a config) as its family's configuration
    class leaves it, and notes on what changed (see the module's docstring).

    Examples
    --------
    >>> cfg, notes = standardise({"model_type": "minimax_m2", "head_dim": 128,
    ...                           "rotary_dim": 64}, "config")
    >>> cfg["partial_rotary_factor"], cfg["rope_theta"]
    (0.5, 5000000.0)
    >>> cfg, notes = standardise({"model_type": "hunyuan_v1_dense", "head_dim": 128,
    ...     "rope_theta": 10000.0, "rope_scaling": {"type": "dynamic", "alpha": 1000.0,
    ...                                             "factor": 1.0}}, "config")
    >>> round(cfg["rope_scaling"]["rope_theta"])
    11158840
    """
    out = dict(cfg)
    notes: list[str] = []
    check_config_name(f"{path}['model_type']", out.get("model_type"))
    if out.get("model_type") in RENAMED_TYPES:
        out["model_type"] = RENAMED_TYPES[out["model_type"]]
        notes.append(
            f"{path}['model_type'] = {cfg['model_type']!r} is read as {out['model_type']!r} "
            "(the remote code it was released with; transformers' family of that name)"
        )
    model_type = out.get("model_type")
    for legacy, standard in LEGACY_NAMES.get(model_type, {}).items():
        # a class's to_dict writes both names, the standard one None (JetMoE's head_dim)
        if legacy in out and out.get(standard) is None:
            out[standard] = out[legacy]
    states_rope = any(k in out for k in ("rope_theta", *_ROPE_DICT_KEYS))
    if model_type in _IMPLICIT_ROPE and not states_rope:
        if not (model_type == "falcon" and out.get("alibi")):
            out["rope_theta"] = 10_000.0
    elif model_type in CLASS_DEFAULTS and not states_rope:
        theta = CLASS_DEFAULTS[model_type][0]
        if theta is not None:
            out["rope_theta"] = theta
            notes.append(
                f"{path} states no base: rope_theta {theta:g} (class default of "
                f"{model_type!r} in transformers)"
            )
    if model_type in CLASS_DEFAULTS and "max_position_embeddings" not in out:
        if not (model_type == "falcon" and out.get("alibi")):
            _fill(out, path, notes, "max_position_embeddings", CLASS_DEFAULTS[model_type][1])
    if model_type in _ROTARY_DIM_TYPES and out.get("rotary_dim") is not None:
        _rotary_dim(out, path, notes)
    if model_type in _PARTIAL_DEFAULTS and out.get("partial_rotary_factor") is None:
        _, rope = _rope_dict(out)
        if rope is None or "partial_rotary_factor" not in rope:
            out["partial_rotary_factor"] = _PARTIAL_DEFAULTS[model_type]
    if model_type in _DEFAULT_ROPE and _rope_dict(out)[1] is None:
        installed = _DEFAULT_ROPE[model_type]
        out["rope_parameters"] = {
            k: dict(v) if isinstance(v, Mapping) else v for k, v in installed.items()
        }
        what = (
            repr(installed["rope_type"]) if "rope_type" in installed else "one RoPE per layer type"
        )
        notes.append(
            f"{path} gives no RoPE dict: the configuration class installs {what} with its defaults"
        )
    if model_type in DEFAULT_THETAS and "rope_theta" not in out:
        _, rope = _rope_dict(out)
        if rope is None or "rope_theta" not in rope:
            out["rope_theta"] = DEFAULT_THETAS[model_type]
    rule = _CLASS_RULES.get(model_type)
    if rule is not None:
        rule(out, path, notes)
    _partial_share(out, path, notes)
    # what the registry records the class filling in beyond base and length (a window)
    family = FAMILIES.get(model_type)
    for key, value in ({} if family is None else family.defaults or {}).items():
        if key not in out:
            _fill(out, path, notes, key, value)
    return out, notes


def _fill(cfg: dict, path: str, notes: list[str], key: str, value) -> None:
    """``cfg[key] = value``, the class's default where the file is silent, noted."""
    cfg[key] = value
    notes.append(
        f"{path} states no {key}: {value} (class default of {cfg['model_type']!r} in transformers)"
    )
