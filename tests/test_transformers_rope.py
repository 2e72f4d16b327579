"""Differential tests: RoPE frequencies and partial rotation against ``transformers`` itself.

Every configuration is written as a JSON dict (v4 ``rope_scaling`` or v5
``rope_parameters``), handed to the library as it is and to a real
``transformers`` config class; the two must agree on what the model's rotary
embedding holds (``inv_freq`` / ``<layer_type>_inv_freq`` and the attention
scaling).

Tolerances:

* against ``transformers``' own float32 computation: ``F32_RTOL`` = 16 float32 ulps
  relative (``2**-19``), a little more than the float32 rounding of ``base**x``;
  for the blends of YaRN and Llama 3, ``F32_RTOL · factor``: the float32 rounding
  of the blend weight ``w`` in ``(1 − w) ω / factor + w ω`` is multiplied by up to
  ``factor`` relative to the blended frequency;
* against the same ``transformers`` functions evaluated in float64 (their
  ``torch.float`` swapped for ``torch.float64``): ``F64_RTOL`` = 1e-14, float64
  rounding, so the formula, not just its float32 shadow, is checked.
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip("torch", reason="torch is not installed (differential tests run in CI)")

from transformers import (  # noqa: E402
    Gemma3TextConfig,
    Gemma4TextConfig,
    GPTNeoXConfig,
    LlamaConfig,
    Phi3Config,
    PhiConfig,
    Qwen2Config,
)
from transformers import modeling_rope_utils as hf_rope  # noqa: E402
from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding  # noqa: E402
from transformers.models.gemma4.modeling_gemma4 import Gemma4TextRotaryEmbedding  # noqa: E402
from transformers.models.glm import modeling_glm  # noqa: E402
from transformers.models.gpt_neox import modeling_gpt_neox  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402
from transformers.models.phi.modeling_phi import PhiRotaryEmbedding  # noqa: E402

import pe_explained as pe  # noqa: E402

F32_RTOL = 2.0**-19  # 16 float32 ulps, relative
F64_RTOL = 1e-14
N_RANDOM = 40  # random configs per rope type


# ---------------------------------------------------------------------------
# The harness
# ---------------------------------------------------------------------------


def hf_config(cls, config: dict):
    """A transformers config built from a JSON dict (copied: transformers edits its input)."""
    return cls(**copy.deepcopy(config))


def json_dict(config: dict) -> dict:
    """What ``json.load`` of the config file gives."""
    return json.loads(json.dumps(config))


class _Float64Torch:
    """``torch`` with ``torch.float``/``torch.float32`` meaning float64: swapped into
    ``modeling_rope_utils`` it runs transformers' formulas in double precision."""

    def __getattr__(self, name):
        return torch.float64 if name in ("float", "float32") else getattr(torch, name)


def hf_float64(rope_type, config, seq_len=None):
    saved = hf_rope.torch
    hf_rope.torch = _Float64Torch()
    try:
        inv_freq, factor = hf_rope.ROPE_INIT_FUNCTIONS[rope_type](config, None, seq_len=seq_len)
    finally:
        hf_rope.torch = saved
    assert inv_freq.dtype == torch.float64
    return inv_freq.numpy(), float(factor)


def agree(ours, theirs, rtol, what=""):
    """Raise AssertionError unless the frequencies and the attention factors agree."""
    (inv_freq, factor), (ref, ref_factor) = ours, theirs
    ref = np.asarray(ref, dtype=np.float64)
    assert inv_freq.shape == ref.shape, f"{what}: shape {inv_freq.shape} vs {ref.shape}"
    np.testing.assert_allclose(inv_freq, ref, rtol=rtol, atol=0, err_msg=what)
    assert factor == pytest.approx(float(ref_factor), rel=rtol, abs=0), what


WORST = {}


def record(name, ours, ref, rtol=F32_RTOL):
    """Keep the largest relative error met, in units of the tolerance it was held to."""
    err = np.max(np.abs(ours - ref) / np.where(ref == 0, 1.0, np.abs(ref)), initial=0.0)
    WORST[name] = max(WORST.get(name, 0.0), float(err) / rtol)


def test_the_harness_fails_on_a_wrong_answer():
    ours = (np.array([1.0, 0.1]), 1.0)
    agree(ours, (np.array([1.0, 0.1], dtype=np.float32), 1.0), F32_RTOL)
    with pytest.raises(AssertionError):  # 32 float32 ulps off in one entry
        agree(ours, (np.array([1.0, 0.1 * (1 + 2.0**-18)]), 1.0), F32_RTOL)
    with pytest.raises(AssertionError):  # a wrong attention factor
        agree(ours, (np.array([1.0, 0.1]), 1.0001), F32_RTOL)
    with pytest.raises(AssertionError):  # one pair too many
        agree(ours, (np.array([1.0, 0.1, 0.01]), 1.0), F32_RTOL)


def test_every_rope_type_transformers_knows_is_known_here():
    assert set(hf_rope.ROPE_INIT_FUNCTIONS) | {"default"} == set(pe.ROPE_TYPES)


# ---------------------------------------------------------------------------
# Random configs, every rope type
# ---------------------------------------------------------------------------

HEAD_DIMS = (16, 32, 64, 80, 96, 128, 256)
SHARES = (1.0, 1.0, 0.5, 0.25, 0.75, 0.4)


def random_config(rope_type, rng):
    """A config dict of random shape (v4 or v5), sizes and parameters for ``rope_type``."""
    while True:
        head_dim, share = int(rng.choice(HEAD_DIMS)), float(rng.choice(SHARES))
        if int(head_dim * share) % 2 == 0 and int(head_dim * share) >= 4:
            break
    heads = int(rng.integers(1, 9))
    original = int(rng.choice([512, 2048, 4096, 8192]))
    theta = float(10 ** rng.uniform(3, 7))
    params = {"rope_type": rope_type}
    dim = int(head_dim * share)
    if rope_type in ("linear", "dynamic", "yarn", "llama3"):
        params["factor"] = float(rng.choice([1.0, 2.0, 4.0, 8.0, 16.0, 32.0]))
    if rope_type == "yarn":
        for key, value in (("beta_fast", 16.0), ("beta_slow", 2.0), ("truncate", False)):
            if rng.random() < 0.3:
                params[key] = value
        if rng.random() < 0.3:
            params["mscale"], params["mscale_all_dim"] = 0.707, 1.0
        if rng.random() < 0.2:
            params["attention_factor"] = 0.9
    if rope_type == "llama3":
        params["low_freq_factor"] = float(rng.choice([1.0, 2.0]))
        params["high_freq_factor"] = params["low_freq_factor"] * float(rng.choice([1.0, 2.0, 4.0]))
    if rope_type == "longrope":
        params["short_factor"] = (1 + rng.random(dim // 2)).tolist()
        params["long_factor"] = (1 + 10 * rng.random(dim // 2)).tolist()
        if rng.random() < 0.5:
            params["factor"] = float(rng.choice([4.0, 32.0]))
    if rope_type == "proportional":
        share = float(rng.choice([0.25, 0.5, 1.0, 0.3]))
        if rng.random() < 0.3:
            params["factor"] = 2.0
    needs_original = rope_type in ("yarn", "llama3", "longrope")
    if needs_original and rng.random() < 0.7:
        params["original_max_position_embeddings"] = original
    max_pos = original * int(rng.choice([1, 4, 16])) if needs_original else original
    config = {
        "hidden_size": head_dim * heads,
        "num_attention_heads": heads,
        "max_position_embeddings": max_pos,
    }
    if rng.random() < 0.5:
        config["head_dim"] = head_dim
    v4 = rng.random() < 0.5
    if v4:  # rope_theta and partial_rotary_factor at the top level, "type" now and then
        config["rope_theta"] = theta
        if share != 1.0:
            config["partial_rotary_factor"] = share
        if rng.random() < 0.3:
            params["type"] = params.pop("rope_type")
        config["rope_scaling"] = params
    else:
        config["rope_parameters"] = {**params, "rope_theta": theta}
        if share != 1.0:
            config["rope_parameters"]["partial_rotary_factor"] = share
    return config


def _seq_lens(config):
    max_pos = config["max_position_embeddings"]
    return [None, 1, max_pos, max_pos + 1, 3 * max_pos]


@pytest.mark.parametrize("rope_type", sorted(pe.ROPE_TYPES))
def test_random_configs_agree_with_transformers(rope_type):
    rng = np.random.default_rng(sum(map(ord, rope_type)))
    for trial in range(N_RANDOM):
        config = random_config(rope_type, rng)
        # Llama's rotary class ignores partial_rotary_factor for the default type; Phi's reads
        # it (and defaults it to 0.5, a class default no config.json here relies on)
        cls, rotary = (PhiConfig, PhiRotaryEmbedding)
        if rope_type == "default":
            rope = config.get("rope_parameters") or config
            rope.setdefault("partial_rotary_factor", 1.0)
        else:
            cls, rotary = (LlamaConfig, LlamaRotaryEmbedding)
        what = f"{rope_type} #{trial}: {config}"
        hf = hf_config(cls, config)
        module = rotary(hf)
        rtol = F32_RTOL
        if rope_type in ("yarn", "llama3"):
            rtol *= max(1.0, pe.rope_settings(json_dict(config))["default"].scaling["factor"])
        ours = pe.config_rope_frequencies(json_dict(config))
        agree(ours, (module.inv_freq.numpy(), module.attention_scaling), rtol, what)
        record(rope_type, ours[0], module.inv_freq.numpy().astype(np.float64), rtol)
        if rope_type == "default":
            continue
        for seq_len in _seq_lens(config):
            ours = pe.config_rope_frequencies(json_dict(config), seq_len=seq_len)
            theirs = hf_rope.ROPE_INIT_FUNCTIONS[rope_type](hf, None, seq_len=seq_len)
            agree(ours, (theirs[0].numpy(), theirs[1]), rtol, f"{what} seq_len={seq_len}")
            if (
                rope_type != "longrope"
            ):  # its exponent is rounded to float32 whatever torch.float is
                agree(ours, hf_float64(rope_type, hf, seq_len), F64_RTOL, f"{what} (float64)")


def test_default_and_partial_rotary_in_float64_against_the_formula():
    # inv_freq_i = base^(−2i / rotary_dim), rotary_dim = int(head_dim · share): math module, loop
    for head_dim, share, base in [(80, 0.4, 10000.0), (128, 0.25, 1e6), (64, 0.5, 500000.0)]:
        config = {"head_dim": head_dim, "rope_theta": base, "partial_rotary_factor": share}
        dim = int(head_dim * share)
        expected = [1.0 / base ** (2 * i / dim) for i in range(dim // 2)]
        inv_freq, factor = pe.config_rope_frequencies(config)
        np.testing.assert_allclose(inv_freq, expected, rtol=F64_RTOL, atol=0)
        assert factor == 1.0


def test_proportional_in_float64_against_the_formula():
    # p-RoPE: the fastest ⌊share · head_dim / 2⌋ pairs at base^(−2i / head_dim), the rest 0
    head_dim, share, base, factor = 512, 0.25, 1e6, 2.0
    turning = int(share * head_dim // 2)
    expected = [
        (1.0 / base ** (2 * i / head_dim) if i < turning else 0.0) / factor
        for i in range(head_dim // 2)
    ]
    params = {"rope_type": "proportional", "partial_rotary_factor": share, "factor": factor}
    inv_freq, attention_factor = pe.rope_frequencies(head_dim, base=base, scaling=params)
    np.testing.assert_allclose(inv_freq, expected, rtol=F64_RTOL, atol=0)
    assert attention_factor == 1.0 and np.count_nonzero(inv_freq) == turning == 64


# ---------------------------------------------------------------------------
# Real config classes, v4 and v5, per layer type
# ---------------------------------------------------------------------------


def _rotary_buffers(module, layer_types):
    return {
        t: (getattr(module, f"{t}_inv_freq").numpy(), getattr(module, f"{t}_attention_scaling"))
        for t in layer_types
    }


GEMMA3_V4 = {
    "hidden_size": 640,
    "num_attention_heads": 4,
    "head_dim": 256,
    "num_hidden_layers": 12,
    "max_position_embeddings": 131072,
    "rope_theta": 1000000.0,
    "rope_local_base_freq": 10000.0,
    "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
    "sliding_window_pattern": 6,
    "model_type": "gemma3_text",
}


@pytest.mark.parametrize("shape", ["v4", "v5 (saved by transformers)"])
def test_gemma3_per_layer_type(shape):
    hf = hf_config(Gemma3TextConfig, GEMMA3_V4)
    config = GEMMA3_V4 if shape == "v4" else json_dict(hf.to_dict())
    if shape != "v4":
        assert "rope_scaling" not in config and "full_attention" in config["rope_parameters"]
    theirs = _rotary_buffers(Gemma3RotaryEmbedding(hf), ("full_attention", "sliding_attention"))
    settings = pe.rope_settings(json_dict(config))
    assert set(settings) == {"full_attention", "sliding_attention"}
    assert settings["full_attention"].rope_theta == 1e6
    assert settings["sliding_attention"].rope_theta == 1e4
    for layer_type, ref in theirs.items():
        ours = pe.config_rope_frequencies(json_dict(config), layer_type=layer_type)
        agree(ours, ref, F32_RTOL, f"{shape} {layer_type}")
        record("gemma3", ours[0], ref[0].astype(np.float64))


@pytest.mark.parametrize("source", ["kwargs", "v5 (saved by transformers)"])
def test_gemma4_proportional_global_layers(source):
    kwargs = {
        "hidden_size": 256,
        "num_attention_heads": 4,
        "head_dim": 64,
        "global_head_dim": 128,
        "num_hidden_layers": 6,
    }
    hf = hf_config(Gemma4TextConfig, kwargs)
    config = kwargs if source == "kwargs" else json_dict(hf.to_dict())
    if source == "kwargs":  # Gemma4TextConfig's defaults, as Gemma 4's files spell them
        config = {
            **config,
            "layer_types": hf.layer_types,
            "rope_parameters": json_dict(hf.rope_parameters),
        }
    theirs = _rotary_buffers(Gemma4TextRotaryEmbedding(hf), ("full_attention", "sliding_attention"))
    settings = pe.rope_settings(json_dict(config))
    assert settings["full_attention"].rope_type == "proportional"
    assert settings["full_attention"].head_dim == 128
    for layer_type, ref in theirs.items():
        ours = pe.config_rope_frequencies(json_dict(config), layer_type=layer_type)
        agree(ours, ref, F32_RTOL, f"{source} {layer_type}")
        record("gemma4", ours[0], ref[0].astype(np.float64))


def test_phi3_longrope_reads_the_top_level_original_context():
    rng = np.random.default_rng(3)
    config = {
        "hidden_size": 3072,
        "num_attention_heads": 32,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_theta": 10000.0,
        "rope_scaling": {
            "type": "longrope",
            "short_factor": (1 + rng.random(48)).tolist(),
            "long_factor": (1 + 20 * rng.random(48)).tolist(),
        },
    }
    hf = hf_config(Phi3Config, config)
    settings = pe.rope_settings(json_dict(config))["default"]
    assert settings.original_max_position_embeddings == 4096
    assert settings.scaling["factor"] == 32.0  # max / original, as transformers derives it
    for seq_len in (None, 4096, 4097, 131072):
        theirs = hf_rope.ROPE_INIT_FUNCTIONS["longrope"](hf, None, seq_len=seq_len)
        ours = pe.config_rope_frequencies(json_dict(config), seq_len=seq_len)
        agree(ours, (theirs[0].numpy(), theirs[1]), F32_RTOL, f"seq_len={seq_len}")
    assert ours[1] == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)


def test_gpt_neox_names_its_base_and_share_rotary_emb_base_and_rotary_pct():
    config = {
        "hidden_size": 512,
        "num_attention_heads": 8,
        "rotary_pct": 0.25,
        "rotary_emb_base": 10000,
        "max_position_embeddings": 2048,
    }  # Pythia's spelling
    module = modeling_gpt_neox.GPTNeoXRotaryEmbedding(hf_config(GPTNeoXConfig, config))
    settings = pe.rope_settings(json_dict(config))["default"]
    assert (settings.rotary_dim, settings.rope_theta) == (16, 10000.0)
    agree(
        pe.config_rope_frequencies(json_dict(config)),
        (module.inv_freq.numpy(), module.attention_scaling),
        F32_RTOL,
    )


def test_qwen2_yarn_and_derived_factor():
    config = {
        "hidden_size": 1024,
        "num_attention_heads": 16,
        "max_position_embeddings": 131072,
        "rope_theta": 1000000.0,
        "rope_scaling": {
            "type": "yarn",
            "factor": None,  # DeepSeek-style: derived from the two lengths
            "original_max_position_embeddings": 32768,
        },
    }
    hf = hf_config(Qwen2Config, config)
    theirs = hf_rope.ROPE_INIT_FUNCTIONS["yarn"](hf, None)
    ours = pe.config_rope_frequencies(json_dict(config))
    agree(ours, (theirs[0].numpy(), theirs[1]), F32_RTOL)
    assert pe.rope_settings(config)["default"].scaling["factor"] == 4.0


# ---------------------------------------------------------------------------
# Partial rotation: apply_rope against the reference apply functions
# ---------------------------------------------------------------------------


def _cos_sin(inv_freq, positions):
    freqs = torch.outer(torch.as_tensor(positions, dtype=torch.float64), torch.as_tensor(inv_freq))
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[None], emb.sin()[None]  # (batch 1, seq, rotary_dim)


@pytest.mark.parametrize(
    "layout,module",
    [("halves", modeling_gpt_neox), ("interleaved", modeling_glm)],
    ids=["gpt_neox (halves)", "glm (interleaved)"],
)
@pytest.mark.parametrize("head_dim,share", [(64, 0.25), (80, 0.4), (128, 0.5), (32, 1.0)])
def test_partial_apply_matches_the_reference(layout, module, head_dim, share):
    rng = np.random.default_rng(head_dim)
    rotary_dim = int(head_dim * share)
    inv_freq, _ = pe.rope_frequencies(head_dim, base=10000.0, partial_rotary_factor=share)
    assert len(inv_freq) == rotary_dim // 2
    q = rng.standard_normal((2, 3, 17, head_dim))  # (batch, heads, seq, head_dim)
    k = rng.standard_normal((2, 3, 17, head_dim))
    positions = rng.integers(0, 5000, size=17)
    cos, sin = _cos_sin(inv_freq, positions)
    ref_q, ref_k = module.apply_rotary_pos_emb(
        torch.as_tensor(q), torch.as_tensor(k), cos.expand(2, -1, -1), sin.expand(2, -1, -1)
    )
    for x, ref in ((q, ref_q), (k, ref_k)):
        out = pe.apply_rope(x, positions, inv_freq, layout=layout, rotary_dim=rotary_dim)
        np.testing.assert_allclose(out, ref.numpy(), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(out[..., rotary_dim:], x[..., rotary_dim:])


def test_worst_errors_are_within_the_stated_tolerance():
    """Runs last in this file: the largest relative error met against float32 transformers."""
    if not WORST:
        pytest.skip("run with the differential tests above")
    print({name: f"{ratio:.3f} of the tolerance" for name, ratio in WORST.items()})
    assert max(WORST.values()) <= 1.0, WORST


# ---------------------------------------------------------------------------
# Conventions transformers accepts: zero betas, absent factor, rope_theta in the dict
# ---------------------------------------------------------------------------

YARN_V5 = {
    "hidden_size": 1024,
    "num_attention_heads": 16,
    "max_position_embeddings": 16384,
    "rope_parameters": {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": 4096,
    },
}


@pytest.mark.parametrize(
    "extra",
    [
        {"beta_fast": 0},
        {"beta_fast": 0.0, "beta_slow": 0},
        {"beta_slow": 0.0},
        {"beta_fast": None, "beta_slow": None},
        {"beta_fast": 0, "beta_slow": 2.0},
    ],
)
def test_zero_or_null_betas_mean_the_defaults_as_in_transformers(extra):
    # transformers reads `rope_parameters.get("beta_fast") or 32` (and `or 1` for beta_slow)
    config = copy.deepcopy(YARN_V5)
    config["rope_parameters"].update(extra)
    theirs = hf_rope.ROPE_INIT_FUNCTIONS["yarn"](hf_config(LlamaConfig, config), None)
    expected = (theirs[0].numpy(), theirs[1])
    agree(pe.config_rope_frequencies(json_dict(config)), expected, F32_RTOL * 4)
    scaling = {k: v for k, v in config["rope_parameters"].items() if k != "rope_theta"}
    agree(pe.rope_frequencies(64, scaling=scaling), expected, F32_RTOL * 4)


@pytest.mark.parametrize("factor", ["absent", None])
@pytest.mark.parametrize("rope_type", ["yarn", "longrope"])
def test_factor_derived_from_the_lengths_in_a_v5_dict(rope_type, factor):
    # transformers: factor = max_position_embeddings / original_max_position_embeddings
    config = copy.deepcopy(YARN_V5)
    params = config["rope_parameters"]
    params["rope_type"] = rope_type
    if rope_type == "longrope":
        params["short_factor"] = [1.0 + i / 64 for i in range(32)]
        params["long_factor"] = [1.0 + i / 4 for i in range(32)]
    if factor == "absent":
        del params["factor"]
    else:
        params["factor"] = None
    if rope_type == "yarn" and factor == "absent":
        # transformers requires the key (None is its way of saying "derive it"); the
        # library derives it all the same, as for None
        with pytest.raises(KeyError, match="factor"):
            hf_config(LlamaConfig, config)
    ours_config = json_dict(config)
    params["factor"] = None
    hf = hf_config(LlamaConfig, config)
    for seq_len in (None, 16384, 20000):
        theirs = hf_rope.ROPE_INIT_FUNCTIONS[rope_type](hf, None, seq_len=seq_len)
        ours = pe.config_rope_frequencies(ours_config, seq_len=seq_len)
        agree(ours, (theirs[0].numpy(), theirs[1]), F32_RTOL * 4)


def test_rope_frequencies_takes_the_dict_of_a_v5_config_with_its_rope_theta():
    # the dict as a v5 config.json ships it: rope_theta inside; base= must agree with it
    params = dict(YARN_V5["rope_parameters"], rope_theta=500000.0)
    theirs = hf_rope.ROPE_INIT_FUNCTIONS["yarn"](
        hf_config(LlamaConfig, {**YARN_V5, "rope_parameters": params}), None
    )
    ours = pe.rope_frequencies(64, base=500000.0, scaling=params)
    agree(ours, (theirs[0].numpy(), theirs[1]), F32_RTOL * 4)
    with pytest.raises(ValueError, match=r"scaling\['rope_theta'\] = 500000 .* base = 10000"):
        pe.rope_frequencies(64, scaling=params)


def test_a_missing_factor_outside_a_config_says_where_transformers_takes_it():
    scaling = {"rope_type": "yarn", "original_max_position_embeddings": 4096}
    for bad in (scaling, {**scaling, "factor": None}):
        with pytest.raises(ValueError, match=r"factor.*max_position_embeddings.*config_rope_freq"):
            pe.rope_frequencies(64, scaling=bad)


def test_the_installed_transformers_is_the_version_the_library_names():
    # pe_explained.rope names the version its numbers are compared with; .ci/run pins it
    import re
    from pathlib import Path

    run = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    pinned = re.search(r"transformers==([0-9.]+)", run).group(1)
    assert transformers.__version__ == pinned, (
        f"these differential tests compare with transformers {pinned}; "
        f"{transformers.__version__} is installed"
    )


def test_class_defaults_are_the_configuration_classes():
    """hf_families.CLASS_DEFAULTS: the base and the length each family's configuration
    class fills in where the file states none (a multimodal family: its text config)."""
    from transformers import CONFIG_MAPPING

    from pe_explained.hf_families import CLASS_DEFAULTS

    for model_type, (theta, length) in CLASS_DEFAULTS.items():
        text = CONFIG_MAPPING[model_type]().get_text_config()
        assert text.max_position_embeddings == length, model_type
        params = text.rope_parameters
        if theta is None:  # a base per layer type
            assert "rope_theta" not in params or isinstance(params.get("full_attention"), dict)
        else:
            bases = (
                {params["rope_theta"]}
                if "rope_theta" in params
                else {p["rope_theta"] for p in params.values() if isinstance(p, dict)}
            )
            assert bases == {theta}, (model_type, params)


def test_default_max_positions_are_the_configuration_classes():
    """hf_families.DEFAULT_MAX_POSITIONS: the max_position_embeddings a family's class
    holds where the file has none (a multimodal family's: its text config's), which
    vLLM reads from the configuration object."""
    from transformers import CONFIG_MAPPING

    from pe_explained.hf_families import DEFAULT_MAX_POSITIONS

    for model_type, length in DEFAULT_MAX_POSITIONS.items():
        text = CONFIG_MAPPING[model_type]().get_text_config()
        assert text.max_position_embeddings == length, model_type
    # Gemma 3 27B-it's file, text_config without a length: the class fills it in
    gemma = CONFIG_MAPPING["gemma3"](text_config={"head_dim": 128, "hidden_size": 5376})
    assert gemma.get_text_config().max_position_embeddings == DEFAULT_MAX_POSITIONS["gemma3"]
