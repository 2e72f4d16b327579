"""Every line of every code example on the pages fits the column it is shown in.

A line wider than the column is cut at the right edge and only a sideways scroll
shows the rest, which a reader of a printed or narrow page never does. The width
was measured in Chromium on the built site at a 1280 px wide window (the desktop
layout with both sidebars): a code block's box is 688 px wide with 16 px of padding
each side, and its font, 13.6 px monospace, advances 0.6 em = 8.16 px a character:
(688 − 32) / 8.16 = 80.4, so 80 characters show without scrolling. Blocks inside
content tabs (``=== "numpy"``) are as wide as the others.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
#: Characters of a code line visible without scrolling at 1280 px (measured, see above).
CODE_COLUMNS = 80

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def wide_lines(text: str, limit: int = CODE_COLUMNS) -> list[tuple[int, int, str]]:
    """``(line number, width, line)`` of every fenced-code line longer than ``limit``.

    The fence's own indentation (a block inside content tabs or a list) is not
    counted: it places the block, it is not part of the code.
    """
    found, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        match = _FENCE.match(line)
        if fence is None:
            if match:
                fence = (match["indent"], match["fence"])
            continue
        indent, opening = fence
        if (
            match
            and match["fence"][0] == opening[0]
            and len(match["fence"]) >= len(opening)
            and not match["info"].strip()
        ):
            fence = None
            continue
        code = line[len(indent) :] if line.startswith(indent) else line.lstrip()
        if len(code) > limit:
            found.append((number, len(code), code))
    return found


def test_the_checker_finds_a_wide_line_and_only_inside_code():
    long = "x" * (CODE_COLUMNS + 1)
    page = f"{long}\n\n```python\nok = 1\n{long}\n```\n\n{long}\n"
    assert wide_lines(page) == [(5, CODE_COLUMNS + 1, long)]
    tabbed = f'=== "numpy"\n\n    ```pycon\n    {"y" * CODE_COLUMNS}\n    ```\n'
    assert wide_lines(tabbed) == []  # the tab's indentation does not count
    nested = f"````markdown\n```python\n```\n{long}\n````\n"
    assert [n for n, _, _ in wide_lines(nested)] == [4]  # a shorter fence does not close


@pytest.mark.parametrize(
    "page",
    sorted(p for p in DOCS.rglob("*.md") if "overrides" not in p.parts),
    ids=lambda p: str(p.relative_to(DOCS)),
)
def test_page_code_fits_the_column(page):
    wide = wide_lines(page.read_text(encoding="utf-8"))
    assert not wide, (
        "\n".join(
            f"{page.relative_to(DOCS)}:{n}: {width} > {CODE_COLUMNS} characters: {code}"
            for n, width, code in wide
        )
        + f"\nbreak each line at {CODE_COLUMNS} characters (a session continues with `... `)"
    )
