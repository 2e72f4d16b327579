"""Chapter 21, hybrids: where each layer of a gallery model gets its positions from, and
the short cases (a step ramp, an untruncated ramp) the gallery's configs contain."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained import (
    config_rope_frequencies,
    inspect_config,
    layer_positions,
    rope_frequencies,
    rope_settings,
)

from ... import Table, table, value
from ...models import load_models
from ...text import format_bound, format_cell

#: The longest run of layers a pattern writes out letter by letter.
LITERAL = 12


def _unit(piece: str) -> str:
    """The shortest unit ``piece`` repeats (``"~~~R"`` for ``"~~~R~~~R"``), or itself."""
    for size in range(1, len(piece) // 2 + 1):
        if len(piece) % size == 0 and piece[:size] * (len(piece) // size) == piece:
            return piece[:size]
    return piece


def _parts(piece: str, rare: str) -> list[tuple[float, str]]:
    """The ways to write ``piece`` as one part, with their costs: its letters, a quarter
    dearer each, up to :data:`LITERAL` of them (a tenth less where they end on the
    strip's rarest letter); a unit repeated, where the unit is one
    letter or ends on the strip's rarest letter (``"~~~R"`` repeats, ``"~R~~"`` does not)."""
    # a run that ends on the rarest letter reads as a unit too: a tenth cheaper
    out = [(1.25 * len(piece) - 0.1 * (piece[-1] == rare), piece)] if len(piece) <= LITERAL else []
    unit = _unit(piece)
    if unit != piece and (len(unit) == 1 or unit[-1] == rare):
        out.append(
            (
                len(unit) + 3 + len(str(len(piece) // len(unit))),
                f"{unit} × {len(piece) // len(unit)}",
            )
        )
    return out


def pattern(strip: str) -> str:
    """A layer strip written short: its repeating unit where the whole strip repeats one
    (``"~~~R × 2"``), else the cheapest run of parts by :func:`_parts`, joined by
    ``" + "`` (where a long strip may wrap).

    >>> pattern("~~~R~~~R"), pattern("RRRR"), pattern("RRn")
    ('~~~R × 2', 'R × 4', 'RRn')
    >>> pattern("SSSSSF" * 4 + "SS"), pattern("~" + "~~~~~~~~R" * 3 + "~~~~")
    ('SSSSSF × 4 + SS', '~ + ~~~~~~~~R × 3 + ~~~~')
    """
    if (unit := _unit(strip)) != strip:
        return f"{unit} × {len(strip) // len(unit)}"
    rare = min(sorted(set(strip)), key=strip.count)
    best: list[tuple[float, list[str]] | None] = [(0.0, [])] + [None] * len(strip)
    for end in range(1, len(strip) + 1):
        for start in range(end):
            if best[start] is None:
                continue
            cost, parts = best[start]
            for price, part in _parts(strip[start:end], rare):
                if best[end] is None or cost + price + 3 * bool(parts) < best[end][0]:
                    best[end] = (cost + price + 3 * bool(parts), [*parts, part])
    return " + ".join(best[-1][1])


@cache
def _sources():
    """(entry, positions) for every gallery model."""
    return [(entry, layer_positions(entry.reading)) for entry in load_models()]


def _entry(stem: str):
    """The gallery file ``<stem>.json`` and its layers."""
    for entry, positions in _sources():
        if entry.stem == stem:
            return entry, positions
    raise KeyError(f"the gallery has no file {stem}.json")


def _rope_part(key: str, block: dict) -> str:
    """A layer type's θ and scaling rule: ``full θ 5×10⁵, yarn ×8``."""
    label = "" if key == "default" else f"{key.replace('_attention', '')} "
    part = f"{label}θ {format_cell(block['rope_theta'], '.3g')}"
    if block["rope_type"] != "default":
        factor = (block["scaling"] or {}).get("factor")
        part += f", {block['rope_type']}" + ("" if factor is None else f" ×{factor:g}")
    if block.get("mrope_section"):
        part += ", M-RoPE"
    return part


def _layers_of(count: int, total: int) -> str:
    return f"all {total} layers" if count == total else f"{count} of {total} layers"


def position_summary(report: dict) -> str:
    """Where a model's positions come from, in one line, from its ``inspect_config`` report."""
    positions = report["layers"]
    total = len(positions)
    scheme = report["positions"]
    if scheme is not None:
        if scheme["kind"] == "learned":
            return f"learned table of {scheme['positions']:,} positions, at the input"
        if scheme["kind"] == "alibi":
            return f"ALiBi in {_layers_of(total, total)}"
        return f"T5 bias ({scheme['num_buckets']} buckets) in {_layers_of(total, total)}"
    parts = []
    rotary = [p for p in positions if p["source"] == "rotary"]
    if rotary:
        blocks = report["layer_types"]
        kinds = "; ".join(_rope_part(key, b) for key, b in blocks.items())
        dims = {(b["rotary_dim"], b["head_dim"]) for b in blocks.values()}
        if len(dims) == 1 and (dims := dims.pop())[0] != dims[1]:
            kinds += f"; {dims[0]} of {dims[1]} dims"
        parts.append(f"RoPE in {_layers_of(len(rotary), total)} ({kinds})")
    nope = sum(p["source"] == "nope" for p in positions)
    if nope:
        parts.append(f"{nope} NoPE")
    for source, after in (("recurrence", ""), ("none", " (no token mixing)")):
        for mixer in sorted({p["mixer"] for p in positions if p["source"] == source}):
            parts.append(f"{sum(p['mixer'] == mixer for p in positions)} {mixer}{after}")
    return "; ".join(parts)


@table(
    "layer_sources",
    caption="Where the gallery’s models get their positions from "
    "(<code>inspect_config</code>). R rotary (S, F: sliding, full), n NoPE, "
    "~ no attention, - no token mixing, a learned table, b bias.",
)
def _():
    rows = []
    for entry, positions in _sources():
        report = inspect_config(entry.reading)
        rows.append(
            [
                entry.model,  # the gallery's table links each model to its file
                len(positions),
                position_summary(report),
                f"`{pattern(report['layer_strip']['strip'])}`",
            ]
        )
    return Table(["model", "layers", "where positions come from", "pattern"], rows)


def _count(stem: str, source: str) -> int:
    return sum(p.source == source for p in _entry(stem)[1])


def _attends(p) -> bool:
    return p.source in ("rotary", "nope")


@value("quarter_attention_models")
def _():
    """Models with attention in exactly one layer of four, the rest recurrent."""
    return str(
        sum(
            4 * sum(map(_attends, pos)) == len(pos)
            and all(_attends(p) or p.source == "recurrence" for p in pos)
            for _, pos in _sources()
        )
    )


#: Counts the prose quotes: value name → (gallery file stem, what is counted).
COUNTS = {
    "qwen_next_rotary": ("qwen3-coder-next", "rotary"),
    "qwen_next_layers": ("qwen3-coder-next", None),
    "qwen35_rotary": ("qwen3.5-27b", "rotary"),
    "qwen35_layers": ("qwen3.5-27b", None),
    "exaone_nope": ("exaone-4.0-32b", "nope"),
    "exaone_layers": ("exaone-4.0-32b", None),
    "smollm3_nope": ("smollm3-3b", "nope"),
    "smollm3_layers": ("smollm3-3b", None),
    "bamba_rotary": ("bamba-9b", "rotary"),
    "bamba_layers": ("bamba-9b", None),
    "jamba_nope": ("jamba-v0.1", "nope"),
    "jamba_layers": ("jamba-v0.1", None),
    "nemotron_nope": ("nvidia-nemotron-3-nano-30b-a3b", "nope"),
    "nemotron_recurrent": ("nvidia-nemotron-3-nano-30b-a3b", "recurrence"),
    "nemotron_unmixed": ("nvidia-nemotron-3-nano-30b-a3b", "none"),
    "nemotron_layers": ("nvidia-nemotron-3-nano-30b-a3b", None),
    "lfm2_rotary": ("lfm2-700m", "rotary"),
    "lfm2_recurrent": ("lfm2-700m", "recurrence"),
    "lfm2_layers": ("lfm2-700m", None),
}
for _name, (_prefix, _source) in COUNTS.items():
    # the layers of that source, or all the model's layers for None
    value(_name)(lambda p=_prefix, s=_source: str(len(_entry(p)[1]) if s is None else _count(p, s)))


@value("qwen_next_rotated_dims")
def _():
    inv_freq, _ = config_rope_frequencies(_entry("qwen3-coder-next")[0].reading)
    return str(2 * len(inv_freq))


@value("hunyuan_base")
def _():
    """Hunyuan-A13B's fixed base θ·α^(d/(d−2)), read from its gallery file."""
    (settings,) = rope_settings(_entry("hunyuan-a13b-instruct")[0].reading).values()
    return format_cell(settings.rope_theta, ",.0f")


@value("falcon_h1_theta")
def _():
    (settings,) = rope_settings(_entry("falcon-h1-tiny-r-90m")[0].reading).values()
    return format_cell(settings.rope_theta, ".0e")


@cache
def _gpt_oss_ramps() -> tuple[np.ndarray, np.ndarray]:
    """gpt-oss's frequencies as shipped (``truncate: false``) and with the ramp's ends
    rounded to whole pairs (``truncate: true``, YaRN's default)."""
    entry = _entry("gpt-oss-20b")[0]
    config = entry.config  # its keys, to round the ramp's ends differently
    shipped, _ = config_rope_frequencies(entry.reading)
    scaling = {k: v for k, v in config["rope_scaling"].items() if k != "truncate"}
    rounded, _ = rope_frequencies(
        config["head_dim"], base=config["rope_theta"], scaling={**scaling, "truncate": True}
    )
    return shipped, rounded


@value("gpt_oss_changed")
def _():
    shipped, rounded = _gpt_oss_ramps()
    return str(int(np.count_nonzero(~np.isclose(shipped, rounded, rtol=1e-12, atol=0))))


@value("gpt_oss_pairs")
def _():
    return str(len(_gpt_oss_ramps()[0]))


def gpt_oss_largest_change() -> float:
    """The largest relative change of a gpt-oss frequency between the two ramps."""
    shipped, rounded = _gpt_oss_ramps()
    return float(np.max(np.abs(shipped / rounded - 1)))


@value("gpt_oss_largest_change")
def _():
    # a bound the prose states ("by up to"): rounded up, in percent
    return format_bound(100 * gpt_oss_largest_change(), ".0f", side="upper") + "%"


@cache
def _mimo() -> dict:
    """MiMo-V2-Flash's report: one RoPE per layer type, a window on its sliding layers."""
    return inspect_config(_entry("mimo-v2-flash")[0].reading)


def _mimo_block(kind: str) -> dict:
    return _mimo()["layer_types"][f"{kind}_attention"]


for _kind in ("full", "sliding"):
    value(f"mimo_{_kind}_theta")(lambda k=_kind: format_cell(_mimo_block(k)["rope_theta"], ".0e"))
value("mimo_window")(lambda: str(_mimo_block("sliding")["sliding_window"]))
value("mimo_rotated")(lambda: str(_mimo_block("full")["rotary_dim"]))
value("mimo_head")(lambda: str(_mimo_block("full")["head_dim"]))
value("mimo_sliding_layers")(lambda: str(_count("mimo-v2-flash", "rotary") - _mimo_full()))


def _mimo_full() -> int:
    return sum(p.rope == "full_attention" for p in _entry("mimo-v2-flash")[1])


value("mimo_full_layers")(lambda: str(_mimo_full()))
