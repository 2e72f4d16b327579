"""Chapter 21, RoPE in today's models: the gallery, layer types, NoPE layers, M-RoPE and MLA."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from pe_explained import (
    attention_temperature,
    config_attention_temperature,
    inspect_config,
    mla_cache_size,
    mla_softmax_scale,
    mrope_position_ids,
    rope_frequencies,
)

from ... import Table, figure, table, value
from ...models import load_models
from ...style import new_figure

#: The M-RoPE figure's sequence: text, one image of IMAGE_PATCHES, text (Qwen2-VL's merge 2).
TEXT_RUNS, IMAGE_PATCHES, MERGE = (4, 3), (6, 8), 2
#: Llama 4's temperature settings: transformers' ``Llama4TextConfig`` defaults.
LLAMA4_ATTN_SCALE, LLAMA4_FLOOR_SCALE = 0.1, 8192
TEMPERATURE_AT = (8_190, 8_191, 32_767, 131_071, 1_048_575, 10_485_759)
#: Where Ministral 3's multiplier is shown (its gallery config's settings).
MINISTRAL_AT = (8_191, 16_383, 16_384, 32_767, 32_768, 262_143)
#: DeepSeek-V3's attention dimensions and YaRN settings (its config.json).
DSV3_NOPE, DSV3_ROPE = 128, 64
DSV3_YARN = {"rope_type": "yarn", "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0}
#: The context Llama 4 Scout's Instruct model states (``max_position_embeddings`` in
#: meta-llama/Llama-4-Scout-17B-16E-Instruct's config.json, ``text_config``); the gallery
#: holds the base model's file.
LLAMA4_INSTRUCT_CONTEXT = 10_485_760
QUOTED = (
    "LLAMA4_ATTN_SCALE",
    "LLAMA4_FLOOR_SCALE",
    "LLAMA4_INSTRUCT_CONTEXT",
    "DSV3_NOPE",
    "DSV3_ROPE",
    "MERGE",
)


@cache
def _reports():
    return [(entry, inspect_config(entry.reading)) for entry in load_models()]


def _type_label(layer_type: str, block: dict) -> str:
    kind = block["rope_type"]
    if block["scaling"] and block["scaling"].get("factor") is not None:
        kind += f" ×{block['scaling']['factor']:g}"
    if layer_type != "default":
        kind += f" ({layer_type.replace('_attention', '')} layers)"
    return kind


def _notes(report: dict, block: dict) -> str:
    notes = []
    if report["nope_layers"]:
        notes.append(f"{len(report['nope_layers'])} NoPE layers")
    if report["temperature"]:
        notes.append("query temperature")
    if report["mla"]:
        mla = report["mla"]
        notes.append(f"MLA, softmax scale ×{mla['softmax_scale'] / mla['plain_softmax_scale']:.3f}")
    if block.get("mrope_section"):
        notes.append(f"M-RoPE {block['mrope_section']}")
    if inert_window(block):
        notes.append(f"window {block['sliding_window']:,} ≥ context: never cuts")
    dca = [n for n in report["not_modelled"] if "dual_chunk_attention_config" in n]
    if dca:
        notes.append("Dual Chunk Attention (chapter 25)")
    return "; ".join(notes) or "—"


def _rotated(block: dict) -> str:
    """The rotated-dims cell: p-RoPE (``proportional``) rotates every dim, but its
    zero-frequency pairs never turn, so the cell counts the dims that do."""
    zeroed = block.get("zero_frequency_pairs") or 0
    if block["rope_type"] == "proportional" and zeroed:
        turning = block["rotary_dim"] - 2 * zeroed
        return f"{turning} turning of {block['head_dim']}, p-RoPE, {block['layout']}"
    return f"{block['rotary_dim']} of {block['head_dim']}, {block['layout']}"


def inert_window(block: dict) -> bool:
    """A window at least as long as the context: it never cuts, the context decides."""
    window, context = block["sliding_window"], block["max_position_embeddings"]
    return window is not None and context is not None and window >= context


def _rows():
    """(model link, layer type, block, held set) for every gallery row."""
    for entry, report in _reports():
        for layer_type, block in report["layer_types"].items():
            held = block.get("long", block)  # LongRoPE: the set used past the original context
            yield f"[{entry.model}]({entry.source_url})", layer_type, report, block, held


@table(
    "gallery",
    caption=(
        "Open models' rotary settings as their <code>config.json</code> files give them "
        "(<code>docs/data/models/</code>; read by <code>pe_explained.inspect_config</code>), "
        "one row per layer type."
    ),  # read down its columns on a phone too
)
def _():
    rows = []
    for link, layer_type, report, block, _ in _rows():
        original = block["original_max_position_embeddings"]
        longest = block["max_position_embeddings"]
        context = "—" if longest is None else f"{longest:,}"
        if any("no max_position_embeddings" in note for note in report["notes"]):
            context += " (class default)"
        rows.append(
            [
                link,
                _type_label(layer_type, block),
                block["rope_theta"],
                _rotated(block),
                context if original is None else f"{original:,} → {context}",
            ]
        )
    return Table(
        ["model", "RoPE", "base (rope_theta)", "rotated dims, pairing", "context"],
        rows,
        formats={"base (rope_theta)": ",.0f"},
    )


@table(
    "gallery_computed",
    caption="What those settings do, computed by <code>pe_explained.inspect_config</code>.",
)
def _():
    rows = []
    for link, layer_type, report, block, held in _rows():
        link = link[1 : link.index("](")]  # the name: the table above links it to its file
        if layer_type != "default":
            link += f", {layer_type.replace('_attention', '')} layers"
        # a sliding-window layer sees at most `sliding_window` keys: count against those
        window = None if inert_window(block) else block["sliding_window"]
        turning = held[
            "pairs_turning_within_context" if window is None else "pairs_turning_within_window"
        ]
        slower = "—" if turning is None else f"{held['pairs'] - turning} of {held['pairs']}"
        if window is not None and turning is not None:
            slower += f" (window {window:,})"
        stretch = [s for s in held["stretch"] if s is not None]
        rows.append(
            [
                link,
                held["wavelength_max"],
                slower,
                stretch[-1] if stretch else "—",
                held["attention_factor"],
                _notes(report, block),
            ]
        )
    return Table(
        [
            "model",
            "slowest wavelength λ_max",
            "slower than context",
            "stretch",
            "attention factor",
            "also",
        ],
        rows,
        formats={"slowest wavelength λ_max": ",.0f", "stretch": ".3g", "attention factor": ".4f"},
    )


def _held_blocks():
    """Every gallery row's frequency set (LongRoPE: the long one)."""
    for _, report in _reports():
        for block in report["layer_types"].values():
            yield block, block.get("long", block)


@value("theta_low")
def _():
    return f"{min(b['rope_theta'] for b, _ in _held_blocks()):,.0f}"


@value("theta_high")
def _():
    return f"{max(b['rope_theta'] for b, _ in _held_blocks()):,.0f}"


@value("lambda_low")
def _():
    return f"{min(h['wavelength_max'] for _, h in _held_blocks()):,.0f}"


@value("lambda_high")
def _():
    return f"{max(h['wavelength_max'] for _, h in _held_blocks()):,.0f}"


@value("gallery_models")
def _():
    return str(len(load_models()))


@table(
    "temperature",
    caption=(
        "Llama 4's query multiplier on its NoPE layers, "
        r"$1 + \beta \ln(1 + \lfloor (m+1) / F \rfloor)$, at transformers' defaults "
        "(<code>pe_explained.attention_temperature</code>)."
    ),
)
def _():
    factors = attention_temperature(
        list(TEMPERATURE_AT), beta=LLAMA4_ATTN_SCALE, floor_scale=LLAMA4_FLOOR_SCALE, offset=1
    )
    return Table(
        ["query position $m$", "multiplier"],
        [[m, float(f)] for m, f in zip(TEMPERATURE_AT, factors, strict=True)],
        formats={"query position $m$": ",d", "multiplier": ".4f"},
    )


@value("dsv3_scale_ratio")
def _():
    plain = 1 / math.sqrt(DSV3_NOPE + DSV3_ROPE)
    return f"{mla_softmax_scale(DSV3_NOPE, DSV3_ROPE, scaling=DSV3_YARN) / plain:.3f}"


@value("dsv3_mscale")
def _():
    return f"{0.1 * math.log(DSV3_YARN['factor']) + 1:.4f}"


@value("proportional_zeroed")
def _():
    inv_freq, _ = rope_frequencies(
        256, base=1e6, scaling={"rope_type": "proportional", "partial_rotary_factor": 0.25}
    )
    return str(int(np.count_nonzero(inv_freq == 0)))


def _ids():
    return mrope_position_ids(list(TEXT_RUNS), [list(IMAGE_PATCHES)], spatial_merge_size=MERGE)


@figure(
    "mrope_position_ids",
    alt=lambda: (
        f"Three rows of position ids, t, h and w, plotted against token index for "
        f"{TEXT_RUNS[0]} text tokens, an image of {IMAGE_PATCHES[0] // MERGE} × "
        f"{IMAGE_PATCHES[1] // MERGE} tokens and {TEXT_RUNS[1]} more text tokens. On the "
        "text the three ids are equal and rise by one per token. Over the image t stays "
        f"at {TEXT_RUNS[0]}, h steps once per image row and w runs across each row; the "
        f"text after the image resumes at {int(_ids()[:, TEXT_RUNS[0] : -TEXT_RUNS[1]].max()) + 1}."
    ),
    caption=lambda: (
        "Qwen2-VL's three position ids over text, an image and text "
        "(<code>pe_explained.mrope_position_ids</code>). Text tokens sit on the diagonal."
    ),
)
def _(theme):
    ids = _ids()
    seq = ids.shape[1]
    start, stop = TEXT_RUNS[0], seq - TEXT_RUNS[1]
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    ax.axvspan(start - 0.5, stop - 0.5, color=theme.cycle[3], alpha=0.15, linewidth=0)
    ax.text((start + stop - 1) / 2, ids.max() + 0.9, "image tokens", ha="center", va="bottom")
    markers = {"t (time)": ("o", 0), "h (row)": ("s", 1), "w (column)": ("^", 2)}
    for (label, (marker, row)), colour in zip(markers.items(), theme.cycle, strict=False):
        offset = (row - 1) * 0.22  # side by side where the three ids are equal
        ax.plot(
            np.arange(seq) + offset,
            ids[row],
            marker=marker,
            linestyle="none",
            color=colour,
            label=label,
            markersize=5,
        )
    ax.set_xlabel("token index in the sequence")
    ax.set_ylabel("position id")
    ax.set_ylim(-0.5, ids.max() + 2.2)
    ax.set_xticks(np.arange(0, seq, 2))
    ax.legend(loc="upper left")
    return fig


@value("base_census")
def _():
    """How many gallery models use each base in some layer: "1,000,000 in 7, …"."""
    counts: dict[float, int] = {}
    for _, report in _reports():
        for base in {block["rope_theta"] for block in report["layer_types"].values()}:
            counts[base] = counts.get(base, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    several = [f"{base:,.0f} in {count}" for base, count in ranked if count > 1]
    single = [f"{base:,.0f}" for base, count in ranked if count == 1]
    if len(single) > 1:
        several.append(f"{', '.join(single[:-1])} and {single[-1]} in one each")
    elif single:
        several.append(f"{single[0]} in one")
    return ", ".join(several)


def _gallery_config(stem: str) -> dict:
    """The config of the gallery file ``docs/data/models/<stem>.json``."""
    for entry in load_models():
        if entry.stem == stem:
            return entry.config
    raise LookupError(f"the gallery has no file {stem}.json")


def _ministral_temperature():
    (entry,) = [m for m in load_models() if m.stem == "ministral-3-3b-reasoning-2512"]
    return config_attention_temperature(entry.reading)


@value("ministral_beta")
def _():
    return f"{_ministral_temperature().beta:g}"


@value("ministral_context")
def _():
    return f"{_ministral_temperature().floor_scale:,}"


@value("ministral_offset")
def _():
    return str(_ministral_temperature().offset)


@table(
    "ministral_temperature",
    caption=(
        r"Ministral 3's query multiplier, $1 + \beta \ln(1 + \lfloor m / L \rfloor)$, from "
        "its gallery config (<code>config_attention_temperature</code>), beside Llama 4's "
        r"form with the same $\beta$."
    ),
)
def _():
    settings = _ministral_temperature()
    ours = settings.factors(list(MINISTRAL_AT))
    llama4_form = attention_temperature(
        list(MINISTRAL_AT), beta=settings.beta, floor_scale=LLAMA4_FLOOR_SCALE, offset=1
    )
    return Table(
        ["query position $m$", "Ministral 3", f"Llama 4's form ($F$ = {LLAMA4_FLOOR_SCALE:,})"],
        [[m, float(a), float(b)] for m, a, b in zip(MINISTRAL_AT, ours, llama4_form, strict=True)],
        formats={"query position $m$": ",d"},
        default_format=".4f",
    )


def _mla_config() -> dict:
    return _gallery_config("deepseek-v3")


@value("mla_latent")
def _():
    return str(_mla_config()["kv_lora_rank"])


@value("mla_rope_key")
def _():
    return str(_mla_config()["qk_rope_head_dim"])


@value("mla_per_layer")
def _():
    cfg = _mla_config()
    return str(mla_cache_size(cfg["kv_lora_rank"], cfg["qk_rope_head_dim"]))


@value("mla_layers")
def _():
    return str(_mla_config()["num_hidden_layers"])


@value("mla_per_token")
def _():
    cfg = _mla_config()
    size = mla_cache_size(
        cfg["kv_lora_rank"], cfg["qk_rope_head_dim"], num_layers=cfg["num_hidden_layers"]
    )
    return f"{size:,}"


@value("mla_rope_share")
def _():
    cfg = _mla_config()
    share = cfg["qk_rope_head_dim"] / mla_cache_size(cfg["kv_lora_rank"], cfg["qk_rope_head_dim"])
    return f"{100 * share:.0f}"
