"""A config is read once (pe_explained/model_reading.py): every consumer — the report of
``inspect``, the runtime arguments, the one-question functions, the book's gallery —
reads the description :func:`read_model` returns, and none calls the checks, the
family's rules or the readers of RoPE, layers and non-rotary schemes itself."""

from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from collections import Counter
from contextlib import contextmanager

import pytest
from config_mutations import base_configs

import pe_explained as pe
from pe_explained import _checks, hf_config, hf_families, hf_nonrotary
from pe_explained.cli import main
from pe_explained.runtimes import RUNTIMES

# the package's function of that name hides the module
layers = importlib.import_module("pe_explained.layer_positions")

#: The reading's steps: the checks, the family's rules, and each reader.
STEPS = {
    "check_config": _checks.check_config,
    "standardise": hf_families.standardise,
    "read_rope": hf_config.read_rope,
    "read_layers": layers.read_layers,
    "read_temperature": layers.read_temperature,
    "nonrotary_positions": hf_nonrotary.nonrotary_positions,
}

CONSUMERS = {
    "inspect_config": lambda c: pe.inspect_config(c),
    "llama_cpp_arguments": lambda c: pe.llama_cpp_arguments(c),
    "vllm_arguments": lambda c: pe.vllm_arguments(c),
    "vllm_max_model_len": lambda c: pe.vllm_max_model_len(c),
    "layer_positions": lambda c: pe.layer_positions(c),
    "layer_rope_types": lambda c: pe.layer_rope_types(c),
    "config_attention_temperature": lambda c: pe.config_attention_temperature(c),
}


@contextmanager
def counted():
    """Count the calls of every step, wherever a module of the library names it."""
    calls: Counter = Counter()
    patched = []
    for name, original in STEPS.items():

        def wrapper(*args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith("pe_explained"):
                continue
            for attribute, value in list(vars(module).items()):
                if value is original:
                    patched.append((module, attribute, value))
                    setattr(module, attribute, wrapper)
    try:
        yield calls
    finally:
        for module, attribute, value in patched:
            setattr(module, attribute, value)


def _readable():
    out = []
    for name, config in base_configs():
        try:
            pe.inspect_config(config)
        except ValueError:  # a test config without the layers inspect needs
            continue
        out.append((name, config))
    return out


READABLE = _readable()


def _twice(config):  # a consumer that reads the file again: what the check must catch
    pe.inspect_config(config)
    return pe.llama_cpp_arguments(config)


def _over_once(consumer, config) -> dict:
    with counted() as calls:
        try:
            consumer(config)
        except ValueError:
            pass  # a question the config does not answer (no layers, no RoPE): still one read
    return {step: n for step, n in calls.items() if n > 1}


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
def test_every_consumer_reads_a_config_once(consumer):
    over = {
        name: found
        for name, config in READABLE
        if (found := _over_once(CONSUMERS[consumer], config))
    }
    assert not over, over


def test_the_count_catches_a_consumer_that_reads_twice():
    for name, config in READABLE:
        over = _over_once(_twice, config)
        assert over["check_config"] == 2, name
        assert over.get("standardise", 2) == 2 and over.get("nonrotary_positions", 2) == 2


@pytest.mark.parametrize("consumer", sorted(CONSUMERS))
def test_given_the_description_no_consumer_reads_anything(consumer):
    for name, config in READABLE:
        model = pe.read_model(config)
        with counted() as calls:
            try:
                CONSUMERS[consumer](model)
            except ValueError:
                pass
        assert not calls, (name, dict(calls))


def test_a_description_gives_the_same_answers_as_the_file():
    for name, config in READABLE:
        model = pe.read_model(config)
        assert pe.inspect_config(model) == pe.inspect_config(config), name
        for runtime in RUNTIMES:
            assert _result(pe.runtime_arguments, model, runtime) == _result(
                pe.runtime_arguments, config, runtime
            ), (name, runtime)


def _result(function, *args):
    try:
        return function(*args)
    except ValueError as exc:
        return str(exc)


def test_the_description_cannot_be_changed():
    model = pe.read_model(dict(READABLE[0][1]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.layers = ()
    with pytest.raises(TypeError):
        model.text["rope_theta"] = 1.0
    if model.rope is not None:
        with pytest.raises(TypeError):
            model.rope["default"] = None


def test_the_command_line_reads_a_config_once(tmp_path, capsys):
    for name, config in READABLE[:12]:
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
        for extra in ([], ["--json"], ["--for", "llama.cpp"], ["--for", "vllm"]):
            with counted() as calls:
                assert main(["inspect", str(path), *extra]) == 0
            capsys.readouterr()
            assert calls["check_config"] == 1 and calls["standardise"] <= 1, (name, extra, calls)


def test_gallery_entries_are_read_once_for_the_whole_book():
    from pe_book.models import load_models

    entry = load_models()[0]
    assert entry.reading is entry.reading  # kept: the tables and values share it
    assert pe.read_model(entry.reading) is entry.reading
