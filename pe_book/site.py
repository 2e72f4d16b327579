"""Markdown and HTML transforms the MkDocs hook applies to every page.

* :func:`expand_shortcodes` replaces ``{{ kind: argument }}`` in a page's
  markdown with a figure, table, value, citation or reference list, or the
  container of an interactive figure (:mod:`pe_book.interactive`).
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
from .notation import math_notation
from .references import REFERENCES

__all__ = [
    "BookError",
    "FIGURE_DIR",
    "bibliography",
    "card_tables",
    "expand_shortcodes",
    "inline_math_html",
    "render_math",
]

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


def _numbers(markdown: str, page: str = "") -> dict[tuple[str, str], str]:
    """Number the page's figures and tables in order of appearance, per chapter.

    On a page whose first heading is "# 12. …" they are "Figure 12.1", "Table 12.1", …;
    in the appendix (``appendix/…``) "Table A.1"; on other pages "Figure 1", "Table 1".
    Code fences are skipped.
    """
    chapter = CHAPTER.search(markdown)
    prefix = f"{chapter.group(1)}." if chapter else ""
    if not chapter and page.startswith("appendix/"):
        prefix = "A."
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


#: Inline math outside the Markdown stage (captions, notebooks): ``$…$``, as in the prose.
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?=\S)([^$\n]+?)(?<=\S)\$")


def inline_math_html(text: str, *, plain: bool = False) -> str:
    """``text`` with its ``$…$`` as arithmatex spans, which :func:`render_math` turns
    into MathML like the math of the prose. ``plain``: ``text`` is plain text (a
    notebook's markdown), escaped for HTML; otherwise it is HTML already (a caption)."""
    pieces, last = [], 0
    for match in _INLINE_MATH.finditer(text):
        between = text[last : match.start()]
        pieces.append(html.escape(between, quote=False) if plain else between)
        tex = html.escape(match.group(1), quote=False)
        pieces.append(f'<span class="arithmatex">\\({tex}\\)</span>')
        last = match.end()
    pieces.append(html.escape(text[last:], quote=False) if plain else text[last:])
    return "".join(pieces)


#: An apostrophe as captions type it: inside a word ("table's") or after a plural
#: before the next word ("models' rotary"), never a quote mark around a value ('halves').
_APOSTROPHE = re.compile(r"(?<=[A-Za-z0-9.])'(?=[a-z])|(?<=s)'(?= [a-z])")
#: What a caption keeps as typed: its math and its code.
_CAPTION_VERBATIM = re.compile(r"(\$[^$]*\$|<code>.*?</code>)")


def curly_apostrophes(text: str) -> str:
    """``text`` with its apostrophes set as the prose's (’), outside math and code.

    >>> curly_apostrophes("the models' table's <code>l'x</code> and $f'$, 'halves'")
    "the models’ table’s <code>l'x</code> and $f'$, 'halves'"
    """
    parts = _CAPTION_VERBATIM.split(text)
    return "".join(p if k % 2 else _APOSTROPHE.sub("’", p) for k, p in enumerate(parts))


def caption_html(number: str, text: str) -> str:
    """A caption's HTML: its number ("Figure 3.2"), then its text with the book's
    notation set as math (:func:`~pe_book.notation.math_notation`) and curly
    apostrophes, as the prose has them."""
    number_html = f'<span class="caption-number">{number}</span>'
    shown = inline_math_html(curly_apostrophes(math_notation(text)))
    return number_html + (f" {shown}" if text else "")


#: Below this viewport width (CSS px) pages show each figure's phone variant.
PHONE_MEDIA = "(max-width: 600px)"


def figure_markdown(
    name: str, page: str, sizes: dict[tuple[str, str], tuple[int, int]], number: str = ""
) -> str:
    """A numbered ``<figure>``: per palette a ``<picture>`` whose phone variant (narrower,
    larger text) replaces the wide one below :data:`PHONE_MEDIA`, and a caption with a
    link to the full-size drawing."""
    from .render import variant_name

    spec = FIGURES[name]
    width, height = sizes[(name, "wide")]
    phone_width, phone_height = sizes[(name, "phone")]
    alt = html.escape(spec.alt.replace("\n", " "), quote=True)
    pictures = []
    for theme in ("light", "dark"):
        wide = _relative(f"{FIGURE_DIR}/{variant_name(name, theme)}.svg", page)
        phone = _relative(f"{FIGURE_DIR}/{variant_name(name, theme, 'phone')}.svg", page)
        pictures.append(
            f'<picture><source media="{PHONE_MEDIA}" srcset="{phone}" '
            f'width="{phone_width}" height="{phone_height}">'
            f'<img src="{wide}#only-{theme}" alt="{alt}" width="{width}" height="{height}" '
            f'loading="lazy"></picture>'
        )
    full = _relative(f"{FIGURE_DIR}/{variant_name(name, 'light')}.svg", page)
    link = f' <a class="figure-full" href="{full}">Open full size</a>'
    caption = f"\n  <figcaption>{caption_html(number, spec.caption)}{link}</figcaption>"
    return (
        f'<figure id="{_anchor("figure", name)}">\n  '
        + "\n  ".join(pictures)
        + caption
        + "\n</figure>"
    )


def cite_markdown(keys: str | list[str], page: str, style: str = "parenthetical") -> str:
    """Author–year citations of ``keys``, each linked to its bibliography entry.

    ``parenthetical``: "(Press et al., 2022; Su et al., 2021)", after what is cited;
    ``bare``: the same without parentheses, inside a parenthesis of the sentence;
    ``textual``: "Press et al. (2022)", as the subject or object of a sentence.
    """
    keys = [keys] if isinstance(keys, str) else keys
    link = _relative(BIBLIOGRAPHY_PAGE, page)
    # "et al." never breaks from the name before it or in itself
    refs = [
        (
            REFERENCES[k].short.replace(" et al.", "\u00a0et\u00a0al."),
            REFERENCES[k].cited_year,
            f"{link}#{k}",
        )
        for k in keys
    ]
    if style == "textual":
        names = [f"[{short}\u00a0({year})]({url})" for short, year, url in refs]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    inner = "; ".join(f"[{short},\u00a0{year}]({url})" for short, year, url in refs)
    if style == "bare":
        return inner
    if style == "parenthetical":
        return f"({inner})"
    raise ValueError(f"style must be 'parenthetical', 'bare' or 'textual', got {style!r}")


_CODE_OR_MATH = re.compile(r"`[^`]*`|\$[^$]*\$")


def _in_parenthesis(before: str) -> bool:
    """Whether the paragraph that ``before`` ends leaves a parenthesis open (code spans
    and math aside)."""
    paragraph = _CODE_OR_MATH.sub("", before[before.rfind("\n\n") + 1 :])
    return paragraph.count("(") > paragraph.count(")")


def reference_item(key: str) -> str:
    """A reference as lists print it: opened by the label its citations print ("Llama
    Team, 2024", whose authors' list opens with another name), then the authors, the
    linked title and the venue."""
    ref = REFERENCES[key]
    venue = ref.venue.replace("*", r"\*")  # "J*Fly" is a name, not emphasis
    authors = ref.authors.rstrip(".")
    # a title that ends a sentence of its own ("…?") takes no full stop after it
    stop = "" if ref.title.endswith(("?", "!", ".")) else "."
    return (
        f"**{ref.short}, {ref.cited_year}.** {authors}. [{ref.title}]({ref.url}){stop} *{venue}*."
    )


def _reference_order(key: str) -> tuple[str, str]:
    """Where a reference sorts: by the label its citations print, then by year."""
    return REFERENCES[key].short.lower(), REFERENCES[key].cited_year


def references_markdown(keys: list[str], page: str) -> str:
    """A chapter's references, in the bibliography's order (:func:`_reference_order`)."""
    link = _relative(BIBLIOGRAPHY_PAGE, page)
    ordered = sorted(keys, key=_reference_order)  # the keys are known (expand_shortcodes)
    # a no-break space: the arrow never ends a line without its word
    return "\n".join(f"- {reference_item(k)} [↗\u00a0bibliography]({link}#{k})" for k in ordered)


def bibliography() -> str:
    """Every reference, sorted by the label its citations print and by year (the label,
    "Press et al." or "Okabe and Ito", opens with the first author's surname, or names a
    team: "Llama Team"), each with an anchor."""
    items = sorted(REFERENCES.items(), key=lambda kv: _reference_order(kv[0]))
    return "\n".join(f'- <span id="{k}"></span>{reference_item(k)}' for k, _ in items)


def _split_keys(argument: str) -> list[str]:
    return [k.strip() for k in argument.split(",") if k.strip()]


#: A hyphen typed as a number's sign ("-0.31"), not inside a word or a range ("0-9").
_HYPHEN_SIGN = re.compile(r"(?<![\w.-])-(?=\.?\d)")


def expand_shortcodes(
    markdown: str, page: str, figure_sizes: dict[tuple[str, str], tuple[int, int]]
) -> str:
    """Replace every ``{{ kind: argument }}`` outside code fences.

    ``{{ value: chapter.name }}`` shows a value; ``{{ value: chapter.CONSTANT:spec }}``
    formats a chapter constant with a Python format spec (``:,`` gives ``4,096``).
    ``{{ cite: key, … }}`` cites in parentheses after what it supports, or without them
    inside a parenthesis of the sentence; ``{{ citet: key }}`` names the authors as part
    of the sentence ("as Press et al. (2022) found"). ``figure_sizes`` maps figure names
    to the CSS pixel size of their SVG.
    """
    load_all()
    numbers = _numbers(markdown, page)

    def replace(match: re.Match, line_start: int) -> str:
        """``match`` a shortcode of the line that starts at ``line_start`` in the page."""
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

            spec = TABLES[argument]
            caption = caption_html(numbers[("table", argument)], spec.caption)
            grid = "" if spec.cards else " data-grid"
            anchor = _anchor("table", argument)
            return (
                f'<p class="table-caption" id="{anchor}"{grid}>{caption}</p>\n\n'
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
                text = VALUES[name].text(spec.strip())
            except (TypeError, ValueError) as exc:
                raise BookError(f"{where}: {exc}") from exc
            from .render import power_of_ten_markup

            # inside a formula: an odd number of $ before it on its line
            line = match.string[: match.start()]
            in_math = line.replace("$$", "").count("$") % 2 == 1
            if not in_math:  # in the prose a sign is a minus, not a hyphen: −0.31
                text = _HYPHEN_SIGN.sub("−", text)
            return power_of_ten_markup(text, in_math=in_math)
        if kind in ("cite", "citet", "references"):
            keys = _split_keys(argument)
            unknown = [k for k in keys if k not in REFERENCES]
            if unknown or not keys:
                raise BookError(f"{where}: unknown reference key(s) {unknown or argument!r}")
            if kind == "references":
                return references_markdown(keys, page)
            if kind == "citet":
                return cite_markdown(keys, page, "textual")
            inside = _in_parenthesis(markdown[:line_start] + match.string[: match.start()])
            return cite_markdown(keys, page, "bare" if inside else "parenthetical")
        if kind == "bibliography":
            return bibliography()
        if kind == "symbol":
            from .notation import SYMBOLS, glossary_term

            if argument not in SYMBOLS:
                raise BookError(f"{where}: unknown symbol {argument!r}")
            return glossary_term(argument)
        if kind == "interactive":
            from .interactive import INTERACTIVES, interactive_html

            if argument not in INTERACTIVES:
                raise BookError(f"{where}: unknown interactive figure {argument!r}")
            return interactive_html(argument)
        raise BookError(f"{where}: unknown shortcode kind {kind!r}")

    lines = markdown.splitlines(keepends=True)
    out, start = [], 0
    for line, outside in zip(lines, _outside_fences(lines), strict=True):
        at, start = start, start + len(line)  # where the line starts in the page
        if outside:
            indent = line[: len(line) - len(line.lstrip())]
            line = SHORTCODE.sub(
                lambda m, pad=indent, at=at: replace(m, at).replace("\n", "\n" + pad), line
            )
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
#: Stretched horizontal braces (U+23DE, U+23DF): Chromium stretches them over less than
#: their base and draws the assembly's joints as gaps.
_BRACES = re.compile(r"\\(?:underbrace|overbrace)(?![a-zA-Z])")


#: What makes a root's content taller than one line of math.
_TALL = re.compile(
    r"\\(?:[dt]?frac|over|begin|sum|prod|int|underset|overset|stackrel|[bB]igg?[lrm]?)(?![a-zA-Z])"
)
_ROOT = re.compile(r"\\sqrt\s*(?:\[[^\]]*\])?\s*\{")


def _tall_root(latex: str) -> str | None:
    """The first command under a ``\\sqrt`` that makes its content taller than a line."""
    for match in _ROOT.finditer(latex):
        depth, k = 1, match.end()
        while k < len(latex) and depth:
            depth += {"{": 1, "}": -1}.get(latex[k], 0) if latex[k - 1] != "\\" else 0
            k += 1
        if tall := _TALL.search(latex, match.end(), k):
            return tall.group(0)
    return None


#: A number with thousands separators (braced or not) as latex2mathml writes it: a run of
#: numbers joined by comma operators, which Chromium spaces as a list ("62, 832").
_SEPARATOR = r"(?:<mrow>)?<mo>&#x0002C;</mo>(?:</mrow>)?"
_GROUPED = re.compile(rf"<mn>\d+</mn>(?:{_SEPARATOR}<mn>\d{{3}}(?:\.\d+)?</mn>)+")


def render_math(page_html: str, page: str) -> str:
    """Replace arithmatex's ``\\(…\\)`` / ``\\[…\\]`` spans with MathML."""

    def replace(match: re.Match) -> str:
        tag, latex = match.group(1), html.unescape(match.group(2)).strip()
        display = "block" if tag == "div" else "inline"
        # LaTeX writes an underscore in text as \_; latex2mathml keeps \text{} verbatim
        latex = _TEXT.sub(lambda m: m.group(0).replace("\\_", "_"), latex)
        latex = _fenced_matrices(latex)
        try:
            mathml = latex_to_mathml(latex, display=display)
        except Exception as exc:  # latex2mathml raises many types
            raise BookError(f"{page}: cannot render math {latex!r}: {exc}") from exc
        if "<mo />" in mathml:  # what latex2mathml leaves of \operatorname{atan2}
            raise BookError(
                f"{page}: math {latex!r} renders an empty operator (a digit in "
                "\\operatorname{…}? write \\mathrm{…})"
            )
        if "\\" in mathml:  # latex2mathml passes unknown commands through as text
            raise BookError(f"{page}: math {latex!r} uses a command MathML cannot render")
        if re.search(r"<mi>&(?:amp;)?</mi>", mathml):  # an alignment it did not parse
            raise BookError(f"{page}: math {latex!r} has an & outside split or a matrix")
        if tall := _tall_root(latex):
            raise BookError(
                f"{page}: math {latex!r} has a root over {tall!r}; the site's font draws "
                "the root sign at one size (pe_book.fonts.ONE_SIZE), so write a power 1/2"
            )
        if _BRACES.search(latex):
            raise BookError(
                f"{page}: math {latex!r} uses a horizontal brace, which Chromium draws "
                "shorter than its terms and in dashes; name the terms in the prose"
            )
        mathml = _unary_signs(mathml)
        mathml = _upright_names(mathml)
        mathml = _function_spacing(mathml)
        mathml = _NORM_BAR.sub('<mo stretchy="false">&#x02016;</mo>', mathml)
        mathml = _absolute_bars(mathml)
        # \dots, \infty and \top are ordinary symbols in TeX (as \ldots already comes
        # out); as operators Chromium spaced them on both sides: "1,  … ,n", "− ∞", "c ⊤"
        mathml = _ORDINARY.sub(r"<mi>\1</mi>", mathml)
        # a prime at full size beside its base, as text sets "f′": a script-size prime in
        # the math font is a speck above "base"
        mathml = _PRIMED.sub(r'\1<mo lspace="0" rspace="0">&#x02032;</mo>', mathml)
        # a slash is ordinary in TeX too: "d_k/2", not "d_k / 2"; a full stop that ends a
        # display sits against what it ends, as a comma does
        for mark in ("&#x0002F;", "&#x0002E;"):
            mathml = mathml.replace(f"<mo>{mark}</mo>", f'<mo lspace="0" rspace="0">{mark}</mo>')
        # thousands separators, 62{,}832 or 1{,}048{,}576: one number, not a list
        mathml = _GROUPED.sub(
            lambda m: "<mn>" + _TAG.sub("", m.group(0)).replace("&#x0002C;", ",") + "</mn>", mathml
        )
        # \overline: latex2mathml's U+2015 does not stretch in the math font; U+203E
        # (OVERLINE) does, over the whole of its base
        mathml = mathml.replace(
            '<mo accent="true">&#x02015;</mo>', '<mo accent="true">&#x0203E;</mo>'
        )
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
_EMPTY_GROUP = re.compile(r"<mrow\s*/>")
#: Operators after which a following sign ends an operand: closing fences and bars.
_CLOSERS = {"&#x00029;", ")", "&#x0005D;", "]", "&#x0007D;", "}", "&#x0007C;", "|", "&#x02016;"}


#: A prime as latex2mathml writes it: a superscript of one name.
_PRIMED = re.compile(r"<msup>(<(?:mi|mtext)>[^<]*</(?:mi|mtext)>)<mi>&#x02032;</mi></msup>")
_ORDINARY = re.compile(r"<mo>(&#x02026;|&#x0221E;|&#x022A4;)</mo>")
_BAR = re.compile(r'<mo(?: stretchy="false")?>&#x0007C;</mo>')


def _absolute_bars(mathml: str) -> str:
    """Set the bars of ``|m - n|`` as the fences they are: the first of each pair opens,
    the second closes. Between other terms Chromium spaces a bar as an infix operator,
    so ``a \\cdot |b|`` read "a · | b|". A formula with an odd number of bars (a
    conditional, ``p(a | b)``) is left alone."""
    bars = list(_BAR.finditer(mathml))
    if not bars or len(bars) % 2:
        return mathml
    out, last = [], 0
    for k, bar in enumerate(bars):
        form = "postfix" if k % 2 else "prefix"
        out += [mathml[last : bar.start()], f'<mo form="{form}" stretchy="false">&#x0007C;</mo>']
        last = bar.end()
    return "".join(out) + mathml[last:]


def _unary_signs(mathml: str) -> str:
    """Mark a sign that opens an operand as a prefix operator, so it is set as a sign
    (R(−a), = −b) rather than with the spacing of a binary minus."""

    def mark(match: re.Match) -> str:
        tag, content, close, sign = match.groups()
        if close is None:  # right after a start tag: <mrow>, <math …>, <msub> …
            # … but TeX's empty group (``& {} + c``) stands for a left operand
            unary = not tag.startswith("</") and not _EMPTY_GROUP.fullmatch(tag)
        else:  # after an operator: unary unless the operator closes a group
            unary = tag.startswith("<mo") and content not in _CLOSERS
        before = tag + (content or "") + (close or "")
        form = ' form="prefix"' if unary else ""
        return f"{before}<mo{form}>{sign}</mo>"

    return _SIGN.sub(mark, mathml)


#: Matrix environments with delimiters, and the delimiters ``\\left … \\right`` gives them.
_MATRIX_FENCES = {"pmatrix": ("(", ")"), "bmatrix": ("[", "]"), "vmatrix": ("|", "|")}
_MATRIX = re.compile(r"\\(begin|end)\{([pbv])matrix\}")


def _fenced_matrices(latex: str) -> str:
    """``\\begin{pmatrix}…\\end{pmatrix}`` as ``\\left(\\begin{matrix}…\\end{matrix}\\right)``:
    latex2mathml then groups the matrix with its parentheses and marks them stretchy,
    so they grow to the matrix's rows (and to nothing else on the line)."""

    def replace(match: re.Match) -> str:
        left, right = _MATRIX_FENCES[f"{match.group(2)}matrix"]
        if match.group(1) == "begin":
            return f"\\left{left}\\begin{{matrix}}"
        return f"\\end{{matrix}}\\right{right}"

    return _MATRIX.sub(replace, latex)


#: Names the pages write as letters inside math. Set as one upright identifier, so
#: that θ_i = pos·ω_i does not read as the product p·o·s (tests/test_book.py scans
#: every page for such runs).
NAMES = frozenset({"PE", "pos", "model", "head", "dim", "base", "seq", "len"})

#: A ``\\mathrm{…}`` of one letter as latex2mathml writes it: a character reference with
#: no ``mathvariant``, which a browser sets in italic like any one-letter identifier.
_ONE_UPRIGHT = re.compile(r"<mi>&#x000([4-7][0-9A-Fa-f]);</mi>")


def _upright_letter(match: re.Match) -> str:
    letter = chr(int(match.group(1), 16))
    if not letter.isalpha():
        return match.group(0)
    return f'<mi mathvariant="normal">{letter}</mi>'


#: A run of two or more single-letter identifiers that are siblings, and the tag before
#: it; a run right after the start tag of a script, fraction or root is that element's
#: base and scripts, never a name. (Greek letters come as character references.)
_MI_RUN = re.compile(r"(<[^<>]+>)((?:<mi>[A-Za-z]</mi>){2,})")
_UPRIGHT_RUN = re.compile(r'(?:<mi mathvariant="normal">[^<]</mi>){2,}')
_POSITIONAL = re.compile(r"<(msub|msup|msubsup|munder|mover|munderover|mfrac|mroot)\b")


def _upright_names(mathml: str) -> str:
    """One upright ``<mi>`` for a name spelled as italic letters (``pos``, ``PE``) and
    for a ``\\mathrm{…}`` of several letters, which latex2mathml splits into one
    identifier per letter; a ``\\mathrm{…}`` of one letter kept upright (``\\mathrm{i}``)."""

    def name(match: re.Match) -> str:
        before, run = match.groups()
        letters = "".join(re.findall(r"<mi>(.)</mi>", run))
        if letters not in NAMES or _POSITIONAL.match(before):
            return match.group(0)
        return f"{before}<mi>{letters}</mi>"

    def upright(match: re.Match) -> str:
        return f"<mi>{''.join(re.findall(r'>([^<])<', match.group(0)))}</mi>"

    mathml = _ONE_UPRIGHT.sub(_upright_letter, mathml)
    return _MI_RUN.sub(name, _UPRIGHT_RUN.sub(upright, mathml))


#: A norm's bar as latex2mathml writes it: an operator that stretches by default (so
#: an opening bar grew taller than its partner inside a superscript) or, for \\Vert,
#: an identifier set in italic. TeX never stretches \\lVert or \\Vert.
_NORM_BAR = re.compile(r"<m[io](?: fence=\"false\")?(?: stretchy=\"false\")?>&#x02016;</m[io]>")


#: Function names TeX sets upright with a thin space around them (\\sin x, 0.1\\ln s).
FUNCTIONS = frozenset(
    {"sin", "cos", "tan", "ln", "log", "exp", "max", "min", "arg"}
    | {"softmax", "diag", "bucket", "clip", "dropout", "Dropout"}  # the book's own
)
_THIN = '<mspace width="0.1667em"></mspace>'
_TOKEN = re.compile(r"<[^<>]+>|[^<]+")
#: Elements whose children have places (base, script, numerator…): none may be added.
_PLACED = {"msub", "msup", "msubsup", "munder", "mover", "munderover", "mfrac", "mroot"}
#: End tags of what can stand before a function as its left operand.
_OPERAND_ENDS = ("</mi>", "</mn>", "</msub>", "</msup>", "</msubsup>", "</mrow>")
#: Operators after a function name that say it stands alone, as in "(sin, cos)" or
#: "sin² + cos² = 1": no argument follows.
_NO_ARGUMENT = frozenset(",;:)]}+=<>≤≥×·/")


def _function_spacing(mathml: str) -> str:
    """A function name as TeX sets it: one upright identifier applied to its argument
    (U+2061), a thin space from an operand before it, and one before its argument
    unless that opens with a parenthesis: ``0.1 ln s``, ``4 sin² x``, ``max(1, x)``.
    latex2mathml writes the names with no spacing (``lns``) and ``max`` as an operator
    with the wide default spacing of an unknown one. A name with a script (``sin²``,
    ``log₂``) is spaced as a whole; a name that is itself a script (``λ_max``), or
    has no argument after it, is left alone."""
    tokens = _TOKEN.findall(mathml)
    out, parents, k = [], [], 0
    while k < len(tokens):
        end = _function_end(tokens, k)
        if end and not (parents and parents[-1] in _PLACED):
            unit = [
                "<mi>" if t == "<mo>" else "</mi>" if t == "</mo>" else t for t in tokens[k:end]
            ]
            after = "".join(tokens[end : end + 2])
            ends_operand = (
                after.startswith("<mo") and html.unescape(tokens[end + 1]) in _NO_ARGUMENT
            )
            if after.startswith("</") or ends_operand:  # nothing to apply it to: "(sin, cos)"
                out += unit
                k = end
                continue
            if out and (out[-1] in _OPERAND_ENDS or out[-2:] == ["&#x00029;", "</mo>"]):
                out.append(_THIN)
            out += [*unit, "<mo>&#x02061;</mo>"]
            if not (after.startswith("<mo") and after.endswith("&#x00028;")):
                out.append(_THIN)
            k = end
            continue
        token = tokens[k]
        if token.startswith("</"):
            parents.pop()
        elif token.startswith("<") and not token.endswith("/>"):
            parents.append(token[1:].split()[0].rstrip(">"))
        out.append(token)
        k += 1
    return "".join(out)


def _function_end(tokens: list[str], k: int) -> int:
    """The index after the function name starting at ``tokens[k]`` (a bare name, or a
    script element whose base is one), or 0 if none starts there."""

    def name_at(j: int) -> bool:
        return (
            j + 2 < len(tokens)
            and tokens[j] in ("<mi>", "<mo>")
            and tokens[j + 1] in FUNCTIONS
            and tokens[j + 2] in ("</mi>", "</mo>")
        )

    if name_at(k):
        return k + 3
    tag = tokens[k][1:-1]
    if tag in ("msub", "msup", "msubsup") and name_at(k + 1):
        depth = 0
        for j in range(k, len(tokens)):
            if tokens[j].startswith("</"):
                depth -= 1
            elif tokens[j].startswith("<") and not tokens[j].endswith("/>"):
                depth += 1
            if depth == 0:
                return j + 1
    return 0


_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]+>")
_RAW_TEX = re.compile(r"\$\$|\\[()\[\]]|\\[a-zA-Z]{2,}|(?<![\w$])\$[^\s$<][^$<\n]*?\$")


#: A generated table: its caption paragraph, then the table Markdown made of it.
_GENERATED_TABLE = re.compile(
    r'(<p class="table-caption"[^>]*>.*?</p>\s*)<table>(.*?)</table>', re.S
)
_HEADER = re.compile(r"<th(?:\s[^>]*)?>(.*?)</th>", re.S)  # not <thead>
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r"<td((?:\s[^>]*)?)>(.*?)</td>", re.S)
#: A value longer than this (characters of text) sits under its label on a phone card,
#: left-aligned, instead of beside it in a ragged right-aligned column.
LONG_VALUE = 28
#: Tables of at least this many columns whose rows are named by text, or that have at
#: most :data:`CARD_ROWS` rows, become cards.
CARD_COLUMNS = 4
#: A table this short is a handful of cases, not a matrix, even if its rows are numbered.
CARD_ROWS = 8


def card_tables(page_html: str) -> str:
    """Mark wide comparison tables to be shown as one card per row on phones.

    A generated table with :data:`CARD_COLUMNS` or more columns whose first column
    names its rows in text (left-aligned: a model, an encoding, a convention) gets
    ``data-cards``, and every cell its column's header: as text in ``data-label`` and as
    the page sets it (math included) in a ``pe-card-label`` span hidden from assistive
    technology (the table's header row stays for it), which the phone stylesheet shows
    beside the value. So does a table of numbered rows no longer than
    :data:`CARD_ROWS` (a few pairs, offsets or dimensions), marked
    ``data-cards="numbered"``: its cards are titled "pair i = 0", not "0". Longer ones
    are matrices, which keep their grid and scroll sideways. A table registered with
    ``cards=False`` (its caption marked ``data-grid``) keeps its grid too, as
    ``<table data-grid>``: the stylesheet holds its first column in view while the rest
    scrolls.
    """

    def convert(match: re.Match) -> str:
        caption, inner = match.groups()
        if " data-grid" in caption[: caption.index(">")]:
            return f"{caption}<table data-grid>{inner}</table>"
        head, _, body = inner.partition("</thead>")
        shown = _HEADER.findall(head)  # each header as the page sets it, math and all
        headers = [  # and as plain text, for the attribute: math keeps its characters only
            html.escape(" ".join(html.unescape(_TAG.sub(" ", h)).split()), quote=True)
            for h in shown
        ]
        rows = _ROW.findall(body)
        first_cells = [row.split("<td", 2)[1] if "<td" in row else "" for row in rows]
        named = rows and all("text-align: right" not in cell[:40] for cell in first_cells)
        if len(headers) < CARD_COLUMNS or not (named or len(rows) <= CARD_ROWS):
            return match.group(0)

        def label_row(row: re.Match) -> str:
            labels = iter(zip(headers, shown, strict=True))

            def cell(match: re.Match) -> str:
                plain, label = next(labels, ("", ""))
                attributes, content = match.groups()
                text = " ".join(html.unescape(_TAG.sub(" ", content)).split())
                long = " data-long" if len(text) > LONG_VALUE else ""
                return (
                    f'<td data-label="{plain}"{long}{attributes}>'
                    f'<span class="pe-card-label" aria-hidden="true">{label.strip()}</span>'
                    f"{content}</td>"
                )

            return f"<tr>{_CELL.sub(cell, row.group(1))}</tr>"

        # a card of a numbered row is titled with its number and what it numbers
        cards = "<table data-cards>" if named else '<table data-cards="numbered">'
        return f"{caption}{cards}{head}</thead>{_ROW.sub(label_row, body)}</table>"

    return _GENERATED_TABLE.sub(convert, page_html)


#: Inline code as Markdown writes it (no markup inside; highlighted code has spans).
_INLINE_CODE = re.compile(r"(\()?<code>([^<]*)</code>([.,;:!?)\]]+)?")
#: Inline code this short (in characters) never breaks: it fits a phone's column whole.
SHORT_CODE = 32
_HYPHENATED = re.compile(r"[^\s-]*-[^\s]*")
_PRE = re.compile(r"(<pre\b.*?</pre>)", re.S)
_TABLE_ELEMENT = re.compile(r"(<table\b.*?</table>)", re.S)


def unbroken_options(page_html: str) -> str:
    """Inline code kept from breaking where a reader would stumble. Code of at most
    :data:`SHORT_CODE` characters (``initializer_range = 0.02``, a command) stays on one
    line, with the bracket before it and the punctuation after it, except in a table,
    where it would starve the other columns; in longer code and in tables each
    word that carries a hyphen (``--precision``, ``rope-type``) stays whole, so a narrow
    line never breaks it after its ``--``. The text is unchanged (a copied option still
    works); code blocks are left alone.

    >>> unbroken_options("<p>set (<code>seq_len</code>).</p>")
    '<p>set <span class="pe-nobreak">(<code>seq_len</code>).</span></p>'
    >>> long = "python -m pe_explained table --out FILE --positions 100"
    >>> unbroken_options(f"<p>run <code>{long}</code></p>").count("pe-nobreak")  # -m, --…
    3
    >>> unbroken_options("<pre><code>--out</code></pre>")
    '<pre><code>--out</code></pre>'
    >>> unbroken_options("<table><td><code>a b</code></td></table>")
    '<table><td><code>a b</code></td></table>'
    """

    def code(match: re.Match, whole: bool = True) -> str:
        before, text, after = match.group(1) or "", match.group(2), match.group(3) or ""
        if whole and len(html.unescape(text)) <= SHORT_CODE:
            return f'<span class="pe-nobreak">{before}<code>{text}</code>{after}</span>'
        words = _HYPHENATED.sub(r'<span class="pe-nobreak">\g<0></span>', text)
        return f"{before}<code>{words}</code>{after}"

    def prose(text: str) -> str:
        # in a table's cell whole code would starve the other columns on a phone
        parts = _TABLE_ELEMENT.split(text)  # odd parts are tables
        return "".join(
            _INLINE_CODE.sub(lambda m, k=k: code(m, whole=not k % 2), p)
            for k, p in enumerate(parts)
        )

    parts = _PRE.split(page_html)  # odd parts are code blocks
    return "".join(p if k % 2 else prose(p) for k, p in enumerate(parts))


_INLINE_MATH_SPAN = re.compile(
    r"(\()?(<span class=\"arithmatex\"><math\b[^>]*display=\"inline\"[^>]*>.*?</math></span>)"
    r"((?:(?:[’']|&rsquo;)s|[.,;:!?)\]])+)?",  # and a possessive: "position $i$’s output"
    re.S,
)


def bound_punctuation(page_html: str) -> str:
    """Inline math kept on one line with the bracket before it and the punctuation (or
    possessive ’s) after it, so that a narrow line never starts with a lone ``.``, ``)``
    or ``’s`` after a formula.

    >>> m = '<span class="arithmatex"><math display="inline"><mi>x</mi></math></span>'
    >>> bound_punctuation(f"is ({m}).") == f'is <span class="pe-nobreak">({m}).</span>'
    True
    >>> bound_punctuation(f"a {m} b") == f"a {m} b"
    True
    """

    def bind(match: re.Match) -> str:
        before, math, after = match.group(1) or "", match.group(2), match.group(3) or ""
        if not before and not after:
            return math
        return f'<span class="pe-nobreak">{before}{math}{after}</span>'

    return _INLINE_MATH_SPAN.sub(bind, page_html)


#: A reference by number, "chapter 9", "Table 3.2": its word and its number.
_NUMBERED = re.compile(r"\b((?:[Cc]hapters?|[Cc]h\.|Figure|Table|[Pp]art)) (\d|[IV]+\b|A\.\d)")
#: A product of two numbers, "8 × 256", or a step from one to another, "7 → 8".
_PRODUCT = re.compile(r"(\d) ([×→]) (\d)")
#: A range of numbers, "1,117–4,080": word joiners around the dash keep it whole.
_RANGE = re.compile(r"(\d)–(\d)")
#: "Shaw et al." in running text (a citation joins its own, :func:`cite_markdown`).
_ET_AL = re.compile(r"(\w) et al\.")


def joined_numbers(page_html: str) -> str:
    """ "chapter 9", "Figure 3.2", "Part IV" with a no-break space, so that a line never
    ends on "(chapter" with the number on the next; "8 × 256", "7 → 8", "Shaw et al."
    and a range "1,117–4,080" kept whole likewise; code blocks are left alone.

    >>> joined_numbers("see (chapter 9), Figure 3.2").split(" ")  # no-break spaces inside
    ['see', '(chapter\\xa09),', 'Figure\\xa03.2']
    >>> joined_numbers("8 × 256 tokens").split(" ")
    ['8\\xa0×\\xa0256', 'tokens']
    >>> joined_numbers("(Shaw et al.)")
    '(Shaw\\xa0et\\xa0al.)'
    >>> joined_numbers("1,117–4,080") == "1,117\\u2060–\\u20604,080"
    True
    """

    def join(text: str) -> str:
        text = _RANGE.sub("\\1\u2060–\u2060\\2", _ET_AL.sub("\\1\u00a0et\u00a0al.", text))
        return _PRODUCT.sub("\\1\u00a0\\2\u00a0\\3", _NUMBERED.sub("\\1\u00a0\\2", text))

    parts = _PRE.split(page_html)
    return "".join(p if k % 2 else join(p) for k, p in enumerate(parts))


def finish_html(page_html: str, page: str) -> str:
    """A chapter's HTML as the site shows it: its math set (:func:`render_math`), each
    inline formula bound to its punctuation (:func:`bound_punctuation`), wide comparison
    tables marked as cards (:func:`card_tables`), inline code kept from bad breaks
    (:func:`unbroken_options`) and numbered references joined to their numbers
    (:func:`joined_numbers`)."""
    html = bound_punctuation(render_math(page_html, page))
    return joined_numbers(unbroken_options(card_tables(html)))
