"""Positions in a key-value cache: shifting keys that are already rotated, and where it fails.

Most inference engines keep a *post-rotation* cache: every key is stored after RoPE
has turned it, ``k_cached = a · R(m) k`` (``a`` the attention factor, 1 unless YaRN
or LongRoPE set one). Moving cached tokens to other positions — llama.cpp's context
shift, which drops old tokens and slides the rest back, or StreamingLLM's positions
within the cache — needs no second pass through the model, because rotations by
angles ``m ω`` compose::

    R(m + Δ) = R(Δ) R(m)     so     a · R(m + Δ) k = R(Δ) (a · R(m) k)

The cached key is turned once more, by ``Δ`` alone (:func:`shift_rotated_keys`). The
shift is a pure rotation: the attention factor is in the cached keys already, and
multiplying it in again scales every shifted key by ``a`` a second time.

llama.cpp does exactly this (``src/llama-kv-cache.cpp`` of ggml-org/llama.cpp, read
at commit 3514e9f6): ``seq_add`` records a shift per cache cell, and before the next
batch ``build_graph_shift`` passes every layer's cached keys through
``build_rope_shift``, which calls the forward pass's ``ggml_rope_ext`` with those
shifts as positions — on a quantised cache after dequantising to float32, writing
the result back quantised. ``ggml_rope_ext`` multiplies cos and sin by its attention
factor, and by YaRN's ``1 + 0.1 ln(1 / freq_scale)`` whenever YaRN is on
(``rope_yarn`` in ``ggml/src/ggml-cpu/ops.cpp``), in a shift as in the forward pass;
at that commit ``build_rope_shift`` passes the forward pass's attention factor for
every architecture but ``LLM_ARCH_DEEPSEEK2`` (DeepSeek-V2's), for which it passes
``1 / (1 + 0.1 ln(1 / freq_scale))`` so that the two cancel.

The identity is exact in exact arithmetic only, and only while the frequencies stay
put:

* **Rounding.** A float16 or bfloat16 cache holds rounded keys; each shift rotates the
  rounded key in float32 and rounds it again, so the errors of repeated shifts add up
  (:func:`repeated_shift_error`). A quantised cache (FP8, llama.cpp's ``q8_0``/``q4_0``)
  rounds far more coarsely after every rotation.
* **Frequencies that depend on the length.** Dynamic NTK scaling recomputes the
  frequencies from the current length, and LongRoPE switches from its short to its
  long factors past the original context: keys cached under one set of frequencies
  carry angles ``m ω`` that the current set would not give them, and no shift repairs
  that, since the error ``m (ω_i − ω'_i)`` differs from pair to pair
  (:func:`cached_angle_error`).
* **M-RoPE.** Every token has three ids (t, h, w). Turning a whole key by ``Δ`` adds
  ``Δ`` to all three, which is right for Qwen2-VL's ids (an image's h and w start from
  its offset too); but the ids advance by an image's height or width, not by its
  number of tokens, so the ``Δ`` that removing a run of tokens calls for is not the
  number of tokens removed (``tests/test_kv_cache.py`` shows both). At the commit
  above, llama.cpp's ``seq_add`` refuses models with more than one position per token.
"""

from __future__ import annotations

import numpy as np

from ._checks import (
    check_array,
    check_bool,
    check_choice,
    check_int,
    check_integer_offsets,
    check_optional,
    check_positions,
    check_rotary_input,
    check_same_shape,
    check_size,
    check_storage_float_dtype,
)
from .rope import _complex_dtype, _halves_tables, _rotate, _rotate_pairs, apply_rope
from .sinusoidal import LAYOUTS

__all__ = ["shift_rotated_keys", "repeated_shift_error", "cached_angle_error", "key_error"]

#: The most shifts × key entries :func:`repeated_shift_error` computes (about a second).
MAX_SHIFT_WORK = 2**27


def _rotation_width(rotary_dim, head_dim: int) -> int:
    rotary_dim = check_optional(check_int, "rotary_dim", rotary_dim)
    if rotary_dim is not None and not (2 <= rotary_dim <= head_dim and rotary_dim % 2 == 0):
        raise ValueError(
            f"rotary_dim must be even, >= 2 and <= head_dim ({head_dim}), got {rotary_dim}"
        )
    return head_dim if rotary_dim is None else rotary_dim


def _check_inv_freq(inv_freq, half: int, partial: bool) -> np.ndarray:
    freq = check_array("inv_freq", inv_freq, ndim=1, minimum=0)
    if freq.shape != (half,):
        what = "rotary_dim/2" if partial else "head_dim/2"
        raise ValueError(
            f"inv_freq must have {what} = {half} entries (one per pair), got shape {freq.shape}"
        )
    return freq


def _phasors(delta: np.ndarray, freq: np.ndarray, dtype) -> np.ndarray:
    """``e^{iΔω}`` of every row's ``Δ`` and every pair, complex as rotations of ``dtype``
    rows are computed: a pure rotation, no factor. Computed once per distinct ``Δ`` (a
    cache shifts most rows by one ``Δ``), each row then taking its own."""
    values, where = np.unique(delta, return_inverse=True)
    theta = np.multiply.outer(values.astype(np.float64), freq)  # θ = Δ · ω_i, float64
    rot = np.empty(theta.shape, dtype=_complex_dtype(dtype))
    rot.real, rot.imag = np.cos(theta), np.sin(theta)
    return rot[where.reshape(np.shape(delta))]


def _turn_table(delta: np.ndarray, freq: np.ndarray, dtype, layout: str):
    """The table :func:`~pe_explained.rope._rotate` turns ``dtype`` rows by ``R(Δ)`` with."""
    rot = _phasors(delta, freq, dtype)
    return rot if layout == "interleaved" else _halves_tables(rot)


def _turn(keys: np.ndarray, delta: np.ndarray, freq: np.ndarray, layout: str, width: int):
    """``R(Δ)`` on the first ``width`` dimensions of every row; the rest pass through."""
    rot = _phasors(delta, freq, keys.dtype)
    if width == keys.shape[-1]:
        return _rotate_pairs(keys, rot, layout)
    out = keys.copy()  # the dimensions after rotary_dim were never rotated
    out[..., :width] = _rotate_pairs(keys[..., :width], rot, layout)
    return out


def shift_rotated_keys(keys, delta, inv_freq, *, layout="halves", rotary_dim=None) -> np.ndarray:
    """Move keys that are already rotated by ``delta`` positions: ``R(Δ)`` applied to each.

    Parameters
    ----------
    keys : ndarray, shape (..., seq, head_dim)
        Cached keys as RoPE left them, ``a · R(m) k`` (float16/32/64), at any positions
        ``m`` and with any attention factor ``a``.
    delta : int or array_like of int, shape (seq,)
        How far each row moves (any sign): one shift for every row, or one per row
        (StreamingLLM keeps its sinks in place, ``Δ = 0``, and slides the window,
        ``Δ = −1``). Magnitudes below 2**53.
    inv_freq : array_like, shape (rotary_dim // 2,)
        The frequencies the keys were rotated with, from
        :func:`~pe_explained.rope_frequencies` (scaled ones too: the shift must use the
        forward pass's frequencies, since ``R_ω(m + Δ) = R_ω(Δ) R_ω(m)`` holds for one
        ``ω`` only).
    layout : {"halves", "interleaved"}, optional
        Which dimensions form a pair, as in :func:`~pe_explained.apply_rope`.
    rotary_dim : int, optional
        Partial rotation: only the first ``rotary_dim`` dimensions are turned; the
        others were never rotated and pass through untouched.

    Returns
    -------
    ndarray, same shape and dtype as ``keys``
        ``R(Δ) k_cached`` for every row. With ``k_cached = a · R(m) k`` this is
        ``a · R(m + Δ) k``, the key the forward pass computes at ``m + Δ``, to the
        rounding of the keys' dtype.

    Notes
    -----
    Every pair ``(x_a, x_b)`` becomes ``(x_a cos Δω − x_b sin Δω, x_a sin Δω + x_b cos Δω)``,
    angles in float64 and products in float32 (float64 for float64 keys), the
    arithmetic of :func:`~pe_explained.apply_rope` with an attention factor of 1: the
    factor ``a`` sits in the cached keys already. Passing the cache through
    :func:`~pe_explained.apply_rope` at positions ``Δ`` with ``attention_factor=a`` (the
    forward pass's own rotation, as llama.cpp's shift calls ``ggml_rope_ext``) multiplies
    it in twice.

    References
    ----------
    llama.cpp, ``src/llama-kv-cache.cpp``: ``llama_kv_cache::build_rope_shift`` (the
    K-shift, ``ggml_rope_ext`` on the cached keys with each cell's shift) and
    ``seq_add`` (which records the shifts); ``ggml/src/ggml-cpu/ops.cpp``,
    ``rope_yarn``. Su et al. (2021), RoFormer, arXiv:2104.09864, eq. 16 (rotations
    compose).

    Examples
    --------
    A key turned to position 3, shifted back by 2: the key at position 1.

    >>> inv_freq = np.array([1.0, 0.01])
    >>> k = np.array([[1.0, 0.0, 0.0, 1.0]])
    >>> at_3 = apply_rope(k, [3], inv_freq)
    >>> shift_rotated_keys(at_3, -2, inv_freq).round(3).tolist()
    [[0.54, -0.01, 0.841, 1.0]]
    >>> apply_rope(k, [1], inv_freq).round(3).tolist()
    [[0.54, -0.01, 0.841, 1.0]]
    """
    head_dim = check_rotary_input("keys", keys).shape[-1]
    width = _rotation_width(rotary_dim, head_dim)
    shifts = check_integer_offsets("delta", delta, length=keys.shape[-2], what="keys.shape[-2]")
    freq = _check_inv_freq(inv_freq, width // 2, width != head_dim)
    layout = check_choice("layout", layout, LAYOUTS)
    return _turn(keys, shifts, freq, layout, width)


def _largest_stored(dtype: np.dtype) -> float:
    """The largest finite number ``dtype`` stores: numpy's ``finfo`` for its own floats;
    for a registered extension float (``ml_dtypes.float8_e4m3fn``: 448), found from its
    casts alone, by doubling until the cast is not finite and then bisecting."""
    try:
        return float(np.finfo(dtype).max)
    except ValueError:  # not one of numpy's own floats
        pass

    def holds(x: float) -> bool:
        with np.errstate(over="ignore", invalid="ignore"):
            return bool(np.isfinite(np.array([x]).astype(dtype).astype(np.float64))[0])

    low = 1.0
    while holds(2 * low):
        low *= 2
    high = 2 * low
    for _ in range(64):  # bisect in float64 between the last finite and first non-finite cast
        mid = (low + high) / 2
        low, high = (mid, high) if holds(mid) else (low, mid)
    return float(np.array([low]).astype(dtype).astype(np.float64)[0])


#: How a quantised cache scales what it stores (``repeated_shift_error``'s ``scale``).
SCALES = ("none", "tensor", "row")


def repeated_shift_error(
    keys, positions, delta, n_shifts, inv_freq, *, dtype=np.float16, layout="halves", scale="none"
) -> np.ndarray:
    """How far a cache stored in ``dtype`` drifts when it is shifted by ``delta`` again and again.

    The keys are rotated to ``positions`` and stored in ``dtype``; then, ``n_shifts``
    times, the stored keys are read into float32, turned by ``R(Δ)``
    (:func:`shift_rotated_keys`) and stored in ``dtype`` again, as llama.cpp's shift
    treats a float16 cache (read into float, rotate, write back). After ``j`` shifts
    they are compared with the exact keys at ``positions + j·Δ``::

        error(j) = max over rows ‖stored_j − R(m + jΔ) k‖ / ‖k‖

    with the exact keys in float64. The drift grows in proportion to ``j``, because
    two of its parts repeat the same error at every shift:

    * the turn ``e^{iΔω}`` is held in float32, its cos and sin rounded, so every
      shift turns by the same slightly wrong angle and length (about 2^-24 of each):
      a float32 cache drifts by about ``j · 2^-24``;
    * in float16 or bfloat16, a pair whose step ``|Δ| ω_i`` is below about half the
      dtype's spacing (2^-11 of the value for float16, 2^-8 for bfloat16) is rounded
      back to where it stood: the slow pairs stand still while the exact key turns,
      and their error grows by ``|Δ| ω_i`` per shift. Small shifts suffer most (a
      cache that drops one token at a time shifts by 1 at every step); a larger
      ``|Δ|`` turns more pairs visibly, and their roundings partly cancel.

    Parameters
    ----------
    keys : array_like, shape (seq, head_dim)
        Keys before any rotation; head_dim even, no zero row.
    positions : int or array_like, shape (seq,)
        Where the keys are first rotated (an int ``seq`` means ``0 … seq−1``).
    delta : int or array_like of int, shape (seq,)
        The shift applied each time (any sign), one for all rows or one per row.
    n_shifts : int
        How many shifts, >= 0; ``n_shifts · keys.size`` at most 2**27.
    inv_freq : array_like, shape (head_dim // 2,)
        The frequencies (:func:`~pe_explained.rope_frequencies`).
    dtype : float dtype, optional
        What the cache stores: ``numpy.float16``, ``ml_dtypes.bfloat16``,
        ``ml_dtypes.float8_e4m3fn`` (an FP8 cache), ``numpy.float32``, …
    layout : {"halves", "interleaved"}, optional
    scale : {"none", "tensor", "row"}, optional
        How the cache scales what it stores, ``round(x / s) · s``: ``"none"`` (s = 1,
        vLLM's ``k_scale`` when a checkpoint carries none); ``"tensor"``, one
        ``s = max |x| / max(dtype)`` over the first store, kept for every later one
        (the calibrated per-tensor ``k_scale`` of an FP8 checkpoint); ``"row"``, that
        ratio per row at every store (vLLM's ``fp8_per_token_head``, one scale per
        token and head, computed when the row is written).

    Returns
    -------
    ndarray of float64, shape (n_shifts + 1,)
        The error after 0, 1, …, ``n_shifts`` shifts; entry 0 is the rounding of the
        first store alone. A value the format cannot hold (FP8 E4M3 has no infinity:
        past 448 it stores NaN) makes the error ``inf``.

    Examples
    --------
    >>> k = np.random.default_rng(0).normal(size=(64, 64))
    >>> inv_freq = 10000.0 ** (-np.arange(0, 64, 2) / 64)
    >>> err = repeated_shift_error(k, 64, -1, 400, inv_freq, dtype=np.float16)
    >>> [f"{e:.0e}" for e in err[[0, 1, 100, 400]].tolist()]  # grows in proportion
    ['3e-04', '4e-04', '1e-02', '4e-02']
    >>> err = repeated_shift_error(k, 64, -256, 400, inv_freq, dtype=np.float16)
    >>> [f"{e:.0e}" for e in err[[0, 1, 100, 400]].tolist()]  # every pair turns visibly
    ['3e-04', '4e-04', '3e-03', '6e-03']
    """
    raw = check_array("keys", keys, ndim=2, rule="2-D (seq, head_dim)", nonempty=True)
    seq, head_dim = raw.shape
    if head_dim % 2:
        raise ValueError(f"keys' last axis (head_dim) must be even, got {head_dim}")
    norms = np.linalg.norm(raw, axis=-1)
    if not np.all(norms > 0):
        raise ValueError("keys must hold no zero row (the error is relative to ‖k‖)")
    pos = check_positions("positions", positions)
    if len(pos) != seq:
        raise ValueError(f"positions must have one entry per row of keys ({seq}), got {len(pos)}")
    shifts = check_integer_offsets("delta", delta, length=seq, what="rows of keys")
    n_shifts = check_int("n_shifts", n_shifts, minimum=0)
    check_size("n_shifts", n_shifts * raw.size, limit=MAX_SHIFT_WORK, what="shifted key entries")
    freq = _check_inv_freq(inv_freq, head_dim // 2, False)
    dtype = check_storage_float_dtype("dtype", dtype)
    layout = check_choice("layout", layout, LAYOUTS)
    scale = check_choice("scale", scale, SCALES)
    work = np.float64 if dtype == np.float64 else np.float32  # what a shift computes in
    largest = _largest_stored(dtype)
    exact = apply_rope(raw, pos, freq, layout=layout)  # R(m) k, float64
    tensor_scale = np.max(np.abs(exact)) / largest  # one s, from the first store

    def store(x):
        if scale == "none":
            s = 1.0
        elif scale == "tensor":
            s = tensor_scale
        else:  # s = max |row| / max(dtype), per row; an all-zero row keeps s = 1
            s = np.max(np.abs(x), axis=-1, keepdims=True) / largest
            s = np.where(s > 0, s, 1.0)
        with np.errstate(over="ignore", invalid="ignore"):  # out of range: inf, reported
            return (x / s).astype(dtype).astype(work) * s  # round(x / s) · s

    stored = store(exact)
    errors = np.empty(n_shifts + 1)
    turn = _turn_table(shifts, freq, stored.dtype, layout)  # R(Δ), the same at every shift
    for j in range(n_shifts + 1):
        if j:
            stored = store(_rotate(stored, turn, layout))  # round(R(Δ) · stored)
        truth = _turn(exact, j * shifts, freq, layout, head_dim)  # R(m + jΔ) k, float64
        errors[j] = np.max(np.linalg.norm(stored - truth, axis=-1) / norms)
    return np.where(np.isnan(errors), np.inf, errors)  # a value the format cannot hold


def cached_angle_error(positions, inv_freq_cached, inv_freq_current, *, wrap=True) -> np.ndarray:
    """The angle by which a cached key is off when the frequencies have changed since.

    A key cached at position ``m`` under frequencies ``ω`` carries the angles
    ``m ω_i``; a model now rotating with ``ω'`` (dynamic NTK at a new length,
    LongRoPE past its original context) expects ``m ω'_i``. The difference, wrapped
    to ``(−π, π]`` by default::

        error[m, i] = wrap(m (ω_i − ω'_i))        (wrap=False: m (ω_i − ω'_i) itself)

    Wrapped, it says where the key points, and π, half a turn, is its ceiling however
    far the angle has run; unwrapped, it says how far: a pair off by more than π has
    passed half a turn, and the wrapped value alone cannot tell it from a smaller
    error. A shift cannot repair either: turning the key by ``Δ`` adds ``Δ ω'_i``, one
    number times the current ladder, while the error is ``m`` times another ladder.

    Parameters
    ----------
    positions : int or array_like, shape (n,)
        Positions of the cached keys (an int ``n`` means ``0 … n−1``).
    inv_freq_cached, inv_freq_current : array_like, shape (pairs,)
        The frequencies the keys were rotated with and those in use now
        (:func:`~pe_explained.rope_frequencies` with the two ``seq_len``).
    wrap : bool, optional
        True (the default): the angle wrapped to ``(−π, π]``; False: the whole angle
        ``m (ω_i − ω'_i)``, unbounded.

    Returns
    -------
    ndarray of float64, shape (n, pairs)
        Radians, in ``(−π, π]`` when wrapped; zero where the frequencies agree.

    References
    ----------
    transformers, ``modeling_rope_utils.py``, ``dynamic_rope_update`` (the
    frequencies recomputed from the current length before each forward pass, for
    ``"dynamic"`` and ``"longrope"``; a cache keeps the keys rotated before).

    Examples
    --------
    >>> cached_angle_error([0, 100], [1.0, 0.01], [1.0, 0.005]).round(4).tolist()
    [[0.0, 0.0], [0.0, 0.5]]
    >>> cached_angle_error([700], [1.0, 0.01], [1.0, 0.005]).round(4).tolist()
    [[0.0, -2.7832]]
    >>> cached_angle_error([700], [1.0, 0.01], [1.0, 0.005], wrap=False).round(4).tolist()
    [[0.0, 3.5]]
    """
    pos = check_positions("positions", positions)
    cached = check_array("inv_freq_cached", inv_freq_cached, ndim=1, minimum=0)
    current = check_array("inv_freq_current", inv_freq_current, ndim=1, minimum=0)
    check_same_shape("inv_freq_cached", cached, "inv_freq_current", current)
    wrap = check_bool("wrap", wrap)
    gap = np.multiply.outer(pos.astype(np.float64), cached - current)  # m (ω_i − ω'_i)
    if not wrap:
        return gap
    return np.pi - np.mod(np.pi - gap, 2 * np.pi)  # wrapped to (−π, π]


def key_error(got, expected) -> float:
    """How far keys are from the keys they should be: the largest relative error of a row.

    ::

        error = max over rows ‖got − expected‖ / ‖expected‖

    the measure :func:`repeated_shift_error` reports (there ``expected`` is ``R(m) k``,
    as long as ``k``). A shift done right leaves the rounding of the keys' dtype, about
    ``1e-7`` in float32; an error near 1 or above is a key pointing elsewhere (two
    random directions are ``√2`` apart).

    Parameters
    ----------
    got, expected : array_like, shape (..., rows, head_dim)
        Keys as a cache holds them after a shift, and the keys the forward pass computes
        at the new positions; same shape, at least 2-D, no zero row in ``expected``.

    Returns
    -------
    float
        The largest relative error over every row (and every head of a batch).

    Examples
    --------
    A key turned by R(Δ) with the attention factor put in a second time is ``a − 1``
    off:

    >>> inv_freq = np.array([1.0, 0.01])
    >>> k = np.array([[1.0, 0.0, 0.0, 1.0]])
    >>> cached = apply_rope(k, [3], inv_freq, attention_factor=1.2)
    >>> fresh = apply_rope(k, [5], inv_freq, attention_factor=1.2)
    >>> round(key_error(shift_rotated_keys(cached, 2, inv_freq), fresh), 12)
    0.0
    >>> again = apply_rope(cached, [2], inv_freq, attention_factor=1.2)
    >>> round(key_error(again, fresh), 12)
    0.2
    """
    got = check_array("got", got, ndim=range(2, 65), rule="at least 2-D (rows, head_dim)")
    got = check_array("got", got, nonempty=True)
    expected = check_array("expected", expected, nonempty=True)
    check_same_shape("got", got, "expected", expected)
    norms = np.linalg.norm(expected, axis=-1)
    if not np.all(norms > 0):
        raise ValueError("expected must hold no zero row (the error is relative to it)")
    return float(np.max(np.linalg.norm(got - expected, axis=-1) / norms))  # max ‖g − e‖/‖e‖
