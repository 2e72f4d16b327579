"""Rotary position embedding (RoPE) and the ways of stretching its context.

RoPE (Su et al., 2021) rotates every pair of query/key dimensions by an angle
proportional to the token's position. Pair ``i`` turns at the angular frequency
``inv_freq[i]`` (``omega_i`` in the book)::

    inv_freq[i] = base ** (-2 i / head_dim),       i = 0 … head_dim/2 − 1
    theta       = pos * inv_freq[i]
    (x_a, x_b)  -> (x_a cos θ − x_b sin θ,  x_a sin θ + x_b cos θ)

Which two dimensions form pair ``i`` is a convention: ``"halves"`` pairs ``i``
with ``i + head_dim/2`` (GPT-NeoX, Hugging Face ``rotate_half``);
``"interleaved"`` pairs ``2i`` with ``2i + 1`` (the RoFormer paper, GPT-J,
Meta's original Llama code).

:func:`rope_frequencies` also computes the frequencies of the context-extension
methods, from a dict in the form Hugging Face model configs use for
``rope_scaling``. It returns the same numbers as ``modeling_rope_utils.py`` of
``transformers`` 5.23.0, the version the differential tests
(``tests/test_transformers_rope.py``) install and compare against; where that code
reads a model config field rather than the dict, the dict here carries it
explicitly (see the docstring). Other versions differ: before transformers pull
request #40320 (August 2025, issue #38224), a YaRN config that held
``original_max_position_embeddings`` had its ``factor`` replaced by
``max_position_embeddings / original_max_position_embeddings`` — factor 1, no
stretch, for a config whose two lengths are equal. Here, as in 5.23.0, the
``factor`` given is used.
:mod:`pe_explained.hf_config` reads those fields from a whole ``config.json``.

Partial rotation (GPT-NeoX, Phi, GLM): only the first
``rotary_dim = int(head_dim · partial_rotary_factor)`` dimensions are rotated,
with the ladder ``base^(−2i / rotary_dim)``; the rest pass through.
Proportional RoPE (p-RoPE, Gemma 4's global layers) keeps the ladder over the
whole head and sets the slowest pairs' frequencies to zero.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ._angles import angle_addition, use_angle_addition
from ._checks import (
    check_array,
    check_base,
    check_bool,
    check_choice,
    check_float,
    check_int,
    check_optional,
    check_positions,
    check_positive_even_int,
    check_rotary_input,
)
from .sinusoidal import LAYOUTS

__all__ = [
    "LAYOUTS",
    "ROPE_TYPES",
    "apply_rope",
    "interleaved_to_halves_permutation",
    "rope_frequencies",
    "rope_decay_bound",
    "rope_decay_bound_mean",
    "rope_wavelengths",
    "yarn_correction_range",
    "rope_pair_groups",
]

#: Accepted ``rope_type`` values; the keys each one requires and allows.
ROPE_TYPES: dict[str, tuple[frozenset, frozenset]] = {
    "default": (frozenset(), frozenset()),
    "linear": (frozenset({"factor"}), frozenset()),
    "dynamic": (frozenset({"factor", "original_max_position_embeddings"}), frozenset()),
    "yarn": (
        frozenset({"factor", "original_max_position_embeddings"}),
        frozenset(
            {"attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate"}
        ),
    ),
    "llama3": (
        frozenset(
            {"factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings"}
        ),
        frozenset(),
    ),
    "longrope": (
        frozenset({"short_factor", "long_factor", "original_max_position_embeddings"}),
        frozenset({"factor", "attention_factor"}),
    ),
    "proportional": (frozenset(), frozenset({"factor"})),
}


# ---------------------------------------------------------------------------
# Frequencies
# ---------------------------------------------------------------------------


def _default_inv_freq(head_dim: int, base: float) -> np.ndarray:
    # inv_freq_i = base^(-2i / head_dim)
    return np.power(base, -np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)


#: Where transformers takes YaRN's factor when a config leaves it out or null.
_DERIVED_FACTOR = (
    " (transformers derives it as max_position_embeddings / original_max_position_embeddings,"
    " which only the whole config holds: give 'factor', or read the config with"
    " config_rope_frequencies)"
)


def _scaling_dict(scaling, where: str = "scaling") -> tuple[str, dict]:
    """Validate the keys of a ``rope_scaling`` dict; return its type and the other keys.

    ``where`` is how messages name the dict (``"scaling"``, or a config path such as
    ``"config['rope_parameters']"``). ``partial_rotary_factor`` is allowed beside any
    type, as in a Hugging Face ``rope_parameters`` dict; it stays in the returned keys.
    """
    if not isinstance(scaling, Mapping):
        raise TypeError(f"{where} must be None or a dict, got {type(scaling).__name__}")
    params = dict(scaling)
    if "rope_type" in params:
        rope_type = params.pop("rope_type")
        params.pop("type", None)  # the legacy spelling may sit beside it
    elif "type" in params:  # legacy spelling, as Hugging Face accepts
        rope_type = params.pop("type")
    else:
        raise ValueError(f"{where} must have a 'rope_type' key (or its legacy spelling 'type')")
    if not isinstance(rope_type, str) or rope_type not in ROPE_TYPES:
        options = ", ".join(repr(t) for t in ROPE_TYPES)
        raise ValueError(f"{where}['rope_type'] must be one of {options}, got {rope_type!r}")
    required, optional = ROPE_TYPES[rope_type]
    if rope_type == "yarn" and "factor" in params and params["factor"] is None:
        del params["factor"]  # transformers' way of saying "derive it from the lengths"
    missing = sorted(required - params.keys())
    if missing:
        hint = _DERIVED_FACTOR if rope_type == "yarn" and "factor" in missing else ""
        raise ValueError(
            f"{where} for rope_type {rope_type!r} is missing key(s) "
            f"{', '.join(map(repr, missing))}{hint}"
        )
    unknown = sorted(params.keys() - required - optional - {"partial_rotary_factor"})
    if unknown:
        hint = " (pass the base frequency as base=)" if "rope_theta" in unknown else ""
        raise ValueError(
            f"{where} for rope_type {rope_type!r} has unknown key(s) "
            f"{', '.join(map(repr, unknown))}{hint}"
        )
    return rope_type, params


_LOG_MAX = math.log(np.finfo(np.float64).max)


def _enlarged_base(base: float, multiplier: float, head_dim: int, what: str) -> float:
    """``base · multiplier^(head_dim / (head_dim − 2))``, refused where float64 overflows."""
    exponent = head_dim / (head_dim - 2)
    # in logs: ln base' = ln base + (d / (d − 2)) · ln multiplier
    if math.log(base) + exponent * math.log(multiplier) >= _LOG_MAX:
        raise ValueError(
            f"{what} enlarges the base beyond float64's largest number "
            f"({base:g} · {multiplier:g}^{exponent:.4g})"
        )
    return base * multiplier**exponent


def _check_frequencies(inv_freq: np.ndarray, what: str) -> np.ndarray:
    """Frequencies must stay normal float64 numbers: no inf, no zero, no subnormal."""
    if not np.all(np.isfinite(inv_freq)) or inv_freq.min() < np.finfo(np.float64).tiny:
        raise ValueError(
            f"{what} gives frequencies outside float64's normal range (smallest "
            f"{inv_freq.min():g}); use a smaller factor or sequence length"
        )
    return inv_freq


def _factor(params: dict, where: str) -> float:
    return check_float(f"{where}['factor']", params["factor"], at_least=1.0)


def _context(params: dict, where: str) -> int:
    return check_int(
        f"{where}['original_max_position_embeddings']",
        params["original_max_position_embeddings"],
        minimum=1,
    )


def _optional_float(params: dict, key: str, default, where: str, **bounds):
    """``params[key]`` checked, or ``default`` when the key is absent or None."""
    value = params.get(key)
    return default if value is None else check_float(f"{where}[{key!r}]", value, **bounds)


def _yarn_mscale(scale: float, mscale: float = 1.0) -> float:
    # sqrt(1/t) = 0.1 * mscale * ln(s) + 1 for s > 1 (YaRN, eq. 22), 1 otherwise
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def _correction_range(head_dim, base, context, beta_fast, beta_slow, truncate):
    def pair_with_rotations(rotations):
        # the (fractional) pair index whose wavelength fits `rotations` times into the context:
        # context / (2π base^(2i/head_dim)) = r  ⇔  i = head_dim ln(context / (2π r)) / (2 ln base)
        return head_dim * math.log(context / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = pair_with_rotations(beta_fast), pair_with_rotations(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, head_dim - 1)


def yarn_correction_range(
    head_dim,
    *,
    base=10000.0,
    original_max_position_embeddings,
    beta_fast=32.0,
    beta_slow=1.0,
    truncate=True,
):
    """The pairs between which YaRN's ramp runs, as Hugging Face computes them.

    Pairs whose wavelength fits more than ``beta_fast`` times into the original
    context keep their frequency; pairs fitting less than ``beta_slow`` times
    are interpolated (frequency / factor); in between the blend is linear in the
    pair index. ``truncate`` rounds the bounds outwards to whole pairs.

    Returns
    -------
    (low, high) : the pair indices where the ramp starts and ends (ints when
    ``truncate``), clipped to ``[0, head_dim − 1]`` as in the reference code.

    Examples
    --------
    >>> yarn_correction_range(128, original_max_position_embeddings=4096)
    (20, 46)
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    base = check_base("base", base)
    context = check_int(
        "original_max_position_embeddings", original_max_position_embeddings, minimum=1
    )
    beta_fast = check_float("beta_fast", beta_fast, greater_than=0.0)
    beta_slow = check_float("beta_slow", beta_slow, greater_than=0.0)
    truncate = check_bool("truncate", truncate)
    return _correction_range(head_dim, base, context, beta_fast, beta_slow, truncate)


def _yarn(inv_freq, head_dim, base, params, where):
    factor, context = _factor(params, where), _context(params, where)
    attention_factor = _optional_float(params, "attention_factor", None, where, greater_than=0.0)
    mscale = _optional_float(params, "mscale", None, where, at_least=0.0)
    mscale_all_dim = _optional_float(params, "mscale_all_dim", None, where, at_least=0.0)
    if attention_factor is None:
        if mscale and mscale_all_dim:  # DeepSeek-V2/V3 configs: a ratio of two mscales
            attention_factor = _yarn_mscale(factor, mscale) / _yarn_mscale(factor, mscale_all_dim)
        else:
            attention_factor = _yarn_mscale(factor)
    # transformers reads `beta_fast or 32` and `beta_slow or 1`: 0 and null mean the default
    beta_fast = _optional_float(params, "beta_fast", 32.0, where, at_least=0.0) or 32.0
    beta_slow = _optional_float(params, "beta_slow", 1.0, where, at_least=0.0) or 1.0
    truncate = check_bool(f"{where}['truncate']", params.get("truncate", True))
    low, high = _correction_range(head_dim, base, context, beta_fast, beta_slow, truncate)
    if low == high:
        high += 0.001  # as the reference code: avoid dividing by zero
    # ramp: 0 up to pair `low` (keep the frequency), 1 from pair `high` on (divide it by factor)
    ramp = np.clip((np.arange(head_dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    inv_freq = inv_freq / factor * ramp + inv_freq * (1.0 - ramp)
    return inv_freq, float(attention_factor)


def _llama3(inv_freq, params, where):
    factor, context = _factor(params, where), _context(params, where)
    low_freq_factor = check_float(
        f"{where}['low_freq_factor']", params["low_freq_factor"], greater_than=0.0
    )
    high_freq_factor = check_float(
        f"{where}['high_freq_factor']", params["high_freq_factor"], greater_than=0.0
    )
    if not high_freq_factor >= low_freq_factor:
        raise ValueError(
            f"{where}['high_freq_factor'] must be >= {where}['low_freq_factor'], got "
            f"{high_freq_factor:g} and {low_freq_factor:g}"
        )
    wavelength = 2 * np.pi / inv_freq
    # long wavelengths (> context / low_freq_factor): divide the frequency by factor;
    # short ones (< context / high_freq_factor): keep it; in between: blend smoothly.
    # Equal factors (Llama 4 ships 1 and 1) leave no band between: a step at context / low.
    out = np.where(wavelength > context / low_freq_factor, inv_freq / factor, inv_freq)
    if high_freq_factor == low_freq_factor:
        return out, 1.0
    smooth = (context / wavelength - low_freq_factor) / (high_freq_factor - low_freq_factor)
    blended = (1.0 - smooth) * inv_freq / factor + smooth * inv_freq
    medium = ~(wavelength < context / high_freq_factor) & ~(wavelength > context / low_freq_factor)
    return np.where(medium, blended, out), 1.0


def _real(name: str, item) -> float:
    """One entry of a list of numbers as a float (an integer beyond float64: inf)."""
    if isinstance(item, (bool, np.bool_)) or not isinstance(item, numbers.Real):
        raise TypeError(f"{name} must hold real numbers, got {type(item).__name__} {item!r}")
    try:
        return float(item)
    except OverflowError:
        return math.inf if item > 0 else -math.inf


def _longrope(head_dim, base, params, seq_len, where):
    context = _context(params, where)
    half = head_dim // 2
    factors = {}
    for key in ("short_factor", "long_factor"):
        values = params[key]
        if not isinstance(values, (str, bytes, Sequence, np.ndarray)):
            raise TypeError(
                f"{where}[{key!r}] must be a list of numbers, got {type(values).__name__}"
            )
        if isinstance(values, (list, tuple)):  # JSON's numbers, checked one by one
            values = [_real(f"{where}[{key!r}]", item) for item in values]
        arr = check_array(f"{where}[{key!r}]", values)
        if arr.shape != (half,):
            raise ValueError(
                f"{where}[{key!r}] must have {half} entries (one per rotated pair), "
                f"got shape {arr.shape}"
            )
        if np.any(arr <= 0):
            raise ValueError(f"{where}[{key!r}] must hold finite numbers > 0")
        factors[key] = arr
    attention_factor = _optional_float(params, "attention_factor", None, where, greater_than=0.0)
    if attention_factor is None:
        if params.get("factor") is None:
            raise ValueError(
                f"{where} for rope_type 'longrope' needs 'factor' (extended / original context "
                "length) or 'attention_factor'"
            )
        factor = check_float(f"{where}['factor']", params["factor"], greater_than=0.0)
        # sqrt(1 + ln s / ln L) for s > 1 (LongRoPE / Phi-3)
        attention_factor = (
            1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(context))
        )
    elif params.get("factor") is not None:
        check_float(f"{where}['factor']", params["factor"], greater_than=0.0)
    use_long = seq_len is not None and seq_len > context
    rescale = factors["long_factor" if use_long else "short_factor"]
    # inv_freq_i = 1 / (rescale_i · base^(2i / head_dim))
    return 1.0 / (rescale * np.power(base, np.arange(0, head_dim, 2) / head_dim)), attention_factor


def rope_frequencies(
    head_dim, *, base=10000.0, scaling=None, seq_len=None, partial_rotary_factor=None
):
    """The rotation frequencies of RoPE, optionally rescaled to stretch the context.

    Parameters
    ----------
    head_dim : int
        Width of one attention head; positive and even.
    base : float, optional
        Base of the frequency ladder (``rope_theta`` in Hugging Face configs):
        10000 in RoFormer and Llama 2, 500000 in Llama 3.
    scaling : dict or None, optional
        ``None`` for plain RoPE, or a dict as in a Hugging Face config's
        ``rope_scaling``, with ``"rope_type"`` (legacy spelling ``"type"``) one of:

        ``"default"``
            no change.
        ``"linear"`` — position interpolation (Chen et al., 2023)
            ``factor``: every frequency divided by it.
        ``"dynamic"`` — dynamic NTK scaling
            ``factor`` and ``original_max_position_embeddings`` (the context the
            model was trained on; Hugging Face reads the config's
            ``max_position_embeddings``); ``seq_len`` is the current length.
        ``"yarn"`` — YaRN (Peng et al., 2024)
            ``factor``, ``original_max_position_embeddings`` (Hugging Face falls
            back to the config's ``max_position_embeddings`` when this key is
            missing); optional ``beta_fast`` (32), ``beta_slow`` (1) — 0 or None
            mean these defaults, as transformers reads them —
            ``attention_factor`` (default ``0.1 ln(factor) + 1``), ``mscale`` and
            ``mscale_all_dim`` (when both are non-zero the default attention factor
            is ``m(factor, mscale) / m(factor, mscale_all_dim)`` with
            ``m(s, a) = 0.1 a ln s + 1``), ``truncate`` (True: round the
            correction range outwards to whole pairs).
        ``"llama3"`` — Llama 3.1's rule, from Meta's reference code
        (``apply_scaling`` in ``llama-models``; not in the Llama 3 paper)
            ``factor``, ``low_freq_factor``, ``high_freq_factor``,
            ``original_max_position_embeddings``.
        ``"longrope"`` — LongRoPE (Ding et al., 2024)
            ``short_factor`` and ``long_factor`` (one number per rotated pair each),
            ``original_max_position_embeddings`` (Hugging Face reads it from the
            config, or falls back to ``max_position_embeddings``), and ``factor``
            (extended / original length; Phi-3 configs give the two lengths
            instead) unless ``attention_factor`` is given. ``long_factor`` is used
            when ``seq_len`` > ``original_max_position_embeddings``.
        ``"proportional"`` — p-RoPE (Barbero et al., 2025; Gemma 4's global layers)
            optional ``factor`` (1: every frequency divided by it). The ladder
            spans the whole head, ``inv_freq[i] = base^(−2i / head_dim)``, and only
            the fastest ``⌊partial_rotary_factor · head_dim / 2⌋`` pairs keep
            their frequency: the slower ones get frequency 0 (they are not
            rotated). The result still has ``head_dim/2`` entries.

        The dict may also hold ``partial_rotary_factor``, as Hugging Face's
        ``rope_parameters`` does, and ``rope_theta`` when it equals ``base``: a v5
        config's ``rope_parameters`` can be passed whole. A YaRN ``factor`` that is
        missing or None is refused: transformers derives it from the config's two
        lengths, which :func:`~pe_explained.config_rope_frequencies` reads.

        An unknown type or key, or a missing one, is a ``ValueError``.
    seq_len : int, optional
        Current sequence length; read by ``"dynamic"`` and ``"longrope"`` only.
    partial_rotary_factor : float, optional
        Share of the head that is rotated, in ``(0, 1]`` (GPT-NeoX 0.25, Phi-2 0.4,
        GLM 0.5); by default the dict's ``"partial_rotary_factor"``, else 1. The
        rotated width is ``rotary_dim = int(head_dim · partial_rotary_factor)``,
        computed as Hugging Face computes it, and must be even; every formula
        above then runs with ``rotary_dim`` in place of ``head_dim``
        (``inv_freq[i] = base^(−2i / rotary_dim)``, ``i < rotary_dim / 2``) and
        :func:`apply_rope` rotates the first ``rotary_dim`` dimensions only
        (``rotary_dim=`` there). ``"proportional"`` reads it differently (above).

    Returns
    -------
    inv_freq : ndarray, shape (rotary_dim // 2,), float64
        Angular frequency of every rotated pair, in radians per position
        (``head_dim // 2`` entries without partial rotation, and always for
        ``"proportional"``).
    attention_factor : float
        Factor by which cos and sin are multiplied (so the attention logits by its
        square); 1.0 unless the method sets one (YaRN, LongRoPE).

    References
    ----------
    Su et al. (2021), RoFormer; Chen et al. (2023), position interpolation;
    Peng et al. (2024), YaRN; Meta's ``llama-models``, ``apply_scaling`` (Llama 3.1's
    rule; Dubey et al. (2024), the Llama 3 paper, gives its base and its staged
    long-context training, not this rule); Ding et al. (2024),
    LongRoPE; Barbero et al. (2025), *Round and Round We Go! What makes Rotary
    Positional Encodings useful?* (p-RoPE). Hugging Face ``transformers``,
    ``modeling_rope_utils.py`` (``_compute_yarn_parameters``,
    ``_compute_proportional_rope_parameters``, …, in ``ROPE_INIT_FUNCTIONS``).

    Examples
    --------
    >>> inv_freq, attention_factor = rope_frequencies(8)
    >>> inv_freq.tolist(), attention_factor
    ([1.0, 0.1, 0.01, 0.001], 1.0)
    >>> inv_freq, _ = rope_frequencies(8, scaling={"rope_type": "linear", "factor": 4.0})
    >>> inv_freq.tolist()
    [0.25, 0.025, 0.0025, 0.00025]
    >>> rope_frequencies(8, partial_rotary_factor=0.5)[0].tolist()   # 4 rotated dims
    [1.0, 0.01]
    >>> p_rope = {"rope_type": "proportional", "partial_rotary_factor": 0.5}
    >>> rope_frequencies(8, scaling=p_rope)[0].tolist()             # 2 of 4 pairs turn
    [1.0, 0.1, 0.0, 0.0]
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    base = check_base("base", base)
    seq_len = check_optional(check_int, "seq_len", seq_len, minimum=1)
    partial_rotary_factor = check_optional(
        check_float, "partial_rotary_factor", partial_rotary_factor, greater_than=0.0, at_most=1.0
    )
    if scaling is None:
        rope_type, params = "default", {}
    else:
        rope_type, params = _scaling_dict(_without_rope_theta(scaling, base))
    share, share_name = _rotary_share(params, partial_rotary_factor, "scaling")
    return _frequencies(head_dim, base, rope_type, params, seq_len, share, share_name, "scaling")


def _without_rope_theta(scaling, base: float):
    """A v5 ``rope_parameters`` dict carries the base as ``rope_theta``: accept it when it
    agrees with ``base`` and drop it; refuse it, saying so, when it does not."""
    if not isinstance(scaling, Mapping) or "rope_theta" not in scaling:
        return scaling
    theta = check_base("scaling['rope_theta']", scaling["rope_theta"])
    if theta != base:
        raise ValueError(
            f"scaling['rope_theta'] = {theta:g} differs from base = {base:g}: pass "
            f"base={theta:g} (or read the whole config with config_rope_frequencies)"
        )
    return {key: value for key, value in scaling.items() if key != "rope_theta"}


def _rotary_share(params: dict, argument, where: str) -> tuple[float, str]:
    """The partial rotary factor and how to name it: the argument, else the dict's key, else 1.

    Given both ways, they must agree. The key is removed from ``params``.
    """
    in_dict = params.pop("partial_rotary_factor", None)
    if in_dict is not None:
        in_dict = check_float(
            f"{where}['partial_rotary_factor']", in_dict, greater_than=0.0, at_most=1.0
        )
        if argument is not None and argument != in_dict:
            raise ValueError(
                f"partial_rotary_factor ({argument:g}) and {where}['partial_rotary_factor'] "
                f"({in_dict:g}) differ: give it once"
            )
        return in_dict, f"{where}['partial_rotary_factor']"
    return (1.0 if argument is None else argument), "partial_rotary_factor"


def _rotary_width(head_dim: int, partial_rotary_factor: float, where: str) -> int:
    """``int(head_dim · partial_rotary_factor)``, as Hugging Face computes ``dim``; even, >= 2."""
    dim = int(head_dim * partial_rotary_factor)
    if dim < 2 or dim % 2:
        raise ValueError(
            f"{where} must leave an even number >= 2 of rotated dimensions: "
            f"int({head_dim} · {partial_rotary_factor:g}) = {dim}"
        )
    return dim


def _frequencies(head_dim, base, rope_type, params, seq_len, share, share_name, where):
    """:func:`rope_frequencies` on validated arguments; messages name the dict ``where``."""
    if rope_type == "proportional":
        factor = _optional_float(params, "factor", 1.0, where, at_least=1.0)
        # the fastest ⌊share · head_dim / 2⌋ pairs turn at base^(−2i / head_dim); the rest: 0
        turning = int(share * head_dim // 2)
        inv_freq = _default_inv_freq(head_dim, base)
        inv_freq[turning:] = 0.0
        return inv_freq / factor, 1.0
    dim = _rotary_width(head_dim, share, share_name)
    inv_freq = _default_inv_freq(dim, base)
    if rope_type == "default":
        return inv_freq, 1.0
    if rope_type == "linear":
        return _check_frequencies(inv_freq / _factor(params, where), f"{where}['factor']"), 1.0
    if rope_type == "dynamic":
        factor, context = _factor(params, where), _context(params, where)
        if dim < 4:
            raise ValueError(
                "head_dim must be >= 4 for 'dynamic' scaling (exponent d/(d-2)); with partial "
                "rotation, its rotated part"
            )
        length = context if seq_len is None else max(seq_len, context)
        # α = factor · seq_len / L − (factor − 1), written so that α = 1 exactly at seq_len = L
        alpha = factor * ((length - context) / context) + 1.0
        new_base = _enlarged_base(base, alpha, dim, f"{where}['factor'] with seq_len")
        inv_freq = _default_inv_freq(dim, new_base)  # base' = base · α^(d / (d − 2))
        return _check_frequencies(inv_freq, f"{where}['factor'] with seq_len"), 1.0
    if rope_type == "yarn":
        inv_freq, attention_factor = _yarn(inv_freq, dim, base, params, where)
        return _check_frequencies(inv_freq, f"{where}['factor']"), attention_factor
    if rope_type == "llama3":
        return _llama3(inv_freq, params, where)
    return _longrope(dim, base, params, seq_len, where)


def rope_wavelengths(head_dim, *, base=10000.0, scaling=None, seq_len=None) -> np.ndarray:
    """Wavelength ``2π / inv_freq`` of every pair, in positions (same arguments as
    :func:`rope_frequencies`).

    Examples
    --------
    >>> [round(w, 1) for w in rope_wavelengths(8).tolist()]
    [6.3, 62.8, 628.3, 6283.2]
    """
    inv_freq, _ = rope_frequencies(head_dim, base=base, scaling=scaling, seq_len=seq_len)
    return 2 * np.pi / inv_freq


def rope_pair_groups(head_dim, *, base=10000.0, scaling, seq_len=None) -> tuple[int, int, int]:
    """How many pairs a context-extension rule keeps, blends and divides.

    Each pair's frequency under ``scaling`` is compared with plain RoPE's:
    a pair is *kept* when ``ω'_i = ω_i``, *divided* when ``ω'_i = ω_i / factor``
    (interpolated, as in position interpolation) and *blended* otherwise.

    Parameters
    ----------
    head_dim : int
        Dimensions per head; positive and even (``head_dim / 2`` pairs).
    base : float, optional
        RoPE's base; > 1.
    scaling : dict
        A ``rope_scaling`` dict as for :func:`rope_frequencies`, of a type with a
        single ``factor``: ``"linear"``, ``"dynamic"``, ``"yarn"`` or ``"llama3"``.
    seq_len : int, optional
        Current sequence length, for ``"dynamic"``.

    Returns
    -------
    (kept, blended, divided) : tuple of int
        Numbers of pairs; they add up to ``head_dim / 2``.

    Notes
    -----
    Llama 3.1's rule keeps pairs with wavelength ``λ_i < L / high_freq_factor``,
    divides those with ``λ_i > L / low_freq_factor`` and blends the rest (the rule
    of Meta's released reference code, ``apply_scaling`` in ``llama-models``, and
    Hugging Face's ``"llama3"`` type); YaRN keeps pairs up to its ramp's start and divides
    those from its end on (Peng et al., 2024, :func:`yarn_correction_range`);
    position interpolation divides every pair (Chen et al., 2023).

    Examples
    --------
    >>> llama31 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
    ...            "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    >>> rope_pair_groups(128, base=500000.0, scaling=llama31)
    (29, 6, 29)
    """
    rope_type, params = _scaling_dict(scaling)
    if rope_type not in ("linear", "dynamic", "yarn", "llama3"):
        raise ValueError(
            "scaling['rope_type'] must be 'linear', 'dynamic', 'yarn' or 'llama3' (a rule "
            f"with a single factor), got {rope_type!r}"
        )
    factor = _factor(params, "scaling")
    plain, _ = rope_frequencies(
        head_dim, base=base, partial_rotary_factor=params.get("partial_rotary_factor")
    )
    scaled, _ = rope_frequencies(head_dim, base=base, scaling=scaling, seq_len=seq_len)
    # kept: ω'_i = ω_i; divided: ω'_i = ω_i / factor (equal up to rounding)
    kept = np.isclose(scaled, plain, rtol=1e-12, atol=0.0)
    divided = np.isclose(scaled, plain / factor, rtol=1e-12, atol=0.0) & ~kept
    return int(kept.sum()), int((~kept & ~divided).sum()), int(divided.sum())


def ntk_aware_base(base, factor, head_dim) -> float:
    """The enlarged base of NTK-aware scaling: ``base · factor^(head_dim / (head_dim − 2))``.

    With it the fastest pair keeps its frequency and the slowest pair's frequency
    is divided by exactly ``factor`` (bloc97, 2023). Hugging Face's ``"dynamic"``
    type applies the same formula with a factor that grows with the sequence.

    Examples
    --------
    >>> round(ntk_aware_base(10000.0, 4.0, 128))
    40890
    """
    base = check_base("base", base)
    factor = check_float("factor", factor, at_least=1.0)
    head_dim = check_positive_even_int("head_dim", head_dim)
    if head_dim < 4:
        raise ValueError(f"head_dim must be >= 4 (exponent d/(d-2)), got {head_dim}")
    # base' = base · s^(d / (d − 2))
    return _enlarged_base(base, factor, head_dim, "factor")


def rope_decay_bound(distances, head_dim, *, base=10000.0) -> np.ndarray:
    """RoFormer's upper bound on the attention score, relative, at every distance.

    Su et al. (2021, section 3.4.3) bound ``|Σ_i h_i e^{i (m−n) θ_i}|`` by
    ``max_i |h_{i+1} − h_i| · Σ_j |S_j|`` with ``S_j = Σ_{k<j} e^{i (m−n) θ_k}``,
    and plot the relative bound ``(1 / (head_dim/2)) Σ_j |S_j|``. It falls *on
    average* as the relative distance ``m − n`` grows (:func:`rope_decay_bound_mean`
    over bands of distances), but not at every step: it wiggles, and for
    ``head_dim`` 128 it is higher at distance 2000 than at 1000.

    Parameters
    ----------
    distances : array_like, shape (n,)
        Relative distances ``m − n`` (any real numbers).
    head_dim : int
    base : float, optional

    Returns
    -------
    ndarray, shape (n,): the relative bound; ``(head_dim/2 + 1) / 2`` at distance 0.

    Examples
    --------
    >>> rope_decay_bound([0], 8).tolist()
    [2.5]
    >>> [round(b, 2) for b in rope_decay_bound([1000, 2000], 128).tolist()]  # rises
    [4.47, 5.05]
    """
    dist = check_array("distances", distances, ndim=1)
    head_dim = check_positive_even_int("head_dim", head_dim)
    inv_freq, _ = rope_frequencies(head_dim, base=base)
    terms = np.exp(1j * np.multiply.outer(dist, inv_freq))  # e^{i (m−n) θ_k}
    partial = np.cumsum(terms, axis=1)  # S_1 … S_{d/2}
    return np.abs(partial).mean(axis=1)


def rope_decay_bound_mean(head_dim, low, high, *, base=10000.0) -> float:
    """The mean of :func:`rope_decay_bound` over the whole distances ``low … high − 1``.

    The bound wiggles from one distance to the next; its mean over a band of
    distances shows the trend: it falls from band to band, and a larger ``base``
    (Llama 3's 500,000, Code Llama's 10⁶) keeps it higher for longer.

    Parameters
    ----------
    head_dim : int
        Positive and even.
    low, high : int
        The band, ``0 <= low < high``; ``high`` is excluded.
    base : float, optional

    Returns
    -------
    float

    Examples
    --------
    >>> round(rope_decay_bound_mean(8, 0, 1), 6)
    2.5
    >>> [round(rope_decay_bound_mean(128, 1000, 10000, base=b), 2) for b in (1e4, 5e5)]
    [4.8, 6.93]
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    low = check_int("low", low, minimum=0)
    high = check_int("high", high, minimum=1)
    if high <= low:
        raise ValueError(f"high must be > low, got low = {low}, high = {high}")
    base = check_base("base", base)
    total, chunk = 0.0, 8192  # bounded memory: chunk × head_dim/2 complex numbers at a time
    for start in range(low, high, chunk):
        distances = np.arange(start, min(start + chunk, high), dtype=np.float64)
        total += float(rope_decay_bound(distances, head_dim, base=base).sum())
    return total / (high - low)


# ---------------------------------------------------------------------------
# Rotation
# ---------------------------------------------------------------------------


def interleaved_to_halves_permutation(head_dim) -> np.ndarray:
    """Dimension order that turns an interleaved head into a split-half one.

    ``x_halves = x_interleaved[..., perm]`` puts the first member of every pair
    (dimensions 0, 2, 4, …) in the first half and the second members after it.
    Applying ``perm`` to the rows of one head's block of ``W_q`` and ``W_k`` is how
    checkpoints trained with interleaved RoPE are converted for split-half code:
    the attention scores do not change.

    Examples
    --------
    >>> interleaved_to_halves_permutation(8).tolist()
    [0, 2, 4, 6, 1, 3, 5, 7]
    """
    head_dim = check_positive_even_int("head_dim", head_dim)
    return np.concatenate([np.arange(0, head_dim, 2), np.arange(1, head_dim, 2)])


def _phasors(positions: np.ndarray, inv_freq: np.ndarray, scale: float, dtype) -> np.ndarray:
    """``scale · e^{i pos ω}`` for every position and frequency, as ``dtype`` (complex).

    Integer positions use angle addition: ``pos = a·B + b`` and
    ``e^{i pos ω} = e^{i a B ω} · e^{i b ω}`` from two small tables, which replaces
    a cos and a sin per entry by one complex multiply (exact to float64 rounding).
    """
    if not use_angle_addition(positions, min_rows=64):  # few rows, or real positions
        theta = np.multiply.outer(positions.astype(np.float64), inv_freq)
        out = np.empty(theta.shape, dtype=dtype)
        out.real, out.imag = scale * np.cos(theta), scale * np.sin(theta)
        return out
    # scale · e^{i a B ω} · e^{i b ω}
    return angle_addition(positions, inv_freq, conjugate=False, factor=scale, dtype=dtype)


def _halves_tables(rot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The real tables of the ``"halves"`` layout from the phasors ``rot`` (…, seq, half).

    ``rot = a·e^{iθ}`` (``a`` the attention factor) gives
    ``cos2 = a·[cos θ, cos θ]`` and ``sin2 = a·[−sin θ, sin θ]``, each
    (…, seq, 2·half) in the real dtype of ``rot``: the same rounded numbers as the
    phasors' real and imaginary parts, laid out for :func:`_rotate_halves`.
    """
    cos, sin = rot.real, rot.imag
    return np.concatenate([cos, cos], axis=-1), np.concatenate([-sin, sin], axis=-1)


#: The last rotation table :func:`apply_rope` computed, as ``{"last": (key, table)}``:
#: one entry at most, so its memory is bounded by one call's table.
_TABLE_CACHE: dict = {}


def _cached_table(positions, inv_freq, scale, dtype, layout):
    """The table :func:`_rotate` needs for ``layout``, remembering the last one.

    ``"interleaved"``: the phasors ``scale · e^{i pos ω}`` as ``dtype`` (complex);
    ``"halves"``: the pair ``(cos2, sin2)`` of :func:`_halves_tables`, in the real
    dtype of ``dtype``. A model rotates the queries and the keys of every layer at
    the same positions, so the table is computed once per forward pass, as real
    implementations do. The key holds everything the table depends on.
    """
    key = (
        layout,
        positions.dtype.str,
        positions.tobytes(),
        inv_freq.dtype.str,
        inv_freq.tobytes(),
        scale,
        np.dtype(dtype).str,
    )
    hit = _TABLE_CACHE.get("last")
    if hit is not None and hit[0] == key:
        return hit[1]
    rot = _phasors(positions, inv_freq, scale, dtype)
    table = rot if layout == "interleaved" else _halves_tables(rot)
    for array in table if isinstance(table, tuple) else (table,):
        array.flags.writeable = False
    _TABLE_CACHE["last"] = (key, table)
    return table


def apply_rope(
    x, positions, inv_freq, *, layout="halves", attention_factor=1.0, rotary_dim=None
) -> np.ndarray:
    """Rotate every pair of the last axis of ``x`` by its position's angles.

    Parameters
    ----------
    x : ndarray, shape (..., seq, head_dim)
        Queries or keys (float16/32/64); ``head_dim`` even.
    positions : int or array_like, shape (seq,)
        Position of every row: an int ``seq`` means ``0 … seq−1``; otherwise finite
        numbers >= 0 (fractional positions are allowed).
    inv_freq : array_like, shape (rotary_dim // 2,)
        Angular frequency of every rotated pair (from :func:`rope_frequencies`).
    layout : {"halves", "interleaved"}, optional
        ``"halves"`` pairs dimension ``j`` with ``j + head_dim/2`` (GPT-NeoX,
        Hugging Face); ``"interleaved"`` pairs ``2j`` with ``2j + 1`` (RoFormer,
        GPT-J, Meta's Llama code).
    attention_factor : float, optional
        Multiplies cos and sin (as Hugging Face does with YaRN's and LongRoPE's
        factor), so every rotated vector is scaled by it.
    rotary_dim : int, optional
        Partial rotation: only the first ``rotary_dim`` dimensions (even, at most
        ``head_dim``) are rotated, with pairs formed *within* them in either
        layout (``"halves"`` pairs ``j`` with ``j + rotary_dim/2``); the other
        ``head_dim − rotary_dim`` dimensions pass through unchanged, unscaled.
        ``None`` rotates the whole head. This is GPT-NeoX's and Phi's
        ``x[..., :rotary_dim]`` slice (``apply_rotary_pos_emb`` in transformers'
        ``models/gpt_neox``) and GLM's interleaved one (``models/glm``).

    Returns
    -------
    ndarray, same shape and dtype as ``x``
        ``attention_factor · R(pos) x`` for every row (on the rotated part). NaN or
        inf in ``x`` pass through to the rows that hold them, as in any arithmetic.

    Notes
    -----
    With ``a`` the attention factor and ``θ = pos · ω_i``, every pair ``(x_a, x_b)``
    becomes ``a · (x_a cos θ − x_b sin θ,  x_b cos θ + x_a sin θ)``.
    ``"interleaved"`` computes it as one complex multiply,
    ``(x_a + i x_b) · a e^{iθ}``, on a complex view of ``x``. ``"halves"`` uses real
    tables, ``x · a[cos θ, cos θ] + swap(x) · a[−sin θ, sin θ]`` with ``swap``
    exchanging the two halves of every row, a few rows at a time. The angles are
    computed in float64, the tables held and the products computed in the
    precision of ``x`` (float16 in float32). The last table is kept for the next
    call with the same positions, frequencies, attention factor, layout and
    precision, as a model reuses it for the queries and keys of every layer.

    Examples
    --------
    >>> q = np.array([[1.0, 0.0, 0.0, 1.0]])          # one row, head_dim = 4
    >>> inv_freq, _ = rope_frequencies(4)               # [1, 0.01]
    >>> apply_rope(q, [2], inv_freq, layout="interleaved").round(4).tolist()
    [[-0.4161, 0.9093, -0.02, 0.9998]]
    >>> apply_rope(q, [2], [1.0], rotary_dim=2).round(4).tolist()  # dims 2, 3 pass through
    [[-0.4161, 0.9093, 0.0, 1.0]]
    """
    # NaN or inf in x pass through (documented above): no scan of every activation
    head_dim = check_rotary_input("x", x).shape[-1]
    rotary_dim = check_optional(check_int, "rotary_dim", rotary_dim)
    if rotary_dim is not None and not (2 <= rotary_dim <= head_dim and rotary_dim % 2 == 0):
        raise ValueError(
            f"rotary_dim must be even, >= 2 and <= head_dim ({head_dim}), got {rotary_dim}"
        )
    width = head_dim if rotary_dim is None else rotary_dim
    half = width // 2
    pos = check_positions("positions", positions)
    if len(pos) != x.shape[-2]:
        raise ValueError(
            f"positions must have one entry per row of x (x.shape[-2] = {x.shape[-2]}), "
            f"got {len(pos)}"
        )
    freq = check_array("inv_freq", inv_freq, ndim=1, minimum=0)
    if freq.shape != (half,):
        what = "head_dim/2" if rotary_dim is None else "rotary_dim/2"
        raise ValueError(
            f"inv_freq must have {what} = {half} entries (one per pair), got shape {freq.shape}"
        )
    layout = check_choice("layout", layout, LAYOUTS)
    scale = check_float("attention_factor", attention_factor, greater_than=0.0)

    table = _cached_table(pos, freq, scale, _complex_dtype(x.dtype), layout)
    if width == head_dim:
        return _rotate(x, table, layout)
    out = x.copy()  # the dimensions after rotary_dim pass through
    out[..., :width] = _rotate(x[..., :width], table, layout)
    return out


def _complex_dtype(dtype) -> type:
    """The complex dtype rotations of ``dtype`` values are computed in (float16 in complex64)."""
    return np.complex128 if dtype == np.float64 else np.complex64


def _rotate_pairs(x: np.ndarray, rot: np.ndarray, layout: str) -> np.ndarray:
    """Multiply every pair of the last axis of ``x`` by the phasor ``rot`` (…, seq, half).

    ``rot`` already holds ``attention_factor · e^{iθ}``, one row per row of ``x``, its
    leading axes broadcasting against ``x``'s; the result has ``x``'s shape and dtype.
    Shared by every rotary variant of the library.
    """
    return _rotate(x, rot if layout == "interleaved" else _halves_tables(rot), layout)


def _rotate(x: np.ndarray, table, layout: str) -> np.ndarray:
    """Rotate every pair of the last axis of ``x`` by ``table`` (from :func:`_cached_table`).

    Computed in float32 for float16 and float32 ``x``, in float64 for float64 ``x``;
    the result has ``x``'s shape and dtype.
    """
    work = np.float64 if x.dtype == np.float64 else np.float32
    xw = np.ascontiguousarray(x, dtype=work)
    if layout == "interleaved":  # pairs are adjacent: view each one as a complex number
        out = np.multiply(xw.view(_complex_dtype(x.dtype)), table).view(work)
    else:
        out = _rotate_halves(xw, *table)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


#: Elements of ``x`` :func:`_rotate_halves` handles at a time (2 MiB of float32): its
#: scratch stays that small, and its four passes over one chunk find the chunk in cache.
_HALVES_CHUNK = 1 << 19


def _rotate_halves(x: np.ndarray, cos2: np.ndarray, sin2: np.ndarray) -> np.ndarray:
    """Rotate pairs ``(j, j + half)`` of ``x`` (C-contiguous) by :func:`_halves_tables`' tables.

    ``cos2`` and ``sin2`` have one row per row of ``x`` (…, seq, 2·half). Four
    passes, none through a half-width slice (a ufunc over ``x[..., :half]`` runs
    one short inner loop per row, which costs more than a whole pass): exchange
    the halves of every row, moving each half as one item; multiply by ``sin2``;
    multiply ``x`` by ``cos2``; add. They run over a few rows at a time
    (``_HALVES_CHUNK`` elements), all leading axes together.
    """
    seq = x.shape[-2]
    half = x.shape[-1] // 2
    block = np.dtype((np.void, half * x.itemsize))  # one half of a row as one item
    rows = max(1, _HALVES_CHUNK * seq // max(x.size, 1))
    out = np.empty_like(x)
    scratch = np.empty(x.shape[:-2] + (min(rows, seq), x.shape[-1]), dtype=x.dtype)
    for start in range(0, seq, rows):
        stop = min(start + rows, seq)
        part, done = x[..., start:stop, :], out[..., start:stop, :]
        swapped = scratch[..., : stop - start, :]
        swapped.view(block)[...] = part.view(block)[..., ::-1]  # [x_b, x_a]
        np.multiply(swapped, sin2[..., start:stop, :], out=swapped)  # [−x_b sin θ, x_a sin θ]
        np.multiply(part, cos2[..., start:stop, :], out=done)  # [x_a cos θ, x_b cos θ]
        # (x_a cos θ − x_b sin θ, x_b cos θ + x_a sin θ), each scaled by the attention factor
        np.add(done, swapped, out=done)
    return out
