"""The shared argument checks, and the library's single homes for what was once written twice."""

import importlib
import inspect

import numpy as np
import pytest

from pe_explained import rope
from pe_explained._angles import angle_addition
from pe_explained._checks import (
    check_array,
    check_bool,
    check_choice,
    check_float,
    check_float_dtype,
    check_index,
    check_optional,
)
from pe_explained.attention import attention_weights, causal_mask, self_attention
from pe_explained.embedding import embed_with_positions
from pe_explained.layer import dropout
from pe_explained.naive import binary_encoding

# the module, not the function ``pe_explained.sinusoidal`` that shadows it on the package
sinusoidal = importlib.import_module("pe_explained.sinusoidal")


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: check_array("x", "abc"), TypeError, r"x must hold real numbers, got str"),
        (lambda: check_array("x", [1 + 2j]), TypeError, r"x must hold real numbers.*complex"),
        (lambda: check_array("x", [None]), TypeError, r"x must hold real numbers.*object"),
        (lambda: check_array("x", [True]), TypeError, r"x must hold real numbers.*bool"),
        (lambda: check_array("x", [[1.0], [2.0, 3.0]]), ValueError, "x must be a rectangular"),
        (lambda: check_array("x", [1.0], ndim=2), ValueError, r"x must be 2-D, got shape \(1,\)"),
        (lambda: check_array("x", [1.0], ndim=(2, 3)), ValueError, "x must be 2-D or 3-D"),
        (lambda: check_array("x", [], nonempty=True), ValueError, "x must not be empty"),
        (lambda: check_array("x", [np.inf]), ValueError, r"x must be finite \(no NaN or inf\)"),
        (lambda: check_array("x", [-1.0], minimum=0), ValueError, "x must be >= 0"),
        (lambda: check_array("i", [1.5], kind="integer"), TypeError, "i must hold integers"),
        (lambda: check_array("m", [1], kind="bool"), TypeError, "m must be a boolean array"),
        (lambda: check_array("x", [1], kind="float"), TypeError, "x must have a float dtype"),
        (lambda: check_bool("flag", "no"), TypeError, "flag must be True or False"),
        (lambda: check_bool("flag", 1), TypeError, "flag must be True or False"),
        (lambda: check_float("p", 1.0, less_than=1.0), ValueError, "p must be < 1"),
        (lambda: check_float("p", 2.0, at_most=1.0), ValueError, "p must be <= 1"),
        (lambda: check_choice("layout", 1, ("a", "b")), TypeError, "layout must be one of"),
        (lambda: check_choice("layout", "c", ("a", "b")), ValueError, "layout must be one of"),
        (lambda: check_float_dtype("dtype", None), TypeError, "dtype must be a numpy float"),
        (lambda: check_index("row", 3, 3, "the number of rows"), ValueError, r"row must be < the"),
    ],
)
def test_every_check_names_the_argument_and_the_rule(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_checks_return_what_the_caller_computes_with():
    assert check_array("x", [1, 2]).dtype == np.float64
    assert check_array("i", np.array([1, 2], dtype=np.int8), kind="integer").dtype == np.int64
    x32 = np.ones(2, dtype=np.float32)
    assert check_array("x", x32, kind="float") is x32  # unchanged, not copied
    assert check_array("x", [[np.nan]], finite=False).shape == (1, 1)
    assert check_array("x", np.ones((2, 3, 4)), ndim=range(2, 65)).ndim == 3
    assert check_bool("flag", np.bool_(True)) is True
    assert check_optional(check_float, "std", None) is None
    assert check_optional(check_float, "std", 2) == 2.0


# Public functions outside ``pe_explained.__all__`` take flags too (the contract test covers
# the exported ones): no truthy string or int may pass for True.
FLAGS = [
    (lambda v: attention_weights(np.eye(2), np.eye(2), np.eye(2), causal=v), "causal"),
    (lambda v: self_attention(np.eye(2), np.eye(2), np.eye(2), np.eye(2), causal=v), "causal"),
    (lambda v: embed_with_positions(np.ones((2, 4)), scale_by_sqrt_d_model=v), "scale_by_sqrt"),
    (lambda v: binary_encoding([1], 4, centered=v), "centered"),
]


@pytest.mark.parametrize("call, name", FLAGS)
@pytest.mark.parametrize("value", ["no", "yes", 1, 0, None])
def test_flags_reject_truthy_values(call, name, value):
    with pytest.raises(TypeError, match=f"{name}.* must be True or False"):
        call(value)


def test_one_layouts_constant_for_every_module():
    from pe_explained import layer, pitfalls, properties, relative, xpos

    for module in (rope, layer, pitfalls, properties, relative, xpos):
        assert module.LAYOUTS is sinusoidal.LAYOUTS, module.__name__
    assert sinusoidal.LAYOUTS == ("interleaved", "halves")


def test_each_function_keeps_its_own_default_layout():
    from pe_explained import apply_rope, relative_sinusoid

    assert inspect.signature(apply_rope).parameters["layout"].default == "halves"
    assert inspect.signature(relative_sinusoid).parameters["layout"].default == "halves"
    assert inspect.signature(sinusoidal.sinusoidal).parameters["layout"].default == "interleaved"


def test_causal_mask_is_lower_triangular():
    mask = causal_mask(4)
    i, j = np.indices((4, 4))
    np.testing.assert_array_equal(mask, j <= i)
    assert causal_mask(0).shape == (0, 0)
    with pytest.raises(TypeError, match="seq_len must be an integer"):
        causal_mask(True)


def test_one_dropout_serves_a_seed_and_a_generator():
    x = np.ones((30, 30))
    by_seed = dropout(x, 0.25, seed=5)
    by_generator = dropout(x, 0.25, np.random.default_rng(5))
    np.testing.assert_array_equal(by_seed, by_generator)  # the same mask for the same seed
    rng = np.random.default_rng(5)
    assert not np.array_equal(dropout(x, 0.25, rng), dropout(x, 0.25, rng))  # the stream moves
    np.testing.assert_array_equal(dropout(np.empty((0, 3)), 0.5), np.empty((0, 3)))
    with pytest.raises(ValueError, match="x must be finite"):
        dropout([np.nan], 0.5)
    with pytest.raises(TypeError, match="seed must be an integer"):
        dropout(x, 0.5, seed="0")


@pytest.mark.parametrize("conjugate", [False, True])
@pytest.mark.parametrize(
    "positions", [np.arange(1000), np.arange(7), np.array([999, 0, 5, 5, 64]), np.array([0])]
)
def test_angle_addition_matches_direct_evaluation(positions, conjugate):
    omega = sinusoidal.sinusoidal_frequencies(16)
    theta = np.multiply.outer(positions.astype(np.float64), omega)
    sign = -1.0 if conjugate else 1.0
    expected = 2.0 * (np.cos(theta) + 1j * sign * np.sin(theta))
    got = angle_addition(positions, omega, conjugate=conjugate, factor=2.0, dtype=np.complex128)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
