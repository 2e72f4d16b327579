"""Differential tests: multimodal RoPE against transformers' own code.

* Position ids: transformers' ``get_rope_index`` of Qwen2-VL, Qwen2.5-VL and Qwen3-VL,
  called on the smallest object it needs (a config holding ``spatial_merge_size``
  and the model class's own ``get_vision_position_ids``), must equal
  :func:`pe_explained.mrope_position_ids` exactly, for several text/image layouts.
  Pixtral's patch positions are read from a tiny ``PixtralVisionModel`` forward pass.
* Rotation: the ``cos``/``sin`` of ``Qwen2VLRotaryEmbedding``,
  ``Qwen3VLTextRotaryEmbedding`` and ``PixtralVisionRotaryEmbedding`` (tiny configs)
  fed to each model's ``apply_rotary_pos_emb`` on seeded random float32 tensors must
  agree with the float64 formula within float32 rounding. transformers rounds
  ``ω`` to float32 (a few ulps) and the angle ``p·ω`` to float32, then computes cos,
  sin and two products in float32, so pair ``i`` of a row may differ by about
  ``2⁻²³ · |x_pair| · (c₁ θ_i + c₂)``: the bound used here takes ``c₁ = 16`` and
  ``c₂ = 8``, pair by pair. A harness test shows that a wrong answer (the other
  M-RoPE variant, a position off by one, RoPE's plain ladder for Pixtral) exceeds it.
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

from transformers.models.pixtral import modeling_pixtral  # noqa: E402
from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl  # noqa: E402
from transformers.models.qwen2_vl import modeling_qwen2_vl  # noqa: E402
from transformers.models.qwen3_vl import modeling_qwen3_vl  # noqa: E402

from pe_explained import (  # noqa: E402
    apply_mrope,
    apply_rope_2d,
    mrope_pair_axes,
    mrope_position_ids,
    patch_grid_positions,
    rope_2d_frequencies,
    rope_frequencies,
)

RNG = np.random.default_rng(2410)

# ---------------------------------------------------------------------------
# Position ids
# ---------------------------------------------------------------------------

MODELS = {
    "qwen2_vl": modeling_qwen2_vl.Qwen2VLModel,
    "qwen2_5_vl": modeling_qwen2_5_vl.Qwen2_5_VLModel,
    "qwen3_vl": modeling_qwen3_vl.Qwen3VLModel,
}

#: (text_lengths, image_grids as (height, width) in patches, spatial_merge_size)
LAYOUTS = [
    ([3, 2], [[4, 6]], 2),  # text, image, text
    # two images, one token between (get_rope_index tells images apart by the text between)
    ([0, 1, 0], [[4, 4], [2, 6]], 2),
    ([1, 1], [[16, 4]], 2),  # a tall image: the next text starts after its last row
    ([2, 5, 1], [[3, 2], [1, 4]], 1),  # no merging
    ([10, 7, 4], [[28, 20], [6, 14]], 2),  # a realistic mix
    ([6, 0], [[2, 30]], 2),  # a wide image ends the sequence
]


def _rope_index_owner(model_cls, spatial_merge_size):
    """The least ``get_rope_index`` needs: a vision config and ``get_vision_position_ids``."""

    class Owner:
        config = SimpleNamespace(
            vision_config=SimpleNamespace(
                spatial_merge_size=spatial_merge_size, tokens_per_second=2
            )
        )
        get_vision_position_ids = model_cls.get_vision_position_ids
        get_rope_index = model_cls.get_rope_index

    return Owner()


def reference_position_ids(model, text_lengths, image_grids, merge):
    """transformers' ids for one sequence, shape (3, seq)."""
    types = []
    for i, n_text in enumerate(text_lengths):
        types += [0] * n_text
        if i < len(image_grids):
            height, width = image_grids[i]
            types += [1] * (height * width // merge**2)
    token_types = torch.tensor([types], dtype=torch.int32)
    input_ids = torch.zeros_like(token_types, dtype=torch.long)
    grid_thw = torch.tensor([[1, h, w] for h, w in image_grids], dtype=torch.long)
    owner = _rope_index_owner(MODELS[model], merge)
    ids, _ = owner.get_rope_index(
        input_ids, mm_token_type_ids=token_types, image_grid_thw=grid_thw if image_grids else None
    )
    return ids[:, 0].numpy()


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize(("text_lengths", "image_grids", "merge"), LAYOUTS)
def test_position_ids_equal_get_rope_index(model, text_lengths, image_grids, merge):
    ours = mrope_position_ids(text_lengths, image_grids, spatial_merge_size=merge)
    theirs = reference_position_ids(model, text_lengths, image_grids, merge)
    np.testing.assert_array_equal(ours, theirs)


def test_text_only_position_ids_equal_get_rope_index():
    theirs = reference_position_ids("qwen2_vl", [7], [], 2)
    np.testing.assert_array_equal(mrope_position_ids([7], []), theirs)


def test_patch_positions_equal_pixtral_forward():
    config = transformers.PixtralVisionConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        image_size=64,
        patch_size=8,
    )
    torch.manual_seed(0)
    model = modeling_pixtral.PixtralVisionModel(config).eval()
    seen = []
    model.patch_positional_embedding.register_forward_pre_hook(
        lambda module, args: seen.append(args[1].numpy().copy())
    )
    pixels = torch.zeros(2, 3, 64, 64)
    with torch.no_grad():
        model(pixels, image_sizes=[(32, 48), (24, 64)])  # grids 4 × 6 and 3 × 8
    ours = np.concatenate([patch_grid_positions(4, 6), patch_grid_positions(3, 8)], axis=1)
    np.testing.assert_array_equal(seen[0], ours.T)  # transformers: (patches, 2)


# ---------------------------------------------------------------------------
# Rotation
# ---------------------------------------------------------------------------


def float32_excess(ours, theirs, x, theta):
    """How far ``theirs`` strays beyond float32 rounding of ``ours`` (<= 0: within it).

    Layout "halves": pair ``i`` is dimensions ``i`` and ``i + head_dim/2``. ``theta``
    (…, seq, head_dim/2) holds every pair's angle; ``x`` is the input.
    """
    half = x.shape[-1] // 2
    amplitude = np.hypot(x[..., :half], x[..., half:])
    bound = 2.0**-23 * amplitude * (16 * np.abs(theta) + 8)
    error = np.maximum(
        np.abs(ours[..., :half] - theirs[..., :half]), np.abs(ours[..., half:] - theirs[..., half:])
    )
    return float((error - bound).max()), float(error.max())


HEAD_DIM, HEADS = 32, 3
VARIANTS = {
    # name: (transformers module, rotary class, config class, mrope_section, base, interleaved)
    "qwen2_vl": (
        modeling_qwen2_vl,
        "Qwen2VLRotaryEmbedding",
        transformers.Qwen2VLTextConfig,
        [4, 6, 6],
        1e6,
        False,
    ),
    "qwen3_vl": (
        modeling_qwen3_vl,
        "Qwen3VLTextRotaryEmbedding",
        transformers.Qwen3VLTextConfig,
        [6, 5, 5],
        5e6,
        True,
    ),
}


def reference_mrope(variant, q, ids, section=None):
    """transformers' rotated ``q`` (float32), shape (1, HEADS, seq, HEAD_DIM)."""
    module, rotary_name, config_cls, default_section, base, _ = VARIANTS[variant]
    section = default_section if section is None else section
    config = config_cls(
        hidden_size=HEAD_DIM * HEADS,
        num_attention_heads=HEADS,
        num_key_value_heads=HEADS,
        head_dim=HEAD_DIM,
        rope_parameters={"rope_type": "default", "rope_theta": base, "mrope_section": section},
    )
    rotary = getattr(module, rotary_name)(config)
    q32 = torch.from_numpy(q.astype(np.float32))
    cos, sin = rotary(q32, torch.from_numpy(ids)[:, None, :])  # position ids (3, batch, seq)
    rotated, _ = module.apply_rotary_pos_emb(q32, q32, cos, sin)
    return rotated.numpy()


def _mrope_case(variant, text_lengths, image_grids, section=None):
    _, _, _, default_section, base, interleaved = VARIANTS[variant]
    section = default_section if section is None else section
    ids = mrope_position_ids(text_lengths, image_grids)
    q = RNG.standard_normal((1, HEADS, ids.shape[1], HEAD_DIM)).astype(np.float32)
    inv_freq, _ = rope_frequencies(HEAD_DIM, base=base)
    theta = ids[mrope_pair_axes(section, interleaved=interleaved)].T * inv_freq
    return ids, q, inv_freq, theta


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize(
    ("text_lengths", "image_grids"), [([3, 2], [[4, 6]]), ([40, 9], [[28, 20]])]
)
def test_apply_mrope_equals_transformers(variant, text_lengths, image_grids):
    _, _, _, section, _, interleaved = VARIANTS[variant]
    ids, q, inv_freq, theta = _mrope_case(variant, text_lengths, image_grids)
    theirs = reference_mrope(variant, q, ids)
    ours = apply_mrope(
        q.astype(np.float64), ids, inv_freq, mrope_section=section, interleaved=interleaved
    )
    excess, worst = float32_excess(ours, theirs, q, theta)
    assert excess <= 0, f"worst error {worst:.3g} exceeds float32 rounding by {excess:.3g}"
    # in float32 the library agrees as closely
    ours32 = apply_mrope(q, ids, inv_freq, mrope_section=section, interleaved=interleaved)
    assert ours32.dtype == np.float32
    assert float32_excess(ours32, theirs, q, theta)[0] <= 0


PIXTRAL_HEAD_DIM = 32


def reference_pixtral(q, positions):
    config = transformers.PixtralVisionConfig(
        hidden_size=PIXTRAL_HEAD_DIM * HEADS, num_attention_heads=HEADS
    )
    rotary = modeling_pixtral.PixtralVisionRotaryEmbedding(config)
    q32 = torch.from_numpy(q.astype(np.float32))
    cos, sin = rotary(q32, torch.from_numpy(positions.T.copy()))  # positions (patches, 2)
    rotated, _ = modeling_pixtral.apply_rotary_pos_emb(q32, q32, cos, sin, unsqueeze_dim=0)
    return rotated.numpy()


def _pixtral_case():
    positions = np.concatenate([patch_grid_positions(5, 7), patch_grid_positions(16, 3)], axis=1)
    q = RNG.standard_normal((1, HEADS, positions.shape[1], PIXTRAL_HEAD_DIM)).astype(np.float32)
    freq = rope_2d_frequencies(PIXTRAL_HEAD_DIM)
    axes = np.repeat([0, 1], PIXTRAL_HEAD_DIM // 4)
    return positions, q, freq, positions[axes].T * freq


def test_pixtral_frequencies_equal_transformers():
    config = transformers.PixtralVisionConfig(hidden_size=64, num_attention_heads=2)
    theirs = modeling_pixtral.PixtralVisionRotaryEmbedding(config).inv_freq.numpy()
    ours = rope_2d_frequencies(32, base=config.rope_parameters["rope_theta"])
    # transformers computes ω in float32: a few ulps from the float64 formula
    assert np.abs(theirs.view(np.int32) - ours.astype(np.float32).view(np.int32)).max() <= 6


def test_apply_rope_2d_equals_pixtral():
    positions, q, freq, theta = _pixtral_case()
    theirs = reference_pixtral(q, positions)
    ours = apply_rope_2d(q.astype(np.float64), positions, freq)
    excess, worst = float32_excess(ours, theirs, q, theta)
    assert excess <= 0, f"worst error {worst:.3g} exceeds float32 rounding by {excess:.3g}"


# ---------------------------------------------------------------------------
# The harness rejects wrong answers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_harness_rejects_the_other_variant_and_a_shifted_position(variant):
    section = [6, 5, 5]  # fits both styles: they differ only in which pair reads which id
    interleaved = VARIANTS[variant][5]
    ids, q, inv_freq, theta = _mrope_case(variant, [3, 2], [[4, 6]], section)
    theirs = reference_mrope(variant, q, ids, section)
    x = q.astype(np.float64)
    right = apply_mrope(x, ids, inv_freq, mrope_section=section, interleaved=interleaved)
    assert float32_excess(right, theirs, q, theta)[0] <= 0
    wrong = apply_mrope(x, ids, inv_freq, mrope_section=section, interleaved=not interleaved)
    assert float32_excess(wrong, theirs, q, theta)[0] > 0
    shifted = ids.copy()
    shifted[2, 5] += 1  # one image token one column to the right
    wrong = apply_mrope(x, shifted, inv_freq, mrope_section=section, interleaved=interleaved)
    assert float32_excess(wrong, theirs, q, theta)[0] > 0


def test_the_harness_rejects_the_plain_ladder_for_pixtral():
    positions, q, _, theta = _pixtral_case()
    theirs = reference_pixtral(q, positions)
    ladder, _ = rope_frequencies(PIXTRAL_HEAD_DIM)
    wrong = apply_rope_2d(q.astype(np.float64), positions, ladder)
    assert float32_excess(wrong, theirs, q, theta)[0] > 0
