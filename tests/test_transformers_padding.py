"""Differential tests for chapter 24: what transformers does with padded, batched and packed
rows, held to the library.

* A left-padded batch called without position ids (a Llama model counts columns): its
  real tokens' outputs equal those with ids from the mask up to rounding, since RoPE
  sees a common shift only; GPT-2's learned table does not.
* Dynamic NTK scaling: the frequencies follow the largest position id of the whole
  batch and stay there for later, shorter batches until one is shorter than the
  original context (``dynamic_rope_update`` in ``modeling_rope_utils.py``).
* Packed ids: the masks of SDPA find the documents only when no attention mask is given
  (``create_causal_mask``); the flash-attention path drops an all-ones mask and infers
  them from the ids of a batch of one row.
* Qwen2-VL's ``get_rope_index`` on a left-padded batch: each row's ids from its own
  kept tokens, and a delta per row for decoding.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (differential tests run in CI)"
)

from transformers import GPT2Config, GPT2Model, LlamaConfig, LlamaModel  # noqa: E402
from transformers.masking_utils import create_causal_mask, flash_attention_mask  # noqa: E402
from transformers.modeling_flash_attention_utils import _is_packed_sequence  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel  # noqa: E402

from pe_explained import (  # noqa: E402
    mrope_position_ids,
    packed_causal_mask,
    packed_position_ids,
    position_ids_from_mask,
    rope_frequencies,
)

MASK = torch.tensor([[1] * 9, [0, 0, 0, 0, 1, 1, 1, 1, 1], [0] * 7 + [1, 1]])


def _outputs(model, position_ids=None):
    torch.manual_seed(0)
    tokens = torch.randint(1, 50, MASK.shape)
    with torch.no_grad():
        out = model(input_ids=tokens, attention_mask=MASK, position_ids=position_ids)
    return out.last_hidden_state[MASK.bool()]


def _llama():
    torch.manual_seed(1)
    config = LlamaConfig(
        hidden_size=32, num_attention_heads=2, num_hidden_layers=2, intermediate_size=64,
        vocab_size=50,
    )  # fmt: skip
    config._attn_implementation = "sdpa"
    return LlamaModel(config).double().eval()


def test_a_rotary_model_reads_column_ids_as_a_common_shift():
    """Columns instead of ids from the mask move each row by its padding: RoPE's scores do
    not see it (float64 weights; transformers computes the angles in float32, hence 1e-6)."""
    model = _llama()
    from_mask = torch.tensor(position_ids_from_mask(MASK.numpy()))
    columns = _outputs(model)  # no position ids: LlamaModel counts columns
    assert (columns - _outputs(model, from_mask)).abs().max() < 1e-6
    # the comparison can fail: ids that are not a common shift change the outputs
    assert (columns - _outputs(model, 2 * from_mask)).abs().max() > 1e-3


def test_an_absolute_table_reads_other_rows_under_column_ids():
    torch.manual_seed(1)
    config = GPT2Config(n_embd=32, n_layer=2, n_head=2, vocab_size=50, n_positions=16)
    config.bos_token_id = config.eos_token_id = None
    model = GPT2Model(config).double().eval()
    from_mask = torch.tensor(position_ids_from_mask(MASK.numpy()))
    columns = torch.arange(MASK.shape[1]).expand(MASK.shape)
    assert (_outputs(model, columns) - _outputs(model, from_mask)).abs().max() > 0.1


DYNAMIC = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096}


def test_dynamic_ntk_follows_the_longest_row_and_keeps_it():
    config = LlamaConfig(
        hidden_size=256,
        num_attention_heads=2,
        max_position_embeddings=4096,
        rope_parameters={"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10000.0},
    )
    rotary = LlamaRotaryEmbedding(config)
    x = torch.zeros(1, 1, 128)

    def after(batch_max):
        """inv_freq once a batch of a 1,000-token row and a row ending at batch_max ran."""
        short = torch.arange(1000)
        rotary(x, torch.stack([short, torch.arange(batch_max - 999, batch_max + 1)]))
        return rotary.inv_freq.double().numpy()

    def ours(seq_len):
        return rope_frequencies(128, scaling=DYNAMIC, seq_len=seq_len)[0]

    np.testing.assert_allclose(after(999), ours(1000), rtol=1e-6)  # plain RoPE below L
    np.testing.assert_allclose(after(8191), ours(8192), rtol=1e-6)  # the batch's longest
    np.testing.assert_allclose(after(4999), ours(8192), rtol=1e-6)  # kept, not 5,000
    assert not np.allclose(ours(5000), ours(8192), rtol=1e-3)
    np.testing.assert_allclose(after(999), ours(1000), rtol=1e-6)  # reset below L


def _sdpa_mask(attention_mask, lengths):
    config = LlamaConfig(hidden_size=8, num_attention_heads=2, num_hidden_layers=1)
    config._attn_implementation = "sdpa"
    total = sum(lengths)
    return create_causal_mask(
        config=config,
        inputs_embeds=torch.zeros(1, total, 8),
        attention_mask=attention_mask,
        past_key_values=None,
        position_ids=torch.tensor([packed_position_ids(lengths).tolist()]),
    )


def test_sdpa_finds_the_documents_only_without_an_attention_mask():
    lengths = [3, 2, 4]
    found = _sdpa_mask(None, lengths)
    np.testing.assert_array_equal(found[0, 0].numpy(), packed_causal_mask(lengths))
    # an all-ones mask: no search; SDPA runs is_causal, every document sees the earlier ones
    assert _sdpa_mask(torch.ones(1, sum(lengths), dtype=torch.long), lengths) is None


def test_the_flash_path_drops_an_all_ones_mask_and_reads_the_ids_of_one_row():
    ids = torch.tensor([packed_position_ids([3, 2, 4]).tolist()])
    ones = torch.ones(1, 9, dtype=torch.bool)
    assert flash_attention_mask(1, 9, 9, attention_mask=ones) is None
    assert bool(_is_packed_sequence(ids, batch_size=1))
    assert not _is_packed_sequence(ids.expand(2, -1), batch_size=2)  # batches of several rows
    assert not bool(_is_packed_sequence(torch.arange(9)[None], batch_size=1))  # one document


def test_qwen2_vl_numbers_each_padded_row_from_its_own_tokens_with_a_delta_per_row():
    """Row 0: 3 words, an image of 28 × 28 patches (14 × 14 tokens), 2 words; row 1: 5
    words, left-padded to the same length."""
    image = 196
    seq = 3 + image + 2
    types = torch.zeros(2, seq, dtype=torch.int32)
    types[0, 3 : 3 + image] = 1
    mask = torch.ones(2, seq, dtype=torch.long)
    mask[1, : seq - 5] = 0
    owner = SimpleNamespace(
        config=SimpleNamespace(vision_config=SimpleNamespace(spatial_merge_size=2)),
    )
    owner.get_vision_position_ids = Qwen2VLModel.get_vision_position_ids.__get__(owner)
    ids, deltas = Qwen2VLModel.get_rope_index(
        owner,
        torch.zeros(2, seq, dtype=torch.long),
        mm_token_type_ids=types,
        image_grid_thw=torch.tensor([[1, 28, 28]]),
        attention_mask=mask,
    )
    ours = mrope_position_ids([3, 2], [[28, 28]])
    np.testing.assert_array_equal(ids[:, 0].numpy(), ours)
    np.testing.assert_array_equal(ids[:, 1, seq - 5 :].numpy(), np.tile(np.arange(5), (3, 1)))
    assert deltas[:, 0].tolist() == [int(ours.max()) + 1 - seq, 0]
