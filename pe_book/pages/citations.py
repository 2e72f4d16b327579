"""Citations and reference lists: how a page cites a work and lists its references.

The shortcodes ``{{ cite: key, … }}``, ``{{ citet: key }}``, ``{{ references: key, … }}``
and ``{{ bibliography: all }}`` (:mod:`pe_book.pages.shortcodes`) write their Markdown
with these functions, from the reference list :data:`pe_book.references.REFERENCES`.
"""

from __future__ import annotations

import re

from ..references import REFERENCES
from .base import BIBLIOGRAPHY_PAGE, relative

__all__ = ["bibliography", "cite_markdown", "references_markdown"]


def cite_markdown(keys: str | list[str], page: str, style: str = "parenthetical") -> str:
    """Author–year citations of ``keys``, each linked to its bibliography entry.

    ``parenthetical``: "(Press et al., 2022; Su et al., 2021)", after what is cited;
    ``bare``: the same without parentheses, inside a parenthesis of the sentence;
    ``textual``: "Press et al. (2022)", as the subject or object of a sentence.
    """
    keys = [keys] if isinstance(keys, str) else keys
    link = relative(BIBLIOGRAPHY_PAGE, page)
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


def in_parenthesis(before: str) -> bool:
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
    link = relative(BIBLIOGRAPHY_PAGE, page)
    ordered = sorted(keys, key=_reference_order)  # the keys are known (expand_shortcodes)
    # a no-break space: the arrow never ends a line without its word
    return "\n".join(f"- {reference_item(k)} [↗\u00a0bibliography]({link}#{k})" for k in ordered)


def bibliography() -> str:
    """Every reference, sorted by the label its citations print and by year (the label,
    "Press et al." or "Okabe and Ito", opens with the first author's surname, or names a
    team: "Llama Team"), each with an anchor."""
    items = sorted(REFERENCES.items(), key=lambda kv: _reference_order(kv[0]))
    return "\n".join(f'- <span id="{k}"></span>{reference_item(k)}' for k, _ in items)


def split_keys(argument: str) -> list[str]:
    """The keys of a shortcode's argument: ``"a, b"`` gives ``["a", "b"]``."""
    return [k.strip() for k in argument.split(",") if k.strip()]
