"""The bibliography: every work the book cites, keyed as pages cite them.

Pages write ``{{ cite: vaswani2017 }}`` for an inline citation and
``{{ references: vaswani2017, su2021 }}`` for a chapter's reference list; the
bibliography page lists them all. An unknown key fails the build.

The entries are data, in ``references.toml`` beside this module (one table per key);
:func:`load_references` reads and checks them.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

__all__ = ["REFERENCES", "Reference", "load_references"]

#: The reference list the book cites from.
SOURCE = Path(__file__).with_name("references.toml")


@dataclass(frozen=True)
class Reference:
    authors: str  # as printed in the bibliography
    short: str  # as cited inline: "Vaswani et al."
    year: int
    title: str
    venue: str
    url: str
    suffix: str = ""  # "a", "b": two works of one label and year, "Yang et al., 2024a"

    @property
    def cited_year(self) -> str:
        """The year as citations print it, with its suffix: ``"2024a"``."""
        return f"{self.year}{self.suffix}"


def load_references(text: str) -> dict[str, Reference]:
    """The references of a TOML text, in its order; every field checked.

    >>> load_references('[su2021]\\nauthors = "J. Su"\\nshort = "Su et al."\\nyear = 2021\\n'
    ...                 'title = "RoFormer"\\nvenue = "arXiv"\\nurl = "https://arxiv.org"\\n')
    {'su2021': Reference(authors='J. Su', short='Su et al.', year=2021, ...)}
    """
    names = {f.name: f for f in fields(Reference)}
    required = [name for name, f in names.items() if name != "suffix"]
    references = {}
    for key, entry in tomllib.loads(text).items():
        if not isinstance(entry, dict):
            raise ValueError(f"reference {key!r} must be a table of fields, got {entry!r}")
        unknown = sorted(set(entry) - set(names))
        missing = [name for name in required if name not in entry]
        if unknown or missing:
            raise ValueError(f"reference {key!r}: unknown fields {unknown}, missing {missing}")
        for name, value in entry.items():
            if name == "year" and type(value) is not int:
                raise ValueError(f"reference {key!r}: year must be an int, got {value!r}")
            if name != "year" and (not isinstance(value, str) or not (value or name == "suffix")):
                raise ValueError(
                    f"reference {key!r}: {name} must be a non-empty str, got {value!r}"
                )
        references[key] = Reference(**entry)
    return references


REFERENCES: dict[str, Reference] = load_references(SOURCE.read_text(encoding="utf-8"))
