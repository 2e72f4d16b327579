"""Malformed configs: the gallery's and the tests' configs with a key deleted, or a value
replaced by one of the kinds hand-edited, truncated and converted files hold (null, a bool,
-1, 2**31, 2**63, 10**300, NaN, inf, a string, an empty or a full list or dict), at any
depth. Shared by ``tests/test_config_mutations.py`` (the library, with Hypothesis) and
``tests/test_inspector.py`` (the page's port against the library).
"""

from __future__ import annotations

import json
import math
import random
import re
import time
from pathlib import Path

from pe_explained.model_report import format_report, inspect_config
from pe_explained.runtimes import RUNTIMES, format_runtime_arguments, runtime_arguments

ROOT = Path(__file__).resolve().parent.parent

#: The values a malformed file holds where a config expects something else.
BAD_VALUES = (
    None,
    True,
    False,
    -1,
    0,
    2**31,
    2**63,
    10**300,
    math.nan,
    math.inf,
    -math.inf,
    1e300,
    "",
    "abc",
    [],
    {},
    [1, 2],
    {"a": 1},
)
#: Deletes the key (or the list item) instead of replacing it.
DELETE = "<deleted>"
#: Keys the readers read, added where a config lacks them (a value at a new place).
READ_KEYS = (
    "model_type",
    "text_config",
    "num_hidden_layers",
    "head_dim",
    "hidden_size",
    "num_attention_heads",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "sliding_window",
    "use_sliding_window",
    "sliding_window_pattern",
    "attention_chunk_size",
    "layer_types",
    "no_rope_layers",
    "no_rope_layer_interval",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "partial_rotary_factor",
    "rope_interleave",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "kv_lora_rank",
    "global_head_dim",
    "num_kv_shared_layers",
    "attn_temperature_tuning",
    "dual_chunk_attention_config",
)

#: A message names a key by its path: config['…'] (or starts with "config").
NAMES_A_KEY = re.compile(r"config\[|^config\b")


def base_configs() -> list[tuple[str, dict]]:
    """Every gallery config, every config of ``tests/data/tiny_configs_2025.json`` and the
    test configs of ``tests/test_hf_config.py``, by name."""
    out = []
    for path in sorted((ROOT / "docs" / "data" / "models").glob("*.json")):
        out.append((path.stem, json.loads(path.read_text(encoding="utf-8"))["config"]))
    tiny = json.loads((ROOT / "tests" / "data" / "tiny_configs_2025.json").read_text())
    out += [(f"tiny {name}", config) for name, config in tiny.items()]
    from test_hf_config import GEMMA4_LIKE, LLAMA31_V4, LLAMA31_V5

    out += [("LLAMA31_V4", LLAMA31_V4), ("LLAMA31_V5", LLAMA31_V5), ("GEMMA4_LIKE", GEMMA4_LIKE)]
    return out


def locations(config, prefix=()) -> list[tuple]:
    """The path of every value in ``config``, dict keys and list items, depth first."""
    out = []
    items = config.items() if isinstance(config, dict) else enumerate(config)
    for key, value in items:
        out.append((*prefix, key))
        if isinstance(value, (dict, list)):
            out += locations(value, (*prefix, key))
    return out


def apply(config: dict, path: tuple, value) -> dict:
    """A copy of ``config`` with the value at ``path`` replaced by ``value`` (or deleted)."""
    out = json.loads(json.dumps(config))
    node = out
    for key in path[:-1]:
        node = node[key]
    if value == DELETE and isinstance(value, str):
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


def random_cases(seed: int, count: int) -> list[tuple[str, dict]]:
    """``count`` malformed configs, one to three mutations each, from ``random.Random(seed)``."""
    rng = random.Random(seed)
    bases = base_configs()
    out = []
    for _ in range(count):
        name, config = rng.choice(bases)
        steps = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            spots = locations(config)
            dicts = [()] + [p for p in spots if isinstance(_at(config, p), dict)]
            if rng.random() < 0.2:  # a key the readers read, at a new place
                path = (*rng.choice(dicts), rng.choice(READ_KEYS))
            else:
                path = rng.choice(spots) if spots else ("model_type",)
            value = rng.choice((DELETE, *BAD_VALUES, "nested"))
            if value == "nested":
                inner = rng.choice(BAD_VALUES)
                value = rng.choice(([inner], {"rope_type": inner}, [1, inner]))
            if value == DELETE and path not in spots:
                value = None
            config = apply(config, path, value)
            steps.append(f"{_name(path)} = {value if value == DELETE else repr(value)[:24]}")
        out.append((f"{name}: {'; '.join(steps)}", config))
    return out


def _at(config, path):
    for key in path:
        config = config[key]
    return config


def _name(path) -> str:
    return "config" + "".join(f"[{key!r}]" for key in path)


def read(config) -> float:
    """Run every reader on ``config`` as ``inspect`` does (the report as text and as JSON,
    and the arguments of every runtime); return the seconds taken. A TypeError or
    ValueError propagates."""
    start = time.perf_counter()
    report = inspect_config(config)
    format_report(report)
    json.dumps(report, allow_nan=False)
    for runtime in RUNTIMES:
        result = runtime_arguments(config, runtime)
        format_runtime_arguments(result)
        json.dumps(result, allow_nan=False)
    return time.perf_counter() - start
