"""``round_to_bfloat16`` (numpy alone) against the bit patterns, ml_dtypes and torch; and
``alibi_weight_error``, the two forms of ALiBi's bias held in float32 and bfloat16."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pe_explained.alibi import ALIBI_FORMS, alibi_slopes, alibi_weight_error
from pe_explained.precision import round_to_bfloat16

#: Every bfloat16 bit pattern with a finite value, as the upper half of a float32.
_PATTERNS = np.arange(1 << 16, dtype=np.uint32)
_FINITE = _PATTERNS[np.isfinite((_PATTERNS << 16).view(np.float32))]


def _as_float32(upper: np.ndarray, lower: int) -> np.ndarray:
    """float32 values whose bit pattern is ``upper << 16 | lower``."""
    return ((upper.astype(np.uint32) << 16) | np.uint32(lower)).view(np.float32)


def test_every_bfloat16_value_is_kept():
    values = _as_float32(_FINITE, 0)
    out = round_to_bfloat16(values)
    assert out.dtype == np.float32
    assert np.array_equal(out.view(np.uint32), values.view(np.uint32))  # -0.0 stays -0.0


def test_below_and_above_half_way_round_to_the_nearer_neighbour():
    below, above = _as_float32(_FINITE, 0x7FFF), _as_float32(_FINITE, 0x8001)
    assert np.array_equal(round_to_bfloat16(below).view(np.uint32) >> 16, _FINITE)
    up = round_to_bfloat16(above).view(np.uint32) >> 16
    assert np.array_equal(up, _FINITE + 1)  # the largest finite values go up to inf


def test_ties_go_to_the_even_neighbour_everywhere():
    ties = _as_float32(_FINITE, 0x8000)
    kept = round_to_bfloat16(ties).view(np.uint32) >> 16
    expected = np.where(_FINITE % 2 == 0, _FINITE, _FINITE + 1)
    assert np.array_equal(kept, expected)
    assert np.all(kept % 2 == 0)


def test_by_hand():
    # 8 significant bits: spacing 2^-7 on [1, 2), 8 on [1024, 2048)
    assert round_to_bfloat16([1 + 2**-8, 1 + 3 * 2**-8]).tolist() == [1.0, 1 + 2**-6]
    assert round_to_bfloat16([255.5, 1961.2, 1964.0, -1964.0]).tolist() == [
        256.0,
        1960.0,
        1968.0,
        -1968.0,
    ]
    assert float(round_to_bfloat16(2.0 ** (-1 / 16))) == 245 / 256  # BLOOM's slope 0.9576


def test_overflow_and_shapes():
    largest = float(_as_float32(np.array([0x7F7F]), 0)[0])  # about 3.39e38
    out = round_to_bfloat16([largest, -largest, 3.4e38, -3.4e38, 1e300])
    assert out.tolist() == [largest, -largest, math.inf, -math.inf, math.inf]
    assert round_to_bfloat16(2.5).shape == ()
    assert round_to_bfloat16(np.zeros((2, 0, 3))).shape == (2, 0, 3)
    with pytest.raises(ValueError, match="x must be finite"):
        round_to_bfloat16([1.0, math.nan])


def _random_float32(n: int) -> np.ndarray:
    """Float32 values over the whole exponent range, subnormals included, both signs."""
    bits = np.random.default_rng(0).integers(0, 1 << 32, size=n, dtype=np.uint64)
    values = bits.astype(np.uint32).view(np.float32)
    return values[np.isfinite(values)]


def test_same_as_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is installed with the book")
    values = np.concatenate([_random_float32(200_000), _as_float32(_FINITE, 0x8000)])
    expected = values.astype(ml_dtypes.bfloat16).astype(np.float32)
    assert np.array_equal(round_to_bfloat16(values).view(np.uint32), expected.view(np.uint32))


def test_same_as_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional)")
    values = np.concatenate([_random_float32(200_000), _as_float32(_FINITE, 0x8000)])
    expected = torch.from_numpy(values).to(torch.bfloat16).to(torch.float32).numpy()
    assert np.array_equal(round_to_bfloat16(values).view(np.uint32), expected.view(np.uint32))


def test_the_harness_sees_a_rounding_that_truncates():
    values = _random_float32(10_000)
    truncated = (values.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    assert not np.array_equal(round_to_bfloat16(values), truncated)


# ---------------------------------------------------------------------------
# ALiBi's two forms in low precision
# ---------------------------------------------------------------------------

#: BLOOM-176B's head 65, slope 2^(-1/16), one query at position 2,047, scores N(0, 3²).
BLOOM_SLOPE = float(alibi_slopes(112)[64])
SCORES = np.random.default_rng(0).normal(0.0, 3.0, size=2048)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _softmax(x: np.ndarray) -> np.ndarray:
    """Written out here, not the library's: the reference of the two tests below."""
    e = np.exp(x - x.max())
    return e / e.sum()


@pytest.mark.parametrize("form", ALIBI_FORMS)
def test_float64_is_exact_up_to_rounding(form):
    assert alibi_weight_error(SCORES, BLOOM_SLOPE, form=form, dtype="float64") < 1e-13


@pytest.mark.parametrize("form", ALIBI_FORMS)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_one_key_has_all_the_weight_whatever_the_precision(form, dtype):
    assert alibi_weight_error([1.7], BLOOM_SLOPE, form=form, dtype=dtype) == 0.0


@pytest.mark.parametrize("form", ALIBI_FORMS)
def test_two_keys_by_hand(form):
    # both forms put m' = bf16(m) between the two keys: weights sigmoid(±m') instead of ±m
    m, held = BLOOM_SLOPE, 245 / 256
    expected = abs(_sigmoid(held) - _sigmoid(m))
    error = alibi_weight_error([0.0, 0.0], m, form=form, dtype="bfloat16")
    assert error == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("form", ALIBI_FORMS)
def test_a_bias_that_bfloat16_holds_exactly_costs_nothing(form):
    # slope 1/2 and keys 0 … 255: every m j and m (i − j) has at most 8 significant bits
    scores = np.random.default_rng(1).normal(0.0, 3.0, size=256)
    assert alibi_weight_error(scores, 0.5, form=form, dtype="bfloat16") < 1e-13  # float64 sums


def test_the_key_form_loses_the_weights_in_bfloat16_and_the_relative_form_does_not():
    relative, keys = (
        alibi_weight_error(SCORES, BLOOM_SLOPE, form=f, dtype="bfloat16") for f in ALIBI_FORMS
    )
    assert relative < 1e-3 < 0.1 < keys
    for form in ALIBI_FORMS:  # float32: small for both
        assert alibi_weight_error(SCORES, BLOOM_SLOPE, form=form, dtype="float32") < 1e-4


def test_the_key_form_error_grows_with_the_row():
    errors = [
        max(
            alibi_weight_error(
                np.random.default_rng(seed).normal(0.0, 3.0, size=n),
                BLOOM_SLOPE,
                form="keys",
                dtype="bfloat16",
            )
            for seed in range(8)
        )
        for n in (64, 512, 4096)
    ]
    assert errors[0] < errors[1] < errors[2]


def test_same_as_an_independent_computation_with_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes is installed with the book")
    i, j = len(SCORES) - 1, np.arange(len(SCORES))
    exact = SCORES - BLOOM_SLOPE * (i - j)
    for form, bias in (("relative", -(i - j)), ("keys", j)):
        held = (np.float32(BLOOM_SLOPE) * bias.astype(np.float32)).astype(ml_dtypes.bfloat16)
        logits = SCORES + held.astype(np.float64)
        weights, reference = _softmax(logits), _softmax(exact)
        assert alibi_weight_error(SCORES, BLOOM_SLOPE, form=form, dtype="bfloat16") == (
            pytest.approx(float(np.abs(weights - reference).max()), rel=1e-9, abs=1e-15)
        )


def test_the_key_form_is_blooms_bias_in_bfloat16():
    """transformers' ``build_alibi_tensor`` for BLOOM-176B in bfloat16, head 65, gives the
    weights the library's ``"keys"`` form gives."""
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (optional)")
    bloom = pytest.importorskip(
        "transformers.models.bloom.modeling_bloom",
        reason="transformers is not installed (differential tests run in CI)",
    )
    mask = torch.ones(1, len(SCORES), dtype=torch.long)
    alibi = bloom.build_alibi_tensor(mask, 112, torch.bfloat16)[64, 0]
    held = alibi.to(torch.float64).numpy()
    i, j = len(SCORES) - 1, np.arange(len(SCORES))
    exact, logits = SCORES - BLOOM_SLOPE * (i - j), SCORES + held
    weights, reference = _softmax(logits), _softmax(exact)
    assert alibi_weight_error(SCORES, BLOOM_SLOPE, form="keys", dtype="bfloat16") == (
        pytest.approx(float(np.abs(weights - reference).max()), rel=1e-9, abs=1e-15)
    )
