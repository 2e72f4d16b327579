"""The typography stage: line breaks where a reader expects them in a page's HTML.

* :func:`bound_punctuation` keeps inline math with the bracket before it and the
  punctuation after it;
* :func:`unbroken_options` keeps short inline code whole, and hyphenated options whole
  in longer code;
* :func:`joined_numbers` joins "chapter 9", "Figure 3.2", "8 × 256", "Shaw et al." and
  number ranges with no-break spaces or word joiners.

The text is unchanged; code blocks are left alone.
"""

from __future__ import annotations

import html
import re

__all__ = ["bound_punctuation", "joined_numbers", "unbroken_options"]


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
#: "Shaw et al." in running text (a citation joins its own:
#: :func:`pe_book.pages.citations.cite_markdown`).
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
