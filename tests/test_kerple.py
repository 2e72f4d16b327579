"""KERPLE's two kernels (Chi et al., 2022): analytic values and identities.

* the power kernel with ``r2 = 1`` is ALiBi with slopes ``r1``
  (:func:`pe_explained.alibi_bias`), the power kernel with ``r2 = 2`` a Gaussian-like
  ``−r1 d²``;
* the logarithmic kernel is ``−r1 ln(1 + r2 d)``: about ``−r1 r2 d`` for small
  ``r2 d``, and each further step costs less than the one before;
* both are 0 on the diagonal, depend on ``|i − j|`` only, and with a cache the
  queries are the last rows of the full matrix.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained import alibi_bias, alibi_slopes, kerple_bias


def test_power_with_exponent_one_is_alibi():
    slopes = alibi_slopes(8)
    ours = kerple_bias(slopes, np.ones(8), 6, 9, variant="power")
    np.testing.assert_allclose(ours, alibi_bias(8, 6, 9, dtype=np.float64), rtol=1e-15)
    # a wrong exponent is not ALiBi: the comparison notices
    wrong = kerple_bias(slopes, np.full(8, 1.1), 6, 9, variant="power")
    assert not np.allclose(wrong, alibi_bias(8, 6, 9, dtype=np.float64))


def test_power_with_exponent_two_is_quadratic():
    bias = kerple_bias([0.25], [2.0], 5, variant="power", causal=False)[0]
    d = np.abs(np.arange(5)[:, None] - np.arange(5)[None, :])
    np.testing.assert_array_equal(bias, -0.25 * d**2)


def test_logarithmic_values_by_hand():
    r1, r2 = 1.5, 0.3
    bias = kerple_bias([r1], [r2], 8)[0]
    for i in range(8):
        for j in range(i + 1):
            assert bias[i, j] == pytest.approx(-r1 * math.log(1 + r2 * (i - j)), rel=1e-15)
    assert np.all(np.isneginf(bias[np.triu_indices(8, 1)]))


def test_logarithmic_is_linear_near_zero_and_flattens_far_away():
    r1, r2 = 2.0, 1e-6
    near = kerple_bias([r1], [r2], 4, causal=False)[0]
    np.testing.assert_allclose(near[3, 0], -r1 * r2 * 3, rtol=1e-5)  # ln(1 + x) ≈ x
    far = kerple_bias([1.0], [1.0], 2000)[0, -1, ::-1]  # distances 0 … 1999
    steps = -np.diff(far)
    assert np.all(steps > 0) and np.all(np.diff(steps) < 0)  # falling, ever more slowly


def test_the_bias_depends_on_the_distance_only_and_is_zero_on_the_diagonal():
    bias = kerple_bias([0.7, 1.3], [0.4, 1.9], 6, variant="power", causal=False)
    for offset in range(-5, 6):
        diagonal = np.diagonal(bias, offset, axis1=1, axis2=2)
        assert np.allclose(diagonal, diagonal[:, :1])
    assert np.all(np.diagonal(bias, 0, axis1=1, axis2=2) == 0.0)
    np.testing.assert_allclose(bias, np.swapaxes(bias, 1, 2))  # symmetric: |i − j|


def test_cached_queries_are_the_last_rows():
    full = kerple_bias([1.0], [0.5], 7)
    np.testing.assert_array_equal(kerple_bias([1.0], [0.5], 2, 7), full[:, -2:])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"r1": [0.0], "r2": [1.0]}, "r1 must be > 0"),
        ({"r1": [1.0], "r2": [-1.0]}, "r2 must be > 0"),
        ({"r1": [1.0], "r2": [2.5], "variant": "power"}, "r2 must be <= 2"),
        ({"r1": [1.0, 2.0], "r2": [1.0]}, "same shape"),
        ({"r1": [1.0], "r2": [1.0], "key_len": 2}, "key_len must be >= query_len"),
    ],
)
def test_bad_parameters_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        kerple_bias(query_len=3, **kwargs)
