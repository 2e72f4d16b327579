"""Configs without rotary embeddings: learned tables, ALiBi and T5's bias, read as shipped."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import (
    alibi_slopes,
    inspect_config,
    layer_positions,
    rope_settings,
    t5_relative_bucket,
)
from pe_explained.hf_nonrotary import nonrotary_positions
from pe_explained.model_report import format_report

GPT2 = {"model_type": "gpt2", "n_positions": 1024, "n_layer": 12, "n_head": 12, "n_embd": 768}
OPT = {
    "model_type": "opt",
    "max_position_embeddings": 2048,
    "num_hidden_layers": 24,
    "num_attention_heads": 32,
}
ROBERTA = {
    "model_type": "roberta",
    "max_position_embeddings": 514,
    "pad_token_id": 1,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
}
BLOOM = {"model_type": "bloom", "n_layer": 24, "n_head": 16, "hidden_size": 1024}
MPT = {
    "model_type": "mpt",
    "n_layers": 32,
    "n_heads": 32,
    "max_seq_len": 2048,
    "attn_config": {"alibi": True, "alibi_bias_max": 8},
}
T5 = {"model_type": "t5", "num_layers": 12, "num_heads": 12, "relative_attention_num_buckets": 32}


def test_learned_tables_count_the_positions_a_sequence_may_use():
    gpt2, opt, roberta = (nonrotary_positions(c) for c in (GPT2, OPT, ROBERTA))
    assert (gpt2.kind, gpt2.where, gpt2.positions, gpt2.offset) == ("learned", "input", 1024, 0)
    # OPT: max_position_embeddings + 2 rows, the first 2 unused
    assert (opt.positions, opt.offset) == (2048, 2)
    # RoBERTa: 514 rows, ids from pad_token_id + 1 = 2
    assert (roberta.positions, roberta.offset) == (512, 2)
    assert gpt2.num_layers == 12 and gpt2.num_heads == 12


def test_alibi_slopes_are_the_papers_raised_to_mpts_bias_max_over_8():
    assert nonrotary_positions(BLOOM).slopes == tuple(alibi_slopes(16))
    mpt = nonrotary_positions(MPT)
    np.testing.assert_allclose(mpt.slopes, alibi_slopes(32), rtol=1e-15)  # bias_max 8
    assert mpt.positions == 2048
    wider = nonrotary_positions({**MPT, "attn_config": {"alibi_bias_max": 16}})
    np.testing.assert_allclose(wider.slopes, alibi_slopes(32) ** 2, rtol=1e-12)  # 2^(-16k/n)
    # MPT's rule (odd powers of the next power of two first) is the paper's for any count
    np.testing.assert_allclose(
        nonrotary_positions({**MPT, "n_heads": 24}).slopes, alibi_slopes(24), rtol=1e-15
    )


def test_falcon_takes_alibi_or_rope_by_its_flag():
    falcon = {"model_type": "falcon", "num_hidden_layers": 4, "num_attention_heads": 8}
    alibi = nonrotary_positions({**falcon, "alibi": True, "num_attention_heads": 16})
    assert alibi.kind == "alibi" and "bfloat16" in alibi.note
    # 2^(-1/2) has 8 significant bits in bfloat16: 0.70703125; powers of two stay exact
    assert alibi.slopes[:2] == (0.70703125, 0.5)
    assert nonrotary_positions({**falcon, "alibi": False}) is None
    settings = rope_settings({**falcon, "hidden_size": 512, "alibi": False})
    assert settings["default"].rope_theta == 10_000.0
    with pytest.raises(TypeError, match=r"config\['alibi'\]"):
        nonrotary_positions({**falcon, "alibi": "yes"})


def test_gptj_rotates_its_rotary_dim_with_base_ten_thousand_interleaved():
    gptj = {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 28, "rotary_dim": 64}
    s = rope_settings(gptj)["default"]
    assert (s.rope_theta, s.head_dim, s.rotary_dim, s.layout) == (10_000.0, 256, 64, "interleaved")
    assert [p.source for p in layer_positions(gptj)] == ["rotary"] * 28


def test_t5_counts_both_stacks_and_its_last_bucket():
    t5 = nonrotary_positions(T5)
    assert (t5.kind, t5.num_layers, t5.num_buckets, t5.max_distance) == ("t5_bias", 24, 32, 128)
    report = inspect_config(T5)
    # T5's log buckets: the encoder (16 buckets each way) merges keys from 91 back, the
    # decoder (32 buckets, causal) from 113 (t5_relative_bucket, tested against T5's code)
    assert report["positions"]["shared_bucket_from"] == {"encoder": 91, "decoder": 113}


@pytest.mark.parametrize("buckets", [4, 6, 8, 32, 33, 64])
@pytest.mark.parametrize("distance", [5, 17, 128, 1000, 4097])
def test_t5_last_bucket_search_equals_bucketing_every_distance(buckets, distance):
    """The first distance in the last bucket, found by bisection, is the one found by
    bucketing every distance up to max_distance."""
    if distance <= buckets // 2:
        pytest.skip("max_distance must exceed the decoder's exact buckets")
    config = {**T5, "relative_attention_num_buckets": buckets}
    config["relative_attention_max_distance"] = distance
    shared = inspect_config(config)["positions"]["shared_bucket_from"]
    n = np.arange(distance + 1)
    for stack, bidirectional in (("encoder", True), ("decoder", False)):
        bucket = t5_relative_bucket(
            -n, bidirectional=bidirectional, num_buckets=buckets, max_distance=distance
        )
        assert shared[stack] == int(n[bucket == bucket[-1]].min())


def test_t5_last_bucket_of_a_huge_max_distance_is_found_without_bucketing_every_distance():
    far = {**T5, "relative_attention_max_distance": 10**15}
    shared = inspect_config(far)["positions"]["shared_bucket_from"]
    for stack, bidirectional in (("encoder", True), ("decoder", False)):
        first = shared[stack]
        at = t5_relative_bucket(
            -np.array([first - 1, first, 10**15]),
            bidirectional=bidirectional,
            num_buckets=32,
            max_distance=10**15,
        )
        assert at[0] < at[1] == at[2]


@pytest.mark.parametrize(
    "config", [GPT2, OPT, ROBERTA, BLOOM, MPT, T5], ids=lambda c: c["model_type"]
)
def test_inspect_reports_every_layer_and_where_positions_enter(config):
    report = inspect_config(config)
    scheme = nonrotary_positions(config)
    letter = "a" if scheme.where == "input" else "b"
    assert report["layer_strip"]["strip"] == letter * scheme.num_layers
    assert report["layer_types"] == {} and report["positions"]["kind"] == scheme.kind
    text = format_report(report)
    assert "no rotary embedding" in text and "Traceback" not in text


def test_configs_that_state_rope_are_not_read_here():
    assert nonrotary_positions({"model_type": "llama", "rope_theta": 1e4}) is None
    assert nonrotary_positions({"model_type": "unknown"}) is None
    assert (
        inspect_config({"model_type": "qwen3", "rope_theta": 1e6, "head_dim": 8})["positions"]
        is None
    )


@pytest.mark.parametrize(
    ("config", "match"),
    [
        ({"model_type": "gpt2", "n_layer": 2, "n_head": 2}, r"config\['n_positions'\] is needed"),
        ({**GPT2, "n_positions": 0}, r"config\['n_positions'\]"),
        ({**OPT, "num_hidden_layers": 1.5}, r"config\['num_hidden_layers'\]"),
        ({**ROBERTA, "max_position_embeddings": 2}, "leaves no position"),
        ({**MPT, "attn_config": [8]}, r"config\['attn_config'\] must be a mapping"),
        ({**T5, "relative_attention_num_buckets": 1}, "relative_attention_num_buckets"),
    ],
)
def test_bad_configs_get_one_clear_error(config, match):
    with pytest.raises((TypeError, ValueError), match=match):
        nonrotary_positions(config)


def test_mpt_names_the_learned_table_its_own_code_would_add():
    notes = inspect_config({**MPT, "learned_pos_emb": True})["notes"]
    assert any("learned_pos_emb" in n and "MptModel" in n for n in notes)
    assert not inspect_config(MPT)["notes"]


def test_hunyuan_remote_code_rotates_only_with_use_rotary_pos_emb():
    hunyuan = {
        "model_type": "hunyuan",
        "num_hidden_layers": 2,
        "attention_head_dim": 128,
        "rope_theta": 10000.0,
        "rope_scaling": {"type": "dynamic", "alpha": 1000.0, "factor": 1.0},
    }
    assert [p.source for p in layer_positions(hunyuan)] == ["rotary", "rotary"]
    off = {**hunyuan, "use_rotary_pos_emb": False}
    assert [p.source for p in layer_positions(off)] == ["nope", "nope"]
    (settings,) = rope_settings(hunyuan).values()
    assert settings.layout == "halves" and settings.head_dim == 128
    assert settings.rope_theta == pytest.approx(10000.0 * 1000.0 ** (128 / 126))


def test_kimi_k2_pairs_interleaved_as_deepseek_v3s_code():
    k2 = {"model_type": "kimi_k2", "num_hidden_layers": 1, "qk_rope_head_dim": 64}
    k2 |= {"qk_nope_head_dim": 128, "kv_lora_rank": 512, "rope_theta": 50000.0}
    (settings,) = rope_settings(k2).values()
    assert settings.layout == "interleaved"


def test_a_file_without_model_type_is_read_by_its_architectures():
    old_gpt2 = {k: v for k, v in GPT2.items() if k != "model_type"}
    report = inspect_config({**old_gpt2, "architectures": ["GPT2LMHeadModel"]})
    assert report["model_type"] == "gpt2" and report["positions"]["positions"] == 1024
    assert any("architectures" in n for n in report["notes"])


def test_falcons_first_releases_are_read_as_falcon():
    rw = {"model_type": "RefinedWebModel", "alibi": False, "hidden_size": 4544}
    rw |= {"n_head": 71, "n_layer": 32}
    (settings,) = rope_settings(rw).values()
    assert (settings.rope_theta, settings.head_dim, settings.layout) == (10_000.0, 64, "halves")
    assert len(layer_positions(rw)) == 32
    assert nonrotary_positions({**rw, "alibi": True}).num_heads == 71
