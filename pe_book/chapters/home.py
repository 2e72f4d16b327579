"""The home page: a figure of where position can enter a transformer, and reading paths
with their times, estimated from the pages' own Markdown."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import yaml
from markdown.extensions.toc import slugify

from pe_explained import alibi_bias, apply_rope, sinusoidal
from pe_explained.attention import toy_embeddings

from .. import figure, value
from ..style import new_figure

# --- Where position can enter: the figure the home page opens with.

#: Added to the input: a short sentence of toy word vectors and its sinusoidal rows.
ENTRY_WORDS, ENTRY_D_MODEL = ("the", "dog", "bites", "man"), 8
#: Rotating q and k: one pair turning at frequency ENTRY_OMEGA, a query at position
#: ENTRY_QUERY and a key at ENTRY_KEY (the same direction before the rotation).
ENTRY_OMEGA, ENTRY_QUERY, ENTRY_KEY = 0.3, 4, 1
#: Biasing the scores: ALiBi's first head of ENTRY_HEADS over ENTRY_POSITIONS positions.
ENTRY_HEADS, ENTRY_POSITIONS = 8, 8


def _entry_input() -> tuple[np.ndarray, np.ndarray]:
    """The toy sentence's word vectors and their sinusoidal rows, (words, d_model) each."""
    vectors = toy_embeddings(sorted(set(ENTRY_WORDS)), ENTRY_D_MODEL, seed=0)
    words = np.stack([vectors[w] for w in ENTRY_WORDS])
    return words, sinusoidal(len(ENTRY_WORDS), ENTRY_D_MODEL)


def _entry_rotations() -> dict[str, np.ndarray]:
    """One pair's query and key before and after RoPE's rotation (x, y each)."""
    direction = np.array([[1.0, 0.0]])  # the pair's two coordinates, unit length
    inv_freq = np.array([ENTRY_OMEGA])
    return {
        "before": direction[0],
        "query": apply_rope(direction, [ENTRY_QUERY], inv_freq)[0],
        "key": apply_rope(direction, [ENTRY_KEY], inv_freq)[0],
    }


@figure(
    "home_where_position_enters",
    alt=lambda: (
        "Three panels, one for each place a transformer can get position from. Left, added "
        f"to the input: the vectors of the {len(ENTRY_WORDS)} words of a toy sentence "
        f"(width {ENTRY_D_MODEL}) plus the sinusoidal rows of positions 0 to "
        f"{len(ENTRY_WORDS) - 1} give the rows the first layer reads. Middle, rotating "
        "queries and keys: one pair of a query at position "
        f"{ENTRY_QUERY} and of a key at position {ENTRY_KEY}, both pointing the same way "
        "before, are turned by angles proportional to their positions, so the angle between "
        "them depends on the offset alone. Right, biasing the scores: ALiBi's bias for the "
        f"first of {ENTRY_HEADS} heads, zero on the diagonal and more negative the farther "
        "the key lies before the query, added to every attention score."
    ),
    caption="Where position can enter: added to the input once (sinusoidal, learned), "
    "rotating queries and keys in every layer (RoPE), or added to the scores (ALiBi, T5).",
)
def _(theme):
    fig = new_figure(7.6, 2.9)
    input_ax, turn_ax, bias_ax = fig.subplots(1, 3, width_ratios=[1.35, 1.15, 1])

    # 1. added to the input: word vectors + position rows = the first layer's input
    words, rows = _entry_input()
    gap, width = 2.5, ENTRY_D_MODEL
    blocks = (("words", words), ("positions", rows), ("input", words + rows))
    for k, (label, block) in enumerate(blocks):
        left = k * (width + gap)
        input_ax.imshow(
            block,
            cmap=theme.diverging,
            vmin=-1.5,
            vmax=1.5,
            extent=(left, left + width, len(ENTRY_WORDS), 0),
            aspect="auto",
            interpolation="nearest",
        )
        input_ax.text(left + width / 2, len(ENTRY_WORDS) + 0.6, label, ha="center", va="top")
        if k < len(blocks) - 1:
            sign = "+" if k == 0 else "="
            input_ax.text(
                left + width + gap / 2,
                len(ENTRY_WORDS) / 2,
                sign,
                ha="center",
                va="center",
                fontsize=14,
                color=theme.text,
            )
    input_ax.set_xlim(-0.2, 3 * width + 2 * gap + 0.2)
    input_ax.set_ylim(len(ENTRY_WORDS) + 1.3, -0.2)
    input_ax.set_yticks(np.arange(len(ENTRY_WORDS)) + 0.5, ENTRY_WORDS)
    input_ax.set_xticks([])
    input_ax.tick_params(length=0)
    for side in ("left", "bottom"):
        input_ax.spines[side].set_visible(False)
    input_ax.set_title("added to the input\nonce, before layer 1", fontsize=10)

    # 2. rotating q and k: the pair of a query and a key, turned by their positions
    turn = _entry_rotations()
    circle = np.linspace(0.0, 2.0 * np.pi, 181)
    turn_ax.plot(np.cos(circle), np.sin(circle), color=theme.muted, linewidth=0.8)
    query_colour, key_colour = theme.cycle[0], theme.cycle[1]
    for end, colour, weight in (
        (turn["before"], theme.muted, 1.0),
        (turn["query"], query_colour, 1.8),
        (turn["key"], key_colour, 1.8),
    ):
        turn_ax.annotate(
            "",
            xy=end,
            xytext=(0.0, 0.0),
            arrowprops={
                "arrowstyle": "-|>",
                "color": colour,
                "lw": weight,
                "shrinkA": 0,
                "shrinkB": 0,
            },
        )
    labels = (
        (turn["before"], "before"),
        (turn["query"], f"query at {ENTRY_QUERY}"),
        (turn["key"], f"key at {ENTRY_KEY}"),
    )
    for end, text in labels:
        x, y = 1.18 * end
        turn_ax.text(
            x,
            y,
            text,
            ha="left" if x > 0.2 else "center",
            va="center",
            fontsize=8,
            color=theme.text,
        )
    # the angle between them: the offset times the pair's frequency, wherever the two are
    angles = np.arctan2([turn["key"][1], turn["query"][1]], [turn["key"][0], turn["query"][0]])
    arc = np.linspace(angles[0], angles[1], 30)
    turn_ax.plot(0.4 * np.cos(arc), 0.4 * np.sin(arc), color=theme.text, linewidth=1.0)
    turn_ax.text(
        0.0,
        -1.22,
        f"angle between: $({ENTRY_QUERY} - {ENTRY_KEY})\\,\\omega_i$",
        ha="center",
        va="top",
        fontsize=8,
        color=theme.text,
    )
    turn_ax.set_xlim(-1.3, 2.4)
    turn_ax.set_ylim(-1.65, 1.3)
    turn_ax.set_aspect("equal")
    turn_ax.axis("off")
    turn_ax.set_title("rotating $q$ and $k$\nin every layer", fontsize=10)

    # 3. biasing the scores: ALiBi's bias of the first head (the causal mask blank)
    bias = alibi_bias(ENTRY_HEADS, ENTRY_POSITIONS, dtype=np.float64)[0]
    image = bias_ax.imshow(
        np.where(np.isfinite(bias), bias, np.nan), cmap=theme.sequential, interpolation="nearest"
    )
    fig.colorbar(image, ax=bias_ax, shrink=0.8, label="bias")
    bias_ax.set_xlabel("key position")
    bias_ax.set_ylabel("query position")
    bias_ax.set_title("added to the scores\nin every layer", fontsize=10)
    return fig


# --- Reading paths and their times, estimated from the pages' Markdown.

DOCS = Path(__file__).resolve().parents[2] / "docs"
MKDOCS_YML = DOCS.parent / "mkdocs.yml"

#: How a reading time is estimated: the prose at WORDS_PER_MINUTE, plus
#: MINUTES_PER_EXAMPLE for every code example and MINUTES_PER_FIGURE for every figure,
#: table, widget or displayed formula. Exercises and references are not counted.
WORDS_PER_MINUTE = 200
MINUTES_PER_EXAMPLE = 1.0
MINUTES_PER_FIGURE = 0.5
SKIPPED_SECTIONS = ("exercises", "references")
QUOTED = ("WORDS_PER_MINUTE", "MINUTES_PER_EXAMPLE", "MINUTES_PER_FIGURE")

#: The Parts of the book whose pages make up "the whole idea".
WHOLE_IDEA_PARTS = ("Part I", "Part II", "Part III")

#: Paths through the book: stops as "page" (the whole page) or "page#section". The home
#: page links them in this order (tests/test_home.py holds the two together).
PATHS: dict[str, tuple[str, ...]] = {
    "rope": (
        "foundations/order-problem.md",
        "foundations/sinusoidal.md#the-formula",
        "foundations/properties.md#a-shift-is-a-rotation",
        "modern/rope.md",
    ),
    "porting": (
        "practice/conventions.md",
        "practice/precision.md",
        "practice/todays-models.md",
        "inference/kv-cache.md",
        "inference/padding-packing.md",
        "inference/remapping.md",
        "inference/runtimes.md",
        "inference/testing-a-port.md",
    ),
    "summary": ("appendix/summary.md",),
}

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_BLOCKS = re.compile(r"\{\{ (?:figure|table|interactive): [^}]*\}\}")


def nav_parts() -> dict[str, tuple[str, ...]]:
    """The pages of each Part of the navigation, by the Part's title."""
    nav = yaml.safe_load(MKDOCS_YML.read_text(encoding="utf-8"))["nav"]
    parts = {}
    for entry in nav:
        for title, pages in entry.items():
            if isinstance(pages, list) and title.startswith("Part "):
                parts[title] = tuple(page for item in pages for page in item.values())
    return parts


def whole_idea() -> tuple[str, ...]:
    """The pages of Parts I to III, in order."""
    chosen = [
        pages for title, pages in nav_parts().items() if title.split(" · ")[0] in WHOLE_IDEA_PARTS
    ]
    if len(chosen) != len(WHOLE_IDEA_PARTS):
        raise ValueError(f"mkdocs.yml's nav lacks one of {WHOLE_IDEA_PARTS}")
    return tuple(page for pages in chosen for page in pages)


def page_sections(page: str) -> dict[str, list[str]]:
    """The lines of ``page`` (under ``docs/``) by section: its headings' anchors (as
    MkDocs writes them) to the lines up to the next heading; "" holds the title's part.
    Read again at every call: ``book.py serve`` keeps this module while pages change."""
    sections: dict[str, list[str]] = {"": []}
    current, fenced = "", False
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading is not None and len(heading.group(1)) > 1:
            current = slugify(heading.group(2), "-")
            sections[current] = []
        sections[current].append(line)
    return sections


def reading_minutes(lines: list[str]) -> float:
    """Minutes to read ``lines`` of a page's Markdown (see :data:`WORDS_PER_MINUTE`)."""
    words = examples = figures = 0
    fenced = display = False
    for line in lines:
        if _FENCE.match(line):
            examples += not fenced
            fenced = not fenced
            continue
        if fenced:
            continue
        if line.strip() == "$$":
            figures += not display
            display = not display
            continue
        if display or _HEADING.match(line):
            continue
        figures += len(_BLOCKS.findall(line))
        line = _BLOCKS.sub(" ", line)
        line = re.sub(r"\{\{[^}]*\}\}", " x ", line)  # a value reads as a word
        line = re.sub(r"\$[^$]+\$", " x ", line)  # so does a formula in the text
        line = re.sub(r"\]\([^)]*\)", "]", line)  # a link's text, not its address
        words += len(re.findall(r"[^\W_]+(?:[’'-][^\W_]+)*", line))
    return words / WORDS_PER_MINUTE + examples * MINUTES_PER_EXAMPLE + figures * MINUTES_PER_FIGURE


def stop_minutes(stop: str) -> float:
    """Minutes to read one stop of a path: a whole page, or one section of it."""
    page, _, anchor = stop.partition("#")
    sections = page_sections(page)
    if anchor and anchor not in sections:
        raise ValueError(f"{page} has no section #{anchor}; its sections: {list(sections)[1:]}")
    chosen = [anchor] if anchor else [a for a in sections if a not in SKIPPED_SECTIONS]
    return sum(reading_minutes(sections[a]) for a in chosen)


def reading_time(minutes: float) -> str:
    """A reading time as the page says it: minutes up to the next five below an hour,
    else hours to the nearest half.

    >>> reading_time(27.4), reading_time(58.0), reading_time(212.0)
    ('30 minutes', '1 hour', '3½ hours')
    """
    if minutes <= 55:
        return f"{5 * math.ceil(minutes / 5)} minutes"
    halves = max(2, round(minutes / 30))
    whole, half = divmod(halves, 2)
    text = f"{whole}{'½' if half else ''}"
    return f"{text} hour" if halves == 2 else f"{text} hours"


def path_minutes(name: str) -> float:
    """Minutes to read path ``name``: :data:`PATHS`, or "whole" (Parts I to III)."""
    stops = whole_idea() if name == "whole" else PATHS[name]
    return sum(stop_minutes(stop) for stop in stops)


def _register_time(name: str, minutes) -> None:
    @value(f"{name}_time")
    def _():
        return reading_time(minutes())


for _path in (*PATHS, "whole"):
    _register_time(_path, lambda name=_path: path_minutes(name))
for _number, _part in enumerate(("part1", "part2", "part3", "part4", "part5")):
    _register_time(
        _part,
        lambda k=_number: sum(map(stop_minutes, list(nav_parts().values())[k])),
    )
