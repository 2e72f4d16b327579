"""Differential test: a learned attention sink against transformers' own gpt-oss attention.

``learned_sink_weights`` must give the attention weights that ``eager_attention_forward``
of ``models/gpt_oss/modeling_gpt_oss.py`` returns (the sink logit of each head appended
to the scores, a softmax, the sink's column dropped), on random scores with a causal
mask, and the weight the sink took must be what those weights leave of 1.
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

from transformers.models.gpt_oss import modeling_gpt_oss  # noqa: E402

from pe_explained import learned_sink_weights  # noqa: E402

HEADS, QUERIES, HEAD_DIM = 3, 5, 8


class _Head(torch.nn.Module):
    """What ``eager_attention_forward`` reads from the attention module."""

    def __init__(self, sinks):
        super().__init__()
        self.sinks = torch.nn.Parameter(torch.tensor(sinks, dtype=torch.float64))
        self.num_key_value_groups = 1


def _transformers_weights(q, k, sinks, scaling):
    module = _Head(sinks).eval()
    mask = torch.full((QUERIES, QUERIES), float("-inf"), dtype=torch.float64).triu(1)
    value = torch.zeros_like(k)
    _, weights = modeling_gpt_oss.eager_attention_forward(
        module, q, k, value, mask[None, None], scaling=scaling
    )
    return weights[0].detach().numpy()


@pytest.mark.parametrize("sinks", [[-3.0, 0.0, 4.0], [10.0, -10.0, 0.5]])
def test_learned_sink_weights_equal_gpt_oss_attention(sinks):
    rng = np.random.default_rng(11)
    q = torch.tensor(rng.normal(size=(1, HEADS, QUERIES, HEAD_DIM)))
    k = torch.tensor(rng.normal(size=(1, HEADS, QUERIES, HEAD_DIM)))
    scaling = HEAD_DIM**-0.5
    theirs = _transformers_weights(q, k, sinks, scaling)
    scores = (q @ k.transpose(2, 3) * scaling)[0].numpy()
    scores = np.where(np.tril(np.ones((QUERIES, QUERIES), dtype=bool)), scores, -np.inf)
    for head, sink_logit in enumerate(sinks):
        ours, sink = learned_sink_weights(scores[head], sink_logit)
        np.testing.assert_allclose(ours, theirs[head], rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(sink, 1.0 - theirs[head].sum(axis=-1), rtol=1e-9, atol=1e-15)
    # the comparison fails without the sink: a plain softmax over the same scores
    plain, _ = learned_sink_weights(scores[2], -1e6)
    assert np.abs(plain - theirs[2]).max() > 1e-3
