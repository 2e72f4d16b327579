"""``python -m pe_explained inspect``: the report of a model's config.json.

* Every config of the model gallery (``docs/data/models/*.json``, their ``config``
  written out as a config.json) is inspected as text and as JSON; the JSON holds,
  per layer type, the frequencies and attention factor of
  :func:`pe_explained.config_rope_frequencies`.
* With transformers installed, those numbers are compared with the buffers of each
  model's own rotary-embedding class built from the same config (float32 there:
  agreement within 1e-6 relative).
* Bad files and impossible configs end with one ``error:`` line and status 2.
"""

from __future__ import annotations

import copy
import importlib
import inspect as pyinspect
import json
import math
from pathlib import Path

import numpy as np
import pytest

import pe_explained as pe
from pe_explained.cli import main
from pe_explained.model_report import format_report

ROOT = Path(__file__).resolve().parent.parent
GALLERY = sorted((ROOT / "docs" / "data" / "models").glob("*.json"))


def _config_file(tmp_path, data_file: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(json.loads(data_file.read_text())["config"]))
    return path


def _inspect(argv, capsys):
    status = main(["inspect", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("data_file", GALLERY, ids=[p.stem for p in GALLERY])
def test_inspect_reports_every_gallery_config(data_file, tmp_path, capsys):
    path = _config_file(tmp_path, data_file)
    status, out, err = _inspect([str(path), "--json"], capsys)
    assert (status, err) == (0, "")
    report = json.loads(out)
    config = json.loads(path.read_text())
    if report["positions"] is not None:  # a model without RoPE (pe_explained.hf_nonrotary)
        assert not report["layer_types"] and report["layer_strip"]["strip"]
        assert report["positions"] == json.loads(json.dumps(_nonrotary(config)))
        return
    if report["layer_strip"]["counts"]["rotary"] == 0:  # attention, none of it rotating
        assert not report["layer_types"] and "R" not in report["layer_strip"]["strip"]
        assert report["layer_strip"]["counts"]["nope"] == len(report["nope_layers"]) > 0
        status, text, err = _inspect([str(path)], capsys)
        assert (status, err) == (0, "") and "no layer rotates" in text
        return
    assert report["layer_types"], "no layer type reported"
    for block in report["layer_types"].values():
        inv_freq, factor = pe.config_rope_frequencies(config, layer_type=block["rope"])
        assert block["inv_freq"] == inv_freq.tolist()
        assert block["attention_factor"] == factor
        assert len(block["stretch"]) == len(block["inv_freq"]) == block["rotary_dim"] // 2
        if block["rope_type"] == "longrope":
            assert block["short"]["inv_freq"] != block["long"]["inv_freq"]
    status, text, err = _inspect([str(path)], capsys)
    assert (status, err) == (0, "")
    assert all(f"[{t}]" in text for t in report["layer_types"])


@pytest.mark.parametrize("data_file", GALLERY, ids=[p.stem for p in GALLERY])
def test_inspect_reads_a_gallery_file_as_it_is(data_file, tmp_path, capsys):
    """The first thing a reader tries: the gallery's file itself, wrapper and all."""
    status, out, err = _inspect([str(data_file), "--json"], capsys)
    assert (status, err) == (0, "")
    status, unwrapped, err = _inspect([str(_config_file(tmp_path, data_file)), "--json"], capsys)
    assert out == unwrapped
    status, text, err = _inspect([str(data_file)], capsys)
    model = json.loads(data_file.read_text())["model"]
    assert text.splitlines()[0].startswith(f"{data_file} ({model}: its 'config'):")


def test_inspect_names_the_pitfalls(tmp_path, capsys):
    llama31 = {
        "model_type": "llama",
        "head_dim": 128,
        "num_hidden_layers": 2,
        "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_scaling": {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(llama31))
    report = json.loads(_inspect([str(path), "--json"], capsys)[1])
    (warning,) = report["warnings"]
    assert "factor 8 differs" in warning and "= 16" in warning
    dynamic = {**llama31, "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    path.write_text(json.dumps(dynamic))
    report = json.loads(_inspect([str(path), "--json", "--seq-len", "200000"], capsys)[1])
    assert any("KV cache" in w for w in report["warnings"])
    assert any("beyond max_position_embeddings" in w for w in report["warnings"])


def test_inspect_reports_nope_layers_temperature_and_mla(tmp_path, capsys):
    scout = {
        "model_type": "llama4",
        "text_config": {
            "model_type": "llama4_text",
            "head_dim": 128,
            "num_hidden_layers": 8,
            "rope_theta": 500000.0,
            "attn_scale": 0.1,
            "floor_scale": 8192,
        },
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(scout))
    report = json.loads(_inspect([str(path), "--json"], capsys)[1])
    assert report["nope_layers"] == [3, 7] == report["temperature"]["layers"]
    assert report["layer_types"]["default"]["layout"] == "interleaved"
    mla = {
        "model_type": "deepseek_v3",
        "qk_rope_head_dim": 64,
        "qk_nope_head_dim": 128,
        "max_position_embeddings": 163840,
        "rope_theta": 10000,
        "rope_scaling": {
            "type": "yarn",
            "factor": 40,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
            "beta_fast": 32,
            "beta_slow": 1,
        },
    }
    path.write_text(json.dumps(mla))
    report = json.loads(_inspect([str(path), "--json"], capsys)[1])
    expected = (0.1 * math.log(40) + 1) ** 2 / math.sqrt(192)
    assert report["mla"]["softmax_scale"] == pytest.approx(expected)


@pytest.mark.parametrize(
    "content,message",
    [
        (None, "cannot read"),
        ('{"rope_theta": ', "not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"head_dim": 8, "rope_scaling": {"rope_type": "foo"}}', "'yarn', 'llama3'"),
        ('{"rope_theta": 10000.0}', "head_dim"),
        ('{"head_dim": 8, "rope_theta": NaN}', "rope_theta"),
        ('{"head_dim": 8, "rope_scaling": {"rope_type": "linear", "factor": "2"}}', "factor"),
    ],
)
def test_bad_configs_end_with_one_line(content, message, tmp_path, capsys):
    path = tmp_path / "config.json"
    if content is not None:
        path.write_text(content)
    status, out, err = _inspect([str(path)], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_bad_seq_len_is_one_line(tmp_path, capsys):
    path = tmp_path / "config.json"
    path.write_text('{"head_dim": 8, "rope_theta": 10000.0}')
    status, _, err = _inspect([str(path), "--seq-len", "0"], capsys)
    assert status == 2 and "seq_len" in err and err.count("\n") == 1


# ---------------------------------------------------------------------------
# Against transformers: each model's own rotary embedding, built from the same file
# ---------------------------------------------------------------------------


def _nonrotary(config: dict) -> dict:
    """The ``positions`` block ``inspect --json`` gives a model without RoPE."""
    return pe.inspect_config(config)["positions"]


#: Families transformers 5.23 does not name, and the family whose code their files run
#: (their ``architectures``): Kimi K2's DeepseekV3ForCausalLM, Hunyuan-A13B's remote
#: code (the NTK-α rotary class of hunyuan_v1_moe), Falcon's first releases; with the
#: legacy names their configs use.
STANDS_IN = {"kimi_k2": "deepseek_v3", "hunyuan": "hunyuan_v1_moe", "RefinedWebModel": "falcon"}
LEGACY_NAMES = {
    "n_head": "num_attention_heads",
    "n_layer": "num_hidden_layers",
    "attention_head_dim": "head_dim",
}


def _reference_buffers(config: dict) -> dict:
    """Layer type (or "default") → (inv_freq, attention_scaling) of transformers' class."""
    transformers = pytest.importorskip(
        "transformers", reason="transformers is not installed (differential tests run in CI)"
    )
    pytest.importorskip("torch", reason="PyTorch is not installed (differential tests run in CI)")
    if pe.inspect_config(config)["positions"] is not None:
        pytest.skip("no rotary embedding: tests/test_transformers_nonrotary.py checks these")
    kwargs = {k: v for k, v in copy.deepcopy(config).items() if k != "model_type"}
    kwargs = {LEGACY_NAMES.get(k, k): v for k, v in kwargs.items()}
    family = STANDS_IN.get(config.get("model_type"), config.get("model_type"))
    text = transformers.AutoConfig.for_model(family, **kwargs).get_text_config()
    family = text.model_type.removesuffix("_text")
    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    classes = [
        cls
        for name, cls in vars(module).items()
        if pyinspect.isclass(cls) and name.endswith("RotaryEmbedding") and "Vision" not in name
    ]
    if not classes:  # the library must say so too: no layer of the model rotates
        return {}
    classes.sort(key=lambda cls: ("Text" not in cls.__name__, len(cls.__name__)))
    embedding = classes[0](text)
    buffers = {}
    for name, buffer in embedding.named_buffers():
        if name.endswith("inv_freq") and "original" not in name:
            layer_type = name.removesuffix("inv_freq").removesuffix("_") or "default"
            scaling = f"{layer_type}_attention_scaling" if layer_type != "default" else None
            factor = getattr(embedding, scaling or "attention_scaling")
            buffers[layer_type] = (buffer.double().numpy(), float(factor))
    return buffers


@pytest.mark.parametrize("data_file", GALLERY, ids=[p.stem for p in GALLERY])
def test_inspect_gives_transformers_frequencies(data_file, tmp_path, capsys):
    config = json.loads(data_file.read_text())["config"]
    reference = _reference_buffers(config)
    path = _config_file(tmp_path, data_file)
    report = json.loads(_inspect([str(path), "--json"], capsys)[1])
    # a block per RoPE key, or per window of one (gpt-oss): each names the key it rotates by
    assert {block["rope"] for block in report["layer_types"].values()} == set(reference)
    for block in report["layer_types"].values():
        ref, ref_factor = reference[block["rope"]]
        # transformers holds float32 inverse frequencies (a few ulps from the formula)
        np.testing.assert_allclose(block["inv_freq"], ref, rtol=1e-6, atol=0)
        assert block["attention_factor"] == pytest.approx(ref_factor, rel=1e-6)


def test_the_comparison_fails_on_a_wrong_answer():
    llama = next(p for p in GALLERY if p.stem.startswith("llama-3.1"))
    config = json.loads(llama.read_text())["config"]
    ((ref, _),) = _reference_buffers(config).values()
    plain, _ = pe.rope_frequencies(128, base=config["rope_theta"])  # the llama3 rule left out
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(plain, ref, rtol=1e-6, atol=0)


def test_the_readme_shows_what_inspect_prints(tmp_path, capsys, monkeypatch):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("$ python -m pe_explained inspect config.json\n", 1)[1].split("```", 1)[0]
    llama = next(p for p in GALLERY if p.stem.startswith("llama-3.1"))
    path = _config_file(tmp_path, llama)
    monkeypatch.chdir(tmp_path)
    status, out, _ = _inspect([path.name], capsys)
    assert status == 0 and block.strip() == out.strip()


def test_sliding_layers_count_turns_within_their_window():
    """A sliding-window layer sees at most ``sliding_window`` keys: its pairs are counted
    against ``min(sliding_window, max_position_embeddings)``; global layers have no window."""
    gemma = {
        "model_type": "gemma3_text",
        "head_dim": 256,
        "num_hidden_layers": 12,
        "max_position_embeddings": 32768,
        "sliding_window": 512,
        "rope_theta": 1_000_000.0,
        "rope_local_base_freq": 10_000.0,
    }
    report = pe.inspect_config(gemma)
    sliding = report["layer_types"]["sliding_attention"]
    full = report["layer_types"]["full_attention"]
    assert sliding["sliding_window"] == 512 and full["sliding_window"] is None
    # analytic: a pair turns within 512 positions when 2π · base^(2i/d) ≤ 512
    slow = pe.slow_pair_count(512, 256, base=10_000.0)
    assert sliding["pairs_turning_within_window"] == 128 - slow
    assert full["pairs_turning_within_window"] is None
    # the context count is a different number: the window is what a sliding layer sees
    assert sliding["pairs_turning_within_context"] != sliding["pairs_turning_within_window"]
    from pe_explained.model_report import format_report

    text = format_report(report)
    assert f"{128 - slow} within the sliding window (512)" in text


def test_a_window_longer_than_the_context_counts_as_the_context():
    gemma = {
        "model_type": "gemma3_text",
        "head_dim": 64,
        "num_hidden_layers": 6,
        "max_position_embeddings": 1024,
        "sliding_window": 4096,
    }
    block = pe.inspect_config(gemma)["layer_types"]["sliding_attention"]
    assert block["pairs_turning_within_window"] == block["pairs_turning_within_context"]


def test_a_rope_shared_by_sliding_and_global_layers_is_reported_per_window():
    """gpt-oss: one RoPE for alternating sliding and full layers. The sliding layers are
    their own block, counted against their window (9 of 32 pairs turn within 128 tokens,
    against 18 within the context); the full ones see the whole context."""
    gpt_oss = {
        "model_type": "gpt_oss",
        "head_dim": 64,
        "num_hidden_layers": 4,
        "max_position_embeddings": 131072,
        "sliding_window": 128,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
        "rope_theta": 150000.0,
    }
    report = pe.inspect_config(gpt_oss)
    assert list(report["layer_types"]) == ["sliding_attention", "full_attention"]
    sliding, full = report["layer_types"].values()
    assert sliding["rope"] == full["rope"] == "default"
    assert sliding["layers"] == [0, 2] and full["layers"] == [1, 3]
    assert sliding["sliding_window"] == 128 and full["sliding_window"] is None
    assert (sliding["pairs_turning_within_window"], sliding["pairs_turning_within_context"]) == (
        9,
        18,
    )
    assert full["pairs_turning_within_window"] is None
    assert report["layer_strip"]["strip"] == "SFSF"


@pytest.mark.parametrize("layers", [{"num_hidden_layers": 2}, {}])
def test_an_assumed_pairing_is_said_with_or_without_a_layer_count(layers, tmp_path, capsys):
    """An unknown model_type is read as rotating in halves, and the report says it is an
    assumption, whether or not the config gives num_hidden_layers (it once said so only
    when it did); a known one gets no such note."""
    config = {"model_type": "brand_new", "head_dim": 64, "rope_theta": 1e4, **layers}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    report = json.loads(_inspect([str(path), "--json"], capsys)[1])
    assert report["layer_types"]["default"]["layout"] == "halves"
    (note,) = [n for n in report["notes"] if "assumed 'halves'" in n]
    assert "'brand_new'" in note
    assert "assumed 'halves'" in _inspect([str(path)], capsys)[1]
    path.write_text(json.dumps({**config, "model_type": "llama"}))
    assert not any(
        "assumed" in n for n in json.loads(_inspect([str(path), "--json"], capsys)[1])["notes"]
    )


def test_a_file_without_a_base_or_a_length_gets_its_class_defaults_marked():
    """LlamaConfig fills rope_theta 10,000 and max_position_embeddings 2,048; Gemma 3
    27B-it's text_config states no length and Gemma3TextConfig has 131,072. Each is used
    and marked "(class default ...)"."""
    llama = {"model_type": "llama", "head_dim": 64, "num_hidden_layers": 2}
    report = pe.inspect_config(llama)
    block = report["layer_types"]["default"]
    assert (block["rope_theta"], block["max_position_embeddings"]) == (10_000.0, 2_048)
    assert sum("class default of 'llama'" in n for n in report["notes"]) == 2
    gemma = json.loads((ROOT / "docs/data/models/gemma-3-12b-it.json").read_text())["config"]
    del gemma["max_position_embeddings"]  # as Gemma 3 27B-it's text_config
    report = pe.inspect_config({"model_type": "gemma3", "text_config": gemma})
    assert {b["max_position_embeddings"] for b in report["layer_types"].values()} == {131_072}
    assert any("max_position_embeddings: 131072 (class default" in n for n in report["notes"])
    assert "(class default" in format_report(report)


def test_a_family_not_read_is_marked_assumed_never_R(tmp_path, capsys):
    """Unknown means unknown: the layers of a model_type whose code the library has not
    read print ``?`` (the legend says they are assumed rotary), the count says so, and
    ``--json`` marks each ``assumed``; a family of the registry prints ``R``."""
    unread = {"model_type": "a_family_not_read", "head_dim": 64, "num_hidden_layers": 4}
    unread["rope_theta"] = 10000.0
    report = pe.inspect_config(unread)
    strip = report["layer_strip"]
    assert strip["strip"] == "????" and strip["assumed"] == 4
    assert strip["legend"] == {"?": "not read: assumed rotary with the file's settings"}
    assert all(layer["assumed"] for layer in report["layers"])
    path = tmp_path / "config.json"
    path.write_text(json.dumps(unread))
    assert main(["inspect", str(path)]) == 0
    text = capsys.readouterr().out
    assert "layers: 4 of 4 rotary (4 assumed, not read)" in text and "\n  ????\n" in text
    read = pe.inspect_config({**unread, "model_type": "llama"})
    assert read["layer_strip"]["strip"] == "RRRR" and read["layer_strip"]["assumed"] == 0
    assert not any(layer["assumed"] for layer in read["layers"])
    # a file with no model_type names no family: assumed too
    bare = {k: v for k, v in unread.items() if k != "model_type"}
    assert pe.inspect_config(bare)["layer_strip"]["strip"] == "????"
