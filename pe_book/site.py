"""Markdown and HTML transforms the MkDocs hook applies to every page.

* :func:`expand_shortcodes` replaces ``{{ kind: argument }}`` in a page's
  markdown with a figure, table, value, citation or reference list.
* :func:`render_math` turns the ``arithmatex`` spans of the HTML into MathML,
  so that formulas render with no script and no network.

Both raise :class:`BookError` naming the page and the thing that is wrong.
"""

from __future__ import annotations

import html
import posixpath
import re

from latex2mathml.converter import convert as latex_to_mathml

from . import FIGURES, TABLES, VALUES, load_all
from .references import REFERENCES

__all__ = ["BookError", "FIGURE_DIR", "expand_shortcodes", "render_math", "bibliography"]

FIGURE_DIR = "assets/figures"
BIBLIOGRAPHY_PAGE = "appendix/bibliography.md"
SHORTCODE = re.compile(r"\{\{\s*([a-z]+)\s*:\s*(.*?)\s*\}\}")
FENCE = re.compile(r"^([ \t]*)(`{3,}|~{3,})")


class BookError(ValueError):
    """A page asks for something that does not exist or cannot be rendered."""


def _relative(target: str, page: str) -> str:
    """Link from the markdown file ``page`` to ``target``, both relative to docs/."""
    return posixpath.relpath(target, posixpath.dirname(page) or ".")


#: The first heading of a numbered chapter: "# 12. ALiBi".
CHAPTER = re.compile(r"^#\s+(\d+)\.\s", re.MULTILINE)


def _anchor(kind: str, name: str) -> str:
    """The id of a figure or table on its page: ``fig-rope-pairs``, ``table-alibi-slopes``."""
    return f"{'fig' if kind == 'figure' else 'table'}-{name.replace('.', '-').replace('_', '-')}"


def _numbers(markdown: str) -> dict[tuple[str, str], str]:
    """Number the page's figures and tables in order of appearance, per chapter.

    On a page whose first heading is "# 12. …" they are "Figure 12.1", "Table 12.1", …;
    on other pages "Figure 1", "Table 1". Code fences are skipped.
    """
    chapter = CHAPTER.search(markdown)
    prefix = f"{chapter.group(1)}." if chapter else ""
    numbers: dict[tuple[str, str], str] = {}
    counts = {"figure": 0, "table": 0}
    lines = markdown.splitlines(keepends=True)
    for line in (line for line, out in zip(lines, _outside_fences(lines), strict=True) if out):
        for match in SHORTCODE.finditer(line):
            kind, name = match.group(1), match.group(2)
            if kind in counts and (kind, name) not in numbers:
                counts[kind] += 1
                numbers[(kind, name)] = f"{kind.capitalize()} {prefix}{counts[kind]}"
    return numbers


def _caption(number: str, text: str) -> str:
    return f'<span class="caption-number">{number}</span>' + (f" {text}" if text else "")


def figure_markdown(
    name: str, page: str, sizes: dict[str, tuple[int, int]], number: str = ""
) -> str:
    spec = FIGURES[name]
    width, height = sizes[name]
    alt = spec.alt.replace("]", "\\]").replace("\n", " ")
    images = []
    for theme in ("light", "dark"):
        src = _relative(f"{FIGURE_DIR}/{name}-{theme}.svg", page)
        images.append(
            f'![{alt}]({src}#only-{theme}){{ width="{width}" height="{height}" loading="lazy" }}'
        )
    caption = f"\n  <figcaption>{_caption(number, spec.caption)}</figcaption>"
    if not number and not spec.caption:
        caption = ""
    return (
        f'<figure markdown="span" id="{_anchor("figure", name)}">\n  '
        + "\n  ".join(images)
        + caption
        + "\n</figure>"
    )


def cite_markdown(key: str, page: str) -> str:
    ref = REFERENCES[key]
    link = _relative(BIBLIOGRAPHY_PAGE, page)
    return f"[{ref.short}, {ref.year}]({link}#{key})"


def reference_item(key: str) -> str:
    ref = REFERENCES[key]
    return f"{ref.authors} ({ref.year}). [{ref.title}]({ref.url}). *{ref.venue}*."


def references_markdown(keys: list[str], page: str) -> str:
    link = _relative(BIBLIOGRAPHY_PAGE, page)
    return "\n".join(f"- {reference_item(k)} [↗ bibliography]({link}#{k})" for k in keys)


def bibliography() -> str:
    """Every reference, sorted by first author and year, each with an anchor."""
    items = sorted(REFERENCES.items(), key=lambda kv: (kv[1].authors.lower(), kv[1].year))
    return "\n".join(f'- <span id="{k}"></span>{reference_item(k)}' for k, _ in items)


def _split_keys(argument: str) -> list[str]:
    return [k.strip() for k in argument.split(",") if k.strip()]


def expand_shortcodes(markdown: str, page: str, figure_sizes: dict[str, tuple[int, int]]) -> str:
    """Replace every ``{{ kind: argument }}`` outside code fences.

    ``{{ value: chapter.name }}`` shows a value; ``{{ value: chapter.CONSTANT:spec }}``
    formats a chapter constant with a Python format spec (``:,`` gives ``4,096``).
    ``figure_sizes`` maps figure names to the CSS pixel size of their SVG.
    """
    load_all()
    numbers = _numbers(markdown)

    def replace(match: re.Match) -> str:
        kind, argument = match.group(1), match.group(2)
        where = f"{page}: {{{{ {kind}: {argument} }}}}"
        if kind == "figure":
            if argument not in FIGURES:
                raise BookError(f"{where}: unknown figure {argument!r}")
            return figure_markdown(argument, page, figure_sizes, numbers[("figure", argument)])
        if kind == "table":
            if argument not in TABLES:
                raise BookError(f"{where}: unknown table {argument!r}")
            from .render import table_markdown

            caption = _caption(numbers[("table", argument)], TABLES[argument].caption)
            return (
                f'<p class="table-caption" id="{_anchor("table", argument)}">{caption}</p>\n\n'
                + table_markdown(argument)
            )
        if kind in ("figref", "tableref"):
            target = ("figure" if kind == "figref" else "table", argument)
            if target not in numbers:
                raise BookError(f"{where}: {target[0]} {argument!r} is not on this page")
            return f"[{numbers[target]}](#{_anchor(*target)})"
        if kind == "value":
            name, _, spec = argument.partition(":")
            name = name.strip()
            if name not in VALUES:
                hint = "" if "." in name else " (values are named <chapter>.<name>)"
                raise BookError(f"{where}: unknown value {name!r}{hint}")
            try:
                return VALUES[name].text(spec.strip())
            except (TypeError, ValueError) as exc:
                raise BookError(f"{where}: {exc}") from exc
        if kind in ("cite", "references"):
            keys = _split_keys(argument)
            unknown = [k for k in keys if k not in REFERENCES]
            if unknown or not keys:
                raise BookError(f"{where}: unknown reference key(s) {unknown or argument!r}")
            if kind == "references":
                return references_markdown(keys, page)
            return "; ".join(cite_markdown(k, page) for k in keys)
        if kind == "bibliography":
            return bibliography()
        raise BookError(f"{where}: unknown shortcode kind {kind!r}")

    lines = markdown.splitlines(keepends=True)
    out = []
    for line, outside in zip(lines, _outside_fences(lines), strict=True):
        if outside:
            indent = line[: len(line) - len(line.lstrip())]
            line = SHORTCODE.sub(lambda m, pad=indent: replace(m).replace("\n", "\n" + pad), line)
        out.append(line)
    return "".join(out)


def _outside_fences(lines: list[str]) -> list[bool]:
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


_MATH = re.compile(
    r'<(span|div) class="arithmatex">\s*(?:\\\(|\\\[)(.*?)(?:\\\)|\\\])\s*</\1>', re.S
)


_TEXT = re.compile(r"\\(?:text|textrm|mbox)\{[^{}]*\}")


def render_math(page_html: str, page: str) -> str:
    """Replace arithmatex's ``\\(…\\)`` / ``\\[…\\]`` spans with MathML."""

    def replace(match: re.Match) -> str:
        tag, latex = match.group(1), html.unescape(match.group(2)).strip()
        display = "block" if tag == "div" else "inline"
        # LaTeX writes an underscore in text as \_; latex2mathml keeps \text{} verbatim
        latex = _TEXT.sub(lambda m: m.group(0).replace("\\_", "_"), latex)
        try:
            mathml = latex_to_mathml(latex, display=display)
        except Exception as exc:  # latex2mathml raises many types
            raise BookError(f"{page}: cannot render math {latex!r}: {exc}") from exc
        if "\\" in mathml:  # latex2mathml passes unknown commands through as text
            raise BookError(f"{page}: math {latex!r} uses a command MathML cannot render")
        mathml = _unary_signs(mathml)
        # One element per line: MathML ignores white space between elements, and
        # line-based regexes of other plugins (print-site's anchor rewriting) stay
        # linear instead of backtracking over one very long line with no spaces.
        mathml = mathml.replace("><", ">\n<")
        return f'<{tag} class="arithmatex">{mathml}</{tag}>'

    result = _MATH.sub(replace, page_html)
    text = _TAG.sub(" ", _CODE.sub("", result))
    leftover = _RAW_TEX.search(text)
    if leftover:  # math the Markdown stage did not recognise (e.g. $$ inside a list)
        context = " ".join(text[max(0, leftover.start() - 60) : leftover.end() + 20].split())
        raise BookError(f"{page}: math left unrendered: {leftover.group(0)!r} in {context!r}")
    return result


#: A minus or plus sign and what stands before it (an element's start or end tag).
_SIGN = re.compile(r"(<[^<>]*>)(?:([^<>]*)(</mo>))?<mo>(&#x02212;|&#x0002B;)</mo>")
#: Operators after which a following sign ends an operand: closing fences and bars.
_CLOSERS = {"&#x00029;", ")", "&#x0005D;", "]", "&#x0007D;", "}", "&#x0007C;", "|", "&#x02016;"}


def _unary_signs(mathml: str) -> str:
    """Mark a sign that opens an operand as a prefix operator, so it is set as a sign
    (R(−a), = −b) rather than with the spacing of a binary minus."""

    def mark(match: re.Match) -> str:
        tag, content, close, sign = match.groups()
        if close is None:  # right after a start tag: <mrow>, <math …>, <msub> …
            unary = not tag.startswith("</")
        else:  # after an operator: unary unless the operator closes a group
            unary = tag.startswith("<mo") and content not in _CLOSERS
        before = tag + (content or "") + (close or "")
        form = ' form="prefix"' if unary else ""
        return f"{before}<mo{form}>{sign}</mo>"

    return _SIGN.sub(mark, mathml)


_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
_RAW_TEX = re.compile(r"\$\$|\\[()\[\]]|\\[a-zA-Z]{2,}|(?<![\w$])\$[^\s$<][^$<\n]*?\$")
