"""Argument checks shared by every public function.

Each check raises a ``TypeError`` (wrong kind of value) or ``ValueError``
(right kind, wrong value) whose message names the argument and the rule, so
that bad input never reaches numpy and never turns into a silent NaN.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable

import numpy as np

__all__ = [
    "check_int",
    "check_positive_even_int",
    "check_float",
    "check_base",
    "check_positions",
    "check_float_dtype",
    "check_choice",
    "check_bool",
]


def check_int(name: str, value, *, minimum: int | None = None) -> int:
    """Return ``value`` as a Python int; reject bools, floats and strings."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


def check_positive_even_int(name: str, value) -> int:
    """An integer that is > 0 and even, such as ``d_model`` or ``head_dim``."""
    value = check_int(name, value)
    if value <= 0:
        raise ValueError(f"{name} must be a positive even integer, got {value}")
    if value % 2:
        raise ValueError(f"{name} must be even (sin/cos come in pairs), got {value}")
    return value


def check_float(
    name: str,
    value,
    *,
    greater_than: float | None = None,
    at_least: float | None = None,
) -> float:
    """A finite real number, optionally bounded below."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if greater_than is not None and not value > greater_than:
        raise ValueError(f"{name} must be > {greater_than:g}, got {value:g}")
    if at_least is not None and not value >= at_least:
        raise ValueError(f"{name} must be >= {at_least:g}, got {value:g}")
    return value


def check_base(name: str, value) -> float:
    """The ``base`` of a geometric frequency ladder: finite and > 1."""
    return check_float(name, value, greater_than=1.0)


def check_positions(name: str, value) -> np.ndarray:
    """``positions``: an int n (meaning 0 … n−1) or a 1-D array of finite numbers ≥ 0.

    Returns a 1-D array: int64 when every position is an integer, float64 otherwise.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int or a 1-D array of numbers, got bool")
    if isinstance(value, numbers.Integral):
        n = int(value)
        if n < 0:
            raise ValueError(f"{name} as a count must be >= 0, got {n}")
        return np.arange(n, dtype=np.int64)
    if isinstance(value, (str, bytes)) or not isinstance(value, (np.ndarray, Iterable)):
        raise TypeError(
            f"{name} must be an int or a 1-D array of numbers, got {type(value).__name__}"
        )
    arr = np.asarray(value)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be >= 0, got minimum {arr.min()}")
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False)
    if arr.size and np.all(arr == np.round(arr)) and arr.max() < 2**53:
        return arr.astype(np.int64)
    return arr.astype(np.float64, copy=False)


def check_float_dtype(name: str, value) -> np.dtype:
    """A numpy floating dtype (float16/32/64); anything else is a TypeError."""
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise TypeError(f"{name} must be a numpy float dtype, got {value!r}") from exc
    if dtype.kind != "f":
        raise TypeError(f"{name} must be a float dtype such as numpy.float32, got {dtype}")
    return dtype


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    """One of a fixed set of strings."""
    choices = tuple(choices)
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def check_bool(name: str, value) -> bool:
    """A flag such as ``causal``: exactly True or False (numpy bools too), nothing truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)
