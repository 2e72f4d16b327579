"""Chapter 23: what a shift gets wrong — the attention factor twice, partial rotation,
M-RoPE's ids, frequencies that follow the length (the table of cases)."""

from __future__ import annotations

from functools import cache

import numpy as np

from pe_explained import (
    apply_mrope,
    apply_rope,
    cached_angle_error,
    key_error,
    mrope_position_ids,
    rope_frequencies,
    shift_rotated_keys,
)

from ... import Table, table, value
from ...text import format_cell
from .common import (
    BACK,
    BASE,
    CONTEXT,
    DYNAMIC_FACTOR,
    HEAD_DIM,
    IMAGE_PATCHES,
    LONG,
    N_KEYS,
    NEOX,
    QWEN_VL,
    ROTARY_DIM,
    SEED,
    TEXT_AFTER,
    TEXT_BEFORE,
    YARN_CONTEXT,
    YARN_FACTOR,
    _gallery,
    _inv_freq,
    _keys,
    _positions,
    _signed,
)


@value("neox_rotary_pct")
def _():
    return f"{_gallery(NEOX)['rotary_pct']:g}"


def _mrope_section() -> list[int]:
    return list(_gallery(QWEN_VL)["rope_scaling"]["mrope_section"])


@value("mrope_section")
def _():
    *rest, last = (str(n) for n in _mrope_section())
    return f"{', '.join(rest)} and {last}"


@cache
def _yarn() -> tuple[np.ndarray, float]:
    scaling = {
        "rope_type": "yarn",
        "factor": YARN_FACTOR,
        "original_max_position_embeddings": YARN_CONTEXT,
    }
    return rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling)


def _yarn_rows() -> list[list]:
    """The attention factor: a pure rotation, and the forward pass's rotation again.
    apply_rope takes positions >= 0, so these move forward, by BACK."""
    keys, pos, (freq, factor) = _keys(), _positions(), _yarn()
    cached = apply_rope(keys, pos, freq, attention_factor=factor)
    fresh = apply_rope(keys, pos + BACK, freq, attention_factor=factor)
    again = apply_rope(cached, np.full(N_KEYS, BACK), freq, attention_factor=factor)
    name = f"YaRN, scale {YARN_FACTOR:g}"
    return [
        [name, "$R(\\Delta\\omega)$", key_error(shift_rotated_keys(cached, BACK, freq), fresh)],
        [name, "the forward pass's rotation, factor included", key_error(again, fresh)],
    ]


def _partial_rows() -> list[list]:
    keys, pos, share = _keys(), _positions(), ROTARY_DIM / HEAD_DIM
    freq = rope_frequencies(HEAD_DIM, base=BASE, partial_rotary_factor=share)[0]
    cached = apply_rope(keys, pos, freq, rotary_dim=ROTARY_DIM)
    fresh = apply_rope(keys, pos - BACK, freq, rotary_dim=ROTARY_DIM)
    right = shift_rotated_keys(cached, -BACK, freq, rotary_dim=ROTARY_DIM)
    whole = shift_rotated_keys(cached, -BACK, _inv_freq())  # every dimension, the head's ladder
    name = f"{ROTARY_DIM} of {HEAD_DIM} dimensions rotated"
    return [
        [name, f"$R(\\Delta\\omega)$ on those {ROTARY_DIM}", key_error(right, fresh)],
        [name, "the whole head turned", key_error(whole, fresh)],
    ]


@cache
def _mrope_ids() -> tuple[np.ndarray, np.ndarray, int]:
    """The ids of the text kept after the eviction, the ids it would have alone, and the
    number of tokens evicted."""
    ids = mrope_position_ids([TEXT_BEFORE, TEXT_AFTER], [list(IMAGE_PATCHES)])
    evicted = ids.shape[1] - TEXT_AFTER
    return ids[:, evicted:], mrope_position_ids([TEXT_AFTER], []), evicted


@value("mrope_evicted")
def _():
    return str(_mrope_ids()[2])


@value("mrope_advance")
def _():
    kept, alone, _ = _mrope_ids()
    return str(int(kept[0, 0] - alone[0, 0]))


@value("image_tokens")
def _():
    """The image's side in tokens, after merging: the ids' advance past it."""
    ids = mrope_position_ids([0, 0], [list(IMAGE_PATCHES)])
    return f"{int(ids[1].max()) + 1} × {int(ids[2].max()) + 1}"


def _mrope_rows() -> list[list]:
    kept, alone, evicted = _mrope_ids()
    text = np.random.default_rng(SEED).normal(size=(TEXT_AFTER, HEAD_DIM))
    freq, section = _inv_freq(), _mrope_section()
    cached = apply_mrope(text, kept, freq, mrope_section=section)
    fresh = apply_mrope(text, alone, freq, mrope_section=section)
    advance = int(alone[0, 0] - kept[0, 0])
    name = "M-RoPE, text after an evicted image"
    by_ids = shift_rotated_keys(cached, advance, freq)
    by_tokens = shift_rotated_keys(cached, -evicted, freq)
    return [
        [name, f"Δ = {_signed(advance)} (the ids' advance)", key_error(by_ids, fresh)],
        [name, f"Δ = {_signed(-evicted)} (the tokens evicted)", key_error(by_tokens, fresh)],
    ]


@cache
def _dynamic() -> tuple[np.ndarray, np.ndarray]:
    """The frequencies within the trained context and at LONG tokens."""
    scaling = {
        "rope_type": "dynamic",
        "factor": DYNAMIC_FACTOR,
        "original_max_position_embeddings": CONTEXT,
    }
    short = rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling, seq_len=CONTEXT)[0]
    return short, rope_frequencies(HEAD_DIM, base=BASE, scaling=scaling, seq_len=LONG)[0]


def _dynamic_angles() -> np.ndarray:
    """The stale angles of the keys cached at 0 … CONTEXT − 1, unwrapped (radians)."""
    short, long = _dynamic()
    return cached_angle_error(CONTEXT, short, long, wrap=False)


@value("dynamic_angle_max")
def _():
    return format_cell(float(np.abs(_dynamic_angles()).max()), ".1f")


@value("dynamic_pairs_off")
def _():
    """The pairs of the last key cached within the context off by more than half a turn."""
    return str(int(np.count_nonzero(np.abs(_dynamic_angles()[-1]) > np.pi)))


@value("dynamic_pairs")
def _():
    return str(len(_dynamic()[0]))


@cache
def _dynamic_last_key() -> dict[int, float]:
    """The last key cached within the context, turned by every whole shift with the
    current frequencies: its error against the key the model computes now, by shift."""
    short, long = _dynamic()
    key, last = _keys()[:1], [CONTEXT - 1]
    cached, now = apply_rope(key, last, short), apply_rope(key, last, long)
    shifts = range(-CONTEXT, CONTEXT)
    return {d: key_error(shift_rotated_keys(cached, d, long), now) for d in shifts}


def _dynamic_rows() -> list[list]:
    errors = _dynamic_last_key()
    best = min(errors, key=errors.get)
    name = f"dynamic NTK, the key cached at {CONTEXT - 1:,}, read at {LONG:,} tokens"
    return [
        [name, "none", errors[0]],
        [name, f"the best whole shift, Δ = {_signed(best)}", errors[best]],
    ]


@cache
def _shift_cases() -> list[list]:
    """[cache, shift applied, key error] for the rows of the table."""
    return [*_yarn_rows(), *_partial_rows(), *_mrope_rows(), *_dynamic_rows()]


@table(
    "shift_cases",
    caption="Cached keys moved by a shift, against the keys computed at their positions now "
    "(the largest relative error of a key, in float64; <code>key_error</code>).",
)
def _():
    return Table(["cache", "shift applied", "key error"], _shift_cases(), default_format=".1e")


@value("yarn_attention_factor")
def _():
    return f"{_yarn()[1]:.3f}"


@value("factor_twice_error")
def _():
    return format_cell(_yarn_rows()[1][2], ".3f")


@value("dynamic_unshifted_error")
def _():
    return format_cell(_dynamic_rows()[0][2], ".2f")


@value("dynamic_best_error")
def _():
    return format_cell(_dynamic_rows()[1][2], ".2f")
