"""The runtime arguments (``pe_explained.runtimes``) against each runtime's own formulas.

Two harnesses recompute, from the printed arguments alone, the inverse frequencies and
the attention factor the runtime would use, written from its code as cited (our own
code, float64):

* **llama.cpp 0c1e57098** (the tree ``llama-cpp-python`` 0.3.36 vendors, read; the
  flags also run on it by ``tests/test_llama_cpp.py``): flags over GGUF values as
  ``llama_context``'s constructor combines them (``src/llama-context.cpp``:
  ``rope_freq_base``, ``rope_freq_scale``, ``yarn_ext_factor`` and ``yarn_attn_factor``,
  YaRN's factor overwritten, ``rope_attn_factor`` last), the ramp of ``ggml_rope_yarn_corr_dims``
  (``ggml/src/ggml.c``: floor and ceil, clipped to ``[0, n_dims − 1]``) and
  ``rope_yarn`` (``ggml/src/ggml-cpu/ops.cpp``: ``θ/ff``, the mix, ``mscale ·
  (1 + 0.1 ln(1/freq_scale))``); the GGUF's values as ``conversion/*.py`` writes them
  (Llama 3's ``rope_freqs``, Phi-3's LongRoPE factors and attention factor).
* **vLLM 0.33.0**: ``get_rope`` and the classes of ``model_executor/layers/
  rotary_embedding`` for the types in the gallery, fed the ``--hf-overrides`` dict and
  ``--max-model-len``; ``_get_and_verify_max_len`` for the length.

Each must equal what :func:`pe_explained.rope_settings` computes for the config at the
printed context, over every gallery config; each is shown to fail on a wrong argument.
"""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from script_packages import load_package

import pe_explained as pe
from pe_explained.cli import main
from pe_explained.hf_config import ROPE_KEYS
from pe_explained.runtimes import (
    RUNTIME_COLUMNS,
    RUNTIME_SPELLINGS,
    RUNTIME_VERSIONS,
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
    """Whether a layer of the model rotates, as the library reads it (a config may state
    a base that no layer reads: Nemotron-H's attention takes no position embeddings)."""
    return pe.read_model(config).rotates


# ---------------------------------------------------------------------------
# llama.cpp 0c1e57098
# ---------------------------------------------------------------------------


def _flags(args: list[str]) -> tuple[dict, dict]:
    """Flags → value, and ``--override-kv`` key (without ``ARCH.``) → float."""
    flags, overrides, i = {}, {}, 0
    while i < len(args):
        flag, value = args[i], args[i + 1]
        if flag == "--override-kv":
            key, _, typed = value.partition("=")
            kind, _, number = typed.partition(":")
            assert kind in ("float", "int") and key.startswith("ARCH."), value
            overrides[key.removeprefix("ARCH.")] = float(number)
        else:
            flags[flag] = value
        i += 2
    return flags, overrides


def _gguf(config: dict) -> dict:
    """What ``conversion/*.py`` (0c1e57098) writes that the flags do not restate."""
    _, s = _primary(config)
    text = _text(config)
    scaling = dict(s.scaling or {})
    gguf = {
        "n_rot": s.rotary_dim,
        "n_ctx_train": s.max_position_embeddings,
        "orig_ctx": s.original_max_position_embeddings,
        "freq_factors": None,
        "attn_factor": 1.0,
        "yarn_log_mul": None,
    }
    mscale_all_dim = scaling.get("mscale_all_dim")
    if s.rope_type == "yarn" and mscale_all_dim is not None:
        arch = _arch(config)
        if arch in ("deepseek2", "deepseek32"):  # DeepseekV2Model: 0.1 · mscale_all_dim
            gguf["yarn_log_mul"] = 0.1 * mscale_all_dim
        elif arch == "mistral3":  # Mistral3Model.Ministral3Model: mscale_all_dim as it is
            gguf["yarn_log_mul"] = mscale_all_dim
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
    """Per-pair frequency and cos/sin multiplier of llama.cpp 0c1e57098 for these flags."""
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
    log_mul = 0.0  # hparams.rope_yarn_log_mul: read by three loaders only (src/models/)
    stored = overrides.get("rope.scaling.yarn_log_multiplier", gguf.get("yarn_log_mul"))
    if stored is not None and arch in ("deepseek2", "deepseek32"):
        log_mul = stored / 0.1  # deepseek2.cpp, deepseek32.cpp: the key divided by 0.1
    elif stored is not None and arch == "mistral3":
        log_mul = stored  # mistral3.cpp: the key as it is
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
        n_ctx_seq = -(-int(flags["-c"]) // 256) * 256  # llama_context: GGML_PAD(n_ctx, 256)
        factors = gguf["long"] if n_ctx_seq > gguf["orig_ctx"] else gguf["short"]
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
    if "DeepseekV32" in names:
        return "deepseek32"
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
    assert got_attention == pytest.approx(attention, rel=RTOL)
    factor = str(s.scaling["factor"])
    wrong_scale, _ = llama_cpp_rope(_replace(args, "--rope-freq-scale", factor), gguf, "mistral3")
    assert not np.allclose(wrong_scale, expected, rtol=RTOL)
    wrong_base, _ = llama_cpp_rope(_replace(args, "--rope-freq-base", "10000.0"), gguf, "mistral3")
    assert not np.allclose(wrong_base, expected, rtol=RTOL)
    explicit = {
        "head_dim": 64,
        "max_position_embeddings": 32_768,
        "rope_theta": 5e4,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 8.0,
            "original_max_position_embeddings": 4096,
            "attention_factor": 1.0,
        },
    }
    args = llama_cpp_arguments(explicit)["arguments"]
    at = next(i for i, a in enumerate(args) if "attn_factor" in a)
    _, attention = pe.rope_settings(explicit)["default"].frequencies()
    _, right = llama_cpp_rope(args, _gguf(explicit))
    _, wrong = llama_cpp_rope(args[: at - 1] + args[at + 1 :], _gguf(explicit))
    assert right == pytest.approx(attention, rel=RTOL)
    assert wrong != pytest.approx(attention, rel=RTOL)


def test_no_yarn_log_multiplier_override_for_mistral3():
    """Mistral 3's loader reads rope.scaling.yarn_log_multiplier as it is (mistral3.cpp),
    and the converter already wrote mscale_all_dim there: the override of 0.1 printed
    before, meant for DeepSeek's loader, made the attention factor 1.2428 instead of 1.
    The harness models each loader, and fails on that flag."""
    config = _config(next(p for p in GALLERY if p.stem == "ministral-3-3b-reasoning-2512"))
    result = llama_cpp_arguments(config)
    assert not any("yarn_log_multiplier" in a for a in result["arguments"])
    assert any("as it is" in n for n in result["notes"])
    _, s = _primary(config)
    _, attention = s.frequencies(s.max_position_embeddings)
    old = result["arguments"][:-2] + [
        "--override-kv",
        "ARCH.rope.scaling.yarn_log_multiplier=float:0.1",
        *result["arguments"][-2:],
    ]
    _, got = llama_cpp_rope(old, _gguf(config), "mistral3")
    assert attention == pytest.approx(1.0)
    assert got == pytest.approx((1 + 0.1 * math.log(16)) / (1 + 0.01 * math.log(16)), rel=1e-12)
    for stem in ("deepseek-v2-lite", "deepseek-v3", "kimi-k2-instruct"):  # divided by 0.1
        args = llama_cpp_arguments(_config(next(p for p in GALLERY if p.stem == stem)))
        assert any("yarn_log_multiplier" in a for a in args["arguments"]), stem


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


def test_longrope_factors_are_chosen_by_c_rounded_up_to_256():
    """llama_context rounds -c up to a multiple of 256 before get_rope_factors compares it
    with L: with L = 4000, -c 4000 already takes the long factors (4096 > 4000)."""
    path = next(p for p in GALLERY if p.stem == "phi-3.5-mini-instruct")
    config = json.loads(json.dumps(_config(path)))
    config["original_max_position_embeddings"] = 4000
    config["rope_scaling"]["original_max_position_embeddings"] = 4000
    for seq_len, chosen in [(3840, "short"), (3841, "long"), (4000, "long")]:
        (warning,) = [
            w
            for w in llama_cpp_arguments(config, seq_len=seq_len)["warnings"]
            if w.startswith("LongRoPE")
        ]
        assert f"uses the {chosen} factors" in warning, (seq_len, warning)


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


#: ``max_position_embeddings`` of transformers 5.23's configuration classes where a
#: file leaves it out: vLLM reads the config object, which holds the class's default
#: (``Gemma3TextConfig``, also the text config of ``Gemma3Config``; ``BambaConfig``,
#: whose 9B file states none).
CLASS_LENGTHS = {"gemma3": 131_072, "gemma3_text": 131_072, "bamba": 262_144}


def vllm_length(config: dict, rope: list[dict] | None = None) -> dict:
    """``_get_and_verify_max_len`` of vLLM 0.33.0 without a tokenizer, from the config
    and its RoPE dicts (by default as the library reads them from the config)."""
    text = dict(_text(config))
    family = text.get("model_type", config.get("model_type"))
    if text.get("max_position_embeddings") is None and family in CLASS_LENGTHS:
        text["max_position_embeddings"] = CLASS_LENGTHS[family]
    keys = ["max_position_embeddings", "n_positions", "max_seq_len", "seq_length"]
    keys += ["model_max_length", "max_target_positions", "max_sequence_length"]
    keys += ["max_seq_length", "seq_len"]
    found = [text[k] for k in keys if text.get(k) is not None]
    length = text.get("model_max_length") or (min(found) if found else 2048)
    if rope is None:
        settings = [v for v in pe.rope_settings(config).values() if v is not None]
        rope = [{**(s.scaling or {}), "rope_type": s.rope_type} for s in settings]
    unscaled = ("su", "longrope", "llama3", "yarn", "deepseek_yarn", "deepseek_llama_scaling")
    if rope and "gemma3" not in str(config.get("model_type", "")):
        factor = 1.0
        for rp in rope:
            if rp["rope_type"] not in unscaled:
                factor = rp.get("factor", factor)
        length *= factor
    default = int(length)
    if any(rp["rope_type"] == "longrope" for rp in rope):
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


#: Gemma 3 27B-it's config.json (not in the gallery): its text model's keys sit in
#: text_config, which states no max_position_embeddings; as NVIDIA/TensorRT-LLM's Gemma 3
#: tests transcribe the file (GEMMA3_27B_MINI_CONFIG), with the 62 layers and the window
#: of 1,024 that test shrinks.
GEMMA3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "text_config": {
        "head_dim": 128,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "model_type": "gemma3_text",
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
        "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
        "sliding_window": 1024,
    },
}


def test_a_length_the_file_leaves_out_is_the_config_classs():
    """vLLM reads transformers' config object: where Gemma 3 27B-it's text_config states
    no max_position_embeddings, Gemma3TextConfig's 131,072 stands, not vLLM's 2,048."""
    got = vllm_max_model_len(GEMMA3_27B)
    assert (got["limit"], got["default"]) == (131_072, 131_072)
    assert got["key"].startswith("max_position_embeddings")
    assert {k: got[k] for k in ("limit", "default")} == vllm_length(GEMMA3_27B)
    assert "vLLM serves 131072 tokens" in vllm_arguments(GEMMA3_27B)["notes"][-1]
    text_only = GEMMA3_27B["text_config"]
    assert vllm_max_model_len(text_only)["limit"] == 131_072 == vllm_length(text_only)["limit"]
    # a family whose class has no such default: vLLM's own 2,048
    assert vllm_max_model_len({"head_dim": 8, "rope_theta": 1e4})["limit"] == 2048


def _served(config: dict, args: list[str]) -> tuple[dict, list[dict] | None]:
    """The config vLLM 0.33.0 reads after ``--hf-overrides`` (``_apply_dict_overrides``
    sets each key as the config's attribute, into ``text_config`` for a nested one), and
    the RoPE dicts of the override, which replace those read from the file (None: no
    ``rope_parameters`` given)."""
    out = copy.deepcopy(config)
    if "--hf-overrides" not in args:
        return out, None
    overrides = json.loads(args[args.index("--hf-overrides") + 1])
    target = out
    if "text_config" in overrides:
        overrides, target = overrides["text_config"], out["text_config"]
    target.update(overrides)
    params = overrides.get("rope_parameters")
    if params is None:
        return out, None
    return out, [params] if "rope_type" in params else [p for p in params.values() if p]


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_vllm_accepts_the_max_model_len_printed(path):
    """vLLM refuses a --max-model-len above the length it derives from the config it
    reads (_get_and_verify_max_len): at the config's own length and at twice it, the
    printed --hf-overrides make that length reach --max-model-len, and the primary layer
    type still rotates as the config states."""
    config = _config(path)
    if not _rotary(config):  # only the length: the config's own, and twice it
        own = vllm_length(config, [])["limit"]
        scheme = pe.read_model(config).nonrotary
        lengths = [own, 2 * own]
        if scheme is not None and scheme.kind == "learned":  # a learned table ends
            lengths = [min(own, scheme.positions)]
            with pytest.raises(ValueError, match="past the .* positions of the model's learned"):
                vllm_arguments(config, seq_len=scheme.positions + 1)
        for seq_len in lengths:
            args = vllm_arguments(config, seq_len=seq_len)["arguments"]
            n = int(args[args.index("--max-model-len") + 1])
            assert vllm_length(_served(config, args)[0], [])["limit"] >= n == seq_len, args
        return
    layer_type, s = _primary(config)
    for seq_len in (None, 2 * (s.max_position_embeddings or vllm_length(config)["limit"])):
        args = vllm_arguments(config, seq_len=seq_len)["arguments"]
        n = int(args[args.index("--max-model-len") + 1])
        served, rope = _served(config, args)
        assert vllm_length(served, rope)["limit"] >= n, (seq_len, args)
        if rope is None:
            continue
        length = _text(served).get("max_position_embeddings", s.max_position_embeddings)
        expected, attention = s.frequencies(n)
        params = _vllm_parameters(args, config, layer_type)
        got, got_attention = vllm_rope(params, s.head_dim, length, n)
        np.testing.assert_allclose(got, expected, rtol=RTOL)
        assert got_attention == pytest.approx(attention, rel=RTOL)


def test_a_longer_context_puts_max_position_embeddings_in_the_override():
    """The page's Qwen3 with YaRN: vLLM 0.33.0 does not multiply a YaRN config's length
    by its factor, so 131,072 tokens need a max_position_embeddings of 131,072."""
    qwen3 = {"model_type": "qwen3", "head_dim": 128, "max_position_embeddings": 40960}
    qwen3["rope_theta"] = 1000000
    qwen3["rope_scaling"] = {
        "rope_type": "yarn",
        "factor": 4.0,
        "original_max_position_embeddings": 32768,
    }
    out = vllm_arguments(qwen3, seq_len=131_072)
    overrides = json.loads(out["arguments"][1])
    assert overrides["max_position_embeddings"] == 131_072
    assert out["arguments"][-2:] == ["--max-model-len", "131072"]
    assert "VLLM_ALLOW_LONG_MAX_MODEL_LEN" in out["warnings"][0]
    assert vllm_length(qwen3)["limit"] == 40_960  # what the file alone gives
    # within the derived length the override holds the RoPE settings alone
    assert list(json.loads(vllm_arguments(qwen3)["arguments"][1])) == ["rope_parameters"]
    # a multimodal config: beside its rope_parameters, under text_config
    vl = _config(next(p for p in GALLERY if p.stem == "qwen3-vl-f1"))
    longer = 2 * _text(vl)["max_position_embeddings"]
    args = vllm_arguments(vl, seq_len=longer)["arguments"]
    nested = json.loads(args[args.index("--hf-overrides") + 1])["text_config"]
    assert nested["max_position_embeddings"] == longer and "rope_parameters" in nested


def test_dynamic_ntks_override_is_the_length_vllm_checks():
    """The override gives dynamic NTK as plain RoPE with the base of N tokens, a type
    whose length vLLM does not multiply by the factor: --max-model-len is checked against
    the override, not the file's dynamic type (32,768 × 4)."""
    config = {"head_dim": 64, "max_position_embeddings": 32_768, "rope_theta": 5e4}
    config["rope_scaling"] = {"rope_type": "dynamic", "factor": 4.0}
    assert vllm_length(config)["limit"] == 131_072
    args = vllm_arguments(config, seq_len=50_000)["arguments"]
    assert vllm_length(*_served(config, args))["limit"] >= 50_000


def test_longrope_keeps_its_attention_factor_when_the_length_is_overridden():
    """vLLM computes LongRoPE's attention factor from max_position_embeddings unless
    short_mscale and long_mscale are given: with the length overridden, the override
    states the factor transformers takes from the file."""
    phi = _config(next(p for p in GALLERY if p.stem == "phi-3.5-mini-instruct"))
    _, s = _primary(phi)
    n = 2 * s.max_position_embeddings
    args = vllm_arguments(phi, seq_len=n)["arguments"]
    params = _vllm_parameters(args, phi, "default")
    expected, attention = s.frequencies(n)
    got, got_attention = vllm_rope(params, s.head_dim, n, n)
    np.testing.assert_allclose(got, expected, rtol=RTOL)
    assert got_attention == pytest.approx(attention, rel=RTOL)
    # the harness reads the length: without the two keys, another factor
    bare = {k: v for k, v in params.items() if k not in ("short_mscale", "long_mscale")}
    assert vllm_rope(bare, s.head_dim, n, n)[1] != pytest.approx(attention, rel=1e-3)


def test_vllm_warns_that_its_engine_no_longer_runs_dual_chunk_attention():
    """vLLM's Dual Chunk Attention backend belonged to its V0 engine and left with it in
    0.11.0: 0.33.0 still reads the config but runs no DCA; the warning names the route
    that ran it."""
    qwen = _config(next(p for p in GALLERY if p.stem == "qwen2.5-14b-instruct-1m"))
    (warning,) = [w for w in vllm_arguments(qwen)["warnings"] if "dual_chunk" in w]
    for words in ("0.33.0", "V0 engine", "0.11.0", "VLLM_USE_V1=0", "DUAL_CHUNK_FLASH_ATTN"):
        assert words in warning
    text = format_runtime_arguments(vllm_arguments(qwen))
    assert "warning: dual_chunk_attention_config" in text


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


ROOT = Path(__file__).resolve().parents[1]
#: The llama.cpp commit the book reads and runs: the one llama-cpp-python 0.3.36 vendors.
LLAMA_CPP_COMMIT = "0c1e57098"
#: Versions of llama.cpp the book once read its statements at, before reading them all
#: again at LLAMA_CPP_COMMIT: no page or library string may name them as what was read.
LLAMA_CPP_SUPERSEDED = ("b8457", "e06c3ab", "41e78c5", "0024aa7")
#: Files allowed to name a superseded version, each with the reason. The commits the
#: book names as history (the K-shift at 3514e9f, group attention at 771e036) are dated
#: on purpose and are not superseded readings.
LLAMA_CPP_SUPERSEDED_ALLOWED = {
    "tests/test_runtimes.py": "lists the superseded versions in order to forbid them",
}


def test_llama_cpp_column_is_read_at_the_commit_that_is_run():
    """One commit for the whole llama.cpp column: the column names it, no cell names
    another, and it is the commit llama-cpp-python vendors and the run used."""
    load_package("llama_cpp_check")
    from llama_cpp_check import install

    stored = json.loads((ROOT / "docs/data/runtimes/llama_cpp.json").read_text("utf-8"))
    assert RUNTIME_VERSIONS["llama.cpp"] == LLAMA_CPP_COMMIT == install.LLAMA_CPP_COMMIT
    assert stored["versions"]["llama.cpp"] == LLAMA_CPP_COMMIT
    assert RUNTIME_COLUMNS["llama.cpp"] == f"llama.cpp {LLAMA_CPP_COMMIT}"
    for setting, cells in RUNTIME_SPELLINGS:
        text, files = cells["llama.cpp"]
        for entry in files:
            assert "@" not in entry, f"{setting}: {entry} names its own commit"
        for old in LLAMA_CPP_SUPERSEDED:
            assert old not in text + " ".join(files), setting
    config = {"head_dim": 8, "rope_theta": 1e4, "max_position_embeddings": 64}
    assert llama_cpp_arguments(config)["version"] == LLAMA_CPP_COMMIT


def test_no_page_or_library_string_names_a_superseded_llama_cpp_version():
    found = []
    roots = ("docs", "pe_book", "pe_explained", "tests", "scripts")
    paths = [ROOT / name for name in ("README.md", "ARCHITECTURE.md", "CONTRIBUTING.md")]
    for root in roots:
        paths += [p for p in (ROOT / root).rglob("*") if p.is_file()]
    for path in paths:
        rel = path.relative_to(ROOT).as_posix()
        if "__pycache__" in rel or rel in LLAMA_CPP_SUPERSEDED_ALLOWED:
            continue
        text = path.read_bytes().decode("utf-8", errors="ignore")
        found += [f"{rel}: {old}" for old in LLAMA_CPP_SUPERSEDED if old in text]
    assert not found, found


def _named(entry: str) -> tuple[str, list[str]]:
    """``path (name, name.attr)`` as the path and the names it says the file holds."""
    path, _, rest = entry.partition(" ")
    names = rest.strip("()").replace(",", " ").replace(".", " ").split()
    return path, names


@pytest.mark.skipif(
    not os.environ.get("PE_LLAMA_CPP_SOURCE"),
    reason="set PE_LLAMA_CPP_SOURCE to llama.cpp's source at 0c1e57098 (the vendor/llama.cpp "
    "of the llama-cpp-python 0.3.36 sdist) to check the files the llama.cpp cells cite",
)
def test_llama_cpp_cells_cite_files_of_the_commit():
    source = Path(os.environ["PE_LLAMA_CPP_SOURCE"])
    for setting, cells in RUNTIME_SPELLINGS:
        for entry in cells["llama.cpp"][1]:
            path, names = _named(entry)
            files = sorted(source.glob(path))
            assert files, f"{setting}: {path} is not in {source}"
            text = "".join(f.read_text("utf-8", errors="ignore") for f in files)
            for name in names:
                assert name in text, f"{setting}: {name} is not in {path}"


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


def _gemma3(layer_types):
    return {
        "model_type": "gemma3_text",
        "head_dim": 32,
        "max_position_embeddings": 4096,
        "layer_types": layer_types,
        "rope_parameters": {
            "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
            "full_attention": {"rope_type": "default", "rope_theta": 1e6},
        },
    }


def test_gemma3_layer_pattern_for_llama_cpp():
    """llama.cpp's gemma3 loader takes every sixth layer as global (gemma3.cpp,
    load_swa_pattern(ml, 6)); another period needs attention.sliding_window_pattern, and a
    pattern with no period cannot be expressed (measured: chapter 26's run)."""
    six = ["sliding_attention"] * 5 + ["full_attention"]
    assert not any(
        "sliding_window_pattern" in a for a in llama_cpp_arguments(_gemma3(six * 2))["arguments"]
    )
    two = llama_cpp_arguments(_gemma3(["sliding_attention", "full_attention"] * 3))["arguments"]
    assert "ARCH.attention.sliding_window_pattern=int:2" in two
    odd = llama_cpp_arguments(_gemma3(["sliding_attention", "full_attention", "full_attention"]))
    assert any("no period" in w for w in odd["warnings"])
    for stem in ("gemma-3-12b-it", "gemma-3-1b-it"):
        config = _config(next(p for p in GALLERY if p.stem == stem))
        result = llama_cpp_arguments(config)
        assert not any("sliding_window_pattern" in a for a in result["arguments"])
        assert not any("layer_types" in w for w in result["warnings"])


def test_dynamic_ntk_prints_the_configured_base_up_to_the_original_length():
    """transformers' dynamic NTK changes the base only past max_position_embeddings; up to
    it the flag restates the base as configured, not as read back from a frequency."""
    config = {
        "head_dim": 128,
        "max_position_embeddings": 32768,
        "rope_theta": 1e6,
        "rope_scaling": {"rope_type": "dynamic", "factor": 4.0},
    }
    for seq_len in (None, 4096, 32768):
        args = llama_cpp_arguments(config, seq_len=seq_len)["arguments"]
        assert args[:2] == ["--rope-freq-base", "1000000.0"], args
    longer = llama_cpp_arguments(config, seq_len=65536)["arguments"]
    assert float(longer[1]) > 1e6


def test_a_note_where_yarn_reaches_past_the_printed_context():
    qwen3 = {
        "model_type": "qwen3",
        "head_dim": 128,
        "max_position_embeddings": 40960,
        "rope_theta": 1e6,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 32768,
        },
    }
    notes = llama_cpp_arguments(qwen3)["notes"]
    assert any("131072" in n and "-c 40960" in n for n in notes), notes
    assert not any("reaches" in n for n in llama_cpp_arguments(qwen3, seq_len=131072)["notes"])


@pytest.mark.parametrize("build", [llama_cpp_arguments, vllm_arguments])
def test_a_context_past_a_learned_table_is_refused(build):
    """GPT-2 and OPT have no embedding past their table's last row: no flag serves it;
    at the table's length the arguments are printed."""
    gallery = {p.stem: _config(p) for p in GALLERY}
    for name, rows, key in (("gpt2", 1024, "n_positions"), ("opt-1.3b", 2048, "max_pos")):
        assert build(gallery[name], seq_len=rows)["arguments"][-1] == str(rows)
        with pytest.raises(ValueError, match=f"seq_len {rows + 1} is past the {rows} .*{key}"):
            build(gallery[name], seq_len=rows + 1)
