"""Differential tests: RoPE frequencies and phasors of a bfloat16 model, against transformers.

``model.to(torch.bfloat16)`` casts every floating buffer, the rotary embedding's
``inv_freq`` too; the rotary class then multiplies a float32 copy of those bfloat16
frequencies by the float32 positions. :func:`pe_explained.float32_rope_cos_sin` with
``inv_freq_dtype=ml_dtypes.bfloat16`` follows that recipe, and
:func:`pe_explained.rope_angle_error` measures it. Loading with
``from_pretrained(..., dtype=torch.bfloat16)`` keeps the buffer in float32.

The model is a one-layer Llama with heads 32 wide and base 5×10⁵. Each comparison is
shown to fail on the wrong recipe (float32 frequencies).
"""

from __future__ import annotations

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip("torch", reason="torch is not installed (differential tests run in CI)")
ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is installed with the book")

from transformers import LlamaConfig, LlamaForCausalLM  # noqa: E402

from pe_explained import float32_rope_cos_sin, rope_angle_error  # noqa: E402

HEAD_DIM, BASE = 32, 5e5
POSITIONS = np.array([1_000, 32_768, 131_071])
BF16 = ml_dtypes.bfloat16


def _config() -> LlamaConfig:
    return LlamaConfig(
        hidden_size=64,
        num_attention_heads=2,
        num_key_value_heads=2,
        head_dim=HEAD_DIM,
        intermediate_size=64,
        num_hidden_layers=1,
        vocab_size=32,
        rope_theta=BASE,
        max_position_embeddings=131_072,
    )


def _cos_sin(rotary, dtype) -> tuple[np.ndarray, np.ndarray]:
    """The rotary class's cos and sin at POSITIONS, first half (one entry per pair)."""
    x = torch.zeros(1, 1, 64, dtype=dtype)
    with torch.no_grad():
        cos, sin = rotary(x, torch.tensor(POSITIONS[None, :]))
    half = HEAD_DIM // 2
    return cos[0, :, :half].float().numpy(), sin[0, :, :half].float().numpy()


@pytest.fixture(scope="module")
def bf16_model():
    torch.manual_seed(0)
    return LlamaForCausalLM(_config()).to(torch.bfloat16)


def test_to_bfloat16_casts_inv_freq_to_bfloat16(bf16_model):
    inv_freq = bf16_model.model.rotary_emb.inv_freq
    assert inv_freq.dtype == torch.bfloat16
    omega = BASE ** (-np.arange(0, HEAD_DIM, 2) / HEAD_DIM)
    # the buffer holds ω_i rounded to bfloat16, as the library rounds it
    assert np.array_equal(inv_freq.float().numpy(), omega.astype(BF16).astype(np.float32))


def test_the_library_follows_the_bfloat16_buffer(bf16_model):
    """float32 cos/sin from the bfloat16 buffer: the library's recipe, within one float32 ulp."""
    theirs_cos, theirs_sin = _cos_sin(bf16_model.model.rotary_emb, torch.float32)
    cos, sin = float32_rope_cos_sin(POSITIONS, HEAD_DIM, base=BASE, inv_freq_dtype=BF16)
    assert np.abs(theirs_cos - cos).max() <= 2.0**-23
    assert np.abs(theirs_sin - sin).max() <= 2.0**-23
    # the harness sees the wrong recipe: float32 frequencies are far from the model's
    wrong_cos, _ = float32_rope_cos_sin(POSITIONS, HEAD_DIM, base=BASE)
    assert np.abs(theirs_cos - wrong_cos).max() > 0.1


def test_angle_error_measures_what_the_model_computes(bf16_model):
    """The largest cos/sin error of the bfloat16 model, against the float64 formula."""
    cos, sin = _cos_sin(bf16_model.model.rotary_emb, torch.bfloat16)
    omega = BASE ** (-np.arange(0, HEAD_DIM, 2) / HEAD_DIM)
    theta = np.multiply.outer(POSITIONS.astype(np.float64), omega)
    theirs = np.maximum(np.abs(cos - np.cos(theta)), np.abs(sin - np.sin(theta))).max(axis=1)
    ours = rope_angle_error(POSITIONS, HEAD_DIM, base=BASE, output_dtype=BF16, inv_freq_dtype=BF16)
    # the same errors, up to torch's and numpy's float32 cos/sin before the bfloat16 rounding
    np.testing.assert_allclose(ours, theirs, atol=2.0**-8)
    assert theirs.min() > 0.2  # a visibly wrong rotation from position 1,000 on
    wrong = rope_angle_error(POSITIONS, HEAD_DIM, base=BASE, output_dtype=BF16)
    assert not np.allclose(wrong, theirs, atol=2.0**-8)


def test_loading_in_bfloat16_keeps_inv_freq_in_float32(tmp_path):
    torch.manual_seed(0)
    LlamaForCausalLM(_config()).save_pretrained(tmp_path)
    model = LlamaForCausalLM.from_pretrained(tmp_path, dtype=torch.bfloat16)
    assert model.model.embed_tokens.weight.dtype == torch.bfloat16
    inv_freq = model.model.rotary_emb.inv_freq
    assert inv_freq.dtype == torch.float32
    # transformers' float32 power: within a few float32 ulps of the correctly rounded ω_i
    omega32 = (BASE ** (-np.arange(0, HEAD_DIM, 2) / HEAD_DIM)).astype(np.float32)
    assert np.abs(inv_freq.numpy().view(np.int32) - omega32.view(np.int32)).max() <= 6
