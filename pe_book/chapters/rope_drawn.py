"""Chapter 11, RoPE drawn: a query and a key turned in one pair's plane, and where
position enters with an added encoding and with RoPE, side by side (the page's "why")."""

from __future__ import annotations

import numpy as np

from pe_explained.rope import apply_rope, rope_frequencies

from .. import figure
from ..style import flow_column, new_figure, phone_layout_active

#: The plane figure: a head of PLANE_HEAD_DIM, q and k of lengths Q_LENGTH and K_LENGTH
#: pointing the same way at position 0, the query at PLANE_M and the key at PLANE_N, then
#: both moved on by PLANE_SHIFT; pair PLANE_PAIR in the first two panels, a fast and a
#: slow pair in the last two.
PLANE_HEAD_DIM, PLANE_M, PLANE_N, PLANE_SHIFT, PLANE_PAIR = 16, 7, 2, 10, 1
Q_LENGTH, K_LENGTH = 1.0, 0.8
FAST_PAIR, SLOW_PAIR = 0, 3
ARC_RADIUS = 0.4


def _frequencies() -> np.ndarray:
    inv_freq, _ = rope_frequencies(PLANE_HEAD_DIM)
    return inv_freq


def _start(pair: int) -> float:
    """The direction of q and k at position 0 in ``pair``'s plane, chosen so that the arc
    between q at PLANE_M and k at PLANE_N is centred on the vertical (a layout choice)."""
    return np.pi / 2 - (PLANE_M + PLANE_N) / 2 * float(_frequencies()[pair])


def _turned(length: float, position: float, pair: int) -> np.ndarray:
    """A vector of ``length`` in ``pair``'s plane, pointing along :func:`_start` at position
    0, turned to ``position`` by the library's RoPE: its two coordinates in that plane."""
    half = PLANE_HEAD_DIM // 2  # the default (split-half) layout: pair i is i, i + half
    x = np.zeros((1, PLANE_HEAD_DIM))
    x[0, [pair, pair + half]] = length * np.cos(_start(pair)), length * np.sin(_start(pair))
    out = apply_rope(x, [position], _frequencies())[0]
    return np.array([out[pair], out[pair + half]])


def _arrow(ax, end, colour, weight, style="-"):
    ax.annotate(
        "",
        xy=tuple(end),
        xytext=(0.0, 0.0),
        arrowprops={
            "arrowstyle": "-|>",
            "color": colour,
            "lw": weight,
            "linestyle": style,
            "shrinkA": 0,
            "shrinkB": 0,
            "mutation_scale": 9,
        },
    )


def _name_tips(ax, theme, q, k, q_name: str, k_name: str) -> None:
    """Each arrow's name beyond its tip, pushed to the side away from the other arrow."""
    side = np.sign(q[0] * k[1] - q[1] * k[0]) or 1.0  # k counter-clockwise of q: +1
    for end, text, away in ((q, q_name, -side), (k, k_name, side)):
        direction = end / np.hypot(*end)
        normal = np.array([-direction[1], direction[0]])
        x, y = (np.hypot(*end) + 0.2) * direction + 0.12 * away * normal
        ax.text(x, y, text, ha="center", va="center", fontsize=9, color=theme.text)


def _plane(ax, theme, shift: int, pair: int, title: str, first: bool) -> None:
    """One pair's plane: q and k at position 0 (muted), at the figure's positions plus
    ``shift`` (coloured; dashed where they stood before it), and the arc from k to q."""
    m, n = PLANE_M + shift, PLANE_N + shift
    _arrow(ax, _turned(Q_LENGTH, 0, pair), theme.muted, 1.0)
    if shift:  # where the two stood before the shift
        _arrow(ax, _turned(Q_LENGTH, PLANE_M, pair), theme.muted, 0.9, "--")
        _arrow(ax, _turned(K_LENGTH, PLANE_N, pair), theme.muted, 0.9, "--")
    q, k = _turned(Q_LENGTH, m, pair), _turned(K_LENGTH, n, pair)
    _arrow(ax, q, theme.cycle[0], 1.8)
    _arrow(ax, k, theme.cycle[1], 1.8)
    # the arc from k's direction to q's: (m − n)ω_i, counter-clockwise
    start = float(np.arctan2(k[1], k[0]))
    turn = float((m - n) * _frequencies()[pair])
    narrow = turn < 0.5  # drawn further out, to be seen, and named beside
    radius = 1.7 * ARC_RADIUS if narrow else ARC_RADIUS
    arc = start + turn * np.linspace(0.0, 1.0, 4 + int(8 * turn))  # 8 points a radian
    ax.plot(radius * np.cos(arc), radius * np.sin(arc), color=theme.text, lw=1.1)
    names = (r"$q_{m+\Delta}$", r"$k_{n+\Delta}$") if shift else ("$q_m$", "$k_n$")
    _name_tips(ax, theme, q, k, *names)
    if first:
        x, y = 0.55 * _turned(1.0, 0, pair)
        ax.text(x, y - 0.14, "at 0", ha="center", va="top", fontsize=8, color=theme.muted)
    label = {"fontsize": 9, "color": theme.text, "va": "center"}
    middle = start + turn / 2
    if narrow:  # too narrow to reach into: the name beside the arc
        end = radius * np.array([np.cos(start), np.sin(start)])
        ax.text(end[0] + 0.12, end[1], r"$(m - n)\,\omega_i$", ha="left", **label)
    else:  # the name out along the middle of the arc, where no arrow is
        towards = np.array([np.cos(middle), np.sin(middle)])
        ax.annotate(
            r"$(m - n)\,\omega_i$",
            xy=tuple(radius * towards),
            xytext=tuple(1.12 * towards),
            ha="center",
            arrowprops={"arrowstyle": "-", "color": theme.muted, "lw": 0.7, "shrinkB": 1},
            **label,
        )
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.4, 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(title, fontsize=9.5)


@figure(
    "rope_plane",
    alt=lambda: (
        f"Four drawings of one pair's plane. A query and a key point the same way at "
        f"position 0. In the first, pair {PLANE_PAIR} turns the query by m ω and the key by "
        f"n ω (m = {PLANE_M}, n = {PLANE_N}), and the arc between them is labelled (m − n) ω. "
        f"In the second, both positions move on by {PLANE_SHIFT}: both arrows turn, the arc "
        "between them keeps its size. The third and fourth show the same positions in a fast "
        "pair, where the arc is most of a full turn, and in a slow one, where the two barely "
        "part."
    ),
    caption=lambda: (
        f"$q$ at $m = {PLANE_M}$ and $k$ at $n = {PLANE_N}$ turn from one direction (grey); the "
        f"arc between them is $(m - n)\\,\\omega_i$. Moved by $\\Delta$ (dashed: before), "
        "both turn and the arc holds."
    ),
)
def _(theme):
    fig = new_figure(7.6, 2.3)
    axes = fig.subplots(1, 4)
    if phone_layout_active():
        fig.set_figheight(4.6)
    panels = [
        (0, PLANE_PAIR, f"pair $i = {PLANE_PAIR}$"),
        (PLANE_SHIFT, PLANE_PAIR, f"both moved by $\\Delta = {PLANE_SHIFT}$"),
        (0, FAST_PAIR, f"fast pair, $i = {FAST_PAIR}$"),
        (0, SLOW_PAIR, f"slow pair, $i = {SLOW_PAIR}$"),
    ]
    for index, (ax, (shift, pair, title)) in enumerate(zip(axes.ravel(), panels, strict=True)):
        _plane(ax, theme, shift, pair, title, first=index == 0)
    return fig


def _flow(ax, theme, title: str, steps) -> None:
    """Boxes from top to bottom joined by arrows, as chapter 8 draws a layer;
    ``steps`` = (label, is_position)."""
    n = len(steps)
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.7, n - 0.4)
    ax.invert_yaxis()
    ax.axis("off")
    flow_column(ax, theme, steps, 5.0, arrow=(0.3, 0.7))
    ax.set_title(title, fontsize=10)


@figure(
    "rope_flow_compared",
    alt="Two block diagrams side by side. Sinusoidal: position vectors are added to the "
    "token vectors once, at the input; W_q and W_k then project the sums, and the score of "
    "a query and a key splits into four terms, which depend on the two positions m and n, "
    "not only on m − n. RoPE: W_q and W_k project the token vectors; the query is rotated "
    "by m times the pair's frequency and the key by n times it, in every layer; the score "
    "is one term that depends on m − n only.",
    caption="Where position enters: added to the input (left), it reaches the score through "
    "$W_q$ and $W_k$ in four terms; rotated after them (right), the score sees $m - n$ "
    "alone.",
)
def _(theme):
    fig = new_figure(7.0, 3.0)
    left, right = fig.subplots(1, 2)
    _flow(
        left,
        theme,
        "sinusoidal: added once",
        [
            ("tokens $x_m$, $x_n$", False),
            ("+ positions $p_m$, $p_n$", True),
            ("$W_q$, $W_k$", False),
            ("score: four terms", False),
            ("depends on $m$ and $n$", True),
        ],
    )
    _flow(
        right,
        theme,
        "RoPE: rotated in every layer",
        [
            ("tokens $x_m$, $x_n$", False),
            ("$W_q$, $W_k$", False),
            (r"turn $q$ by $m\,\omega_i$, $k$ by $n\,\omega_i$", True),
            ("score: one term", False),
            ("depends on $m - n$ only", True),
        ],
    )
    return fig
