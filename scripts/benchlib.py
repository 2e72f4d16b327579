"""Timing helpers shared by the ``scripts/bench_*.py`` benchmarks.

Every benchmark reports its result as a ratio to a limit measured in the same
run on the same machine, so the verdict does not depend on how fast the
machine is, only on how close the code comes to the limit.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def best_time(fn: Callable[[], object], repeats: int) -> float:
    """The fastest of ``repeats`` runs of ``fn``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def time_once(fn: Callable[[], object]) -> float:
    """One run of ``fn`` (for slow comparison recipes), in seconds."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def verdict(name: str, ratio: float, target: float) -> int:
    """Print PASS/FAIL for ``ratio`` against ``target``; return the exit status."""
    passed = ratio <= target
    print(f"{'PASS' if passed else 'FAIL'}: {name} ratio {ratio:.2f} (target <= {target})")
    return 0 if passed else 1
