"""A model's ``config.json`` read once, into one description of its positions.

:func:`read_model` checks the file, applies its family's rules (what the family's
configuration class in ``transformers`` does first: :mod:`~pe_explained.hf_families`),
finds the language model's part of a multimodal file, and reads from it, in order:
how a model without rotary embeddings gets its positions
(:mod:`~pe_explained.hf_nonrotary`), every layer's source of positions
(:mod:`~pe_explained.layer_positions`), the RoPE of every layer type
(:mod:`~pe_explained.hf_config`), the attention temperature, the notes a reader should
see and the keys whose effect the numbers do not include. The result,
:class:`ModelPositions`, is immutable, and every consumer reads it instead of the file:
the report of ``inspect`` (:mod:`~pe_explained.model_report`), the runtime arguments
(:mod:`~pe_explained.runtimes`), and the functions below, which answer one question
each from it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ._checks import check_choice, check_config, check_config_int
from .dual_chunk import dual_chunk_config, dual_chunk_largest_distance
from .families import FAMILIES, Family
from .hf_config import (
    _INTERLEAVED_MODEL_TYPES,
    HALVES_MODEL_TYPES,
    ROPE_KEYS,
    RopeSettings,
    read_rope,
    text_part,
)
from .hf_families import standardise
from .hf_nonrotary import NonRotaryPositions, nonrotary_positions
from .layer_positions import (
    LayerPosition,
    TemperatureSettings,
    nonrotary_layers,
    read_layers,
    read_temperature,
)

__all__ = [
    "ModelPositions",
    "config_attention_temperature",
    "config_rope_frequencies",
    "layer_positions",
    "layer_rope_types",
    "read_model",
    "rope_settings",
]


@dataclass(frozen=True)
class ModelPositions:
    """Where a model's positions come from, as :func:`read_model` read its config.

    Attributes
    ----------
    model_type : str or None
        The family read (the text part's ``model_type``, else the file's; for a model
        without rotary embeddings, the family its positions were read as).
    model_types : tuple of str
        Every ``model_type`` the file states, its top level first.
    read_from : str
        The part read: ``"config"`` or ``"config['text_config']"``.
    config_shape : {"v4", "v5"}
        ``"v5"`` for a part as transformers 5 writes it (``rope_parameters``).
    text : Mapping
        That part as its family's configuration class leaves it (defaults and legacy
        keys applied, :func:`~pe_explained.hf_families.standardise`).
    file : Mapping
        The file's top level as given (what a runtime reads there, e.g. vLLM's
        ``original_max_position_embeddings``).
    rope : Mapping or None
        Layer type → :class:`~pe_explained.RopeSettings` (None for a null dict); None
        for a model without rotary embeddings, or where the settings could not be read
        and no layer needs them (:attr:`refused` says why).
    refused : Mapping
        What could not be read and why, where nothing else needs it: ``"rope"`` (the
        RoPE settings of a model none of whose layers rotates, or of a model without
        rotary embeddings), ``"temperature"`` (a multiplier that needs the layers of a
        config that gives none); :meth:`answer` raises it when asked.
    layers : tuple of LayerPosition, or None
        Every layer; None when the config gives no ``num_hidden_layers``.
    nonrotary : NonRotaryPositions or None
        A model without rotary embeddings: its learned table or bias.
    temperature : TemperatureSettings or None
        A query multiplier that grows with position (Llama 4, Ministral 3).
    notes : tuple of str
        What a reader should know that the numbers alone do not say (the family's
        defaults filled in, a pairing assumed, …).
    not_modelled : tuple of str
        Keys that change positions and are not in the numbers.
    family : Family or None
        The family's entry in :data:`~pe_explained.families.FAMILIES` (its rules and the
        file they were read from); None where its rules are assumed (every attention
        layer rotates, in halves) or for a model without rotary embeddings.
    """

    model_type: str | None
    model_types: tuple[str, ...]
    read_from: str
    config_shape: str
    text: Mapping
    file: Mapping
    rope: Mapping | None
    refused: Mapping
    layers: tuple[LayerPosition, ...] | None
    nonrotary: NonRotaryPositions | None
    temperature: TemperatureSettings | None
    notes: tuple[str, ...]
    not_modelled: tuple[str, ...]
    family: Family | None = None

    @property
    def rotates(self) -> bool:
        """Whether any layer rotates (True where the layers are not given: a config
        with RoPE settings is read as rotating)."""
        if self.nonrotary is not None:
            return False
        return self.layers is None or any(p.source == "rotary" for p in self.layers)

    def answer(self, name: str):
        """The attribute ``name`` (``"rope"``, ``"temperature"``), or the error that kept
        it from being read (:attr:`refused`)."""
        if name in self.refused:
            raise self.refused[name]
        return getattr(self, name)


def read_model(config) -> ModelPositions:
    """Read a model's ``config.json`` once: where every layer's positions come from.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded (``json.load``); or a :class:`ModelPositions`,
        returned as it is.

    Returns
    -------
    ModelPositions

    Raises
    ------
    TypeError, ValueError
        Naming the config key and the rule, wherever the file breaks one.

    Examples
    --------
    >>> qwen3_next = {"model_type": "qwen3_next", "num_hidden_layers": 4, "head_dim": 256,
    ...               "partial_rotary_factor": 0.25, "rope_theta": 10000000}
    >>> model = read_model(qwen3_next)
    >>> [p.source for p in model.layers], model.rope["default"].rotary_dim
    (['recurrence', 'recurrence', 'recurrence', 'rotary'], 64)
    """
    if isinstance(config, ModelPositions):
        return config
    check_config(config)
    scheme = None if any(k in config for k in ROPE_KEYS) else nonrotary_positions(config)
    if scheme is not None:
        return _nonrotary_model(config, scheme)
    raw, path = text_part(config)
    cfg, notes = standardise(raw, path)
    cfg = MappingProxyType(cfg)
    read: dict = {}

    def rope() -> dict:  # read once, when first needed
        if "settings" not in read:
            read["settings"] = read_rope(cfg, path)
        return read["settings"]

    layers = None if cfg.get("num_hidden_layers") is None else read_layers(cfg, path, rope)
    settings, refused = None, {}
    if layers is None or any(p.source == "rotary" for p in layers):
        settings = rope()
    else:
        try:
            settings = rope()
        except (TypeError, ValueError) as exc:  # no layer needs them
            refused["rope"] = exc
    notes += _family_notes(cfg, path, layers)
    not_modelled = _not_modelled(cfg, path)
    temperature = None
    try:
        temperature = read_temperature(cfg, path, layers)
    except (TypeError, ValueError) as exc:
        if layers is not None:
            raise
        refused["temperature"] = exc  # it needs the layers the config does not give
    return ModelPositions(
        model_type=cfg.get("model_type", config.get("model_type")),
        model_types=tuple(str(c.get("model_type")) for c in (config, cfg) if c.get("model_type")),
        read_from=path,
        config_shape="v5" if "rope_parameters" in raw and not raw.get("rope_scaling") else "v4",
        text=cfg,
        file=MappingProxyType(dict(config)),
        rope=None if settings is None else MappingProxyType(settings),
        refused=MappingProxyType(refused),
        layers=None if layers is None else tuple(layers),
        nonrotary=None,
        temperature=temperature,
        notes=tuple(notes),
        not_modelled=tuple(not_modelled),
        family=FAMILIES.get(cfg.get("model_type")),
    )


def _nonrotary_model(config: Mapping, scheme: NonRotaryPositions) -> ModelPositions:
    notes = [] if scheme.note is None else [scheme.note]
    if scheme.family == "mpt" and config.get("learned_pos_emb"):
        notes.append(
            "learned_pos_emb is true: MosaicML's own code (llm-foundry's modeling_mpt.py) "
            "then also adds a learned table of max_seq_len rows to the input; transformers' "
            "MptModel has no such table and reads ALiBi alone"
        )
    if "model_type" not in config:
        notes.append(f"config gives no model_type: read as {scheme.family!r} by its architectures")
    return ModelPositions(
        model_type=scheme.family,
        model_types=(scheme.family,),
        read_from="config",
        config_shape="v4",
        text=MappingProxyType(dict(config)),
        file=MappingProxyType(dict(config)),
        rope=None,
        refused=MappingProxyType(
            {
                "rope": ValueError(
                    "config has no RoPE settings: none of 'rope_parameters', 'rope_scaling', "
                    f"'rope_theta', 'rotary_emb_base'; its positions are {scheme.kind} "
                    f"({scheme.family}: pe_explained.nonrotary_positions)"
                )
            }
        ),
        layers=tuple(nonrotary_layers(scheme)),
        nonrotary=scheme,
        temperature=None,
        notes=tuple(notes),
        not_modelled=tuple(_not_modelled(config, "config")),
    )


def _family_notes(cfg: Mapping, path: str, layers) -> list[str]:
    """What the reader should know about the family's code that the numbers do not say."""
    notes = []
    model_type = cfg.get("model_type")
    scaling = cfg.get("rope_scaling") or cfg.get("rope_parameters") or {}
    if (
        isinstance(scaling, Mapping)
        and scaling.get("rope_type", scaling.get("type")) == "yarn"
        and scaling.get("beta_fast") is not None
        and scaling.get("beta_fast") == scaling.get("beta_slow")
    ):
        notes.append(
            f"beta_fast = beta_slow = {scaling['beta_fast']:g}: YaRN's ramp has no width, so "
            "every pair is either kept or divided by the factor, a step (Kimi K2's setting)"
        )
    family = FAMILIES.get(model_type)
    # in key order, as the page's copy of the registry holds them (sorted JSON)
    for key, why in sorted(({} if family is None else family.unread or {}).items()):
        if key in cfg:
            notes.append(f"{path}[{key!r}] = {cfg[key]!r} is not read: {why}")
    notes += [] if family is None else family.notes
    if cfg.get("num_kv_shared_layers") is not None:
        name = f"{path}['num_kv_shared_layers']"
        shared = check_config_int(name, cfg["num_kv_shared_layers"], "layers", minimum=0)
    if cfg.get("num_kv_shared_layers"):
        notes.append(
            f"the last {shared} layers rotate their queries only and reuse keys (already "
            "rotated) from an earlier layer of their type (num_kv_shared_layers)"
        )
    tuning = cfg.get("attn_temperature_tuning")
    if isinstance(tuning, int) and not isinstance(tuning, bool):
        notes.append(
            f"{path}['attn_temperature_tuning'] = {tuning}: the modeling code tests only its "
            "truth; transformers 5.23's config class accepts only true or false"
        )
    # without num_hidden_layers (layers None) the model is read as rotating
    if layers is None or any(p.source == "rotary" for p in layers):
        known = HALVES_MODEL_TYPES | _INTERLEAVED_MODEL_TYPES
        if model_type not in known and cfg.get("rope_interleave") is None:
            notes.append(
                f"model_type {model_type!r} is not one whose code this library has read: "
                "its pairing is assumed 'halves' (rotate_half, as most transformers models); "
                "check its apply_rotary_pos_emb"
            )
    return notes


#: Keys that change positions and that this library does not model, with what they do.
NOT_MODELLED = {
    "dual_chunk_attention_config": (
        "Dual Chunk Attention (Qwen2.5-1M) remaps positions inside and across chunks "
        "at inference in the runtimes that ran it (vLLM up to 0.10, in its V0 engine; "
        "vLLM 0.33.0 and transformers 5.23 do not): the frequencies above are unchanged, "
        "the distances a query sees are not"
    ),
    "use_fope": "FoPE replaces RoPE's frequencies with learned Fourier series",
    "xdrope_section": "XD-RoPE splits the rotated pairs into sections of other positions",
    "position_embedding_xdrope": (
        "XD-RoPE (Hunyuan's remote code) splits the rotated pairs into sections of other positions"
    ),
}


def _not_modelled(cfg: Mapping, path: str) -> list[str]:
    """What the config sets that changes positions and is not in the numbers shown."""
    out = []
    for key, what in NOT_MODELLED.items():
        if cfg.get(key):
            out.append(f"{path}[{key!r}]: {what}{_detail(key, cfg, path)}")
    return out


def _detail(key: str, cfg: Mapping, path: str) -> str:
    """Numbers the library computes for a key it does not fold into the report."""
    if key != "dual_chunk_attention_config" or cfg.get("max_position_embeddings") is None:
        return ""
    dca = dual_chunk_config(cfg[key])
    context = check_config_int(
        f"{path}['max_position_embeddings']", cfg["max_position_embeddings"], "length"
    )
    largest = dual_chunk_largest_distance(context, dca["chunk_size"], dca["local_size"])
    return (
        f"; with chunk_size {dca['chunk_size']} and local_size {dca['local_size']} the largest "
        f"distance any query sees over {context} tokens is {largest} "
        "(pe_explained.dual_chunk)"
    )


def rope_settings(config) -> dict[str, RopeSettings | None]:
    """The RoPE of every layer type of a model, from its ``config.json`` as a dict.

    Reads both shapes ``transformers`` reads (see the module's docstring) and
    fills in what the file leaves out as ``transformers``'
    ``standardize_rope_params`` and ``_compute_*_parameters`` functions do:

    * the language model's part of a multimodal config (``text_config``) when
      the top level holds no RoPE keys;
    * ``rope_type``: ``"rope_type"``, else the legacy ``"type"``, else
      ``"default"``; Qwen2-VL's ``"mrope"`` has plain RoPE frequencies;
    * ``rope_theta``: the dict's, else the top level's (GPT-NeoX:
      ``rotary_emb_base``), else 10000
      (Gemma 3's v4 configs: ``rope_theta`` for global layers, default 10⁶, and
      ``rope_local_base_freq`` for sliding ones, default 10⁴);
    * ``partial_rotary_factor``: the dict's, else the top level's (GPT-NeoX:
      ``rotary_pct``), else 1;
    * ``head_dim``: ``head_dim`` (DeepSeek: ``qk_rope_head_dim``; Gemma 4's
      global layers: ``global_head_dim``), else ``hidden_size //
      num_attention_heads``;
    * ``original_max_position_embeddings`` for ``"llama3"``, ``"yarn"`` and
      ``"longrope"``: the top level's for a single dict (Phi-3 keeps it there),
      else the dict's, else ``max_position_embeddings``; ``"dynamic"`` always
      uses ``max_position_embeddings``, as ``_compute_dynamic_ntk_parameters`` does;
    * ``factor`` of ``"yarn"`` and ``"longrope"`` when null or absent:
      ``max_position_embeddings / original_max_position_embeddings``.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded (``json.load``).

    Returns
    -------
    dict
        Layer type → :class:`RopeSettings` (``None`` for a layer type whose
        dict is null: no RoPE there). A model whose layers share one RoPE has the
        single key :data:`ALL_LAYERS` (``"default"``).

    Raises
    ------
    TypeError, ValueError
        Naming the config key and the rule: an unknown ``rope_type`` (the
        message lists the known ones), a missing key, a key the type does not
        read, a value of the wrong kind.

    Examples
    --------
    >>> llama31 = {"rope_theta": 500000.0, "hidden_size": 4096, "num_attention_heads": 32,
    ...            "max_position_embeddings": 131072,
    ...            "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    ...                             "high_freq_factor": 4.0,
    ...                             "original_max_position_embeddings": 8192}}
    >>> s = rope_settings(llama31)["default"]
    >>> s.rope_type, s.rope_theta, s.head_dim, s.rotary_dim, s.layout
    ('llama3', 500000.0, 128, 128, 'halves')
    """
    return dict(read_model(config).answer("rope"))


def config_rope_frequencies(config, *, layer_type=None, seq_len=None):
    """``(inv_freq, attention_factor)`` of a model's rotary embedding, from its config.

    The numbers a ``transformers`` model's rotary embedding holds as its
    ``inv_freq`` (or ``<layer_type>_inv_freq``) buffer and its
    ``attention_scaling`` (the multiplier on cos and sin), computed in float64.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded; read by :func:`rope_settings`.
    layer_type : str, optional
        Which layer type (``"full_attention"``, ``"sliding_attention"``, …);
        may be omitted when the model has a single one.
    seq_len : int, optional
        Current sequence length (``"dynamic"`` and ``"longrope"`` read it).

    Returns
    -------
    inv_freq : ndarray, shape (rotary_dim // 2,), float64
    attention_factor : float

    Examples
    --------
    >>> phi2 = {"hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000.0,
    ...         "partial_rotary_factor": 0.4}
    >>> inv_freq, attention_factor = config_rope_frequencies(phi2)
    >>> len(inv_freq), float(inv_freq[1]), attention_factor   # 32 of 80 dims rotated
    (16, 0.5623413251903491, 1.0)
    """
    settings = rope_settings(config)
    if layer_type is None:
        if len(settings) != 1:
            options = ", ".join(repr(t) for t in settings)
            raise ValueError(f"layer_type must name one of {options} (the config has several)")
        (layer_type,) = settings
    layer_type = check_choice("layer_type", layer_type, settings)
    chosen = settings[layer_type]
    if chosen is None:
        raise ValueError(f"layer_type {layer_type!r} has no RoPE (its rope_parameters are null)")
    return chosen.frequencies(seq_len)


def layer_positions(config) -> list[LayerPosition]:
    """Where every layer of a model gets its positions from.

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded (the language model's part of a multimodal
        config is read, as :func:`~pe_explained.rope_settings` reads it); needs
        ``num_hidden_layers``. Or its :class:`ModelPositions`.

    Returns
    -------
    list of LayerPosition
        One per layer, in order.

    Raises
    ------
    TypeError, ValueError
        Naming the key and the rule: a ``layer_types`` shorter than the layers, a
        layer type the RoPE settings do not cover, a bad ``no_rope_layers``.

    Examples
    --------
    >>> qwen3_next = {"model_type": "qwen3_next", "num_hidden_layers": 4, "head_dim": 256,
    ...               "partial_rotary_factor": 0.25, "rope_theta": 10000000}
    >>> [(p.source, p.mixer) for p in layer_positions(qwen3_next)]  # doctest: +NORMALIZE_WHITESPACE
    [('recurrence', 'Gated DeltaNet'), ('recurrence', 'Gated DeltaNet'),
     ('recurrence', 'Gated DeltaNet'), ('rotary', 'attention')]
    """
    model = read_model(config)
    if model.layers is None:
        raise ValueError(f"{model.read_from}['num_hidden_layers'] is needed to lay out the layers")
    return list(model.layers)


def layer_rope_types(config) -> list[str | None]:
    """Which RoPE each layer of a model uses: a key of :func:`~pe_explained.rope_settings`,
    or None for a layer that does not rotate (a NoPE attention layer, or a layer with no
    attention: see :func:`layer_positions`, on which it is built).

    A layer has no rotary embedding when

    * it has no softmax attention (Gated DeltaNet, Kimi Delta Attention, Mamba-2
      layers of Qwen3-Next, Qwen3.5, Kimi Linear, Granite 4.0-H);
    * its layer type's RoPE dict is null (v5 configs);
    * ``no_rope_layers`` holds 0 at its index (Llama 4, SmolLM3; when the file
      gives no list, transformers makes every ``no_rope_layer_interval``-th
      layer, default 4th, a NoPE layer: layers 3, 7, 11, …);
    * its family's code does not rotate it: Cohere2 (Command R7B) and EXAONE 4 with a
      sliding window rotate only their sliding-window layers, Kimi Linear none, Granite
      4.0-H none unless ``position_embedding_type`` is ``"rope"``.

    Layer types come from ``layer_types``, else from ``sliding_window_pattern``
    as transformers builds them (layer ``i`` is global when ``(i + 1) %
    pattern == 0``; Gemma 3's default pattern is 6, Cohere2's 4).

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded; needs ``num_hidden_layers``.

    Returns
    -------
    list
        One entry per layer: the key whose :class:`~pe_explained.RopeSettings` it uses
        (``"default"`` when all layers share one), or None.

    Examples
    --------
    >>> scout = {"model_type": "llama4_text", "num_hidden_layers": 8, "head_dim": 128,
    ...          "rope_theta": 500000.0}
    >>> layer_rope_types(scout)   # every 4th layer is NoPE
    ['default', 'default', 'default', None, 'default', 'default', 'default', None]
    """
    return [p.rope for p in layer_positions(config)]


def config_attention_temperature(config) -> TemperatureSettings | None:
    """The position-dependent query multiplier a model's config turns on, if any.

    * Llama 4 (``model_type`` ``"llama4_text"``): ``attn_temperature_tuning``
      (default true) multiplies the queries of its NoPE layers by
      ``1 + attn_scale · ln(1 + ⌊(p + 1) / floor_scale⌋)`` (defaults 0.1 and 8192);
    * Ministral 3: a ``llama_4_scaling_beta`` in the RoPE dict multiplies every
      layer's queries by ``1 + β · ln(1 + ⌊p / original_max_position_embeddings⌋)``.

    Returns None for a model that has neither. Read as ``Llama4TextAttention``
    and ``Ministral3Attention`` in transformers read them.

    Examples
    --------
    >>> scout = {"model_type": "llama4_text", "num_hidden_layers": 8, "head_dim": 128,
    ...          "rope_theta": 500000.0, "floor_scale": 8192, "attn_scale": 0.1}
    >>> t = config_attention_temperature(scout)
    >>> t.layers, t.factors([8190, 8191]).round(4).tolist()
    ((3, 7), [1.0, 1.0693])
    """
    return read_model(config).answer("temperature")
