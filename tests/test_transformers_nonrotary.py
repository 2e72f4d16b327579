"""Differential tests: models without rotary embeddings, read from their configs, against
the models transformers builds from the same configs.

* learned tables: the rows of GPT-2's ``wpe``, OPT's ``embed_positions`` (two more than
  ``max_position_embeddings``) and RoBERTa's ``position_embeddings`` (ids from
  ``pad_token_id + 1``), against the positions and offset ``nonrotary_positions`` reads;
* ALiBi: the slopes in BLOOM's and Falcon's ``build_alibi_tensor`` and MPT's
  ``build_mpt_alibi_tensor`` (whose rule for a head count that is not a power of two
  gives the paper's slopes, raised to ``alibi_bias_max / 8``);
* T5: the first distance in the last bucket of ``T5Attention._relative_position_bucket``;
* GPT-J and Falcon without ALiBi, which rotate with no RoPE key in their files: the
  inverse frequencies of their rotary code.
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

from transformers.models.bloom.modeling_bloom import build_alibi_tensor  # noqa: E402
from transformers.models.falcon.modeling_falcon import (  # noqa: E402
    build_alibi_tensor as falcon_alibi_tensor,
)
from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor  # noqa: E402
from transformers.models.roberta.modeling_roberta import RobertaEmbeddings  # noqa: E402
from transformers.models.t5.modeling_t5 import T5Attention  # noqa: E402

from pe_explained import config_rope_frequencies, inspect_config, nonrotary_positions  # noqa: E402


def _slopes_from(alibi: torch.Tensor, num_heads: int) -> np.ndarray:
    """BLOOM/Falcon: the bias at key position 1 of an all-ones mask is the slope."""
    return alibi.reshape(num_heads, -1)[:, 1].double().numpy()


def test_learned_tables_have_the_rows_read_from_the_config():
    gpt2 = transformers.GPT2Config(n_positions=24, n_layer=2, n_head=2, n_embd=8)
    opt = transformers.OPTConfig(
        max_position_embeddings=24,
        num_hidden_layers=2,
        num_attention_heads=2,
        hidden_size=8,
        ffn_dim=16,
        word_embed_proj_dim=8,
    )
    for config, table in (
        (gpt2, lambda m: m.wpe),
        (opt, lambda m: m.decoder.embed_positions),
    ):
        model = transformers.AutoModel.from_config(config)
        read = nonrotary_positions(config.to_dict())
        assert table(model).num_embeddings == read.positions + read.offset
        assert read.num_layers == 2 and read.num_heads == 2


def test_roberta_ids_start_after_the_padding_index():
    config = transformers.RobertaConfig(
        max_position_embeddings=20, pad_token_id=1, hidden_size=8, num_attention_heads=2
    )
    read = nonrotary_positions(config.to_dict())
    embeddings = RobertaEmbeddings(config)
    assert embeddings.position_embeddings.num_embeddings == read.positions + read.offset
    ids = torch.full((1, read.positions), 5)  # no padding: the longest sequence that fits
    positions = RobertaEmbeddings.create_position_ids_from_input_ids(ids, config.pad_token_id)
    assert positions.min().item() == read.offset
    assert positions.max().item() == read.positions + read.offset - 1  # the last row


@pytest.mark.parametrize("num_heads", [1, 4, 6, 16, 24])
@pytest.mark.parametrize("family", ["bloom", "falcon"])
def test_alibi_slopes_equal_build_alibi_tensor(family, num_heads):
    config = {"model_type": family, "num_hidden_layers": 2, "n_layer": 2, "alibi": True}
    config |= {"n_head": num_heads} if family == "bloom" else {"num_attention_heads": num_heads}
    build = build_alibi_tensor if family == "bloom" else falcon_alibi_tensor
    alibi = build(torch.ones(1, 3), num_heads, torch.float32)
    np.testing.assert_allclose(
        nonrotary_positions(config).slopes, _slopes_from(alibi, num_heads), rtol=1e-6
    )  # transformers computes them in float32; Falcon's rounded to bfloat16 both sides


@pytest.mark.parametrize("bias_max", [8, 16])
@pytest.mark.parametrize("num_heads", [4, 8, 12, 24, 32])
def test_mpt_slopes_equal_build_mpt_alibi_tensor(num_heads, bias_max):
    config = {"model_type": "mpt", "n_layers": 2, "n_heads": num_heads}
    config["attn_config"] = {"alibi_bias_max": bias_max}
    alibi = build_mpt_alibi_tensor(num_heads, 4, bias_max)  # (heads, 1, L): slope × (j − L + 1)
    theirs = -alibi[:, 0, -2].double().numpy()
    np.testing.assert_allclose(nonrotary_positions(config).slopes, theirs, rtol=1e-6)


@pytest.mark.parametrize(("buckets", "distance"), [(32, 128), (16, 64), (64, 256)])
def test_t5_last_bucket_starts_where_t5s_own_bucketing_says(buckets, distance):
    config = {
        "model_type": "t5",
        "num_layers": 2,
        "num_heads": 2,
        "relative_attention_num_buckets": buckets,
        "relative_attention_max_distance": distance,
    }
    shared = inspect_config(config)["positions"]["shared_bucket_from"]
    n = torch.arange(4 * distance)
    for stack, bidirectional in (("encoder", True), ("decoder", False)):
        bucket = T5Attention._relative_position_bucket(
            -n, bidirectional=bidirectional, num_buckets=buckets, max_distance=distance
        )
        assert int(n[bucket == bucket[-1]].min()) == shared[stack]


def test_gptj_and_falcon_rotate_with_the_frequencies_their_code_builds():
    gptj = transformers.GPTJConfig(n_embd=64, n_head=2, n_layer=1, rotary_dim=8, n_positions=16)
    attention = transformers.models.gptj.modeling_gptj.GPTJAttention(gptj)
    table = attention.embed_positions  # [sin | cos] of pos · inv_freq, rotary_dim / 2 each
    theirs = table[1, : gptj.rotary_dim // 2].double().arcsin().numpy()  # position 1: inv_freq
    ours = config_rope_frequencies(gptj.to_dict())[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)

    falcon = transformers.FalconConfig(
        hidden_size=64, num_attention_heads=4, num_hidden_layers=1, alibi=False
    )
    rotary = transformers.models.falcon.modeling_falcon.FalconRotaryEmbedding(falcon)
    raw = {"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 4, "alibi": False}
    ours = config_rope_frequencies(raw)[0]
    np.testing.assert_allclose(ours, rotary.inv_freq.double().numpy(), rtol=1e-6)
