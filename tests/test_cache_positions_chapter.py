"""Chapter 23's verbal claims held to the numbers they rest on.

Each test names the sentence of ``docs/inference/kv-cache.md`` it checks; the numbers
come from the chapter's own registrations, so a change of parameters that turns a
claim false fails here, not silently on the page.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import pe_book
from pe_book import TABLES, VALUES
from pe_book.chapters import cache_positions as ch
from pe_book.chapters.cache_positions import cases, common, moves
from pe_explained import cached_angle_error, streaming_distances

pe_book.load_all()
PAGE = Path(__file__).resolve().parent.parent / "docs" / "inference" / "kv-cache.md"


def _number(name: str) -> float:
    from tests.test_stated_bounds import number

    return number(VALUES[f"cache_positions.{name}"].text())


def _rows() -> list[list]:
    return [list(r) for r in TABLES["cache_positions.shift_cases"].build().rows]


def test_the_example_on_the_page_is_the_running_example():
    """The page's first example types the chapter's constants, and prints its value."""
    page = PAGE.read_text(encoding="utf-8")
    assert f"rope_frequencies({ch.HEAD_DIM})" in page
    assert f"normal(size=({ch.N_KEYS}, {ch.HEAD_DIM}))" in page
    assert f"default_rng({common.SEED})" in page
    assert f"np.arange({ch.FIRST}, {ch.FIRST + ch.N_KEYS})" in page
    assert f"-{ch.BACK}, inv_freq" in page and f"at - {ch.BACK}" in page
    shifted = moves._one_shift()["shifted"]
    assert f"'{shifted:.1e}'" in page
    assert VALUES["cache_positions.f32_shift_error"].text().startswith(f"{shifted:.1e}"[:3])


def test_one_shift_costs_about_one_more_rounding():
    """'The moved cache is off by …; float32 keys computed afresh … One shift costs about
    one more rounding.'"""
    one = moves._one_shift()
    assert one["fresh"] < one["shifted"] < 2 * one["fresh"]
    assert one["shifted"] < 2.0**-22


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_the_drift_grows_in_proportion_to_the_moves(dtype):
    """'The error grows in proportion to the number of moves'."""
    err = moves._drift(dtype, common.STEP)
    assert 2.5 < err[400] / err[100] < 5.5
    assert 2.5 < err[ch.QUOTED_SHIFTS] / err[250] < 5.5
    assert err[ch.QUOTED_SHIFTS] > 20 * err[0]


def test_larger_moves_drift_less():
    """'Larger moves turn more pairs visibly: back by 256 at a time, the same number of
    moves leaves … and …'."""
    for dtype in ("float16", "bfloat16"):
        small = moves._drift(dtype, common.STEP)[ch.QUOTED_SHIFTS]
        large = moves._drift(dtype, -ch.LARGE_BACK)[ch.QUOTED_SHIFTS]
        assert large < small / 2


def test_an_fp8_cache_is_lost_after_the_moves_the_page_gives():
    """'is off by as much as the key is long after … moves'."""
    err = moves._drift("FP8 E4M3", common.STEP)
    first = moves.first_lost("FP8 E4M3")
    assert first > 0 and err[first] >= 1.0 and np.all(err[:first] < 1.0)
    assert VALUES["cache_positions.drift_fp8_first"].text() == f"{first:,}"


def test_unrotated_keys_keep_the_one_rounding_of_their_store():
    """'its keys are off by …, the rounding of the stored key and nothing more'."""
    pre = moves._pre_rotation_bf16()
    store = moves._drift("bfloat16", common.STEP)[0]
    assert pre == pytest.approx(store, rel=0.1)
    assert pre < moves._drift("bfloat16", common.STEP)[ch.SHIFTS] / 100


def test_bfloat16_keys_moved_a_thousand_times_are_mostly_wrong():
    """'a bfloat16 cache by 0.82 of the key's length'; the window's key in StreamingLLM."""
    assert 0.5 < _number("drift_bf16") < 1.0


def test_the_right_shifts_are_exact_and_the_wrong_ones_are_not():
    rows = _rows()
    right = [r for r in rows if r[1].startswith("$R") or "the ids' advance" in r[1]]
    wrong = [r for r in rows if r not in right]
    assert len(right) == 3 and all(r[2] < 1e-12 for r in right)
    assert all(r[2] > 0.1 for r in wrong)


def test_the_factor_twice_is_the_factor_minus_one():
    """'the error is the factor minus one, at every position'."""
    factor = cases._yarn()[1]
    assert _rows()[1][2] == pytest.approx(factor - 1, rel=1e-9)
    assert factor == pytest.approx(0.1 * math.log(ch.YARN_FACTOR) + 1)


def test_the_running_example_is_llama_2_7bs():
    """'(d_k = 128 and base 10,000, Llama-2-7B's)'; the figure's line at its context."""
    config = cases._gallery(common.LLAMA2)
    assert ch.HEAD_DIM == config["hidden_size"] // config["num_attention_heads"]
    assert ch.BASE == config["rope_theta"]
    assert common.LLAMA2_CONTEXT == config["max_position_embeddings"]


def test_the_partial_share_is_gpt_neox_20bs():
    """'(the share GPT-NeoX-20B's config gives, rotary_pct …)'."""
    assert ch.ROTARY_DIM / ch.HEAD_DIM == cases._gallery(common.NEOX)["rotary_pct"]


def test_the_mrope_move_is_the_ids_advance():
    """'an image advances the ids by its longer side in tokens … evicting the first 74
    tokens calls for a move of 18 positions, not 74'."""
    side = max(common.IMAGE_PATCHES) // 2  # merged 2 × 2
    assert VALUES["cache_positions.image_tokens"].text() == f"{side} × {side}"
    assert _number("mrope_advance") == ch.TEXT_BEFORE + side
    assert _number("mrope_evicted") == ch.TEXT_BEFORE + side * side
    assert sum(cases._mrope_section()) == ch.HEAD_DIM // 2


def test_dynamic_ntk_stale_angles_pass_half_a_turn_and_no_shift_repairs_them():
    """'reaches 171.8 radians … the last of those keys has 45 of its 64 pairs off by more
    than half a turn'; 'off by … unshifted and by … after the best of every whole shift'.
    Wrapped to (−π, π], as cached_angle_error gives it by default, the angle stops at π:
    the page quotes it unwrapped."""
    short, long = cases._dynamic()
    assert np.abs(cached_angle_error(ch.CONTEXT, short, long)).max() <= math.pi
    assert VALUES["cache_positions.dynamic_angle_max"].text() == "171.8"
    assert VALUES["cache_positions.dynamic_pairs_off"].text() == "45"
    assert VALUES["cache_positions.dynamic_pairs"].text() == "64" == str(ch.HEAD_DIM // 2)
    assert "radians, half a turn" not in PAGE.read_text(encoding="utf-8")
    errors = cases._dynamic_last_key()
    assert min(errors.values()) > 0.5 and errors[0] > 0.5
    assert _number("dynamic_best_error") == pytest.approx(min(errors.values()), abs=0.01)


@pytest.mark.parametrize("total", [ch.STREAM, 10**5, 10**7])
def test_within_the_cache_no_distance_exceeds_the_cache(total):
    """'no distance exceeds 1,023, however long the stream; numbered by the stream, the
    sinks are … positions back, and the largest distance passes Llama 2's … once the
    stream does'."""
    cache = streaming_distances(total, ch.N_SINK, ch.WINDOW)
    stream = streaming_distances(total, ch.N_SINK, ch.WINDOW, mode="original")
    assert cache.max() == ch.N_SINK + ch.WINDOW - 1 == _number("largest_cache_distance")
    assert stream.max() == total - 1
    assert (stream.max() > common.LLAMA2_CONTEXT) == (total > common.LLAMA2_CONTEXT)


def _list_numbers(markdown: str) -> list[str]:
    """Lines of ``markdown`` that start with a value whose text is a whole number and a
    full stop: Markdown reads them as the start of an ordered list."""
    found = []
    for line in markdown.splitlines():
        match = re.match(r"\s*\{\{ value: ([\w.]+)(:[^ }]*)? \}\}[.)]\s", line)
        if match and re.fullmatch(r"\d+", VALUES[match[1]].text((match[2] or ":")[1:])):
            found.append(line)
    return found


def test_no_value_starts_a_line_as_a_list_number():
    """A line of the page that begins with a value such as ``111`` followed by ``. `` would
    become an ordered list once the value is written in (a takeaway once lost its number
    that way)."""
    assert not _list_numbers(PAGE.read_text(encoding="utf-8"))
    lost = "- FP8 keys are off by their own length after\n"
    lost += "  {{ value: cache_positions.drift_fp8_first }}. Keys cached before …\n"
    assert _list_numbers(lost)
