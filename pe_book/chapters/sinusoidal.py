"""Chapter 3, the sinusoidal encoding: its table, heatmap, waves and wavelengths."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pe_explained import sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths
from pe_explained.conventions import tensor2tensor_timing_signal

from .. import Table, figure, table, value
from ..interactive import heatmap_colours, interactive
from ..notation import DM
from ..style import new_figure

HEATMAP_POSITIONS, HEATMAP_D_MODEL = 100, 64
WAVE_DIMENSIONS = (0, 2, 8, 20)
#: The float32 example of "Computing it fast and exactly": positions 0 … 32,768, d_model = 512.
FLOAT32_POSITIONS, FLOAT32_D_MODEL = 32769, 512
QUOTED = ("FLOAT32_POSITIONS", "FLOAT32_D_MODEL")


@table("table_d8", caption="PE for d_model = 8, positions 0–9 (interleaved layout).")
def _():
    d_model, num_positions = 8, 10
    pe = sinusoidal(num_positions, d_model)
    # three short lines per header, none broken: the dimension, its function, its pair
    columns = ["pos"] + [
        f"dim\u00a0{j}<br>{'sin' if j % 2 == 0 else 'cos'}<br>$i = {j // 2}$"
        for j in range(d_model)
    ]
    return Table(columns, [[p, *row] for p, row in enumerate(pe.tolist())])


@table(
    "frequencies_d8",
    caption="The four pairs of the encoding for d_model = 8: their columns, frequency "
    "and wavelength.",
)
def _():
    d_model = 8
    omega = sinusoidal_frequencies(d_model)
    wavelength = sinusoidal_wavelengths(d_model)
    rows = [
        [i, 2 * i, 2 * i + 1, w, lam]
        for i, (w, lam) in enumerate(zip(omega, wavelength, strict=True))
    ]
    return Table(
        ["pair $i$", "sin column", "cos column", "ω_i (rad/position)", "wavelength 2π/ω_i"],
        rows,
        formats={"ω_i (rad/position)": "g", "wavelength 2π/ω_i": ",.2f"},
    )


@figure(
    "sinusoidal_heatmap",
    alt=f"Heatmap of the sinusoidal encoding for {HEATMAP_POSITIONS} positions and "
    f"{HEATMAP_D_MODEL} dimensions. "
    "Columns on the left (low dimension index) alternate rapidly between -1 and 1 down "
    "the positions; columns on the right change slowly and stay near 0 (sine) or 1 (cosine).",
    caption=f"$PE(pos, j)$ at {HEATMAP_POSITIONS} positions $pos$ and {HEATMAP_D_MODEL} "
    "dimensions $j$. "
    f"Low dimension indices oscillate fastest; high ones barely move over {HEATMAP_POSITIONS} "
    "positions.",
)
def _(theme):
    pe = sinusoidal(HEATMAP_POSITIONS, HEATMAP_D_MODEL)
    fig = new_figure(7.0, 4.2)
    ax = fig.add_subplot()
    image = ax.imshow(
        pe,
        aspect="auto",
        cmap=theme.diverging,
        vmin=-1,
        vmax=1,
        interpolation="nearest",
        origin="upper",
    )
    ax.set_xlabel("dimension index $j$ (fast on the left, slow on the right)")
    ax.set_ylabel("position pos")
    bar = fig.colorbar(image, ax=ax, shrink=0.9)
    bar.set_label("$PE(pos, j)$")
    return fig


@figure(
    "sinusoidal_waves",
    alt="Four stacked panels sharing one position axis, one per sine column of the encoding "
    f"(dimensions {', '.join(map(str, WAVE_DIMENSIONS))}; d_model = {HEATMAP_D_MODEL}), "
    "each with a dot at every integer position: dimension 0 completes a cycle every "
    f"{2 * np.pi:.1f} positions, dimension {WAVE_DIMENSIONS[-1]} less than one cycle in "
    f"{HEATMAP_POSITIONS}.",
    caption=f"Four sine columns of PE (${DM} = {HEATMAP_D_MODEL}$), one panel each. Dots are "
    r"the integer positions; the line only guides the eye. The wavelength $2\pi/\omega_i$ "
    "grows with $i$.",
)
def _(theme):
    curve = np.linspace(0, HEATMAP_POSITIONS, 201)  # a guide between the integer positions
    dots = np.arange(HEATMAP_POSITIONS + 1)
    pe_curve = sinusoidal(curve, HEATMAP_D_MODEL)
    pe_dots = sinusoidal(dots, HEATMAP_D_MODEL)
    wavelengths = sinusoidal_wavelengths(HEATMAP_D_MODEL)
    fig = new_figure(7.0, 5.0)
    axes = fig.subplots(len(WAVE_DIMENSIONS), 1, sharex=True, sharey=True)
    for ax, j, colour in zip(axes, WAVE_DIMENSIONS, theme.cycle, strict=False):
        ax.plot(curve, pe_curve[:, j], color=colour, linewidth=0.8, alpha=0.6)
        ax.plot(dots, pe_dots[:, j], "o", color=colour, markersize=2.2)
        ax.set_title(
            f"pair $i = {j // 2}$, wavelength "
            f"$\\lambda_{{{j // 2}}} = {wavelengths[j // 2]:.1f}$ positions",
            loc="left",
            fontsize=9,
        )
        ax.set_ylabel(f"$PE(pos, {j})$", fontsize=9)
        ax.set_ylim(-1.2, 1.2)
        ax.set_yticks([-1, 0, 1])
        ax.grid(True)
    axes[-1].set_xlim(-1, HEATMAP_POSITIONS + 1)
    axes[-1].set_xlabel("position pos")
    return fig


@figure(
    "sinusoidal_wavelength_ladder",
    alt="Log-scale plot of the wavelength of each sin/cos pair against the relative pair "
    "index 2i/d_model for d_model = 64 and 512: both lie on one straight rising line, from 2π "
    f"(about {2 * np.pi:.1f} positions) at 0 to just under 2π·10000 at the last pair.",
    caption=r"The wavelength of every pair on a log scale, from $2\pi$ at pair 0 (fastest) to "
    r"just under $2\pi \cdot \text{base}$ at the last pair (slowest), against the relative "
    f"index $2i/{DM}$.",
)
def _(theme):
    fig = new_figure(7.0, 3.4)
    ax = fig.add_subplot()
    for d_model in (512, 64):  # the 64 markers on top of the 512 line: they coincide
        lam = sinusoidal_wavelengths(d_model)
        i = np.arange(len(lam))
        ax.plot(
            2 * i / d_model,  # the relative pair index the axis names
            lam,
            marker="o" if d_model == 64 else None,
            markersize=3,
            label=f"${DM} = {d_model}$ ({len(lam)} pairs)",
        )
    ax.axhline(2 * np.pi * 10000, color=theme.muted, linestyle="--", linewidth=1)
    ax.text(
        1.0,
        2 * np.pi * 10000 * 1.3,
        f"limit $2\\pi \\cdot \\text{{base}}$ = {2 * np.pi * 10000:,.0f}",
        color=theme.text,
        fontsize=8.5,
        ha="right",
    )
    ax.set_yscale("log")
    ax.set_xlabel(
        r"relative pair index $2i/d_{\text{model}}$  "
        r"(0 = fastest pair; slowest at $1 - 2/d_{\text{model}}$)"
    )
    ax.set_ylabel(r"wavelength $2\pi/\omega_i$ (positions)")
    ax.set_ylim(top=2 * np.pi * 10000 * 3)
    ax.grid(True, which="major")
    ax.legend(loc="lower right")
    return fig


@interactive(
    "sinusoidal",
    title="Try it: the table and the dot product $PE(pos) \\cdot PE(pos + k)$ by offset, "
    "for any $d_{\\text{model}}$, base and number of positions.",
    replaces_figure=True,  # it opens on the heatmap's parameters: on screen it is the figure
)
def _():
    import inspect

    return {
        "d_model": HEATMAP_D_MODEL,
        "positions": HEATMAP_POSITIONS,
        "base": inspect.signature(sinusoidal).parameters["base"].default,
        "colormap": heatmap_colours("diverging"),
    }


@value("omega_0")
def _():
    return f"{sinusoidal_frequencies(512)[0]:g}"


@value("paper_base")
def _():
    import inspect

    return f"{inspect.signature(sinusoidal).parameters['base'].default:,.0f}"


@value("shortest_wavelength")
def _():
    return f"{sinusoidal_wavelengths(512)[0]:.2f}"


@value("longest_wavelength_512")
def _():
    return f"{sinusoidal_wavelengths(512)[-1]:,.0f}"


@value("longest_wavelength_64")
def _():
    return f"{sinusoidal_wavelengths(64)[-1]:,.0f}"


@value("two_pi_base")
def _():
    return f"{2 * np.pi * 10000:,.0f}"


@value("t2t_pair1_d8")
def _():
    # halves layout: column 1 is the sine of pair 1
    return f"{tensor2tensor_timing_signal(2, 8)[1, 1]:.4f}"


@value("paper_pair1_d8")
def _():
    return f"{sinusoidal(2, 8)[1, 2]:.4f}"  # interleaved: column 2 is the sine of pair 1


@lru_cache(maxsize=1)
def float32_sine_errors() -> tuple[float, float]:
    """Largest error of the sine columns in float32, against the float64 table: when the
    angle pos·ω_i is rounded to float32 before the sine (the usual code), and when the
    library computes in float64 and rounds once."""
    exact = sinusoidal(FLOAT32_POSITIONS, FLOAT32_D_MODEL)[:, 0::2]
    omega32 = sinusoidal_frequencies(FLOAT32_D_MODEL).astype(np.float32)
    angles32 = np.arange(FLOAT32_POSITIONS, dtype=np.float32)[:, None] * omega32
    usual = np.sin(angles32).astype(np.float64)
    ours = sinusoidal(FLOAT32_POSITIONS, FLOAT32_D_MODEL, dtype=np.float32)[:, 0::2]
    return float(np.abs(usual - exact).max()), float(np.abs(ours - exact).max())


@value("float32_angle_error", bound=("upper", ".2e"))  # the sines are off by *up to* it
def _():
    return float32_sine_errors()[0]


@value("float32_rounded_once_error", bound=("upper", ".1e"))  # off by *at most* it
def _():
    return float32_sine_errors()[1]


@value("float32_places_lost")
def _():
    usual, ours = float32_sine_errors()
    return f"{np.log10(usual / ours):.1f}"
