"""Invariants to test a RoPE implementation of one's own (a *port*) against.

A port is a callable ``rotate(x, positions)`` that returns ``x`` rotated, with ``x`` of
shape (batch, seq, head_dim) and ``positions`` an int64 array of shape (seq,). RoPE
(Su et al., 2021) turns pair ``i`` of a row at position ``pos`` by the angle
``θ = pos · ω_i``, with ``ω_i = base^(−2i / head_dim)``. That definition implies
properties a port can be tested for without reading its code:

- position 0 is the identity: every angle is 0;
- each pair of dimensions keeps its length: a rotation of a plane;
- a score ``q·k`` depends on ``m − n`` only: moving the query and the key by the same
  number of positions changes no score;
- the port rotates the pairs of one layout, ``"halves"`` (``j`` with ``j + head_dim/2``,
  GPT-NeoX and Hugging Face's ``rotate_half``) or ``"interleaved"`` (``2i`` with
  ``2i + 1``, RoFormer, GPT-J, Meta's Llama code), which unit vectors reveal;
- pair ``i`` turns by ``ω_i`` per position, which its angles at positions 1, 2, 4, …
  reveal;
- it agrees with the float64 reference, :func:`pe_explained.apply_rope`, at positions
  near 0 and far from it, where angles computed in low precision have drifted.

:func:`check_rope_port` runs the seven checks and returns a :class:`PortReport`;
:func:`example_rope_port` builds the library's own port and deliberately broken ones,
each with one mistake that real ports have made.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass

import numpy as np

from ._checks import (
    check_array,
    check_base,
    check_bool,
    check_callable,
    check_choice,
    check_float_dtype,
    check_int,
    check_positions,
    check_positive_even_int,
    check_rotary_input,
)
from .precision import float32_rope_cos_sin
from .rope import apply_rope, interleaved_to_halves_permutation, rope_frequencies
from .sinusoidal import LAYOUTS

__all__ = [
    "CHECKS",
    "PORT_VARIANTS",
    "PortCheck",
    "PortReport",
    "check_rope_port",
    "example_rope_port",
]

#: The checks of a report, in its order.
CHECKS = (
    "identity at 0",
    "pair norms",
    "relative positions",
    "layout",
    "frequencies",
    "reference, near",
    "reference, far",
)
#: Positions 0 … NEAR − 1 are the near ones; as many far ones end at ``far_position``.
NEAR = 16
#: Random rows per check, drawn from one seed: a report is the same every time.
ROWS, SEED = 4, 0
#: The rounding every comparison allows, in units of the dtype's unit roundoff.
ROUNDING_UNITS = 8
#: The ports :func:`example_rope_port` builds.
PORT_VARIANTS = (
    "library",
    "float32 recipe",
    "wrong layout",
    "exponent i/d",
    "float16 angles",
    "negated angle",
    "offset by one",
    "scaled output",
)
#: What the ``"scaled output"`` port multiplies by: YaRN's attention factor for a
#: factor of 4, 0.1 ln 4 + 1, applied where the model has no scaling.
SCALED_OUTPUT = 0.1 * math.log(4.0) + 1.0


@dataclass(frozen=True)
class PortCheck:
    """One check: its name, its verdict, the number measured, the largest number that
    passes, and a sentence saying what the number means for the port."""

    name: str
    passed: bool
    measured: float
    tolerance: float
    meaning: str

    def __str__(self) -> str:
        head = f"{'pass' if self.passed else 'fail'}  {self.name:<19}{_number(self.measured):>9}"
        body = textwrap.fill(
            self.meaning, width=78, initial_indent=" " * 6, subsequent_indent=" " * 6
        )
        return f"{head}   (tolerance {_number(self.tolerance)})\n{body}"


@dataclass(frozen=True, eq=False)
class PortReport:
    """What :func:`check_rope_port` found: the checks, the pairing it detected, and the
    frequencies and base it recovered (``recovered_inv_freq[i]`` is the angle pair ``i``
    of the detected pairing turns by per position; NaN where none could be read)."""

    checks: tuple[PortCheck, ...]
    detected_layout: str
    recovered_inv_freq: np.ndarray
    recovered_base: float
    setting: str

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if not c.passed)

    def __getitem__(self, name: str) -> PortCheck:
        for check in self.checks:
            if check.name == name:
                return check
        raise KeyError(f"no check named {name!r}; the checks are {', '.join(CHECKS)}")

    def __str__(self) -> str:
        failed = len(self.failed)
        verdict = f"{failed} of {len(self.checks)} checks fail" if failed else "every check passes"
        return "\n".join([self.setting, verdict, *(str(c) for c in self.checks)])


def _number(value: float) -> str:
    """A measurement as the report prints it: 0, a count, or two significant digits."""
    if value == 0 or (math.isfinite(value) and value == round(value) and abs(value) < 1e4):
        return f"{value:.0f}"
    return f"{value:.2g}"


def _base_text(base: float) -> str:
    """A recovered base as a sentence writes it: 10,000, 100, 1.5."""
    return f"{base:,.0f}" if base >= 100 else f"{base:.3g}"


def _pairs(head_dim: int, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """The dimensions ``(a_i, b_i)`` of every pair of ``layout``: ``a_i`` turns towards
    ``b_i``. The interleaved pairs are read from the permutation that takes an interleaved
    head to a split-half one: its first half holds the ``a_i``, its second the ``b_i``."""
    half = head_dim // 2
    if layout == "halves":
        return np.arange(half), np.arange(half, head_dim)
    perm = interleaved_to_halves_permutation(head_dim)
    return perm[:half], perm[half:]


def _turn(x: np.ndarray, cos, sin, layout: str) -> np.ndarray:
    """Rotate the pairs of ``layout``: (a, b) -> (a cos θ − b sin θ, b cos θ + a sin θ)."""
    a, b = _pairs(x.shape[-1], layout)
    out = np.empty_like(x)
    out[..., a] = x[..., a] * cos - x[..., b] * sin
    out[..., b] = x[..., b] * cos + x[..., a] * sin
    return out


def example_rope_port(variant, head_dim, *, base=10000.0, layout="halves"):
    """A port of RoPE to test :func:`check_rope_port` on: the library's, or a broken one.

    Parameters
    ----------
    variant : str
        One of :data:`PORT_VARIANTS`:

        ``"library"``
            :func:`~pe_explained.apply_rope`: angles in float64, rounded once.
        ``"float32 recipe"``
            the usual recipe, as transformers' default rotary embedding computes it:
            ``ω_i`` and ``pos · ω_i`` in float32 (:func:`~pe_explained.float32_rope_cos_sin`).
            Not broken, but its angle error grows with the position.
        ``"wrong layout"``
            the other layout's pairs, turned by the right angles.
        ``"exponent i/d"``
            ``ω_i = base^(−i / head_dim)``: the exponent of ``arange(0, head_dim)`` where
            ``arange(0, head_dim, 2)`` belongs, cut to ``head_dim/2`` entries.
        ``"float16 angles"``
            ``pos · ω_i`` computed in float16: rounded to 11 significant bits, and
            infinite (its cosine NaN) past 65,504.
        ``"negated angle"``
            a sign lost in the rotation: every pair turns by ``−θ``.
        ``"offset by one"``
            every position read one too far (position ids from 1).
        ``"scaled output"``
            every rotated vector multiplied by :data:`SCALED_OUTPUT` (YaRN's attention
            factor for a factor of 4) where the model has no scaling.
    head_dim : int
        Positive and even.
    base : float, optional
        The base of the frequency ladder; > 1.
    layout : {"halves", "interleaved"}, optional
        The layout the port is meant to rotate (``"wrong layout"`` rotates the other).

    Returns
    -------
    rotate : callable
        ``rotate(x, positions)``: ``x`` a float array (…, seq, head_dim), ``positions``
        as for :func:`~pe_explained.apply_rope`; returns an array of ``x``'s shape.

    Examples
    --------
    >>> x = np.array([[[1.0, 0.0, 0.0, 0.0]]])                # one row, head_dim 4
    >>> example_rope_port("library", 4)(x, [1]).round(4).tolist()
    [[[0.5403, 0.0, 0.8415, 0.0]]]
    >>> example_rope_port("negated angle", 4)(x, [1]).round(4).tolist()
    [[[0.5403, 0.0, -0.8415, 0.0]]]
    """
    variant = check_choice("variant", variant, PORT_VARIANTS)
    head_dim = check_positive_even_int("head_dim", head_dim)
    base = check_base("base", base)
    layout = check_choice("layout", layout, LAYOUTS)
    inv_freq, _ = rope_frequencies(head_dim, base=base)
    half = head_dim // 2

    def rotate(x, positions):
        x = check_rotary_input("x", x)
        if x.shape[-1] != head_dim:
            raise ValueError(f"x's last axis must be head_dim = {head_dim}, got {x.shape[-1]}")
        pos = check_positions("positions", positions)
        if len(pos) != x.shape[-2]:
            raise ValueError(
                f"positions must have one entry per row of x ({x.shape[-2]}), got {len(pos)}"
            )
        if variant in ("library", "wrong layout", "offset by one", "scaled output"):
            turned = LAYOUTS[1 - LAYOUTS.index(layout)] if variant == "wrong layout" else layout
            return apply_rope(
                x,
                pos + 1 if variant == "offset by one" else pos,
                inv_freq,
                layout=turned,
                attention_factor=SCALED_OUTPUT if variant == "scaled output" else 1.0,
            )
        if variant == "exponent i/d":
            # WRONG: base^(−j / head_dim) for j = 0 … head_dim − 1, cut to head_dim/2 entries
            wrong = base ** (-np.arange(0, head_dim)[:half] / head_dim)
            return apply_rope(x, pos, wrong, layout=layout)
        if variant == "float32 recipe":
            cos, sin = float32_rope_cos_sin(pos, head_dim, base=base)
        elif variant == "float16 angles":
            with np.errstate(over="ignore", invalid="ignore"):  # inf past 65,504, then NaN
                theta = np.multiply.outer(pos.astype(np.float16), inv_freq.astype(np.float16))
                cos, sin = np.cos(theta.astype(np.float32)), np.sin(theta.astype(np.float32))
        else:  # "negated angle": WRONG, −sin where +sin belongs
            theta = np.multiply.outer(pos.astype(np.float64), inv_freq)
            cos, sin = np.cos(theta), -np.sin(theta)
        work = np.float64 if x.dtype == np.float64 else np.float32
        out = _turn(x.astype(work), cos.astype(work), sin.astype(work), layout)
        return out.astype(x.dtype)

    return rotate


def _call(rotate, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``rotate`` on copies of its arguments, its answer checked and returned as float64."""
    try:
        out = rotate(x.copy(), positions.copy())
    except Exception as exc:  # the port's own error, named as the port's
        raise ValueError(f"rotate raised {type(exc).__name__}: {exc}") from exc
    out = check_array("the output of rotate", out, finite=False)
    if out.shape != x.shape:
        raise ValueError(
            f"rotate must return an array of x's shape {x.shape}, got shape {out.shape}"
        )
    return out


def _row_error(out: np.ndarray, x: np.ndarray) -> np.ndarray:
    """‖out − x‖ / ‖x‖ for every row (the last axis)."""
    return np.linalg.norm(out - x, axis=-1) / np.linalg.norm(x, axis=-1)


def _pairing(probe: np.ndarray, rounding: float) -> tuple[np.ndarray, bool]:
    """The dimension every unit vector turns towards, and whether they form pairs.

    ``probe[j, s, k]`` is the port's output for the unit vector ``e_j`` at the ``s``-th
    probed position; ``e_j``'s partner is the other dimension it reaches furthest.
    """
    reached = np.where(np.isfinite(probe), np.abs(probe), 0.0).max(axis=1)  # (j, k)
    np.fill_diagonal(reached, 0.0)
    partner = reached.argmax(axis=1)
    every = np.arange(len(partner))
    paired = bool(np.all(partner[partner] == every) and np.all(reached[every, partner] > rounding))
    return partner, paired


def _name_pairing(partner: np.ndarray, paired: bool) -> str:
    for layout in LAYOUTS:
        a, b = _pairs(len(partner), layout)
        if paired and np.array_equal(partner[a], b):
            return layout
    return "other pairs" if paired else "no pairs"


def _frequencies(probe, partner, detected: str, steps) -> np.ndarray:
    """The angle per position of every pair, from its angles at the probed positions.

    The angle of pair (a, b) at position ``pos`` is read from the unit vector ``e_a``,
    which turns into ``(cos θ, sin θ)`` on (a, b); its change from position 0 is
    unwrapped step by step, each position doubling the last (0, 1, 2, 4, …): the angle
    the previous estimate predicts picks the turn.
    """
    head_dim = len(partner)
    if detected in LAYOUTS:
        a, b = _pairs(head_dim, detected)
    elif detected == "other pairs":
        a = np.array([j for j in range(head_dim) if j < partner[j]])
        b = partner[a]
    else:
        return np.full(head_dim // 2, np.nan)
    phi = np.arctan2(probe[a, :, b], probe[a, :, a])  # (pair, probed position)
    change = np.angle(np.exp(1j * (phi - phi[:, :1])))  # wrapped into (−π, π]
    omega = change[:, 1]  # positions 0 and 1
    for column, pos in enumerate(steps[2:], start=2):
        turns = np.round((omega * pos - change[:, column]) / (2 * np.pi))
        omega = (change[:, column] + 2 * np.pi * turns) / pos
    return omega


def _fitted_base(omega: np.ndarray) -> float:
    """The base of the ladder |ω_i| = c · base^(−2i / head_dim) closest in log (least squares)."""
    size = np.abs(omega)
    usable = np.isfinite(size) & (size > 0)
    if usable.sum() < 2:
        return math.nan
    i, log_size = np.flatnonzero(usable).astype(np.float64), np.log(size[usable])
    slope = np.sum((i - i.mean()) * (log_size - log_size.mean())) / np.sum((i - i.mean()) ** 2)
    return float(np.exp(-slope * len(omega)))  # slope = −(2 / head_dim) ln base


def check_rope_port(
    rotate,
    head_dim,
    *,
    base=10000.0,
    layout="halves",
    dtype=np.float32,
    far_position=100_000,
    exact_angles=False,
):
    """Run RoPE's invariants against a port and compare it with the float64 reference.

    Parameters
    ----------
    rotate : callable
        The port: ``rotate(x, positions)`` with ``x`` a ``dtype`` array of shape
        (batch, seq, head_dim) and ``positions`` int64 of shape (seq,); it returns
        ``x`` rotated, the same shape (anything ``numpy.asarray`` reads: a CPU tensor
        too). It gets copies, so it may overwrite them.
    head_dim : int
        The width it rotates; even and >= 4 (a base needs two pairs).
    base : float, optional
        The base of the ladder the port should use, ``ω_i = base^(−2i / head_dim)``.
    layout : {"halves", "interleaved"}, optional
        The pairs the port should rotate.
    dtype : numpy float dtype, optional
        What ``x`` is given in, and the precision the tolerances are stated in: float16,
        float32 (default) or float64.
    far_position : int, optional
        The last far position; positions 1, 2, 4, … up to it are probed for the
        frequencies. At least ``2 · NEAR``.
    exact_angles : bool, optional
        Hold the port to angles computed in float64 and rounded once to ``dtype`` (as
        :func:`~pe_explained.apply_rope`), instead of allowing the drift of angles
        computed in ``dtype``.

    Returns
    -------
    PortReport
        Seven :class:`PortCheck` (name, passed, measured, tolerance, meaning), in the order
        of :data:`CHECKS`, the detected pairing, and the recovered frequencies and base.

    Notes
    -----
    With ``u`` the unit roundoff of ``dtype`` (2^-24 for float32), every comparison
    allows ``r = 8u`` of rounding, relative to the norms compared. A comparison up to
    position ``P`` also allows the first-order angle error of the usual recipe,
    ``a(P) = 2u_θ · P · ω_0``, where ``ω_i`` and ``P · ω_i`` are each rounded once to
    a format of unit roundoff ``u_θ``: ``u`` itself, or float64's 2^-53 with
    ``exact_angles`` (the measured error of the float32 recipe is
    :func:`~pe_explained.rope_angle_error`). A vector turned by angles off by ``ε``
    moves by at most ``ε`` of its norm. The checks:

    ``identity at 0``
        ``max ‖rotate(x, 0) − x‖ / ‖x‖`` over rows; ``r``.
    ``pair norms``
        the largest change of the length of a pair (the detected pairing's; the declared
        layout's when there is none), relative to the row's norm, at the near and far
        positions; ``r``.
    ``relative positions``
        ``max |q_{m+Δ}·k_{n+Δ} − q_m·k_n| / (‖q‖ ‖k‖)`` over ``m, n < NEAR`` and
        ``Δ ∈ {1, far_position − NEAR + 1}``; ``4 (r + a(far_position))``: two scores,
        two vectors each.
    ``layout``
        how many pairs of ``layout`` the port does not rotate together: unit vectors
        ``e_j`` at the probed positions show which dimension each turns towards; ``0``.
    ``frequencies``
        ``max |ω̂_i − ω_i| / ω_i``, with ``ω̂_i`` read from the angles of the detected
        pairs at positions 0, 1, 2, 4, … up to ``P ≤ far_position`` (unwrapped step by
        step, differences from position 0, so an offset does not change them);
        ``2u_θ + 2r / (P · ω_min)``.
    ``reference, near`` / ``reference, far``
        ``max ‖rotate(x, pos) − apply_rope(x, pos)‖ / ‖x‖`` (the reference in float64)
        over positions ``0 … NEAR − 1``, and over the ``NEAR`` positions ending at
        ``far_position``; ``r + a(P)`` with ``P`` the largest of them.

    A float32 port with the usual recipe (transformers' default rotary embedding) passes;
    one whose angles are computed in float16 or from bfloat16 frequencies fails. NaN in
    the port's output fails every check it reaches.

    References
    ----------
    Su et al. (2021), RoFormer: the rotation, its norm and the dependence on ``m − n``
    (section 3.4). The layouts: transformers' ``rotate_half`` (``modeling_llama.py``) and
    GPT-J's ``rotate_every_two``.

    Examples
    --------
    >>> broken = example_rope_port("negated angle", 64)
    >>> report = check_rope_port(broken, 64)
    >>> report.failed
    ('frequencies', 'reference, near', 'reference, far')
    >>> round(float(report["frequencies"].measured), 6)          # ω̂ = −ω
    2.0
    >>> check_rope_port(example_rope_port("library", 64), 64).passed
    True
    """
    rotate = check_callable("rotate", rotate)
    head_dim = check_positive_even_int("head_dim", head_dim)
    if head_dim < 4:
        raise ValueError(f"head_dim must be >= 4 (two pairs, to read a base), got {head_dim}")
    base = check_base("base", base)
    layout = check_choice("layout", layout, LAYOUTS)
    dtype = check_float_dtype("dtype", dtype)
    if dtype not in (np.float16, np.float32, np.float64):
        raise ValueError(f"dtype must be float16, float32 or float64, got {dtype}")
    far_position = check_int("far_position", far_position, minimum=2 * NEAR)
    if far_position >= 2**53:
        raise ValueError(f"far_position must be < 2**53 (exact in float64), got {far_position}")
    exact_angles = check_bool("exact_angles", exact_angles)

    inv_freq, _ = rope_frequencies(head_dim, base=base)
    unit = float(np.finfo(dtype).eps) / 2
    rounding = ROUNDING_UNITS * unit

    # the angles' unit roundoff: the dtype's, or float64's when they must be exact
    angle_unit = float(np.finfo(np.float64).eps) / 2 if exact_angles else unit

    def drift(position: int) -> float:  # a(P) = 2u · P · ω_0
        return 2 * angle_unit * position * float(inv_freq.max())

    rng = np.random.default_rng(SEED)
    near = np.arange(NEAR, dtype=np.int64)
    far = np.arange(far_position - NEAR + 1, far_position + 1, dtype=np.int64)
    x = rng.normal(size=(ROWS, 2 * NEAR, head_dim)).astype(dtype)
    qk = np.repeat(rng.normal(size=(2 * ROWS, 1, head_dim)).astype(dtype), 3 * NEAR, axis=1)
    shifts = (0, 1, far_position - NEAR + 1)
    steps = np.array([0] + [2**k for k in range(far_position.bit_length())], dtype=np.int64)
    unit_vectors = np.repeat(np.eye(head_dim, dtype=dtype)[:, None], len(steps), axis=1)

    at_zero = _call(rotate, x[:, :NEAR], np.zeros(NEAR, dtype=np.int64))
    turned = _call(rotate, x, np.concatenate([near, far]))
    shifted = _call(rotate, qk, np.concatenate([near + s for s in shifts]))
    probe = _call(rotate, unit_vectors, steps)

    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):  # NaN from the port
        partner, paired = _pairing(probe, rounding)
        detected = _name_pairing(partner, paired)
        omega = _frequencies(probe, partner, detected, steps)
        found_base = _fitted_base(omega)
        a, b = _pairs(head_dim, detected if detected in LAYOUTS else layout)
        if detected == "other pairs":
            a = np.array([j for j in range(head_dim) if j < partner[j]])
            b = partner[a]
        lengths = np.abs(
            np.hypot(turned[..., a], turned[..., b]) - np.hypot(x64[..., a], x64[..., b])
        )
        q, k = (v.reshape(ROWS, len(shifts), NEAR, head_dim) for v in np.split(shifted, 2))
        scores = np.einsum("bsmd,bsnd->bsmn", q, k)
        size = np.linalg.norm(qk[:ROWS, 0], axis=-1) * np.linalg.norm(qk[ROWS:, 0], axis=-1)
        declared_a, declared_b = _pairs(head_dim, layout)
        reference = apply_rope(x64, np.concatenate([near, far]), inv_freq, layout=layout)
        against = _row_error(turned, reference)
        measured = {
            "identity at 0": np.max(_row_error(at_zero, x64[:, :NEAR])),
            "pair norms": np.max(lengths.max(axis=-1) / np.linalg.norm(x64, axis=-1)),
            "relative positions": np.max(
                np.abs(scores - scores[:, :1]) / size[:, None, None, None]
            ),
            "layout": float(np.sum(partner[declared_a] != declared_b)) if paired else len(a),
            "frequencies": np.max(np.abs(omega - inv_freq) / inv_freq),
            "reference, near": np.max(against[:, :NEAR]),
            "reference, far": np.max(against[:, NEAR:]),
        }
    largest_step = int(steps[-1])
    tolerance = {
        "identity at 0": rounding,
        "pair norms": rounding,
        "relative positions": 4 * (rounding + drift(far_position)),
        "layout": 0.0,
        "frequencies": 2 * angle_unit + 2 * rounding / (largest_step * float(inv_freq.min())),
        "reference, near": rounding + drift(NEAR - 1),
        "reference, far": rounding + drift(far_position),
    }
    facts = {
        "layout": layout,
        "detected": detected,
        "found_base": found_base,
        "base": base,
        "omega": omega,
        "far_position": far_position,
        "pairs": head_dim // 2,
    }
    checks = []
    for name in CHECKS:
        value = float(measured[name])
        passed = bool(value <= tolerance[name])  # NaN fails
        if name == "layout":
            passed = passed and paired
        checks.append(
            PortCheck(
                name, passed, value, float(tolerance[name]), _meaning(name, passed, value, facts)
            )
        )
    setting = (
        f"RoPE port, head_dim {head_dim}, base {_base_text(base)}, {layout!r} pairs, "
        f"{dtype.name}{', exact angles' if exact_angles else ''}"
    )
    return PortReport(tuple(checks), detected, omega, found_base, setting)


def _meaning(name: str, passed: bool, value: float, facts: dict) -> str:
    """One sentence saying what ``value`` means for the port."""
    v, far = _number(value), f"{facts['far_position']:,}"
    if not passed and math.isnan(value) and name not in ("layout", "frequencies"):
        return f"Some outputs are not finite (NaN or inf) at the positions tested, up to {far}."
    if name == "identity at 0":
        if passed:
            return "At position 0 the port returns its input, as a rotation by 0 must."
        return (
            f"At position 0 the port moves its input by {v} of its norm: its positions are "
            "offset, or it scales or reorders the vector."
        )
    if name == "pair norms":
        if passed:
            return f"Every pair it rotates keeps its length, near 0 and up to {far}."
        return (
            f"A pair's length changes by {v} of its row's norm: the port scales its output, "
            "or does more than rotate pairs."
        )
    if name == "relative positions":
        if passed:
            return (
                "Moving a query and a key by the same number of positions leaves their score "
                "as it was: scores depend on m − n only."
            )
        return (
            f"Moving a query and a key by the same number of positions changes their score by "
            f"{v} of |q| |k|: the angles are not proportional to the position."
        )
    if name == "layout":
        layout, detected = facts["layout"], facts["detected"]
        if passed:
            return f"It rotates the pairs of the {layout!r} layout."
        if detected == "no pairs":
            return "It turns no dimension towards exactly one other: it rotates no pairs."
        which = f"the {detected!r} layout's" if detected in LAYOUTS else "neither layout's"
        return (
            f"{v} of the {facts['pairs']} pairs of {layout!r} are split: it rotates {which} pairs."
        )
    if name == "frequencies":
        omega, found, base = facts["omega"], facts["found_base"], facts["base"]
        if passed:
            return f"Its pairs turn at base^(−2i/head_dim) per position, base {_base_text(base)}."
        if not np.all(np.isfinite(omega)):
            return (
                "Some frequencies could not be read: the output is not finite at the probed "
                "positions, or the port rotates no pairs."
            )
        if np.all(omega < 0):
            return (
                f"Every pair turns backwards (ω̂ = −ω, base {_base_text(found)}): a sign is lost in "
                "the rotation."
            )
        return (
            f"Its frequencies are off by up to {v} of themselves; the closest ladder has "
            f"base {_base_text(found)}, not {_base_text(base)}."
        )
    where = f"Up to position {NEAR - 1}" if name == "reference, near" else f"Up to {far}"
    if passed:
        return f"{where} it agrees with the float64 reference, apply_rope."
    return f"{where} it differs from the float64 reference, apply_rope, by {v} of a row's norm."
