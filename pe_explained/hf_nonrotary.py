"""How a model without rotary embeddings gets its positions, read from its ``config.json``.

Before RoPE, open models took positions in one of three ways, each read here from the
keys its family's configuration class in ``transformers`` (5.23) defines:

=================================  ===========  =================================================
family (``model_type``)            kind         read from
=================================  ===========  =================================================
``gpt2``, ``gpt_bigcode``          learned      ``n_positions`` rows added to the input
``gpt_neo``, ``bert``              learned      ``max_position_embeddings`` rows
``opt``                            learned      ``max_position_embeddings`` rows after 2 unused
                                                ones (``OPTLearnedPositionalEmbedding``:
                                                ``offset = 2``)
``roberta``, ``xlm-roberta``       learned      ``max_position_embeddings`` rows, the first
                                                ``pad_token_id + 1`` unused (ids start after
                                                the padding index)
``bloom``; ``falcon`` with         alibi        the slopes ``alibi_slopes(num_heads)``
``alibi: true``                                 (``build_alibi_tensor``); Falcon's
                                                rounded to bfloat16 first
``mpt``                            alibi        the same slopes raised to
                                                ``attn_config['alibi_bias_max'] / 8``
                                                (``build_mpt_alibi_tensor``)
``t5``, ``mt5``                    t5_bias      ``relative_attention_num_buckets`` and
                                                ``relative_attention_max_distance``; the first
                                                layer of each stack holds the table, all
                                                layers of the stack add it
=================================  ===========  =================================================

A learned table enters once, at the input; ALiBi and T5's bias enter every attention
layer's scores. A file without ``model_type`` (GPT-2's first ``config.json``) is read
by its ``architectures``; Falcon's first releases name themselves ``RefinedWebModel``.
:func:`nonrotary_positions` returns None for any other config (one that states RoPE,
or a family this table does not name).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._checks import check_bool, check_config_int, check_config_name
from .alibi import alibi_slopes
from .hf_families import legacy_key

__all__ = ["ARCHITECTURES", "NONROTARY_KINDS", "NonRotaryPositions", "nonrotary_positions"]

#: The kinds :func:`nonrotary_positions` reports.
NONROTARY_KINDS = ("learned", "alibi", "t5_bias")

#: Learned tables: family → (key of the size, rows before position 0 — an int, or
#: ``"pad"`` for ``pad_token_id + 1`` — and whether those rows are counted in the size).
#: OPT's table has ``max_position_embeddings + 2`` rows; RoBERTa's has
#: ``max_position_embeddings``, of which the first ``pad_token_id + 1`` are never used.
_LEARNED = {
    "gpt2": ("n_positions", 0, True),
    "gpt_bigcode": ("n_positions", 0, True),
    "gpt_neo": ("max_position_embeddings", 0, True),
    "bert": ("max_position_embeddings", 0, True),
    "opt": ("max_position_embeddings", 2, False),
    "roberta": ("max_position_embeddings", "pad", True),
    "xlm-roberta": ("max_position_embeddings", "pad", True),
}
_T5 = frozenset({"t5", "mt5"})
#: The family of a file that names none, by its model class.
ARCHITECTURES = {
    "GPT2LMHeadModel": "gpt2",
    "GPTNeoForCausalLM": "gpt_neo",
    "BertForMaskedLM": "bert",
    "BertModel": "bert",
    "OPTForCausalLM": "opt",
    "RobertaForMaskedLM": "roberta",
    "BloomForCausalLM": "bloom",
    "MPTForCausalLM": "mpt",
    "T5ForConditionalGeneration": "t5",
}
#: Falcon's first releases (remote code, ``configuration_RW.py``).
_FALCON = frozenset({"falcon", "RefinedWebModel", "RefinedWeb"})
#: Class defaults of the keys read, where the file may omit them.
_DEFAULTS = {
    "pad_token_id": 1,  # RobertaConfig
    "relative_attention_num_buckets": 32,  # T5Config
    "relative_attention_max_distance": 128,
}


@dataclass(frozen=True)
class NonRotaryPositions:
    """How a model without rotary embeddings gets its positions.

    Attributes
    ----------
    kind : {"learned", "alibi", "t5_bias"}
        A learned table added to the input, ALiBi's linear bias on the scores, or
        T5's bucketed relative bias on the scores.
    where : {"input", "scores"}
        Where the positions enter: once, at the input, or in every attention layer.
    num_layers : int
        Attention layers (for T5, the encoder's and the decoder's together).
    num_heads : int or None
        Attention heads (the bias is per head).
    positions : int or None
        For a learned table, the positions a sequence may use (its rows less the
        unused ones); for ALiBi, ``max_seq_len`` where the file gives it; else None.
    offset : int
        Rows of a learned table before position 0, never used (OPT 2, added to its
        ``max_position_embeddings``; RoBERTa ``pad_token_id + 1``, taken from it).
    slopes : tuple of float or None
        ALiBi's slope per head.
    num_buckets, max_distance : int or None
        T5's buckets per stack and the distance past which all share one bucket.
    read_from : tuple of str
        The keys the numbers were read from.
    note : str or None
        What the model's code does to the numbers that the config does not say.
    family : str or None
        The family read: the file's ``model_type``, or the one its ``architectures``
        name when it gives none.
    """

    kind: str
    where: str
    num_layers: int
    num_heads: int | None = None
    positions: int | None = None
    offset: int = 0
    slopes: tuple[float, ...] | None = None
    num_buckets: int | None = None
    max_distance: int | None = None
    read_from: tuple[str, ...] = ()
    note: str | None = None
    family: str | None = None


def _bfloat16(values: np.ndarray) -> np.ndarray:
    """``values`` (finite) rounded to bfloat16 (8 significant bits, ties to even), as float64."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(
        0xFFFF0000
    )
    return bits.view(np.float32).astype(np.float64)


def _get(
    cfg: Mapping, key: str, path: str, read: list[str], kind: str = "length", *, minimum: int = 1
) -> int:
    """``cfg[key]`` (or its class default) as an int from ``minimum`` to the bound of its
    ``kind`` (:data:`~pe_explained._checks.CONFIG_LIMITS`); the key is recorded."""
    if key not in cfg and key not in _DEFAULTS:
        raise ValueError(f"{path}[{key!r}] is needed to read this model's positions")
    read.append(key)
    value = cfg.get(key, _DEFAULTS.get(key))
    return check_config_int(f"{path}[{key!r}]", value, kind, minimum=minimum)


def _count(cfg: Mapping, standard: str, model_type, path, read) -> int:
    """The layer or head count (``standard`` its name in transformers), read under the
    family's own key where the file uses it (:data:`~pe_explained.hf_families.LEGACY_NAMES`)."""
    key = legacy_key(model_type, standard)
    kind = "layers" if standard == "num_hidden_layers" else "heads"
    return _get(cfg, key if key in cfg else standard, path, read, kind)


def _alibi(cfg: Mapping, model_type, path: str, read: list[str]) -> tuple[tuple, int | None]:
    """ALiBi's slopes, and the training length where the file gives one (MPT)."""
    heads = _count(cfg, "num_attention_heads", model_type, path, read)
    slopes = alibi_slopes(heads)
    length = None
    if model_type == "mpt":
        attn = cfg.get("attn_config") or {}
        if not isinstance(attn, Mapping):
            raise TypeError(f"{path}['attn_config'] must be a mapping, got {attn!r}")
        bias_max = check_config_int(
            f"{path}['attn_config']['alibi_bias_max']", attn.get("alibi_bias_max", 8), "length"
        )
        # build_mpt_alibi_tensor: 2^(−bias_max · k / n') over the next power of two n',
        # odd k first, cut to n heads — the paper's slopes raised to bias_max / 8, for any n
        slopes = slopes ** (bias_max / 8)
        if "max_seq_len" in cfg:
            length = _get(cfg, "max_seq_len", path, read)
    return tuple(float(s) for s in slopes), length


def nonrotary_positions(config) -> NonRotaryPositions | None:
    """How a model without rotary embeddings gets its positions (see the module's table).

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded.

    Returns
    -------
    NonRotaryPositions or None
        None when the config is not one of the families above, or is a Falcon with
        rotary embeddings (``alibi`` false).

    Raises
    ------
    TypeError, ValueError
        Naming the key: a missing or bad layer count, head count or table size.

    Examples
    --------
    >>> gpt2 = {"model_type": "gpt2", "n_positions": 1024, "n_layer": 12, "n_head": 12}
    >>> p = nonrotary_positions(gpt2)
    >>> p.kind, p.where, p.positions, p.num_layers
    ('learned', 'input', 1024, 12)
    >>> bloom = {"model_type": "bloom", "n_layer": 24, "n_head": 8}
    >>> nonrotary_positions(bloom).slopes[:2]
    (0.5, 0.25)
    """
    if not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping (a loaded config.json), got {config!r}")
    path, read = "config", []
    model_type = check_config_name(f"{path}['model_type']", config.get("model_type"))
    if model_type is None:
        classes = config.get("architectures")
        name = f"{path}['architectures']"
        if classes is not None and not isinstance(classes, list):
            raise TypeError(f"{name} must be a list of class names, got {classes!r}")
        if classes:
            model_type = ARCHITECTURES.get(check_config_name(f"{name}[0]", classes[0]))
    if model_type in _LEARNED:
        key, offset, within = _LEARNED[model_type]
        size = _get(config, key, path, read)
        if offset == "pad":
            offset = _get(config, "pad_token_id", path, read, minimum=0) + 1
        if within and size <= offset:
            raise ValueError(
                f"{path}[{key!r}] = {size} leaves no position after the {offset} unused rows"
            )
        layers = _count(config, "num_hidden_layers", model_type, path, read)
        heads = _count(config, "num_attention_heads", model_type, path, read)
        return NonRotaryPositions(
            "learned",
            "input",
            layers,
            heads,
            positions=size - offset if within else size,
            offset=offset,
            read_from=tuple(read),
            family=model_type,
        )
    alibi = model_type in ("bloom", "mpt")
    if model_type in _FALCON:
        alibi = check_bool(f"{path}['alibi']", config.get("alibi", False))
    if alibi:
        layers = _count(config, "num_hidden_layers", model_type, path, read)
        slopes, length = _alibi(config, model_type, path, read)
        note = None
        if model_type in _FALCON:  # build_alibi_tensor: slopes[..., None].bfloat16() * …
            slopes = tuple(float(s) for s in _bfloat16(np.array(slopes)))
            note = "Falcon casts its slopes to bfloat16 before use (build_alibi_tensor)"
        return NonRotaryPositions(
            "alibi",
            "scores",
            layers,
            len(slopes),
            positions=length,
            slopes=slopes,
            read_from=tuple(read),
            note=note,
            family=model_type,
        )
    if model_type in _T5:
        encoder = _get(config, "num_layers", path, read, "layers")
        decoder = encoder
        if config.get("num_decoder_layers") is not None:
            decoder = _get(config, "num_decoder_layers", path, read, "layers")
        heads = _get(config, "num_heads", path, read, "heads")
        # the encoder splits its buckets between two directions, each with >= 2
        buckets = _get(config, "relative_attention_num_buckets", path, read, "heads", minimum=4)
        distance = _get(config, "relative_attention_max_distance", path, read)
        if distance <= buckets // 2:  # the decoder's exact buckets: one per distance below
            raise ValueError(
                f"{path}['relative_attention_max_distance'] must be > {buckets // 2} (the "
                f"decoder's exact buckets, half of {path}['relative_attention_num_buckets'] = "
                f"{buckets}), got {distance}"
            )
        return NonRotaryPositions(
            "t5_bias",
            "scores",
            encoder + decoder,
            heads,
            num_buckets=buckets,
            max_distance=distance,
            read_from=tuple(read),
            family=model_type,
        )
    return None
