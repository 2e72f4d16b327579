"""``inspect --verify``: the library's reading of a config checked against transformers.

Without torch and transformers the check is a one-line error naming what is missing
(exit status 2), and the library still imports with numpy alone. With them, every
gallery config that transformers 5.23 builds from its own classes verifies, and a
reading that differs is reported layer by layer with exit status 1.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from pe_explained import cli, verify

GALLERY = Path(__file__).resolve().parents[1] / "docs" / "data" / "models"
#: Gallery models whose tiny model transformers 5.23 builds from its own classes: all but
#: the two that ship their own code (:data:`REMOTE`). A multimodal model is built as its
#: language model alone, a file without a model type as the family the library reads it as.
VERIFIED = (
    "apertus-8b-science-expert-r1",
    "bamba-9b",
    "bert-base-uncased",
    "bloom-560m",
    "command-r7b-12-2024",
    "deepseek-v2-lite",
    "deepseek-v3",
    "deepseek-v3.2",
    "exaone-4.0-1.2b",
    "exaone-4.0-32b",
    "falcon-7b",
    "falcon-h1-tiny-r-90m",
    "gemma-3-12b-it",
    "gemma-3-1b-it",
    "gemma-4-26b-a4b",
    "glm-4.7",
    "gpt-neox-20b",
    "gpt-oss-20b",
    "gpt2",
    "jamba-v0.1",
    "lfm2-700m",
    "llama-2-7b",
    "llama-3.1-8b-instruct",
    "llama-4-scout-17b-16e",
    "mimo-v2-flash",
    "minimax-m2.5",
    "ministral-3-3b-reasoning-2512",
    "mistral-7b-instruct-v0.1",
    "mistral-7b-v0.3",
    "mpt-7b",
    "nvidia-nemotron-3-nano-30b-a3b",
    "olmo-3.1-32b-instruct",
    "opt-1.3b",
    "phi-2",
    "phi-3.5-mini-instruct",
    "phi-4-mini-instruct",
    "qwen2.5-14b-instruct-1m",
    "qwen2.5-32b",
    "qwen2.5-vl-7b-instruct",
    "qwen3-8b",
    "qwen3-coder-next",
    "qwen3-vl-f1",
    "qwen3.5-27b",
    "smollm3-3b",
    "t5-base",
)


#: Gallery models whose code transformers does not ship: refused, saying so.
REMOTE = ("hunyuan-a13b-instruct", "kimi-k2-instruct")


def test_every_gallery_config_is_verified_or_ships_its_own_code():
    assert sorted(VERIFIED + REMOTE) == sorted(p.stem for p in GALLERY.glob("*.json"))


def test_the_library_imports_without_torch():
    code = "import sys, pe_explained, pe_explained.verify; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


def test_without_the_packages_verify_is_one_line_naming_them(monkeypatch, capsys):
    real = importlib.import_module

    def missing(name, *args):
        if name in ("torch", "transformers"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real(name, *args)

    monkeypatch.setattr(verify.importlib, "import_module", missing)
    status = cli.main(["inspect", str(GALLERY / "llama-2-7b.json"), "--verify"])
    err = capsys.readouterr().err
    assert status == cli.EXIT_ERROR
    assert err.count("\n") == 1 and "needs torch and transformers" in err


def test_shrink_keeps_what_decides_positions():
    text = {
        "hidden_size": 3840,
        "num_attention_heads": 16,
        "num_hidden_layers": 48,
        "intermediate_size": 15360,
        "rope_theta": 1e6,
        "sliding_window": 1024,
    }
    small = verify.shrink({"model_type": "gemma3", "text_config": text})
    assert small["text_config"]["head_dim"] == 240
    assert small["text_config"]["hidden_size"] == 480
    assert small["text_config"]["intermediate_size"] == 32
    kept = ("num_hidden_layers", "rope_theta", "sliding_window")
    assert all(small["text_config"][k] == text[k] for k in kept)
    with pytest.raises(TypeError, match="config must be a dict"):
        verify.shrink([text])


needs_transformers = pytest.mark.skipif(
    importlib.util.find_spec("transformers") is None or importlib.util.find_spec("torch") is None,
    reason="transformers and torch are not installed (differential tests run in CI)",
)


@needs_transformers
@pytest.mark.parametrize("name", VERIFIED)
def test_every_buildable_gallery_config_verifies(name, capsys):
    status = cli.main(["inspect", str(GALLERY / f"{name}.json"), "--verify"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert out.startswith("verified against transformers ") and "layers agree" in out
    total = out.split(" of ")[1].split()[0]
    assert f": {total} of {total} layers agree" in out


def _read_with_another_base(monkeypatch) -> None:
    """The library's reading replaced by that of the config with base 20,000."""
    real = verify.read_model

    def other_base(config):
        if not isinstance(config, dict):  # a description, read already: as it is
            return real(config)
        return real({**config, "rope_theta": 20000.0})

    monkeypatch.setattr(verify, "read_model", other_base)


@needs_transformers
def test_a_reading_that_differs_is_reported_layer_by_layer(monkeypatch, capsys):
    """The library's reading replaced by that of a config with another base: every
    rotary layer's frequencies differ, each is printed, and the exit status is 1."""
    path = GALLERY / "llama-2-7b.json"
    _read_with_another_base(monkeypatch)
    status = cli.main(["inspect", str(path), "--verify"])
    out = capsys.readouterr().out
    assert status == cli.EXIT_DIFFERS
    assert out.startswith("verified against transformers") and "0 of 32 layers agree" in out
    assert out.count("inv_freq") == 32


@needs_transformers
def test_a_config_too_large_to_shrink_is_refused_before_it_is_built(monkeypatch, capsys):
    """A size key the check does not know keeps the model large: it is refused from the
    count of its parameters on the meta device, before any memory is taken."""
    monkeypatch.setattr(verify, "_SMALL", {})
    status = cli.main(["inspect", str(GALLERY / "llama-2-7b.json"), "--verify"])
    err = capsys.readouterr().err
    assert status == cli.EXIT_ERROR and "parameters (at most" in err


@needs_transformers
@pytest.mark.parametrize("name", REMOTE)
def test_a_family_transformers_does_not_ship_is_refused_in_one_line(name, capsys):
    status = cli.main(["inspect", str(GALLERY / f"{name}.json"), "--verify"])
    err = capsys.readouterr().err
    assert status == cli.EXIT_ERROR and err.count("\n") == 1
    assert "has no model type" in err and "ships its own code" in err


@needs_transformers
def test_a_multimodal_config_is_built_as_its_language_model(capsys):
    status = cli.main(["inspect", str(GALLERY / "qwen2.5-vl-7b-instruct.json"), "--verify"])
    out = capsys.readouterr().out
    assert status == 0 and "(built its language model alone, as 'qwen2_5_vl_text')" in out


@needs_transformers
def test_a_model_without_a_rotary_module_is_held_to_the_table_it_rotated_by(monkeypatch):
    """GPT-J builds its sinusoids in each attention module, not in a rotary embedding:
    the table compared is the one its rotations were handed (the angles at position 1),
    and a reading with another base differs on every layer."""
    config = {"model_type": "gptj", "n_layer": 3, "n_head": 16, "n_embd": 4096, "rotary_dim": 64}
    assert verify.verify(config).summary().endswith(": 3 of 3 layers agree")
    _read_with_another_base(monkeypatch)
    result = verify.verify(config)
    assert len(result.differences) == 3 and all("inv_freq" in d for d in result.differences)


_TINY = {"num_hidden_layers": 8, "hidden_size": 256, "num_attention_heads": 4}
#: Files as these families release them, each read from its own code: a released OLMo
#: Hybrid states a null base (no rotary embedding: its full-attention layers are NoPE);
#: CWM and Higgs Audio v2 leave their layout and RoPE dict to the class; ModernBERT's
#: decoder takes its window from local_attention where the file states none.
RELEASED_SHAPES = {
    "olmo_hybrid, a null base": {**_TINY, "model_type": "olmo_hybrid", "rope_theta": None},
    "olmo_hybrid, 3 layers": {**_TINY, "model_type": "olmo_hybrid", "num_hidden_layers": 3},
    "cwm": {**_TINY, "model_type": "cwm"},
    "higgs_audio_v2": {**_TINY, "model_type": "higgs_audio_v2"},
    "modernbert-decoder": {
        **_TINY,
        "model_type": "modernbert-decoder",
        "local_attention": 256,
        "global_rope_theta": 80000.0,
    },
    "nemotron": {**_TINY, "model_type": "nemotron", "rope_theta": 10000.0},
    "nomic_bert": {**_TINY, "model_type": "nomic_bert"},
}


@needs_transformers
@pytest.mark.parametrize("name", RELEASED_SHAPES)
def test_families_read_from_their_code_verify(name):
    result = verify.verify(RELEASED_SHAPES[name])
    assert result.agrees and not result.assumed, result.summary()


@needs_transformers
@pytest.mark.parametrize("name", ["modernbert", "modernbert-decoder"])
@pytest.mark.parametrize(("stated", "window"), [({}, 128), ({"sliding_window": 1000}, 1000)])
def test_the_windows_verify_does_not_watch_are_the_classes(name, stated, window):
    """verify compares attention and rotation; ModernBERT's window is held to its
    configuration class itself: local_attention // 2, unless the file states one."""
    import transformers

    from pe_explained import read_model

    config = {**_TINY, "model_type": name, "local_attention": 256, **stated}
    built = transformers.AutoConfig.for_model(
        name, **{k: v for k, v in config.items() if k != "model_type"}
    )
    windows = {p.window for p in read_model(config).layers} - {None}
    assert windows == {built.sliding_window} == {window}


def test_the_shrink_keeps_grouped_queries_grouped():
    """Grouped-query attention keeps one key-value head for the two query heads (MiMo-V2-
    Flash's sliding layers double it); multi-head attention keeps one per query head."""
    gqa = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}
    assert verify.shrink({**gqa, "num_key_value_heads": 8})["num_key_value_heads"] == 1
    assert verify.shrink({**gqa, "num_key_value_heads": 32})["num_key_value_heads"] == 2
