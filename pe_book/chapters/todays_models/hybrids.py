"""Chapter 21, hybrids: where each layer of a gallery model gets its positions from, and
the short cases (a step ramp, an untruncated ramp) the gallery's configs contain."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained import (
    config_rope_frequencies,
    layer_positions,
    model_report,
    rope_frequencies,
    rope_settings,
)

from ... import Table, table, value
from ...models import load_models
from ...text import format_bound, format_cell

#: The characters of a layer strip: inspect's (model_report.STRIP), with every rotary
#: layer an R whatever its RoPE.
STRIP = {"rotary": "R", **model_report.STRIP}


def pattern(strip: str) -> str:
    """A layer strip written as its shortest repeating unit: ``"~~~R~~~R"`` is
    ``"~~~R × 2"``; a strip with no repeat is written whole.

    >>> pattern("~~~R~~~R"), pattern("RRRR"), pattern("RRn")
    ('~~~R × 2', 'R × 4', 'RRn')
    """
    for size in range(1, len(strip) // 2 + 1):
        unit = strip[:size]
        if len(strip) % size == 0 and unit * (len(strip) // size) == strip:
            return f"{unit} × {len(strip) // size}"
    return strip


@cache
def _sources():
    """(entry, positions) for every gallery model."""
    return [(entry, layer_positions(entry.config)) for entry in load_models()]


def _strip(positions) -> str:
    return "".join(STRIP[p.source] for p in positions)


def _entry(stem_prefix: str):
    for entry, positions in _sources():
        if entry.stem.startswith(stem_prefix):
            return entry, positions
    raise KeyError(f"no gallery model starts with {stem_prefix!r}")


@table(
    "layer_sources",
    caption="Where each layer of the gallery’s models gets its positions from, computed by "
    "<code>pe_explained.layer_positions</code>: R rotary attention, n attention without "
    "rotation, ~ no attention.",
    cards=False,
)
def _():
    rows = []
    for entry, positions in _sources():
        counts = {s: sum(p.source == s for p in positions) for s in STRIP}
        mixers = sorted({p.mixer for p in positions if p.source == "recurrence"})
        rows.append(
            [
                entry.model,  # the gallery's table links each model to its file
                len(positions),
                counts["rotary"],
                counts["nope"],
                counts["recurrence"],
                ", ".join(mixers) or "—",
                f"`{pattern(_strip(positions))}`",
            ]
        )
    return Table(["model", "layers", "rotary", "NoPE", "no attention", "mixer", "pattern"], rows)


def _count(stem_prefix: str, source: str) -> int:
    return sum(p.source == source for p in _entry(stem_prefix)[1])


@value("hybrid_models")
def _():
    return str(sum(any(p.source == "recurrence" for p in pos) for _, pos in _sources()))


#: Counts the prose quotes: value name → (gallery file prefix, what is counted).
COUNTS = {
    "qwen_next_rotary": ("qwen3-coder-next", "rotary"),
    "qwen_next_layers": ("qwen3-coder-next", None),
    "qwen35_rotary": ("qwen3.5", "rotary"),
    "qwen35_layers": ("qwen3.5", None),
    "exaone_nope": ("exaone-4.0-32b", "nope"),
    "exaone_layers": ("exaone-4.0-32b", None),
    "smollm3_nope": ("smollm3", "nope"),
    "smollm3_layers": ("smollm3", None),
}
for _name, (_prefix, _source) in COUNTS.items():
    # the layers of that source, or all the model's layers for None
    value(_name)(lambda p=_prefix, s=_source: str(len(_entry(p)[1]) if s is None else _count(p, s)))


@value("qwen_next_rotated_dims")
def _():
    inv_freq, _ = config_rope_frequencies(_entry("qwen3-coder-next")[0].config)
    return str(2 * len(inv_freq))


@value("falcon_h1_theta")
def _():
    (settings,) = rope_settings(_entry("falcon-h1")[0].config).values()
    return format_cell(settings.rope_theta, ".0e")


@cache
def _gpt_oss_ramps() -> tuple[np.ndarray, np.ndarray]:
    """gpt-oss's frequencies as shipped (``truncate: false``) and with the ramp's ends
    rounded to whole pairs (``truncate: true``, YaRN's default)."""
    config = _entry("gpt-oss")[0].config
    shipped, _ = config_rope_frequencies(config)
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
