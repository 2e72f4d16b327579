"""Large positions cost what their row count costs: no table sized by the largest position.

The angle-addition fast path builds two tables of about √(max position) rows; for a few
rows at a huge position that would be gigabytes. Measured with tracemalloc (numpy
reports its allocations to it).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from pe_explained import apply_rope, relative_sinusoid, rope_frequencies, sinusoidal

MIB = 2**20


def peak_bytes(call) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


@pytest.mark.parametrize("offset", [10**12, 10**14, 2**62])
def test_apply_rope_at_huge_positions_allocates_by_rows(offset):
    inv_freq, _ = rope_frequencies(8)
    positions = np.arange(64) + offset
    out, peak = peak_bytes(lambda: apply_rope(np.ones((64, 8)), positions, inv_freq))
    assert peak < 1 * MIB, f"{peak / MIB:.1f} MiB for 64 rows"
    theta = np.multiply.outer(positions.astype(np.float64), inv_freq)
    np.testing.assert_allclose(out[:, :4], np.cos(theta) - np.sin(theta), atol=1e-12)


@pytest.mark.parametrize("positions", [[10**12], [0, 10**12], [3, 10**15 + 7]])
def test_sinusoidal_at_huge_positions_allocates_by_rows(positions):
    table, peak = peak_bytes(lambda: sinusoidal(positions, 512))
    assert peak < 1 * MIB, f"{peak / MIB:.1f} MiB for {len(positions)} rows"
    omega = 10000.0 ** (-np.arange(0, 512, 2) / 512)
    theta = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)
    np.testing.assert_allclose(table[:, 0::2], np.sin(theta), atol=1e-12)


def test_relative_sinusoid_at_a_huge_distance_allocates_by_rows():
    _, peak = peak_bytes(lambda: relative_sinusoid([10**12], 512))
    assert peak < 1 * MIB


def test_dense_positions_still_take_the_fast_path_exactly():
    """Many rows: angle addition (as before), equal to the direct formula to rounding."""
    table = sinusoidal(4096, 64)
    omega = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    theta = np.multiply.outer(np.arange(4096, dtype=np.float64), omega)
    np.testing.assert_allclose(table[:, 0::2], np.sin(theta), atol=1e-12)
