"""Chapter 19, a command line: the commands, as the library's and the book's parsers define them."""

from __future__ import annotations

import argparse
import re

from pe_explained.cli import build_parser as library_parser

from .. import Table, table
from ..cli import build_parser as book_parser

#: Options with their argument (``--out FILE``) and file names (``config.json``).
_CODE_WORDS = re.compile(r"--[a-z][\w-]*(?: [A-Z]+)?|\b[\w-]+\.json\b")

#: Where a command's subject is explained, by command name.
SEE = {"inspect": "[chapter 21](todays-models.md)"}


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """Each command of ``parser``: how it is called (with its positional arguments) and
    its one-line help."""
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if len(found) != 1:
        raise ValueError(f"{parser.prog} should have one set of commands, has {len(found)}")
    helps = {a.dest: a.help for a in found[0]._choices_actions}
    rows = []
    for name, sub in found[0].choices.items():
        arguments = [a.metavar or a.dest for a in sub._actions if not a.option_strings]
        call = " ".join([parser.prog, name, *arguments])
        see = f" ({SEE[name]})" if name in SEE else ""
        # options and file names in the help are code, as on the rest of the page
        help_text = _CODE_WORDS.sub(r"`\g<0>`", helps[name])
        rows.append((f"`{call}`", help_text + see))
    return rows


@table(
    "commands",
    caption="The commands of the library (numpy alone) and of the book (matplotlib too), "
    "with the help their parsers print.",
)
def _():
    return Table(
        ["command", "prints or writes"], _commands(library_parser()) + _commands(book_parser())
    )
