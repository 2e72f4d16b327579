"""Where each layer of a model gets its positions from, read from its ``config.json``.

In the hybrid models of 2025–26 most layers never rotate anything. A decoder layer
learns the order of its tokens in one of three ways:

* ``"rotary"``: softmax attention with RoPE on its queries and keys (the layer type's
  :class:`~pe_explained.RopeSettings`);
* ``"nope"``: softmax attention without any position signal — order reaches it only
  through the causal mask (chapter 14) and through what earlier layers wrote;
* ``"recurrence"``: no attention at all — a linear-attention or state-space mixer
  (Gated DeltaNet, Kimi Delta Attention, Mamba-2, MiniMax's lightning attention) that
  reads the tokens in order, so order is built into its recurrence, or a short causal
  convolution (LFM2's ``conv`` layers), whose weights depend on each key's offset;
* ``"none"``: no token mixing at all — a layer of its own for an MLP or a mixture of
  experts (Nemotron-H's ``-`` and ``E``), which sees each token alone: position does not
  enter it.

A model without rotary embeddings (:mod:`pe_explained.hf_nonrotary`) has two more:

* ``"absolute"``: attention over inputs to which a learned table of positions was
  added once, before the first layer (GPT-2, BERT, OPT);
* ``"bias"``: attention whose scores get a position bias (ALiBi: BLOOM, MPT; T5's
  bucketed relative bias).

:func:`read_layers` (a step of :func:`~pe_explained.read_model`; ask
:func:`~pe_explained.layer_positions`) answers it for every layer, with the attention
window or chunk where there is one, following each family's modeling code in
``transformers`` 5.23 (which layers it builds as attention, and which of those call the
rotation), as the registry :mod:`~pe_explained.families` records it:

=======================  ==================================================================
``qwen3_next``,          ``layer_types``: ``"linear_attention"`` is Gated DeltaNet; default
``qwen3_5``              every ``full_attention_interval``-th (4th) layer is attention
``kimi_linear``          ``linear_attn_config`` (1-based ``full_attn_layers``, ``kda_layers``);
                         its MLA layers never rotate (no rotary code; ``mla_use_nope`` unread)
``granitemoehybrid``     ``layer_types`` ``"mamba"``/``"attention"``; attention rotates only
                         when ``position_embedding_type`` is ``"rope"``
``falcon_h1``            every layer is attention and Mamba-2 side by side, attention rotates
``exaone4``              with a ``sliding_window``, only sliding layers rotate
``cohere2``              only sliding layers rotate
``llama4``, ``smollm3``  ``no_rope_layers`` (1: rotates); Llama 4's rotating layers are
                         chunked (``attention_chunk_size``)
``deepseek_v4``          sliding layers rotate by ``main``, compressed ones by ``compress``
``nemotron_h``           ``hybrid_override_pattern`` (``M`` Mamba-2, ``*`` attention, ``E``
                         MoE, ``-`` MLP); its attention never rotates
``mimo_v2_flash``        full attention at layer 0 and every 6th, else sliding (window 129);
                         without ``rope_parameters``, its class's RoPE per layer type
``bamba``                attention at ``attn_layer_indices``, Mamba-2 elsewhere
``jamba``                attention where ``i % attn_layer_period == attn_layer_offset``,
                         Mamba elsewhere; its attention never rotates
``afmoe``,               only sliding layers rotate (EXAONE-MoE's, as EXAONE 4's, when
``exaone_moe``           windowed; its class's window is 4096)
``flint``, ``kolibri1``  only sliding layers rotate (Kolibri's, as EXAONE 4's, when windowed)
``lfm2``                 ``conv`` layers (a short convolution) except at ``full_attn_idxs``
``lfm3``                 ``conv`` layers beside sliding and full attention (full where
                         i % 4 == 2, sliding where i % 4 == 0 from layer 4)
``minimax``              lightning attention at odd layers; the window on full attention
``granite_swa``,         ``layer_rope_theta``: each layer's base, 0 for NoPE (Muse Glimmer's
``muse_glimmer_text``    text model reads only which entries are 0)
``neomme``               windows per layer (``per_layer_config``), every second one 1024
=======================  ==================================================================

Other families: every attention layer rotates with its layer type's RoPE.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ._checks import check_bool, check_config_int, check_float, check_int
from .families import FAMILIES, V4_RATIOS
from .hf_config import (
    ALL_LAYERS,
    ROPE_KEYS,
    _layer_count,
    _layer_type_list,
    _rotating_layers,
)
from .temperature import attention_temperature

__all__ = [
    "LAYER_SOURCES",
    "LayerPosition",
    "TemperatureSettings",
    "nonrotary_layers",
    "read_layers",
    "read_temperature",
]

#: What a layer takes its positions from (see the module's docstring).
LAYER_SOURCES = ("rotary", "nope", "recurrence", "absolute", "bias", "none")

#: Layer-type names as ``transformers`` renames them after reading a config
#: (``configuration_utils``).
_RENAMED = {
    "mamba": "linear_attention",
    "attention": "full_attention",
    "deepseek_sparse_attention": "indexed_attention",
    "qwen_sparse_attention": "indexed_attention",
}
#: The layer types of ``transformers``' ``ALLOWED_ATTN_LAYER_TYPES`` this library reads.
_LAYER_TYPES = frozenset(
    {
        "full_attention",
        "sliding_attention",
        "chunked_attention",
        "indexed_attention",
        "compressed_sparse_attention",
        "heavily_compressed_attention",
        "hybrid",
        "linear_attention",
        "conv",
    }
)
#: Layer types with no softmax attention (LFM2's ``conv``: a short causal convolution).
_RECURRENT = frozenset({"linear_attention", "conv"})
#: Layer types that mix no tokens at all (Nemotron-H's MLP and MoE layers), by mixer.
_NO_MIXING = {"mlp": "MLP", "moe": "MoE"}
#: The mixer of a recurrent layer, by family (:mod:`~pe_explained.families`).
_MIXERS = {t: f.mixer for t, f in FAMILIES.items() if f.mixer}
_V4_TYPES = frozenset(V4_RATIOS.values())
_WINDOWED = frozenset({"sliding_attention"}) | _V4_TYPES


class LayerPosition(NamedTuple):
    """Where one decoder layer gets its positions from (an immutable record: a config
    may have 10,000 layers, and a named tuple is made three times faster).

    Attributes
    ----------
    index : int
        The layer's index, from 0.
    layer_type : str
        Its type as ``transformers`` names it (``"full_attention"``,
        ``"sliding_attention"``, ``"linear_attention"``, ``"chunked_attention"``,
        ``"hybrid"``, …); ``"default"`` when the config gives none.
    source : {"rotary", "nope", "recurrence", "absolute", "bias"}
        See the module's docstring.
    rope : str or None
        For a rotary layer, the key of :func:`~pe_explained.rope_settings` whose
        frequencies it uses; None otherwise.
    mixer : str
        What mixes its tokens: ``"attention"``, ``"MLA"`` (DeepSeek's latent
        attention), ``"attention + Mamba-2"`` (Falcon-H1), ``"Gated DeltaNet"``, …
    window : int or None
        Sliding window of its attention (keys per query, itself included).
    chunk : int or None
        Chunk of its attention (Llama 4's chunked layers: a query sees only keys of
        its own chunk).
    assumed : bool
        True for a layer read as rotary because its family's code has not been read
        (its ``model_type`` is not in :data:`~pe_explained.families.FAMILIES`): every
        attention layer is assumed to rotate, with the file's settings.
    """

    index: int
    layer_type: str
    source: str
    rope: str | None
    mixer: str
    window: int | None = None
    chunk: int | None = None
    assumed: bool = False


def _layer_type_names(cfg: Mapping, path: str, count: int) -> list[str]:
    """Every layer's type, as the family's configuration class lays them out (its
    ``layer_layout`` in :mod:`~pe_explained.families`)."""
    family = FAMILIES.get(cfg.get("model_type"))
    layout = None if family is None else family.layer_layout
    given = cfg.get("layer_types", cfg.get("layers_block_type"))
    if layout == "hybrid":
        return ["hybrid"] * count  # FalconH1Config.layers_block_type
    if given is None and layout in _LAYOUTS:
        return _LAYOUTS[layout](cfg, path, count)
    if given is not None and cfg.get("layer_types") is None:  # layers_block_type
        cfg = {**cfg, "layer_types": given}
    types = _layer_type_list(cfg, path, count)
    if types is None and layout == "chunked where rotating":
        rotating = _rotating_layers(cfg, path, count)
        return ["chunked_attention" if r else "full_attention" for r in rotating]
    if types is None:
        return [ALL_LAYERS] * count
    names = [_RENAMED.get(t, t) for t in types]
    # Nemotron-H's blocks also include layers of their own for an MLP or a MoE
    allowed = _LAYER_TYPES | (set(_NO_MIXING) if layout == "hybrid_override_pattern" else set())
    for index, name in enumerate(names):
        if name not in allowed:
            known = ", ".join(repr(t) for t in sorted(allowed))
            raise ValueError(
                f"{path}['layer_types'][{index}] = {types[index]!r} is not a layer type this "
                f"library reads (it reads {known}, and the legacy 'mamba' and 'attention')"
            )
    return names


def _kimi_layer_types(cfg: Mapping, path: str, count: int) -> list[str]:
    """Kimi Linear: ``linear_attn_config``'s 1-based ``full_attn_layers`` and
    ``kda_layers`` (``KimiLinearConfig``), else attention at layers 4, 8, …"""
    linear = cfg.get("linear_attn_config")
    if isinstance(linear, Mapping) and "full_attn_layers" in linear and "kda_layers" in linear:
        types: list[str | None] = [None] * count
        for key, kind in (
            ("full_attn_layers", "full_attention"),
            ("kda_layers", "linear_attention"),
        ):
            name = f"{path}['linear_attn_config'][{key!r}]"
            layers = linear[key]
            if isinstance(layers, (str, bytes)) or not isinstance(layers, Sequence):
                raise TypeError(f"{name} must be a list of layer numbers from 1, got {layers!r}")
            for number in layers:
                check_int(name, number, minimum=1)
                if number > count:
                    raise ValueError(
                        f"{name} names layer {number}, beyond num_hidden_layers = {count}"
                    )
                types[number - 1] = kind
        missing = [i for i, t in enumerate(types) if t is None]
        if missing:
            raise ValueError(
                f"{path}['linear_attn_config'] assigns no kind to layer(s) "
                f"{', '.join(str(i + 1) for i in missing)} (numbered from 1)"
            )
        return types
    return ["full_attention" if i and i % 4 == 0 else "linear_attention" for i in range(count)]


def _v4_layer_types(cfg: Mapping, path: str, count: int) -> list[str]:
    """DeepSeek-V4: ``compress_ratios`` (0 sliding, 4 compressed sparse, 128 heavily
    compressed), else its class's default pattern."""
    ratios = cfg.get("compress_ratios")
    if ratios is None:
        heavy, sparse = "heavily_compressed_attention", "compressed_sparse_attention"
        return [heavy, heavy, *(heavy if i % 2 == 0 else sparse for i in range(count - 2))][:count]
    name = f"{path}['compress_ratios']"
    if isinstance(ratios, (str, bytes)) or not isinstance(ratios, Sequence) or len(ratios) < count:
        raise ValueError(f"{name} must list one ratio (0, 4 or 128) per layer, got {ratios!r}")
    out = []
    for ratio in ratios[:count]:
        if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or ratio not in V4_RATIOS:
            raise ValueError(f"{name} must hold 0, 4 or 128, got {ratio!r}")
        out.append(V4_RATIOS[ratio])
    return out


def _interval_layer_types(cfg: Mapping, path: str, count: int) -> list[str]:
    """Qwen3-Next, Qwen3.5: full attention every ``full_attention_interval``-th layer."""
    interval = check_config_int(
        f"{path}['full_attention_interval']", cfg.get("full_attention_interval", 4), "layers"
    )
    return ["linear_attention" if (i + 1) % interval else "full_attention" for i in range(count)]


#: The layouts of :data:`~pe_explained.families.LAYER_LAYOUTS` made where the file lists
#: no layer types.
_LAYOUTS = {
    "full_attention_interval": _interval_layer_types,
    "linear_attn_config": _kimi_layer_types,
    "compress_ratios": _v4_layer_types,
    "mamba": lambda cfg, path, count: ["linear_attention"] * count,  # GraniteMoeHybrid
    "global_attn_every_n_layers": lambda cfg, path, count: _every_nth_global(cfg, path, count),
    "attn_layer_indices": lambda cfg, path, count: _attention_at(cfg, path, count),
    "attn_layer_period": lambda cfg, path, count: _attention_period(cfg, path, count),
    "first and every 6th": lambda cfg, path, count: [  # MiMo-V2-Flash
        "full_attention" if i == 0 or (i + 1) % 6 == 0 else "sliding_attention"
        for i in range(count)
    ],
    "first two, every 4th from 1, and the last": lambda cfg, path, count: [  # Flint
        "full_attention" if i < 2 or i % 4 == 1 or i == count - 1 else "sliding_attention"
        for i in range(count)
    ],
    "every 4th from the last": lambda cfg, path, count: [  # Muse Glimmer's text model
        "full_attention" if (count - 1 - i) % 4 == 0 else "sliding_attention" for i in range(count)
    ],
    "every 4th from 3, and the last": lambda cfg, path, count: _every_4th_from_3(count),
    "every 4th from 0": lambda cfg, path, count: [  # Granite SWA
        "full_attention" if i % 4 == 0 else "sliding_attention" for i in range(count)
    ],
    "global_attn_every_n_layers from 0": lambda cfg, path, count: _global_from_0(cfg, path, count),
    "every 6th and the last": lambda cfg, path, count: [  # NeoMME
        "full_attention" if (i + 1) % 6 == 0 or i == count - 1 else "sliding_attention"
        for i in range(count)
    ],
    "full_attn_idxs": lambda cfg, path, count: _attention_idxs(cfg, path, count),
    "alternating from full": lambda cfg, path, count: [  # MiniMax
        "full_attention" if i % 2 == 0 else "linear_attention" for i in range(count)
    ],
    "full": lambda cfg, path, count: ["full_attention"] * count,  # Mellum
    "conv, sliding and full by 4": lambda cfg, path, count: [  # LFM3
        "full_attention" if i % 4 == 2 else "sliding_attention" if i % 4 == 0 and i else "conv"
        for i in range(count)
    ],
}


def _every_4th_from_3(count: int) -> list[str]:
    """OLMo Hybrid: full attention at layers 3, 7, 11, …, else linear attention; the last
    layer full where that gives none (``OlmoHybridConfig.__post_init__``)."""
    types = ["full_attention" if i % 4 == 3 else "linear_attention" for i in range(count)]
    if "full_attention" not in types:
        types[-1] = "full_attention"
    return types


def _global_from_0(cfg: Mapping, path: str, count: int) -> list[str]:
    """ModernBERT: full attention where ``i % global_attn_every_n_layers == 0``, else sliding."""
    every = check_config_int(
        f"{path}['global_attn_every_n_layers']",
        cfg.get("global_attn_every_n_layers", 3),
        "layers",
    )
    return ["sliding_attention" if i % every else "full_attention" for i in range(count)]


def _attention_idxs(cfg: Mapping, path: str, count: int) -> list[str]:
    """LFM2: full attention at the layers ``full_attn_idxs`` lists (every layer without it),
    else a short convolution."""
    name, listed = f"{path}['full_attn_idxs']", cfg.get("full_attn_idxs")
    if listed is None:
        return ["full_attention"] * count
    if isinstance(listed, (str, bytes)) or not isinstance(listed, Sequence):
        raise TypeError(f"{name} must be a list of layer indices, got {listed!r}")
    at = {check_int(name, i, minimum=0) for i in listed}
    return ["full_attention" if i in at else "conv" for i in range(count)]


def _attention_at(cfg: Mapping, path: str, count: int) -> list[str]:
    """Bamba: full attention at the layers ``attn_layer_indices`` lists, else Mamba-2."""
    name, listed = f"{path}['attn_layer_indices']", cfg.get("attn_layer_indices") or []
    if isinstance(listed, (str, bytes)) or not isinstance(listed, Sequence):
        raise TypeError(f"{name} must be a list of layer indices, got {listed!r}")
    at = {check_int(name, i, minimum=0) for i in listed}
    return ["full_attention" if i in at else "linear_attention" for i in range(count)]


def _attention_period(cfg: Mapping, path: str, count: int) -> list[str]:
    """Jamba: attention where ``i % attn_layer_period == attn_layer_offset``, else Mamba."""
    period = check_config_int(
        f"{path}['attn_layer_period']", cfg.get("attn_layer_period", 8), "layers"
    )
    offset = check_config_int(
        f"{path}['attn_layer_offset']", cfg.get("attn_layer_offset", 4), "layers", minimum=0
    )
    return ["full_attention" if i % period == offset else "linear_attention" for i in range(count)]


def _every_nth_global(cfg: Mapping, path: str, count: int) -> list[str]:
    """AFMoE: full attention every ``global_attn_every_n_layers``-th layer, else sliding."""
    every = check_config_int(
        f"{path}['global_attn_every_n_layers']",
        cfg.get("global_attn_every_n_layers", 4),
        "layers",
    )
    return ["sliding_attention" if (i + 1) % every else "full_attention" for i in range(count)]


def _attention_rotates(cfg: Mapping, kind: str) -> bool:
    """Whether an attention layer of ``kind`` calls the rotation, by its family's code
    (:mod:`~pe_explained.families`; a family not listed: every attention layer)."""
    family = FAMILIES.get(cfg.get("model_type"))
    return family is None or family.attention_rotates(cfg, kind)


def read_layers(cfg: Mapping, path: str, rope) -> list[LayerPosition]:
    """Every layer of ``cfg`` (a config's language-model part as its family's class
    leaves it, named ``path``; it gives ``num_hidden_layers``), following the family's
    modeling code. ``rope()`` returns the RoPE settings (:func:`~pe_explained.hf_config.
    read_rope`), asked for only where the config states RoPE or a layer rotates. One
    step of :func:`~pe_explained.read_model`."""
    # a config that states RoPE has it checked first, whatever its layers (a null key
    # states none: OLMo Hybrid's rope_theta)
    early = rope() if any(cfg.get(k) is not None for k in ROPE_KEYS) else None
    count = _layer_count(cfg, path)
    window, chunk = _window_and_chunk(cfg, path)
    kinds = _layer_type_names(cfg, path, count)
    model_type = cfg.get("model_type")
    flags = _rotating_layers(cfg, path, count)
    # the family's rule, once per layer type (a config may have 10,000 layers)
    by_kind = {
        kind: kind not in _RECURRENT and kind not in _NO_MIXING and _attention_rotates(cfg, kind)
        for kind in dict.fromkeys(kinds)
    }
    rotates = [by_kind[kind] and (flags is None or flags[i]) for i, kind in enumerate(kinds)]
    settings = (early if early is not None else rope()) if any(rotates) else {}
    mla = cfg.get("qk_rope_head_dim") is not None and cfg.get("kv_lora_rank") is not None
    family = FAMILIES.get(model_type)
    unread = family is None  # its rotating layers are an assumption
    # the layer types that attend through the window (MiniMax: its full-attention layers)
    windowed = _WINDOWED | {ALL_LAYERS}
    if family is not None and family.window_types is not None:
        windowed = frozenset(family.window_types)
    own = _layer_windows(cfg, path, count) if window is not None else {}
    out = []
    keys: dict[str, str | None] = {}  # the RoPE key of a layer type, found at its first layer
    for index, (kind, rotate) in enumerate(zip(kinds, rotates, strict=True)):
        if kind in _NO_MIXING:
            out.append(LayerPosition(index, kind, "none", None, _NO_MIXING[kind]))
            continue
        if kind in _RECURRENT:
            mixer = _MIXERS.get(model_type, "linear attention")
            out.append(LayerPosition(index, kind, "recurrence", None, mixer))
            continue
        rope_key = None
        if rotate:
            if kind not in keys:
                keys[kind] = _rope_key(settings, kind, model_type, path, index)
            rope_key = keys[kind]
            if rope_key is None:
                rotate = False
        mixer = "MLA" if mla else "attention + Mamba-2" if kind == "hybrid" else "attention"
        out.append(
            LayerPosition(
                index,
                kind,
                "rotary" if rotate else "nope",
                rope_key,
                mixer,
                # no layer types: every layer attends through the window (Mistral's code)
                window=own.get(index, window) if kind in windowed else None,
                chunk=chunk if kind == "chunked_attention" else None,
                assumed=rotate and unread,
            )
        )
    return out


def nonrotary_layers(scheme) -> list[LayerPosition]:
    """Every layer of a model without rotary embeddings (:class:`~pe_explained.hf_nonrotary.
    NonRotaryPositions`): each attends, with positions from the input or a bias."""
    source = "absolute" if scheme.where == "input" else "bias"
    return [
        LayerPosition(i, ALL_LAYERS, source, None, "attention") for i in range(scheme.num_layers)
    ]


def _window_and_chunk(cfg: Mapping, path: str) -> tuple[int | None, int | None]:
    """The sliding window and the attention chunk the config gives its layers (tokens)."""
    use = cfg.get("use_sliding_window")
    if use is not None:
        check_bool(f"{path}['use_sliding_window']", use)
    # Qwen2, SmolLM3: a window in the file is used only with use_sliding_window
    window = None if use is False else cfg.get("sliding_window")
    family = FAMILIES.get(cfg.get("model_type"))
    if family is not None and "sliding_window" in (family.unread or {}):
        window = None  # its code does not read it (noted by read_model)
    if window is not None:
        window = check_config_int(f"{path}['sliding_window']", window, "length")
    family = FAMILIES.get(cfg.get("model_type"))
    chunk = cfg.get("attention_chunk_size", None if family is None else family.attention_chunk)
    if chunk is not None:
        chunk = check_config_int(f"{path}['attention_chunk_size']", chunk, "length")
    return window, chunk


def _layer_windows(cfg: Mapping, path: str, count: int) -> dict[int, int | None]:
    """Layer index → its own window, from ``per_layer_config``'s ``sliding_window`` (NeoMME
    alternates two; None: the layer has none)."""
    per_layer = cfg.get("per_layer_config")
    if not isinstance(per_layer, Mapping):
        return {}
    out = {}
    for index, overrides in per_layer.items():
        if not isinstance(overrides, Mapping) or "sliding_window" not in overrides:
            continue
        name = f"{path}['per_layer_config'][{index!r}]['sliding_window']"
        if not str(index).isdigit() or int(index) >= count:
            raise ValueError(f"{name}: {index!r} is not a layer index below {count}")
        value = overrides["sliding_window"]
        out[int(index)] = None if value is None else check_config_int(name, value, "length")
    return out


def _rope_key(settings: Mapping, kind: str, model_type, path: str, index: int) -> str | None:
    """The key of ``settings`` a rotating layer of ``kind`` uses (None: a null dict)."""
    family = FAMILIES.get(model_type)
    if family is not None and family.rope_keys is not None:  # DeepSeek-V4's main, compress
        key = family.rope_keys.get(kind, family.rope_keys["*"])
    elif ALL_LAYERS in settings:
        key = ALL_LAYERS
    else:
        key = kind
    if key not in settings:
        known = ", ".join(repr(t) for t in settings)
        raise ValueError(
            f"{path}['layer_types'][{index}] = {kind!r} has no RoPE settings "
            f"(the config gives {known})"
        )
    return key if settings[key] is not None else None


@dataclass(frozen=True)
class TemperatureSettings:
    """A query multiplier that grows with position (:func:`~pe_explained.attention_temperature`).

    Attributes
    ----------
    beta : float
        Strength (Llama 4: ``attn_scale``; Ministral 3: ``llama_4_scaling_beta``).
    floor_scale : int
        Positions per step (Llama 4: ``floor_scale``; Ministral 3: the RoPE dict's
        ``original_max_position_embeddings``).
    offset : int
        1 in Llama 4's code, 0 in Ministral 3's.
    layers : tuple of int
        The layers whose queries it multiplies (Llama 4: its NoPE layers; Ministral 3: all).
    source : str
        The config keys it was read from.
    """

    beta: float
    floor_scale: int
    offset: int
    layers: tuple[int, ...]
    source: str

    def factors(self, positions) -> np.ndarray:
        """The multiplier at each position (:func:`~pe_explained.attention_temperature`)."""
        return attention_temperature(
            positions, beta=self.beta, floor_scale=self.floor_scale, offset=self.offset
        )


def read_temperature(cfg: Mapping, path: str, layers) -> TemperatureSettings | None:
    """The position-dependent query multiplier ``cfg`` turns on, if any (see
    :func:`~pe_explained.config_attention_temperature`); ``layers`` are its
    :class:`LayerPosition` (None where the config gives no ``num_hidden_layers``, which
    both multipliers need). One step of :func:`~pe_explained.read_model`."""
    family = FAMILIES.get(cfg.get("model_type"))
    if family is not None and family.temperature is not None:  # Llama 4's, by its defaults
        values = {key: cfg.get(key, default) for key, default in family.temperature.items()}
        if values["attn_temperature_tuning"] is None:
            values["attn_temperature_tuning"] = True
        tuning = values["attn_temperature_tuning"]
        name = f"{path}['attn_temperature_tuning']"
        # Llama4TextAttention tests only its truth: Scout's file ships 4
        if isinstance(tuning, (int, np.integer)) and not isinstance(tuning, bool):
            tuning = check_int(name, tuning, minimum=0) != 0
        if not check_bool(name, tuning):
            return None
        if layers is None:
            _layer_count(cfg, path)  # raises: the layers are needed
        nope = tuple(p.index for p in layers if p.source == "nope")
        return TemperatureSettings(
            beta=check_float(f"{path}['attn_scale']", values["attn_scale"], at_least=0.0),
            floor_scale=check_config_int(f"{path}['floor_scale']", values["floor_scale"], "length"),
            offset=1,
            layers=nope,
            source=f"{path}['attn_temperature_tuning'], ['attn_scale'], ['floor_scale']",
        )
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if isinstance(rope, Mapping) and rope.get("llama_4_scaling_beta") is not None:
        where = f"{path}['{'rope_scaling' if cfg.get('rope_scaling') else 'rope_parameters'}']"
        if rope.get("original_max_position_embeddings") is None:
            raise ValueError(
                f"{where}['llama_4_scaling_beta'] needs {where}['original_max_position_embeddings']"
            )
        return TemperatureSettings(
            beta=check_float(
                f"{where}['llama_4_scaling_beta']", rope["llama_4_scaling_beta"], at_least=0.0
            ),
            floor_scale=check_config_int(
                f"{where}['original_max_position_embeddings']",
                rope["original_max_position_embeddings"],
                "length",
            ),
            offset=0,
            layers=tuple(range(_layer_count(cfg, path))),
            source=f"{where}['llama_4_scaling_beta'], ['original_max_position_embeddings']",
        )
    return None
