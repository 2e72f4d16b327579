"""transformers and llama.cpp side by side: the printed flags, and the cache operations.

:func:`flag_check` runs a setting's GGUF with the flags ``llama_cpp_arguments`` prints
for its ``config.json`` and compares every position's logits with transformers' in
float64. The tolerance is derived per setting from transformers itself: ten times the
largest difference between its float32 and float64 logits on the same tokens (the
noise of float32 arithmetic on this model); llama.cpp run twice gives identical logits.

:func:`shift_check` and :func:`div_check` measure what llama.cpp's cache operations do
to keys already cached, on one-layer models (with one layer, a key depends on its own
token and the rotation it was given, so transformers at chosen ``position_ids`` is an
exact reference): after ``llama_memory_seq_add`` (a context shift) and after
``llama_memory_seq_div`` (group attention), the next token's logits are compared with
transformers' for each candidate of what the cached keys encode.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pe_explained import llama_cpp_arguments

from . import models
from .engine import Session
from .settings import CONTEXT, PROMPT, Setting

#: The tolerance is this many times transformers' own float32 noise on the model.
NOISE_MULTIPLE = 10


def _diff(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a) - np.asarray(b))))


def reference(path: Path, tokens, positions=None) -> dict:
    """transformers' logits in float64 and the float32 noise around them."""
    exact = models.hf_logits(path, tokens, positions, dtype="float64")
    single = models.hf_logits(path, tokens, positions, dtype="float32")
    return {"logits": exact, "noise": _diff(single, exact)}


def flag_check(setting: Setting, folder: Path, seed: int, args=None, gguf=None) -> dict:
    """Run the setting's GGUF (or ``gguf``) with the printed flags (or ``args``) against
    transformers."""
    path = folder / setting.name
    config = models.config_json(path)
    printed = llama_cpp_arguments(config, seq_len=CONTEXT)
    args = printed["arguments"] if args is None else args
    tokens = models.prompt(seed, PROMPT, config["vocab_size"])
    ref = reference(path, tokens)
    gguf = gguf or folder / f"{setting.name}.gguf"
    with Session(gguf, args, setting.arch) as session:
        first = session.decode(tokens, range(len(tokens)))
    with Session(gguf, args, setting.arch) as session:
        again = session.decode(tokens, range(len(tokens)))
    tolerance = NOISE_MULTIPLE * ref["noise"]
    diff = _diff(first, ref["logits"])
    return {
        "setting": setting.name,
        "arguments": list(args),
        "warnings": printed["warnings"],
        "max_abs_diff": diff,
        "float32_noise": ref["noise"],
        "tolerance": tolerance,
        "repeat_diff": _diff(first, again),
        "seq_len": CONTEXT,
        "agree": diff <= tolerance,
    }


def _cached_logits(path: Path, tokens, positions, query_token, query_pos, key_scale=None):
    """transformers: ``tokens`` cached at ``positions`` (each key times its entry of
    ``key_scale``), then the logits of ``query_token`` at ``query_pos``, float64."""
    import torch

    model = models.hf_model(path, "float64")
    with torch.no_grad():
        out = model(
            input_ids=torch.tensor([list(tokens)]),
            position_ids=torch.tensor([list(positions)]),
            use_cache=True,
        )
        cache = out.past_key_values
        if key_scale is not None:
            scale = torch.tensor(np.asarray(key_scale, dtype=np.float64))[None, None, :, None]
            for layer in cache.layers:
                _rotated_keys(layer, model.config).mul_(scale)
        last = model(
            input_ids=torch.tensor([[query_token]]),
            position_ids=torch.tensor([[query_pos]]),
            past_key_values=cache,
            use_cache=True,
        )
    return last.logits[0, -1].numpy()


def _rotated_keys(layer, config):
    """The cached tensor that holds a layer's rotated keys: the keys, or for MLA (a
    ``kv_lora_rank`` in the config) the cache's values, where transformers 5.23's
    DeepSeek-V2 keeps the rotary key beside the latent it stores as keys."""
    return layer.values if getattr(config, "kv_lora_rank", None) else layer.keys


def _best_scale(path, tokens, positions, query_token, query_pos, target) -> float:
    """The one scale of every cached key that brings transformers closest to ``target``
    (golden-section search on [0.5, 2])."""
    lo, hi = 0.5, 2.0
    ratio = (math.sqrt(5) - 1) / 2
    ones = np.ones(len(tokens))

    def gap(c):
        logits = _cached_logits(path, tokens, positions, query_token, query_pos, c * ones)
        return _diff(logits, target)

    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    ga, gb = gap(a), gap(b)
    for _ in range(40):
        if ga < gb:
            hi, b, gb = b, a, ga
            a = hi - ratio * (hi - lo)
            ga = gap(a)
        else:
            lo, a, ga = a, b, gb
            b = lo + ratio * (hi - lo)
            gb = gap(b)
    return (lo + hi) / 2


def _yarn_mscale(config: dict) -> float:
    """0.1 ln s + 1, the factor ``rope_yarn`` multiplies cos and sin by (1 without YaRN)."""
    params = config.get("rope_parameters") or {}
    if params.get("rope_type") != "yarn":
        return 1.0
    return 1.0 + 0.1 * math.log(params["factor"])


def shift_check(setting: Setting, folder: Path, seed: int, *, n=96, keep=4, discard=16, shifts=1):
    """Context shifts, as ``llama-completion`` makes them, measured.

    ``n`` tokens are decoded at 0 … n − 1; then, ``shifts`` times, the ``discard`` cached
    tokens after the first ``keep`` are removed (``seq_rm``), the later ones moved back
    (``seq_add(−discard)``) and one more token is decoded. The last token's logits are
    compared with transformers' for the same cached tokens at their final positions,
    with each key scaled as each hypothesis of HYPOTHESES says; with one shift, the
    single key scale that fits best is measured too.
    """
    path = folder / setting.name
    config = models.config_json(path)
    tokens = models.prompt(seed, n + shifts, config["vocab_size"])
    args = llama_cpp_arguments(config)["arguments"]
    cached = list(range(n))  # token indices in the cache, in position order
    moved = dict.fromkeys(cached, 0)  # K-shifts that moved each token
    present = dict.fromkeys(cached, 0)  # K-shifts run while each token was cached
    with Session(folder / f"{setting.name}.gguf", args, setting.arch) as session:
        session.decode(tokens[:n], range(n))
        for step in range(shifts):
            end = session.pos_max() + 1
            session.seq_rm(keep, keep + discard)
            session.seq_add(keep + discard, end, -discard)
            cached = cached[:keep] + cached[keep + discard :]
            for index in cached:  # the shift runs at the next decode
                present[index] += 1
            for index in cached[keep:]:
                moved[index] += 1
            pos = session.pos_max() + 1
            logits = session.decode([tokens[n + step]], [pos])[0]
            cached.append(n + step)
            moved[n + step] = present[n + step] = 0
    query = cached.pop()
    ids = [tokens[i] for i in cached]
    positions = list(range(len(ids)))
    m = _yarn_mscale(config)
    hypotheses = {"no factor": np.ones(len(ids))}
    if m != 1.0:  # without YaRN the three are one
        hypotheses["moved keys × m per shift"] = np.array([m ** moved[i] for i in cached])
        hypotheses["every cached key × m per shift"] = np.array([m ** present[i] for i in cached])
    diffs = {
        name: _diff(_cached_logits(path, ids, positions, tokens[query], len(ids), scale), logits)
        for name, scale in hypotheses.items()
    }
    result = {"setting": setting.name, "shifts": shifts, "keep": keep, "discard": discard}
    result |= {"m": m, "diffs": diffs}
    if shifts == 1:
        result["key_scale"] = _best_scale(path, ids, positions, tokens[query], len(ids), logits)
    return result


#: What the keys may encode after ``seq_div(0, n, d)``: the book's cell positions and the
#: rotation llama.cpp's K-shift applies (``pos_div`` records ``p_old − p_new``).
CANDIDATES = {
    "cell position p // d": lambda p, d: p // d,
    "rotation 2p - p // d": lambda p, d: 2 * p - p // d,
}


def div_check(setting: Setting, folder: Path, seed: int, *, n=48, d=4) -> dict:
    """``seq_div(0, n, d)`` on ``n`` cached tokens, then one token: which positions do the
    keys encode? The logits against transformers with each candidate of CANDIDATES."""
    path = folder / setting.name
    config = models.config_json(path)
    tokens = models.prompt(seed, n + 1, config["vocab_size"])
    args = llama_cpp_arguments(config)["arguments"]
    with Session(folder / f"{setting.name}.gguf", args, setting.arch) as session:
        session.decode(tokens[:n], range(n))
        session.seq_div(0, n, d)
        query_pos = session.pos_max() + 1
        logits = session.decode([tokens[n]], [query_pos])[0]
    diffs = {}
    for name, rule in CANDIDATES.items():
        positions = [rule(p, d) for p in range(n)]
        expected = _cached_logits(path, tokens[:n], positions, tokens[n], query_pos)
        diffs[name] = _diff(logits, expected)
    return {"setting": setting.name, "n": n, "d": d, "query_pos": query_pos, "diffs": diffs}


def group_attention_check(
    setting: Setting, folder: Path, seed: int, *, n=96, g=4, w=8, batch=1
) -> dict:
    """``llama-completion``'s group attention (``-gan g -gaw w -b batch``) on llama.cpp; the
    last token's logits against transformers with the keys where
    :func:`pe_explained.group_attention_distances` puts them (the cells) and where
    :func:`pe_explained.group_attention_rotated_distances` does (the rotations)."""
    from pe_explained import group_attention_distances, group_attention_rotated_distances

    path = folder / setting.name
    config = models.config_json(path)
    tokens = models.prompt(seed, n, config["vocab_size"])
    args = llama_cpp_arguments(config, seq_len=max(n, config["max_position_embeddings"]))
    n_past = ga_i = 0
    with Session(folder / f"{setting.name}.gguf", args["arguments"], setting.arch) as session:
        for start in range(0, n, batch):  # completion.cpp's loop, one batch at a time
            while n_past >= ga_i + w:
                ib, bd = (g * ga_i) // w, (w // g) * (g - 1)
                dd = (w // g) - ib * bd - w
                session.seq_add(ga_i, n_past, ib * bd)
                session.seq_div(ga_i + ib * bd, ga_i + ib * bd + w, g)
                session.seq_add(ga_i + ib * bd + w, n_past + ib * bd, dd)
                n_past -= bd
                ga_i += w // g
            chunk = tokens[start : start + batch]
            logits = session.decode(chunk, range(n_past, n_past + len(chunk)))[-1]
            n_past += len(chunk)
    query = n_past - 1  # the last token's cell position
    diffs = {}
    for name, rule in (
        ("cells", group_attention_distances),
        ("rotations", group_attention_rotated_distances),
    ):
        row = rule(n, g, w, batch_size=batch)[n - 1, : n - 1]
        keys = [query - int(d) for d in row]
        expected = _cached_logits(path, tokens[: n - 1], keys, tokens[n - 1], query)
        diffs[name] = _diff(logits, expected)
    return {
        "setting": setting.name,
        "n": n,
        "group_size": g,
        "group_width": w,
        "batch_size": batch,
        "diffs": diffs,
    }


def shift_support(setting: Setting, folder: Path, *, n_ctx: int = 4096) -> dict:
    """``llama_memory_can_shift`` for the setting's model at ``-c n_ctx``, with the default
    cache and with ``--swa-full`` (a sliding-window cache as long as the context). The
    sliding-window cache holds about the window plus a batch (``llama-kv-cache-iswa.cpp``),
    so a context much longer than that makes the two caches of unequal size."""
    path = folder / setting.name
    args = llama_cpp_arguments(models.config_json(path), seq_len=n_ctx)["arguments"]
    out = {"setting": setting.name, "n_ctx": n_ctx}
    for name, full in (("default", False), ("--swa-full", True)):
        with Session(folder / f"{setting.name}.gguf", args, setting.arch, swa_full=full) as s:
            out[name] = s.can_shift()
    return out


def rollback_check(setting: Setting, folder: Path, seed: int, *, n=40, draft=6, keep=2) -> dict:
    """Speculative decoding's rollback, as ``examples/speculative-simple`` makes it: ``n``
    tokens cached, ``draft`` more decoded at ``n`` … ``n + draft − 1`` in one batch, all but
    the first ``keep`` of them removed (``seq_rm(n + keep, −1)``), then the next token at
    ``n + keep``. Its logits against transformers with the kept tokens at their positions:
    the accepted keys were rotated where they stay, so nothing needs turning."""
    path = folder / setting.name
    config = models.config_json(path)
    tokens = models.prompt(seed, n + draft + 1, config["vocab_size"])
    args = llama_cpp_arguments(config)["arguments"]
    with Session(folder / f"{setting.name}.gguf", args, setting.arch) as session:
        session.decode(tokens[:n], range(n))
        session.decode(tokens[n : n + draft], range(n, n + draft))
        session.seq_rm(n + keep, -1)
        query = tokens[n + draft]
        logits = session.decode([query], [n + keep])[0]
    kept = tokens[: n + keep]
    expected = _cached_logits(path, kept, list(range(n + keep)), query, n + keep)
    return {
        "setting": setting.name,
        "n": n,
        "draft": draft,
        "keep": keep,
        "diff": _diff(logits, expected),
    }


def cache_width(setting: Setting, folder: Path, seed: int, *, n=(32, 64)) -> dict:
    """What one token adds to the cache, in llama.cpp and in transformers.

    llama.cpp: the growth of ``llama_state_seq_get_size`` from ``n[0]`` to ``n[1]`` cached
    tokens, in bytes per token (float32 K and V, plus each cell's position, sequence count
    and sequence id). transformers: the numbers its cache holds per token over every
    layer (the last dimension of keys and values times their heads), and, for MLA, what
    full keys and values would take (heads × (qk_nope + qk_rope + v) dims per layer).
    """
    import torch

    path = folder / setting.name
    config = models.config_json(path)
    args = llama_cpp_arguments(config)["arguments"]
    tokens = models.prompt(seed, max(n), config["vocab_size"])
    sizes = []
    with Session(folder / f"{setting.name}.gguf", args, setting.arch) as session:
        for count in n:
            session.seq_rm(0, -1)
            session.decode(tokens[:count], range(count))
            sizes.append(session.lib.llama_state_seq_get_size(session.ctx, 0))
    model = models.hf_model(path, "float32")
    with torch.no_grad():
        cache = model(input_ids=torch.tensor([tokens[:8]]), use_cache=True).past_key_values
    cached = sum(
        t.shape[1] * t.shape[3] for layer in cache.layers for t in (layer.keys, layer.values)
    )
    out = {
        "setting": setting.name,
        "llama_cpp_bytes_per_token": (sizes[1] - sizes[0]) / (n[1] - n[0]),
        "transformers_numbers_per_token": cached,
    }
    if config.get("kv_lora_rank"):
        heads, layers = config["num_attention_heads"], config["num_hidden_layers"]
        dims = config["qk_nope_head_dim"] + config["qk_rope_head_dim"] + config["v_head_dim"]
        out |= {
            "full_numbers_per_token": layers * heads * dims,
            "latent": config["kv_lora_rank"],
            "rotary": config["qk_rope_head_dim"],
        }
    return out
