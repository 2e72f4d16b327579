"""Chapter 23: StreamingLLM's sinks and window, numbered within the cache or by the stream
(the distances figure)."""

from __future__ import annotations

import numpy as np

from pe_explained import streaming_distances, streaming_positions

from ... import figure, value
from ...style import new_figure
from .common import (
    LLAMA2,
    LLAMA2_CONTEXT,
    LONGEST,
    N_SINK,
    REFERENCE_RECENT,
    REFERENCE_START,
    STREAM,
    WINDOW,
    _gallery,
)

# ---------------------------------------------------------------------------
# StreamingLLM
# ---------------------------------------------------------------------------


@value("largest_cache_distance")
def _():
    return f"{int(streaming_distances(STREAM, N_SINK, WINDOW).max()):,}"


@value("largest_original_distance")
def _():
    return f"{int(streaming_distances(STREAM, N_SINK, WINDOW, mode='original').max()):,}"


@value("reference_largest")
def _():
    """The largest distance of the reference code's defaults: the cache holds start_size +
    recent_size tokens before the current one joins, so window = recent_size + 1."""
    distances = streaming_distances(10_000, REFERENCE_START, REFERENCE_RECENT + 1)
    return f"{int(distances.max()):,}"


@value("llama2_context")
def _():
    return f"{_gallery(LLAMA2)['max_position_embeddings']:,}"


@value("stream_kept")
def _():
    kept, _ = streaming_positions(STREAM, N_SINK, WINDOW)
    return f"{int(kept[N_SINK]):,}"


_SCHEMES = (("cache", "within the cache", "-"), ("original", "the stream's positions", "--"))


@figure(
    "streaming_distances",
    alt=lambda: (
        f"Two panels for StreamingLLM with {N_SINK} sinks and a window of {WINDOW:,}. Left: "
        f"after {STREAM:,} tokens, the distance from the current token to each other kept "
        f"key, by its slot in the cache, on a log scale. Numbered within the cache it falls "
        f"from {N_SINK + WINDOW - 1:,} at the first sink to 1; numbered by the stream the "
        f"{N_SINK} sinks sit {STREAM - N_SINK:,} to {STREAM - 1:,} back and the window "
        f"from {WINDOW - 1:,} to 1. Right: the largest distance against the number of "
        f"tokens read, up to {LONGEST:,}, log-log: flat at {N_SINK + WINDOW - 1:,} within "
        f"the cache; one less than the tokens read with the stream's positions, passing "
        f"Llama 2's {LLAMA2_CONTEXT:,} after {LLAMA2_CONTEXT:,} tokens."
    ),
    caption=lambda: (
        f"StreamingLLM's cache of {N_SINK} sinks and {WINDOW:,} recent tokens: the "
        "distances the current token's query sees under the two ways of numbering the "
        "kept keys (<code>streaming_distances</code>)."
    ),
)
def _(theme):
    fig = new_figure(7.0, 3.4)
    left, right = fig.subplots(1, 2)
    slots = np.arange(N_SINK + WINDOW - 1)  # every kept key but the current token's own
    totals = np.unique(np.round(np.geomspace(N_SINK + WINDOW, LONGEST, 40)).astype(np.int64))
    for (mode, label, style), colour in zip(_SCHEMES, theme.cycle, strict=False):
        row = streaming_distances(STREAM, N_SINK, WINDOW, mode=mode)[-1, :-1]
        width = 3.0 if mode == "cache" else 1.8  # the window's distances agree: both show
        left.plot(slots, row, linestyle=style, color=colour, label=label, linewidth=width)
        largest = [streaming_distances(int(t), N_SINK, WINDOW, mode=mode).max() for t in totals]
        right.plot(totals, largest, linestyle=style, color=colour, label=label)
    left.annotate(
        f"the {N_SINK} sinks",
        xy=(N_SINK, STREAM - N_SINK),
        xytext=(N_SINK + 150, STREAM / 4),
        color=theme.text,
        arrowprops={"arrowstyle": "->", "color": theme.text},
    )
    left.set_yscale("log")
    left.set_xlabel("slot in the cache")
    left.set_ylabel(f"distance after {STREAM:,} tokens\n(log scale)")
    left.legend(loc="lower left", frameon=False)
    right.axhline(LLAMA2_CONTEXT, color=theme.muted, linewidth=1.0)
    right.text(
        totals[-1],
        LLAMA2_CONTEXT * 1.3,
        f"Llama 2's {LLAMA2_CONTEXT:,}",
        color=theme.text,
        ha="right",
        va="bottom",
    )
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("tokens read (log scale)")
    right.set_ylabel("largest distance (log scale)")
    return fig
