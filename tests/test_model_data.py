"""The model gallery's data: ``docs/data/models/*.json`` follow the documented schema.

Each file holds positional-encoding fields of one open model's ``config.json``, copied
verbatim, and the address they were read from (``docs/data/models/README.md``). These
tests need neither torch nor transformers: they check the schema, the key list and the
sizes that must agree inside one config (a layer list per layer, one LongRoPE factor per
rotated pair, M-RoPE sections that fill half a head).
"""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "docs" / "data" / "models"
FILES = sorted(DATA.glob("*.json"))

#: Keys a ``config`` (or its ``text_config`` / ``vision_config``) may hold.
ALLOWED = {
    "model_type",
    "architectures",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "max_position_embeddings",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "partial_rotary_factor",
    "rotary_dim",
    "rope_local_base_freq",
    "layer_types",
    "sliding_window",
    "sliding_window_pattern",
    "no_rope_layers",
    "no_rope_layer_interval",
    "attn_temperature_tuning",
    "floor_scale",
    "attn_scale",
    "qk_rope_head_dim",
    "qk_nope_head_dim",
    "v_head_dim",
    "kv_lora_rank",
    "q_lora_rank",
    "mrope_section",
    "use_sliding_window",
    "original_max_position_embeddings",
    "num_hidden_layers",
    "patch_size",
    "image_size",
    # keys the hybrid, NoPE and windowed families of 2025-26 read for positions
    "full_attention_interval",
    "linear_attn_config",
    "mla_use_nope",
    "position_embedding_type",
    "layers_block_type",
    "attention_chunk_size",
    "dual_chunk_attention_config",
    "rope_interleave",
    "num_kv_shared_layers",
    "compress_ratios",
    "compress_rope_theta",
    "index_head_dim",
    "use_qk_norm",
    # which layers attend in the hybrids (Bamba, LFM2, Jamba, Nemotron-H, MiMo-V2-Flash)
    "attn_layer_indices",
    "full_attn_idxs",
    "attn_layer_period",
    "attn_layer_offset",
    "hybrid_override_pattern",
    "hybrid_layer_pattern",
    # MiMo-V2-Flash's sliding layers: their base, window and heads
    "swa_rope_theta",
    "sliding_window_size",
    "swa_num_attention_heads",
    "swa_num_key_value_heads",
    "swa_head_dim",
    "swa_v_head_dim",
    # GPT-NeoX's names for the rotary base and the rotated fraction
    "rotary_emb_base",
    "rotary_pct",
    # Gemma 4's full-attention head width; Hunyuan's remote code's head width and switches
    "global_head_dim",
    "attention_head_dim",
    "use_rotary_pos_emb",
    "position_embedding_xdrope",
    "xdrope_section",
    # BLOOM's files carry it; no BloomConfig argument reads it (transformers 5.23)
    "offset_alibi",
    # models without RoPE: a learned table's size, ALiBi, T5's buckets (hf_nonrotary)
    "n_positions",
    "n_ctx",
    "alibi",
    "alibi_bias_max",
    "attn_config",
    "max_seq_len",
    "learned_pos_emb",
    "relative_attention_num_buckets",
    "relative_attention_max_distance",
    # the legacy size names those families use instead of the ones above
    "n_embd",
    "n_head",
    "n_layer",
    "n_heads",
    "n_layers",
    "d_model",
    "d_kv",
    "num_heads",
    "num_layers",
    "num_decoder_layers",
}
NESTED = ("text_config", "vision_config")
SOURCE_KEYS = {"url", "revision", "file", "retrieved_from"}
#: Optional ``source`` keys: how the page read relates to ``hf_repo``, and where the
#: release month (top-level ``released``) was read.
SOURCE_OPTIONAL = {"note", "released_from"}
#: Top-level keys: required, then optional (``released``, the month the model came out).
TOP_KEYS = {"model", "hf_repo", "source", "config"}
TOP_OPTIONAL = {"released"}
#: Release months the gallery spans (2019 to 2026).
RELEASED_YEARS = range(2019, 2027)
#: Keys that carry a rotary base: transformers' two shapes, and GPT-NeoX's name.
BASE_KEYS = ("rope_theta", "rope_parameters", "rotary_emb_base")

#: Files whose config has no rotary base key, with the reason (models without RoPE, read by
#: pe_explained.hf_nonrotary; a rotating family whose code fixes the base).
NO_ROPE_WHY: dict[str, str] = {
    "gpt2.json": "a learned table of n_positions rows, added to the input",
    "bert-base-uncased.json": "a learned table of max_position_embeddings rows",
    "opt-1.3b.json": "a learned table of max_position_embeddings + 2 rows",
    "bloom-560m.json": "ALiBi, fixed by the family (BloomModel)",
    "mpt-7b.json": "ALiBi (attn_config.alibi)",
    "t5-base.json": "T5's bucketed relative bias",
    "falcon-7b.json": "rotates with base 10,000, which its code fixes (alibi false)",
    "bamba-9b.json": "rotates its attention layers with BambaConfig's default base, 10,000",
    "jamba-v0.1.json": "no positional encoding: its attention layers never rotate",
}


def _scopes(config: dict) -> list[tuple[str, dict]]:
    """The top level and each nested sub-config, with a name for messages."""
    scopes = [("config", config)]
    scopes += [(name, config[name]) for name in NESTED if isinstance(config.get(name), dict)]
    return scopes


def _floats(value):
    """Every number inside ``value`` (dicts and lists walked)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _floats(item)
    elif isinstance(value, list):
        for item in value:
            yield from _floats(item)
    elif isinstance(value, float):
        yield value


def _rotary_dim(scope: dict) -> float | None:
    """Rotated width of one head, when the scope says enough to know it."""
    if "rotary_dim" in scope:
        return scope["rotary_dim"]
    head = scope.get("head_dim")
    if head is None and scope.get("hidden_size") and scope.get("num_attention_heads"):
        head = scope["hidden_size"] / scope["num_attention_heads"]
    if head is None:
        return None
    # transformers 5.x files keep the fraction inside rope_parameters; GPT-NeoX calls it rotary_pct
    params = scope.get("rope_parameters")
    nested = params.get("partial_rotary_factor") if isinstance(params, dict) else None
    fraction = scope.get("partial_rotary_factor", nested)
    if fraction is None:
        fraction = scope.get("rotary_pct", 1.0)
    return head * fraction


def problems(name: str, data: dict) -> list[str]:
    """Every way ``data`` (one parsed file called ``name``) breaks the schema."""
    found = []
    if not TOP_KEYS <= set(data) <= TOP_KEYS | TOP_OPTIONAL:
        found.append(
            f"top-level keys must be model, hf_repo, source, config (released optional); "
            f"got {sorted(data)}"
        )
        return found
    if "released" in data:
        month = re.fullmatch(r"(\d{4})-(\d{2})", str(data["released"]))
        if not month or int(month[1]) not in RELEASED_YEARS or not 1 <= int(month[2]) <= 12:
            found.append(f"released must read YYYY-MM within 2019-2026; got {data['released']!r}")
        if not isinstance(data["source"], dict) or "released_from" not in data["source"]:
            found.append("source.released_from must say where the release month was read")
    if not isinstance(data["model"], str) or not data["model"].strip():
        found.append("model must be a non-empty string")
    if not isinstance(data["hf_repo"], str) or not re.fullmatch(
        r"[\w.-]+/[\w.-]+", data["hf_repo"]
    ):
        found.append(f"hf_repo must read owner/name; got {data['hf_repo']!r}")
    source = data["source"]
    if (
        not isinstance(source, dict)
        or not SOURCE_KEYS <= set(source) <= SOURCE_KEYS | SOURCE_OPTIONAL
    ):
        found.append(
            f"source must hold {sorted(SOURCE_KEYS)} and optionally {sorted(SOURCE_OPTIONAL)}"
        )
    else:
        if not re.fullmatch(r"https://\S+", str(source["url"])):
            found.append(f"source.url must be an https address; got {source['url']!r}")
        revision = source["revision"]
        if revision is not None and not re.fullmatch(r"[0-9a-f]{40}", str(revision)):
            found.append(f"source.revision must be a 40-hex commit or null; got {revision!r}")
        if revision is not None and revision not in source["url"]:
            found.append("source.revision must be the commit the url names")
        optional = tuple(key for key in sorted(SOURCE_OPTIONAL) if key in source)
        for key in ("file", "retrieved_from") + optional:
            if not isinstance(source[key], str) or not source[key].strip():
                found.append(f"source.{key} must be a non-empty string")
    config = data["config"]
    if not isinstance(config, dict) or not config:
        return found + ["config must be a non-empty object"]
    for label, scope in _scopes(config):
        allowed = ALLOWED | (set(NESTED) if label == "config" else set())
        for key in sorted(set(scope) - allowed):
            found.append(f"{label}.{key} is not in the documented key list")
        for list_key in ("layer_types", "no_rope_layers"):
            # An empty list is how a file asks for the default (transformers builds
            # Llama 4's no_rope_layers from no_rope_layer_interval when it is empty).
            if scope.get(list_key) and "num_hidden_layers" in scope:
                if len(scope[list_key]) != scope["num_hidden_layers"]:
                    found.append(f"{label}.{list_key} must have one entry per layer")
        rotary = _rotary_dim(scope)
        for field in ("rope_scaling", "rope_parameters"):
            params = scope.get(field)
            if not isinstance(params, dict):
                continue
            for factors in ("long_factor", "short_factor"):
                if factors in params and rotary is not None and 2 * len(params[factors]) != rotary:
                    found.append(f"{label}.{field}.{factors} must hold one factor per rotated pair")
            section = params.get("mrope_section")
            if section is not None and rotary is not None and 2 * sum(section) != rotary:
                found.append(f"{label}.{field}.mrope_section must fill half of head_dim")
    if any(not math.isfinite(x) for x in _floats(config)):
        found.append("config numbers must be finite")
    has_base = any(key in scope for _, scope in _scopes(config) for key in BASE_KEYS)
    if not has_base and name not in NO_ROPE_WHY:
        found.append(
            "config holds none of rope_theta, rope_parameters, rotary_emb_base "
            "(list it in NO_ROPE_WHY)"
        )
    return found


def test_there_are_at_least_thirty_models():
    assert len(FILES) >= 30, [f.name for f in FILES]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_file_follows_the_schema(path):
    assert re.fullmatch(r"[a-z0-9][a-z0-9.-]*\.json", path.name), "file names are lowercase slugs"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert problems(path.name, data) == []


def test_models_and_repositories_are_unique():
    loaded = [json.loads(path.read_text(encoding="utf-8")) for path in FILES]
    repos = [data["hf_repo"] for data in loaded]
    assert len(set(repos)) == len(repos)


def test_readme_lists_every_file():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([^`]+\.json)` \|", readme, flags=re.MULTILINE))
    assert listed == {path.name for path in FILES}


def test_readme_documents_the_key_list():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert {key for key in ALLOWED if f"`{key}`" not in readme} == set()


def _sample() -> dict:
    return json.loads((DATA / "phi-4-mini-instruct.json").read_text(encoding="utf-8"))


def _break_key(data):
    data["config"]["rope_type"] = "yarn"


def _break_factors(data):
    data["config"]["rope_scaling"]["long_factor"].pop()


def _break_base(data):
    del data["config"]["rope_theta"]


def _break_url(data):
    data["source"]["url"] = "huggingface.co/x"


def _break_nested(data):
    data["config"]["vision_config"] = {"pixel_shuffle": 2}


def _break_layers(data):
    data["config"]["layer_types"] = ["full_attention"] * 3


def _break_revision(data):
    data["source"]["revision"] = "main"


def _break_released(data):
    data["released"] = "2025-7"
    data["source"]["released_from"] = "https://example.org"


def _break_released_from(data):
    data["released"] = "2025-07"


@pytest.mark.parametrize(
    "breaker",
    [
        _break_key,
        _break_factors,
        _break_base,
        _break_url,
        _break_nested,
        _break_layers,
        _break_revision,
        _break_released,
        _break_released_from,
    ],
)
def test_checker_rejects_a_broken_file(breaker):
    data = _sample()
    assert problems("sample.json", data) == []
    broken = copy.deepcopy(data)
    breaker(broken)
    assert problems("sample.json", broken) != []


@pytest.mark.parametrize("name", ["qwen2.5-vl-7b-instruct.json", "qwen3-vl-f1.json"])
def test_checker_rejects_a_short_mrope_section(name):
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    assert problems(name, data) == []
    scope = data["config"].get("text_config", data["config"])
    params = scope.get("rope_parameters") or scope["rope_scaling"]
    params["mrope_section"][0] -= 2
    assert any("mrope_section" in problem for problem in problems(name, data))
