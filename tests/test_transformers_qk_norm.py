"""Differential tests: where QK-norm sits relative to the rotation, in Qwen3 and Gemma 3.

Both models normalise every query and key head (RMSNorm over ``head_dim``, with a learned
weight per dimension: ``q_norm``, ``k_norm``) and then rotate it
(``apply_rotary_pos_emb``), in ``Qwen3Attention.forward`` and ``Gemma3Attention.forward``.
A tiny attention layer of each, with random norm weights, is run on random hidden states
with the library's cos and sin; the queries and keys that reach the attention function
are compared with :func:`pe_explained.apply_rope` applied to the normalised projections.
The other order (rotate, then normalise) is shown to disagree, and so to break the
score's dependence on ``m − n`` alone.
"""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip("torch", reason="torch is not installed (differential tests run in CI)")

from transformers import Gemma3TextConfig, Qwen3Config  # noqa: E402
from transformers.models.gemma3 import modeling_gemma3  # noqa: E402
from transformers.models.qwen3 import modeling_qwen3  # noqa: E402

from pe_explained import apply_rope, rope_frequencies  # noqa: E402

HEAD_DIM, HEADS, SEQ, EPS = 8, 2, 5, 1e-6
POSITIONS = np.array([3, 4, 9, 10, 40])


def _rms_norm(x: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``scale · x / sqrt(mean(x²) + eps)`` over the head dimension."""
    return scale * x / np.sqrt((x**2).mean(-1, keepdims=True) + EPS)


def _run(module, attention, hidden):
    """The query and key states that reach the attention function, as numpy arrays."""
    captured = {}

    def capture(module_, query, key, value, attention_mask, **kwargs):
        captured["q"], captured["k"] = query, key
        shape = (query.shape[0], query.shape[2], query.shape[1], value.shape[-1])
        return torch.zeros(shape, dtype=query.dtype), None

    inv_freq, _ = rope_frequencies(HEAD_DIM)
    theta = np.multiply.outer(POSITIONS, inv_freq)
    cos = torch.tensor(np.concatenate([np.cos(theta)] * 2, -1)[None], dtype=torch.float32)
    sin = torch.tensor(np.concatenate([np.sin(theta)] * 2, -1)[None], dtype=torch.float32)
    original = module.eager_attention_forward
    module.eager_attention_forward = capture
    try:
        with torch.no_grad():
            attention(hidden, position_embeddings=(cos, sin), attention_mask=None)
    finally:
        module.eager_attention_forward = original
    return captured["q"][0].numpy(), captured["k"][0].numpy()


CASES = [
    (
        modeling_qwen3,
        lambda: Qwen3Config(
            hidden_size=16,
            num_attention_heads=HEADS,
            num_key_value_heads=HEADS,
            head_dim=HEAD_DIM,
            num_hidden_layers=1,
            rms_norm_eps=EPS,
            attn_implementation="eager",
        ),
        "Qwen3Attention",
        lambda weight: weight,  # Qwen3RMSNorm: weight · x̂
    ),
    (
        modeling_gemma3,
        lambda: Gemma3TextConfig(
            hidden_size=16,
            num_attention_heads=HEADS,
            num_key_value_heads=HEADS,
            head_dim=HEAD_DIM,
            num_hidden_layers=1,
            rms_norm_eps=EPS,
            attn_implementation="eager",
        ),
        "Gemma3Attention",
        lambda weight: 1.0 + weight,  # Gemma3RMSNorm: (1 + weight) · x̂
    ),
]


@pytest.mark.parametrize("module,config,name,scale_of", CASES, ids=["qwen3", "gemma3"])
def test_qk_norm_comes_before_the_rotation(module, config, name, scale_of):
    torch.manual_seed(0)
    attention = getattr(module, name)(config(), layer_idx=0).eval()
    with torch.no_grad():
        attention.q_norm.weight.normal_()
        attention.k_norm.weight.normal_()
    hidden = torch.randn(1, SEQ, 16)
    q_rot, k_rot = _run(module, attention, hidden)
    with torch.no_grad():
        q = attention.q_proj(hidden).view(SEQ, HEADS, HEAD_DIM).transpose(0, 1).double().numpy()
        k = attention.k_proj(hidden).view(SEQ, HEADS, HEAD_DIM).transpose(0, 1).double().numpy()
    q_scale = scale_of(attention.q_norm.weight.detach().double().numpy())
    k_scale = scale_of(attention.k_norm.weight.detach().double().numpy())
    inv_freq, _ = rope_frequencies(HEAD_DIM)

    def rope(x):
        return apply_rope(x, POSITIONS, inv_freq, layout="halves")

    # norm, then rotation: what the model computes (float32 there)
    np.testing.assert_allclose(q_rot, rope(_rms_norm(q, q_scale)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(k_rot, rope(_rms_norm(k, k_scale)), rtol=1e-5, atol=1e-5)
    # the harness sees the other order: rotation, then norm, is another answer
    assert not np.allclose(q_rot, _rms_norm(rope(q), q_scale), rtol=1e-3, atol=1e-3)


def test_the_order_decides_whether_the_score_depends_on_the_distance_only():
    """Norm first keeps RoPE's q(m)·k(n) = f(m − n); a per-dimension weight after the
    rotation breaks it (unless the weight is the same within every rotated pair)."""
    rng = np.random.default_rng(3)
    q, k = rng.normal(size=(2, 1, HEAD_DIM))
    scale = rng.normal(size=HEAD_DIM)
    inv_freq, _ = rope_frequencies(HEAD_DIM)

    def score(m, n, norm_first):
        if norm_first:
            qm = apply_rope(_rms_norm(q, scale), [m], inv_freq)
            kn = apply_rope(_rms_norm(k, scale), [n], inv_freq)
        else:
            qm = _rms_norm(apply_rope(q, [m], inv_freq), scale)
            kn = _rms_norm(apply_rope(k, [n], inv_freq), scale)
        return float((qm * kn).sum())

    assert score(7, 3, True) == pytest.approx(score(107, 103, True), abs=1e-12)
    assert abs(score(7, 3, False) - score(107, 103, False)) > 1e-3
