"""Timing helpers shared by the ``scripts/bench_*.py`` benchmarks.

Every benchmark reports its result as a ratio to a limit measured in the same
run on the same machine, so the verdict does not depend on how fast the
machine is, only on how close the code comes to the limit.

The cases are timed in rounds: every round runs the limit and every case once,
one after another, in an order that changes from round to round
(:func:`round_order`) so that every case follows every other equally often:
what a case leaves behind (freed memory, a filled cache) weighs on all the
others alike. A case's ratio is the median, over the rounds, of its time
divided by the limit's time in the same round::

    ratio = median over rounds r of (time of the case in round r / time of the limit in round r)

A load that slows a whole round slows the limit with the cases, and cancels out
of that round's ratios; the rounds it slows unevenly give the largest or the
smallest ratios, which the median leaves out. (The ratio of the best times took
the fastest run of the case and of the limit, which could come from quiet and
busy moments.)

Each benchmark times two cases, like for like against a peer (the usual numpy
recipe that computes the same output in the same dtype):

``cold``
    every table the result needs (angles, phasors, cos/sin) is computed in
    the call, as on the first call of a forward pass;
``warm``
    the tables were computed once and are reused, as by every layer of one
    forward pass (or every step, for a table that never changes).

Example
-------
>>> cases = [
...     Case("limit", "sum of 1000 numbers", lambda: sum(range(1000))),
...     Case("cold", "sum of 1000 squares", lambda: sum(i * i for i in range(1000))),
... ]
>>> times = time_rounds(cases, rounds=3)
>>> len(times), len(times[0]), median_ratios(times)[0]
(3, 2, 1.0)
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: The kinds of line a benchmark prints, in the order it prints them.
KINDS = ("limit", "cold", "warm")


@dataclass(frozen=True)
class Case:
    """One timed operation of a benchmark.

    Parameters
    ----------
    kind : {"limit", "cold", "warm"}
        What the line measures (see the module docstring).
    label : str
        What is timed, as printed.
    run : callable
        The operation; only this call is timed.
    reset : callable, optional
        Called, untimed, before every run of ``run`` — e.g. clearing a cache so
        that every run of a cold case computes its tables.
    """

    kind: str
    label: str
    run: Callable[[], object]
    reset: Callable[[], object] | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {self.kind!r}")


def round_order(r: int, n: int) -> list[int]:
    """The order in which round ``r`` runs ``n`` cases: a balanced (Williams) design.

    Round 0 runs ``0, 1, n−1, 2, n−2, …``; round ``r < n`` adds ``r`` to every
    index (mod ``n``); for odd ``n``, rounds ``n … 2n−1`` run the first ``n``
    reversed. Over every ``n`` rounds (``2n`` for odd ``n``) each case runs right
    after each other case equally often, and then the orders repeat.

    Examples
    --------
    >>> [round_order(r, 3) for r in range(6)]
    [[0, 1, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0], [0, 2, 1], [1, 0, 2]]
    """
    base, low, high = [0], 1, n - 1
    while len(base) < n:  # 0, 1, n−1, 2, n−2, …
        if len(base) % 2:
            base.append(low)
            low += 1
        else:
            base.append(high)
            high -= 1
    r %= n if n % 2 == 0 else 2 * n
    return [(i + r) % n for i in base] if r < n else [(i + r - n) % n for i in base][::-1]


def time_rounds(
    cases: Sequence[Case], rounds: int, *, clock: Callable[[], float] = time.perf_counter
) -> list[list[float]]:
    """Time every case once per round, the cases interleaved; return the seconds.

    Round ``r`` runs the cases in the order :func:`round_order` gives, so the
    limit and every case meet the same load in every round. ``case.reset`` runs
    before each run, untimed. ``clock`` reads the time in seconds.

    Returns
    -------
    list of list of float
        ``times[r][i]``: the seconds ``cases[i].run`` took in round ``r``.
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"rounds must be an int >= 1, got {rounds!r}")
    times = []
    for r in range(rounds):
        seconds = [0.0] * len(cases)
        for i in round_order(r, len(cases)):
            case = cases[i]
            if case.reset is not None:
                case.reset()
            start = clock()
            case.run()
            seconds[i] = clock() - start
        times.append(seconds)
    return times


def median_ratio(times: Sequence[float], reference: Sequence[float]) -> float:
    """The median over the rounds of ``times[r] / reference[r]``.

    ``times`` and ``reference`` hold one time per round, measured in the same
    rounds (a case and the limit, or two cases).

    Examples
    --------
    >>> median_ratio([2.0, 9.0, 3.0], [1.0, 1.0, 1.0])  # the 9 is one slow round
    3.0
    """
    if len(times) != len(reference):
        raise ValueError(f"need one reference time per time, got {len(reference)} for {len(times)}")
    if not times:
        raise ValueError("need the times of at least one round")
    if min(reference) <= 0:
        raise ValueError(f"reference times must be > 0, got minimum {min(reference)}")
    # ratio in round r = times[r] / reference[r]; the median of those
    return statistics.median(t / ref for t, ref in zip(times, reference, strict=True))


def _columns(times: Sequence[Sequence[float]]) -> list[list[float]]:
    """The times of every case over the rounds, from ``times[r][i]``."""
    if not times or any(len(row) != len(times[0]) for row in times):
        raise ValueError("need one time per case in every round (times[round][case])")
    return [list(column) for column in zip(*times, strict=True)]


def median_ratios(times: Sequence[Sequence[float]]) -> list[float]:
    """Every case's :func:`median_ratio` to case 0, the limit, from ``times[r][i]``."""
    columns = _columns(times)
    return [median_ratio(column, columns[0]) for column in columns]


def report(cases: Sequence[Case], times: Sequence[Sequence[float]]) -> dict[tuple[str, str], float]:
    """Print one line per case — kind, label, median time, ratio — and return the ratios.

    ``times[r][i]`` is the time of ``cases[i]`` in round ``r`` (as from
    :func:`time_rounds`); the first case is the limit. A line's time is the
    case's median over the rounds, its ratio the :func:`median_ratio` to the
    limit. The ratios are keyed by ``(case.kind, case.label)``.
    """
    if not cases or cases[0].kind != "limit":
        raise ValueError("cases must start with the limit case")
    columns = _columns(times)
    if len(columns) != len(cases):
        raise ValueError(
            f"need one time per case in every round, got {len(columns)} for {len(cases)} cases"
        )
    ratios = median_ratios(times)
    width = max(len(case.label) for case in cases)
    result = {}
    for case, column, ratio in zip(cases, columns, ratios, strict=True):
        result[case.kind, case.label] = ratio
        tail = "" if case.kind == "limit" else f"  ratio {ratio:6.2f}"
        median_ms = statistics.median(column) * 1e3
        print(f"{case.kind:<5}  {case.label:<{width}}  {median_ms:9.2f} ms{tail}")
    return result


def assert_same(name: str, ours: np.ndarray, peer: np.ndarray, *, rtol: float, atol: float):
    """Raise ``AssertionError`` unless the peer's result equals ours within tolerance.

    Same shape, same dtype, and ``|ours − peer| <= atol + rtol·|peer|`` everywhere
    (infinities must sit at the same places). Unless the two are equal, they are
    compared in slices, so that arrays of a gigabyte need no gigabyte-sized
    temporaries.
    """
    if ours.shape != peer.shape or ours.dtype != peer.dtype:
        raise AssertionError(
            f"{name}: the peer gives {peer.dtype} {peer.shape}, the library {ours.dtype} "
            f"{ours.shape}"
        )
    if np.array_equal(ours, peer):  # the common case for exact recipes: one fast pass
        return
    flat_ours, flat_peer = ours.reshape(-1), peer.reshape(-1)
    step = 1 << 22
    for start in range(0, flat_ours.size, step):
        np.testing.assert_allclose(
            flat_ours[start : start + step],
            flat_peer[start : start + step],
            rtol=rtol,
            atol=atol,
            err_msg=f"{name}: the peer's result differs from the library's",
        )


def verdict(name: str, ratio: float, target: float) -> int:
    """Print PASS/FAIL for ``ratio`` against ``target``; return the exit status."""
    passed = ratio <= target
    # three decimals: a miss by less than 0.005 must not print as the target itself
    print(f"{'PASS' if passed else 'FAIL'}: {name} ratio {ratio:.3f} (target <= {target})")
    return 0 if passed else 1
