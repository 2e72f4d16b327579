"""A model's RoPE settings, read from its Hugging Face ``config.json``.

A released model states its rotary embedding in its configuration, in one of two
shapes that ``transformers`` reads:

* **v4** (most configs on the Hub): ``rope_theta`` at the top level and, for a
  context-extension method, a ``rope_scaling`` dict with ``"rope_type"`` (older
  files: ``"type"``) and the method's keys, e.g. Llama 3.1::

      {"rope_theta": 500000.0, "max_position_embeddings": 131072,
       "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                        "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}

* **v5** (written by transformers 5): one ``rope_parameters`` dict holding
  ``rope_theta`` too, or, for models whose layer types differ (sliding-window
  and global attention), one such dict per layer type, keyed by the names in
  ``layer_types``::

      {"layer_types": ["sliding_attention", …, "full_attention"],
       "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                           "full_attention": {"rope_type": "proportional",
                                              "partial_rotary_factor": 0.25,
                                              "rope_theta": 1000000.0}}}

:func:`read_rope` turns either shape into one :class:`RopeSettings` per
layer type, filling in what the file leaves out where ``transformers`` fills it
in (``RotaryEmbeddingConfigMixin.standardize_rope_params`` and the
``ROPE_INIT_FUNCTIONS`` of ``modeling_rope_utils.py``). It is one step of
:func:`~pe_explained.read_model`, which reads a config once; its description
answers :func:`~pe_explained.rope_settings` and
:func:`~pe_explained.config_rope_frequencies`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ._checks import (
    check_base,
    check_config_int,
    check_float,
)
from .families import FAMILIES
from .rope import _frequencies, _scaling_dict, rope_frequencies

__all__ = ["ALL_LAYERS", "RopeSettings", "read_rope"]

#: The layer-type key of a model whose layers all share one RoPE (no per-type dicts).
ALL_LAYERS = "default"

#: ``rope_theta`` when a config gives none: ``RotaryEmbeddingConfigMixin.default_theta``.
DEFAULT_THETA = 10000.0


#: Types whose formula reads the pre-training context, which transformers fills in from
#: the top-level ``original_max_position_embeddings`` (Phi-3) or ``max_position_embeddings``.
_NEEDS_CONTEXT = ("llama3", "yarn", "longrope")

#: Keys some models keep in their RoPE dict for other purposes (transformers'
#: ``ignore_keys_at_rope_validation``): kept in ``RopeSettings.extra``, not used here.
_EXTRA_KEYS = frozenset(
    {
        "interleaved",
        "llama_4_scaling_beta",
        "max_position_embeddings",
        "mrope_interleaved",
        "mrope_section",
    }
)

#: ``model_type`` values whose code pairs dimensions 2j and 2j + 1 (``repeat_interleave``
#: of the frequencies, or ``x[..., 0::2]``), and those known to pair j with j + d/2
#: (``rotate_half``), from the registry of families (:mod:`~pe_explained.families`); for
#: a type in neither, the pairing is an assumption, which ``inspect`` states. Checked
#: against transformers' code in ``tests/test_transformers_interleaved.py``.
_INTERLEAVED_MODEL_TYPES = frozenset(t for t, f in FAMILIES.items() if f.pairing == "interleaved")
HALVES_MODEL_TYPES = frozenset(t for t, f in FAMILIES.items() if f.pairing == "halves")
#: Families whose code ignores ``rope_interleave`` (DeepSeek-V3.2's MLA).
_INTERLEAVE_IGNORED = frozenset(t for t, f in FAMILIES.items() if not f.reads_rope_interleave)
#: Families with a ``no_rope_layers`` list (1: the layer rotates, 0: NoPE), made, when the
#: file gives none, as a NoPE layer every ``no_rope_layer_interval`` layers.
_NO_ROPE_LIST_TYPES = frozenset(t for t, f in FAMILIES.items() if f.no_rope_layers)
#: Llama 4's attention-temperature defaults (``Llama4TextConfig``).
#: The default ``sliding_window_pattern`` of each family that has one.
_PATTERN_DEFAULT = {t: f.sliding_pattern for t, f in FAMILIES.items() if f.sliding_pattern}


@dataclass(frozen=True)
class RopeSettings:
    """The RoPE of one layer type, as the model's rotary embedding uses it.

    Attributes
    ----------
    layer_type : str
        ``"full_attention"``, ``"sliding_attention"``, … or :data:`ALL_LAYERS`.
    rope_type : str
        One of :data:`pe_explained.ROPE_TYPES` (Qwen2-VL's ``"mrope"`` is
        ``"default"`` here: its frequencies are plain RoPE's).
    rope_theta : float
        The base of the frequency ladder.
    head_dim : int
        Width of one attention head.
    rotary_dim : int
        Dimensions :func:`~pe_explained.apply_rope` rotates (``rotary_dim=``):
        ``int(head_dim · partial_rotary_factor)``; all of ``head_dim`` for
        ``"proportional"``, whose slow pairs turn at frequency 0.
    partial_rotary_factor : float
        1.0 unless the config sets it.
    scaling : mapping or None
        The method's parameters in the library's spelling, for
        :func:`~pe_explained.rope_frequencies` (``scaling=``); None for plain RoPE.
    max_position_embeddings, original_max_position_embeddings : int or None
        The context lengths the formula reads (None where the config gives none
        and the type needs none).
    layout : {"halves", "interleaved"}
        How the model's code pairs dimensions (from ``model_type`` and
        ``rope_interleave``; "halves" unless known otherwise).
    extra : mapping
        Model-specific keys of the RoPE dict kept as given (``mrope_section``, …).
    """

    layer_type: str
    rope_type: str
    rope_theta: float
    head_dim: int
    rotary_dim: int
    partial_rotary_factor: float
    scaling: Mapping | None
    max_position_embeddings: int | None
    original_max_position_embeddings: int | None
    layout: str
    extra: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def frequencies(self, seq_len=None) -> tuple[np.ndarray, float]:
        """``(inv_freq, attention_factor)`` at sequence length ``seq_len``, as
        :func:`~pe_explained.rope_frequencies` computes them."""
        return rope_frequencies(
            self.head_dim,
            base=self.rope_theta,
            scaling=None if self.scaling is None else dict(self.scaling),
            seq_len=seq_len,
            partial_rotary_factor=self.partial_rotary_factor,
        )


def _optional_length(cfg: Mapping, key: str, path: str) -> int | None:
    value = cfg.get(key)
    return None if value is None else check_config_int(f"{path}[{key!r}]", value, "length")


def _head_dim(cfg: Mapping, path: str) -> int:
    """``head_dim`` (DeepSeek: ``qk_rope_head_dim``), else hidden_size // num_attention_heads."""
    for key in ("qk_rope_head_dim", "head_dim"):  # DeepSeek-V2/V3 set head_dim to the first
        if cfg.get(key) is not None:
            name = f"{path}[{key!r}]"
            value = check_config_int(name, cfg[key], "head_dim")
            break
    else:
        if cfg.get("hidden_size") is None or cfg.get("num_attention_heads") is None:
            raise ValueError(
                f"{path} must give 'head_dim', or 'hidden_size' and 'num_attention_heads' "
                "(head_dim = hidden_size // num_attention_heads)"
            )
        hidden = check_config_int(f"{path}['hidden_size']", cfg["hidden_size"], "width")
        heads = check_config_int(
            f"{path}['num_attention_heads']", cfg["num_attention_heads"], "heads"
        )
        name = f"{path}['hidden_size'] // {path}['num_attention_heads']"
        value = check_config_int(name, hidden // heads, "head_dim")
    if value % 2:
        raise ValueError(f"{name} (head_dim) must be even for RoPE, got {value}")
    return value


#: Keys that state a RoPE, at the top level of a config or of its ``text_config``.
ROPE_KEYS = (
    "rope_parameters",
    "rope_scaling",
    "rope_theta",
    "rope_local_base_freq",
    "rotary_emb_base",
)


def text_part(config: Mapping) -> tuple[Mapping, str]:
    """The part of the config that holds the language model's RoPE (as given), and its
    name: ``text_config`` when the top level states no RoPE key."""
    text = config.get("text_config")
    if not any(k in config for k in ROPE_KEYS) and isinstance(text, Mapping):
        return text, "config['text_config']"
    return config, "config"


def _layer_types(cfg: Mapping, path: str) -> list[str] | None:
    value = cfg.get("layer_types")
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{path}['layer_types'] must be a list of strings, got {value!r}")
    for item in value:
        if not isinstance(item, str):
            raise TypeError(f"{path}['layer_types'] must hold strings, got {item!r}")
    return list(value)


def _head_dim_overrides(cfg: Mapping, path: str, layer_types) -> dict[str, int]:
    """Layer type → head_dim where it differs from the config's (Gemma 4's global layers).

    Gemma 4's own files give ``global_head_dim``; a config saved by transformers gives
    ``per_layer_config``, layer index → overrides such as ``{"head_dim": 512}``.
    """
    out = {}
    if cfg.get("global_head_dim") is not None:
        out["full_attention"] = check_config_int(
            f"{path}['global_head_dim']", cfg["global_head_dim"], "head_dim", minimum=2
        )
    per_layer = cfg.get("per_layer_config")
    if isinstance(per_layer, Mapping) and layer_types:
        for index, overrides in per_layer.items():
            if not isinstance(overrides, Mapping) or overrides.get("head_dim") is None:
                continue
            name = f"{path}['per_layer_config'][{index!r}]['head_dim']"
            if not str(index).isdigit():
                raise ValueError(
                    f"{path}['per_layer_config'] keys must be layer indices, got {index!r}"
                )
            position = int(index)
            if position >= len(layer_types):
                raise ValueError(f"{name}: layer {position} is beyond config['layer_types']")
            kind = layer_types[position]
            value = check_config_int(name, overrides["head_dim"], "head_dim", minimum=2)
            if out.setdefault(kind, value) != value:
                raise ValueError(f"{name} = {value} differs from other {kind!r} layers'")
    return out


def _entries(cfg: Mapping, path: str) -> list[tuple[str, Mapping | None, str, dict]]:
    """``(layer_type, rope dict, its name, defaults)`` for every layer type of the config.

    ``defaults`` holds what the dict inherits when it lacks a key: ``rope_theta`` and
    ``partial_rotary_factor`` (with the names of where they come from) and
    ``head_dim`` overrides.
    """
    if cfg.get("rope_scaling"):  # v4; transformers lets it win over rope_parameters
        rope, where = cfg["rope_scaling"], f"{path}['rope_scaling']"
    else:
        rope, where = cfg.get("rope_parameters") or {}, f"{path}['rope_parameters']"
    if not isinstance(rope, Mapping):
        raise TypeError(f"{where} must be a dict, got {type(rope).__name__}")
    layer_types = _layer_types(cfg, path)
    top = {}  # GPT-NeoX's files name the two rotary_emb_base and rotary_pct
    for key, alias in (("rope_theta", "rotary_emb_base"), ("partial_rotary_factor", "rotary_pct")):
        for name in (key, alias):
            if cfg.get(name) is not None and key not in top:
                top[key] = (cfg[name], f"{path}[{name!r}]")
    family = FAMILIES.get(cfg.get("model_type"))
    # a dict per layer type, or per name the family's layers rotate by (DeepSeek-V4's
    # main and compress, beside layer_types that name neither)
    named = set(layer_types or ()) | set(((family and family.rope_keys) or {}).values())
    nested = [key for key in rope if key in named]
    if not nested and layer_types is None and rope:
        if all(isinstance(v, Mapping) or v is None for v in rope.values()):
            nested = list(rope)  # per-type dicts without a layer_types list
    if nested:  # v5, one dict per layer type
        head_dims = _head_dim_overrides(cfg, path, layer_types)
        return [
            (key, rope[key], f"{where}[{key!r}]", {**top, "head_dim": head_dims.get(key)})
            for key in nested
        ]
    # Gemma 3's own defaults (Gemma3TextConfig.default_theta); a file's local base alone
    # makes the shape, with those defaults
    bases = (family and family.split_bases) or FAMILIES["gemma3"].split_bases
    if "rope_local_base_freq" in cfg or (family and family.split_bases):
        # Gemma 3's v4 shape: the scaling dict and rope_theta belong to global layers
        local = cfg.get("rope_local_base_freq", bases["sliding_attention"])
        by_type = {
            "full_attention": (
                rope or {"rope_type": "default"},
                where,
                {"rope_theta": top.get("rope_theta", (bases["full_attention"], None))},
            ),
            "sliding_attention": (
                {"rope_type": "default"},
                f"{path}['rope_local_base_freq']",
                {"rope_theta": (local, f"{path}['rope_local_base_freq']")},
            ),
        }
        names = [t for t in by_type if layer_types is None or t in layer_types]
        return [(t, *by_type[t]) for t in names]
    if not rope and "rope_theta" not in top:
        raise ValueError(
            f"{path} has no RoPE settings: none of 'rope_parameters', 'rope_scaling', "
            "'rope_theta', 'rotary_emb_base' (a model without rotary embeddings?)"
        )
    return [(ALL_LAYERS, rope or {"rope_type": "default"}, where, {**top, "flat": True})]


def _check_extra(extra: Mapping, where: str) -> None:
    """The model-specific keys of a RoPE dict that the report shows as given."""
    for key, value in extra.items():
        name = f"{where}[{key!r}]"
        if value is None:
            continue
        if key == "max_position_embeddings":
            check_config_int(name, value, "length")
        elif key == "llama_4_scaling_beta":
            check_float(name, value, at_least=0.0)
        elif key == "mrope_section":
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise TypeError(f"{name} must be a list of pair counts, got {value!r}")
            for count in value:
                check_config_int(name, count, "head_dim", minimum=0)
        elif not isinstance(value, bool):  # interleaved, mrope_interleaved
            raise TypeError(f"{name} must be true or false, got {value!r}")


def _as_read(params: Mapping) -> dict:
    """``params`` with every integer beyond 2**53 given as the float it is read as (the
    checks above read such a number as a real; only sizes must be exact integers)."""

    def read(value):
        if isinstance(value, (list, tuple)):
            return [read(item) for item in value]
        big = isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**53
        return float(value) if big else value

    return {key: read(value) for key, value in params.items()}


def _layout(cfg: Mapping, path: str) -> str:
    if cfg.get("model_type") in _INTERLEAVE_IGNORED:
        return "interleaved"
    if cfg.get("rope_interleave") is not None:
        if not isinstance(cfg["rope_interleave"], bool):
            raise TypeError(f"{path}['rope_interleave'] must be true or false")
        return "interleaved" if cfg["rope_interleave"] else "halves"
    return "interleaved" if cfg.get("model_type") in _INTERLEAVED_MODEL_TYPES else "halves"


def _settings(layer_type, entry, where, inherited, cfg, path) -> RopeSettings:
    """One layer type's :class:`RopeSettings`, every value checked under its config name."""
    if not isinstance(entry, Mapping):
        raise TypeError(f"{where} must be a dict or null, got {type(entry).__name__}")
    params = dict(entry)
    extra = {key: params.pop(key) for key in sorted(_EXTRA_KEYS & params.keys())}
    _check_extra(extra, where)
    if params.get("rope_type", params.get("type")) == "mrope":  # Qwen2-VL: plain frequencies
        params.pop("type", None)
        params["rope_type"] = "default"
    params.setdefault("rope_type", params.pop("type", "default"))
    rope_type = params["rope_type"]

    theta, theta_name = params.pop("rope_theta", None), f"{where}['rope_theta']"
    if theta is None:
        theta, theta_name = inherited.get("rope_theta", (DEFAULT_THETA, None))
    theta = check_base(theta_name or "rope_theta", theta)
    share, share_name = (
        params.pop("partial_rotary_factor", None),
        f"{where}['partial_rotary_factor']",
    )
    if share is None:
        share, share_name = inherited.get("partial_rotary_factor", (1.0, "partial_rotary_factor"))
    share = check_float(share_name, share, greater_than=0.0, at_most=1.0)
    head_dim = inherited.get("head_dim") or _head_dim(cfg, path)
    max_pos = _optional_length(cfg, "max_position_embeddings", path)

    # the context each type reads, where transformers reads it
    context = params.pop("original_max_position_embeddings", None)
    if rope_type == "dynamic":  # _compute_dynamic_ntk_parameters: max_position_embeddings
        if max_pos is None:
            raise ValueError(f"{path}['max_position_embeddings'] is needed by rope_type 'dynamic'")
        context = max_pos
    elif rope_type in _NEEDS_CONTEXT:
        if inherited.get("flat") and cfg.get("original_max_position_embeddings") is not None:
            context = cfg["original_max_position_embeddings"]  # Phi-3: the top level wins
        if context is None:
            context = max_pos
        if context is None:
            raise ValueError(
                f"{where} for rope_type {rope_type!r} needs 'original_max_position_embeddings' "
                f"(or {path}['max_position_embeddings'])"
            )
        name = f"{where}['original_max_position_embeddings']"
        context = check_config_int(name, context, "length")
    else:
        context = None
    if context is not None:
        params["original_max_position_embeddings"] = context
    if rope_type in ("yarn", "longrope") and params.get("factor") is None:
        if rope_type == "yarn" or params.get("attention_factor") is None:
            if max_pos is None:
                raise ValueError(
                    f"{where}['factor'] is null: rope_type {rope_type!r} derives it as "
                    f"{path}['max_position_embeddings'] / original_max_position_embeddings, "
                    "which the config does not give"
                )
            params["factor"] = max_pos / context  # as transformers derives it
        else:
            params.pop("factor", None)

    rope_type, lib = _scaling_dict(params, where)
    inv_freq, _ = _frequencies(
        head_dim, theta, rope_type, dict(lib), None, share, share_name, where
    )
    return RopeSettings(
        layer_type=layer_type,
        rope_type=rope_type,
        rope_theta=theta,
        head_dim=head_dim,
        rotary_dim=2 * len(inv_freq),
        partial_rotary_factor=share,
        scaling=None
        if rope_type == "default"
        else MappingProxyType({"rope_type": rope_type, **_as_read(lib)}),
        max_position_embeddings=max_pos,
        original_max_position_embeddings=context,
        layout=_layout(cfg, path),
        extra=MappingProxyType(_as_read(extra)),
    )


def read_rope(cfg: Mapping, path: str) -> dict[str, RopeSettings | None]:
    """Layer type → :class:`RopeSettings` of ``cfg``, a config's language-model part as
    its family's class leaves it (:func:`~pe_explained.hf_families.standardise`), named
    ``path``; ``None`` for a layer type whose dict is null. What
    :func:`~pe_explained.read_model` calls, once per config; read the result from its
    description (:func:`~pe_explained.rope_settings`)."""
    out: dict[str, RopeSettings | None] = {}
    for layer_type, entry, where, inherited in _entries(cfg, path):
        out[layer_type] = (
            None if entry is None else _settings(layer_type, entry, where, inherited, cfg, path)
        )
    return out


def _layer_count(cfg: Mapping, path: str) -> int:
    if cfg.get("num_hidden_layers") is None:
        raise ValueError(f"{path}['num_hidden_layers'] is needed to lay out the layers")
    return check_config_int(f"{path}['num_hidden_layers']", cfg["num_hidden_layers"], "layers")


def _layer_type_list(cfg: Mapping, path: str, count: int) -> list[str] | None:
    """``layer_types``, or the list transformers builds from ``sliding_window_pattern``."""
    types = _layer_types(cfg, path)
    if types is None:
        pattern = cfg.get("sliding_window_pattern", _PATTERN_DEFAULT.get(cfg.get("model_type")))
        if pattern is None:
            return None
        pattern = check_config_int(f"{path}['sliding_window_pattern']", pattern, "layers")
        # every pattern-th layer is global: (i + 1) % pattern == 0
        return [
            "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(count)
        ]
    if len(types) < count:
        raise ValueError(
            f"{path}['layer_types'] has {len(types)} entries, fewer than "
            f"{path}['num_hidden_layers'] = {count}"
        )
    return types[:count]


def _rotating_layers(cfg: Mapping, path: str, count: int) -> list[bool] | None:
    """Per layer, whether its code rotates (from ``no_rope_layers``), or None if not given."""
    flags = cfg.get("no_rope_layers")
    model_type = cfg.get("model_type")
    if not flags and (model_type in _NO_ROPE_LIST_TYPES or "no_rope_layer_interval" in cfg):
        interval = check_config_int(
            f"{path}['no_rope_layer_interval']", cfg.get("no_rope_layer_interval", 4), "layers"
        )
        # transformers: int((layer_idx + 1) % no_rope_layer_interval != 0)
        return [(i + 1) % interval != 0 for i in range(count)]
    if flags is None:
        return None
    name = f"{path}['no_rope_layers']"
    if isinstance(flags, (str, bytes)) or not isinstance(flags, Sequence):
        raise TypeError(f"{name} must be a list of 0s and 1s, got {flags!r}")
    if len(flags) < count:
        raise ValueError(f"{name} has {len(flags)} entries, fewer than num_hidden_layers = {count}")
    for flag in flags[:count]:
        if isinstance(flag, bool) or flag not in (0, 1):
            raise ValueError(f"{name} must hold 0 (NoPE layer) or 1 (RoPE layer), got {flag!r}")
    return [flag == 1 for flag in flags[:count]]
