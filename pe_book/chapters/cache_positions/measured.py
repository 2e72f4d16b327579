"""Chapter 23: what llama.cpp's context shift does to cached keys, measured on llama.cpp
itself (the stored run of ``scripts/llama_cpp_check``, ``docs/data/runtimes/llama_cpp.json``):
one-layer tiny models, the next token's logits after ``seq_rm`` and ``seq_add`` against
transformers' with the cached keys scaled as each hypothesis says."""

from __future__ import annotations

from ... import value
from ...experiments import runtime_results
from ...text import format_cell

#: The hypothesis the measurements single out.
EVERY_KEY = "every cached key × m per shift"


def _shift(setting: str, shifts: int) -> dict:
    (run,) = [
        c for c in runtime_results()["shifts"] if c["setting"] == setting and c["shifts"] == shifts
    ]
    return run


def _e(number: float) -> str:
    return format_cell(float(number), ".1e")


@value("shift_keep")
def _():
    return f"{_shift('cache-yarn4', 1)['keep']}"


@value("shift_discard")
def _():
    return f"{_shift('cache-yarn4', 1)['discard']}"


@value("shift_plain_diff")
def _():
    return _e(max(_shift("cache-plain", k)["diffs"]["no factor"] for k in (1, 3)))


@value("shift_yarn4_scale")
def _():
    return f"{_shift('cache-yarn4', 1)['key_scale']:.4f}"


@value("shift_yarn4_m")
def _():
    return f"{_shift('cache-yarn4', 1)['m']:.4f}"


@value("shift_yarn8_scale")
def _():
    return f"{_shift('cache-yarn8', 1)['key_scale']:.4f}"


@value("shift_yarn8_m")
def _():
    return f"{_shift('cache-yarn8', 1)['m']:.4f}"


@value("shift_yarn4_unscaled")
def _():
    return f"{_shift('cache-yarn4', 1)['diffs']['no factor']:.2f}"


@value("shift_three_every")
def _():
    return _e(max(_shift(s, 3)["diffs"][EVERY_KEY] for s in ("cache-yarn4", "cache-yarn8")))


@value("shift_three_moved")
def _():
    moved = "moved keys × m per shift"
    return f"{min(_shift(s, 3)['diffs'][moved] for s in ('cache-yarn4', 'cache-yarn8')):.2f}"


@value("shift_three_factor")
def _():
    return f"{_shift('cache-yarn4', 3)['m'] ** 3:.3f}"


def _can_shift(setting: str) -> dict:
    (run,) = [c for c in runtime_results()["can_shift"] if c["setting"] == setting]
    return run


@value("can_shift_context")
def _():
    return f"{_can_shift('gemma3')['n_ctx']:,}"


@value("can_shift_default")
def _():
    return str(_can_shift("gemma3")["default"]).lower()


@value("can_shift_full")
def _():
    return str(_can_shift("gemma3")["--swa-full"]).lower()


def _rollback(setting: str) -> dict:
    (run,) = [c for c in runtime_results()["rollbacks"] if c["setting"] == setting]
    return run


@value("rollback_draft")
def _():
    return f"{_rollback('cache-plain')['draft']}"


@value("rollback_keep")
def _():
    return f"{_rollback('cache-plain')['keep']}"


@value("rollback_plain")
def _():
    return _e(_rollback("cache-plain")["diff"])


@value("rollback_yarn")
def _():
    return _e(_rollback("cache-yarn4")["diff"])


#: The DeepSeek-V2 (MLA) one-layer model and the GQA model it is set beside.
MLA, GQA = "cache-mla-yarn4", "cache-yarn4"


def _width(setting: str) -> dict:
    (run,) = [c for c in runtime_results()["cache_widths"] if c["setting"] == setting]
    return run


@value("mla_latent")
def _():
    return f"{_width(MLA)['latent']}"


@value("mla_rotary")
def _():
    return f"{_width(MLA)['rotary']}"


@value("mla_bytes")
def _():
    return f"{_width(MLA)['llama_cpp_bytes_per_token']:.0f}"


@value("gqa_bytes")
def _():
    return f"{_width(GQA)['llama_cpp_bytes_per_token']:.0f}"


@value("gqa_numbers")
def _():
    return f"{_width(GQA)['transformers_numbers_per_token']}"


@value("mla_full")
def _():
    return f"{_width(MLA)['full_numbers_per_token']}"


@value("mla_shift_scale")
def _():
    return f"{_shift(MLA, 1)['key_scale']:.4f}"


@value("mla_shift_diff")
def _():
    return _e(max(_shift(MLA, k)["diffs"]["no factor"] for k in (1, 3)))


@value("mla_shift_factored")
def _():
    return f"{_shift(MLA, 1)['diffs'][EVERY_KEY]:.2f}"
