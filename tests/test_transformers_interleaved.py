"""The pairing the library reads for each family is the one transformers' code rotates.

The registry (``pe_explained.families``, through ``hf_config._INTERLEAVED_MODEL_TYPES``
and ``HALVES_MODEL_TYPES``) decides the pairing ``inspect`` reports for a config's
``model_type``. For every type in it, this file takes the function that rotates queries
and keys in the modeling file its entry names (``rotate_half``, ``rotate_every_two``, a
complex multiply, RoFormer's own rotation, DeepSeek's
``apply_rotary_pos_emb_interleave``, GLM-OCR's ``rotate_half_llm``, gpt-oss's
``_apply_rotary_emb``), turns one query dimension by an angle θ shared by every pair,
and finds the key dimension it scores against: its partner in the rotation. Interleaved
code gives dimension 1 as the partner of dimension 0; ``rotate_half`` code gives
``head_dim / 2`` (Llama's, the control that shows the probe tells the two apart). Kimi K2
and Hunyuan-A13B ship their own modeling code, outside transformers.
"""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest

from pe_explained.families import FAMILIES
from pe_explained.hf_config import _INTERLEAVED_MODEL_TYPES, HALVES_MODEL_TYPES

torch = pytest.importorskip("torch", reason="torch is not installed (differential tests run in CI)")
pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)

HEAD_DIM, THETA = 8, 0.7
#: Types whose modeling code is not in transformers (remote code on the Hub).
REMOTE = {
    "kimi_k2": "Kimi K2 runs DeepSeek-V3's architecture from its own repository",
    "hunyuan": "Hunyuan-A13B's modeling_hunyuan.py is in its own repository",
}


#: Composites whose file holds no rotation: the family of their text model, which rotates.
TEXT_MODEL = {
    "fuyu": "persimmon",
    "mistral3": "mistral",
    "modernvbert": "modernbert",
    "ultravbert": "ultrabert",
}


def _module(model_type: str):
    """The module of the modeling file the type's entry names (a composite's: its text
    model's)."""
    path = (
        FAMILIES[TEXT_MODEL.get(model_type, model_type)]
        .modeling.removesuffix(".py")
        .replace("/", ".")
    )
    return importlib.import_module(f"transformers.{path}")


def _rotator(module):
    """(x, θ) ↦ x rotated by θ in every pair, the way ``module`` rotates queries and keys."""
    if hasattr(module, "apply_rotary_pos_emb_interleave"):  # DeepSeek-V3, V3.2

        def rotate(x, theta):  # cos and sin are cat(freqs, freqs): one angle everywhere
            ones = torch.ones(1, 1, HEAD_DIM, dtype=torch.float64)
            cos, sin = ones * math.cos(theta), ones * math.sin(theta)
            return module.apply_rotary_pos_emb_interleave(x, x, cos, sin)[0]

        return rotate
    if hasattr(module, "apply_rotary_emb"):  # Llama 4, DeepSeek-V2: complex multiplies
        llama4 = "llama4" in module.__name__

        def rotate(x, theta):  # x (batch, heads, seq, head_dim); theirs (batch, seq, heads, …)
            angle = torch.full((1, HEAD_DIM // 2), theta)
            phasor = torch.polar(torch.ones_like(angle), angle)  # freqs_cis (seq, head_dim / 2)
            x = x.transpose(1, 2).float()
            out = module.apply_rotary_emb(x, x, phasor[None] if llama4 else phasor)[0]
            return out.transpose(1, 2).double()

        return rotate
    if hasattr(module, "RoFormerSelfAttention"):
        attention = module.RoFormerSelfAttention

        def rotate(x, theta):  # RoFormer's table: [sin | cos], one entry per pair
            half = HEAD_DIM // 2
            table = torch.tensor([math.sin(theta)] * half + [math.cos(theta)] * half)
            return attention.apply_rotary_position_embeddings(table.double(), x, x)[0]

        return rotate
    if hasattr(module, "_apply_rotary_emb"):  # gpt-oss's form: cos and sin one per pair

        def rotate(x, theta):
            half = torch.ones(1, 1, HEAD_DIM // 2, dtype=torch.float64)
            return module._apply_rotary_emb(x, half * math.cos(theta), half * math.sin(theta))

        return rotate
    # GLM-OCR's text model rotates by rotate_half_llm (its rotate_half is the vision tower's)
    turn = (
        getattr(module, "rotate_every_two", None)
        or getattr(module, "rotate_half_llm", None)
        or module.rotate_half
    )

    def rotate(x, theta):  # x cos θ + turn(x) sin θ, the formula of every apply_rotary_pos_emb
        return x * math.cos(theta) + turn(x) * math.sin(theta)

    return rotate


def _partner(rotate) -> int:
    """The key dimension whose score with query dimension 0 turns when only the query turns:
    R(θ) e_0 · R(0) e_j, which is ± sin θ for the partner and 0 for every other j ≠ 0
    (a function that stores its output in another order, DeepSeek's, does so for both)."""
    basis = torch.eye(HEAD_DIM, dtype=torch.float64).reshape(HEAD_DIM, 1, 1, HEAD_DIM)
    query = rotate(basis[:1], THETA).reshape(HEAD_DIM)
    keys = rotate(basis, 0.0).reshape(HEAD_DIM, HEAD_DIM)
    scores = (keys @ query).abs().numpy()
    scores[0] = 0.0  # dimension 0 itself keeps cos θ
    (partner,) = np.flatnonzero(scores > 1e-6)
    assert scores[partner] == pytest.approx(abs(math.sin(THETA)), rel=1e-6)
    return int(partner)


@pytest.mark.parametrize("model_type", sorted(_INTERLEAVED_MODEL_TYPES))
def test_transformers_pairs_2j_with_2j_plus_1(model_type):
    if model_type in REMOTE:
        pytest.skip(REMOTE[model_type])
    assert _partner(_rotator(_module(model_type))) == 1


@pytest.mark.parametrize("model_type", sorted(HALVES_MODEL_TYPES))
def test_transformers_pairs_j_with_j_plus_half(model_type):
    if model_type in REMOTE:
        pytest.skip(REMOTE[model_type])
    assert _partner(_rotator(_module(model_type))) == HEAD_DIM // 2


def test_the_probe_finds_halves_in_llamas_rotate_half():
    assert _partner(_rotator(_module("llama"))) == HEAD_DIM // 2


def test_the_probe_finds_halves_in_gpt_oss_own_rotation():
    """gpt-oss's _apply_rotary_emb splits the head in halves (torch.chunk); the privacy
    filter built on it takes x[..., ::2] and x[..., 1::2] instead."""
    assert _partner(_rotator(_module("gpt_oss"))) == HEAD_DIM // 2
