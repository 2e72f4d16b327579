"""The book's command line: ``python -m pe_book figure …`` from a clone of the book.

``figure NAME --out FILE`` writes any registered figure of the book as SVG (the
same bytes the site shows); ``figure --list`` names them. It lives with the book,
not the library, because drawing needs matplotlib: the library's own command
(``python -m pe_explained``) needs numpy alone.

Bad arguments end with a one-line ``error: …`` on stderr and exit status 2,
never a traceback.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from pe_explained.cli import run_command

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pe_book",
        description="Write any figure of the book as SVG.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    fig = commands.add_parser(
        "figure",
        help="write a figure of the book as an SVG file (--out FILE)",
        description="Write the registered figure NAME as an SVG file, or list the names "
        "with --list.",
    )
    fig.add_argument("name", nargs="?", metavar="NAME", help="figure name (see --list)")
    fig.add_argument("--out", type=Path, metavar="FILE", help="where to write the SVG")
    fig.add_argument(
        "--theme",
        choices=("light", "dark"),
        default="light",
        help="colours for a light or a dark page (default light)",
    )
    fig.add_argument("--list", action="store_true", help="list the figure names and exit")
    return parser


def _run_figure(args) -> str:
    from . import FIGURES, load_all
    from .render import render_svg, svg_size

    load_all()
    if args.list:
        return "\n".join(sorted(FIGURES))
    if args.name is None or args.out is None:
        raise ValueError("figure needs a NAME and --out FILE (or --list)")
    if args.name not in FIGURES:
        raise ValueError(f"unknown figure {args.name!r}; `figure --list` shows the names")
    svg = render_svg(args.name, args.theme)
    args.out.write_bytes(svg)
    width, height = svg_size(svg)
    return f"wrote {args.out} ({args.name}, {args.theme} theme, {width}×{height} px)"


def main(argv=None) -> int:
    """Run the command line with ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    return run_command(build_parser(), _run_figure, argv)
