"""Differential tests: packing against transformers' own code.

* ``packed_position_ids`` and the ``cu_seqlens`` of its documents against
  ``DataCollatorWithFlattening`` (``data/data_collator.py``), which packs a batch;
* ``cu_seqlens_from_position_ids`` against ``prepare_fa_kwargs_from_position_ids``
  (``modeling_flash_attention_utils.py``), what the flash-attention path infers;
* ``packed_sequence_ids`` against ``find_packed_sequence_indices`` (``masking_utils.py``);
* ``packed_causal_mask`` against the boolean mask ``create_causal_mask`` builds for
  SDPA from packed position ids.

Ids that do not restart at 0 (a fall to 1, ids starting above the smallest) are
included: there the two inference rules differ, and each must match its own.
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

from transformers import DataCollatorWithFlattening, LlamaConfig  # noqa: E402
from transformers.masking_utils import (  # noqa: E402
    create_causal_mask,
    find_packed_sequence_indices,
)
from transformers.modeling_flash_attention_utils import (  # noqa: E402
    prepare_fa_kwargs_from_position_ids,
)

from pe_explained import (  # noqa: E402
    cu_seqlens_from_position_ids,
    packed_causal_mask,
    packed_position_ids,
    packed_sequence_ids,
)

LENGTHS = [[5], [3, 2, 4], [1, 1, 1], [2, 7, 1, 3]]
IDS = [
    [[0, 1, 2, 0, 1, 0, 1, 2, 3]],
    [[0, 1, 2, 3, 4, 5]],  # one document
    [[0, 1, 2, 1, 2, 3]],  # a fall to 1: a boundary for the masks, none for flash-attention
    [[3, 4, 0, 1, 2]],  # starting above the smallest id
    [[2, 3, 4, 2, 3]],  # RoBERTa-like ids starting at 2
    [[0, 1, 2], [0, 1, 0]],  # a batch of two rows
]


@pytest.mark.parametrize("lengths", LENGTHS)
def test_position_ids_and_cu_seqlens_match_the_flattening_collator(lengths):
    collator = DataCollatorWithFlattening(return_flash_attn_kwargs=True, return_tensors="np")
    features = [{"input_ids": list(range(10, 10 + n))} for n in lengths]
    batch = collator(features)
    np.testing.assert_array_equal(packed_position_ids(lengths), batch["position_ids"][0])
    np.testing.assert_array_equal(
        cu_seqlens_from_position_ids(batch["position_ids"]), batch["cu_seq_lens_q"]
    )


@pytest.mark.parametrize("ids", IDS)
def test_cu_seqlens_match_prepare_fa_kwargs(ids):
    (theirs, _), (max_len, _) = prepare_fa_kwargs_from_position_ids(torch.tensor(ids))
    ours = cu_seqlens_from_position_ids(ids)
    assert ours.dtype == np.int32 and theirs.dtype == torch.int32
    np.testing.assert_array_equal(ours, theirs.numpy())
    assert np.diff(ours).max() == int(max_len)


@pytest.mark.parametrize("ids", IDS)
def test_document_numbers_match_find_packed_sequence_indices(ids):
    theirs = find_packed_sequence_indices(torch.tensor(ids))
    ours = packed_sequence_ids(ids)
    if theirs is None:  # transformers' way of saying "one document per row"
        assert not ours.any()
    else:
        np.testing.assert_array_equal(ours, theirs.numpy())


@pytest.mark.parametrize("lengths", LENGTHS)
def test_mask_matches_create_causal_mask(lengths):
    config = LlamaConfig(
        hidden_size=8, num_attention_heads=2, num_hidden_layers=1, intermediate_size=8
    )
    config._attn_implementation = "sdpa"
    total = sum(lengths)
    position_ids = torch.tensor([packed_position_ids(lengths).tolist()])
    mask = create_causal_mask(
        config=config,
        inputs_embeds=torch.zeros(1, total, 8),
        attention_mask=None,
        past_key_values=None,
        position_ids=position_ids,
    )
    if mask is None:  # one document: transformers leaves it to SDPA's is_causal
        assert len(lengths) == 1
        np.testing.assert_array_equal(packed_causal_mask(lengths), np.tril(np.ones((total,) * 2)))
        return
    np.testing.assert_array_equal(packed_causal_mask(lengths), mask[0, 0].numpy())


def test_the_comparison_fails_on_ids_that_never_restart():
    """The harness can fail: continuous ids make transformers see one document."""
    lengths = [3, 2, 4]
    continuous = packed_position_ids(lengths, reset=False)
    (theirs, _), _ = prepare_fa_kwargs_from_position_ids(torch.tensor([continuous.tolist()]))
    assert not np.array_equal(np.concatenate([[0], np.cumsum(lengths)]), theirs.numpy())
