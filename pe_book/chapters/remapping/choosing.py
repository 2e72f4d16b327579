"""Choosing Self-Extend's group size: the README's rule and its two-thirds variant."""

from __future__ import annotations

from pe_explained import (
    self_extend_group_size,
)

from ... import Table, table, value
from .common import (
    FRACTION,
    LLAMA2,
    README_LENGTH,
    SE_WINDOW,
    TARGETS,
    distance_text,
    tex_int,
)

# ---------------------------------------------------------------------------
# Choosing G
# ---------------------------------------------------------------------------


def group_rows() -> list[list]:
    """Per target length: the smallest G by the README's rule (f = 1) and by f = 2/3."""
    rows = []
    for target in TARGETS:
        full = self_extend_group_size(target, LLAMA2, SE_WINDOW)
        part = self_extend_group_size(target, LLAMA2, SE_WINDOW, usable_fraction=FRACTION)
        rows.append([target, *full, *part])
    return rows


@table(
    "group_sizes",
    caption=lambda: (
        f"The smallest group size $G$ for a text length, $w = {tex_int(SE_WINDOW)}$, trained on "
        f"{LLAMA2:,} positions, and the largest distance it shows."
    ),
)
def _():
    return Table(
        [
            "text length (tokens)",
            "$G$, all trained distances",
            "largest distance",
            "$G$, two thirds",
            "largest distance, two thirds",
        ],
        group_rows(),
        formats={"text length (tokens)": ",d"},
        default_format=",.1f",
    )


def _group(target: int, fraction: float = 1.0) -> tuple[int, float]:
    return self_extend_group_size(target, LLAMA2, SE_WINDOW, usable_fraction=fraction)


@value("readme_group")
def _():
    return str(_group(README_LENGTH)[0])


@value("readme_largest")
def _():
    return distance_text(_group(README_LENGTH)[1])


@value("readme_group_part")
def _():
    return str(_group(README_LENGTH, FRACTION)[0])


def overshoot() -> tuple[int, int, float]:
    """The first target of the table whose f = 1 group size shows a distance past L − 1."""
    for target in TARGETS:
        group_size, largest = _group(target)
        if largest > LLAMA2 - 1:
            return target, group_size, largest
    raise ValueError("no target of the table passes L − 1")


@value("overshoot_length")
def _():
    return f"{overshoot()[0]:,}"


@value("overshoot_group")
def _():
    return str(overshoot()[1])


@value("overshoot_largest")
def _():
    return distance_text(overshoot()[2])
