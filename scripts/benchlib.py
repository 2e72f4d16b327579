"""Timing helpers shared by the ``scripts/bench_*.py`` benchmarks.

Every benchmark reports its result as a ratio to a limit measured in the same
run on the same machine, so the verdict does not depend on how fast the
machine is, only on how close the code comes to the limit::

    ratio = best time of the operation / best time of the limit

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
>>> case = Case("cold", "sum of 1000 squares", lambda: sum(i * i for i in range(1000)))
>>> [seconds] = best_times([case], repeats=3)
>>> seconds > 0
True
"""

from __future__ import annotations

import math
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


def best_times(cases: Sequence[Case], repeats: int) -> list[float]:
    """The fastest of ``repeats`` runs of every case, in seconds.

    Every case gets the same number of runs, back to back, so each meets the
    conditions it would meet in a loop (its previous output's memory free to be
    reused); taking the fastest discards the runs a busy machine slowed down.
    ``case.reset`` runs before each run, untimed.
    """
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"repeats must be an int >= 1, got {repeats!r}")
    best = [math.inf] * len(cases)
    for i, case in enumerate(cases):
        for _ in range(repeats):
            if case.reset is not None:
                case.reset()
            start = time.perf_counter()
            case.run()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def report(cases: Sequence[Case], times: Sequence[float]) -> dict[tuple[str, str], float]:
    """Print one line per case — kind, label, time, ratio to the limit — and return the ratios.

    ``times[i]`` is the time of ``cases[i]``; the first case is the limit. The
    ratios are keyed by ``(case.kind, case.label)``.
    """
    if len(cases) != len(times):
        raise ValueError(f"need one time per case, got {len(times)} for {len(cases)} cases")
    if not cases or cases[0].kind != "limit":
        raise ValueError("cases must start with the limit case")
    limit = times[0]
    width = max(len(case.label) for case in cases)
    ratios = {}
    for case, seconds in zip(cases, times, strict=True):
        ratios[case.kind, case.label] = seconds / limit
        tail = "" if case.kind == "limit" else f"  ratio {seconds / limit:6.2f}"
        print(f"{case.kind:<5}  {case.label:<{width}}  {seconds * 1e3:9.2f} ms{tail}")
    return ratios


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
