"""The benchmarks of ``scripts/`` run, print cold and warm lines, and compare like with like.

Each benchmark runs here at a tiny size: it must check its peer, print the
limit and a library line and a peer line for both the cold case (tables
computed) and the warm case (tables reused), and end with its verdicts. There
is no timing assertion on real code: the ratios are the benchmarks' business,
printed in CI. The timing helpers of ``benchlib`` are tested with a fake clock
and with made-up times, whose median ratios are known.
"""

from __future__ import annotations

import doctest
import importlib.util
import itertools
import re
import statistics
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import pe_explained.rope
from pe_explained import alibi_bias, apply_rope, rope_frequencies, sinusoidal

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def _load(name: str):
    """Import ``scripts/<name>.py`` (the scripts import ``benchlib`` by that name)."""
    if name in sys.modules:
        return sys.modules[name]
    if name != "benchlib":
        _load("benchlib")
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


benchlib = _load("benchlib")

TINY = {  # script -> arguments of its run() at a size that takes milliseconds
    "bench_sinusoidal": {"num_positions": 70, "d_model": 8},
    "bench_alibi": {"num_heads": 2, "seq_len": 16},
    "bench_rope": {"shape": (1, 2, 70, 8)},
}
LINE = re.compile(r"^(limit|cold|warm) {2}(.+?) +\d+\.\d{2} ms(?:  ratio +\d+\.\d{2})?$")
VERDICT = re.compile(r"^(PASS|FAIL): .+ ratio \d+\.\d{3} \(target <= [\d.]+\)$")


@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_prints_limit_then_cold_and_warm_for_library_and_peer(script, capsys):
    status = _load(script).run(**TINY[script], rounds=3)
    lines = capsys.readouterr().out.splitlines()
    verdicts = [match.group(1) for match in map(VERDICT.match, lines) if match]
    assert verdicts and all(VERDICT.match(line) for line in lines[-len(verdicts) :])
    assert status == (1 if "FAIL" in verdicts else 0)
    timed = [match.groups() for match in map(LINE.match, lines) if match]
    kinds = [kind for kind, _ in timed]
    assert kinds[0] == "limit" and kinds.count("limit") == 1
    assert kinds[1:] == sorted(kinds[1:])  # cold lines, then warm lines
    for kind in ("cold", "warm"):
        labels = [label for k, label in timed if k == kind]
        library = [label for label in labels if "pe_explained" in label or "apply_rope" in label]
        assert library and len(library) * 2 == len(labels), (kind, labels)  # one peer per line
    assert all("ratio" in line for line in lines if line.startswith(("cold  ", "warm  ")))


def test_sinusoidal_peer_computes_the_library_table():
    bench = _load("bench_sinusoidal")
    for num_positions, d_model in [(1, 2), (70, 8), (300, 64)]:
        benchlib.assert_same(
            "usual recipe",
            sinusoidal(num_positions, d_model),
            bench.usual_table(num_positions, d_model),
            rtol=0.0,
            atol=1e-9,
        )


def test_alibi_peer_computes_the_library_bias():
    bench = _load("bench_alibi")
    for num_heads, seq_len in [(1, 1), (2, 16), (8, 33)]:
        ours, peer = alibi_bias(num_heads, seq_len), bench.direct_bias(num_heads, seq_len)
        benchlib.assert_same("direct recipe", ours, peer, rtol=1e-6, atol=0.0)
    with pytest.raises(ValueError, match="num_heads must be a power of two"):
        bench.direct_bias(6, 4)


@pytest.mark.parametrize("seq", [5, 70])  # direct angles; angle addition from 64 positions
@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_rope_peers_compute_the_library_rotation(layout, seq):
    bench = _load("bench_rope")
    x = np.random.default_rng(1).standard_normal((2, 3, seq, 16)).astype(np.float32)
    positions, (inv_freq, _) = np.arange(seq), rope_frequencies(16)
    ours = apply_rope(x, positions, inv_freq, layout=layout)
    for peer in (
        bench.recipe(x, positions, inv_freq, layout),  # cold: tables computed
        bench.rotate(x, *bench.cos_sin(positions, inv_freq, layout), layout),  # warm: reused
    ):
        benchlib.assert_same(f"recipe, {layout}", ours, peer, rtol=1e-5, atol=1e-5)


def test_the_peer_check_fails_on_a_wrong_answer():
    """The harness is proved to catch a peer off by one position, one layout or the mask."""
    bench_alibi, bench_rope, bench_sin = (_load(name) for name in sorted(TINY))
    with pytest.raises(AssertionError, match="differs from the library"):
        benchlib.assert_same(
            "shifted", sinusoidal(70, 8), bench_sin.usual_table(71, 8)[1:], rtol=0.0, atol=1e-9
        )
    with pytest.raises(AssertionError, match="differs from the library"):
        symmetric = alibi_bias(2, 16, causal=False)  # no -inf mask
        benchlib.assert_same(
            "unmasked", symmetric, bench_alibi.direct_bias(2, 16), rtol=1e-6, atol=0
        )
    x = np.random.default_rng(2).standard_normal((1, 70, 8)).astype(np.float32)
    positions, (inv_freq, _) = np.arange(70), rope_frequencies(8)
    with pytest.raises(AssertionError, match="differs from the library"):
        ours = apply_rope(x, positions, inv_freq, layout="halves")
        wrong = bench_rope.recipe(x, positions, inv_freq, "interleaved")
        benchlib.assert_same("other layout", ours, wrong, rtol=1e-5, atol=1e-5)
    with pytest.raises(AssertionError, match="the peer gives float64"):
        benchlib.assert_same("dtype", x, x.astype(np.float64), rtol=1e-5, atol=1e-5)


WRONG_PEERS = {  # script -> (name of its peer, a peer that computes something else)
    "bench_sinusoidal": ("usual_table", lambda n, d: np.zeros((n, d))),
    "bench_alibi": ("direct_bias", lambda h, n: alibi_bias(h, n, causal=False)),
    "bench_rope": ("rotate", lambda x, cos, sin, layout: x * cos),
}


@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_refuses_to_time_a_peer_that_computes_something_else(script, monkeypatch):
    bench = _load(script)
    name, wrong = WRONG_PEERS[script]
    monkeypatch.setattr(bench, name, wrong)
    with pytest.raises(AssertionError, match="differs from the library"):
        bench.run(**TINY[script], rounds=1)


def test_rope_cold_cases_start_from_an_empty_cache_and_warm_ones_from_a_full_one():
    bench = _load("bench_rope")
    x = np.ones((1, 70, 8), dtype=np.float32)
    positions, (inv_freq, _) = np.arange(70), rope_frequencies(8)
    library = [c for c in bench.cases(x, positions, inv_freq) if c.label.startswith("apply_rope")]
    assert sorted(c.kind for c in library) == ["cold", "cold", "warm", "warm"]
    cache = pe_explained.rope._TABLE_CACHE
    for case in library:
        apply_rope(np.ones((1, 3, 8), dtype=np.float32), [0, 1, 2], inv_freq)  # another table
        case.reset()
        before = [id(entry) for entry in cache.values()]
        case.run()
        after = [id(entry) for entry in cache.values()]
        if case.kind == "cold":  # nothing to reuse: the run computes its table
            assert not before and after, case.label
        else:  # the table is there before the run, and the run reuses it
            assert before and after == before, case.label


def test_rope_checks_every_target_and_fails_on_any_miss(monkeypatch, capsys):
    """Four verdicts: warm halves, warm interleaved, and cold against warm for each layout."""
    bench = _load("bench_rope")
    monkeypatch.setattr(bench, "WARM_TARGETS", {"halves": 1e9, "interleaved": 1e9})
    monkeypatch.setattr(bench, "COLD_OVER_WARM", 1e9)
    assert bench.run(**TINY["bench_rope"], rounds=1) == 0
    passed = [line for line in capsys.readouterr().out.splitlines() if VERDICT.match(line)]
    assert len(passed) == 4 and all(line.startswith("PASS") for line in passed)
    for kind in ("warm, ", "cold over warm, "):
        for layout in ("halves", "interleaved"):
            assert sum(f": apply_rope, {kind}{layout} ratio" in line for line in passed) == 1
    monkeypatch.setattr(bench, "COLD_OVER_WARM", 0.001)  # only the cold verdicts can miss now
    assert bench.run(**TINY["bench_rope"], rounds=1) == 1
    verdicts = [line for line in capsys.readouterr().out.splitlines() if VERDICT.match(line)]
    assert [line.split(":")[0] for line in verdicts].count("FAIL") == 2, verdicts


def _fake_clock_cases(events: list, now: list):
    """A limit and two cases whose runs move a fake clock by 1, 2 and 5 seconds.

    The reset of the second case moves it by 100 seconds: no timed second may
    include it.
    """

    def step(name: str, seconds: float):
        def run():
            events.append(name)
            now[0] += seconds

        return run

    return [
        benchlib.Case("limit", "a", step("a", 1.0)),
        benchlib.Case("cold", "b", step("b", 2.0), step("reset b", 100.0)),
        benchlib.Case("warm", "c", step("c", 5.0)),
    ]


def test_rounds_run_every_case_once_each_in_the_round_order_after_its_untimed_reset():
    events, now = [], [0.0]
    cases = _fake_clock_cases(events, now)
    times = benchlib.time_rounds(cases, rounds=4, clock=lambda: now[0])
    assert times == [[1.0, 2.0, 5.0]] * 4  # per round, in the order of the cases
    b = ["reset b", "b"]
    rounds = ["a", *b, "c"], [*b, "c", "a"], ["c", "a", *b], ["c", *b, "a"]
    assert events == [event for one in rounds for event in one]
    with pytest.raises(ValueError, match="rounds must be an int >= 1"):
        benchlib.time_rounds(cases, rounds=0)
    with pytest.raises(ValueError, match="rounds must be an int >= 1"):
        benchlib.time_rounds(cases, rounds=True)
    with pytest.raises(ValueError, match="kind must be one of"):
        benchlib.Case("hot", "c", lambda: None)


@pytest.mark.parametrize("n", range(1, 10))
def test_round_orders_let_every_case_follow_every_other_equally_often(n):
    period = n if n % 2 == 0 else 2 * n
    orders = [benchlib.round_order(r, n) for r in range(2 * period)]
    assert all(sorted(order) == list(range(n)) for order in orders)
    assert orders[period:] == orders[:period]  # then the orders repeat
    follows = Counter(pair for order in orders[:period] for pair in itertools.pairwise(order))
    assert sorted(follows) == [(a, b) for a in range(n) for b in range(n) if a != b]
    assert len(set(follows.values())) <= 1, follows


def _rounds_with_known_median_ratio():
    """Times (seconds) of a limit and one case over three rounds, and the right ratio.

    The case takes 4, 1 and 4 times the limit of its round: the median of those
    ratios is 4. The shortcuts give other numbers, so a test on these times tells
    them apart: the ratio of the best times is 3 / 1 = 3, the ratio of the median
    times 4 / 2 = 2, the mean of the per-round ratios 3.
    """
    limit, case = [1.0, 3.0, 2.0], [4.0, 3.0, 8.0]
    return [[a, b] for a, b in zip(limit, case, strict=True)], 4.0


def _check_median_ratios(median_ratios):
    """Assert that ``median_ratios`` gives the median of the per-round ratios."""
    times, expected = _rounds_with_known_median_ratio()
    assert median_ratios(times) == [1.0, expected]


def test_median_ratios_are_the_median_of_the_per_round_ratios():
    _check_median_ratios(benchlib.median_ratios)
    # an even number of rounds: the mean of the two middle ratios (1.5 and 2.5)
    times = [[1.0, 1.0], [2.0, 3.0], [1.0, 2.5], [2.0, 8.0]]
    assert benchlib.median_ratios(times) == [1.0, 2.0]
    # a round that a busy machine slowed, limit and case alike, changes nothing
    assert benchlib.median_ratios([[1.0, 2.0], [1.0, 2.0], [9.0, 18.0]]) == [1.0, 2.0]


def test_the_median_ratio_check_fails_on_a_wrong_answer():
    """The check above is proved to catch the shortcuts a timing helper might take."""

    def columns(times):
        return [list(column) for column in zip(*times, strict=True)]

    def ratio_of_best_times(times):
        limit, *cases = columns(times)
        return [1.0] + [min(case) / min(limit) for case in cases]

    def ratio_of_median_times(times):
        limit, *cases = columns(times)
        return [1.0] + [statistics.median(case) / statistics.median(limit) for case in cases]

    def mean_of_ratios(times):
        limit, *cases = columns(times)
        ratios = [[c / a for a, c in zip(limit, case, strict=True)] for case in cases]
        return [1.0] + [statistics.fmean(one) for one in ratios]

    for wrong in (ratio_of_best_times, ratio_of_median_times, mean_of_ratios):
        with pytest.raises(AssertionError):
            _check_median_ratios(wrong)


def test_median_ratio_refuses_times_it_cannot_compare():
    assert benchlib.median_ratio([2.0, 9.0, 3.0], [1.0, 1.0, 1.0]) == 3.0
    with pytest.raises(ValueError, match="one reference time per time, got 2 for 3"):
        benchlib.median_ratio([1.0, 2.0, 3.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="at least one round"):
        benchlib.median_ratio([], [])
    with pytest.raises(ValueError, match="reference times must be > 0"):
        benchlib.median_ratio([1.0], [0.0])
    with pytest.raises(ValueError, match="one time per case in every round"):
        benchlib.median_ratios([[1.0, 2.0], [1.0]])


def test_report_prints_median_times_and_median_ratios_to_the_limit(capsys):
    cases = [
        benchlib.Case("limit", "one pass", lambda: None),
        benchlib.Case("warm", "reused", lambda: None),
    ]
    # per round the case takes 1.5, 1.0 and 2.0 times the limit: median 1.5
    times = [[0.002, 0.003], [0.004, 0.004], [0.001, 0.002]]
    ratios = benchlib.report(cases, times)
    assert ratios == {("limit", "one pass"): 1.0, ("warm", "reused"): 1.5}
    assert capsys.readouterr().out.splitlines() == [
        "limit  one pass       2.00 ms",
        "warm   reused         3.00 ms  ratio   1.50",
    ]
    with pytest.raises(ValueError, match="must start with the limit case"):
        benchlib.report(cases[::-1], times)
    with pytest.raises(ValueError, match="one time per case in every round"):
        benchlib.report(cases, [[0.002], [0.004]])


def test_benchlib_examples():
    assert doctest.testmod(benchlib).failed == 0


def test_the_build_benchmarks_plain_site_has_the_books_pages_without_shortcodes(tmp_path):
    """The limit of ``bench_build.py``: the same pages, no ``{{ … }}`` left to expand."""
    bench = _load("bench_build")
    root = SCRIPTS.parent
    plain = bench.plain_site(root, tmp_path / "plain")
    pages = sorted(p.relative_to(root / "docs") for p in (root / "docs").rglob("*.md"))
    assert sorted(p.relative_to(plain / "docs") for p in plain.rglob("*.md")) == pages
    text = (plain / "docs" / bench.EDITED.relative_to("docs")).read_text()
    assert "{{" not in text and text.startswith("# 1.")
    assert set(bench.TARGETS) == {"cold", "unchanged", "edit in serve"}
