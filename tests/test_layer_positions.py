"""Where each layer gets its positions from (:mod:`pe_explained.layer_positions`), what
each family's configuration class does first (:mod:`pe_explained.hf_families`), and
what ``inspect`` says of both: analytic checks that need numpy only.

The comparison with transformers' own models is ``test_transformers_hybrids.py``.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

import pe_explained as pe
from pe_explained import model_reading
from pe_explained.cli import main
from pe_explained.families import FAMILIES
from pe_explained.hf_families import standardise
from pe_explained.model_report import inspect_config

ROOT = Path(__file__).resolve().parent.parent
QWEN3_NEXT = {
    "model_type": "qwen3_next",
    "num_hidden_layers": 8,
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "head_dim": 256,
    "partial_rotary_factor": 0.25,
    "rope_theta": 10000000,
    "max_position_embeddings": 262144,
}


def sources(config) -> str:
    """One character per layer: r rotary, n NoPE, ~ no attention."""
    return "".join(
        {"rotary": "r", "nope": "n", "recurrence": "~"}[p.source]
        for p in pe.layer_positions(config)
    )


def test_qwen3_next_rotates_every_fourth_layer_by_default():
    assert sources(QWEN3_NEXT) == "~~~r~~~r"
    assert sources({**QWEN3_NEXT, "full_attention_interval": 2}) == "~r~r~r~r"
    positions = pe.layer_positions(QWEN3_NEXT)
    assert {p.mixer for p in positions if p.source == "recurrence"} == {"Gated DeltaNet"}
    (settings,) = pe.rope_settings(QWEN3_NEXT).values()
    assert settings.rotary_dim == 64  # 0.25 of 256
    assert pe.layer_rope_types(QWEN3_NEXT) == [None, None, None, "default"] * 2


def test_qwen3_next_rotates_a_quarter_when_the_file_says_nothing():
    bare = {k: v for k, v in QWEN3_NEXT.items() if k != "partial_rotary_factor"}
    (settings,) = pe.rope_settings(bare).values()
    assert settings.partial_rotary_factor == 0.25 and settings.rotary_dim == 64


@pytest.mark.parametrize(
    "embedding,expected", [("nope", "~n~n"), ("rope", "~r~r"), (None, "~n~n"), ("RoPE", "~n~n")]
)
def test_granite_hybrid_rotates_only_with_rope(embedding, expected):
    config = {
        "model_type": "granitemoehybrid",
        "num_hidden_layers": 4,
        "hidden_size": 64,
        "num_attention_heads": 4,
        "rope_theta": 10000,
        "layer_types": ["mamba", "attention", "mamba", "attention"],
        "position_embedding_type": embedding,
    }
    assert sources(config) == expected
    alias = {k: v for k, v in config.items() if k != "layer_types"}
    alias["layers_block_type"] = config["layer_types"]
    assert sources(alias) == expected
    assert {p.mixer for p in pe.layer_positions(config) if p.source == "recurrence"} == {"Mamba-2"}


def test_kimi_linear_never_rotates_and_numbers_its_layers_from_one():
    config = {
        "model_type": "kimi_linear",
        "num_hidden_layers": 5,
        "qk_rope_head_dim": 64,
        "kv_lora_rank": 512,
        "mla_use_nope": False,  # unread: KimiLinearAttention has no rotary code
        "linear_attn_config": {"full_attn_layers": [2, 5], "kda_layers": [1, 3, 4]},
    }
    assert sources(config) == "~n~~n"
    assert {p.mixer for p in pe.layer_positions(config)} == {"MLA", "Kimi Delta Attention"}
    default = {k: v for k, v in config.items() if k != "linear_attn_config"}
    assert sources(default) == "~~~~n"  # layer 4 (from 0) is the first attention layer


@pytest.mark.parametrize(
    "linear,message",
    [
        ({"full_attn_layers": [6], "kda_layers": [1, 2, 3, 4, 5]}, "beyond num_hidden_layers"),
        ({"full_attn_layers": [5], "kda_layers": [1, 2, 3]}, "assigns no kind to layer"),
        ({"full_attn_layers": "5", "kda_layers": [1, 2, 3, 4]}, "list of layer numbers"),
    ],
)
def test_kimi_linear_bad_layer_lists_name_the_key(linear, message):
    config = {"model_type": "kimi_linear", "num_hidden_layers": 5, "linear_attn_config": linear}
    with pytest.raises((ValueError, TypeError), match=message):
        pe.layer_positions(config)


def test_falcon_h1_attends_and_rotates_in_every_layer_beside_mamba():
    config = {"model_type": "falcon_h1", "num_hidden_layers": 3, "head_dim": 64, "rope_theta": 1e11}
    positions = pe.layer_positions(config)
    assert [(p.source, p.mixer) for p in positions] == [("rotary", "attention + Mamba-2")] * 3


@pytest.mark.parametrize("window,expected", [(4096, "rrrn"), (None, "rrrr")])
def test_exaone4_rotates_only_its_sliding_layers_when_it_has_a_window(window, expected):
    config = {
        "model_type": "exaone4",
        "num_hidden_layers": 4,
        "head_dim": 128,
        "rope_theta": 1000000,
        "sliding_window": window,
        "layer_types": ["sliding_attention"] * 3 + ["full_attention"],
    }
    assert sources(config) == expected
    assert [p.window for p in pe.layer_positions(config)] == [window] * 3 + [None]


def test_a_window_without_layer_types_is_every_layers():
    """Mistral 7B v0.1: one ``sliding_window`` and no layer types, so every layer attends
    through it; Qwen2 keeps its window only with ``use_sliding_window``."""
    mistral = {
        "model_type": "mistral",
        "num_hidden_layers": 3,
        "head_dim": 128,
        "rope_theta": 10000.0,
        "sliding_window": 4096,
    }
    assert [p.window for p in pe.layer_positions(mistral)] == [4096] * 3
    qwen2 = {**mistral, "model_type": "qwen2", "use_sliding_window": False}
    assert [p.window for p in pe.layer_positions(qwen2)] == [None] * 3
    llama = {k: v for k, v in mistral.items() if k != "sliding_window"}
    assert [p.window for p in pe.layer_positions(llama)] == [None] * 3


def test_olmo3_scales_only_its_full_attention_layers():
    yarn = {
        "rope_type": "yarn",
        "factor": 8.0,
        "original_max_position_embeddings": 8192,
        "attention_factor": 1.2079441541679836,
    }
    config = {
        "model_type": "olmo3",
        "num_hidden_layers": 4,
        "head_dim": 128,
        "rope_theta": 500000,
        "max_position_embeddings": 65536,
        "sliding_window": 4096,
        "rope_scaling": yarn,
    }
    assert pe.layer_rope_types(config) == ["sliding_attention"] * 3 + ["full_attention"]
    full = pe.config_rope_frequencies(config, layer_type="full_attention")
    sliding = pe.config_rope_frequencies(config, layer_type="sliding_attention")
    plain, _ = pe.rope_frequencies(128, base=500000)
    assert sliding[1] == 1.0 and (sliding[0] == plain).all()
    assert full[1] == pytest.approx(1.2079441541679836) and full[0][40] < plain[40]


def test_llama4_rotating_layers_are_chunked():
    config = {
        "model_type": "llama4_text",
        "num_hidden_layers": 4,
        "head_dim": 128,
        "rope_theta": 5e5,
    }
    positions = pe.layer_positions(config)
    assert sources(config) == "rrrn"
    assert [p.chunk for p in positions] == [8192, 8192, 8192, None]
    assert pe.layer_positions({**config, "attention_chunk_size": 1024})[0].chunk == 1024


@pytest.mark.parametrize(
    "tuning,on", [(4, True), (1, True), (0, False), (True, True), (False, False)]
)
def test_llama4_temperature_is_on_when_its_flag_is_true_as_shipped(tuning, on):
    """Scout's file ships ``"attn_temperature_tuning": 4``; the code tests only its truth."""
    config = {
        "model_type": "llama4_text",
        "num_hidden_layers": 4,
        "head_dim": 128,
        "rope_theta": 5e5,
        "attn_temperature_tuning": tuning,
    }
    assert (pe.config_attention_temperature(config) is not None) == on


def test_llama4_temperature_flag_of_another_kind_is_refused():
    config = {"model_type": "llama4_text", "num_hidden_layers": 4, "head_dim": 128}
    with pytest.raises(TypeError, match="attn_temperature_tuning"):
        pe.config_attention_temperature({**config, "attn_temperature_tuning": "yes"})


def test_minimax_m2_reads_its_rotary_dim():
    config = {"model_type": "minimax_m2", "num_hidden_layers": 2, "head_dim": 128, "rotary_dim": 64}
    (settings,) = pe.rope_settings(config).values()
    assert (settings.rotary_dim, settings.partial_rotary_factor, settings.rope_theta) == (
        64,
        0.5,
        5e6,
    )
    explicit = {**config, "partial_rotary_factor": 0.25}  # an explicit factor wins
    assert next(iter(pe.rope_settings(explicit).values())).rotary_dim == 32
    with pytest.raises(ValueError, match="rotary_dim.*larger than"):
        pe.rope_settings({**config, "rotary_dim": 256})


def test_hunyuan_ntk_alpha_is_a_fixed_base():
    scaling = {"type": "dynamic", "alpha": 1000.0, "factor": 1.0, "beta_fast": 32, "beta_slow": 1}
    config = {
        "model_type": "hunyuan_v1_dense",
        "num_hidden_layers": 2,
        "head_dim": 128,
        "rope_theta": 10000.0,
        "max_position_embeddings": 32768,
        "rope_scaling": scaling,
    }
    (settings,) = pe.rope_settings(config).values()
    assert settings.rope_type == "default"
    assert settings.rope_theta == pytest.approx(10000.0 * 1000.0 ** (128 / 126), rel=1e-15)
    inv_freq, factor = settings.frequencies()
    assert factor == 1.0 and inv_freq[1] == pytest.approx(settings.rope_theta ** (-2 / 128))
    plain = {**config, "rope_scaling": {**scaling, "alpha": 0}}  # no alpha: dynamic NTK
    assert next(iter(pe.rope_settings(plain).values())).rope_type == "dynamic"
    # without head_dim, the head is hidden_size / num_attention_heads (as the classes do)
    wide = {k: v for k, v in config.items() if k != "head_dim"}
    wide |= {"hidden_size": 1024, "num_attention_heads": 8}
    assert next(iter(pe.rope_settings(wide).values())).rope_theta == settings.rope_theta
    with pytest.raises(ValueError, match="head_dim"):
        pe.rope_settings({k: v for k, v in config.items() if k != "head_dim"})


def test_deepseek_v4_sliding_layers_use_main_and_compressed_ones_compress():
    config = {
        "model_type": "deepseek_v4",
        "num_hidden_layers": 4,
        "head_dim": 512,
        "qk_rope_head_dim": 64,
        "rope_theta": 10000.0,
        "compress_rope_theta": 160000.0,
        "compress_ratios": [0, 4, 128, 4],
        "sliding_window": 128,
        "max_position_embeddings": 1048576,
        "rope_scaling": {"type": "yarn", "factor": 16, "original_max_position_embeddings": 65536},
    }
    assert pe.layer_rope_types(config) == ["main", "compress", "compress", "compress"]
    settings = pe.rope_settings(config)
    assert settings["main"].rope_type == "default" and settings["main"].rotary_dim == 64
    assert settings["compress"].rope_theta == 160000.0
    assert settings["compress"].frequencies()[1] == 1.0  # the class forces the factor to 1
    with pytest.raises(ValueError, match="compress_ratios"):
        pe.layer_positions({**config, "compress_ratios": [0, 4, 64, 4]})


@pytest.mark.parametrize(
    "layer_types,message",
    [
        (["full_attention"] * 3, "fewer than"),
        (
            ["full_attention", "cross_attention", "full_attention", "full_attention"],
            "not a layer type",
        ),
    ],
)
def test_bad_layer_types_name_the_key(layer_types, message):
    config = {**QWEN3_NEXT, "num_hidden_layers": 4, "layer_types": layer_types}
    with pytest.raises(ValueError, match=message):
        pe.layer_positions(config)


def test_standardise_leaves_other_families_and_its_input_alone():
    # a file that states its base and length: nothing for the class to fill in
    config = {"model_type": "llama", "rope_theta": 5e5, "max_position_embeddings": 8192}
    out, notes = standardise(config, "config")
    assert out == config and out is not config and notes == []
    # a length left out is the class's, marked, and the input is still not changed
    out, notes = standardise({"model_type": "llama", "rope_theta": 5e5}, "config")
    assert out["max_position_embeddings"] == 2048 and "class default" in notes[0]
    out, _ = standardise({"model_type": "apertus"}, "config")
    assert out["rope_parameters"]["rope_type"] == "llama3"
    out, _ = standardise({"model_type": "gpt_oss"}, "config")
    assert out["rope_parameters"]["truncate"] is False and out["rope_theta"] == 150000.0


def test_inspect_shows_the_layers_of_a_hybrid(tmp_path, capsys):
    path = tmp_path / "q3n.json"
    layer_types = (["linear_attention"] * 3 + ["full_attention"]) * 2
    path.write_text(json.dumps({**QWEN3_NEXT, "layer_types": layer_types}))
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "layers: 2 of 8 rotary, 0 attention without rotation, 6 without attention" in text
    assert "  ~~~R~~~R\n" in text and "[default] layers: 2 (3, 7)" in text
    assert main(["inspect", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["layer_strip"]["strip"] == "~~~R~~~R"
    assert report["recurrent_layers"] == [0, 1, 2, 4, 5, 6]
    assert [p["source"] for p in report["layers"]][:4] == ["recurrence"] * 3 + ["rotary"]


def test_inspect_of_a_model_that_never_rotates_shows_no_frequencies():
    config = {"model_type": "kimi_linear", "num_hidden_layers": 5}
    report = inspect_config(config)
    assert report["layer_types"] == {} and report["layer_strip"]["strip"] == "~~~~n"


def test_inspect_names_what_it_does_not_model():
    config = {**QWEN3_NEXT, "dual_chunk_attention_config": {"chunk_size": 262144}}
    report = inspect_config(config)
    assert any("dual_chunk_attention_config" in line for line in report["not_modelled"])
    assert inspect_config(QWEN3_NEXT)["not_modelled"] == []
    # which vLLM ran it: its DCA backend left with the V0 engine in 0.11.0
    (line,) = [line for line in report["not_modelled"] if "dual_chunk" in line]
    assert "vLLM up to 0.10, in its V0 engine" in line and "vLLM 0.33.0" in line


def test_inspect_says_when_it_assumes_a_pairing():
    config = {"model_type": "brand_new", "num_hidden_layers": 2, "head_dim": 64, "rope_theta": 1e4}
    assert any("assumed 'halves'" in n for n in inspect_config(config)["notes"])
    assert not any(
        "assumed" in n for n in inspect_config({**config, "model_type": "llama"})["notes"]
    )


def test_inspect_notes_kimi_k2s_step_ramp():
    scaling = {
        "type": "yarn",
        "factor": 32.0,
        "beta_fast": 1.0,
        "beta_slow": 1.0,
        "original_max_position_embeddings": 4096,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
    }
    config = {
        "model_type": "deepseek_v3",
        "num_hidden_layers": 2,
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "kv_lora_rank": 512,
        "rope_theta": 50000.0,
        "max_position_embeddings": 131072,
        "rope_scaling": scaling,
    }
    assert any("a step" in n for n in inspect_config(config)["notes"])
    inv_freq, _ = pe.config_rope_frequencies(config)
    plain, _ = pe.rope_frequencies(64, base=50000.0)
    ratio = plain / inv_freq
    assert set(ratio.round(12)) == {1.0, 32.0}  # kept or divided: nothing in between
    assert math.isclose(ratio[19], 1.0) and math.isclose(ratio[20], 32.0)


# -- no key that changes positions is dropped silently ---------------------------------

#: A key whose name says it may change positions.
POSITIONAL = re.compile(
    r"rope|rotary|position|window|chunk|layer_types|block_type|alibi|sink|"
    r"mrope|attn_scale|floor_scale|temperature|nope|compress|interleave"
)
#: Position keys the library reads (hf_config, hf_families, layer_positions, model_report).
READ = {
    "attention_chunk_size",
    "attn_scale",
    "attn_temperature_tuning",
    "compress_ratios",
    "compress_rope_theta",
    "floor_scale",
    "full_attention_interval",
    "layer_types",
    "layers_block_type",
    "linear_attn_config",
    "max_position_embeddings",
    "mla_use_nope",
    "no_rope_layer_interval",
    "no_rope_layers",
    "original_max_position_embeddings",
    "partial_rotary_factor",
    "position_embedding_type",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "rope_interleave",
    "rope_local_base_freq",
    "rope_parameters",
    "rope_scaling",
    "rope_theta",
    "rotary_dim",
    "rotary_emb_base",
    "rotary_pct",
    "sliding_window",
    "sliding_window_pattern",
    "use_sliding_window",
    "mrope_section",
    "mrope_interleaved",
    "model_max_length",
    # models without RoPE (pe_explained.hf_nonrotary) and Falcon's switch between the two
    "n_positions",
    "alibi",
    "relative_attention_num_buckets",
    "relative_attention_max_distance",
    # Hunyuan's remote code: whether its attention rotates
    "use_rotary_pos_emb",
    # the layer layouts of the registry (pe_explained.families.LAYER_LAYOUTS)
    "global_attn_every_n_layers",
    "attn_layer_indices",
    "attn_layer_period",
    "attn_layer_offset",
    "hybrid_override_pattern",
    # MiMo-V2-Flash's window: that many keys before the query
    "sliding_window_size",
    # Granite SWA's and Muse Glimmer's bases per layer (0: NoPE); ModernBERT's legacy bases
    # and window; LFM2's attention layers; NeoMME's per-layer windows
    "layer_rope_theta",
    "global_rope_theta",
    "local_rope_theta",
    "local_attention",
    "full_attn_idxs",
    "per_layer_config",
}
#: Keys named as not modelled by ``inspect`` (model_reading.NOT_MODELLED).
NAMED = set(model_reading.NOT_MODELLED)
#: Keys whose names match but that move no position.
NOT_POSITIONAL = {
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "vision_config",
    "hc_sinkhorn_iters",
    "mamba_chunk_size",  # how the scan is computed, not what it sees
    "offset_alibi",  # in BLOOM's files; no BloomConfig argument reads it (transformers 5.23)
    "alibi_bias_max",  # MPT's top-level copy in a Flax conversion; MptConfig reads attn_config
}


def _position_keys(config: dict) -> set[str]:
    keys = set()
    for part in (config, config.get("text_config") or {}):
        keys |= {k for k in part if POSITIONAL.search(k)}
    return keys - NOT_POSITIONAL


def _all_configs():
    gallery = sorted((ROOT / "docs" / "data" / "models").glob("*.json"))
    out = {p.stem: json.loads(p.read_text())["config"] for p in gallery}
    tiny = json.loads((ROOT / "tests" / "data" / "tiny_configs_2025.json").read_text())
    return out | {f"tiny {k}": v for k, v in tiny.items()}


@pytest.mark.parametrize("name,config", sorted(_all_configs().items()))
def test_every_position_key_is_read_or_named(name, config):
    family = FAMILIES.get(config.get("model_type"))
    unread = set(family.unread or ()) if family else set()  # named in a note of its own
    unknown = _position_keys(config) - READ - NAMED - unread
    assert not unknown, f"{name}: {sorted(unknown)} neither read nor named by inspect"


def test_the_key_check_catches_an_unknown_key():
    assert _position_keys(
        {"rope_theta": 1, "xdrope_section": [1], "rope_magic": 2}
    ) - READ - NAMED == {"rope_magic"}


def test_nemotron_h_never_rotates_and_its_mlp_and_moe_layers_mix_no_tokens():
    """NemotronHAttention takes no position embeddings (its rope_theta is not read), the
    layers come from hybrid_override_pattern (M Mamba-2, * attention, E MoE, - MLP) and
    the class counts them; a file with no RoPE key at all is read, not refused."""
    pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"  # Nemotron 3 Nano's
    config = {"model_type": "nemotron_h", "head_dim": 128, "hybrid_override_pattern": pattern}
    config |= {"num_hidden_layers": 99, "rope_theta": 10000.0, "partial_rotary_factor": 0.5}
    report = inspect_config(config)
    strip = report["layer_strip"]
    assert strip["strip"] == pattern.replace("M", "~").replace("*", "n").replace("E", "-")
    assert strip["counts"] == {
        "rotary": 0,
        "nope": 6,
        "recurrence": 23,
        "absolute": 0,
        "bias": 0,
        "none": 23,
    }
    assert not report["layer_types"]
    assert any("num_hidden_layers'] = 99 is not read" in n for n in report["notes"])
    assert any("rope_theta'] = 10000.0 is not read" in n for n in report["notes"])
    bare = {"model_type": "nemotron_h", "head_dim": 128, "hybrid_override_pattern": "M-M*"}
    assert [p.source for p in pe.layer_positions(bare)] == ["recurrence", "none"] * 1 + [
        "recurrence",
        "nope",
    ]
    with pytest.raises(ValueError, match=r"hybrid_override_pattern'\] holds 'X'"):
        pe.layer_positions({**bare, "hybrid_override_pattern": "M*X"})


def test_longcat_flash_attends_twice_in_each_decoder_layer():
    """LongcatFlashDecoderLayer holds two attention sublayers: num_hidden_layers is
    2 × num_layers, and a stated num_hidden_layers sets num_layers to half of it, rounded
    down (LongcatFlashConfig's setter); transformers builds the same (the sweep)."""
    base = {"model_type": "longcat_flash", "qk_rope_head_dim": 64, "kv_lora_rank": 512}
    assert len(pe.layer_positions({**base, "num_layers": 3})) == 6
    assert len(pe.layer_positions(base)) == 56  # the class's 28 decoder layers
    report = pe.inspect_config({**base, "num_hidden_layers": 7})
    assert len(report["layers"]) == 6
    assert any("keeps num_layers = 3" in note for note in report["notes"])
    with pytest.raises(ValueError, match="num_hidden_layers'\\] = 1: LongcatFlashConfig"):
        pe.layer_positions({**base, "num_hidden_layers": 1})


V4_NESTED = {
    "model_type": "deepseek_v4",
    "head_dim": 512,
    "qk_rope_head_dim": 64,  # a class's to_dict writes it beside the nested dicts
    "num_hidden_layers": 2,
    "layer_types": ["sliding_attention", "compressed_sparse_attention"],
    "rope_parameters": {
        "main": {"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": 0.125},
        "compress": {"rope_type": "default", "rope_theta": 1.6e5, "partial_rotary_factor": 0.125},
    },
}


def test_deepseek_v4_nested_dicts_rotate_their_share_of_the_whole_head():
    """DeepseekV4Config's own dicts, keyed main and compress beside layer_types that name
    neither: 0.125 of the 512-wide head, 64 dims (not 0.125 of qk_rope_head_dim)."""
    settings = pe.rope_settings(V4_NESTED)
    assert {k: s.rotary_dim for k, s in settings.items()} == {"main": 64, "compress": 64}


def test_deepseek_v4_refuses_a_compress_share_wider_than_the_indexer():
    """Its indexer rotates as many dims of its 128-wide heads as compress does of each
    head: 256 do not fit, and transformers fails on a size mismatch (the sweep)."""
    wide = json.loads(json.dumps(V4_NESTED))
    wide["rope_parameters"]["compress"]["partial_rotary_factor"] = 0.5
    with pytest.raises(ValueError, match="rotates 256 dims of each head, more than the 128"):
        pe.read_model(wide)
    # no compressed sparse attention layer, no indexer: read
    wide["layer_types"] = ["sliding_attention", "heavily_compressed_attention"]
    assert pe.rope_settings(wide)["compress"].rotary_dim == 256


def test_zamba2_attends_in_its_hybrid_layers_and_rotates_only_with_use_mem_rope():
    """Zamba2's hybrid layers run its shared attention block, whose heads are twice the
    hidden size over the heads wide; it rotates only with use_mem_rope (default False);
    the layer count must be its list's (Zamba2Config refuses another)."""
    base = {"model_type": "zamba2", "hidden_size": 2048, "num_attention_heads": 32}
    default = pe.layer_positions(base)
    assert len(default) == 54
    assert [p.index for p in default if p.source == "nope"] == [6, 12, 18, 24, 30, 36, 42, 47, 51]
    rotating = {**base, "use_mem_rope": True}
    assert pe.rope_settings(rotating)["default"].rotary_dim == 128  # 2 × 2048 / 32
    with pytest.raises(ValueError, match="must equal the number of layers_block_type"):
        pe.layer_positions({**base, "num_hidden_layers": 12})
