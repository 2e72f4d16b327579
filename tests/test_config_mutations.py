"""Every malformed config gets a clear error: a key deleted, or a value replaced by null, a
bool, -1, 2**31, 2**63, 10**300, NaN, inf, a string, a list or a dict, at any depth, in
any gallery or test config, is either read (the report as text and as JSON, the arguments
of every runtime) or refused with a ``TypeError``/``ValueError`` that names the key by its
path, within a second. Every size a config states is bounded
(:data:`pe_explained._checks.CONFIG_LIMITS`), so no value makes a reader allocate much or
run long.

The property test is seeded and runs ``PE_HYPOTHESIS_EXAMPLES`` examples (default 3,000,
about 15 s); ``PE_HYPOTHESIS_EXAMPLES=30000`` runs a longer search. Hypothesis shrinks a
failure to its smallest config.
"""

from __future__ import annotations

import math
import os
import signal
import time

import pytest
from config_mutations import (
    BAD_VALUES,
    DELETE,
    NAMES_A_KEY,
    READ_KEYS,
    apply,
    base_configs,
    locations,
    read,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pe_explained._checks import CONFIG_LIMITS, check_config_int

BASES = dict(base_configs())
EXAMPLES = int(os.environ.get("PE_HYPOTHESIS_EXAMPLES", "3000"))

#: Malformed configs that once gave a raw error, an unnamed one, a huge allocation or no
#: answer: (base config, path of the value, the value, what the message must name, or None
#: where the config is read).
REGRESSIONS = [
    # unhashable type: 'list' / 'dict'
    ("llama-3.1-8b-instruct", ("model_type",), [], "config['model_type']"),
    ("qwen3-8b", ("model_type",), {}, "config['model_type']"),
    ("glm-4.7", ("model_type",), [1, 2], "config['model_type']"),
    ("bloom-560m", ("model_type",), {"a": 1}, "config['model_type']"),
    ("opt-1.3b", ("model_type",), [], "config['model_type']"),
    ("gemma-4-26b-a4b", ("text_config", "model_type"), [1, 2], "['text_config']['model_type']"),
    ("qwen3-vl-f1", ("text_config", "model_type"), {}, "['text_config']['model_type']"),
    ("mistral-7b-instruct-v0.1", ("sliding_window",), [], "config['sliding_window']"),
    ("gpt-oss-20b", ("sliding_window",), {"a": 1}, "config['sliding_window']"),
    ("llama-4-scout-17b-16e", ("text_config", "attention_chunk_size"), [], "attention_chunk"),
    # int() argument must be a string, …; '<' not supported between 'int' and 'str'
    ("phi-3.5-mini-instruct", ("original_max_position_embeddings",), None, None),
    ("gemma-4-26b-a4b", ("text_config", "num_kv_shared_layers"), "abc", "num_kv_shared"),
    ("command-r7b-12-2024", ("sliding_window",), "abc", "config['sliding_window']"),
    # numpy's "array is too big" / "Maximum allowed size exceeded"
    ("llama-4-scout-17b-16e", ("text_config", "head_dim"), 2**63, "['text_config']['head_dim']"),
    ("mistral-7b-v0.3", ("hidden_size",), 10**300, "config['hidden_size']"),
    # no answer within seconds, or a MemoryError
    ("gemma-3-1b-it", ("num_hidden_layers",), 2**31, "config['num_hidden_layers']"),
    ("t5-base", ("num_decoder_layers",), 2**31, "config['num_decoder_layers']"),
    ("llama-3.1-8b-instruct", ("head_dim",), 2**31, "config['head_dim']"),
    ("glm-4.7", ("num_hidden_layers",), 2**31, "config['num_hidden_layers']"),
    ("glm-4.7", ("head_dim",), 2**31, "config['head_dim']"),
    ("mpt-7b", ("n_heads",), 2**31, "config['n_heads']"),
    # unnamed messages, overflows, a report that is not JSON
    ("deepseek-v3", ("qk_nope_head_dim",), "abc", "config['qk_nope_head_dim']"),
    ("kimi-k2-instruct", ("rope_scaling", "factor"), None, "config['rope_scaling']['factor']"),
    ("deepseek-v3", ("rope_scaling", "mscale_all_dim"), 10**300, "['mscale_all_dim']"),
    ("hunyuan-a13b-instruct", ("rope_scaling", "alpha"), 10**300, "['rope_scaling']['alpha']"),
    ("t5-base", ("relative_attention_num_buckets",), 2**31, "relative_attention_"),
    ("glm-4.7", ("model_type",), math.nan, "config['model_type']"),
    ("qwen2.5-vl-7b-instruct", ("rope_scaling", "mrope_section"), math.inf, "mrope_section"),
    ("qwen3-vl-f1", ("text_config", "rope_parameters", "mrope_interleaved"), math.nan, "mrope_"),
]


def _guarded(config):
    """:func:`config_mutations.read`, stopped after 10 s (a failure, not a hung run)."""

    def stop(*_):
        raise TimeoutError("no answer within 10 s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, 10)
    try:
        return read(config)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("base", "path", "value", "named"), REGRESSIONS, ids=lambda x: str(x)[:40])
def test_each_malformed_value_that_once_escaped_is_read_or_refused_naming_its_key(
    base, path, value, named
):
    config = apply(BASES[base], path, value)
    if named is None:  # read: the report and the arguments, as JSON too
        assert _guarded(config) < 1.0
        return
    with pytest.raises((TypeError, ValueError)) as caught:
        _guarded(config)
    assert named in str(caught.value), str(caught.value)
    assert NAMES_A_KEY.search(str(caught.value))


@pytest.mark.parametrize("kind", sorted(CONFIG_LIMITS))
def test_every_bound_is_stated_and_holds_at_its_edge(kind):
    limit, why = CONFIG_LIMITS[kind]
    assert limit < 2**53 and why
    assert check_config_int("config['x']", limit, kind) == limit
    with pytest.raises(ValueError, match=rf"config\['x'\] must be <= {limit} \(.+\), got"):
        check_config_int("config['x']", limit + 1, kind)


def test_the_largest_sizes_allowed_are_read_within_a_second():
    """The bounds themselves are cheap: 10,000 layers, a head of 65,536 dims, a context of
    2**50 tokens, a sliding window as long."""
    config = {
        "model_type": "gemma3_text",
        "num_hidden_layers": CONFIG_LIMITS["layers"][0],
        "head_dim": CONFIG_LIMITS["head_dim"][0],
        "max_position_embeddings": CONFIG_LIMITS["length"][0],
        "sliding_window": CONFIG_LIMITS["length"][0],
        "rope_theta": 1e6,
    }
    assert _guarded(config) < 1.0


# --- the property: any mutation is read or refused by name, within a second ---------------

_NAMES = sorted(BASES)
_VALUES = st.sampled_from(BAD_VALUES)
_NESTED = st.one_of(
    _VALUES,
    st.lists(_VALUES, max_size=3),
    st.dictionaries(st.sampled_from(("rope_type", "factor", "a", *READ_KEYS)), _VALUES, max_size=2),
)


@st.composite
def malformed(draw):
    """A base config and one to three mutations: a value deleted or replaced at any depth,
    or a key the readers read added with a bad value."""
    config = BASES[draw(st.sampled_from(_NAMES))]
    for _ in range(draw(st.integers(1, 3))):
        spots = locations(config)
        if spots and draw(st.booleans()):
            path = draw(st.sampled_from(spots))
            value = draw(st.one_of(st.just(DELETE), _NESTED))
        else:
            dicts = [()] + [p for p in spots if isinstance(_at(config, p), dict)]
            path = (*draw(st.sampled_from(dicts)), draw(st.sampled_from(READ_KEYS)))
            value = draw(_NESTED)
        config = apply(config, path, value)
    return config


def _at(config, path):
    for key in path:
        config = config[key]
    return config


@settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(malformed())
def test_any_malformed_config_is_read_or_refused_naming_a_key_within_a_second(config):
    start = time.process_time()  # the reader's own time, whatever else the machine runs
    try:
        _guarded(config)
    except (TypeError, ValueError) as exc:
        assert NAMES_A_KEY.search(str(exc)), f"{type(exc).__name__}: {exc}"
    assert time.process_time() - start < 1.0, f"{time.process_time() - start:.2f} s"
