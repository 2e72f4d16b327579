"""Chapter 15, stretching the context: how each method remaps RoPE's frequencies."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained.rope import (
    ntk_aware_base,
    rope_decay_bound_mean,
    rope_frequencies,
    rope_pair_groups,
    rope_wavelengths,
    yarn_correction_range,
)

from .. import Table, figure, table, value
from ..interactive import interactive
from ..style import label_on_line, new_figure

#: The running example: head_dim, base, trained context L and stretch factor s.
HEAD_DIM, BASE, CONTEXT, FACTOR = 128, 10000.0, 4096, 4.0
PAIRS = HEAD_DIM // 2
FACTORS = (2.0, 4.0, 8.0, 16.0, 32.0)
#: Llama 3.1's rope_scaling (its heads are HEAD_DIM wide too) and base.
LLAMA31_FACTOR, LLAMA31_LOW_FREQ_FACTOR, LLAMA31_HIGH_FREQ_FACTOR = 8.0, 1.0, 4.0
LLAMA31_CONTEXT, LLAMA31_BASE = 8192, 500000.0
LLAMA31 = {
    "rope_type": "llama3",
    "factor": LLAMA31_FACTOR,
    "low_freq_factor": LLAMA31_LOW_FREQ_FACTOR,
    "high_freq_factor": LLAMA31_HIGH_FREQ_FACTOR,
    "original_max_position_embeddings": LLAMA31_CONTEXT,
}
#: The constants the page quotes, as {{ value: context_extension.NAME:spec }}.
QUOTED = (
    "HEAD_DIM",
    "BASE",
    "CONTEXT",
    "FACTOR",
    "PAIRS",
    "LLAMA31_FACTOR",
    "LLAMA31_LOW_FREQ_FACTOR",
    "LLAMA31_HIGH_FREQ_FACTOR",
    "LLAMA31_CONTEXT",
    "LLAMA31_BASE",
)


def _methods() -> list[tuple[str, np.ndarray]]:
    """(label, wavelengths) of every method for the chapter's example model."""
    ctx = {"original_max_position_embeddings": CONTEXT}
    stretched = int(FACTOR * CONTEXT)
    return [
        ("original RoPE", rope_wavelengths(HEAD_DIM, base=BASE)),
        (
            "position interpolation",
            rope_wavelengths(
                HEAD_DIM, base=BASE, scaling={"rope_type": "linear", "factor": FACTOR}
            ),
        ),
        ("NTK-aware", rope_wavelengths(HEAD_DIM, base=ntk_aware_base(BASE, FACTOR, HEAD_DIM))),
        (
            f"dynamic NTK (HF) at {stretched:,}",
            rope_wavelengths(
                HEAD_DIM,
                base=BASE,
                scaling={"rope_type": "dynamic", "factor": FACTOR, **ctx},
                seq_len=stretched,
            ),
        ),
        (
            "YaRN",
            rope_wavelengths(
                HEAD_DIM, base=BASE, scaling={"rope_type": "yarn", "factor": FACTOR, **ctx}
            ),
        ),
        (
            "Llama 3 rule",
            rope_wavelengths(
                HEAD_DIM,
                base=BASE,
                scaling={
                    "rope_type": "llama3",
                    "factor": FACTOR,
                    "low_freq_factor": LLAMA31_LOW_FREQ_FACTOR,
                    "high_freq_factor": LLAMA31_HIGH_FREQ_FACTOR,
                    **ctx,
                },
            ),
        ),
    ]


@figure(
    "context_wavelengths",
    alt=f"Log-scale line plot of the wavelength of every pair against pair index i "
    f"(head_dim = {HEAD_DIM}, base = {BASE:,.0f}, original context {CONTEXT:,}, factor "
    f"{FACTOR:g}) for original RoPE and five extension methods, with a horizontal line at the "
    f"original context length. Position interpolation lies a factor {FACTOR:g} above the "
    "original line everywhere; NTK-aware starts on it at pair 0 and ends a factor "
    f"{FACTOR:g} above; YaRN and the Llama 3 rule follow the original line for the fast pairs, "
    "leave it over a band of pairs whose wavelengths are still shorter than the context, and "
    "join position interpolation for the slowest pairs; Hugging Face's "
    "dynamic NTK at four times the context ends far above all others. A second panel shows "
    "the per-pair stretch, new over original wavelength, on a log scale: 1 for original RoPE, "
    f"{FACTOR:g} everywhere for position interpolation, a smooth rise from 1 to {FACTOR:g} for "
    f"NTK-aware, and for YaRN and the Llama 3 rule a plateau at 1, a ramp, and a plateau at "
    f"{FACTOR:g}.",
    caption=f"How each method remaps the wavelengths (head_dim = {HEAD_DIM}, base = "
    f"{BASE:,.0f}, trained on {CONTEXT:,} positions, factor {FACTOR:g}). Below: each method's "
    "stretch of every pair (new ÷ original wavelength).",
)
def _(theme):
    methods = _methods()
    pairs = np.arange(len(methods[0][1]))
    original = methods[0][1]
    fig = new_figure(7.0, 6.4)
    ax, stretch_ax = fig.subplots(2, 1, sharex=True, height_ratios=[1.1, 1])
    styles = ["-", "--", "-.", ":", "-", "--"]
    lines, stretches = {}, {}
    for (label, wavelengths), style in zip(methods, styles, strict=True):
        (lines[label],) = ax.plot(pairs, wavelengths, linestyle=style, linewidth=1.4)
        # the per-pair stretch: new wavelength ÷ original wavelength
        (stretches[label],) = stretch_ax.plot(
            pairs, wavelengths / original, linestyle=style, linewidth=1.4
        )
    ax.axhline(CONTEXT, color=theme.muted, linestyle="--", linewidth=1)
    ax.annotate(  # under the line at the fast end, where every line runs far below it
        f"original context\n= {CONTEXT:,}",
        (0, CONTEXT),
        xytext=(0, -3),
        textcoords="offset points",
        va="top",
        color=theme.text,
    )
    ax.set_yscale("log")
    ax.minorticks_off()
    ax.set_ylabel(r"wavelength $2\pi/\omega_i$ (positions)")
    ax.grid(True, which="major")
    stretch_ax.set_yscale("log", base=2)
    stretch_ax.set_ylim(0.8, 2 * max(float((w / original).max()) for _, w in methods))
    stretch_ax.set_xlabel("pair index $i$ (0 = fastest → slowest)")
    stretch_ax.set_ylabel("stretch: new ÷ original\nwavelength (log₂ scale)")
    stretch_ax.grid(True, which="major")
    # Labels where each line runs clear of the others: in the lower panel every method;
    # in the upper one the two that stand apart at the slow end, where the others meet.
    names = [label for label, _ in methods]
    original_name, pi_name, ntk_name, dynamic_name, yarn_name, llama_name = names
    last = int(pairs[-1])
    for name, x, offset, ha in (
        (original_name, last - 8, (0, 9), "center"),
        (pi_name, 2, (-4, 9), "left"),
        (ntk_name, last - 11, (2, -12), "left"),
        (dynamic_name, last - 12, (-8, 10), "right"),
        (yarn_name, 22, (-2, 14), "center"),
        (llama_name, 40, (8, -6), "left"),
    ):
        label_on_line(stretch_ax, stretches[name], x, name, theme, offset, ha=ha)
    label_on_line(ax, lines[original_name], last - 8, original_name, theme, (6, -12), ha="left")
    label_on_line(ax, lines[dynamic_name], last - 8, dynamic_name, theme, (-8, 10), ha="right")
    return fig


@interactive(
    "context",
    title="Try it: each method's stretch of every pair and its attention factor, if it has "
    "one, for any factor, head width, base and trained length.",
)
def _():
    import inspect

    yarn = inspect.signature(yarn_correction_range).parameters
    return {
        "method": "yarn",
        "factor": FACTOR,
        "head_dim": HEAD_DIM,
        "base": BASE,
        "context": CONTEXT,
        "low_freq_factor": LLAMA31_LOW_FREQ_FACTOR,
        "high_freq_factor": LLAMA31_HIGH_FREQ_FACTOR,
        "beta_fast": yarn["beta_fast"].default,
        "beta_slow": yarn["beta_slow"].default,
    }


@table(
    "attention_factors",
    caption="Attention factors as <code>rope_frequencies</code> computes them, for several "
    "scale factors $s$. Hugging Face multiplies cos and sin by the factor, so the logits grow "
    "by its square.",
)
def _():
    ctx = {"original_max_position_embeddings": CONTEXT}

    def factor_of(scaling):
        return rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling)[1]

    def longrope(s):
        ones = [1.0] * (HEAD_DIM // 2)
        return {
            "rope_type": "longrope",
            "short_factor": ones,
            "long_factor": ones,
            "factor": s,
            **ctx,
        }

    rows = [
        ["linear, dynamic, llama3"]
        + [factor_of({"rope_type": "linear", "factor": s}) for s in FACTORS],
        [r"yarn ($0.1 \ln s + 1$)"]
        + [factor_of({"rope_type": "yarn", "factor": s, **ctx}) for s in FACTORS],
        ["yarn, logit multiplier (square)"]
        + [factor_of({"rope_type": "yarn", "factor": s, **ctx}) ** 2 for s in FACTORS],
        ["yarn, `mscale` = `mscale_all_dim` = 1"]
        + [
            factor_of(
                {"rope_type": "yarn", "factor": s, "mscale": 1.0, "mscale_all_dim": 1.0, **ctx}
            )
            for s in FACTORS
        ],
        [f"longrope, $L = {CONTEXT:,}$"] + [factor_of(longrope(s)) for s in FACTORS],
    ]
    return Table(["`rope_type`"] + [f"factor $s = {s:g}$" for s in FACTORS], rows)


@value("pi_fastest_wavelength")
def _():
    return f"{_methods()[1][1][0]:.1f}"


@value("ntk_fastest_stretch")
def _():
    methods = dict(_methods())
    return f"{methods['NTK-aware'][0] / methods['original RoPE'][0]:.2f}"


@value("ntk_slowest_stretch")
def _():
    methods = dict(_methods())
    return f"{methods['NTK-aware'][-1] / methods['original RoPE'][-1]:.2f}"


@value("dynamic_slowest_stretch")
def _():
    methods = _methods()
    return f"{methods[3][1][-1] / methods[0][1][-1]:.0f}"


@value("dynamic_alpha_at_2l")
def _():
    scaling = {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": CONTEXT}
    plain, _ = rope_frequencies(HEAD_DIM, base=BASE)
    stretched, _ = rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling, seq_len=2 * CONTEXT)
    return f"{plain[-1] / stretched[-1]:.2f}"


@value("yarn_low")
def _():
    return str(
        yarn_correction_range(HEAD_DIM, base=BASE, original_max_position_embeddings=CONTEXT)[0]
    )


@value("yarn_high")
def _():
    return str(
        yarn_correction_range(HEAD_DIM, base=BASE, original_max_position_embeddings=CONTEXT)[1]
    )


def _llama31_groups() -> tuple[int, int, int]:
    """(kept, blended, divided) pairs of Llama 3.1's rule."""
    return rope_pair_groups(HEAD_DIM, base=LLAMA31_BASE, scaling=LLAMA31)


@value("llama31_kept")
def _():
    return str(_llama31_groups()[0])


@value("llama31_blended")
def _():
    return str(_llama31_groups()[1])


@value("llama31_divided")
def _():
    return str(_llama31_groups()[2])


#: The running example's YaRN and Llama 3 rules (as in the figure).
RUNNING_RULES = {
    "yarn": {"rope_type": "yarn", "factor": FACTOR, "original_max_position_embeddings": CONTEXT},
    "llama3": {
        "rope_type": "llama3",
        "factor": FACTOR,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": CONTEXT,
    },
}


def _band(rule: str) -> dict:
    """The pairs a rule of the running example keeps, blends and divides, and the blend band's
    wavelengths and stretches (new ÷ original wavelength)."""
    scaling = RUNNING_RULES[rule]
    kept, blended, divided = rope_pair_groups(HEAD_DIM, base=BASE, scaling=scaling)
    original = rope_wavelengths(HEAD_DIM, base=BASE)
    stretch = rope_wavelengths(HEAD_DIM, base=BASE, scaling=scaling) / original
    band = slice(kept, kept + blended)  # kept pairs first, divided last: the rules are monotone
    return {
        "kept": kept,
        "divided": divided,
        "first": kept,
        "last": kept + blended - 1,
        "wavelengths": (original[band].min(), original[band].max()),
        "stretch": (stretch[band].min(), stretch[band].max()),
    }


def _band_value(rule: str, what: str) -> str:
    band = _band(rule)
    if what in ("wavelengths", "stretch"):
        low, high = band[what]
        spec = ",.0f" if what == "wavelengths" else ".2f"
        return f"{low:{spec}}–{high:{spec}}"
    return str(band[what])


for _rule in RUNNING_RULES:
    for _what in ("kept", "first", "last", "divided", "wavelengths", "stretch"):
        value(f"{_rule}_band_{_what}")(lambda rule=_rule, what=_what: _band_value(rule, what))


#: Raising the base in long-context training: (model, base, sequence length of that
#: training, the rope_scaling its released code applies at every length), all with heads
#: HEAD_DIM wide. Code Llama: Rozière et al. 2023, §2.4; Llama 2 Long: Xiong et al. 2023,
#: §2; Llama 3.1: Dubey et al. 2024, §3.4.2 (base 500,000 from the start, the context
#: grown in stages), with the factor-8 rule of its reference code and config; Qwen2 and
#: Qwen2.5: their technical reports (base raised from 10,000 with the context).
ABF_MODELS = (
    ("Llama 2 (no long-context stage)", BASE, CONTEXT, None),
    ("Code Llama", 1e6, 16384, None),
    ("Llama 2 Long", 500000.0, 32768, None),
    ("Llama 3.1, last stage, with its ×8 rule", LLAMA31_BASE, 131072, LLAMA31),
    ("Qwen2, Qwen2.5", 1e6, 32768, None),
)
#: Bases and bands of distances for the decay-bound table.
ABF_BASES = (BASE, 500000.0, 1e6)
DECAY_BANDS = ((1, 100), (100, 1000), (1000, 10000), (10000, 32768), (32768, 131072))


@table(
    "abf_models",
    caption=f"Models that raised the base (head_dim = {HEAD_DIM}): long-context training "
    "length, slowest wavelength, and the pairs under one turn over that length, at that "
    f"base and at {BASE:,.0f} (Llama 3.1: with its ×8 rule).",
)
def _():
    rows = []
    for name, base, length, scaling in ABF_MODELS:
        # under one turn over the length: wavelength 2π / ω_i > length
        own, at_base = (rope_wavelengths(HEAD_DIM, base=b, scaling=scaling) for b in (base, BASE))
        slow = [int(np.count_nonzero(w > length)) for w in (own, at_base)]
        rows.append([name, base, length, own[-1], *slow])
    return Table(
        [
            "model",
            "base",
            "trained on (positions)",
            "slowest wavelength",
            "pairs under one turn",
            f"the same at base {BASE:,.0f}",
        ],
        rows,
        formats={"base": ",.0f", "trained on (positions)": ",d", "slowest wavelength": ",.0f"},
    )


@table(
    "abf_decay",
    caption=f"RoFormer's relative decay bound (chapter 11), head_dim = {HEAD_DIM}, averaged "
    "over bands of distances (<code>rope_decay_bound_mean</code>), for each base.",
)
def _():
    # the base a number: on a phone each card is titled "base = 10,000"
    rows = [[int(base), *_decay_means(base)] for base in ABF_BASES]
    return Table(
        ["base", *(f"distance {lo:,}–{hi - 1:,}" for lo, hi in DECAY_BANDS)],  # hi excluded
        rows,
        formats={"base": ",d"},
        default_format=".2f",
    )


@value("ntk_running_base")
def _():
    return f"{ntk_aware_base(BASE, FACTOR, HEAD_DIM):,.0f}"


@value("abf_slowest_ratio")
def _():
    # how much longer the slowest wavelength is at 500,000 than at 10,000
    ratio = (
        rope_wavelengths(HEAD_DIM, base=LLAMA31_BASE)[-1]
        / rope_wavelengths(HEAD_DIM, base=BASE)[-1]
    )
    return f"{ratio:.0f}"


@value("llama31_rule_stretch")
def _():  # how much the rule alone lengthens Llama 3.1's slowest wavelength
    ruled, plain = (
        rope_wavelengths(HEAD_DIM, base=LLAMA31_BASE, scaling=s) for s in (LLAMA31, None)
    )
    return f"{ruled[-1] / plain[-1]:g}"


@cache  # the table, two values and each base's tail read the same rows
def _decay_means(base: float) -> tuple[float, ...]:
    """The decay table's row for ``base``: the bound averaged over each band of distances."""
    return tuple(rope_decay_bound_mean(HEAD_DIM, lo, hi, base=base) for lo, hi in DECAY_BANDS)


def _bases(falling: bool) -> str:
    """The bases whose row falls (or not) from every band to the next, the last one too."""
    rows = {f"{b:,.0f}": np.diff(_decay_means(b)) for b in ABF_BASES}
    names = [name for name, steps in rows.items() if bool((steps < 0).all()) == falling]
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


value("decay_levelling_bases")(lambda: _bases(False))
value("decay_falling_bases")(lambda: _bases(True))
for _base in ABF_BASES:  # the row's last three bands: "4.80, 4.69 and 4.76"
    value(f"decay_tail_{int(_base)}")(
        lambda b=_base: "{}, {} and {}".format(*(f"{m:.2f}" for m in _decay_means(b)[-3:]))
    )
