"""Chapter 11, RoPE: relative scores from rotations, the long-term decay, the base."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained import inspect_config
from pe_explained.properties import slow_pair_count
from pe_explained.rope import (
    apply_rope,
    rope_decay_bound,
    rope_decay_bound_mean,
    rope_frequencies,
    rope_wavelengths,
)

from .. import figure, value
from ..interactive import interactive
from ..models import load_models
from ..style import new_figure, phone_layout_active

TOEPLITZ_POSITIONS, TOEPLITZ_HEAD_DIM, SEED = 48, 32, 11
HEAD_DIM, DECAY_MAX = 128, 2000  # the heads of Llama 2 and Llama 3; the decay figure
PAIRS = HEAD_DIM // 2
# base and trained context: Llama 2 and Llama 3 (before its 3.1 context extension)
LLAMA2_BASE, LLAMA2_CONTEXT = 10000.0, 4096
LLAMA3_BASE, LLAMA3_CONTEXT = 500000.0, 8192
#: Two distances where the decay bound rises, and bands of distances it is averaged over.
DECAY_EARLIER, DECAY_LATER = 1000, 2000
DECAY_BANDS = ((1, 100), (100, 1000), (1000, 10000))
#: The page's example of a score: q and k from default_rng(SCORE_SEED), head_dim 8, m and n;
#: the interactive figure starts from it and lets m and n run up to SCORE_MAX_POSITION.
SCORE_SEED, SCORE_HEAD_DIM, SCORE_M, SCORE_N, SCORE_MAX_POSITION = 0, 8, 5, 2, 40
#: A long context, for the census of the gallery's configs (chapter 21's data): the rotary
#: configs whose context reaches it, and which of them ship a remapping rule.
LONG_CONTEXT, PAPER_BASE = 65536, 10000.0
#: The constants the page quotes, as {{ value: rope.NAME:spec }}.
QUOTED = (
    "LONG_CONTEXT",
    "PAPER_BASE",
    "HEAD_DIM",
    "PAIRS",
    "LLAMA2_BASE",
    "LLAMA2_CONTEXT",
    "LLAMA3_BASE",
    "LLAMA3_CONTEXT",
    "DECAY_EARLIER",
    "DECAY_LATER",
)


def _score_matrix() -> np.ndarray:
    """q_m · k_n for one fixed query and key placed at every pair of positions."""
    rng = np.random.default_rng(SEED)
    q, k = rng.standard_normal((2, TOEPLITZ_HEAD_DIM))
    inv_freq, _ = rope_frequencies(TOEPLITZ_HEAD_DIM)
    rows = np.broadcast_to(q, (TOEPLITZ_POSITIONS, TOEPLITZ_HEAD_DIM))
    cols = np.broadcast_to(k, (TOEPLITZ_POSITIONS, TOEPLITZ_HEAD_DIM))
    rq = apply_rope(np.ascontiguousarray(rows), TOEPLITZ_POSITIONS, inv_freq)
    rk = apply_rope(np.ascontiguousarray(cols), TOEPLITZ_POSITIONS, inv_freq)
    return rq @ rk.T


@interactive(
    "rope",
    title="Try it: one query and one key turned at positions $m$ and $n$, pair by pair, in "
    "either layout; the arc between them is $(m - n)\\,\\omega_i$, and the score moves with "
    "$m - n$ only.",
    script="interactive-rope",
)
def _():
    import inspect

    q, k = np.random.default_rng(SCORE_SEED).standard_normal((2, SCORE_HEAD_DIM))
    return {
        "head_dim": SCORE_HEAD_DIM,
        "base": inspect.signature(rope_frequencies).parameters["base"].default,
        "layout": inspect.signature(apply_rope).parameters["layout"].default,
        "q": q.tolist(),
        "k": k.tolist(),
        "m": SCORE_M,
        "n": SCORE_N,
        "max_position": SCORE_MAX_POSITION,
    }


@figure(
    "rope_score_toeplitz",
    alt=f"Heatmap of the attention score q·k for one fixed query and key placed at every pair "
    f"of positions 0 to {TOEPLITZ_POSITIONS - 1} (head_dim = {TOEPLITZ_HEAD_DIM}). Every "
    "diagonal has a single colour: the score depends only on the offset m − n.",
    caption="RoPE scores for one query and one key at all position pairs. Each diagonal "
    "(fixed $m - n$) has one value: the score is a function of the offset only.",
)
def _(theme):
    scores = _score_matrix()
    limit = float(np.abs(scores).max())
    fig = new_figure(5.6, 4.6)
    if phone_layout_active():  # a square image: the colour bar as tall as the image
        fig.set_figheight(3.9)
    ax = fig.add_subplot()
    image = ax.imshow(
        scores,
        cmap=theme.diverging,
        vmin=-limit,
        vmax=limit,
        interpolation="nearest",
        origin="upper",
    )
    ax.set_xlabel("key position $n$")
    ax.set_ylabel("query position $m$")
    bar = fig.colorbar(image, ax=ax, shrink=0.9)
    bar.set_label(r"score $q_m^\top k_n$")
    return fig


@figure(
    "rope_decay",
    alt=lambda: (
        f"Line plot of RoFormer's relative upper bound on the attention score against the "
        f"relative distance 0 to {DECAY_MAX} (head_dim = {HEAD_DIM}), for base {LLAMA2_BASE:g} "
        f"and base {LLAMA3_BASE:g}. Both start at their maximum at distance 0 and fall steeply "
        "over the first hundred positions; after that they wiggle, falling on average but "
        f"rising in places (for base {LLAMA2_BASE:g}, from "
        f"{rope_decay_bound([float(DECAY_EARLIER)], HEAD_DIM)[0]:.2f} at {DECAY_EARLIER} to "
        f"{rope_decay_bound([float(DECAY_LATER)], HEAD_DIM)[0]:.2f} at {DECAY_LATER}). The "
        f"curve for base {LLAMA3_BASE:g} falls more slowly."
    ),
    caption="The long-term decay: RoFormer's upper bound $(2/d_k)\\sum_j |S_j|$ against the "
    f"relative distance $m - n$, for head_dim = {HEAD_DIM}. A larger base slows the decay.",
)
def _(theme):
    distances = np.arange(0, DECAY_MAX + 1, 2, dtype=np.float64)
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    for base in (LLAMA2_BASE, LLAMA3_BASE):
        ax.plot(
            distances,
            rope_decay_bound(distances, HEAD_DIM, base=base),
            label=f"base = {base:,.0f}",
            linewidth=1.2,
        )
    ax.set_xlabel("relative distance $m - n$ (positions)")
    ax.set_ylabel(r"relative upper bound $(2/d_k)\,\Sigma_j\,|S_j|$")
    ax.set_ylim(bottom=0)
    ax.grid(True)
    ax.legend(loc="upper right")
    return fig


@value("decay_start")
def _():
    return f"{rope_decay_bound([0.0], HEAD_DIM)[0]:.1f}"


@value("decay_at_1000")
def _():
    return f"{rope_decay_bound([float(DECAY_EARLIER)], HEAD_DIM)[0]:.2f}"


@value("decay_at_later")
def _():
    return f"{rope_decay_bound([float(DECAY_LATER)], HEAD_DIM)[0]:.2f}"


@value("decay_band_means")
def _():
    # a band holds distances lo … hi − 1 (rope_decay_bound_mean excludes hi)
    means = [
        f"{rope_decay_bound_mean(HEAD_DIM, lo, hi):.1f} over distances {lo:,}–{hi - 1:,}"
        for lo, hi in DECAY_BANDS
    ]
    return ", ".join(means[:-1]) + " and " + means[-1]


@value("llama2_slow_pairs")
def _():
    return str(slow_pair_count(LLAMA2_CONTEXT, HEAD_DIM, base=LLAMA2_BASE))


@value("llama3_slow_pairs")
def _():
    return str(slow_pair_count(LLAMA3_CONTEXT, HEAD_DIM, base=LLAMA3_BASE))


@value("longest_wavelength_10000")
def _():
    return f"{rope_wavelengths(HEAD_DIM, base=LLAMA2_BASE)[-1]:,.0f}"


@value("longest_wavelength_500000")
def _():
    return f"{rope_wavelengths(HEAD_DIM, base=LLAMA3_BASE)[-1]:,.0f}"


@cache
def _long_context_census() -> dict[str, list[str]]:
    """The gallery's rotary configs with a context of LONG_CONTEXT or more, by what they do:
    ``long`` all of them; ``raised`` a base above the paper's; ``remapped`` a rope_type
    other than ``default`` on some layer (a remapping rule: ``llama3``, ``yarn``, …);
    ``rules`` the rope_type of each remapped one."""
    found: dict[str, list[str]] = {"long": [], "raised": [], "remapped": [], "rules": []}
    for entry in load_models():
        blocks = (inspect_config(entry.reading)["layer_types"] or {}).values()
        contexts = [b["max_position_embeddings"] for b in blocks]
        if not blocks or None in contexts or max(contexts) < LONG_CONTEXT:
            continue
        found["long"].append(entry.stem)
        if max(b["rope_theta"] for b in blocks) > PAPER_BASE:
            found["raised"].append(entry.stem)
        rules = sorted({b["rope_type"] for b in blocks} - {"default"})
        if rules:
            found["remapped"].append(entry.stem)
            found["rules"] += rules
    return found


@value("long_context_configs")
def _():
    return str(len(_long_context_census()["long"]))


@value("long_context_raised")
def _():
    return str(len(_long_context_census()["raised"]))


@value("long_context_remapped")
def _():
    return str(len(_long_context_census()["remapped"]))


@value("long_context_remapped_raised")
def _():
    census = _long_context_census()
    return str(len(set(census["remapped"]) & set(census["raised"])))


@value("long_context_rules")
def _():
    rules = _long_context_census()["rules"]
    counts = sorted({r: rules.count(r) for r in rules}.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(f"`{rule}` {count}" for rule, count in counts)
