"""What a model's ``config.json`` does to positions: the report behind ``inspect``.

:func:`inspect_config` reads a Hugging Face config (v4 or v5 shape, text or
multimodal) once, with :func:`~pe_explained.read_model`, and turns its description
into a plain dict (JSON-ready) with, per layer type, the numbers the model's rotary
embedding holds and what they mean:

* ``inv_freq`` (the rotated pairs only, as the model's ``inv_freq`` buffer holds
  them) and ``attention_factor`` (the multiplier on cos and sin);
* the wavelengths ``2π / ω_i``, how many pairs complete a turn within the
  pre-training context, within ``max_position_embeddings`` and, for a layer type
  whose layers all attend through a sliding window, within the keys they see,
  ``min(sliding_window, max_position_embeddings)``, and each pair's stretch
  ``ω_i(plain) / ω_i`` against plain RoPE with the same base;
* for LongRoPE both frequency sets, ``short`` and ``long``;

and for the model as a whole its NoPE layers, its attention temperature, MLA's
softmax scale, and warnings for known pitfalls. :func:`format_report` turns the
dict into the text ``python -m pe_explained inspect`` prints.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

import numpy as np

from ._checks import check_config_int, check_float, check_optional
from .layer_positions import LAYER_SOURCES
from .mla import mla_softmax_scale
from .model_reading import read_model
from .rope import rope_frequencies
from .t5 import t5_relative_bucket

__all__ = ["format_report", "inspect_config"]

#: Types whose ``factor`` names the ratio of the extended to the original context.
_FACTOR_TYPES = ("linear", "dynamic", "yarn", "llama3", "longrope")


def _floats(values) -> list[float]:
    return [float(v) for v in np.asarray(values, dtype=np.float64)]


def _frequency_summary(inv_freq, attention_factor, plain, original, context, window=None) -> dict:
    """The numbers of one frequency set: frequencies, wavelengths, turns, stretch."""
    inv_freq = np.asarray(inv_freq, dtype=np.float64)
    turning = inv_freq > 0
    wavelengths = np.full(inv_freq.shape, np.inf)
    wavelengths[turning] = 2 * np.pi / inv_freq[turning]  # λ_i = 2π / ω_i
    summary = {
        "inv_freq": _floats(inv_freq),
        "attention_factor": float(attention_factor),
        "pairs": int(inv_freq.size),
        "zero_frequency_pairs": int(np.count_nonzero(~turning)),
        "wavelength_min": float(wavelengths[turning].min()) if turning.any() else None,
        "wavelength_max": float(wavelengths[turning].max()) if turning.any() else None,
        # stretch_i = ω_i(plain RoPE, same base) / ω_i; null where ω_i = 0
        "stretch": [float(p / f) if f > 0 else None for p, f in zip(plain, inv_freq, strict=True)],
    }
    # a sliding-window layer sees at most `window` keys, however long the context
    span = None if window is None else min(window, context or window)
    for name, length in (("original", original), ("context", context), ("window", span)):
        summary[f"pairs_turning_within_{name}"] = (
            None if length is None else int(np.count_nonzero(wavelengths <= length))
        )
    return summary


def _layer_report(settings, layers, seq_len, window=None) -> dict:
    """One layer type's block of the report."""
    # the pre-training context, where the type reads one (None for plain, linear, …)
    original = settings.original_max_position_embeddings
    context = settings.max_position_embeddings
    rope_type = settings.rope_type
    if rope_type == "proportional":  # plain RoPE over the same dims, slow pairs not zeroed
        plain, _ = rope_frequencies(settings.head_dim, base=settings.rope_theta)
    else:
        plain, _ = rope_frequencies(
            settings.head_dim,
            base=settings.rope_theta,
            partial_rotary_factor=settings.partial_rotary_factor,
        )
    block = {
        "layers": layers,
        "rope_type": rope_type,
        "rope_theta": settings.rope_theta,
        "head_dim": settings.head_dim,
        "rotary_dim": settings.rotary_dim,
        "partial_rotary_factor": settings.partial_rotary_factor,
        "layout": settings.layout,
        "original_max_position_embeddings": original,
        "max_position_embeddings": context,
        "scaling": None if settings.scaling is None else dict(settings.scaling),
        "sliding_window": window,
        **{key: value for key, value in settings.extra.items()},
    }
    inv_freq, factor = settings.frequencies(seq_len)
    block.update(_frequency_summary(inv_freq, factor, plain, original, context, window))
    if rope_type == "longrope":
        for name, length in (("short", original), ("long", original + 1)):
            freq, att = settings.frequencies(length)
            block[name] = _frequency_summary(freq, att, plain, original, context, window)
    return block


def _warnings(settings, seq_len) -> list[str]:
    """Known pitfalls of one layer type's settings."""
    out = []
    scaling = dict(settings.scaling or {})
    rope_type, original = settings.rope_type, settings.original_max_position_embeddings
    context = settings.max_position_embeddings
    factor = scaling.get("factor")
    if rope_type in _FACTOR_TYPES and factor and original and context and context != original:
        ratio = context / original
        if not math.isclose(factor, ratio, rel_tol=1e-9):
            out.append(
                f"factor {factor:g} differs from max_position_embeddings / "
                f"original_max_position_embeddings = {context} / {original} = {ratio:g}; "
                "the frequencies use the factor as given"
            )
    if rope_type == "dynamic":
        out.append(
            "dynamic scaling recomputes the frequencies from the current length: keys "
            "already in a KV cache keep the rotation of the length they were cached at"
        )
    if rope_type == "yarn":
        out.append(
            "YaRN here is static: the stretched frequencies and the attention factor apply "
            f"at every length, also to inputs shorter than {original} tokens"
        )
    if rope_type == "longrope":
        out.append(
            f"LongRoPE switches from the short to the long factors past {original} tokens: "
            "keys cached before the switch keep the short rotation"
        )
    if seq_len is not None and context is not None and seq_len > context:
        out.append(f"seq_len {seq_len} is beyond max_position_embeddings = {context}")
    return out


def inspect_config(config, *, seq_len=None) -> dict:
    """Report what a model's config does to positions (a JSON-ready dict).

    Parameters
    ----------
    config : dict
        A model's ``config.json``, loaded.
    seq_len : int, optional
        The current sequence length, for the types that read it (``"dynamic"``,
        ``"longrope"``); otherwise the frequencies are those the model holds at load.

    Returns
    -------
    dict
        ``"layer_types"``: block (:func:`block_keys`) → block with ``rope`` (the
        key of :func:`~pe_explained.rope_settings` it rotates by), ``inv_freq``,
        ``attention_factor``, ``rope_type``, ``rope_theta``, ``head_dim``,
        ``rotary_dim``, ``layout``, ``layers`` (indices, when the config gives
        ``num_hidden_layers``), ``sliding_window`` (when every layer of the type
        has that window, else None), wavelengths, ``pairs_turning_within_original``,
        ``_context`` and ``_window`` (None without a window), ``stretch`` (and
        ``short``/``long`` for LongRoPE);
        ``"nope_layers"``, ``"temperature"``, ``"mla"`` and ``"warnings"``.

    Examples
    --------
    >>> qwen3 = {"model_type": "qwen3", "head_dim": 128, "num_hidden_layers": 36,
    ...          "max_position_embeddings": 40960, "rope_theta": 1000000}
    >>> report = inspect_config(qwen3)
    >>> block = report["layer_types"]["default"]
    >>> block["pairs"], block["pairs_turning_within_context"], round(block["wavelength_max"])
    (64, 41, 5063256)
    """
    seq_len = check_optional(check_config_int, "seq_len", seq_len, kind="length")
    model = read_model(config)
    if model.nonrotary is not None:
        return _nonrotary_report(model)
    positions = model.layers
    settings = model.rope if model.rotates else {}
    report: dict = {
        "model_type": model.model_type,
        "config_shape": model.config_shape,
        "read_from": model.read_from,
        "num_hidden_layers": None if positions is None else len(positions),
        "layers": None if positions is None else [_position(p) for p in positions],
        "layer_strip": None if positions is None else layer_strip(positions),
        "layer_types": {},
        "nope_layers": None
        if positions is None
        else [p.index for p in positions if p.source == "nope"],
        "recurrent_layers": None
        if positions is None
        else [p.index for p in positions if p.source == "recurrence"],
        "notes": list(model.notes),
        "not_modelled": list(model.not_modelled),
        "warnings": [],
        "positions": None,
    }
    blocks = block_keys(positions or [])
    for layer_type, entry in settings.items():
        if entry is None:
            continue
        if positions is None:
            report["layer_types"][layer_type] = _layer_report(entry, None, seq_len)
            report["layer_types"][layer_type]["rope"] = layer_type
        # one block per window of the type's layers (gpt-oss: one RoPE, two windows)
        groups: dict[str, list] = {}
        for p, key in zip(positions or [], blocks, strict=True):
            if p.rope == layer_type:
                groups.setdefault(key, []).append(p)
        for key, members in groups.items():
            window = members[0].window  # every member has it (block_keys)
            layers = [p.index for p in members]
            report["layer_types"][key] = _layer_report(entry, layers, seq_len, window)
            report["layer_types"][key]["rope"] = layer_type  # the RoPE key it rotates by
        if positions is None or groups:
            report["warnings"] += [f"{layer_type}: {w}" for w in _warnings(entry, seq_len)]
    temperature = model.temperature
    report["temperature"] = None
    if temperature is not None:
        report["temperature"] = {
            "beta": temperature.beta,
            "floor_scale": temperature.floor_scale,
            "offset": temperature.offset,
            "layers": list(temperature.layers),
            "read_from": temperature.source,
        }
    report["mla"] = None
    cfg = model.text
    if cfg.get("qk_rope_head_dim") is not None and cfg.get("qk_nope_head_dim") is not None:
        report["mla"] = _mla(cfg, model.read_from)
    return report


def _mla(cfg: Mapping, path: str) -> dict:
    """MLA's head split and softmax scale, every value checked under its config name."""
    nope = check_config_int(
        f"{path}['qk_nope_head_dim']", cfg["qk_nope_head_dim"], "head_dim", minimum=0
    )
    rope = check_config_int(
        f"{path}['qk_rope_head_dim']", cfg["qk_rope_head_dim"], "head_dim", minimum=2
    )
    key = "rope_scaling" if cfg.get("rope_scaling") else "rope_parameters"
    scaling, where = cfg.get(key), f"{path}[{key!r}]"
    scaling = scaling if isinstance(scaling, Mapping) else None
    kind = None if scaling is None else scaling.get("rope_type", scaling.get("type", "default"))
    if kind != "default" and scaling is not None and scaling.get("mscale_all_dim"):
        # mla_softmax_scale reads both: mscale(factor, mscale_all_dim)²
        if scaling.get("factor") is None:
            raise ValueError(f"{where}['factor'] is needed with {where}['mscale_all_dim'] (MLA)")
        factor = check_float(f"{where}['factor']", scaling["factor"], greater_than=0.0)
        all_dim = check_float(f"{where}['mscale_all_dim']", scaling["mscale_all_dim"])
        if factor > 1 and abs(0.1 * all_dim * math.log(factor) + 1) >= 1e150:
            raise ValueError(
                f"{where}['mscale_all_dim'] = {all_dim:g} with factor {factor:g} puts MLA's "
                "softmax scale beyond float64"
            )
    return {
        "qk_nope_head_dim": nope,
        "qk_rope_head_dim": rope,
        "softmax_scale": mla_softmax_scale(nope, rope, scaling=scaling),
        "plain_softmax_scale": 1 / math.sqrt(nope + rope),
    }


def _nonrotary_report(model) -> dict:
    """The report of a model without rotary embeddings (:mod:`pe_explained.hf_nonrotary`)."""
    positions, scheme = model.layers, model.nonrotary
    return {
        "model_type": model.model_type,
        "config_shape": model.config_shape,
        "read_from": model.read_from,
        "num_hidden_layers": len(positions),
        "layers": [_position(p) for p in positions],
        "layer_strip": layer_strip(positions, scheme.kind),
        "layer_types": {},
        "nope_layers": [],
        "recurrent_layers": [],
        "notes": list(model.notes),
        "not_modelled": list(model.not_modelled),
        "warnings": [],
        "positions": {
            "kind": scheme.kind,
            "where": scheme.where,
            "num_heads": scheme.num_heads,
            "positions": scheme.positions,
            "offset": scheme.offset,
            "slopes": None if scheme.slopes is None else list(scheme.slopes),
            "num_buckets": scheme.num_buckets,
            "max_distance": scheme.max_distance,
            "read_from": list(scheme.read_from),
            "shared_bucket_from": None if scheme.kind != "t5_bias" else _t5_shared(scheme),
        },
        "temperature": None,
        "mla": None,
    }


def _t5_shared(scheme) -> dict:
    """The smallest distance of a key before its query that falls in T5's last bucket,
    for the encoder (bidirectional) and the decoder (causal).

    Found by bisection: a key's bucket never decreases with its distance, and a config's
    ``relative_attention_max_distance`` may be far too large for every distance to be
    bucketed."""

    def bucket(distance: int, bidirectional: bool) -> int:
        return int(
            t5_relative_bucket(
                np.array([-distance]),
                bidirectional=bidirectional,
                num_buckets=scheme.num_buckets,
                max_distance=scheme.max_distance,
            )[0]
        )

    out = {}
    for stack, bidirectional in (("encoder", True), ("decoder", False)):
        last, low, high = bucket(scheme.max_distance, bidirectional), 0, scheme.max_distance
        while low < high:  # bucket(high) == last throughout
            middle = (low + high) // 2
            if bucket(middle, bidirectional) == last:
                high = middle
            else:
                low = middle + 1
        out[stack] = low
    return out


#: The strip's letter, and its meaning, of a layer whose family's code is not read.
ASSUMED = "?"
ASSUMED_LEGEND = "not read: assumed rotary with the file's settings"
#: One character per layer in :func:`layer_strip`, by where its positions come from.
STRIP = {"nope": "n", "recurrence": "~", "absolute": "a", "bias": "b", "none": "-"}
#: What the layers of a model without rotary embeddings take their positions from.
_NONROTARY_LEGEND = {
    "learned": "attention; positions from a learned table added to the input",
    "alibi": "attention with ALiBi's linear bias on its scores",
    "t5_bias": "attention with T5's bucketed relative bias on its scores",
}


def _position(p) -> dict:
    return {
        "index": p.index,
        "layer_type": p.layer_type,
        "source": p.source,
        "rope": p.rope,
        "mixer": p.mixer,
        "window": p.window,
        "chunk": p.chunk,
        "assumed": p.assumed,
    }


def block_keys(positions) -> list[str | None]:
    """The report's block of each layer (None for a layer that does not rotate): its RoPE
    key, one block per key; where the layers of one key differ in sliding window (gpt-oss
    gives its sliding and full layers one RoPE), one block per window, named by the
    layers' type when each type has one window, else ``"KEY, window W"``."""
    windows: dict[str, set] = {}
    for p in positions:
        if p.rope is not None:
            windows.setdefault(p.rope, set()).add(p.window)
    by_type: dict[tuple[str, str], set] = {}
    for p in positions:
        if p.rope is not None:
            by_type.setdefault((p.rope, p.layer_type), set()).add(p.window)
    # per RoPE key: does each of its layer types have one window?
    one_each = {
        key: all(len(w) == 1 for (rope, _), w in by_type.items() if rope == key) for key in windows
    }
    keys = []
    for p in positions:
        if p.rope is None or len(windows[p.rope]) == 1:
            keys.append(p.rope)
        elif one_each[p.rope]:
            keys.append(p.layer_type)
        else:
            keys.append(f"{p.rope}, window {p.window}" if p.window else f"{p.rope}, no window")
    return keys


def _strip_letters(blocks) -> dict[str, str]:
    """The letter of each block in the strip (:func:`block_keys`): ``R`` when there is one,
    else the key's first letter in capitals (``S``liding, ``F``ull, ``M``ain,
    ``C``ompress)."""
    keys = list(dict.fromkeys(k for k in blocks if k is not None))
    if len(keys) <= 1:
        return {key: "R" for key in keys}
    letters = {key: key[0].upper() for key in keys}
    if len(set(letters.values())) < len(keys):  # two keys with one initial
        letters = {key: str(k) for k, key in enumerate(keys)}
    return letters


def layer_strip(positions, kind: str | None = None) -> dict:
    """Every layer as one character, and what each character means: a rotary layer by
    the letter of its RoPE (``R``; ``S``/``F`` for per-type RoPE), ``n`` an attention
    layer without rotation, ``~`` a layer with no attention; for a model without rotary
    embeddings (``kind`` of :func:`~pe_explained.hf_nonrotary.nonrotary_positions`),
    ``a`` attention over inputs with learned positions, ``b`` attention with a bias; ``?``
    a layer assumed rotary, whose family's code has not been read (``assumed``)."""
    keys = block_keys(positions)
    letters = _strip_letters(keys)
    strip = "".join(
        ASSUMED if p.assumed else letters[k] if k else STRIP[p.source]
        for p, k in zip(positions, keys, strict=True)
    )
    read = {k for p, k in zip(positions, keys, strict=True) if k and not p.assumed}
    legend = {letter: f"rotary ({key})" for key, letter in letters.items() if key in read}
    if any(p.assumed for p in positions):
        legend[ASSUMED] = ASSUMED_LEGEND
    found = Counter(p.source for p in positions)  # one pass: a config may have 10,000 layers
    mixers = sorted({(p.source, p.mixer) for p in positions if p.source in ("recurrence", "none")})
    if found["nope"]:
        legend["n"] = "attention without rotation (NoPE)"
    if recurrent := [mixer for source, mixer in mixers if source == "recurrence"]:
        legend["~"] = f"no attention ({', '.join(recurrent)}): order from the recurrence"
    if alone := [mixer for source, mixer in mixers if source == "none"]:
        legend["-"] = f"no token mixing ({', '.join(alone)}): position does not enter"
    for source in ("absolute", "bias"):
        if kind is not None and found[source]:
            legend[STRIP[source]] = _NONROTARY_LEGEND[kind]
    counts = {source: found[source] for source in LAYER_SOURCES}
    assumed = sum(p.assumed for p in positions)
    return {"strip": strip, "legend": legend, "counts": counts, "assumed": assumed}


def _numbers(values, shown=3) -> str:
    text = [f"{v:.6g}" if v is not None else "—" for v in values]
    if len(text) > 2 * shown:
        text = [*text[:shown], "…", *text[-shown:]]
    return "[" + ", ".join(text) + "]"


def _layers(indices) -> str:
    if indices is None:
        return "?"
    return f"{len(indices)}" + (f" ({_numbers(indices, 4)[1:-1]})" if indices else "")


def _scheme_lines(s: dict) -> list[str]:
    """What a model without rotary embeddings does to positions, in words and numbers."""
    keys = ", ".join(s["read_from"])
    if s["kind"] == "learned":
        skipped = f", after {s['offset']} unused rows" if s["offset"] else ""
        return [
            f"learned absolute positions: a table of {s['positions']} positions{skipped}, "
            f"added to the input once (read from {keys})",
            f"  a sequence longer than {s['positions']} tokens has no row to take",
        ]
    if s["kind"] == "alibi":
        lines = [
            f"ALiBi: every layer adds −m_h·(i − j) to its scores (up to a constant per query, "
            f"which the softmax ignores), {s['num_heads']} heads "
            f"(read from {keys})",
            f"  slopes m_h: {_numbers(s['slopes'])}",
        ]
        if s["positions"] is not None:
            lines.append(f"  trained at max_seq_len {s['positions']}")
        return lines
    shared = s["shared_bucket_from"]
    return [
        f"T5 relative bias: {s['num_buckets']} buckets per stack, one learned bias per bucket "
        f"and head ({s['num_heads']} heads), max_distance {s['max_distance']} "
        f"(read from {keys})",
        f"  keys {shared['encoder']} or more positions before the query share one bucket in "
        f"the encoder, {shared['decoder']} or more in the decoder",
    ]


def format_report(report: dict, *, name: str = "config") -> str:
    """The text ``inspect`` prints for a report of :func:`inspect_config`."""
    scheme = report.get("positions")
    if scheme is not None:
        lines = [f"{name}: model_type {report['model_type']}, no rotary embedding"]
    else:
        lines = [
            f"{name}: model_type {report['model_type']}, {report['config_shape']} shape "
            f"(RoPE read from {report['read_from']})"
        ]
    strip = report.get("layer_strip")
    if strip and scheme is not None:
        lines.append(f"layers: {sum(strip['counts'].values())}, none rotary")
    elif strip:
        counts = strip["counts"]
        total = sum(counts.values())
        assumed = f" ({strip['assumed']} assumed, not read)" if strip["assumed"] else ""
        alone = f", {counts['none']} without token mixing" if counts["none"] else ""
        lines.append(
            f"layers: {counts['rotary']} of {total} rotary{assumed}, {counts['nope']} attention "
            f"without rotation, {counts['recurrence']} without attention{alone}"
        )
    if strip:
        lines.append(f"  {strip['strip']}")
        lines += [f"  {char} {meaning}" for char, meaning in strip["legend"].items()]
        if not report["layer_types"] and scheme is None:
            lines.append("  no layer rotates: there are no RoPE frequencies to show")
    if scheme is not None:
        lines += ["", *_scheme_lines(scheme)]
    for layer_type, b in report["layer_types"].items():
        lines.append("")
        lines.append(f"[{layer_type}] layers: {_layers(b['layers'])}")
        lines.append(
            f"  rope_type {b['rope_type']}, theta {b['rope_theta']:g}, head_dim {b['head_dim']}, "
            f"rotated dims {b['rotary_dim']} ({b['layout']} pairs)"
        )
        original = b["original_max_position_embeddings"]
        lines.append(
            f"  context: max_position_embeddings {b['max_position_embeddings']}"
            + ("" if original is None else f", original (pre-training) {original}")
        )
        sets = [("", b)] if "short" not in b else [("short ", b["short"]), ("long ", b["long"])]
        for label, s in sets:
            lines.append(f"  {label}inv_freq ({s['pairs']} pairs): {_numbers(s['inv_freq'])}")
            lines.append(f"  {label}attention factor (on cos and sin): {s['attention_factor']:.6g}")
            if s["wavelength_min"] is not None:
                lines.append(
                    f"  {label}wavelengths: {s['wavelength_min']:.4g} … "
                    f"{s['wavelength_max']:.4g} positions"
                    + (
                        f" ({s['zero_frequency_pairs']} pairs at frequency 0)"
                        if s["zero_frequency_pairs"]
                        else ""
                    )
                )
            within = (
                []
                if original is None
                else [f"{s['pairs_turning_within_original']} within {original}"]
            )
            if s["pairs_turning_within_context"] is not None:
                within.append(
                    f"{s['pairs_turning_within_context']} within {b['max_position_embeddings']}"
                )
            if s["pairs_turning_within_window"] is not None:
                within.append(
                    f"{s['pairs_turning_within_window']} within the sliding window "
                    f"({b['sliding_window']})"
                )
            if within:
                lines.append(f"  {label}pairs completing a turn: " + ", ".join(within))
            lines.append(f"  {label}stretch vs plain RoPE: {_numbers(s['stretch'])}")
        if b.get("mrope_section"):
            kind = "interleaved" if b.get("mrope_interleaved") else "in blocks"
            lines.append(
                f"  M-RoPE: mrope_section {b['mrope_section']} (temporal, height, width pairs, "
                f"{kind})"
            )
    if report["nope_layers"]:
        lines.append("")
        lines.append(f"NoPE layers (no rotation): {_layers(report['nope_layers'])}")
    if report.get("recurrent_layers"):
        lines.append(f"layers without attention: {_layers(report['recurrent_layers'])}")
    windows = sorted({p["window"] for p in report.get("layers") or () if p["window"]})
    chunks = sorted({p["chunk"] for p in report.get("layers") or () if p["chunk"]})
    for what, values in (("sliding window", windows), ("attention chunk", chunks)):
        for value in values:
            indices = [p["index"] for p in report["layers"] if value in (p["window"], p["chunk"])]
            lines.append(f"{what} of {value} tokens on {_layers(indices)} layers")
    if report["temperature"]:
        t = report["temperature"]
        lines.append(
            f"attention temperature: queries × (1 + {t['beta']:g} · ln(1 + ⌊(p + {t['offset']}) / "
            f"{t['floor_scale']}⌋)) on layers {_layers(t['layers'])}"
        )
    if report["mla"]:
        m = report["mla"]
        lines.append(
            f"MLA: {m['qk_rope_head_dim']} rotated + {m['qk_nope_head_dim']} unrotated dims per "
            f"head; softmax scale {m['softmax_scale']:.6g} (plain 1/√d: "
            f"{m['plain_softmax_scale']:.6g})"
        )
    if report.get("notes"):
        lines.append("")
        lines += [f"note: {n}" for n in report["notes"]]
    if report.get("not_modelled"):
        lines.append("")
        lines += [f"not modelled: {n}" for n in report["not_modelled"]]
    if report["warnings"]:
        lines.append("")
        lines += [f"warning: {w}" for w in report["warnings"]]
    return "\n".join(lines)
