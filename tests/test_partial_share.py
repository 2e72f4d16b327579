"""A ``partial_rotary_factor`` read as each family's code reads it
(:data:`pe_explained.families.PARTIALS`).

Most families in transformers 5.23 (Llama's among them) build their default RoPE for
the whole head whatever the config's share, and rotate all of it; the scaled tables of
``modeling_rope_utils.py`` do read the share, and then do not fit the head. Each case
below is what transformers does with the config (``scripts/transformers_sweep.py``
checks every family so: the ``partial`` entries of ``docs/data/transformers_sweep.json``).
"""

from __future__ import annotations

import pytest

from pe_explained import read_model, rope_settings
from pe_explained.families import FAMILIES, PARTIALS

LLAMA = {
    "model_type": "llama",
    "num_hidden_layers": 2,
    "hidden_size": 256,
    "num_attention_heads": 4,
    "rope_theta": 10000.0,
    "partial_rotary_factor": 0.5,
    "max_position_embeddings": 2048,
}


def _rotary_dims(config) -> set[int]:
    return {s.rotary_dim for s in rope_settings(config).values()}


def test_every_family_has_a_known_rule():
    assert {f.partial for f in FAMILIES.values()} <= set(PARTIALS)
    assert FAMILIES["llama"].partial == "whole head" and FAMILIES["phi"].partial == "read"


def test_a_default_rope_that_reads_no_share_rotates_the_whole_head():
    model = read_model(LLAMA)
    assert _rotary_dims(LLAMA) == {64}
    assert any("['partial_rotary_factor'] = 0.5 is not read" in n for n in model.notes)


def test_a_family_that_reads_the_share_rotates_its_share():
    assert _rotary_dims({**LLAMA, "model_type": "phi"}) == {32}
    assert _rotary_dims({**LLAMA, "model_type": "mystery"}) == {32}  # not read: kept


def test_a_scaled_table_narrower_than_the_head_is_refused():
    config = {**LLAMA, "rope_parameters": {"rope_type": "linear", "factor": 2.0}}
    with pytest.raises(ValueError, match=r"rope_type 'linear'.*'llama' rotates the whole head"):
        read_model(config)
    # Phi's attention rotates its share: the same config is read
    assert _rotary_dims({**config, "model_type": "phi"}) == {32}


def test_a_family_whose_table_reads_the_share_but_not_its_attention_is_refused():
    with pytest.raises(ValueError, match="'mellum' builds RoPE frequencies for int"):
        read_model({**LLAMA, "model_type": "mellum"})


#: Gemma 4's two layer types with a share at the top level: its default sliding layers
#: rotate the whole head, its 'proportional' full layers keep the share (also a case of
#: tests/test_inspector.py).
PER_TYPE = {
    "model_type": "gemma4_text",
    "layer_types": ["sliding_attention", "full_attention"],
    "sliding_window": 512,
    "rope_parameters": {
        "sliding_attention": {"rope_type": "default", "rope_theta": 1e4},
        "full_attention": {"rope_type": "proportional", "rope_theta": 1e6},
    },
}


def test_each_layer_type_is_read_on_its_own():
    settings = rope_settings({**LLAMA, **PER_TYPE})
    assert settings["sliding_attention"].rotary_dim == 64
    assert settings["full_attention"].partial_rotary_factor == 0.5


def test_gpt_j_reads_rotary_dim_and_never_the_share():
    config = {"model_type": "gptj", "n_embd": 256, "n_head": 4, "n_layer": 2}
    assert _rotary_dims({**config, "rotary_dim": 16, "partial_rotary_factor": 0.5}) == {16}
    assert _rotary_dims({**config, "partial_rotary_factor": 0.5}) == {64}
