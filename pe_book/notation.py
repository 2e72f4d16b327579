"""How the book writes its symbols outside the prose: captions, table headers, figure text.

The prose sets symbols as math (``$d_{\\text{model}}$``, ``$\\omega_i$``). Chapter
modules write captions, table headers and figure labels in plain text, as a reader
would type them (``d_model = 512``, ``2π/ω_i``, ``‖PE(p+k) − PE(p)‖``);
:func:`math_notation` turns the symbols into the same math, once, for every page:
captions and headers become ``$…$`` (MathML, like the prose), figure text becomes
matplotlib mathtext. Text already inside ``$…$`` is left alone. ``tests/test_book.py``
holds every caption, header and figure text to it.
"""

from __future__ import annotations

import re

__all__ = ["DM", "math_notation", "tex"]

#: The model width, as the glossary writes it.
DM = r"d_{\mathrm{model}}"

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
    (r"λ_max\b", r"\lambda_{\max}"),
    (r"ω_([a-z0-9])\b", None),
    (r"θ_([a-z0-9])\b", None),
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
    """The TeX of a plain-text formula: ``√(d_model/2)`` → ``\\sqrt{d_{\\mathrm{model}}/2}``."""

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
            if s[0] in "ωθ":
                return {"ω": r"\omega", "θ": r"\theta"}[s[0]] + f"_{m.group(1)}"
            return f"{m.group(1)}_k"  # M_k, D_k
        return s

    text = re.sub(r"(?<=\d),(?=\d{3})", "{,}", text)  # 4,096: a separator, not a comma
    return _NAME.sub(one, text)


# A formula inside a caption: a norm ‖…‖ (with an optional ²), or a run of names and
# the numbers, operators and brackets that hang on them ("d_model = 512", "2π/ω_i").
_NORM = r"‖[^‖]+‖²?"
_ATOM = (
    r"N\(0, 1/d_model\)|d_model\^[−-]½|2π/ω_i|\d+\^\([^()]*\)|√\([^()]*\)|√\w+"
    r"|\bd_model\b|λ_max\b|[ωθ]_[a-z0-9]\b|\b[MD]_k\b|Σ_i\b"
)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_TERM = rf"(?:{_NORM}|{_ATOM})"
_FORMULA = re.compile(
    rf"{_TERM}(?:\s*[/·×]\s*(?:{_TERM}|\d+))*"
    rf"(?:\s*=\s*(?:{_TERM}|(?:{_NUMBER})(?![\w]))(?:\s*[/·×]\s*(?:{_TERM}|\d+))*)?"
)
_MATH = re.compile(r"\$[^$]*\$")


def math_notation(text: str) -> str:
    """``text`` with its plain-text symbols set as ``$…$`` math (outside existing ``$…$``).

    >>> math_notation("PE for d_model = 8, wavelength 2π/ω_i")
    'PE for $d_{\\\\mathrm{model}} = 8$, wavelength $2\\\\pi/\\\\omega_i$'
    """
    pieces, last = [], 0
    for math in _MATH.finditer(text):
        pieces.append(_FORMULA.sub(lambda m: f"${tex(m.group(0))}$", text[last : math.start()]))
        pieces.append(math.group(0))
        last = math.end()
    pieces.append(_FORMULA.sub(lambda m: f"${tex(m.group(0))}$", text[last:]))
    return "".join(pieces)
