"""Appendix, the one-page summary: every encoding of the book and the rules that stretch
RoPE's context, side by side, with the gallery's models that use each one."""

from __future__ import annotations

import inspect
import re
from functools import cache

import numpy as np

from pe_explained import (
    ROPE_TYPES,
    LearnedPositionalEmbedding,
    alibi_slopes,
    inspect_config,
    nope_position_signal,
    ntk_aware_base,
    rope_frequencies,
    shaw_relative_index,
    sinusoidal,
    t5_relative_bucket,
    xpos_scale,
    yarn_correction_range,
)

from .. import Table, table, value
from ..models import load_models

#: The running example of the context rules: chapter 15's head, base, context and factor.
HEAD_DIM, BASE, CONTEXT, FACTOR = 128, 10000.0, 4096, 4.0
#: Llama 3.1's published rule, as its config writes it (chapter 15).
LLAMA3_KEYS = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
#: ALiBi's heads and the sinusoidal width of the numbers worth remembering.
ALIBI_HEADS, D_MODEL = 8, 512
#: Gallery entries named as examples where more models use an encoding than a cell holds.
EXAMPLES = ("llama-3.1-8b-instruct", "qwen3-8b", "deepseek-v3", "gpt-oss-20b", "mistral-7b-v0.3")
#: A cell lists every model up to LISTED, else a count and SHOWN of them, EXAMPLES first.
LISTED, SHOWN = 4, 3
_YARN = inspect.signature(yarn_correction_range).parameters
BETA_FAST, BETA_SLOW = (_YARN[k].default for k in ("beta_fast", "beta_slow"))
NUM_BUCKETS = inspect.signature(t5_relative_bucket).parameters["num_buckets"].default
QUOTED = ("HEAD_DIM", "BASE", "CONTEXT", "FACTOR", "ALIBI_HEADS", "D_MODEL")


def _cite(*keys: str) -> str:
    """A citation, expanded by the page's shortcode stage as on the pages."""
    return f"{{{{ cite: {', '.join(keys)} }}}}"


def _code(line: str) -> str:
    """``line``, one call of the library, as a cell: it is run here first (with
    :data:`_CALLS`), so that a cell never shows a call the library no longer answers."""
    eval(line, dict(_CALLS))
    return f"`{line}`"


#: What a cell of code may call, by name (imported above by name, so that the build cache
#: sees this module depend on their modules).
_CALLS = {
    f.__name__: f
    for f in (
        LearnedPositionalEmbedding,
        alibi_slopes,
        nope_position_signal,
        rope_frequencies,
        shaw_relative_index,
        sinusoidal,
        t5_relative_bucket,
        xpos_scale,
    )
}


def _short(name: str) -> str:
    """A gallery model's name without its parenthesis: "GPT-2 (124M)" → "GPT-2"."""
    return re.sub(r"\s*\([^)]*\)$", "", name)


@cache
def gallery() -> dict[str, list[tuple[str, str]]]:
    """The gallery's models by what they use, from ``inspect_config``: ``"learned"``,
    ``"alibi"``, ``"t5_bias"`` (where the positions come from without rotation),
    ``"rope"`` (any rotary layer), ``"nope"`` (some layers without position), each
    ``rope_type`` of a rotary layer, and ``"ntk_alpha"`` (a base fixed by Hunyuan's
    NTK-α); each entry (file stem, model name)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for entry in load_models():
        report = inspect_config(entry.reading)
        kinds = set()
        if report["positions"]:
            kinds.add(report["positions"]["kind"])
        if report["layer_types"]:
            kinds.add("rope")
            kinds.update(block["rope_type"] for block in report["layer_types"].values())
        if report["nope_layers"]:
            kinds.add("nope")
        if any(note.startswith("NTK-alpha") for note in report["notes"]):
            kinds.add("ntk_alpha")
        for kind in kinds:
            found.setdefault(kind, []).append((entry.stem, entry.model))
    return found


def models(*kinds: str, layers: bool = False) -> str:
    """The gallery's models using any of ``kinds``, as a cell: all of them when few,
    else their count and the examples among them."""
    entries = sorted({e for kind in kinds for e in gallery().get(kind, [])})
    if not entries:
        return "none in the gallery"
    names = [_short(name) for _, name in entries]
    if len(entries) <= LISTED:
        text = ", ".join(names)
        return f"some layers of {text}" if layers else text
    # the examples first, then the others in the gallery's order
    chosen = sorted(
        entries,
        key=lambda e: (e[0] not in EXAMPLES, EXAMPLES.index(e[0]) if e[0] in EXAMPLES else 0),
    )[:SHOWN]
    shown = ", ".join(_short(name) for _, name in chosen)
    return f"{len(entries)} of {len(load_models())}, e.g. {shown}"


@table(
    "encodings",
    caption="Every encoding of the book: what it computes and where, what it trains, what "
    "happens past the training length, and models of the gallery that use it.",
)
def _():
    query_key = r"q_m^\top k_n"
    rows = [
        (
            "[sinusoidal](../foundations/sinusoidal.md) (ch. 3)",
            r"$e + PE(pos)$; pair $i$: $\sin$, $\cos$ of $pos\,\omega_i$, "
            r"$\omega_i = \text{base}^{-2i/d_{\text{model}}}$",
            "input, once",
            "none",
            f"defined, but degrades {_cite('press2022')}",
            f"the original transformer {_cite('vaswani2017')}",
            _code("sinusoidal(2048, 512)"),
        ),
        (
            "[learned absolute](../model/learned.md) (ch. 9)",
            r"$e + P_{pos}$, $P$ a trained table",
            "input, once",
            r"$L_{\max} \cdot d_{\text{model}}$",
            r"no row past $L_{\max} - 1$",
            models("learned"),
            _code("LearnedPositionalEmbedding(512, 2048)"),
        ),
        (
            "[Shaw et al.](../model/relative.md) (ch. 10)",
            rf"${query_key} + q_m^\top a_{{n-m}}$, $a$ clipped to offsets $\pm K$ and added "
            "to the values too",
            "keys, values; every layer",
            r"$2(2K + 1)\, d_k$",
            f"farther offsets share a vector {_cite('shaw2018')}",
            models("shaw"),
            _code("shaw_relative_index(16, 16, 4)"),
        ),
        (
            "[T5 bias](../modern/t5-bias.md) (ch. 13)",
            rf"${query_key} + b_h(\mathrm{{bucket}}(n - m))$",
            "scores; every layer",
            f"{NUM_BUCKETS} per head",
            f"far keys share a bucket; degrades {_cite('press2022')}",
            models("t5_bias"),
            _code("t5_relative_bucket(-200)"),
        ),
        (
            "[RoPE](../modern/rope.md) (ch. 11)",
            r"pair $i$ of $q_m$, $k_n$ turned by $m\,\omega_i$, $n\,\omega_i$; "
            r"$\omega_i = \text{base}^{-2i/d_k}$",
            "$q$, $k$; every layer",
            "none",
            f"slow pairs meet untrained angles: stretch them {_cite('chen2023', 'peng2024')}",
            models("rope"),
            _code("rope_frequencies(128)"),
        ),
        (
            "[ALiBi](../modern/alibi.md) (ch. 12)",
            rf"${query_key} / \sqrt{{d_k}} - m_h\,(m - n)$, a slope $m_h$ per head",
            "scores; every layer",
            "none",
            f"stable perplexity {_cite('press2022')}",
            models("alibi"),
            _code("alibi_slopes(8)"),
        ),
        (
            "[xPos](../modern/xpos-nope.md) (ch. 14)",
            r"RoPE, pair $i$'s term times $\zeta_i^{(m - n)/B}$",
            "$q$, $k$; every layer",
            "none",
            f"better than RoPE, reported {_cite('sun2023')}",
            models("xpos"),
            _code("xpos_scale(128, 2048)"),
        ),
        (
            "[NoPE](../modern/xpos-nope.md#nope-no-positional-encoding-at-all) (ch. 14)",
            rf"${query_key}$: the causal mask alone",
            "nowhere (decoders)",
            "none",
            f"better on small tasks {_cite('kazemnejad2023')}, yet limited {_cite('wang2024nope')}",
            models("nope", layers=True),
            _code("nope_position_signal(2048)"),
        ),
    ]
    return Table(
        [
            "encoding",
            "what it computes, query at $m$, key at $n$",
            "acts on",
            "trained parameters",
            "past the training length",
            "models",
            "in code",
        ],
        rows,
    )


def _attention_factor(scaling: dict | None, base: float = BASE) -> float:
    return rope_frequencies(HEAD_DIM, base=base, scaling=scaling)[1]


#: The keys every rule's ``rope_scaling`` holds beside its type (the page says so once):
#: the factor, and the trained length (all but position interpolation).
COMMON_KEYS = ("factor", "original_max_position_embeddings")


def _config(rope_type: str) -> str:
    """A rule's ``rope_type`` and the keys it needs beyond :data:`COMMON_KEYS`."""
    required, _ = ROPE_TYPES[rope_type]
    common = set(COMMON_KEYS) if rope_type != "linear" else {"factor"}
    if not common <= required:
        raise ValueError(f"{rope_type!r} no longer needs {sorted(common - required)}")
    extra = ", ".join(f"`{key}`" for key in sorted(required - common))
    return f'`"{rope_type}"`' + (f" and {extra}" if extra else "")


#: Each rule's ``rope_scaling`` at the running example (NTK-aware changes the base).
RULES = {
    "linear": {"rope_type": "linear", "factor": FACTOR},
    "yarn": {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": CONTEXT},
    "llama3": {
        "rope_type": "llama3",
        "factor": FACTOR,
        "original_max_position_embeddings": CONTEXT,
        **LLAMA3_KEYS,
    },
}


@table(
    "context_rules",
    caption=f"The rules that stretch RoPE's context by $s$, with the attention factor each "
    f"gives at $s = {FACTOR:g}$ ($d_k$ = {HEAD_DIM}, $L$ = {CONTEXT:,}).",
)
def _():
    ntk_base = ntk_aware_base(BASE, FACTOR, HEAD_DIM)
    rows = [
        (
            "[position interpolation](../modern/context-extension.md#position-interpolation)",
            r"every $\omega_i$ divided by $s$",
            _config("linear"),
            _attention_factor(RULES["linear"]),
            models("linear"),
        ),
        (
            "[NTK-aware](../modern/context-extension.md#ntk-aware-scaling)",
            r"$\text{base} \cdot s^{d_k/(d_k - 2)}$: fastest pair kept, slowest divided by $s$",
            f"a raised `rope_theta`; {_config('dynamic')} follows the length",
            _attention_factor(None, base=ntk_base),
            models("dynamic", "ntk_alpha"),
        ),
        (
            "[YaRN](../modern/context-extension.md#yarn)",
            rf"pairs turning over $\beta_{{\text{{fast}}}} = {BETA_FAST:g}$ times in $L$ "
            rf"kept, under $\beta_{{\text{{slow}}}} = {BETA_SLOW:g}$ divided by $s$, a ramp "
            r"between; logits $\times (0.1 \ln s + 1)^2$",
            _config("yarn"),
            _attention_factor(RULES["yarn"]),
            models("yarn"),
        ),
        (
            "[Llama 3's rule](../modern/context-extension.md#llama-3s-rule)",
            "wavelengths under $L$ / `high_freq_factor` kept, over $L$ / `low_freq_factor` "
            "divided by $s$, blended between",
            _config("llama3"),
            _attention_factor(RULES["llama3"]),
            models("llama3"),
        ),
    ]
    return Table(
        [
            "rule",
            "what it does to pair $i$",
            "<code>rope_type</code> in the config",
            "attention factor",
            "models",
        ],
        rows,
        formats={"attention factor": ".5g"},
    )


@value("alibi_slopes")
def _():
    slopes = alibi_slopes(ALIBI_HEADS)
    first, second, last = (f"1/{round(1 / s):,}" for s in (slopes[0], slopes[1], slopes[-1]))
    return f"{first}, {second}, …, {last}"


@value("row_norm")
def _():
    norms = np.linalg.norm(sinusoidal(CONTEXT, D_MODEL), axis=1)
    if not np.allclose(norms, norms[0]):
        raise ValueError("the sinusoidal rows should all have one norm")
    return f"{norms[0]:g}"


@value("yarn_attention_factor")
def _():
    return f"{_attention_factor(RULES['yarn']):.4f}"
