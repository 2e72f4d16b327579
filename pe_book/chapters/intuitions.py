"""Chapter 6, intuitions: clock hands, tuning forks, an odometer, GPS — drawn literally."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pe_explained import sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths
from pe_explained.naive import binary_encoding, closest_position, neighbour_distances
from pe_explained.properties import (
    distance_by_offset,
    nearest_return,
    ramp_pair_count,
    slow_pair_count,
)

from .. import Table, figure, table, value
from ..style import new_figure

CLOCK_D_MODEL, CLOCK_POSITIONS = 8, 7  # four clocks, hands for positions 0 … 6
COUNTER_LEN, COUNTER_BITS, COUNTER_D_MODEL = 64, 4, 16
GPS_WIDTHS, GPS_RANGE = (2, 4, 8, 16, 32, 64), 50_000
FORK_D_MODEL, FORK_CONTEXT = 512, 512
FORK_PAIRS = FORK_D_MODEL // 2
ROTARY_HEAD_DIMS, ROTARY_RANGE = (8, 32, 64, 128), 2_000_000  # per-head widths, base 10000
#: The constants the page quotes, as {{ value: intuitions.NAME }}.
QUOTED = ("FORK_D_MODEL", "FORK_CONTEXT", "FORK_PAIRS", "ROTARY_RANGE")


@figure(
    "intuitions_clock_hands",
    alt=f"Four clock faces, one per sin/cos pair of a d_model = {CLOCK_D_MODEL} encoding. "
    f"Each shows the hand (x = sine, y = cosine) for positions 0 to {CLOCK_POSITIONS - 1}, "
    "starting at 12 o'clock and turning clockwise. On the first clock the hand turns one "
    "radian per position and the seven hands fan out around the face; on the second they "
    "span a narrow wedge; on the third and fourth they overlap at 12 o'clock.",
    caption=r"Each pair $(\sin\theta, \cos\theta)$ of PE "
    f"(d_model = {CLOCK_D_MODEL}) as a clock hand, for positions 0–{CLOCK_POSITIONS - 1} "
    r"(darker = earlier). Angle $\theta = pos\,\omega_i$, clockwise from 12 o'clock.",
)
def _(theme):
    pe = sinusoidal(CLOCK_POSITIONS, CLOCK_D_MODEL)
    omega = sinusoidal_frequencies(CLOCK_D_MODEL)
    wavelength = sinusoidal_wavelengths(CLOCK_D_MODEL)
    colours = theme.line_colours(CLOCK_POSITIONS)
    fig = new_figure(7.0, 2.7)  # room for three-line titles
    axes = fig.subplots(1, len(omega))
    circle = np.linspace(0, 2 * np.pi, 181)
    for i, ax in enumerate(axes):
        ax.plot(np.sin(circle), np.cos(circle), color=theme.muted, linewidth=1)
        for pos in range(CLOCK_POSITIONS):
            x, y = pe[pos, 2 * i], pe[pos, 2 * i + 1]  # x = sin θ, y = cos θ
            ax.plot([0, x], [0, y], color=colours[pos], linewidth=2)
            if i == 0:
                ax.text(
                    1.22 * x,
                    1.22 * y,
                    str(pos),
                    ha="center",
                    va="center",
                    color=theme.text,
                    fontsize=8,
                )
        ax.set_title(
            f"pair $i = {i}$\n$\\omega_{i} = {omega[i]:g}$ rad/pos\n"
            f"$\\lambda_{i}$ = {wavelength[i]:,.{0 if wavelength[i] >= 100 else 2}f} pos",
            fontsize=8.5,
        )
        ax.set_xlim(-1.4, 1.4)
        ax.set_ylim(-1.4, 1.4)
        ax.set_aspect("equal")
        ax.axis("off")
    return fig


def _speed_ratio(d_model: int) -> float:
    """How many times faster each pair turns than the next: ω_0 / ω_1 = base^(2/d_model)."""
    omega = sinusoidal_frequencies(d_model)
    return float(omega[0] / omega[1])


@figure(
    "intuitions_counter",
    alt=f"Two stacked panels over positions 0 to {COUNTER_LEN - 1}. Top: bits 0 to "
    f"{COUNTER_BITS - 1} of a binary counter as square waves that jump between 0 and 1, bit 0 "
    "every position, each next bit half as often. Bottom: the sine columns of pairs 0 to "
    f"{COUNTER_BITS - 1} of a d_model = {COUNTER_D_MODEL} sinusoidal encoding as smooth waves, "
    "each slower than the one before.",
    caption=lambda: (
        f"An odometer (binary counter, top) next to the sinusoidal encoding "
        f"(d_model = {COUNTER_D_MODEL}, bottom). Their speeds fall by a factor of 2 per bit "
        f"and of {_speed_ratio(COUNTER_D_MODEL):.2f} per pair."
    ),
)
def _(theme):
    fig = new_figure(7.0, 4.6)
    top, bottom = fig.subplots(2, 1, sharex=True)
    bits = binary_encoding(COUNTER_LEN, int(np.log2(COUNTER_LEN)))
    fine = np.linspace(0, COUNTER_LEN - 1, 505)
    pe = sinusoidal(fine, COUNTER_D_MODEL)
    for b, colour in zip(range(COUNTER_BITS), theme.cycle, strict=False):
        offset = 1.6 * b
        top.step(
            np.arange(COUNTER_LEN), bits[:, b] + offset, where="post", color=colour, linewidth=1.4
        )
        bottom.plot(fine, pe[:, 2 * b] + 2.4 * b, color=colour, linewidth=1.4)
    top.set_yticks(
        [1.6 * b + 0.5 for b in range(COUNTER_BITS)], [f"bit {b}" for b in range(COUNTER_BITS)]
    )
    bottom.set_yticks(
        [2.4 * b for b in range(COUNTER_BITS)], [f"sin, pair {b}" for b in range(COUNTER_BITS)]
    )
    top.set_title("binary counter: digits 0/1, each bit half as fast as the one before")
    bottom.set_title("sinusoidal encoding: smooth values in [−1, 1]")
    bottom.set_xlabel("position pos")
    for ax in (top, bottom):
        ax.grid(True, axis="x")
    return fig


@lru_cache(maxsize=1)
def _gps_rows():
    rows = []
    for d_model in GPS_WIDTHS:
        pe = sinusoidal(GPS_RANGE, d_model)
        step = float(neighbour_distances(pe[:2])[0])
        far, distance = closest_position(pe, 0, min_offset=2)
        rows.append([d_model, step, far, distance, "yes" if distance < step else "no"])
    return rows


@table(
    "near_returns",
    caption=f"For positions 0–{GPS_RANGE - 1:,}: the distance from position 0 to its "
    "neighbour, and the position (at least 2 away) whose row comes closest to row 0. By "
    "shift invariance the same holds around every position.",
)
def _():
    return Table(
        [
            "width d_model",
            "step ‖PE(1) − PE(0)‖",
            "closest position ≥ 2 away",
            "its distance",
            "closer than the neighbour?",
        ],
        _gps_rows(),
        formats={
            "width d_model": "d",
            "closest position ≥ 2 away": ",d",
            "step ‖PE(1) − PE(0)‖": ".4f",
            "its distance": ".4f",
        },
    )


def _gps_row(d_model: int) -> list:
    return next(row for row in _gps_rows() if row[0] == d_model)


@value("clock_return_position")
def _():
    return f"{closest_position(sinusoidal(1000, 2), 0)[0]:,}"


def clock_return_gap() -> float:
    """How near 12 o'clock a single hand comes back, within the first 1,000 positions."""
    return float(closest_position(sinusoidal(1000, 2), 0)[1])


@value("clock_return_gap", bound=("upper", ".1e"))  # the hand is back *within* it
def _():
    return clock_return_gap()


@value("speed_ratio_d8")
def _():
    return f"{_speed_ratio(8):g}"


@value("speed_ratio_d512")
def _():
    return f"{_speed_ratio(512):.4f}"


@value("counter_speed_ratio_d16")
def _():
    return f"{_speed_ratio(COUNTER_D_MODEL):.2f}"


@value("clock_d8_return_position")
def _():
    return f"{_gps_row(8)[2]:,}"


@value("clock_d8_return_distance")
def _():
    return f"{_gps_row(8)[3]:.3f}"


@value("clock_d8_neighbour_distance")
def _():
    return f"{_gps_row(8)[1]:.3f}"


@value("forks_unfinished_512")
def _():
    return str(slow_pair_count(FORK_CONTEXT, FORK_D_MODEL))


@value("slowest_fork_value_512")
def _():
    return f"{sinusoidal([FORK_CONTEXT - 1], FORK_D_MODEL)[0, -2]:.3f}"


@value("ramps_512")
def _():
    return str(ramp_pair_count(FORK_CONTEXT, FORK_D_MODEL))


@value("slow_not_ramps_512")
def _():
    slow = slow_pair_count(FORK_CONTEXT, FORK_D_MODEL)
    return str(slow - ramp_pair_count(FORK_CONTEXT, FORK_D_MODEL))


def _counter_steps() -> dict[str, np.ndarray]:
    """Step lengths between consecutive integer positions 0 … COUNTER_LEN − 1."""
    pe = sinusoidal(COUNTER_LEN, COUNTER_D_MODEL)
    return {
        "pair 0 sine": neighbour_distances(pe[:, :1]),
        "rows": neighbour_distances(pe),
        "counter": neighbour_distances(binary_encoding(COUNTER_LEN, int(np.log2(COUNTER_LEN)))),
    }


def pair0_largest_step() -> float:
    """The largest step of pair 0's sine from one integer position to the next."""
    return float(_counter_steps()["pair 0 sine"].max())


@value("pair0_largest_step", bound=("upper", ".2f"))  # the sine moves by *up to* it
def _():
    return pair0_largest_step()


@value("row_step_d16")
def _():
    return f"{float(_counter_steps()['rows'].max()):.4f}"


@value("counter_step_range")
def _():
    steps = _counter_steps()["counter"]
    return f"{float(steps.min()):g} to {float(steps.max()):.2f}"


@lru_cache(maxsize=1)
def _rotary_rows():
    rows = []
    for head_dim in ROTARY_HEAD_DIMS:
        step = distance_by_offset(1, head_dim)
        far, distance = nearest_return(ROTARY_RANGE, head_dim)
        rows.append([head_dim, step, far, distance, "yes" if distance < step else "no"])
    return rows


@table(
    "rotary_returns",
    caption=lambda: (
        f"The sinusoidal ladder (base 10,000) at the widths of attention heads, "
        f"offsets 2 to {ROTARY_RANGE:,}: the offset whose encoding comes closest to the start, "
        "against the neighbour's distance."
    ),
)
def _():
    return Table(
        [
            "head width head_dim",
            "step ‖PE(1) − PE(0)‖",
            "closest offset ≥\u00a02",
            "its distance",
            "closer than the neighbour?",
        ],
        _rotary_rows(),
        formats={
            "head width head_dim": "d",
            "closest offset ≥\u00a02": ",d",
            "step ‖PE(1) − PE(0)‖": ".4f",
            "its distance": ".4f",
        },
    )
