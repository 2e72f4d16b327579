"""Differential tests: position bookkeeping and DeBERTa's attention against transformers' code.

* ``position_ids_from_mask`` against ``GenerationMixin._prepare_position_ids_for_generation``
  (what ``generate`` computes from the attention mask) and the ids it passes on once a
  cache holds the prompt.
* ``opt_position_rows`` against ``OPTLearnedPositionalEmbedding``, whose table is filled
  with each row's own index so that the rows it reads can be seen.
* ``disentangled_scores`` against a ``DisentangledSelfAttention`` of DeBERTa with random
  weights, in float64: the attention probabilities must agree to rounding for
  ``p2c_index="code"``, and differ for ``"paper"`` (which also shows the comparison can
  fail). transformers computes the scale √(3·head_dim) as a float32 tensor
  (``scaled_size_sqrt``); the exact comparison swaps in the float64 value, and a second
  test shows the unpatched module agrees to float32 rounding (about 3e-7 relative).
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

from transformers.generation.utils import GenerationMixin  # noqa: E402
from transformers.models.deberta import modeling_deberta  # noqa: E402
from transformers.models.opt.modeling_opt import OPTLearnedPositionalEmbedding  # noqa: E402

from pe_explained import (  # noqa: E402
    disentangled_scores,
    opt_position_rows,
    position_ids_from_mask,
)

MASKS = [
    [[1, 1, 1, 1, 1]],
    [[1, 1, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 0, 0, 1]],
    [[0, 1, 1, 0, 1, 1]],  # a hole in the middle (packed or edited prompts)
    [[0, 0, 0]],
]


@pytest.mark.parametrize("mask", MASKS)
def test_position_ids_match_generate(mask):
    mask_t = torch.tensor(mask)
    theirs = GenerationMixin._prepare_position_ids_for_generation(
        None, torch.zeros_like(mask_t), {"attention_mask": mask_t}
    )
    np.testing.assert_array_equal(position_ids_from_mask(mask), theirs.numpy())


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("past_length", [0, 1, 3])
def test_opt_rows_match_opts_embedding(mask, past_length):
    if past_length > len(mask[0]):
        pytest.skip("the cache cannot hold more tokens than the mask covers")
    embedding = OPTLearnedPositionalEmbedding(16, 1)
    with torch.no_grad():  # row r of the table holds r: the output is the row read
        embedding.weight.copy_(torch.arange(18.0)[:, None])
    with torch.no_grad():
        theirs = embedding(torch.tensor(mask), past_key_values_length=past_length)[..., 0]
    np.testing.assert_array_equal(opt_position_rows(mask, past_length=past_length), theirs)


def test_generate_ids_after_the_prompt_continue_each_row():
    # generate appends last id + 1 per row; the library, given the longer mask, agrees
    mask = [[1, 1, 1, 1], [0, 0, 1, 1]]
    prompt = position_ids_from_mask(mask)
    step = position_ids_from_mask([row + [1] for row in mask], past_length=4)
    np.testing.assert_array_equal(step, prompt[:, -1:] + 1)


def _deberta(seq_len: int, max_relative: int, seed: int):
    config = modeling_deberta.DebertaConfig(
        hidden_size=12,
        num_attention_heads=3,
        relative_attention=True,
        pos_att_type=["c2p", "p2c"],
        max_relative_positions=max_relative,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    module = modeling_deberta.DisentangledSelfAttention(config).double().eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(torch.randn(parameter.shape, generator=generator, dtype=torch.float64))
    hidden = torch.randn(1, seq_len, 12, generator=generator, dtype=torch.float64)
    table = torch.randn(2 * max_relative, 12, generator=generator, dtype=torch.float64)
    return module, hidden, table


def _float64_scale(layer, scale_factor):
    return torch.sqrt(torch.tensor(layer.size(-1) * scale_factor, dtype=torch.float64))


def _theirs_and_ours(seq_len, max_relative, seed, p2c_index):
    module, hidden, table = _deberta(seq_len, max_relative, seed)
    relative_pos = modeling_deberta.build_relative_position(hidden, hidden)
    mask = torch.ones(1, 1, seq_len, seq_len, dtype=torch.bool)
    with torch.no_grad():
        _, probs = module(
            hidden, mask, output_attentions=True, relative_pos=relative_pos, rel_embeddings=table
        )
    heads, head_dim = 3, 4
    x, p = hidden[0].numpy(), table.numpy()
    qkv = x @ module.in_proj.weight.detach().numpy().T
    pos_k = p @ module.pos_proj.weight.detach().numpy().T
    pos_q = (
        p @ module.pos_q_proj.weight.detach().numpy().T + module.pos_q_proj.bias.detach().numpy()
    )
    q_bias = module.q_bias.detach().numpy()
    ours = []
    for h in range(heads):
        block = qkv[:, 3 * head_dim * h : 3 * head_dim * (h + 1)]  # transformers' per-head q|k|v
        q = block[:, :head_dim] + q_bias[head_dim * h : head_dim * (h + 1)]
        k = block[:, head_dim : 2 * head_dim]
        cols = slice(head_dim * h, head_dim * (h + 1))
        scores = disentangled_scores(q, k, pos_q[:, cols], pos_k[:, cols], p2c_index=p2c_index)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        ours.append(weights / weights.sum(axis=1, keepdims=True))
    return probs[0].numpy(), np.stack(ours)


@pytest.mark.parametrize(
    "seq_len, max_relative, seed", [(5, 8, 0), (7, 3, 1), (9, 2, 2), (1, 4, 3), (6, 6, 4)]
)
def test_disentangled_attention_matches_transformers(seq_len, max_relative, seed, monkeypatch):
    monkeypatch.setattr(modeling_deberta, "scaled_size_sqrt", _float64_scale)
    theirs, ours = _theirs_and_ours(seq_len, max_relative, seed, "code")
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("seq_len, max_relative, seed", [(5, 8, 0), (7, 3, 1)])
def test_the_papers_p2c_index_is_not_what_transformers_computes(seq_len, max_relative, seed):
    theirs, ours = _theirs_and_ours(seq_len, max_relative, seed, "paper")
    assert np.abs(ours - theirs).max() > 1e-3


def test_unpatched_transformers_agrees_to_float32_rounding_of_its_scale():
    theirs, ours = _theirs_and_ours(7, 3, 1, "code")
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-12)


def test_t5_buckets_and_their_defaults_match_transformers():
    """Chapter 13 quotes the library's defaults as T5's: they are T5Config's, and every
    bucket agrees with ``T5Attention._relative_position_bucket`` in both directions."""
    import inspect

    from transformers.models.t5.configuration_t5 import T5Config
    from transformers.models.t5.modeling_t5 import T5Attention

    from pe_explained import t5_relative_bucket

    defaults = inspect.signature(t5_relative_bucket).parameters
    config = T5Config()
    assert defaults["num_buckets"].default == config.relative_attention_num_buckets
    assert defaults["max_distance"].default == config.relative_attention_max_distance
    relative = np.arange(-600, 601)
    for bidirectional in (True, False):
        theirs = T5Attention._relative_position_bucket(
            torch.from_numpy(relative), bidirectional=bidirectional
        ).numpy()
        ours = t5_relative_bucket(relative, bidirectional=bidirectional)
        np.testing.assert_array_equal(ours, theirs)
