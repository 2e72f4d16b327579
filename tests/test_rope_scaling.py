"""rope_frequencies against a loop-by-loop re-derivation and against published numbers.

The reference functions below follow the formulas of the papers and of Hugging
Face's ``modeling_rope_utils.py`` one pair at a time with the ``math`` module;
they share no code with the vectorised library.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import rope_frequencies

RTOL = 1e-6  # the brief's tolerance against Hugging Face (which computes in float32)


def ref_default(d, base):
    return [1.0 / base ** (2 * i / d) for i in range(d // 2)]


def ref_dynamic(d, base, factor, context, seq_len):
    length = context if seq_len is None or seq_len <= context else seq_len
    new_base = base * ((factor * length / context) - (factor - 1)) ** (d / (d - 2))
    return ref_default(d, new_base)


def ref_yarn(d, base, factor, context, beta_fast=32, beta_slow=1, truncate=True):
    def pair_index(rotations):  # pair whose wavelength fits `rotations` times in the context
        return d * math.log(context / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_index(beta_fast), pair_index(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    out = []
    for i, w in enumerate(ref_default(d, base)):
        ramp = min(1.0, max(0.0, (i - low) / (high - low)))
        out.append(w / factor * ramp + w * (1 - ramp))
    return out


def ref_llama3(d, base, factor, low_ff, high_ff, context):
    out = []
    for w in ref_default(d, base):
        wavelength = 2 * math.pi / w
        if wavelength < context / high_ff:
            out.append(w)
        elif wavelength > context / low_ff:
            out.append(w / factor)
        else:
            smooth = (context / wavelength - low_ff) / (high_ff - low_ff)
            out.append((1 - smooth) * w / factor + smooth * w)
    return out


def close(actual, expected):
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=0)


# --- default and linear ------------------------------------------------------------------


@pytest.mark.parametrize("head_dim,base", [(2, 10000.0), (64, 10000.0), (128, 500000.0)])
def test_default_matches_the_formula(head_dim, base):
    inv_freq, factor = rope_frequencies(head_dim, base=base)
    close(inv_freq, ref_default(head_dim, base))
    assert factor == 1.0 and inv_freq.dtype == np.float64 and inv_freq.shape == (head_dim // 2,)
    same, _ = rope_frequencies(head_dim, base=base, scaling={"rope_type": "default"})
    np.testing.assert_array_equal(same, inv_freq)


def test_position_interpolation_divides_every_frequency_by_the_factor():
    inv_freq, factor = rope_frequencies(128, scaling={"rope_type": "linear", "factor": 4.0})
    close(inv_freq, [w / 4 for w in ref_default(128, 10000.0)])
    assert factor == 1.0


def test_legacy_type_key_is_accepted():
    a, _ = rope_frequencies(64, scaling={"type": "linear", "factor": 2.0})
    b, _ = rope_frequencies(64, scaling={"rope_type": "linear", "factor": 2.0})
    np.testing.assert_array_equal(a, b)


# --- dynamic NTK ---------------------------------------------------------------------------


@pytest.mark.parametrize("seq_len", [None, 100, 4096, 8192, 20000])
def test_dynamic_ntk_matches_the_reference(seq_len):
    scaling = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}
    inv_freq, factor = rope_frequencies(128, scaling=scaling, seq_len=seq_len)
    close(inv_freq, ref_dynamic(128, 10000.0, 2.0, 4096, seq_len))
    assert factor == 1.0


def test_dynamic_ntk_is_plain_rope_inside_the_trained_context():
    scaling = {"rope_type": "dynamic", "factor": 8.0, "original_max_position_embeddings": 2048}
    for seq_len in (None, 1, 2048):
        inv_freq, _ = rope_frequencies(64, scaling=scaling, seq_len=seq_len)
        close(inv_freq, ref_default(64, 10000.0))


def test_ntk_aware_base_keeps_the_fastest_pair_and_interpolates_the_slowest():
    # NTK-aware: base' = base · s^(d/(d−2)). Hugging Face's dynamic formula gives
    # alpha = factor·seq_len/L − (factor − 1); with factor = 1 that is seq_len/L = s.
    d, s, context = 64, 4, 2048
    scaling = {"rope_type": "dynamic", "factor": 1.0, "original_max_position_embeddings": context}
    inv_freq, _ = rope_frequencies(d, scaling=scaling, seq_len=s * context)
    close(inv_freq, ref_default(d, 10000.0 * s ** (d / (d - 2))))
    plain = ref_default(d, 10000.0)
    assert inv_freq[0] == pytest.approx(plain[0], rel=1e-15)
    assert inv_freq[-1] == pytest.approx(plain[-1] / s, rel=1e-12)


def test_hugging_face_dynamic_factor_is_a_slope_not_the_target_scale():
    # factor 2 at twice the trained length: alpha = 2·2 − 1 = 3, not 2
    d, context = 64, 2048
    scaling = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": context}
    inv_freq, _ = rope_frequencies(d, scaling=scaling, seq_len=2 * context)
    assert inv_freq[-1] == pytest.approx(ref_default(d, 10000.0)[-1] / 3, rel=1e-12)


def test_dynamic_needs_head_dim_of_at_least_4():
    scaling = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 16}
    with pytest.raises(ValueError, match="head_dim must be >= 4"):
        rope_frequencies(2, scaling=scaling)


# --- YaRN ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "head_dim,base,factor,context,extra",
    [
        (128, 10000.0, 16.0, 4096, {}),  # Llama 2 7B → 64k, the paper's setting
        (128, 1000000.0, 4.0, 32768, {}),  # Qwen2.5's published yarn config
        (64, 10000.0, 8.0, 2048, {"beta_fast": 16.0, "beta_slow": 2.0}),
        (64, 150000.0, 32.0, 4096, {"truncate": False}),  # gpt-oss config
        (8, 10000.0, 2.0, 16, {}),  # tiny: the correction range collapses
    ],
)
def test_yarn_matches_the_reference(head_dim, base, factor, context, extra):
    scaling = {
        "rope_type": "yarn",
        "factor": factor,
        "original_max_position_embeddings": context,
        **extra,
    }
    inv_freq, attention_factor = rope_frequencies(head_dim, base=base, scaling=scaling)
    kwargs = {k: v for k, v in extra.items()}
    close(inv_freq, ref_yarn(head_dim, base, factor, context, **kwargs))
    assert attention_factor == pytest.approx(0.1 * math.log(factor) + 1, rel=1e-15)


def test_yarn_keeps_fast_pairs_and_interpolates_slow_ones():
    scaling = {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096}
    inv_freq, _ = rope_frequencies(128, scaling=scaling)
    plain = np.array(ref_default(128, 10000.0))
    wavelengths = 2 * np.pi / plain
    fast = 4096 / wavelengths > 32  # more than beta_fast turns in the context
    slow = 4096 / wavelengths < 1  # less than beta_slow turn
    np.testing.assert_allclose(inv_freq[fast], plain[fast], rtol=1e-15)
    np.testing.assert_allclose(inv_freq[slow], plain[slow] / 16, rtol=1e-15)


def test_yarn_attention_factor_published_values():
    # sqrt(1/t) = 0.1 ln s + 1 (YaRN eq. 22): s = 4 → 1.1386, s = 16 → 1.2773
    for factor, expected in [(4.0, 1.1386294361), (16.0, 1.2772588722), (1.0, 1.0)]:
        scaling = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": 4096}
        assert rope_frequencies(64, scaling=scaling)[1] == pytest.approx(expected, rel=1e-9)


def test_yarn_explicit_attention_factor_and_mscale_ratio():
    base = {"rope_type": "yarn", "factor": 40.0, "original_max_position_embeddings": 4096}
    assert rope_frequencies(64, scaling={**base, "attention_factor": 0.5})[1] == 0.5
    # DeepSeek-V3's config: mscale = mscale_all_dim = 1 → ratio 1 (the model folds mscale²
    # into its softmax scale instead)
    assert rope_frequencies(64, scaling={**base, "mscale": 1.0, "mscale_all_dim": 1.0})[1] == 1.0
    af = rope_frequencies(64, scaling={**base, "mscale": 0.707, "mscale_all_dim": 1.0})[1]
    m = lambda a: 0.1 * a * math.log(40.0) + 1  # noqa: E731
    assert af == pytest.approx(m(0.707) / m(1.0), rel=1e-12)
    # only one of the two given (or one zero): Hugging Face falls back to 0.1 ln s + 1
    assert rope_frequencies(64, scaling={**base, "mscale": 0.707})[1] == pytest.approx(m(1.0))


# --- Llama 3 ---------------------------------------------------------------------------

LLAMA31 = {
    "rope_type": "llama3",
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
}


def test_llama31_matches_the_reference():
    inv_freq, factor = rope_frequencies(128, base=500000.0, scaling=LLAMA31)
    close(inv_freq, ref_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192))
    assert factor == 1.0


def test_llama3_equal_factors_leave_no_band():
    # Llama 4 ships low_freq_factor = high_freq_factor = 1: no blended band, a step at
    # wavelength L/low. With base 500000, head_dim 128, L 8192: wavelength
    # 2π·500000^(i/64) > 8192 ⇔ i > 34.98, so pairs 0–34 keep their frequency and
    # 35–63 are divided by the factor (here 16).
    scaling = {**LLAMA31, "factor": 16.0, "high_freq_factor": 1.0}
    inv_freq, factor = rope_frequencies(128, base=500000.0, scaling=scaling)
    plain = np.array(ref_default(128, 500000.0))
    assert np.all(np.isfinite(inv_freq)) and factor == 1.0
    np.testing.assert_allclose(inv_freq[:35], plain[:35], rtol=1e-15)
    np.testing.assert_allclose(inv_freq[35:], plain[35:] / 16.0, rtol=1e-15)


def test_llama31_smoothing_band_by_hand():
    # wavelength 2π·500000^(i/64) < 8192/4 = 2048 ⇔ i < 64·ln(2048/2π)/ln(500000) ≈ 28.2;
    # > 8192 ⇔ i > 64·ln(8192/2π)/ln(500000) ≈ 35.0. So pairs 0–28 keep their
    # frequency, 29–34 are blended, 35–63 are divided by 8.
    assert 64 * math.log(2048 / (2 * math.pi)) / math.log(500000) == pytest.approx(28.22, abs=0.01)
    assert 64 * math.log(8192 / (2 * math.pi)) / math.log(500000) == pytest.approx(34.98, abs=0.01)
    inv_freq, _ = rope_frequencies(128, base=500000.0, scaling=LLAMA31)
    plain = np.array(ref_default(128, 500000.0))
    ratio = plain / inv_freq
    np.testing.assert_allclose(ratio[:29], 1.0, rtol=1e-15)
    np.testing.assert_allclose(ratio[35:], 8.0, rtol=1e-15)
    assert np.all((ratio[29:35] > 1.0) & (ratio[29:35] < 8.0))
    assert np.all(np.diff(ratio[28:36]) > 0)
    # pair 32 by hand: wavelength λ = 2π·500000^(1/2), smooth = (8192/λ − 1)/3
    lam = 2 * math.pi * 500000**0.5
    smooth = (8192 / lam - 1) / 3
    assert inv_freq[32] == pytest.approx(((1 - smooth) / 8 + smooth) / 500000**0.5, rel=1e-14)


# --- LongRoPE --------------------------------------------------------------------------


def longrope(short, long, context=4096, **extra):
    return {
        "rope_type": "longrope",
        "short_factor": short,
        "long_factor": long,
        "original_max_position_embeddings": context,
        **extra,
    }


def test_longrope_switches_factors_at_the_original_context():
    d = 16
    short = [1.0 + 0.1 * i for i in range(d // 2)]
    long = [2.0 + 0.5 * i for i in range(d // 2)]
    scaling = longrope(short, long, factor=32.0)
    plain = ref_default(d, 10000.0)
    for seq_len, factors in [(None, short), (4096, short), (4097, long), (131072, long)]:
        inv_freq, _ = rope_frequencies(d, scaling=scaling, seq_len=seq_len)
        close(inv_freq, [w / f for w, f in zip(plain, factors, strict=True)])


def test_longrope_attention_factor_phi3_mini_128k():
    # Phi-3-mini-128k: 4096 → 131072, s = 32: sqrt(1 + ln 32 / ln 4096) = sqrt(17/12)
    scaling = longrope([1.0] * 48, [1.0] * 48, factor=131072 / 4096)
    assert rope_frequencies(96, scaling=scaling)[1] == pytest.approx(math.sqrt(17 / 12), rel=1e-14)
    assert rope_frequencies(96, scaling={**scaling, "attention_factor": 1.1})[1] == 1.1
    assert rope_frequencies(96, scaling={**scaling, "factor": 1.0})[1] == 1.0


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "scaling,error,match",
    [
        ({"factor": 2.0}, ValueError, "rope_type"),
        ({"rope_type": "ntk-by-parts"}, ValueError, "must be one of"),
        ({"rope_type": "linear"}, ValueError, "missing key.*'factor'"),
        ({"rope_type": "linear", "factor": 0.5}, ValueError, "factor"),
        ({"rope_type": "linear", "factor": 2.0, "fctor": 3}, ValueError, "unknown key.*'fctor'"),
        ({"rope_type": "linear", "factor": 2.0, "rope_theta": 5e5}, ValueError, "base="),
        ({"rope_type": "dynamic", "factor": 2.0}, ValueError, "original_max_position_embeddings"),
        ({"rope_type": "yarn", "factor": 4.0}, ValueError, "original_max_position_embeddings"),
        (
            {
                "rope_type": "yarn",
                "factor": 4.0,
                "original_max_position_embeddings": 4096,
                "beta_fast": -1.0,
            },
            ValueError,
            "beta_fast",
        ),
        (
            {
                "rope_type": "yarn",
                "factor": 4.0,
                "original_max_position_embeddings": 4096,
                "truncate": "yes",
            },
            TypeError,
            "truncate",
        ),
        ({**LLAMA31, "high_freq_factor": 0.5}, ValueError, "high_freq_factor.*>= .*low"),
        (
            {k: v for k, v in LLAMA31.items() if k != "low_freq_factor"},
            ValueError,
            "low_freq_factor",
        ),
        (longrope([1.0] * 3, [1.0] * 4, factor=2.0), ValueError, "short_factor.*4 entries"),
        (longrope([1.0] * 4, [1.0] * 4), ValueError, "'factor'"),
        (longrope([1.0] * 4, [1.0, 0.0, 1.0, 1.0], factor=2.0), ValueError, "long_factor"),
        (longrope([1.0] * 4, "1111", factor=2.0), TypeError, "long_factor"),
        (
            {
                "rope_type": "llama3",
                **{k: v for k, v in LLAMA31.items() if k != "rope_type"},
                "original_max_position_embeddings": 8192.5,
            },
            TypeError,
            "original_max_position_embeddings",
        ),
        ([("rope_type", "linear")], TypeError, "dict"),
    ],
)
def test_bad_scaling_is_rejected_with_a_message_naming_the_key(scaling, error, match):
    with pytest.raises(error, match=match):
        rope_frequencies(8, scaling=scaling)


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"head_dim": 7}, ValueError, "head_dim"),
        ({"head_dim": 8, "base": 1.0}, ValueError, "base"),
        ({"head_dim": 8, "seq_len": 0}, ValueError, "seq_len"),
        ({"head_dim": 8, "seq_len": 2.5}, TypeError, "seq_len"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        rope_frequencies(**kwargs)


def test_yarn_correction_range_for_llama2_by_hand():
    from pe_explained import yarn_correction_range

    # 128·ln(4096/(2π·32))/(2 ln 10000) ≈ 20.9 → 20;  128·ln(4096/2π)/(2 ln 10000) ≈ 45.0 → 46
    assert yarn_correction_range(128, original_max_position_embeddings=4096) == (20, 46)
    low, high = yarn_correction_range(128, original_max_position_embeddings=4096, truncate=False)
    assert low == pytest.approx(20.94, abs=0.01) and high == pytest.approx(45.03, abs=0.01)


def test_ntk_aware_base_function_matches_the_dynamic_type_at_slope_one():
    from pe_explained import ntk_aware_base

    assert ntk_aware_base(10000.0, 4.0, 128) == pytest.approx(10000 * 4 ** (128 / 126))
    scaling = {"rope_type": "dynamic", "factor": 1.0, "original_max_position_embeddings": 1024}
    close(
        rope_frequencies(128, scaling=scaling, seq_len=4096)[0],
        rope_frequencies(128, base=ntk_aware_base(10000.0, 4.0, 128))[0],
    )
    with pytest.raises(ValueError, match="factor"):
        ntk_aware_base(10000.0, 0.5, 128)


# --- partial rotation and proportional RoPE -------------------------------------------


@pytest.mark.parametrize("head_dim,share", [(80, 0.4), (64, 0.25), (128, 0.5), (96, 0.75)])
def test_partial_rotary_factor_runs_the_ladder_over_the_rotated_dims(head_dim, share):
    # Hugging Face: dim = int(head_dim · partial_rotary_factor); inv_freq_i = base^(−2i/dim)
    dim = int(head_dim * share)
    inv_freq, factor = rope_frequencies(head_dim, partial_rotary_factor=share)
    close(inv_freq, ref_default(dim, 10000.0))
    assert factor == 1.0
    in_dict, _ = rope_frequencies(
        head_dim, scaling={"rope_type": "default", "partial_rotary_factor": share}
    )
    np.testing.assert_array_equal(in_dict, inv_freq)


def test_partial_rotary_factor_with_scaling_uses_the_rotated_width():
    scaling = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 2048}
    inv_freq, _ = rope_frequencies(128, base=1e6, scaling=scaling, partial_rotary_factor=0.5)
    close(inv_freq, ref_yarn(64, 1e6, 8.0, 2048))
    dyn = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 1024}
    inv_freq, _ = rope_frequencies(64, scaling=dyn, seq_len=4096, partial_rotary_factor=0.25)
    close(inv_freq, ref_dynamic(16, 10000.0, 2.0, 1024, 4096))


def test_proportional_zeroes_the_slowest_pairs():
    # Gemma 4's global layers: head_dim 512, 25 % → the fastest 64 of 256 pairs turn,
    # at base^(−2i/512) (the ladder spans the whole head); the others get frequency 0
    scaling = {"rope_type": "proportional", "partial_rotary_factor": 0.25}
    inv_freq, factor = rope_frequencies(512, base=1e6, scaling=scaling)
    plain = np.array(ref_default(512, 1e6))
    close(inv_freq[:64], plain[:64])
    assert inv_freq.shape == (256,) and np.all(inv_freq[64:] == 0.0) and factor == 1.0
    # without partial_rotary_factor it is plain RoPE; with factor every frequency is divided
    close(rope_frequencies(16, scaling={"rope_type": "proportional"})[0], ref_default(16, 1e4))
    halved, _ = rope_frequencies(16, scaling={"rope_type": "proportional", "factor": 2.0})
    close(halved, [w / 2 for w in ref_default(16, 1e4)])


@pytest.mark.parametrize(
    "head_dim,kwargs,error,match",
    [
        (8, {"partial_rotary_factor": 0.0}, ValueError, "partial_rotary_factor must be > 0"),
        (8, {"partial_rotary_factor": 1.5}, ValueError, "partial_rotary_factor must be <= 1"),
        (8, {"partial_rotary_factor": "0.5"}, TypeError, "partial_rotary_factor"),
        (10, {"partial_rotary_factor": 0.3}, ValueError, r"even number >= 2 .* = 3"),
        (8, {"partial_rotary_factor": 0.1}, ValueError, r"even number >= 2 .* = 0"),
        (
            8,
            {
                "partial_rotary_factor": 0.5,
                "scaling": {"rope_type": "default", "partial_rotary_factor": 1},
            },
            ValueError,
            "differ",
        ),
        (
            8,
            {"scaling": {"rope_type": "default", "partial_rotary_factor": 0.1}},
            ValueError,
            r"scaling\['partial_rotary_factor'\] must leave",
        ),
    ],
)
def test_bad_partial_rotary_factor(head_dim, kwargs, error, match):
    with pytest.raises(error, match=match):
        rope_frequencies(head_dim, **kwargs)


def _pinned_transformers() -> str:
    """The transformers version .ci/run installs for the differential tests."""
    import re
    from pathlib import Path

    run = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    return re.search(r"transformers==([0-9.]+)", run).group(1)


def test_the_docstring_names_the_transformers_version_the_tests_pin():
    import pe_explained.rope

    assert f"transformers`` {_pinned_transformers()}" in " ".join(pe_explained.rope.__doc__.split())


def test_a_yarn_factor_is_kept_when_both_lengths_are_given():
    # transformers before PR #40320 replaced it by max / original length: 1 here
    from pe_explained import config_rope_frequencies

    config = {
        "hidden_size": 5120,
        "num_attention_heads": 40,
        "rope_theta": 1e6,
        "max_position_embeddings": 32768,
        "rope_scaling": {
            "type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 32768,
        },
    }
    inv_freq, attention_factor = config_rope_frequencies(config)
    plain, _ = rope_frequencies(128, base=1e6)
    assert plain[-1] / inv_freq[-1] == pytest.approx(4.0, rel=1e-12)
    assert attention_factor == pytest.approx(0.1 * math.log(4.0) + 1.0, rel=1e-12)
