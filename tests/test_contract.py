"""The contract every public name of ``pe_explained`` keeps: one table of cases, one loop.

For each callable in ``pe_explained.__all__``, :data:`CALLS` gives a small
known-good call (keyword arguments) and the *kind* of every argument. The loop
(:func:`contract_violations`) makes the good call, then replaces one argument at
a time by values of the wrong kind and expects a ``TypeError`` or ``ValueError``
whose message names the argument — never a silent result:

==============  ============================================================  ===========
kind            substituted values                                            expected
==============  ============================================================  ===========
int             ``True``, ``"3"``, ``2.5``, ``None``                          TypeError
int?            ``True``, ``"3"``, ``2.5`` (``None`` is the default)          TypeError
float           ``True``, ``"1.0"``, ``1j``, ``None``                         TypeError
                ``nan``, ``inf``                                              ValueError
float?          as float, without ``None`` (the default)
bool            ``"no"``, ``"yes"``, ``1``, ``0``, ``None``                   TypeError
choice          ``"no-such-choice"``                                          ValueError
                ``1``                                                         TypeError
dtype           ``numpy.int32``, ``"no"``, ``True``, ``None``                 TypeError
positions       ``True``, ``"3"``, ``2.5``, ``["a"]``, complex, bool and      TypeError
                object arrays
                ``-1``, ``[0, nan]``, ``[0, inf]``                            ValueError
array           ``True``, ``"abc"``, ``None``, the valid array as strings,    TypeError
                objects, complex numbers, bools
                the valid array with a NaN, with an inf                       ValueError
int array       as array; the valid array as floats, with a NaN               TypeError
int array?      as int array, without ``None`` (the default)
bool array      ``1``, ``"abc"``, ``None``, the valid array as ints, floats,  TypeError
                strings, objects, complex numbers
mask            ``"abc"``, ``None``, the valid mask as floats, strings,       TypeError
                objects, complex numbers
                values other than 0 and 1                                     ValueError
ndarray         a list; the valid array as ints, strings, objects, complex    TypeError
                numbers, bools. NaN and inf pass through (``apply_rope``
                documents it: a model's activations are its own business)
scaling         ``"linear"``, a bool, a string or a complex ``factor``,       TypeError
                ``truncate="no"``
                an unknown ``rope_type``, a NaN ``factor``, an inf            ValueError
                ``beta_fast``
rng             ``0``, ``None``, ``"seed"``, a ``numpy.random.RandomState``   TypeError
dca config      a string, ``None``, a bool or a string ``chunk_size``         TypeError
                an unknown key, ``local_size`` >= ``chunk_size``, a           ValueError
                negative ``local_size``
callable        ``None``, a string, an array, a function returning ``None``   TypeError
                a function that raises, or returns the wrong shape            ValueError
==============  ============================================================  ===========

Every argument of an array kind (and ``positions``) also gets an *empty* value,
zero rows of the valid array (``[]`` for positions). What empty means is decided
per function and written in the case as ``empty``: ``"result"`` (a correctly
shaped empty answer: an empty sequence is a sequence) or ``"error"`` (a
``ValueError`` naming the argument: attention over no tokens, or a weight matrix
without rows, is a mistake). Classes are covered through their constructor and
their ``__call__``; constants through :data:`CONSTANTS`.

The idea is scipy's ``test_windowfunc_basics`` (``scipy/signal/tests/test_windows.py``).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest

import pe_explained as pe

NAN, INF = math.nan, math.inf


@dataclass(frozen=True)
class Call:
    """One way to call a public name: a good set of keyword arguments and the kind of each."""

    func: Callable
    kwargs: dict
    kinds: dict[str, str]
    empty: dict[str, str] = field(default_factory=dict)  # argument -> "result" or "error"
    label: str = ""


def _nan_at_first(valid) -> np.ndarray:
    bad = np.array(valid, dtype=np.float64)
    bad.flat[0] = NAN
    return bad


def _inf_at_first(valid) -> np.ndarray:
    bad = np.array(valid, dtype=np.float64)
    bad.flat[0] = INF
    return bad


def _as(valid, dtype) -> np.ndarray:
    return np.asarray(valid).astype(dtype)


def _wrong_dtypes(valid, *dtypes) -> list:
    return [_as(valid, d) for d in dtypes]


#: For each kind: (value builder from the valid value, expected exception) pairs.
SUBSTITUTIONS: dict[str, Callable[[object], list[tuple[object, type]]]] = {
    "int": lambda v: [(b, TypeError) for b in (True, "3", 2.5, None)],
    "int?": lambda v: [(b, TypeError) for b in (True, "3", 2.5)],
    "float": lambda v: (
        [(b, TypeError) for b in (True, "1.0", 1j, None)] + [(NAN, ValueError), (INF, ValueError)]
    ),
    "float?": lambda v: (
        [(b, TypeError) for b in (True, "1.0", 1j)] + [(NAN, ValueError), (INF, ValueError)]
    ),
    "bool": lambda v: [(b, TypeError) for b in ("no", "yes", 1, 0, None)],
    "dict?": lambda v: [(b, TypeError) for b in ("yarn", 1, ["factor"])],
    "choice": lambda v: [("no-such-choice", ValueError), (1, TypeError)],
    "dtype": lambda v: [(b, TypeError) for b in (np.int32, "no", True, None)],
    "dtype?": lambda v: [(b, TypeError) for b in (np.int32, "no", True)],
    "positions": lambda v: (
        [
            (b, TypeError)
            for b in (
                True,
                "3",
                2.5,
                ["a"],
                np.array([1 + 0j]),
                [True],
                np.array([0], dtype=object),
            )
        ]
        + [(b, ValueError) for b in (-1, [0, NAN], [0, INF])]
    ),
    # positions of any sign (xPos's centred ones): as positions, without the −1
    "signed positions": lambda v: (
        [
            (b, TypeError)
            for b in (
                True,
                "3",
                2.5,
                ["a"],
                np.array([1 + 0j]),
                [True],
                np.array([0], dtype=object),
            )
        ]
        + [(b, ValueError) for b in ([0, NAN], [0, INF], [-INF])]
    ),
    "array": lambda v: (
        [(b, TypeError) for b in [True, "abc", None, *_wrong_dtypes(v, str, object, complex, bool)]]
        + [(_nan_at_first(v), ValueError), (_inf_at_first(v), ValueError)]
    ),
    "int array": lambda v: [
        (b, TypeError)
        for b in [
            True,
            "abc",
            None,
            *_wrong_dtypes(v, str, object, complex, bool, float),
            _nan_at_first(v),
        ]
    ],
    # an int array whose default None means "not given" (frame_text_lengths)
    "int array?": lambda v: [
        (b, TypeError)
        for b in [
            True,
            "abc",
            *_wrong_dtypes(v, str, object, complex, bool, float),
            _nan_at_first(v),
        ]
    ],
    "bool array": lambda v: [
        (b, TypeError)
        for b in [1, "abc", None, *_wrong_dtypes(v, int, float, str, object, complex)]
    ],
    # an attention mask: 0/1 integers or bools
    "mask": lambda v: (
        [(b, TypeError) for b in ["abc", None, *_wrong_dtypes(v, float, str, object, complex)]]
        + [(np.asarray(v, dtype=np.int64) + 2, ValueError)]
    ),
    "ndarray": lambda v: [
        (b, TypeError)
        for b in [np.asarray(v).tolist(), *_wrong_dtypes(v, int, str, object, complex, bool)]
    ],
    "scaling": lambda v: [
        ("linear", TypeError),
        ({"rope_type": "linear", "factor": True}, TypeError),
        ({"rope_type": "linear", "factor": "2"}, TypeError),
        ({"rope_type": "linear", "factor": 2j}, TypeError),
        ({**YARN, "truncate": "no"}, TypeError),
        ({"rope_type": "no-such-type"}, ValueError),
        ({"rope_type": "linear", "factor": NAN}, ValueError),
        ({**YARN, "beta_fast": INF}, ValueError),
    ],
    # a model's config.json as a dict (rope_settings, config_rope_frequencies)
    "config": lambda v: [
        ("config.json", TypeError),
        (None, TypeError),
        ({"head_dim": True, "rope_theta": 1e4}, TypeError),
        ({"head_dim": 8, "rope_theta": "1e4"}, TypeError),
        ({"head_dim": 8, "rope_scaling": {"rope_type": "no-such-type"}}, ValueError),
        ({"head_dim": 8, "rope_scaling": {"rope_type": "linear", "factor": NAN}}, ValueError),
        ({"head_dim": 8, "rope_theta": INF}, ValueError),
        ({"hidden_size": 64}, ValueError),
    ],
    # the config.json of a model without rotary embeddings (nonrotary_positions)
    "nonrotary config": lambda v: [
        ("config.json", TypeError),
        (None, TypeError),
        ({**v, "n_positions": True}, TypeError),
        ({**v, "n_positions": "1024"}, TypeError),
        ({**v, "n_positions": 0}, ValueError),
        ({k: x for k, x in v.items() if k != "n_positions"}, ValueError),
        ({"model_type": "falcon", "alibi": "yes", "num_hidden_layers": 2}, TypeError),
    ],
    # a source of randomness: numpy.random.Generator only (pose_position_ids)
    "rng": lambda v: [(b, TypeError) for b in (0, None, "seed", np.random.RandomState(0))],
    # a dual_chunk_attention_config (dual_chunk_config)
    "dca config": lambda v: [
        ("chunk_size=8192", TypeError),
        (None, TypeError),
        ({"chunk_size": True}, TypeError),
        ({"chunk_size": "8192"}, TypeError),
        ({"chunk_sise": 8192}, ValueError),
        ({"chunk_size": 512, "local_size": 512}, ValueError),
        ({"local_size": -1}, ValueError),
    ],
    # a function the library calls (check_rope_port's port)
    "callable": lambda v: [
        (None, TypeError),
        ("apply_rope", TypeError),
        (np.ones(3), TypeError),
        (lambda x, positions: None, TypeError),
        (_port_that_raises, ValueError),
        (lambda x, positions: x[..., :-1], ValueError),
    ],
}


def _port_that_raises(x, positions):
    raise RuntimeError("no kernel for this shape")


#: Kinds whose arguments need an ``empty`` decision.
ARRAY_KINDS = {
    "positions",
    "signed positions",
    "array",
    "int array",
    "int array?",
    "bool array",
    "mask",
    "ndarray",
}

YARN = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
#: The arguments of rope_frequencies, rope_wavelengths and rope_pair_groups.
ROPE_KWARGS = {"head_dim": 8, "base": 10000.0, "scaling": YARN, "seq_len": 128}
RNG = np.random.default_rng(0)
#: One head's content (3 tokens) and position tables (k = 2) for DeBERTa's attention.
DEBERTA_ARRAYS = ("q_content", "k_content", "q_position", "k_position")
DEBERTA_KWARGS = dict(zip(DEBERTA_ARRAYS[:2], RNG.normal(size=(2, 3, 2)), strict=True))
DEBERTA_KWARGS.update(zip(DEBERTA_ARRAYS[2:], RNG.normal(size=(2, 4, 2)), strict=True))
DEBERTA_KINDS = {**dict.fromkeys(DEBERTA_ARRAYS, "array"), "p2c_index": "choice"}
X_5_4, W_4_4 = RNG.normal(size=(5, 4)), RNG.normal(size=(4, 4))
INT, FLOAT, BASE = "int", "float", {"base": "float"}
ROPE_KINDS = {"head_dim": INT, **BASE, "scaling": "scaling", "seq_len": "int?"}


def _layer_call(cls, **init):
    """``cls(**init)(x, training=…, offset=…)`` on a fresh layer, so dropout is reproducible."""

    def call(x, training, offset):
        return cls(**init)(x, training=training, offset=offset)

    call.__name__ = f"{cls.__name__}.__call__"
    return call


def _embedding_call(token_ids):
    return pe.TokenEmbedding(10, 8, seed=0)(token_ids)


_embedding_call.__name__ = "TokenEmbedding.__call__"

LAYER_CALL_KINDS = {"x": "array", "training": "bool", "offset": INT}
#: The arguments every call of mrope_video_position_ids passes.
VIDEO_KINDS = {"text_lengths": "int array", "grids": "int array", "model": "choice"}
LAYER_X = np.ones((2, 5, 8))

#: The table: every callable of ``pe_explained.__all__``, one or more calls each.
CALLS: dict[str, tuple[Call, ...]] = {
    "apply_rope": (
        Call(
            pe.apply_rope,
            {
                "x": np.ones((2, 3, 8)),
                "positions": 3,
                "inv_freq": np.array([1.0, 0.1, 0.01, 0.001]),
                "layout": "halves",
                "attention_factor": 1.0,
            },
            {
                "x": "ndarray",
                "positions": "positions",
                "inv_freq": "array",
                "layout": "choice",
                "attention_factor": FLOAT,
            },
            # no rows in a batch: an empty batch; no positions or frequencies: a mismatch
            empty={"x": "result", "positions": "error", "inv_freq": "error"},
        ),
    ),
    "interleaved_to_halves_permutation": (
        Call(pe.interleaved_to_halves_permutation, {"head_dim": 8}, {"head_dim": INT}),
    ),
    "ntk_aware_base": (
        Call(
            pe.ntk_aware_base,
            {"base": 10000.0, "factor": 4.0, "head_dim": 128},
            {"base": FLOAT, "factor": FLOAT, "head_dim": INT},
        ),
    ),
    "rope_decay_bound": (
        Call(
            pe.rope_decay_bound,
            {"distances": [0.0, 1.0, 10.0], "head_dim": 8, "base": 10000.0},
            {"distances": "array", "head_dim": INT, **BASE},
            empty={"distances": "result"},
        ),
    ),
    "rope_decay_bound_mean": (
        Call(
            pe.rope_decay_bound_mean,
            {"head_dim": 8, "low": 0, "high": 10, "base": 10000.0},
            {"head_dim": INT, "low": INT, "high": INT, **BASE},
        ),
    ),
    "rope_frequencies": (Call(pe.rope_frequencies, {**ROPE_KWARGS, "head_dim": 8}, ROPE_KINDS),),
    "rope_wavelengths": (Call(pe.rope_wavelengths, {**ROPE_KWARGS, "head_dim": 8}, ROPE_KINDS),),
    "rope_pair_groups": (Call(pe.rope_pair_groups, {**ROPE_KWARGS, "head_dim": 16}, ROPE_KINDS),),
    "yarn_correction_range": (
        Call(
            pe.yarn_correction_range,
            {
                "head_dim": 128,
                "base": 10000.0,
                "original_max_position_embeddings": 4096,
                "beta_fast": 32.0,
                "beta_slow": 1.0,
                "truncate": True,
            },
            {
                "head_dim": INT,
                **BASE,
                "original_max_position_embeddings": INT,
                "beta_fast": FLOAT,
                "beta_slow": FLOAT,
                "truncate": "bool",
            },
        ),
    ),
    "alibi_bias": (
        Call(
            pe.alibi_bias,
            {"num_heads": 4, "query_len": 3, "key_len": 5, "causal": True, "dtype": np.float32},
            {
                "num_heads": INT,
                "query_len": INT,
                "key_len": "int?",
                "causal": "bool",
                "dtype": "dtype",
            },
        ),
    ),
    "alibi_slopes": (Call(pe.alibi_slopes, {"num_heads": 8}, {"num_heads": INT}),),
    "alibi_weight_error": (
        Call(
            pe.alibi_weight_error,
            {"scores": [0.5, -1.0, 2.0], "slope": 0.25, "form": "keys", "dtype": "bfloat16"},
            {"scores": "array", "slope": "float", "form": "choice", "dtype": "choice"},
            empty={"scores": "error"},
        ),
    ),
    "expected_rotary_score": (
        Call(
            pe.expected_rotary_score,
            {
                "head_dim": 8,
                "distances": [0, 5],
                "base": 10000.0,
                "scale_base": 512.0,
                "gamma": 0.4,
            },
            {
                "head_dim": INT,
                "distances": "positions",
                **BASE,
                "scale_base": "float?",
                "gamma": FLOAT,
            },
            empty={"distances": "result"},
        ),
    ),
    "fairseq_positions": (
        Call(
            pe.fairseq_positions,
            {"is_token": np.array([True, True, False]), "padding_idx": 1},
            {"is_token": "bool array", "padding_idx": INT},
            empty={"is_token": "result"},
        ),
    ),
    "fairseq_sinusoidal": (
        Call(
            pe.fairseq_sinusoidal,
            {"num_embeddings": 4, "embedding_dim": 8, "padding_idx": 1},
            {"num_embeddings": INT, "embedding_dim": INT, "padding_idx": "int?"},
        ),
    ),
    "nope_position_signal": (
        Call(
            pe.nope_position_signal,
            {"seq_len": 4, "causal": True},
            {"seq_len": INT, "causal": "bool"},
        ),
    ),
    "recover_positions": (
        Call(
            pe.recover_positions,
            {"signal": np.array([1.0, 0.5, 0.25])},
            {"signal": "array"},
            empty={"signal": "result"},
        ),
    ),
    "t5_relative_bucket": (
        Call(
            pe.t5_relative_bucket,
            {
                "relative_position": np.array([-3, 0, 5]),
                "bidirectional": True,
                "num_buckets": 32,
                "max_distance": 128,
            },
            {
                "relative_position": "int array",
                "bidirectional": "bool",
                "num_buckets": INT,
                "max_distance": INT,
            },
            empty={"relative_position": "result"},
        ),
    ),
    "tensor2tensor_timing_signal": (
        Call(
            pe.tensor2tensor_timing_signal,
            {"length": 4, "channels": 8, "min_timescale": 1.0, "max_timescale": 1.0e4},
            {"length": INT, "channels": INT, "min_timescale": FLOAT, "max_timescale": FLOAT},
        ),
    ),
    "uniform_attention": (
        Call(
            pe.uniform_attention,
            {"values": np.array([[1.0], [0.0], [2.0]]), "causal": True},
            {"values": "array", "causal": "bool"},
            empty={"values": "error"},  # attention over no tokens
        ),
    ),
    "xpos_scale": (
        Call(
            pe.xpos_scale,
            {
                "head_dim": 8,
                "positions": 4,
                "scale_base": 512.0,
                "gamma": 0.4,
                "layout": "interleaved",
            },
            {
                "head_dim": INT,
                "positions": "signed positions",
                "scale_base": FLOAT,
                "gamma": FLOAT,
                "layout": "choice",
            },
            empty={"positions": "result"},
        ),
    ),
    "xpos_zeta": (
        Call(pe.xpos_zeta, {"head_dim": 8, "gamma": 0.4}, {"head_dim": INT, "gamma": FLOAT}),
    ),
    "SinusoidalPositionalEncoding": (
        Call(
            pe.SinusoidalPositionalEncoding,
            {
                "d_model": 8,
                "max_len": 16,
                "base": 10000.0,
                "dropout": 0.1,
                "seed": 0,
                "layout": "interleaved",
            },
            {
                "d_model": INT,
                "max_len": INT,
                **BASE,
                "dropout": FLOAT,
                "seed": INT,
                "layout": "choice",
            },
            label="constructor",
        ),
        Call(
            _layer_call(pe.SinusoidalPositionalEncoding, d_model=8, max_len=16, dropout=0.1),
            {"x": LAYER_X, "training": True, "offset": 1},
            LAYER_CALL_KINDS,
            empty={"x": "result"},  # a batch of no sequences
            label="__call__",
        ),
    ),
    "TokenEmbedding": (
        Call(
            pe.TokenEmbedding,
            {"vocab_size": 10, "d_model": 8, "std": 0.5, "scale": True, "seed": 0},
            {"vocab_size": INT, "d_model": INT, "std": "float?", "scale": "bool", "seed": INT},
            label="constructor",
        ),
        Call(
            _embedding_call,
            {"token_ids": np.array([[1, 2, 3]])},
            {"token_ids": "int array"},
            empty={"token_ids": "result"},
            label="__call__",
        ),
    ),
    "LearnedPositionalEmbedding": (
        Call(
            pe.LearnedPositionalEmbedding,
            {
                "d_model": 8,
                "max_len": 16,
                "std": 0.02,
                "init": "normal",
                "dropout": 0.1,
                "seed": 0,
            },
            {
                "d_model": INT,
                "max_len": INT,
                "std": FLOAT,
                "init": "choice",
                "dropout": FLOAT,
                "seed": INT,
            },
            label="constructor",
        ),
        Call(
            _layer_call(pe.LearnedPositionalEmbedding, d_model=8, max_len=16, dropout=0.1),
            {"x": LAYER_X, "training": True, "offset": 1},
            LAYER_CALL_KINDS,
            empty={"x": "result"},
            label="__call__",
        ),
    ),
    "learned_parameter_count": (
        Call(
            pe.learned_parameter_count,
            {"max_len": 512, "d_model": 768},
            {"max_len": INT, "d_model": INT},
        ),
    ),
    "four_term_scores": (
        Call(
            pe.four_term_scores,
            {
                "e_q": RNG.normal(size=(3, 4)),
                "e_k": RNG.normal(size=(5, 4)),
                "r": RNG.normal(size=(3, 5, 4)),
                "w_q": RNG.normal(size=(4, 2)),
                "w_k_content": RNG.normal(size=(4, 2)),
                "w_k_position": RNG.normal(size=(4, 2)),
                "u": RNG.normal(size=2),
                "v": RNG.normal(size=2),
            },
            dict.fromkeys(
                ("e_q", "e_k", "r", "w_q", "w_k_content", "w_k_position", "u", "v"), "array"
            ),
            # no queries, keys or weights: nothing to score
            empty=dict.fromkeys(
                ("e_q", "e_k", "r", "w_q", "w_k_content", "w_k_position", "u", "v"), "error"
            ),
        ),
    ),
    "relative_distances": (
        Call(
            pe.relative_distances,
            {"query_len": 3, "key_len": 4},
            {"query_len": INT, "key_len": INT},
        ),
    ),
    "relative_shift": (
        Call(
            pe.relative_shift,
            {"scores": np.arange(6.0).reshape(2, 3)},
            {"scores": "array"},
            empty={"scores": "error"},
        ),
    ),
    "skew": (
        Call(
            pe.skew,
            {"scores": np.arange(9.0).reshape(3, 3)},
            {"scores": "array"},
            empty={"scores": "error"},
        ),
    ),
    "position_ids_from_mask": (
        Call(
            pe.position_ids_from_mask,
            {"attention_mask": np.array([[1, 1, 1], [0, 1, 1]]), "past_length": 1},
            {"attention_mask": "mask", "past_length": INT},
            empty={"attention_mask": "result"},
        ),
    ),
    "opt_position_rows": (
        Call(
            pe.opt_position_rows,
            {"attention_mask": np.array([[1, 1, 1], [0, 1, 1]]), "past_length": 1},
            {"attention_mask": "mask", "past_length": INT},
            empty={"attention_mask": "result"},
        ),
    ),
    "deberta_relative_index": (
        Call(
            pe.deberta_relative_index,
            {"query_len": 4, "key_len": 4, "max_relative_positions": 2},
            {"query_len": INT, "key_len": INT, "max_relative_positions": INT},
        ),
    ),
    "disentangled_terms": (
        Call(
            pe.disentangled_terms,
            {**DEBERTA_KWARGS, "p2c_index": "code"},
            DEBERTA_KINDS,
            empty=dict.fromkeys(DEBERTA_ARRAYS, "error"),
        ),
    ),
    "disentangled_scores": (
        Call(
            pe.disentangled_scores,
            {**DEBERTA_KWARGS, "p2c_index": "paper"},
            DEBERTA_KINDS,
            empty=dict.fromkeys(DEBERTA_ARRAYS, "error"),
        ),
    ),
    "relative_sinusoid": (
        Call(
            pe.relative_sinusoid,
            {
                "distances": np.array([[-1, 0, 1]]),
                "d_model": 4,
                "base": 10000.0,
                "layout": "halves",
            },
            {"distances": "int array", "d_model": INT, **BASE, "layout": "choice"},
            empty={"distances": "result"},
        ),
    ),
    "shaw_attention": (
        Call(
            pe.shaw_attention,
            {
                "x": X_5_4,
                "w_q": W_4_4,
                "w_k": W_4_4 + 1.0,
                "w_v": W_4_4 - 1.0,
                "rel_k": RNG.normal(size=(5, 4)),
                "rel_v": RNG.normal(size=(5, 4)),
                "causal": True,
                "return_weights": True,
            },
            {
                **dict.fromkeys(("x", "w_q", "w_k", "w_v", "rel_k", "rel_v"), "array"),
                "causal": "bool",
                "return_weights": "bool",
            },
            empty=dict.fromkeys(("x", "w_q", "w_k", "w_v", "rel_k", "rel_v"), "error"),
        ),
    ),
    "shaw_relative_index": (
        Call(
            pe.shaw_relative_index,
            {"query_len": 4, "key_len": 4, "max_distance": 2},
            {"query_len": INT, "key_len": INT, "max_distance": INT},
        ),
    ),
    "transformer_xl_terms": (
        Call(
            pe.transformer_xl_terms,
            {
                "x": RNG.normal(size=(4, 8)),
                "w_q": RNG.normal(size=(8, 4)),
                "w_k_content": RNG.normal(size=(8, 4)),
                "w_k_position": RNG.normal(size=(8, 4)),
                "u": RNG.normal(size=4),
                "v": RNG.normal(size=4),
                "base": 10000.0,
            },
            {
                **dict.fromkeys(("x", "w_q", "w_k_content", "w_k_position", "u", "v"), "array"),
                **BASE,
            },
            empty=dict.fromkeys(("x", "w_q", "w_k_content", "w_k_position", "u", "v"), "error"),
        ),
    ),
    "sinusoidal": (
        Call(
            pe.sinusoidal,
            {
                "positions": 5,
                "d_model": 8,
                "base": 10000.0,
                "layout": "interleaved",
                "dtype": np.float32,
            },
            {
                "positions": "positions",
                "d_model": INT,
                **BASE,
                "layout": "choice",
                "dtype": "dtype",
            },
            empty={"positions": "result"},  # a table with no rows
        ),
    ),
    "sinusoidal_frequencies": (
        Call(pe.sinusoidal_frequencies, {"d_model": 8, "base": 10000.0}, {"d_model": INT, **BASE}),
    ),
    "sinusoidal_wavelengths": (
        Call(pe.sinusoidal_wavelengths, {"d_model": 8, "base": 10000.0}, {"d_model": INT, **BASE}),
    ),
    "slow_pair_count": (
        Call(
            pe.slow_pair_count,
            {"length": 512.0, "d_model": 64, "base": 10000.0},
            {"length": FLOAT, "d_model": INT, **BASE},
        ),
    ),
    "xpos_centred_positions": (
        Call(pe.xpos_centred_positions, {"length": 5, "offset": 2}, {"length": INT, "offset": INT}),
    ),
    "xpos_safe_position": (
        Call(
            pe.xpos_safe_position,
            {
                "head_dim": 64,
                "smallest": 2.0**-14,
                "largest": 65504.0,
                "scale_base": 512.0,
                "gamma": 0.4,
            },
            {
                "head_dim": INT,
                "smallest": FLOAT,
                "largest": FLOAT,
                "scale_base": FLOAT,
                "gamma": FLOAT,
            },
        ),
    ),
    "stored_positions": (
        Call(
            pe.stored_positions,
            {"positions": [0, 255, 4096], "dtype": np.float16},
            {"positions": "positions", "dtype": "dtype"},
            empty={"positions": "result"},
        ),
    ),
    "round_to_bfloat16": (
        Call(
            pe.round_to_bfloat16,
            {"x": [[0.9576, -1961.2], [3.0, 1e-3]]},
            {"x": "array"},
            empty={"x": "result"},
        ),
    ),
    "first_colliding_position": (
        Call(pe.first_colliding_position, {"dtype": np.float16}, {"dtype": "dtype"}),
    ),
    "float32_rope_cos_sin": (
        Call(
            pe.float32_rope_cos_sin,
            {
                "positions": [0, 7, 1000],
                "head_dim": 8,
                "base": 10000.0,
                "inv_freq_dtype": np.float16,
            },
            {"positions": "positions", "head_dim": INT, **BASE, "inv_freq_dtype": "dtype"},
            empty={"positions": "result"},
        ),
    ),
    "rope_angle_error": (
        Call(
            pe.rope_angle_error,
            {
                "positions": [0, 7, 1000],
                "head_dim": 8,
                "base": 10000.0,
                "angles": "float32",
                "output_dtype": np.float32,
                "inv_freq_dtype": np.float16,
            },
            {
                "positions": "positions",
                "head_dim": INT,
                **BASE,
                "angles": "choice",
                "output_dtype": "dtype",
                "inv_freq_dtype": "dtype?",
            },
            empty={"positions": "result"},
        ),
    ),
    "rope_score_error": (
        Call(
            pe.rope_score_error,
            {
                "q": RNG.normal(size=(3, 8)),
                "k": RNG.normal(size=(3, 8)),
                "positions": [5, 40, 1000],
                "distance": 2,
                "base": 10000.0,
                "angles": "float32",
                "query_dtype": np.float16,
                "key_dtype": np.float16,
            },
            {
                "q": "array",
                "k": "array",
                "positions": "positions",
                "distance": INT,
                **BASE,
                "angles": "choice",
                "query_dtype": "dtype",
                "key_dtype": "dtype",
            },
            # no vectors: nothing to measure; no positions: an empty answer
            empty={"q": "error", "k": "error", "positions": "result"},
        ),
    ),
    "mrope_position_ids": (
        Call(
            pe.mrope_position_ids,
            {"text_lengths": [3, 2], "image_grids": [[4, 6]], "spatial_merge_size": 2},
            {"text_lengths": "int array", "image_grids": "int array", "spatial_merge_size": INT},
            # one text run more than images: no runs, or a missing image, is a mismatch
            empty={"text_lengths": "error", "image_grids": "error"},
        ),
    ),
    "mrope_video_position_ids": (
        Call(
            pe.mrope_video_position_ids,
            {
                "text_lengths": [2, 1, 2],
                "grids": [[4, 4, 4], [1, 2, 6]],
                "model": "qwen2_vl",
                "spatial_merge_size": 2,
                "resume": "max",
            },
            {**VIDEO_KINDS, "spatial_merge_size": INT, "resume": "choice"},
            # one text run more than items: no runs, or a missing item, is a mismatch
            empty={"text_lengths": "error", "grids": "error"},
            label="qwen2_vl",
        ),
        Call(
            pe.mrope_video_position_ids,
            {
                "text_lengths": [2, 2],
                "grids": [[4, 4, 4]],
                "model": "qwen2_5_vl",
                "seconds_per_grid": [0.25],
                "tokens_per_second": 2.0,
            },
            {**VIDEO_KINDS, "seconds_per_grid": "array", "tokens_per_second": FLOAT},
            # one duration per item: none for one video is a mismatch
            empty={"text_lengths": "error", "grids": "error", "seconds_per_grid": "error"},
            label="qwen2_5_vl",
        ),
        Call(
            pe.mrope_video_position_ids,
            {
                "text_lengths": [1, 1],
                "grids": [[3, 2, 4]],
                "model": "qwen3_vl",
                "frame_text_lengths": [2, 3],
            },
            {**VIDEO_KINDS, "frame_text_lengths": "int array?"},
            # one count per gap between frames: none for two gaps is a mismatch
            empty={"text_lengths": "error", "grids": "error", "frame_text_lengths": "error"},
            label="qwen3_vl",
        ),
    ),
    "mrope_pair_axes": (
        Call(
            pe.mrope_pair_axes,
            {"mrope_section": [6, 5, 5], "interleaved": True},
            {"mrope_section": "int array", "interleaved": "bool"},
            empty={"mrope_section": "error"},
        ),
    ),
    "apply_mrope": (
        Call(
            pe.apply_mrope,
            {
                "x": np.ones((2, 5, 8)),
                "position_ids": [[0, 1, 1, 1, 3], [0, 1, 1, 2, 3], [0, 1, 2, 1, 3]],
                "inv_freq": np.array([1.0, 0.1, 0.01, 0.001]),
                "mrope_section": [2, 1, 1],
                "interleaved": False,
                "layout": "halves",
                "attention_factor": 1.0,
            },
            {
                "x": "ndarray",
                "position_ids": "array",
                "inv_freq": "array",
                "mrope_section": "int array",
                "interleaved": "bool",
                "layout": "choice",
                "attention_factor": FLOAT,
            },
            # no rows in a batch: an empty batch; no ids, frequencies or sections: a mismatch
            empty={
                "x": "result",
                "position_ids": "error",
                "inv_freq": "error",
                "mrope_section": "error",
            },
        ),
    ),
    "patch_grid_positions": (
        Call(pe.patch_grid_positions, {"height": 2, "width": 3}, {"height": INT, "width": INT}),
    ),
    "rope_2d_frequencies": (
        Call(pe.rope_2d_frequencies, {"head_dim": 16, "base": 10000.0}, {"head_dim": INT, **BASE}),
    ),
    "apply_rope_2d": (
        Call(
            pe.apply_rope_2d,
            {
                "x": np.ones((2, 4, 8)),
                "positions": [[0, 0, 1, 1], [0, 1, 0, 1]],
                "inv_freq": np.array([1.0, 0.01, 0.1, 0.001]),
                "layout": "halves",
            },
            {"x": "ndarray", "positions": "array", "inv_freq": "array", "layout": "choice"},
            empty={"x": "result", "positions": "error", "inv_freq": "error"},
        ),
    ),
}

#: RoPE settings read from a model's config.json (pe_explained.hf_config).
ROPE_CONFIG = {
    "head_dim": 8,
    "max_position_embeddings": 256,
    "rope_theta": 10000.0,
    "rope_scaling": YARN,
}
CALLS["rope_settings"] = (Call(pe.rope_settings, {"config": ROPE_CONFIG}, {"config": "config"}),)
CALLS["config_rope_frequencies"] = (
    Call(
        pe.config_rope_frequencies,
        {"config": ROPE_CONFIG, "layer_type": "default", "seq_len": 16},
        {"config": "config", "layer_type": "choice", "seq_len": "int?"},
    ),
)
LAYERED_CONFIG = {
    **ROPE_CONFIG,
    "model_type": "llama4_text",
    "num_hidden_layers": 4,
    "attn_scale": 0.1,
    "floor_scale": 16,
}
CALLS["layer_rope_types"] = (
    Call(pe.layer_rope_types, {"config": LAYERED_CONFIG}, {"config": "config"}),
)
CALLS["read_model"] = (Call(pe.read_model, {"config": LAYERED_CONFIG}, {"config": "config"}),)
CALLS["layer_positions"] = (
    Call(pe.layer_positions, {"config": LAYERED_CONFIG}, {"config": "config"}),
)
CALLS["nonrotary_positions"] = (
    Call(
        pe.nonrotary_positions,
        {"config": {"model_type": "gpt2", "n_positions": 16, "n_layer": 2, "n_head": 2}},
        {"config": "nonrotary config"},
    ),
)
CALLS["config_attention_temperature"] = (
    Call(pe.config_attention_temperature, {"config": LAYERED_CONFIG}, {"config": "config"}),
)
CALLS["inspect_config"] = (
    Call(
        pe.inspect_config,
        {"config": LAYERED_CONFIG, "seq_len": 64},
        {"config": "config", "seq_len": "int?"},
    ),
)
# the arguments that give a config's positions in llama.cpp and vLLM (runtimes.py)
CALLS["llama_cpp_arguments"] = (
    Call(
        pe.llama_cpp_arguments,
        {"config": ROPE_CONFIG, "seq_len": 64},
        {"config": "config", "seq_len": "int?"},
    ),
)
CALLS["vllm_arguments"] = (
    Call(
        pe.vllm_arguments,
        {"config": ROPE_CONFIG, "seq_len": 64},
        {"config": "config", "seq_len": "int?"},
    ),
)
CALLS["vllm_max_model_len"] = (
    Call(pe.vllm_max_model_len, {"config": ROPE_CONFIG}, {"config": "config"}),
)
CALLS["runtime_arguments"] = (
    Call(
        pe.runtime_arguments,
        {"config": ROPE_CONFIG, "runtime": "vllm", "seq_len": 64},
        {"config": "config", "runtime": "choice", "seq_len": "int?"},
    ),
)
CALLS["attention_temperature"] = (
    Call(
        pe.attention_temperature,
        {"positions": 40, "beta": 0.1, "floor_scale": 16, "offset": 1},
        {"positions": "positions", "beta": FLOAT, "floor_scale": INT, "offset": INT},
        empty={"positions": "result"},
    ),
)
CALLS["mla_softmax_scale"] = (
    Call(
        pe.mla_softmax_scale,
        {
            "qk_nope_head_dim": 8,
            "qk_rope_head_dim": 4,
            "scaling": {"rope_type": "yarn", "factor": 4.0, "mscale_all_dim": 1.0},
        },
        {"qk_nope_head_dim": INT, "qk_rope_head_dim": INT, "scaling": "dict?"},
    ),
)
CALLS["kerple_bias"] = (
    Call(
        pe.kerple_bias,
        {
            "r1": np.array([1.0, 0.5]),
            "r2": np.array([0.5, 1.5]),
            "query_len": 3,
            "key_len": 5,
            "variant": "power",
            "causal": True,
        },
        {
            "r1": "array",
            "r2": "array",
            "query_len": INT,
            "key_len": "int?",
            "variant": "choice",
            "causal": "bool",
        },
        empty={"r1": "error", "r2": "error"},  # no heads: no parameters to read
    ),
)
CALLS["fire_normalized_distance"] = (
    Call(
        pe.fire_normalized_distance,
        {"query_len": 3, "key_len": 5, "c": 0.1, "threshold": 4.0},
        {"query_len": INT, "key_len": "int?", "c": FLOAT, "threshold": FLOAT},
    ),
)
FIRE_MLP = ("hidden_weight", "hidden_bias", "output_weight", "output_bias")
CALLS["fire_bias"] = (
    Call(
        pe.fire_bias,
        {
            "hidden_weight": RNG.normal(size=4),
            "hidden_bias": RNG.normal(size=4),
            "output_weight": RNG.normal(size=(4, 2)),
            "output_bias": RNG.normal(size=2),
            "query_len": 3,
            "key_len": 5,
            "c": 0.1,
            "threshold": 4.0,
            "causal": True,
        },
        {
            **dict.fromkeys(FIRE_MLP, "array"),
            "query_len": INT,
            "key_len": "int?",
            "c": FLOAT,
            "threshold": FLOAT,
            "causal": "bool",
        },
        empty=dict.fromkeys(FIRE_MLP, "error"),  # an MLP without units or heads
    ),
)
CALLS["cope_positions"] = (
    Call(
        pe.cope_positions,
        {"gate_logits": RNG.normal(size=(2, 4, 4))},
        {"gate_logits": "array"},
        empty={"gate_logits": "result"},  # a batch of no heads
    ),
)
CALLS["cope_bias"] = (
    Call(
        pe.cope_bias,
        {
            "queries": RNG.normal(size=(2, 4, 3)),
            "positions": np.abs(RNG.normal(size=(2, 4, 4))),
            "position_embeddings": RNG.normal(size=(5, 3)),
        },
        {"queries": "array", "positions": "array", "position_embeddings": "array"},
        # no heads in both: an empty answer; one without the other, or no table: a mismatch
        empty={"queries": "error", "positions": "error", "position_embeddings": "error"},
    ),
)
CALLS["mla_cache_size"] = (
    Call(
        pe.mla_cache_size,
        {"kv_lora_rank": 512, "qk_rope_head_dim": 64, "num_layers": 2},
        {"kv_lora_rank": INT, "qk_rope_head_dim": INT, "num_layers": INT},
    ),
)
CALLS["mla_scores"] = (
    Call(
        pe.mla_scores,
        {
            "q": RNG.normal(size=(2, 3, 6)),
            "k_nope": RNG.normal(size=(2, 3, 2)),
            "k_rope": RNG.normal(size=(3, 4)),
            "positions": 3,
            "inv_freq": np.array([1.0, 0.1]),
            "layout": "interleaved",
            "attention_factor": 1.0,
            "softmax_scale": 0.5,
        },
        {
            "q": "array",
            "k_nope": "array",
            "k_rope": "array",
            "positions": "positions",
            "inv_freq": "array",
            "layout": "choice",
            "attention_factor": FLOAT,
            "softmax_scale": "float?",
        },
        empty={
            "q": "error",
            "k_nope": "error",
            "k_rope": "error",
            "positions": "error",
            "inv_freq": "error",
        },
    ),
)
# partial rotation: the share of rotated dims, and apply_rope's rotary_dim
CALLS["rope_frequencies"] += (
    Call(
        pe.rope_frequencies,
        {**ROPE_KWARGS, "head_dim": 16, "partial_rotary_factor": 0.5},
        {**ROPE_KINDS, "partial_rotary_factor": "float?"},
        label="partial",
    ),
)
CALLS["apply_rope"] += (
    Call(
        pe.apply_rope,
        {
            "x": np.ones((2, 3, 8)),
            "positions": 3,
            "inv_freq": np.array([1.0, 0.01]),
            "layout": "interleaved",
            "attention_factor": 1.0,
            "rotary_dim": 4,
        },
        {
            "x": "ndarray",
            "positions": "positions",
            "inv_freq": "array",
            "layout": "choice",
            "attention_factor": FLOAT,
            "rotary_dim": "int?",
        },
        empty={"x": "result", "positions": "error", "inv_freq": "error"},
        label="partial",
    ),
)


# positions at inference: a cache's shift, StreamingLLM, padding, packing
SHIFT_KINDS = {
    "keys": "ndarray",
    "delta": "int array",
    "inv_freq": "array",
    "layout": "choice",
    "rotary_dim": "int?",
}
SHIFT_KWARGS = {
    "keys": np.ones((2, 3, 8)),
    "delta": np.array([-1, 0, 2]),
    "inv_freq": np.array([1.0, 0.01]),
    "layout": "interleaved",
    "rotary_dim": 4,
}
CALLS["shift_rotated_keys"] = (
    Call(
        pe.shift_rotated_keys,
        SHIFT_KWARGS,
        SHIFT_KINDS,
        # no rows in a batch: an empty batch; no shifts or frequencies: a mismatch
        empty={"keys": "result", "delta": "error", "inv_freq": "error"},
    ),
    Call(
        pe.shift_rotated_keys,
        {**SHIFT_KWARGS, "delta": -2},
        {**SHIFT_KINDS, "delta": INT},
        empty={"keys": "result", "inv_freq": "error"},
        label="one shift",
    ),
)
CALLS["draft_tree_positions"] = (
    Call(
        pe.draft_tree_positions,
        {"parents": [-1, -1, 0], "start": 5},
        {"parents": "int array", "start": INT},
        empty={"parents": "result"},
    ),
)
CALLS["repeated_shift_error"] = (
    Call(
        pe.repeated_shift_error,
        {
            "keys": RNG.normal(size=(3, 8)),
            "positions": [0, 5, 9],
            "delta": -1,
            "n_shifts": 3,
            "inv_freq": np.array([1.0, 0.1, 0.01, 0.001]),
            "dtype": np.float16,
            "layout": "halves",
            "scale": "row",
        },
        {
            "keys": "array",
            "positions": "positions",
            "delta": INT,
            "n_shifts": INT,
            "inv_freq": "array",
            "dtype": "dtype",
            "layout": "choice",
            "scale": "choice",
        },
        # no keys: nothing to measure; positions and frequencies must match the keys
        empty={"keys": "error", "positions": "error", "inv_freq": "error"},
    ),
)
CALLS["cached_angle_error"] = (
    Call(
        pe.cached_angle_error,
        {
            "positions": [0, 3, 7],
            "inv_freq_cached": np.array([1.0, 0.01]),
            "inv_freq_current": np.array([1.0, 0.005]),
            "wrap": False,
        },
        {
            "positions": "positions",
            "inv_freq_cached": "array",
            "inv_freq_current": "array",
            "wrap": "bool",
        },
        empty={"positions": "result", "inv_freq_cached": "error", "inv_freq_current": "error"},
    ),
)
CALLS["key_error"] = (
    Call(
        pe.key_error,
        {"got": RNG.normal(size=(3, 8)), "expected": RNG.normal(size=(3, 8))},
        {"got": "array", "expected": "array"},
        # no keys: no error to measure
        empty={"got": "error", "expected": "error"},
    ),
)
CALLS["learned_sink_weights"] = (
    Call(
        pe.learned_sink_weights,
        {"scores": RNG.normal(size=(2, 3)), "sink_logit": 0.5},
        {"scores": "array", "sink_logit": "float"},
        # no rows of scores: no weights
        empty={"scores": "result"},
    ),
)
STREAMING_KINDS = {"total": INT, "n_sink": INT, "window": INT, "mode": "choice"}
STREAMING_KWARGS = {"total": 10, "n_sink": 4, "window": 4, "mode": "original"}
CALLS["streaming_positions"] = (Call(pe.streaming_positions, STREAMING_KWARGS, STREAMING_KINDS),)
CALLS["streaming_distances"] = (Call(pe.streaming_distances, STREAMING_KWARGS, STREAMING_KINDS),)
CALLS["score_shift_error"] = (
    Call(
        pe.score_shift_error,
        {
            "q": RNG.normal(size=(3, 8)),
            "k": RNG.normal(size=(3, 8)),
            "m": 10,
            "n": 4,
            "shift": np.array([1, 100]),
            "inv_freq": np.array([1.0, 0.1, 0.01, 0.001]),
            "dtype": np.float16,
            "angles": "float64",
        },
        {
            "q": "array",
            "k": "array",
            "m": INT,
            "n": INT,
            "shift": "int array",
            "inv_freq": "array",
            "dtype": "dtype",
            "angles": "choice",
        },
        # no vectors or frequencies: nothing to measure; no shifts: an empty answer
        empty={"q": "error", "k": "error", "shift": "result", "inv_freq": "error"},
    ),
)
PACKED_IDS = np.array([[0, 1, 2, 0, 1]])
CALLS["packed_position_ids"] = (
    Call(
        pe.packed_position_ids,
        {"lengths": np.array([3, 2, 4]), "reset": True},
        {"lengths": "int array", "reset": "bool"},
        empty={"lengths": "result"},  # no documents: an empty row
    ),
)
CALLS["packed_causal_mask"] = (
    Call(
        pe.packed_causal_mask,
        {"lengths": np.array([3, 2])},
        {"lengths": "int array"},
        empty={"lengths": "result"},
    ),
)
CALLS["cu_seqlens_from_position_ids"] = (
    Call(
        pe.cu_seqlens_from_position_ids,
        {"position_ids": PACKED_IDS},
        {"position_ids": "int array"},
        empty={"position_ids": "error"},  # no token: no smallest id to restart at
    ),
)
CALLS["packed_sequence_ids"] = (
    Call(
        pe.packed_sequence_ids,
        {"position_ids": PACKED_IDS},
        {"position_ids": "int array"},
        empty={"position_ids": "result"},
    ),
)
CALLS["attended_offsets"] = (
    Call(
        pe.attended_offsets,
        {"position_ids": PACKED_IDS[0], "mask": pe.packed_causal_mask([3, 2])},
        {"position_ids": "int array", "mask": "bool array"},
        # one argument emptied alone no longer matches the other's shape
        empty={"position_ids": "error", "mask": "error"},
    ),
)

# positions at inference: remapped distances (Self-Extend, DCA, ReRoPE) and PoSE's ids
SELF_EXTEND_KINDS = {
    "seq_len": INT,
    "group_size": INT,
    "neighbor_window": INT,
    "convention": "choice",
}
CALLS["self_extend_distances"] = (
    Call(
        pe.self_extend_distances,
        {"seq_len": 9, "group_size": 2, "neighbor_window": 3, "convention": "longlm"},
        SELF_EXTEND_KINDS,
    ),
)
CALLS["self_extend_largest_distance"] = (
    Call(
        pe.self_extend_largest_distance,
        {"seq_len": 9, "group_size": 2, "neighbor_window": 3, "convention": "paper"},
        SELF_EXTEND_KINDS,
    ),
)
CALLS["self_extend_max_length"] = (
    Call(
        pe.self_extend_max_length,
        {"pretraining_length": 4096, "group_size": 4, "neighbor_window": 512},
        {"pretraining_length": INT, "group_size": INT, "neighbor_window": INT},
    ),
)
CALLS["self_extend_group_size"] = (
    Call(
        pe.self_extend_group_size,
        {
            "target_length": 15800,
            "pretraining_length": 4096,
            "neighbor_window": 1024,
            "usable_fraction": 0.75,
        },
        {
            "target_length": INT,
            "pretraining_length": INT,
            "neighbor_window": INT,
            "usable_fraction": FLOAT,
        },
    ),
)
GROUP_ATTENTION_KINDS = {"seq_len": INT, "group_size": INT, "group_width": INT, "batch_size": INT}
CALLS["group_attention_distances"] = (
    Call(
        pe.group_attention_distances,
        {"seq_len": 9, "group_size": 2, "group_width": 4, "batch_size": 3},
        GROUP_ATTENTION_KINDS,
    ),
)
CALLS["group_attention_rotated_distances"] = (
    Call(
        pe.group_attention_rotated_distances,
        {"seq_len": 9, "group_size": 2, "group_width": 4, "batch_size": 3},
        GROUP_ATTENTION_KINDS,
    ),
)
CALLS["group_attention_largest_distance"] = (
    Call(
        pe.group_attention_largest_distance,
        {"seq_len": 9, "group_size": 2, "group_width": 4, "batch_size": 1},
        GROUP_ATTENTION_KINDS,
    ),
)
DUAL_CHUNK_KWARGS = {"seq_len": 13, "chunk_size": 10, "local_size": 4, "pretraining_length": 12}
DUAL_CHUNK_KINDS = {
    "seq_len": INT,
    "chunk_size": INT,
    "local_size": INT,
    "pretraining_length": "int?",
}
CALLS["dual_chunk_position_ids"] = (
    Call(pe.dual_chunk_position_ids, DUAL_CHUNK_KWARGS, DUAL_CHUNK_KINDS),
)
CALLS["dual_chunk_distances"] = (
    Call(pe.dual_chunk_distances, DUAL_CHUNK_KWARGS, DUAL_CHUNK_KINDS),
)
CALLS["dual_chunk_largest_distance"] = (
    Call(pe.dual_chunk_largest_distance, DUAL_CHUNK_KWARGS, DUAL_CHUNK_KINDS),
)
CALLS["dual_chunk_config"] = (
    Call(
        pe.dual_chunk_config,
        {"config": {"chunk_size": 262144, "local_size": 8192}},
        {"config": "dca config"},
    ),
)
CALLS["dual_chunk_attention_factor"] = (
    Call(
        pe.dual_chunk_attention_factor,
        {"seq_len": 1_000_000, "original_max_position_embeddings": 262144},
        {"seq_len": INT, "original_max_position_embeddings": INT},
    ),
)
REROPE_KINDS = {"seq_len": INT, "window": INT, "scaling_factor": "float?"}
CALLS["rerope_distances"] = (
    Call(pe.rerope_distances, {"seq_len": 8, "window": 3, "scaling_factor": 4.0}, REROPE_KINDS),
)
CALLS["rerope_largest_distance"] = (
    Call(
        pe.rerope_largest_distance, {"seq_len": 8, "window": 3, "scaling_factor": 4.0}, REROPE_KINDS
    ),
)


def _pose_call(train_length, target_length, rng, num_chunks, return_chunk_starts):
    """``pose_position_ids`` on a copy of ``rng``, so that the same call draws the same ids."""
    return pe.pose_position_ids(
        train_length,
        target_length,
        copy.deepcopy(rng),
        num_chunks=num_chunks,
        return_chunk_starts=return_chunk_starts,
    )


_pose_call.__name__ = "pose_position_ids"
CALLS["pose_position_ids"] = (
    Call(
        _pose_call,
        {
            "train_length": 8,
            "target_length": 32,
            "rng": np.random.default_rng(0),
            "num_chunks": 3,
            "return_chunk_starts": True,
        },
        {
            "train_length": INT,
            "target_length": INT,
            "rng": "rng",
            "num_chunks": INT,
            "return_chunk_starts": "bool",
        },
    ),
)
CALLS["check_rope_port"] = (
    Call(
        pe.check_rope_port,
        {
            "rotate": pe.example_rope_port("library", 8),
            "head_dim": 8,
            "base": 10000.0,
            "layout": "halves",
            "dtype": np.float32,
            "far_position": 1000,
            "exact_angles": False,
        },
        {
            "rotate": "callable",
            "head_dim": INT,
            **BASE,
            "layout": "choice",
            "dtype": "dtype",
            "far_position": INT,
            "exact_angles": "bool",
        },
    ),
)
CALLS["example_rope_port"] = (
    Call(
        pe.example_rope_port,
        {"variant": "negated angle", "head_dim": 8, "base": 10000.0, "layout": "halves"},
        {"variant": "choice", "head_dim": INT, **BASE, "layout": "choice"},
    ),
)


def _is_str_tuple(value) -> bool:
    return isinstance(value, tuple) and len(value) > 0 and all(isinstance(v, str) for v in value)


#: The constants of ``__all__`` and what each must be.
CONSTANTS: dict[str, Callable[[object], bool]] = {
    # read_model's result, built by it alone: a frozen dataclass
    "ModelPositions": lambda v: (
        isinstance(v, type)
        and v.__dataclass_params__.frozen
        and isinstance(pe.read_model(LAYERED_CONFIG), v)
    ),
    "LAYOUTS": lambda v: _is_str_tuple(v) and len(set(v)) == len(v),
    "ANGLE_PRECISIONS": lambda v: _is_str_tuple(v) and len(set(v)) == len(v),
    "ALIBI_FORMS": lambda v: _is_str_tuple(v) and len(set(v)) == len(v),
    "BIAS_DTYPES": lambda v: _is_str_tuple(v) and len(set(v)) == len(v),
    "KERPLE_VARIANTS": lambda v: _is_str_tuple(v) and len(set(v)) == len(v),
    "ROPE_TYPES": lambda v: (
        isinstance(v, dict)
        and _is_str_tuple(tuple(v))
        and all(
            isinstance(pair, tuple)
            and len(pair) == 2
            and all(
                isinstance(keys, frozenset) and all(isinstance(k, str) for k in keys)
                for keys in pair
            )
            for pair in v.values()
        )
    ),
}


# ---------------------------------------------------------------------------
# The checking helper
# ---------------------------------------------------------------------------


def _arrays(result):
    """Every array in a result (an array, a number, or tuples and dicts of them).

    Names and ``None`` (a layer's RoPE key, or none) are not arrays: they are left out.
    """
    if result is None or isinstance(result, str):
        return
    if isinstance(result, dict):
        for value in result.values():
            yield from _arrays(value)
    elif isinstance(result, tuple | list):
        for value in result:
            yield from _arrays(value)
    elif hasattr(result, "__dict__"):  # a layer: its tables are its result
        yield from (v for v in vars(result).values() if isinstance(v, np.ndarray))
    else:
        yield np.asarray(result)


def _names(message: str, argument: str) -> bool:
    """Does the message name the argument (as a whole word)?"""
    return re.search(rf"(?<![\w]){re.escape(argument)}(?!\w)", message) is not None


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        if value.ndim == 1 and value.size <= 4:
            return f"array({value.tolist()}, dtype={value.dtype})"
        return f"array(shape={value.shape}, dtype={value.dtype})"
    return repr(value)


def _empty(kind: str, valid):
    if kind == "positions":
        return []
    valid = np.asarray(valid)
    return np.empty((0, *valid.shape[1:]), dtype=valid.dtype)


def contract_violations(case: Call) -> list[str]:
    """Every way ``case.func`` breaks the contract; an empty list when it keeps it."""
    problems = []
    try:
        first = case.func(**case.kwargs)
        second = case.func(**case.kwargs)
    except Exception as exc:  # the good call must work
        return [f"the valid call raised {type(exc).__name__}: {exc}"]
    for a, b in zip(_arrays(first), _arrays(second), strict=True):
        if a.dtype.kind in "OUS":
            problems.append(f"the valid call returned an array of dtype {a.dtype}")
        elif not np.array_equal(a, b, equal_nan=True):
            problems.append("the valid call is not deterministic")
        elif a.dtype.kind in "fc" and np.isnan(a).any():
            problems.append("the valid call returned NaN")

    for argument, kind in case.kinds.items():
        valid = case.kwargs[argument]
        trials = list(SUBSTITUTIONS[kind](valid))
        if kind in ARRAY_KINDS:
            if argument not in case.empty:
                problems.append(f"{argument}: the case does not say what an empty value gives")
            else:
                outcome = case.empty[argument]
                trials.append((_empty(kind, valid), ValueError if outcome == "error" else None))
        for bad, expected in trials:
            label = f"{argument}={_describe(bad)}"
            try:
                result = case.func(**{**case.kwargs, argument: bad})
            except (TypeError, ValueError) as exc:
                if expected is None:
                    problems.append(f"{label}: expected an empty result, got {exc!r}")
                elif type(exc) is not expected and not issubclass(type(exc), expected):
                    problems.append(f"{label}: expected {expected.__name__}, got {exc!r}")
                elif not _names(str(exc), argument):
                    problems.append(f"{label}: the message does not name {argument!r}: {exc}")
                continue
            except Exception as exc:
                problems.append(f"{label}: raised {type(exc).__name__} (not Type/ValueError)")
                continue
            if expected is not None:
                problems.append(f"{label}: accepted silently, expected {expected.__name__}")
            elif not any(a.size == 0 for a in _arrays(result)):
                problems.append(f"{label}: expected an empty result")
    return problems


# ---------------------------------------------------------------------------
# The tests
# ---------------------------------------------------------------------------

CASES = [
    pytest.param(case, id=f"{name}{'-' + case.label if case.label else ''}")
    for name, calls in CALLS.items()
    for case in calls
]


def test_the_table_covers_all_exactly():
    """A new export without a contract entry fails here."""
    assert not set(CALLS) & set(CONSTANTS)
    assert sorted({*CALLS, *CONSTANTS}) == sorted(pe.__all__)


def test_every_argument_of_every_call_has_a_kind():
    """No argument is left out: the kinds name every parameter the good call passes."""
    for name, calls in CALLS.items():
        for case in calls:
            assert set(case.kinds) == set(case.kwargs), f"{name}: arguments and kinds differ"
            assert set(case.empty) <= {a for a, k in case.kinds.items() if k in ARRAY_KINDS}


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_constants(name):
    assert CONSTANTS[name](getattr(pe, name)), f"{name} = {getattr(pe, name)!r}"


@pytest.mark.parametrize("case", CASES)
def test_contract(case):
    problems = contract_violations(case)
    assert not problems, "\n".join(problems)


def test_apply_rope_lets_nan_through_to_its_own_row():
    """The one documented exception: NaN in x reaches the rows that hold it, nothing else."""
    x = np.ones((1, 3, 8))
    x[0, 1, 2] = np.nan
    out = pe.apply_rope(x, 3, np.array([1.0, 0.1, 0.01, 0.001]))
    assert np.isnan(out[0, 1]).any() and np.isfinite(out[0, [0, 2]]).all()


# ---------------------------------------------------------------------------
# The harness catches a lax function
# ---------------------------------------------------------------------------


def _lax(values, scale=1.0, *, causal=False):
    """A deliberately lax function: truthy flags, unchecked floats and arrays."""
    out = np.asarray(values) * scale
    return np.cumsum(out, axis=0) if causal else out


def _strict(values, scale=1.0, *, causal=False):
    """The same function through the library's checks."""
    from pe_explained._checks import check_array, check_bool, check_float

    out = check_array("values", values, ndim=1) * check_float("scale", scale)
    return np.cumsum(out, axis=0) if check_bool("causal", causal) else out


LAX_KINDS = {"values": "array", "scale": FLOAT, "causal": "bool"}
LAX_KWARGS = {"values": np.array([1.0, 2.0]), "scale": 2.0, "causal": True}


def test_the_harness_catches_a_lax_function():
    problems = contract_violations(Call(_lax, LAX_KWARGS, LAX_KINDS, empty={"values": "error"}))
    silently = {p.split(": accepted silently")[0] for p in problems if "accepted silently" in p}
    assert {
        "causal='no'",  # a truthy string taken as True
        "causal=1",
        "scale=True",  # a bool taken as a number
        "scale=nan",
        "values=array([(1+0j), (2+0j)], dtype=complex128)",
        "values=array([nan, 2.0], dtype=float64)",
        "values=array([], dtype=float64)",  # the case says empty is an error
    } <= silently


def test_the_harness_catches_a_message_that_names_nothing():
    def vague(values):
        arr = np.asarray(values)
        if arr.dtype != np.float64 or arr.shape != (2,) or not np.isfinite(arr).all():
            raise ValueError("bad input")
        return arr

    case = Call(vague, {"values": np.array([1.0, 2.0])}, {"values": "array"}, {"values": "error"})
    problems = contract_violations(case)
    assert "values=array([], dtype=float64): the message does not name 'values': bad input" in (
        problems
    )
    assert "values=None: expected TypeError, got ValueError('bad input')" in problems


def test_the_harness_passes_the_same_function_written_with_the_checks():
    assert (
        contract_violations(Call(_strict, LAX_KWARGS, LAX_KINDS, empty={"values": "result"})) == []
    )
