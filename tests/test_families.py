"""The registry of families (pe_explained/families.py): every entry names the modeling
file its rules were read from, and that file exists in the transformers the tests run
against; its rules are ones the readers know."""

from __future__ import annotations

from pathlib import Path

import pytest

import pe_explained as pe
from pe_explained.families import FAMILIES, PAIRINGS, ROTATION_RULES, Family

transformers = pytest.importorskip("transformers", reason="the files named are transformers'")


def test_every_entry_names_a_file_transformers_ships_or_a_remote_one():
    root = Path(transformers.__file__).parent
    missing = [
        (model_type, f.modeling)
        for model_type, f in FAMILIES.items()
        if not f.modeling.startswith("remote: ") and not (root / f.modeling).is_file()
    ]
    assert not missing, missing


def test_an_entry_of_transformers_names_its_own_family_s_file():
    """Its own folder's modeling file; a family without one (InternLM3, IQuest-Coder) names
    the file of the classes transformers builds it with (Llama's)."""
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    from transformers.models.auto.modeling_auto import MODEL_MAPPING

    root = Path(transformers.__file__).parent
    for model_type, f in FAMILIES.items():
        if f.modeling.startswith("remote: "):
            assert model_type not in CONFIG_MAPPING, model_type  # transformers has it now
            continue
        folder = CONFIG_MAPPING[model_type].__module__.split(".")[2]
        if not (root / f"models/{folder}/modeling_{folder}.py").is_file():
            folder = MODEL_MAPPING[CONFIG_MAPPING[model_type]].__module__.split(".")[2]
            assert folder != model_type, model_type
        assert f.modeling == f"models/{folder}/modeling_{folder}.py", model_type


def test_the_rules_are_known_ones():
    for model_type, f in FAMILIES.items():
        assert f.pairing in (*PAIRINGS, None), model_type
        assert f.rotates in ROTATION_RULES, model_type
        assert (f.pairing is None) == (f.rotates == "none"), model_type
    assert list(FAMILIES) == sorted(FAMILIES)


def test_a_family_s_description_carries_its_entry_and_an_unlisted_one_is_assumed():
    config = {"head_dim": 64, "rope_theta": 1e4, "num_hidden_layers": 2}
    assert pe.read_model({**config, "model_type": "llama"}).family == FAMILIES["llama"]
    unlisted = pe.read_model({**config, "model_type": "some_new_family"})
    assert unlisted.family is None
    assert any("pairing is assumed" in note for note in unlisted.notes)


def test_a_new_entry_changes_what_is_read(monkeypatch):
    """Adding a family is one entry: a family whose global layers are NoPE."""
    config = {
        "model_type": "some_new_family",
        "head_dim": 64,
        "rope_theta": 1e4,
        "num_hidden_layers": 4,
        "sliding_window": 128,
        "layer_types": ["sliding_attention"] * 3 + ["full_attention"],
    }
    assert [p.source for p in pe.layer_positions(config)] == ["rotary"] * 4
    monkeypatch.setitem(FAMILIES, "some_new_family", Family("models/x.py", rotates="sliding"))
    assert [p.source for p in pe.layer_positions(config)] == ["rotary"] * 3 + ["nope"]


def test_the_class_defaults_of_an_entry_are_its_configuration_class_s():
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    for model_type, f in FAMILIES.items():
        if not f.defaults:
            continue
        made = CONFIG_MAPPING[model_type]()  # the class with nothing given
        for key, value in f.defaults.items():
            rope = getattr(made, "rope_parameters", None) or {}  # where RoPE keys end up
            assert getattr(made, key, rope.get(key)) == value, (model_type, key)
