"""A bound the prose states ("no cosine above 0.31", "off by at most 3.0×10⁻⁸") stays
true once rounded: an upper bound is rounded up and a lower bound down
(:func:`pe_book.text.format_bound`), never to the nearest.

Chapter 9 once said that no two positions of a fresh learned table have a cosine above
0.30; the largest is 0.3042, and ``.2f`` had rounded the bound into a false statement.
Every value that a page writes right after a word of comparison ("above", "within",
"at most", …) declares its side where it is registered, ``@value(name, bound=("upper",
".2f"))`` on a function returning the exact number (the registry rounds it outward), or
is listed in :data:`BOUNDS` with its side and the exact number it bounds, unless it is a
whole number (a count, exact as written) or a chapter's constant.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pe_book import VALUES, load_all
from pe_book.pages.shortcodes import outside_fences
from pe_book.text import format_bound, format_cell

DOCS = Path(__file__).resolve().parent.parent / "docs"


def _passkey_cell_se():
    from pe_book.chapters.evidence import claims

    return claims.passkey_cell_se()


def _passkey_learned_best():
    from pe_book.chapters.evidence import claims

    return claims.passkey_best("learned")


def _gpt_oss_change():
    from pe_book.chapters.todays_models import hybrids

    return hybrids.gpt_oss_largest_change()


#: Value → (side, the exact number it bounds), for bounds whose chapter formats the text
#: itself; a new bound is declared where it is registered instead (``@value(…, bound=…)``,
#: read by :func:`bounds`). "upper": the text must be ≥ the number.
BOUNDS = {
    "evidence.passkey_learned_best": ("upper", _passkey_learned_best),  # "at most"
    "evidence.passkey_cell_se": ("upper", _passkey_cell_se),  # "at most"
    "todays_models.gpt_oss_largest_change": ("upper", _gpt_oss_change),  # "by up to"
}


load_all()


def bounds() -> dict:
    """Every bound the registry knows: declared with its value (``@value(name,
    bound=(side, spec))``: the exact number is what the value's function returns) and
    listed in :data:`BOUNDS`."""
    load_all()
    declared = {name: (spec.bound[0], spec.exact) for name, spec in VALUES.items() if spec.bound}
    return {**declared, **BOUNDS}


def _score_extremes(route: str):
    def extremes():
        from pe_book.chapters import precision

        values = precision._score_errors()[route]
        return min(values), max(values)

    return extremes


def _counter_steps():
    from pe_book.chapters import intuitions

    steps = intuitions._counter_steps()["counter"]
    return float(steps.min()), float(steps.max())


#: Value → the exact smallest and largest number of a range the prose states ("off by
#: 7.3×10⁻⁴ to 8.6×10⁻⁴"): the first end must be rounded down, the last up. Chapter 20
#: once rounded both to the nearest, "7.4×10⁻⁴ to 8.5×10⁻⁴" for 7.388 to 8.517×10⁻⁴.
RANGES = {
    "precision.score_bf16_range": _score_extremes("float64 angles; q, k in bfloat16"),
    "precision.score_fp8_range": _score_extremes("float64 angles; q in bfloat16, k in FP8 E4M3"),
    "intuitions.counter_step_range": _counter_steps,
}

#: Listed bounds that are still rounded to the nearest, and false: each fails its test
#: (strictly: the entry must go once the chapter rounds the bound outward).
NOT_YET_OUTWARD: dict[str, str] = {}

_COMPARISON = (
    r"(?:at most|at least|no more than|no less than|never more than|more than|less than|"
    r"fewer than|smaller than|larger than|greater than|above|below|under|over|within|"
    r"up to|beyond|exceeds?|≤|≥|<|>)"
)
_STATED = re.compile(rf"{_COMPARISON}\s+\$?\{{\{{ value: ([\w.]+)(:[^ }}]*)? \}}\}}")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def number(text: str) -> float:
    """The number a value's text writes: ``6.1×10⁻⁵``, ``−0.25``, ``1,024``, ``12%``.

    >>> number("6.1×10⁻⁵"), number("−0.25"), number("1,024"), number("12.5%")
    (6.1e-05, -0.25, 1024.0, 0.125)
    """
    plain = text.replace("−", "-").replace(",", "")
    if "×10" in plain:
        mantissa, exponent = plain.split("×10")
        return float(mantissa) * 10.0 ** int(exponent.translate(_SUPERSCRIPT))
    if plain.endswith("%"):
        return float(plain[:-1]) / 100
    return float(plain)


def holds(text: str, side: str, exact: float) -> bool:
    """Whether the bound ``text`` states is true of ``exact``."""
    return number(text) >= exact if side == "upper" else number(text) <= exact


def stated_bounds(docs: Path = DOCS) -> dict[str, list[str]]:
    """Values written right after a word of comparison, with the pages that write them."""
    found: dict[str, list[str]] = {}
    for page in sorted(docs.rglob("*.md")):
        if "overrides" in page.parts:
            continue
        lines = page.read_text(encoding="utf-8").splitlines()
        kept = [line for line, out in zip(lines, outside_fences(lines), strict=True) if out]
        prose = " ".join(kept)
        for match in _STATED.finditer(re.sub(r"\s+", " ", prose)):
            found.setdefault(match.group(1), []).append(page.relative_to(docs).as_posix())
    return found


def test_every_stated_bound_is_listed():
    load_all()
    unlisted = {
        name: pages
        for name, pages in stated_bounds().items()
        if name not in bounds()
        and not VALUES[name].constant
        and not re.fullmatch(r"[\d,]+", VALUES[name].text())
    }
    assert not unlisted, (
        f"bounds stated without a side and an exact value: {unlisted}; register each with "
        '@value(NAME, bound=("upper" or "lower", SPEC)) returning the exact number'
    )
    stated = stated_bounds()
    unstated = [name for name in bounds() if name not in stated]
    assert not unstated, (
        f"bounds no page states: {unstated}; drop bound= from the @value (or its BOUNDS "
        "entry), or write the value after a word of comparison"
    )


def test_no_bound_is_both_declared_and_listed():
    load_all()
    both = [name for name in BOUNDS if VALUES[name].bound]
    assert not both, f"{both}: keep the bound= of the @value and delete the BOUNDS entry"


def test_a_declared_bound_is_written_rounded_outward_and_a_bad_one_refused():
    from pe_book import ValueSpec, value

    upper = ValueSpec("t.up", lambda: 0.3042, bound=("upper", ".2f"))
    lower = ValueSpec("t.low", lambda: 0.3042, bound=("lower", ".2f"))
    assert (upper.text(), lower.text(), upper.exact()) == ("0.31", "0.30", 0.3042)
    with pytest.raises(TypeError, match="exact number"):
        ValueSpec("t.text", lambda: "0.31", bound=("upper", ".2f")).text()
    for bad in (("up", ".2f"), ("upper",), "upper", ("lower", 2)):
        with pytest.raises(ValueError, match="bound must be"):
            value("t", bound=bad)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=NOT_YET_OUTWARD[n], strict=True))
        if n in NOT_YET_OUTWARD
        else n
        for n in sorted(bounds())
    ],
)
def test_a_stated_bound_is_rounded_outward(name):
    side, exact = bounds()[name]
    text = VALUES[name].text()
    assert holds(text, side, exact()), (
        f"{name} = {text} is no {side} bound of {exact()!r}: write it with "
        f'format_bound(..., side="{side}") or declare @value(..., bound=("{side}", SPEC))'
    )


def stated_ranges() -> dict[str, str]:
    """Every computed value that writes a range, "A to B", with an end that is no whole
    number (a range of counts is exact as written)."""
    load_all()
    found = {}
    for name, spec in VALUES.items():
        if spec.constant:
            continue
        ends = spec.text().split(" to ")
        if len(ends) != 2:
            continue
        try:
            low, high = (number(end) for end in ends)
        except ValueError:
            continue
        if not (low.is_integer() and high.is_integer()):
            found[name] = spec.text()
    return found


def test_every_stated_range_is_listed():
    found, listed = set(stated_ranges()), set(RANGES)
    assert found == listed, (
        f"ranges not listed: {sorted(found - listed)}, listed but gone: "
        f"{sorted(listed - found)}; list each range's exact ends in RANGES"
    )


@pytest.mark.parametrize("name", sorted(RANGES))
def test_a_stated_range_is_rounded_outward(name):
    load_all()
    low_text, high_text = VALUES[name].text().split(" to ")
    low, high = RANGES[name]()
    assert holds(low_text, "lower", low), f"{name}: {low_text} is above {low!r}"
    assert holds(high_text, "upper", high), f"{name}: {high_text} is below {high!r}"


def test_the_range_check_fails_on_chapter_20s_old_ranges():
    low, high = RANGES["precision.score_bf16_range"]()
    assert not holds(format_cell(low, ".1e"), "lower", low)
    assert not holds(format_cell(high, ".1e"), "upper", high)


def test_the_check_fails_on_the_old_rounding():
    """Chapter 9's bound with ``.2f``, as it was, is false; rounded outward it is true."""
    from pe_book.chapters import learned

    exact = learned.init_max_cosine()
    assert not holds(f"{exact:.2f}", "upper", exact)
    assert holds(format_bound(exact, ".2f", side="upper"), "upper", exact)
    assert "learned.init_max_cosine" in stated_bounds()


@pytest.mark.parametrize(
    ("value", "spec", "side", "text"),
    [
        (0.3042, ".2f", "upper", "0.31"),
        (0.3042, ".2f", "lower", "0.30"),
        (0.3, ".2f", "upper", "0.30"),  # 0.3 is just below 0.30 in binary: still 0.30
        (0.31, ".2f", "lower", "0.30"),  # 0.31 is just below 0.31 in binary
        (-0.3042, ".2f", "upper", "−0.30"),
        (-0.3042, ".2f", "lower", "−0.31"),
        (6.0289e-05, ".1e", "upper", "6.1×10⁻⁵"),
        (6.0289e-05, ".1e", "lower", "6.0×10⁻⁵"),
        (9.96e-5, ".1e", "upper", "1.0×10⁻⁴"),
        (0.0019154, ".2e", "upper", "0.00192"),
        (2.98023e-08, ".1e", "upper", "3.0×10⁻⁸"),
        (1234.5, ",.0f", "upper", "1,235"),
        (0.0, ".2f", "upper", "0"),
    ],
)
def test_format_bound_rounds_outward(value, spec, side, text):
    assert format_bound(value, spec, side=side) == text
    assert holds(text, side, value)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"value": 1.0, "spec": ".2g", "side": "upper"}, ValueError, "spec"),
        ({"value": 1.0, "spec": ".2f", "side": "up"}, ValueError, "side"),
        ({"value": float("nan"), "spec": ".2f", "side": "upper"}, ValueError, "value"),
        ({"value": "0.3", "spec": ".2f", "side": "upper"}, TypeError, "value"),
        ({"value": True, "spec": ".2f", "side": "upper"}, TypeError, "value"),
    ],
)
def test_format_bound_refuses_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        format_bound(**kwargs)


def test_the_float32_bounds_describe_the_example_on_the_page():
    """Chapter 3 states the two float32 errors of its example: the example must compute
    the table the chapter's values are computed on."""
    from pe_book.chapters import sinusoidal

    page = (DOCS / "foundations" / "sinusoidal.md").read_text(encoding="utf-8")
    size = f"num_positions, d_model = {sinusoidal.FLOAT32_POSITIONS}, {sinusoidal.FLOAT32_D_MODEL}"
    assert f">>> {size}\n" in page
