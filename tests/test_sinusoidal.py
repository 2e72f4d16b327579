"""The sinusoidal encoding against analytic values and exact (extended-precision) ones."""

from __future__ import annotations

import numpy as np
import pytest

from pe_explained import sinusoidal, sinusoidal_frequencies, sinusoidal_wavelengths


def exact_table(positions, d_model, base=10000.0):
    """Reference in long double (≥ 64-bit mantissa on x86): PE[p, 2i], PE[p, 2i+1]."""
    p = np.asarray(positions, dtype=np.longdouble)
    i = np.arange(d_model // 2, dtype=np.longdouble)
    omega = np.longdouble(base) ** (-2 * i / d_model)
    theta = p[:, None] * omega[None, :]
    out = np.empty((len(p), d_model), dtype=np.longdouble)
    out[:, 0::2], out[:, 1::2] = np.sin(theta), np.cos(theta)
    return out


def test_position_zero_is_sin0_cos0():
    assert sinusoidal(1, 16)[0].tolist() == [0.0, 1.0] * 8


@pytest.mark.parametrize("d_model", [2, 8, 64, 512])
def test_every_row_has_squared_norm_half_d_model(d_model):
    pe = sinusoidal(200, d_model)
    np.testing.assert_allclose((pe**2).sum(axis=1), d_model / 2, rtol=1e-13)


def test_frequency_table_for_d8():
    assert sinusoidal_frequencies(8).tolist() == [1.0, 0.1, 0.01, 0.001]
    np.testing.assert_allclose(
        sinusoidal_frequencies(512)[[0, 128, 255]], [1.0, 0.01, 10000 ** (-510 / 512)], rtol=1e-15
    )


def test_wavelengths_run_from_two_pi_to_just_under_two_pi_base():
    lam = sinusoidal_wavelengths(512)
    assert lam[0] == pytest.approx(2 * np.pi)
    assert lam[-1] == pytest.approx(2 * np.pi * 10000 ** (510 / 512))
    assert round(lam[-1]) == 60611
    assert np.all(np.diff(lam) > 0)


def test_values_of_the_paper_formula():
    pe = sinusoidal(np.array([3, 50]), 6, base=10000.0)
    for row, pos in zip(pe, [3, 50], strict=True):
        for i in range(3):
            angle = pos / 10000 ** (2 * i / 6)
            assert row[2 * i] == pytest.approx(np.sin(angle), abs=1e-15)
            assert row[2 * i + 1] == pytest.approx(np.cos(angle), abs=1e-15)


def test_halves_is_a_fixed_column_permutation():
    d_model = 10
    order = list(range(0, d_model, 2)) + list(range(1, d_model, 2))
    np.testing.assert_array_equal(
        sinusoidal(37, d_model, layout="halves"), sinusoidal(37, d_model)[:, order]
    )


def test_float64_exact_up_to_32768():
    n, d_model = 32768, 256
    pe = sinusoidal(n, d_model)
    err = np.abs(pe - exact_table(np.arange(n), d_model)).max()
    assert err < 1e-11


def test_float32_exact_at_large_positions():
    positions = np.array([0, 1, 999, 32768, 65535, 123457, 500000, 999999, 1_000_000])
    pe = sinusoidal(positions, 128, dtype=np.float32)
    assert pe.dtype == np.float32
    err = np.abs(pe.astype(np.longdouble) - exact_table(positions, 128)).max()
    assert err < 2e-7


def test_float32_default_count_path_is_exact_too():
    pe = sinusoidal(70000, 16, dtype=np.float32)
    err = np.abs(pe.astype(np.longdouble) - exact_table(np.arange(70000), 16)).max()
    assert err < 2e-7


def test_arbitrary_and_unsorted_positions_match_direct_evaluation():
    positions = np.array([7, 3, 3, 0, 100000, 12])
    np.testing.assert_allclose(
        sinusoidal(positions, 32), exact_table(positions, 32).astype(float), atol=1e-11
    )
    fractional = np.array([0.5, 2.25, 1e4 + 0.1])
    np.testing.assert_allclose(
        sinusoidal(fractional, 8), exact_table(fractional, 8).astype(float), atol=1e-11
    )


def test_count_and_array_agree_and_are_deterministic():
    np.testing.assert_array_equal(sinusoidal(1000, 64), sinusoidal(np.arange(1000), 64))
    np.testing.assert_array_equal(sinusoidal(1000, 64), sinusoidal(1000, 64))


def test_shapes_and_dtypes():
    assert sinusoidal(0, 8).shape == (0, 8)
    assert sinusoidal([2, 4], 4).shape == (2, 4)
    assert sinusoidal(3, 4, dtype="float16").dtype == np.float16


def test_base_changes_the_ladder():
    assert sinusoidal_frequencies(4, base=100.0).tolist() == [1.0, 0.1]


BAD = [
    (dict(positions=4, d_model=7), ValueError, "d_model must be even"),
    (dict(positions=4, d_model=0), ValueError, "d_model must be a positive even integer"),
    (dict(positions=4, d_model=-2), ValueError, "d_model must be a positive even integer"),
    (dict(positions=4, d_model=8.0), TypeError, "d_model must be an integer"),
    (dict(positions=4, d_model=True), TypeError, "d_model must be an integer"),
    (dict(positions=4, d_model="8"), TypeError, "d_model must be an integer"),
    (dict(positions=-1, d_model=8), ValueError, "positions as a count must be >= 0"),
    (dict(positions=[1, -2], d_model=8), ValueError, "positions must be >= 0"),
    (dict(positions=[1.0, np.nan], d_model=8), ValueError, "positions must be finite"),
    (dict(positions=[np.inf], d_model=8), ValueError, "positions must be finite"),
    (dict(positions=np.zeros((2, 2)), d_model=8), ValueError, "positions must be 1-D"),
    (dict(positions="abc", d_model=8), TypeError, "positions must be an int"),
    (dict(positions=True, d_model=8), TypeError, "positions must be an int"),
    (dict(positions=[True, False], d_model=8), TypeError, "positions must hold real numbers"),
    (dict(positions=4, d_model=8, base=1.0), ValueError, "base must be > 1"),
    (dict(positions=4, d_model=8, base=0.5), ValueError, "base must be > 1"),
    (dict(positions=4, d_model=8, base=np.inf), ValueError, "base must be finite"),
    (dict(positions=4, d_model=8, base=np.nan), ValueError, "base must be finite"),
    (dict(positions=4, d_model=8, base="1e4"), TypeError, "base must be a real number"),
    (dict(positions=4, d_model=8, layout="split"), ValueError, "layout must be one of"),
    (dict(positions=4, d_model=8, dtype=np.int32), TypeError, "dtype must be a float dtype"),
    (dict(positions=4, d_model=8, dtype="banana"), TypeError, "dtype must be a numpy float"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD, ids=[m for _, _, m in BAD])
def test_bad_input_is_named(kwargs, error, message):
    with pytest.raises(error, match=message):
        sinusoidal(**kwargs)


def test_frequencies_validate_too():
    with pytest.raises(ValueError, match="d_model must be even"):
        sinusoidal_frequencies(5)
    with pytest.raises(ValueError, match="base must be > 1"):
        sinusoidal_wavelengths(8, base=-3)


def test_float32_output_error_is_half_an_ulp_plus_the_float64_angle_error():
    """What the docstring promises for float32 output, over a dense stretch of long context:
    |error| <= ½ ulp_f32(value) + pos·ω·2^-50, far below the usual float32 code's drift."""
    positions = np.arange(800_000, 900_000, 7)
    table = sinusoidal(positions, 256, dtype=np.float32).astype(np.float64)
    omega = 10000.0 ** (-np.arange(0, 256, 2) / 256)
    theta = np.multiply.outer(positions.astype(np.float64), omega)
    exact = np.empty_like(table)
    exact[:, 0::2], exact[:, 1::2] = np.sin(theta), np.cos(theta)
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    error = np.abs(table - exact)
    assert np.all(error <= 0.5 * ulp + np.repeat(theta, 2, axis=1) * 2.0**-50)
    assert error.max() < 1e-7 < np.abs(theta).max() * 2.0**-24  # vs rounding the angle first
