"""Chapter 22's claims hold in the stored results.

The page quotes numbers from ``docs/data/experiments/*.json`` through registered values;
the comparisons it draws in words ("rises", "stays flat", "the worst at retrieval") are
checked here against the same files, so a new run that changes the picture fails a test
instead of leaving the prose wrong. No torch: only the results files are read.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from pe_book import TABLES
from pe_book.chapters import evidence as ev
from pe_book.chapters.evidence import common
from pe_explained import rope_frequencies, t5_relative_bucket

LENGTHS = ev.results("length_generalisation")["eval_lens"]
FIRST, MID, LAST = LENGTHS[0], LENGTHS[len(LENGTHS) // 2], LENGTHS[-1]
TARGET = ev.results("context_extension")["target_len"]
#: Within this many nats, the page calls two losses the same ("flat", "side by side").
FLAT = 0.05
PAGE = Path(__file__).resolve().parent.parent / "docs" / "practice" / "evidence.md"


def _section(title: str) -> str:
    """The text of the page's section ``## title``, up to the next one."""
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 3)
    return text[start : end if end > 0 else len(text)]


def test_every_model_learns_well_past_the_unigram_entropy():
    data = ev.results("length_generalisation")
    unigram = min(data["reference"]["unigram_entropy"])
    for encoding, metrics in data["methods"].items():
        assert max(metrics["train_loss_final"]) < unigram - 0.5, encoding


def test_rope_and_xpos_end_training_lower_than_nope():
    final = {
        e: np.mean(ev.results("length_generalisation")["methods"][e]["train_loss_final"])
        for e in ("rope", "xpos", "nope")
    }
    assert final["rope"] < final["nope"] and final["xpos"] < final["nope"]


def test_the_final_losses_fall_in_the_three_groups_the_page_names():
    """RoPE and xPos lowest, ALiBi next, "the other four well above"."""
    final = {e: ev.train_final(e) for e in ev.results("length_generalisation")["methods"]}
    four = [final[e] for e in ("t5", "sinusoidal", "learned", "nope")]
    assert max(final["rope"], final["xpos"]) < final["alibi"] < min(four) - 0.1, final


def test_no_model_has_converged_and_the_gap_to_rope_is_not_closing():
    slopes = ev.train_slopes()
    assert all(s < 0 for s in slopes.values()), slopes  # every curve still falls
    assert ev.train_gap("nope", "rope") >= ev.train_gap("nope", "rope", ev.LAST_BLOCKS - 1)


def test_the_training_slope_is_a_straight_line_fit(monkeypatch):
    """train_slope on a made-up curve falling 0.2 nats per 100 steps, flat before."""
    steps = ev.claims.block_steps()
    curve = [2.0] * 10 + [2.0 - 0.002 * steps * k for k in range(ev.LAST_BLOCKS)]
    fake = {"methods": {"x": {"train_curve": [curve, curve]}}, "settings": {"steps": 0}}
    monkeypatch.setattr(common, "results", lambda name: fake)
    monkeypatch.setattr(common, "block_steps", lambda: steps)
    assert common.train_slope("x") == pytest.approx(-0.2)
    assert common.train_slope("x", blocks=len(curve)) != pytest.approx(-0.2)


@pytest.mark.parametrize("encoding", ["learned", "sinusoidal"])
def test_absolute_encodings_get_worse_at_once(encoding):
    losses = [ev.loss(encoding, n) for n in LENGTHS]
    assert all(a < b for a, b in zip(losses, losses[1:], strict=False)), losses


def test_rope_degrades_well_before_four_times_its_training_length():
    """Per position, RoPE's excess loss leaves its trained range before 3 × train_len,
    though the mean over a window of 4 × train_len is still close to the first."""
    position, before, after = ev.rope_degradation()
    assert FIRST < position < 3 * FIRST, position
    inside = ev.claims.rope_inside()
    assert inside[1] < after[0] and inside[1] < after[1] - 0.05, (inside, after)
    assert abs(ev.loss("rope", MID) - ev.loss("rope", FIRST)) < FLAT  # the mean hides it
    sliding = [ev.loss("rope", n, "sliding") for n in LENGTHS[:3]]
    assert sliding[0] < sliding[1] < sliding[2], sliding
    assert ev.loss("rope", LAST) > ev.loss("rope", FIRST) + 0.1


def test_the_degradation_finder_on_made_up_curves(monkeypatch):
    """The first position from which every bin lies above the range inside training."""
    width = ev.claims.bin_width(MID)
    inside = FIRST // width
    curve = np.full(len(ev.excess("rope", MID)), 0.1)
    curve[0] = 0.9  # the first bin (no context) does not count
    curve[inside + 2] = 0.3  # one bin above, then back inside: not yet
    curve[inside + 4 :] = 0.3
    monkeypatch.setattr(common, "excess", lambda encoding, n: curve)
    position, before, after = common.degradation("rope", MID)
    assert position == (inside + 4) * width
    assert before == (0.1, 0.3) and after == (0.3, 0.3)
    curve[:] = 0.1
    assert common.degradation("rope", MID)[0] == MID  # never leaves: the window's end


@pytest.mark.parametrize("encoding", ["nope", "t5"])
def test_nope_and_t5_stay_flat(encoding):
    losses = [ev.loss(encoding, n) for n in LENGTHS]
    assert max(losses) - min(losses) < FLAT, losses


@pytest.mark.parametrize("encoding", ["nope", "t5"])
def test_nope_and_t5_are_flat_at_a_higher_loss_than_rope(encoding):
    """Worse than RoPE at every length, the training length included, and RoPE at its
    worst is still below their best."""
    for n in LENGTHS:
        assert ev.loss(encoding, n) > ev.loss("rope", n) + 0.1, n
    assert ev.loss(encoding, FIRST) - ev.loss("rope", FIRST) > 0.25
    assert max(ev.loss("rope", n) for n in LENGTHS) < ev.loss_range(encoding)[0]


def test_nope_and_t5_fit_worse_inside_the_training_window():
    """Their excess over the generator is several times RoPE's and xPos's, bin by bin."""
    start = ev.excess_from() // ev.claims.bin_width(FIRST)
    for worse in ("nope", "t5"):
        assert ev.window_excess(worse) > 2.5 * max(ev.window_excess(e) for e in ("rope", "xpos"))
        for better in ("rope", "xpos"):
            assert (ev.excess(worse, FIRST)[start:] > ev.excess(better, FIRST)[start:]).all()


def test_nope_and_t5_run_side_by_side():
    for n in LENGTHS:
        assert abs(ev.loss("nope", n) - ev.loss("t5", n)) < FLAT, n


@pytest.mark.parametrize("encoding", ["alibi", "xpos"])
def test_alibi_and_xpos_improve_with_length(encoding):
    assert ev.loss(encoding, LAST) < ev.loss(encoding, FIRST)


def test_the_sliding_window_scores_rope_worse_at_the_longest_length():
    assert ev.loss("rope", LAST, "sliding") > ev.loss("rope", LAST)


def test_t5_buckets_past_the_training_length_were_never_trained():
    longest, seen, unseen = ev.t5_buckets_seen()
    assert longest == FIRST - 1 and unseen > 0


def test_t5_unseen_buckets_start_past_the_longest_training_distance():
    """The last bucket training reached also holds a few longer distances: the first
    distance in an unseen bucket is found by checking every distance with the library."""
    longest, seen, _ = ev.t5_buckets_seen()
    first = ev.t5_first_unseen_distance()
    buckets = t5_relative_bucket(
        -np.arange(300), bidirectional=False, num_buckets=32, max_distance=128
    )
    assert first == int(np.flatnonzero(buckets > seen)[0])
    assert first > longest + 1 and (buckets[longest:first] == seen).all()


def test_passkey_story():
    pk = {e: ev.passkey(e, LAST) for e in ("nope", "t5", "alibi", "rope", "xpos")}
    assert pk["nope"] >= 0.95 and pk["t5"] >= 0.95
    assert pk["xpos"] < pk["rope"] < pk["alibi"] < pk["nope"], pk
    # xPos: the best by loss at the longest length, the worst at retrieval
    losses = {e: ev.loss(e, LAST) for e in ev.results("length_generalisation")["methods"]}
    assert min(losses, key=losses.get) == "xpos", losses
    assert ev.passkey("learned", FIRST) < 0.5 and ev.passkey_best("learned") < 0.5


def test_the_sinusoidal_encoding_degrades_in_loss_and_keeps_the_key():
    """The mirror image of xPos: worse loss past the training length, better retrieval
    at the longest length than ALiBi, RoPE and xPos."""
    assert ev.loss("sinusoidal", LAST) > ev.loss("sinusoidal", FIRST) + 0.05
    for other in ("alibi", "rope", "xpos"):
        assert ev.passkey("sinusoidal", LAST) > ev.passkey(other, LAST) + 0.2, other


def test_the_passkey_summary_names_every_encoding():
    """The retrieval section quotes every encoding's passkey accuracy and names it."""
    section = _section("Retrieval: the passkey")
    for encoding, label in ev.ENCODING_LABELS.items():
        if encoding in ev.results("length_generalisation")["methods"]:
            assert re.search(rf"evidence\.passkey_{encoding}_\w+", section), encoding
            name = "T5" if encoding == "t5" else label
            assert name in section or name.capitalize() in section, label


def test_the_takeaways_name_the_absolute_comparison_and_the_mirror_case():
    takeaways = _section("Takeaways")
    for name in ("gap_nope_rope_first", "gap_t5_rope_first", "loss_rope_last"):
        assert f"evidence.{name}" in takeaways, name
    assert "evidence.passkey_sinusoidal_last" in takeaways


def test_the_page_no_longer_says_what_the_runs_do_not_show():
    text = PAGE.read_text(encoding="utf-8")
    for wrong in (
        "absolute encodings fail past their table",
        "NoPE has no position to go out of range",
        "further from converged",
        "helps every method",
        "learns order at all",
        "RoPE holds for a while",
    ):
        assert wrong not in text, wrong


def test_the_ranges_are_seed_spreads_and_the_standard_error_is_binomial():
    s = ev.results("length_generalisation")["settings"]
    documents = s["passkey_samples"] * len(s["depths"])
    assert ev.passkey_documents() == documents
    p = ev.passkey("rope", LAST)
    assert ev.binomial_se(p) == pytest.approx(np.sqrt(p * (1 - p) / documents))
    assert ev.binomial_se(0.5) == pytest.approx(0.5 / np.sqrt(documents))


def test_the_setup_table_states_the_objective_and_the_passkey_from_the_results():
    data = ev.results("length_generalisation")
    s, task = data["settings"], data["task"]
    rows = {r[0]: r[1] for r in TABLES["evidence.setup"].build().rows}
    assert f"{s['answer_weight']:g} × the cross-entropy" in rows["objective"]
    assert f"{s['passkey_share']:.0%} of each batch" in rows["objective"]
    for ids in task["digit_ids"]:
        assert f"{ids[0]}–{ids[-1]}" in rows["passkey"]
    # every digit has its own ids: the slots do not share a token
    flat = [i for ids in task["digit_ids"] for i in ids]
    assert len(flat) == len(set(flat)) == task["key_length"] * task["digit_values"]


def test_position_interpolation_needs_its_fine_tune():
    assert ev.extension_loss("pi", "zero_shot", FIRST) > ev.loss("rope", FIRST) + 0.2
    tuned = {m: ev.extension_loss(m, "fine_tuned", TARGET) for m in ev.METHOD_LABELS}
    assert max(tuned, key=tuned.get) == "pi", tuned


@pytest.mark.parametrize("method", ["ntk", "dynamic", "yarn"])
def test_frequency_aware_methods_keep_short_windows_and_hold_further(method):
    assert abs(ev.extension_loss(method, "zero_shot", FIRST) - ev.loss("rope", FIRST)) < FLAT
    assert ev.extension_loss(method, "zero_shot", LAST) < ev.loss("rope", LAST)


def test_retrieval_separates_the_methods():
    pk = {m: ev.extension_passkey(m, "zero_shot", LAST) for m in ("dynamic", "yarn", "ntk")}
    assert pk["dynamic"] > pk["ntk"] and pk["yarn"] > pk["ntk"], pk
    assert pk["ntk"] > ev.passkey("rope", LAST)


@pytest.mark.parametrize("method", list(ev.METHOD_LABELS))
def test_fine_tuning_lowers_every_methods_loss_at_the_target_length(method):
    tuned = ev.extension_loss(method, "fine_tuned", TARGET)
    assert tuned < ev.extension_loss(method, "zero_shot", TARGET)


def test_fine_tuned_rope_holds_its_loss_and_its_retrieval_improves_in_part():
    at_target = ev.extension_loss("rope", "fine_tuned", TARGET)
    assert abs(ev.extension_loss("rope", "fine_tuned", LAST) - at_target) < FLAT
    rope = ev.extension_passkey("rope", "fine_tuned", LAST)
    assert ev.passkey("rope", LAST) + 0.1 < rope < 0.6
    assert rope < ev.extension_passkey("dynamic", "fine_tuned", LAST)


def test_position_interpolations_retrieval_past_the_target_hardly_moves():
    """The same mean accuracy at the longest length to two decimals, most seed × depth
    cells unchanged, few documents changing outcome, a lower loss: a different model
    whose retrieval there is where it was."""
    same, cells = ev.same_cells("pi", LAST)
    assert same > cells / 2
    zero, tuned = (ev.extension_passkey("pi", k, LAST) for k in ("zero_shot", "fine_tuned"))
    assert f"{zero:.2f}" == f"{tuned:.2f}"
    assert (
        ev.extension_loss("pi", "fine_tuned", LAST)
        < ev.extension_loss("pi", "zero_shot", LAST) - 0.1
    )
    changed, documents = ev.documents_changed("pi", LAST)
    assert 0 < changed < 0.05 * documents
    pi = [ev.answer_loss("pi", k, LAST) for k in ("zero_shot", "fine_tuned")]
    rope = [ev.answer_loss("rope", k, LAST) for k in ("zero_shot", "fine_tuned")]
    assert abs(pi[0] - pi[1]) < 0.05 and rope[0] - rope[1] > 0.1, (pi, rope)


def test_pis_fine_tune_shows_no_angle_that_training_did_not():
    """PI's frequencies are the plain ones over the factor: at the target length its
    fine-tune turns every pair through exactly the angles of training; the unchanged
    model's through factor times them; YaRN's slowest pairs as PI's."""
    factor = ev.results("context_extension")["factor"]
    np.testing.assert_allclose(ev.fine_tune_angle_ratios("pi"), 1.0, rtol=1e-12)
    np.testing.assert_allclose(ev.fine_tune_angle_ratios("rope"), factor, rtol=1e-12)
    yarn = np.isclose(ev.fine_tune_angle_ratios("yarn"), 1.0, rtol=1e-9)
    k = ev.pairs_as_in_training("yarn")
    assert 0 < k < len(yarn) and yarn[-k:].all() and not yarn[:-k].any()  # the slowest
    inv, _ = rope_frequencies(len(yarn) * 2)
    assert (np.diff(inv) < 0).all()  # pairs run from fast to slow


def test_yarn_gains_little_retrieval_from_the_fine_tune():
    zero = ev.extension_passkey("yarn", "zero_shot", LAST)
    assert abs(ev.extension_passkey("yarn", "fine_tuned", LAST) - zero) < FLAT


def test_position_interpolation_retrieves_better_than_plain_rope_zero_shot():
    assert ev.extension_passkey("pi", "zero_shot", LAST) > ev.passkey("rope", LAST) + 0.3


@pytest.mark.parametrize("method", list(ev.METHOD_LABELS))
def test_keys_far_from_the_question_are_lost_first(method):
    for stage in ("zero_shot", "fine_tuned"):
        grid = ev.depth_grid(ev.results("context_extension")["methods"][method][stage], [LAST])
        assert grid[0, 0] <= grid[-1, 0], (stage, grid[:, 0])


# The designs of 2025–26 and the remapping methods ---------------------------------------


def _losses(encoding):
    return [ev.loss(encoding, n) for n in LENGTHS]


def test_sliding_window_rope_with_global_nope_keeps_falling_and_finds_the_key():
    losses = _losses("swa_nope")
    assert all(a > b for a, b in zip(losses, losses[1:], strict=False)), losses
    assert ev.passkey("swa_nope", LAST) > 0.9
    assert losses[0] > ev.loss("rope", FIRST)  # it pays a little at the training length
    assert all(
        w == ev.designs.layer_pattern("swa_nope")[0][1]
        for r, w in ev.designs.layer_pattern("swa_nope")
        if r
    )


def test_one_nope_layer_in_four_rises_as_rope_does():
    losses = _losses("rope_nope")
    assert losses[-1] > losses[0] + 0.05 and abs(losses[-1] - ev.loss("rope", LAST)) < 0.1
    assert ev.passkey("rope_nope", LAST) < 0.5
    assert [r for r, _ in ev.designs.layer_pattern("rope_nope")] == [True, True, True, False]


def test_rotating_less_keeps_retrieval_not_the_loss():
    for encoding in ("partial", "p_rope"):
        assert min(ev.passkey(encoding, n) for n in LENGTHS) >= 0.95, encoding
        losses = _losses(encoding)
        assert losses[-1] > losses[0] + 0.1, encoding
        assert ev.passkey(encoding, LAST) > ev.passkey("rope", LAST) + 0.5


def test_a_high_base_trades_loss_for_reach():
    assert all(ev.loss("rope_1e6", n) > ev.loss("rope", n) for n in LENGTHS)
    assert ev.passkey("rope_1e6", LAST) > ev.passkey("rope", LAST) + 0.3
    high, pairs = ev.designs.pairs_still(1e6, LAST)
    low, _ = ev.designs.pairs_still(1e4, LAST)
    assert low < high < pairs


def test_rerope_and_dca_hold_loss_and_key_past_every_frequency_method():
    frequency = ("rope", "pi", "ntk", "dynamic", "yarn")
    best = min(ev.designs.remap_loss(m, LAST) for m in frequency)
    train_len = ev.results("length_generalisation")["train_len"]
    for method in ("rerope", "dual_chunk"):
        assert ev.designs.remap_loss(method, LAST) < best, method
        assert ev.designs.remap_passkey(method, LAST) >= 0.99, method
        assert ev.designs.remap_passkey(method, LAST) > ev.designs.remap_passkey("dynamic", LAST)
        assert ev.designs.largest_distance(method, LAST) <= train_len, method
    assert best == ev.designs.remap_loss("yarn", LAST)  # the best frequency method by loss
    best_key = max(ev.designs.remap_passkey(m, LAST) for m in frequency)
    assert best_key == ev.designs.remap_passkey("dynamic", LAST)  # and by retrieval


def test_self_extend_holds_as_far_as_it_was_set_for():
    train_len = ev.results("length_generalisation")["train_len"]
    zero_shot = [ev.designs.remap_loss(m, TARGET) for m in ("rope", "pi", "ntk", "dynamic", "yarn")]
    at_target = ev.designs.remap_loss("self_extend", TARGET)
    assert at_target < min(zero_shot)
    assert ev.designs.largest_distance("self_extend", TARGET) <= train_len
    assert ev.designs.largest_distance("self_extend", LAST) > train_len
    assert ev.designs.remap_loss("self_extend", LAST) > at_target + 0.05
    assert ev.designs.remap_passkey("self_extend", LAST) < ev.designs.remap_passkey(
        "self_extend", TARGET
    )
    remapped = [ev.designs.remap_loss(m, TARGET) for m in ("self_extend", "rerope", "dual_chunk")]
    assert max(remapped) < min(zero_shot)  # the three lowest at the target length


def test_a_passkey_cell_has_a_standard_error_of_at_most_three_hundredths():
    documents = ev.claims.passkey_cell_documents()
    assert np.sqrt(0.25 / documents) <= 0.03
