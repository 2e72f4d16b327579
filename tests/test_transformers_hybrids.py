"""Differential tests: where each layer gets its positions from, observed in transformers.

The harness is :mod:`pe_explained.verify` (what ``inspect --verify`` runs). For every
family of ``tests/data/tiny_configs_2025.json`` (the position keys of a
released model's config, the sizes shrunk so that a randomly initialised model runs in
a moment) a tiny model is built with transformers' own classes and run on 12 tokens,
with every ``apply_rotary*`` function and ``eager_attention_forward`` of its modeling
module wrapped. Nothing about the families is written here: what a layer does is what
was seen it do.

* a layer that called ``eager_attention_forward`` has softmax attention; one that did
  not has none (its mixer is linear attention or a state-space model);
* a layer that called a rotation rotates, and the cos table it was handed is matched
  against the tables of every layer type of the model's rotary embedding;

and :func:`pe_explained.layer_positions` must say the same of every layer, with the
inverse frequencies and attention factor of the matched table (within float32
rounding: transformers computes them in float32). The harness is shown to fail on a
wrong answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (differential tests run in CI)"
)

from pe_explained import read_model  # noqa: E402
from pe_explained.verify import compare, observe  # noqa: E402

CONFIGS = json.loads(
    (Path(__file__).parent / "data" / "tiny_configs_2025.json").read_text(encoding="utf-8")
)


@pytest.fixture(scope="module")
def observed():
    return {}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_layer_positions_match_what_transformers_does(name, observed):
    config = CONFIGS[name]
    observed[name] = seen = observe(config)
    assert compare(config, seen) == []


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_each_tiny_config_is_read_from_its_family_s_code(name):
    """No layer of these is assumed: each family's entry (pe_explained.families) decides its
    layers, so a missing or wrong entry fails here or in the comparison above."""
    model = read_model(CONFIGS[name])
    assert model.family is not None, name
    assert not any(p.assumed for p in model.layers), name


def test_the_windows_of_the_families_whose_code_places_them():
    """Windows are not observed above (the tiny models run 12 tokens): MiniMax's window is on
    its full-attention layers, NeoMME's alternates by per_layer_config (its class: every
    second sliding layer 1024), ModernBERT's is half of local_attention."""
    minimax = {**CONFIGS["minimax"], "sliding_window": 64}
    assert [(p.source, p.window) for p in read_model(minimax).layers] == [
        ("rotary", 64),
        ("recurrence", None),
    ] * 2
    neomme = [p.window for p in read_model(CONFIGS["neomme"]).layers]
    assert neomme == [4, 1024, 4, 1024, 4, None]
    modernbert = [p.window for p in read_model(CONFIGS["modernbert"]).layers]
    assert modernbert == [None, 4, 4, None]


def test_the_comparison_fails_on_a_wrong_answer():
    """A NoPE layer said to rotate, a Gated DeltaNet layer said to attend, and frequencies
    off by one part in 10⁵: each is reported."""
    config = CONFIGS["qwen3_next"]
    seen = observe(config)
    assert compare(config, seen) == []
    turned = dict(seen, attention=[True] * len(seen["attention"]))
    assert any("attention ran" in w for w in compare(config, turned))
    unrotated = dict(seen, rotary=[None] * len(seen["rotary"]))
    assert any("rotation by table" in w for w in compare(config, unrotated))
    ((kind, (inv_freq, scaling)),) = seen["tables"].items()
    off = dict(seen, tables={kind: (inv_freq * (1 + 1e-5), scaling)})
    assert any("inv_freq" in w for w in compare(config, off))
