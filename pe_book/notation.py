"""How the book writes its symbols outside the prose: captions, table headers, figure text.

The prose sets symbols as math (``$d_{\\text{model}}$``, ``$\\omega_i$``). Chapter
modules write captions, table headers and figure labels in plain text, as a reader
would type them (``d_model = 512``, ``2π/ω_i``, ``‖PE(pos+k) − PE(pos)‖``);
:func:`math_notation` turns the symbols into the same math, once, for every page:
captions and headers become ``$…$`` (MathML, like the prose), figure text becomes
matplotlib mathtext. Text already inside ``$…$`` is left alone. ``tests/test_book.py``
holds every caption, header and figure text to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DM", "SYMBOLS", "TEX_SPAN", "Symbol", "glossary_term", "math_notation", "tex"]


@dataclass(frozen=True)
class Symbol:
    """One symbol of the book, as the glossary defines it and every page writes it.

    ``math``: its TeX in formulas (one or more); ``code``: its names in the library and in
    Hugging Face configurations; ``word``: a name in words, when it has one; ``page``: the
    chapter that introduces it (a path under ``docs/``); ``avoid``: spellings of the same
    symbol that must not appear in any formula of the book (``tests/test_notation.py``);
    ``anchors``: further anchors of its glossary entry.
    """

    anchor: str
    meaning: str
    page: str
    math: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    word: str = ""
    avoid: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()


_F, _M, _MO = "foundations/", "model/", "modern/"

#: The book's symbols, in the glossary's order: the single source of its notation. The
#: glossary's entries and its table of symbols are written from it, captions and figure
#: text set their symbols with it (:func:`math_notation`), and the test of the notation
#: holds every page, notebook and chapter module to it.
SYMBOLS: dict[str, Symbol] = {
    s.anchor: s
    for s in (
        Symbol(
            "d_model",
            "width of the token vectors",
            _F + "order-problem.md",
            (r"d_{\text{model}}",),
            ("d_model", "hidden_size"),
            avoid=(r"\mathrm{model}", r"\mathrm{{model}}", r"d_{model}", r"d_\text{model}"),
        ),
        Symbol(
            "head_dim",
            "width of one head's queries and keys",
            _F + "order-problem.md",
            ("d_k",),
            ("head_dim",),
            avoid=(r"\text{head_dim}", r"\text{head\_dim}", r"\mathrm{head_dim}"),
        ),
        Symbol(
            "num_heads",
            "attention heads per layer",
            _M + "where-position-enters.md",
            ("h",),
            ("num_heads", "num_attention_heads"),
        ),
        Symbol(
            "seq_len",
            "tokens in the sequence",
            _F + "order-problem.md",
            ("L",),
            ("seq_len",),
            avoid=(r"\text{seq_len}", r"\text{seq\_len}"),
        ),
        Symbol(
            "max_len",
            "longest sequence a table was built for",
            _F + "simpler-schemes.md",
            (r"L_{\max}",),
            ("max_len", "max_position_embeddings"),
            avoid=(r"\text{max_len}", r"\text{max\_len}", r"L_{max}", r"L_{\text{max}}"),
        ),
        Symbol(
            "pos",
            "a token's position, from 0",
            _F + "simpler-schemes.md",
            ("pos",),
            ("pos", "positions"),
        ),
        Symbol("k", "an offset between two positions", _F + "simpler-schemes.md", ("k",)),
        Symbol("m-n", "relative position of query $m$ and key $n$", _M + "relative.md", ("m - n",)),
        Symbol("q-k", "query at position $m$, key at $n$", _MO + "rope.md", ("q_m", "k_n")),
        Symbol("i", "pair index: dimensions $2i$ and $2i+1$", _F + "sinusoidal.md", ("i",)),
        Symbol(
            "base",
            "base of the frequency ladder",
            _F + "sinusoidal.md",
            (r"\text{base}",),
            ("base", "rope_theta"),
        ),
        Symbol(
            "omega",
            "angular frequency of pair $i$",
            _F + "sinusoidal.md",
            (r"\omega_i",),
            ("omega",),
        ),
        Symbol(
            "wavelength",
            "positions after which pair $i$ repeats",
            _F + "sinusoidal.md",
            (r"\lambda_i",),
            word="wavelength",
        ),
        Symbol("theta", "an angle in radians", _F + "properties.md", (r"\theta",), ("theta",)),
        Symbol(
            "layout",
            "column order of a sinusoidal table",
            _F + "sinusoidal.md",
            (),
            ("layout",),
            word="column order",
        ),
        Symbol(
            "embedding",
            "a token's vector",
            _F + "adding-position.md",
            ("e",),
            word="token embedding",
        ),
        Symbol(
            "pe",
            "encoding vector of a position ($p$ for short)",
            _F + "order-problem.md",
            ("PE(pos)", "p"),
            ("pe",),
        ),
        Symbol(
            "embedding-scale",
            "factor on token embeddings",
            _F + "adding-position.md",
            (r"\sqrt{d_{\text{model}}}",),
            word="embedding scale",
        ),
        Symbol(
            "dropout",
            "probability of zeroing an entry",
            _F + "adding-position.md",
            (r"P_{\text{drop}}",),
            ("dropout_rate",),
        ),
        Symbol("slope", "ALiBi's slope of head $h$", _MO + "alibi.md", ("m_h",), word="slope"),
        Symbol(
            "scale",
            "context-extension factor",
            _MO + "context-extension.md",
            ("s",),
            ("scale", "factor"),
            anchors=("factor",),
        ),
    )
}

#: The model width, as the glossary writes it (mathtext and MathML alike).
DM = SYMBOLS["d_model"].math[0]


def glossary_term(anchor: str) -> str:
    """The term line of a glossary entry: its anchors, then its math, code names and word.

    >>> glossary_term("head_dim")
    '<span id="head_dim"></span>$d_k$, `head_dim`'
    """
    if anchor not in SYMBOLS:
        raise KeyError(f"unknown symbol {anchor!r}; known: {', '.join(SYMBOLS)}")
    s = SYMBOLS[anchor]
    spans = "".join(f'<span id="{a}"></span>' for a in (s.anchor, *s.anchors))
    # what the symbols table shows first (a formula, else the word), then the code names
    shown = [f"${m}$" for m in s.math] or [s.word] * bool(s.word)
    later = [s.word] * bool(s.word and s.math)
    names = shown + [f"`{c}`" for c in s.code] + later
    return spans + ", ".join(names)


# Plain-text names and their TeX, longest first. Greek letters with a subscript, the
# widths, and the few operators the captions use.
_NAMES = [
    (r"N\(0, 1/d_model\)", rf"\mathcal{{N}}(0, 1/{DM})"),
    (r"d_model\^[−-]½", rf"{DM}^{{-1/2}}"),
    (r"2π/ω_i", r"2\pi/\omega_i"),
    (r"(\d+)\^\(([−-]?)([^()]*)\)", None),  # 10000^(−2i/d) → 10000^{-2i/d}
    (r"√\(([^()]*)\)", None),  # √(d_model/2) → \sqrt{…}
    (r"√(d_model|head_dim|d_k|d)\b", None),  # √d_model → \sqrt{d_model}
    (r"\bd_model\b", DM),
    (r"\bhead_dim\b", SYMBOLS["head_dim"].math[0]),
    (r"\bseq_len\b", SYMBOLS["seq_len"].math[0]),
    (r"\bnum_heads\b", SYMBOLS["num_heads"].math[0]),
    (r"λ_max\b", r"\lambda_{\max}"),
    (r"ω_([a-z0-9])\b", None),
    (r"θ_([a-z0-9])\b", None),
    (r"ζ_([a-z0-9])\b", None),
    (r"\b([MD])_k\b", None),
    (r"Σ_i\b", r"\sum_i"),
    (r"π", r"\pi"),
    (r"−", "-"),
    (r"·", r"\cdot "),
    (r"×", r"\times "),
    (r"²", "^2"),
    (r"‖", r"\|"),
]
_NAME = re.compile("|".join(f"(?:{pattern})" for pattern, _ in _NAMES))


def tex(text: str) -> str:
    """The TeX of a plain-text formula: ``√(d_model/2)`` → ``\\sqrt{d_{\\text{model}}/2}``."""

    def one(match: re.Match) -> str:
        s = match.group(0)
        for pattern, replacement in _NAMES:
            m = re.fullmatch(pattern, s)
            if m is None:
                continue
            if replacement is not None:
                return replacement
            if s.startswith("√"):  # √(…) or √name
                return rf"\sqrt{{{tex(m.group(1))}}}"
            if "^(" in s:
                sign = "-" if m.group(2) else ""
                return rf"{m.group(1)}^{{{sign}{tex(m.group(3))}}}"
            if s[0] in "ωθζ":
                return {"ω": r"\omega", "θ": r"\theta", "ζ": r"\zeta"}[s[0]] + f"_{m.group(1)}"
            return f"{m.group(1)}_k"  # M_k, D_k
        return s

    text = re.sub(r"(?<=\d),(?=\d{3})", "{,}", text)  # 4,096: a separator, not a comma
    return _NAME.sub(one, text)


# A formula inside a caption: a norm ‖…‖ (with an optional ²), or a run of names and
# the numbers, operators and brackets that hang on them ("d_model = 512", "2π/ω_i").
_NORM = r"‖[^‖]+‖²?"
_ATOM = (
    r"N\(0, 1/d_model\)|d_model\^[−-]½|2π/ω_i|\d+\^\([^()]*\)|√\([^()]*\)|√\w+"
    r"|\bd_model\b|\bhead_dim\b|\bseq_len\b|\bnum_heads\b|λ_max\b|[ωθζ]_[a-z0-9]\b|\b[MD]_k\b|Σ_i\b"
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_TERM = rf"(?:{_NORM}|{_ATOM})"
_FORMULA = re.compile(
    rf"{_TERM}(?:\s*[/·×]\s*(?:{_TERM}|\d+))*"
    rf"(?:\s*=\s*(?:{_TERM}|(?:{_NUMBER})(?![\w]))(?:\s*[/·×]\s*(?:{_TERM}|\d+))*)?"
)
#: A ``$…$`` span of inline TeX, captured (so ``split`` keeps it): the one pattern
#: captions, table cells and figure text are cut into math and text by.
TEX_SPAN = re.compile(r"(\$[^$]*\$)")


def math_notation(text: str) -> str:
    """``text`` with its plain-text symbols set as ``$…$`` math (outside existing ``$…$``).

    >>> math_notation("PE for d_model = 8, wavelength 2π/ω_i")
    'PE for $d_{\\\\text{model}} = 8$, wavelength $2\\\\pi/\\\\omega_i$'
    """
    pieces, last = [], 0
    for math in TEX_SPAN.finditer(text):
        pieces.append(_FORMULA.sub(lambda m: f"${tex(m.group(0))}$", text[last : math.start()]))
        pieces.append(math.group(0))
        last = math.end()
    pieces.append(_FORMULA.sub(lambda m: f"${tex(m.group(0))}$", text[last:]))
    return "".join(pieces)
