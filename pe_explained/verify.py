"""Check the library's reading of a config against the transformers installed.

``inspect --verify`` (:func:`verify`) builds a tiny model of the config with
transformers' own classes (:func:`shrink`: widths, heads, experts and vocabulary cut, the
layer count, the layer pattern, the head width and every position key kept), runs it on
:data:`TOKENS` tokens with every ``apply_rotary*`` function and ``eager_attention_forward``
of its modeling module wrapped, and observes per layer (:func:`observe`):

* whether softmax attention ran (a layer that never called ``eager_attention_forward``
  has none: linear attention, a state-space mixer, or no token mixing; in a module that
  has no such function, as BLOOM's, a layer whose ``…Attention`` module ran attends);
* whether a rotation ran, and with which of the rotary embedding's tables (its cos table
  matched against the inverse frequencies and attention factor of every layer type).

:func:`compare` holds :func:`~pe_explained.layer_positions` and
:func:`~pe_explained.rope_settings` to what was seen, the frequencies within float32
rounding (transformers computes them in float32). A model released after the library
can be checked this way by its reader, with the transformers that runs it.

This module needs torch and transformers, imported only when a model is built; without
them :func:`verify` raises :class:`ImportError` naming what is missing. The library
itself needs numpy alone.
"""

from __future__ import annotations

import importlib
import inspect as pyinspect
from dataclasses import dataclass

import numpy as np

from .hf_families import CLASS_HEAD_DIMS, LEGACY_NAMES, RENAMED_TYPES, legacy_key
from .hf_nonrotary import ARCHITECTURES
from .model_reading import read_model

__all__ = [
    "MAX_PARAMETERS",
    "TOKENS",
    "Verification",
    "buildable",
    "compare",
    "observe",
    "shrink",
    "shrink_for_class",
    "verify",
]

#: Tokens the tiny model is run on.
TOKENS = 12
#: The most parameters a tiny model may have: a larger one is refused before it is built.
MAX_PARAMETERS = 100_000_000
#: The name given here to the table of a model with one rotary embedding.
SINGLE = "single"
#: Sizes a tiny model gets, whatever the config says: a model of 48 layers then builds
#: and runs in about a second on a CPU.
_SMALL = {
    "intermediate_size": 32,
    "moe_intermediate_size": 32,
    "shared_expert_intermediate_size": 32,
    "ffn_hidden_size": 32,
    "vocab_size": 128,
}
_EXPERTS = ("num_experts", "n_routed_experts", "num_local_experts")
_HEADS = 2
#: Families whose attention needs another number of heads than :data:`_HEADS` (CodeGen
#: splits its fused projection into 4 parts, each of whole heads; DeepSeek-V4's
#: compressors project the hidden size, heads × 512, so one head keeps it small).
_FAMILY_HEADS = {"codegen": 4, "deepseek_v4": 1}
#: Widths of parts that carry no position, cut too: linear attention's heads (Gated
#: DeltaNet), DeepSeek-V3.2's indexer heads, Gemma 3n's per-layer embeddings,
#: Nemotron-H's Mamba-2 heads.
_OTHER_SMALL = {
    "linear_num_key_heads": _HEADS,
    "linear_num_value_heads": _HEADS,
    "linear_key_head_dim": 16,
    "linear_value_head_dim": 16,
    "index_n_heads": _HEADS,
    "vocab_size_per_layer_input": 128,
    "hidden_size_per_layer_input": 16,
    # Nemotron-H's Mamba-2 heads and shared expert (its own key names)
    "mamba_num_heads": _HEADS,
    "mamba_head_dim": 16,
    "moe_shared_expert_intermediate_size": 32,
    "n_groups": 1,  # Mamba-2's groups divide its heads
    # MLA's low-rank query, and DeepSeek-V4's low-rank output in groups of heads
    "q_lora_rank": 32,
    "o_lora_rank": 32,
    "o_groups": 1,
    "expert_ffn_hidden_size": 32,  # LongCat-Flash's experts (its moe_intermediate_size)
    "n_mamba_heads": _HEADS,  # Zamba2's Mamba-2 heads, and its attention adapters
    "adapter_rank": 8,
}
#: Sizes a family's class derives from others, which a saved config also writes (and
#: which would then win over the class's): left out of the tiny model's config, so that
#: the class derives them from the shrunk sizes. Zamba2's attention is twice the hidden
#: size wide, its Mamba-2 heads a share of it, its hybrid layers read off its layers.
_DERIVED = {
    "zamba2": (
        "attention_hidden_size",
        "mamba_headdim",
        "kv_channels",
        "num_query_groups",
        "hybrid_layer_ids",
    ),
}


def _torch_and_transformers():
    """The two packages, or an ImportError that names what is missing."""
    missing = []
    for name in ("torch", "transformers"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    if missing:
        raise ImportError(
            f"inspect --verify needs {' and '.join(missing)}, not installed here "
            "(pip install torch transformers)"
        )
    return importlib.import_module("torch"), importlib.import_module("transformers")


def _shrunk_part(part: dict, model_type=None) -> dict:
    """``part`` shrunk (:func:`shrink`), in the family's own key names where it has
    legacy ones (``n_head``, ``d_model``: :data:`~pe_explained.hf_families.LEGACY_NAMES`)."""
    legacy = LEGACY_NAMES.get(model_type, {}) if isinstance(model_type, str) else {}
    part = {k: v for k, v in part.items() if k not in _DERIVED.get(model_type, ())}
    derive = CLASS_HEAD_DIMS.get(model_type)
    head_key = legacy_key(model_type, "head_dim")
    if derive is not None and not ({"head_dim", head_key} & set(part)):
        sizes = (part.get("hidden_size"), part.get("num_attention_heads"))
        if all(isinstance(v, int) and v > 0 for v in sizes):  # the width its class derives
            part[head_key] = derive(*sizes)
    named, source = {}, {}  # standard name → value, and the key that gave it
    for key, value in part.items():
        name = legacy.get(key, key)
        # a class's to_dict writes both names, one of them None (Falcon's n_head)
        if name not in named or named[name] is None:
            named[name], source[name] = value, key
    out = _shrunk_standard(named, _FAMILY_HEADS.get(model_type, _HEADS))
    result = {k: v for k, v in part.items() if legacy.get(k, k) in out}
    result.update({source.get(k, k): v for k, v in out.items()})
    return result


def _shrunk_standard(part: dict, heads_kept: int = _HEADS) -> dict:
    out = dict(part)
    heads = out.get("num_attention_heads")
    if isinstance(heads, int) and heads > 0:
        hidden = out.get("hidden_size")
        head_dim = out.get("head_dim")
        if not isinstance(head_dim, int) and isinstance(hidden, int):
            head_dim = hidden // heads
        out["num_attention_heads"] = heads_kept
        kv = out.get("num_key_value_heads")
        if "num_key_value_heads" in out and (kv is None or isinstance(kv, int)):
            # grouped-query attention stays grouped, with one key-value head (MiMo-V2-Flash's
            # sliding layers double it, within the query heads); MLA's keys have as many
            # heads as queries; None is Nemotron's class default
            grouped = isinstance(kv, int) and 0 < kv < heads
            out["num_key_value_heads"] = 1 if grouped else heads_kept
        if isinstance(head_dim, int) and isinstance(hidden, int):
            # the rotary width decides the frequencies: kept; an MLA config that states no
            # head_dim is not given one (Glm4MoeLiteConfig maps head_dim onto
            # qk_rope_head_dim)
            if isinstance(out.get("head_dim"), int) or "qk_rope_head_dim" not in out:
                out["head_dim"] = head_dim
            out["hidden_size"] = heads_kept * head_dim
    for key, size in {**_SMALL, **_OTHER_SMALL}.items():
        if isinstance(out.get(key), int):
            out[key] = size
        elif isinstance(out.get(key), list) and all(isinstance(v, int) for v in out[key]):
            out[key] = [size] * len(out[key])  # a width per layer (Gemma 3n's MLPs)
    if "n_inner" in out and out["n_inner"] is None:  # GPT-2's, CodeGen's: 4 × hidden
        out["n_inner"] = _SMALL["intermediate_size"]
    for key in _EXPERTS:
        if isinstance(out.get(key), int):
            out[key] = 4
    _shrink_mamba_heads(out)
    experts = any(isinstance(out.get(key), int) for key in _EXPERTS)
    if isinstance(out.get("num_experts_per_tok"), int) or (
        experts and "num_experts_per_tok" in out and out["num_experts_per_tok"] is None
    ):
        out["num_experts_per_tok"] = 2  # a class default of None cannot route (DeepSeek-V2)
    for key in ("n_group", "topk_group"):
        if isinstance(out.get(key), int):
            out[key] = 1
    for key in ("quantization_config", "auto_map"):
        out.pop(key, None)
    vocab = out.get("vocab_size")
    for key in ("pad_token_id", "bos_token_id", "eos_token_id"):
        if key in out:  # a key the file leaves out keeps its class's default
            out[key] = _token_id(out[key], vocab)
    return out


def _shrink_mamba_heads(out: dict) -> None:
    """A hybrid's Mamba-2 heads cut to :data:`_HEADS` (Bamba, Granite 4): heads × head
    width = expand × hidden, or Falcon-H1's ``mamba_d_ssm`` where given."""
    sizes = [out.get(k) for k in ("mamba_n_heads", "mamba_expand", "hidden_size")]
    if all(isinstance(v, int) for v in sizes) and isinstance(out.get("mamba_d_head"), int):
        inner = out.get("mamba_d_ssm")
        inner = inner if isinstance(inner, int) else out["mamba_expand"] * out["hidden_size"]
        out["mamba_n_heads"] = _HEADS
        out["mamba_d_head"] = inner // _HEADS


def _token_id(value, vocab):
    """A special token's id in the cut vocabulary: one past it becomes its last id (never
    among the tokens run), None where the vocabulary is not known; a list, each. Strict
    configuration classes and RoBERTa's padding positions refuse None."""
    if isinstance(value, list):
        return [_token_id(v, vocab) for v in value]
    if not isinstance(value, int) or isinstance(value, bool):
        return value
    if not isinstance(vocab, int):
        return None
    return value if value < vocab else vocab - 1


#: The context a tiny model is built for where the positions do not depend on it: some
#: families build a causal mask of the whole context (163,840² bytes for DeepSeek-V3).
_CONTEXT = 4096


def _same_reading(a, b) -> bool:
    """Whether two readings (:func:`~pe_explained.read_model`) give every layer the same
    positions and every RoPE key the same frequencies and attention factor."""
    if [(p.source, p.rope, p.window) for p in a.layers] != [
        (p.source, p.rope, p.window) for p in b.layers
    ]:
        return False
    if a.rope is None or b.rope is None:  # a model without rotary embeddings
        return a.rope is None and b.rope is None
    if a.rope.keys() != b.rope.keys():
        return False
    for key, setting in a.rope.items():
        other = b.rope[key]
        if (setting is None) != (other is None):
            return False
        if setting is not None:
            (f, x), (g, y) = setting.frequencies(), other.frequencies()
            if f.shape != g.shape or not np.array_equal(f, g) or x != y:
                return False
    return True


def _shorter_context(config: dict) -> dict:
    """``config`` built for :data:`_CONTEXT` positions where that changes no layer's
    positions (:func:`_same_reading`); else as it is."""

    def capped(part: dict) -> dict:
        length = part.get("max_position_embeddings")
        if isinstance(length, int) and length > _CONTEXT:
            return {**part, "max_position_embeddings": _CONTEXT}
        return part

    short = capped(config)
    if isinstance(config.get("text_config"), dict):
        short = {**short, "text_config": capped(config["text_config"])}
    if short == config:
        return config
    try:
        same = _same_reading(read_model(config), read_model(short))
    except (ValueError, TypeError):
        same = False
    return short if same else config


def shrink(config: dict) -> dict:
    """A copy of ``config`` whose model builds and runs in about a second: heads cut to
    two (and as many key-value heads, or one where the file groups its queries), the hidden
    size to two heads, feed-forward widths, experts
    and the vocabulary cut, the context cut to :data:`_CONTEXT` where no layer's
    positions depend on it; the layer count, the layer pattern, the head width and every
    key that decides positions kept. A multimodal config's ``text_config`` is shrunk the
    same way.

    >>> small = shrink({"model_type": "llama", "hidden_size": 4096,
    ...                 "num_attention_heads": 32, "num_hidden_layers": 32})
    >>> small["hidden_size"], small["head_dim"], small["num_hidden_layers"]
    (256, 128, 32)
    """
    if not isinstance(config, dict):
        raise TypeError(f"config must be a dict (a config.json), got {type(config).__name__}")
    out = _shrunk_part(config, config.get("model_type"))
    if isinstance(out.get("text_config"), dict):
        text = out["text_config"]
        out["text_config"] = _shrunk_part(text, text.get("model_type"))
    return _shorter_context(out)


def _cos_of(function, args, kwargs, torch):
    """The cos table a rotation was handed (a complex ``freqs_cis``: its real part)."""
    bound = pyinspect.signature(function).bind(*args, **kwargs).arguments
    value = bound.get("cos", bound.get("freqs_cis"))
    if not isinstance(value, torch.Tensor):
        raise RuntimeError(f"{function.__name__} was handed no cos table: {list(bound)}")
    return (value.real if value.is_complex() else value).detach().double()


def _sin_of(function, args, kwargs, torch):
    """The sin table a rotation was handed (a complex ``freqs_cis``: its imaginary part),
    or None."""
    bound = pyinspect.signature(function).bind(*args, **kwargs).arguments
    value = bound.get("sin", bound.get("freqs_cis"))
    if not isinstance(value, torch.Tensor):
        return None
    return (value.imag if value.is_complex() else value).detach().double()


def _table_seen(cos, sin) -> tuple[np.ndarray, float]:
    """The inverse frequencies and attention factor of the table a rotation used, from its
    cos and sin at position 1 (for a model with no rotary embedding module, GPT-J's and
    CodeGen's tables of sinusoids): the angles there are the frequencies, each written
    once, largest first; the factor is the length of (cos, sin)."""
    width = cos.shape[-1]
    c = cos.reshape(-1, TOKENS, width)[0, 1].numpy()
    s = sin.reshape(-1, TOKENS, width)[0, 1].numpy()
    inv_freq = np.unique(np.arctan2(s, c))[::-1].copy()
    return inv_freq, float(np.hypot(c[0], s[0]))


def _layers(model, count, torch):
    """The model's decoder layers: ``model.layers``, else the longest module list of
    ``count`` layers; where a decoder layer holds several attention sublayers (LongCat-Flash's
    ``self_attn``, a list of two), those."""
    layers = getattr(model, "layers", None)
    if layers is not None:
        subs = [getattr(layer, "self_attn", None) for layer in layers]
        if len(layers) != count and all(isinstance(m, torch.nn.ModuleList) for m in subs):
            return [attention for sub in subs for attention in sub]
        return layers
    lists = [m for m in model.modules() if isinstance(m, torch.nn.ModuleList) and len(m) == count]
    if not lists:
        raise RuntimeError(f"found no list of {count} layers in {type(model).__name__}")
    return lists[0]


def observe(config: dict) -> dict:
    """Build the model of ``config`` with transformers (as given: call :func:`shrink`
    first for a released model), run it, and report per layer what it did:
    ``{"attention": [bool], "rotary": [table name or None], "tables": {name: (inv_freq,
    attention_scaling)}, "transformers": version}``."""
    torch, transformers = _torch_and_transformers()
    kwargs = {k: v for k, v in config.items() if k != "model_type"}
    cfg = transformers.AutoConfig.for_model(config["model_type"], **kwargs)
    cfg._attn_implementation = "eager"
    cfg.use_cache = False  # one forward pass: a hybrid's cache asks its first layer's length
    with torch.device("meta"):  # counted before any memory is taken
        size = sum(p.numel() for p in transformers.AutoModel.from_config(cfg).parameters())
    if size > MAX_PARAMETERS:
        raise ValueError(
            f"the tiny model would have {size:,} parameters (at most {MAX_PARAMETERS:,}): "
            "the config sizes it by a key this check does not shrink"
        )
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(cfg).eval()
    # the text model of a multimodal one (ModernVBERT's is its text_model)
    model = getattr(model, "language_model", None) or getattr(model, "text_model", None) or model
    module = importlib.import_module(type(model).__module__)
    current = {"layer": None}
    attention: set[int] = set()
    rotations: dict[int, list] = {}
    sines: list = []  # of every rotation, in order
    originals = {}
    for name in [
        n for n in vars(module) if n.startswith("apply_rotary") or n == "eager_attention_forward"
    ]:
        original = getattr(module, name)
        if not callable(original):
            continue
        originals[name] = original

        def wrapped(*args, _original=original, _name=name, **kw):
            if _name == "eager_attention_forward":
                attention.add(current["layer"])
            else:
                cos = _cos_of(_original, args, kw, torch)
                if cos.shape[-2] == TOKENS:  # not a compressor's (DeepSeek-V4) few positions
                    rotations.setdefault(current["layer"], []).append(cos)
                    sines.append(_sin_of(_original, args, kw, torch))
            return _original(*args, **kw)

        setattr(module, name, wrapped)
    text = getattr(cfg, "text_config", None) or cfg
    if getattr(cfg, "is_encoder_decoder", False):  # T5: the encoder's layers, the decoder's
        decoder = getattr(cfg, "num_decoder_layers", None) or cfg.num_hidden_layers
        layers = [
            *_layers(model.encoder, cfg.num_hidden_layers, torch),
            *_layers(model.decoder, decoder, torch),
        ]
    else:
        layers = _layers(model, text.num_hidden_layers, torch)
    try:
        for index, layer in enumerate(layers):
            layer.register_forward_pre_hook(lambda m, a, index=index: current.update(layer=index))
            if "eager_attention_forward" not in originals:  # attention of its own (BLOOM)
                for part in layer.modules():
                    if type(part).__name__.endswith("Attention"):
                        part.register_forward_pre_hook(lambda m, a: attention.add(current["layer"]))
        tokens = torch.arange(1, TOKENS + 1).unsqueeze(0)
        inputs = {"input_ids": tokens}
        if getattr(cfg, "is_encoder_decoder", False):  # T5: the decoder reads the same
            inputs["decoder_input_ids"] = tokens
        with torch.no_grad():
            model(**inputs)
    finally:
        for name, original in originals.items():
            setattr(module, name, original)
    rotary = getattr(model, "rotary_emb", None)  # none in a model that never rotates
    names = [] if rotary is None else list(getattr(rotary, "layer_types", None) or [SINGLE])
    tables = {}
    for kind in names:
        prefix = "" if kind == SINGLE else f"{kind}_"
        inv_freq = getattr(rotary, f"{prefix}inv_freq").detach().double().numpy()
        tables[kind] = (inv_freq, float(getattr(rotary, f"{prefix}attention_scaling")))
    if rotary is None and rotations and sines[0] is not None:
        # no rotary module: the table is the one the first rotation was handed
        tables[SINGLE] = _table_seen(next(iter(rotations.values()))[0], sines[0])
    # one rotary embedding per base beside it (Granite SWA's rotary_embs, by layer_rope_theta)
    for k, emb in enumerate(getattr(model, "rotary_embs", None) or ()):
        inv_freq = emb.inv_freq.detach().double().numpy()
        tables[f"rotary_embs[{k}]"] = (inv_freq, float(emb.attention_scaling))
    count = len(layers)
    return {
        "attention": [i in attention for i in range(count)],
        "rotary": [_match(rotations.get(i), tables) for i in range(count)],
        "tables": tables,
        "transformers": transformers.__version__,
    }


def _match(cos_tables, tables) -> str | None:
    """Which table of the rotary embedding every rotation of a layer used (None: none)."""
    if not cos_tables:
        return None
    positions = np.arange(TOKENS, dtype=np.float64)
    found = set()
    for cos in cos_tables:
        rows = cos.reshape(-1, TOKENS, cos.shape[-1])[0].numpy()  # (tokens, width)
        for kind, (inv_freq, scaling) in tables.items():
            expected = scaling * np.cos(np.multiply.outer(positions, inv_freq))
            repeat, extra = divmod(rows.shape[-1], len(inv_freq))
            if extra or not repeat:
                continue
            tiled = np.sort(np.repeat(expected, repeat, axis=-1), axis=-1)
            if np.allclose(np.sort(rows, axis=-1), tiled, rtol=1e-5, atol=1e-6):
                found.add(kind)
                break
        else:
            raise RuntimeError(f"a rotation used a cos table of no layer type: {rows[1]}")
    if len(found) != 1:
        raise RuntimeError(f"one layer rotated with several tables: {sorted(found)}")
    return found.pop()


def compare(config, seen: dict) -> list[str]:
    """Every disagreement between the library's reading of ``config`` (a config, or its
    description from :func:`~pe_explained.read_model`) and what
    transformers did (:func:`observe`), one line per layer and quantity."""
    reading = read_model(config)
    positions = reading.layers
    if len(positions) != len(seen["attention"]):
        return [f"{len(positions)} layers, transformers built {len(seen['attention'])}"]
    settings = reading.rope if any(p.source == "rotary" for p in positions) else {}
    wrong = []
    for p, attends, table in zip(positions, seen["attention"], seen["rotary"], strict=True):
        # no attention: a recurrence (Mamba-2, Gated DeltaNet) or no token mixing at all
        # (Nemotron-H's MLP and MoE layers); the two are not told apart here
        if (p.source not in ("recurrence", "none")) != attends:
            wrong.append(f"layer {p.index}: {p.source}, but attention ran: {attends}")
        if (p.source == "rotary") != (table is not None):
            wrong.append(f"layer {p.index}: {p.source}, but rotation by table {table!r}")
        if p.source == "rotary" and table is not None:
            inv_freq, scaling = seen["tables"][table]
            ours, factor = settings[p.rope].frequencies()
            if ours.shape != inv_freq.shape or not np.allclose(ours, inv_freq, rtol=2e-6, atol=0):
                wrong.append(f"layer {p.index}: inv_freq {ours} vs transformers' {inv_freq}")
            if not np.isclose(factor, scaling, rtol=1e-6):
                wrong.append(f"layer {p.index}: attention factor {factor} vs {scaling}")
    return wrong


#: Keys that size a model and decide no position: where a config leaves one out, its
#: class's default (often a released model's size) is shrunk instead.
_SIZE_KEYS = (
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    *_SMALL,
    *_EXPERTS,
    *_OTHER_SMALL,
    "num_experts_per_tok",
    "n_group",
    "topk_group",
    # special tokens: a class's default id may lie beyond the cut vocabulary
    "pad_token_id",
    "bos_token_id",
    "eos_token_id",
)


def _class_defaults(config: dict) -> dict:
    """What ``config``'s configuration class writes where a file is silent."""
    _, transformers = _torch_and_transformers()
    try:
        return transformers.AutoConfig.for_model(config["model_type"]).to_dict()
    except (ValueError, KeyError, TypeError):
        raise ValueError(
            f"transformers {transformers.__version__} has no model type "
            f"{config['model_type']!r} (a model that ships its own code cannot be built here)"
        ) from None


def shrink_for_class(config: dict) -> dict:
    """:func:`shrink` of ``config`` with the sizes it leaves to its configuration class
    (:data:`_SIZE_KEYS`: often a released model's) written in, shrunk too; a ``head_dim``
    only where the class or the file has one (Falcon's is a property computed from the
    widths, which :func:`shrink` keeps in proportion). Needs transformers."""
    defaults = _class_defaults(config)
    sizes = {k: defaults[k] for k in _SIZE_KEYS if k in defaults and k not in config}
    small = shrink({**sizes, **config})
    if "head_dim" not in defaults and "head_dim" not in config:
        small.pop("head_dim", None)
    return small


@dataclass(frozen=True)
class Verification:
    """What :func:`verify` found: the transformers version, the layers compared, the
    disagreements (empty: every layer agrees) and the layers the library assumed."""

    transformers: str
    layers: int
    differences: tuple[str, ...]
    assumed: int
    built_as: str | None = None

    @property
    def agrees(self) -> bool:
        return not self.differences

    def summary(self) -> str:
        """One line, then one per difference."""
        head = f"verified against transformers {self.transformers}: "
        agreeing = self.layers - len({d.split(":")[0] for d in self.differences})
        head += f"{agreeing} of {self.layers} layers agree"
        if self.assumed:
            head += f" ({self.assumed} assumed by the library, not read, and checked here)"
        if self.built_as:
            head += f" (built {self.built_as})"
        return "\n".join([head, *self.differences])


def verify(config: dict) -> Verification:
    """Build the tiny model of ``config`` (:func:`shrink`) with the transformers
    installed, observe it (:func:`observe`) and compare it with the library's reading
    (:func:`compare`). Raises ImportError without torch or transformers, ValueError for
    a config the library or transformers cannot read."""
    reading = read_model(config)  # a config the library refuses is refused here, first
    transformers = _torch_and_transformers()[1]
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()  # its notes on the shrunk config: not ours
    try:
        built, built_as = buildable(config, reading)
        return _verify(built, built_as)
    finally:
        transformers.logging.set_verbosity(verbosity)


def _model_type_of(config: dict) -> tuple[str, str | None]:
    """The model type transformers builds ``config`` as, and how it was found where the
    file does not give it: the family the library reads it as, by its ``architectures``
    (GPT-2's early files name no model type) or by a legacy name (Falcon's
    ``RefinedWebModel``)."""
    model_type = config.get("model_type")
    if isinstance(model_type, str):
        if model_type in RENAMED_TYPES:
            renamed = RENAMED_TYPES[model_type]
            return renamed, f"as {renamed!r}, the family {model_type!r} is read as"
        return model_type, None
    names = config.get("architectures")
    if isinstance(names, list) and names and names[0] in ARCHITECTURES:
        kind = ARCHITECTURES[names[0]]
        return kind, f"as {kind!r}, the family its architectures {names} are read as"
    raise ValueError(
        "inspect --verify needs the config's model_type (or architectures the library "
        "reads) to build the model"
    )


def buildable(config: dict, reading=None) -> tuple[dict, str | None]:
    """The config transformers builds to check ``config``, and what was done to it: the
    file as it is; its model type found (:func:`_model_type_of`); or, for a multimodal
    model, its language model alone (its ``text_config``, or its top level without the
    other towers' configs), whose reading must be the whole config's (``reading``, the
    :func:`~pe_explained.read_model` of ``config``, where the caller has it)."""
    _, transformers = _torch_and_transformers()
    model_type, how = _model_type_of(config)
    config = {**config, "model_type": model_type}
    try:
        subs = transformers.AutoConfig.for_model(model_type).sub_configs
    except (ValueError, KeyError, TypeError):
        return config, how
    text_type = getattr(subs.get("text_config"), "model_type", "")  # AutoConfig: none
    if isinstance(config.get("text_config"), dict):
        text = {"model_type": text_type, **config["text_config"]}
    elif text_type:  # the text keys at the top (Qwen2.5-VL)
        text = {k: v for k, v in config.items() if k not in subs}
        text["model_type"] = text_type
    else:
        return config, how
    if not text["model_type"]:
        return config, how
    if not _same_reading(reading or read_model(config), read_model(text)):
        return config, how
    return text, f"its language model alone, as {text['model_type']!r}"


def _verify(config: dict, built_as: str | None = None) -> Verification:
    small = shrink_for_class(config)
    reading = read_model(small)
    try:
        seen = observe(small)
    except (ValueError, KeyError, TypeError, AttributeError, RuntimeError, AssertionError) as exc:
        raise ValueError(
            f"transformers could not build or run a tiny {small['model_type']!r} model "
            f"from this config: {type(exc).__name__}: {exc}"
        ) from None
    return Verification(
        transformers=seen["transformers"],
        layers=len(seen["attention"]),
        differences=tuple(compare(reading, seen)),
        assumed=sum(p.assumed for p in reading.layers),
        built_as=built_as,
    )
