"""Chapter 20, positions in low precision: colliding positions and drifting rotary angles."""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from pe_explained.precision import (
    first_colliding_position,
    rope_angle_error,
    rope_score_error,
    stored_positions,
)

from .. import Table, figure, table, value
from ..interactive import interactive
from ..style import new_figure
from ..text import format_bound, format_cell

HEAD_DIM, BASE = 128, 10000.0
#: The lengths the angle-error table reports, and how many positions end at each.
LENGTHS, WINDOW = (1_000, 10_000, 100_000, 1_000_000), 64
#: Positions at which the collision table reports the spacing of stored numbers.
SPACING_AT = (4_096, 32_768, 131_072)
DTYPES = {
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype(np.float32),
}
FRACTION_BITS = {"float16": 10, "bfloat16": 7, "float32": 23}  # IEEE 754; bfloat16: 7
#: The score-error table: random query/key pairs (standard normal entries), the
#: distances m − n it takes the largest error over, and the seed of the pairs.
SCORE_PAIRS, SCORE_DISTANCES, SCORE_SEED = 16, (0, 16, 512), 0
QUOTED = ("HEAD_DIM", "BASE", "WINDOW", "SCORE_PAIRS")


def _spacing(dtype, position: int) -> int:
    """Gap between the number ``dtype`` stores ``position`` as and the next one it can store.

    Found by storing ``s + δ`` for δ = 1, 2, 4, …: ``s + δ`` rounds to ``s`` until δ
    reaches half the gap, and to the next stored number from then on.
    """
    (stored,) = stored_positions([position], dtype)
    delta = 1
    while True:
        (above,) = stored_positions(np.array([stored + delta]), dtype)
        if not np.isfinite(above):
            raise ValueError(f"{dtype} stores nothing above {stored:g}")
        if above > stored:
            return int(above - stored)
        delta *= 2


def _spacing_cell(dtype, position: int):
    """The spacing at ``position``, or why there is none (past the format's largest number)."""
    (stored,) = stored_positions([position], dtype) if position < 2**128 else (np.inf,)
    if not np.isfinite(stored):
        return (
            f"none (above {float(np.finfo(np.float16).max):,.0f})"
            if dtype == np.float16
            else "none"
        )
    return _spacing(dtype, position)


def _window(length: int) -> np.ndarray:
    return np.arange(length - WINDOW, length)


def _sci(x: float) -> str:
    """``5.7×10⁻⁵``: two significant digits, as the tables print them."""
    return format_cell(float(x), ".1e")


def _model_route(name: str) -> str:
    """The route of a model cast with ``.to(dtype)``: its inv_freq buffer is cast too, the
    angles are the float32 recipe's, and cos and sin are stored in the model's format."""
    if name == "float32":
        return "float32 recipe"
    return f"float32 recipe from a {name} inv_freq, stored as {name}"


#: The route of a model cast with ``.to(torch.bfloat16)``: its inv_freq buffer is bfloat16.
BF16_BUFFER = _model_route("bfloat16")


def _format_colour(theme, name: str) -> str:
    """Each format's line colour, the same in every figure of the chapter and its widget."""
    return theme.cycle[list(DTYPES).index(name)]


@cache
def _angle_errors() -> dict[str, list[float]]:
    """Largest cos/sin error over the WINDOW positions ending at each length, per route."""
    bf16 = ml_dtypes.bfloat16
    routes = {
        "float32 recipe": {"angles": "float32"},
        "float64 angles, rounded once": {"angles": "float64"},
        "float32 recipe, stored as bfloat16": {"angles": "float32", "output_dtype": bf16},
        BF16_BUFFER: {"angles": "float32", "output_dtype": bf16, "inv_freq_dtype": bf16},
    }
    return {
        route: [
            float(rope_angle_error(_window(n), HEAD_DIM, base=BASE, **kw).max()) for n in LENGTHS
        ]
        for route, kw in routes.items()
    }


@table(
    "collisions",
    caption="Where integer positions stop being distinct numbers in each float format.",
)
def _():
    rows = []
    for name, dtype in DTYPES.items():
        rows.append(
            [
                name,
                FRACTION_BITS[name],
                first_colliding_position(dtype),
                *(_spacing_cell(dtype, p) for p in SPACING_AT),
            ]
        )
    return Table(
        [
            "format",
            "fraction bits",
            "first position stored like its successor",
            *(f"spacing at {p:,}" for p in SPACING_AT),
        ],
        rows,
        formats={
            "first position stored like its successor": ",d",
            **{f"spacing at {p:,}": ",d" for p in SPACING_AT},
        },
    )


@value("bf16_first_collision")
def _():
    return f"{first_colliding_position(ml_dtypes.bfloat16):,}"


@value("fp16_first_collision")
def _():
    return f"{first_colliding_position(np.float16):,}"


@value("fp32_first_collision")
def _():
    return f"{first_colliding_position(np.float32):,}"


@value("bf16_last_distinct")
def _():
    """The last position bfloat16 stores apart from its successor, found by storing them all."""
    first = first_colliding_position(ml_dtypes.bfloat16)
    stored = stored_positions(np.arange(first + 2), ml_dtypes.bfloat16)
    (same_as_next,) = np.nonzero(stored[:-1] == stored[1:])
    return f"{int(same_as_next[0]) - 1:,}"


@value("bf16_spacing_32k")
def _():
    return f"{_spacing(ml_dtypes.bfloat16, 32_768):,}"


@figure(
    "precision_position_spacing",
    alt=lambda: (
        "Log-log step plot of the gap between consecutive numbers a format can store against "
        "position, from 1 to about 33 million, for bfloat16, float16 and float32. Each line "
        "stays at a gap of 1 (every position distinct) until its first collision, "
        f"{first_colliding_position(ml_dtypes.bfloat16):,} for bfloat16, "
        f"{first_colliding_position(np.float16):,} for float16 and "
        f"{first_colliding_position(np.float32):,} for float32, then doubles at every power "
        "of two. float16 ends at 65,504, its largest number."
    ),
    caption=lambda: (
        "The gap between consecutive positions a format can store, for IEEE 754 formats and "
        "bfloat16 (computed by storing every position and reading it back)."
    ),
)
def _(theme):
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    styles = {"bfloat16": "-", "float16": "--", "float32": ":"}
    for name, dtype in DTYPES.items():
        colour = _format_colour(theme, name)
        top = 32_768 if name == "float16" else 2**25  # float16's largest number is 65,504
        marks = np.unique(np.round(np.geomspace(1, top, 400)).astype(np.int64))
        gaps = [_spacing(dtype, int(p)) for p in marks]
        ax.step(marks, gaps, where="post", label=name, color=colour, linestyle=styles[name])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_yticks([2.0**k for k in range(0, 19, 3)])  # from 2^0: a gap of 1, every position
    ax.set_xlabel("position (log scale)")
    ax.set_ylabel("gap to the next stored number\n(log scale)")
    ax.legend(loc="upper left", frameon=False)
    return fig


@table(
    "angle_errors",
    caption="Largest error of RoPE's cos and sin over the positions just below each length.",
)
def _():
    errors = _angle_errors()
    return Table(
        ["route", *(f"≤ {n:,}" for n in LENGTHS)],
        [[route, *values] for route, values in errors.items()],
        default_format=".1e",
    )


@value("f32_error_1e3")
def _():
    return _sci(_angle_errors()["float32 recipe"][0])


@value("f32_error_1e5")
def _():
    return _sci(_angle_errors()["float32 recipe"][2])


@value("f32_error_1e6")
def _():
    return _sci(_angle_errors()["float32 recipe"][3])


@value("f64_error_max", bound=("upper", ".1e"))  # "off by at most"
def _():
    return max(_angle_errors()["float64 angles, rounded once"])


@value("bf16_buffer_error_1e3")
def _():
    return format_cell(_angle_errors()[BF16_BUFFER][0], ".2f")


@value("bf16_buffer_error_max")
def _():
    return format_cell(max(_angle_errors()[BF16_BUFFER]), ".2f")


@value("bf16_crossover")
def _():
    """First length (on a grid of powers of two) where the float32 drift exceeds bfloat16's
    own rounding of cos and sin."""
    half_ulp_bf16 = 2.0**-9
    for k in range(8, 25):
        n = 2**k
        if rope_angle_error(_window(n), HEAD_DIM, base=BASE).max() > half_ulp_bf16:
            return f"{n:,}"
    raise ValueError("the float32 drift never exceeds bfloat16's rounding below 2**24")


@figure(
    "precision_angle_error",
    alt=lambda: (
        f"Log-log plot of the largest error of cos and sin against position, head_dim "
        f"{HEAD_DIM}, base {BASE:,.0f}, positions from 1 to one million. The float32 recipe's "
        "error rises in proportion to the position, from about 1e-7 near position 1 to about "
        "5e-2 at a million. Angles computed in float64 and rounded once stay flat near 3e-8 at "
        "every position. The float32 recipe stored as bfloat16 stays flat near 2e-3 until the "
        "float32 drift passes it, then follows the float32 line."
    ),
    caption=lambda: (
        f"Error of RoPE's cos and sin against the float64 formula (head_dim = {HEAD_DIM}, "
        f"base {BASE:,.0f}; the largest over the pairs and over {WINDOW} positions up to "
        "each point)."
    ),
)
def _(theme):
    ends = np.unique(np.round(np.geomspace(WINDOW, 1_000_000, 60)).astype(np.int64))
    # each route in the colour of the format its cos and sin end in (float64: a fourth)
    routes = [
        ("float32 recipe", {"angles": "float32"}, "-", _format_colour(theme, "float32")),
        ("float64 angles, rounded once", {"angles": "float64"}, "--", theme.cycle[len(DTYPES)]),
        (
            "float32 recipe, stored as bfloat16",
            {"angles": "float32", "output_dtype": ml_dtypes.bfloat16},
            ":",
            _format_colour(theme, "bfloat16"),
        ),
    ]
    fig = new_figure(7.0, 3.6)
    ax = fig.add_subplot()
    for label, kw, style, colour in routes:
        err = [rope_angle_error(_window(int(n)), HEAD_DIM, base=BASE, **kw).max() for n in ends]
        # the dotted route runs on the solid one at large positions: wider, it shows
        width = 2.6 if style == ":" else 1.8
        ax.plot(ends, err, label=label, linestyle=style, color=colour, linewidth=width)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("position (log scale)")
    ax.set_ylabel("largest |error| of cos, sin")
    # in the empty lower right: above the float64 line, under the float32 curves
    ax.legend(loc="lower right", bbox_to_anchor=(1, 0.1), frameon=False)
    return fig


@interactive(
    "rope_precision",
    title="Try it: the error of RoPE's cos and sin against the position, pair by pair, in a "
    "float16, bfloat16 or float32 model.",
    script="interactive-precision",
)
def _():
    # the figure's points, and the lengths of the table (each the end of WINDOW positions)
    ends = np.round(np.geomspace(WINDOW, LENGTHS[-1], 60))
    ends = np.unique(np.concatenate([ends, LENGTHS]).astype(np.int64))
    return {
        "head_dim": HEAD_DIM,
        "base": BASE,
        "window": WINDOW,
        "lengths": list(LENGTHS),
        "ends": ends.tolist(),
        "dtype": "float32",
        "formats": [
            {
                "name": name,
                "colour": list(DTYPES).index(name) + 1,  # theme.cycle, as _format_colour
                "fraction_bits": FRACTION_BITS[name],
                "route": _model_route(name),
            }
            for name in DTYPES
        ],
    }


#: The score-error table's routes: how the phasors are computed, and what the rotated
#: query and key are stored in (the key in a KV cache).
SCORE_ROUTES = {
    "float64 angles; q, k in float32": ("float64", "float32", "float32"),
    "float64 angles; q, k in bfloat16": ("float64", "bfloat16", "bfloat16"),
    "float64 angles; q in bfloat16, k in FP8 E4M3": ("float64", "bfloat16", "float8_e4m3fn"),
    "float32 recipe; q, k in float32": ("float32", "float32", "float32"),
    "float32 recipe; q, k in bfloat16": ("float32", "bfloat16", "bfloat16"),
}
STORAGE = {
    "float32": np.dtype(np.float32),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float8_e4m3fn": np.dtype(ml_dtypes.float8_e4m3fn),
}


@cache
def _score_pairs() -> tuple[np.ndarray, np.ndarray]:
    q, k = np.random.default_rng(SCORE_SEED).normal(size=(2, SCORE_PAIRS, HEAD_DIM))
    return q, k


@cache
def _score_errors() -> dict[str, list[float]]:
    """Largest score error (units of ‖q‖‖k‖) over the WINDOW positions ending at each length,
    the SCORE_PAIRS pairs and SCORE_DISTANCES, per route."""
    q, k = _score_pairs()
    table = {}
    for route, (angles, query, key) in SCORE_ROUTES.items():
        table[route] = [
            max(
                float(
                    rope_score_error(
                        q,
                        k,
                        _window(n),
                        distance,
                        base=BASE,
                        angles=angles,
                        query_dtype=STORAGE[query],
                        key_dtype=STORAGE[key],
                    ).max()
                )
                for distance in SCORE_DISTANCES
            )
            for n in LENGTHS
        ]
    return table


@table(
    "score_errors",
    caption="Largest error of the score of a rotated query and key, in units of "
    "‖q‖ ‖k‖, over the positions just below each length (<code>rope_score_error</code>).",
)
def _():
    return Table(
        ["route", *(f"≤ {n:,}" for n in LENGTHS)],
        [[route, *values] for route, values in _score_errors().items()],
        default_format=".1e",
    )


def _score_range(route: str) -> str:
    """The smallest and the largest error of a route, rounded outward (down, up)."""
    values = _score_errors()[route]
    low = format_bound(min(values), ".1e", side="lower")
    return f"{low} to {format_bound(max(values), '.1e', side='upper')}"


@value("score_bf16_range")
def _():
    return _score_range("float64 angles; q, k in bfloat16")


@value("score_fp8_range")
def _():
    return _score_range("float64 angles; q in bfloat16, k in FP8 E4M3")


@value("score_f32_max", bound=("upper", ".1e"))  # "off by at most"
def _():
    return max(_score_errors()["float64 angles; q, k in float32"])


@value("score_distances")
def _():
    *rest, last = (f"{d:,}" for d in SCORE_DISTANCES)
    return f"{', '.join(rest)} and {last}"
