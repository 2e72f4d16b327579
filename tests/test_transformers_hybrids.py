"""Differential tests: where each layer gets its positions from, observed in transformers.

For every family of ``tests/data/tiny_configs_2025.json`` (the position keys of a
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

import importlib
import inspect as pyinspect
import json
from pathlib import Path

import numpy as np
import pytest

transformers = pytest.importorskip(
    "transformers", reason="transformers is not installed (differential tests run in CI)"
)
torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (differential tests run in CI)"
)

import pe_explained as pe  # noqa: E402

CONFIGS = json.loads(
    (Path(__file__).parent / "data" / "tiny_configs_2025.json").read_text(encoding="utf-8")
)
TOKENS = 12
#: The name given here to the table of a model with one rotary embedding.
SINGLE = "single"


def _cos_of(function, args, kwargs):
    """The cos table a rotation was handed (a complex ``freqs_cis``: its real part), by
    the name of its parameter."""
    bound = pyinspect.signature(function).bind(*args, **kwargs).arguments
    value = bound.get("cos", bound.get("freqs_cis"))
    if not isinstance(value, torch.Tensor):
        raise AssertionError(f"{function.__name__} was handed no cos table: {list(bound)}")
    return (value.real if value.is_complex() else value).detach().double()


def observe(config: dict) -> dict:
    """Build the model of ``config`` with transformers, run it, and report per layer what
    it did: ``{"attention": [bool], "rotary": [table name or None], "tables": {name:
    (inv_freq, attention_scaling)}}``."""
    kwargs = {k: v for k, v in config.items() if k != "model_type"}
    cfg = transformers.AutoConfig.for_model(config["model_type"], **kwargs)
    cfg._attn_implementation = "eager"
    torch.manual_seed(0)
    model = transformers.AutoModel.from_config(cfg).eval()
    module = importlib.import_module(type(model).__module__)
    current = {"layer": None}
    attention: set[int] = set()
    rotations: dict[int, list] = {}
    originals = {}
    for name in [
        n for n in vars(module) if n.startswith("apply_rotary") or n == "eager_attention_forward"
    ]:
        original = getattr(module, name)
        if not callable(original):
            continue
        originals[name] = original

        def wrapped(*args, _original=original, _name=name, **kw):
            if _name == "eager_attention_forward":
                attention.add(current["layer"])
            else:
                cos = _cos_of(_original, args, kw)
                if cos.shape[-2] == TOKENS:  # not a compressor's (DeepSeek-V4) few positions
                    rotations.setdefault(current["layer"], []).append(cos)
            return _original(*args, **kw)

        setattr(module, name, wrapped)
    try:
        for index, layer in enumerate(model.layers):
            layer.register_forward_pre_hook(lambda m, a, index=index: current.update(layer=index))
        with torch.no_grad():
            model(input_ids=torch.arange(1, TOKENS + 1).unsqueeze(0))
    finally:
        for name, original in originals.items():
            setattr(module, name, original)
    rotary = getattr(model, "rotary_emb", None)  # none in a model that never rotates
    names = [] if rotary is None else list(getattr(rotary, "layer_types", None) or [SINGLE])
    tables = {}
    for kind in names:
        prefix = "" if kind == SINGLE else f"{kind}_"
        inv_freq = getattr(rotary, f"{prefix}inv_freq").detach().double().numpy()
        tables[kind] = (inv_freq, float(getattr(rotary, f"{prefix}attention_scaling")))
    count = len(model.layers)
    return {
        "attention": [i in attention for i in range(count)],
        "rotary": [_match(rotations.get(i), tables) for i in range(count)],
        "tables": tables,
    }


def _match(cos_tables, tables) -> str | None:
    """Which table of the rotary embedding every rotation of a layer used (None: none)."""
    if not cos_tables:
        return None
    positions = np.arange(TOKENS, dtype=np.float64)
    found = set()
    for cos in cos_tables:
        rows = cos.reshape(-1, TOKENS, cos.shape[-1])[0].numpy()  # (tokens, width)
        for kind, (inv_freq, scaling) in tables.items():
            expected = scaling * np.cos(np.multiply.outer(positions, inv_freq))
            repeat, extra = divmod(rows.shape[-1], len(inv_freq))
            if extra or not repeat:
                continue
            tiled = np.sort(np.repeat(expected, repeat, axis=-1), axis=-1)
            if np.allclose(np.sort(rows, axis=-1), tiled, rtol=1e-5, atol=1e-6):
                found.add(kind)
                break
        else:
            raise AssertionError(f"a rotation used a cos table of no layer type: {rows[1]}")
    if len(found) != 1:
        raise AssertionError(f"one layer rotated with several tables: {found}")
    return found.pop()


def compare(config: dict, seen: dict) -> list[str]:
    """Every disagreement between :func:`pe.layer_positions` and what transformers did."""
    wrong = []
    positions = pe.layer_positions(config)
    settings = pe.rope_settings(config) if any(p.source == "rotary" for p in positions) else {}
    if len(positions) != len(seen["attention"]):
        return [f"{len(positions)} layers, transformers built {len(seen['attention'])}"]
    for p, attends, table in zip(positions, seen["attention"], seen["rotary"], strict=True):
        # a layer without attention: a recurrence (Mamba-2, Gated DeltaNet) or no token
        # mixing at all (Nemotron-H's MLP and MoE layers); the two are not told apart here
        if (p.source not in ("recurrence", "none")) != attends:
            wrong.append(f"layer {p.index}: {p.source}, but attention ran: {attends}")
        if (p.source == "rotary") != (table is not None):
            wrong.append(f"layer {p.index}: {p.source}, but rotation by table {table!r}")
        if p.source == "rotary" and table is not None:
            inv_freq, scaling = seen["tables"][table]
            ours, factor = settings[p.rope].frequencies()
            if ours.shape != inv_freq.shape or not np.allclose(ours, inv_freq, rtol=2e-6, atol=0):
                wrong.append(f"layer {p.index}: inv_freq {ours} vs transformers' {inv_freq}")
            if not np.isclose(factor, scaling, rtol=1e-6):
                wrong.append(f"layer {p.index}: attention factor {factor} vs {scaling}")
    return wrong


@pytest.fixture(scope="module")
def observed():
    return {}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_layer_positions_match_what_transformers_does(name, observed):
    config = CONFIGS[name]
    observed[name] = seen = observe(config)
    assert compare(config, seen) == []


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
