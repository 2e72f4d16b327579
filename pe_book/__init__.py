"""The book's build-time assets: registries of figures, tables and prose values.

Every chapter of the book has one module in :mod:`pe_book.chapters`
that registers what its page shows::

    @figure("sinusoidal_heatmap", alt="…", caption="…")
    def _(theme): ...            # draws what the library computed; returns a Figure

    @table("sinusoidal_d8")
    def _(): return Table(...)   # numbers computed by the library

    @value("longest_wavelength_512")
    def _(): return f"{...:,.0f}"  # a number quoted in the prose

Pages refer to them by name (``{{ figure: NAME }}``, ``{{ table: NAME }}``,
``{{ value: NAME }}``); an unknown name fails the build.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "FIGURES",
    "TABLES",
    "VALUES",
    "FigureSpec",
    "Table",
    "TableSpec",
    "ValueSpec",
    "figure",
    "load_all",
    "table",
    "value",
]


@dataclass(frozen=True)
class FigureSpec:
    name: str
    draw: Callable  # draw(theme) -> matplotlib.figure.Figure
    alt: str
    caption: str = ""


@dataclass(frozen=True)
class Table:
    """A table of library results; the renderer formats every cell the same way.

    ``formats`` maps a column name to a format spec (``".4f"``, ``",.0f"``,
    ``".3e"``); floats in other columns use ``default_format``.
    """

    columns: Sequence[str]
    rows: Sequence[Sequence]
    formats: dict[str, str] = field(default_factory=dict)
    default_format: str = ".4f"


@dataclass(frozen=True)
class TableSpec:
    name: str
    build: Callable[[], Table]
    caption: str = ""


@dataclass(frozen=True)
class ValueSpec:
    name: str
    compute: Callable[[], str]


FIGURES: dict[str, FigureSpec] = {}
TABLES: dict[str, TableSpec] = {}
VALUES: dict[str, ValueSpec] = {}


def _check_name(kind: str, name: str, registry: dict) -> None:
    if not isinstance(name, str) or not name.replace("_", "").isalnum():
        raise ValueError(f"{kind} name must be letters, digits and underscores, got {name!r}")
    if name in registry:
        raise ValueError(f"{kind} {name!r} is registered twice")


def figure(name: str, *, alt: str, caption: str = ""):
    """Register a figure. ``alt`` says what the figure shows; it may not be empty."""
    _check_name("figure", name, FIGURES)
    if not isinstance(alt, str) or len(alt.strip()) < 10:
        raise ValueError(f"figure {name!r} needs alt text that says what it shows")

    def register(draw):
        FIGURES[name] = FigureSpec(name, draw, alt.strip(), caption.strip())
        return draw

    return register


def table(name: str, *, caption: str = ""):
    """Register a table builder returning a :class:`Table`."""
    _check_name("table", name, TABLES)

    def register(build):
        TABLES[name] = TableSpec(name, build, caption.strip())
        return build

    return register


def value(name: str):
    """Register a number quoted in prose; the function returns its text."""
    _check_name("value", name, VALUES)

    def register(compute):
        VALUES[name] = ValueSpec(name, compute)
        return compute

    return register


def load_all() -> None:
    """Import every chapter module so that all registrations have run."""
    from . import chapters

    for info in sorted(pkgutil.iter_modules(chapters.__path__), key=lambda m: m.name):
        importlib.import_module(f"{chapters.__name__}.{info.name}")
