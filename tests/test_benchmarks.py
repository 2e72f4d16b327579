"""The benchmarks of ``scripts/`` run, print cold and warm lines, and compare like with like.

Each benchmark runs here at a tiny size: it must check its peer, print the
limit and a library line and a peer line for both the cold case (tables
computed) and the warm case (tables reused), and end with a verdict. There is
no timing assertion: the ratios are the benchmarks' business, printed in CI.
"""

from __future__ import annotations

import doctest
import importlib.util
import re
import sys
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


@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_prints_limit_then_cold_and_warm_for_library_and_peer(script, capsys):
    status = _load(script).run(**TINY[script], repeats=2)
    lines = capsys.readouterr().out.splitlines()
    assert status in (0, 1)
    assert re.match(r"^(PASS|FAIL): .+ ratio \d+\.\d{3} \(target <= [\d.]+\)$", lines[-1])
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
        bench.run(**TINY[script], repeats=1)


def test_rope_cold_cases_start_from_an_empty_cache_and_warm_ones_from_a_full_one():
    bench = _load("bench_rope")
    x = np.ones((1, 70, 8), dtype=np.float32)
    positions, (inv_freq, _) = np.arange(70), rope_frequencies(8)
    library = [c for c in bench.cases(x, positions, inv_freq) if c.label.startswith("apply_rope")]
    assert sorted(c.kind for c in library) == ["cold", "cold", "warm", "warm"]
    cache = pe_explained.rope._PHASOR_CACHE
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


def test_best_times_resets_before_every_run_and_gives_every_case_the_same_runs():
    events = []
    cases = [
        benchlib.Case("limit", "a", lambda: events.append("run a")),
        benchlib.Case("cold", "b", lambda: events.append("run b"), lambda: events.append("reset")),
    ]
    times = benchlib.best_times(cases, repeats=3)
    assert len(times) == 2 and all(t >= 0 for t in times)
    assert events == ["run a"] * 3 + ["reset", "run b"] * 3
    with pytest.raises(ValueError, match="repeats must be an int >= 1"):
        benchlib.best_times(cases, repeats=0)
    with pytest.raises(ValueError, match="kind must be one of"):
        benchlib.Case("hot", "c", lambda: None)


def test_report_prints_ratios_to_the_limit(capsys):
    cases = [
        benchlib.Case("limit", "one pass", lambda: None),
        benchlib.Case("warm", "reused", lambda: None),
    ]
    ratios = benchlib.report(cases, [0.002, 0.003])
    assert ratios == {("limit", "one pass"): 1.0, ("warm", "reused"): 1.5}
    assert capsys.readouterr().out.splitlines() == [
        "limit  one pass       2.00 ms",
        "warm   reused         3.00 ms  ratio   1.50",
    ]
    with pytest.raises(ValueError, match="must start with the limit case"):
        benchlib.report(cases[::-1], [0.003, 0.002])


def test_benchlib_examples():
    assert doctest.testmod(benchlib).failed == 0
