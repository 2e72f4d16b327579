"""The book's build-time assets: registries of figures, tables and prose values.

Every chapter of the book has one module in :mod:`pe_book.chapters`
that registers what its page shows::

    CONTEXT, FACTOR = 4096, 4.0
    QUOTED = ("CONTEXT", "FACTOR")  # constants the page quotes

    @figure("context_wavelengths", alt=lambda: f"… {CONTEXT:,} …", caption="…")
    def _(theme): ...            # draws what the library computed; returns a Figure

    @table("attention_factors")
    def _(): return Table(...)   # numbers computed by the library

    @value("yarn_low")
    def _(): return str(...)     # a number quoted in the prose

Names. Tables and values are named by their chapter (the module name in
:mod:`pe_book.chapters`), which the registry takes from the registering
module: the registration above is ``context_extension.yarn_low`` and a page
writes ``{{ value: context_extension.yarn_low }}`` or
``{{ table: context_extension.attention_factors }}``. Figures keep one global
name each (unique across the book), because a figure's name is public: it is
the file name of its SVG (``assets/figures/<name>-light.svg``) and its anchor
(``#fig-<name>``) in the built site.

Bounds. A number the prose states as a bound ("no cosine above 0.31", "off by at
most 3.0×10⁻⁸") is declared where it is registered: ``@value("init_max_cosine",
bound=("upper", ".2f"))`` on a function that returns the exact number. The registry
writes it rounded outward (:func:`pe_book.text.format_bound`: an upper bound up, a lower
bound down), and ``tests/test_stated_bounds.py`` reads the declaration from here, so a
sentence with a new bound needs no edit of a test file.

Constants. A chapter lists in ``QUOTED`` the module constants its prose
quotes; :func:`load_all` registers each one as a value of that chapter, and
a page shows it with an optional format spec:
``{{ value: context_extension.CONTEXT:, }}`` gives ``4,096``. Computed values
are already text and take no format spec.

Laziness. ``alt`` and ``caption`` may be a string or a function of no
arguments returning one; a function runs when the page is rendered, so that
importing a chapter computes nothing. Only draw, build and compute functions
and such callables may call the library.

An unknown name fails the build with a message naming the page and the name.
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

#: Text given directly, or a function of no arguments computing it at render time.
Text = str | Callable[[], str]


def _resolve(text: Text, what: str) -> str:
    """The text of an ``alt`` or ``caption``: called now if it is a function."""
    result = text() if callable(text) else text
    if not isinstance(result, str):
        raise TypeError(f"{what} must be a str or return one, got {type(result).__name__}")
    return result.strip()


@dataclass(frozen=True)
class FigureSpec:
    name: str
    draw: Callable  # draw(theme) -> matplotlib.figure.Figure
    alt_text: Text
    caption_text: Text = ""
    #: Whether the dark variant may be the light one with its palette swapped
    #: (:func:`pe_book.render.render_variant`); False: always drawn.
    swap: bool = True

    @property
    def alt(self) -> str:
        """The alt text, computed now; it must say what the figure shows."""
        alt = _resolve(self.alt_text, f"alt of figure {self.name!r}")
        if len(alt) < 10:
            raise ValueError(f"figure {self.name!r} needs alt text that says what it shows")
        return alt

    @property
    def caption(self) -> str:
        return _resolve(self.caption_text, f"caption of figure {self.name!r}")


@dataclass(frozen=True)
class Table:
    """A table of library results; the renderer formats every cell the same way.

    ``formats`` maps a column name to a format spec (``".4f"``, ``",.0f"``,
    ``".3e"``); floats in other columns use ``default_format``. A column whose floats
    are all whole numbers prints them without decimals, unless ``whole_numbers`` is
    False (a column of measurements that all happen to be 1 still reads 1.00).
    """

    columns: Sequence[str]
    rows: Sequence[Sequence]
    formats: dict[str, str] = field(default_factory=dict)
    default_format: str = ".4f"
    whole_numbers: bool = True

    def __post_init__(self):
        unknown = [name for name in self.formats if name not in self.columns]
        if unknown:
            raise ValueError(f"formats names columns the table lacks: {unknown}")


@dataclass(frozen=True)
class TableSpec:
    name: str
    build: Callable[[], Table]
    caption_text: Text = ""
    #: The figure whose numbers the table gives, if any: the page folds the table.
    repeats: str = ""

    @property
    def caption(self) -> str:
        return _resolve(self.caption_text, f"caption of table {self.name!r}")


#: The sides of a declared bound: "upper" (the prose says the number is at most the text:
#: rounded up) and "lower" (at least the text: rounded down).
BOUND_SIDES = ("upper", "lower")


@dataclass(frozen=True)
class ValueSpec:
    """A value quoted in prose: computed text (``@value``), a declared bound (``@value(…,
    bound=(side, spec))``, whose function returns the exact number) or a chapter constant."""

    name: str
    compute: Callable[[], object]  # @value: returns str; a constant: returns the constant
    constant: bool = False
    #: (side, format spec) of a number the prose states as a bound, or None.
    bound: tuple[str, str] | None = None

    def exact(self) -> float:
        """The exact number a declared bound rounds outward."""
        if self.bound is None:
            raise ValueError(f"value {self.name!r} declares no bound")
        result = self.compute()
        if isinstance(result, bool) or not isinstance(result, int | float):
            raise TypeError(
                f"value {self.name!r} declares a bound: it must return the exact number, "
                f"got {type(result).__name__}"
            )
        return float(result)

    def text(self, spec: str = "") -> str:
        """The text a page shows; ``spec`` formats a constant (``","`` gives ``4,096``)."""
        if self.constant:
            return format(self.compute(), spec)
        if spec:
            raise ValueError(
                f"value {self.name!r} is computed text; a format spec ({spec!r}) applies only "
                "to a chapter constant"
            )
        if self.bound is not None:
            from .text import format_bound

            side, bound_spec = self.bound
            return format_bound(self.exact(), bound_spec, side=side)
        result = self.compute()
        if not isinstance(result, str):
            raise TypeError(f"value {self.name!r} must return str, got {type(result).__name__}")
        return result


FIGURES: dict[str, FigureSpec] = {}
TABLES: dict[str, TableSpec] = {}
VALUES: dict[str, ValueSpec] = {}


def _chapter(module: str) -> str:
    """The chapter a module registers for: its name under :mod:`pe_book.chapters` (a
    chapter written as a package, ``chapters/evidence/``, registers every module of it
    as ``evidence``); elsewhere the last part of its name."""
    prefix = f"{__name__}.chapters."
    if module.startswith(prefix):
        return module[len(prefix) :].partition(".")[0]
    return module.rpartition(".")[2]


def _check_name(kind: str, name: str) -> None:
    if not isinstance(name, str) or not name.replace("_", "").isalnum():
        raise ValueError(f"{kind} name must be letters, digits and underscores, got {name!r}")


def _add(kind: str, registry: dict, key: str, spec) -> None:
    if key in registry:
        raise ValueError(f"{kind} {key!r} is registered twice")
    registry[key] = spec


def figure(name: str, *, alt: Text, caption: Text = "", swap: bool = True):
    """Register a figure under its global ``name``.

    ``alt`` says what the figure shows; it may not be empty. ``alt`` and
    ``caption`` are strings or functions returning one, called at render time.
    ``swap=False`` has the dark variant always drawn, never made from the light one by
    swapping its palette: for a figure that uses a palette colour in a role the swap
    does not know (white text on a heatmap's dark cells is white in both palettes).
    """
    _check_name("figure", name)
    if not callable(alt) and (not isinstance(alt, str) or len(alt.strip()) < 10):
        raise ValueError(f"figure {name!r} needs alt text that says what it shows")

    def register(draw):
        _add("figure", FIGURES, name, FigureSpec(name, draw, alt, caption, swap))
        return draw

    return register


def table(name: str, *, caption: Text = "", repeats: str = ""):
    """Register a table builder returning a :class:`Table`, as ``<chapter>.<name>``.

    On a phone every table keeps its grid, its first column held in view while the others
    scroll (:func:`pe_book.pages.tables.grid_tables`). ``repeats`` names the figure whose
    numbers the table gives: the page then folds the table under a line that says so
    (opened by a link to it, and in print), and the figure must be on the same page.
    """
    _check_name("table", name)
    if not isinstance(repeats, str):
        raise TypeError(f"table {name!r}: repeats must name a figure, got {repeats!r}")

    def register(build):
        key = f"{_chapter(build.__module__)}.{name}"
        _add("table", TABLES, key, TableSpec(key, build, caption, repeats))
        return build

    return register


def value(name: str, *, bound: tuple[str, str] | None = None):
    """Register a number quoted in prose, as ``<chapter>.<name>``; the function returns
    its text.

    ``bound=(side, spec)`` declares a number the prose states as a bound ("at most",
    "within", "no … above": ``"upper"``; "at least", "never below": ``"lower"``): the
    function then returns the exact number, and the registry writes it with ``spec``
    rounded outward (:func:`pe_book.text.format_bound`), so that the bound stays true.
    """
    _check_name("value", name)
    if bound is not None:
        if (
            not isinstance(bound, tuple)
            or len(bound) != 2
            or bound[0] not in BOUND_SIDES
            or not isinstance(bound[1], str)
        ):
            raise ValueError(
                f"value {name!r}: bound must be (side, format spec) with side in "
                f"{BOUND_SIDES}, e.g. ('upper', '.2f'); got {bound!r}"
            )

    def register(compute):
        key = f"{_chapter(compute.__module__)}.{name}"
        _add("value", VALUES, key, ValueSpec(key, compute, bound=bound))
        return compute

    return register


def _register_constants(module) -> None:
    """Register the constants a chapter module lists in ``QUOTED`` (once)."""
    chapter = _chapter(module.__name__)
    for name in getattr(module, "QUOTED", ()):
        _check_name("constant", name)
        if not hasattr(module, name):
            raise ValueError(f"{module.__name__}.QUOTED lists {name!r}, which it does not define")
        key = f"{chapter}.{name}"
        if key in VALUES and VALUES[key].constant:
            continue  # registered by an earlier load_all

        def compute(module=module, name=name):
            return getattr(module, name)

        _add("value", VALUES, key, ValueSpec(key, compute, constant=True))


def load_all() -> None:
    """Import every chapter module so that all registrations have run."""
    from . import chapters

    for info in sorted(pkgutil.iter_modules(chapters.__path__), key=lambda m: m.name):
        _register_constants(importlib.import_module(f"{chapters.__name__}.{info.name}"))
