"""The tiny models: built and run in transformers, written as GGUF by llama.cpp's converter.

:func:`build` draws a setting's model with a seed and saves it as transformers does;
:func:`convert` writes GGUF files with ``convert_hf_to_gguf.py`` from the llama.cpp tree
that was built (:mod:`install`), in one process for all of them. The tiny models have no
tokenizer, so the converter's vocabulary step is replaced by its own
``_set_vocab_none`` (the GGUF says ``tokenizer.ggml.model = "none"`` and llama.cpp takes
token ids as they are; a ``tokenizer.json`` naming every id is written beside the
weights because Gemma's converter cuts its embedding to the tokenizer's size); every
other step — hyper-parameters, RoPE keys, the
``rope_freqs`` and LongRoPE factor tensors, the permutation of q and k — is the
converter's own. :func:`hf_logits` gives transformers' logits for token ids at chosen
positions (``position_ids``), in float32 or float64.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np

from .settings import Setting

_DRIVER = Path(__file__).with_name("convert_driver.py")


def build(setting: Setting, seed: int, folder: Path) -> Path:
    """Draw the setting's model (``torch.manual_seed(seed)``) and save it in ``folder``."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = dict(setting.hf_config())
    model_type = config.pop("model_type")
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(AutoConfig.for_model(model_type, **config))
    if setting.gelu:
        _silence_feed_forward(model)
    path = folder / setting.name
    model.eval().save_pretrained(path)
    # Gemma's converter cuts the embedding to the tokenizer's size (gemma.py): name every id.
    vocab = {f"t{i}": i for i in range(config["vocab_size"])}
    tokenizer = {"model": {"vocab": vocab}, "added_tokens": []}
    (path / "tokenizer.json").write_text(json.dumps(tokenizer), encoding="utf-8")
    return path


def _silence_feed_forward(model) -> None:
    """Zero each layer's feed-forward output projection (``down_proj`` or ``fc2``).

    ggml's CPU GELU reads a float16 table (``GGML_GELU_FP16``), which moves these
    logits by up to 6·10⁻³ against transformers' exact GELU; positions enter through
    attention only, so with the feed-forward silent both runtimes compute the same
    function of positions and the comparison is left with float32's noise.
    """
    import torch

    with torch.no_grad():
        for layer in model.model.layers:
            out = getattr(layer.mlp, "down_proj", None) or layer.mlp.fc2
            out.weight.zero_()
            if out.bias is not None:
                out.bias.zero_()


def config_json(path: Path) -> dict:
    """The config.json transformers wrote: what ``inspect --for llama.cpp`` is given."""
    return json.loads((path / "config.json").read_text(encoding="utf-8"))


def convert(tree: Path, jobs: list[tuple[Path, Path]], *, permute: bool = True) -> None:
    """Write each (model folder, GGUF path) with the tree's converter, float32.

    ``permute=False`` skips the converter's permutation of q and k for the ``llama``
    family (a deliberately wrong layout, for the test that the comparison catches it).
    """
    env = dict(os.environ)
    env["PE_CONVERT_JOBS"] = json.dumps([[str(a), str(b)] for a, b in jobs])
    env["PE_CONVERT_PERMUTE"] = "1" if permute else "0"
    done = subprocess.run(
        [sys.executable, str(_DRIVER), str(tree)], env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"convert_hf_to_gguf.py failed:\n{done.stderr[-3000:]}")


@cache
def hf_model(path: Path, dtype: str = "float32"):
    """The saved model, loaded by transformers once per folder and dtype."""
    import torch
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype)).eval()


def hf_logits(path: Path, tokens, positions=None, *, dtype: str = "float32") -> np.ndarray:
    """transformers' logits for ``tokens`` (one sequence) at ``positions`` (0 … n − 1)."""
    import torch

    model = hf_model(path, dtype)
    ids = torch.tensor([list(tokens)])
    if positions is None:
        positions = range(len(tokens))
    position_ids = torch.tensor([list(positions)])
    with torch.no_grad():
        out = model(input_ids=ids, position_ids=position_ids, use_cache=False)
    return out.logits[0].double().numpy()


def prompt(seed: int, n: int, vocab: int) -> list[int]:
    """The token ids compared: ``n`` draws from the vocabulary with ``seed``."""
    return [int(t) for t in np.random.default_rng(seed).integers(0, vocab, size=n)]
