"""rope_settings and config_rope_frequencies: config.json dicts in both shapes, by hand.

The values here are worked out from the formulas; ``tests/test_transformers_rope.py``
checks the same functions against ``transformers`` itself.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from pe_explained import config_rope_frequencies, rope_frequencies, rope_settings
from pe_explained.hf_config import ALL_LAYERS, RopeSettings

LLAMA31_V4 = {  # meta-llama/Llama-3.1-8B's config.json, the RoPE part
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "rope_theta": 500000.0,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
}
LLAMA31_V5 = {
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "max_position_embeddings": 131072,
    "rope_parameters": {**LLAMA31_V4["rope_scaling"], "rope_theta": 500000.0},
}
GEMMA4_LIKE = {
    "head_dim": 256,
    "global_head_dim": 512,
    "max_position_embeddings": 131072,
    "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
    "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
        "full_attention": {
            "rope_type": "proportional",
            "partial_rotary_factor": 0.25,
            "rope_theta": 1000000.0,
        },
    },
}


def loaded(config):
    """The dict ``json.load`` gives for the config file."""
    return json.loads(json.dumps(config))


def test_v4_and_v5_shapes_give_the_same_settings():
    a, b = rope_settings(loaded(LLAMA31_V4)), rope_settings(loaded(LLAMA31_V5))
    assert list(a) == list(b) == [ALL_LAYERS]
    assert a == b
    s = a[ALL_LAYERS]
    assert isinstance(s, RopeSettings)
    assert (s.rope_type, s.rope_theta, s.head_dim, s.rotary_dim) == ("llama3", 5e5, 128, 128)
    assert s.original_max_position_embeddings == 8192 and s.max_position_embeddings == 131072
    expected = rope_frequencies(128, base=500000.0, scaling=LLAMA31_V4["rope_scaling"])
    got = config_rope_frequencies(loaded(LLAMA31_V4))
    np.testing.assert_array_equal(got[0], expected[0])
    assert got[1] == expected[1] == 1.0


def test_plain_rope_from_rope_theta_alone_and_legacy_type_key():
    config = {"hidden_size": 64, "num_attention_heads": 8, "rope_theta": 10000.0}
    inv_freq, factor = config_rope_frequencies(config)
    np.testing.assert_allclose(inv_freq, [1.0, 0.1, 0.01, 0.001], rtol=1e-15)
    legacy = {**config, "rope_scaling": {"type": "linear", "factor": 2.0}}
    np.testing.assert_allclose(config_rope_frequencies(legacy)[0], inv_freq / 2, rtol=1e-15)
    assert rope_settings(legacy)[ALL_LAYERS].scaling == {"rope_type": "linear", "factor": 2.0}


def test_rope_theta_defaults_to_10000_when_only_the_scaling_dict_is_given():
    config = {"head_dim": 8, "rope_parameters": {"rope_type": "default"}}
    assert rope_settings(config)[ALL_LAYERS].rope_theta == 10000.0


def test_partial_rotary_factor_at_the_top_level_or_in_the_dict():
    # Phi-2: head_dim 80, 40% rotated → 32 dims, 16 pairs at 10000^(−2i/32)
    top = {"hidden_size": 2560, "num_attention_heads": 32, "rope_theta": 10000.0}
    top["partial_rotary_factor"] = 0.4
    inside = {
        "hidden_size": 2560,
        "num_attention_heads": 32,
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0},
    }
    inside["rope_parameters"]["partial_rotary_factor"] = 0.4
    for config in (top, inside):
        s = rope_settings(config)[ALL_LAYERS]
        assert (s.head_dim, s.rotary_dim, s.partial_rotary_factor) == (80, 32, 0.4)
        inv_freq, _ = config_rope_frequencies(config)
        np.testing.assert_allclose(inv_freq, [10000.0 ** (-i / 16) for i in range(16)], rtol=1e-14)


def test_gemma3_v4_shape_has_a_local_and_a_global_base():
    config = {
        "head_dim": 256,
        "rope_theta": 1000000.0,
        "rope_local_base_freq": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
    }
    settings = rope_settings(config)
    assert set(settings) == {"full_attention", "sliding_attention"}
    full, local = settings["full_attention"], settings["sliding_attention"]
    assert (full.rope_type, full.rope_theta) == ("linear", 1e6)
    assert (local.rope_type, local.rope_theta, local.scaling) == ("default", 1e4, None)
    np.testing.assert_allclose(
        config_rope_frequencies(config, layer_type="full_attention")[0][:2],
        [1 / 8, 1e6 ** (-2 / 256) / 8],
        rtol=1e-14,
    )


def test_gemma4_proportional_global_layers_from_nested_v5():
    settings = rope_settings(loaded(GEMMA4_LIKE))
    full = settings["full_attention"]
    assert (full.rope_type, full.head_dim, full.rotary_dim) == ("proportional", 512, 512)
    inv_freq, factor = config_rope_frequencies(GEMMA4_LIKE, layer_type="full_attention")
    # 0.25 · 512 / 2 = 64 pairs turn, at 10^6^(−2i/512); the other 192 stand still
    assert inv_freq.shape == (256,) and np.count_nonzero(inv_freq) == 64 and factor == 1.0
    assert inv_freq[63] == pytest.approx(1e6 ** (-126 / 512), rel=1e-14)
    local, _ = config_rope_frequencies(GEMMA4_LIKE, layer_type="sliding_attention")
    assert local.shape == (128,) and local[1] == pytest.approx(1e4 ** (-2 / 256), rel=1e-14)


def test_multimodal_config_reads_text_config_and_mrope_is_plain_frequencies():
    config = {  # Qwen2-VL's shape
        "model_type": "qwen2_vl",
        "text_config": {
            "hidden_size": 1536,
            "num_attention_heads": 12,
            "rope_theta": 1000000.0,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        },
    }
    s = rope_settings(config)[ALL_LAYERS]
    assert (s.rope_type, s.head_dim, s.scaling) == ("default", 128, None)
    assert s.extra == {"mrope_section": [16, 24, 24]}


def test_phi3_top_level_original_context_and_derived_factor():
    half = 48
    config = {
        "hidden_size": 3072,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_scaling": {
            "type": "longrope",
            "short_factor": [1.0] * half,
            "long_factor": [2.0] * half,
        },
        "rope_theta": 10000.0,
    }
    s = rope_settings(config)[ALL_LAYERS]
    assert s.original_max_position_embeddings == 4096 and s.scaling["factor"] == 32.0
    _, factor = config_rope_frequencies(config)
    assert factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)
    short, _ = config_rope_frequencies(config, seq_len=4096)
    long, _ = config_rope_frequencies(config, seq_len=4097)
    np.testing.assert_allclose(long, short / 2, rtol=1e-15)


def test_dynamic_uses_max_position_embeddings_as_the_trained_context():
    config = {
        "head_dim": 64,
        "rope_theta": 10000.0,
        "max_position_embeddings": 2048,
        "rope_scaling": {"type": "dynamic", "factor": 2.0},
    }
    plain, _ = config_rope_frequencies({"head_dim": 64, "rope_theta": 10000.0})
    np.testing.assert_array_equal(config_rope_frequencies(config)[0], plain)
    # at twice the context: α = 2·2 − 1 = 3, the slowest pair divided by 3
    stretched, _ = config_rope_frequencies(config, seq_len=4096)
    assert stretched[-1] == pytest.approx(plain[-1] / 3, rel=1e-12)


def test_yarn_original_context_falls_back_to_max_position_embeddings():
    config = {
        "head_dim": 128,
        "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "yarn", "factor": 16.0},
    }
    assert rope_settings(config)[ALL_LAYERS].original_max_position_embeddings == 4096


def test_deepseek_reads_qk_rope_head_dim_and_interleaves():
    config = {
        "model_type": "deepseek_v3",
        "hidden_size": 7168,
        "num_attention_heads": 128,
        "qk_rope_head_dim": 64,
        "max_position_embeddings": 163840,
        "rope_theta": 10000,
        "rope_scaling": {
            "type": "yarn",
            "factor": 40,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32,
            "beta_slow": 1,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
        },
    }
    s = rope_settings(config)[ALL_LAYERS]
    assert (s.head_dim, s.layout, s.rope_type) == (64, "interleaved", "yarn")
    assert config_rope_frequencies(config)[1] == 1.0  # mscale / mscale_all_dim = 1
    assert rope_settings({**config, "rope_interleave": False})[ALL_LAYERS].layout == "halves"


def test_null_layer_entry_means_no_rope_there():
    config = {
        "head_dim": 8,
        "layer_types": ["sliding_attention", "full_attention"],
        "rope_parameters": {"sliding_attention": {"rope_theta": 10000.0}, "full_attention": None},
    }
    assert rope_settings(config)["full_attention"] is None
    with pytest.raises(ValueError, match="no RoPE"):
        config_rope_frequencies(config, layer_type="full_attention")


@pytest.mark.parametrize(
    "config,error,match",
    [
        ("config.json", TypeError, "config must be a dict"),
        ({"hidden_size": 64, "num_attention_heads": 8}, ValueError, "no RoPE settings"),
        (
            {"head_dim": 8, "rope_scaling": {"rope_type": "ntk"}},
            ValueError,
            r"config\['rope_scaling'\]\['rope_type'\] must be one of .*'proportional'",
        ),
        (
            {"head_dim": 8, "rope_parameters": {"rope_type": "linear"}},
            ValueError,
            r"config\['rope_parameters'\] for rope_type 'linear' is missing key\(s\) 'factor'",
        ),
        (
            {"head_dim": 8, "rope_parameters": {"rope_type": "linear", "factor": 2, "fctor": 3}},
            ValueError,
            "unknown key.*'fctor'",
        ),
        (
            {"rope_theta": 10000.0},
            ValueError,
            "'head_dim', or 'hidden_size' and 'num_attention_heads'",
        ),
        ({"head_dim": 7, "rope_theta": 1e4}, ValueError, r"config\['head_dim'\].*even"),
        ({"head_dim": 8, "rope_theta": "1e4"}, TypeError, r"config\['rope_theta'\]"),
        (
            {"head_dim": 8, "rope_theta": 1e4, "partial_rotary_factor": 1.5},
            ValueError,
            r"config\['partial_rotary_factor'\] must be <= 1",
        ),
        (
            {"head_dim": 8, "rope_theta": 1e4, "partial_rotary_factor": 0.1},
            ValueError,
            r"partial_rotary_factor'\] must leave an even number",
        ),
        (
            {"head_dim": 8, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}},
            ValueError,
            r"config\['max_position_embeddings'\] is needed by rope_type 'dynamic'",
        ),
        (
            {"head_dim": 8, "rope_scaling": {"rope_type": "yarn", "factor": 2.0}},
            ValueError,
            "needs 'original_max_position_embeddings'",
        ),
        (
            {"head_dim": 8, "rope_scaling": {"rope_type": "yarn", "factor": None}},
            ValueError,
            "needs 'original_max_position_embeddings'",
        ),
        (
            {
                "head_dim": 8,
                "rope_scaling": {
                    "rope_type": "yarn",
                    "factor": None,
                    "original_max_position_embeddings": 16,
                },
            },
            ValueError,
            r"\['factor'\] is null",
        ),
        (
            {"head_dim": 8, "layer_types": "full_attention", "rope_theta": 1e4},
            TypeError,
            r"config\['layer_types'\] must be a list",
        ),
        (
            {"text_config": {"head_dim": 8, "rope_scaling": {"rope_type": "linear"}}},
            ValueError,
            r"config\['text_config'\]\['rope_scaling'\]",
        ),
    ],
)
def test_bad_configs_name_the_key_and_the_rule(config, error, match):
    with pytest.raises(error, match=match):
        rope_settings(config)


def test_layer_type_must_be_named_when_there_are_several():
    with pytest.raises(ValueError, match="layer_type must name one of 'sliding_attention'"):
        config_rope_frequencies(GEMMA4_LIKE)
    with pytest.raises(ValueError, match="layer_type must be one of"):
        config_rope_frequencies(GEMMA4_LIKE, layer_type="global")
    with pytest.raises(ValueError, match="seq_len"):
        config_rope_frequencies(LLAMA31_V4, seq_len=0)


def test_the_config_is_not_modified():
    config = loaded(LLAMA31_V4)
    before = json.dumps(config, sort_keys=True)
    rope_settings(config)
    config_rope_frequencies(config, seq_len=10)
    assert json.dumps(config, sort_keys=True) == before
