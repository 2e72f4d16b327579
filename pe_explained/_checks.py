"""Argument checks shared by every public function.

Each check raises a ``TypeError`` (wrong kind of value) or ``ValueError``
(right kind, wrong value) whose message names the argument and the rule, so
that bad input never reaches numpy and never turns into a silent NaN.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Mapping

import numpy as np

__all__ = [
    "check_int",
    "check_positive_even_int",
    "check_index",
    "check_float",
    "check_base",
    "check_optional",
    "check_array",
    "check_same_shape",
    "check_positions",
    "check_integer_positions",
    "check_offsets",
    "check_integer_offsets",
    "check_size",
    "check_float_dtype",
    "check_storage_float_dtype",
    "check_rotary_input",
    "check_choice",
    "check_bool",
    "check_mask",
    "check_generator",
    "check_callable",
    "CONFIG_LIMITS",
    "check_config_int",
    "check_config",
    "check_config_name",
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


def check_index(name: str, value, size: int, what: str) -> int:
    """A row index: an integer in ``0 … size − 1``; ``what`` names ``size`` in the message."""
    value = check_int(name, value, minimum=0)
    if value >= size:
        raise ValueError(f"{name} must be < {what} ({size}), got {value}")
    return value


def check_float(
    name: str,
    value,
    *,
    greater_than: float | None = None,
    at_least: float | None = None,
    less_than: float | None = None,
    at_most: float | None = None,
) -> float:
    """A finite real number, optionally bounded below and above."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    try:
        value = float(value)
    except OverflowError:  # an integer beyond float64
        value = np.inf if value > 0 else -np.inf
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if greater_than is not None and not value > greater_than:
        raise ValueError(f"{name} must be > {greater_than:g}, got {value:g}")
    if at_least is not None and not value >= at_least:
        raise ValueError(f"{name} must be >= {at_least:g}, got {value:g}")
    if less_than is not None and not value < less_than:
        raise ValueError(f"{name} must be < {less_than:g}, got {value:g}")
    if at_most is not None and not value <= at_most:
        raise ValueError(f"{name} must be <= {at_most:g}, got {value:g}")
    return value


def check_base(name: str, value) -> float:
    """The ``base`` of a geometric frequency ladder: finite and > 1."""
    return check_float(name, value, greater_than=1.0)


def check_optional(check, name: str, value, **rules):
    """``None``, or ``value`` passed through ``check(name, value, **rules)``.

    For arguments whose default ``None`` means "work it out", such as ``key_len``.
    """
    return None if value is None else check(name, value, **rules)


#: What each array ``kind`` accepts: numpy dtype kinds and the words of the message.
_ARRAY_KINDS = {
    "real": ("iuf", "{name} must hold real numbers, got {got}"),
    "float": ("f", "{name} must have a float dtype, got {got}"),
    "integer": ("iu", "{name} must hold integers, got {got}"),
    "bool": ("b", "{name} must be a boolean array (True/False), got {got}"),
}


def check_array(
    name: str,
    value,
    *,
    kind: str = "real",
    ndim: int | tuple[int, ...] | None = None,
    rule: str | None = None,
    nonempty: bool = False,
    finite: bool = True,
    minimum: float | None = None,
    cast: bool = True,
) -> np.ndarray:
    """An array argument, checked in the order a reader would: kind, dimensions, size, values.

    Parameters
    ----------
    name : str
        The argument's name, as the caller wrote it; every message starts with it.
    value : array_like
        Anything ``numpy.asarray`` accepts; a bare string is a ``TypeError``.
    kind : {"real", "float", "integer", "bool"}
        ``"real"``: integers or floats, never bools, strings, objects or complex
        numbers (returned as float64 when ``cast``); ``"float"``: a float dtype
        (returned unchanged); ``"integer"``: returned as int64 when ``cast``;
        ``"bool"``: a boolean array.
    ndim : int or tuple of int, optional
        The allowed numbers of dimensions.
    rule : str, optional
        How the message states the shape rule (``"{name} must be {rule}"``);
        by default ``"2-D"`` or ``"2-D or 3-D"``.
    nonempty : bool
        Reject an array with no entries (``ValueError``).
    finite : bool
        Reject NaN and inf (``ValueError``); real and float kinds only.
    minimum : float, optional
        Reject any entry below it (``ValueError``).

    Examples
    --------
    >>> check_array("x", [[1, 2]], ndim=2).tolist()
    [[1.0, 2.0]]
    >>> check_array("x", [1.0, float("nan")])
    Traceback (most recent call last):
    ...
    ValueError: x must be finite (no NaN or inf)
    """
    dtype_kinds, wrong_kind = _ARRAY_KINDS[kind]
    if isinstance(value, (str, bytes)):
        raise TypeError(wrong_kind.format(name=name, got=f"{type(value).__name__} {value!r}"))
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array: {exc}") from exc
    if arr.size == 0 and not isinstance(value, np.ndarray) and arr.dtype == np.float64:
        # [] is float64 to numpy; an empty list holds no value of a wrong kind
        arr = arr.astype({"integer": np.int64, "bool": bool}.get(kind, np.float64))
    if arr.dtype.kind not in dtype_kinds:
        raise TypeError(wrong_kind.format(name=name, got=f"dtype {arr.dtype}"))
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            rule = rule or " or ".join(f"{n}-D" for n in allowed)
            raise ValueError(f"{name} must be {rule}, got shape {arr.shape}")
    if nonempty and arr.size == 0:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if finite and arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if minimum is not None and arr.size and arr.min() < minimum:
        raise ValueError(f"{name} must be >= {minimum:g}, got minimum {arr.min()}")
    if cast and kind == "real":
        return arr.astype(np.float64, copy=False)
    if cast and kind == "integer":
        if arr.dtype.kind == "u" and arr.size and arr.max() > np.iinfo(np.int64).max:
            raise ValueError(f"{name} must fit in int64 (below 2**63), got {arr.max()}")
        return arr.astype(np.int64, copy=False)
    return arr


def check_same_shape(a_name: str, a: np.ndarray, b_name: str, b: np.ndarray) -> None:
    """Two arrays that must match entry for entry."""
    if a.shape != b.shape:
        raise ValueError(
            f"{a_name} and {b_name} must have the same shape, got {a.shape} and {b.shape}"
        )


def check_positions(name: str, value, *, signed: bool = False) -> np.ndarray:
    """``positions``: an int n (meaning 0 … n−1) or a 1-D array of finite numbers ≥ 0
    (of any sign with ``signed=True``, for positions centred on a sequence's middle).

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
    arr = check_array(name, value, ndim=1, minimum=None if signed else 0, cast=False)
    if arr.dtype.kind in "iu":
        return arr.astype(np.int64, copy=False)
    if arr.size and np.all(arr == np.round(arr)) and np.abs(arr).max() < 2**53:
        return arr.astype(np.int64)
    return arr.astype(np.float64, copy=False)


def check_integer_positions(name: str, value, *, below: int, limit_name: str) -> np.ndarray:
    """Positions (as :func:`check_positions`) that must be whole numbers below ``below``."""
    pos = check_positions(name, value)
    if pos.dtype.kind == "f":
        raise ValueError(
            f"{name} must be whole numbers for this encoding, got {pos[pos % 1 != 0][0]}"
        )
    if pos.size and pos.max() >= below:
        raise ValueError(f"{name} must be < {limit_name} = {below}, got {pos.max()}")
    return pos


def check_offsets(name: str, value) -> np.ndarray:
    """Offsets: a real number or a 1-D array of finite reals of any sign, as float64 (1-D)."""
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise TypeError(
            f"{name} must be a number or a 1-D array of numbers, got {type(value).__name__}"
        )
    if isinstance(value, numbers.Real):
        return np.array([check_float(name, value)])
    return check_array(name, value, ndim=1, rule="a number or 1-D")


def check_float_dtype(name: str, value) -> np.dtype:
    """A numpy floating dtype (float16/32/64); anything else, ``None`` too, is a TypeError."""
    if value is None or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a numpy float dtype, got {value!r}")
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise TypeError(f"{name} must be a numpy float dtype, got {value!r}") from exc
    if dtype.kind != "f":
        raise TypeError(f"{name} must be a float dtype such as numpy.float32, got {dtype}")
    return dtype


def check_rotary_input(name: str, value) -> np.ndarray:
    """Queries or keys to rotate: a float numpy array (…, seq, head_dim), head_dim even.

    NaN and inf are allowed: they pass through to the rows that hold them, as in any
    arithmetic, and scanning every activation would cost a pass over the array.
    """
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} must be a numpy array, got {type(value).__name__}")
    check_array(name, value, kind="float", finite=False)
    if value.ndim < 2:
        raise ValueError(f"{name} must have shape (..., seq, head_dim), got shape {value.shape}")
    head_dim = value.shape[-1]
    if head_dim == 0 or head_dim % 2:
        raise ValueError(f"{name}'s last axis (head_dim) must be even and > 0, got {head_dim}")
    return value


def check_storage_float_dtype(name: str, value) -> np.dtype:
    """A binary floating-point dtype numbers can be stored in: numpy's float16/32/64, or a
    float type registered with numpy by another package (``ml_dtypes.bfloat16``).

    numpy knows no bfloat16, and an extension float's dtype has kind ``"V"``; it is
    accepted when it stores 1.5 and −2.0 exactly and turns 1e300 into inf, or into NaN
    for a format without infinities such as ``ml_dtypes.float8_e4m3fn`` (a float, not an
    integer or a raw byte type). Anything else is a TypeError.
    """
    if value is None or isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be a float dtype such as numpy.float16, got {value!r}")
    try:
        dtype = np.dtype(value)
    except TypeError as exc:
        raise TypeError(
            f"{name} must be a float dtype such as numpy.float16, got {value!r}"
        ) from exc
    if dtype.kind == "f":
        return dtype
    if dtype.kind == "V" and dtype.itemsize in (1, 2, 4):
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                back = np.array([1.5, -2.0, 1e300]).astype(dtype).astype(np.float64)
        except (TypeError, ValueError):
            back = None
        too_large = back is not None and (np.isinf(back[2]) or np.isnan(back[2]))
        if too_large and back[0] == 1.5 and back[1] == -2.0:
            return dtype
    raise TypeError(f"{name} must be a float dtype such as numpy.float16, got {dtype}")


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    """One of a fixed set of strings: another string is a ValueError, a non-string a TypeError."""
    choices = tuple(choices)
    options = ", ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        raise TypeError(
            f"{name} must be one of {options} (a string), got {type(value).__name__} {value!r}"
        )
    if value not in choices:
        raise ValueError(f"{name} must be one of {options}, got {value!r}")
    return value


def check_bool(name: str, value) -> bool:
    """A flag such as ``causal``: exactly True or False (numpy bools too), nothing truthy."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_mask(name: str, value) -> np.ndarray:
    """An attention mask, shape (seq_len,) or (batch, seq_len): 1/True keeps, 0/False pads.

    Booleans or integers 0 and 1, as tokenizers return them; returned as 2-D int64
    (a 1-D mask becomes one row).
    """
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must hold 0/1 or True/False, got {type(value).__name__} {value!r}")
    try:
        kind = "bool" if np.asarray(value).dtype.kind == "b" else "integer"
    except (ValueError, TypeError):  # ragged: check_array says so
        kind = "integer"
    arr = check_array(name, value, kind=kind, ndim=(1, 2), rule="1-D or 2-D")
    if arr.size and not np.isin(arr, (0, 1)).all():
        raise ValueError(f"{name} must hold only 0 and 1 (or False and True)")
    return np.atleast_2d(arr.astype(np.int64))


def check_integer_offsets(name: str, value, *, length: int, what: str) -> np.ndarray:
    """Whole-number offsets of any sign (a shift of positions): one int for every row, or a
    1-D array of ints with ``length`` entries (``what`` names ``length`` in the message).

    Returned as 1-D int64 of ``length`` entries. Every value must stay below 2**53 in
    magnitude, where float64 still holds each integer exactly (angles are computed in it).
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        arr = np.array([check_int(name, value)], dtype=object)  # Python int: no overflow
    elif isinstance(value, (np.ndarray, list, tuple)):
        arr = check_array(name, value, kind="integer", ndim=1, rule="an int or 1-D")
        if arr.shape != (length,):
            raise ValueError(
                f"{name} must be an int or have one entry per row ({what} = {length}), "
                f"got shape {arr.shape}"
            )
    else:
        raise TypeError(f"{name} must be an int or a 1-D array of ints, got {type(value).__name__}")
    if arr.size and max(abs(int(v)) for v in (arr.max(), arr.min())) >= 2**53:
        raise ValueError(f"{name} must be below 2**53 in magnitude (exact in float64)")
    return np.broadcast_to(arr.astype(np.int64), (length,)).copy()


def check_size(name: str, size: int, *, limit: int, what: str) -> int:
    """A size an argument asks for (``what``: the entries of a mask, the tokens of a batch),
    refused above ``limit`` before anything that large is allocated."""
    if size > limit:
        raise ValueError(f"{name} asks for {what} of {size:,} entries; the limit is {limit:,}")
    return size


def check_generator(name: str, value) -> np.random.Generator:
    """A source of randomness: a ``numpy.random.Generator`` (``numpy.random.default_rng``).

    A seed or the legacy ``numpy.random.RandomState`` is a TypeError, so that every draw
    comes from a generator the caller holds and can reproduce.
    """
    if not isinstance(value, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator (numpy.random.default_rng(seed)), "
            f"got {type(value).__name__} {value!r}"
        )
    return value


def check_callable(name: str, value):
    """A function the library will call, such as the ``rotate`` of a port under test.

    Anything callable is accepted; what it returns is checked where it is called.
    """
    if not callable(value):
        raise TypeError(
            f"{name} must be callable (a function), got {type(value).__name__} {value!r}"
        )
    return value


#: The largest value a model's ``config.json`` may give for each kind of size, and why.
#: Generous against every released model (the deepest have a few hundred layers, the
#: widest heads 512 dims, the longest context 10,485,760 tokens), and small enough that
#: nothing a reader builds from them (a list per layer, a frequency per pair, a bisection
#: over distances) costs more than a few megabytes or a moment; every bound is below 2**53,
#: where float64, and the numbers of the page's JavaScript port, still hold every integer.
CONFIG_LIMITS = {
    "layers": (10_000, "a count of layers; released models have at most a few hundred"),
    "heads": (65_536, "a count of heads or buckets; released models have at most a few hundred"),
    "head_dim": (65_536, "a width of a head in dims; released models use a few hundred at most"),
    "width": (2**24, "a model width, 2**24; released models are at most about 30,000 wide"),
    "length": (
        2**50,
        "a length or other size in tokens, 2**50, below 2**53 where float64 holds every position",
    ),
}


def check_config_int(name: str, value, kind: str, *, minimum: int = 1) -> int:
    """An integer a model's config gives for a size: ``minimum`` up to the bound of its
    ``kind`` in :data:`CONFIG_LIMITS`; ``name`` is the key's path
    (``config['text_config']['head_dim']``).

    >>> check_config_int("config['num_hidden_layers']", 10**7, "layers")
    Traceback (most recent call last):
    ...
    ValueError: config['num_hidden_layers'] must be <= 10000 (a count of layers; released \
models have at most a few hundred), got 10000000
    """
    value = check_int(name, value, minimum=minimum)
    limit, why = CONFIG_LIMITS[kind]
    if value > limit:
        raise ValueError(f"{name} must be <= {limit} ({why}), got {value}")
    return value


def check_config_name(name: str, value) -> str | None:
    """A name a config gives, such as ``model_type``: a string, or None where it gives none."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string, got {type(value).__name__} {value!r}")
    return value


def check_config(config) -> None:
    """``config`` must be a mapping: a model's config.json, loaded; its ``model_type`` a
    string and its ``text_config`` a dict, where it gives them."""
    if not isinstance(config, Mapping):
        raise TypeError(
            f"config must be a dict (a model's config.json, loaded), got {type(config).__name__}"
        )
    check_config_name("config['model_type']", config.get("model_type"))
    text = config.get("text_config")
    if text is not None and not isinstance(text, Mapping):
        raise TypeError(f"config['text_config'] must be a dict, got {type(text).__name__}")
