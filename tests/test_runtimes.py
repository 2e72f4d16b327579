"""The runtime arguments (``pe_explained.runtimes``) against each runtime's own formulas.

Two harnesses recompute, from the printed arguments alone, the inverse frequencies and
the attention factor the runtime would use, written from its code as cited (our own
code, float64):

* **llama.cpp b8457** (commit e06c3ab): flags over GGUF values as ``llama_context``'s
  constructor combines them (``src/llama-context.cpp``: ``rope_freq_base``,
  ``rope_freq_scale``, ``yarn_ext_factor`` and ``yarn_attn_factor``, YaRN's factor
  overwritten, ``rope_attn_factor`` last), the ramp of ``ggml_rope_yarn_corr_dims``
  (``ggml/src/ggml.c``: floor and ceil, clipped to ``[0, n_dims − 1]``) and
  ``rope_yarn`` (``ggml/src/ggml-cpu/ops.cpp``: ``θ/ff``, the mix, ``mscale ·
  (1 + 0.1 ln(1/freq_scale))``); the GGUF's values as ``convert_hf_to_gguf.py`` (commit
  0024aa7) writes them (Llama 3's ``rope_freqs``, Phi-3's LongRoPE factors and
  attention factor).
* **vLLM 0.33.0**: ``get_rope`` and the classes of ``model_executor/layers/
  rotary_embedding`` for the types in the gallery, fed the ``--hf-overrides`` dict and
  ``--max-model-len``; ``_get_and_verify_max_len`` for the length.

Each must equal what :func:`pe_explained.rope_settings` computes for the config at the
printed context, over every gallery config; each is shown to fail on a wrong argument.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import pe_explained as pe
from pe_explained.cli import main
from pe_explained.hf_config import ROPE_KEYS
from pe_explained.runtimes import (
    RUNTIME_COLUMNS,
    RUNTIME_SPELLINGS,
    format_runtime_arguments,
    llama_cpp_arguments,
    runtime_arguments,
    vllm_arguments,
    vllm_max_model_len,
)

GALLERY = sorted((Path(__file__).parents[1] / "docs" / "data" / "models").glob("*.json"))
RTOL = 1e-9


def _config(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))["config"]


def _text(config: dict) -> dict:
    if not any(k in config for k in ROPE_KEYS) and isinstance(config.get("text_config"), dict):
        return config["text_config"]
    return config


def _primary(config: dict):
    settings = pe.rope_settings(config)
    for name in ("full_attention", "default"):
        if settings.get(name) is not None:
            return name, settings[name]
    name = next(k for k, v in settings.items() if v is not None)
    return name, settings[name]


def _rotary(config: dict) -> bool:
    return any(k in _text(config) for k in ROPE_KEYS)


# ---------------------------------------------------------------------------
# llama.cpp b8457
# ---------------------------------------------------------------------------


def _flags(args: list[str]) -> tuple[dict, dict]:
    """Flags → value, and ``--override-kv`` key (without ``ARCH.``) → float."""
    flags, overrides, i = {}, {}, 0
    while i < len(args):
        flag, value = args[i], args[i + 1]
        if flag == "--override-kv":
            key, _, typed = value.partition("=")
            kind, _, number = typed.partition(":")
            assert kind == "float" and key.startswith("ARCH."), value
            overrides[key.removeprefix("ARCH.")] = float(number)
        else:
            flags[flag] = value
        i += 2
    return flags, overrides


def _gguf(config: dict) -> dict:
    """What ``convert_hf_to_gguf.py`` (0024aa7) writes that the flags do not restate."""
    _, s = _primary(config)
    text = _text(config)
    scaling = dict(s.scaling or {})
    gguf = {
        "n_rot": s.rotary_dim,
        "n_ctx_train": s.max_position_embeddings,
        "orig_ctx": s.original_max_position_embeddings,
        "freq_factors": None,
        "attn_factor": 1.0,
    }
    if s.rope_type == "llama3":  # LlamaModel.generate_extra_tensors: rope_freqs
        dim = s.head_dim
        freqs = 1.0 / s.rope_theta ** (np.arange(0, dim, 2) / dim)
        old = text.get("original_max_position_embeddings", 8192)  # the top level, as read
        low, high = old / scaling["low_freq_factor"], old / scaling["high_freq_factor"]
        factors = []
        for freq in freqs:
            wavelen = 2 * math.pi / freq
            if wavelen < high:
                factors.append(1.0)
            elif wavelen > low:
                factors.append(scaling["factor"])
            else:
                smooth = (old / wavelen - scaling["low_freq_factor"]) / (
                    scaling["high_freq_factor"] - scaling["low_freq_factor"]
                )
                factors.append(1 / ((1 - smooth) / scaling["factor"] + smooth))
        gguf["freq_factors"] = np.array(factors)
    if s.rope_type == "longrope":  # Phi3MiniModel: factors and rope.scaling.attn_factor
        orig = s.original_max_position_embeddings
        scale = s.max_position_embeddings / orig
        gguf["attn_factor"] = math.sqrt(1 + math.log(scale) / math.log(orig)) if scale > 1 else 1
        gguf["long"] = np.array(scaling["long_factor"], dtype=np.float64)
        gguf["short"] = np.array(scaling["short_factor"], dtype=np.float64)
    return gguf


def _mscale(scale: float, mscale: float) -> float:
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def llama_cpp_rope(args: list[str], gguf: dict, arch: str = "llama"):
    """Per-pair frequency and cos/sin multiplier of llama.cpp b8457 for these flags."""
    flags, overrides = _flags(args)
    base = float(flags["--rope-freq-base"])  # cparams.rope_freq_base (0: the GGUF's)
    scaling = flags.get("--rope-scaling", "longrope" if "long" in gguf else "linear")
    freq_scale = float(flags.get("--rope-freq-scale", 1.0))
    if scaling == "none":
        freq_scale = 1.0  # "never scale if scaling type is none"
    ext = float(flags.get("--yarn-ext-factor", -1.0))
    if ext < 0:
        ext = 1.0 if scaling == "yarn" else 0.0
    attn = float(flags.get("--yarn-attn-factor", -1.0))
    attn = attn if attn >= 0 else 1.0  # hparams.yarn_attn_factor
    log_mul = 0.0
    if arch in ("deepseek2", "mistral3") and "rope.scaling.yarn_log_multiplier" in overrides:
        log_mul = overrides["rope.scaling.yarn_log_multiplier"] / 0.1  # the loader's fix
    if ext != 0:
        factor = 1.0 / freq_scale
        if log_mul != 0:
            mscale = log_mul if arch == "deepseek2" and log_mul != 1 else 1.0
            attn = _mscale(factor, mscale) / _mscale(factor, log_mul)
        else:
            attn = _mscale(factor, 1.0)
        attn *= 1.0 / (1.0 + 0.1 * math.log(factor))
    attn *= overrides.get("rope.scaling.attn_factor", gguf["attn_factor"])
    n_dims = gguf["n_rot"]
    orig = int(flags.get("--yarn-orig-ctx", 0)) or gguf["orig_ctx"] or gguf["n_ctx_train"]
    fast = float(flags.get("--yarn-beta-fast", 32.0))
    slow = float(flags.get("--yarn-beta-slow", 1.0))

    def corr_dim(rotations):  # ggml_rope_yarn_corr_dim
        return n_dims * math.log(orig / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(0.0, math.floor(corr_dim(fast)))
    high = min(n_dims - 1.0, math.ceil(corr_dim(slow)))
    pairs = np.arange(n_dims // 2)
    factors = gguf["freq_factors"]
    if "long" in gguf:  # get_rope_factors: long when the context passes the original one
        factors = gguf["long"] if int(flags["-c"]) > gguf["orig_ctx"] else gguf["short"]
    if factors is None:
        factors = np.ones(n_dims // 2)
    extrap = base ** (-2.0 * pairs / n_dims) / factors  # θ_extrap / p
    interp = freq_scale * extrap
    if ext == 0:
        return interp, attn
    ramp = 1 - np.clip((pairs - low) / max(0.001, high - low), 0, 1)  # rope_yarn_ramp
    mix = ramp * ext
    return interp * (1 - mix) + extrap * mix, attn * (1.0 + 0.1 * math.log(1.0 / freq_scale))


#: Gallery configs whose llama.cpp flags cannot reproduce the config: the reason,
#: which the arguments must state as a warning.
LLAMA_CPP_INEXACT = {"truncate: false", "proportional RoPE"}


def _arch(config: dict) -> str:
    """The GGUF architecture convert_hf_to_gguf.py gives the model, where the harness
    needs it (the architectures that read rope.scaling.yarn_log_multiplier)."""
    names = " ".join(config.get("architectures") or ())
    if "DeepseekV2" in names or "DeepseekV3" in names:
        return "deepseek2"
    return "mistral3" if "Mistral3" in names else "llama"


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_llama_cpp_flags_reproduce_every_gallery_config(path):
    config = _config(path)
    result = llama_cpp_arguments(config)
    assert result["runtime"] == "llama.cpp" and all(isinstance(a, str) for a in result["arguments"])
    if not _rotary(config):
        return
    _, s = _primary(config)
    n = s.max_position_embeddings
    expected, attention = s.frequencies(n)
    got, got_attention = llama_cpp_rope(result["arguments"], _gguf(config), _arch(config))
    inexact = [w for w in result["warnings"] if any(w.startswith(r) for r in LLAMA_CPP_INEXACT)]
    if inexact:
        assert not np.allclose(got, expected, rtol=RTOL), "a warned mismatch must be real"
        return
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    assert got_attention == pytest.approx(attention, rel=RTOL)


@pytest.mark.parametrize(
    "scaling",
    [
        {"rope_type": "linear", "factor": 4.0},
        {"rope_type": "dynamic", "factor": 4.0},
        {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096},
        {
            "rope_type": "yarn",
            "factor": 8.0,
            "original_max_position_embeddings": 4096,
            "attention_factor": 1.0,
            "beta_fast": 16,
            "beta_slow": 2,
        },
    ],
    ids=["linear", "dynamic", "yarn", "yarn-attention-factor"],
)
@pytest.mark.parametrize("seq_len", [None, 50_000])
def test_llama_cpp_flags_reproduce_each_setting(scaling, seq_len):
    config = {
        "head_dim": 64,
        "max_position_embeddings": 32_768,
        "rope_theta": 50_000.0,
        "rope_scaling": scaling,
    }
    result = llama_cpp_arguments(config, seq_len=seq_len)
    s = pe.rope_settings(config)["default"]
    n = seq_len or 32_768
    expected, attention = s.frequencies(n)
    got, got_attention = llama_cpp_rope(result["arguments"], _gguf(config))
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    assert got_attention == pytest.approx(attention, rel=RTOL)
    assert ("-c", str(n)) == tuple(result["arguments"][-2:])


def _replace(args: list[str], flag: str, value: str) -> list[str]:
    out = list(args)
    out[out.index(flag) + 1] = value
    return out


def test_the_llama_cpp_harness_fails_on_a_wrong_flag():
    """--rope-freq-scale is 1/factor: the factor itself must not pass, nor a wrong base,
    nor YaRN without its attention override."""
    path = next(p for p in GALLERY if p.stem == "ministral-3-3b-reasoning-2512")
    config = _config(path)
    args = llama_cpp_arguments(config)["arguments"]
    _, s = _primary(config)
    expected, attention = s.frequencies(s.max_position_embeddings)
    gguf = _gguf(config)
    got, got_attention = llama_cpp_rope(args, gguf, "mistral3")
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    factor = str(s.scaling["factor"])
    wrong_scale, _ = llama_cpp_rope(_replace(args, "--rope-freq-scale", factor), gguf, "mistral3")
    assert not np.allclose(wrong_scale, expected, rtol=RTOL)
    wrong_base, _ = llama_cpp_rope(_replace(args, "--rope-freq-base", "10000.0"), gguf, "mistral3")
    assert not np.allclose(wrong_base, expected, rtol=RTOL)
    at = next(i for i, a in enumerate(args) if "yarn_log_multiplier" in a)
    _, wrong_attention = llama_cpp_rope(args[: at - 1] + args[at + 1 :], gguf, "mistral3")
    assert wrong_attention != pytest.approx(attention, rel=RTOL)
    assert got_attention == pytest.approx(attention, rel=RTOL)


def test_llama_cpp_ramp_rounds_like_truncate_true():
    """ggml_rope_yarn_corr_dims floors and ceils: it equals transformers' truncate=True."""
    for head_dim, base, orig in [(128, 10000.0, 4096), (64, 150000.0, 4096), (96, 5e5, 8192)]:
        low, high = pe.yarn_correction_range(
            head_dim, base=base, original_max_position_embeddings=orig
        )
        gguf = {"n_rot": head_dim, "n_ctx_train": orig, "orig_ctx": orig}
        gguf |= {"freq_factors": None, "attn_factor": 1.0}
        args = ["--rope-freq-base", repr(base), "--rope-scaling", "yarn"]
        args += ["--rope-freq-scale", "0.25", "--yarn-orig-ctx", str(orig), "-c", str(4 * orig)]
        got, _ = llama_cpp_rope(args, gguf)
        scaling = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": orig}
        expected, _ = pe.rope_frequencies(head_dim, base=base, scaling=scaling)
        np.testing.assert_allclose(got, expected, rtol=RTOL)
        assert isinstance(low, int) and isinstance(high, int)


def test_gpt_oss_warns_that_its_ramp_is_not_truncated():
    path = next(p for p in GALLERY if p.stem == "gpt-oss-20b")
    result = llama_cpp_arguments(_config(path))
    (warning,) = [w for w in result["warnings"] if w.startswith("truncate: false")]
    assert "ggml_rope_yarn_corr_dims" in warning


def test_llama3_and_longrope_say_the_rule_lives_in_the_gguf():
    for stem, word in [("llama-3.1-8b-instruct", "rope_freqs"), ("phi-4-mini-instruct", "long")]:
        result = llama_cpp_arguments(_config(next(p for p in GALLERY if p.stem == stem)))
        assert any(word in w for w in result["warnings"]), result["warnings"]


def test_longrope_short_factors_below_the_original_context():
    path = next(p for p in GALLERY if p.stem == "phi-3.5-mini-instruct")
    config = _config(path)
    _, s = _primary(config)
    result = llama_cpp_arguments(config, seq_len=4096)
    got, attention = llama_cpp_rope(result["arguments"], _gguf(config))
    expected, expected_attention = s.frequencies(4096)
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    assert attention == pytest.approx(expected_attention, rel=RTOL)
    assert "short" in " ".join(result["warnings"])


# ---------------------------------------------------------------------------
# vLLM 0.33.0
# ---------------------------------------------------------------------------


def _vllm_parameters(args: list[str], config: dict, layer_type: str) -> dict:
    overrides = json.loads(args[args.index("--hf-overrides") + 1])
    if "text_config" in overrides:
        overrides = overrides["text_config"]
    params = overrides["rope_parameters"]
    return params[layer_type] if layer_type in params else params


def vllm_rope(params: dict, head_size: int, max_position: int, max_model_len: int):
    """Per-pair frequency and cos/sin multiplier of vLLM 0.33.0's ``get_rope``."""
    base = params.get("rope_theta", 10000)
    kind = params.get("rope_type", "default")
    rd = int(head_size * params.get("partial_rotary_factor", 1.0))
    inv = 1.0 / base ** (np.arange(0, rd, 2) / rd)
    if kind == "default":
        return inv, 1.0
    if kind == "linear":  # LinearScalingRotaryEmbedding: positions / factor
        return inv / params["factor"], 1.0
    if kind == "dynamic":  # DynamicNTKScalingRotaryEmbedding
        s, trained = params["factor"], params.get("max_trained_positions", max_position)
        new_base = base * (s * max_position / trained - (s - 1)) ** (rd / (rd - 2))
        return 1.0 / new_base ** (np.arange(0, rd, 2) / rd), 1.0
    if kind == "llama3":  # Llama3RotaryEmbedding
        old = params["original_max_position_embeddings"]
        lo, hi, s = params["low_freq_factor"], params["high_freq_factor"], params["factor"]
        wave = 2 * math.pi / inv
        out = np.where(wave > old / lo, inv / s, inv)
        if lo != hi:
            smooth = (old / wave - lo) / (hi - lo)
            mid = (wave <= old / lo) & (wave >= old / hi)
            out = np.where(mid, (1 - smooth) * inv / s + smooth * inv, out)
        return out, 1.0
    if kind == "yarn":  # YaRNScalingRotaryEmbedding, common.yarn_find_correction_range
        s, orig = params["factor"], params["original_max_position_embeddings"]
        fast, slow = params.get("beta_fast", 32), params.get("beta_slow", 1)

        def dim(rotations):
            return rd * math.log(orig / (rotations * 2 * math.pi)) / (2 * math.log(base))

        low, high = dim(fast), dim(slow)
        if params.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, rd - 1)
        if low == high:
            high += 0.001
        mask = 1 - np.clip((np.arange(rd // 2) - low) / (high - low), 0, 1)
        if params.get("attention_factor") is not None:
            mscale = params["attention_factor"]
        elif params.get("mscale") and params.get("mscale_all_dim"):
            mscale = _mscale(s, params["mscale"]) / _mscale(s, params["mscale_all_dim"])
        else:
            mscale = _mscale(s, 1.0)
        return inv / s * (1 - mask) + inv * mask, mscale
    if kind == "proportional":  # Gemma4RotaryEmbedding: head_size in the exponent, zeros
        angles = rd // 2
        inv = 1.0 / base ** (np.arange(0, 2 * angles, 2) / head_size)
        return np.concatenate([inv, np.zeros(head_size // 2 - angles)]), 1.0
    if kind == "longrope":  # Phi3LongRoPEScaledRotaryEmbedding
        orig = params["original_max_position_embeddings"]
        long = max_model_len > orig
        factors = np.array(params["long_factor" if long else "short_factor"], dtype=np.float64)
        scale = max_position / orig
        mscale = 1.0 if scale <= 1 else math.sqrt(1 + math.log(scale) / math.log(orig))
        mscale = params.get("long_mscale" if long else "short_mscale") or mscale
        return 1.0 / (factors * base ** (np.arange(0, rd, 2) / rd)), mscale
    raise AssertionError(f"the harness has no formula for {kind!r}")


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_vllm_arguments_reproduce_every_gallery_config(path):
    config = _config(path)
    result = vllm_arguments(config)
    args = result["arguments"]
    if not _rotary(config) or "--hf-overrides" not in args:
        assert not _rotary(config) or result["warnings"]
        return
    layer_type, s = _primary(config)
    n = int(args[args.index("--max-model-len") + 1])
    assert n == s.max_position_embeddings
    expected, attention = s.frequencies(n)
    params = _vllm_parameters(args, config, layer_type)
    got, got_attention = vllm_rope(params, s.head_dim, s.max_position_embeddings, n)
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    assert got_attention == pytest.approx(attention, rel=RTOL)


@pytest.mark.parametrize(
    "scaling",
    [
        {"rope_type": "linear", "factor": 4.0},
        {"rope_type": "dynamic", "factor": 4.0},
        {
            "rope_type": "yarn",
            "factor": 8.0,
            "original_max_position_embeddings": 4096,
            "truncate": False,
            "beta_fast": None,
        },
    ],
    ids=["linear", "dynamic", "yarn-untruncated"],
)
def test_vllm_arguments_reproduce_each_setting(scaling):
    config = {"head_dim": 64, "max_position_embeddings": 32_768, "rope_theta": 5e4}
    config["rope_scaling"] = scaling
    for seq_len in (None, 50_000):
        args = vllm_arguments(config, seq_len=seq_len)["arguments"]
        s = pe.rope_settings(config)["default"]
        n = seq_len or 32_768
        expected, attention = s.frequencies(n)
        got, got_attention = vllm_rope(_vllm_parameters(args, config, "default"), 64, 32_768, n)
        np.testing.assert_allclose(got, expected, rtol=RTOL)
        assert got_attention == pytest.approx(attention, rel=RTOL)


def test_the_vllm_harness_fails_on_a_wrong_override():
    """An override without rope_theta falls back to 10000 in get_rope: wrong positions."""
    path = next(p for p in GALLERY if p.stem == "llama-3.1-8b-instruct")
    config = _config(path)
    args = vllm_arguments(config)["arguments"]
    _, s = _primary(config)
    expected, _ = s.frequencies(131_072)
    params = _vllm_parameters(args, config, "default")
    got, _ = vllm_rope(params, 128, 131_072, 131_072)
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    without_base = {k: v for k, v in params.items() if k != "rope_theta"}
    wrong, _ = vllm_rope(without_base, 128, 131_072, 131_072)
    assert not np.allclose(wrong, expected, rtol=RTOL)


def test_vllm_nests_a_multimodal_override_under_text_config():
    path = next(p for p in GALLERY if p.stem == "qwen3-vl-f1")
    args = vllm_arguments(_config(path))["arguments"]
    overrides = json.loads(args[args.index("--hf-overrides") + 1])
    assert list(overrides) == ["text_config"]
    assert overrides["text_config"]["rope_parameters"]["mrope_section"] == [24, 20, 20]


def vllm_length(config: dict) -> dict:
    """``_get_and_verify_max_len`` of vLLM 0.33.0 without a tokenizer, from the config."""
    text = _text(config)
    keys = ["max_position_embeddings", "n_positions", "max_seq_len", "seq_length"]
    keys += ["model_max_length", "max_target_positions", "max_sequence_length"]
    keys += ["max_seq_length", "seq_len"]
    found = [text[k] for k in keys if text.get(k) is not None]
    length = text.get("model_max_length") or (min(found) if found else 2048)
    settings = [v for v in pe.rope_settings(config).values() if v is not None]
    unscaled = ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling")
    if settings and "gemma3" not in str(config.get("model_type", "")):
        factor = 1.0
        for s in settings:
            if s.rope_type not in unscaled and s.scaling is not None:
                factor = s.scaling.get("factor", factor)
        length *= factor
    default = int(length)
    if any(s.rope_type == "longrope" for s in settings):
        default = int(config.get("original_max_position_embeddings", length))
    return {"limit": int(length), "default": default}


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_vllm_max_model_len_follows_vllm(path):
    config = _config(path)
    if not _rotary(config):
        return
    got = vllm_max_model_len(config)
    assert {k: got[k] for k in ("limit", "default")} == vllm_length(config)


def test_vllm_max_model_len_examples():
    gallery = {p.stem: _config(p) for p in GALLERY}
    # Gemma 3's linear factor 8 is not applied again; LongRoPE serves the original length
    assert vllm_max_model_len(gallery["gemma-3-12b-it"])["limit"] == 131_072
    phi = vllm_max_model_len(gallery["phi-3.5-mini-instruct"])
    assert (phi["limit"], phi["default"]) == (131_072, 4096)
    linear = {"head_dim": 8, "max_position_embeddings": 4096, "rope_theta": 1e4}
    linear["rope_scaling"] = {"rope_type": "linear", "factor": 4.0}
    assert vllm_max_model_len(linear)["limit"] == 16_384 == vllm_length(linear)["limit"]
    # the harness sees the factor: without it, another length
    assert vllm_length({**linear, "rope_scaling": None})["limit"] == 4096


# ---------------------------------------------------------------------------
# Errors, the table, the command line
# ---------------------------------------------------------------------------


def test_bad_input_is_a_clear_error():
    with pytest.raises(TypeError, match="config must be a dict"):
        llama_cpp_arguments("config.json")
    with pytest.raises(ValueError, match="no RoPE settings"):
        vllm_arguments({"hidden_size": 64})
    with pytest.raises(TypeError, match="seq_len"):
        llama_cpp_arguments({"head_dim": 8, "rope_theta": 1e4}, seq_len=2.5)
    with pytest.raises(ValueError, match="runtime must be one of"):
        runtime_arguments({"head_dim": 8, "rope_theta": 1e4}, "sglang")
    with pytest.raises(ValueError, match="rope_type"):
        vllm_max_model_len({"head_dim": 8, "rope_scaling": {"rope_type": "no-such-type"}})


def test_spellings_cover_every_column_and_cite_files():
    assert len(RUNTIME_SPELLINGS) >= 10
    for setting, cells in RUNTIME_SPELLINGS:
        assert list(cells) == list(RUNTIME_COLUMNS), setting
        for text, files in cells.values():
            assert text and files and all(isinstance(f, str) and f for f in files)


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
@pytest.mark.parametrize("runtime", ["llama.cpp", "vllm"])
def test_inspect_for_runs_on_every_gallery_file(path, runtime, capsys):
    assert main(["inspect", str(path), "--for", runtime]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{runtime} ") and "Traceback" not in out
    assert main(["inspect", str(path), "--for", runtime, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result == runtime_arguments(_config(path), runtime)


def test_inspect_for_gives_one_error_line_for_a_bad_config(tmp_path, capsys):
    bad = tmp_path / "config.json"
    bad.write_text(json.dumps({"head_dim": 8, "rope_scaling": {"rope_type": "yarn"}}))
    assert main(["inspect", str(bad), "--for", "llama.cpp"]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("error: ")
        and err.count("\n") == 1
        and "original_max_position_embeddings" in err
    )


def test_printed_text_quotes_the_json_for_a_shell():
    config = {"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64}
    text = format_runtime_arguments(vllm_arguments(config))
    assert """--hf-overrides '{"rope_parameters": """ in text


def test_a_model_without_rope_gets_its_context_only():
    gpt2 = {"model_type": "gpt2", "n_positions": 1024, "n_layer": 12, "n_head": 12}
    for runtime, flag in [("llama.cpp", "-c"), ("vllm", "--max-model-len")]:
        result = runtime_arguments(gpt2, runtime)
        assert result["arguments"] == [flag, "1024"]
        assert "no rotary embedding" in result["notes"][0]
    assert vllm_max_model_len(gpt2)["limit"] == 1024
