"""Chapter 13, T5's relative bias: exact buckets, then logarithmic ones, then saturation."""

from __future__ import annotations

import inspect

import numpy as np

from pe_explained.t5 import t5_relative_bucket

from .. import Table, figure, table, value
from ..style import new_figure

# T5's defaults, as the library's bucket function takes them (32 and 128)
_DEFAULTS = inspect.signature(t5_relative_bucket).parameters
NUM_BUCKETS, MAX_DISTANCE = (_DEFAULTS[k].default for k in ("num_buckets", "max_distance"))
QUOTED = ("NUM_BUCKETS", "MAX_DISTANCE")
SCAN = np.arange(0, 4 * MAX_DISTANCE + 1)  # distances, keys at or before the query


def _bucket_of_distance(bidirectional: bool) -> np.ndarray:
    """Bucket of a key ``d`` positions before the query, for d in SCAN."""
    return t5_relative_bucket(
        -SCAN, bidirectional=bidirectional, num_buckets=NUM_BUCKETS, max_distance=MAX_DISTANCE
    )


def _first_distance_of_last_bucket(bidirectional: bool) -> int:
    buckets = _bucket_of_distance(bidirectional)
    return int(SCAN[np.argmax(buckets == buckets.max())])


def _ranges(bidirectional: bool) -> dict[int, str]:
    buckets = _bucket_of_distance(bidirectional)
    out = {}
    for b in np.unique(buckets):
        d = SCAN[buckets == b]
        if b == buckets.max():
            out[int(b)] = f"{d[0]} and more"
        else:
            out[int(b)] = f"{d[0]}" if d[0] == d[-1] else f"{d[0]}–{d[-1]}"
    return out


@table(
    "bucket_ranges",
    caption=f"Which distances share a bucket (T5 defaults: {NUM_BUCKETS} buckets, "
    f"<code>max_distance</code> = {MAX_DISTANCE}), for keys at or before the query.",
)
def _():
    bidirectional, causal = _ranges(True), _ranges(False)
    rows = []
    for b in range(NUM_BUCKETS):
        if b in bidirectional or b in causal:
            rows.append([b, bidirectional.get(b, "—"), causal.get(b, "—")])
    return Table(
        [
            "bucket",
            "distance $i - j$, bidirectional (encoder)",
            "distance $i - j$, causal (decoder)",
        ],
        rows,
    )


@value("saturation_bidirectional")
def _():
    return str(_first_distance_of_last_bucket(True))


@value("saturation_causal")
def _():
    return str(_first_distance_of_last_bucket(False))


@value("widest_bidirectional_bucket")
def _():
    buckets = _bucket_of_distance(True)
    sizes = [int(np.sum(buckets == b)) for b in np.unique(buckets)[:-1]]
    return str(max(sizes))


@figure(
    "t5_buckets",
    alt=lambda: (
        "Step plot of T5's bucket index against the relative position key minus query, "
        f"from −{2 * MAX_DISTANCE} to {2 * MAX_DISTANCE}. Bidirectional: buckets 0 to "
        f"{NUM_BUCKETS // 2 - 1} for keys before the query and {NUM_BUCKETS // 2} to "
        f"{NUM_BUCKETS - 1} after it, one bucket per position near zero, then "
        f"ever wider steps, flat beyond ±{_first_distance_of_last_bucket(True)}. Causal: "
        f"buckets 0 to {NUM_BUCKETS - 1} for keys before the query, all keys after it in "
        "bucket 0."
    ),
    caption=f"T5's bucket of every relative position ({NUM_BUCKETS} buckets, "
    f"<code>max_distance</code> = {MAX_DISTANCE}).",
)
def _(theme):
    rel = np.arange(-2 * MAX_DISTANCE, 2 * MAX_DISTANCE + 1)
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    sizes = {"num_buckets": NUM_BUCKETS, "max_distance": MAX_DISTANCE}
    ax.step(rel, t5_relative_bucket(rel, **sizes), where="mid", label="bidirectional (encoder)")
    ax.step(
        rel,
        t5_relative_bucket(rel, bidirectional=False, **sizes),
        where="mid",
        label="causal (decoder)",
        linestyle="--",
    )
    for x in (-MAX_DISTANCE, MAX_DISTANCE):
        ax.axvline(x, color=theme.muted, linestyle=":", linewidth=1.4)
    ax.set_xlabel("relative position $j - i$ (key − query, in positions)")
    ax.set_ylabel("bucket index")
    ax.grid(True)
    fig.legend(loc="outside upper center", ncols=2)  # every part of the plot holds data
    return fig
