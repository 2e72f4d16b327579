"""The shortcode stage: ``{{ kind: argument }}`` in a page's Markdown replaced by what
the book's registries hold, before Markdown becomes HTML.

Each kind and what it writes:

==============================  ===========================================================
``figure: NAME``                a numbered figure (:mod:`pe_book.pages.figures`)
``table: CHAPTER.NAME``         a numbered table with its caption (:mod:`pe_book.pages.tables`)
``figref`` / ``tableref``       a link to a figure or table of the same page, by its number
``value: CHAPTER.NAME[:spec]``  a value of the registry (:data:`pe_book.VALUES`)
``cite``, ``citet``             citations (:mod:`pe_book.pages.citations`)
``references``, ``bibliography``  a chapter's reference list, the whole bibliography
``symbol: NAME``                a glossary symbol (:func:`pe_book.notation.glossary_term`)
``interactive: NAME``           the container of an interactive figure (:mod:`pe_book.interactive`)
==============================  ===========================================================

Shortcodes inside code fences are left alone. A table's generated text may cite with
``{{ cite: … }}`` and ``{{ citet: … }}`` as the pages do: they are expanded in it too, so
that a chapter module never needs the page pipeline. Anything unknown raises
:class:`~pe_book.pages.base.BookError` naming the page and the shortcode.
"""

from __future__ import annotations

import re

from .. import FIGURES, TABLES, VALUES, load_all
from ..interactive import INTERACTIVES, interactive_html
from ..notation import SYMBOLS, glossary_term
from ..references import REFERENCES
from ..text import CHAPTER, caption_html, power_of_ten_markup
from .base import BookError, Cached, anchor, computed_now
from .citations import bibliography, cite_markdown, in_parenthesis, references_markdown, split_keys
from .figures import figure_markdown
from .tables import table_markdown

__all__ = ["SHORTCODE", "expand_shortcodes", "numbers", "outside_fences"]

SHORTCODE = re.compile(r"\{\{\s*([a-z]+)\s*:\s*(.*?)\s*\}\}")
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})")


def numbers(markdown: str, page: str = "") -> dict[tuple[str, str], str]:
    """Number the page's figures and tables in order of appearance, per chapter.

    On a page whose first heading is "# 12. …" they are "Figure 12.1", "Table 12.1", …;
    in the appendix (``appendix/…``) "Table A.1"; on other pages "Figure 1", "Table 1".
    Code fences are skipped.
    """
    chapter = CHAPTER.search(markdown)
    prefix = f"{chapter.group(1)}." if chapter else ""
    if not chapter and page.startswith("appendix/"):
        prefix = "A."
    found: dict[tuple[str, str], str] = {}
    counts = {"figure": 0, "table": 0}
    lines = markdown.splitlines(keepends=True)
    for line in (line for line, out in zip(lines, outside_fences(lines), strict=True) if out):
        for match in SHORTCODE.finditer(line):
            kind, name = match.group(1), match.group(2)
            if kind in counts and (kind, name) not in found:
                counts[kind] += 1
                found[(kind, name)] = f"{kind.capitalize()} {prefix}{counts[kind]}"
    return found


#: A hyphen typed as a number's sign ("-0.31"), not inside a word or a range ("0-9").
_HYPHEN_SIGN = re.compile(r"(?<![\w.-])-(?=\.?\d)")


def expand_shortcodes(
    markdown: str,
    page: str,
    figure_sizes: dict[tuple[str, str], tuple[int, int]],
    cached: Cached = computed_now,
) -> str:
    """Replace every ``{{ kind: argument }}`` outside code fences.

    ``{{ value: chapter.name }}`` shows a value; ``{{ value: chapter.CONSTANT:spec }}``
    formats a chapter constant with a Python format spec (``:,`` gives ``4,096``).
    ``{{ cite: key, … }}`` cites in parentheses after what it supports, or without them
    inside a parenthesis of the sentence; ``{{ citet: key }}`` names the authors as part
    of the sentence ("as Press et al. (2022) found"). ``figure_sizes`` maps figure names
    to the CSS pixel size of their SVG. Computed texts (values, tables, captions, alt
    texts) come through ``cached``.
    """
    load_all()
    numbered = numbers(markdown, page)

    def replace(match: re.Match, line_start: int) -> str:
        """``match`` a shortcode of the line that starts at ``line_start`` in the page."""
        kind, argument = match.group(1), match.group(2)
        where = f"{page}: {{{{ {kind}: {argument} }}}}"
        if kind == "figure":
            if argument not in FIGURES:
                raise BookError(f"{where}: unknown figure {argument!r}")
            number = numbered[("figure", argument)]
            return figure_markdown(argument, page, figure_sizes, number, cached)
        if kind == "table":
            if argument not in TABLES:
                raise BookError(f"{where}: unknown table {argument!r}")
            spec = TABLES[argument]
            caption = caption_html(
                numbered[("table", argument)],
                cached(f"table-caption:{argument}", lambda: spec.caption),
            )
            rows = cached(f"table:{argument}", lambda: table_markdown(argument))
            rows = _cite_in_generated(rows, page, where)
            shown = f'<p class="table-caption" id="{anchor("table", argument)}">{caption}</p>'
            shown += f"\n\n{rows}"
            if not spec.repeats:
                return shown
            figure = ("figure", spec.repeats)
            if figure not in numbered:
                raise BookError(f"{where}: the figure it repeats, {spec.repeats!r}, is not here")
            summary = f"{numbered[('table', argument)]} in full: the numbers of {numbered[figure]}"
            return (
                f'<details class="pe-fold" markdown="1">\n<summary>{summary}</summary>\n\n'
                f"{shown}\n\n</details>"
            )
        if kind in ("figref", "tableref"):
            target = ("figure" if kind == "figref" else "table", argument)
            if target not in numbered:
                raise BookError(f"{where}: {target[0]} {argument!r} is not on this page")
            return f"[{numbered[target]}](#{anchor(*target)})"
        if kind == "value":
            name, _, spec = argument.partition(":")
            name = name.strip()
            if name not in VALUES:
                hint = "" if "." in name else " (values are named <chapter>.<name>)"
                raise BookError(f"{where}: unknown value {name!r}{hint}")
            try:
                registered = VALUES[name]
                if registered.constant:
                    text = registered.text(spec.strip())
                else:
                    text = cached(f"value:{name}", lambda: registered.text(spec.strip()))
            except (TypeError, ValueError) as exc:
                raise BookError(f"{where}: {exc}") from exc
            # inside a formula: an odd number of $ before it on its line
            line = match.string[: match.start()]
            in_math = line.replace("$$", "").count("$") % 2 == 1
            if not in_math:  # in the prose a sign is a minus, not a hyphen: −0.31
                text = _HYPHEN_SIGN.sub("−", text)
            return power_of_ten_markup(text, in_math=in_math)
        if kind in ("cite", "citet", "references"):
            before = markdown[:line_start] + match.string[: match.start()]
            return _citation(kind, argument, page, where, before)
        if kind == "bibliography":
            return bibliography()
        if kind == "symbol":
            if argument not in SYMBOLS:
                raise BookError(f"{where}: unknown symbol {argument!r}")
            return glossary_term(argument)
        if kind == "interactive":
            if argument not in INTERACTIVES:
                raise BookError(f"{where}: unknown interactive figure {argument!r}")
            return cached(f"interactive:{argument}", lambda: interactive_html(argument))
        raise BookError(f"{where}: unknown shortcode kind {kind!r}")

    lines = markdown.splitlines(keepends=True)
    out, start = [], 0
    for line, outside in zip(lines, outside_fences(lines), strict=True):
        at, start = start, start + len(line)  # where the line starts in the page
        if outside:
            indent = line[: len(line) - len(line.lstrip())]
            line = SHORTCODE.sub(
                lambda m, pad=indent, at=at: replace(m, at).replace("\n", "\n" + pad), line
            )
        out.append(line)
    return "".join(out)


def _citation(kind: str, argument: str, page: str, where: str, before: str) -> str:
    """A ``cite``, ``citet`` or ``references`` shortcode's Markdown; ``before`` is the
    text before it, which says whether it stands inside a parenthesis."""
    keys = split_keys(argument)
    unknown = [k for k in keys if k not in REFERENCES]
    if unknown or not keys:
        raise BookError(f"{where}: unknown reference key(s) {unknown or argument!r}")
    if kind == "references":
        return references_markdown(keys, page)
    if kind == "citet":
        return cite_markdown(keys, page, "textual")
    return cite_markdown(keys, page, "bare" if in_parenthesis(before) else "parenthetical")


def _cite_in_generated(text: str, page: str, where: str) -> str:
    """``text`` generated by a chapter (a table's rows) with its ``cite`` and ``citet``
    shortcodes expanded; any other shortcode there is an error."""

    def replace(match: re.Match) -> str:
        kind, argument = match.group(1), match.group(2)
        if kind not in ("cite", "citet"):
            raise BookError(f"{where}: generated text may only cite, not use {kind!r}")
        return _citation(kind, argument, page, where, text[: match.start()])

    return SHORTCODE.sub(replace, text)


def outside_fences(lines: list[str]) -> list[bool]:
    """For every line, whether it is outside the page's code fences."""
    flags, fence = [], None
    for line in lines:
        match = FENCE.match(line)
        if fence is None and match:
            fence = match.group(2)
            flags.append(False)
        elif fence is not None:
            if match and match.group(2).startswith(fence[0] * len(fence)):
                if line.strip() == match.group(2):
                    fence = None
            flags.append(False)
        else:
            flags.append(True)
    return flags
