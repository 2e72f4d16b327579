"""Verbal claims of chapters 14, 15, 20, 21, 24 and 26 held to the numbers they rest on.

Each test names the sentence it checks. The numbers come from the chapters' own
registrations (tables, values, figure data), so a change of parameters that turns a
claim false fails here, not silently on the page.
"""

from __future__ import annotations

import numpy as np
import pytest

import pe_book
from pe_book import FIGURES, TABLES, VALUES

pe_book.load_all()


def _rows(name: str) -> dict[str, list]:
    table = TABLES[name].build()
    return {str(row[0]): list(row[1:]) for row in table.rows}


# ---- chapter 20, positions in low precision


def test_bfloat16_keeps_255_apart_from_its_successor_and_stores_256_like_257():
    """'position 256 is the first it stores like its successor and 255 the last it keeps
    apart from its successor'."""
    import ml_dtypes

    from pe_explained import stored_positions

    assert VALUES["precision.bf16_first_collision"].text() == "256"
    assert VALUES["precision.bf16_last_distinct"].text() == "255"
    s = stored_positions([254, 255, 256, 257], ml_dtypes.bfloat16)
    assert s[0] != s[1] != s[2] and s[2] == s[3]


def test_a_bfloat16_inv_freq_is_visibly_wrong_within_a_thousand_positions():
    """'a wrong rotation well within the first thousand positions'."""
    from pe_book.chapters.precision import BF16_BUFFER

    errors = _rows("precision.angle_errors")[BF16_BUFFER]
    assert errors[0] > 0.5 and max(errors) > 1.9


def test_the_score_error_of_bfloat16_storage_is_flat_and_above_the_float32_drift():
    """'the rounding of the rotated vectors does not grow with the position or the
    distance ... larger than the float32 recipe's drift up to a hundred thousand
    positions'; FP8 keys cost more; float32 storage almost nothing."""
    from pe_book.chapters.precision import LENGTHS

    rows = _rows("precision.score_errors")
    bf16 = rows["float64 angles; q, k in bfloat16"]
    assert max(bf16) / min(bf16) < 1.5
    drift = rows["float32 recipe; q, k in float32"]
    for length, stored, drifted in zip(LENGTHS, bf16, drift, strict=True):
        assert (stored > drifted) == (length <= 100_000)
    assert min(rows["float64 angles; q in bfloat16, k in FP8 E4M3"]) > 5 * max(bf16)
    assert max(rows["float64 angles; q, k in float32"]) < 1e-7


# ---- chapter 21, RoPE in today's models


def test_sliding_layers_count_against_their_window():
    """The gallery's 'slower than context' on Gemma 3's sliding layers: against the
    window they see, 57 of 128 (12B, window 1,024) and 66 of 128 (1B, window 512)."""
    cells = [row[2] for row in TABLES["todays_models.gallery_computed"].build().rows]
    assert "57 of 128 (window 1,024)" in cells
    assert "66 of 128 (window 512)" in cells
    assert "0 of 128" not in cells  # the old count against the full context


def _computed_rows() -> dict[str, list]:
    return {str(r[0]): list(r[1:]) for r in TABLES["todays_models.gallery_computed"].build().rows}


def test_a_window_as_long_as_the_context_is_not_listed_as_a_window():
    """Phi-3.5 mini and Phi-4 mini state a window of 262,144 over a context of 131,072: it
    never cuts, so neither the windowed list nor their rows name it as the bound."""
    listed = VALUES["todays_models.windowed_slower"].text()
    assert "Phi" not in listed and "262,144" not in listed
    inert = VALUES["todays_models.inert_windows"].text()
    assert "Phi-3.5 mini instruct and Phi-4 mini instruct" in inert and "131,072" in inert
    rows = _computed_rows()
    for name in ("Phi-3.5 mini instruct", "Phi-4 mini instruct"):
        slower, also = rows[name][1], rows[name][-1]
        assert "window" not in str(slower) and "never cuts" in also


def test_p_rope_rows_count_the_dims_that_turn():
    """Gemma 4's proportional layers rotate 512 dims of which only 128 turn."""
    cells = [row[3] for row in TABLES["todays_models.gallery"].build().rows]
    assert any(c.startswith("128 turning of 512, p-RoPE") for c in cells)
    assert not any(c.startswith("512 of 512") for c in cells)


def test_qwen3_vls_slowest_pairs_all_follow_time():
    """mrope_section [24, 20, 20] interleaved: 60 pairs cycle, the last 4 are time's."""
    assert VALUES["todays_models.qwen3_vl_cycled"].text() == "60"
    assert VALUES["todays_models.qwen3_vl_time_tail"].text() == "4"


def test_llama4_scout_names_the_instruct_context():
    """The base model's 262,144 is 32 times 8,192; the Instruct model's 10,485,760 is 1,280."""
    assert VALUES["todays_models.llama4_ratio"].text() == "32"
    assert VALUES["todays_models.llama4_instruct_ratio"].text() == "1,280"


def test_dual_chunk_attention_is_named_in_its_row():
    (row,) = [v for k, v in _computed_rows().items() if k.startswith("Qwen2.5 14B Instruct 1M")]
    assert "Dual Chunk Attention" in row[-1]


def test_gpt_oss_sliding_layers_have_their_own_rows_and_letters():
    """gpt-oss's sliding and full layers share one RoPE; the rows and the pattern still
    tell them apart: 23 of 32 pairs slower than its 128-token window, 14 than its context."""
    rows = _computed_rows()
    assert rows["gpt-oss-20b, sliding layers"][1] == "23 of 32 (window 128)"
    assert rows["gpt-oss-20b, full layers"][1] == "14 of 32"
    (row,) = [
        r for r in TABLES["todays_models.layer_sources"].build().rows if r[0] == "gpt-oss-20b"
    ]
    assert row[-1] == "`SF × 12`"
    assert "23 of 32 in gpt-oss-20b, window 128" in VALUES["todays_models.windowed_slower"].text()


def _expand(pattern: str) -> str:
    """A layer pattern of Table 21.5 written out again: parts joined by " + ", each a
    unit "× k" times or the letters themselves."""
    out = ""
    for part in pattern.split(" + "):
        unit, _, times = part.partition(" × ")
        out += unit * int(times or 1)
    return out


def test_every_hybrids_pattern_spells_its_model_s_layers_in_short_parts():
    from pe_book.chapters.todays_models.hybrids import LITERAL, _sources, pattern
    from pe_explained import inspect_config

    for entry, _ in _sources():
        strip = inspect_config(entry.reading)["layer_strip"]["strip"]
        written = pattern(strip)
        assert _expand(written) == strip, (entry.stem, written)
        # every part wraps on its own: no part longer than a run of LITERAL letters
        assert all(len(part) <= LITERAL + 4 for part in written.split(" + ")), written
    nemotron = "~-~-~n" + "-~-~-~n" * 4 + "-~-~-~-~n" + "-~-~-~-~-"
    assert pattern(nemotron) == "~-~-~n + -~-~-~n × 4 + -~-~-~-~n + -~-~-~-~-"
    assert _expand("~~R × 3 + ~R~") == "~~R~~R~~R~R~"


def test_the_hybrids_table_claims_no_release_months_it_cannot_source():
    assert "released" not in TABLES["todays_models.layer_sources"].build().columns


def test_ministral3_has_no_step_before_its_pre_training_context():
    """'Its first step therefore comes at m = L, not L − 1'."""
    table = TABLES["todays_models.ministral_temperature"].build()
    factors = {row[0]: row[1] for row in table.rows}
    assert factors[8_191] == 1.0 and factors[16_383] == 1.0 and factors[16_384] > 1.0
    assert VALUES["todays_models.ministral_offset"].text() == "0"
    assert VALUES["todays_models.ministral_context"].text() == "16,384"


def test_mla_caches_the_latent_and_the_rotated_key():
    """'(d_c + d_h^R) l numbers per token ... the rotated key is 11 % of it'."""
    assert VALUES["todays_models.mla_per_layer"].text() == "576"
    assert VALUES["todays_models.mla_rope_share"].text() == "11"


# ---- chapter 15, stretching the context


def test_llama31_row_applies_its_rule():
    """Table 15.2's Llama 3.1 row, with the factor-8 rule of its code and config."""
    rows = _rows("context_extension.abf_models")
    (name,) = [n for n in rows if n.startswith("Llama 3.1")]
    base, length, slowest, slow, slow_at_10k = rows[name]
    assert round(slowest) == 20_473_564 and slow == 25 and length == 131_072
    assert VALUES["context_extension.llama31_rule_stretch"].text() == "8"


def test_the_unscaled_rows_agree_with_slow_pair_count():
    from pe_book.chapters.context_extension import ABF_MODELS, BASE, HEAD_DIM
    from pe_explained import slow_pair_count

    rows = _rows("context_extension.abf_models")
    for name, base, length, scaling in ABF_MODELS:
        if scaling is None:
            assert rows[name][3:] == [
                slow_pair_count(length, HEAD_DIM, base=base),
                slow_pair_count(length, HEAD_DIM, base=BASE),
            ]


def test_the_decay_bound_levels_off_only_at_base_10000():
    """'At base 10,000 the bound falls over the first bands and then levels off ... At
    500,000 and 1,000,000 it is still falling in the last band, and in every band a
    larger base keeps it higher'."""
    rows = [row[1:] for row in TABLES["context_extension.abf_decay"].build().rows]
    low, mid, high = (np.array(r, dtype=float) for r in rows)
    assert np.all(np.diff(low[:3]) < 0)
    assert np.ptp(low[-3:]) / low[-3:].mean() < 0.03 and low[-1] > low[-2]
    assert np.all(np.diff(mid) < 0) and np.all(np.diff(high) < 0)
    assert np.all(low < mid) and np.all(mid < high)
    assert VALUES["context_extension.decay_levelling_bases"].text() == "10,000"
    assert VALUES["context_extension.decay_falling_bases"].text() == "500,000 and 1,000,000"


# ---- chapter 14, xPos and NoPE


def test_figure_14_1_shows_the_numbers_the_prose_quotes():
    """The prose's far minima (every integer distance) are points of the figure, and its
    alt text gives the same numbers."""
    from pe_book.chapters.xpos_nope import FAR, HEAD_DIM, SCALE_BASE, figure_distances
    from pe_explained.xpos import expected_rotary_score

    drawn = figure_distances()
    far = drawn[drawn >= FAR[0]]
    rope = expected_rotary_score(HEAD_DIM, far)
    xpos = expected_rotary_score(HEAD_DIM, far, scale_base=SCALE_BASE)
    assert f"{rope.min():.2f}" == VALUES["xpos_nope.rope_far_min"].text()
    assert f"{xpos.min():.3f}" == VALUES["xpos_nope.xpos_far_min"].text()
    alt = FIGURES["xpos_vs_rope_score"].alt_text()
    minus = str.maketrans("-", "−")
    assert VALUES["xpos_nope.rope_far_min"].text().translate(minus) in alt
    assert VALUES["xpos_nope.xpos_far_min"].text().translate(minus) in alt
    assert "from 0" not in alt and "above zero" not in alt
    negative_from = int(VALUES["xpos_nope.xpos_negative_from"].text().replace(",", ""))
    tail = expected_rotary_score(
        HEAD_DIM, np.arange(negative_from - 1, FAR[-1] + 1), scale_base=SCALE_BASE
    )
    assert tail[0] >= 0 and np.all(tail[1:] < 0)


@pytest.mark.parametrize("name", ["xpos_vs_rope_score"])
def test_changed_figures_have_alt_text_with_their_parameters(name):
    assert len(FIGURES[name].alt_text()) > 200


# ---- chapter 24, padding and packing


def test_a_batch_turns_pairs_of_a_short_row_by_more_than_half_a_turn():
    """'the largest change of a pair's angle is 0.42 and 4.20 radians; at 100 tokens,
    10 of the 64 pairs turn by more than half a turn': the angle unwrapped (wrapped to
    (−π, π], 4.20 would read 3.12)."""
    from pe_book.chapters.padding_packing import batches
    from pe_explained import cached_angle_error

    assert VALUES["padding_packing.dyn_offsets"].text() == "10 and 100"
    assert VALUES["padding_packing.dyn_angle_small"].text() == "0.42"
    assert VALUES["padding_packing.dyn_angle_large"].text() == "4.20"
    assert VALUES["padding_packing.dyn_pairs_off"].text() == "10"
    alone, batched = batches._dynamic(batches.SHORT), batches._dynamic(batches.LONGEST)
    wrapped = np.abs(cached_angle_error([100], alone, batched)).max()
    assert round(float(wrapped), 2) == 3.12


# ---- chapter 26, positions in the runtimes


def test_vllm_reads_a_length_the_file_leaves_out_from_the_config_class():
    """'Gemma 3 27B-it's text_config states no max_position_embeddings, and vLLM allows
    the 131,072 of Gemma3TextConfig, not the 2,048 it assumes when no length key is set
    at all'."""
    from pe_explained import vllm_max_model_len

    assert VALUES["runtimes.gemma3_class_length"].text() == "131,072"
    assert VALUES["runtimes.vllm_fallback"].text() == "2,048"
    gemma = {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text"}}
    gemma["text_config"]["rope_scaling"] = {"rope_type": "linear", "factor": 8.0}
    gemma["text_config"]["head_dim"] = 128
    assert vllm_max_model_len(gemma)["limit"] == 131_072


def test_the_hybrids_prose_counts_what_transformers_builds():
    """Chapter 21's counts for the hybrids of the gallery, each as transformers 5.23 builds
    the model (tests/test_verify.py verifies every layer of these files)."""
    quoted = {
        "quarter_attention_models": "2",  # Qwen3-Coder-Next and Qwen3.5 27B
        "bamba_rotary": "3",
        "bamba_layers": "32",
        "lfm2_rotary": "6",
        "lfm2_recurrent": "10",
        "lfm2_layers": "16",
        "jamba_nope": "4",
        "jamba_layers": "32",
        "nemotron_nope": "6",
        "nemotron_recurrent": "23",
        "nemotron_unmixed": "23",
        "nemotron_layers": "52",
        "mimo_sliding_layers": "39",
        "mimo_full_layers": "9",
        "mimo_window": "129",
        "mimo_rotated": "64",
        "mimo_head": "192",
    }
    assert {k: VALUES[f"todays_models.{k}"].text() for k in quoted} == quoted
