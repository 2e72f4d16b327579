"""Layers without RoPE, attention temperature and MLA's decoupled RoPE: analytic checks.

The comparisons with transformers' own code are in ``test_transformers_layers.py``;
these need numpy only.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import (
    apply_rope,
    attention_temperature,
    config_attention_temperature,
    layer_rope_types,
    mla_cache_size,
    mla_scores,
    mla_softmax_scale,
)

RNG = np.random.default_rng(7)


# -- attention temperature ---------------------------------------------------


def test_temperature_is_one_before_the_first_step_and_steps_by_log():
    pos = np.arange(50)
    t = attention_temperature(pos, beta=0.5, floor_scale=10, offset=1)
    assert np.all(t[:9] == 1.0)  # p + 1 < 10
    assert t[9] == pytest.approx(1 + 0.5 * math.log(2))  # ⌊10/10⌋ = 1
    assert t[19] == pytest.approx(1 + 0.5 * math.log(3))
    t0 = attention_temperature(pos, beta=0.5, floor_scale=10)
    assert t0[9] == 1.0 and t0[10] == t[9]  # offset 0 steps one position later


def test_temperature_is_exact_at_the_largest_positions():
    big = np.array([2**63 - 1, 2**62], dtype=np.int64)
    t = attention_temperature(big, beta=0.1, floor_scale=8192, offset=1)
    steps = [(2**63 - 1 + 1) // 8192, 2**62 // 8192]  # Python ints: no overflow
    np.testing.assert_allclose(t, [1 + 0.1 * math.log1p(s) for s in steps], rtol=1e-15)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"positions": [1.5], "beta": 0.1, "floor_scale": 4}, "whole numbers"),
        ({"positions": [1], "beta": -0.1, "floor_scale": 4}, "beta"),
        ({"positions": [1], "beta": 0.1, "floor_scale": 0}, "floor_scale"),
        ({"positions": [-1], "beta": 0.1, "floor_scale": 4}, "positions"),
    ],
)
def test_temperature_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        attention_temperature(**kwargs)


# -- which layers rotate -----------------------------------------------------

BASE = {"head_dim": 64, "rope_theta": 10000.0}


def test_llama4_default_nope_layers_are_every_fourth():
    keys = layer_rope_types({**BASE, "model_type": "llama4_text", "num_hidden_layers": 48})
    assert [i for i, k in enumerate(keys) if k is None] == list(range(3, 48, 4))


def test_a_multimodal_config_is_read_through_its_text_config():
    config = {
        "model_type": "llama4",
        "text_config": {**BASE, "model_type": "llama4_text", "num_hidden_layers": 4},
    }
    assert layer_rope_types(config) == ["default", "default", "default", None]
    assert config_attention_temperature(config).layers == (3,)


def test_gemma3_v4_layers_follow_the_pattern():
    config = {
        "model_type": "gemma3_text",
        "head_dim": 256,
        "num_hidden_layers": 12,
        "rope_theta": 1_000_000.0,
        "rope_local_base_freq": 10_000.0,
    }
    keys = layer_rope_types(config)
    assert keys[5] == keys[11] == "full_attention"
    assert keys.count("sliding_attention") == 10


def test_cohere2_rotates_only_its_sliding_layers():
    config = {**BASE, "model_type": "cohere2", "num_hidden_layers": 8, "sliding_window_pattern": 4}
    assert layer_rope_types(config) == ["default"] * 3 + [None] + ["default"] * 3 + [None]


def test_a_null_layer_type_dict_is_a_nope_layer():
    config = {
        "head_dim": 8,
        "num_hidden_layers": 3,
        "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
        "rope_parameters": {
            "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
            "full_attention": None,
        },
    }
    assert layer_rope_types(config) == ["sliding_attention", None, "sliding_attention"]


@pytest.mark.parametrize(
    "change,error,message",
    [
        ({"no_rope_layers": [1, 0]}, ValueError, "fewer than"),
        ({"no_rope_layers": [1, 2, 1, 1]}, ValueError, "0 .NoPE layer. or 1"),
        ({"no_rope_layers": "1011"}, TypeError, "no_rope_layers"),
        ({"num_hidden_layers": None}, ValueError, "num_hidden_layers"),
        ({"layer_types": ["full_attention"]}, ValueError, "layer_types"),
        ({"attn_temperature_tuning": "yes"}, TypeError, "attn_temperature_tuning"),
    ],
)
def test_bad_layer_plans_name_the_key(change, error, message):
    config = {**BASE, "model_type": "llama4_text", "num_hidden_layers": 4, **change}
    with pytest.raises(error, match=message):
        layer_rope_types(config)
        config_attention_temperature(config)


def test_models_without_temperature_return_none():
    assert config_attention_temperature({**BASE, "model_type": "llama"}) is None
    off = {**BASE, "model_type": "llama4_text", "num_hidden_layers": 4}
    assert config_attention_temperature({**off, "attn_temperature_tuning": False}) is None


# -- MLA -----------------------------------------------------------------------


def test_deepseek_v3_softmax_scale():
    scaling = {"rope_type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0}
    expected = (0.1 * math.log(40) + 1) ** 2 / math.sqrt(192)
    assert mla_softmax_scale(128, 64, scaling=scaling) == pytest.approx(expected, rel=1e-15)
    assert mla_softmax_scale(128, 64, scaling={**scaling, "mscale_all_dim": 0}) == pytest.approx(
        1 / math.sqrt(192)
    )
    assert mla_softmax_scale(128, 64, scaling={**scaling, "factor": 1}) == pytest.approx(
        1 / math.sqrt(192)
    )


def test_mla_scores_are_the_sum_of_a_content_and_a_shared_rotary_part():
    heads, seq, nope, rope = 3, 6, 4, 6
    q = RNG.normal(size=(heads, seq, nope + rope))
    k_nope, k_rope = RNG.normal(size=(heads, seq, nope)), RNG.normal(size=(seq, rope))
    inv_freq = np.array([1.0, 0.3, 0.05])
    scores = mla_scores(q, k_nope, k_rope, seq, inv_freq, softmax_scale=0.5)
    for h in range(heads):  # every head sees the same rotated key
        key = np.concatenate(
            [k_nope[h], apply_rope(k_rope, seq, inv_freq, layout="interleaved")], axis=1
        )
        query = np.concatenate(
            [q[h, :, :nope], apply_rope(q[h, :, nope:], seq, inv_freq, layout="interleaved")],
            axis=1,
        )
        np.testing.assert_allclose(scores[h], 0.5 * query @ key.T, rtol=1e-13)
    shifted = mla_scores(q, k_nope, k_rope, np.arange(seq) + 1000, inv_freq, softmax_scale=0.5)
    np.testing.assert_allclose(shifted, scores, rtol=1e-9, atol=1e-12)


def test_mla_default_scale_is_one_over_root_of_the_full_head():
    q, k_nope, k_rope = (
        RNG.normal(size=(1, 2, 6)),
        RNG.normal(size=(1, 2, 2)),
        RNG.normal(size=(2, 4)),
    )
    plain = mla_scores(q, k_nope, k_rope, 2, [1.0, 0.1], softmax_scale=1.0)
    np.testing.assert_allclose(mla_scores(q, k_nope, k_rope, 2, [1.0, 0.1]), plain / math.sqrt(6))


@pytest.mark.parametrize(
    "shapes,message",
    [
        (((2, 3, 6), (2, 4, 2), (3, 4)), "k_nope"),
        (((2, 3, 6), (2, 3, 2), (2, 4)), "k_rope must have seq"),
        (((2, 3, 5), (2, 3, 2), (3, 3)), "k_rope's last axis"),
        (((2, 3, 7), (2, 3, 2), (3, 4)), "q's last axis"),
    ],
)
def test_mla_scores_reject_mismatched_shapes(shapes, message):
    q, k_nope, k_rope = (np.ones(s) for s in shapes)
    with pytest.raises(ValueError, match=message):
        mla_scores(q, k_nope, k_rope, 3, [1.0, 0.1])


def test_mla_cache_holds_the_latent_and_the_shared_rotated_key():
    """DeepSeek-V2, Table 1: (d_c + d_h^R) l ≈ 9/2 d_h l with d_c = 4 d_h, d_h^R = d_h / 2."""
    d_h, layers = 128, 60
    assert mla_cache_size(4 * d_h, d_h // 2, num_layers=layers) == 9 * d_h * layers // 2
    # the rotated key is a ninth of it: counting the latent alone undercounts by 11 %
    assert mla_cache_size(512, 64) - 512 == 64 and 64 / mla_cache_size(512, 64) == 1 / 9
    with pytest.raises(ValueError, match="qk_rope_head_dim"):
        mla_cache_size(512, 0)
