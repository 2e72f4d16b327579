"""The config inspector (docs/appendix/inspector.md): its JavaScript report is the library's.

``docs/assets/javascripts/inspector-*.js`` compute, in the page, the report of ``python -m
pe_explained inspect --json`` (:func:`pe_explained.model_report.inspect_config`, the
function the CLI's ``--json`` prints). The browser tests here call
``window.peInspector.inspect`` on every gallery config and on generated edge cases, each
given as JSON text the way the page reads a file (``peInspector.parse``), and compare the
result with the library's report field by field: floats within 1e-9 relative with no
absolute floor (a frequency of exactly 0, Gemma 4's slow p-RoPE pairs, must be 0 in both),
integers, strings, lists and null exactly. Where the library raises, the script must
throw, with the same kind of error and the same message; where it does not, the script
must not. Every field is compared, T5's first distance in the last bucket (float32
logarithms, as ``t5_relative_bucket``) and Dual Chunk Attention's largest distance
included. Serving the script with one small fault (Playwright's routing) makes the
comparison fail (:data:`FAULTS`).

The inspector is a tool, not a figure, and the generic checks of a figure's widget
(``tests/test_widgets_phone.py``: the whole widget on one phone screen, plots before
controls, sliders) do not all apply: its input comes first and its report runs longer than
a screen. What applies is checked here: on a phone the inputs, the layer strip and the
first plot of wavelengths fit the visible height; the page never scrolls sideways; both
palettes; axe; keyboard focus; no console error; and bad input shows one sentence.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import time
from collections import defaultdict
from html import unescape

import pytest
from browser_support import DOCS, axe_script, browser_missing, mkdocs_config
from config_mutations import apply, random_cases
from test_config_mutations import BASES, REGRESSIONS
from test_hf_config import GEMMA4_LIKE, LLAMA31_V4, LLAMA31_V5
from test_partial_share import PER_TYPE

from pe_book import load_all
from pe_book.interactive import INTERACTIVES, interactive_html
from pe_book.models import load_models
from pe_book.pages import expand_shortcodes
from pe_explained.model_report import inspect_config

load_all()

PAGE = "appendix/inspector.md"
URL = "appendix/inspector.html"
SCRIPTS = DOCS / "assets" / "javascripts"
REL = 1e-9
needs_browser = pytest.mark.skipif(
    browser_missing() is not None, reason=f"browser tests: {browser_missing()}"
)


# --- the page and its data (no browser) ---------------------------------------------------


def test_the_page_carries_each_gallery_model_by_name_and_config_only():
    from pe_explained.families import FAMILIES

    defaults = INTERACTIVES["inspector"].defaults()
    assert set(defaults) == {"models", "start", "families"}
    assert defaults["models"] == [[m.model, m.config] for m in load_models()]
    assert defaults["start"] in [m.model for m in load_models()]
    # the library's registry of families, which the page's reading follows
    registry = {t: dataclasses.asdict(f) for t, f in FAMILIES.items()}
    assert defaults["families"] == json.loads(json.dumps(registry))
    html = interactive_html("inspector")
    assert 'data-script="inspector"' in html
    # compact: the configs' and the registry's JSON without spaces, escaped once
    carried = json.dumps([defaults["models"], defaults["families"]], separators=(",", ":"))
    assert len(html) < 2.2 * len(carried)


def test_the_page_expands_to_the_inspector_and_is_linked_from_chapters_19_and_21():
    markdown = (DOCS / PAGE).read_text(encoding="utf-8")
    html = expand_shortcodes(markdown, PAGE, defaultdict(lambda: (100, 100)))
    found = re.findall(r'<div class="pe-interactive"[^>]*data-interactive="(\w+)"', html)
    assert found == ["inspector"]
    tag = re.search(r'<div class="pe-interactive"[^>]*>', html).group(0)
    data = json.loads(unescape(re.search(r'data-defaults="([^"]*)"', tag).group(1)))
    assert data == INTERACTIVES["inspector"].defaults()
    for chapter in ("practice/cli.md", "practice/todays-models.md"):
        assert "(../appendix/inspector.md)" in (DOCS / chapter).read_text(encoding="utf-8")
    nav = mkdocs_config()["nav"]
    appendices = next(item["Appendices"] for item in nav if "Appendices" in item)
    assert {"Inspect a model’s config": PAGE} in appendices


def test_the_inspectors_parts_are_loaded_in_order_before_it():
    parts = mkdocs_config()["extra"]["widget_script_parts"]["inspector"]
    assert parts == ["inspector-rope", "inspector-layers", "inspector-reading", "inspector-report"]
    for stem in (*parts, "inspector"):
        assert (SCRIPTS / f"{stem}.js").stat().st_size < 40_000


# --- the cases --------------------------------------------------------------------------

LLAMA31 = {**LLAMA31_V4, "model_type": "llama", "num_hidden_layers": 4}


def _with(base: dict, **changes) -> dict:
    out = dict(base)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def _rope(scaling: dict, **top) -> dict:
    return _with(LLAMA31, rope_scaling=scaling, **top)


#: (name, config, seq_len): each shape of config and every rope_type with its parameters.
#: Tiny configs of families first read from the sweep of transformers 5.23.
_SWEPT = (
    "flint",
    "kolibri1",
    "muse_glimmer_text",
    "muse_glimmer_text_class_nope",
    "glm4_moe_lite",
    "mistral4",
    "mistral4_class_rope",
    "modernvbert",
    "ultravbert",
    "lfm2",
    "lfm3",
    "minimax",
    "granite_swa",
    "mistral_large4_text",
    "modernbert",
    "neomme",
)
_KOLIBRI_FULL = {
    "model_type": "kolibri1",
    "head_dim": 64,
    "num_hidden_layers": 3,
    "sliding_window": None,
    "layer_types": ["full_attention"] * 3,
}
#: A config with a share of the head to rotate (hf_families._partial_share).
_SHARED = {"head_dim": 64, "num_hidden_layers": 2, "rope_theta": 1e4, "partial_rotary_factor": 0.5}
EDGE_CASES = [
    ("v5 rope_parameters", {**LLAMA31_V5, "model_type": "llama", "num_hidden_layers": 4}, None),
    (
        "v5 per layer type, p-RoPE on global layers with their own head_dim",
        {
            **GEMMA4_LIKE,
            "model_type": "gemma4_text",
            "num_hidden_layers": 6,
            "sliding_window": 1024,
            "rope_parameters": {
                **GEMMA4_LIKE["rope_parameters"],
                "full_attention": {
                    **GEMMA4_LIKE["rope_parameters"]["full_attention"],
                    "factor": 2.0,
                },
            },
        },
        None,
    ),
    ("linear", _rope({"rope_type": "linear", "factor": 4.0}), None),
    ("legacy 'type'", _rope({"type": "linear", "factor": 2}), None),
    *(
        ("dynamic", _rope({"rope_type": "dynamic", "factor": 2.0}), seq)
        for seq in (None, 131072, 500000)
    ),
    (
        "yarn with mscale and mscale_all_dim (DeepSeek)",
        {
            "model_type": "deepseek_v3",
            "num_hidden_layers": 3,
            "hidden_size": 7168,
            "num_attention_heads": 128,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "kv_lora_rank": 512,
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "type": "yarn",
                "factor": 40,
                "beta_fast": 32,
                "beta_slow": 1,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096,
            },
        },
        None,
    ),
    (
        "yarn, untruncated, no factor (derived), equal betas",
        _rope(
            {
                "rope_type": "yarn",
                "factor": None,
                "beta_fast": 4.0,
                "beta_slow": 4.0,
                "truncate": False,
                "original_max_position_embeddings": 32768,
            }
        ),
        None,
    ),
    (
        "yarn with its attention factor",
        _rope({"rope_type": "yarn", "factor": 4, "attention_factor": 1.3}),
        None,
    ),
    (
        "llama3 with equal low and high factors (a step)",
        _rope({**LLAMA31["rope_scaling"], "high_freq_factor": 1.0}),
        None,
    ),
    *(
        (
            "longrope (Phi-3: top-level original length, factor derived)",
            {
                "model_type": "phi3",
                "hidden_size": 3072,
                "num_attention_heads": 32,
                "num_hidden_layers": 2,
                "partial_rotary_factor": 0.75,
                "max_position_embeddings": 131072,
                "original_max_position_embeddings": 4096,
                "rope_theta": 10000.0,
                "rope_scaling": {
                    "type": "longrope",
                    "short_factor": [1.0 + k / 10 for k in range(36)],
                    "long_factor": [2.0 + k for k in range(36)],
                },
            },
            seq,
        )
        for seq in (None, 4096, 4097, 200000)
    ),
    (
        "longrope with its attention factor and no factor",
        _rope(
            {
                "rope_type": "longrope",
                "short_factor": [1.0] * 64,
                "long_factor": [4.0] * 64,
                "attention_factor": 1.2,
                "original_max_position_embeddings": 8192,
            }
        ),
        None,
    ),
    (
        "partial rotary, GPT-NeoX names",
        {
            "model_type": "gpt_neox",
            "hidden_size": 6144,
            "num_attention_heads": 64,
            "num_hidden_layers": 3,
            "rotary_pct": 0.25,
            "rotary_emb_base": 10000,
            "max_position_embeddings": 2048,
        },
        None,
    ),
    (
        "GPT-J's legacy names and rotary_dim, no RoPE key",
        {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 2, "rotary_dim": 64},
        None,
    ),
    (
        "MiniMax-M2's rotary_dim and default theta",
        {"model_type": "minimax_m2", "head_dim": 128, "rotary_dim": 64, "num_hidden_layers": 2},
        None,
    ),
    (
        "an unknown model_type without num_hidden_layers: its pairing is assumed",
        {"model_type": "brand_new", "head_dim": 64, "rope_theta": 1e4},
        None,
    ),
    (
        "sliding window on every layer (Mistral)",
        {
            "model_type": "mistral",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_hidden_layers": 4,
            "sliding_window": 4096,
            "max_position_embeddings": 32768,
            "rope_theta": 10000.0,
        },
        None,
    ),
    (
        "a window switched off (Qwen2)",
        {
            "model_type": "qwen2",
            "hidden_size": 1024,
            "num_attention_heads": 16,
            "num_hidden_layers": 2,
            "sliding_window": 4096,
            "use_sliding_window": False,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
        },
        None,
    ),
    (
        "Gemma 3's v4 shape: a pattern, a local base, scaling on global layers",
        {
            "model_type": "gemma3_text",
            "head_dim": 256,
            "num_hidden_layers": 8,
            "sliding_window": 512,
            "sliding_window_pattern": 4,
            "rope_local_base_freq": 10000.0,
            "rope_theta": 1000000.0,
            "max_position_embeddings": 131072,
            "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        },
        None,
    ),
    (
        "Cohere2: only sliding layers rotate",
        {
            "model_type": "cohere2",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_hidden_layers": 8,
            "sliding_window": 4096,
            "rope_theta": 50000.0,
            "max_position_embeddings": 8192,
        },
        None,
    ),
    (
        "linear attention in layer_types (Qwen3-Next)",
        {
            "model_type": "qwen3_next",
            "head_dim": 256,
            "num_hidden_layers": 6,
            "rope_theta": 10000000,
            "layer_types": ["linear_attention", "full_attention"] * 3,
        },
        None,
    ),
    *(
        (
            f"Granite 4.0-H, position_embedding_type {kind}",
            {
                "model_type": "granitemoehybrid",
                "hidden_size": 1536,
                "num_attention_heads": 12,
                "num_hidden_layers": 4,
                "layer_types": ["mamba", "attention", "mamba", "attention"],
                "position_embedding_type": kind,
                "rope_theta": 10000.0,
            },
            None,
        )
        for kind in ("rope", "nope")
    ),
    (
        "Kimi Linear's 1-based layer lists",
        {
            "model_type": "kimi_linear",
            "head_dim": 128,
            "num_hidden_layers": 4,
            "rope_theta": 10000.0,
            "mla_use_nope": True,
            "linear_attn_config": {"full_attn_layers": [4], "kda_layers": [1, 2, 3]},
        },
        None,
    ),
    (
        "Falcon-H1: attention and Mamba-2 in every layer",
        {"model_type": "falcon_h1", "head_dim": 64, "num_hidden_layers": 3, "rope_theta": 1e11},
        None,
    ),
    (
        "Llama 4: no_rope_layers, chunks and the temperature",
        {
            "model_type": "llama4_text",
            "head_dim": 128,
            "num_hidden_layers": 8,
            "rope_theta": 500000.0,
            "attn_temperature_tuning": 4,
            "no_rope_layers": [1, 1, 0, 1, 1, 1, 0, 1],
            "max_position_embeddings": 10485760,
        },
        None,
    ),
    (
        "SmolLM3: a NoPE layer every no_rope_layer_interval layers",
        {
            "model_type": "smollm3",
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "num_hidden_layers": 9,
            "no_rope_layer_interval": 3,
        },
        None,
    ),
    (
        "Hunyuan's NTK-alpha",
        {
            "model_type": "hunyuan_v1_dense",
            "head_dim": 128,
            "num_hidden_layers": 2,
            "rope_theta": 10000.0,
            "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0, "beta_fast": 32},
        },
        None,
    ),
    (
        "Hunyuan's dynamic without alpha: the NTK-alpha keys unread",
        {
            "model_type": "hunyuan_v1_moe",
            "head_dim": 128,
            "num_hidden_layers": 2,
            "max_position_embeddings": 32768,
            "rope_scaling": {"type": "dynamic", "alpha": 0, "factor": 2.0, "mscale": 1.0},
        },
        70000,
    ),
    (
        "OLMo 3: a flat rope_scaling for full layers only",
        {
            "model_type": "olmo3",
            "hidden_size": 5120,
            "num_attention_heads": 40,
            "num_hidden_layers": 8,
            "sliding_window": 4096,
            "max_position_embeddings": 65536,
            "rope_scaling": {
                "rope_type": "yarn",
                "factor": 8.0,
                "original_max_position_embeddings": 8192,
            },
        },
        None,
    ),
    (
        "DeepSeek-V4: main and compress",
        {
            "model_type": "deepseek_v4",
            "head_dim": 512,
            "qk_rope_head_dim": 64,
            "num_hidden_layers": 4,
            "compress_ratios": [0, 4, 128, 4],
            "sliding_window": 128,
            "max_position_embeddings": 1048576,
            "rope_scaling": {
                "type": "yarn",
                "factor": 16,
                "original_max_position_embeddings": 65536,
            },
        },
        None,
    ),
    (
        "DeepSeek-V4 as its class writes it: main and compress, layer_types and the rope head",
        {
            "model_type": "deepseek_v4",
            "head_dim": 512,
            "qk_rope_head_dim": 64,
            "num_hidden_layers": 3,
            "layer_types": [
                "heavily_compressed_attention",
                "compressed_sparse_attention",
                "heavily_compressed_attention",
            ],
            "rope_parameters": {
                "main": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.5},
                "compress": {"rope_type": "default", "rope_theta": 1.6e5},
            },
        },
        None,
    ),
    (
        "LongCat-Flash: num_layers",
        {
            "model_type": "longcat_flash",
            "num_layers": 3,
            "qk_rope_head_dim": 64,
            "kv_lora_rank": 512,
        },
        None,
    ),
    (
        "LongCat-Flash: an odd num_hidden_layers",
        {
            "model_type": "longcat_flash",
            "num_hidden_layers": 7,
            "qk_rope_head_dim": 64,
            "kv_lora_rank": 512,
        },
        None,
    ),
    (
        "LongCat-Flash: no layer count",
        {"model_type": "longcat_flash", "qk_rope_head_dim": 64, "kv_lora_rank": 512},
        None,
    ),
    (
        "GLM-MoE-DSA",
        {
            "model_type": "glm_moe_dsa",
            "num_hidden_layers": 3,
            "head_dim": 64,
            "qk_rope_head_dim": 64,
            "kv_lora_rank": 512,
            "rope_theta": 1e6,
        },
        None,
    ),
    (
        "Zamba2: the class's layers",
        {"model_type": "zamba2", "hidden_size": 2048, "num_attention_heads": 32},
        None,
    ),
    (
        "Zamba2: its layers, rotating, long context",
        {
            "model_type": "zamba2",
            "hidden_size": 2048,
            "num_attention_heads": 32,
            "num_hidden_layers": 4,
            "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
            "use_mem_rope": True,
            "use_long_context": True,
        },
        None,
    ),
    (
        "gpt-oss without a RoPE dict",
        {"model_type": "gpt_oss", "head_dim": 64, "num_hidden_layers": 4, "sliding_window": 128},
        None,
    ),
    ("Apertus without a RoPE dict", {"model_type": "apertus", "head_dim": 128}, None),
    (
        "Ministral 3: llama_4_scaling_beta",
        {
            "model_type": "ministral3",
            "head_dim": 128,
            "num_hidden_layers": 3,
            "max_position_embeddings": 262144,
            "rope_parameters": {
                "rope_type": "yarn",
                "rope_theta": 1000000.0,
                "factor": 16.0,
                "original_max_position_embeddings": 16384,
                "llama_4_scaling_beta": 0.1,
            },
        },
        None,
    ),
    (
        "no head_dim, an unknown family, a factor against the lengths, beyond the context",
        {
            "model_type": "mystery",
            "hidden_size": 2560,
            "num_attention_heads": 20,
            "num_hidden_layers": 2,
            "max_position_embeddings": 65536,
            "rope_theta": 10000.0,
            "rope_scaling": {
                "rope_type": "yarn",
                "factor": 4.0,
                "original_max_position_embeddings": 8192,
            },
        },
        100000,
    ),
    ("no num_hidden_layers", _with(LLAMA31, num_hidden_layers=None), None),
    (
        "multimodal: the text_config",
        {
            "model_type": "qwen2_5_vl",
            "text_config": {
                "model_type": "qwen2_5_vl_text",
                "hidden_size": 3584,
                "num_attention_heads": 28,
                "num_hidden_layers": 3,
                "max_position_embeddings": 128000,
                "rope_theta": 1000000.0,
                "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
            },
        },
        None,
    ),
    (
        "multimodal with RoPE at the top",
        {**LLAMA31, "text_config": {"model_type": "llama", "rope_theta": 10.0}},
        None,
    ),
    (
        "Dual Chunk Attention and FoPE (not modelled)",
        _with(LLAMA31, dual_chunk_attention_config={"chunk_size": 8192}, use_fope=True),
        None,
    ),
    (
        "Falcon with ALiBi",
        {"model_type": "falcon", "alibi": True, "n_head": 71, "n_layer": 2},
        None,
    ),
    (
        "MPT's alibi_bias_max",
        {
            "model_type": "mpt",
            "n_heads": 12,
            "n_layers": 2,
            "max_seq_len": 2048,
            "learned_pos_emb": True,
            "attn_config": {"alibi_bias_max": 16},
        },
        None,
    ),
    (
        "RoBERTa's padding rows",
        {
            "model_type": "roberta",
            "max_position_embeddings": 514,
            "num_hidden_layers": 2,
            "num_attention_heads": 12,
        },
        None,
    ),
    (
        "GPT-2's first file: no model_type",
        {"architectures": ["GPT2LMHeadModel"], "n_positions": 1024, "n_layer": 2, "n_head": 12},
        None,
    ),
    ("T5", {"model_type": "t5", "num_layers": 2, "num_decoder_layers": 3, "num_heads": 8}, None),
    *[
        (
            f"T5 with {buckets} buckets, max_distance {distance}",
            {
                "model_type": "t5",
                "num_layers": 1,
                "num_heads": 4,
                "relative_attention_num_buckets": buckets,
                "relative_attention_max_distance": distance,
            },
            None,
        )
        for buckets, distance in [
            (4, 3),
            (8, 5),
            (32, 128),
            (33, 1000),
            (64, 777),
            (320, 4096),
        ]
    ],
    *[
        (
            f"Dual Chunk Attention, chunk {chunk}, local {local}, context {context}",
            _with(
                LLAMA31,
                max_position_embeddings=context,
                dual_chunk_attention_config={"chunk_size": chunk, "local_size": local},
            ),
            None,
        )
        for chunk, local, context in [
            (10, 4, 5),
            (10, 4, 6),
            (10, 4, 7),
            (10, 4, 12),
            (10, 4, 13),
            (10, 0, 1000),
            (10, 6, 9),
            (10, 6, 20),
            (262144, 8192, 1010000),
        ]
    ],
    (
        "Dual Chunk Attention with its defaults and sparse attention",
        _with(
            LLAMA31,
            dual_chunk_attention_config={
                "sparse_attention_config": [{}],
                "original_max_position_embeddings": 0,
            },
        ),
        None,
    ),
    (
        "Dual Chunk Attention with no context",
        # no model_type: no configuration class fills in a length
        _with(
            LLAMA31,
            model_type=None,
            max_position_embeddings=None,
            dual_chunk_attention_config={"x": 1},
        ),
        None,
    ),
    (
        "a base and a length from the class",
        {"model_type": "llama", "head_dim": 64, "num_hidden_layers": 2},
        None,
    ),
    (
        "a Mixtral base from the class",
        {"model_type": "mixtral", "head_dim": 128, "num_hidden_layers": 2},
        4096,
    ),
    (
        "one RoPE, two windows",
        {
            "model_type": "gpt_oss",
            "head_dim": 64,
            "num_hidden_layers": 4,
            "max_position_embeddings": 131072,
            "sliding_window": 128,
            "layer_types": ["sliding_attention", "full_attention"] * 2,
            "rope_theta": 150000.0,
        },
        None,
    ),
    # the registry's class defaults and layouts, as the page applies them: AFMoE's
    # every-4th global layer (NoPE), EXAONE-MoE's window and pattern from its class
    ("AFMoE, layers from global_attn_every_n_layers", BASES["tiny afmoe"], None),
    ("EXAONE-MoE, window and pattern from its class", BASES["tiny exaone_moe"], None),
    ("an unread family with layers", {**LLAMA31, "model_type": "a_family_not_read"}, None),
    # Nemotron-H: NoPE attention, Mamba-2, and MLP and MoE layers that mix no tokens
    ("Nemotron-H, layers from its pattern", BASES["tiny nemotron_h"], None),
    ("Bamba, attention at attn_layer_indices", BASES["tiny bamba"], None),
    ("Jamba, NoPE attention by attn_layer_period", BASES["tiny jamba"], None),
    ("MiMo-V2-Flash, the class's RoPE per layer type", BASES["tiny mimo_v2_flash"], None),
    (
        "Nemotron-H without RoPE keys or pattern: the class's 4 layers",
        {"model_type": "nemotron_h", "head_dim": 64, "num_hidden_layers": 52},
        None,
    ),
    # the families read from transformers 5.23's sweep: their layouts, class rules and windows
    *((f"{name}, from the registry", BASES[f"tiny {name}"], None) for name in _SWEPT),
    (
        "MiniMax's window on its full-attention layers",
        {**BASES["tiny minimax"], "sliding_window": 64},
        None,
    ),
    ("Kolibri without a window: every layer rotates", _KOLIBRI_FULL, None),
    (
        "ModernBERT's legacy bases and local_attention",
        {
            "model_type": "modernbert",
            "hidden_size": 768,
            "num_attention_heads": 12,
            "num_hidden_layers": 7,
            "global_rope_theta": 160000.0,
            "local_rope_theta": 10000.0,
            "local_attention": 128,
            "max_position_embeddings": 8192,
        },
        None,
    ),
    (
        "Mistral 4 without a RoPE dict: its class's YaRN on qk_rope_head_dim",
        {"model_type": "mistral4", "qk_rope_head_dim": 64, "num_hidden_layers": 2},
        None,
    ),
    (
        "OLMoE ignores sliding_window",
        {"model_type": "olmoe", "head_dim": 64, "num_hidden_layers": 2, "sliding_window": 8},
        None,
    ),
    (
        "EmbeddingGemma 2 without per_layer_config: global heads of 512",
        {"model_type": "embedding_gemma2_text", "head_dim": 256, "num_hidden_layers": 6},
        None,
    ),
    (
        "Granite SWA, one layer_rope_theta base",
        {**BASES["tiny granite_swa"], "layer_rope_theta": [5e5, 5e5, 0, 5e5, 5e5, 5e5]},
        None,
    ),
    (
        "Persimmon's share from its class",
        {"model_type": "persimmon", "head_dim": 64, "num_hidden_layers": 2, "rope_theta": 25000.0},
        None,
    ),
    ("Llama's default RoPE reads no share", {**_SHARED, "model_type": "llama"}, None),
    (
        "OLMo Hybrid, a null base: NoPE",
        {"model_type": "olmo_hybrid", "head_dim": 64, "num_hidden_layers": 8, "rope_theta": None},
        None,
    ),
    (
        "OLMo Hybrid, its last layer full",
        {"model_type": "olmo_hybrid", "head_dim": 64, "num_hidden_layers": 3},
        None,
    ),
    ("CWM from its class", {"model_type": "cwm", "head_dim": 64, "num_hidden_layers": 8}, None),
    (
        "Higgs Audio v2 from its class",
        {"model_type": "higgs_audio_v2", "head_dim": 64, "num_hidden_layers": 2},
        None,
    ),
    (
        "ModernBERT's decoder, its window from local_attention",
        {
            "model_type": "modernbert-decoder",
            "head_dim": 64,
            "num_hidden_layers": 6,
            "local_attention": 256,
            "global_rope_theta": 80000.0,
        },
        None,
    ),
    (
        "Nemotron's share from its class",
        {"model_type": "nemotron", "head_dim": 64, "num_hidden_layers": 2, "rope_theta": 1e4},
        None,
    ),
    (
        "Nomic BERT, an encoder",
        {"model_type": "nomic_bert", "head_dim": 64, "num_hidden_layers": 2},
        None,
    ),
    ("a family not read keeps its share", {**_SHARED, "model_type": "mystery"}, None),
    (
        "GPT-J reads rotary_dim, not the share",
        {**_SHARED, "model_type": "gptj", "rotary_dim": 16},
        None,
    ),
    (
        "a share per layer type: the default RoPE reads none, 'proportional' reads it",
        {**_SHARED, **PER_TYPE},
        None,
    ),
]

#: (name, config or JSON text, seq_len): inputs the library refuses.
_BAMBA = {"model_type": "bamba", "head_dim": 64, "rope_theta": 1e4, "num_hidden_layers": 4}
BAD_INPUTS = [
    (
        "Zamba2: a layer count that is not its list's",
        {"model_type": "zamba2", "num_hidden_layers": 3, "layers_block_type": ["mamba", "hybrid"]},
        None,
    ),
    (
        "DeepSeek-V4: a compress share wider than the indexer's heads",
        {
            "model_type": "deepseek_v4",
            "head_dim": 512,
            "num_hidden_layers": 2,
            "compress_ratios": [0, 4],
            "rope_parameters": {
                "main": {"rope_type": "default", "rope_theta": 1e4},
                "compress": {
                    "rope_type": "default",
                    "rope_theta": 1.6e5,
                    "partial_rotary_factor": 0.5,
                },
            },
        },
        None,
    ),
    (
        "a scaled table narrower than Llama's rotated head",
        {
            **_SHARED,
            "model_type": "llama",
            "rope_parameters": {"rope_type": "linear", "factor": 2.0},
        },
        None,
    ),
    ("Mellum's share, which its attention cannot run", {**_SHARED, "model_type": "mellum"}, None),
    ("Bamba's attention layers as a string", {**_BAMBA, "attn_layer_indices": "2"}, None),
    ("Bamba's attention layer -1", {**_BAMBA, "attn_layer_indices": [-1]}, None),
    (
        "a Nemotron-H pattern letter",
        {"model_type": "nemotron_h", "hybrid_override_pattern": "M*X"},
        None,
    ),
    (
        "a Nemotron-H pattern as a list",
        {"model_type": "nemotron_h", "hybrid_override_pattern": ["M"]},
        None,
    ),
    (
        "an empty Nemotron-H pattern",
        {"model_type": "nemotron_h", "hybrid_override_pattern": ""},
        None,
    ),
    (
        "Granite SWA, two bases in one layer type",
        {**BASES["tiny granite_swa"], "layer_rope_theta": [1e6, 1e4, 2e4, 0, 1e4, 1e4]},
        None,
    ),
    (
        "UltraBERT's legacy list of bases",
        {"model_type": "ultrabert", "head_dim": 64, "num_hidden_layers": 3, "rope_theta": [1e4]},
        None,
    ),
    (
        "Mistral 4, a share that is not MLA's",
        {
            "model_type": "mistral4",
            "num_hidden_layers": 2,
            "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "partial_rotary_factor": 0.25},
        },
        None,
    ),
    ("an unknown rope_type", _rope({"rope_type": "foo", "factor": 2.0}), None),
    ("a negative theta", _with(LLAMA31, rope_scaling=None, rope_theta=-1), None),
    ("theta 1", _with(LLAMA31, rope_scaling=None, rope_theta=1), None),
    ("an odd head", _with(LLAMA31, hidden_size=100, num_attention_heads=4), None),
    ("a partial factor of 0", _with(LLAMA31, partial_rotary_factor=0), None),
    ("a partial factor above 1", _with(LLAMA31, partial_rotary_factor=1.5), None),
    ("no layer", _with(LLAMA31, num_hidden_layers=0), None),
    (
        "a layer count written as a float",
        '{"rope_theta": 10000, "head_dim": 64, "num_hidden_layers": 4.0}',
        None,
    ),
    ("a context as a string", _with(LLAMA31, max_position_embeddings="131072"), None),
    ("an unknown layer type", _with(LLAMA31, layer_types=["foo_attention"] * 4), None),
    ("too few layer types", _with(LLAMA31, layer_types=["full_attention"] * 3), None),
    ("a no_rope_layers flag of 2", _with(LLAMA31, no_rope_layers=[1, 2, 1, 1]), None),
    (
        "LongRoPE factors of the wrong length",
        _rope(
            {"rope_type": "longrope", "short_factor": [1.0], "long_factor": [1.0], "factor": 4.0}
        ),
        None,
    ),
    (
        "YaRN with no length",  # and no model_type, whose class would give one
        _with(
            _rope({"rope_type": "yarn", "factor": 4.0}),
            max_position_embeddings=None,
            model_type=None,
        ),
        None,
    ),
    (
        "Llama 3 with high below low",
        _rope({**LLAMA31["rope_scaling"], "high_freq_factor": 0.5}),
        None,
    ),
    ("an unknown key", _rope({"rope_type": "linear", "factor": 2.0, "alpha": 1}), None),
    ("a factor below 1", _rope({"rope_type": "linear", "factor": 0.5}), None),
    ("rope_scaling a list", _with(LLAMA31, rope_scaling=[1, 2]), None),
    ("no RoPE at all", {"head_dim": 64, "num_hidden_layers": 2}, None),
    (
        "dynamic with no length",
        _with(
            _rope({"rope_type": "dynamic", "factor": 2.0}),
            max_position_embeddings=None,
            model_type=None,
        ),
        None,
    ),
    ("seq_len 0", LLAMA31, 0),
    (
        "a learned table with no rows",
        {"model_type": "gpt2", "n_positions": 0, "n_layer": 2, "n_head": 2},
        None,
    ),
    (
        "T5 with max_distance inside the exact buckets",
        {"model_type": "t5", "num_layers": 2, "num_heads": 8, "relative_attention_max_distance": 4},
        None,
    ),
    *[
        (
            f"Dual Chunk Attention with {what}",
            _with(LLAMA31, dual_chunk_attention_config=dca),
            None,
        )
        for what, dca in [
            ("an unknown key", {"chunk_size": 8, "window": 2}),
            ("local_size = chunk_size", {"chunk_size": 8, "local_size": 8}),
            ("a chunk_size written as a float", {"chunk_size": 8.0, "local_size": 2}),
            ("sparse patterns not a list", {"sparse_attention_config": {"a": 1}}),
            ("sparse attention enabled as a string", {"sparse_attention_enabled": "yes"}),
            ("a negative threshold", {"sparse_attention_threshold": -1}),
            ("no last queries", {"sparse_attention_last_q": 0}),
            ("a list for a config", [1]),
        ]
    ],
    (
        "a truncate flag as a string",
        _rope({"rope_type": "yarn", "factor": 2.0, "truncate": "no"}),
        None,
    ),
    # every size a config states is bounded, with a message naming the key
    ("10**7 layers", _with(LLAMA31, num_hidden_layers=10**7), None),
    ("10**9 layers", _with(LLAMA31, num_hidden_layers=10**9), None),
    ("a head of 10**8 dims", _with(LLAMA31, head_dim=10**8), None),
    ("a width of 2**63", _with(LLAMA31, hidden_size=2**63), None),
    ("2**31 heads", _with(LLAMA31, num_attention_heads=2**31), None),
    ("a window of 10**300", _with(LLAMA31, sliding_window=10**300), None),
    ("a context of 2**63", _with(LLAMA31, max_position_embeddings=2**63), None),
    ("seq_len 2**51", LLAMA31, 2**51),
    ("a model_type that is a list", _with(LLAMA31, model_type=[1, 2]), None),
    (
        "a window that is NaN",
        '{"rope_theta": 1e4, "head_dim": 64, "num_hidden_layers": 2, "sliding_window": NaN}',
        None,
    ),
    ("a theta of -Infinity", '{"rope_theta": -Infinity, "head_dim": 64}', None),
    (
        "a float 1e16 for layers",
        '{"rope_theta": 1e4, "head_dim": 64, "num_hidden_layers": 1e16}',
        None,
    ),
]


def _text(config) -> str:
    return config if isinstance(config, str) else json.dumps(config)


def library(config, seq_len):
    """The library's report as JSON (what ``inspect --json`` prints), or its error."""
    try:
        report = inspect_config(json.loads(_text(config)), seq_len=seq_len)
    except (TypeError, ValueError) as exc:
        return {"error": type(exc).__name__, "message": str(exc)}
    return {"ok": json.loads(json.dumps(report, allow_nan=False))}


_CALL = """([cases]) => cases.map(([text, seq]) => {
  try {
    return { ok: window.peInspector.inspect(window.peInspector.parse(text), seq) };
  } catch (error) {
    return { error: error.name, message: error.message };
  }
})"""


def differences(js, py, path="report") -> list[str]:
    """Where two reports differ: floats beyond 1e-9 relative, anything else not equal."""
    if isinstance(py, dict):
        if not isinstance(js, dict):
            return [f"{path}: {js!r} is not a dict"]
        out = [f"{path}: keys differ: {sorted(set(js) ^ set(py))}"] if set(js) != set(py) else []
        return out + [d for k in py if k in js for d in differences(js[k], py[k], f"{path}.{k}")]
    if isinstance(py, list):
        if not isinstance(js, list) or len(js) != len(py):
            return [f"{path}: {str(js)[:80]} is not a list of {len(py)}"]
        return [
            d
            for i, (a, b) in enumerate(zip(js, py, strict=True))
            for d in differences(a, b, f"{path}[{i}]")
        ]
    if isinstance(py, float) and not isinstance(js, bool) and isinstance(js, (int, float)):
        if abs(js - py) <= REL * abs(py):
            return []
        return [f"{path}: JavaScript {js!r}, library {py!r}"]
    if isinstance(py, int) and not isinstance(py, bool) and isinstance(js, float):
        js = int(js) if js.is_integer() else js  # JSON has one kind of number
    if js != py or isinstance(js, bool) != isinstance(py, bool):
        return [f"{path}: JavaScript {js!r}, library {py!r}"]
    return []


def compare(page, cases) -> list[str]:
    """Every difference between the page's reports and the library's over ``cases``
    ((name, config, seq_len)), errors included."""
    results = page.evaluate(_CALL, [[[_text(c), seq] for _, c, seq in cases]])
    out = []
    for (name, config, seq), js in zip(cases, results, strict=True):
        py = library(config, seq)
        where = f"{name} (seq_len {seq})"
        if "error" in py or "error" in js:
            if js != py:
                out.append(f"{where}: JavaScript {js}, library {py}")
            continue
        out += [f"{where}: {d}" for d in differences(js["ok"], py["ok"])]
    return out


#: Malformed configs: the ones that once escaped the library's checks, and seeded
#: mutations of every gallery and test config (tests/config_mutations.py).
MUTATIONS = [
    (f"{base} {path} = {value!r:.30}", apply(BASES[base], path, value), None)
    for base, path, value, _ in REGRESSIONS
] + [(name, config, None) for name, config in random_cases(49, 400)]


def gallery_cases():
    return [(m.stem, m.config, seq) for m in load_models() for seq in (None, 1, 200000)]


def _inspector(context):
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda m: m.type in ("error", "warning") and errors.append(m.text))
    return page, errors


@pytest.fixture(scope="module")
def shipped(browser, server):
    """The inspector's page as the built site serves it."""
    context = browser.new_context()
    page, errors = _inspector(context)
    page.goto(server + URL, wait_until="load")
    page.wait_for_function("() => window.peInspector && window.peInspector.inspect")
    yield page
    context.close()
    assert not errors, errors


@pytest.mark.browser
@needs_browser
def test_the_page_reads_with_the_library_s_registry_and_rules(shipped):
    """One registry of families: the page's reading takes the library's (the widget's data)
    and has a rule for each rule the registry names; :func:`compare` shows they agree."""
    from pe_explained.families import FAMILIES, ROTATION_RULES

    rules = shipped.evaluate("() => Object.keys(window.peInspector.ROTATION_RULES)")
    assert sorted(rules) == sorted(ROTATION_RULES)
    for name, family in FAMILIES.items():
        seen = shipped.evaluate("(t) => window.peInspector.family(t)", name)
        assert seen == json.loads(json.dumps(dataclasses.asdict(family))), name
    gemma3 = {"model_type": "gemma3_text", "head_dim": 64, "num_hidden_layers": 6}
    model = shipped.evaluate("(c) => window.peInspector.read(c)", gemma3)
    assert model["read_from"] == "config" and model["family"]["sliding_pattern"] == 6
    kinds = [layer["layer_type"] for layer in model["layers"]]
    assert kinds == ["sliding_attention"] * 5 + ["full_attention"]  # the class's pattern


# --- (a) the gallery, (b) edge cases, (c) bad input: the library's report ----------------


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize("kind", ["gallery", "edge cases", "bad inputs"])
def test_the_page_reports_as_inspect_json_and_refuses_what_the_library_refuses(shipped, kind):
    """(a) every gallery config, with seq_len none, 1 and 200,000; (b) the edge cases, all
    of which the library reads; (c) the bad inputs, all of which it refuses: the same
    report, or the same error with the same message."""
    cases = {"gallery": gallery_cases(), "edge cases": EDGE_CASES, "bad inputs": BAD_INPUTS}[kind]
    refused = [name for name, c, seq in cases if "error" in library(c, seq)]
    assert refused == ([name for name, _, _ in cases] if kind == "bad inputs" else [])
    assert not compare(shipped, cases)


@pytest.mark.browser
@needs_browser
def test_a_huge_max_distance_is_answered_by_bisection_to_float32_s_resolution(shipped):
    """T5's last bucket for a ``relative_attention_max_distance`` of 10**15 is found
    without bucketing every distance, in the page as in the library. There the bucket's
    logarithm is taken of a float32 near 10**14, whose spacing there is 2**24: the library's
    numpy float32 log and the page's double log rounded to float32 may round the ratio
    one step apart, so the two distances agree to float32's resolution, not exactly (up to
    4,096 they agree exactly, above)."""
    config = {
        "model_type": "t5",
        "num_layers": 1,
        "num_heads": 4,
        "relative_attention_max_distance": 10**15,
    }
    (js,) = shipped.evaluate(_CALL, [[[_text(config), None]]])
    py = library(config, None)["ok"]["positions"]["shared_bucket_from"]
    for stack in ("encoder", "decoder"):
        ours, theirs = js["ok"]["positions"]["shared_bucket_from"][stack], py[stack]
        assert abs(ours - theirs) <= theirs * 2.0**-22, (stack, ours, theirs)


_TIMED = """([texts]) => texts.map((text) => {
  const start = performance.now();
  try { window.peInspector.inspect(window.peInspector.parse(text), null); } catch (error) {}
  return performance.now() - start;
})"""


@pytest.mark.browser
@needs_browser
def test_the_page_and_the_library_agree_on_every_malformed_config_within_a_second(shipped):
    """The same outcome and message on every malformed config (a key deleted, a value
    replaced by null, a bool, -1, 2**31, 2**63, 10**300, NaN, inf, a string, a list or a
    dict, at any depth), each answered within a second."""
    assert not compare(shipped, MUTATIONS)
    times = shipped.evaluate(_TIMED, [[_text(c) for _, c, _ in MUTATIONS]])
    slow = [(name, round(ms)) for (name, _, _), ms in zip(MUTATIONS, times, strict=True)]
    assert not [x for x in slow if x[1] > 1000], sorted(slow, key=lambda x: -x[1])[:5]


# --- (d) the comparison fails on a wrong answer --------------------------------------------

#: (part, its text, one small fault): each must make the comparison fail.
FAULTS = [
    (
        "inspector-rope",
        "return ((1 - smooth) * w) / factor + smooth * w;",
        "return ((1 - smooth) * w) / factor + smooth * w * (1 + 1e-8);",
    ),
    ("inspector-rope", "[Math.floor(low), Math.ceil(high)]", "[Math.round(low), Math.round(high)]"),
    ("inspector-rope", 'if (type === "olmo3") olmo3(out, path, notes);', ""),
    (
        "inspector-layers",
        "range(count).map((i) => (i + 1) % interval !== 0)",
        "range(count).map((i) => i % interval !== 0)",
    ),
    # the registry's rule of Cohere2's global layers (NoPE), as the page applies it
    (
        "inspector-layers",
        'sliding: (cfg, kind) => kind === "sliding_attention",',
        "sliding: () => true,",
    ),
    # a layer of a family not read, printed R as if its rule were known
    ("inspector-layers", "rotate && unread);", "false);"),
    ("inspector-report", "Math.min(num(window), num(truthy", "Math.max(num(window), num(truthy"),
    ("inspector-reading", "Math.min(2 * len - 1, chunk)", "Math.min(2 * len, chunk)"),
    ("inspector-report", "exact + Math.trunc(scaled)", "exact + Math.round(scaled)"),
    (
        "inspector-report",
        "at every length, also to inputs shorter than",
        "at every length, even for inputs shorter than",
    ),
    # LFM2's conv layers read as attention; Mistral 4's head width not the class's
    (
        "inspector-layers",
        'const RECURRENT = set("linear_attention conv");',
        'const RECURRENT = set("linear_attention");',
    ),
    ("inspector-reading", 'if (type === "mistral4") mistral4(cfg, path, notes);', "if (false) {}"),
]


#: Faults in the checks of malformed values: the comparison over :data:`MUTATIONS` must fail.
MUTATION_FAULTS = [
    ("inspector-rope", 'layers: [10000, "a count', 'layers: [100000, "a count'),
    ("inspector-rope", "checkName(`${path}['model_type']`, get(out, \"model_type\"));", ""),
    ("inspector-rope", "if (isBig(v)) return v.text;", ""),
    ("inspector-rope", 'if (isNaN(v)) return "nan";', 'if (isNaN(v)) return "NaN";'),
    ("inspector-layers", "checkExtra(extra, where);", ""),
    ("inspector-layers", 'if (use !== null) checkBool(key(path, "use_sliding_window"), use);', ""),
]


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize(("part", "right", "wrong"), FAULTS + MUTATION_FAULTS)
def test_the_comparison_fails_on_a_faulty_script(browser, server, part, right, wrong):
    source = (SCRIPTS / f"{part}.js").read_text(encoding="utf-8")
    assert source.count(right) == 1, f"{part}.js no longer holds {right!r}"
    context = browser.new_context()
    body = source.replace(right, wrong)
    context.route(f"**/assets/javascripts/{part}.js", lambda route: route.fulfill(body=body))
    try:
        page, _ = _inspector(context)
        page.goto(server + URL, wait_until="load")
        page.wait_for_function("() => window.peInspector && window.peInspector.inspect")
        cases = MUTATIONS if (part, right, wrong) in MUTATION_FAULTS else []
        found = compare(page, gallery_cases() + EDGE_CASES + cases)
        assert found, f"the fault {wrong!r} in {part}.js went unnoticed"
    finally:
        context.close()


# --- (e) the page -------------------------------------------------------------------------

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1280, "height": 900}
WIDGET = ".pe-interactive[data-interactive='inspector']"

_SEEN = """(root) => {
  const header = document.querySelector(".md-header").getBoundingClientRect().bottom;
  const firstPlot = root.querySelector(".pe-i-layer-type .pe-i-plot svg");
  const error = root.querySelector(".pe-i-error");
  return {
    cells: root.querySelectorAll(".pe-i-strip rect.pe-i-cell").length,
    letters: [...root.querySelectorAll(".pe-i-strip svg text")].slice(0, -2)
      .map((t) => t.textContent).join(""),
    types: [...root.querySelectorAll(".pe-i-layer-type")].map((s) => s.getAttribute("aria-label")),
    plots: root.querySelectorAll(".pe-i-layer-type .pe-i-plot svg[role=img][aria-label]").length,
    error: error.hidden ? "" : error.textContent,
    warnings: root.querySelectorAll(".pe-i-warning").length,
    top: root.getBoundingClientRect().top - header,
    bottom: firstPlot
      ? firstPlot.getBoundingClientRect().bottom - root.getBoundingClientRect().top : 0,
    visible: innerHeight - header,
    overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  };
}"""


def _open(browser, server, viewport=WIDE, scheme="light"):
    context = browser.new_context(viewport=viewport, color_scheme=scheme)
    page, errors = _inspector(context)
    page.goto(server + URL, wait_until="load")
    page.wait_for_function(f'() => document.querySelector("{WIDGET}").dataset.ready')
    return context, page, page.locator(WIDGET), errors


def _report(page, config) -> dict:
    return page.evaluate("(c) => window.peInspector.inspect(c, null)", config)


@pytest.mark.browser
@needs_browser
def test_choosing_each_gallery_model_draws_its_strip_and_plots(browser, server):
    context, page, root, errors = _open(browser, server)
    try:
        select = root.locator("select").first
        for i, model in enumerate(load_models()):
            select.select_option(str(i))
            seen = root.evaluate(_SEEN)
            report = _report(page, model.config)
            strip = report["layer_strip"]["strip"]
            assert seen["error"] == "", (model.stem, seen["error"])
            assert seen["cells"] == len(strip) and seen["letters"] == strip, model.stem
            names = [f"layer type {t}" for t in report["layer_types"]]
            assert seen["types"] == names and seen["plots"] >= len(names), model.stem
            assert seen["warnings"] == len(report["warnings"]), model.stem
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_the_inputs_strip_and_first_plot_fit_and_nothing_scrolls_sideways(
    browser, server, scheme
):
    context, page, root, errors = _open(browser, server, PHONE, scheme)
    try:
        root.scroll_into_view_if_needed()
        page.evaluate(f'() => document.querySelector("{WIDGET}").scrollIntoView()')
        for i in range(len(load_models())):
            root.locator("select").first.select_option(str(i))
            seen = root.evaluate(_SEEN)
            assert seen["overflow"] <= 0, f"model {i}: the page scrolls {seen['overflow']} px"
        root.locator("select").first.select_option(
            str(
                [m.model for m in load_models()].index(
                    INTERACTIVES["inspector"].defaults()["start"]
                )
            )
        )
        seen = root.evaluate(_SEEN)
        assert 0 < seen["bottom"] <= seen["visible"], seen
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_inspector_passes_axe_and_answers_the_keyboard(browser, server, scheme):
    context, page, root, errors = _open(browser, server, WIDE, scheme)
    try:
        page.add_script_tag(path=str(axe_script()))
        violations = page.evaluate(
            """async (sel) => (await axe.run(document.querySelector(sel), {
              runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa",
                                              "wcag22aa", "best-practice"]},
              resultTypes: ["violations"]})).violations.map(v => `${v.id}: ${v.help}`)""",
            WIDGET,
        )
        assert not violations, violations
        page.keyboard.press("Shift")
        select = root.locator("select").first
        select.focus()
        ring = select.evaluate(
            "(s) => [s.matches(':focus-visible'), getComputedStyle(s).outlineWidth]"
        )
        assert ring[0] and float(ring[1].removesuffix("px")) >= 2, ring
        before = root.evaluate(_SEEN)
        page.keyboard.press("ArrowDown")
        after = root.evaluate(_SEEN)
        assert after["letters"] != before["letters"] or after["types"] != before["types"]
        reached = []
        while True:  # on through the widget: the sequence length, the fold of your own config
            page.keyboard.press("Tab")
            focused = page.evaluate(
                "() => { const el = document.activeElement; return [el.tagName, "
                "el.matches(':focus-visible'), getComputedStyle(el).outlineStyle, "
                "!!el.closest('.pe-interactive')]; }"
            )
            if not focused[3]:
                break
            assert focused[1] and focused[2] != "none", focused
            reached.append(focused[0])
        assert reached == ["INPUT", "SUMMARY"], reached
    finally:
        context.close()
    assert not errors, errors


#: Text typed into the box, and what the one sentence shown must say.
SHOWN = [
    ("{not json", "This is not JSON:"),
    ("[1, 2]", "this holds a list"),
    (json.dumps(_rope({"rope_type": "foo", "factor": 2.0})), "must be one of 'default'"),
    (
        json.dumps(_with(LLAMA31, rope_scaling=None, rope_theta=-1)),
        "config['rope_theta'] must be > 1, got -1",
    ),
    *(
        (
            json.dumps(_with(LLAMA31, **{key: value})),
            f"config['{key}'] must be <= {limit} (",
        )
        for key, value, limit in [
            ("num_hidden_layers", 10**7, 10_000),
            ("num_hidden_layers", 10**9, 10_000),
            ("head_dim", 10**8, 65_536),
        ]
    ),
]


@pytest.mark.browser
@needs_browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_bad_input_shows_one_sentence_and_no_console_error(browser, server, scheme):
    context, page, root, errors = _open(browser, server, PHONE, scheme)
    try:
        root.locator("summary").click()
        box = root.locator("textarea")
        for text, said in SHOWN:
            box.fill(text)
            started = time.perf_counter()
            root.get_by_role("button", name="Inspect this config").click()
            seen = root.evaluate(_SEEN)
            assert time.perf_counter() - started < 1.0, ("answered after a second", text[:80])
            assert said in seen["error"], (text, seen["error"])
            assert seen["error"].endswith(".") and "\n" not in seen["error"]
            assert seen["cells"] == 0 and seen["types"] == [], "a stale report under the error"
            assert root.locator(".pe-i-error").is_visible()
        # a good config after a bad one: the report again, the sentence gone
        box.fill(json.dumps({"model": "x", "hf_repo": "y", "config": LLAMA31}))
        root.get_by_role("button", name="Inspect this config").click()
        seen = root.evaluate(_SEEN)
        assert (
            seen["error"] == "" and seen["cells"] == 4 and seen["types"] == ["layer type default"]
        )
        # a file chosen from disk (FileReader), a gallery file as the CLI reads one
        model = load_models()[0]
        root.locator("input[type=file]").set_input_files(
            files=[
                {
                    "name": "config.json",
                    "mimeType": "application/json",
                    "buffer": json.dumps(model.config).encode(),
                }
            ]
        )
        page.wait_for_function(
            f'() => document.querySelector("{WIDGET} .pe-i-strip rect") !== null'
        )
        seen = root.evaluate(_SEEN)
        assert seen["letters"] == _report(page, model.config)["layer_strip"]["strip"]
        # seq_len: refused where the library refuses it, read where it reads it
        root.locator("input[type=number]").fill("0")
        root.locator("input[type=number]").dispatch_event("change")
        assert "seq_len must be >= 1, got 0" in root.evaluate(_SEEN)["error"]
    finally:
        context.close()
    assert not errors, errors


def test_the_cases_cover_every_rope_type_and_layer_source():
    """The edge cases reach every rope_type the library knows and every layer source."""
    from pe_explained.layer_positions import LAYER_SOURCES
    from pe_explained.rope import ROPE_TYPES

    types, sources = set(), set()
    for _, config, seq in EDGE_CASES:
        report = library(config, seq)["ok"]
        types |= {b["rope_type"] for b in report["layer_types"].values()}
        sources |= {p["source"] for p in report["layers"] or ()}
    assert types == set(ROPE_TYPES)
    assert sources == set(LAYER_SOURCES)
    assert math.isclose(REL, 1e-9)
