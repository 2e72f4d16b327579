"""Differential tests: NoPE layers, attention temperature and MLA against transformers' code.

* Layer plans: which layers rotate, as ``Llama4TextConfig``, ``SmolLM3Config``,
  ``Gemma3TextConfig`` and ``Cohere2Config`` lay them out (``no_rope_layers``,
  ``layer_types``), against :func:`pe_explained.layer_rope_types`.
* Temperature: Llama 4's query multiplier, read from a tiny ``Llama4TextAttention``
  on a NoPE layer (the queries that reach the attention function, divided by the
  queries computed without it), and Ministral 3's ``get_llama_4_attn_scale``,
  against :func:`pe_explained.attention_temperature`.
* MLA: the softmax scale of a tiny ``DeepseekV3Attention`` for several YaRN
  settings, and its scores ``scaling · q kᵀ`` (captured at the attention function)
  against :func:`pe_explained.mla_scores` fed the same projections, in both
  ``rope_interleave`` settings. transformers computes the temperature from float32
  positions and keeps ``inv_freq`` in float32, so agreement is within 1e-6; each test
  shows that a wrong answer (a step one position late, the other pairing) breaks it.
"""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (differential tests run in CI)"
)

from transformers.models.cohere2 import Cohere2Config  # noqa: E402
from transformers.models.deepseek_v3 import DeepseekV3Config  # noqa: E402
from transformers.models.deepseek_v3 import modeling_deepseek_v3 as ds  # noqa: E402
from transformers.models.gemma3 import Gemma3TextConfig  # noqa: E402
from transformers.models.llama4 import Llama4TextConfig  # noqa: E402
from transformers.models.llama4 import modeling_llama4 as l4  # noqa: E402
from transformers.models.ministral3 import modeling_ministral3  # noqa: E402
from transformers.models.smollm3 import SmolLM3Config  # noqa: E402

from pe_explained import (  # noqa: E402
    attention_temperature,
    config_attention_temperature,
    config_rope_frequencies,
    layer_rope_types,
    mla_scores,
    mla_softmax_scale,
)

# ---------------------------------------------------------------------------
# Which layers rotate
# ---------------------------------------------------------------------------

LAYER_CASES = [
    (Llama4TextConfig, "llama4_text", {"num_hidden_layers": 10}),
    (Llama4TextConfig, "llama4_text", {"num_hidden_layers": 9, "no_rope_layer_interval": 3}),
    (
        Llama4TextConfig,
        "llama4_text",
        {"num_hidden_layers": 4, "no_rope_layers": [1, 0, 0, 1]},
    ),
    (SmolLM3Config, "smollm3", {"num_hidden_layers": 12}),
    (Gemma3TextConfig, "gemma3_text", {"num_hidden_layers": 13}),
    (Gemma3TextConfig, "gemma3_text", {"num_hidden_layers": 8, "sliding_window_pattern": 3}),
    (Cohere2Config, "cohere2", {"num_hidden_layers": 9}),
]


def _reference_plan(config_class, model_type, overrides):
    """Per layer, does transformers' attention rotate it (and with which layer type)?"""
    ref = config_class(**overrides)
    types = list(getattr(ref, "layer_types", None) or ["default"] * ref.num_hidden_layers)
    if model_type == "cohere2":  # Cohere2Attention rotates only with a sliding window
        return ["default" if kind == "sliding_attention" else None for kind in types]
    if model_type == "gemma3_text":  # every layer rotates, by its type's settings
        return types
    return ["default" if flag else None for flag in ref.no_rope_layers]


@pytest.mark.parametrize("config_class,model_type,overrides", LAYER_CASES)
def test_layer_plans_match_transformers(config_class, model_type, overrides):
    expected = _reference_plan(config_class, model_type, overrides)
    ours = layer_rope_types(
        {"model_type": model_type, "head_dim": 64, "rope_theta": 10000.0, **overrides}
    )
    assert ours == expected


# ---------------------------------------------------------------------------
# Temperature
# ---------------------------------------------------------------------------


def _llama4_query_multipliers(seq_len, floor_scale, attn_scale):
    """Queries of a tiny Llama 4 NoPE layer at the attention function ÷ its projection."""
    config = Llama4TextConfig(
        hidden_size=16,
        num_attention_heads=2,
        num_key_value_heads=2,
        head_dim=8,
        num_hidden_layers=4,
        floor_scale=floor_scale,
        attn_scale=attn_scale,
        use_qk_norm=False,
        attn_implementation="eager",
    )
    torch.manual_seed(0)
    attention = l4.Llama4TextAttention(config, layer_idx=3).eval()
    assert not attention.use_rope  # layer 3 is the NoPE layer
    captured = {}

    def capture(module, query, key, value, attention_mask, **kwargs):
        captured["query"] = query
        shape = (query.shape[0], query.shape[2], query.shape[1], value.shape[-1])
        return torch.zeros(shape, dtype=query.dtype), None

    hidden = torch.randn(1, seq_len, 16, dtype=torch.float64)
    attention = attention.double()
    original = l4.eager_attention_forward
    l4.eager_attention_forward = capture
    try:
        with torch.no_grad():
            attention(hidden, position_embeddings=None, attention_mask=None)
    finally:
        l4.eager_attention_forward = original
    plain = attention.q_proj(hidden).view(1, seq_len, 2, 8).transpose(1, 2)
    return (captured["query"] / plain).detach().numpy()[0, 0, :, 0]


def test_llama4_temperature_matches_the_attention_layer():
    seq_len, floor_scale, attn_scale = 40, 6, 0.25
    reference = _llama4_query_multipliers(seq_len, floor_scale, attn_scale)
    config = {
        "model_type": "llama4_text",
        "num_hidden_layers": 4,
        "head_dim": 8,
        "rope_theta": 10000.0,
        "floor_scale": floor_scale,
        "attn_scale": attn_scale,
    }
    settings = config_attention_temperature(config)
    assert settings.layers == (3,)
    # transformers computes the factor from float32 positions: float32 rounding apart
    np.testing.assert_allclose(settings.factors(seq_len), reference, rtol=1e-6)
    # the harness notices a step one position late (offset 0 instead of 1)
    late = attention_temperature(seq_len, beta=attn_scale, floor_scale=floor_scale)
    assert not np.allclose(late, reference, rtol=1e-6)


@pytest.mark.parametrize("beta,length", [(0.1, 16384), (0.5, 7)])
def test_ministral3_temperature_matches_get_llama_4_attn_scale(beta, length):
    positions = np.array([0, 1, length - 1, length, 2 * length, 10 * length + 3, 2**40])
    reference = modeling_ministral3.get_llama_4_attn_scale(
        torch.tensor(positions[None, :], dtype=torch.float64), beta, length
    )
    ours = attention_temperature(positions, beta=beta, floor_scale=length)
    np.testing.assert_allclose(ours, reference.numpy().reshape(-1), rtol=1e-15)
    config = {
        "model_type": "ministral3",
        "num_hidden_layers": 3,
        "head_dim": 8,
        "max_position_embeddings": 16 * length,
        "rope_parameters": {
            "rope_type": "yarn",
            "rope_theta": 1e6,
            "factor": 16.0,
            "original_max_position_embeddings": length,
            "llama_4_scaling_beta": beta,
        },
    }
    settings = config_attention_temperature(config)
    assert (settings.offset, settings.layers) == (0, (0, 1, 2))
    np.testing.assert_allclose(settings.factors(positions), ours, rtol=0)


# ---------------------------------------------------------------------------
# MLA
# ---------------------------------------------------------------------------

YARN_SETTINGS = [
    None,
    {
        "rope_type": "yarn",
        "factor": 40.0,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 64,
        "beta_fast": 32,
        "beta_slow": 1,
    },
    {
        "rope_type": "yarn",
        "factor": 4.0,
        "mscale": 0.707,
        "mscale_all_dim": 0.707,
        "original_max_position_embeddings": 64,
        "beta_fast": 32,
        "beta_slow": 1,
    },
    {
        "rope_type": "yarn",
        "factor": 8.0,
        "mscale": 1.0,
        "mscale_all_dim": 0.0,
        "original_max_position_embeddings": 64,
        "beta_fast": 32,
        "beta_slow": 1,
    },
]


def _deepseek(rope_scaling, interleave):
    params = {"rope_type": "default", "rope_theta": 10000.0}
    if rope_scaling:
        params = {**rope_scaling, "rope_theta": 10000.0}
    config = DeepseekV3Config(
        hidden_size=32,
        num_attention_heads=2,
        num_key_value_heads=2,
        q_lora_rank=None,
        kv_lora_rank=8,
        qk_nope_head_dim=6,
        qk_rope_head_dim=4,
        v_head_dim=6,
        num_hidden_layers=1,
        max_position_embeddings=int(64 * (rope_scaling or {}).get("factor", 1)),
        rope_parameters=params,
        rope_interleave=interleave,
        attn_implementation="eager",
    )
    return config


@pytest.mark.parametrize("scaling", YARN_SETTINGS, ids=["none", "v3", "v2", "no-all-dim"])
def test_mla_softmax_scale_matches_deepseek_v3(scaling):
    config = _deepseek(scaling, True)
    attention = ds.DeepseekV3Attention(config, layer_idx=0)
    assert mla_softmax_scale(6, 4, scaling=config.rope_parameters) == pytest.approx(
        attention.scaling, rel=1e-15
    )


def _deepseek_scores(config, seq_len):
    """``scaling · q kᵀ`` of a tiny DeepseekV3Attention (float64) and the pieces it rotated."""
    torch.manual_seed(1)
    attention = ds.DeepseekV3Attention(config, layer_idx=0).double().eval()
    rotary = ds.DeepseekV3RotaryEmbedding(config).double()
    hidden = torch.randn(1, seq_len, 32, dtype=torch.float64)
    positions = torch.arange(seq_len)[None, :]
    captured = {}

    def capture(module, query, key, value, attention_mask, scaling, **kwargs):
        captured["scores"] = scaling * query @ key.transpose(2, 3)
        shape = (query.shape[0], query.shape[2], query.shape[1], value.shape[-1])
        return torch.zeros(shape, dtype=query.dtype), None

    original = ds.eager_attention_forward
    ds.eager_attention_forward = capture
    try:
        with torch.no_grad():
            attention(hidden, rotary(hidden, positions), attention_mask=None)
    finally:
        ds.eager_attention_forward = original
    with torch.no_grad():  # the unrotated projections, as the layer computes them
        q = attention.q_proj(hidden).view(1, seq_len, 2, 10).transpose(1, 2)[0]
        latent, k_rope = torch.split(attention.kv_a_proj_with_mqa(hidden), [8, 4], dim=-1)
        kv = attention.kv_b_proj(attention.kv_a_layernorm(latent)).view(1, seq_len, 2, 12)
        k_nope = kv.transpose(1, 2)[0, ..., :6]
    return captured["scores"][0].numpy(), q.numpy(), k_nope.numpy(), k_rope[0].numpy()


@pytest.mark.parametrize("interleave", [True, False], ids=["interleaved", "halves"])
@pytest.mark.parametrize("scaling", YARN_SETTINGS[:2], ids=["none", "v3"])
def test_mla_scores_match_deepseek_v3(scaling, interleave):
    config = _deepseek(scaling, interleave)
    seq_len = 24
    reference, q, k_nope, k_rope = _deepseek_scores(config, seq_len)
    ds_config = {
        "model_type": "deepseek_v3",
        "qk_rope_head_dim": 4,
        "max_position_embeddings": config.max_position_embeddings,
        "rope_interleave": interleave,
        "rope_scaling": scaling,
        "rope_theta": 10000.0,
    }
    inv_freq, factor = config_rope_frequencies(ds_config)
    layout = "interleaved" if interleave else "halves"
    scale = mla_softmax_scale(6, 4, scaling=scaling)
    ours = mla_scores(
        q,
        k_nope,
        k_rope,
        seq_len,
        inv_freq,
        layout=layout,
        attention_factor=factor,
        softmax_scale=scale,
    )
    # transformers keeps inv_freq in float32 (a few ulps from the float64 formula)
    np.testing.assert_allclose(ours, reference, rtol=1e-6, atol=1e-6)
    # the harness notices the other pairing
    other = "halves" if interleave else "interleaved"
    wrong = mla_scores(
        q,
        k_nope,
        k_rope,
        seq_len,
        inv_freq,
        layout=other,
        attention_factor=factor,
        softmax_scale=scale,
    )
    assert not np.allclose(wrong, reference, rtol=1e-6, atol=1e-6)


def test_the_gallery_ministral3_multiplier_is_get_llama_4_attn_scale():
    """Chapter 21's table: Ministral 3's gallery config read by the library, against
    transformers' function at the chapter's positions; Llama 4's form (offset 1) is not it."""
    from pe_book.chapters.todays_models import MINISTRAL_AT, _gallery_config

    config = _gallery_config("ministral-3-3b-reasoning-2512")
    settings = config_attention_temperature(config)
    rope = config["text_config"]["rope_parameters"]
    positions = np.array(MINISTRAL_AT)
    reference = (
        modeling_ministral3.get_llama_4_attn_scale(
            torch.tensor(positions[None, :], dtype=torch.float64),
            rope["llama_4_scaling_beta"],
            rope["original_max_position_embeddings"],
        )
        .numpy()
        .reshape(-1)
    )
    np.testing.assert_allclose(settings.factors(positions), reference, rtol=1e-15)
    assert settings.factors([8191])[0] == 1.0  # no step before m = L = 16,384
    llama4_form = attention_temperature(positions, beta=settings.beta, floor_scale=8192, offset=1)
    assert not np.allclose(llama4_form, reference)
