"""Chapter 27, testing a port: RoPE's invariants run against the library and broken ports."""

from __future__ import annotations

from functools import cache

from pe_explained.port_checks import (
    CHECKS,
    NEAR,
    PORT_VARIANTS,
    SCALED_OUTPUT,
    check_rope_port,
    example_rope_port,
)

from .. import Table, table, value
from ..text import format_cell

#: The running example: a Llama-2-sized head, split-half pairs, the checker's defaults.
HEAD_DIM, BASE, LAYOUT, FAR = 128, 10000.0, "halves", 100_000
QUOTED = ("HEAD_DIM", "BASE", "FAR")
#: How the tables name each port.
LABELS = {
    "library": "library (apply_rope)",
    "float32 recipe": "float32 recipe",
    "wrong layout": "wrong layout",
    "exponent i/d": "exponent i/d",
    "float16 angles": "float16 angles",
    "negated angle": "negated angle",
    "offset by one": "offset by one",
    "scaled output": "scaled output",
}


@cache
def _report(variant: str, exact_angles: bool = False):
    port = example_rope_port(variant, HEAD_DIM, base=BASE, layout=LAYOUT)
    return check_rope_port(
        port, HEAD_DIM, base=BASE, layout=LAYOUT, far_position=FAR, exact_angles=exact_angles
    )


def _sci(x: float) -> str:
    return format_cell(float(x), ".1e")


def _cell(check) -> str:
    """A measured number; a failing one in bold, marked ✗."""
    measured = float(check.measured)
    text = format_cell(measured, ".0e") if measured == measured else "not finite"
    return text if check.passed else f"**✗ {text}**"


def _names(names) -> str:
    """Check names as the prose lists them: “a”, “b” and “c”."""
    quoted = [f"“{n}”" for n in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


@table(
    "checks",
    caption=lambda: (
        f"What <code>check_rope_port</code> measures on eight ports (head_dim {HEAD_DIM}, "
        "split halves declared, float32); ✗ and bold where it exceeds the last row’s tolerance."
    ),
)
def _():
    rows = [[LABELS[v], *(_cell(c) for c in _report(v).checks)] for v in PORT_VARIANTS]
    tolerances = [c.tolerance for c in _report("library").checks]
    rows.append(["tolerance", *(format_cell(float(t), ".0e") for t in tolerances)])
    return Table(["port", *CHECKS], rows)


@table(
    "probes",
    caption=lambda: (
        "What the probes read from each port: the pairs it rotates and the base of the "
        "frequency ladder closest to its recovered frequencies."
    ),
)
def _():
    rows = []
    for variant in PORT_VARIANTS:
        report = _report(variant)
        found = report.recovered_base
        sign = " (backwards)" if (report.recovered_inv_freq < 0).all() else ""
        rows.append(
            [
                LABELS[variant],
                report.detected_layout,
                "none" if found != found else f"{found:,.0f}{sign}",
            ]
        )
    return Table(["port", "pairs rotated", "recovered base"], rows)


def _passed_by(variant: str, exact_angles: bool = False) -> list[str]:
    return [c.name for c in _report(variant, exact_angles).checks if c.passed]


@value("wrong_layout_passes")
def _():
    return _names(_passed_by("wrong layout"))


@value("wrong_layout_near")
def _():
    return format_cell(float(_report("wrong layout")["reference, near"].measured), ".2g")


@value("recipe_far")
def _():
    return _sci(_report("float32 recipe")["reference, far"].measured)


@value("recipe_far_tolerance")
def _():
    return _sci(_report("float32 recipe")["reference, far"].tolerance)


@value("exact_far_tolerance")
def _():
    return _sci(_report("float32 recipe", True)["reference, far"].tolerance)


@value("recipe_exact_failures")
def _():
    return _names(_report("float32 recipe", True).failed)


@value("rounding")
def _():
    return _sci(_report("library")["identity at 0"].tolerance)


@value("near_last")
def _():
    return f"{NEAR - 1}"


@value("near_count")
def _():
    return f"{NEAR}"


@value("scaled_output")
def _():
    return f"{SCALED_OUTPUT:.3f}"


@value("float16_failures")
def _():
    return _names(_report("float16 angles").failed)
