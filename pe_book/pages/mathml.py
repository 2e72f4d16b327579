"""The MathML stage: arithmatex's ``\\(…\\)`` / ``\\[…\\]`` spans of a page's HTML
set as MathML (latex2mathml), so that formulas render with no script and no network,
then mended where latex2mathml or Chromium would set them otherwise than TeX does:
signs, bars, names upright (:data:`NAMES`), function spacing (:data:`FUNCTIONS`),
primes, slashes, thousands separators, overlines.

Math the site cannot draw well (a root over a fraction, a horizontal brace, an
unknown command) raises :class:`~pe_book.pages.base.BookError` naming the page.
"""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert as latex_to_mathml

from .base import TAG, BookError

__all__ = ["FUNCTIONS", "NAMES", "render_math"]

#: HTML whose text is never math: code, scripts and styles.
_CODE = re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S)
#: TeX left in the text once the math is set: math the Markdown stage did not recognise.
_RAW_TEX = re.compile(r"\$\$|\\[()\[\]]|\\[a-zA-Z]{2,}|(?<![\w$])\$[^\s$<][^$<\n]*?\$")

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
            lambda m: "<mn>" + TAG.sub("", m.group(0)).replace("&#x0002C;", ",") + "</mn>", mathml
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
    text = TAG.sub(" ", _CODE.sub("", result))
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
