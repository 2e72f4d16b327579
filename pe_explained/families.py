"""What each family's modeling code does to positions: one registry, keyed by ``model_type``.

Every rule this library follows because a family's code does something of its own
lives here, with the file it was read from (``transformers`` 5.23's
``src/transformers/<modeling>``, or a model repository's remote code):

* ``pairing``: which dimensions a rotation pairs: ``"halves"`` (``rotate_half``: j with
  j + d/2) or ``"interleaved"`` (2j with 2j + 1); None for a family that never rotates.
  A ``rope_interleave`` in the config decides instead, where the family reads it;
* ``rotates``: which attention layers call the rotation (:data:`ROTATION_RULES`);
* ``mixer``: what mixes the tokens of its layers without attention (Gated DeltaNet,
  Mamba-2, …);
* ``layer_layout``: the layer types its configuration class lays out where the file
  lists none (:data:`LAYER_LAYOUTS`);
* ``no_rope_layers``: a ``no_rope_layers`` list (1: the layer rotates), made every
  ``no_rope_layer_interval``-th (4th) layer NoPE when the file gives none;
* ``window_types``: the layer types its code gives the sliding window, where not the
  sliding ones (MiniMax's full-attention layers);
* ``sliding_pattern``: the class's default ``sliding_window_pattern`` (layer i is
  global when (i + 1) % pattern == 0); ``attention_chunk``: its default
  ``attention_chunk_size``;
* ``split_bases``: the bases of a v4 file whose ``rope_theta`` is the global layers'
  and whose ``rope_local_base_freq`` is the sliding layers' (Gemma 3), with the class's
  defaults; ``rope_keys``: which RoPE dict a layer type rotates by (``"*"``: any other
  type), where the dicts are not named after the layer types (DeepSeek-V4's ``main``
  and ``compress``);
* ``temperature``: a query multiplier its attention applies (Llama 4's, with the class's
  defaults);
* ``defaults``: what its configuration class fills in where the file is silent, beyond
  the base and length (:data:`~pe_explained.hf_families.CLASS_DEFAULTS`): a sliding
  window, a partial rotary factor; filled in, and noted, by
  :func:`~pe_explained.hf_families.standardise` with the class's other defaults;
* ``partial``: what its code does with a ``partial_rotary_factor`` below 1
  (:data:`PARTIALS`): most families' own default RoPE reads none and their attention
  rotates the whole head, while the scaled tables of ``modeling_rope_utils.py`` do read
  it (then the table does not fit the head, and transformers fails);
* ``unread``: keys its files hold that its code does not read, with why;
  ``notes``: what a reader should know of its code that the numbers do not say.

A family not listed is read as most ``transformers`` models are (every attention layer
rotates, in halves), and :func:`~pe_explained.read_model` notes that its pairing is
assumed. The class defaults a configuration class fills in (bases, lengths, legacy
keys) are in :mod:`~pe_explained.hf_families`. ``tests/test_transformers_interleaved.py``
and ``tests/test_transformers_hybrids.py`` hold the entries to transformers' code;
``tests/test_families.py`` holds each file named to the installed transformers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "FAMILIES",
    "LAYER_LAYOUTS",
    "PAIRINGS",
    "PARTIALS",
    "ROTATION_RULES",
    "V4_RATIOS",
    "Family",
]

PAIRINGS = ("halves", "interleaved")
#: DeepSeek-V4's legacy ``compress_ratios`` and the layer type of each ratio
#: (``DeepseekV4Config``; an indexer runs in the compressed sparse attention layers).
V4_RATIOS = {
    0: "sliding_attention",
    4: "compressed_sparse_attention",
    128: "heavily_compressed_attention",
}

#: What a family's code does with a ``partial_rotary_factor`` below 1, by rule (each
#: found by running transformers 5.23 on the family's config with the factor set:
#: ``scripts/transformers_sweep.py``, its ``partial`` entries).
PARTIALS = {
    "read": "its RoPE builds int(head_dim · factor) dims' frequencies and its attention "
    "rotates those dims, the rest of the head passing through",
    "rotary_dim": "its code reads rotary_dim, never the factor: the first rotary_dim dims "
    "rotate, else the whole head",
    "whole head": "its own default RoPE reads no factor and its attention rotates the whole "
    "head; a scaled rope_type (whose table, in modeling_rope_utils.py, reads the factor) "
    "gives a table narrower than the head, and the model does not run ('proportional' "
    "excepted: its table has the head's width)",
    "fails": "its RoPE builds frequencies for int(head_dim · factor) dims, but its attention "
    "rotates the whole head: the model does not run",
}

#: Which attention layers of a family call the rotation, by rule: ``(cfg, layer type)``
#: → whether a layer of that type rotates.
ROTATION_RULES = {
    "every": lambda cfg, kind: True,
    "none": lambda cfg, kind: False,  # no rotary code at all
    "sliding": lambda cfg, kind: kind == "sliding_attention",  # global layers are NoPE
    # with a sliding window, only sliding layers rotate; without one, every layer
    "sliding when windowed": lambda cfg, kind: (
        cfg.get("sliding_window") is None or kind == "sliding_attention"
    ),
    # rotates only when the config asks for RoPE: an exact comparison with "rope"
    "position_embedding_type": lambda cfg, kind: cfg.get("position_embedding_type") == "rope",
    "use_rotary_pos_emb": lambda cfg, kind: bool(cfg.get("use_rotary_pos_emb", True)),
    # rotates where a base is set: a null rope_theta (OLMo Hybrid's released files) is NoPE
    "a base": lambda cfg, kind: _base_set(cfg),
    # Zamba2's shared attention rotates only `if self.config.use_mem_rope:` (default False)
    "use_mem_rope": lambda cfg, kind: bool(cfg.get("use_mem_rope", False)),
}


def _base_set(cfg: Mapping) -> bool:
    """Whether the RoPE's base is set: a RoPE dict's ``rope_theta`` where it has one, else
    not a top-level ``rope_theta`` of null (the class's default otherwise)."""
    rope = cfg.get("rope_parameters")
    if isinstance(rope, Mapping) and "rope_theta" in rope:
        return rope["rope_theta"] is not None
    return not ("rope_theta" in cfg and cfg["rope_theta"] is None)


#: The layer types a configuration class lays out where the file lists none.
LAYER_LAYOUTS = {
    "hybrid": "every layer is attention and Mamba-2 side by side (layers_block_type)",
    "full_attention_interval": (
        "linear attention, and full attention every full_attention_interval-th layer (4th)"
    ),
    "linear_attn_config": (
        "linear_attn_config's 1-based full_attn_layers and kda_layers, else full attention "
        "at layers 4, 8, …"
    ),
    "compress_ratios": "compress_ratios (0 sliding, 4 compressed sparse, 128 heavily "
    "compressed), else the class's pattern",
    "mamba": "every layer Mamba-2",
    "layers_block_type, else the class's 54": (
        "a layer per entry of layers_block_type (Mamba-2, or hybrid: the shared attention "
        "block, then Mamba-2), else the class's 54, hybrid at 6, 12, …, 42, 47 and 51"
    ),
    "hybrid_override_pattern": (
        "layers_block_type, else hybrid_override_pattern's letters (M Mamba-2, * attention, "
        "E MoE, - MLP; hf_families), else Mamba-2, MoE, attention, MLP; layers of their own "
        "for an MLP or a MoE"
    ),
    "attn_layer_indices": "full attention at the layers attn_layer_indices lists, else Mamba-2",
    "attn_layer_period": (
        "attention where i % attn_layer_period == attn_layer_offset (8 and 4), else Mamba"
    ),
    "first and every 6th": "full attention at layer 0 and every 6th layer, else sliding",
    "global_attn_every_n_layers": (
        "sliding attention, and full attention every global_attn_every_n_layers-th layer (4th)"
    ),
    "chunked where rotating": "the rotating layers chunked, the NoPE layers full attention",
    "first two, every 4th from 1, and the last": (
        "full attention at layers 0 and 1, every 4th layer from layer 1 and the last, else sliding"
    ),
    "every 4th from the last": "full attention every 4th layer counted back from the last, "
    "else sliding",
    "every 4th from 0": "full attention at layers 0, 4, 8, …, else sliding",
    "every 4th from 3, and the last": (
        "full attention at layers 3, 7, 11, … (the last where there is none), else linear attention"
    ),
    "global_attn_every_n_layers from 0": (
        "full attention where i % global_attn_every_n_layers == 0 (3), else sliding"
    ),
    "every 6th and the last": "full attention every 6th layer and the last, else sliding",
    "full_attn_idxs": "full attention at the layers full_attn_idxs lists (all without it), "
    "else a short convolution (conv)",
    "alternating from full": "full attention at even layers, linear attention at odd ones",
    "full": "full attention at every layer",
    "conv, sliding and full by 4": (
        "full attention where i % 4 == 2, sliding where i % 4 == 0 (from layer 4), else a short "
        "convolution (conv)"
    ),
}


@dataclass(frozen=True)
class Family:
    """One family's rules (see the module's docstring)."""

    modeling: str
    pairing: str | None = "halves"
    rotates: str = "every"
    mixer: str | None = None
    layer_layout: str | None = None
    no_rope_layers: bool = False
    window_types: tuple[str, ...] | None = None
    sliding_pattern: int | None = None
    attention_chunk: int | None = None
    reads_rope_interleave: bool = True
    split_bases: Mapping[str, float] | None = None
    rope_keys: Mapping[str, str] | None = None
    temperature: Mapping[str, float | bool] | None = None
    defaults: Mapping[str, int] | None = None
    partial: str = "whole head"
    unread: Mapping[str, str] | None = None
    notes: tuple[str, ...] = ()

    def attention_rotates(self, cfg: Mapping, kind: str) -> bool:
        """Whether an attention layer of type ``kind`` calls the rotation."""
        return ROTATION_RULES[self.rotates](cfg, kind)


#: ExaoneConfig's window (its pattern, layer i global when (i + 1) % 4 == 0, is
#: ``sliding_pattern``).
_EXAONE_WINDOW = {"sliding_window": 4096}
_GEMMA3_BASES = {"full_attention": 1_000_000.0, "sliding_attention": 10_000.0}
_LLAMA4 = Family(
    "models/llama4/modeling_llama4.py",
    "interleaved",
    no_rope_layers=True,
    layer_layout="chunked where rotating",
    attention_chunk=8192,
    temperature={"attn_temperature_tuning": True, "attn_scale": 0.1, "floor_scale": 8192},
)
_MLA = (
    "MLA rotates the last qk_rope_head_dim dims of each query head and one key "
    "shared by all heads; the other dims carry no position"
)
_COHERE2_MOE_DENSE = (
    "Cohere2-MoE also rotates a full-attention layer whose MLP is dense when "
    "prefix_dense_sliding_window_pattern is 1 (force_rope); that case is not read here: "
    "such a layer is reported without rotation"
)
_V32_INDEXER = (
    "DeepSeek-V3.2's indexer rotates the first qk_rope_head_dim dims of its heads in "
    "halves, while MLA rotates interleaved pairs: the same tables, two pairings"
)

_GLM_DSA_INDEXER = (
    "GLM-MoE-DSA's indexer rotates the first qk_rope_head_dim dims of its heads in "
    "interleaved pairs, as its MLA does"
)
_AXK2_INDEXER = (
    "AXK2's indexer rotates the first qk_rope_head_dim dims of its heads in halves, while "
    "MLA rotates interleaved pairs: the same tables, two pairings"
)
_HALVES_INDEXER = (
    "its indexer rotates the last qk_rope_head_dim dims of its heads in halves, as MLA does"
)
_ENCODER = (
    "an encoder: every query attends to keys on both sides (no causal mask), so the "
    "distances RoPE's scores depend on run both ways"
)
_TWO_SIDED = (
    "its sliding layers see keys up to sliding_window positions away on either side "
    "(|i - j| <= sliding_window, create_bidirectional_sliding_window_mask), not "
    "sliding_window keys back"
)
_KV_SOURCES = (
    "a layer whose kv_source_layers entry names an earlier layer rotates its queries only "
    "and reuses that layer's keys, already rotated"
)
_LAYER_ROPE_THETA = (
    "layer_rope_theta 0 makes a layer NoPE (it gets no position embeddings); the other "
    "layers rotate"
)
_M_ROPE_INTERLEAVED = (
    "M-RoPE's sections are interleaved over the pairs (temporal, height, width, temporal, "
    "…), as Qwen3-VL's, whatever mrope_interleaved says; text tokens have one position in all "
    "three"
)
_GEMMA4_UNIFIED = (
    "with use_bidirectional_attention 'all' it is an encoder (no causal mask), and its class "
    "sets the window to sliding_window // 2 + 1, a bound on each side"
)

#: model_type → its rules, read from the file each entry names.
FAMILIES: dict[str, Family] = {
    "afmoe": Family(
        "models/afmoe/modeling_afmoe.py",
        rotates="sliding",  # `if self.is_local_attention:` rotate; global layers are NoPE
        layer_layout="global_attn_every_n_layers",
        defaults={"sliding_window": 1024},
    ),
    "apertus": Family("models/apertus/modeling_apertus.py"),
    "arcee": Family("models/arcee/modeling_arcee.py"),
    "aria_text": Family("models/aria/modeling_aria.py"),
    # MLA as DeepSeek-V3's: interleaved pairs when rope_interleave (default true), else halves
    "axk1": Family("models/axk1/modeling_axk1.py", "interleaved", notes=(_MLA,)),
    # MLA always pairs 2j with 2j + 1; AXK2Config has no rope_interleave
    "axk2": Family(
        "models/axk2/modeling_axk2.py",
        "interleaved",
        reads_rope_interleave=False,
        notes=(_AXK2_INDEXER, _MLA),
    ),
    # its layers_block_type: attention at attn_layer_indices, Mamba-2 elsewhere; the class
    # passes partial_rotary_factor 0.5 on to the rotary embedding
    "bamba": Family(
        "models/bamba/modeling_bamba.py",
        mixer="Mamba-2",
        layer_layout="attn_layer_indices",
        defaults={"partial_rotary_factor": 0.5},
        partial="read",
    ),
    "bitnet": Family("models/bitnet/modeling_bitnet.py"),
    "codegen": Family("models/codegen/modeling_codegen.py", "interleaved", partial="rotary_dim"),
    "cohere": Family("models/cohere/modeling_cohere.py", "interleaved"),
    "cohere2": Family(
        "models/cohere2/modeling_cohere2.py", "interleaved", rotates="sliding", sliding_pattern=4
    ),
    "cohere2_moe": Family(
        "models/cohere2_moe/modeling_cohere2_moe.py",
        "interleaved",
        rotates="sliding",
        notes=(_COHERE2_MOE_DENSE,),
    ),
    # Qwen3-VL's text model with M-RoPE sections interleaved in the code
    "cosmos3_edge_text": Family(
        "models/cosmos3_edge/modeling_cosmos3_edge.py", notes=(_M_ROPE_INTERLEAVED,)
    ),
    # its full-attention layers are NoPE, as Cohere 2's (found by the sweep of every
    # family, scripts/transformers_sweep.py); force_rope also rotates a dense one
    # every 4th layer full attention from layer 0, the others sliding (CwmConfig)
    "cwm": Family(
        "models/cwm/modeling_cwm.py",
        layer_layout="every 4th from 0",
        defaults={"sliding_window": 8192},
    ),
    "deepseek_v2": Family(
        "models/deepseek_v2/modeling_deepseek_v2.py", "interleaved", notes=(_MLA,)
    ),
    "deepseek_v3": Family(
        "models/deepseek_v3/modeling_deepseek_v3.py", "interleaved", notes=(_MLA,)
    ),
    # MLA always pairs 2j with 2j + 1, whatever rope_interleave says
    "deepseek_v32": Family(
        "models/deepseek_v32/modeling_deepseek_v32.py",
        "interleaved",
        reads_rope_interleave=False,
        notes=(_V32_INDEXER, _MLA),
    ),
    "deepseek_v4": Family(
        "models/deepseek_v4/modeling_deepseek_v4.py",
        "interleaved",
        layer_layout="compress_ratios",
        rope_keys={"sliding_attention": "main", "*": "compress"},
        partial="read",
    ),
    "diffllama": Family("models/diffllama/modeling_diffllama.py"),
    "doge": Family("models/doge/modeling_doge.py"),
    "embedding_gemma2": Family(
        "models/embedding_gemma2/modeling_embedding_gemma2.py",
        sliding_pattern=6,
        notes=(_ENCODER, _TWO_SIDED),
    ),
    "embedding_gemma2_text": Family(
        "models/embedding_gemma2/modeling_embedding_gemma2.py",
        sliding_pattern=6,
        notes=(_ENCODER, _TWO_SIDED),
    ),
    "ernie4_5": Family("models/ernie4_5/modeling_ernie4_5.py", "interleaved"),
    "ernie4_5_moe": Family("models/ernie4_5_moe/modeling_ernie4_5_moe.py", "interleaved"),
    "esmc": Family("models/esmc/modeling_esmc.py", notes=(_ENCODER,)),
    "eurobert": Family("models/eurobert/modeling_eurobert.py", notes=(_ENCODER,)),
    "exaone4": Family(
        "models/exaone4/modeling_exaone4.py",
        rotates="sliding when windowed",
        sliding_pattern=4,
        defaults=_EXAONE_WINDOW,
    ),
    "exaone_moe": Family(
        "models/exaone_moe/modeling_exaone_moe.py",
        rotates="sliding when windowed",
        sliding_pattern=4,
        defaults=_EXAONE_WINDOW,
    ),
    "falcon": Family("models/falcon/modeling_falcon.py"),
    "falcon_h1": Family("models/falcon_h1/modeling_falcon_h1.py", layer_layout="hybrid"),
    "flex_olmo": Family("models/flex_olmo/modeling_flex_olmo.py"),
    # `if self.sliding_window is not None:` rotate, and only sliding layers have a window
    # (FlintConfig's sliding_window is an int, never null): full-attention layers are NoPE
    "flint": Family(
        "models/flint/modeling_flint.py",
        rotates="sliding",
        layer_layout="first two, every 4th from 1, and the last",
        defaults={"sliding_window": 513},
    ),
    # its language model is Persimmon's (text_config, or a flat file's top level)
    "fuyu": Family("models/fuyu/modeling_fuyu.py", partial="read"),
    "gemma": Family("models/gemma/modeling_gemma.py"),
    "gemma2": Family("models/gemma2/modeling_gemma2.py"),
    "gemma3": Family(
        "models/gemma3/modeling_gemma3.py", sliding_pattern=6, split_bases=_GEMMA3_BASES
    ),
    "gemma3_text": Family(
        "models/gemma3/modeling_gemma3.py", sliding_pattern=6, split_bases=_GEMMA3_BASES
    ),
    "gemma3n": Family(
        "models/gemma3n/modeling_gemma3n.py", sliding_pattern=5, split_bases=_GEMMA3_BASES
    ),
    "gemma3n_text": Family(
        "models/gemma3n/modeling_gemma3n.py", sliding_pattern=5, split_bases=_GEMMA3_BASES
    ),
    "gemma4": Family("models/gemma4/modeling_gemma4.py"),
    "gemma4_text": Family("models/gemma4/modeling_gemma4.py"),
    "gemma4_unified": Family(
        "models/gemma4_unified/modeling_gemma4_unified.py", notes=(_GEMMA4_UNIFIED,)
    ),
    "gemma4_unified_text": Family(
        "models/gemma4_unified/modeling_gemma4_unified.py", notes=(_GEMMA4_UNIFIED,)
    ),
    "glm": Family("models/glm/modeling_glm.py", "interleaved", partial="read"),
    "glm4": Family("models/glm4/modeling_glm4.py", "interleaved", partial="read"),
    "glm4_moe": Family("models/glm4_moe/modeling_glm4_moe.py", partial="read"),
    # MLA: interleaved pairs when rope_interleave (default true), else halves; the class
    # reads head_dim as qk_rope_head_dim
    "glm4_moe_lite": Family(
        "models/glm4_moe_lite/modeling_glm4_moe_lite.py",
        "interleaved",
        notes=(_MLA,),
        partial="fails",
    ),
    # rotate_half_llm pairs 2j with 2j + 1 (repeat_interleave of the frequencies), in the
    # first partial_rotary_factor of each head
    # MLA as DeepSeek-V3.2's, interleaved everywhere; head_dim is set to qk_rope_head_dim
    "glm_moe_dsa": Family(
        "models/glm_moe_dsa/modeling_glm_moe_dsa.py",
        "interleaved",
        reads_rope_interleave=False,
        notes=(_GLM_DSA_INDEXER, _MLA),
    ),
    "glm_ocr_text": Family("models/glm_ocr/modeling_glm_ocr.py", "interleaved", partial="fails"),
    "gpt_neox": Family("models/gpt_neox/modeling_gpt_neox.py", partial="read"),
    "gpt_neox_japanese": Family(
        "models/gpt_neox_japanese/modeling_gpt_neox_japanese.py", partial="read"
    ),
    "gpt_oss": Family("models/gpt_oss/modeling_gpt_oss.py", sliding_pattern=2),
    "gptj": Family("models/gptj/modeling_gptj.py", "interleaved", partial="rotary_dim"),
    "granite": Family("models/granite/modeling_granite.py"),
    "granite_docling_text": Family("models/granite_docling/modeling_granite_docling.py"),
    # one rotary embedding per distinct non-zero layer_rope_theta; 0: NoPE (hf_families)
    "granite_swa": Family(
        "models/granite_swa/modeling_granite_swa.py",
        layer_layout="every 4th from 0",
        defaults={"sliding_window": 128},
    ),
    "granitemoe": Family("models/granitemoe/modeling_granitemoe.py"),
    "granitemoe_swa": Family(
        "models/granitemoe_swa/modeling_granitemoe_swa.py",
        layer_layout="every 4th from 0",
        defaults={"sliding_window": 128},
    ),
    "granitemoehybrid": Family(
        "models/granitemoehybrid/modeling_granitemoehybrid.py",
        rotates="position_embedding_type",
        mixer="Mamba-2",
        layer_layout="mamba",
    ),
    "granitemoeshared": Family("models/granitemoeshared/modeling_granitemoeshared.py"),
    "gte": Family("models/gte/modeling_gte.py", notes=(_ENCODER,)),
    "helium": Family("models/helium/modeling_helium.py", "interleaved"),
    "higgs_audio_v2": Family("models/higgs_audio_v2/modeling_higgs_audio_v2.py"),
    # the remote code: cat(freqs, freqs), rotate_half; `if self.use_rotary_pos_emb:`
    "hunyuan": Family(
        "remote: tencent/Hunyuan-A13B-Instruct, modeling_hunyuan.py", rotates="use_rotary_pos_emb"
    ),
    "hunyuan_v1_dense": Family("models/hunyuan_v1_dense/modeling_hunyuan_v1_dense.py"),
    "hunyuan_v1_moe": Family("models/hunyuan_v1_moe/modeling_hunyuan_v1_moe.py"),
    "hy_v3": Family("models/hy_v3/modeling_hy_v3.py"),
    # MLA and its indexer rotate in halves ("Non-interleave RoPE"); no rope_interleave
    "hy_v4": Family(
        "models/hy_v4/modeling_hy_v4.py",
        reads_rope_interleave=False,
        notes=(_HALVES_INDEXER, _MLA),
    ),
    "hyperclovax": Family("models/hyperclovax/modeling_hyperclovax.py"),
    # no modeling file of its own: transformers builds it with Llama's classes
    "internlm3": Family("models/llama/modeling_llama.py"),
    "iquestcoder": Family("models/llama/modeling_llama.py"),  # Llama's classes, as InternLM3
    "jais2": Family("models/jais2/modeling_jais2.py"),
    # DeepSeek-V3's architecture, from its own repository
    # JambaAttention calls no rotation (the config has no RoPE): its attention is NoPE
    "jamba": Family(
        "models/jamba/modeling_jamba.py",
        None,
        rotates="none",
        mixer="Mamba",
        layer_layout="attn_layer_period",
    ),
    "jetmoe": Family("models/jetmoe/modeling_jetmoe.py"),
    "jina_embeddings_v3": Family(
        "models/jina_embeddings_v3/modeling_jina_embeddings_v3.py", notes=(_ENCODER,)
    ),
    "kimi_k2": Family(
        "remote: moonshotai/Kimi-K2-Instruct, modeling_deepseek.py", "interleaved", notes=(_MLA,)
    ),
    # KimiLinearAttention has no rotary code: no layer rotates, so no pairing
    "kimi_linear": Family(
        "models/kimi_linear/modeling_kimi_linear.py",
        None,
        rotates="none",
        mixer="Kimi Delta Attention",
        layer_layout="linear_attn_config",
        unread={
            "mla_use_nope": "Kimi Linear's attention has no rotary code, so no layer rotates "
            "whatever it says"
        },
    ),
    # `if self.sliding_window is None or self.is_sliding:` rotate, as EXAONE 4 (with a null
    # window Kolibri1Model itself fails in 5.23: it builds a sliding-window mask regardless)
    "kolibri1": Family(
        "models/kolibri1/modeling_kolibri1.py",
        rotates="sliding when windowed",
        sliding_pattern=5,
        defaults={"sliding_window": 513},
    ),
    # layer_types "conv": a short causal convolution (Lfm2ShortConv), no attention
    "lfm2": Family(
        "models/lfm2/modeling_lfm2.py", mixer="short convolution", layer_layout="full_attn_idxs"
    ),
    # LFM2's conv layers beside sliding and full attention, one RoPE per layer type
    "lfm3": Family(
        "models/lfm3/modeling_lfm3.py",
        mixer="short convolution",
        layer_layout="conv, sliding and full by 4",
    ),
    "llama": Family("models/llama/modeling_llama.py"),
    "llama4": _LLAMA4,
    "llama4_text": _LLAMA4,  # the text tower: one family, one file
    # MLA as DeepSeek-V3's, always in interleaved pairs; two attention sublayers in each
    # decoder layer (LongcatFlashDecoderLayer: num_hidden_layers is 2 × num_layers)
    "longcat_flash": Family(
        "models/longcat_flash/modeling_longcat_flash.py",
        "interleaved",
        reads_rope_interleave=False,
        notes=(_MLA,),
    ),
    "mellum": Family("models/mellum/modeling_mellum.py", layer_layout="full", partial="fails"),
    # its own rotary code: per layer type, int(head_dim * partial_rotary_factor) dims
    "mimo_v2_flash": Family(
        "models/mimo_v2_flash/modeling_mimo_v2_flash.py",
        layer_layout="first and every 6th",
        defaults={"sliding_window": 129},
        partial="read",
        unread={
            "swa_rope_theta": "MiMoV2FlashConfig has no such key: the sliding layers' base "
            "is rope_parameters['sliding_attention'] (1e4 where the file gives none)"
        },
    ),
    # MLA as DeepSeek-V2's, but rotating in halves (apply_rotary_pos_emb); no rope_interleave
    "minicpm3": Family(
        "models/minicpm3/modeling_minicpm3.py", reads_rope_interleave=False, notes=(_MLA,)
    ),
    # linear_attention layers are MiniMaxLightningAttention; a sliding_window applies to
    # the full-attention layers (MiniMaxAttention)
    "minimax": Family(
        "models/minimax/modeling_minimax.py",
        mixer="lightning attention",
        layer_layout="alternating from full",
        window_types=("full_attention",),
    ),
    "minimax_m2": Family("models/minimax_m2/modeling_minimax_m2.py", partial="read"),
    "ministral": Family("models/ministral/modeling_ministral.py"),
    "ministral3": Family("models/ministral3/modeling_ministral3.py"),
    "mistral": Family("models/mistral/modeling_mistral.py"),
    "mistral3": Family("models/mistral3/modeling_mistral3.py"),
    # MLA: interleaved pairs when rope_interleave (default true); its class's RoPE and head
    # width are read by hf_families
    "mistral4": Family(
        "models/mistral4/modeling_mistral4.py", "interleaved", notes=(_MLA,), partial="read"
    ),
    # MLA always interleaved (apply_rotary_pos_emb_interleave), NoPE where no_rope_layers is 0
    "mistral_large4_text": Family(
        "models/mistral_large4/modeling_mistral_large4.py",
        "interleaved",
        no_rope_layers=True,
        reads_rope_interleave=False,
        notes=(
            _MLA,
            "every layer also multiplies its queries by scale · ln(p + 1) + bias, learned per "
            "head (MistralLarge4TextSoftmaxScaling): weights of the checkpoint, not the config",
            _KV_SOURCES,
        ),
    ),
    "mixtral": Family("models/mixtral/modeling_mixtral.py"),
    # ModernBertConfig: legacy global_rope_theta and local_rope_theta, and sliding_window =
    # local_attention // 2 (hf_families)
    "modernbert": Family(
        "models/modernbert/modeling_modernbert.py",
        layer_layout="global_attn_every_n_layers from 0",
        notes=(_ENCODER, _TWO_SIDED),
    ),
    # its text model is ModernBERT's (text_config)
    # a causal ModernBERT: its window is local_attention // 2 keys back (hf_families)
    "modernbert-decoder": Family(
        "models/modernbert_decoder/modeling_modernbert_decoder.py",
        layer_layout="global_attn_every_n_layers from 0",
    ),
    "modernvbert": Family("models/modernvbert/modeling_modernvbert.py", notes=(_ENCODER,)),
    "molmo2_text": Family("models/molmo2/modeling_molmo2.py"),
    # NoPE where layer_rope_theta is 0 (hf_families); rotating layers use rope_parameters
    "muse_glimmer_text": Family(
        "models/muse_glimmer/modeling_muse_glimmer.py",
        layer_layout="every 4th from the last",
        notes=(_LAYER_ROPE_THETA,),
    ),
    # rotate_half returns (x2, -x1): every pair turns by -θ
    "nanochat": Family(
        "models/nanochat/modeling_nanochat.py",
        notes=(
            "rotate_half returns (x2, -x1): each pair turns by minus the angle, the same "
            "frequencies the other way round, so scores depend on the distance with the "
            "opposite sign",
        ),
    ),
    # NemotronHAttention takes no position embeddings: its attention layers are NoPE
    "nemotron": Family("models/nemotron/modeling_nemotron.py", partial="read"),
    "nemotron_h": Family(
        "models/nemotron_h/modeling_nemotron_h.py",
        None,
        rotates="none",
        mixer="Mamba-2",
        layer_layout="hybrid_override_pattern",
        unread={
            key: "NemotronHAttention takes no position embeddings"
            for key in ("rope_theta", "partial_rotary_factor", "rope_scaling")
        },
    ),
    # per-type partial rotation; windows per layer (per_layer_config, hf_families)
    "neomme": Family(
        "models/neomme/modeling_neomme.py",
        layer_layout="every 6th and the last",
        notes=(_ENCODER, _TWO_SIDED),
        partial="read",
    ),
    "nomic_bert": Family("models/nomic_bert/modeling_nomic_bert.py", notes=(_ENCODER,)),
    "olmo": Family("models/olmo/modeling_olmo.py"),
    "olmo2": Family("models/olmo2/modeling_olmo2.py"),
    "olmo3": Family("models/olmo3/modeling_olmo3.py", sliding_pattern=4),
    # "Released ckpt don't use any ROPE": a null rope_theta gives no rotary embedding
    "olmo_hybrid": Family(
        "models/olmo_hybrid/modeling_olmo_hybrid.py",
        rotates="a base",
        mixer="Gated DeltaNet",
        layer_layout="every 4th from 3, and the last",
    ),
    "olmoe": Family(
        "models/olmoe/modeling_olmoe.py",
        unread={
            "sliding_window": "OlmoeModel's mask has no window (only a flash-attention kernel "
            "is handed it)"
        },
    ),
    # _apply_rotary_emb pairs x[..., ::2] with x[..., 1::2]
    "openai_privacy_filter": Family(
        "models/openai_privacy_filter/modeling_openai_privacy_filter.py",
        "interleaved",
        notes=(_ENCODER, _TWO_SIDED),
    ),
    "persimmon": Family("models/persimmon/modeling_persimmon.py", partial="read"),
    "phi": Family("models/phi/modeling_phi.py", partial="read"),
    "phi3": Family("models/phi3/modeling_phi3.py", partial="read"),
    "phimoe": Family("models/phimoe/modeling_phimoe.py"),
    "qwen2": Family("models/qwen2/modeling_qwen2.py"),
    "qwen2_5_vl": Family("models/qwen2_5_vl/modeling_qwen2_5_vl.py"),
    "qwen2_5_vl_text": Family("models/qwen2_5_vl/modeling_qwen2_5_vl.py"),
    "qwen2_moe": Family("models/qwen2_moe/modeling_qwen2_moe.py"),
    "qwen2_vl": Family("models/qwen2_vl/modeling_qwen2_vl.py"),
    "qwen2_vl_text": Family("models/qwen2_vl/modeling_qwen2_vl.py"),
    "qwen3": Family("models/qwen3/modeling_qwen3.py"),
    "qwen3_5": Family(
        "models/qwen3_5/modeling_qwen3_5.py",
        mixer="Gated DeltaNet",
        layer_layout="full_attention_interval",
        partial="read",
    ),
    "qwen3_5_moe": Family(
        "models/qwen3_5_moe/modeling_qwen3_5_moe.py",
        mixer="Gated DeltaNet",
        layer_layout="full_attention_interval",
        partial="read",
    ),
    "qwen3_5_moe_text": Family(
        "models/qwen3_5_moe/modeling_qwen3_5_moe.py",
        mixer="Gated DeltaNet",
        layer_layout="full_attention_interval",
        partial="read",
    ),
    "qwen3_5_text": Family(
        "models/qwen3_5/modeling_qwen3_5.py",
        mixer="Gated DeltaNet",
        layer_layout="full_attention_interval",
        partial="read",
    ),
    "qwen3_moe": Family("models/qwen3_moe/modeling_qwen3_moe.py"),
    "qwen3_next": Family(
        "models/qwen3_next/modeling_qwen3_next.py",
        mixer="Gated DeltaNet",
        layer_layout="full_attention_interval",
        partial="read",
    ),
    "qwen3_vl": Family("models/qwen3_vl/modeling_qwen3_vl.py"),
    "qwen3_vl_moe": Family("models/qwen3_vl_moe/modeling_qwen3_vl_moe.py"),
    "qwen3_vl_moe_text": Family(
        "models/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
        unread={"sliding_window": "Qwen3VLMoeTextConfig sets it to None"},
    ),
    "qwen3_vl_text": Family("models/qwen3_vl/modeling_qwen3_vl.py"),
    # its own rotation, RoFormerSelfAttention.apply_rotary_position_embeddings
    "roformer": Family("models/roformer/modeling_roformer.py", "interleaved"),
    "seed_oss": Family("models/seed_oss/modeling_seed_oss.py"),
    "smollm3": Family("models/smollm3/modeling_smollm3.py", no_rope_layers=True),
    "solar_open": Family("models/solar_open/modeling_solar_open.py", partial="fails"),
    "stablelm": Family("models/stablelm/modeling_stablelm.py", partial="read"),
    "starcoder2": Family("models/starcoder2/modeling_starcoder2.py"),
    "ultrabert": Family(
        "models/ultrabert/modeling_ultrabert.py", sliding_pattern=3, notes=(_ENCODER, _TWO_SIDED)
    ),
    # its text model is UltraBERT's (text_config)
    "ultravbert": Family("models/ultravbert/modeling_ultravbert.py", notes=(_ENCODER,)),
    "vaultgemma": Family("models/vaultgemma/modeling_vaultgemma.py", sliding_pattern=2),
    # MLA: interleaved pairs when rope_interleave (default true), else halves
    "youtu": Family("models/youtu/modeling_youtu.py", "interleaved", notes=(_MLA,)),
    # Mamba-2 layers, and hybrid layers that run the shared attention block (over the
    # hidden state and the input embeddings side by side) before their Mamba-2; the class
    # lays out its layers (hf_families)
    "zamba2": Family(
        "models/zamba2/modeling_zamba2.py",
        rotates="use_mem_rope",
        mixer="Mamba-2",
        layer_layout="layers_block_type, else the class's 54",
    ),
}
